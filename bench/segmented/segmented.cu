/* bench/segmented/segmented.cu -- the segments family against CUB and cuBLAS, on one GPU, in
 * one run: segmented reduce (f32 sum) at fixed segment lengths 1 .. 65536 and power-law
 * lengths with one segment of half the values, reduce along rows and columns, reduce-by-key
 * (i32 keys, f32 values), segmented scan (f32, random heads), and small sizes against the
 * empty-launch floor. Each row is given as a share of the bytes it must move at the
 * measured read rate (reduces) or copy rate (scans, reduce-by-key: read + written), and as
 * a ratio to CUB or cuBLAS from the same run.
 *   build and run: make bench-segmented   (writes bench/results/<gpu>.segmented.md/.csv)
 * The idea: the work is split over the values, not the segments (merge path: Merrill &
 * Garland, SC'16), so the rate does not depend on segment lengths; CUB's segmented reduce
 * gives each segment a block. Its ladder is that one step: CUB's rows are step 0. */
#include "../../gpuprims.cuh"
#include <cublas_v2.h>
#include "../bench.cuh"
#include "../read_kernel.cuh"
#include "power_law.h"
#include "../../tests/hash.cuh"

#include <cub/cub.cuh>
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <vector>

__global__ void fill_f32(float *v, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = (float)(hash32(i, key) % 1000) * 0.001f;
}
__global__ void fill_fixed_offsets(uint64_t *off, size_t S, uint64_t len, uint64_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= S; i += (size_t)gridDim.x * blockDim.x)
        off[i] = i * len < n ? i * len : n;
}
/* keys: a new run every `run` elements (run 0: random runs of mean 8); heads: 1 in `every` */
__global__ void fill_keys(int32_t *k, size_t n, size_t run)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        k[i] = (int32_t)(i / run);
}
__global__ void fill_heads(uint8_t *h, int32_t *seg, size_t n, unsigned every)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        h[i] = hash32(i, 77u) % every == 0;
}

struct cub_seg_ctx {
    void *tmp;
    size_t tmp_bytes;
    float *out;
    const float *in;
    const uint64_t *off;
    size_t S;
};
static void cub_seg(void *p)
{
    cub_seg_ctx *c = (cub_seg_ctx *)p;
    CUDA_CHK(cub::DeviceSegmentedReduce::Sum(c->tmp, c->tmp_bytes, c->in, c->out, (int64_t)c->S, c->off, c->off + 1, 0));
}
struct gp_seg_ctx {
    float *out;
    const float *in;
    const uint64_t *off;
    size_t S;
};
static void gp_seg(void *p)
{
    gp_seg_ctx *c = (gp_seg_ctx *)p;
    CUDA_CHK(gp_segmented_reduce_sum_f32(c->out, c->in, c->off, c->S, 0));
}

static void *g_tmp;
static size_t g_tmp_bytes;
static void *tmp_for(size_t bytes)
{
    if (bytes > g_tmp_bytes) {
        if (g_tmp) CUDA_CHK(cudaFree(g_tmp));
        CUDA_CHK(cudaMalloc(&g_tmp, bytes));
        g_tmp_bytes = bytes;
    }
    return g_tmp;
}

