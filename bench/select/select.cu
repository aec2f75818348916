/* bench/select/select.cu -- stream compaction against CUB and the copy rate: select by
 * flags (10%, 50%, all, none, alternating kept), partition, nonzero, unique and run-length
 * encode (runs of 1, 8 and 1024), 8-byte and 16-byte elements, small sizes against the
 * empty-launch floor, and the ladder from the classic three passes (Sengupta, Harris,
 * Zhang & Owens, "Scan Primitives for GPU Computing", 2007: flags, scan, scatter) to the
 * one-pass kernel.
 *
 * Bytes counted: what each call must move: the input, the flags (1 byte each), and the
 * outputs it writes (kept items; partition's n items; nonzero's 8-byte indices; unique's
 * values; run-length's values and 8-byte lengths). % of copy: the time a device-to-device
 * copy takes for those bytes (copy rate measured in this run, 2^28 floats) over the call's
 * time. vs CUB: CUB's time over gpuprims' (above 1: faster): cub::DeviceSelect::Flagged,
 * DevicePartition::Flagged, DeviceSelect::Unique, DeviceRunLengthEncode::Encode (lengths
 * as uint64_t, as gpuprims writes them), temp storage allocated outside the timed region.
 * nonzero has no CUB call; it is shown against the copy rate only. Every row's count and
 * output are checked against CUB's (select, unique, run-length: identical; partition: the
 * selected side, and the rejected count) before it is timed. Inputs of 2^24 and more are
 * beyond the L2 (50 MB); small sizes are timed back to back (64 calls between the events).
 *
 * Build and run:  make bench-select   (or: make build/bench/select/select && build/bench/select/select)
 * Tables: stdout and bench/results/<gpu>.select.{md,csv}. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"

typedef struct { int32_t key, pad; double w; } rec16_t; /* a 16-byte user type */
#define KEY_BELOW(r, p) ((r).key < (p))
GP_DEFINE_SELECT(rec_below, rec16_t, int32_t, KEY_BELOW)
struct key_negative { /* the same predicate for CUB's DeviceSelect::If */
    __device__ bool operator()(const rec16_t &r) const { return r.key < 0; }
};

static __device__ uint32_t d_h32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
/* flags: kept with probability pct/1000 (pct = -1: alternating) */
__global__ void fill_flags(uint8_t *f, size_t n, int per_mille)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        f[i] = per_mille < 0 ? (uint8_t)(i & 1) : (uint8_t)(d_h32(i, 7) % 1000 < (uint32_t)per_mille);
}
__global__ void fill_f32(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (d_h32(i, 3) & 1) ? (float)(d_h32(i, 4) % 1000) : 0.0f;
}
__global__ void fill_runs(int32_t *x, size_t n, size_t run)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (int32_t)(d_h32(i / run, 5) | 1u) * (int32_t)((i / run) & 1 ? 1 : -1);
}
__global__ void fill_bytes(uint32_t *x, size_t words)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        x[i] = d_h32(i, 9);
}
__global__ void count_diff(const uint32_t *a, const uint32_t *b, size_t words, unsigned long long *bad)
{
    unsigned long long m = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        m += a[i] != b[i];
    if (m) atomicAdd(bad, m);
}

/* the buffers, sized for 2^28 floats */
static const size_t NMAX = (size_t)1 << 28;
static float *X, *O, *R, *CO;
static uint8_t *F;
static uint64_t *L, *CL, *CNT;
static int *CCNT;
static void *TMP;
static size_t TMP_BYTES;
static double COPY_GBS;
static int BAD_ROWS;

static unsigned long long *BAD;
/* words of a and b that differ (device) */
static unsigned long long diff_words(const void *a, const void *b, size_t bytes)
{
    CUDA_CHK(cudaMemset(BAD, 0, 8));
    count_diff<<<2048, 256>>>((const uint32_t *)a, (const uint32_t *)b, bytes / 4, BAD);
    CUDA_CHK_LAUNCH();
    unsigned long long h = 0;
    CUDA_CHK(cudaMemcpy(&h, BAD, 8, cudaMemcpyDeviceToHost));
    return h;
}
static uint64_t get_u64(const uint64_t *p)
{
    uint64_t v;
    CUDA_CHK(cudaMemcpy(&v, p, 8, cudaMemcpyDeviceToHost));
    return v;
}
static int get_int(const int *p)
{
    int v;
    CUDA_CHK(cudaMemcpy(&v, p, 4, cudaMemcpyDeviceToHost));
    return v;
}

