/* bench/transpose/probes/transpose_tiles.cu -- a one-off probe, not part of `make bench`: which tile
 * shape and mode of gp_transpose's kernel (cells: padded tile, 4- or 8-byte loads; chunks:
 * 16-byte chunks in a swizzled tile; ragged: rows realigned) is fastest for the matrices of
 * the bench table and a few more with rows off 16 bytes?
 *
 * Every variant is the library's kernel (gp__transpose_run) with another COLS x Q and mode.
 * Each is checked byte for byte against a one-thread-per-element reference
 * first, then timed as bench/transpose/transpose.cu times (rotation through copies beyond the L2,
 * calls back to back, median of 31), with the copy (and geam for f32 and f64) in the same
 * run. Prints "% of copy" per variant.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/transpose/probes/transpose_tiles.cu -o probe -lcublas && ./probe
 *   ./probe ragged | small | f32 | squares | lib | prefetch
 *                                    (the 1- and 2-byte matrices off the word grid, the
 *                                     4- and 8-byte ones of about a wave of tiles or fewer,
 *                                     floats on rows off 16 bytes and skinny floats, large
 *                                     float squares, or the library alone on the bench's
 *                                     shapes and rows off 16 bytes: for builds of the
 *                                     library with other settings, compared run to run)
 *   ./probe one u8 4097 3001 lib     (one variant, five calls: for ncu)
 * "lib" is the library's choice; the other variants launch unchained unless they say
 * "chained" (gp__chained_launch, as the library does on sm_90).
 * Results on the H100 (2026-11-22, % of copy; the variant lists changed between runs, the
 * figures below come from the runs that had them):
 *   - chunked tiles (16-byte cp.async, swizzled, 16-byte reads) against padded ones, rows
 *     on 16 bytes: f32 2048^2 98.2 / 88.2, 1000^2 138 / 131, 8192^2 95.7 / 95.4; f64 2048^2
 *     96.4 / 94.5, 8192^2 97.3 / 97.3; u16 2048^2 92.6 / 87.8; u8 8192^2 94.1 / 93.2.
 *   - floats on rows off 16 bytes, 128- against 256-byte tile rows: 4097 x 3001 93.9 / 85.9,
 *     3001 x 4097 95.9 / 86.3, 8191^2 89.8 / 75.2 (geam 76.8), 2049 x 2047 102.5 / 100.0.
 *     Doubles: no difference beyond 1%.
 *   - ragged u8 (rows off 4 bytes): 4097 x 3001 64.5, 3001 x 4097 68.7, 8191^2 58.6,
 *     2049 x 2047 55.2 (70.0 with tiles of 64 input bytes, which lose on the others);
 *     on 8192^2 data on the word grid 75.4 against the word kernel's 93-94.
 *   - as many blocks as fit at once, looping over tiles: f32 8192^2 89.3 against 95.5,
 *     f64 8192^2 88.9 against 97.5.
 * Later runs (2026-11-22, H100; the ragged kernel with its instructions cut by 40%):
 *   - ragged u8 / u16, tiles of 16 KB / 8 KB / 4 KB (8 KB: 64 input bytes by 128 rows for
 *     u8, 128 by 64 for u16), 5 blocks per SM: 4097 x 3001 55 / 70 / 65 and 61 / 78 / 63,
 *     3001 x 4097 57 / 71 / 65 and 64 / 82 / 64, 8191^2 50 / 68 / 56 and 57 / 73 / 58,
 *     2049 x 2047 54 / 68 / 77 and 62 / 78 / 73. Blocks per SM (GP__RAGGED_BLOCKS) 4 / 5 /
 *     6 (spills at 6), 8 KB tiles: u8 4097 x 3001 71 / 70 / 62, u8 8191^2 68 / 68 / 56.
 *   - f64 1000^2 (geam 8.6-8.7 us): every tile from 4 to 16 KB, chunked or padded, 9.0-10.0
 *     us unchained; chained launches 8.2-8.4 us. The tile loaded in 2 or 4 column groups
 *     (cp.async groups, the first written out while the others arrive): 9.4-9.7 us, and
 *     1-12 points of copy lost on f64 and f32 2048^2. f64 4097 x 3001: 78.0-79.5 us for
 *     every padded tile of 8 or 16 KB, geam 80.1.
 *   - with the halo cell (the library at this commit, chained), two runs: u8 / u16 4097 x
 *     3001 81.9-82.3 / 78.2-78.4%, 3001 x 4097 82.7-83.0 / 82.7-83.1%, 8191^2 71.7-72.5 /
 *     75.8-76.0%, 2049 x 2047 79.5-82.2 / 85.5-86.8%; the same tiles unchained 0-10 points
 *     less, 16 KB tiles 6-24 points less. Blocks of 128 threads (GP__RAGGED_THREADS, 8 per
 *     SM): u8 4097 x 3001 65.7%, u16 70.7%, 8191^2 65.0 / 64.6%.
 * Float squares on rows on 16 bytes (2026-11-23, H100, `./probe squares`; % of copy at
 * 2048^2 / 8192^2 / 16384^2; geam 98.6 / 95.6 / 96.1): the library's chunked 64 x 64 tile
 * 98.7 / 96.0 / 96.6; chunks 64w x 128q (32 KB) 96.6 / 95.8 / 96.1; 128w x 64q (32 KB)
 * 96.5 / 95.6 / 96.1; 128w x 32q 96.9 / 95.3 / 95.2; 32w x 128q 96.4 / 93.6 / 93.9; 32w x
 * 64q (8 KB) 92.0 / 94.6 / 94.4. Longer output segments and more bytes in flight a block
 * gain nothing: the 64 x 64 tile stays (f64 squares: 100.4 / 97.2 / 96.4).
 * Cache hints and tile order (2026-11-23, H100, `./probe lib` on builds of the library with
 * each change, % of copy against the unchanged library's two runs):
 *   - the L2 fetching 256-byte blocks for the 4- and 8-byte copies (cp.async .L2::256B):
 *     2-5 points on rows off 16 bytes (u8 8191^2 72.6-73.1 -> 77.8, f32 8191^2 89.8-90.0 ->
 *     92.4-92.9, f64 4097 x 3001 93.8-95.4 -> 96.2-96.4), taken (transpose.cuh, "prefetch");
 *     128-byte blocks about half of that; 256-byte blocks for the 16-byte chunks too: the
 *     squares within half a point (f64 2048^2 99.4 against 100.2-100.4).
 *   - loads marked evict-first in the L2 (createpolicy): 1-2 points lost on the squares,
 *     5-12 on rows off 16 bytes (f64 4097 x 3001 85.0, u8 71.0).
 *   - streaming stores (st.global.cs): within a point everywhere.
 *   - tiles in bands of 8, 16 or 32 tile rows (consecutive blocks down a band, then the next
 *     tile column) instead of down the whole matrix: f32 8192^2 89.6-89.7 against 96.2-96.7,
 *     16384^2 88.9-89.0 against 96.3-96.6, f32 4097 x 3001 84.5-89.2 against 96.4-97.2.
 * Where the ragged kernel's time goes (2026-11-23, H100, Nsight Compute on `./probe one ...
 * lib`, one call, caches flushed, clocks not locked): u8 4097 x 3001 17.6 us against 11.8
 * for u8 4096 x 3000 on the word grid. The ragged kernel runs 1598 blocks at 4 an SM (64
 * registers): 3.0 waves, achieved occupancy 43%, DRAM 22.5% of its peak, issue slots 48%
 * busy; the word kernel 768 blocks of 16 KB at 6 an SM: one wave, DRAM 32%. Neither is
 * bound by DRAM or issue at this size: the ragged call waits for memory once a wave. (u16
 * 4097 x 3001: 6.0 waves, 28.5 us, DRAM 37.6%; f32 8192^2: DRAM 83.7%, occupancy 97%.)
 * Tried against that, same day, `./probe prefetch` and `lib`, % of copy, not kept:
 *   - groups: each block takes 3-5 consecutive ragged tiles, issues all their copies at
 *     once (one cp.async group each, 5 tiles of static shared memory a block) and writes
 *     each out when it lands, so that a call of one wave of groups waits for memory once:
 *     u8 4097 x 3001 42-43 against 83-84, u16 58-70 against 80-81; even calls of one tile a
 *     block lost (u8 8191^2 67 against 78), the larger shared memory leaving less L1.
 *   - the shared-memory carveout asked for (cudaFuncAttributePreferredSharedMemoryCarveout):
 *     100% (the least L1) u8 4097 x 3001 72, f64 4097 x 3001 69 against 99-100; 0% fewer
 *     blocks an SM, 35-60 everywhere; 50% within the noise of the default, 92 against 96
 *     on f32 8192^2. The default stays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>

#include "../../../gpuprims.cuh"
#include "../../bench.cuh"

/* ---- variants ------------------------------------------------------------------------------ */
typedef cudaError_t (*variant_fn)(const gp__transpose_desc *d, unsigned grid_cap);

