/* detail/device/select_ring.cuh -- the compaction kernel on a ring of shared-memory stages,
 * the scan's grid design (device/scan_kernels.cuh) for every kind (select, partition,
 * nonzero, unique, run-length) on values (and flags) that sit on 16-byte boundaries, but
 * nonzero and unique on elements under 4 bytes (gp__select_ring_kind). Those, and inputs
 * off those boundaries, run on select_one.cuh.
 *
 * Why: select_one counts a tile only when its block's scanning warps reach it, after they
 * have waited for the prefix of the tile before, so one tile a block is in flight and every
 * prefix waits on other blocks' waits (H100: select f32 2^28 at 41% of copy; taking the
 * next tile early made that worse, docs/select.md). Here:
 *   - a producer thread takes each tile and brings it into a stage with bulk copies (the
 *     flags first, on a barrier of their own, then the values), up to `stages` tiles ahead
 *     of the scanning warps;
 *   - a count warp publishes each tile's count of kept items as soon as the tile lands (by
 *     flags, as soon as its flags land), so a count never waits for anything (unique and
 *     run-length: two and three count warps, taking the block's tiles in turn,
 *     gp__select_ring_counters);
 *   - two look-ahead warps fold the counts before each tile into its prefix: for select,
 *     partition and nonzero the scan's gp__scan_look_ahead over a 64-bit sum; for unique
 *     and run-length (and its pair, below) each warp takes every other tile of the block,
 *     folds the counts since the block's previous tile (gp__select_window) and adds them
 *     to that tile's prefix, handed on by the other warp (gp__select_ring_window);
 *   - the scanning warps rank the tile's items (gp__select_keep, a warp scan of the keep
 *     bits), put them in order in the stage itself once everyone has read it (kept first,
 *     partition's rejected after them), and write them out from there when the prefix is
 *     known.
 * Unique's stage starts with the 16 bytes before the tile, so that every head test of a
 * whole tile reads shared memory; only the last element of those bytes is used, and an
 * earlier tile can overwrite that element in place only with its own value (out[j] for j
 * just below the tile's start is written only when every element before it is a head).
 * Unique's and run-length's count warps also leave each scanning thread's heads, a word a
 * thread, after the tile (gp__select_ring_masks), on elements of 4 bytes or more.
 * Run-length's stage also holds the 16 bytes after the tile (whether the tile's last item
 * ends a run needs the next element), and its status is a pair, the heads in the tile and
 * the place of its last head, folded as (sum, max): a run's length is the distance from its
 * head to the next one, and a run that began in an earlier tile began at the prefix's last
 * head (select.cuh).
 * The last tile, when partial, is read from global memory with bounds, and nobody counts it:
 * no tile after it needs its count. In place (select: d_out == d_in) stays safe: a tile's
 * count is published only after its data has landed in shared memory, and a tile writes
 * only below its own end once every earlier tile is counted.
 * Level 4: needs select.cuh, agent/ring.cuh, agent/look_ahead.cuh, util/mbarrier.cuh. */
#ifndef GPUPRIMS_DETAIL_SELECT_RING_CUH
#define GPUPRIMS_DETAIL_SELECT_RING_CUH

#include <stddef.h>
#include <stdint.h>
#include "select.cuh"

#ifndef GP__SEL_RING_STAGES
#define GP__SEL_RING_STAGES 4 /* ring depth, in tiles: 80 KB a block for f32 by flags */
#endif
#ifndef GP__SEL_RING_STAGES_WINDOW
#define GP__SEL_RING_STAGES_WINDOW 6 /* the same for unique and run-length, where two blocks an SM take them */
#endif
#ifndef GP__SEL_RING_RAMP
#define GP__SEL_RING_RAMP 3   /* stages first filled one at a time (agent/ring.cuh) */
#endif

#ifdef __CUDACC__
#include <type_traits>
#include "../util/mbarrier.cuh"
#include "../agent/ring.cuh"
#include "../warp/warp.cuh"

