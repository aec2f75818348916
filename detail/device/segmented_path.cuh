/* detail/device/segmented_path.cuh -- the merge path that both segmented reduce kernels
 * walk (segmented_reduce.cuh, one tile at a time; segmented_reduce_ring.cuh, on a ring of
 * bulk copies): the segmented operator over (head, value) pairs, where segment ends come
 * from (CSR offsets, or rows), the merge-path search, the fold of one tile by a block (by
 * merge items, or by heads) and the look-back that completes the segments that cross blocks
 * (a block's share of long segments walked by its warps instead: segmented_walk.cuh).
 * Level 3 (device code): needs block_scan.cuh, block_reduce.cuh, block_select.cuh,
 * single_pass.cuh, launch.cuh, ops.cuh and common.cuh.
 *
 * The merge path (Merrill & Garland, "Merge-based Parallel Sparse Matrix-Vector
 * Multiplication", SC'16): the work is the merge of the segment ends (S items) with the
 * values (N items). Merge item d lies on diagonal d; the split of diagonal d is the
 * smallest x with end(x) + x >= d: x ends and d - x values come before it. Splitting the
 * N + S items evenly gives every thread the same work whatever the segment lengths. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_PATH_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_PATH_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#define GP__SEG_NONE (~(uint64_t)0) /* no head: the block has no segment end */

#ifdef __CUDACC__
#include "../warp/warp.cuh"
#include "../block/block_scan.cuh"
#include "../block/block_reduce.cuh"
#include "../block/block_select.cuh" /* gp__op_sel_u32: the heads' count */
#include "../agent/single_pass.cuh"
#include "../util/launch.cuh"

/* A segment end kept inside [lo, hi] (lo <= hi at every call): ends that do not ascend
 * break the caller's contract; clamped, every piece stays inside its share and nothing is
 * read out of bounds. */
