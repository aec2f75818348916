/* detail/device/select_one.cuh -- the compaction kernel, one tile counted a block at a time:
 * select.cuh's map, count, look-ahead and scatter, the prefix of a tile waited for in the
 * iteration that counts it, while the block's next tile loads. It runs every kind.
 * Level 4: needs select.cuh (the map helpers, plan and status types) and util/mbarrier.cuh. */
#ifndef GPUPRIMS_DETAIL_SELECT_ONE_CUH
#define GPUPRIMS_DETAIL_SELECT_ONE_CUH

#include "../util/mbarrier.cuh"
#include "select.cuh"

#ifdef __CUDACC__

/* The hand-offs between the scanning warps and look-ahead part 0, through slot pairs used
 * by tile parity. The scanning warps take the tiles: thread 0 takes the block's tile i + 1
 * while it counts tile i and writes it to s_tile[(i + 1) & 1]; it arrives on s_taken[i & 1]
 * when it starts to count tile i, and part 0 waits there before it folds the tile's
 * prefix. (Arriving at the take made the look-ahead poll the status words for a whole
 * iteration before the counts it needs could be there: unique and run-length ran 1.6x
 * slower.) Part 0 writes tile i's prefix
 * to s_prefix[i & 1] and arrives on s_handed[i & 1]; every scanning thread arrives on
 * s_freed[i & 1] once it has read it, and part 0 writes that slot again (tile i + 2) only
 * after. Each mbarrier of slot b completes once per tile of parity b, in tile order, so
 * tile i is completion i >> 1 of s_taken and s_handed, and part 0 waits for the scanners'
 * reads of tile i - 2 as completion (i - 2) >> 1 of s_freed: never more than one phase
 * behind. (The status words alone already order the slots' reuse, but through relaxed
 * global loads, which neither the memory model nor racecheck counts as synchronisation;
 * named barriers with bar.arrive order it too, but racecheck reports the slots as
 * shared-memory hazards; mbarriers it follows, as in the scan.) */
static __device__ __forceinline__ unsigned gp__sel_slot_parity(unsigned i) { return (i >> 1) & 1u; }

/* One tile counted a block at a time, the prefix of tile t_i waited for in the iteration
 * that counts it; the block's next tile is taken while this one is counted, and (but for
 * run-length, whose lengths pass needs the keep bits after the prefix) its loads go out
 * before the wait for this tile's prefix, so they overlap it. docs/select.md has the
 * figures (LATE_LOADS, the bench's ladder only: every kind's loads after the prefix, the
 * previous step). Threads: GP__SEL_BLOCK scanning threads, then two look-ahead warps. Named
 * barriers: 1 the scanning warps, 2 the look-ahead warps (inside gp__scan_look_ahead too);
 * the hand-offs through mbarriers (above). Dynamic shared memory: gp__select_smem.
 *
 * Taking tile i + 1 before tile i's prefix is known cannot deadlock: a count never waits
 * on a prefix, so the lowest tile whose count is unpublished belongs to a block whose
 * current tile (lower, counted) waits only on counts that are published. */
