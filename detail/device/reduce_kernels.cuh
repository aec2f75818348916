/* detail/device/reduce_kernels.cuh -- the device-wide reduce's kernel: a block streams its
 * run of the body tile by tile in index order, and ONE_BLOCK, CLUSTER or GRID mode combines
 * the blocks' totals (device/reduce.cuh tells how and why). Level 4 (device code): needs
 * warp/warp.cuh, block/block_reduce.cuh, util/launch.cuh (the chained launch),
 * agent/single_pass.cuh (GRID mode's tagged totals) and device/reduce_plan.cuh. */
#ifndef GPUPRIMS_DETAIL_REDUCE_KERNELS_CUH
#define GPUPRIMS_DETAIL_REDUCE_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../warp/warp.cuh"
#include "../block/block_reduce.cuh"
#include "../agent/single_pass.cuh"
#include "reduce_plan.cuh"

/* ---- maps ---------------------------------------------------------------------------------
 * What the kernel reduces at index i: Map::apply(a[i]) (ARITY 1) or Map::apply(a[i], b[i])
 * (ARITY 2), a Map::type, from arrays of Map::in_type. GP_DEFINE_MAP_REDUCE and
 * GP_DEFINE_MAP2_REDUCE make one from the user's macro; a plain reduce is the identity. */
template <class T>
struct gp__map_identity {
    typedef T in_type;
    typedef T type;
    enum { ARITY = 1 };
    static __device__ __forceinline__ T apply(T x) { return x; }
};

/* The input arrays of one reduce; b == a for a one-input map (and never read). */
template <class Tin>
struct gp__reduce_src {
    const Tin *a, *b;
};

/* The VEC contiguous elements at p: one 16-byte load where the plan allows it. */
template <class Tin, int VEC>
static __device__ __forceinline__ void gp__reduce_load(const Tin *p, bool aligned16, Tin (&x)[VEC])
{
    if (VEC * sizeof(Tin) == 16 && aligned16) {
        const uint4 w = __ldg(reinterpret_cast<const uint4 *>(p));
        memcpy(x, &w, sizeof x);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; k++) x[k] = gp__load_elem(p + k);
    }
}

/* The map of element k of the loaded x (and y, the second input's, for ARITY 2). */
template <class Map, int VEC>
static __device__ __forceinline__ typename Map::type gp__map_at(const typename Map::in_type (&x)[VEC],
                                                               const typename Map::in_type (&y)[VEC], int k)
{
    if constexpr (Map::ARITY == 2) return Map::apply(x[k], y[k]);
    else return Map::apply(x[k]);
}

/* The mapped value at index i, read element by element (head and tail). */
template <class Map>
static __device__ __forceinline__ typename Map::type gp__map_elem(const gp__reduce_src<typename Map::in_type> &src,
                                                                 size_t i)
{
    typename Map::in_type x[1] = {gp__load_elem(src.a + i)}, y[1];
    if constexpr (Map::ARITY == 2) y[0] = gp__load_elem(src.b + i);
    return gp__map_at<Map>(x, y, 0);
}

/* Elements of Tin in a body vector, the plan's vec, known at compile time. (As the plan's
 * run-time value, each row's index times vec was a 64-bit multiply-add in the inner loop:
 * the grid kernel alone took 27.1 us at 2^24 floats on the H100 against 26.3 with the
 * constant.) */
template <class Tin>
struct gp__reduce_vec {
    enum { N = gp__reduce_vec_elems(sizeof(Tin)) };
};

/* Reduces the mapped values of the VEC contiguous elements from index e, in order. */
template <class Op, class Map>
static __device__ __forceinline__ typename Op::type gp__reduce_vector(const gp__reduce_src<typename Map::in_type> &src,
                                                                     size_t e, bool aligned16)
{
    typedef typename Map::in_type Tin;
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec<Tin>::N };
    Tin x[VEC], y[VEC];
    gp__reduce_load(src.a + e, aligned16, x);
    if constexpr (Map::ARITY == 2) gp__reduce_load(src.b + e, aligned16, y);
    T acc = gp__map_at<Map>(x, y, 0);
#pragma unroll
    for (int k = 1; k < VEC; k++) acc = Op::apply(acc, gp__map_at<Map>(x, y, k));
    return acc;
}

/* One warp, one step: body vectors [first, first + 32 * ROWS) that lie below `end`, in
 * order (lane-major within each of the ROWS rows). The total is valid in lane 0. */
