/* detail/agent/ring.cuh -- the ring of shared-memory stages of the single-pass kernels (the
 * scan's grid kernel, the compaction's, the segmented scan's and reduce-by-key's): the
 * producer's take of a block's next tile into a stage, the hand-off of each stage's tile
 * index to the look-ahead warps, and the producer, look-ahead and reduce loops of the ring
 * kernels after the scan's. The scan's own (trace points, non-bulk paths) is written out in
 * scan_kernels.cuh; the compaction's (select_ring.cuh) is still written out too: calling
 * these changes its PTX, which has not yet been run on a GPU.
 * Level 3 (device code): needs util/mbarrier.cuh, util/common.cuh, agent/single_pass.cuh
 * (gp__last_block_reset, gp__status_publish) and agent/look_ahead.cuh.
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
#include "single_pass.cuh"
#include "look_ahead.cuh"

/* Tiles in the producer's history (s_history, when given): the last 16 takes, twice the
 * most stages, so that a reader of take i - 1 that finishes before take i's prefix is
 * handed on cannot see it overwritten (take i + 15 waits for stage use i + 7 or later to
 * be emptied, which needs take i's prefix first). */
#define GP__RING_HISTORY 16

/* The producer's i-th take (one thread): waits until stage i % stages is free (its use
 * i - stages emptied; the first `ramp` uses each wait for the previous stage to land, so
 * that the grid's first tiles land, and the chain of prefixes starts, before the rest of
 * the ring is in flight), takes the next tile of the grid from `counter` (tiles go to
 * blocks in increasing order), and hands its index to the look-ahead (s_tile, and
 * s_history[i % GP__RING_HISTORY] if given, then `taken`).
 * The caller then starts the stage's bulk copies, or arrives on `full` itself. */
static __device__ __forceinline__ unsigned long long gp__ring_take(unsigned i, unsigned stages, unsigned ramp,
                                                                 uint64_t *full, uint64_t *taken, uint64_t *empty,
                                                                 unsigned long long *s_tile,
                                                                 unsigned long long *counter,
                                                                 unsigned long long *s_history = nullptr)
{
    const unsigned s = i % stages;
    if (i >= stages) gp__mbar_wait(&empty[s], (i / stages - 1) & 1);
    else if (i > 0 && i <= ramp) gp__mbar_wait(&full[i - 1], 0);
    const unsigned long long t = atomicAdd(counter, 1ull);
    s_tile[s] = t;
    if (s_history != nullptr) s_history[i % GP__RING_HISTORY] = t; /* before `taken`, like s_tile */
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

/* ---- the roles of a ring kernel (the compaction's, the segmented scan's, reduce-by-key's) ---- */

/* The producer thread: takes tiles into stages (gp__ring_take; `ramp`: at most that many
 * stages first filled one at a time). A whole tile (ending at or below n) arrives by the
 * bulk copies `copy(stage, t, &full)` issues, with their bytes expected; any other arrives
 * at once (read from global memory, or past the end). Then the last block back resets the
 * counters for the next call on the region (status memory). */
template <class Copy>
static __device__ __forceinline__ void gp__ring_produce(unsigned stages, unsigned ramp, size_t tiles, size_t tile,
                                                        size_t n, unsigned char *ring, size_t stage_bytes,
                                                        uint64_t *full, uint64_t *taken, uint64_t *empty,
                                                        unsigned long long *s_tile, unsigned long long *counter,
                                                        const Copy &copy)
{
    if (ramp >= stages) ramp = stages - 1;
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages;
        const unsigned long long t = gp__ring_take(i, stages, ramp, full, taken, empty, s_tile, counter);
        if (t < tiles && (t + 1) * tile <= n) copy(ring + (size_t)s * stage_bytes, t, &full[s]);
        else gp__mbar_arrive(&full[s]);
        if (t >= tiles) break;
    }
    gp__last_block_reset(counter + 1, counter, 1);
}

/* A look-ahead warp (part `part` of gp__scan_aheads): each tile's prefix into s_prefix. */
template <class POp>
static __device__ __forceinline__ void gp__ring_look_ahead(unsigned part, unsigned stages, size_t tiles,
                                                           const uint64_t *status, uint32_t epoch, uint64_t *taken,
                                                           uint64_t *ready, const unsigned long long *s_tile,
                                                           unsigned long long *s_ahead_tile,
                                                           typename POp::type *s_prefix, typename POp::type *s_xchg)
{
    typedef typename POp::type pair;
    const unsigned lane = gp__lane_id(), parts = gp__scan_aheads(sizeof(pair));
    if (part >= parts) return;
    gp__scan_ahead<pair> ahead = {POp::identity(), 0, 0};
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages;
        const unsigned long long t = gp__ring_ahead_tile(i, stages, taken, s_tile, s_ahead_tile, part, parts, lane);
        if (t >= tiles) break;
        const pair pre = gp__scan_look_ahead<POp>(status, epoch, t, ahead, 0, part, parts, s_xchg);
        if (part == 0 && lane == 0) {
            s_prefix[s] = pre;
            gp__mbar_arrive(&ready[s]);
        }
        __syncwarp(); /* converged again for the barrier and the shuffles ahead */
    }
}

/* The reduce warp: publishes each whole tile's total, `total(stage, t)`, as soon as the
 * tile lands (the partial last tile: no tile after it needs its total), then every lane
 * arrives on `counted` (if any: the scanning warps may then write in the stage) and on
 * `empty`. */
template <class Pair, class Total>
static __device__ __forceinline__ void gp__ring_reduce(unsigned stages, size_t tiles, size_t tile, size_t n,
                                                        const unsigned char *ring, size_t stage_bytes, uint64_t *full,
                                                        uint64_t *empty, const unsigned long long *s_tile,
                                                       uint64_t *status, uint32_t epoch, const Total &total,
                                                       uint64_t *counted = nullptr)
{
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages;
        gp__mbar_wait(&full[s], (i / stages) & 1);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        if ((t + 1) * tile <= n) {
            const Pair agg = total(ring + (size_t)s * stage_bytes, t);
            if (gp__lane_id() == 0) gp__status_publish<Pair>(status, t, agg, epoch);
        }
        if (counted != nullptr) gp__mbar_arrive(&counted[s]);
        gp__mbar_arrive(&empty[s]); /* every lane, after its reads of the stage */
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_RING_CUH */
