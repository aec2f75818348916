/* tests/hash.cuh -- a counter-based hash, the same on host and device: tests with billions
 * of elements generate and check them on the device and spot-check on the host. */
#ifndef GPUPRIMS_TESTS_HASH_CUH
#define GPUPRIMS_TESTS_HASH_CUH

#include <stdint.h>

static __host__ __device__ __forceinline__ uint32_t hash32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

#endif /* GPUPRIMS_TESTS_HASH_CUH */
