/* detail/device/segmented_scan_ring.cuh -- the segmented scan on the scan's grid design
 * (device/scan_kernels.cuh): a ring of shared-memory stages filled by bulk copies, a reduce
 * warp that publishes each tile's total as soon as the tile lands, look-ahead warps, and
 * scanning warps that never wait for a tile's data once its prefix is known. A scanning
 * thread holds consecutive elements, so a warp scans its pairs once (gp__ssr_scan), and
 * puts its outputs in its own part of the stage, from which one bulk copy a warp writes
 * them (gp__ssr_own, gp__ssr_own_put, gp__bulk_store). For values
 * that move as 16-byte vectors, with the values, the output and the head flags on 16-byte
 * boundaries, on sm_90 code; other calls run on gp__sscan_kernel (segmented_scan.cuh).
 * Reduce-by-key on the same roles: reduce_by_key_ring.cuh.
 *
 * Why: gp__sscan_kernel holds one tile a block and publishes its total only after the
 * block has loaded and scanned it, so each prefix waits on other blocks' loads (H100:
 * 23% of copy at 2^28). The scan over pairs is the one of segmented_scan.cuh: (value,
 * head) under the segmented operator gp__seg_op, folded in index order, so the result is
 * bitwise the same on every run.
 * Level 4: needs segmented_scan.cuh, scan_kernels.cuh, agent/ring.cuh, agent/look_ahead.cuh,
 * util/mbarrier.cuh. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_SCAN_RING_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_SCAN_RING_CUH

#include <stddef.h>
#include <stdint.h>
#include "segmented_scan.cuh"

#define GP__SSR_WARPS 8                          /* scanning warps a block */
#define GP__SSR_BLOCK (GP__SSR_WARPS * 32)       /* scanning threads */
#define GP__SSR_THREADS (GP__SSR_BLOCK + 128)    /* + producer, look-ahead, reduce, second look-ahead warps */
#ifndef GP__SSR_STAGES
#define GP__SSR_STAGES 4 /* ring depth, in tiles: 80 KB a block for f32 */
#endif
#ifndef GP__SSR_RAMP
#define GP__SSR_RAMP 3   /* stages first filled one at a time (agent/ring.cuh) */
#endif

#ifndef GP__SSR_NB
/* batches of 32 tiles a look-ahead warp polls a round (two warps), for (head, value) pairs.
 * A block's consecutive tiles lie about 264 apart (two blocks an SM, 132 SMs): 8 or 9 whole
 * batches and a partial one, so with 6 a tile takes one round trip where 4 often took two.
 * H200, 2^28 / 2^24 f32, heads 1/8 and 1/1024, builds run in turn twice, outputs checked:
 * 3 649 / 49.5 and 652 / 49.9 us, 4 613 / 47.1 and 628 / 47.9, 5 624 / 47.8 and 634 /
 * 48.3, 6 604 / 46.3 and 611 / 46.9. (H100, an earlier kernel: 8 920 us, 5 919, 4 887, 3
 * 925: each slot's tree is reduced every round.) */
#define GP__SSR_NB 6
#endif
#ifndef GP__SSR_NB_WIDE
/* the same for pairs of more than two status words (8-byte values: four words, 128 a round
 * at NB 4). H200, 2^27 f64, heads 1/8, the library's other knobs, outputs hashed equal: NB 2
 * 925 us, 4 1102, 6 1536; f32 pairs at NB 2 were 0.93x. */
#define GP__SSR_NB_WIDE 2
#endif

#ifdef __CUDACC__ /* (gpuprims.cuh is also C: the host helpers below are CUDA-only too) */
#include "scan_kernels.cuh"
#include "../util/mbarrier.cuh"
#include "../agent/ring.cuh"
#include "../warp/warp.cuh"

/* The ring's look-ahead folds gp__seg_op's pairs, GP__SSR_NB batches a round, or
 * GP__SSR_NB_WIDE for pairs of more than two words (the one-tile kernel, gp__sscan_kernel,
 * keeps the default): the default codec but for NB. */
