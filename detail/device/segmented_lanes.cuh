/* detail/device/segmented_lanes.cuh -- a block's share of short CSR segments walked a lane
 * a segment (gp__seg_walk, segmented_walk.cuh, calls gp__seg_lanes_warp for blocks whose
 * segments average at most GP__SEG_WALK_LANES_UPTO values), and the loads it shares with the
 * walk's other ways: the 16-byte groups of values (gp__seg_group) and the fold of a range by
 * one warp (gp__seg_warp_fold).
 * Level 3 (device code): needs segmented_path.cuh, reduce_kernels.cuh, warp.cuh,
 * async_copy.cuh, ops.cuh and common.cuh. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_LANES_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_LANES_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

/* A block of at most LANES_UPTO values a segment on average folds a segment a lane
 * (gp__seg_lanes_warp): each lane U segments a round, side by side, LANES_BYTES of a
 * segment's values loaded at once; a segment of more than LANE_LONG values is left to the
 * whole warp. An end weighs LANE_END values in the warps' split (its offset read and its
 * output written: 12 bytes, three 4-byte values). H200, 2^28 f32, us, the rings / a lane a
 * segment: fixed lengths of 1 1597 / 1317, 2 952 / 748, 4 578 / 505, 8 528 / 635; random
 * lengths 0-4 1125 / 779, 0-16 528 / 738; so up to 4. */
#ifndef GP__SEG_WALK_LANES_UPTO
#define GP__SEG_WALK_LANES_UPTO 4
#endif
#ifndef GP__SEG_WALK_LANES_U
#define GP__SEG_WALK_LANES_U 4
#endif
#ifndef GP__SEG_WALK_LANES_BYTES
#define GP__SEG_WALK_LANES_BYTES 16 /* bytes of a piece's values a lane loads at once */
#endif
#ifndef GP__SEG_WALK_LANE_LONG
#define GP__SEG_WALK_LANE_LONG 32
#endif
#ifndef GP__SEG_WALK_LANE_END
#define GP__SEG_WALK_LANE_END 3
#endif

#ifdef __CUDACC__
#include "../util/async_copy.cuh"
#include "../warp/warp.cuh"
#include "segmented_path.cuh" /* the CSR source */
#include "reduce_kernels.cuh" /* gp__reduce_load: the 16-byte groups */

/* Whether a block's share of ne ends and nv values is walked a lane a segment
 * (gp__seg_lanes_warp): at most LANES_UPTO values a segment on average. */
static __host__ __device__ __forceinline__ bool gp__seg_walk_lanes(uint64_t ne, uint64_t nv)
{
    return nv <= (uint64_t)GP__SEG_WALK_LANES_UPTO * ne;
}

/* The VEC values of the group at e0 (an index of `in`, a multiple of VEC) that lie in
 * [lo, hi), the identity elsewhere: one 16-byte load where the whole group lies there and
 * `in` is 16-byte aligned, else element by element (the same values either way). */
template <class Op, unsigned VEC>
static __device__ __forceinline__ void gp__seg_group(const typename Op::type *in, uint64_t e0, uint64_t lo,
                                                     uint64_t hi, bool aligned16, typename Op::type (&x)[VEC])
{
    if (aligned16 && e0 >= lo && e0 + VEC <= hi) {
        gp__reduce_load<typename Op::type, VEC>(in + e0, true, x);
    } else {
#pragma unroll
        for (unsigned q = 0; q < VEC; q++) x[q] = e0 + q >= lo && e0 + q < hi ? gp__load_elem(in + e0 + q) : Op::identity();
    }
}