static __device__ __forceinline__ uint64_t gp__seg_clamp(uint64_t x, uint64_t lo, uint64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* A value and the segment heads at or before it, under the segmented operator:
 * (h1, a) . (h2, b) = (h1 + h2, h2 ? b : a OP b). Associative whenever OP is; a head resets
 * the fold (a segment began). HEADS: how heads combine, as a flag (OR: the segmented reduce
 * and scan) or as a count (+: reduce-by-key numbers its runs with it). */
enum { GP__HEADS_FLAG, GP__HEADS_COUNT };
template <class Op, class Pair, int HEADS>
struct gp__head_op {
    typedef Pair type;
    static __device__ __forceinline__ type apply(type a, type b)
    {
        type r;
        r.v = b.h ? b.v : Op::apply(a.v, b.v);
        r.h = HEADS == GP__HEADS_COUNT ? a.h + b.h : a.h | b.h;
        return r;
    }
    static __device__ __forceinline__ type identity()
    {
        type r;
        r.v = Op::identity();
        r.h = 0;
        return r;
    }
};
/* The segmented reduce's and scan's pair: a value and a head flag. */
template <class T>
struct gp__seg_pair {
    T v;
    uint32_t h;
};
template <class Op>
using gp__seg_op = gp__head_op<Op, gp__seg_pair<typename Op::type>, GP__HEADS_FLAG>;

/* Where segment ends come from. CSR: segment i is in[off[i] .. off[i+1]), positions are
 * relative to off[0]. Rows: segment i is row i, cols elements at in + i * ld; positions
 * count the rows' elements only (i * cols + c). */
template <class T>
struct gp__seg_csr {
    enum { ENDS = 1 }; /* the ends are read from memory */
    const T *in;
    const uint64_t *off;
    size_t S;
    uint64_t base;
    __device__ __forceinline__ const T *values() const { return in + base; } /* value j */
    __device__ __forceinline__ const uint64_t *ends() const { return off + 1; } /* end x, before base is taken */
    __host__ __device__ bool contiguous() const { return true; }                 /* values in one run */
    __device__ __forceinline__ void init() { base = off[0]; }
    __device__ __forceinline__ uint64_t total() const { return off[S] - base; }
    __device__ __forceinline__ uint64_t end(size_t i) const { return __ldg(off + i + 1) - base; }
    __device__ __forceinline__ T value(uint64_t j) const { return gp__load_elem(in + base + j); }
};
template <class T>
struct gp__seg_rows {
    enum { ENDS = 0 }; /* the ends are computed */
    const T *in;
    size_t S, cols, ld;
    __device__ __forceinline__ const T *values() const { return in; } /* value j, where ld == cols */
    __host__ __device__ bool contiguous() const { return ld == cols; }
    __device__ __forceinline__ void init() {}
    __device__ __forceinline__ uint64_t total() const { return (uint64_t)S * cols; }
    __device__ __forceinline__ uint64_t end(size_t i) const { return (uint64_t)(i + 1) * cols; }
    __device__ __forceinline__ T value(uint64_t j) const
    {
        return gp__load_elem(in + (ld == cols ? j : j / cols * ld + j % cols));
    }
};

/* By one warp: the smallest x in [lo, hi] with ge(x) (hi when none below it; ge false, then
 * true), 32 probes a round, a lane a probe at the start of each 32nd; lane 0's probe is lo
 * itself, so an answer at lo ends the first round. Every lane returns it. */
template <class Ge>
static __device__ __forceinline__ uint64_t gp__seg_first(uint64_t lo, uint64_t hi, const Ge &ge)
{
    const unsigned lane = gp__lane_id();
    while (lo < hi) {
        const uint64_t step = (hi - lo + 31) / 32, x = lo + lane * step; /* lo + 32 step >= hi */
        const unsigned ball = __ballot_sync(GP__FULL_MASK, x >= hi || ge(x));
        if (ball & 1u) return lo;
        const unsigned L = ball ? (unsigned)__ffs(ball) - 1 : 32u; /* probe L - 1 false, probe L true */
        const uint64_t above = lo + L * step;
        lo = lo + (L - 1) * step + 1;
        hi = above < hi ? above : hi;
    }
    return lo;
}
/* Merge-path search by one warp: the smallest x in [lo, hi] with end(x) + x >= d. */
template <class Src>
static __device__ __forceinline__ size_t gp__seg_search(const Src &src, uint64_t d, size_t lo, size_t hi)
{
    return (size_t)gp__seg_first(lo, hi, [&](uint64_t x) { return src.end(x) + x >= d; });
}

/* Status memory of P blocks: each block's carry, tagged (gp__seg_finish). */
template <class T>
static inline GP__HD size_t gp__seg_scratch_bytes(size_t P)
{
    return gp__round_up(P * gp__status_words(sizeof(gp__seg_pair<T>)) * 8, GP__SCRATCH_ALIGN);
}

/* ITEMS values from j on, folded in order from the identity: every load in flight first. */
template <class Op, unsigned ITEMS, class ValueAt>
static __device__ __forceinline__ typename Op::type gp__seg_fold_items(const ValueAt &value_at, unsigned j)
{
    typename Op::type v[ITEMS], acc = Op::identity();
#pragma unroll
    for (unsigned q = 0; q < ITEMS; q++) v[q] = value_at(j + q);
#pragma unroll
    for (unsigned q = 0; q < ITEMS; q++) acc = Op::apply(acc, v[q]);
    return acc;
}

/* A tile with no segment end (long segments): an ordered block reduce of its nv values,
 * folded into the block's carry. */
template <class Op, unsigned ITEMS, class ValueAt>
static __device__ __forceinline__ void gp__seg_tile_no_end(unsigned nv, const ValueAt &value_at,
                                                           gp__seg_pair<typename Op::type> &run)
{
    typedef typename Op::type T;
    const unsigned dk = threadIdx.x * ITEMS;
    T acc = Op::identity();
    if (dk + ITEMS <= nv) {
        acc = gp__seg_fold_items<Op, ITEMS>(value_at, dk);
    } else {
        for (unsigned j = dk; j < nv; j++) acc = Op::apply(acc, value_at(j));
    }
    gp__seg_pair<T> tile;
    tile.v = gp__block_reduce<Op>(acc);
    tile.h = 0;
    run = gp__seg_op<Op>::apply(run, tile);
}

/* One tile of the merge path, by the block: the tile has ne segment ends (end_at(i): where
 * end i falls among the tile's values, 0 .. nv, ascending) and nv values (value_at(j)); its
 * first end is segment i0. Thread k takes merge items [k ITEMS, (k + 1) ITEMS): it finds
 * its split by a binary search, folds its items in index order and puts (put(i, v): the
 * value of segment i0 + i) every segment it sees end except its first, which may have
 * begun in an earlier thread. The threads' carries (flag: a segment ended; value: the fold
 * since) are scanned with the segmented operator (Sengupta, Harris, Zhang & Owens, 2007),
 * which completes each thread's first segment; the block's first one, which may have begun
 * in an earlier block, is kept in head_row / head_val for gp__seg_finish: it is end 0 of the
 * tile in which run.h is still 0. run: the block's carry over its tiles so far. */
template <class Op, unsigned ITEMS, class EndAt, class ValueAt, class Put>
static __device__ __forceinline__ void gp__seg_tile(uint64_t i0, unsigned ne, unsigned nv, const EndAt &end_at,
                                                    const ValueAt &value_at, const Put &put,
                                                    gp__seg_pair<typename Op::type> &run, uint64_t &head_row,
                                                    typename Op::type &head_val)
{
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    const unsigned nt = ne + nv, dk = threadIdx.x * ITEMS;
    if (ne == 0) {
        gp__seg_tile_no_end<Op, ITEMS>(nv, value_at, run);
        return;
    }
    pair mine = SOp::identity();
    uint64_t first_row = GP__SEG_NONE;
    T first_val = Op::identity();
    if (dk < nt) {
        unsigned lo = dk > nv ? dk - nv : 0, hi = dk < ne ? dk : ne;
        while (lo < hi) {
            const unsigned mid = (lo + hi) >> 1;
            if (end_at(mid) + mid < dk) lo = mid + 1;
            else hi = mid;
        }
        unsigned i = lo, j = dk - lo;
        /* the next end, kept in [j, nv]; none past ne (j never reaches ~0u). With ascending
         * ends the bounds change nothing; with ends out of order (the caller's contract
         * broken) they keep every read inside the tile's values, which its chunks' waits
         * cover: i + j stays the merge item, so j never passes nv */
        const auto next_end = [&](unsigned k) -> uint32_t {
            return k < ne ? (uint32_t)gp__seg_clamp(end_at(k), j, nv) : ~0u;
        };
        uint32_t e = next_end(i);
        T acc = Op::identity();
        const unsigned stop = dk + ITEMS < nt ? dk + ITEMS : nt;
        if (stop - dk == ITEMS && e >= j + ITEMS) { /* no end among the items (long segments) */
            acc = gp__seg_fold_items<Op, ITEMS>(value_at, j);
        } else {
            for (unsigned q = dk; q < stop;) {
                /* the values before the next end (on the path, e >= j), then that end */
                const unsigned run_end = e - j < stop - q ? e : j + (stop - q);
                q += run_end - j;
                for (; j < run_end; j++) acc = Op::apply(acc, value_at(j));
                if (q == stop) break;
                if (!mine.h) { /* segment i0 + i ends before value j */
                    first_row = i0 + i;
                    first_val = acc;
                    mine.h = 1;
                } else {
                    put(i, acc);
                }
                acc = Op::identity();
                i++;
                q++;
                e = next_end(i);
            }
        }
        mine.v = acc;
    }
    pair agg;
    const pair pre = SOp::apply(run, gp__block_scan<SOp, false>(mine, &agg));
    if (mine.h) {
        const T v = Op::apply(pre.v, first_val);
        if (pre.h) put((unsigned)(first_row - i0), v);
        else { /* the block's first segment end: it may have begun in an earlier block */
            head_row = first_row;
            head_val = v;
        }
    }
    run = SOp::apply(run, agg);
}

/* Segments longer than this (in values) send a tile of gp__seg_tile_segs to another fold. */
#ifndef GP__SEG_SEGS_MAX
#define GP__SEG_SEGS_MAX 32
#endif
/* One tile of the merge path, by segments: a thread a segment end. The tile's ends, values,
 * put, run, head_row and head_val are those of gp__seg_tile. Thread k takes ends k, k +
 * THREADS, ...: end i's value is the fold, in order, of the values from end i - 1 to end
 * i (end 0's from the tile's start, after the carry run.v), and after the last end a
 * thread folds the rest into the new carry, handed to every thread through *slot (shared
 * memory). Returns false, having changed nothing, where the tile has no end, or a segment
 * (or the values before its first end or after its last) longer than GP__SEG_SEGS_MAX: a
 * thread would loop alone over it. Two barriers: after the lengths are tested, and after
 * every value is read (the caller may then refill the values' ring).
 *
 * Why: at segments of 1 to 4 values the merge-item fold spends about 50 instructions a
 * merge item in each thread (searches, a branch at each end, a block scan); here an end
 * costs two loads of ends, its values' loads and folds, and one store, and a warp's stores
 * are consecutive outputs. The association depends on the offsets only. */
template <class Op, unsigned THREADS, class EndAt, class ValueAt, class Put>
static __device__ __forceinline__ bool gp__seg_tile_segs(typename Op::type *slot, uint64_t i0, unsigned ne,
                                                         unsigned nv, const EndAt &end_at, const ValueAt &value_at,
                                                         const Put &put, gp__seg_pair<typename Op::type> &run,
                                                         uint64_t &head_row, typename Op::type &head_val)
{
    typedef typename Op::type T;
    if (ne == 0) return false;
    const unsigned tid = threadIdx.x;
    /* end i, kept inside the tile (ends that do not ascend break the caller's contract:
     * their segments are then empty, and nothing is read outside the tile) */
    const auto at = [&](unsigned i) -> uint32_t {
        const uint32_t p = end_at(i);
        return p < nv ? p : nv;
    };
    bool too_long = tid == THREADS - 1 && nv - at(ne - 1) > GP__SEG_SEGS_MAX; /* after the last end */
    for (unsigned i = tid; i < ne; i += THREADS) {
        const uint32_t p = at(i), q = i > 0 ? at(i - 1) : 0;
        too_long |= p > q + GP__SEG_SEGS_MAX;
    }
    /* a vote, so that nvcc takes the exit as warp-uniform: the shuffles after it stay off its
     * divergent-warp path (warp.cuh) */
    if (gp__warp_uniform(__syncthreads_or(too_long))) return false;
    for (unsigned i = tid; i < ne; i += THREADS) {
        const uint32_t p = at(i);
        T v = i == 0 ? run.v : Op::identity();
        for (uint32_t j = i > 0 ? at(i - 1) : 0; j < p; j++) v = Op::apply(v, value_at(j));
        if (i == 0 && run.h == 0) { /* the block's first segment end: it may have begun in an earlier block */
            head_row = i0;
            head_val = v;
        } else {
            put(i, v);
        }
    }
    if (tid == THREADS - 1) {
        T v = Op::identity();
        for (uint32_t j = at(ne - 1); j < nv; j++) v = Op::apply(v, value_at(j));
        *slot = v;
    }
    __syncthreads();
    run.v = *slot;
    run.h = 1;
    return true;
}

/* The shared memory of gp__seg_tile_heads, for tiles of TILE merge items by THREADS
 * threads: the tile's head bits (zero between tiles), each thread's heads and the heads
 * before them, and the value before each head (by rank), then before the tile's end. A
 * tile has at most TILE / 2 distinct head positions (each is an end below nv, and
 * ne + nv <= TILE). */
template <class T, unsigned TILE, unsigned THREADS>
struct gp__seg_heads_smem {
    enum { WORDS = TILE / 32 + 2 }; /* a thread's bits may start in the last word and read the next */
    uint32_t bits[WORDS];
    uint32_t ranks[THREADS]; /* heads before the thread << 16 | its head bits */
    T at[TILE / 2 + 1]; /* the ring kernel's merge-item fold stages its outputs here too */
};

/* One tile of the merge path by heads, by the block of THREADS threads. The tile's ne
 * segment ends (end_at(i), ascending, 0 .. nv) and nv values (value_at(j)) are those of
 * gp__seg_tile, and so are put, run, head_row and head_val. sm.bits must be zero at the
 * start, and is zero again at the end.
 *
 * Why: gp__seg_tile walks merge items, each thread its own mix of values and ends, with a
 * search at the start and a branch at each end. Here the ends become head bits (a segment
 * starts at value p), as in the segmented scan of Sengupta, Harris, Zhang & Owens (2007),
 * so the values are folded in a straight line whatever the segment lengths:
 *  1. a thread an end: its bit (the first of equal ends only);
 *  2. thread k folds values [k ITEMS, (k + 1) ITEMS), restarting from the identity at each
 *     head, and keeps the fold before each head;
 *  3. a block scan of (head count, fold) pairs gives each thread the fold before its first
 *     value; each head's value before it goes to its rank;
 *  4. a thread an end again: end i's segment is empty if end i - 1 lies at the same place,
 *     else its value is the one before its place (p == nv: after the last value).
 * End 0's segment may have begun in an earlier tile, so its value is the carry folded with
 * the values before it, the same expression. The association depends on the tile's split
 * and on the ends only. */
template <class Op, unsigned ITEMS, unsigned THREADS, class Smem, class EndAt, class ValueAt, class Put>
static __device__ __forceinline__ void gp__seg_tile_heads(Smem &sm, uint64_t i0, unsigned ne,
                                                          unsigned nv, const EndAt &end_at, const ValueAt &value_at,
                                                          const Put &put, gp__seg_pair<typename Op::type> &run,
                                                          uint64_t &head_row, typename Op::type &head_val)
{
    typedef typename Op::type T;
    typedef gp__seg_pair<T> pair;
    typedef gp__head_op<Op, pair, GP__HEADS_COUNT> COp; /* h counts the heads: their ranks */
    static_assert(ITEMS < 16 && THREADS * ITEMS < 65536 && THREADS * ITEMS <= 2 * (sizeof(sm.at) / sizeof(T) - 1),
                  "the tile fits its heads and their ranks");
    if (ne == 0) {
        gp__seg_tile_no_end<Op, ITEMS>(nv, value_at, run);
        return;
    }
    const unsigned tid = threadIdx.x;
    uint32_t *bits = sm.bits;
    /* 1. the heads: ends below nv (an end at nv closes the tile's last segment) */
    for (unsigned i = tid; i < ne; i += THREADS) {
        const uint32_t p = end_at(i);
        if (p < nv && (i == 0 || end_at(i - 1) != p)) atomicOr(&bits[p >> 5], 1u << (p & 31));
    }
    __syncthreads();
    /* 2. the thread's values and their head bits (none at nv or past it) */
    const unsigned j0 = tid * ITEMS, cnt = j0 < nv ? (nv - j0 < ITEMS ? nv - j0 : ITEMS) : 0;
    const uint64_t two = bits[j0 >> 5] | (uint64_t)bits[(j0 >> 5) + 1] << 32;
    const uint32_t h = (uint32_t)(two >> (j0 & 31)) & ((1u << ITEMS) - 1);
    T before[ITEMS]; /* the fold before head q, from the thread's previous head or start */
    pair mine;
    mine.v = Op::identity();
    mine.h = __popc(h);
    if (cnt == ITEMS) {
        T v[ITEMS];
#pragma unroll
        for (unsigned q = 0; q < ITEMS; q++) v[q] = value_at(j0 + q);
#pragma unroll
        for (unsigned q = 0; q < ITEMS; q++) {
            before[q] = mine.v;
            mine.v = Op::apply((h >> q) & 1 ? Op::identity() : mine.v, v[q]);
        }
    } else {
#pragma unroll
        for (unsigned q = 0; q < ITEMS; q++) {
            before[q] = mine.v;
            if (q < cnt) mine.v = Op::apply((h >> q) & 1 ? Op::identity() : mine.v, value_at(j0 + q));
        }
    }
    /* 3. the fold before the thread's first value, from the block's carry */
    pair agg;
    const pair pre = gp__block_scan<COp, false>(mine, &agg);
    const T start = pre.h ? pre.v : Op::apply(run.v, pre.v);
    sm.ranks[tid] = pre.h << 16 | h;
    for (unsigned w = tid; w < Smem::WORDS; w += THREADS) bits[w] = 0; /* read before the block scan */
#pragma unroll
    for (unsigned q = 0; q < ITEMS; q++) {
        const uint32_t below = h & ((1u << q) - 1);
        if ((h >> q) & 1) sm.at[pre.h + __popc(below)] = below ? before[q] : Op::apply(start, before[q]);
    }
    const bool head_here = run.h == 0;        /* the block's first end is end 0 of this tile */
    const bool closed = end_at(ne - 1) >= nv; /* the tile's last end closes its last segment */
    if (tid == 0) sm.at[agg.h] = agg.h ? agg.v : Op::apply(run.v, agg.v); /* before nv */
    run.v = closed ? Op::identity() : agg.h ? agg.v : Op::apply(run.v, agg.v);
    run.h = run.h | (agg.h != 0) | closed;
    __syncthreads(); /* the values before the heads are written */
    /* 4. the segments, a thread an end */
    for (unsigned i = tid; i < ne; i += THREADS) {
        uint32_t p = end_at(i);
        p = p < nv ? p : nv; /* ends that do not ascend (the caller's contract broken) stay inside */
        T val = Op::identity();
        if (i == 0 || end_at(i - 1) != p) {
            uint32_t r = agg.h; /* p == nv */
            if (p < nv) {
                const uint32_t k = sm.ranks[p / ITEMS];
                r = (k >> 16) + __popc(k & ((1u << (p % ITEMS)) - 1));
            }
            val = sm.at[r];
        }
        if (i == 0 && head_here) {
            head_row = i0;
            head_val = val;
        } else {
            put(i, val);
        }
    }
}

/* A block's share of the tiles. The grid is as many blocks as fit, as the host does not
 * know N; only W = min(tiles, P) of them take tiles, block b < W the tiles
 * [tiles b / W, tiles (b + 1) / W), and the others leave at once. So a small call waits for
 * W blocks, not P, and a call of one tile needs no look-back at all. */
struct gp__seg_share {
    uint64_t begin, end, blocks;
};
static __device__ __forceinline__ gp__seg_share gp__seg_share_of(uint64_t tiles)
{
    const uint64_t P = gridDim.x, W = tiles < P ? (tiles > 0 ? tiles : 1) : P, b = blockIdx.x;
    gp__seg_share s;
    s.blocks = W;
    s.begin = b < W ? tiles * b / W : tiles;
    s.end = b < W ? tiles * (b + 1) / W : tiles;
    return s;
}

/* gp__seg_finish's look-back, by the warp holding a head in block b > 0: the fold of the
 * carries of the blocks before b, from the nearest one with an end. Not inlined: inlined,
 * it changed how the ring kernel's other paths compiled, and segments of 1, 4 and 8 values
 * at 2^28 ran 2-3% slower than before the look-back (H200, probe); apart, 0.3-0.9%. */
template <class Op>
static __device__ __noinline__ gp__seg_pair<typename Op::type> gp__seg_look_back(const uint64_t *status, uint64_t b,
                                                                                 uint32_t epoch)
{
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<typename Op::type> pair;
    const unsigned lane = gp__lane_id();
    pair after = SOp::identity(); /* the fold of the windows already read (later blocks) */
    for (uint64_t hi = b; hi > 0; hi = hi > 32 ? hi - 32 : 0) { /* lane l: block hi - 1 - l */
        const unsigned n = hi < 32 ? (unsigned)hi : 32u;
        pair c = SOp::identity();
        unsigned stop, nap = 32;
        for (;;) { /* until every block from the nearest end on (or all n) has published */
            const bool ready = lane >= n || gp__status_try<pair>(status, hi - 1 - lane, epoch, c);
            const unsigned got = __ballot_sync(GP__FULL_MASK, ready), ends = __ballot_sync(GP__FULL_MASK, lane < n && ready && c.h);
            const unsigned first_gap = ~got ? (unsigned)__ffs(~got) - 1 : 32u, first_end = ends ? (unsigned)__ffs(ends) - 1 : 32u;
            if (first_end < first_gap) {
                stop = first_end;
                break;
            }
            if (first_gap == 32) {
                stop = n - 1;
                break;
            }
            __nanosleep(nap); /* asleep, not taking the issue slots of the SM's working blocks */
            nap = nap < 1024 ? 2 * nap : nap;
        }
        pair t = gp__shfl<GP__SHFL_IDX>(c, (int)stop); /* the window's fold, oldest block first */
        for (int l = (int)stop - 1; l >= 0; l--) t = SOp::apply(t, gp__shfl<GP__SHFL_IDX>(c, l));
        after = hi == b ? t : SOp::apply(t, after);
        if (t.h) break;
    }
    return after;
}

/* The end of a segmented reduce kernel, every thread of each of the W blocks that took
 * tiles, in uniform control flow; at most one thread holds a head (head_row, not
 * GP__SEG_NONE): the block's first segment end, with head_val that segment's fold from the
 * block's start. The segment may have begun in earlier blocks, so its value is the fold of
 * their carries (run: the fold since a block's last end, flagged if it has one) from the
 * nearest block with an end, then head_val. Each block publishes its carry in status
 * memory, tagged with the call's epoch, as soon as its tiles are done; the warp holding the
 * head then looks back over the blocks before it, 32 at a time, until it meets a carry with
 * an end (a single-pass look-back, in which a carry with an end is complete by itself: no
 * block ever waits for another's look-back, only for its tiles). The fold is in block
 * order, grouped by the windows counted back from the block: the association depends on
 * the ends and the split, never on timing. A block waits only for blocks of lower index,
 * which the GPU starts first (as CUB's single-pass scan assumes); a counter of blocks in
 * start order would cost a round trip before the first search, and its reset the done
 * counter that this look-back replaced. Why (H200, 2^16 values in segments of 32, 64
 * calls back to back): the last block's fix-up (every block's fence, a done counter, the
 * records loaded by the last to arrive) took 2.3 of the call's 7.5 us. With W == 1 the
 * head has no carry before it. Slots: block b's carry in slot b of gp__seg_scratch_bytes. */
template <class Op>
static __device__ __forceinline__ void gp__seg_finish(typename Op::type *out, char *scratch,
                                                      const gp__seg_pair<typename Op::type> &run, uint64_t head_row,
                                                      const typename Op::type &head_val, uint64_t W, uint32_t epoch)
{
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    if (W == 1) {
        if (head_row != GP__SEG_NONE) gp__store_elem(out + head_row, Op::apply(SOp::identity().v, head_val));
        return;
    }
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch);
    const uint64_t b = blockIdx.x;
    if (threadIdx.x == 0 && b + 1 < W) gp__status_publish<pair>(status, b, run, epoch); /* run: the same in every thread */
    const unsigned has = __ballot_sync(GP__FULL_MASK, head_row != GP__SEG_NONE);
    if (!has) return; /* the head is in another warp, or the block has none */
    const unsigned lane = gp__lane_id(), src = (unsigned)__ffs(has) - 1;
    const uint64_t row = gp__shfl<GP__SHFL_IDX>(head_row, (int)src);
    const T head = gp__shfl<GP__SHFL_IDX>(head_val, (int)src);
    const pair before = gp__seg_look_back<Op>(status, b, epoch);
    if (lane == 0) gp__store_elem(out + row, Op::apply(before.v, head));
}

