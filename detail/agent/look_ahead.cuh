/* detail/agent/look_ahead.cuh -- the single-pass look-ahead: the warp(s) of a block that fold
 * published tile totals into the exclusive prefix of the block's next tile. Level 3 (device
 * code): needs warp/warp.cuh, agent/single_pass.cuh (the tagged status words) and
 * util/common.cuh. Used by the scan (device/scan_kernels.cuh) and by every family that
 * runs on the scan's engine (select, segmented scan, ...): a family publishes each tile's
 * total with gp__status_publish and asks gp__scan_look_ahead<Op> for a tile's prefix.
 *
 * Tiles publish only totals, never inclusive prefixes, so nothing ever chains through
 * another tile's prefix. The association is fixed by tile indices alone: batch k is tiles
 * 32k .. 32k+31, B(k) is their totals reduced by one warp in a fixed tree (lane l takes
 * tile 32k+l; gp__warp_reduce), and
 *   Q(k)     = B(0) OP B(1) OP ... OP B(k)        (left to right)
 *   prefix t = Q(k-1) OP R(A(32k) .. A(t-1))      (k = t / 32; R: the same tree, missing
 *                                                  lanes the identity)
 * Every block's look-ahead warp computes the same Q for itself (it keeps Q between its
 * tiles and folds only the batches since its last tile: about (blocks / 32) batches,
 * all their loads in flight at once, their trees reduced together), so the result is
 * bitwise the same on every run, and in index order for operators that do not commute. A status word is 64 bits:
 * a nonzero flag in the high half and 32 bits of the value in the low half; a type of
 * more than 4 bytes uses several words, each flagged, so a reader needs no fence (every
 * word is written once, with a relaxed gpu-scope store, and read the same way). */
#ifndef GPUPRIMS_DETAIL_LOOK_AHEAD_CUH
#define GPUPRIMS_DETAIL_LOOK_AHEAD_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"
#include "single_pass.cuh"

#ifdef __CUDACC__
#include "../warp/warp.cuh"

#ifndef GP__SCAN_POLL_NS
#define GP__SCAN_POLL_NS 64         /* look-ahead: sleep after a polling round that found nothing */
#endif
#define GP__SCAN_BATCH 32           /* look-ahead: tiles per batch (one warp, one tree) */

/* 64-bit status words per tile total: 32 bits of value each */
static constexpr GP__HD unsigned gp__scan_words(size_t elem) { return gp__status_words(elem); }

template <class T>
struct gp__scan_ahead {
    T q;
    size_t done;    /* batches folded into q */
    unsigned round; /* rounds so far (two look-ahead warps: which exchange buffer) */
};

/* Batches a look-ahead warp polls in a round: 16 status words a lane (24 from 5 words up). */
static constexpr GP__HD unsigned gp__scan_nb(size_t elem)
{
    const unsigned w = gp__scan_words(elem);
    return w == 1 ? 16 : w == 2 ? 8 : w <= 4 ? 4 : w >= 24 ? 1 : 24 / w;
}

/* How an operator's tile totals travel as status words. By default a total is its own
 * bytes, 32 bits a word, and a warp polls gp__scan_nb batches a round. A family whose
 * totals pack into fewer bits than their type specializes this for its operator (the
 * same members): W words a tile, NB batches a round, and decode, the total of tile t
 * from its words' bits. Fewer words a tile, more tiles a round: a block's consecutive
 * tiles lie about 264 apart on the H100, so a total of four words (NB 4, 256 tiles a round
 * for two warps) takes two round trips a tile where one word takes one. */
template <class Op>
struct gp__status_codec {
    typedef typename Op::type T;
    enum { W = gp__scan_words(sizeof(T)), NB = gp__scan_nb(sizeof(T)) };
    static __device__ __forceinline__ T decode(size_t, const uint32_t (&bits)[W])
    {
        T v;
        memcpy(&v, bits, sizeof(T));
        return v;
    }
};

