/* bench/sort/sort.cu -- the radix sort against CUB's DeviceRadixSort (Onesweep) and the
 * copy rate, with the ladder from the textbook scan-based sort to the one-sweep passes.
 *
 * Part 1, "ladder" (u32 keys, 2^24 random): each design step as its own row.
 *   1-bit split: GPU Gems 3 ch. 39 (Harris, Sengupta & Owens) and Sengupta, Harris, Zhang &
 *     Owens (2007): per bit, flags, a device-wide exclusive scan (gp_exclusive_scan_sum_u32)
 *     and a stable scatter: 32 passes of 3 launches.
 *   4-bit digits, block scans: per 4-bit digit, each block counts its 16 digits, one
 *     device-wide exclusive scan of the digit-major counts, each block ranks its tile
 *     (gp_block_radix_rank) and scatters: 8 passes of 3 launches.
 *   one-sweep, 8-bit digits (Adinets & Merrill 2022), at 2^24 and 2^28, each step one change
 *     to the one before, 256 threads x 16 keys a tile: the block rank by __match_any_sync
 *     (the first version); by atomicOr peer masks with 64-bit counts in the status words
 *     (the layout needed above 2^32 keys); with 32-bit counts; early counts (a tile
 *     publishes its digit counts before it ranks); the look-back loading GP__SORT_WIN words a
 *     step; the rank's shorter chain per row; then the default tile (gp_sort_u32). The
 *     variants are the pass kernel's template flags (GP__SORT_V_*); each checked against CUB.
 * Part 2, "against CUB": keys u32 and f32 (in [0, 1)), pairs u32/u32, keys u64 at 2^28 and
 *   u32 at 2^24, argsort i32 and f32 at 2^28 (CUB: SortPairs of key and a 64-bit index,
 *   the index array made by a kernel inside the timed region, as an argsort must), low-
 *   entropy u32 keys (all equal, 8 distinct, below 2^8) at 2^28, small u32 sorts, and the
 *   empty-kernel floor. Each row: time, Gkeys/s, % of the bound (the bytes an 8-bit LSD
 *   sort must move: the keys read once for the histograms, then read and written (keys and
 *   values) once per pass, at this run's device-to-device copy rate), CUB time and
 *   CUB / gp (above 1: faster than CUB). CUB's temp storage is allocated outside the timed
 *   region; the library takes its scratch from its pool inside.
 * Every gp result is checked against CUB's (bitwise; no -0.0 among the keys) before timing.
 *
 * Build and run:  make bench-sort   (or: make build/bench/sort/sort && build/bench/sort/sort)
 * Tables: stdout and bench/results/<gpu>.sort.{md,csv}. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- data -------------------------------------------------------------------------------- */
static __device__ __forceinline__ uint32_t mix32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
enum { G_RANDOM, G_EQUAL, G_FEW, G_SMALL, G_UNIT_F32 };
__global__ void fill_u32(uint32_t *k, size_t n, int kind, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t r = mix32(i, seed);
        k[i] = kind == G_EQUAL ? 0x2468ACE1u : kind == G_FEW ? mix32(r & 7, 99) : kind == G_SMALL ? (r & 255)
               : kind == G_UNIT_F32 ? __float_as_uint((float)(r >> 8) * (1.0f / 16777216.0f)) : r;
    }
}
__global__ void fill_u64(uint64_t *k, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        k[i] = (uint64_t)mix32(i, seed) << 32 | mix32(i, seed ^ 0x55u);
}
__global__ void iota_u64(uint64_t *v, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) v[i] = i;
}

/* ---- the ladder's textbook sorts ----------------------------------------------------------- */
/* 1-bit split: flags f = (bit == 0), s = exclusive scan of f, zeros = s[n-1] + f[n-1];
 * key i goes to s[i] if f, else zeros + i - s[i]. */
