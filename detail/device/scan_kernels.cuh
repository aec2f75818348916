/* detail/device/scan_kernels.cuh -- the device-wide scan's kernels: register tiles (a
 * thread's share of a tile, moved as 16-byte vectors and scanned by rows), the ONE_BLOCK /
 * CLUSTER kernel and the GRID mode's persistent look-ahead kernel with its warp roles (see
 * device/scan.cuh). Level 4 (device code): needs device/scan_plan.cuh, agent/look_ahead.cuh,
 * agent/ring.cuh, agent/single_pass.cuh, block/block_scan.cuh, warp/warp.cuh, util/mbarrier.cuh,
 * util/launch.cuh (gp__chain_wait) and util/ops.cuh. */
#ifndef GPUPRIMS_DETAIL_SCAN_KERNELS_CUH
#define GPUPRIMS_DETAIL_SCAN_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../util/mbarrier.cuh"
#include "../warp/warp.cuh"
#include "../block/block_scan.cuh"
#include "../agent/single_pass.cuh"
#include "../agent/look_ahead.cuh"
#include "../agent/ring.cuh"
#include "scan_plan.cuh"

/* ---- register tiles ------------------------------------------------------------------------ */

/* Moves one thread's ROWS vectors of VEC elements between registers x (row j at
 * x[j*VEC]) and memory: row j starts at virtual element v0 + j * 32 * VEC (= real index +
 * pad), so a warp's row is 32 consecutive vectors: one load or store instruction covers
 * 512 contiguous bytes. As 16-byte vectors when `vec` (the whole tile is in range and the
 * pointer allows it), else element by element with bounds (masked elements load as the
 * identity and are never stored). */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_load(typename Op::type (&x)[ROWS * VEC], const typename Op::type *in,
                                                    size_t v0, const gp__scan_plan &p, bool vec)
{
    typedef typename Op::type T;
    if constexpr (VEC * sizeof(T) == 16) {
        if (vec) {
            const uint4 *src = reinterpret_cast<const uint4 *>(in + (v0 - p.pad));
            uint4 w[ROWS];
#pragma unroll
            for (int j = 0; j < ROWS; j++) w[j] = src[j * 32];
            memcpy(x, w, sizeof w);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; j++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t v = v0 + (size_t)j * 32 * VEC + k;
            x[j * VEC + k] = v >= p.pad && v - p.pad < p.n ? gp__load_elem(in + (v - p.pad)) : Op::identity();
        }
}

template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_store(typename Op::type *out, const typename Op::type (&x)[ROWS * VEC],
                                                     size_t v0, const gp__scan_plan &p, bool vec)
{
    typedef typename Op::type T;
    if constexpr (VEC * sizeof(T) == 16) {
        if (vec) {
            uint4 w[ROWS];
            memcpy(w, x, sizeof w);
            uint4 *dst = reinterpret_cast<uint4 *>(out + (v0 - p.pad));
#pragma unroll
            for (int j = 0; j < ROWS; j++) dst[j * 32] = w[j];
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; j++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t v = v0 + (size_t)j * 32 * VEC + k;
            if (v >= p.pad && v - p.pad < p.n) gp__store_elem(out + (v - p.pad), x[j * VEC + k]);
        }
}

/* The warp's scan of its registers: per row, the lane's vector total, a warp scan and the
 * row's total; rows chain in order. lane_prefix[j]: the warp's elements before vector
 * (j, lane). Returns the warp's total. The lanes must be converged. */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ typename Op::type gp__scan_warp_rows(const typename Op::type (&x)[ROWS * VEC],
                                                                      typename Op::type (&lane_prefix)[ROWS])
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
    T carry = Op::identity();
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T v = x[j * VEC];
#pragma unroll
        for (int k = 1; k < VEC; k++) v = Op::apply(v, x[j * VEC + k]);
        const T incl = gp__warp_inclusive_scan<Op>(v);
        const T row_total = gp__shfl<GP__SHFL_IDX>(incl, 31);
        const T left = gp__shfl<GP__SHFL_UP>(incl, 1);
        if (j == 0) {
            lane_prefix[0] = gp__select<T>(lane == 0, Op::identity(), left);
            carry = row_total;
        } else {
            lane_prefix[j] = gp__select<T>(lane == 0, carry, Op::apply(carry, left));
            carry = Op::apply(carry, row_total);
        }
    }
    return carry;
}

