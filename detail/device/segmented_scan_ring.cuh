/* detail/device/segmented_scan_ring.cuh -- the segmented scan on the scan's grid design
 * (device/scan_kernels.cuh): a ring of shared-memory stages filled by bulk copies, a reduce
 * warp that publishes each tile's total as soon as the tile lands, look-ahead warps, and
 * scanning warps that never wait for a tile's data once its prefix is known. For values
 * that move as 16-byte vectors, with the values, the output and the head flags on 16-byte
 * boundaries, on sm_90 code; other calls, and reduce-by-key, run on gp__sscan_kernel
 * (segmented_scan.cuh).
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
#ifndef GP__RBKR_MIN_BLOCKS
/* reduce-by-key: blocks an SM the registers must allow. One (98-101 registers, no spills)
 * ran runs of 1 / 8 / 1024 at 2^28 in 3053 / 1609 / 1506 us on the H100, two (80 registers,
 * 172-196 bytes spilled) in 3333 / 1635 / 1515 us, one run. */
#define GP__RBKR_MIN_BLOCKS 1
#endif
#ifndef GP__SSR_RAMP
#define GP__SSR_RAMP 3   /* stages first filled one at a time (agent/ring.cuh) */
#endif

#ifdef __CUDACC__ /* (gpuprims.cuh is also C: the host helpers below are CUDA-only too) */
#include "scan_kernels.cuh"
#include "../util/mbarrier.cuh"
#include "../agent/ring.cuh"

/* Elements a tile: 256 threads x 64 bytes of values, as the scan. */
static inline GP__HD size_t gp__ssr_tile(size_t elem) { return (size_t)GP__SSR_BLOCK * gp__scan_vec(elem) * gp__scan_rows(elem); }
/* Bytes of a stage: the tile's values, then its head flags. */
static inline GP__HD size_t gp__ssr_stage(size_t elem) { return gp__ssr_tile(elem) * (elem + 1); }

/* Whether a call runs on the ring: values that move as 16-byte vectors, on 16-byte
 * boundaries, and head flags there too. */
template <class T>
static inline bool gp__ssr_ok(const void *out, const void *in, const uint8_t *heads)
{
    return gp__scan_vec(sizeof(T)) * sizeof(T) == 16 && (uintptr_t)out % 16 == 0 && (uintptr_t)in % 16 == 0 &&
           (uintptr_t)heads % 16 == 0;
}

/* A whole tile's total by one warp, in index order, from its stage: lane l folds the l-th
 * 32nd of the tile (R vectors), starting at vector l % R and wrapping so that the lanes'
 * 16-byte reads fall in different banks; the vectors before the wrap point are folded
 * apart and put first (gp__scan_tile_total's order). `first`: tile 0, whose element 0 is
 * a head whatever its flag. */
template <class Op, int TILE>
static __device__ __forceinline__ typename gp__seg_op<Op>::type gp__ssr_tile_total(const unsigned char *stage, bool first)
{
    typedef gp__seg_op<Op> POp;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), R = TILE / VEC / 32 };
    const unsigned lane = gp__lane_id(), start = lane % R;
    const uint8_t *heads = stage + (size_t)TILE * sizeof(T);
    pair head = POp::identity(), tail = POp::identity();
#pragma unroll 4
    for (unsigned r = 0; r < R; r++) {
        const unsigned k = (r + start) % R, u = lane * R + k; /* the vector's index in the tile */
        const uint4 w = reinterpret_cast<const uint4 *>(stage)[u];
        T e[VEC];
        memcpy(e, &w, sizeof w);
        const uint32_t hb = gp__flag_bits<VEC>(heads + (size_t)u * VEC) | (first && u == 0 ? 1u : 0u);
        pair f;
        f.v = e[0];
        f.h = hb & 1u;
#pragma unroll
        for (int q = 1; q < VEC; q++) {
            pair x;
            x.v = e[q];
            x.h = hb >> q & 1u;
            f = POp::apply(f, x);
        }
        if (k >= start) tail = POp::apply(tail, f);
        else head = POp::apply(head, f);
    }
    __syncwarp();
    return gp__warp_reduce<POp>(POp::apply(head, tail));
}

/* ---- the roles every ring kernel of this file runs ---------------------------------------- */

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
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    gp__chain_wait();
    __syncthreads();
}

/* The scanning warps' scan of a tile's pairs by rows (gp__scan_warp_rows: lane_prefix),
 * their totals through `s_warp` (one named barrier, 1), and the return: the pairs of the
 * warps before this one, in warp order. */