template <class Op>
struct gp__ssr_ahead_op : gp__seg_op<Op> {
};
template <class Op>
struct gp__status_codec<gp__ssr_ahead_op<Op>> : gp__status_codec<gp__seg_op<Op>> {
    enum { NB = gp__status_codec<gp__seg_op<Op>>::W <= 2 ? GP__SSR_NB : GP__SSR_NB_WIDE };
};

/* Whether the ring kernels (this one and reduce-by-key's) take elements of type T: whole
 * 16-byte vectors, and a thread's head bits, one an element, in one 32-bit word (not 1-byte
 * elements: 64 a thread). The routers test it; the kernels assert it. */
template <class T>
static inline constexpr GP__HD bool gp__ssr_takes()
{
    return gp__scan_vec(sizeof(T)) * sizeof(T) == 16 && gp__scan_vec(sizeof(T)) * gp__scan_rows(sizeof(T)) <= 32;
}

/* Elements a tile: 256 threads x 64 bytes of values, as the scan. */
static inline GP__HD size_t gp__ssr_tile(size_t elem)
{
    return (size_t)GP__SSR_BLOCK * gp__scan_vec(elem) * gp__scan_rows(elem);
}
/* Bytes of a stage: the tile's values, then its head flags. */
static inline GP__HD size_t gp__ssr_stage(size_t elem) { return gp__ssr_tile(elem) * (elem + 1); }

/* Whether a call of elements the ring takes (gp__ssr_takes) runs on it: its values, out and
 * in, and its head flags on 16-byte boundaries. */
static inline bool gp__ssr_ok(const void *out, const void *in, const uint8_t *heads)
{
    return (uintptr_t)out % 16 == 0 && (uintptr_t)in % 16 == 0 && (uintptr_t)heads % 16 == 0;
}

/* The fold of a whole tile's values from element `from` to its end by one warp, in index
 * order (lane 0 gets it): the value of the tile's total when `from` is its last head, and
 * the values alone, since no head follows. `from` < 0 (no head): every value, lane l its
 * 32nd, as the scan folds a tile (gp__scan_lane_fold). Else 32 runs of `chunk` consecutive
 * values (odd: the lanes' reads fall in different banks), each folded as four consecutive
 * parts side by side (four chains of operations, not one), then the parts in order, then a
 * tree in lane order. The association depends on `from` alone. Reduce-by-key's tile total
 * too. */
template <class Op, int TILE>
static __device__ __forceinline__ typename Op::type gp__ssr_fold_from(const typename Op::type *vs, int from)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), R = TILE / VEC / 32 };
    const unsigned lane = gp__lane_id();
    T acc = Op::identity();
    if (from < 0) {
        acc = gp__scan_lane_fold<Op, R>([&](unsigned k, T *e) {
            const uint4 wv = reinterpret_cast<const uint4 *>(vs)[lane * R + k];
            memcpy(e, &wv, sizeof wv);
        });
    } else {
        const unsigned chunk = ((TILE - (unsigned)from + 31) / 32) | 1u, part = (chunk + 3) / 4,
                       lo = (unsigned)from + lane * chunk, hi = lo + chunk < TILE ? lo + chunk : TILE;
        T p4[4] = {Op::identity(), Op::identity(), Op::identity(), Op::identity()};
#pragma unroll 2
        for (unsigned j = 0; j < part; j++)
#pragma unroll
            for (int p = 0; p < 4; p++) {
                const unsigned e = lo + p * part + j;
                if (e < hi) p4[p] = Op::apply(p4[p], vs[e]);
            }
        acc = Op::apply(Op::apply(Op::apply(p4[0], p4[1]), p4[2]), p4[3]);
    }
    __syncwarp();
    return gp__warp_reduce<Op>(acc);
}

/* A whole tile's total by one warp, from its stage: its last head, found from the tile's end
 * 512 flags at a time (a 16-byte vector a lane, the lanes' largest: gp__warp_max_i32), then
 * its values from that head on (gp__ssr_fold_from; all of them, with no head flag, when it
 * has none). The pairs before the last head do not change the total: apply(a, b) is b's
 * value when b has a head. So with heads one element in 8 the warp reads a vector of flags
 * a lane and a value or two.
 * Every prefix waits for its tile's total, and this warp, one of twelve, shares the issue
 * slots with the scanning warps: folding every element as a pair it set the block's pace
 * (the segmented scan 827 us against 612, 2^28 f32, heads 1/8, H200). `first`: tile 0,
 * whose element 0 is a head whatever its flag. */