/* The operator a look-ahead reduces each batch's tree under, and how a batch's total widens
 * to Op's type: by default Op itself. A family whose totals fit fewer bits within a batch
 * than across the grid specializes it (reduce-by-key: a batch's run count in 32 bits, the
 * grid's in 64), so that a round's slots take fewer registers; the trees apply the same
 * operations to the same values, so the results are the same bits. Its codec then decodes
 * to op::type. */
template <class Op>
struct gp__ahead_batch {
    typedef Op op;
    static __device__ __forceinline__ typename Op::type widen(const typename Op::type &x) { return x; }
};
/* Polls the totals of tiles first + 32 b for the slots b set in this lane's `pending`
 * until all are published, all loads of a round in flight together; v[b] gets them (V: what
 * Op's codec decodes to). The warp returns together. Also polls select's windows
 * (device/select_ring.cuh). */
template <class Op, int NB, class V>
static __device__ __forceinline__ void gp__scan_poll(const uint64_t *status, uint32_t epoch, size_t first,
                                                    unsigned pending, V (&v)[NB])
{
    typedef gp__status_codec<Op> codec;
    enum { W = codec::W };
    for (;;) {
        uint64_t w[NB][W];
#pragma unroll
        for (int b = 0; b < NB; b++)
            if (pending >> b & 1)
#pragma unroll
                for (int c = 0; c < W; c++) w[b][c] = gp__ld_relaxed_u64(status + (first + 32 * (size_t)b) * W + c);
        const unsigned before = pending;
#pragma unroll
        for (int b = 0; b < NB; b++)
            if (pending >> b & 1) {
                bool ready = true;
                uint32_t bits[W];
#pragma unroll
                for (int c = 0; c < W; c++) {
                    ready &= gp__status_ready(w[b][c], epoch);
                    bits[c] = (uint32_t)w[b][c];
                }
                if (ready) {
                    v[b] = codec::decode(first + 32 * (size_t)b, bits);
                    pending &= ~(1u << b);
                }
            }
        if (!__any_sync(GP__FULL_MASK, pending)) break;
#if GP__SCAN_POLL_NS > 0
        if (__all_sync(GP__FULL_MASK, pending == before)) __nanosleep(GP__SCAN_POLL_NS);
#endif
    }
    __syncwarp(); /* converged for the shuffles that follow */
}

/* Look-ahead warps a block runs for a type: two from 8 bytes up (below). */
static constexpr GP__HD unsigned gp__scan_aheads(size_t elem) { return gp__scan_words(elem) >= 2 ? 2u : 1u; }

enum { GP__SCAN_TREES_APART = 1, GP__SCAN_ONE_AHEAD = 2 }; /* the kernel's flags (knobs) */