template <class POp, int ROWS, int VEC>
static __device__ __forceinline__ typename POp::type gp__ssr_scan_rows(const typename POp::type (&x)[ROWS * VEC],
                                                                      typename POp::type (&lane_prefix)[ROWS],
                                                                      typename POp::type *s_warp, unsigned warp,
                                                                      unsigned lane)
{
    typedef typename POp::type pair;
    const pair carry = gp__scan_warp_rows<POp, ROWS, VEC>(x, lane_prefix);
    if (lane == 0) s_warp[warp] = carry;
    asm volatile("bar.sync 1, %0;" ::"r"(GP__SSR_BLOCK) : "memory"); /* scanning warps only */
    pair base = POp::identity();
    if (warp > 0) {
        base = s_warp[0];
        for (unsigned w = 1; w < warp; w++) base = POp::apply(base, s_warp[w]);
    }
    return base;
}

/* The producer thread: takes tiles into stages (agent/ring.cuh). A whole tile (ending at
 * or below n) arrives by the bulk copies `copy(stage, t, &full)` issues, with their bytes
 * expected; any other arrives at once (read from global memory, or past the end). Then the
 * last block back resets the counters for the next call on the region (status memory). */
template <class Copy>
static __device__ __forceinline__ void gp__ssr_produce(unsigned stages, size_t tiles, size_t tile, size_t n,
                                                       unsigned char *ring, size_t stage_bytes, uint64_t *full,
                                                       uint64_t *taken, uint64_t *empty, unsigned long long *s_tile,
                                                       unsigned long long *counter, const Copy &copy)
{
    const unsigned ramp = GP__SSR_RAMP < stages ? GP__SSR_RAMP : stages - 1;
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
static __device__ __forceinline__ void gp__ssr_look_ahead(unsigned part, unsigned stages, size_t tiles,
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
 * tile lands (the partial last tile: no tile after it needs its total). */
template <class Pair, class Total>
static __device__ __forceinline__ void gp__ssr_reduce(unsigned stages, size_t tiles, size_t tile, size_t n,
                                                      const unsigned char *ring, size_t stage_bytes, uint64_t *full,
                                                      uint64_t *empty, const unsigned long long *s_tile,
                                                      uint64_t *status, uint32_t epoch, const Total &total)
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
        gp__mbar_arrive(&empty[s]); /* every lane, after its reads of the stage */
    }
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
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SSR_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    constexpr unsigned VALUES = (unsigned)(TILE * sizeof(T)), STAGE = VALUES + TILE;
    extern __shared__ __align__(128) unsigned char gp__ssr_ring[];
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], empty[SMAX];
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2];
    __shared__ pair s_prefix[SMAX], s_warp[SMAX][GP__SSR_WARPS], s_xchg[2 * gp__scan_nb(sizeof(pair))];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    gp__ssr_start(stages, full, taken, ready, empty);

    if (warp == GP__SSR_WARPS) { /* producer */
        if (lane == 0)
            gp__ssr_produce(stages, tiles, TILE, n, gp__ssr_ring, STAGE, full, taken, empty, s_tile, counter,
                            [&](unsigned char *stage, unsigned long long t, uint64_t *bar) {
                                gp__mbar_arrive_expect(bar, STAGE);
                                gp__bulk_copy(stage, reinterpret_cast<const unsigned char *>(in + t * TILE), VALUES, bar);
                                gp__bulk_copy(stage + VALUES, heads + t * TILE, TILE, bar);
                            });
        return;
    }
    if (warp == GP__SSR_WARPS + 1 || warp == GP__SSR_WARPS + 3) { /* look-ahead, parts 0 and 1 */
        gp__ssr_look_ahead<POp>(warp == GP__SSR_WARPS + 3, stages, tiles, status, epoch, taken, ready, s_tile,
                                s_ahead_tile, s_prefix, s_xchg);
        return;
    }
    if (warp == GP__SSR_WARPS + 2) { /* reduce */
        gp__ssr_reduce<pair>(stages, tiles, TILE, n, gp__ssr_ring, STAGE, full, empty, s_tile, status, epoch,
                             [&](const unsigned char *stage, unsigned long long t) {
                                 return gp__ssr_tile_total<Op, TILE>(stage, t == 0);
                             });
        return;
    }

    /* scanning warps: vector (j, lane) of warp w is the tile's vector w * 32 * ROWS + j * 32 + lane */
    const size_t local0 = (size_t)warp * 32 * ITEMS + (size_t)lane * VEC; /* + j * 32 * VEC + k */
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        const size_t start = t * TILE;
        const bool whole = start + TILE <= n;
        pair x[ITEMS];
        uint32_t hb = 0; /* bit j * VEC + k: element (j, k) is a head */
        if (whole) { /* warp-striped out of the stage: conflict-free 16-byte reads */
            const unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
            const uint4 *src = reinterpret_cast<const uint4 *>(stage) + warp * 32 * ROWS + lane;
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                const uint4 w = src[j * 32];
                T e[VEC];
                memcpy(e, &w, sizeof w);
                hb |= gp__flag_bits<VEC>(stage + VALUES + local0 + j * 32 * VEC) << (j * VEC);
#pragma unroll
                for (int k = 0; k < VEC; k++) x[j * VEC + k].v = e[k];
            }
        } else {
#pragma unroll
            for (int j = 0; j < ROWS; j++)
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const size_t e = start + local0 + j * 32 * VEC + k;
                    x[j * VEC + k].v = e < n ? gp__load_elem(in + e) : Op::identity();
                    hb |= (e < n && heads[e] != 0 ? 1u : 0u) << (j * VEC + k);
                }
        }
        if (t == 0 && warp == 0 && lane == 0) hb |= 1u; /* element 0 is a head */
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q].h = hb >> q & 1u;
        __syncwarp();
        pair lane_prefix[ROWS];
        pair base = gp__ssr_scan_rows<POp, ROWS, VEC>(x, lane_prefix, s_warp[s], warp, lane);
        gp__mbar_wait(&ready[s], parity);
        if (t > 0) base = POp::apply(s_prefix[s], base);
        /* every thread, after its reads of the stage, tile index, warp totals, prefix */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        gp__mbar_arrive(&empty[s]);
        gp__scan_finish<POp, ROWS, VEC>(x, lane_prefix, base, inclusive);
        /* exclusive: a head starts its segment at the identity, whatever came before */
        T y[ITEMS];