template <class Op, int TILE>
static __device__ __forceinline__ typename gp__seg_op<Op>::type gp__ssr_tile_total(const unsigned char *stage,
                                                                                 bool first)
{
    typedef typename gp__seg_op<Op>::type pair;
    typedef typename Op::type T;
    static_assert(TILE % 512 == 0, "whole steps of flags");
    const unsigned lane = gp__lane_id();
    const uint4 *flags = reinterpret_cast<const uint4 *>(stage + (size_t)TILE * sizeof(T));
    int last = -1; /* the tile's last head */
    for (int c = TILE / 512 - 1; c >= 0; c--) {
        const uint4 f = flags[c * 32 + lane];
        const uint32_t w[4] = {f.x, f.y, f.z, f.w};
        int mine = -1; /* the lane's last nonzero flag byte */
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (w[q] != 0) mine = (c * 32 + (int)lane) * 16 + q * 4 + (31 - __clz(w[q])) / 8;
        last = gp__warp_max_i32(mine); /* lanes in index order: the highest is the last */
        if (last >= 0) break;
    }
    if (last < 0 && first) last = 0;
    pair total;
    total.v = gp__ssr_fold_from<Op, TILE>(reinterpret_cast<const T *>(stage), last);
    total.h = last >= 0 ? 1u : 0u;
    return total;
}

/* ---- what the two ring kernels of this file share (their roles: agent/ring.cuh) ------------- */

/* One thread sets up the ring's barriers for `stages` stages (full, taken, ready: one
 * arrival; empty: the scanning threads and the reduce warp) where the copy engine sees
 * them; then every thread waits for the stream's earlier work (it may have used this
 * status region) and for the set-up. */
static __device__ __forceinline__ void gp__ssr_start(unsigned stages, uint64_t *full, uint64_t *taken, uint64_t *ready,
                                                     uint64_t *empty)
{
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages; s++) {
            gp__mbar_init(&full[s], 1);
            gp__mbar_init(&taken[s], 1);
            gp__mbar_init(&ready[s], 1);
            gp__mbar_init(&empty[s], GP__SSR_BLOCK + 32);
        }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* the ring kernels' only target */
        gp__mbar_init_fence_cluster(); /* the barriers visible to the copy engine */
#endif
    }
    gp__chain_wait();
    __syncthreads();
}

/* A scanning thread's four consecutive 16-byte vectors at v are read and written rotated:
 * lane l starts at vector gp__ssr_rot(l) = (l / 2) % 4 and wraps. Lanes are 64 bytes apart,
 * so in order a quarter warp's 16-byte accesses would fall in 2 of the 8 bank groups (4-way
 * conflicts); rotated, in all 8. */
static __device__ __forceinline__ unsigned gp__ssr_rot(unsigned lane) { return (lane >> 1) & 3; }
/* The thread's ROWS (4) vectors from v, in order. */
template <int ROWS>
static __device__ __forceinline__ void gp__ssr_own(const uint4 *v, uint4 (&w)[ROWS], unsigned lane)
{
    static_assert(ROWS == 4, "four vectors a thread");
    const unsigned r = gp__ssr_rot(lane);
    uint4 x[4], y[4];
#pragma unroll
    for (int j = 0; j < 4; j++) x[j] = v[(j + r) & 3]; /* x[j]: vector (j + r) % 4 */
#pragma unroll
    for (int j = 0; j < 4; j++) y[j] = (r & 1) ? x[(j + 3) & 3] : x[j]; /* y[j]: vector (j + r - (r & 1)) % 4 */
#pragma unroll
    for (int j = 0; j < 4; j++) w[j] = (r & 2) ? y[(j + 2) & 3] : y[j]; /* w[j]: vector j */
}
/* The inverse: the thread's ROWS (4) vectors w, in order, into v. */
template <int ROWS>
static __device__ __forceinline__ void gp__ssr_own_put(uint4 *v, const uint4 (&w)[ROWS], unsigned lane)
{
    static_assert(ROWS == 4, "four vectors a thread");
    const unsigned r = gp__ssr_rot(lane);
    uint4 a[4], x[4];
#pragma unroll
    for (int j = 0; j < 4; j++) a[j] = (r & 1) ? w[(j + 1) & 3] : w[j]; /* a[j]: vector (j + (r & 1)) % 4 */
#pragma unroll
    for (int j = 0; j < 4; j++) x[j] = (r & 2) ? a[(j + 2) & 3] : a[j]; /* x[j]: vector (j + r) % 4 */
#pragma unroll
    for (int j = 0; j < 4; j++) v[(j + r) & 3] = x[j];
}