template <class Op, class Map>
static __device__ __forceinline__ typename Op::type gp__reduce_step(const gp__reduce_src<typename Map::in_type> &body,
                                                                   size_t first, size_t end, bool aligned16)
{
    typedef typename Op::type T;
    typedef typename Map::in_type Tin;
    enum { ROWS = GP__REDUCE_ROWS(Map::ARITY, sizeof(Tin)), VEC = gp__reduce_vec<Tin>::N };
    const unsigned lane = gp__lane_id();
    T part[ROWS];
    if (first + 32 * ROWS <= end) { /* whole step: all loads issued first */
#pragma unroll
        for (int j = 0; j < ROWS; j++)
            part[j] = gp__reduce_vector<Op, Map>(body, (first + 32 * j + lane) * VEC, aligned16);
    } else {
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const size_t i = first + 32 * j + lane;
            part[j] = i < end ? gp__reduce_vector<Op, Map>(body, i * VEC, aligned16) : Op::identity();
        }
    }
    T acc = gp__warp_reduce_lane0<Op>(part[0]);
#pragma unroll
    for (int j = 1; j < ROWS; j++) acc = Op::apply(acc, gp__warp_reduce_lane0<Op>(part[j]));
    return acc;
}

/* The whole block reduces body vectors [begin, end) in order, tile by tile (see the top
 * of this file). The total is valid in thread 0. One barrier per GROUP tiles: the slots
 * are double-buffered, and warp 0 folds group g between the barriers of groups g and g+1,
 * before any warp can write group g+2 into the same buffer. */
template <class Op, class Map>
static __device__ __forceinline__ typename Op::type gp__reduce_block_run(
    const gp__reduce_src<typename Map::in_type> &body, size_t begin, size_t end, bool aligned16)
{
    typedef typename Op::type T;
    enum {
        SLOTS = GP__REDUCE_GROUP * GP__REDUCE_WARPS,
        PER_LANE = SLOTS / 32,
        ROWS = GP__REDUCE_ROWS(Map::ARITY, sizeof(typename Map::in_type))
    };
    static_assert(SLOTS % 32 == 0, "GP__REDUCE_GROUP * warps per block must be a multiple of 32");
    const size_t tile = (size_t)GP__REDUCE_BLOCK * ROWS;
    __shared__ T slots[2][SLOTS]; /* [buffer][tile-in-group * WARPS + warp] */
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    T acc = Op::identity();
    unsigned buf = 0;
    for (size_t group = begin; group < end; group += GP__REDUCE_GROUP * tile, buf ^= 1) {
#pragma unroll 1
        for (int k = 0; k < GP__REDUCE_GROUP; k++) {
            const size_t first = group + k * tile; /* the tile's first vector: the same in every warp */
            T t = Op::identity();
            if (first < end) t = gp__reduce_step<Op, Map>(body, first + warp * 32 * ROWS, end, aligned16);
            if (lane == 0) slots[buf][k * GP__REDUCE_WARPS + warp] = t;
        }
        __syncthreads();
        if (warp == 0) { /* lane l folds slots [l*PER_LANE, l*PER_LANE + PER_LANE) in order */
            T v = slots[buf][lane * PER_LANE];
#pragma unroll
            for (int q = 1; q < PER_LANE; q++) v = Op::apply(v, slots[buf][lane * PER_LANE + q]);
            acc = Op::apply(acc, gp__warp_reduce_lane0<Op>(v));
        }
    }
    return acc;
}

/* head, then the body's total, then tail: the final value. One thread. */
template <class Op, class Map>
static __device__ __forceinline__ typename Op::type gp__reduce_with_edges(const gp__reduce_src<typename Map::in_type> &src,
                                                                         const gp__reduce_plan &p,
                                                                         typename Op::type body_total)
{
    typedef typename Op::type T;
    T acc = Op::identity();
    for (size_t i = 0; i < p.head; i++) acc = Op::apply(acc, gp__map_elem<Map>(src, i));
    acc = Op::apply(acc, body_total);
    const size_t tail = p.head + p.nvec * p.vec;
    for (size_t i = 0; i < p.tail; i++) acc = Op::apply(acc, gp__map_elem<Map>(src, tail + i));
    return acc;
}

/* GRID mode's finish, by the whole of the grid's last block: thread t waits for block
 * first + t's total (published with the call's epoch), and the block reduce folds them in
 * thread order, so in block order; then head and tail. The same association for every grid
 * of the same size, so the result is the same on every run. Valid in thread 0. */