/* The launch of either segmented reduce kernel, Kernel(out, src, scratch, epoch): as many
 * blocks as fit (the grid is persistent: the host does not know N), `threads` each, `smem`
 * bytes of dynamic shared memory; scratch is the stream's status region, of tagged words
 * only (gp__seg_scratch_bytes), and epoch the call's tag. */
template <auto Kernel, class T, class Src>
static cudaError_t gp__seg_launch(T *d_out, const Src &src, unsigned threads, int smem, cudaStream_t s,
                                  const gp__device &dev)
{
    GP__TRY(gp__kernel_load<Kernel>(smem));
    static gp__device_cache<int> fits;
    int fit = 0;
    GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, Kernel, threads, (size_t)smem, &fit));
    const size_t P = (size_t)fit * dev.sms;
    gp__launch_shape shape = {GP__GRID, (unsigned)P, threads, 0, 0, 0, 0, 0, 0};
    shape.smem_bytes = (size_t)smem;
    shape.scratch_bytes = shape.scratch_zeroed = gp__seg_scratch_bytes<T>(P);
    shape.scratch_wait = dev.cluster_ok;
    shape.status_kept = GP__STATUS_SEGMENTED;
    shape.chain = dev.cluster_ok;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, Kernel, d_out, src, (char *)scratch, epoch);
    });
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_PATH_CUH */