#pragma unroll
        for (int q = 0; q < ITEMS; q++) y[q] = !inclusive && (hb >> q & 1u) ? Op::identity() : x[q].v;
        if (whole) {
            uint4 *dst = reinterpret_cast<uint4 *>(out + start + local0);
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                uint4 w;
                memcpy(&w, y + j * VEC, sizeof w);
                dst[j * 32] = w;
            }
        } else {
#pragma unroll
            for (int j = 0; j < ROWS; j++)
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const size_t e = start + local0 + j * 32 * VEC + k;
                    if (e < n) gp__store_elem(out + e, y[j * VEC + k]);
                }
        }
    }
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
    void (*kernel)(T *, const T *, const uint8_t *, size_t, size_t, int, char *, uint32_t, unsigned) = gp__ssr_kernel<Op>;
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

/* ---- reduce-by-key ------------------------------------------------------------------------ */

/* Reduce-by-key inside a tile: the heads so far as a 32-bit count (a tile has at most
 * 4096), widened to the 64-bit pair of gp__rbk_op against the tile's prefix. */
template <class T>
struct gp__rbk_pair32 {
    uint32_t h;
    T v;
};
template <class Op>
using gp__rbk_op32 = gp__head_op<Op, gp__rbk_pair32<typename Op::type>, GP__HEADS_COUNT>;

/* The 64-bit pair of a tile prefix `pre` followed by the in-tile pair `x`. */
template <class Op>
static __device__ __forceinline__ gp__rbk_pair<typename Op::type> gp__rbkr_widen(const gp__rbk_pair<typename Op::type> &pre,
                                                                               const gp__rbk_pair32<typename Op::type> &x)
{
    gp__rbk_pair<typename Op::type> r;
    r.h = pre.h + x.h;
    r.v = x.h ? x.v : Op::apply(pre.v, x.v);
    return r;
}

/* A whole tile's total by one warp, in index order, from its stage (keys, then values):
 * gp__ssr_tile_total's order; a key is a head where it differs from the one before (the
 * tile's first: from global memory; tile 0: a head). */