/* Bit q set where a scanning thread's flag byte q is nonzero, from its ITEMS flags at f (in
 * shared memory, aligned to ITEMS): read as 16-byte vectors where there are 16 or 32. Lanes
 * 16 bytes apart read those without conflicts, and 32 bytes apart (2-byte values) with
 * 2-way conflicts; as 4-byte words they would be 4-way and 8-way. */
template <int ITEMS>
static __device__ __forceinline__ uint32_t gp__ssr_own_flags(const uint8_t *f)
{
    if constexpr (ITEMS < 16) {
        return gp__flag_bits<ITEMS>(f);
    } else {
        uint32_t w[ITEMS / 4], bits = 0;
#pragma unroll
        for (int h = 0; h < ITEMS / 16; h++) {
            const uint4 v = reinterpret_cast<const uint4 *>(f)[h];
            memcpy(w + 4 * h, &v, sizeof v);
        }
#pragma unroll
        for (int h = 0; h < ITEMS / 4; h++) bits |= gp__byte_flags(w[h]) << (4 * h);
        return bits;
    }
}

/* The scanning warps' scan of a tile's pairs, ITEMS consecutive ones a thread: each thread's
 * folded in order, one warp scan of those (lane_prefix[0]: the warp's pairs before the
 * thread's; gp__scan_warp_rows with one row), the warps' totals through `s_warp` (one named
 * barrier, 1), and the return: the pairs of the warps before this one, in warp order. With
 * a thread's elements in four rows 32 vectors apart (the scan's layout), the warp scanned
 * four rows of pairs: with this layout reduce-by-key runs 1.03-1.23x and the segmented scan
 * 1.04x (f32) and 1.19x (f64) faster (H200, 2^28; docs/segmented.md). */
template <class POp, int ITEMS>
static __device__ __forceinline__ typename POp::type gp__ssr_scan(const typename POp::type (&x)[ITEMS],
                                                                 typename POp::type (&lane_prefix)[1],
                                                                 typename POp::type *s_warp, unsigned warp,
                                                                 unsigned lane)
{
    typedef typename POp::type pair;
    const pair carry = gp__scan_warp_rows<POp, 1, ITEMS>(x, lane_prefix);
    if (lane == 0) s_warp[warp] = carry;
    asm volatile("bar.sync 1, %0;" ::"r"(GP__SSR_BLOCK) : "memory"); /* scanning warps only */
    pair base = POp::identity();
    if (warp > 0) {
        base = s_warp[0];
        for (unsigned w = 1; w < warp; w++) base = POp::apply(base, s_warp[w]);
    }
    return base;
}

/* What the role warps of a ring kernel share: the stages (`stages` of `stage_bytes` at `ring`),
 * their barriers, the tile hand-off and the status region with this call's epoch. */
struct gp__ssr_roles_args {
    unsigned char *ring;
    unsigned stages;
    size_t stage_bytes;
    uint64_t *full, *taken, *ready, *empty, *counted;
    unsigned long long *s_tile, *s_ahead_tile, *counter;
    uint64_t *status;
    uint32_t epoch;
};
/* The role warps of a ring kernel (the segmented scan's, reduce-by-key's), after
 * gp__ssr_start: the producer (warp GP__SSR_WARPS: its lane 0 takes the tiles of `tile`
 * elements, `copy(stage, t, bar)` issuing a whole tile's bulk copies), the look-ahead's two
 * parts (GP__SSR_WARPS + 1 and + 3: each tile's prefix into s_prefix, status words folded
 * with AOp) and the reduce warp (GP__SSR_WARPS + 2: each whole tile's `total(stage, t)`
 * published as a Total, then `counted`). True in those warps, which are then done; false in
 * the scanning warps. */
