/* bench/sort/probes/buckets.cu -- the grid path's calls from 2^17 to 2^21 keys (the bucket
 * path up to 2^20, and floats in [0, 1), whose crowded top digit takes the four passes), one
 * call from an idle GPU and 64 back to back, each timed in turn with an empty kernel
 * (gp_bench_medians, medians of 15), with a hash of each output. Built once per variant of
 * the library (a shape of the bucket kernel, -DGP__SORT_BUCKET_BLOCK=512
 * -DGP__SORT_BUCKET_ITEMS=9, or a copy of the tree with one change) and the binaries run in
 * turn; equal hashes across builds say the outputs agree. Not part of `make bench`. With
 * `big`, the same at 2^22, 2^24 and 2^26 keys, 8 calls back to back; with a list of log2
 * sizes (13,16,28), those.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/sort/probes/buckets.cu -o build/bench/sort/buckets
 *   build/bench/sort/buckets [big | 13,16,28] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "../../../gpuprims.cuh"
#include "../../../examples/need_gpu.h"
#include "../../bench.cuh"
#include "probe_keys.cuh"

void *kin, *kout, *vin, *vout, *funit;
struct job { int which; size_t n; };
static void call(void *p)
{
    const job &j = *(const job *)p;
    switch (j.which) {
    case 0: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_KEYS>((uint32_t *)kout, NULL, (const uint32_t *)kin, NULL, j.n, 0, 0))); break;
    case 1: CUDA_CHK((gp__sort<uint32_t, uint32_t, GP__SORT_PAIRS>((uint32_t *)kout, (uint32_t *)vout, (const uint32_t *)kin, (const uint32_t *)vin, j.n, 0, 0))); break;
    case 2: CUDA_CHK((gp__sort<int32_t, uint64_t, GP__SORT_ARGSORT>(NULL, (uint64_t *)vout, (const int32_t *)kin, NULL, j.n, 0, 0))); break;
    case 3: CUDA_CHK((gp__sort<uint64_t, uint64_t, GP__SORT_KEYS>((uint64_t *)kout, NULL, (const uint64_t *)kin, NULL, j.n, 0, 0))); break;
    case 4: CUDA_CHK((gp__sort<float, float, GP__SORT_KEYS>((float *)kout, NULL, (const float *)funit, NULL, j.n, 0, 0))); break;
    }
}
static const char *names[] = {"u32 keys", "pairs u32/u32", "argsort i32", "u64 keys", "f32 in [0, 1)"};
int main(int argc, char **argv)
{
    need_gpu(__FILE__);
    const bool big = argc > 1 && !strcmp(argv[1], "big");
    /* or a list of log2 sizes, e.g. 13,16,20,24,28 (64 calls back to back up to 2^21, 8 up to
     * 2^26, else 2) */
    std::vector<size_t> listed;
    if (argc > 1 && !big)
        for (const char *p = argv[1]; *p;) {
            char *end;
            const unsigned long lg = strtoul(p, &end, 10);
            if (end == p || lg > 34 || (*end && *end != ',')) return fprintf(stderr, "sizes: log2 values 0..34, e.g. 13,16,28\n"), 2;
            listed.push_back((size_t)1 << lg);
            p = *end ? end + 1 : end;
        }
    size_t most = big ? (size_t)1 << 26 : (size_t)1 << 21;
    for (size_t n : listed) most = n > most ? n : most;
    for (void **p : {&kin, &kout, &vin, &vout, &funit}) CUDA_CHK(cudaMalloc(p, most * 8)); /* 8-byte keys */
    probe_fill<<<1024, 256>>>((uint32_t *)kin, most * 2, 7, PROBE_RANDOM);
    probe_fill<<<1024, 256>>>((uint32_t *)vin, most * 2, 8, PROBE_RANDOM);
    probe_fill<<<1024, 256>>>((uint32_t *)funit, most * 2, 9, PROBE_UNIT_F32);
    const std::vector<size_t> sizes =
        !listed.empty() ? listed
        : big           ? std::vector<size_t>{(size_t)1 << 22, (size_t)1 << 24, (size_t)1 << 26}
                        : std::vector<size_t>{(size_t)1 << 17, (size_t)1 << 18, (size_t)1 << 19, 750000, (size_t)1 << 20,
                                              1500000, (size_t)1 << 21};
    for (int which = 0; which < 5; which++)
        for (size_t n : sizes) {
            job j = {which, n};
            call(&j);
            CUDA_CHK(cudaDeviceSynchronize());
            const unsigned long long h = probe_hash(kout, n * (which == 3 ? 8 : 4)) ^
                                         3 * (which == 1 || which == 2 ? probe_hash(vout, n * (which == 2 ? 8 : 4)) : 0);
            /* the call and the empty kernel in turn: one call from idle, then `queue` back to back */
            gp_bench_fn fns[2] = {call, gp_bench_empty};
            void *ctxs[2] = {&j, NULL};
            float single[2], queued[2];
            const size_t queue = n <= ((size_t)1 << 21) ? 64 : n <= ((size_t)1 << 26) ? 8 : 2;
            const int reps = n <= ((size_t)1 << 26) ? 15 : 7;
            gp_bench_medians(fns, ctxs, 2, 1, GP_BENCH_WARMUP, reps, single);
            gp_bench_medians(fns, ctxs, 2, (int)queue, GP_BENCH_WARMUP * (int)queue, reps, queued);
            printf("%s n=%zu single %.1f us, back to back %.1f us (empty kernel %.1f / %.1f), hash %016llx\n", names[which],
                   n, single[0] * 1e3, queued[0] * 1e3, single[1] * 1e3, queued[1] * 1e3, h);
        }
    return 0;
}
