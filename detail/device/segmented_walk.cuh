/* detail/device/segmented_walk.cuh -- a block's share of CSR segments walked by its warps
 * straight from global memory, instead of tile by tile through the ring kernel's shared
 * memory (segmented_reduce_ring.cuh calls it for blocks whose segments average more than
 * GP__SEGR_WALK values, or at most GP__SEG_WALK_LANES_UPTO): the warps' split of the share,
 * the ways a warp folds its part (streamed with head bits, or a segment at a time) and the
 * warps' results folded into the block's head and carry for the merge path's look-back
 * (gp__seg_finish, segmented_path.cuh). The third way, a lane a segment for short
 * segments, and the 16-byte groups every way loads are in segmented_lanes.cuh.
 * Level 3 (device code): needs segmented_lanes.cuh, segmented_path.cuh, warp.cuh,
 * async_copy.cuh, ops.cuh and common.cuh. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_WALK_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_WALK_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"
#include "../util/async_copy.cuh"
#include "segmented_lanes.cuh" /* a lane a segment; gp__seg_group, the 16-byte groups */

/* Chunks a warp of gp__seg_walk loads before it folds any: 32 lanes x 16 bytes each, so a
 * warp has 4 KB in flight and a block of 8 warps 32 KB, as the rings hold. */
#ifndef GP__SEG_WALK_ROUND
#define GP__SEG_WALK_ROUND 8
#endif
/* Chunks a warp walking by pieces (gp__seg_pieces_warp) loads before it folds any: 5, 2.5 KB
 * in flight a warp. Fewer in flight made the launch end sooner: its blocks folded for
 * times that differ by their slot on the SM, and the last of them set the end (H200, 2^28
 * f32, us, 8 / 6 / 5 chunks: power-law lengths 437 / 400 / 392, 256 411 / 387 / 370, 1024
 * 280 / 277 / 272, 65536 274 / 271 / 271; docs/segmented.md). */
#ifndef GP__SEG_WALK_PIECES_ROUND
#define GP__SEG_WALK_PIECES_ROUND 5
#endif
/* A block of at most PIECES_ABOVE values a segment streams its warps' values with head
 * bits (gp__seg_stream_warp); one of more, or of no segment end, walks them piece by piece
 * (a segment at a time). H200, 2^28 f32, us, the stream / by pieces: segments of 32 462 /
 * 597 (by heads), 128 418 / 576, 1024 321 / 278, 65536 308 / 274; at 5 chunks a round, 256
 * 318 / 370, 384 308 / 302, 512 304 / 288. A piece costs a chunk or more however short, so
 * a block of mixed lengths whose mean is a few hundred (power-law lengths) streams faster:
 * 448, not 256, took those from 392 to 331 us (docs/segmented.md). 0: always the stream. */
#ifndef GP__SEG_WALK_PIECES_ABOVE
#define GP__SEG_WALK_PIECES_ABOVE 448
#endif
/* What a segment end weighs in the warps' split, in values: by pieces, PIECE chunks (its
 * own partial chunk and its fold and store cost about a chunk each: fixed lengths of 128
 * values, a chunk each, took twice the time of the same values in segments of 1024);
 * streamed, END groups (a round holds 32 ends at most). */
#ifndef GP__SEG_WALK_PIECE
#define GP__SEG_WALK_PIECE 2
#endif
#ifndef GP__SEG_WALK_END
#define GP__SEG_WALK_END 8
#endif
/* Rounds of values a streaming warp asks the L2 to fetch ahead of the round it loads (0:
 * none). A round's loads wait for its fold before the next round's start, and 32 more
 * registers a lane would be needed to hold two rounds; the prefetch costs a line a lane and
 * round ahead, and the next round's loads then wait for the L2 rather than for DRAM. H200,
 * 2^28 f32, us, rounds ahead 0 / 1 / 2 / 4: segments of 32 470 / 445 / 530 / 825, of 256
 * 419 / 372 / 454 / 739, random lengths 0-400 372 / 341 / 447 / 725 (more ahead fills the
 * L2 with lines not yet needed). The walk by pieces takes none: one round ahead made it
 * slower, segments of 1024 287 to 297 us, of 65536 280 to 292. */