/* Outputs in place in x: base OP (the warp's elements before each one), inclusive or not. */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_finish(typename Op::type (&x)[ROWS * VEC],
                                                      const typename Op::type (&lane_prefix)[ROWS],
                                                      typename Op::type base, int inclusive)
{
    typedef typename Op::type T;
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T run = Op::apply(base, lane_prefix[j]);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const T next = Op::apply(run, x[j * VEC + k]);
            x[j * VEC + k] = inclusive ? next : run;
            run = next;
        }
    }
}

/* ---- ONE_BLOCK and CLUSTER: one tile per block, no scratch --------------------------------- */

/* A block's tile, one tile per block: the thread's vectors from v0 (gp__scan_load; `whole`:
 * as 16-byte vectors) into x, scanned by rows (gp__scan_warp_rows: lane_prefix), and the
 * warps' totals scanned across the block (gp__block_scan_warp_totals: *agg, the tile's
 * total). Returns the total of the warps before this one. Every thread of the block calls
 * it (a barrier inside). */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ typename Op::type gp__scan_block_tile(typename Op::type (&x)[ROWS * VEC],
                                                                       typename Op::type (&lane_prefix)[ROWS],
                                                                       typename Op::type *agg,
                                                                       const typename Op::type *in, size_t v0,
                                                                       const gp__scan_plan &p, bool whole)
{
    gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, whole);
    /* Reconverge before the shuffles: after the element-by-element path's branches the
     * lanes may still run apart, and nvcc then takes a slow "collective" path for every
     * shuffle (ncu: 30% of stalls were branch resolving, every shuffle one at a time). */
    __syncwarp();
    const typename Op::type carry = gp__scan_warp_rows<Op, ROWS, VEC>(x, lane_prefix);
    return gp__block_scan_warp_totals<Op>(carry, agg);
}

/* CLUSTER mode, the cluster is the whole grid (rank = blockIdx.x): base with the totals of
 * the blocks before this one put first, reduced by one warp in a fixed tree
 * (gp__warp_reduce). agg: this block's total; s_agg, s_prefix: two T in the block's shared
 * memory; warp, lane: the thread's. Every thread of every block calls it, and a block must
 * not exit before it calls gp__scan_cluster_done (others may still read its s_agg). sm_90+. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_cluster_prefix(typename Op::type *s_agg,
                                                                           typename Op::type *s_prefix,
                                                                           typename Op::type agg,
                                                                           typename Op::type base, unsigned warp,
                                                                           unsigned lane)
{
    typedef typename Op::type T;
    if (threadIdx.x == 0) *s_agg = agg;
    __cluster_barrier_arrive(); /* release: s_agg is visible cluster-wide */
    __cluster_barrier_wait();
    if (warp == 0) {
        T v = Op::identity();
        if (lane < blockIdx.x) v = *static_cast<T *>(__cluster_map_shared_rank(s_agg, lane));
        __syncwarp();
        const T pre = gp__warp_reduce<Op>(v); /* blocks before this one, fixed tree */
        if (lane == 0) *s_prefix = pre;
    }
    __syncthreads();
    if (blockIdx.x > 0) base = Op::apply(*s_prefix, base);
    return base;
}
static __device__ __forceinline__ void gp__scan_cluster_done(void)
{
    __cluster_barrier_arrive_relaxed();
    __cluster_barrier_wait();
}
#endif

/* Warp w owns the 32 * ITEMS contiguous elements from virtual index
 * blockIdx.x * TILE + w * 32 * ITEMS (virtual = real + pad), as ROWS rows of 32 vectors.
 * init (may be NULL): a value on the device that comes before element 0. */
