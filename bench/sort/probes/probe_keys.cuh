/* bench/sort/probes/probe_keys.cuh -- what the sort's probes share: keys made on the device
 * from a hash of their index, and a hash of a device buffer, so that builds or variants run
 * in turn can say their outputs agree. */
#ifndef GPUPRIMS_BENCH_SORT_PROBE_KEYS_CUH
#define GPUPRIMS_BENCH_SORT_PROBE_KEYS_CUH

#include <stddef.h>
#include <stdint.h>
#include "../../bench.cuh" /* CUDA_CHK */

static __device__ __forceinline__ uint32_t probe_mix32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
enum { PROBE_RANDOM, PROBE_FEW /* 8 distinct words */, PROBE_UNIT_F32 /* floats in [0, 1) */ };
/* n 32-bit words of the given kind (wider keys: 2 or more words each) */
__global__ void probe_fill(uint32_t *k, size_t n, uint32_t seed, int kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t r = probe_mix32(i, seed);
        k[i] = kind == PROBE_FEW ? probe_mix32(r & 7, 99)
               : kind == PROBE_UNIT_F32 ? __float_as_uint((r >> 8) * (1.0f / 16777216.0f))
                                        : r;
    }
}
__global__ void probe_hash_words(const uint32_t *p, size_t words, unsigned long long *out)
{
    unsigned long long a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        a += (unsigned long long)probe_mix32(i * 131 + p[i], 5) * (i + 1);
    atomicAdd(out, a);
}
/* A hash of `bytes` (a multiple of 4) at p: equal buffers, equal hashes. */
static inline unsigned long long probe_hash(const void *p, size_t bytes)
{
    static unsigned long long *d = NULL;
    if (!d) CUDA_CHK(cudaMalloc(&d, 8));
    CUDA_CHK(cudaMemset(d, 0, 8));
    probe_hash_words<<<1024, 256>>>((const uint32_t *)p, bytes / 4, d);
    unsigned long long h;
    CUDA_CHK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost));
    return h;
}

#endif /* GPUPRIMS_BENCH_SORT_PROBE_KEYS_CUH */