__global__ void split_flags(uint32_t *f, const uint32_t *k, size_t n, int bit)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        f[i] = ((k[i] >> bit) & 1) ^ 1;
}
__global__ void split_scatter(uint32_t *out, const uint32_t *k, const uint32_t *s, size_t n, int bit)
{
    const size_t zeros = s[n - 1] + (((k[n - 1] >> bit) & 1) ^ 1);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t b = (k[i] >> bit) & 1;
        out[b ? zeros + i - s[i] : s[i]] = k[i];
    }
}
typedef struct { uint32_t *a, *b, *f, *s; size_t n; } split_ctx;
static void split_sort(void *p)
{
    split_ctx *c = (split_ctx *)p;
    uint32_t *in = c->a, *out = c->b;
    for (int bit = 0; bit < 32; bit++) {
        split_flags<<<1024, 256>>>(c->f, in, c->n, bit);
        CUDA_CHK(gp_exclusive_scan_sum_u32(c->s, c->f, c->n, 0));
        split_scatter<<<1024, 256>>>(out, in, c->s, c->n, bit);
        uint32_t *t = in; in = out; out = t;
    }
}

/* 4-bit digits, block scans: tiles of 256 x 8 keys */
#define L4_BLOCK 256
#define L4_ITEMS 8
#define L4_TILE (L4_BLOCK * L4_ITEMS)
__global__ void __launch_bounds__(L4_BLOCK) l4_count(uint32_t *counts, const uint32_t *k, size_t n, int shift, unsigned tiles)
{
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < L4_TILE; i += L4_BLOCK) {
        const size_t at = (size_t)blockIdx.x * L4_TILE + i;
        if (at < n) atomicAdd(&h[(k[at] >> shift) & 15], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 16) counts[(size_t)threadIdx.x * tiles + blockIdx.x] = h[threadIdx.x]; /* digit-major */
}
__global__ void __launch_bounds__(L4_BLOCK) l4_scatter(uint32_t *out, const uint32_t *k, const uint32_t *offsets, size_t n,
                                                       int shift, unsigned tiles)
{
    __shared__ gp_block_radix_rank_smem<L4_BLOCK> s;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t first = (size_t)blockIdx.x * L4_TILE + warp * 32 * L4_ITEMS + lane;
    uint32_t key[L4_ITEMS];
    unsigned digit[L4_ITEMS], rank[L4_ITEMS];
    for (int i = 0; i < L4_ITEMS; i++) {
        const size_t at = first + 32 * i;
        key[i] = at < n ? k[at] : 0;
        digit[i] = at < n ? (key[i] >> shift) & 15 : 255;
    }
    gp_block_radix_rank<L4_BLOCK, L4_ITEMS>(digit, rank, s);
    for (int i = 0; i < L4_ITEMS; i++)
        if (first + 32 * i < n)
            out[offsets[(size_t)digit[i] * tiles + blockIdx.x] + rank[i] - s.digit_start[digit[i]]] = key[i];
}
typedef struct { uint32_t *a, *b, *counts, *offsets; size_t n; } l4_ctx;
static void l4_sort(void *p)
{
    l4_ctx *c = (l4_ctx *)p;
    const unsigned tiles = (unsigned)((c->n + L4_TILE - 1) / L4_TILE);
    uint32_t *in = c->a, *out = c->b;
    for (int shift = 0; shift < 32; shift += 4) {
        l4_count<<<tiles, L4_BLOCK>>>(c->counts, in, c->n, shift, tiles);
        CUDA_CHK(gp_exclusive_scan_sum_u32(c->offsets, c->counts, (size_t)16 * tiles, 0));
        l4_scatter<<<tiles, L4_BLOCK>>>(out, in, c->offsets, c->n, shift, tiles);
        uint32_t *t = in; in = out; out = t;
    }
}

/* ---- timed calls ------------------------------------------------------------------------------ */
enum { J_KEYS, J_PAIRS, J_ARGSORT };
typedef struct {
    int job, type; /* type: 0 u32, 1 f32, 2 u64, 3 i32 */
    size_t n;
    void *in, *out, *vin, *vout, *tmp;
    size_t tmp_bytes;
    cudaError_t (*variant)(uint32_t *, const uint32_t *, size_t); /* a ladder step (u32 keys), else NULL */
} sort_ctx;

/* A ladder step: the grid path's pass kernel with BLOCK threads, ITEMS keys a thread,
 * VARIANT flags (GP__SORT_V_*) and, with WIDE, 64-bit counts in the status words. */