#ifndef GP__SEG_WALK_PREFETCH
#define GP__SEG_WALK_PREFETCH 1
#endif
/* The stream's ends ring, a warp's: slots for 4 blocks of 32 ends (positions), copied from
 * global memory by cp.async a block ahead of the two a round reads (at segments of 32 a
 * round takes a block, several microseconds; the fourth slot keeps a block's copy clear of
 * the reads of the round before, and the slot a power of two). Loaded into registers
 * instead (the 32 being read and the next 32), the next block's load was waited for at the
 * end of the round that issued it: ptxas moved it from the register it loaded into to the
 * loop's register at once, and at segments of 32 a round takes a block, so each round
 * waited for a global load of ends before it could begin (ncu: 11.7% of the stall samples
 * on that move, H200, docs/segmented.md). */
#define GP__SEG_WALK_ENDS 128

/* Out of line: inlined into the ring kernel, the walk made the kernel's other folds slower
 * (H200, 2^28 f32, against the walk out of line: segments of 32 652 against 604 us, power-law
 * lengths 565 against 510), though it ran 2% faster itself. The cause was not found. */
#ifndef GP__SEG_WALK_INLINE
#define GP__SEG_WALK_INLINE __noinline__
#endif

/* The shared memory of gp__seg_walk for a block of WARPS warps. */
template <class T, unsigned WARPS>
struct gp__seg_walk_smem {
    uint64_t x[WARPS + 1], cut[WARPS + 1]; /* each warp's first end and first value, then the block's ends */
    T head[WARPS], carry[WARPS];
    uint32_t has_end[WARPS];
    uint64_t ends[WARPS][GP__SEG_WALK_ENDS];              /* the stream's ends in flight, a ring a warp */
    uint32_t hw[WARPS][32];                               /* the stream's head bits, a word a lane */
    /* the stream's values in 16-byte groups (gp__seg_unit), then its folds before heads, a
     * slot a value */
    alignas(16) T stage[WARPS][GP__SEG_WALK_ROUND * 512 / sizeof(T)];
};

#ifdef __CUDACC__
#include "../warp/warp.cuh"
#include "segmented_path.cuh" /* the pairs, the CSR source, gp__seg_first */

/* Where group k of a stream's round lies in the stage, in 16-byte units: k with its low 3
 * bits xor bits 3-5. Eight lanes' 16-byte accesses are served together, so the stores of a
 * chunk (k = 32 u + l) and the loads of a lane's groups (k = U L + u, U = 8) each reach 8
 * different units of 128 bytes: no bank conflict either way (without it, the loads were all
 * in one bank group). The transpose's chunked tile swizzles its rows of 16-byte chunks the
 * same way (gp__transpose_chunk_at); one xor, not worth a header between the two. */
static __device__ __forceinline__ unsigned gp__seg_unit(unsigned k)
{
    return k ^ ((k >> 3) & 7);
}

/* The L2 asked for the values in[a .. min(a + GP__SEG_WALK_PREFETCH rounds, lim)): a
 * 128-byte line a lane a round, every line inside the values. */