template <class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    gp__scan_small_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p,
                          const typename Op::type *init, int inclusive)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS };
    const size_t TILE = p.tile, tile = blockIdx.x; /* p.block (= blockDim.x) threads */
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    gp__chain_wait(); /* launched chained (launch.cuh): nothing is read or written before it */
    const size_t v0 = tile * TILE + (size_t)warp * 32 * ITEMS + (size_t)lane * VEC;
    const bool whole = p.vec_ok && tile * TILE >= p.pad && (tile + 1) * TILE - p.pad <= p.n;
    T x[ITEMS], lane_prefix[ROWS], agg;
    T base = gp__scan_block_tile<Op, ROWS, VEC>(x, lane_prefix, &agg, in, v0, p, whole);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ T s_agg, s_prefix;
    if (p.mode == GP__CLUSTER) base = gp__scan_cluster_prefix<Op>(&s_agg, &s_prefix, agg, base, warp, lane);
#endif
    if (init) base = Op::apply(*init, base);
    gp__scan_finish<Op, ROWS, VEC>(x, lane_prefix, base, inclusive);
    gp__scan_store<Op, ROWS, VEC>(out, x, v0, p, whole);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (p.mode == GP__CLUSTER) gp__scan_cluster_done();
#endif
}

/* ---- GRID: the persistent look-ahead scan ---------------------------------------------------- */

/* Lane l's part of a tile's total, in index order: the l-th 32nd of the tile, R units of
 * VEC elements, `unit(k, e)` putting unit k of the lane's run into e. Lane l visits its run
 * starting at unit l % R and wrapping, so from a stage the lanes' 16-byte reads fall in
 * different banks; the units before the wrap point are folded apart and put first, which
 * keeps index order. The tile's total is then the ordered butterfly (gp__warp_reduce) of the
 * lanes' parts; reduce-by-key's fold of a tile with no run head is this one. */
template <class Op, unsigned R, class Unit>
static __device__ __forceinline__ typename Op::type gp__scan_lane_fold(const Unit &unit)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)) };
    /* G units at a time, their loads issued before the serial fold needs the first (one
     * unit at a time, a traced tile's total took 1.1-1.3 us from its landing to its
     * publication at 2^20-2^24 floats; in groups, 0.9-1.2) */
    enum { G = R % 8 == 0 ? 8 : R % 4 == 0 ? 4 : R % 2 == 0 ? 2 : 1 };
    const unsigned start = gp__lane_id() % R;
    T head = Op::identity(), tail = Op::identity();
#pragma unroll 1
    for (unsigned r0 = 0; r0 < R; r0 += G) {
        T f[G];
#pragma unroll
        for (int g = 0; g < G; g++) {
            T e[VEC];
            unit((r0 + g + start) % R, e);
            f[g] = e[0];
#pragma unroll
            for (int q = 1; q < VEC; q++) f[g] = Op::apply(f[g], e[q]);
        }
#pragma unroll
        for (int g = 0; g < G; g++) {
            if ((r0 + g + start) % R >= start) tail = Op::apply(tail, f[g]);
            else head = Op::apply(head, f[g]);
        }
    }
    return Op::apply(head, tail);
}

/* A tile's total by one warp, in index order (gp__scan_lane_fold). A unit comes from the
 * stage (`stage` not NULL) or from global memory element by element with bounds (partial
 * tiles, types or placements without vectors); the association is the same either way, so
 * the result does not depend on the path. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_tile_total(const unsigned char *stage,
                                                                       const typename Op::type *in, size_t t,
                                                                       const gp__scan_plan &p)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), R = GP__SCAN_BLOCK * ROWS / 32 };
    const unsigned lane = gp__lane_id();
    const size_t u0 = t * (size_t)(GP__SCAN_BLOCK * ROWS) + (size_t)lane * R; /* first unit of the run */
    const T part = gp__scan_lane_fold<Op, R>([&](unsigned k, T *e) {
        if constexpr (VEC * sizeof(T) == 16) {
            if (stage) {
                const uint4 w = reinterpret_cast<const uint4 *>(stage)[(size_t)lane * R + k];
                memcpy(e, &w, sizeof w);
                return;
            }
        }
#pragma unroll
        for (int q = 0; q < VEC; q++) {
            const size_t v = (u0 + k) * VEC + q;
            e[q] = v >= p.pad && v - p.pad < p.n ? gp__load_elem(in + (v - p.pad)) : Op::identity();
        }
    });
    __syncwarp();
    return gp__warp_reduce<Op>(part);
}