template <int BLOCK, int ITEMS, int VARIANT, int MINB, int WIDE>
static cudaError_t u32_step(uint32_t *out, const uint32_t *in, size_t n)
{
    gp__sort_knobs k = {};
    k.no_small = 1; /* the grid path at every size */
    k.wide = WIDE;
    return gp__sort<uint32_t, uint32_t, GP__SORT_KEYS, BLOCK, ITEMS, VARIANT, MINB>(out, NULL, in, NULL, n, 0, 0, &k);
}

/* The library's path with the bucket path (from 2^17 keys) or the cluster's split (below)
 * turned off: the LSD passes, for the small table's comparison. */
static cudaError_t u32_no_buckets(uint32_t *out, const uint32_t *in, size_t n)
{
    gp__sort_knobs k = {};
    k.no_buckets = 1;
    k.no_cluster_split = 1;
    return gp__sort<uint32_t, uint32_t, GP__SORT_KEYS>(out, NULL, in, NULL, n, 0, 0, &k);
}

static void gp_call(void *p)
{
    sort_ctx *c = (sort_ctx *)p;
    if (c->variant) {
        CUDA_CHK(c->variant((uint32_t *)c->out, (const uint32_t *)c->in, c->n));
        return;
    }
    if (c->job == J_KEYS) {
        if (c->type == 0) CUDA_CHK(gp_sort_u32((uint32_t *)c->out, (const uint32_t *)c->in, c->n, 0));
        if (c->type == 1) CUDA_CHK(gp_sort_f32((float *)c->out, (const float *)c->in, c->n, 0));
        if (c->type == 2) CUDA_CHK(gp_sort_u64((uint64_t *)c->out, (const uint64_t *)c->in, c->n, 0));
    } else if (c->job == J_PAIRS) {
        CUDA_CHK(gp_sort_pairs_u32_u32((uint32_t *)c->out, (uint32_t *)c->vout, (const uint32_t *)c->in,
                                       (const uint32_t *)c->vin, c->n, 0));
    } else {
        if (c->type == 1) CUDA_CHK(gp_argsort_f32((uint64_t *)c->vout, (const float *)c->in, c->n, 0));
        if (c->type == 3) CUDA_CHK(gp_argsort_i32((uint64_t *)c->vout, (const int32_t *)c->in, c->n, 0));
    }
}
static void cub_call(void *p)
{
    sort_ctx *c = (sort_ctx *)p;
    size_t tb = c->tmp_bytes;
    const int n = (int)c->n; /* CUB 3 takes a 64-bit count through its num_items template; int is enough here */
    if (c->job == J_KEYS) {
        if (c->type == 0) CUDA_CHK(cub::DeviceRadixSort::SortKeys(c->tmp, tb, (const uint32_t *)c->in, (uint32_t *)c->out, n));
        if (c->type == 1) CUDA_CHK(cub::DeviceRadixSort::SortKeys(c->tmp, tb, (const float *)c->in, (float *)c->out, n));
        if (c->type == 2) CUDA_CHK(cub::DeviceRadixSort::SortKeys(c->tmp, tb, (const uint64_t *)c->in, (uint64_t *)c->out, n));
    } else if (c->job == J_PAIRS) {
        CUDA_CHK(cub::DeviceRadixSort::SortPairs(c->tmp, tb, (const uint32_t *)c->in, (uint32_t *)c->out,
                                                 (const uint32_t *)c->vin, (uint32_t *)c->vout, n));
    } else {
        iota_u64<<<1024, 256>>>((uint64_t *)c->vin, c->n);
        if (c->type == 1)
            CUDA_CHK(cub::DeviceRadixSort::SortPairs(c->tmp, tb, (const float *)c->in, (float *)c->out,
                                                     (const uint64_t *)c->vin, (uint64_t *)c->vout, n));
        if (c->type == 3)
            CUDA_CHK(cub::DeviceRadixSort::SortPairs(c->tmp, tb, (const int32_t *)c->in, (int32_t *)c->out,
                                                     (const uint64_t *)c->vin, (uint64_t *)c->vout, n));
    }
}
static size_t cub_temp(sort_ctx *c)
{
    void *save = c->tmp;
    c->tmp = NULL;
    c->tmp_bytes = 0;
    size_t tb = 0;
    const int n = (int)c->n;
    if (c->job == J_KEYS && c->type == 0) cub::DeviceRadixSort::SortKeys(NULL, tb, (const uint32_t *)c->in, (uint32_t *)c->out, n);
    if (c->job == J_KEYS && c->type == 1) cub::DeviceRadixSort::SortKeys(NULL, tb, (const float *)c->in, (float *)c->out, n);
    if (c->job == J_KEYS && c->type == 2) cub::DeviceRadixSort::SortKeys(NULL, tb, (const uint64_t *)c->in, (uint64_t *)c->out, n);
    if (c->job == J_PAIRS)
        cub::DeviceRadixSort::SortPairs(NULL, tb, (const uint32_t *)c->in, (uint32_t *)c->out, (const uint32_t *)c->vin,
                                        (uint32_t *)c->vout, n);
    if (c->job == J_ARGSORT)
        cub::DeviceRadixSort::SortPairs(NULL, tb, (const float *)c->in, (float *)c->out, (const uint64_t *)c->vin,
                                        (uint64_t *)c->vout, n);
    c->tmp = save;
    return tb;
}

