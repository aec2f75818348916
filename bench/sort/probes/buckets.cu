/* bench/sort/probes/buckets.cu -- the bucket path's calls (2^17 to 2^20 keys), one call from
 * an idle GPU and 64 back to back, medians of 15, with a hash of each output. Built once per
 * shape of the bucket kernel (-DGP__SORT_BUCKET_BLOCK=512 -DGP__SORT_BUCKET_ITEMS=9, ...) and
 * the binaries run in turn; equal hashes across builds say the outputs agree. Not part of
 * `make bench`.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/sort/probes/buckets.cu -o build/bench/sort/buckets
 *   build/bench/sort/buckets */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>
#include "../../../gpuprims.cuh"
#include "../../../examples/need_gpu.h"
#include "../../bench.cuh"
static __device__ __forceinline__ uint32_t mix32(uint64_t i, uint32_t key)
{
    uint32_t x = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9E3779B1u ^ key;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__global__ void fill(uint32_t *k, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) k[i] = mix32(i, seed);
}
__global__ void hashk(const uint32_t *p, size_t words, unsigned long long *out)
{
    unsigned long long a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        a += (unsigned long long)mix32(i * 131 + p[i], 5) * (i + 1);
    atomicAdd(out, a);
}
static unsigned long long hash_dev(const void *p, size_t bytes)
{
    static unsigned long long *d = NULL;
    if (!d) CUDA_CHK(cudaMalloc(&d, 8));
    CUDA_CHK(cudaMemset(d, 0, 8));
    hashk<<<1024, 256>>>((const uint32_t *)p, bytes / 4, d);
    unsigned long long h;
    CUDA_CHK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost));
    return h;
}
__global__ void empty_kernel() {}
void *kin, *kout, *vin, *vout;
static void call(int job, size_t n)
{
    switch (job) {
    case 0: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_KEYS>((uint32_t *)kout, NULL, (const uint32_t *)kin, NULL, n, 0, 0))); break;
    case 1: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_PAIRS>((uint32_t *)kout, (uint32_t *)vout, (const uint32_t *)kin, (const uint32_t *)vin, n, 0, 0))); break;
    case 2: CUDA_CHK((gp__sort<int32_t, uint64_t, GP__SORT_ARGSORT>(NULL, (uint64_t *)vout, (const int32_t *)kin, NULL, n, 0, 0))); break;
    case 3: CUDA_CHK((gp__sort<uint64_t, uint64_t, GP__SORT_KEYS>((uint64_t *)kout, NULL, (const uint64_t *)kin, NULL, n, 0, 0))); break;
    case 4: empty_kernel<<<1, 32>>>(); break;
    }
}
static const char *names[] = {"u32 keys", "pairs u32/u32", "argsort i32", "u64 keys", "empty kernel"};
int main(void)
{
    need_gpu(__FILE__);
    CUDA_CHK(cudaMalloc(&kin, 16 << 20)); CUDA_CHK(cudaMalloc(&kout, 16 << 20)); CUDA_CHK(cudaMalloc(&vin, 16 << 20)); CUDA_CHK(cudaMalloc(&vout, 16 << 20));
    fill<<<1024, 256>>>((uint32_t *)kin, 4 << 20, 7);
    fill<<<1024, 256>>>((uint32_t *)vin, 4 << 20, 8);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    const size_t sizes[] = {(size_t)1 << 17, (size_t)1 << 18, (size_t)1 << 19, 750000, (size_t)1 << 20};
    for (int job = 0; job < 5; job++)
        for (size_t n : sizes) {
            if (job == 4 && n != sizes[0]) continue;
            call(job, n);
            CUDA_CHK(cudaDeviceSynchronize());
            unsigned long long h = job == 4 ? 0 : hash_dev(kout, n * (job == 3 ? 8 : 4)) ^ 3 * (job == 1 || job == 2 ? hash_dev(vout, n * (job == 2 ? 8 : 4)) : 0);
            std::vector<float> single, b2b;
            for (int r = 0; r < 15; r++) {
                CUDA_CHK(cudaDeviceSynchronize());
                cudaEventRecord(a); call(job, n); cudaEventRecord(b); cudaEventSynchronize(b);
                float ms; cudaEventElapsedTime(&ms, a, b); single.push_back(ms * 1000);
                cudaEventRecord(a); for (int c = 0; c < 64; c++) call(job, n); cudaEventRecord(b); cudaEventSynchronize(b);
                cudaEventElapsedTime(&ms, a, b); b2b.push_back(ms * 1000 / 64);
            }
            std::sort(single.begin(), single.end()); std::sort(b2b.begin(), b2b.end());
            printf("%s n=%zu single %.1f us, back to back %.1f us, hash %016llx\n", names[job], n, single[7], b2b[7], h);
        }
    return 0;
}