template <class Op, class Map>
static __device__ __forceinline__ void gp__reduce_finish(typename Op::type *out,
                                                         const gp__reduce_src<typename Map::in_type> &src,
                                                         const gp__reduce_plan &p, const uint64_t *status,
                                                         uint32_t epoch)
{
    typedef typename Op::type T;
    T acc = Op::identity();
    for (unsigned first = 0; first < p.blocks; first += GP__REDUCE_BLOCK) {
        const unsigned b = first + threadIdx.x;
        const T round = gp__block_reduce<Op>(b < p.blocks ? gp__status_wait<T>(status, b, epoch) : Op::identity());
        acc = first == 0 ? round : Op::apply(acc, round);
    }
    if (threadIdx.x == 0) *out = gp__reduce_with_edges<Op, Map>(src, p, acc);
}

/* The body of the input: ONE_BLOCK and CLUSTER write the result; in GRID mode each block
 * writes its partial and the last block to finish combines them (one launch a call). */
template <class Op, class Map>
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__MIN_BLOCKS(GP__REDUCE_BLOCK, GP__REDUCE_BLOCKS_PER_SM))
    gp__reduce_kernel(typename Op::type *out, gp__reduce_src<typename Map::in_type> src, gp__reduce_plan p,
                      char *scratch, uint32_t epoch)
{
    typedef typename Op::type T;
    enum { ROWS = GP__REDUCE_ROWS(Map::ARITY, sizeof(typename Map::in_type)) };
    /* Launched early (GP__REDUCE_CHAIN): the stream's earlier work is complete and visible
     * past this point; then a dependent (the next call) may be placed on the GPU; it waits
     * for our results itself. */
    gp__chain_wait();
    if (threadIdx.x == 0) GP__REDUCE_TRACE(0);
    const size_t vec_per_block = p.vec_per_block;
    const int mode = p.mode;
    const size_t first = (size_t)blockIdx.x * vec_per_block;
    const size_t begin = gp__min_size(first, p.nvec), end = gp__min_size(first + vec_per_block, p.nvec);
    const gp__reduce_src<typename Map::in_type> body = {src.a + p.head, src.b + p.head};
    /* A block with one tile or less takes one step per warp and skips the grouped fold:
     * measured 0.4-1 us faster per call at n <= 2^16. Valid in thread 0. */
    const T block_total =
        end - begin <= (size_t)GP__REDUCE_BLOCK * ROWS
            ? gp__block_combine_warps<Op>(
                  gp__reduce_step<Op, Map>(body, begin + (threadIdx.x >> 5) * 32 * ROWS, end, p.aligned16 != 0))
            : gp__reduce_block_run<Op, Map>(body, begin, end, p.aligned16 != 0);

    if (mode == GP__ONE_BLOCK) {
        if (threadIdx.x == 0) *out = gp__reduce_with_edges<Op, Map>(src, p, block_total);
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (mode == GP__CLUSTER) {
        __shared__ T cluster_slot;
        if (threadIdx.x == 0) cluster_slot = block_total;
        __cluster_barrier_arrive(); /* release: the slot is visible cluster-wide */
        __cluster_barrier_wait();
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            T acc = Op::identity();
            for (unsigned r = 0; r < gridDim.x; r++)
                acc = Op::apply(acc, *static_cast<T *>(__cluster_map_shared_rank(&cluster_slot, r)));
            *out = gp__reduce_with_edges<Op, Map>(src, p, acc);
        }
        __cluster_barrier_arrive(); /* no block exits while block 0 may still read its slot */
        __cluster_barrier_wait();
        return;
    }
#endif
    /* GRID: thread 0 publishes the block's total, tagged with the call's epoch, and the
     * block leaves; the grid's last block (placed last) waits for the totals and folds them.
     * A tagged word is this call's or not, so there is no counter, no fence and nothing to
     * reset: the call's tail after the last block's data is one store and one round of
     * loads (a done counter and one warp's reads took 1.7 us there, H100, 2^24 floats). */
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch);
    if (threadIdx.x == 0) {
        GP__REDUCE_TRACE(1);
        gp__status_publish<T>(status, blockIdx.x, block_total, epoch);
    }
    if (blockIdx.x != gridDim.x - 1) return;
    __syncthreads(); /* thread 0's own total is in the status before the threads wait on it */
    if (threadIdx.x == 0) GP__REDUCE_TRACE(2);
    gp__reduce_finish<Op, Map>(out, src, p, status, epoch);
    if (threadIdx.x == 0) GP__REDUCE_TRACE(3);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_KERNELS_CUH */