template <class AOp, class Total, class Copy, class TotalOf>
static __device__ __forceinline__ bool gp__ssr_roles(const gp__ssr_roles_args &a, unsigned warp, unsigned lane,
                                                     size_t tiles, size_t tile, size_t n,
                                                     typename AOp::type *s_prefix, typename AOp::type *s_xchg,
                                                     const Copy &copy, const TotalOf &total)
{
    if (warp == GP__SSR_WARPS) { /* producer */
        if (lane == 0)
            gp__ring_produce(a.stages, GP__SSR_RAMP, tiles, tile, n, a.ring, a.stage_bytes, a.full, a.taken, a.empty,
                             a.s_tile, a.counter, copy);
        return true;
    }
    if (warp == GP__SSR_WARPS + 1 || warp == GP__SSR_WARPS + 3) { /* look-ahead, parts 0 and 1 */
        gp__ring_look_ahead<AOp>(warp == GP__SSR_WARPS + 3, a.stages, tiles, a.status, a.epoch, a.taken, a.ready,
                                 a.s_tile, a.s_ahead_tile, s_prefix, s_xchg);
        return true;
    }
    if (warp == GP__SSR_WARPS + 2) { /* reduce */
        gp__ring_reduce<Total>(a.stages, tiles, tile, n, a.ring, a.stage_bytes, a.full, a.empty, a.s_tile, a.status,
                               a.epoch, total, a.counted);
        return true;
    }
    return false;
}

/* Threads: GP__SSR_BLOCK scanning threads, then the producer, look-ahead part 0, reduce and
 * look-ahead part 1 warps. Named barriers: 1 the scanning warps, 2 the look-ahead warps.
 * Dynamic shared memory: `stages` stages of gp__ssr_stage bytes. sm_90+. */