/* Tile t's exclusive prefix, by the look-ahead warps (every lane of warp 0 gets it); s holds
 * Q through the batches this block folded for its earlier tiles. Tile 0: the identity.
 * Rounds of up to `parts` x NB batches; the partial batch k rides in the last round when
 * there is room, so a tile usually costs one round trip.
 *
 * A round covers 16 status words a lane: 512 tiles of 4-byte types, 256 of 8-byte ones,
 * 128 of 16-byte ones, where a block's consecutive tiles lie about 264 apart on the H100
 * (2 blocks per SM). One warp then took two rounds a tile for 8-byte types and three for
 * 16-byte ones: a float4 sum reached 67% of copy, in 1080 us at 2^26 on the H100 and the
 * H200 alike (bound by the round trips, not by memory), f64 78% on the H200. More slots a
 * round need registers the kernel does not have (5, 6 or 8 batches of 16-byte types
 * spilled and ran 40-100% slower), so from 8 bytes up a second warp polls the next NB
 * batches of each round: part 1 reduces its slots' trees and hands them to part 0 through
 * shared memory (`xchg`, two buffers by round parity; one named barrier a round), and part
 * 0 folds them after its own, in batch order: the same trees and the same order as one
 * warp's, so the same bits. Both warps track s.done alike; only part 0 keeps s.q.
 * Tried and not kept (H100): batch totals, B(k) published once by the warp whose tile
 * starts batch k + 1 and read speculatively, with the newest tiles, by warps that need
 * more batches than a round covers. The totals were seldom there in time (the batches a
 * warp needs are the ones every warp is reducing at that moment), and fitting the extra
 * words took a batch from each round: float4 2^26 1417 us against one warp's 1080, f64
 * 2^27 817 against 733. Every warp publishing every batch it reduced: f32 2^28 1300 us against
 * 728 (same-address stores queue at the L2). */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_look_ahead(const uint64_t *status, uint32_t epoch,
                                                                       size_t t,
                                                                       gp__scan_ahead<typename Op::type> &s,
                                                                       unsigned flags, unsigned part_id,
                                                                       unsigned parts, typename Op::type *xchg)
{
    typedef typename Op::type T;
    typedef gp__ahead_batch<Op> BA; /* the batches' trees */
    typedef typename BA::op BOp;
    typedef typename BOp::type B;
    enum { NB = gp__status_codec<Op>::NB };
    const unsigned lane = gp__lane_id();
    const size_t k = t / GP__SCAN_BATCH;
    const unsigned r = (unsigned)(t % GP__SCAN_BATCH); /* tiles of batch k before t */
    for (;;) {
        const size_t left = k - s.done, cap = (size_t)parts * NB;
        const unsigned nb = left < cap ? (unsigned)left : (unsigned)cap; /* whole batches this round */
        const bool part = left < cap && r > 0;                            /* and the partial batch (slot nb) */
        if (nb == 0 && !part) return k == 0 ? Op::identity() : s.q;
        /* this warp's slots: batches s.done + base + b */
        const unsigned base = part_id * NB;
        const unsigned mine = nb > base ? (nb - base < NB ? nb - base : (unsigned)NB) : 0u;
        const bool mine_part = part && nb >= base && nb < base + NB;
        B v[NB]; /* slots not polled (lanes of the partial batch from r on, unused slots): identity */
#pragma unroll
        for (int b = 0; b < NB; b++) v[b] = BOp::identity();
        const unsigned pending = (mine >= 32 ? ~0u : (1u << mine) - 1) | (mine_part && lane < r ? 1u << (nb - base) : 0u);
        gp__scan_poll<Op, NB>(status, epoch, (s.done + base) * GP__SCAN_BATCH + lane, pending, v);
        /* every slot's tree at once, their shuffles overlapping: one tree after another
         * (trees apart, as the first versions did) is five dependent shuffles a batch, half
         * a microsecond or so for a round of 8, on each tile's path; the same trees, so the
         * same result */
        if (flags & GP__SCAN_TREES_APART) {
#pragma unroll
            for (int b = 0; b < NB; b++)
                if (b <= (int)mine) v[b] = gp__warp_reduce<BOp>(v[b]);
        } else {
            gp__warp_reduce_each<BOp, NB>(v);
        }
        T *buf = xchg + (s.round & 1) * NB;
        s.round++;
        if (parts > 1) {
            if (part_id == 1 && lane == 0)
#pragma unroll
                for (int b = 0; b < NB; b++) buf[b] = BA::widen(v[b]);
            asm volatile("bar.sync 2, 64;" ::: "memory"); /* the two look-ahead warps */
            if (part_id == 1) {
                s.done += nb;
                if (part) return Op::identity(); /* part 0's answer is the one used */
                continue;
            }
        }
        T partial = Op::identity();
#pragma unroll
        for (int b = 0; b < NB; b++) {
            const T u = BA::widen(v[b]);
            if (b < (int)nb) s.q = s.done + b == 0 ? u : Op::apply(s.q, u);
            if (part && b == (int)nb) partial = u;
        }
        if (parts > 1)
#pragma unroll
            for (int b = 0; b < NB; b++) {
                const T u = buf[b];
                if (NB + b < (int)nb) s.q = Op::apply(s.q, u); /* s.done + NB + b > 0 */
                if (part && NB + b == (int)nb) partial = u;
            }
        s.done += nb;
        if (part) return k == 0 ? partial : Op::apply(s.q, partial);
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_LOOK_AHEAD_CUH */