enum { C = GP__TR_CELLS, R = GP__TR_RAGGED, X = GP__TR_CHUNKS };
template <class W, int K, int COLS, int Q, int MODE, bool CHAIN = false, bool PREFETCH = false>
static cudaError_t run_tile(const gp__transpose_desc *d, unsigned grid_cap)
{
    constexpr bool R = MODE == GP__TR_RAGGED;
    if (!R && !gp__transpose_word_bytes(d)) return cudaErrorInvalidValue; /* off the word grid */
    if (MODE == GP__TR_CHUNKS && !gp__transpose_rows16(d)) return cudaErrorInvalidValue;
    gp__transpose_words a = R ? gp__transpose_in_units(d, 1) : gp__transpose_in_words<W, K>(d);
    a.prefetch = PREFETCH && gp__transpose_prefetch(d, sizeof(W));
    if (!grid_cap) return gp__transpose_run<W, K, COLS, Q, MODE>(a, 0, CHAIN);
    const size_t tiles = gp__transpose_tiles<W, K, COLS, Q, MODE>(a);
    gp__transpose_kernel<W, K, COLS, Q, MODE><<<(unsigned)gp__min_size(tiles, grid_cap), GP__TRANSPOSE_THREADS>>>(a);
    return cudaGetLastError();
}