template <class Op>
__global__ void __launch_bounds__(GP__SSR_THREADS, GP__MIN_BLOCKS(GP__SSR_THREADS, 2))
    gp__ssr_kernel(typename Op::type *out, const typename Op::type *in, const uint8_t *heads, size_t n, size_t tiles,
                   int inclusive, char *scratch, uint32_t epoch, unsigned stages)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gp__seg_op<Op> POp;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    static_assert(gp__ssr_takes<T>(), "the ring's elements: 16-byte vectors, at most 32 a thread");
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SSR_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    constexpr unsigned VALUES = (unsigned)(TILE * sizeof(T)), STAGE = VALUES + TILE;
    extern __shared__ __align__(128) unsigned char gp__ssr_ring[];
    /* counted: the reduce warp has read the stage (the scanning warps may write in it) */
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], empty[SMAX], counted[SMAX];
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2];
    /* s_xchg: for the larger of the two knobs, so that the array does not depend on the
     * pair's size (gp__status_codec<gp__ssr_ahead_op<Op>>::NB is one of them) */
    __shared__ pair s_prefix[SMAX], s_warp[SMAX][GP__SSR_WARPS],
        s_xchg[2 * (GP__SSR_NB > GP__SSR_NB_WIDE ? GP__SSR_NB : GP__SSR_NB_WIDE)];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned warp = gp__warp_id(), lane = gp__lane_id();

    if (threadIdx.x == 0)
        for (unsigned s = 0; s < stages; s++) gp__mbar_init(&counted[s], 32); /* made visible in gp__ssr_start */
    gp__ssr_start(stages, full, taken, ready, empty);

    const gp__ssr_roles_args roles = {gp__ssr_ring, stages, STAGE, full, taken, ready, empty, counted,
                                      s_tile, s_ahead_tile, counter, status, epoch};
    if (gp__ssr_roles<gp__ssr_ahead_op<Op>, pair>(
            roles, warp, lane, tiles, TILE, n, s_prefix, s_xchg,
            [&](unsigned char *stage, unsigned long long t, uint64_t *bar) {
                gp__mbar_arrive_expect(bar, STAGE);
                gp__bulk_copy(stage, reinterpret_cast<const unsigned char *>(in + t * TILE), VALUES, bar);
                gp__bulk_copy(stage + VALUES, heads + t * TILE, TILE, bar);
            },
            [&](const unsigned char *stage, unsigned long long t) {
                return gp__ssr_tile_total<Op, TILE>(stage, t == 0);
            }))
        return;

    /* scanning warps: thread (warp, lane) holds the tile's elements [local0, local0 + ITEMS),
     * ROWS consecutive 16-byte vectors (gp__ssr_own), so a warp's pairs need one scan */
    const size_t local0 = ((size_t)warp * 32 + lane) * ITEMS;
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        const size_t start = t * TILE;
        const bool whole = start + TILE <= n;
        pair x[ITEMS];
        uint32_t hb = 0; /* bit q: element q is a head */
        if (whole) {
            const unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
            uint4 w[ROWS];
            gp__ssr_own<ROWS>(reinterpret_cast<const uint4 *>(stage) + local0 / VEC, w, lane);
            T e[ITEMS];
            memcpy(e, w, sizeof w);
#pragma unroll
            for (int q = 0; q < ITEMS; q++) x[q].v = e[q];
            hb = gp__ssr_own_flags<ITEMS>(stage + VALUES + local0);
        } else {
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const size_t e = start + local0 + q;
                x[q].v = e < n ? gp__load_elem(in + e) : Op::identity();
                hb |= (e < n && heads[e] != 0 ? 1u : 0u) << q;
            }
        }
        if (t == 0 && warp == 0 && lane == 0) hb |= 1u; /* element 0 is a head */
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q].h = hb >> q & 1u;
        __syncwarp();
        pair lane_prefix[1];
        pair base = gp__ssr_scan<POp, ITEMS>(x, lane_prefix, s_warp[s], warp, lane);
        /* A warp after the tile's first head needs no prefix: apply(prefix, base) is base
         * when base.h is set, bit for bit. Only warp 0 and the warps before the first head
         * wait for it; the others write out meanwhile. Warp 0 waits at every tile, so no
         * warp's wait on ready[s] can come a phase early: a warp's next wait on ready[s], at
         * stage s's next tile, comes after that tile's scan barrier, which warp 0 reaches
         * only after its own wait on this phase. */
        if (warp == 0 || !base.h) {
            gp__mbar_wait(&ready[s], parity);
            if (t > 0) base = POp::apply(s_prefix[s], base);
        }
        gp__scan_finish<POp, 1, ITEMS>(x, lane_prefix, base, inclusive);
        /* exclusive: a head starts its segment at the identity, whatever came before */
        T y[ITEMS];
#pragma unroll
        for (int q = 0; q < ITEMS; q++) y[q] = !inclusive && (hb >> q & 1u) ? Op::identity() : x[q].v;
        if (whole) {
            /* out through the warp's own part of the stage (once the reduce warp has read it):
             * put there as the thread holds them, then one bulk copy of the warp's 2 KB to global
             * memory, issued by lane 0, so the scanning warps issue no stores. Stored from the
             * registers, a lane's 64 bytes, the scan ran 1.57x slower (H200, 2^28 f32); read back a
             * vector a lane and stored 512 contiguous bytes at a time, the exclusive scan with
             * heads 1/8, 1/1024 and 1/65536 took 595.3 / 601.3 / 672.4 us at 2^28 where the bulk
             * copy takes 591.5 / 595.5 / 639.5, at 2^24 45.4 / 46.2 / 50.0 against 44.9 / 45.8 /
             * 48.8 (H200, bench/select/probes/two_trees.cu, alternated three times). */
            unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
            uint4 w[ROWS];
            memcpy(w, y, sizeof w);
            gp__mbar_wait(&counted[s], parity);
            gp__ssr_own_put<ROWS>(reinterpret_cast<uint4 *>(stage) + local0 / VEC, w, lane);
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* the puts, to the copy engine */
            __syncwarp();
            if (lane == 0) { /* the stage is the ring's again once the copy has read it */
                gp__bulk_store(reinterpret_cast<uint4 *>(out + start) + warp * 32 * ROWS,
                               reinterpret_cast<const uint4 *>(stage) + warp * 32 * ROWS, 32 * ROWS * 16);
                gp__bulk_store_wait<false>();
            }
        } else {
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const size_t e = start + local0 + q;
                if (e < n) gp__store_elem(out + e, y[q]);
            }
        }
        /* every thread, after its reads (and writes) of the stage and its reads of the tile
         * index, warp totals and prefix: the next bulk copy into the stage comes after them */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        gp__mbar_arrive(&empty[s]);
    }
    if (lane == 0) gp__bulk_store_wait<true>(); /* the last tile's writes done before the thread ends */
