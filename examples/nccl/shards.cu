/* examples/nccl/shards.cu -- a vector and a matrix spread over every GPU of this machine:
 * their total, their running sum and the transpose, with gpuprims_nccl.cuh. One thread
 * per GPU, one communicator from ncclCommInitAll (no MPI). Across nodes the same calls run
 * unchanged in one process per GPU, with ncclCommInitRank (see the README).
 *
 * Build and run: make nccl && NCCL_NVLS_ENABLE=0 build/examples/nccl/shards */
#include "../../gpuprims_nccl.cuh"
#include "../need_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_GPUS = 8 };
static const size_t N_LOCAL = 1 << 24; /* elements per GPU */
static const size_t SIDE = 4096;        /* the matrix: SIDE x SIDE, row blocks */

typedef struct {
    int rank, ranks;
    ncclComm_t comm;
    int ok;
} rank_t;

static void *run_rank(void *p)
{
    rank_t *me = (rank_t *)p;
    const int r = me->rank, P = me->ranks;
    CUDA_CHK(cudaSetDevice(r));
    cudaStream_t s;
    CUDA_CHK(cudaStreamCreate(&s));

    /* x = 1, 1, 1, ... on every GPU: the total is P * N_LOCAL, and this shard's running sum
     * starts after r * N_LOCAL ones */
    uint32_t *x, *total, *h = (uint32_t *)malloc(N_LOCAL * sizeof *h);
    for (size_t i = 0; i < N_LOCAL; i++) h[i] = 1;
    CUDA_CHK(cudaMalloc(&x, N_LOCAL * sizeof *x));
    CUDA_CHK(cudaMalloc(&total, sizeof *total));
    CUDA_CHK(cudaMemcpyAsync(x, h, N_LOCAL * sizeof *x, cudaMemcpyHostToDevice, s));
    CUDA_CHK(gp_nccl_reduce_sum_u32(total, x, N_LOCAL, me->comm, s));
    CUDA_CHK(gp_nccl_inclusive_scan_sum_u32(x, x, N_LOCAL, me->comm, s)); /* in place */
    uint32_t t, first, last;
    CUDA_CHK(cudaMemcpyAsync(&t, total, sizeof t, cudaMemcpyDeviceToHost, s));
    CUDA_CHK(cudaMemcpyAsync(&first, x, sizeof first, cudaMemcpyDeviceToHost, s));
    CUDA_CHK(cudaMemcpyAsync(&last, x + N_LOCAL - 1, sizeof last, cudaMemcpyDeviceToHost, s));
    CUDA_CHK(cudaStreamSynchronize(s));
    me->ok = t == P * N_LOCAL && first == r * N_LOCAL + 1 && last == (r + 1) * N_LOCAL;

    /* a[i][j] = i * SIDE + j; this GPU holds rows [r*SIDE/P, (r+1)*SIDE/P) and gets the
     * same rows of the transpose, whose element (i, j) is a[j][i] */
    const size_t rows = SIDE / P, shard = rows * SIDE;
    float *a, *b, *hb = (float *)malloc(shard * sizeof *hb), *ha = (float *)malloc(shard * sizeof *ha);
    for (size_t i = 0; i < shard; i++) ha[i] = (float)(r * shard + i);
    CUDA_CHK(cudaMalloc(&a, shard * sizeof *a));
    CUDA_CHK(cudaMalloc(&b, shard * sizeof *b));
    CUDA_CHK(cudaMemcpyAsync(a, ha, shard * sizeof *a, cudaMemcpyHostToDevice, s));
    CUDA_CHK(gp_nccl_transpose_f32(b, a, SIDE, SIDE, me->comm, s));
    CUDA_CHK(cudaMemcpyAsync(hb, b, shard * sizeof *b, cudaMemcpyDeviceToHost, s));
    CUDA_CHK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < SIDE; j++) me->ok &= hb[i * SIDE + j] == (float)(j * SIDE + r * rows + i);
    printf("GPU %d of %d: total %u, running sum %u .. %u, transpose rows %zu..%zu: %s\n", r, P, t, first, last, r * rows,
           (r + 1) * rows - 1, me->ok ? "ok" : "WRONG");

    CUDA_CHK(cudaFree(x));
    CUDA_CHK(cudaFree(total));
    CUDA_CHK(cudaFree(a));
    CUDA_CHK(cudaFree(b));
    CUDA_CHK(cudaStreamDestroy(s));
    free(h);
    free(ha);
    free(hb);
    return NULL;
}

int main(void)
{
    need_gpu(__FILE__);
    int P = 0;
    CUDA_CHK(cudaGetDeviceCount(&P));
    if (P > MAX_GPUS) P = MAX_GPUS;
    while (SIDE % P) P--; /* the matrix splits evenly */
    int devs[MAX_GPUS];
    ncclComm_t comms[MAX_GPUS];
    for (int r = 0; r < P; r++) devs[r] = r;
    if (ncclCommInitAll(comms, P, devs) != ncclSuccess) {
        fprintf(stderr, "ncclCommInitAll failed\n");
        return 1;
    }
    pthread_t t[MAX_GPUS];
    rank_t ranks[MAX_GPUS];
    for (int r = 0; r < P; r++) {
        ranks[r] = (rank_t){r, P, comms[r], 0};
        pthread_create(&t[r], NULL, run_rank, &ranks[r]);
    }
    int ok = 1;
    for (int r = 0; r < P; r++) {
        pthread_join(t[r], NULL);
        ok &= ranks[r].ok;
        ncclCommDestroy(comms[r]);
    }
    return ok ? 0 : 1;
}
