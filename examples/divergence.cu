/* examples/divergence.cu -- warp divergence in a shared-memory reduction, a classic lesson:
 * the divergent loop is kernel 1 of Harris's ladder ("Optimizing Parallel Reduction in
 * CUDA", interleaved addressing), the non-divergent one its kernel 3 (sequential addressing).
 *
 * Each block sums BLOCK ints in shared memory; the per-block sums are then added by
 * gp_reduce_sum_i32 and compared with the host's total.
 *   divergent      for (stride = 1; ...; stride *= 2) if (t % (2*stride) == 0) ...
 *                  the working threads are spread over every warp, so at every step every
 *                  warp with work has idle lanes too: both paths, and a slow %.
 *   non-divergent  for (stride = BLOCK/2; stride > 0; stride /= 2) if (t < stride) ...
 *                  the working threads are packed at the front: whole warps work or skip,
 *                  until stride < 32 (5 steps in warp 0).
 *                  (A version often taught starts at stride = blockDim.x and stops at
 *                  stride > 1: it reads past the array and never adds partialSum[1];
 *                  fixed here.)
 *   + warp shuffle the non-divergent loop down to 64 values, then the last warp adds its
 *                  32 with gp_warp_reduce_sum_i32 (register shuffles, all lanes busy):
 *                  the lesson's classic closing question, "can you get rid of the 4
 *                  iterations with divergence?", answered.
 * The table prints, per block, the warp-steps whose lanes disagree on the branch
 * (counted on the host from the same predicates) beside the time. An H200: 95, 5 and 0
 * divergent warp-steps; 327, 312 and 262 us on 2^26 ints. Divergence costs little there
 * (1.04x: a divergent step of a shared-memory add is cheap next to the load and the nine
 * barriers); finishing in registers saves four barriers and gains 1.25x.
 *
 * Run:  make build/examples/divergence && build/examples/divergence */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh"

#include <stdio.h>
#include <stdlib.h>

#define BLOCK 512
#define N ((size_t)1 << 26) /* 256 MB of ints */

__global__ void sum_divergent(int *partial, const int *in, size_t n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    for (unsigned stride = 1; stride < BLOCK; stride *= 2) {
        __syncthreads();
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void sum_nondivergent(int *partial, const int *in, size_t n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    for (unsigned stride = BLOCK / 2; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride) s[t] += s[t + stride];
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void sum_nondivergent_shfl(int *partial, const int *in, size_t n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    for (unsigned stride = BLOCK / 2; stride >= 32; stride /= 2) {
        __syncthreads();
        if (t < stride) s[t] += s[t + stride];
    }
    __syncthreads();
    if (t < 32) { /* warp 0, all 32 lanes: the shuffles need a full warp */
        int v = gp_warp_reduce_sum_i32(s[t]);
        if (t == 0) partial[blockIdx.x] = v;
    }
}

enum { DIVERGENT, NONDIVERGENT, SHFL };

/* Warp-steps per block in which some lanes take the branch and others do not. */
static int divergent_warp_steps(int kind)
{
    int steps = 0;
    for (unsigned step = 0; (1u << step) < BLOCK; step++) { /* the loops' log2(BLOCK) steps */
        unsigned stride = kind == DIVERGENT ? 1u << step : (BLOCK / 2) >> step;
        if (kind == SHFL && stride < 32) break; /* the shuffles: no branch */
        for (unsigned w = 0; w < BLOCK / 32; w++) {
            int active = 0;
            for (unsigned t = 32 * w; t < 32 * w + 32; t++)
                active += kind == DIVERGENT ? t % (2 * stride) == 0 : t < stride;
            steps += active > 0 && active < 32;
        }
    }
    return steps;
}

typedef struct {
    int kind;
    int *partial;
    const int *in;
} launch_t;

static void launch(void *p)
{
    launch_t *a = (launch_t *)p;
    unsigned blocks = (unsigned)((N + BLOCK - 1) / BLOCK);
    if (a->kind == DIVERGENT) sum_divergent<<<blocks, BLOCK>>>(a->partial, a->in, N);
    if (a->kind == NONDIVERGENT) sum_nondivergent<<<blocks, BLOCK>>>(a->partial, a->in, N);
    if (a->kind == SHFL) sum_nondivergent_shfl<<<blocks, BLOCK>>>(a->partial, a->in, N);
    CUDA_CHK_LAUNCH();
}

int main(void)
{
    need_gpu(__FILE__);
    const size_t bytes = N * sizeof(int), blocks = (N + BLOCK - 1) / BLOCK;
    int *h_in = (int *)malloc(bytes), *d_in, *d_partial, *d_total;
    long long want = 0;
    for (size_t i = 0; i < N; i++) want += h_in[i] = (int)((uint32_t)(i * 2654435761u) >> 28); /* 0..15: the int total cannot overflow */
    CUDA_CHK(cudaMalloc(&d_in, bytes));
    CUDA_CHK(cudaMalloc(&d_partial, blocks * sizeof(int)));
    CUDA_CHK(cudaMalloc(&d_total, sizeof(int)));
    CUDA_CHK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    static const char *names[3] = {"divergent: t % (2*stride) == 0", "non-divergent: t < stride",
                                   "non-divergent + warp shuffle"};
    int bad = 0;
    float first_ms = 0;
    printf("%zu ints, %d threads per block\n\n| kernel | divergent warp-steps per block | time (us) | GB/s | "
           "speed-up | check |\n|---|---|---|---|---|---|\n",
           N, BLOCK);
    for (int k = DIVERGENT; k <= SHFL; k++) {
        launch_t a = {k, d_partial, d_in};
        CUDA_CHK(cudaMemset(d_partial, 0xff, blocks * sizeof(int)));
        launch(&a);
        CUDA_CHK(gp_reduce_sum_i32(d_total, d_partial, blocks, 0));
        int total;
        CUDA_CHK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
        float ms = gp_bench_median_ms(launch, &a);
        if (k == DIVERGENT) first_ms = ms;
        printf("| %s | %d | %.1f | %.0f | %.2fx | %s |\n", names[k], divergent_warp_steps(k), ms * 1e3,
               gp_bench_gbps((double)bytes, ms), first_ms / ms, total == want ? "ok" : "MISMATCH");
        bad += total != want;
    }
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_partial));
    CUDA_CHK(cudaFree(d_total));
    free(h_in);
    return bad != 0;
}