/* Threads: GP__SCAN_BLOCK scanning threads, then the producer, look-ahead and reduce
 * warps. Dynamic shared memory: `stages` tiles (0 when bulk copies are off: the scanning
 * warps then load from global memory themselves). */
template <class Op>
__global__ void __launch_bounds__(GP__SCAN_THREADS, GP__SCAN_MIN_BLOCKS)
    gp__scan_grid_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p, char *scratch,
                         const typename Op::type *init, int inclusive, unsigned stages, int bulk, unsigned flags,
                         unsigned ramp, uint32_t epoch)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           WARPS = GP__SCAN_WARPS, S = GP__SCAN_STAGES_MAX };
    const size_t TILE = (size_t)GP__SCAN_BLOCK * ITEMS;
    extern __shared__ __align__(128) unsigned char gp__scan_ring[];
    __shared__ uint64_t full[S], taken[S], ready[S], reduced[S], empty[S];
    __shared__ unsigned long long s_tile[S], s_ahead_tile[2];
    __shared__ T s_prefix[S], s_warp[S][WARPS], s_xchg[2 * gp__scan_nb(sizeof(T))];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__scan_status_offset());
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id(); /* not gp__warp_id(): 1% slower here (warp.cuh) */

    /* per stage: full (data in, or the tile index for tiles loaded from global), taken
     * (tile index known: the look-ahead starts before the data lands), ready (prefix
     * known), reduced (the reduce warp has read the tile: until then nobody may store over
     * it in place), empty (the scanning warps and the reduce warp are done with the stage) */
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages; s++) {
            gp__mbar_init(&full[s], 1);
            gp__mbar_init(&taken[s], 1);
            gp__mbar_init(&ready[s], 1);
            gp__mbar_init(&reduced[s], 1);
            gp__mbar_init(&empty[s], (WARPS + 1) * 32); /* every thread that read the stage */
        }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        gp__mbar_init_fence_cluster(); /* the barriers visible to the copy engine */
