/* bench/sort/probes/shapes.cu -- the grid path's pass kernel in several shapes (threads, keys a
 * thread, variant flags, blocks per SM): u32 and u64 keys and u32/u32 pairs against CUB's
 * DeviceRadixSort (Onesweep) in the same run, and u32 argsort: the measurements behind the
 * default shapes. Every result is checked bitwise against CUB's first (argsort: against its
 * first row). Not part of `make bench`.
 *
 * Build and run (GP__SORT_WIN: the look-back's words a step, default 8):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/sort/probes/shapes.cu -o build/bench/sort/shapes
 *   build/bench/sort/shapes [job]   (job: only the jobs whose name holds it, e.g. pairs) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "../../../gpuprims.cuh"
#include "../../../examples/need_gpu.h"
#include "../../bench.cuh"
#include "probe_keys.cuh"

/* One call: u32 keys (keys in, out), u64 keys, or u32/u32 pairs (values in vin, vout). */
typedef struct { void *out, *vout; const void *in, *vin; size_t n; void *tmp; size_t tb; } bufs;
typedef void (*sort_fn)(bufs *);
/* One sort of the grid path (at every size) in a given shape: keys K (and values V, or
 * argsort's indices). */
template <class K, class V, int MODE, int BLOCK, int ITEMS, int VARIANT, int MINB>
static void shape_of(bufs *b)
{
    gp__sort_knobs k = {};
    k.no_small = 1;
    CUDA_CHK((gp__sort<K, V, MODE, BLOCK, ITEMS, VARIANT, MINB>(
        MODE == GP__SORT_ARGSORT ? NULL : (K *)b->out, MODE == GP__SORT_KEYS ? NULL : (V *)b->vout,
        (const K *)b->in, MODE == GP__SORT_PAIRS ? (const V *)b->vin : NULL, b->n, 0, 0, &k)));
}
template <int BLOCK, int ITEMS, int VARIANT, int MINB>
static void shape(bufs *b) { shape_of<uint32_t, uint32_t, GP__SORT_KEYS, BLOCK, ITEMS, VARIANT, MINB>(b); }
template <int BLOCK, int ITEMS, int VARIANT, int MINB>
static void shape64(bufs *b) { shape_of<uint64_t, uint64_t, GP__SORT_KEYS, BLOCK, ITEMS, VARIANT, MINB>(b); }
template <int BLOCK, int ITEMS, int VARIANT, int MINB>
static void shape_pairs(bufs *b) { shape_of<uint32_t, uint32_t, GP__SORT_PAIRS, BLOCK, ITEMS, VARIANT, MINB>(b); }
template <int ITEMS, int VARIANT>
static void shape_argsort(bufs *b) { shape_of<uint32_t, uint64_t, GP__SORT_ARGSORT, 384, ITEMS, VARIANT, 2>(b); }
template <int ITEMS, int VARIANT>
static void shape_pairs64(bufs *b) { shape_of<uint64_t, uint32_t, GP__SORT_PAIRS, 384, ITEMS, VARIANT, 2>(b); }
template <int ITEMS, int VARIANT>
static void shape_argsort64(bufs *b) { shape_of<uint64_t, uint64_t, GP__SORT_ARGSORT, 384, ITEMS, VARIANT, 2>(b); }
static void cub_u32(bufs *b)
{
    CUDA_CHK(cub::DeviceRadixSort::SortKeys(b->tmp, b->tb, (const uint32_t *)b->in, (uint32_t *)b->out, (int)b->n));
}
static void cub_u64(bufs *b)
{
    CUDA_CHK(cub::DeviceRadixSort::SortKeys(b->tmp, b->tb, (const uint64_t *)b->in, (uint64_t *)b->out, (int)b->n));
}
static void cub_pairs(bufs *b)
{
    CUDA_CHK(cub::DeviceRadixSort::SortPairs(b->tmp, b->tb, (const uint32_t *)b->in, (uint32_t *)b->out,
                                             (const uint32_t *)b->vin, (uint32_t *)b->vout, (int)b->n));
}
#define L GP__SORT_V_LATE
#define W1 GP__SORT_V_WIN1
#define LC GP__SORT_V_LONG
#define VL GP__SORT_V_VALUES_LATE
struct shape_row { const char *name; sort_fn fn; };
static const shape_row u32_shapes[] = {
    {"256x16 late, win 1, long chain (before)", shape<256, 16, L | W1 | LC, 3>},
    {"256x16 early", shape<256, 16, 0, 3>},
    {"256x24 early", shape<256, 24, 0, 3>},
    {"384x20 early, 2 blocks/SM", shape<384, 20, 0, 2>},
    {"384x24 early, 2 blocks/SM", shape<384, 24, 0, 2>},
    {"384x26 early, 2 blocks/SM", shape<384, 26, 0, 2>},
    {"384x28 early, 2 blocks/SM", shape<384, 28, 0, 2>},
    {"256x28 early, 3 blocks/SM", shape<256, 28, 0, 3>},
    {"256x32 early, 3 blocks/SM", shape<256, 32, 0, 3>},
    {"384x30 early, 2 blocks/SM", shape<384, 30, 0, 2>},
    {"384x32 early, 2 blocks/SM", shape<384, 32, 0, 2>},
    {"384x36 early, 2 blocks/SM", shape<384, 36, 0, 2>},
    {NULL, NULL},
};
static const shape_row u64_shapes[] = {
    {"u64 256x8 early", shape64<256, 8, 0, 3>},
    {"u64 256x12 early", shape64<256, 12, 0, 3>},
    {"u64 384x8 early, 2 blocks/SM", shape64<384, 8, 0, 2>},
    {"u64 384x12 early, 2 blocks/SM", shape64<384, 12, 0, 2>},
    {"u64 384x16 early, 2 blocks/SM", shape64<384, 16, 0, 2>},
    {"u64 384x18 early, 2 blocks/SM", shape64<384, 18, 0, 2>},
    {"u64 384x20 early, 2 blocks/SM", shape64<384, 20, 0, 2>},
    {"u64 384x24 early, 2 blocks/SM", shape64<384, 24, 0, 2>},
    {NULL, NULL},
};
/* values: loaded after the keys are written and staged where the keys were (VL, before), or
 * loaded once the keys are staged and staged in the rank's counters before the look-back;
 * from GP__SORT_ASYNC_ITEMS keys a thread 4-byte values go by cp.async (the default) unless
 * VR keeps them in registers */
