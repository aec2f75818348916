/* bench/sort/probe.cu -- the grid path's pass kernel in several shapes (threads, keys a
 * thread, variant flags, blocks per SM), u32 keys against CUB's DeviceRadixSort (Onesweep)
 * in the same run: the measurements behind the default shape. Every result is checked
 * bitwise against CUB's first. Not part of `make bench`.
 *
 * Build and run (GP__SORT_WIN: the look-back's words a step, default 4):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/sort/probe.cu -o build/bench/sort/probe
 *   build/bench/sort/probe */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"

static __device__ __forceinline__ uint32_t mix32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__global__ void fill(uint32_t *k, size_t n, int few, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t r = mix32(i, seed);
        k[i] = few ? mix32(r & 7, 99) : r;
    }
}

typedef cudaError_t (*sort_fn)(uint32_t *, const uint32_t *, size_t);
template <int BLOCK, int ITEMS, int VARIANT, int MINB>
static cudaError_t shape(uint32_t *out, const uint32_t *in, size_t n)
{
    const gp__sort_knobs k = {1, 0, 0};
    return gp__sort<uint32_t, uint32_t, GP__SORT_KEYS, BLOCK, ITEMS, VARIANT, MINB>(out, NULL, in, NULL, n, 0, 0, &k);
}
#define L GP__SORT_V_LATE
#define W1 GP__SORT_V_WIN1
static const struct { const char *name; sort_fn fn; } shapes[] = {
    {"256x16 late, win 1 (before)", shape<256, 16, L | W1, 3>},
    {"256x16 early, win 1", shape<256, 16, W1, 3>},
    {"256x16 early", shape<256, 16, 0, 3>},
    {"256x16 early, 4 blocks/SM", shape<256, 16, 0, 4>},
    {"256x20 early", shape<256, 20, 0, 3>},
    {"256x24 early, 2 blocks/SM", shape<256, 24, 0, 2>},
    {"384x12 early, 2 blocks/SM", shape<384, 12, 0, 2>},
    {"384x16 early, 2 blocks/SM", shape<384, 16, 0, 2>},
    {"384x20 early, 2 blocks/SM", shape<384, 20, 0, 2>},
    {"384x24 early, 2 blocks/SM", shape<384, 24, 0, 2>},
    {"512x12 early, 2 blocks/SM", shape<512, 12, 0, 2>},
    {"512x16 early, 2 blocks/SM", shape<512, 16, 0, 2>},
};

typedef struct { sort_fn fn; uint32_t *out; const uint32_t *in; size_t n; void *tmp; size_t tb; } ctx;
static void gp_run(void *p)
{
    ctx *c = (ctx *)p;
    CUDA_CHK(c->fn(c->out, c->in, c->n));
}
static void cub_run(void *p)
{
    ctx *c = (ctx *)p;
    CUDA_CHK(cub::DeviceRadixSort::SortKeys(c->tmp, c->tb, c->in, c->out, (int)c->n));
}

int main(void)
{
    need_gpu(__FILE__);
    const size_t big = (size_t)1 << 28;
    uint32_t *in, *out, *ref;
    CUDA_CHK(cudaMalloc(&in, big * 4));
    CUDA_CHK(cudaMalloc(&out, big * 4));
    CUDA_CHK(cudaMalloc(&ref, big * 4));
    size_t tb = 0;
    cub::DeviceRadixSort::SortKeys(NULL, tb, (const uint32_t *)in, out, (int)big);
    void *tmp;
    CUDA_CHK(cudaMalloc(&tmp, tb));
    uint32_t *h1 = (uint32_t *)malloc(big * 4), *h2 = (uint32_t *)malloc(big * 4);
    const float copy_ms = gp_bench_copy_ms(out, in, big * 4);
    const double copy_gbs = gp_bench_gbps(2.0 * big * 4, copy_ms);
    printf("look-back words a step: %d; copy %.0f GB/s\n", GP__SORT_WIN, copy_gbs);
    const struct { int lg, few; } sizes[] = {{28, 0}, {24, 0}, {28, 1}};
    for (size_t z = 0; z < 3; z++) {
        const size_t n = (size_t)1 << sizes[z].lg;
        fill<<<1024, 256>>>(in, n, sizes[z].few, 7);
        ctx c = {NULL, out, in, n, tmp, tb};
        const float cub_ms = gp_bench_median_ms_n(cub_run, &c, 2, 15);
        cub_run(&c);
        CUDA_CHK(cudaMemcpy(h2, out, n * 4, cudaMemcpyDeviceToHost));
        printf("\n2^%d %s: CUB %.4f ms\n| shape | ms | Gkeys/s | %% of bound | vs CUB | checked |\n|---|---|---|---|---|---|\n",
               sizes[z].lg, sizes[z].few ? "8 distinct" : "random", cub_ms);
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            c.fn = shapes[k].fn;
            CUDA_CHK(cudaMemset(out, 0, n * 4));
            gp_run(&c);
            CUDA_CHK(cudaMemcpy(h1, out, n * 4, cudaMemcpyDeviceToHost));
            const int same = memcmp(h1, h2, n * 4) == 0;
            const float ms = gp_bench_median_ms_n(gp_run, &c, 2, 15);
            printf("| %s | %.4f | %.2f | %.1f%% | %.2fx | %s |\n", shapes[k].name, ms, n / (ms * 1e6),
                   100.0 * 36.0 * n / (copy_gbs * 1e6) / ms, cub_ms / ms, same ? "= CUB" : "DIFFERS");
            fflush(stdout);
        }
    }
    return 0;
}