/* The fold of in[lo, hi) by one warp, in order, into lane 0: rounds of R chunks, a chunk
 * 32 groups of VEC values (gp__seg_group: a lane's group, values outside [lo, hi) the
 * identity) folded by gp__warp_fold_groups_lane0, and the chunks by lane 0, as
 * gp__seg_pieces_warp folds a piece (chunks from the same groups, so the same association). */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__seg_warp_fold(const typename Op::type *in, uint64_t lo,
                                                                       uint64_t hi, bool aligned16)
{
    typedef typename Op::type T;
    enum { VEC = 16 / sizeof(T), R = 4 };
    const unsigned lane = gp__lane_id();
    T acc = Op::identity();
    for (uint64_t g = lo / VEC; gp__warp_uniform(g * VEC < hi); g += 32 * R) {
        T x[R][VEC], v[R];
#pragma unroll
        for (unsigned r = 0; r < R; r++) gp__seg_group<Op, VEC>(in, (g + 32 * r + lane) * VEC, lo, hi, aligned16, x[r]);
        gp__warp_fold_groups_lane0<Op, R, VEC>(x, v);
        if (lane == 0)
#pragma unroll
            for (unsigned r = 0; r < R; r++) acc = Op::apply(acc, v[r]);
    }
    return acc;
}

/* One warp's values [first, lim) (indices of src.in) and segment ends [x_lo, x_hi) of
 * gp__seg_walk, a lane a piece. The pieces are those of gp__seg_pieces_warp: piece 0 the
 * values before end x_lo (its head, to *head_out), pieces 1 .. K - 1 the whole segments,
 * piece K the values after the last end (the carry, returned in lane 0). A round takes 32 U
 * pieces, lane l pieces qb + 32 u + l, so that the ends' loads coalesce and so do the
 * values' of short pieces; each piece starts where the one before it ends (a shuffle). A
 * lane folds its U pieces' values one by one, in order, the U pieces side by side so that
 * their loads are in flight together. A piece of more than LANE_LONG values is left to the
 * whole warp (gp__seg_warp_fold): alone, a lane would wait on its loads a few at a time,
 * and its warp with it.
 *
 * The ends come by cp.async into er (SLOTS 8-byte slots of the warp's shared memory, each
 * lane its own) AHEAD rounds ahead, so that a round waits for its values only.
 *
 * Why: at a few values a segment the rings' tiles cost more than the values do (a search, a
 * block scan and barriers for 1920 segments of one value), and the stream holds at most 32
 * ends a round. A lane a segment reads each offset once and writes each output once, with
 * no barrier and no shared memory on the values' way (H200, 2^28 f32, docs/segmented.md).
 * Out of line, with registers of its own: inside the walk, the walk spilled 40-68 bytes. */
template <class Op, unsigned SLOTS, class Src>
static __device__ __noinline__ typename Op::type gp__seg_lanes_warp(typename Op::type *out, const Src &src,
                                                                        uint64_t x_lo, uint64_t x_hi, uint64_t first,
                                                                        uint64_t lim, uint64_t *er,
                                                                        typename Op::type *head_out)
{
    typedef typename Op::type T;
    enum { U = GP__SEG_WALK_LANES_U, B = sizeof(T) < GP__SEG_WALK_LANES_BYTES ? GP__SEG_WALK_LANES_BYTES / sizeof(T) : 1,
           LONG = GP__SEG_WALK_LANE_LONG,
           AHEAD = SLOTS / (32 * U) - 2 };
    static_assert((SLOTS & (SLOTS - 1)) == 0 && AHEAD >= 1, "rounds in flight, and one spare");
    const unsigned lane = gp__lane_id();
    const T *in = src.in;
    const bool aligned16 = ((uintptr_t)in & 15) == 0;
    const uint64_t K = x_hi - x_lo; /* pieces 0 .. K */
    const uint64_t *ends = src.off + 1 + x_lo; /* piece q's end (q < K), a position in src.in */
    /* round r's ends into their slots, a commit group a round (empty past the last); a lane
     * copies and reads its own slots */
    const auto issue = [&](uint64_t r) {
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const uint64_t q = r * 32 * U + 32 * u + lane;
            if (q < K) gp__cp_async<8>(er + (q & (SLOTS - 1)), ends + q, true);
        }
        gp__cp_async_commit();
    };