#define VR GP__SORT_V_VALUES_REGS
static const shape_row pair_shapes[] = {
    {"pairs 384x20, values in registers (before)", shape_pairs<384, 20, 0, 2>},
    {"pairs 384x24, values by cp.async", shape_pairs<384, 24, 0, 2>},
    {"pairs 384x28, values by cp.async (library)", shape_pairs<384, 28, 0, 2>},
    {"pairs 256x28, values by cp.async, 3 blocks/SM", shape_pairs<256, 28, 0, 3>},
    {"pairs 384x28, values in registers", shape_pairs<384, 28, VR, 2>},
    {"pairs 384x20, values late, 2 blocks/SM", shape_pairs<384, 20, VL, 2>},
    {NULL, NULL},
};
/* argsort u32 (no CUB row: checked against the first row) */
static const shape_row argsort_shapes[] = {
    {"argsort 384x20, indices in registers (before)", shape_argsort<20, 0>},
    {"argsort 384x24, indices by cp.async", shape_argsort<24, 0>},
    {"argsort 384x28, indices by cp.async (library)", shape_argsort<28, 0>},
    {"argsort 384x20, values late", shape_argsort<20, VL>},
    {NULL, NULL},
};
static void cub_pairs64(bufs *b)
{
    CUDA_CHK(cub::DeviceRadixSort::SortPairs(b->tmp, b->tb, (const uint64_t *)b->in, (uint64_t *)b->out,
                                             (const uint32_t *)b->vin, (uint32_t *)b->vout, (int)b->n));
}
/* 8-byte keys with 4-byte values: x 12 in registers (the library before), or by cp.async
 * from GP__SORT_ASYNC_ITEMS_K8 keys a thread (x 20: the library's) */