/* Whether a kind's look-ahead folds windows (gp__select_window), two warps taking every
 * other tile, rather than the scan's chain of rounds: unique and run-length. Measured on
 * the H200 (2^28, builds alternated three times), with the ring as deep as two blocks an
 * SM allow: unique 1.03-1.20x, run-length 1.03-1.30x; but select by flags 50% or all kept
 * 0.93-0.95x and nonzero 0.89-0.93x (their many writes meet the windows' polling at the
 * L2), so those keep the chain. */
static constexpr GP__HD bool gp__select_ring_window(int kind)
{
    return kind == GP__SEL_UNIQUE || kind == GP__SEL_RUNS;
}
#ifndef GP__SEL_RING_COUNTERS_UNIQUE
#define GP__SEL_RING_COUNTERS_UNIQUE 2
#endif
#ifndef GP__SEL_RING_COUNTERS_RUNS
#define GP__SEL_RING_COUNTERS_RUNS 3
#endif
/* Count warps a block. Unique's and run-length's count warps also make every scanning
 * thread's heads, the most work a tile takes from one warp: with one count warp the block's
 * tiles queued behind it. Warp c of C takes the block's takes i = c mod C, so the ring's
 * depth is a multiple of C (gp__select_ring_depth): a stage always goes to the same warp,
 * which waits on its barriers in order. Measured (H200,
 * 2^28, i32, builds alternated twice in one device call, us): unique with 1 / 2 / 3, runs
 * of 8 419 / 370 / 374, of 1024 374 / 328 / 333; run-length (on these heads, no tail bits)
 * with 1 / 2 / 3, runs of 8 600 / 487 / 483, of 1024 486 / 410 / 379. For select by a
 * predicate (one comparison an item) a second warp gained nothing (partition 1% slower). */
static constexpr GP__HD unsigned gp__select_ring_counters(int kind)
{
    return kind == GP__SEL_UNIQUE ? GP__SEL_RING_COUNTERS_UNIQUE : kind == GP__SEL_RUNS ? GP__SEL_RING_COUNTERS_RUNS : 1;
}
/* Threads a block: the scanning warps, then the producer, look-ahead 0, count 0 and
 * look-ahead 1 warps, then the other count warps. */
static constexpr GP__HD unsigned gp__select_ring_threads(int kind)
{
    return GP__SEL_BLOCK + 96 + 32 * gp__select_ring_counters(kind);
}
/* Whether the count warp hands the scanning warps their keep bits: the heads of unique
 * and run-length (elements of 4 bytes or more: a scanning thread's heads in one word),
 * which it makes anyway, so that the scanning warps skip their neighbours' shuffles, and a
 * warp with no head in its part reads none of its values. (H200, 2^28, builds alternated
 * in one device call: unique 1.03-1.06x; run-length, with its lengths from the heads'
 * places, 1.12-1.15x, docs/select.md; the same for select by a predicate made a 16-byte
 * type 6% slower, nonzero the same, as these warps then wait for the count warp.) */
static constexpr GP__HD bool gp__select_ring_masks(int kind, size_t elem)
{
    return kind == GP__SEL_UNIQUE || (kind == GP__SEL_RUNS && elem >= 4);
}
/* Bytes of a stage: (unique, run-length) the 16 bytes before the tile, whose last element
 * is the first one's neighbour; the tile's values; (run-length) the 16 bytes after it,
 * whose first element is the last one's neighbour; (select and partition by flags) its
 * flags; (gp__select_ring_masks) its heads, a word a scanning thread, and for run-length
 * whether the tile's last item is a tail (a word, in 16 bytes). */
static inline GP__HD size_t gp__select_ring_stage(int kind, size_t elem)
{
    const size_t tile = (size_t)GP__SEL_BLOCK * gp__select_items(elem);
    return (kind == GP__SEL_UNIQUE || kind == GP__SEL_RUNS ? 16 : 0) + tile * elem + (kind == GP__SEL_RUNS ? 16 : 0) +
           (kind == GP__SEL_FLAGGED ? tile : 0) +
           (gp__select_ring_masks(kind, elem) ? GP__SEL_BLOCK * 4 + (kind == GP__SEL_RUNS ? 16 : 0) : 0);
}
/* Shared memory a block needs besides its stages: run-length's places of the tile's heads,
 * 16 bits each (one buffer: the scanning warps hold one tile at a time). Why 16 bits: with
 * the heads handed over in each stage, 32-bit places would leave room for five stages of
 * 4-byte elements at two blocks an SM, not six. */
