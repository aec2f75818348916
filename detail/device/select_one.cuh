/* detail/device/select_one.cuh -- the compaction kernel with one tile in flight a block:
 * select.cuh's map, count, look-ahead and scatter, the prefix of a tile waited for in the
 * iteration that counts it. It runs every kind where the ring kernel does not apply (inputs
 * off 16-byte boundaries, older GPUs).
 * Level 4: needs select.cuh (the map helpers, plan and status types). */
#ifndef GPUPRIMS_DETAIL_SELECT_ONE_CUH
#define GPUPRIMS_DETAIL_SELECT_ONE_CUH

#include "../util/mbarrier.cuh"
#include "select.cuh"
#include "../warp/warp.cuh"

#ifdef __CUDACC__

/* The hand-off from look-ahead part 0 to the scanning warps, through two slot pairs: pair
 * i & 1 is s_prefix[i & 1] and s_tile[(i + 1) & 1], the prefix of the block's tile i and its
 * next tile. Two mbarriers per pair order it both ways: s_handed[i & 1] (one arrival, lane 0
 * of part 0, after it filled the pair for tile i) and s_freed[i & 1] (every scanning thread,
 * after it read the pair). Part 0 fills the pair for tile i only once the scanners have
 * freed it from tile i - 2; the first read of all, s_tile[0] before tile 0 ("tile -1"),
 * frees pair 1. So the k-th completion of s_handed[i & 1] is tile i with k = i >> 1, and
 * the reads of tile j complete s_freed[j & 1] for the ((j + 1) >> 1)-th time: waits on
 * phase parity k & 1, never more than one phase behind. (The status words alone already
 * order the two: tile i + 2's prefix needs tile i + 1's total, published after those
 * reads; but through relaxed global loads, which neither the memory model nor racecheck
 * counts as synchronisation. Named barriers with bar.arrive order it too, but racecheck
 * reported the slots as shared-memory hazards; mbarriers it follows, as in the scan.) */
static __device__ __forceinline__ unsigned gp__sel_handed_parity(unsigned i) { return (i >> 1) & 1u; }
static __device__ __forceinline__ unsigned gp__sel_freed_parity(unsigned i) { return ((i - 1) >> 1) & 1u; } /* i >= 1 */

/* One tile in flight a block (the next tile's loads are issued while the current one is
 * written out), the prefix of tile t_i waited for in the same iteration. On the H100 it runs
 * select f32 2^28 at 41% of copy (docs/select.md: a two-tile pipeline measured 57% there,
 * but 13% for unique; it is not in the library until it passes the tests on a GPU).
 * Threads: GP__SEL_BLOCK scanning threads, then two look-ahead warps. Named barriers: 1 the
 * scanning warps, 2 the look-ahead warps (inside gp__scan_look_ahead too); the hand-off of
 * each tile's prefix and the block's next tile through mbarriers (above). Dynamic shared
 * memory: gp__select_smem. */