template <class T>
static __device__ __forceinline__ void gp__seg_prefetch(const T *in, uint64_t a, uint64_t lim)
{
#if GP__SEG_WALK_PREFETCH > 0
    const char *p = reinterpret_cast<const char *>(in + a) + 128 * gp__lane_id();
    const char *e = reinterpret_cast<const char *>(in + lim);
#pragma unroll
    for (unsigned r = 0; r < GP__SEG_WALK_PREFETCH; r++, p += 32 * 128)
        if (p < e) asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

/* One warp's values [first, lim) (indices of src.in) and segment ends [x_lo, x_hi) of
 * gp__seg_walk, streamed: rounds of up to ROUND chunks of values, each cut where its 33rd
 * end would fall, so that a lane holds one end of the round. The round's values are loaded
 * chunk by chunk and passed through the stage so that lane L holds G = ROUND x VEC
 * consecutive values, A0 + L G on. The round's ends set head bits (a segment starts at the
 * end's position) in a word a lane (hw, bit i: value A0 + L G + i). The lane folds its
 * values, restarting at heads, one warp scan of (head, fold) pairs gives each lane the fold
 * before its values, and the lane writes the fold before each of its heads to stage (a slot
 * a value of the round); a round with no head is a plain tree. The end lanes then read
 * their segments' values from stage (empty segments: the identity; an end at the round's
 * last position: the running fold). One scan a round, not one a chunk: at segments of 32
 * every chunk has a head, and the chunks' scans were a quarter of the warp's instructions.
 * head: the value of end x_lo's segment from `first` (written to *head_out by its lane);
 * returns the fold after the last end (the carry), in every lane. */
template <class Op, class Src>
static __device__ __forceinline__ typename Op::type gp__seg_stream_warp(typename Op::type *out, const Src &src,
                                                                         uint64_t x_lo, uint64_t x_hi, uint64_t first,
                                                                         uint64_t lim, typename Op::type *stage,
                                                                         uint32_t *hw, uint64_t *er,
                                                                         typename Op::type *head_out)
{
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    enum { VEC = 16 / sizeof(T), U = GP__SEG_WALK_ROUND, G = U * VEC, RV = 32 * G };
    static_assert(G <= 32, "a lane's head bits fit a word");
    static_assert(sizeof(T) * VEC == 16 && sizeof(gp__seg_walk_smem<T, 1>::stage) == RV * sizeof(T),
                  "the stage holds a round's 16-byte groups");
    const unsigned lane = gp__lane_id();
    const T *in = src.in;
    const bool aligned16 = ((uintptr_t)in & 15) == 0;
    const uint64_t *ends = src.off + 1; /* end x's position in src.in */
    /* ends [b, b + 32) into the ring (er, slot (x - x_lo) mod ENDS), one commit group */
    const auto issue = [&](uint64_t b) {
        const uint64_t x = b + lane;
        if (x < x_hi) gp__cp_async<8>(er + ((x - x_lo) & (GP__SEG_WALK_ENDS - 1)), ends + x, true);
        gp__cp_async_commit();
    };
    static_assert(GP__SEG_WALK_ENDS == 128, "the two blocks read, the one in flight, one spare");
    uint64_t eb = x_lo; /* the rounds read ends [eb, eb + 64); [eb + 64, eb + 96) in flight */
    issue(x_lo);
    issue(x_lo + 32);
    issue(x_lo + 64);
    uint64_t e_idx = x_lo, R0 = first, prev_p = first;
    bool restart = false; /* a segment starts at R0: an end of the last round lay there */
    T run = Op::identity(); /* the fold since the last head, up to R0 */
    while (gp__warp_uniform(R0 < lim || e_idx < x_hi)) {
        const uint64_t A0 = R0 / VEC * VEC, Rmax = A0 + RV < lim ? A0 + RV : lim;
        /* this lane's end, e_idx + lane, clamped inside [R0, lim] (ends that do not ascend
         * break the caller's contract; clamped, they stay inside the share) */
        gp__cp_async_wait<1>(); /* this lane's copies of blocks eb and eb + 32 landed */
        __syncwarp();           /* and every lane's */
        const uint64_t xl = e_idx + lane; /* < eb + 64 */
        uint64_t p = xl < x_hi ? er[(xl - x_lo) & (GP__SEG_WALK_ENDS - 1)] : lim;
        p = gp__seg_clamp(p, R0, lim);
        const bool in_round = e_idx + lane < x_hi && (p < Rmax || R0 == lim);
        const unsigned ball = __ballot_sync(GP__FULL_MASK, in_round);
        const unsigned k = ball == GP__FULL_MASK ? 32u : (unsigned)__ffs(~ball) - 1;
        const uint64_t R1 = k == 32 ? gp__shfl<GP__SHFL_IDX>(p, 31) : Rmax; /* the round's values: [R0, R1) */
        const bool mine = lane < k;
        /* the heads: bit i of lane L's word for the value at A0 + L G + i */
        const auto set_head = [&](uint64_t q) {
            const unsigned off = (unsigned)(q - A0);
            atomicOr(&hw[off / G], 1u << (off % G));
        };
        if (mine && p < R1) set_head(p);
        if (restart && lane == 0 && R0 < R1) set_head(R0);
        __syncwarp();
        const uint32_t h = hw[lane];
        __syncwarp();
        hw[lane] = 0;
        /* the values, outside [R0, R1) the identity: loaded a chunk at a time (lane l the
         * group u 32 + l of chunk u, so each load is coalesced), then through the stage so that
         * lane L holds the round's G values from A0 + L G on */
        T y[G];
        {
            T x[U][VEC];
#pragma unroll
            for (unsigned u = 0; u < U; u++)
                gp__seg_group<Op, VEC>(in, A0 + (uint64_t)(u * 32 + lane) * VEC, R0, R1, aligned16, x[u]);
            gp__seg_prefetch(in, R1 / VEC * VEC, lim); /* the next rounds, while this one folds */
            uint4 *units = reinterpret_cast<uint4 *>(stage);
#pragma unroll
            for (unsigned u = 0; u < U; u++) {
                uint4 w;
                memcpy(&w, x[u], 16);
                units[gp__seg_unit(u * 32 + lane)] = w;
            }
            __syncwarp();
#pragma unroll
            for (unsigned u = 0; u < U; u++) {
                const uint4 w = units[gp__seg_unit(lane * U + u)];
                memcpy(&y[u * VEC], &w, 16);
            }
            __syncwarp(); /* every lane has its values: the stage takes the folds before heads */
        }
        if (__any_sync(GP__FULL_MASK, h != 0)) {
            /* the lane's fold restarting at its heads, a warp scan of (head, fold) pairs for
             * the fold before the lane's values, then the fold before each head to its slot */
            pair mine_p;
            mine_p.h = h != 0;
            mine_p.v = Op::identity();
#pragma unroll
            for (unsigned i = 0; i < G; i++) mine_p.v = Op::apply((h >> i) & 1 ? Op::identity() : mine_p.v, y[i]);
            pair all;
            const pair before = gp__warp_exclusive_scan<SOp>(mine_p, &all);
            T r = before.h ? before.v : Op::apply(run, before.v);
#pragma unroll
            for (unsigned i = 0; i < G; i++) {
                if ((h >> i) & 1) stage[lane * G + i] = r;
                r = Op::apply((h >> i) & 1 ? Op::identity() : r, y[i]);
            }
            run = all.h ? all.v : Op::apply(run, all.v);
        } else { /* no head in the round: a plain tree */
            T t = y[0];
#pragma unroll
            for (unsigned i = 1; i < G; i++) t = Op::apply(t, y[i]);
            t = gp__shfl<GP__SHFL_IDX>(gp__warp_reduce_lane0<Op>(t), 0);
            run = Op::apply(run, t);
        }
        if (restart && R0 == R1) run = Op::identity(); /* a round of no values after a head */
        __syncwarp();
        /* the round's ends, a lane each: the fold before the end's position */
        uint64_t pprev = gp__shfl<GP__SHFL_UP>(p, 1);
        pprev = gp__select(lane == 0, prev_p, pprev);
        if (mine) {
            const uint64_t xe = e_idx + lane;
            T val = Op::identity();
            if (xe == x_lo || p != pprev) val = p == R1 ? run : stage[p - A0];
            if (xe == x_lo) *head_out = val;
            else gp__store_elem(out + xe, val);
        }
        restart = __any_sync(GP__FULL_MASK, mine && p == R1);
        if (k > 0) prev_p = gp__shfl<GP__SHFL_IDX>(p, (int)k - 1);
        e_idx += k;
        R0 = R1;
        if (e_idx - eb >= 32) { /* block eb read: block eb + 96 in flight, in block eb - 32's slots */
            eb += 32;
            issue(eb + 64);
        }
    }
    gp__cp_async_wait<0>(); /* nothing lands in the ring after the walk */
    return restart ? Op::identity() : run;
}

/* One warp's values [first, lim) and segment ends [x_lo, x_hi) of gp__seg_walk, a piece at
 * a time: the values before end x_lo (its head, to *head_out), each whole segment, the
 * values after the last end. A piece folds chunk by chunk (a lane its group, a tree of
 * shuffles the lanes, lane 0 the chunks, all in order); a warp fills PIECES_ROUND chunks, of one
 * piece or of the next ones, before it folds any. Returns the fold after the last end (the
 * carry), in lane 0. */
template <class Op, class Src>
static __device__ __forceinline__ typename Op::type gp__seg_pieces_warp(typename Op::type *out, const Src &src,
                                                                         uint64_t x_lo, uint64_t x_hi, uint64_t first,
                                                                         uint64_t lim, typename Op::type *head_out)
{
    typedef typename Op::type T;
    enum { VEC = 16 / sizeof(T), U = GP__SEG_WALK_PIECES_ROUND };
    const unsigned lane = gp__lane_id();
    const bool aligned16 = ((uintptr_t)src.in & 15) == 0;
    const uint64_t K = x_hi - x_lo; /* pieces 0 .. K */
    const T *in = src.in;
    /* the ends, 32 at a time, a lane each (absolute positions), the next 32 in flight */
    const auto end_of = [&](uint64_t q) { return q < K ? src.end(x_lo + q) + src.base : lim; };
    uint64_t qb = 0, e_cur = end_of(lane), e_next = end_of(32 + lane);
    /* the piece being filled: its index q, values [lo, hi), its next group g, groups to ge */
    uint64_t q = 0, lo = first, hi = lim, g, ge;
    const auto open = [&]() {
        if (gp__warp_uniform(q < K)) {
            if (q - qb == 32) {
                qb += 32;
                e_cur = e_next;
                e_next = end_of(qb + 32 + lane);
            }
            const uint64_t e = gp__shfl<GP__SHFL_IDX>(e_cur, (int)(q - qb));
            /* gp__seg_clamp written out: through the helper nvcc compiles the walk otherwise,
             * and power-law lengths ran 1.5% slower (H200) */
            hi = e < lo ? lo : e > lim ? lim : e;
        } else {
            hi = lim;
        }
        g = lo / VEC;
        ge = (hi + VEC - 1) / VEC;
    };
    open();
    T acc = Op::identity(), head = Op::identity(), carry = Op::identity(); /* lane 0's */
    while (gp__warp_uniform(q <= K)) {
        T x[U][VEC];
        const uint64_t q0 = q;
        uint32_t last = 0; /* bit u: chunk u is its piece's last */
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const bool live = gp__warp_uniform(q <= K);
            gp__seg_group<Op, VEC>(in, (g + lane) * VEC, lo, live ? hi : lo, aligned16, x[u]);
            if (live) {
                g += 32;
                if (gp__warp_uniform(g >= ge)) { /* the piece's last chunk: the next piece starts where it ends */
                    last |= 1u << u;
                    q++;
                    lo = hi;
                    if (gp__warp_uniform(q <= K)) open();
                }
            }
        }
        T v[U];
        gp__warp_fold_groups_lane0<Op, U, VEC>(x, v);
        if (lane == 0) {
            uint64_t p = q0;
#pragma unroll
            for (unsigned u = 0; u < U; u++) {
                acc = Op::apply(acc, v[u]);
                if ((last >> u) & 1) {
                    if (p == K) carry = acc;
                    else if (p == 0) head = acc;
                    else gp__store_elem(out + x_lo + p, acc);
                    acc = Op::identity();
                    p++;
                }
            }
        }
    }
    if (lane == 0) *head_out = head;
    return carry;
}

