/* examples/increment.cu -- a classic first exercise: add 1 to
 * every element of a float array, on the host and with one GPU thread per element.
 *
 * What a reader learns: the whole life of a CUDA program -- allocate, copy in, launch a 1-D
 * grid of 1-D blocks sized by a ceiling division (the last block is partial, hence the
 * `idx < N` guard), copy out, check, free -- and what the kernel costs next to the copies
 * that feed it. The exercise asks for 64 threads per block; 256 is shown beside it. An H200:
 * 0.94 ms with 64 threads per block, 0.29 ms with 256 (1.56 million blocks of 64 threads:
 * most likely the rate at which the GPU starts blocks, not memory; not profiled), and about
 * 60 ms for the round trip through pageable host memory: the copies are the cost.
 *
 * Run:  make build/examples/increment && build/examples/increment */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N ((size_t)100000007) /* a prime: the last block is partial */

static void increment_array_on_host(float *a, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] = a[i] + 1.f;
}

__global__ void increment_on_device(float *a, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) a[idx] = a[idx] + 1.0f;
}

typedef struct {
    float *a;
    unsigned block;
} launch_t;

static void launch(void *p)
{
    launch_t *l = (launch_t *)p;
    unsigned blocks = (unsigned)(N / l->block + (N % l->block == 0 ? 0 : 1)); /* the exercise's ceiling */
    increment_on_device<<<blocks, l->block>>>(l->a, N);
    CUDA_CHK_LAUNCH();
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(void)
{
    need_gpu(__FILE__);
    const size_t bytes = N * sizeof(float);
    float *a_h = (float *)malloc(bytes), *want = (float *)malloc(bytes), *got = (float *)malloc(bytes), *a_d;
    for (size_t i = 0; i < N; i++) a_h[i] = want[i] = (float)(i % 4099) * 0.5f - 1000.0f;
    memset(got, 0, bytes); /* touch the pages now, not inside the timed copy */
    double t0 = now_ms();
    increment_array_on_host(want, N);
    double host_ms = now_ms() - t0;

    CUDA_CHK(cudaMalloc(&a_d, bytes));
    CUDA_CHK(cudaMemcpy(a_d, a_h, bytes, cudaMemcpyHostToDevice)); /* warm-up: first-use costs */
    CUDA_CHK(cudaMemcpy(got, a_d, bytes, cudaMemcpyDeviceToHost));  /* stay out of the table */
    int bad = 0;
    printf("| version | threads per block | time (ms) | GB/s | check |\n|---|---|---|---|---|\n");
    printf("| host loop | - | %.2f | %.0f | reference |\n", host_ms, gp_bench_gbps(2.0 * bytes, (float)host_ms));
    const unsigned blocks[2] = {64, 256};
    for (int b = 0; b < 2; b++) {
        launch_t l = {a_d, blocks[b]};
        /* the exercise's host code: copy in, one launch, copy out */
        t0 = now_ms();
        CUDA_CHK(cudaMemcpy(a_d, a_h, bytes, cudaMemcpyHostToDevice));
        launch(&l);
        CUDA_CHK(cudaMemcpy(got, a_d, bytes, cudaMemcpyDeviceToHost));
        double round_trip = now_ms() - t0;
        int ok = memcmp(got, want, bytes) == 0;
        /* the kernel alone (it increments again each call: only the timing is used) */
        float ms = gp_bench_median_ms(launch, &l);
        printf("| GPU kernel | %u | %.3f | %.0f | %s |\n", blocks[b], ms, gp_bench_gbps(2.0 * bytes, ms),
               ok ? "ok" : "MISMATCH");
        printf("| GPU incl. copies in and out | %u | %.2f | - | |\n", blocks[b], round_trip);
        bad += !ok;
    }
    CUDA_CHK(cudaFree(a_d));
    free(a_h);
    free(want);
    free(got);
    return bad != 0;
}
