/* detail/agent/ring.cuh -- the ring of shared-memory stages of the single-pass kernels (the
 * scan's grid kernel, the compaction's ring kernel): the producer's take of a block's next
 * tile into a stage, and the hand-off of each stage's tile index to the look-ahead warps.
 * Level 3 (device code): needs util/mbarrier.cuh and util/common.cuh.
 *
 * Stage s = i % stages holds the block's i-th tile. Per stage: `full` (the tile's data has
 * landed, or, with no bulk copy, its index is known), `taken` (the index is known, so the
 * look-ahead can start before the data lands) and `empty` (every reader is done with the
 * stage). Each completes once per use of its stage, in order, so use i waits on parity
 * (i / stages) & 1. */
#ifndef GPUPRIMS_DETAIL_RING_CUH
#define GPUPRIMS_DETAIL_RING_CUH

#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/mbarrier.cuh"

/* The producer's i-th take (one thread): waits until stage i % stages is free (its use
 * i - stages emptied; the first `ramp` uses each wait for the previous stage to land, so
 * that the grid's first tiles land, and the chain of prefixes starts, before the rest of
 * the ring is in flight), takes the next tile of the grid from `counter` (tiles go to
 * blocks in increasing order), and hands its index to the look-ahead (s_tile, `taken`).
 * The caller then starts the stage's bulk copies, or arrives on `full` itself. */
static __device__ __forceinline__ unsigned long long gp__ring_take(unsigned i, unsigned stages, unsigned ramp,
                                                                 uint64_t *full, uint64_t *taken, uint64_t *empty,
                                                                 unsigned long long *s_tile,
                                                                 unsigned long long *counter)
{
    const unsigned s = i % stages;
    if (i >= stages) gp__mbar_wait(&empty[s], (i / stages - 1) & 1);
    else if (i > 0 && i <= ramp) gp__mbar_wait(&full[i - 1], 0);
    const unsigned long long t = atomicAdd(counter, 1ull);
    s_tile[s] = t;
    gp__mbar_arrive(&taken[s]);
    return t;
}

/* The index of the block's i-th tile, for the look-ahead warps (every lane of both gets
 * it): part 0 waits for its stage's `taken` and passes it to part 1 through
 * s_ahead_tile[i & 1] (two slots: part 0 may be a tile ahead); one named barrier (2, the
 * two warps) a tile when there are two parts. lane: the caller's lane. */
static __device__ __forceinline__ unsigned long long gp__ring_ahead_tile(unsigned i, unsigned stages, uint64_t *taken,
                                                                       const unsigned long long *s_tile,
                                                                       unsigned long long *s_ahead_tile,
                                                                       unsigned part_id, unsigned parts, unsigned lane)
{
    const unsigned s = i % stages;
    unsigned long long t = 0;
    if (part_id == 0 && lane == 0) { /* one reader: the slot is rewritten once the stage's readers are done */
        gp__mbar_wait(&taken[s], (i / stages) & 1);
        t = s_tile[s];
        if (parts > 1) s_ahead_tile[i & 1] = t;
    }
    if (parts > 1) {
        asm volatile("bar.sync 2, 64;" ::: "memory"); /* the two look-ahead warps */
        if (part_id == 1 && lane == 0) t = s_ahead_tile[i & 1];
    }
    return __shfl_sync(GP__FULL_MASK, t, 0);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_RING_CUH */