/* A block's share of CSR segments, walked by its warps straight from global memory: the
 * ends [i_start, i_end) and values [j_start, j_end) of its merge-path split. The warps
 * split the share by cost, a merge path of their own where an end weighs C values (a
 * search each, in global memory), so a warp of many short segments gets fewer values. Each
 * warp then folds its part, streamed with head bits (gp__seg_stream_warp) where the block
 * averages at most PIECES_ABOVE values a segment, else piece by piece: the values before
 * its first end (its head: the segment began before it), each whole segment, and the
 * values after its last end (its carry). A piece is folded chunk by chunk, a chunk being
 * 32 groups of VEC values, a group the VEC values of one 16-byte vector at a multiple of
 * VEC in `src.in` (values outside the piece count as the identity): each lane folds its
 * group in order, a tree of shuffles folds the lanes in order (lane i takes lane i + o),
 * and lane 0 folds the chunks in order. A warp fills ROUND chunks (of one piece or of the
 * next ones; PIECES_ROUND by pieces) before it folds any, so 4 KB a warp are in flight
 * (2.5 KB by pieces). The warps' heads and
 * carries then fold in order, as the threads' do in gp__seg_tile, into the block's record,
 * and the walk ends the kernel's block with gp__seg_finish (`blocks` of them took tiles):
 * with nothing of the kernel's live across the call, the walk keeps more registers (the
 * ring kernel's other folds beside it made it spill 20 bytes rather than 8, and the stream
 * 7% slower). The association depends on the offsets and the split only, never on
 * alignment: a group that is not whole in the piece, or `src.in` off 16-byte boundaries,
 * loads element by element.
 *
 * Why: folding a tile through the rings takes a search, a block scan and barriers a tile
 * of 3840 values, and at segments of 1024 the block, not memory, was the limit (49% of the
 * read rate on the H200). Here a warp spends well under an instruction a value and
 * meets no block barrier between its rounds. */