template <int KIND, class T, class P, class Fn, bool LATE_LOADS>
__global__ void __launch_bounds__(GP__SEL_THREADS, GP__MIN_BLOCKS(GP__SEL_THREADS, GP__SEL_MIN_BLOCKS))
    gp__select_one_kernel(gp__select_args<T, P> a, gp__select_plan p, char *scratch, uint32_t epoch)
{
    typedef typename gp__sel_status<KIND>::op SOp;
    typedef typename SOp::type S;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS };
    constexpr bool RUNS = KIND == GP__SEL_RUNS, HEADS = KIND == GP__SEL_UNIQUE || RUNS;
    constexpr bool EARLY = !RUNS && !LATE_LOADS; /* the next tile's loads before this tile's prefix */
    const size_t TILE = (size_t)GP__SEL_BLOCK * ITEMS;
    extern __shared__ __align__(16) unsigned char gp__sel_smem[];
    T *s_val = reinterpret_cast<T *>(gp__sel_smem);
    uint32_t *s_idx = reinterpret_cast<uint32_t *>(gp__sel_smem + (KIND == GP__SEL_NONZERO ? 0 : TILE * sizeof(T)));
    __shared__ unsigned long long s_tile[2], s_ahead_tile[2], s_first_len, s_wlast[GP__SEL_WARPS];
    __shared__ S s_prefix[2], s_xchg[2 * gp__scan_nb(sizeof(S))];
    __shared__ uint32_t s_wtot[GP__SEL_WARPS], s_head0;
    __shared__ uint64_t s_taken[2], s_handed[2], s_freed[2];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + GP__SCRATCH_ALIGN);
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    gp__chain_wait(); /* the stream's earlier work may have used this status region */
    if (threadIdx.x == 0) {
        for (int b = 0; b < 2; b++) {
            gp__mbar_init(&s_taken[b], 1);
            gp__mbar_init(&s_handed[b], 1);
            gp__mbar_init(&s_freed[b], GP__SEL_BLOCK);
        }
        s_tile[0] = atomicAdd(counter, 1ull);
    }
    __syncthreads();

    if (warp >= GP__SEL_WARPS) { /* look-ahead, parts 0 and 1: the prefix of the block's tiles */
        const unsigned part_id = warp - GP__SEL_WARPS;
        gp__scan_ahead<S> ahead = {SOp::identity(), 0, 0};
        for (unsigned i = 0;; i++) {
            unsigned long long t = 0;
            if (part_id == 0 && lane == 0) {
                gp__mbar_wait(&s_taken[i & 1], gp__sel_slot_parity(i));
                s_ahead_tile[i & 1] = t = s_tile[i & 1];
            }
            asm volatile("bar.sync 2, 64;" ::: "memory");
            if (part_id == 1 && lane == 0) t = s_ahead_tile[i & 1];
            t = __shfl_sync(GP__FULL_MASK, t, 0);
            if (t >= p.tiles) break;
            const S pre = gp__scan_look_ahead<SOp>(status, epoch, t, ahead, 0, part_id, 2, s_xchg);
            if (part_id == 0) {
                if (lane == 0) {
                    if (i >= 2) gp__mbar_wait(&s_freed[i & 1], gp__sel_slot_parity(i - 2)); /* read for tile i - 2 */
                    s_prefix[i & 1] = pre;
                    gp__mbar_arrive(&s_handed[i & 1]);
                }
                __syncwarp(); /* converged again for the barrier and the shuffles ahead */
            }
        }
        return;
    }

    /* scanning warps */
    constexpr int LOAD_FLAGS = KIND == GP__SEL_FLAGGED;
    T x[ITEMS], xn[ITEMS], edge[2], edge_n[2]; /* edge: the neighbours of unique and run-length */
    uint32_t fl[ROWS], fn[ROWS];
    unsigned long long t = s_tile[0];
    const auto load = [&](T(&v)[ITEMS], uint32_t(&f)[ROWS], T(&e)[2], unsigned long long u) {
        gp__select_load<T, ROWS, VEC, LOAD_FLAGS>(v, f, a.in, a.flags, u * TILE, p);
        if constexpr (HEADS) gp__select_load_edges<T, ROWS, VEC>(e, a.in, u * TILE, p.n);
    };
    if (t < p.tiles) load(x, fl, edge, t);
    unsigned i = 0;
    for (; t < p.tiles; i++) {
        const size_t start = t * TILE;
        const uint32_t local0 = warp * 32 * ITEMS + lane * VEC; /* + j * 32 * VEC + k */
        /* the look-ahead may fold this tile's prefix now; the block's next tile is taken
         * (tiles go to blocks in increasing order; the slot was last read for tile i - 1,
         * whose prefix this block has had), its atomic's round trip under the count */
        unsigned long long taken = 0;
        if (threadIdx.x == 0) {
            gp__mbar_arrive(&s_taken[i & 1]);
            taken = atomicAdd(counter, 1ull);
        }
        uint32_t kb[ITEMS];
        if constexpr (HEADS) {
            gp__select_heads<T, Fn, ROWS, VEC, RUNS>(kb, x, edge, start, p.n);
        } else {
#pragma unroll
            for (int j = 0; j < ROWS; j++)
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const bool in_range = start + local0 + j * 32 * VEC + k < p.n;
                    bool keep;
                    if constexpr (KIND == GP__SEL_FLAGGED) keep = fl[j] >> k & 1;
                    else keep = in_range && Fn::pred(x[j * VEC + k], a.p);
                    kb[j * VEC + k] = keep ? 1u : 0u;
                }
        }
        __syncwarp();
        uint32_t lp[ROWS];
        const uint32_t wt = gp__scan_warp_rows<gp__op_sel_u32, ROWS, VEC>(kb, lp);
        if (lane == 0) s_wtot[warp] = wt;
        if constexpr (RUNS) { /* the warp's last head (0 when none: tile 0 always has one) */
            unsigned long long last = 0;
#pragma unroll
            for (int j = 0; j < ROWS; j++)
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (kb[j * VEC + k] & 1) last = start + local0 + j * 32 * VEC + k;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                const unsigned long long other = __shfl_xor_sync(GP__FULL_MASK, last, o);
                last = other > last ? other : last;
            }
            if (lane == 0) s_wlast[warp] = last;
            if (threadIdx.x == 0) s_head0 = kb[0] & 1;
        }
        if (threadIdx.x == 0) s_tile[(i + 1) & 1] = taken;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory"); /* also: s_tile[(i + 1) & 1] is written */
        uint32_t before = 0, total = 0;