#endif
    }
    if (threadIdx.x == 0) GP__SCAN_TRACE(blockIdx.x, 7);
    gp__chain_wait(); /* the stream's earlier work is done: it may have used this status region */
    __syncthreads();
    if (threadIdx.x == 0) GP__SCAN_TRACE(blockIdx.x, 6);

    if (warp == WARPS) { /* producer */
        if (lane == 0)
            for (unsigned i = 0;; i++) {
                const unsigned s = i % stages;
                const unsigned long long t = gp__ring_take(i, stages, ramp, full, taken, empty, s_tile, counter);
                if (t < p.tiles) GP__SCAN_TRACE(t, 0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
                const bool whole = t < p.tiles && t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
                if (bulk && whole && p.in_vec)
                    gp__bulk_load(gp__scan_ring + (size_t)s * TILE * sizeof(T), in + (t * TILE - p.pad),
                                  (unsigned)(TILE * sizeof(T)), &full[s]);
                else
#endif
                    gp__mbar_arrive(&full[s]);
                if (t >= p.tiles) break;
            }
        /* every block's producer has taken its last tile: the last one back resets the
         * counters for the next call on this region (status memory) */
        if (lane == 0) gp__last_block_reset(counter + 1, counter, 1);
        return;
    }
    if (warp == WARPS + 1 || warp == WARPS + 3) { /* look-ahead, parts 0 and 1 */
        const unsigned part_id = warp == WARPS + 3;
        const unsigned parts = flags & GP__SCAN_ONE_AHEAD ? 1u : gp__scan_aheads(sizeof(T));
        if (part_id >= parts) return;
        gp__scan_ahead<T> ahead = {Op::identity(), 0, 0};
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            const unsigned long long t = gp__ring_ahead_tile(i, stages, taken, s_tile, s_ahead_tile, part_id, parts, lane);
            if (t >= p.tiles) break;
            const T pre = gp__scan_look_ahead<Op>(status, epoch, t, ahead, flags, part_id, parts, s_xchg);
            if (part_id == 0 && lane == 0) {
                s_prefix[s] = pre;
                GP__SCAN_TRACE(t, 3);
                gp__mbar_arrive(&ready[s]);
            }
        }
        return;
    }

    if (warp == WARPS + 2) { /* reduce: publishes each tile's total as soon as its data is in,
                              * never waiting on a prefix, so no chain forms through them */
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            gp__mbar_wait(&full[s], (i / stages) & 1);
            const unsigned long long t = s_tile[s];
            if (t >= p.tiles) break;
            if (lane == 0) GP__SCAN_TRACE(t, 1);
            const bool whole = t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
            const unsigned char *stage = bulk && whole && p.in_vec ? gp__scan_ring + (size_t)s * TILE * sizeof(T) : NULL;
            const T agg = gp__scan_tile_total<Op>(stage, in, t, p);
            if (lane == 0) {
                gp__status_publish<T>(status, t, agg, epoch);
                GP__SCAN_TRACE(t, 2);
                gp__mbar_arrive(&reduced[s]);
            }
            gp__mbar_arrive(&empty[s]); /* every lane, after its own reads of the stage */
        }
        return;
    }

    /* scanning warps */
    T x[ITEMS];
    const T carry_in = init ? *init : Op::identity();
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= p.tiles) break;
        const bool whole = t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
        const size_t v0 = t * TILE + (size_t)warp * 32 * ITEMS + (size_t)lane * VEC;
        if constexpr (VEC * sizeof(T) == 16) {
            if (bulk && whole && p.in_vec) { /* warp-striped out of the stage: conflict-free 16-byte reads */
                const uint4 *src = reinterpret_cast<const uint4 *>(gp__scan_ring + (size_t)s * TILE * sizeof(T)) +
                                   (size_t)warp * 32 * ROWS + lane;
                uint4 w[ROWS];
#pragma unroll
                for (int j = 0; j < ROWS; j++) w[j] = src[j * 32];
                memcpy(x, w, sizeof w);
            } else {
                gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, whole && p.in_vec);
            }
        } else {
            gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, false);
        }
        __syncwarp();
        T lane_prefix[ROWS];
        const T carry = gp__scan_warp_rows<Op, ROWS, VEC>(x, lane_prefix);
        if (lane == 0) s_warp[s][warp] = carry;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SCAN_BLOCK) : "memory"); /* scanning warps only */
        /* the warps before this one, in warp order (the tile's total is the reduce warp's) */
        T before = Op::identity();
        if (warp > 0) {
            before = s_warp[s][0];
            for (unsigned w = 1; w < warp; w++) before = Op::apply(before, s_warp[s][w]);
        }
        gp__mbar_wait(&ready[s], parity);
        gp__mbar_wait(&reduced[s], parity); /* in place: the reduce warp may read this tile from global */
        if (threadIdx.x == 0) GP__SCAN_TRACE(t, 4);
        T base = before;
        if (t > 0) base = Op::apply(s_prefix[s], base);
        if (init) base = Op::apply(carry_in, base);
        gp__mbar_arrive(&empty[s]); /* every thread, after its reads of the stage, tile index, warp totals, prefix */
        gp__scan_finish<Op, ROWS, VEC>(x, lane_prefix, base, inclusive);
        gp__scan_store<Op, ROWS, VEC>(out, x, v0, p, whole && p.vec_ok);
        if (threadIdx.x == 0) GP__SCAN_TRACE(t, 5);
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SCAN_KERNELS_CUH */