int main(void)
{
    gp_bench_begin("segmented", "Segments: segmented reduce, rows and columns, reduce-by-key, segmented scan");
    const size_t N = (size_t)1 << 28;
    float *d_v, *d_out;
    uint64_t *d_off;
    int32_t *d_k, *d_ko;
    uint8_t *d_h;
    uint64_t *d_runs;
    CUDA_CHK(cudaMalloc(&d_v, N * 4));
    CUDA_CHK(cudaMalloc(&d_out, N * 4));
    CUDA_CHK(cudaMalloc(&d_off, (N + 1) * 8));
    CUDA_CHK(cudaMalloc(&d_k, N * 4));
    CUDA_CHK(cudaMalloc(&d_ko, N * 4));
    CUDA_CHK(cudaMalloc(&d_h, N));
    CUDA_CHK(cudaMalloc(&d_runs, 8));
    fill_f32<<<4096, 256>>>(d_v, N, 12345u);
    unsigned *d_sink;
    CUDA_CHK(cudaMalloc(&d_sink, 4));

    /* the ceilings */
    const float copy_ms = gp_bench_copy_ms(d_out, d_v, N * 4);
    const double copy_gbs = gp_bench_gbps(2.0 * N * 4, copy_ms);
    struct rd { const float *in; size_t n; unsigned *sink; } rctx = {d_v, N, d_sink};
    const float read_ms = gp_bench_median_ms([](void *p) {
        rd *r = (rd *)p;
        read_only<<<gp__bench.sms * READ_BLOCKS_PER_SM, READ_BLOCK>>>((const uint4 *)r->in, r->n / 4, r->sink);
    }, &rctx);
    const double read_gbs = gp_bench_gbps(N * 4.0, read_ms);
    gp_table_begin("Ceilings", "what|size|time|rate");
    gp_table_row("device-to-device copy (read + write)|1 GiB|%.1f us|%.0f GB/s", copy_ms * 1e3, copy_gbs);
    gp_table_row("read only (16-byte loads)|1 GiB|%.1f us|%.0f GB/s", read_ms * 1e3, read_gbs);

    /* ---- segmented reduce ---- */
    gp_table_begin("Segmented reduce, f32 sum (bytes: values + offsets + outputs, at the read rate)",
                   "values|segments|gp|% of read|CUB DeviceSegmentedReduce|gp / CUB|goal");
    const uint64_t lens[] = {1, 4, 32, 1024, 65536, 0};
    for (int lg : {28, 24}) {
        const size_t n = (size_t)1 << lg;
        for (uint64_t len : lens) {
            size_t S;
            char what[64];
            if (len) {
                S = (n + len - 1) / len;
                fill_fixed_offsets<<<4096, 256>>>(d_off, S, len, n);
                snprintf(what, sizeof what, "length %llu", (unsigned long long)len);
            } else { /* power-law lengths, many empty, one of n/2 */
                const std::vector<uint64_t> off = gp_bench_power_law_offsets(n);
                S = off.size() - 1;
                CUDA_CHK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
                snprintf(what, sizeof what, "power-law (mean %.0f, one n/2)", (double)n / S);
            }
            gp_seg_ctx g = {d_out, d_v, d_off, S};
            const float gms = gp_bench_median_ms(gp_seg, &g);
            cub_seg_ctx c = {NULL, 0, d_out, d_v, d_off, S};
            CUDA_CHK(cub::DeviceSegmentedReduce::Sum(NULL, c.tmp_bytes, d_v, d_out, (int64_t)S, d_off, d_off + 1, 0));
            c.tmp = tmp_for(c.tmp_bytes + 1);
            const bool slow = len && len <= 4 && lg == 28;
            const float cms = slow ? gp_bench_median_ms_n(cub_seg, &c, 1, 5) : gp_bench_median_ms(cub_seg, &c);
            const double bytes = n * 4.0 + (S + 1) * 8.0 + S * 4.0;
            const double pct = 100.0 * gp_bench_gbps(bytes, gms) / read_gbs;
            const char *goal = lg == 24 ? ">= 70%" : len == 0 ? ">= 80%" : len <= 4 ? ">= 70%" : len == 32 ? ">= 85%, >= 10x CUB" : ">= 85%";
            gp_table_row("2^%d|%s|%.1f us|%.1f%%|%.1f us|%.2fx|%s", lg, what, gms * 1e3, pct, cms * 1e3, cms / gms, goal);
        }
    }

    /* ---- rows and columns ---- */
    cublasHandle_t blas;
    CUBLAS_CHK(cublasCreate(&blas));
    float *d_ones;
    CUDA_CHK(cudaMalloc(&d_ones, ((size_t)1 << 28) * 4)); /* the longest gemv vector: 2^28 rows */
    {
        std::vector<float> ones((size_t)1 << 28, 1.0f);
        CUDA_CHK(cudaMemcpy(d_ones, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));
    }
    gp_table_begin("Reduce along rows and columns, f32 sum, ld = cols (bytes: matrix + outputs, at the read rate)",
                   "shape|gp rows|% of read|cuBLAS gemv (ones)|gp / cuBLAS|gp cols|% of read|cuBLAS gemv (ones)|gp / cuBLAS");
    const size_t shapes[][2] = {{16384, 16384},        {(size_t)1 << 22, 64}, {64, (size_t)1 << 22},
                                {(size_t)1 << 20, 256}, {(size_t)1 << 24, 16}, {(size_t)1 << 25, 8},
                                {(size_t)1 << 26, 4},   {89478485, 3},         {(size_t)1 << 27, 2},
                                {(size_t)1 << 28, 1}};
    for (const auto &sh : shapes) {
        struct rc { float *out; const float *in; size_t r, c; cublasHandle_t h; const float *ones; } x = {d_out, d_v, sh[0], sh[1], blas, d_ones};
        const float rms = gp_bench_median_ms([](void *p) { rc *q = (rc *)p; CUDA_CHK(gp_reduce_rows_sum_f32(q->out, q->in, q->r, q->c, q->c, 0)); }, &x);
        const float cms = gp_bench_median_ms([](void *p) { rc *q = (rc *)p; CUDA_CHK(gp_reduce_cols_sum_f32(q->out, q->in, q->r, q->c, q->c, 0)); }, &x);
        /* row-major R x C is column-major C x R (lda = C): rows = A^T 1, columns = A 1 */
        const float brms = gp_bench_median_ms([](void *p) {
            rc *q = (rc *)p;
            const float one = 1.0f, zero = 0.0f;
            CUBLAS_CHK(cublasSgemv(q->h, CUBLAS_OP_T, (int)q->c, (int)q->r, &one, q->in, (int)q->c, q->ones, 1, &zero, q->out, 1));
        }, &x);
        const float bcms = gp_bench_median_ms([](void *p) {
            rc *q = (rc *)p;
            const float one = 1.0f, zero = 0.0f;
            CUBLAS_CHK(cublasSgemv(q->h, CUBLAS_OP_N, (int)q->c, (int)q->r, &one, q->in, (int)q->c, q->ones, 1, &zero, q->out, 1));
        }, &x);
        const double mb = sh[0] * sh[1] * 4.0;
        gp_table_row("%zu x %zu|%.1f us|%.1f%%|%.1f us|%.2fx|%.1f us|%.1f%%|%.1f us|%.2fx", sh[0], sh[1], rms * 1e3,
                     100.0 * gp_bench_gbps(mb + sh[0] * 4.0, rms) / read_gbs, brms * 1e3, brms / rms, cms * 1e3,
                     100.0 * gp_bench_gbps(mb + sh[1] * 4.0, cms) / read_gbs, bcms * 1e3, bcms / cms);
    }
    gp_bench_note("torch.sum(dim) is not measured here (no torch in the bench's build; `make bench-torch` has it); cuBLAS gemv with a ones vector is the reference.");
    /* the short rows' ladder: the merge path (the segmented reduce's rings) against G lanes a row */
    gp_table_begin("Ladder: reduce along 2^22 rows of 64 floats (bytes: matrix + outputs, at the read rate)",
                   "step|gp rows|% of read");
    for (int step = 1; step <= 2; step++) {
        struct rl { float *out; const float *in; gp__rows_knobs k; } x = {d_out, d_v, {step == 1, 0}};
        const float ms = gp_bench_median_ms([](void *p) {
            rl *q = (rl *)p;
            CUDA_CHK(gp__reduce_rows<gp__op_sum_f32>(q->out, q->in, (size_t)1 << 22, 64, 64, 0, &q->k));
        }, &x);
        gp_table_row("%s|%.1f us|%.1f%%", step == 1 ? "1. the merge path (the segmented reduce's rings, offsets implied)"
                                                    : "2. G lanes a row: 16 lanes of 16-byte loads, a tree of shuffles (the library)",
                     ms * 1e3, 100.0 * gp_bench_gbps(((size_t)1 << 28) * 4.0 + ((size_t)1 << 22) * 4.0, ms) / read_gbs);
    }

    /* the narrow columns' ladder: row groups of one lane (32 places a load) against warp steps */
    gp_table_begin("Ladder: reduce along the columns of narrow rows, ld = cols (bytes: matrix + outputs, at the read rate)",
                   "shape|1. row groups of w lanes, a run of rows each|% of read|2. warp steps, 512 bytes a load (the library)|% of read");
    for (const auto &sh : shapes) {
        if (!gp__cols_steps_ok(sh[1], sh[1], 4)) continue;
        struct cl { float *out; const float *in; size_t r, c; gp__cols_knobs k; } x[2] = {{d_out, d_v, sh[0], sh[1], {1}},
                                                                                          {d_out, d_v, sh[0], sh[1], {0}}};
        float ms[2];
        for (int step = 0; step < 2; step++)
            ms[step] = gp_bench_median_ms([](void *p) {
                cl *q = (cl *)p;
                CUDA_CHK(gp__reduce_cols<gp__op_sum_f32>(q->out, q->in, q->r, q->c, q->c, 0, &q->k));
            }, &x[step]);
        const double mb = sh[0] * sh[1] * 4.0 + sh[1] * 4.0;
        gp_table_row("%zu x %zu|%.1f us|%.1f%%|%.1f us|%.1f%%", sh[0], sh[1], ms[0] * 1e3,
                     100.0 * gp_bench_gbps(mb, ms[0]) / read_gbs, ms[1] * 1e3, 100.0 * gp_bench_gbps(mb, ms[1]) / read_gbs);
    }

    /* ---- reduce-by-key ---- */
    gp_table_begin("Reduce-by-key, i32 keys / f32 values, sum (bytes: keys + values in, runs out, at the copy rate)",
                   "n|runs of|gp|% of copy|CUB ReduceByKey|gp / CUB|goal");
    for (int lg : {28, 24}) {
        const size_t n = (size_t)1 << lg;
        for (size_t run : {(size_t)1, (size_t)8, (size_t)1024}) {
            fill_keys<<<4096, 256>>>(d_k, n, run);
            struct rb { int32_t *ko; float *vo; uint64_t *runs; const int32_t *k; const float *v; size_t n; void *tmp; size_t tb; } x =
                {d_ko, d_out, d_runs, d_k, d_v, n, NULL, 0};
            const float gms = gp_bench_median_ms([](void *p) {
                rb *q = (rb *)p;
                CUDA_CHK(gp_reduce_by_key_sum_i32_f32(q->ko, q->vo, q->runs, q->k, q->v, q->n, 0));
            }, &x);
            CUDA_CHK(cub::DeviceReduce::ReduceByKey(NULL, x.tb, d_k, d_ko, d_v, d_out, d_runs, cuda::std::plus<float>(), (int64_t)n, 0));
            x.tmp = tmp_for(x.tb + 1);
            const float cms = gp_bench_median_ms([](void *p) {
                rb *q = (rb *)p;
                CUDA_CHK(cub::DeviceReduce::ReduceByKey(q->tmp, q->tb, q->k, q->ko, q->v, q->vo, q->runs, cuda::std::plus<float>(), (int64_t)q->n, 0));
            }, &x);
            const double runs = (double)((n + run - 1) / run), bytes = n * 8.0 + runs * 8.0 + 8;
            gp_table_row("2^%d|%zu|%.1f us|%.1f%%|%.1f us|%.2fx|%s", lg, run, gms * 1e3, 100.0 * gp_bench_gbps(bytes, gms) / copy_gbs,
                         cms * 1e3, cms / gms, lg == 28 ? ">= 90%, >= 1.3x CUB" : "-");
        }
    }

    /* ---- segmented scan ---- */
    gp_table_begin("Segmented scan, f32 sum, random heads (bytes: values + heads in, values out: 9 a element, at the copy rate)",
                   "n|heads|gp inclusive|% of copy|gp exclusive|% of copy|CUB ExclusiveSumByKey (i32 keys, 12 B/elem)|gp excl / CUB|goal");
    for (int lg : {28, 24}) {
        const size_t n = (size_t)1 << lg;
        for (unsigned every : {8u, 1024u}) {
            fill_heads<<<4096, 256>>>(d_h, NULL, n, every);
            /* CUB's keys: the segment index of each element (a scan of the heads) */
            CUDA_CHK(cudaMemset(d_k, 0, 4));
            {
                std::vector<uint8_t> h(n);
                std::vector<int32_t> k(n);
                CUDA_CHK(cudaMemcpy(h.data(), d_h, n, cudaMemcpyDeviceToHost));
                int32_t key = 0;
                for (size_t i = 0; i < n; i++) { key += i > 0 && h[i]; k[i] = key; }
                CUDA_CHK(cudaMemcpy(d_k, k.data(), n * 4, cudaMemcpyHostToDevice));
            }
            struct ss { float *o; const float *v; const uint8_t *h; const int32_t *k; size_t n; void *tmp; size_t tb; } x =
                {d_out, d_v, d_h, d_k, n, NULL, 0};
            const float ims = gp_bench_median_ms([](void *p) { ss *q = (ss *)p; CUDA_CHK(gp_inclusive_segmented_scan_sum_f32(q->o, q->v, q->h, q->n, 0)); }, &x);
            const float ems = gp_bench_median_ms([](void *p) { ss *q = (ss *)p; CUDA_CHK(gp_exclusive_segmented_scan_sum_f32(q->o, q->v, q->h, q->n, 0)); }, &x);
            CUDA_CHK(cub::DeviceScan::ExclusiveSumByKey(NULL, x.tb, d_k, d_v, d_out, (int64_t)n, cuda::std::equal_to<>(), 0));
            x.tmp = tmp_for(x.tb + 1);
            const float cms = gp_bench_median_ms([](void *p) {
                ss *q = (ss *)p;
                CUDA_CHK(cub::DeviceScan::ExclusiveSumByKey(q->tmp, q->tb, q->k, q->v, q->o, (int64_t)q->n, cuda::std::equal_to<>(), 0));
            }, &x);
            const double bytes = n * 9.0;
            gp_table_row("2^%d|1/%u|%.1f us|%.1f%%|%.1f us|%.1f%%|%.1f us|%.2fx|%s", lg, every, ims * 1e3,
                         100.0 * gp_bench_gbps(bytes, ims) / copy_gbs, ems * 1e3, 100.0 * gp_bench_gbps(bytes, ems) / copy_gbs,
                         cms * 1e3, cms / ems, lg == 28 ? ">= 95%" : ">= 85%");
        }
    }

    /* ---- small sizes ---- */
    /* the floor timed in turn with the calls of each size (gp_bench_small_ms) */
    gp_table_begin("Small sizes against the empty-launch floor (calls back to back, 64 a batch, timed in turn with "
                   "the empty kernel)",
                   "call|n|time|/ floor|goal");
    for (int lg : {10, 16}) {
        const size_t n = (size_t)1 << lg;
        fill_fixed_offsets<<<64, 256>>>(d_off, n / 32, 32, n);
        fill_keys<<<64, 256>>>(d_k, n, 8);
        fill_heads<<<64, 256>>>(d_h, NULL, n, 8);
        gp_seg_ctx g = {d_out, d_v, d_off, n / 32};
        struct sm { float *o; const float *v; const uint8_t *h; int32_t *ko; const int32_t *k; uint64_t *runs; size_t n; } x =
            {d_out, d_v, d_h, d_ko, d_k, d_runs, n};
        const gp_bench_fn fns[3] = {
            gp_seg, [](void *p) { sm *q = (sm *)p; CUDA_CHK(gp_inclusive_segmented_scan_sum_f32(q->o, q->v, q->h, q->n, 0)); },
            [](void *p) { sm *q = (sm *)p; CUDA_CHK(gp_reduce_by_key_sum_i32_f32(q->ko, q->o, q->runs, q->k, q->v, q->n, 0)); }};
        void *const ctxs[3] = {&g, &x, &x};
        float ms[3], floor_ms;
        gp_bench_small_ms(fns, ctxs, 3, ms, &floor_ms);
        gp_table_row("empty kernel (the floor)|-|%.2f us|1.00x|-", floor_ms * 1e3);
        gp_table_row("segmented reduce, length 32|2^%d|%.2f us|%.2fx|<= 1.5x", lg, ms[0] * 1e3, ms[0] / floor_ms);
        gp_table_row("inclusive segmented scan, 1/8|2^%d|%.2f us|%.2fx|<= 1.5x", lg, ms[1] * 1e3, ms[1] / floor_ms);
        gp_table_row("reduce-by-key, runs of 8|2^%d|%.2f us|%.2fx|<= 1.5x", lg, ms[2] * 1e3, ms[2] / floor_ms);
    }
    /* ---- the debugging aid: what checking the offsets' order costs a call ---- */
    gp_table_begin("Checking that the offsets ascend (gp_segmented_check_offsets: a kernel, the answer copied back, "
                   "the host's wait; ascending offsets of length 1)",
                   "segments|time|offsets read|segmented reduce, the same offsets|check / reduce");
    for (int lg : {10, 16, 20, 24, 28}) {
        const size_t S = (size_t)1 << lg;
        fill_fixed_offsets<<<4096, 256>>>(d_off, S, 1, S);
        struct ck { const uint64_t *off; size_t S; } x = {d_off, S};
        const float ms = gp_bench_median_ms([](void *p) {
            ck *q = (ck *)p;
            size_t first_bad;
            CUDA_CHK(gp_segmented_check_offsets(&first_bad, q->off, q->S, 0));
            if (first_bad != q->S) {
                fprintf(stderr, "gp_segmented_check_offsets: ascending offsets reported a descent at %zu\n", first_bad);
                exit(1);
            }
        }, &x);
        gp_seg_ctx g = {d_out, d_v, d_off, S};
        const float rms = gp_bench_median_ms(gp_seg, &g);
        gp_table_row("2^%d|%.1f us|%.1f GB/s|%.1f us|%.2fx", lg, ms * 1e3, gp_bench_gbps((S + 1) * 8.0, ms), rms * 1e3,
                     ms / rms);
    }
    gp_bench_note("Ratios from this run: CUB and cuBLAS ran in the same process on the same buffers. "
                  "Percentages: the bytes a call must move (inputs read, outputs written) at the measured read "
                  "rate (reduces) or copy rate (scans, reduce-by-key; the copy's rate counts read + written).");
    gp_bench_end();
    CUBLAS_CHK(cublasDestroy(blas));
    return 0;
}