static inline GP__HD size_t gp__select_ring_extra(int kind, size_t elem)
{
    return kind == GP__SEL_RUNS ? (size_t)GP__SEL_BLOCK * gp__select_items(elem) * sizeof(uint16_t) : 0;
}
/* Whether a call runs on the ring: the values (and flags) on 16-byte boundaries. */
static inline GP__HD int gp__select_ring_ok(int kind, const gp__select_plan &p, uintptr_t flags)
{
    return p.in_vec && (kind != GP__SEL_FLAGGED || flags % 16 == 0);
}

/* The kinds and types the ring kernel is built for: every kind, on values that move as
 * 16-byte vectors; for nonzero, 4-byte places that fit where the values were; for unique,
 * elements of 4 bytes or more, whose heads fit one word a scanning thread (its count
 * warp's hand-off; 1- and 2-byte elements take select_one). */
template <int KIND, class T>
static constexpr bool gp__select_ring_kind()
{
    return KIND <= GP__SEL_RUNS && gp__scan_vec(sizeof(T)) * sizeof(T) == 16 &&
           ((KIND != GP__SEL_NONZERO && KIND != GP__SEL_UNIQUE) || sizeof(T) >= 4);
}

/* Run-length: the element after a whole tile, the last item's neighbour (gp__sel_last_tail),
 * from the 16 bytes after the tile in its stage (`values`: the tile's first), or where the
 * input ends within those from global memory; after n - 1 there is none (zero, unread). */
template <class T, int VEC, int TILE>
static __device__ __forceinline__ T gp__select_ring_after(const T *values, const T *in, size_t start, size_t n)
{
    T after;
    memset(&after, 0, sizeof after);
    if (start + TILE + VEC <= n) after = values[TILE];
    else if (start + TILE < n) after = gp__load_elem(in + start + TILE);
    return after;
}

/* A whole tile's count of kept items by one warp, from its stage (lane l takes the 16-byte
 * words l, l + 32, ...: a count is the same in any order); for run-length also the place
 * of its last head in *last (-1: none). Unique and run-length on gp__select_ring_masks
 * also leave each scanning thread's heads in s_mask[thread]: word l + 32 * (ROWS * w + j)
 * is row j of lane l of scanning warp w (gp__select_load). */