/* ---- the calls ---------------------------------------------------------------------------- */
enum { K_SELECT, K_PARTITION, K_NONZERO, K_UNIQUE, K_RLE, K_SELECT_F64, K_SELECT_V16, K_THREE_PASS, K_SELECT_ONE, K_RLE_ONE };
typedef struct { int kind; size_t n; int cub; } call_t;

__global__ void mark(uint32_t *pos, const uint8_t *f, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        pos[i] = f[i] != 0;
}
__global__ void scatter(float *out, uint64_t *count, const float *x, const uint8_t *f, const uint32_t *pos, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int k = f[i] != 0;
        if (k) out[pos[i]] = x[i];
        if (i == n - 1) *count = pos[i] + k;
    }
}

static void run_call(void *p)
{
    const call_t *c = (const call_t *)p;
    const size_t n = c->n;
    const int in = (int)n;
    if (!c->cub) {
        switch (c->kind) {
        case K_SELECT: CUDA_CHK(gp_select_flagged_f32(O, CNT, X, F, n, 0)); break;
        case K_PARTITION: CUDA_CHK(gp_partition_flagged_f32(O, R, CNT, X, F, n, 0)); break;
        case K_NONZERO: CUDA_CHK(gp_nonzero_f32(L, CNT, X, n, 0)); break;
        case K_UNIQUE: CUDA_CHK(gp_unique_i32((int32_t *)O, CNT, (const int32_t *)X, n, 0)); break;
        case K_RLE: CUDA_CHK(gp_run_length_i32((int32_t *)O, L, CNT, (const int32_t *)X, n, 0)); break;
        case K_SELECT_F64: CUDA_CHK(gp_select_flagged_f64((double *)O, CNT, (const double *)X, F, n, 0)); break;
        case K_SELECT_V16: CUDA_CHK(gp_select_rec_below((rec16_t *)O, CNT, (const rec16_t *)X, n, 0, 0)); break;
        case K_SELECT_ONE: /* the ladder's one-tile kernel */
            CUDA_CHK((gp__select<GP__SEL_FLAGGED, float, char, gp__sel_default_fn<float>, true>(
                {X, F, 0, O, NULL, NULL, NULL, CNT}, n, 0)));
            break;
        case K_RLE_ONE: /* run-length's ladder: the one-tile kernel */
            CUDA_CHK((gp__select<GP__SEL_RUNS, int32_t, char, gp__sel_default_fn<int32_t>, true>(
                {(const int32_t *)X, NULL, 0, (int32_t *)O, NULL, NULL, L, CNT}, n, 0)));
            break;
        case K_THREE_PASS: /* flags to u32, scan in place, scatter */
            mark<<<2048, 256>>>((uint32_t *)R, F, n);
            CUDA_CHK(gp_exclusive_scan_sum_u32((uint32_t *)R, (uint32_t *)R, n, 0));
            scatter<<<2048, 256>>>(O, CNT, X, F, (const uint32_t *)R, n);
            break;
        }
        return;
    }
    size_t b = TMP_BYTES;
    switch (c->kind) {
    case K_SELECT:
    case K_SELECT_ONE: CUDA_CHK(cub::DeviceSelect::Flagged(TMP, b, X, F, CO, CCNT, in)); break;
    case K_PARTITION: CUDA_CHK(cub::DevicePartition::Flagged(TMP, b, X, F, CO, CCNT, in)); break;
    case K_UNIQUE: CUDA_CHK(cub::DeviceSelect::Unique(TMP, b, (const int32_t *)X, (int32_t *)CO, CCNT, in)); break;
    case K_RLE:
    case K_RLE_ONE:
        CUDA_CHK(cub::DeviceRunLengthEncode::Encode(TMP, b, (const int32_t *)X, (int32_t *)CO, CL, CCNT, in));
        break;
    case K_SELECT_F64:
        CUDA_CHK(cub::DeviceSelect::Flagged(TMP, b, (const double *)X, F, (double *)CO, CCNT, in));
        break;
    case K_SELECT_V16:
        CUDA_CHK(cub::DeviceSelect::If(TMP, b, (const rec16_t *)X, (rec16_t *)CO, CCNT, in, key_negative()));
        break;
    }
}