template <class T>
static cudaError_t run_lib(const gp__transpose_desc *d, unsigned)
{
    return gp__transpose((T *)d->out, d->rows, 0, (const T *)d->in, d->cols, 0, d->rows, d->cols, 1, 0);
}

typedef struct { const char *name; variant_fn fn; unsigned cap_blocks_per_sm; } variant;

#define V(name, ...) {name, __VA_ARGS__, 0}
static const variant v_u8[] = {
    V("lib", run_lib<uint8_t>),
    V("ragged 16w x 32q (8K)", run_tile<uint32_t, 4, 16, 32, R>),
    V("ragged 32w x 32q (16K)", run_tile<uint32_t, 4, 32, 32, R>),
};
static const variant v_u16[] = {
    V("lib", run_lib<uint16_t>),
    V("ragged 32w x 32q (8K)", run_tile<uint32_t, 2, 32, 32, R>),
    V("ragged 64w x 32q (16K)", run_tile<uint32_t, 2, 64, 32, R>),
};
static const variant v_u8w[] = { /* on the word grid */
    V("lib", run_lib<uint8_t>),
    V("chunks 32w x 32q (16K)", run_tile<uint32_t, 4, 32, 32, X>),
};
static const variant v_f32[] = {
    V("lib", run_lib<float>),
    V("chunks 64w x 64q (16K)", run_tile<uint32_t, 1, 64, 64, X>),
    V("chunks 64w x 32q (8K)", run_tile<uint32_t, 1, 64, 32, X>),
    V("chunks 64w x 32q (8K) chained", run_tile<uint32_t, 1, 64, 32, X, true>),
    V("cells 32w x 64q (8K)", run_tile<uint32_t, 1, 32, 64, C>),
};
static const variant v_f64[] = {
    V("lib", run_lib<double>),
    V("chunks 32w x 64q (16K)", run_tile<uint2, 1, 32, 64, X>),
    V("chunks 64w x 32q (16K)", run_tile<uint2, 1, 64, 32, X>),
    V("chunks 64w x 32q (16K) chained", run_tile<uint2, 1, 64, 32, X, true>),
    V("chunks 32w x 32q (8K)", run_tile<uint2, 1, 32, 32, X>),
    V("chunks 32w x 32q (8K) chained", run_tile<uint2, 1, 32, 32, X, true>),
    V("cells 32w x 64q (16K)", run_tile<uint2, 1, 32, 64, C>),
    V("cells 16w x 64q (8K)", run_tile<uint2, 1, 16, 64, C>),
    V("cells 16w x 64q (8K) chained", run_tile<uint2, 1, 16, 64, C, true>),
};
/* float squares on rows on 16 bytes: the library's 64 x 64 chunked tile against deeper and
 * wider ones (longer output segments, more bytes in flight a block) */