#pragma unroll
    for (unsigned r = 0; r < AHEAD; r++) issue(r);
    T head = Op::identity(), carry = Op::identity(); /* lane 0's */
    uint64_t before = first; /* where the round's first piece starts: the last end read, as read */
    for (uint64_t qb = 0, r = 0; gp__warp_uniform(qb <= K); qb += 32 * U, r++) {
        uint64_t e[U], lo[U];
        T acc[U];
        unsigned len[U], most = 0;
        uint32_t defer = 0; /* bit u: piece qb + 32 u + lane is left to the warp */
        issue(r + AHEAD);
        gp__cp_async_wait<AHEAD>(); /* round r's ends landed */
#pragma unroll
        for (unsigned u = 0; u < U; u++) { /* the carry, and the places past it, end at lim */
            const uint64_t q = qb + 32 * u + lane;
            e[u] = q < K ? er[q & (SLOTS - 1)] : lim;
        }
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const uint64_t up = gp__shfl<GP__SHFL_UP>(e[u], 1);
            const uint64_t edge = u > 0 ? gp__shfl<GP__SHFL_IDX>(e[u - 1], 31) : before;
            /* kept inside [first, lim], each piece's end at or after its start (ends that do
             * not ascend break the caller's contract; clamped, they stay inside the share) */
            uint64_t a = gp__select<uint64_t>(lane == 0, edge, up);
            a = gp__seg_clamp(a, first, lim);
            const uint64_t hi = gp__seg_clamp(e[u], a, lim);
            lo[u] = a;
            if (hi - a > LONG) defer |= 1u << u;
            len[u] = hi - a > LONG ? 0u : (unsigned)(hi - a);
            most = len[u] > most ? len[u] : most;
            acc[u] = Op::identity();
        }
        before = gp__shfl<GP__SHFL_IDX>(e[U - 1], 31);
        /* B values of each piece loaded, then folded, so that U B loads are in flight at once */
#pragma unroll 1
        for (unsigned j = 0; j < most; j += B) {
            T x[U][B];
#pragma unroll
            for (unsigned u = 0; u < U; u++)
#pragma unroll
                for (unsigned b = 0; b < B; b++)
                    if (j + b < len[u]) x[u][b] = gp__load_elem(in + lo[u] + j + b);
#pragma unroll
            for (unsigned u = 0; u < U; u++)
#pragma unroll
                for (unsigned b = 0; b < B; b++)
                    if (j + b < len[u]) acc[u] = Op::apply(acc[u], x[u][b]);
        }
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const uint64_t q = qb + 32 * u + lane;
            if (q > 0 && q < K && !((defer >> u) & 1)) gp__store_elem(out + x_lo + q, acc[u]);
        }
        if (qb == 0 && K > 0 && lane == 0 && !(defer & 1)) head = acc[0];
        const uint64_t kq = K - qb; /* the carry's place in the round, where it lies in it */
        if (gp__warp_uniform(kq < 32 * U)) {
            const uint32_t kd = gp__shfl<GP__SHFL_IDX>(defer, (int)(kq & 31));
#pragma unroll
            for (unsigned u = 0; u < U; u++) {
                const T c = gp__shfl<GP__SHFL_IDX>(acc[u], (int)(kq & 31));
                if (u == kq / 32 && !((kd >> u) & 1)) carry = c;
            }
        }
        /* the long pieces, one at a time, in the order of their lanes */
        for (unsigned any = __ballot_sync(GP__FULL_MASK, defer != 0); any != 0;
             any = __ballot_sync(GP__FULL_MASK, defer != 0)) {
            const unsigned from = (unsigned)__ffs(any) - 1;
            const unsigned du = (unsigned)__ffs(gp__shfl<GP__SHFL_IDX>(defer, (int)from)) - 1;
            uint64_t plo = 0;
#pragma unroll
            for (unsigned u = 0; u < U; u++) {
                const uint64_t a = gp__shfl<GP__SHFL_IDX>(lo[u], (int)from);
                if (u == du) plo = a;
            }
            const uint64_t q = qb + 32 * du + from, e_q = q < K ? ends[q] : lim; /* read again, kept as above */
            const T v = gp__seg_warp_fold<Op>(in, plo, gp__seg_clamp(e_q, plo, lim), aligned16);
            if (lane == 0) {
                if (q == K) carry = v;
                else if (q == 0) head = v;
                else gp__store_elem(out + x_lo + q, v);
            }
            if (lane == from) defer &= defer - 1;
        }
    }
    gp__cp_async_wait<0>(); /* nothing lands in the slots after the walk */
    if (lane == 0) *head_out = head;
    return carry;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_LANES_CUH */