template <int KIND, class T, class P, class Fn, int TILE>
static __device__ __forceinline__ uint32_t gp__select_ring_count(const unsigned char *stage, const P &p, bool first,
                                                                int *last, uint32_t *s_mask)
{
    const unsigned lane = gp__lane_id();
    uint32_t c = 0;
    if constexpr (KIND == GP__SEL_RUNS && !gp__select_ring_masks(KIND, sizeof(T))) {
        /* heads, as unique's below, and the last one (here for 1- and 2-byte elements, whose
         * heads take two words a scanning thread) */
        enum { VEC = 16 / sizeof(T) };
        const T *v = reinterpret_cast<const T *>(stage + 16);
        int l = -1;
#pragma unroll 4
        for (unsigned q = lane; q < TILE / VEC; q += 32) {
            const uint4 w = reinterpret_cast<const uint4 *>(v)[q];
            T e[VEC];
            memcpy(e, &w, sizeof w);
            const bool h0 = (q == 0 && first) || !Fn::eq(v[(int)(q * VEC) - 1], e[0]);
            c += h0 ? 1u : 0u;
            l = h0 ? (int)(q * VEC) : l;
#pragma unroll
            for (int k = 1; k < VEC; k++) {
                const bool h = !Fn::eq(e[k - 1], e[k]);
                c += h ? 1u : 0u;
                l = h ? (int)(q * VEC) + k : l; /* q grows: a lane's latest head is its last */
            }
        }
        *last = gp__warp_max_i32(l);
    } else if constexpr (KIND == GP__SEL_FLAGGED) {
        /* every load of a lane's flags in flight at once: the count is on every later tile's
         * path to its prefix */
        const uint4 *f = reinterpret_cast<const uint4 *>(stage + (size_t)TILE * sizeof(T));
#pragma unroll
        for (unsigned q = lane; q < TILE / 16; q += 32) {
            const uint4 w = f[q];
            c += __popc(gp__byte_tops(w.x)) + __popc(gp__byte_tops(w.y)) + __popc(gp__byte_tops(w.z)) +
                 __popc(gp__byte_tops(w.w));
        }
    } else if constexpr (KIND == GP__SEL_UNIQUE || KIND == GP__SEL_RUNS) { /* heads: each element's neighbour before */
        enum { VEC = 16 / sizeof(T), ROWS = TILE / VEC / 32 / GP__SEL_WARPS };
        typedef gp__sel_mask<ROWS, VEC> M;
        static_assert(M::WORDS == 1, "a scanning thread's heads are one word");
        const T *v = reinterpret_cast<const T *>(stage + 16);
        int l = -1;
        for (unsigned w = 0; w < GP__SEL_WARPS; w++) {
            M m;
            m.clear();
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                const unsigned q = (w * ROWS + j) * 32 + lane;
                const uint4 u = reinterpret_cast<const uint4 *>(v)[q];
                T e[VEC];
                memcpy(e, &u, sizeof u);
                bool h0 = true; /* element 0 */
                if (q > 0 || !first) h0 = !Fn::eq(v[(int)(q * VEC) - 1], e[0]); /* q == 0: the last of the 16 bytes before */
                m.put(j, 0, h0);
#pragma unroll
                for (int k = 1; k < VEC; k++) m.put(j, k, !Fn::eq(e[k - 1], e[k]));
            }
            s_mask[w * 32 + lane] = m.w[0];
            c += __popc(m.w[0]);
            if (KIND == GP__SEL_RUNS && m.w[0] != 0) /* w grows: a lane's latest head is its last */
                l = m.last_place((w * ROWS * 32 + lane) * VEC); /* scanning warp w's thread `lane` */
        }
        if constexpr (KIND == GP__SEL_RUNS) *last = gp__warp_max_i32(l);
    } else {
        enum { VEC = 16 / sizeof(T) };
        const uint4 *v = reinterpret_cast<const uint4 *>(stage);
#pragma unroll 4
        for (unsigned q = lane; q < TILE / VEC; q += 32) {
            const uint4 w = v[q];
            T e[VEC];
            memcpy(e, &w, sizeof w);
#pragma unroll
            for (int k = 0; k < VEC; k++) c += Fn::pred(e[k], p) ? 1u : 0u;
        }
    }
    return __reduce_add_sync(GP__FULL_MASK, c);
}

#ifndef GP__SEL_WINDOW_NB
#define GP__SEL_WINDOW_NB 12 /* tiles a lane polls a round: 384 a warp */
#endif
/* A status word as it is: gp__scan_poll under this op (the default codec, one word of 4
 * bytes) hands back each tile's 32 bits undecoded. */
struct gp__sel_word_op {
    typedef uint32_t type;
};
/* The statuses of tiles [a, b) folded (counts, or run-length's pairs: integer sums and
 * maxima, the same in any order), for lane 0; every lane of the warp calls it. Lane l
 * polls tiles a + l + 32 j, up to GP__SEL_WINDOW_NB of them a round, with the look-ahead's
 * gp__scan_poll (all their loads in flight together), and decodes and folds them once all
 * are in. The slots hold the words, not decoded values: twelve of run-length's pairs, four
 * registers each, spilled (ptxas, sm_90).
 * Why not the scan's gp__scan_look_ahead: its fixed batch trees (needed for sums that
 * depend on the order) make a block's prefixes one chain, each tile's round trips after
 * the last one's; the window since the block's previous tile needs no earlier prefix
 * until its last add, so two warps poll two tiles' windows at once. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__select_window(const uint64_t *status, uint32_t epoch,
                                                                     size_t a, size_t b)
{
    typedef gp__status_codec<Op> codec;
    static_assert(codec::W == 1, "one status word a tile");
    enum { NB = GP__SEL_WINDOW_NB };
    const unsigned lane = gp__lane_id();
    typename Op::type acc = Op::identity();
    for (size_t base = a; base < b; base += 32 * NB) {
        const size_t first = base + lane;
        unsigned pending = 0;
#pragma unroll
        for (int j = 0; j < NB; j++) pending |= (first + 32 * j < b ? 1u : 0u) << j;
        uint32_t w[NB];
        gp__scan_poll<gp__sel_word_op, NB>(status, epoch, first, pending, w);
#pragma unroll
        for (int j = 0; j < NB; j++)
            if (pending >> j & 1) {
                const uint32_t bits[1] = {w[j]};
                acc = Op::apply(acc, codec::decode(first + 32 * j, bits));
            }
    }
    __syncwarp();
    return gp__warp_reduce<Op>(acc);
}

/* Threads: gp__select_ring_threads(KIND). Named barriers: 1 the scanning warps, 2 the
 * look-ahead warps (the chain of rounds; none by windows).
 * Dynamic shared memory: `stages` stages of gp__select_ring_stage bytes. sm_90+. */