#endif
}

/* The ring launch of a segmented scan (arguments checked, n > 0, gp__ssr_ok). */
template <class Op>
static cudaError_t gp__ssr_run(typename Op::type *out, const typename Op::type *in, const uint8_t *heads, size_t n,
                               int inclusive, const gp__device &dev, cudaStream_t s)
{
    typedef typename gp__seg_op<Op>::type pair;
    typedef typename Op::type T;
    const size_t tile = gp__ssr_tile(sizeof(T)), tiles = gp__ceil_div(n, tile), stage = gp__ssr_stage(sizeof(T));
    if (tiles > GP__GRID_MAX) return cudaErrorInvalidValue;
    /* as many stages as leave room for two blocks an SM, up to GP__SSR_STAGES */
    const size_t room = (size_t)dev.smem_block / 2 / stage;
    const unsigned stages = (unsigned)(room < GP__SSR_STAGES ? room : GP__SSR_STAGES);
    const int smem = (int)(stages * stage);
    void (*kernel)(T *, const T *, const uint8_t *, size_t, size_t, int, char *, uint32_t, unsigned) =
        gp__ssr_kernel<Op>;
    GP__TRY(gp__kernel_load<gp__ssr_kernel<Op>>(smem));
    static gp__device_cache<int> fits;
    int fit = 0;
    GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, kernel, GP__SSR_THREADS, (size_t)smem, &fit));
    const size_t most = (size_t)fit * dev.sms;
    gp__launch_shape shape = {GP__GRID, (unsigned)(tiles < most ? tiles : most), GP__SSR_THREADS, 0, 0, 0, 0, 0, 0};
    shape.smem_bytes = (size_t)smem;
    shape.scratch_bytes = shape.scratch_zeroed = gp__sscan_status_offset() + tiles * gp__status_words(sizeof(pair)) * 8;
    shape.scratch_wait = 1;
    shape.status_kept = GP__STATUS_SEGMENTED_SCAN;
    shape.chain = 1;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, kernel, out, in, heads, n, tiles, inclusive, (char *)scratch, epoch, stages);
    });
}

/* gp_{inclusive,exclusive}_segmented_scan_<name>: on the ring where it applies, else gp__sscan_kernel */
template <class Op>
static cudaError_t gp__segmented_scan(typename Op::type *d_out, const typename Op::type *d_in, const uint8_t *d_heads,
                                      size_t n, cudaStream_t s, int inclusive)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || d_heads == NULL || n > SIZE_MAX / 2 / sizeof(T)) return cudaErrorInvalidValue;
    const size_t bytes = n * sizeof(T);
    /* in place, or apart: a partial overlap would let one tile overwrite another's input */
    if (d_out != d_in && gp__ranges_overlap(d_in, bytes, d_out, bytes)) return cudaErrorInvalidValue;
    if (gp__ranges_overlap(d_heads, n, d_out, bytes)) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    if constexpr (gp__ssr_takes<T>())
        if (dev.cluster_ok && gp__ssr_ok(d_out, d_in, d_heads)) /* sm_90 code */
            return gp__ssr_run<Op>(d_out, d_in, d_heads, n, inclusive, dev, s);
    gp__sscan_job<Op> job = {d_out, d_in, d_heads, n, inclusive};
    return gp__sscan_run(job, n, dev, s);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_SCAN_RING_CUH */