static const variant v_f32sq[] = {
    V("lib", run_lib<float>),
    V("chunks 64w x 128q (32K)", run_tile<uint32_t, 1, 64, 128, X>),
    V("chunks 32w x 128q (16K)", run_tile<uint32_t, 1, 32, 128, X>),
    V("chunks 128w x 64q (32K)", run_tile<uint32_t, 1, 128, 64, X>),
    V("chunks 128w x 32q (16K)", run_tile<uint32_t, 1, 128, 32, X>),
    V("chunks 32w x 64q (8K)", run_tile<uint32_t, 1, 32, 64, X>),
};
/* floats on rows off 16 bytes, and the skinny float matrices (16-byte rows): tile sizes
 * and row widths, for a choice that holds on both the H100 and the H200 */
static const variant v_f32off[] = {
    V("lib", run_lib<float>),
    V("cells 32w x 64q (8K)", run_tile<uint32_t, 1, 32, 64, C>),
    V("cells 32w x 128q (16K)", run_tile<uint32_t, 1, 32, 128, C>),
    V("cells 64w x 64q (16K)", run_tile<uint32_t, 1, 64, 64, C>),
    V("cells 64w x 32q (8K)", run_tile<uint32_t, 1, 64, 32, C>),
    V("cells 32w x 32q (4K)", run_tile<uint32_t, 1, 32, 32, C>),
};
static const variant v_f32skinny[] = {
    V("lib", run_lib<float>),
    V("cells 128w x 32q (16K)", run_tile<uint32_t, 1, 128, 32, C>),
    V("cells 64w x 32q (8K)", run_tile<uint32_t, 1, 64, 32, C>),
    V("cells 32w x 32q (4K)", run_tile<uint32_t, 1, 32, 32, C>),
    V("cells 32w x 128q (16K)", run_tile<uint32_t, 1, 32, 128, C>),
    V("cells 32w x 64q (8K)", run_tile<uint32_t, 1, 32, 64, C>),
    V("cells 64w x 64q (16K)", run_tile<uint32_t, 1, 64, 64, C>),
    V("chunks 128w x 32q (16K)", run_tile<uint32_t, 1, 128, 32, X>),
    V("chunks 64w x 32q (8K)", run_tile<uint32_t, 1, 64, 32, X>),
    V("chunks 32w x 32q (4K)", run_tile<uint32_t, 1, 32, 32, X>),
    V("chunks 32w x 64q (8K)", run_tile<uint32_t, 1, 32, 64, X>),
    V("chunks 32w x 128q (16K)", run_tile<uint32_t, 1, 32, 128, X>),
};
/* With the L2 prefetch ("pf"), chained as the library launches: the 8 KB tiles the H100
 * takes for rows off 16 bytes against the 16 KB ones a deep device takes. */