#pragma unroll
        for (unsigned w = 0; w < GP__SEL_WARPS; w++) {
            const uint32_t v = s_wtot[w];
            before += w < warp ? v : 0u;
            total += v;
        }
        if (threadIdx.x == 0) {
            S mine;
            if constexpr (RUNS) {
                unsigned long long last = 0;
                for (unsigned w = 0; w < GP__SEL_WARPS; w++) last = s_wlast[w] > last ? s_wlast[w] : last;
                mine = {total & 0xffffu, last};
            } else {
                mine = total;
            }
            gp__status_publish<S>(status, t, mine, epoch);
        }
        const unsigned long long next = s_tile[(i + 1) & 1];
        const uint32_t kept = RUNS ? total & 0xffffu : total;
        const uint32_t valid = (uint32_t)(p.n - start < TILE ? p.n - start : TILE);
        /* scatter into the tile's places: kept first, partition's rejected after them */
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            uint32_t run = before + lp[j];
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const uint32_t local = local0 + j * 32 * VEC + k, b = kb[j * VEC + k];
                const uint32_t pos = RUNS ? run & 0xffffu : run;
                if (b & 1) {
                    if constexpr (KIND == GP__SEL_NONZERO) s_idx[pos] = local;
                    else s_val[pos] = x[j * VEC + k];
                    if constexpr (RUNS) s_idx[pos] = local;
                } else if (KIND <= GP__SEL_PRED && a.rejected && local < valid) {
                    s_val[kept + local - pos] = x[j * VEC + k];
                }
                run += b;
            }
        }
        if (EARLY && next < p.tiles) load(xn, fn, edge_n, next);
        /* the prefix from the look-ahead; then the scatter is visible to every scanning
         * thread (barrier 1) */
        gp__mbar_wait(&s_handed[i & 1], gp__sel_slot_parity(i));
        const S pre = s_prefix[i & 1];
        gp__mbar_arrive(&s_freed[i & 1]); /* the look-ahead may fill the slot again, for tile i + 2 */
        __syncwarp();
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory");
        unsigned long long P0;
        if constexpr (RUNS) P0 = pre.count;
        else P0 = pre;
        if constexpr (RUNS) { /* each tail turns its run's head place into the run's length */
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                uint32_t run = before + lp[j];
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const uint32_t local = local0 + j * 32 * VEC + k, b = kb[j * VEC + k];
                    run += b;
                    if (b >> 16) {
                        const int r = (int)(run & 0xffffu) - 1; /* this run's place in the tile */
                        if (r >= 0) s_idx[r] = local - s_idx[r] + 1;
                        else s_first_len = start + local - pre.last + 1; /* a run from an earlier tile */
                    }
                }
            }
            asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory");
        }
        /* the next tile's loads go out before this tile's stores */
        if (!EARLY && next < p.tiles) load(xn, fn, edge_n, next);
        for (uint32_t q = threadIdx.x; q < kept; q += GP__SEL_BLOCK) {
            if constexpr (KIND == GP__SEL_NONZERO) a.idx[P0 + q] = start + s_idx[q];
            else gp__store_elem(a.out + (P0 + q), s_val[q]);
        }
        if (KIND <= GP__SEL_PRED && a.rejected)
            for (uint32_t q = kept + threadIdx.x; q < valid; q += GP__SEL_BLOCK)
                gp__store_elem(a.rejected + (start - P0 + (q - kept)), s_val[q]);
        if constexpr (RUNS) {
            const uint32_t tails = total >> 16;
            const int r0 = s_head0 ? 0 : -1;
            for (uint32_t q = threadIdx.x; q < tails; q += GP__SEL_BLOCK) {
                const int r = r0 + (int)q;
                a.lengths[P0 + r] = r < 0 ? s_first_len : (unsigned long long)s_idx[r];
            }
        }
        if (t == p.tiles - 1 && threadIdx.x == 0) *a.count = P0 + kept;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory"); /* shared memory free again */
        t = next;
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q] = xn[q];
#pragma unroll
        for (int j = 0; j < ROWS; j++) fl[j] = fn[j];
        edge[0] = edge_n[0], edge[1] = edge_n[1];
    }
    if (threadIdx.x == 0) {
        gp__mbar_arrive(&s_taken[i & 1]); /* the tile past the end: the look-ahead stops */
        /* thread 0 took every tile of this block: the last block back returns the counters to 0 */
        gp__last_block_reset(counter + 1, counter, 1);
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SELECT_ONE_CUH */