template <int KIND, class T, class P, class Fn>
__global__ void __launch_bounds__(gp__select_ring_threads(KIND),
                                  GP__MIN_BLOCKS(gp__select_ring_threads(KIND), GP__SEL_MIN_BLOCKS))
    gp__select_ring_kernel(gp__select_args<T, P> a, gp__select_plan p, char *scratch, uint32_t epoch, unsigned stages)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename gp__sel_status<KIND>::op SOp;
    typedef typename SOp::type S;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SEL_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    constexpr bool FLAGS = KIND == GP__SEL_FLAGGED, RUNS = KIND == GP__SEL_RUNS, HEADS = KIND == GP__SEL_UNIQUE || RUNS,
                   MASKS = gp__select_ring_masks(KIND, sizeof(T)), WINDOW = gp__select_ring_window(KIND);
    /* a stage: PRE bytes before the tile (unique, run-length), its values, POST bytes after
     * it (run-length), its flags, the heads and run-length's last tail (gp__select_ring_stage) */
    constexpr unsigned PRE = HEADS ? 16 : 0, POST = RUNS ? 16 : 0, VALUES = (unsigned)(TILE * sizeof(T)),
                       MASK_AT = PRE + VALUES + POST + (FLAGS ? TILE : 0), /* the heads */
                       TAIL_AT = MASK_AT + GP__SEL_BLOCK * 4, /* run-length's: is the tile's last item a tail */
                       STAGE = MASK_AT + (MASKS ? GP__SEL_BLOCK * 4 + (RUNS ? 16 : 0) : 0);
    /* run-length's places of heads in the tile take 16 bits */
    static_assert(!RUNS || TILE <= 0xffff, "a tile's places fit 16 bits");
    typedef typename std::conditional<RUNS, uint16_t, uint32_t>::type I;
    extern __shared__ __align__(128) unsigned char gp__sel_ring[];
    /* run-length: the places of the tile's heads, after the stages */
    uint16_t *s_runs = reinterpret_cast<uint16_t *>(gp__sel_ring + (size_t)stages * STAGE);
    __shared__ uint32_t s_head0, s_last_tail; /* run-length: the tile begins with a head, ends with a tail */
    /* per stage (agent/ring.cuh): full, taken, empty; ready (the prefix is known) and
     * counted (the count warp has read the stage: the scanning warps may reorder it) */
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], counted[SMAX], empty[SMAX];
    /* by flags: the tile's flags have landed (their own copy, issued first, so that the count
     * warp counts and publishes before the values land: every later tile's prefix waits for
     * the count) */
    __shared__ uint64_t flagged[FLAGS ? SMAX : 1];
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2], s_history[GP__RING_HISTORY];
    __shared__ S s_prefix[SMAX], s_xchg[2 * gp__status_codec<SOp>::NB];
    __shared__ uint32_t s_wtot[GP__SEL_WARPS];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + GP__SCRATCH_ALIGN);
    const unsigned warp = gp__warp_id(), lane = gp__lane_id();

    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages; s++) {
            gp__mbar_init(&full[s], 1);
            if constexpr (FLAGS) gp__mbar_init(&flagged[s], 1);
            gp__mbar_init(&taken[s], 1);
            gp__mbar_init(&ready[s], 1);
            gp__mbar_init(&counted[s], 32); /* the count warp's lanes, each after its own reads */
            gp__mbar_init(&empty[s], GP__SEL_BLOCK + 32); /* the scanning threads and the count warp */
        }
        gp__mbar_init_fence_cluster(); /* the barriers visible to the copy engine */
    }
    gp__chain_wait(); /* the stream's earlier work is done: it may have used this status region */
    __syncthreads();

    if (warp == GP__SEL_WARPS) { /* producer */
        if (lane == 0) {
            const unsigned ramp = GP__SEL_RING_RAMP < stages ? GP__SEL_RING_RAMP : stages - 1;
            /* takes past the end until each warp that takes every other (or third) take has
             * seen one: the two look-ahead warps by windows, and the count warps */
            constexpr unsigned ENDS = WINDOW && gp__select_ring_counters(KIND) < 2 ? 2 : gp__select_ring_counters(KIND);
            for (unsigned i = 0, ends = 0;; i++) {
                const unsigned s = i % stages;
                const unsigned long long t =
                    gp__ring_take(i, stages, ramp, full, taken, empty, s_tile, counter, WINDOW ? s_history : nullptr);
                if (t < p.tiles && (t + 1) * TILE <= p.n) {
                    unsigned char *stage = gp__sel_ring + (size_t)s * STAGE;
                    const unsigned pre = t > 0 ? PRE : 0; /* tile 0 has nothing before it */
                    /* run-length: the 16 bytes after the tile, where the input has them */
                    const unsigned post = (t + 1) * TILE + VEC <= p.n ? POST : 0;
                    if constexpr (FLAGS) gp__bulk_load(stage + PRE + VALUES, a.flags + t * TILE, TILE, &flagged[s]);
                    gp__bulk_load(stage + PRE - pre, reinterpret_cast<const unsigned char *>(a.in + t * TILE) - pre,
                                  pre + VALUES + post, &full[s]);
                } else { /* past the end, or the partial last tile (read from global) */
                    if constexpr (FLAGS) gp__mbar_arrive(&flagged[s]);
                    gp__mbar_arrive(&full[s]);
                }
                if (t >= p.tiles && ++ends == ENDS) break;
            }
            /* every block's producer has taken its last tile: the last one back resets the
             * counters for the next call on this region (status memory) */
            gp__last_block_reset(counter + 1, counter, 1);
        }
        return;
    }
    if ((warp == GP__SEL_WARPS + 1 || warp == GP__SEL_WARPS + 3) && !WINDOW) { /* look-ahead, parts 0 and 1 */
        const unsigned part_id = warp == GP__SEL_WARPS + 3;
        gp__scan_ahead<S> ahead = {SOp::identity(), 0, 0};
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            const unsigned long long t = gp__ring_ahead_tile(i, stages, taken, s_tile, s_ahead_tile, part_id, 2, lane);
            if (t >= p.tiles) break;
            const S pre = gp__scan_look_ahead<SOp>(status, epoch, t, ahead, 0, part_id, 2, s_xchg);
            if (part_id == 0 && lane == 0) {
                s_prefix[s] = pre;
                gp__mbar_arrive(&ready[s]);
            }
            __syncwarp(); /* converged again for the barrier and the shuffles ahead */
        }
        return;
    }
    if (warp == GP__SEL_WARPS + 1 || warp == GP__SEL_WARPS + 3) { /* look-ahead by windows: each warp every other take */
        for (unsigned i = warp == GP__SEL_WARPS + 3;; i += 2) {
            const unsigned s = i % stages;
            unsigned long long t = 0, t_before = 0; /* this take's tile, the block's previous one */
            if (lane == 0) {
                gp__mbar_wait(&taken[s], (i / stages) & 1);
                t = s_history[i % GP__RING_HISTORY];
                t_before = i > 0 ? s_history[(i - 1) % GP__RING_HISTORY] : 0;
            }
            t = __shfl_sync(GP__FULL_MASK, t, 0);
            t_before = __shfl_sync(GP__FULL_MASK, t_before, 0);
            if (t >= p.tiles) break;
            /* the tiles just before this one were taken just before it: their counts come
             * about when this tile's own does, so polling earlier only loads the L2 (H200,
             * 2^28: polling from the take made unique 10-18% slower than from the count) */
            if (lane == 0) gp__mbar_wait(&counted[s], (i / stages) & 1);
            __syncwarp();
            const S since = gp__select_window<SOp>(status, epoch, t_before, t);
            if (lane == 0) {
                S pre = since;
                if (i > 0) { /* the previous tile's prefix, from the other warp */
                    const unsigned sp = (i - 1) % stages;
                    gp__mbar_wait(&ready[sp], ((i - 1) / stages) & 1);
                    pre = SOp::apply(s_prefix[sp], since);
                }
                s_prefix[s] = pre;
                gp__mbar_arrive(&ready[s]);
            }
            __syncwarp();
        }
        return;
    }
    if (warp == GP__SEL_WARPS + 2 || warp >= GP__SEL_WARPS + 4) { /* count: each tile's count as soon as it is in */
        /* count warp c of C takes the tiles i = c mod C; the producer's takes past the end,
         * one a count warp, end every warp's loop */
        const unsigned first = warp == GP__SEL_WARPS + 2 ? 0 : warp - (GP__SEL_WARPS + 3);
        for (unsigned i = first;; i += gp__select_ring_counters(KIND)) {
            const unsigned s = i % stages;
            gp__mbar_wait(FLAGS ? &flagged[s] : &full[s], (i / stages) & 1); /* by flags, it reads only them */
            const unsigned long long t = s_tile[s];
            if (t >= p.tiles) break;
            if ((t + 1) * TILE <= p.n) {
                int last = -1;
                unsigned char *stage = gp__sel_ring + (size_t)s * STAGE;
                const uint32_t c = gp__select_ring_count<KIND, T, P, Fn, TILE>(
                    stage, a.p, t == 0, &last, reinterpret_cast<uint32_t *>(stage + MASK_AT));
                if constexpr (RUNS && MASKS)
                    if (lane == 0) {
                        const T *v = reinterpret_cast<const T *>(stage + PRE);
                        *reinterpret_cast<uint32_t *>(stage + TAIL_AT) = gp__sel_last_tail<T, Fn>(
                            v[TILE - 1], gp__select_ring_after<T, VEC, TILE>(v, a.in, t * TILE, p.n), t * TILE, TILE, p.n);
                    }
                if (lane == 0) {
                    if constexpr (RUNS) gp__status_publish<uint32_t>(status, t, gp__sel_runs_word(c, last), epoch);
                    else gp__status_publish<uint32_t>(status, t, c, epoch);
                }
            }
            gp__mbar_arrive(&counted[s]); /* every lane, after its reads of the stage */
            gp__mbar_arrive(&empty[s]);
        }
        return;
    }

    /* scanning warps */
    const uint32_t local0 = warp * 32 * ITEMS + lane * VEC; /* + j * 32 * VEC + k */
    T x[ITEMS];
    uint32_t fl[ROWS];
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        if constexpr (FLAGS) gp__mbar_wait(&flagged[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= p.tiles) break;
        const size_t start = t * TILE;
        unsigned char *stage = gp__sel_ring + (size_t)s * STAGE;
        T *values = reinterpret_cast<T *>(stage + PRE);
        const bool whole = start + TILE <= p.n;
        /* warp-striped out of the stage: conflict-free 16-byte reads */
        const auto load_stage = [&]() {
            const uint4 *src = reinterpret_cast<const uint4 *>(values) + warp * 32 * ROWS + lane;
            uint4 w[ROWS];
#pragma unroll
            for (int j = 0; j < ROWS; j++) w[j] = src[j * 32];
            memcpy(x, w, sizeof w);
        };
        gp__sel_mask<ROWS, VEC> keep;
        if (MASKS && whole) { /* the count warp made this thread's heads, and run-length's last tail */
            gp__mbar_wait(&counted[s], parity);
            const uint32_t *s_mask = reinterpret_cast<const uint32_t *>(stage + MASK_AT);
            keep.w[0] = s_mask[threadIdx.x];
            if (RUNS && threadIdx.x == GP__SEL_BLOCK - 1) s_last_tail = s_mask[GP__SEL_BLOCK];
        } else {
            T edge[2]; /* the element before the warp's first; run-length's last thread: after the tile */
            memset(edge, 0, sizeof edge);
            if (whole) {
                load_stage();
                if constexpr (FLAGS) {
#pragma unroll
                    for (int j = 0; j < ROWS; j++) {
                        const uint8_t *f = stage + PRE + VALUES + local0 + j * 32 * VEC;
                        if constexpr (VEC > 1) fl[j] = gp__flag_bits<VEC>(f);
                        else fl[j] = *f != 0;
                    }
                }
                /* warp 0's neighbour is the last of the 16 bytes before the tile (none for tile 0);
                 * run-length's last thread's, the first of the 16 bytes after it (or, where the
                 * input ends within them, from global memory; none after n - 1) */
                if constexpr (HEADS)
                    if (lane == 0 && (warp > 0 || t > 0)) edge[0] = values[(int)(warp * 32 * ITEMS) - 1];
                if constexpr (RUNS)
                    if (threadIdx.x == GP__SEL_BLOCK - 1)
                        edge[1] = gp__select_ring_after<T, VEC, TILE>(values, a.in, start, p.n);
            } else {
                gp__select_load<T, ROWS, VEC, FLAGS>(x, fl, a.in, a.flags, start, p);
                if constexpr (HEADS) gp__select_load_edges<T, ROWS, VEC, RUNS>(edge, a.in, start, p.n);
            }
            __syncwarp();
            if constexpr (HEADS) gp__select_heads<T, Fn, ROWS, VEC>(keep, x, edge[0], start, p.n);
            else gp__select_keep<KIND, T, P, Fn, ROWS, VEC>(keep, x, fl, start, local0, p.n, a.p);
            if constexpr (RUNS)
                if (threadIdx.x == GP__SEL_BLOCK - 1)
                    s_last_tail = gp__sel_last_tail<T, Fn>(x[ITEMS - 1], edge[1], start, TILE, p.n);
        }
        uint32_t lp[ROWS];
        const uint32_t wt = gp__select_scan_rows<ROWS, VEC>(keep, lp);
        /* on the count warp's heads, a warp reads its values only to put some */
        if (MASKS && whole && wt != 0) load_stage();
        if (lane == 0) s_wtot[warp] = wt;
        if (RUNS && threadIdx.x == 0) s_head0 = keep.w[0] & 1;
        /* the warps' totals are in, and every scanning thread has read the stage */
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory");
        uint32_t before, kept;
        gp__select_warps_before(s_wtot, warp, before, kept);
        /* run-length: read before the next tile's threads can write them */
        const bool head0 = RUNS && s_head0 != 0, last_tail = RUNS && s_last_tail != 0;
        const uint32_t valid = (uint32_t)(p.n - start < TILE ? p.n - start : TILE);
        T *s_val = values;
        I *s_idx = RUNS ? reinterpret_cast<I *>(s_runs) : reinterpret_cast<I *>(values);
        gp__mbar_wait(&counted[s], parity); /* the count warp is done with the stage too */
        gp__select_scatter<KIND, T, ROWS, VEC>(s_val, s_idx, x, keep, lp, before, kept, valid, local0,
                                               a.rejected != NULL, wt);
        gp__mbar_wait(&ready[s], parity);
        const S pre = s_prefix[s];
        unsigned long long P0;
        if constexpr (RUNS) P0 = pre.count;
        else P0 = pre;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SEL_BLOCK) : "memory"); /* the scatter is visible */
        gp__select_write<KIND, T, P>(a, s_val, s_idx, P0, kept, valid, start);
        if constexpr (RUNS)
            gp__select_write_lengths(a.lengths, s_idx, kept, head0, last_tail, P0, start, valid,
                                     gp__sel_last_head(pre.last, TILE));
        if (t == p.tiles - 1 && threadIdx.x == 0) *a.count = P0 + kept;
        /* this thread's writes and reads of the stage come before the next bulk copy into it */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        gp__mbar_arrive(&empty[s]);
    }
#endif
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SELECT_RING_CUH */