static const variant v_u8pf[] = {
    V("lib", run_lib<uint8_t>),
    V("ragged 16w x 32q (8K) pf", run_tile<uint32_t, 4, 16, 32, R, true, true>),
    V("ragged 32w x 32q (16K) pf", run_tile<uint32_t, 4, 32, 32, R, true, true>),
};
static const variant v_u16pf[] = {
    V("lib", run_lib<uint16_t>),
    V("ragged 32w x 32q (8K) pf", run_tile<uint32_t, 2, 32, 32, R, true, true>),
    V("ragged 64w x 32q (16K) pf", run_tile<uint32_t, 2, 64, 32, R, true, true>),
};
static const variant v_f32pf[] = {
    V("lib", run_lib<float>),
    V("cells 32w x 64q (8K) pf", run_tile<uint32_t, 1, 32, 64, C, true, true>),
    V("cells 64w x 64q (16K) pf", run_tile<uint32_t, 1, 64, 64, C, true, true>),
};
static const variant v_f64pf[] = {
    V("lib", run_lib<double>),
    V("cells 16w x 64q (8K) pf", run_tile<uint2, 1, 16, 64, C, true, true>),
    V("cells 32w x 64q (16K) pf", run_tile<uint2, 1, 32, 64, C, true, true>),
};
#define N_OF(x) (int)(sizeof x / sizeof *x)

/* ---- harness ------------------------------------------------------------------------------- */
__global__ void fill_bits(uint32_t *p, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = i * 0x9E3779B97F4A7C15ull + key;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        uint32_t h = (uint32_t)((z ^ (z >> 31)) >> 32);
        p[i] = (h & 0x807FFFFFu) | 0x3F800000u; /* normal floats; fine as bits for any type */
    }
}
template <typename E>
__global__ void ref_transpose(E *out, const E *in, size_t rows, size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x)
        out[i % cols * rows + i / cols] = in[i];
}
__global__ void count_diff(const uint8_t *a, const uint8_t *b, size_t n, unsigned long long *d)
{
    unsigned long long k = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) k += a[i] != b[i];
    if (k) atomicAdd(d, k);
}

typedef struct {
    variant_fn fn; unsigned cap; int who; /* 0 variant, 1 copy, 2 geam */
    cublasHandle_t h; size_t elem, rows, cols, bytes; char *in, *out; int slots, next;
} ctx_t;

static void timed(void *p)
{
    ctx_t *c = (ctx_t *)p;
    char *in = c->in + (size_t)c->next * c->bytes, *out = c->out + (size_t)c->next * c->bytes;
    c->next = (c->next + 1) % c->slots;
    if (c->who == 1) { CUDA_CHK(cudaMemcpyAsync(out, in, c->bytes, cudaMemcpyDeviceToDevice, 0)); return; }
    if (c->who == 2) {
        if (c->elem == 4) {
            const float one = 1, zero = 0;
            cublasSgeam(c->h, CUBLAS_OP_T, CUBLAS_OP_T, (int)c->rows, (int)c->cols, &one, (const float *)in, (int)c->cols,
                        &zero, (const float *)in, (int)c->cols, (float *)out, (int)c->rows);
        } else {
            const double one = 1, zero = 0;
            cublasDgeam(c->h, CUBLAS_OP_T, CUBLAS_OP_T, (int)c->rows, (int)c->cols, &one, (const double *)in, (int)c->cols,
                        &zero, (const double *)in, (int)c->cols, (double *)out, (int)c->rows);
        }
        return;
    }
    const gp__transpose_desc d = {(uintptr_t)out, (uintptr_t)in, c->rows, 0, c->cols, 0, c->rows, c->cols, 1, c->elem};
    CUDA_CHK(c->fn(&d, c->cap));
}

