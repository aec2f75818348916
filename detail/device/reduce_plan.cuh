/* detail/device/reduce_plan.cuh -- the device-wide reduce's tuning and plan: how n elements
 * split into a head, a body of 16-byte vectors and a tail, which mode runs (ONE_BLOCK,
 * CLUSTER, GRID: see device/reduce.cuh), how many blocks, and the GRID mode's status-region
 * layout. Level 4 (plain host/device arithmetic, tested on the host): needs util/common.cuh,
 * util/launch.cuh (the modes, the launch shape, status memory) and agent/single_pass.cuh
 * (the words a status value takes). */
#ifndef GPUPRIMS_DETAIL_REDUCE_PLAN_CUH
#define GPUPRIMS_DETAIL_REDUCE_PLAN_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "../agent/single_pass.cuh"

#ifdef __CUDACC__
#include "../util/launch.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured).
 * Eight 16-byte loads in flight per lane at two blocks of 512 per SM: 128 KB in flight per
 * SM, as the read kernel of the bench has (four loads at 2048 threads), with 64 registers a
 * thread, so no instance spills (at four blocks and four loads, 32 registers, the 8-byte
 * sums, the counts and the dot products did). 2^22 floats then take one round trip per
 * block, where three blocks of four loads per SM took two. */
#ifndef GP__REDUCE_BLOCK
#define GP__REDUCE_BLOCK 512        /* threads per block */
#endif
#ifndef GP__REDUCE_UNROLL
#define GP__REDUCE_UNROLL 8         /* 16-byte vectors in flight per lane per step */
#endif
#ifndef GP__REDUCE_UNROLL_WIDE
#define GP__REDUCE_UNROLL_WIDE 4    /* the same for elements wider than 8 bytes (see below) */
#endif
#ifndef GP__REDUCE_BLOCKS_PER_SM
#define GP__REDUCE_BLOCKS_PER_SM 2  /* GRID mode: 1024 threads, 64 registers each */
#endif
/* CLUSTER mode's limit. Measured on the H100 (floats, calls back to back): a block with
 * its 64 KB in flight reads about 40 GB/s, 8 blocks 340 GB/s, so one cluster launch beats
 * GRID mode's two launches and scratch (about 10 us of host time a call) up to 1-2 MB:
 * 1 MB 6.6-8.0 us a call against 12.6, 2 MB 9.0 against 8.7-9.1, 4 MB 13.7 against 9.5. */
#ifndef GP__REDUCE_CLUSTER_TILES
#define GP__REDUCE_CLUSTER_TILES 16 /* CLUSTER mode up to this many tiles (1 MB) */
#endif
#ifndef GP__REDUCE_GROUP
#define GP__REDUCE_GROUP 8          /* tiles per barrier */
#endif
#ifndef GP__REDUCE_CHAIN
#define GP__REDUCE_CHAIN 1          /* sm_90: launch the first kernel early too (see below) */
#endif
#define GP__REDUCE_WARPS (GP__REDUCE_BLOCK / 32)
/* A probe's hook: GP__REDUCE_TRACE(event) marks, in thread 0 of a block, when the block
 * starts (0, every mode), has its total (1, GRID mode), and, in GRID mode's last block,
 * starts (2) and ends (3) the finish. It expands to nothing unless a probe defines it before including gpuprims.cuh. */
#ifndef GP__REDUCE_TRACE
#define GP__REDUCE_TRACE(event) ((void)0)
#endif
/* Elements in a 16-byte body vector of elements of `elem` bytes: 16 / elem where whole
 * elements fill it, else 1 (each element its own vector, read element by element unless it
 * is 16 bytes). The plan and the kernels (gp__reduce_vec) both count with it. */
static constexpr GP__HD unsigned gp__reduce_vec_elems(size_t elem)
{
    return elem <= 16 && 16 % elem == 0 ? (unsigned)(16 / elem) : 1u;
}

/* Rows of vectors a lane loads per step from each input of `elem`-byte elements: a
 * two-input map loads half as many rows of each, so every kernel has the same bytes in
 * flight and data registers. Elements wider than 8 bytes (a user's 16-byte pair, a 2x2
 * matrix) are reduced as whole values of 4 or more registers each, and eight rows of them
 * spilled at 64 registers; they take half as many rows. */
#define GP__REDUCE_ROWS(arity, elem) \
    ((((elem) > 8 ? GP__REDUCE_UNROLL_WIDE : GP__REDUCE_UNROLL) + (arity) - 1) / (arity))