template <class Op, class K, class EqS, int TILE>
static __device__ __forceinline__ gp__rbk_pair<typename Op::type> gp__rbkr_tile_total(const unsigned char *stage,
                                                                                     const K *keys, size_t t)
{
    typedef gp__rbk_op32<Op> POp;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), R = TILE / VEC / 32 };
    const unsigned lane = gp__lane_id(), start = lane % R;
    const K *ks = reinterpret_cast<const K *>(stage);
    const uint4 *vs = reinterpret_cast<const uint4 *>(stage + (size_t)TILE * sizeof(K));
    const K before = t > 0 ? gp__load_elem(keys + t * TILE - 1) : K(); /* tile 0: unused */
    pair head = POp::identity(), tail = POp::identity();
#pragma unroll 4
    for (unsigned r = 0; r < R; r++) {
        const unsigned k = (r + start) % R, u = lane * R + k; /* the vector's index in the tile */
        const uint4 w = vs[u];
        T e[VEC];
        memcpy(e, &w, sizeof w);
        K prev = u > 0 ? ks[u * VEC - 1] : before;
        pair f = POp::identity();
#pragma unroll
        for (int q = 0; q < VEC; q++) {
            const K key = ks[u * VEC + q];
            pair x;
            x.v = e[q];
            x.h = (t == 0 && u == 0 && q == 0) || !EqS::eq(prev, key) ? 1u : 0u;
            f = q == 0 ? x : POp::apply(f, x);
            prev = key;
        }
        if (k >= start) tail = POp::apply(tail, f);
        else head = POp::apply(head, f);
    }
    __syncwarp();
    const pair tot = gp__warp_reduce<POp>(POp::apply(head, tail));
    gp__rbk_pair<T> r;
    r.h = tot.h;
    r.v = tot.v;
    return r;
}

/* Reduce-by-key on the ring, for keys and values of one size that moves as 16-byte
 * vectors, both on 16-byte boundaries (the outputs: any). The scanning warps find each
 * element's head and tail bits from its neighbours (in the stage, or for the tile's edges
 * in global memory), scan (heads, value) by rows, and write a run's key at its head and
 * its value at its tail, at the run's number less one. */