static void probe(const char *type, size_t elem, size_t rows, size_t cols, const variant *v, int nv, cublasHandle_t h,
                  int sms, int l2)
{
    ctx_t c = {NULL, 0, 0, h, elem, rows, cols, rows * cols * elem, NULL, NULL, 0, 0};
    c.slots = (int)(2 * (size_t)l2 / c.bytes + 1);
    CUDA_CHK(cudaMalloc(&c.in, c.bytes * c.slots));
    CUDA_CHK(cudaMalloc(&c.out, c.bytes * c.slots));
    char *ref;
    unsigned long long *dd, diff;
    CUDA_CHK(cudaMalloc(&ref, c.bytes));
    CUDA_CHK(cudaMalloc(&dd, sizeof *dd));
    fill_bits<<<sms * 8, 256>>>((uint32_t *)c.in, c.bytes * c.slots / 4, (uint32_t)(rows * 31 + cols));
    switch (elem) {
    case 1: ref_transpose<<<sms * 8, 256>>>((uint8_t *)ref, (const uint8_t *)c.in, rows, cols); break;
    case 2: ref_transpose<<<sms * 8, 256>>>((uint16_t *)ref, (const uint16_t *)c.in, rows, cols); break;
    case 4: ref_transpose<<<sms * 8, 256>>>((uint32_t *)ref, (const uint32_t *)c.in, rows, cols); break;
    default: ref_transpose<<<sms * 8, 256>>>((uint2 *)ref, (const uint2 *)c.in, rows, cols); break;
    }
    CUDA_CHK_LAUNCH();
    const int batch = gp_bench_batch_size((size_t)256 << 20, 2 * c.bytes);
    c.who = 1;
    const double copy_ms = gp_bench_median_ms_batch(timed, &c, batch);
    printf("%s %zu x %zu: copy %.1f us (%.0f GB/s)", type, rows, cols, copy_ms * 1e3, 2e-6 * c.bytes / copy_ms);
    if (elem >= 4) {
        c.who = 2, c.next = 0;
        const double g = gp_bench_median_ms_batch(timed, &c, batch);
        printf(", geam %.1f us = %.1f%% of copy", g * 1e3, 100 * copy_ms / g);
    }
    printf("\n");
    for (int i = 0; i < nv; i++) {
        c.who = 0, c.fn = v[i].fn, c.cap = v[i].cap_blocks_per_sm * sms, c.next = 0;
        CUDA_CHK(cudaMemset(c.out, 0xA5, c.bytes));
        const gp__transpose_desc d = {(uintptr_t)c.out, (uintptr_t)c.in, rows, 0, cols, 0, rows, cols, 1, elem};
        if (c.fn(&d, c.cap) != cudaSuccess) { cudaGetLastError(); printf("  %-26s n/a\n", v[i].name); continue; }
        CUDA_CHK(cudaMemset(dd, 0, sizeof *dd));
        count_diff<<<sms * 8, 256>>>((const uint8_t *)c.out, (const uint8_t *)ref, c.bytes, dd);
        CUDA_CHK(cudaMemcpy(&diff, dd, sizeof diff, cudaMemcpyDeviceToHost));
        if (diff) { printf("  %-26s WRONG (%llu bytes differ)\n", v[i].name, diff); continue; }
        const double ms = gp_bench_median_ms_batch(timed, &c, batch);
        printf("  %-26s %8.1f us  %6.1f%% of copy\n", v[i].name, ms * 1e3, 100 * copy_ms / ms);
    }
    CUDA_CHK(cudaFree(c.in));
    CUDA_CHK(cudaFree(c.out));
    CUDA_CHK(cudaFree(ref));
    CUDA_CHK(cudaFree(dd));
}

