/* tests/nccl/ranks.h -- one thread per GPU of this machine, for the NCCL test and bench:
 * a communicator over the first `ranks` GPUs (ncclCommInitAll: no MPI), a stream per
 * rank, and on_ranks(), which runs a function on every rank at once (collective calls
 * need all ranks) and joins. Failures print and exit: for programs, not the library. */
#ifndef GPUPRIMS_TESTS_NCCL_RANKS_H
#define GPUPRIMS_TESTS_NCCL_RANKS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <nccl.h>
#include "../../detail/util/check.cuh"

enum { MAX_RANKS = 8 };
typedef struct {
    int ranks;
    ncclComm_t comm[MAX_RANKS];
    cudaStream_t st[MAX_RANKS]; /* rank r's stream, on GPU r */
} group;

static inline void make_group(group *g, int ranks)
{
    int devs[MAX_RANKS] = {0};
    for (int r = 0; r < ranks; r++) devs[r] = r;
    g->ranks = ranks;
    const ncclResult_t nr = ncclCommInitAll(g->comm, ranks, devs);
    if (nr != ncclSuccess) {
        fprintf(stderr, "ncclCommInitAll(%d): %s\n", ranks, ncclGetErrorString(nr));
        exit(1);
    }
    for (int r = 0; r < ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaStreamCreateWithFlags(&g->st[r], cudaStreamNonBlocking));
    }
}

static inline void free_group(group *g)
{
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaStreamDestroy(g->st[r]));
        ncclCommDestroy(g->comm[r]);
    }
}

typedef void (*rank_fn)(const group *g, int rank, void *ctx);
typedef struct { const group *g; int rank; rank_fn fn; void *ctx; } rank_job;
static inline void *rank_main(void *p)
{
    const rank_job *j = (const rank_job *)p;
    CUDA_CHK(cudaSetDevice(j->rank));
    j->fn(j->g, j->rank, j->ctx);
    CUDA_CHK(cudaStreamSynchronize(j->g->st[j->rank]));
    return NULL;
}

/* fn(g, rank, ctx) on every rank at once, each thread with its GPU current; returns when
 * every rank's stream has finished. */
static inline void on_ranks(const group *g, rank_fn fn, void *ctx)
{
    pthread_t t[MAX_RANKS];
    rank_job jobs[MAX_RANKS];
    for (int r = 0; r < g->ranks; r++) {
        jobs[r] = (rank_job){g, r, fn, ctx};
        if (pthread_create(&t[r], NULL, rank_main, &jobs[r]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    for (int r = 0; r < g->ranks; r++) pthread_join(t[r], NULL);
}

#endif /* GPUPRIMS_TESTS_NCCL_RANKS_H */