template <class Op, class K, class EqS>
__global__ void __launch_bounds__(GP__SSR_THREADS, GP__MIN_BLOCKS(GP__SSR_THREADS, GP__RBKR_MIN_BLOCKS))
    gp__rbkr_kernel(K *keys_out, typename Op::type *vals_out, uint64_t *runs, const K *keys,
                    const typename Op::type *vals, size_t n, size_t tiles, char *scratch, uint32_t epoch, unsigned stages)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gp__rbk_op<Op> WOp; /* across tiles: 64-bit counts */
    typedef gp__rbk_op32<Op> POp; /* inside a tile */
    typedef typename WOp::type wide;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    static_assert(sizeof(K) == sizeof(T), "keys and values of one size");
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SSR_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    constexpr unsigned BYTES = (unsigned)(TILE * sizeof(T)), STAGE = 2 * BYTES; /* keys, then values */
    extern __shared__ __align__(128) unsigned char gp__ssr_ring[];
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], empty[SMAX];
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2];
    __shared__ wide s_prefix[SMAX], s_xchg[2 * gp__scan_nb(sizeof(wide))];
    __shared__ pair s_warp[SMAX][GP__SSR_WARPS];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    gp__ssr_start(stages, full, taken, ready, empty);

    if (warp == GP__SSR_WARPS) { /* producer */
        if (lane == 0)
            gp__ssr_produce(stages, tiles, TILE, n, gp__ssr_ring, STAGE, full, taken, empty, s_tile, counter,
                            [&](unsigned char *stage, unsigned long long t, uint64_t *bar) {
                                gp__mbar_arrive_expect(bar, STAGE);
                                gp__bulk_copy(stage, reinterpret_cast<const unsigned char *>(keys + t * TILE), BYTES, bar);
                                gp__bulk_copy(stage + BYTES, reinterpret_cast<const unsigned char *>(vals + t * TILE),
                                              BYTES, bar);
                            });
        return;
    }
    if (warp == GP__SSR_WARPS + 1 || warp == GP__SSR_WARPS + 3) { /* look-ahead, parts 0 and 1 */
        gp__ssr_look_ahead<WOp>(warp == GP__SSR_WARPS + 3, stages, tiles, status, epoch, taken, ready, s_tile,
                                s_ahead_tile, s_prefix, s_xchg);
        return;
    }
    if (warp == GP__SSR_WARPS + 2) { /* reduce */
        gp__ssr_reduce<wide>(stages, tiles, TILE, n, gp__ssr_ring, STAGE, full, empty, s_tile, status, epoch,
                             [&](const unsigned char *stage, unsigned long long t) {
                                 return gp__rbkr_tile_total<Op, K, EqS, TILE>(stage, keys, t);
                             });
        return;
    }

    /* scanning warps: vector (j, lane) of warp w is the tile's vector w * 32 * ROWS + j * 32 + lane */
    const unsigned local0 = warp * 32 * ITEMS + lane * VEC; /* + j * 32 * VEC + k */
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        const size_t start = t * TILE;
        const bool whole = start + TILE <= n;
        pair x[ITEMS];
        uint32_t hb = 0, tb = 0; /* bit j * VEC + k: element (j, k) starts, ends a run */
        const unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
        const K *ks = reinterpret_cast<const K *>(stage);
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const unsigned l = local0 + j * 32 * VEC; /* the vector's first place in the tile */
            const size_t e0 = start + l;
            T v[VEC];
            K key[VEC]; /* this row's keys: not kept (registers); the emit reads the heads' again */
            if (whole) { /* warp-striped out of the stage: conflict-free 16-byte reads */
                const uint4 wk = reinterpret_cast<const uint4 *>(ks)[l / VEC];
                const uint4 wv = reinterpret_cast<const uint4 *>(stage + BYTES)[l / VEC];
                memcpy(key, &wk, sizeof wk);
                memcpy(v, &wv, sizeof wv);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    key[k] = e0 + k < n ? gp__load_elem(keys + e0 + k) : K();
                    v[k] = e0 + k < n ? gp__load_elem(vals + e0 + k) : Op::identity();
                }
            }
            /* the neighbours: in the stage inside a whole tile, else from global memory */
            K prev = K(), next = K();
            if (e0 > 0 && e0 - 1 < n) prev = whole && l > 0 ? ks[l - 1] : gp__load_elem(keys + e0 - 1);
            if (e0 + VEC < n) next = whole && l + VEC < TILE ? ks[l + VEC] : gp__load_elem(keys + e0 + VEC);
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t e = e0 + k;
                const K &before = k > 0 ? key[k - 1] : prev;
                const K &after = k < VEC - 1 ? key[k + 1] : next;
                const bool in = e < n;
                hb |= (in && (e == 0 || !EqS::eq(before, key[k])) ? 1u : 0u) << (j * VEC + k);
                tb |= (in && (e + 1 == n || !EqS::eq(key[k], after)) ? 1u : 0u) << (j * VEC + k);
                x[j * VEC + k].v = v[k];
            }
        }
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q].h = hb >> q & 1u;
        __syncwarp();
        pair lane_prefix[ROWS];
        pair base = gp__ssr_scan_rows<POp, ROWS, VEC>(x, lane_prefix, s_warp[s], warp, lane);
        gp__mbar_wait(&ready[s], parity);
        const wide pre = t > 0 ? s_prefix[s] : WOp::identity();
        gp__scan_finish<POp, ROWS, VEC>(x, lane_prefix, base, 1);
#pragma unroll
        for (int j = 0; j < ROWS; j++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const int q = j * VEC + k;
                if (!((hb | tb) >> q & 1u)) continue;
                const wide after = gp__rbkr_widen<Op>(pre, x[q]); /* after.h: the run's number */
                const unsigned l = local0 + j * 32 * VEC + k;
                if (hb >> q & 1u) gp__store_elem(keys_out + (after.h - 1), whole ? ks[l] : gp__load_elem(keys + start + l));
                if (tb >> q & 1u) {
                    gp__store_elem(vals_out + (after.h - 1), after.v);
                    if (start + l + 1 == n) *runs = after.h;
                }
            }
        /* every thread, after its reads of the stage, tile index, warp totals, prefix */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        gp__mbar_arrive(&empty[s]);
    }
#endif
}