/* One variant, five calls, for a profiler: probe_tiles one <u8|u16|f32|f64> <rows> <cols> <variant name> */
static int one(char **argv, cublasHandle_t h, int sms, int l2)
{
    static const struct { const char *name; size_t elem; const variant *v; int n; } types[] = {
        {"u8", 1, v_u8, N_OF(v_u8)}, {"u16", 2, v_u16, N_OF(v_u16)}, {"f32", 4, v_f32, N_OF(v_f32)}, {"f64", 8, v_f64, N_OF(v_f64)}};
    for (int t = 0; t < 4; t++)
        if (strcmp(argv[2], types[t].name) == 0)
            for (int i = 0; i < types[t].n; i++)
                if (strcmp(argv[5], types[t].v[i].name) == 0) {
                    const size_t rows = strtoull(argv[3], NULL, 10), cols = strtoull(argv[4], NULL, 10), e = types[t].elem;
                    char *in, *out;
                    CUDA_CHK(cudaMalloc(&in, rows * cols * e));
                    CUDA_CHK(cudaMalloc(&out, rows * cols * e));
                    fill_bits<<<sms * 8, 256>>>((uint32_t *)in, rows * cols * e / 4, 1);
                    const gp__transpose_desc d = {(uintptr_t)out, (uintptr_t)in, rows, 0, cols, 0, rows, cols, 1, e};
                    for (int k = 0; k < 5; k++) CUDA_CHK(types[t].v[i].fn(&d, 0));
                    CUDA_CHK(cudaDeviceSynchronize());
                    printf("ran %s %s %zu x %zu five times\n", argv[2], argv[5], rows, cols);
                    return 0;
                }
    (void)h, (void)l2;
    fprintf(stderr, "no such variant\n");
    return 1;
}

/* probe_tiles [ragged|small|all|f32|squares]: the 1- and 2-byte matrices off the word grid,
 * the 4- and 8-byte matrices of about one wave of square tiles or fewer, or both (the
 * default); floats off 16 bytes and skinny floats; large float squares. */