template <int KIND, class T, class P, class Fn>
__global__ void __launch_bounds__(GP__SEL_THREADS, GP__MIN_BLOCKS(GP__SEL_THREADS, GP__SEL_MIN_BLOCKS))
    gp__select_one_kernel(gp__select_args<T, P> a, gp__select_plan p, char *scratch, uint32_t epoch)
{
    typedef typename gp__sel_status<KIND>::op SOp;
    typedef typename SOp::type S;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS };
    constexpr bool RUNS = KIND == GP__SEL_RUNS, HEADS = KIND == GP__SEL_UNIQUE || RUNS;
    const size_t TILE = (size_t)GP__SEL_BLOCK * ITEMS;
    extern __shared__ __align__(16) unsigned char gp__sel_smem[];
    T *s_val = reinterpret_cast<T *>(gp__sel_smem);
    uint32_t *s_idx = reinterpret_cast<uint32_t *>(gp__sel_smem + (KIND == GP__SEL_NONZERO ? 0 : TILE * sizeof(T)));
    __shared__ unsigned long long s_tile[2], s_ahead_tile[2];
    __shared__ int s_wlast[GP__SEL_WARPS];
    __shared__ S s_prefix[2], s_xchg[2 * gp__status_codec<SOp>::NB];
    __shared__ uint32_t s_wtot[GP__SEL_WARPS], s_head0, s_last_tail; /* run-length: the tile's two ends */
    __shared__ uint64_t s_handed[2], s_freed[2];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + GP__SCRATCH_ALIGN);
    const unsigned warp = gp__warp_id(), lane = gp__lane_id();

    gp__chain_wait(); /* the stream's earlier work may have used this status region */
    if (threadIdx.x == 0) {
        s_tile[0] = atomicAdd(counter, 1ull);
        for (int b = 0; b < 2; b++) {
            gp__mbar_init(&s_handed[b], 1);
            gp__mbar_init(&s_freed[b], GP__SEL_BLOCK);
        }
    }
    __syncthreads();

    if (warp >= GP__SEL_WARPS) { /* look-ahead, parts 0 and 1: the prefix of the block's tiles */
        const unsigned part_id = warp - GP__SEL_WARPS;
        gp__scan_ahead<S> ahead = {SOp::identity(), 0, 0};
        for (unsigned i = 0;; i++) {
            unsigned long long t = 0;
            if (part_id == 0 && lane == 0) s_ahead_tile[i & 1] = t = s_tile[i & 1];
            asm volatile("bar.sync 2, 64;" ::: "memory");
            if (part_id == 1 && lane == 0) t = s_ahead_tile[i & 1];
            t = __shfl_sync(GP__FULL_MASK, t, 0);
            if (t >= p.tiles) break;
            const S pre = gp__scan_look_ahead<SOp>(status, epoch, t, ahead, 0, part_id, 2, s_xchg);
            /* the next tile is taken only now: tiles go to blocks in increasing order, and a
             * block takes one only when all the tiles before it are someone's */
            if (part_id == 0) {
                if (lane == 0) {
                    if (i >= 1) gp__mbar_wait(&s_freed[i & 1], gp__sel_freed_parity(i)); /* read for tile i - 2 */
                    s_prefix[i & 1] = pre;
                    s_tile[(i + 1) & 1] = atomicAdd(counter, 1ull);
                    gp__mbar_arrive(&s_handed[i & 1]);
                }
                __syncwarp(); /* converged again for the barrier and the shuffles ahead */
            }
        }
        if (part_id == 0 && lane == 0) gp__last_block_reset(counter + 1, counter, 1);
        return;
    }

    /* scanning warps */
    constexpr int LOAD_FLAGS = KIND == GP__SEL_FLAGGED;
    T x[ITEMS];
    uint32_t fl[ROWS];
    unsigned long long t = s_tile[0];
    gp__mbar_arrive(&s_freed[1]); /* "tile -1": s_tile[0] is read */
    if (t < p.tiles) gp__select_load<T, ROWS, VEC, LOAD_FLAGS>(x, fl, a.in, a.flags, t * TILE, p);
    for (unsigned i = 0; t < p.tiles; i++) {
        const size_t start = t * TILE;
        const uint32_t local0 = warp * 32 * ITEMS + lane * VEC; /* + j * 32 * VEC + k */
        gp__sel_mask<ROWS, VEC> keep;
        if constexpr (HEADS) {
            T edge[2];
            gp__select_load_edges<T, ROWS, VEC, RUNS>(edge, a.in, start, p.n);
            gp__select_heads<T, Fn, ROWS, VEC>(keep, x, edge[0], start, p.n);
            if constexpr (RUNS)
                if (threadIdx.x == GP__SEL_BLOCK - 1)
                    s_last_tail = gp__sel_last_tail<T, Fn>(x[ITEMS - 1], edge[1], start, TILE, p.n);
        } else {
            gp__select_keep<KIND, T, P, Fn, ROWS, VEC>(keep, x, fl, start, local0, p.n, a.p);
        }
        __syncwarp();
        uint32_t lp[ROWS];
        const uint32_t wt = gp__select_scan_rows<ROWS, VEC>(keep, lp);
        if (lane == 0) s_wtot[warp] = wt;
        if constexpr (RUNS) { /* the place of the warp's last head in the tile (-1: none) */
            const int last = gp__warp_max_i32(keep.last_place(local0));
            if (lane == 0) s_wlast[warp] = last;
            if (threadIdx.x == 0) s_head0 = keep.w[0] & 1;
        }
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory");
        uint32_t before, kept;
        gp__select_warps_before(s_wtot, warp, before, kept);
        if (threadIdx.x == 0) {
            if constexpr (RUNS) {
                int last = -1;
                for (unsigned w = 0; w < GP__SEL_WARPS; w++) last = max(last, s_wlast[w]);
                gp__status_publish<uint32_t>(status, t, gp__sel_runs_word(kept, last), epoch);
            } else {
                gp__status_publish<uint32_t>(status, t, kept, epoch);
            }
        }
        const uint32_t valid = (uint32_t)(p.n - start < TILE ? p.n - start : TILE);
        /* scatter into the tile's places: kept first, partition's rejected after them */
        gp__select_scatter<KIND, T, ROWS, VEC>(s_val, s_idx, x, keep, lp, before, kept, valid, local0, a.rejected != NULL, wt);
        /* the prefix (and the next tile) from the look-ahead; then the scatter is visible
         * to every scanning thread (barrier 1) */
        gp__mbar_wait(&s_handed[i & 1], gp__sel_handed_parity(i));
        const S pre = s_prefix[i & 1];
        const unsigned long long next = s_tile[(i + 1) & 1];
        gp__mbar_arrive(&s_freed[i & 1]); /* the look-ahead may fill the pair again, for tile i + 2 */
        __syncwarp();
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory");
        unsigned long long P0;
        if constexpr (RUNS) P0 = pre.count;
        else P0 = pre;
        /* the next tile's loads go out before this tile's stores */
        T xn[ITEMS];
        uint32_t fn[ROWS];
        if (next < p.tiles) gp__select_load<T, ROWS, VEC, LOAD_FLAGS>(xn, fn, a.in, a.flags, next * TILE, p);
        gp__select_write<KIND, T, P>(a, s_val, s_idx, P0, kept, valid, start);
        if constexpr (RUNS)
            gp__select_write_lengths(a.lengths, s_idx, kept, s_head0 != 0, s_last_tail != 0, P0, start, valid,
                                     gp__sel_last_head(pre.last, TILE));
        if (t == p.tiles - 1 && threadIdx.x == 0) *a.count = P0 + kept;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory"); /* shared memory free again */
        t = next;
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q] = xn[q];
#pragma unroll
        for (int j = 0; j < ROWS; j++) fl[j] = fn[j];
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SELECT_ONE_CUH */