static const shape_row pair64_shapes[] = {
    {"pairs u64/u32 384x12, values in registers (before)", shape_pairs64<12, 0>},
    {"pairs u64/u32 384x16, values by cp.async", shape_pairs64<16, 0>},
    {"pairs u64/u32 384x20, values by cp.async (library)", shape_pairs64<20, 0>},
    {"pairs u64/u32 384x20, values in registers", shape_pairs64<20, VR>},
    {NULL, NULL},
};
static const shape_row argsort64_shapes[] = {
    {"argsort u64 384x12, indices in registers (before)", shape_argsort64<12, 0>},
    {"argsort u64 384x16, indices by cp.async", shape_argsort64<16, 0>},
    {"argsort u64 384x20, indices by cp.async (library)", shape_argsort64<20, 0>},
    {NULL, NULL},
};
static void run(void *p)
{
    void **q = (void **)p;
    ((sort_fn)q[0])((bufs *)q[1]);
}
static float time_fn(sort_fn fn, bufs *b)
{
    void *q[2] = {(void *)fn, b};
    return gp_bench_median_ms_n(run, q, 2, 15);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL; /* run only the jobs whose name holds this */
    need_gpu(__FILE__);
    const size_t big = (size_t)1 << 28;
    void *in, *out, *vin, *vout;
    CUDA_CHK(cudaMalloc(&in, big * 8));
    CUDA_CHK(cudaMalloc(&out, big * 8));
    CUDA_CHK(cudaMalloc(&vin, big * 4));
    CUDA_CHK(cudaMalloc(&vout, big * 8));
    size_t tb = 0, t2 = 0;
    cub::DeviceRadixSort::SortKeys(NULL, tb, (const uint64_t *)in, (uint64_t *)out, (int)big);
    cub::DeviceRadixSort::SortPairs(NULL, t2, (const uint32_t *)in, (uint32_t *)out, (const uint32_t *)vin, (uint32_t *)vout, (int)big);
    tb = tb > t2 ? tb : t2;
    cub::DeviceRadixSort::SortPairs(NULL, t2, (const uint64_t *)in, (uint64_t *)out, (const uint32_t *)vin, (uint32_t *)vout, (int)big);
    tb = tb > t2 ? tb : t2;
    void *tmp;
    CUDA_CHK(cudaMalloc(&tmp, tb));
    unsigned char *h1 = (unsigned char *)malloc(big * 8), *h2 = (unsigned char *)malloc(big * 8);
    const float copy_ms = gp_bench_copy_ms(out, in, big * 4);
    const double copy_gbs = gp_bench_gbps(2.0 * big * 4, copy_ms);
    printf("look-back words a step: %d; copy %.0f GB/s\n", GP__SORT_WIN, copy_gbs);
    const struct { const char *what; int lg, few; sort_fn cub; const shape_row *shapes; int kb, vb; double bpk; } jobs[] = {
        {"u32 random", 28, 0, cub_u32, u32_shapes, 4, 0, 36}, {"u32 random", 24, 0, cub_u32, u32_shapes, 4, 0, 36},
        {"u32 8 distinct", 28, 1, cub_u32, u32_shapes, 4, 0, 36}, {"u64 random", 28, 0, cub_u64, u64_shapes, 8, 0, 136},
        {"pairs u32/u32 random", 28, 0, cub_pairs, pair_shapes, 4, 4, 68},
        {"pairs u32/u32 random", 24, 0, cub_pairs, pair_shapes, 4, 4, 68},
        {"argsort u32 random", 28, 0, NULL, argsort_shapes, 4, 8, 64},
        /* 8 B to read for the histograms, 8 passes of 12 read and written */
        {"pairs u64/u32 random", 28, 0, cub_pairs64, pair64_shapes, 8, 4, 200},
        {"pairs u64/u32 random", 24, 0, cub_pairs64, pair64_shapes, 8, 4, 200},
        /* the same, but the first pass reads no indices and the last writes them as 8 bytes, no keys */
        {"argsort u64 random", 28, 0, NULL, argsort64_shapes, 8, 8, 196},
    };
    for (size_t z = 0; z < sizeof jobs / sizeof jobs[0]; z++) {
        if (only && !strstr(jobs[z].what, only)) continue;
        const size_t n = (size_t)1 << jobs[z].lg, bytes = n * jobs[z].kb;
        probe_fill<<<1024, 256>>>((uint32_t *)in, bytes / 4, 7, jobs[z].few ? PROBE_FEW : PROBE_RANDOM);
        probe_fill<<<1024, 256>>>((uint32_t *)vin, n, 8, PROBE_RANDOM);
        bufs b = {out, vout, in, vin, n, tmp, tb};
        const size_t obytes = jobs[z].vb ? n * jobs[z].vb : bytes; /* what is compared: values or keys */
        sort_fn ref = jobs[z].cub ? jobs[z].cub : jobs[z].shapes[0].fn;
        const float cub_ms = jobs[z].cub ? time_fn(jobs[z].cub, &b) : 0.0f;
        ref(&b);
        CUDA_CHK(cudaMemcpy(h2, jobs[z].vb ? vout : out, obytes, cudaMemcpyDeviceToHost));
        if (jobs[z].cub)
            printf("\n2^%d %s: CUB %.4f ms\n", jobs[z].lg, jobs[z].what, cub_ms);
        else
            printf("\n2^%d %s (no CUB call)\n", jobs[z].lg, jobs[z].what);
        printf("| shape | ms | Gkeys/s | %% of bound | vs CUB | checked |\n");
        for (const shape_row *k = jobs[z].shapes; k->fn; k++) {
            CUDA_CHK(cudaMemset(out, 0, bytes));
            CUDA_CHK(cudaMemset(vout, 0, obytes));
            k->fn(&b);
            CUDA_CHK(cudaMemcpy(h1, jobs[z].vb ? vout : out, obytes, cudaMemcpyDeviceToHost));
            const int same = memcmp(h1, h2, obytes) == 0;
            const float ms = time_fn(k->fn, &b);
            char vs[16] = "-";
            if (jobs[z].cub) snprintf(vs, sizeof vs, "%.2fx", cub_ms / ms);
            printf("| %s | %.4f | %.2f | %.1f%% | %s | %s |\n", k->name, ms, n / (ms * 1e6),
                   100.0 * jobs[z].bpk * n / (copy_gbs * 1e6) / ms, vs, same ? (jobs[z].cub ? "= CUB" : "= row 1") : "DIFFERS");
            fflush(stdout);
        }
    }
    return 0;
}