int main(int argc, char **argv)
{
    cudaDeviceProp p;
    CUDA_CHK(cudaGetDeviceProperties(&p, 0));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
    if (argc == 6 && strcmp(argv[1], "one") == 0) return one(argv, h, p.multiProcessorCount, p.l2CacheSize);
    const char *set = argc > 1 ? argv[1] : "all";
    const int sms = p.multiProcessorCount, l2 = p.l2CacheSize;
    printf("%s, %d SMs\n", p.name, sms);
    if (strcmp(set, "ragged") == 0 || strcmp(set, "all") == 0) {
        static const struct { size_t r, c; } shapes[] = {{4097, 3001}, {3001, 4097}, {8191, 8191}, {2049, 2047}, {1001, 1001}};
        for (int i = 0; i < (int)(sizeof shapes / sizeof *shapes); i++) {
            probe("u8", 1, shapes[i].r, shapes[i].c, v_u8, N_OF(v_u8), h, sms, l2);
            probe("u16", 2, shapes[i].r, shapes[i].c, v_u16, N_OF(v_u16), h, sms, l2);
        }
        probe("u8", 1, 8192, 8192, v_u8w, N_OF(v_u8w), h, sms, l2); /* on the word grid: the chunked tile */
        probe("u8", 1, 4096, 3000, v_u8w, N_OF(v_u8w), h, sms, l2);
    }
    if (strcmp(set, "small") == 0 || strcmp(set, "all") == 0) {
        static const struct { size_t r, c; } shapes[] = {{1000, 1000}, {2048, 2048}, {4097, 3001}, {8192, 8192}};
        for (int i = 0; i < (int)(sizeof shapes / sizeof *shapes); i++) {
            probe("f64", 8, shapes[i].r, shapes[i].c, v_f64, N_OF(v_f64), h, sms, l2);
            probe("f32", 4, shapes[i].r, shapes[i].c, v_f32, N_OF(v_f32), h, sms, l2);
        }
    }
    if (strcmp(set, "squares") == 0) {
        static const size_t sq[] = {2048, 8192, 16384};
        for (int i = 0; i < (int)(sizeof sq / sizeof *sq); i++) {
            probe("f32", 4, sq[i], sq[i], v_f32sq, N_OF(v_f32sq), h, sms, l2);
            probe("f64", 8, sq[i], sq[i], v_f64, 2, h, sms, l2);
        }
    }
    if (strcmp(set, "lib") == 0) { /* the library (and its ragged tiles), on the bench's shapes and rows off 16 bytes */
        static const size_t sq[] = {2048, 8192, 16384};
        for (int i = 0; i < 3; i++) {
            probe("f32", 4, sq[i], sq[i], v_f32sq, 1, h, sms, l2);
            probe("f64", 8, sq[i], sq[i], v_f64, 1, h, sms, l2);
        }
        static const struct { size_t r, c; } odd[] = {{1000, 1000}, {4097, 3001}, {3001, 4097}, {8191, 8191}, {2049, 2047},
                                                      {1u << 22, 32}, {32, 1u << 22}};
        for (int i = 0; i < (int)(sizeof odd / sizeof *odd); i++) {
            probe("f64", 8, odd[i].r, odd[i].c, v_f64, 1, h, sms, l2);
            probe("f32", 4, odd[i].r, odd[i].c, v_f32, 1, h, sms, l2);
            probe("u8", 1, odd[i].r, odd[i].c, v_u8, i < 5 ? N_OF(v_u8) : 1, h, sms, l2);
            probe("u16", 2, odd[i].r, odd[i].c, v_u16, i < 5 ? N_OF(v_u16) : 1, h, sms, l2);
        }
        probe("u8", 1, 8192, 8192, v_u8w, 1, h, sms, l2);
        probe("u16", 2, 8192, 8192, v_u16, 1, h, sms, l2);
    }
    if (strcmp(set, "prefetch") == 0) { /* rows off 16 bytes: tile size with the L2 prefetch */
        static const struct { size_t r, c; } off[] = {{4097, 3001}, {3001, 4097}, {8191, 8191}, {2049, 2047}};
        for (int i = 0; i < (int)(sizeof off / sizeof *off); i++) {
            probe("u8", 1, off[i].r, off[i].c, v_u8pf, N_OF(v_u8pf), h, sms, l2);
            probe("u16", 2, off[i].r, off[i].c, v_u16pf, N_OF(v_u16pf), h, sms, l2);
            probe("f32", 4, off[i].r, off[i].c, v_f32pf, N_OF(v_f32pf), h, sms, l2);
            probe("f64", 8, off[i].r, off[i].c, v_f64pf, N_OF(v_f64pf), h, sms, l2);
        }
    }
    if (strcmp(set, "f32") == 0) {
        static const struct { size_t r, c; } off[] = {{4097, 3001}, {3001, 4097}, {8191, 8191}, {2049, 2047}};
        for (int i = 0; i < (int)(sizeof off / sizeof *off); i++)
            probe("f32", 4, off[i].r, off[i].c, v_f32off, N_OF(v_f32off), h, sms, l2);
        static const struct { size_t r, c; } skinny[] = {{32, 1u << 22}, {1u << 22, 32}, {64, 1u << 21}, {1u << 21, 64}};
        for (int i = 0; i < (int)(sizeof skinny / sizeof *skinny); i++)
            probe("f32", 4, skinny[i].r, skinny[i].c, v_f32skinny, N_OF(v_f32skinny), h, sms, l2);
    }
    cublasDestroy(h);
    return 0;
}