template <class Op, unsigned WARPS, class Src>
static __device__ GP__SEG_WALK_INLINE void gp__seg_walk(typename Op::type *out, const Src &src, uint64_t i_start,
                                                    uint64_t i_end, uint64_t j_start, uint64_t j_end,
                                                    gp__seg_walk_smem<typename Op::type, WARPS> &sm, char *scratch,
                                                    uint64_t blocks, uint32_t epoch)
{
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    enum { VEC = 16 / sizeof(T) };
    const bool lanes = gp__seg_walk_lanes(i_end - i_start, j_end - j_start);
    const bool stream = !lanes && j_end - j_start > 0 &&
                        (GP__SEG_WALK_PIECES_ABOVE == 0 ||
                         j_end - j_start <= (uint64_t)GP__SEG_WALK_PIECES_ABOVE * (i_end - i_start));
    const uint64_t C = lanes ? GP__SEG_WALK_LANE_END : stream ? GP__SEG_WALK_END * VEC : GP__SEG_WALK_PIECE * 32 * VEC;
    static_assert(Src::ENDS && 16 % sizeof(T) == 0, "CSR offsets; groups of whole values in 16 bytes");
    const unsigned warp = gp__warp_id(), lane = gp__lane_id();
    const uint64_t base = src.base; /* positions below are indices of src.in */
    /* the split: an end costs C values besides its segment's values (GP__SEG_WALK_PIECE,
     * _END), so warp w starts at cost D w / WARPS of the share's D = values + C ends (a merge
     * path whose ends weigh C) */
    const uint64_t D = (j_end - j_start) + C * (i_end - i_start);
    sm.hw[warp][lane] = 0;
    if (warp > 0) {
        const uint64_t d = D * warp / WARPS;
        const auto at = [&](uint64_t y) { /* end y's position in the share, kept inside it */
            const uint64_t e = src.end(y);
            return e < j_start ? 0 : e > j_end ? j_end - j_start : e - j_start;
        };
        const uint64_t x = gp__seg_first(i_start, i_end, [&](uint64_t y) { return at(y) + C * (y - i_start) >= d; });
        /* the values before the split: what d leaves after the ends before it, at a multiple
         * of VEC where that lies between end x - 1 and end x */
        const uint64_t ends = C * (x - i_start), lo = x > i_start ? at(x - 1) : 0, hi = x < i_end ? at(x) : j_end - j_start;
        const uint64_t first = base + j_start; /* the share's first value, in src.in */
        uint64_t c = (first + (d > ends ? d - ends : 0)) / VEC * VEC;
        c = c < first + lo ? first + lo : c;
        c = c > first + hi ? first + hi : c;
        if (lane == 0) {
            sm.x[warp] = x;
            sm.cut[warp] = c - base;
        }
    } else if (lane == 0) {
        sm.x[0] = i_start;
        sm.x[WARPS] = i_end;
        sm.cut[0] = j_start;
        sm.cut[WARPS] = j_end;
    }
    __syncthreads();
    /* ends that do not ascend (the caller's contract broken) may give splits that do not
     * ascend either: each warp's ends and values are kept after the last warp's, and every
     * position inside the warp's values, so every piece lies inside the block's share */
    uint64_t x_lo = i_start, c_lo = j_start;
    for (unsigned w = 1; w <= warp; w++) {
        x_lo = sm.x[w] > x_lo ? sm.x[w] : x_lo;
        c_lo = sm.cut[w] > c_lo ? sm.cut[w] : c_lo;
    }
    const uint64_t x_hi = sm.x[warp + 1] > x_lo ? sm.x[warp + 1] : x_lo;
    const uint64_t c_hi = sm.cut[warp + 1] > c_lo ? sm.cut[warp + 1] : c_lo;
    const uint64_t K = x_hi - x_lo, lim = base + c_hi; /* the warp's ends and values' end */
    if (lane == 0) sm.head[warp] = Op::identity(); /* K == 0: never read */
    const T carry = lanes    ? gp__seg_lanes_warp<Op, sizeof(sm.stage[0]) / sizeof(uint64_t)>(
                                 out, src, x_lo, x_hi, base + c_lo, lim, reinterpret_cast<uint64_t *>(sm.stage[warp]),
                                 &sm.head[warp]) /* the stream's stage holds the lanes' ends */
                    : stream ? gp__seg_stream_warp<Op>(out, src, x_lo, x_hi, base + c_lo, lim, sm.stage[warp],
                                                       sm.hw[warp], sm.ends[warp], &sm.head[warp])
                             : gp__seg_pieces_warp<Op>(out, src, x_lo, x_hi, base + c_lo, lim, &sm.head[warp]);
    if (lane == 0) {
        sm.carry[warp] = carry;
        sm.has_end[warp] = K > 0;
    }
    __syncthreads();
    const T head = sm.head[warp];
    /* the warps in order: each warp's head completes with the carries before it; nothing
     * comes before the share (the walk takes a block's whole share) */
    pair pre = SOp::identity(), run = SOp::identity(); /* the carries before this warp, and all */
    for (unsigned w = 0; w < WARPS; w++) {
        if (w == warp) pre = run;
        pair c;
        c.v = sm.carry[w];
        c.h = sm.has_end[w];
        run = SOp::apply(run, c);
    }
    uint64_t head_row = GP__SEG_NONE;
    T head_val = Op::identity();
    if (lane == 0 && K > 0) {
        const T v = Op::apply(pre.v, head);
        if (pre.h) {
            gp__store_elem(out + x_lo, v);
        } else { /* the block's first segment end: it may have begun in an earlier block */
            head_row = x_lo;
            head_val = v;
        }
    }
    gp__seg_finish<Op>(out, scratch, run, head_row, head_val, blocks, epoch);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_WALK_CUH */