/* The ring launch of a reduce-by-key (arguments checked, n > 0, gp__rbkr_ok). */
template <class Op, class K, class EqS>
static cudaError_t gp__rbkr_run(K *keys_out, typename Op::type *vals_out, uint64_t *runs, const K *keys,
                                const typename Op::type *vals, size_t n, const gp__device &dev, cudaStream_t s)
{
    typedef typename gp__rbk_op<Op>::type wide;
    typedef typename Op::type T;
    const size_t tile = gp__ssr_tile(sizeof(T)), tiles = gp__ceil_div(n, tile), stage = 2 * tile * sizeof(T);
    if (tiles > GP__GRID_MAX) return cudaErrorInvalidValue;
    const size_t room = (size_t)dev.smem_block / GP__RBKR_MIN_BLOCKS / stage;
    const unsigned stages = (unsigned)(room < GP__SSR_STAGES ? room : GP__SSR_STAGES);
    const int smem = (int)(stages * stage);
    void (*kernel)(K *, T *, uint64_t *, const K *, const T *, size_t, size_t, char *, uint32_t, unsigned) =
        gp__rbkr_kernel<Op, K, EqS>;
    GP__TRY(gp__kernel_load<gp__rbkr_kernel<Op, K, EqS>>(smem));
    static gp__device_cache<int> fits;
    int fit = 0;
    GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, kernel, GP__SSR_THREADS, (size_t)smem, &fit));
    const size_t most = (size_t)fit * dev.sms;
    gp__launch_shape shape = {GP__GRID, (unsigned)(tiles < most ? tiles : most), GP__SSR_THREADS, 0, 0, 0, 0, 0, 0};
    shape.smem_bytes = (size_t)smem;
    shape.scratch_bytes = shape.scratch_zeroed = gp__sscan_status_offset() + tiles * gp__status_words(sizeof(wide)) * 8;
    shape.scratch_wait = 1;
    shape.status_kept = GP__STATUS_SEGMENTED_SCAN;
    shape.chain = 1;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, kernel, keys_out, vals_out, runs, keys, vals, n, tiles, (char *)scratch, epoch,
                                  stages);
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
    if constexpr (gp__scan_vec(sizeof(T)) * sizeof(T) == 16) {
        if (gp__ssr_ok<T>(d_out, d_in, d_heads)) {
            const gp__stream_device on(s);
            GP__TRY(on.err);
            gp__device dev;
            GP__TRY(gp__device_query(&dev, on.dev));
            if (dev.cluster_ok) return gp__ssr_run<Op>(d_out, d_in, d_heads, n, inclusive, dev, s); /* sm_90 code */
        }
    }
    gp__sscan_job<Op> job = {d_out, d_in, d_heads, n, inclusive};
    return gp__sscan_run(job, n, s);
}

/* gp_reduce_by_key_<name>: on the ring for keys and values of one size on 16-byte boundaries, else
 * gp__sscan_kernel */
template <class Op, class K, class EqS>
static cudaError_t gp__reduce_by_key(K *d_keys_out, typename Op::type *d_values_out, uint64_t *d_runs, const K *d_keys,
                                     const typename Op::type *d_values, size_t n, cudaStream_t s)
{
    typedef typename Op::type T;
    if (d_runs == NULL) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(d_runs, 0, sizeof(uint64_t), s);
    if (d_keys_out == NULL || d_values_out == NULL || d_keys == NULL || d_values == NULL ||
        n > SIZE_MAX / 2 / (sizeof(T) > sizeof(K) ? sizeof(T) : sizeof(K)))
        return cudaErrorInvalidValue;
    /* the outputs may not overlap the inputs (later tiles read them) or each other */
    const size_t kb = n * sizeof(K), vb = n * sizeof(T);
    if (gp__ranges_overlap(d_keys_out, kb, d_keys, kb) || gp__ranges_overlap(d_keys_out, kb, d_values, vb) ||
        gp__ranges_overlap(d_values_out, vb, d_keys, kb) || gp__ranges_overlap(d_values_out, vb, d_values, vb) ||
        gp__ranges_overlap(d_keys_out, kb, d_values_out, vb) || gp__ranges_overlap(d_runs, 8, d_keys_out, kb) ||
        gp__ranges_overlap(d_runs, 8, d_values_out, vb) || gp__ranges_overlap(d_runs, 8, d_keys, kb) ||
        gp__ranges_overlap(d_runs, 8, d_values, vb))
        return cudaErrorInvalidValue;
    if constexpr (sizeof(K) == sizeof(T) && gp__scan_vec(sizeof(T)) * sizeof(T) == 16) {
        if ((uintptr_t)d_keys % 16 == 0 && (uintptr_t)d_values % 16 == 0) {
            const gp__stream_device on(s);
            GP__TRY(on.err);
            gp__device dev;
            GP__TRY(gp__device_query(&dev, on.dev));
            if (dev.cluster_ok) /* sm_90 code */
                return gp__rbkr_run<Op, K, EqS>(d_keys_out, d_values_out, d_runs, d_keys, d_values, n, dev, s);
        }
    }
    gp__rbk_job<Op, K, EqS> job = {d_keys_out, d_values_out, d_runs, d_keys, d_values, n};
    return gp__sscan_run(job, n, s);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_SCAN_RING_CUH */