typedef struct gp__reduce_plan {
    size_t head;         /* leading elements before the first 16-byte boundary */
    size_t nvec;         /* whole vectors (vec elements each) in the body */
    size_t tail;         /* trailing elements after the last whole vector */
    size_t vec_per_block; /* body vectors each block streams (a multiple of 32) */
    unsigned vec;        /* elements per vector: gp__reduce_vec_elems(sizeof(Tin)) */
    unsigned blocks;     /* grid size */
    int aligned16;       /* body vectors may be loaded as 16-byte words */
    int mode;            /* GP__ONE_BLOCK, GP__CLUSTER or GP__GRID (launch.cuh) */
} gp__reduce_plan;

/* How a reduce of n input elements of `elem` bytes each, at addresses a and b (b == a for
 * a one-input map), is split (see the top of this file). `arity` is the map's number of
 * inputs (1 or 2); sm_count, cluster_ok and cluster_max (8, or 16 where the device allows:
 * gp__cluster_limit) describe the device. CLUSTER and GRID blocks
 * get runs of equal length (multiples of 32 vectors, the last one shorter). */
static inline GP__HD gp__reduce_plan gp__reduce_make_plan(uintptr_t a, uintptr_t b, size_t n, size_t elem,
                                                          unsigned arity, unsigned sm_count, int cluster_ok,
                                                          size_t cluster_max = GP__CLUSTER_MAX)
{
    gp__reduce_plan p;
    const size_t to_boundary = (16 - a % 16) % 16;
    const size_t tile = (size_t)GP__REDUCE_BLOCK * GP__REDUCE_ROWS(arity, elem); /* vectors per tile */
    p.vec = gp__reduce_vec_elems(elem);
    const int vectorisable = p.vec * elem == 16; /* whole elements fill a 16-byte vector */
    /* A type that divides 16 but sits off its size (a 16-byte struct at a 4-byte
     * boundary) can never reach a 16-byte boundary, nor can two inputs at different
     * offsets from one: they are read element by element. */
    p.aligned16 = vectorisable && to_boundary % elem == 0 && (a - b) % 16 == 0;
    p.head = p.aligned16 ? gp__min_size(n, to_boundary / elem) : 0;
    const size_t body = n - p.head;
    p.nvec = body / p.vec;
    p.tail = body % p.vec;

    const size_t tiles = gp__ceil_div(p.nvec, tile);
    size_t blocks = 1;
    if (tiles <= 1) {
        p.mode = GP__ONE_BLOCK;
        p.vec_per_block = tile;
    } else {
        if (cluster_ok && tiles <= GP__REDUCE_CLUSTER_TILES) {
            /* as many blocks as the cluster allows, down to one warp step (32 x rows
             * vectors) each: a few tiles are latency-bound, so more SMs each reading less
             * finish sooner (2^16 floats: 16 blocks of 16 KB on the H100, not 4 of 64 KB) */
            p.mode = GP__CLUSTER;
            blocks = gp__min_size(gp__ceil_div(p.nvec, tile / GP__REDUCE_WARPS), cluster_max);
        } else {
            p.mode = GP__GRID;
            blocks = gp__min_size(tiles, (size_t)sm_count * GP__REDUCE_BLOCKS_PER_SM);
        }
        /* a multiple of 32 vectors, not of a whole tile: a block's last tile is partial,
         * and the blocks stay balanced to within 32 vectors */
        p.vec_per_block = gp__ceil_div(gp__ceil_div(p.nvec, blocks), 32) * 32;
        blocks = gp__ceil_div(p.nvec, p.vec_per_block); /* drop blocks left empty */
    }
    p.blocks = (unsigned)blocks;
    return p;
}

/* GRID-mode scratch, a status region (util/status.cuh): one total a block, in
 * gp__status_words(elem) 64-bit words tagged with the call's epoch (agent/single_pass.cuh).
 * Zeroed once when the region is made, or before the kernel on the per-call path, where
 * the epoch is 1: a word of an earlier call never carries this call's epoch. */
static inline GP__HD size_t gp__reduce_status_bytes(const gp__reduce_plan &p, size_t elem)
{
    return p.mode == GP__GRID ? (size_t)p.blocks * gp__status_words(elem) * sizeof(uint64_t) : 0;
}

/* The launch of a plan (elem: the size of the reduced type). */
static inline GP__HD gp__launch_shape gp__reduce_shape(const gp__reduce_plan &p, size_t elem)
{
    gp__launch_shape sh;
    sh.mode = p.mode;
    sh.blocks = p.blocks;
    sh.threads = GP__REDUCE_BLOCK;
    sh.smem_bytes = 0;
    sh.scratch_bytes = gp__reduce_status_bytes(p, elem);
    sh.scratch_zeroed = sh.scratch_bytes;
    sh.scratch_wait = 0;
    sh.status_kept = GP__STATUS_REDUCE;
    sh.chain = 0; /* set by the caller, which knows the device */
    return sh;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_PLAN_CUH */