/* device buffers for the largest job: keys 8 bytes, values 8 bytes, n = 2^28 */
static void *g_in, *g_out, *g_vin, *g_vout, *g_check, *g_tmp;
static size_t g_tmp_bytes;

static float time_gp(sort_ctx *c) { return gp_bench_median_ms(gp_call, c); }
static float time_cub(sort_ctx *c)
{
    const size_t need = cub_temp(c);
    if (need > g_tmp_bytes) {
        CUDA_CHK(cudaFree(g_tmp));
        CUDA_CHK(cudaMalloc(&g_tmp, need));
        g_tmp_bytes = need;
    }
    c->tmp = g_tmp;
    c->tmp_bytes = need;
    return gp_bench_median_ms(cub_call, c);
}
/* gp's output against CUB's (keys for sorts, the indices for argsort, values for pairs) */
static int same_as_cub(sort_ctx *c, size_t bytes)
{
    void *result = c->job == J_KEYS ? c->out : c->vout;
    gp_call(c);
    CUDA_CHK(cudaMemcpy(g_check, result, bytes, cudaMemcpyDeviceToDevice));
    time_cub(c); /* sizes its temp storage */
    cub_call(c);
    CUDA_CHK(cudaDeviceSynchronize());
    unsigned char *a = (unsigned char *)malloc(bytes), *b = (unsigned char *)malloc(bytes);
    CUDA_CHK(cudaMemcpy(a, g_check, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(b, result, bytes, cudaMemcpyDeviceToHost));
    const int same = memcmp(a, b, bytes) == 0;
    free(a);
    free(b);
    return same;
}

int main(void)
{
    need_gpu(__FILE__);
    gp_bench_begin("sort", "Radix sort");
    const size_t big = (size_t)1 << 28;
    CUDA_CHK(cudaMalloc(&g_in, big * 8));
    CUDA_CHK(cudaMalloc(&g_out, big * 8));
    CUDA_CHK(cudaMalloc(&g_vin, big * 8));
    CUDA_CHK(cudaMalloc(&g_vout, big * 8));
    CUDA_CHK(cudaMalloc(&g_check, big * 8));
    const float copy_ms = gp_bench_copy_ms(g_out, g_in, big * 4);
    const double copy_gbs = gp_bench_gbps(2.0 * big * 4, copy_ms);
    const float floor_ms = gp_bench_median_ms_batch(gp_bench_empty, NULL, 64);

    /* Part 1: the ladder at 2^24 u32 (the one-sweep steps also at 2^28) */
    {
        const size_t n = (size_t)1 << 24;
        fill_u32<<<1024, 256>>>((uint32_t *)g_in, n, G_RANDOM, 1);
        uint32_t *s_f = (uint32_t *)g_vin, *s_s = (uint32_t *)g_vout;
        gp_table_begin("Ladder: u32 keys, 2^24 random (and 2^28)", "step|launches|ms|Gkeys/s|% of bound|vs CUB|ms 2^28|vs CUB 2^28|checked");
        sort_ctx c = {J_KEYS, 0, n, g_in, g_out, NULL, NULL, NULL, 0, NULL};
        const float cub_ms = time_cub(&c);
        const double bound_ms = 36.0 * n / (copy_gbs * 1e6);
        /* the textbook sorts work on copies of the keys (they sort in ping-pong buffers) */
        uint32_t *a = (uint32_t *)g_check, *b = (uint32_t *)g_out;
        split_ctx sc = {a, b, s_f, s_s, n};
        CUDA_CHK(cudaMemcpy(a, g_in, n * 4, cudaMemcpyDeviceToDevice));
        const float split_ms = gp_bench_median_ms_n(split_sort, &sc, 1, 5); /* 32 passes of a stable sort of sorted keys: same work */
        l4_ctx lc = {a, b, s_f, s_s, n};
        const float l4_ms = gp_bench_median_ms_n(l4_sort, &lc, 2, 21);
        /* check the 4-bit sort: 8 passes (even) leave the result in a */
        CUDA_CHK(cudaMemcpy(a, g_in, n * 4, cudaMemcpyDeviceToDevice));
        l4_sort(&lc);
        cub_call(&c);
        CUDA_CHK(cudaDeviceSynchronize());
        {
            uint32_t *h1 = (uint32_t *)malloc(n * 4), *h2 = (uint32_t *)malloc(n * 4);
            CUDA_CHK(cudaMemcpy(h1, a, n * 4, cudaMemcpyDeviceToHost));
            CUDA_CHK(cudaMemcpy(h2, g_out, n * 4, cudaMemcpyDeviceToHost));
            if (memcmp(h1, h2, n * 4)) fprintf(stderr, "ladder: the 4-bit sort differs from CUB\n");
            CUDA_CHK(cudaMemcpy(a, g_in, n * 4, cudaMemcpyDeviceToDevice));
            split_sort(&sc); /* 32 passes: the result in a */
            CUDA_CHK(cudaMemcpy(h1, a, n * 4, cudaMemcpyDeviceToHost));
            if (memcmp(h1, h2, n * 4)) fprintf(stderr, "ladder: the 1-bit split sort differs from CUB\n");
            free(h1);
            free(h2);
        }
        /* the one-sweep steps, each checked against CUB, at 2^24 and at 2^28 */
        enum { MA = GP__SORT_V_MATCH_ANY, LATE = GP__SORT_V_LATE, W1 = GP__SORT_V_WIN1, LONG = GP__SORT_V_LONG };
        const struct { const char *step; cudaError_t (*fn)(uint32_t *, const uint32_t *, size_t); } steps[] = {
            {"8-bit one-sweep, rank by __match_any_sync, 32-bit counts", u32_step<256, 16, MA | LATE | W1, 3, 0>},
            {"8-bit one-sweep, rank by atomicOr peers, 64-bit counts (two status words)", u32_step<256, 16, LATE | W1 | LONG, 3, 1>},
            {"8-bit one-sweep, 32-bit counts", u32_step<256, 16, LATE | W1 | LONG, 3, 0>},
            {"early counts: a tile publishes its counts before it ranks", u32_step<256, 16, W1 | LONG, 3, 0>},
            {"look-back: " STR(GP__SORT_WIN) " status words a load step", u32_step<256, 16, LONG, 3, 0>},
            {"rank: leader's atomicAdd, match words in 3 buffers (2 syncs less a row)", u32_step<256, 16, 0, 3, 0>},
            {"tiles of 384 threads x 24 keys, 2 blocks a SM", u32_step<384, 24, 0, 2, 0>},
            {"tiles of " STR(GP__SORT_BLOCK) " threads x " STR(GP__SORT_ITEMS_KEYS4) " keys (gp_sort_u32)", NULL},
        };
        constexpr int STEPS = (int)(sizeof steps / sizeof steps[0]);
        float ms24[STEPS], ms28[STEPS];
        int same[STEPS];
        const size_t big28 = (size_t)1 << 28;
        for (int lg = 24; lg <= 28; lg += 4) {
            sort_ctx cs = c;
            cs.n = (size_t)1 << lg;
            fill_u32<<<1024, 256>>>((uint32_t *)g_in, cs.n, G_RANDOM, 1);
            for (int k = 0; k < STEPS; k++) {
                cs.variant = steps[k].fn;
                const int ok = same_as_cub(&cs, cs.n * 4);
                (lg == 24 ? ms24 : ms28)[k] = time_gp(&cs);
                same[k] = (lg == 24 ? 1 : same[k]) && ok;
            }
        }
        sort_ctx c28 = c;
        c28.n = big28;
        const float cub28_ms = time_cub(&c28);
        fill_u32<<<1024, 256>>>((uint32_t *)g_in, n, G_RANDOM, 1); /* back to the 2^24 keys */
        gp_table_row("%s|%s|%.3f|%.2f|%.1f%%|%.2fx|-|-|checked", "1-bit split, device scan per bit (GPU Gems 3 ch. 39)", "96", split_ms,
                     n / (split_ms * 1e6), 100.0 * bound_ms / split_ms, cub_ms / split_ms);
        gp_table_row("%s|%s|%.3f|%.2f|%.1f%%|%.2fx|-|-|checked", "4-bit digits, block rank + device scan of block counts", "24", l4_ms,
                     n / (l4_ms * 1e6), 100.0 * bound_ms / l4_ms, cub_ms / l4_ms);
        for (int k = 0; k < STEPS; k++)
            gp_table_row("%s|%s|%.3f|%.2f|%.1f%%|%.2fx|%.3f|%.2fx|%s", steps[k].step, "5", ms24[k], n / (ms24[k] * 1e6),
                         100.0 * bound_ms / ms24[k], cub_ms / ms24[k], ms28[k], cub28_ms / ms28[k], same[k] ? "= CUB" : "DIFFERS");
        gp_table_row("%s|-|%.3f|%.2f|%.1f%%|1.00x|%.3f|1.00x|-", "CUB DeviceRadixSort::SortKeys (Onesweep)", cub_ms, n / (cub_ms * 1e6),
                     100.0 * bound_ms / cub_ms, cub28_ms);
        gp_bench_note("Bound: 36 bytes per key (read once for the histograms, read and written in each of 4 passes) at "
                      "this run's copy rate, %.0f GB/s. vs CUB: CUB time / time. Each one-sweep step checked against CUB at "
                      "both sizes. Launches: the histogram kernel and a kernel a pass, their status words in the "
                      "stream's status memory (a zeroing kernel more where they pass its 64 MB: 64-bit counts at 2^28).",
                      copy_gbs);
    }

    /* Part 2: against CUB */
    gp_table_begin("Against CUB (this run)", "job|n|gp ms|Gkeys/s|% of bound|CUB ms|vs CUB|checked");
    struct row { const char *name; int job, type, gen; int lg; double bytes_per_key; };
    const row rows[] = {
        {"keys u32, random", J_KEYS, 0, G_RANDOM, 28, 36},
        {"keys f32 in [0, 1)", J_KEYS, 1, G_UNIT_F32, 28, 36},
        {"pairs u32/u32, random", J_PAIRS, 0, G_RANDOM, 28, 68},
        {"keys u64, random", J_KEYS, 2, G_RANDOM, 28, 136},
        {"keys u32, random", J_KEYS, 0, G_RANDOM, 24, 36},
        /* argsort: the histograms 4; pass 0 reads keys, writes keys and 32-bit indices, 12; the
         * middle passes 16; the last reads keys and indices and writes 64-bit indices, 16 */
        {"argsort i32 (CUB: pairs with a u64 index)", J_ARGSORT, 3, G_RANDOM, 28, 4 + 12 + 2 * 16 + 16},
        {"argsort f32 in [0, 1)", J_ARGSORT, 1, G_UNIT_F32, 28, 4 + 12 + 2 * 16 + 16},
        {"keys u32, all equal", J_KEYS, 0, G_EQUAL, 28, 36},
        {"keys u32, 8 distinct", J_KEYS, 0, G_FEW, 28, 36},
        {"keys u32, below 2^8", J_KEYS, 0, G_SMALL, 28, 36},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const size_t n = (size_t)1 << rows[r].lg;
        sort_ctx c = {rows[r].job, rows[r].type, n, g_in, g_out, g_vin, g_vout, NULL, 0, NULL};
        if (rows[r].type == 2) fill_u64<<<1024, 256>>>((uint64_t *)g_in, n, 7);
        else fill_u32<<<1024, 256>>>((uint32_t *)g_in, n, rows[r].gen, 7 + (unsigned)r);
        if (rows[r].job == J_PAIRS) iota_u64<<<1024, 256>>>((uint64_t *)g_vin, n / 2); /* any values */
        const size_t out_bytes = rows[r].job == J_ARGSORT ? n * 8 : rows[r].type == 2 ? n * 8 : n * 4;
        const int same = same_as_cub(&c, out_bytes);
        const float gp_ms = time_gp(&c), cub_ms = time_cub(&c);
        const double bound_ms = rows[r].bytes_per_key * n / (copy_gbs * 1e6);
        gp_table_row("%s|2^%d|%.4f|%.2f|%.1f%%|%.4f|%.2fx|%s", rows[r].name, rows[r].lg, gp_ms, n / (gp_ms * 1e6),
                     100.0 * bound_ms / gp_ms, cub_ms, cub_ms / gp_ms, same ? "= CUB" : "DIFFERS");
    }
    gp_bench_note("Copy: %.0f GB/s (1 GiB device-to-device, read + write). Empty kernel back to back: %.2f us. Bound bytes "
                  "per key: keys u32 36, pairs u32/u32 68, u64 keys 136, argsort (u32 keys; 32-bit indices between passes, 64-bit out) 64.",
                  copy_gbs, floor_ms * 1e3);

    /* Part 3: small sorts, where the launch is much of the time. Two ways: a single call
     * between events from an idle GPU (what one call in a program sees, the host's launch
     * latency included), and 64 calls back to back (a pipeline's cost per call); an empty
     * kernel timed in turn with both gives each way's floor. The keys stay in L2. */
    gp_table_begin("Small sorts: u32 random keys, us per call", "n|path|gp single|CUB single|empty single|gp back to back|CUB back to back|empty back to back|vs CUB single|checked");
    /* the cluster's sizes and from 2^17 keys each size twice: the library (the cluster's split,
     * the bucket path up to 2^20 keys), then with both turned off (the LSD passes) */
    const int small_lg[] = {10, 13, 13, 16, 16, 18, 18, 19, 19, 20, 20, 21};
    for (size_t r = 0; r < sizeof small_lg / sizeof small_lg[0]; r++) {
        const size_t n = (size_t)1 << small_lg[r];
        const bool lsd = r > 0 && small_lg[r] == small_lg[r - 1];
        sort_ctx c = {J_KEYS, 0, n, g_in, g_out, NULL, NULL, NULL, 0, lsd ? u32_no_buckets : NULL};
        fill_u32<<<1024, 256>>>((uint32_t *)g_in, n, G_RANDOM, 40 + (unsigned)r);
        const int same = same_as_cub(&c, n * 4); /* also sizes CUB's temp storage */
        gp_bench_fn fns[3] = {gp_call, cub_call, gp_bench_empty};
        void *ctxs[3] = {&c, &c, NULL};
        float single[3], queued[3];
        gp_bench_medians(fns, ctxs, 3, 1, GP_BENCH_WARMUP, GP_BENCH_REPS, single);
        gp_bench_medians(fns, ctxs, 3, 64, GP_BENCH_WARMUP * 64, GP_BENCH_REPS, queued);
        const char *path = n <= GP__SORT_BITONIC_MAX ? "one block, bitonic"
                           : n <= (size_t)GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_ITEMS ? "one block, radix"
                           : n <= (size_t)GP__SORT_CLUSTER_BLOCKS * GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_ITEMS
                               ? (lsd ? "one cluster, 4 LSD passes" : "one cluster: the top digit's split, the blocks' sorts")
                           : lsd || n > (size_t)GP__SORT_BUCKET_CAP * GP__SORT_BUCKET_SPREAD
                               ? "grid: histograms, 4 passes"
                               : "buckets: histograms, the top digit's pass, the buckets' sorts";
        gp_table_row("2^%d|%s|%.1f|%.1f|%.1f|%.1f|%.1f|%.1f|%.2fx|%s", small_lg[r], path, single[0] * 1e3, single[1] * 1e3,
                     single[2] * 1e3, queued[0] * 1e3, queued[1] * 1e3, queued[2] * 1e3, single[1] / single[0],
                     same ? "= CUB" : "DIFFERS");
    }
    gp_bench_note("single: one call between two events from an idle GPU (median of %d); back to back: 64 calls between the "
                  "events, per call. empty: a kernel of one warp that does nothing, timed in turn with the sorts; it is "
                  "the floor of either way.", GP_BENCH_REPS);
    gp_bench_end();
    return 0;
}