static size_t cub_temp(const call_t *c)
{
    size_t b = 0;
    const int in = (int)c->n;
    switch (c->kind) {
    case K_SELECT:
    case K_SELECT_ONE: cub::DeviceSelect::Flagged(NULL, b, X, F, CO, CCNT, in); break;
    case K_PARTITION: cub::DevicePartition::Flagged(NULL, b, X, F, CO, CCNT, in); break;
    case K_UNIQUE: cub::DeviceSelect::Unique(NULL, b, (const int32_t *)X, (int32_t *)CO, CCNT, in); break;
    case K_RLE:
    case K_RLE_ONE: cub::DeviceRunLengthEncode::Encode(NULL, b, (const int32_t *)X, (int32_t *)CO, CL, CCNT, in); break;
    case K_SELECT_F64: cub::DeviceSelect::Flagged(NULL, b, (const double *)X, F, (double *)CO, CCNT, in); break;
    case K_SELECT_V16: cub::DeviceSelect::If(NULL, b, (const rec16_t *)X, (rec16_t *)CO, CCNT, in, key_negative()); break;
    }
    return b;
}

static size_t elem_of(int kind) { return kind == K_SELECT_F64 ? 8 : kind == K_SELECT_V16 ? 16 : 4; }

/* Runs gp (and CUB where it has the call), checks, times; returns gp's ms. */
static float row(const char *what, int kind, size_t n, int small)
{
    call_t g = {kind, n, 0}, c = {kind, n, 1};
    const int has_cub = kind != K_NONZERO && kind != K_THREE_PASS;
    if (has_cub) {
        const size_t need = cub_temp(&c);
        if (need > TMP_BYTES) {
            if (TMP) CUDA_CHK(cudaFree(TMP));
            CUDA_CHK(cudaMalloc(&TMP, need));
            TMP_BYTES = need;
        }
    }
    /* check */
    run_call(&g);
    CUDA_CHK(cudaDeviceSynchronize());
    const uint64_t k = get_u64(CNT);
    const size_t e = elem_of(kind);
    int ok = 1;
    if (has_cub) {
        run_call(&c);
        CUDA_CHK(cudaDeviceSynchronize());
        const int ck = get_int(CCNT);
        ok = (uint64_t)ck == k && diff_words(O, CO, k * e) == 0;
        if (kind == K_RLE || kind == K_RLE_ONE) ok = ok && diff_words(L, CL, k * 8) == 0;
    }
    if (kind == K_THREE_PASS) {
        const uint64_t k3 = k;
        CUDA_CHK(cudaMemcpy(CO, O, k3 * 4, cudaMemcpyDeviceToDevice));
        call_t one = {K_SELECT, n, 0}; /* the one-pass answer to compare with */
        run_call(&one);
        CUDA_CHK(cudaDeviceSynchronize());
        ok = get_u64(CNT) == k3 && diff_words(O, CO, k3 * 4) == 0;
    }
    if (!ok) BAD_ROWS++;
    /* bytes */
    double bytes = (double)n * e;
    if (kind == K_SELECT || kind == K_SELECT_ONE || kind == K_SELECT_F64 || kind == K_THREE_PASS) bytes += (double)n + (double)k * e;
    if (kind == K_SELECT_V16) bytes += (double)k * e;
    if (kind == K_PARTITION) bytes += (double)n + (double)n * e;
    if (kind == K_NONZERO) bytes += (double)k * 8;
    if (kind == K_UNIQUE) bytes += (double)k * e;
    if (kind == K_RLE || kind == K_RLE_ONE) bytes += (double)k * (e + 8);
    float gms, cms = 0.0f, floor_ms = 0.0f;
    if (small) { /* against the floor timed in turn with them */
        const gp_bench_fn fns[2] = {run_call, run_call};
        void *const ctxs[2] = {&g, &c};
        float ms[2] = {0.0f, 0.0f};
        gp_bench_small_ms(fns, ctxs, has_cub ? 2 : 1, ms, &floor_ms);
        gms = ms[0];
        if (has_cub) cms = ms[1];
    } else {
        gms = gp_bench_median_ms(run_call, &g);
        if (has_cub) cms = gp_bench_median_ms(run_call, &c);
    }
    const double pct = 100.0 * (bytes / (COPY_GBS * 1e6)) / gms;
    char cub_cell[64], floor_cell[64];
    if (has_cub) snprintf(cub_cell, sizeof cub_cell, "%.1f us|%.2fx", cms * 1e3, cms / gms);
    else snprintf(cub_cell, sizeof cub_cell, "-|-");
    if (small) snprintf(floor_cell, sizeof floor_cell, "%.2fx floor (%.2f us)", gms / floor_ms, floor_ms * 1e3);
    else snprintf(floor_cell, sizeof floor_cell, "%.1f%%", pct);
    gp_table_row("%s|%zu|%llu|%.1f us|%.0f GB/s|%s|%s%s", what, n, (unsigned long long)k, gms * 1e3,
                 gp_bench_gbps(bytes, gms), floor_cell, cub_cell, ok ? "" : " CHECK FAILED");
    return gms;
}

