/* bench/sort/probes/cluster.cu -- the one-cluster sort (4097 to 65536 keys), its split against
 * its LSD passes alone (knob no_cluster_split), in one build: each call and an empty kernel
 * timed in turn (gp_bench_medians, medians of 15), 64 calls back to back and one from an idle
 * GPU, with a hash of each output (the two ways must agree). Not part of `make bench`.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/sort/probes/cluster.cu -o build/bench/sort/cluster
 *   build/bench/sort/cluster */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../../../gpuprims.cuh"
#include "../../../examples/need_gpu.h"
#include "../../bench.cuh"
#include "probe_keys.cuh"

void *kin[4], *kout, *vin, *vout;
struct job { int which, kind; size_t n; gp__sort_knobs knobs; };
static void call(void *p)
{
    const job &j = *(const job *)p;
    const void *k = kin[j.kind];
    switch (j.which) {
    case 0: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_KEYS>((uint32_t *)kout, NULL, (const uint32_t *)k, NULL, j.n, 0, 0, &j.knobs))); break;
    case 1: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_PAIRS>((uint32_t *)kout, (uint32_t *)vout, (const uint32_t *)k, (const uint32_t *)vin, j.n, 0, 0, &j.knobs))); break;
    case 2: CUDA_CHK((gp__sort<int32_t, uint64_t, GP__SORT_ARGSORT>(NULL, (uint64_t *)vout, (const int32_t *)k, NULL, j.n, 0, 0, &j.knobs))); break;
    case 3: CUDA_CHK((gp__sort<uint64_t, uint64_t, GP__SORT_KEYS>((uint64_t *)kout, NULL, (const uint64_t *)k, NULL, j.n, 0, 0, &j.knobs))); break;
    case 4: CUDA_CHK((gp__sort<float, float, GP__SORT_KEYS>((float *)kout, NULL, (const float *)k, NULL, j.n, 0, 0, &j.knobs))); break;
    case 5: CUDA_CHK((gp__sort<uint16_t, uint16_t, GP__SORT_KEYS>((uint16_t *)kout, NULL, (const uint16_t *)k, NULL, j.n, 0, 0, &j.knobs))); break;
    }
}
__global__ void below_256(uint32_t *k, size_t n) /* keys below 2^8 (kind 3) */
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) k[i] &= 255;
}
int main(void)
{
    need_gpu(__FILE__);
    const size_t most = 65536;
    for (void **p : {&kin[0], &kin[1], &kin[2], &kin[3], &kout, &vin, &vout}) CUDA_CHK(cudaMalloc(p, most * 8));
    probe_fill<<<1024, 256>>>((uint32_t *)kin[0], most * 2, 7, PROBE_RANDOM);
    probe_fill<<<1024, 256>>>((uint32_t *)kin[1], most * 2, 9, PROBE_UNIT_F32);
    probe_fill<<<1024, 256>>>((uint32_t *)kin[2], most * 2, 11, PROBE_FEW);
    probe_fill<<<1024, 256>>>((uint32_t *)kin[3], most * 2, 13, PROBE_RANDOM);
    below_256<<<64, 256>>>((uint32_t *)kin[3], most);
    probe_fill<<<1024, 256>>>((uint32_t *)vin, most * 2, 8, PROBE_RANDOM);
    /* which, kind: u32 random, pairs, argsort, u64, f32 in [0, 1), u16, u32 8 distinct, u32 below 2^8 */
    const int jobs[][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 0}, {0, 2}, {0, 3}};
    const char *names[] = {"u32 keys", "pairs u32/u32", "argsort i32", "u64 keys", "f32 in [0, 1)", "u16 keys",
                           "u32 8 distinct", "u32 below 2^8"};
    const size_t sizes[] = {4097, 8192, 16384, 32768, 40001, 65536};
    for (int w = 0; w < 8; w++)
        for (size_t n : sizes) {
            job j[2] = {{jobs[w][0], jobs[w][1], n, {}}, {jobs[w][0], jobs[w][1], n, {}}};
            j[1].knobs.no_cluster_split = 1;
            const size_t kb = jobs[w][0] == 3 ? 8 : jobs[w][0] == 5 ? 2 : 4, vb = jobs[w][0] == 2 ? 8 : 4;
            unsigned long long h[2];
            for (int v = 0; v < 2; v++) {
                CUDA_CHK(cudaMemset(kout, 0, most * 8));
                CUDA_CHK(cudaMemset(vout, 0, most * 8));
                call(&j[v]);
                CUDA_CHK(cudaDeviceSynchronize());
                h[v] = probe_hash(kout, (n * kb + 3) / 4 * 4) ^ 3 * (jobs[w][0] == 1 || jobs[w][0] == 2 ? probe_hash(vout, n * vb) : 0);
            }
            gp_bench_fn fns[3] = {call, call, gp_bench_empty};
            void *ctxs[3] = {&j[0], &j[1], NULL};
            float single[3], queued[3];
            gp_bench_medians(fns, ctxs, 3, 1, GP_BENCH_WARMUP, 15, single);
            gp_bench_medians(fns, ctxs, 3, 64, GP_BENCH_WARMUP * 64, 15, queued);
            printf("%-15s n=%6zu back to back: split %.2f us, LSD %.2f us (empty %.2f); single %.1f / %.1f (empty %.1f); %s\n",
                   names[w], n, queued[0] * 1e3, queued[1] * 1e3, queued[2] * 1e3, single[0] * 1e3, single[1] * 1e3,
                   single[2] * 1e3, h[0] == h[1] ? "outputs agree" : "OUTPUTS DIFFER");
        }
    return 0;
}