int main(void)
{
    need_gpu(__FILE__);
    gp_bench_begin("select", "Stream compaction: select, partition, nonzero, unique, run-length");
    CUDA_CHK(cudaMalloc(&X, NMAX * 4 * 4)); /* room for 2^28 16-byte items at 2^26 */
    CUDA_CHK(cudaMalloc(&O, NMAX * 8));
    CUDA_CHK(cudaMalloc(&R, NMAX * 4));
    CUDA_CHK(cudaMalloc(&CO, NMAX * 8));
    CUDA_CHK(cudaMalloc(&F, NMAX));
    CUDA_CHK(cudaMalloc(&L, NMAX * 8));
    CUDA_CHK(cudaMalloc(&CL, NMAX * 8));
    CUDA_CHK(cudaMalloc(&CNT, 64));
    CUDA_CHK(cudaMalloc(&CCNT, 64));
    CUDA_CHK(cudaMalloc(&BAD, 64));

    /* the copy rate (2^28 floats) */
    const float copy_ms = gp_bench_copy_ms(O, X, NMAX * 4);
    COPY_GBS = gp_bench_gbps(2.0 * NMAX * 4, copy_ms);
    gp_bench_note("Copy: %.0f GB/s (cudaMemcpyAsync device to device, 2^28 floats, read + write). Small calls: "
                  "64 back to back a batch, timed in turn with CUB's and an empty kernel's (the floor).",
                  COPY_GBS);

    const char *cols = "call|n|count|time|GB/s|% of copy (small: x floor)|CUB time|vs CUB";
    gp_table_begin("Select by flags, f32 (gp_select_flagged_f32 against cub::DeviceSelect::Flagged)", cols);
    fill_f32<<<4096, 256>>>(X, NMAX);
    const size_t sizes[] = {(size_t)1 << 24, NMAX};
    const int rates[] = {500, 100, 1000, 0, -1};
    const char *rate_names[] = {"50% kept", "10% kept", "all kept", "none kept", "alternating"};
    for (int r = 0; r < 5; r++) {
        fill_flags<<<4096, 256>>>(F, NMAX, rates[r]);
        CUDA_CHK_LAUNCH();
        for (int s = 0; s < 2; s++) {
            char what[64];
            snprintf(what, sizeof what, "select f32, %s", rate_names[r]);
            row(what, K_SELECT, sizes[s], 0);
        }
    }
    fill_flags<<<4096, 256>>>(F, NMAX, 500);
    CUDA_CHK_LAUNCH();
    for (int s = 0; s < 2; s++) row("select f32, 50% kept, small", K_SELECT, s ? 1u << 16 : 1u << 10, 1);

    gp_table_begin("Partition, nonzero, wider types (50% kept)", cols);
    for (int s = 0; s < 2; s++) row("partition f32", K_PARTITION, sizes[s], 0);
    fill_flags<<<4096, 256>>>(F, NMAX, 100);
    CUDA_CHK_LAUNCH();
    for (int s = 0; s < 2; s++) row("partition f32, 10% kept", K_PARTITION, sizes[s], 0);
    fill_flags<<<4096, 256>>>(F, NMAX, 500);
    CUDA_CHK_LAUNCH();
    for (int s = 0; s < 2; s++) row("nonzero f32 (half zeros)", K_NONZERO, sizes[s], 0);
    fill_bytes<<<4096, 256>>>((uint32_t *)X, NMAX * 2);
    CUDA_CHK_LAUNCH();
    row("select f64, 50% kept", K_SELECT_F64, NMAX / 2, 0);
    {
        /* keys in [0, 2^31): below 2^30 is half kept; the 16-byte select by predicate */
        row("select 16-byte user type (predicate), ~50% kept", K_SELECT_V16, NMAX / 4, 0);
    }
    for (int s = 0; s < 2; s++) row("partition f32, small", K_PARTITION, s ? 1u << 16 : 1u << 10, 1);

    gp_table_begin("Unique and run-length encode, i32 (against DeviceSelect::Unique, DeviceRunLengthEncode::Encode)",
                   cols);
    const size_t runs[] = {1, 8, 1024};
    for (int r = 0; r < 3; r++) {
        fill_runs<<<4096, 256>>>((int32_t *)X, NMAX, runs[r]);
        CUDA_CHK_LAUNCH();
        for (int s = 0; s < 2; s++) {
            char what[64];
            snprintf(what, sizeof what, "unique i32, runs of %zu", runs[r]);
            row(what, K_UNIQUE, sizes[s], 0);
        }
        for (int s = 0; s < 2; s++) {
            char what[64];
            snprintf(what, sizeof what, "run_length i32, runs of %zu", runs[r]);
            row(what, K_RLE, sizes[s], 0);
        }
    }
    for (int s = 0; s < 2; s++) row("unique i32, runs of 1024, small", K_UNIQUE, s ? 1u << 16 : 1u << 10, 1);

    gp_table_begin("Ladder: select f32 by flags, 50% kept", cols);
    fill_f32<<<4096, 256>>>(X, NMAX);
    fill_flags<<<4096, 256>>>(F, NMAX, 500);
    CUDA_CHK_LAUNCH();
    for (int s = 0; s < 2; s++) {
        row("1. three passes: flags to u32, gp_exclusive_scan_sum_u32, scatter", K_THREE_PASS, sizes[s], 0);
        row("2. one pass, one tile in flight a block: count, look-ahead, scatter through shared memory", K_SELECT_ONE,
            sizes[s], 0);
        row("3. a ring of stages filled by bulk copies, counts published as tiles land (gp_select_flagged_f32)",
            K_SELECT, sizes[s], 0);
    }
    gp_bench_note("Three passes move 4n + n (flags) + 4n + 4n (scan) + 4n + n + 4n (scatter) + 4k bytes; their %% of "
                  "copy counts only what the one pass must move, so the rows compare times.");

    gp_table_begin("Ladder: run_length i32, runs of 8", cols);
    fill_runs<<<4096, 256>>>((int32_t *)X, NMAX, 8);
    CUDA_CHK_LAUNCH();
    for (int s = 0; s < 2; s++) {
        row("1. one tile in flight a block; (heads, last head) published after the block's scan", K_RLE_ONE, sizes[s],
            0);
        row("2. the ring: (heads, last head) published as tiles land, the 16 bytes after a tile in its stage "
            "(gp_run_length_i32)",
            K_RLE, sizes[s], 0);
    }
    if (BAD_ROWS) gp_bench_note("%d rows FAILED their check against CUB.", BAD_ROWS);
    gp_bench_end();
    return BAD_ROWS ? 1 : 0;
}
