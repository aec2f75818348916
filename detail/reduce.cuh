/* detail/reduce.cuh -- device-wide reduce: one kernel launch for any n, in index order,
 * deterministic, no static device state. Level 3: needs block_reduce.cuh, warp.cuh,
 * launch.cuh (the device-wide skeleton), ops.cuh and common.cuh. The plan arithmetic is
 * plain host/device code, tested on the host.
 *
 * How it works. The input splits into a head (the elements before the first 16-byte
 * boundary), a body of whole 16-byte vectors, and a tail (what is left after the last
 * whole vector). Each block streams one contiguous run of the body, one tile at a time:
 * a tile is 32 KB, and warp w reads its w-th 2 KB of it (32 lanes x UNROLL vectors, all
 * loads issued before any is used), so the whole grid sweeps memory in large contiguous
 * pieces, as a bandwidth-bound kernel wants. Order is kept at every level: a lane reduces
 * its own vector in order; a warp combines its lanes in lane order (shuffles) and its
 * UNROLL vectors in order; the warps' results for GROUP tiles go to shared memory, and
 * after one barrier warp 0 folds them in (tile, warp) order into the block's total.
 * Blocks then combine in block order:
 *   - GP__ONE_BLOCK: small n, one block, writes the result itself.
 *   - GP__CLUSTER (sm_90+): up to 8 blocks launched as one thread-block cluster; block 0
 *     reads the others' totals through distributed shared memory. No scratch.
 *   - GP__GRID: large n, a full grid; each block writes its total to stream-ordered
 *     scratch, and the last block to finish (an atomic ticket) combines them in block
 *     order.
 * (launch.cuh runs the three modes; it is shared with the scan.)
 * The head and tail (a few elements) are combined by whoever writes the result. Every
 * split depends only on n, the pointer's alignment and the device's SM count: the same
 * input at the same alignment on the same GPU model gives bitwise the same result on every
 * run and every stream. */
#ifndef GPUPRIMS_DETAIL_REDUCE_CUH
#define GPUPRIMS_DETAIL_REDUCE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common.cuh"
#include "ops.cuh"

/* GP_DECLARE_REDUCE(name, T): the host function's declaration, with C linkage, for C and
 * CUDA files alike (the definition is GP_DEFINE_REDUCE_EXTERN in one .cu file):
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s); */
#define GP_DECLARE_REDUCE(name, T) \
    GP__EXTERN_C cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);

#ifdef __CUDACC__
#include "warp.cuh"
#include "block_reduce.cuh"
#include "launch.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured). */
#ifndef GP__REDUCE_BLOCK
#define GP__REDUCE_BLOCK 512        /* threads per block */
#endif
#ifndef GP__REDUCE_UNROLL
#define GP__REDUCE_UNROLL 4         /* 16-byte vectors in flight per lane per step */
#endif
#ifndef GP__REDUCE_BLOCKS_PER_SM
#define GP__REDUCE_BLOCKS_PER_SM 4  /* GRID mode: 2048 threads per SM */
#endif
#ifndef GP__REDUCE_GROUP
#define GP__REDUCE_GROUP 8          /* tiles per barrier */
#endif
#define GP__REDUCE_WARPS (GP__REDUCE_BLOCK / 32)
#define GP__REDUCE_TILE ((size_t)GP__REDUCE_BLOCK * GP__REDUCE_UNROLL) /* vectors per tile */

typedef struct gp__reduce_plan {
    size_t head;         /* leading elements before the first 16-byte boundary */
    size_t nvec;         /* whole vectors (vec elements each) in the body */
    size_t tail;         /* trailing elements after the last whole vector */
    size_t vec_per_block; /* body vectors each block streams (a multiple of 32) */
    unsigned vec;        /* elements per vector: 16 / sizeof(T), or 1 */
    unsigned blocks;     /* grid size */
    int aligned16;       /* body vectors may be loaded as 16-byte words */
    int mode;            /* GP__ONE_BLOCK, GP__CLUSTER or GP__GRID (launch.cuh) */
} gp__reduce_plan;

/* How a reduce of n elements of `elem` bytes at address `addr` is split (see the top of
 * this file). sm_count and cluster_ok describe the device. */
static inline GP__HD gp__reduce_plan gp__reduce_make_plan(uintptr_t addr, size_t n, size_t elem,
                                                                       unsigned sm_count, int cluster_ok)
{
    gp__reduce_plan p;
    const size_t to_boundary = (16 - addr % 16) % 16;
    const int vectorisable = elem <= 16 && 16 % elem == 0;
    /* A type that divides 16 but sits off its size (a 16-byte struct at a 4-byte
     * boundary) can never reach a 16-byte boundary: it is read element by element. */
    p.aligned16 = vectorisable && to_boundary % elem == 0;
    p.vec = vectorisable ? (unsigned)(16 / elem) : 1u;
    p.head = p.aligned16 ? gp__min_size(n, to_boundary / elem) : 0;
    const size_t body = n - p.head;
    p.nvec = body / p.vec;
    p.tail = body % p.vec;

    size_t blocks = gp__ceil_div(p.nvec, GP__REDUCE_TILE); /* one tile per block */
    if (blocks <= 1) {
        p.mode = GP__ONE_BLOCK;
        blocks = 1;
        p.vec_per_block = GP__REDUCE_TILE;
    } else if (cluster_ok && blocks <= GP__CLUSTER_MAX) {
        p.mode = GP__CLUSTER;
        p.vec_per_block = GP__REDUCE_TILE;
    } else {
        p.mode = GP__GRID;
        const size_t max_blocks = (size_t)sm_count * GP__REDUCE_BLOCKS_PER_SM;
        if (blocks > max_blocks) blocks = max_blocks;
        /* a multiple of 32 vectors, not of a whole tile: a block's last tile is partial,
         * and the grid stays balanced to within 32 vectors per block */
        p.vec_per_block = gp__ceil_div(gp__ceil_div(p.nvec, blocks), 32) * 32;
        blocks = gp__ceil_div(p.nvec, p.vec_per_block); /* drop blocks left empty */
    }
    p.blocks = (unsigned)blocks;
    return p;
}

/* GRID-mode scratch: the ticket counter, then one partial per block. */
static inline GP__HD size_t gp__reduce_scratch_bytes(unsigned blocks, size_t elem)
{
    return GP__SCRATCH_ALIGN + (size_t)blocks * elem;
}

/* The launch of a plan: the ticket (the first 4 bytes of the scratch) starts at zero. */
static inline GP__HD gp__launch_shape gp__reduce_shape(const gp__reduce_plan &p, size_t elem)
{
    gp__launch_shape sh;
    sh.mode = p.mode;
    sh.blocks = p.blocks;
    sh.threads = GP__REDUCE_BLOCK;
    sh.smem_bytes = 0;
    sh.scratch_bytes = p.mode == GP__GRID ? gp__reduce_scratch_bytes(p.blocks, elem) : 0;
    sh.scratch_zeroed = p.mode == GP__GRID ? sizeof(unsigned) : 0;
    sh.scratch_wait = 0; /* gp__reduce sets it where the kernel's sm_90 code runs */
    return sh;
}

/* Reduces the `vec` contiguous elements at p, in order. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__reduce_vector(const typename Op::type *p, bool aligned16)
{
    typedef typename Op::type T;
    enum { VEC = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? 16 / sizeof(T) : 1 };
    T x[VEC];
    if (VEC * sizeof(T) == 16 && aligned16) {
        const uint4 w = __ldg(reinterpret_cast<const uint4 *>(p));
        memcpy(x, &w, sizeof x);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; k++) x[k] = gp__load_elem(p + k);
    }
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < VEC; k++) acc = Op::apply(acc, x[k]);
    return acc;
}

/* One warp, one step: body vectors [first, first + 32 * UNROLL) that lie below `end`, in
 * order (lane-major within each of the UNROLL rows). The total is valid in lane 0. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__reduce_step(const typename Op::type *body, size_t first,
                                                                   size_t end, unsigned vec, bool aligned16)
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
    T part[GP__REDUCE_UNROLL];
    if (first + 32 * GP__REDUCE_UNROLL <= end) { /* whole step: all loads issued first */
#pragma unroll
        for (int j = 0; j < GP__REDUCE_UNROLL; j++)
            part[j] = gp__reduce_vector<Op>(body + (first + 32 * j + lane) * vec, aligned16);
    } else {
#pragma unroll
        for (int j = 0; j < GP__REDUCE_UNROLL; j++) {
            const size_t i = first + 32 * j + lane;
            part[j] = i < end ? gp__reduce_vector<Op>(body + i * vec, aligned16) : Op::identity();
        }
    }
    T acc = gp__warp_reduce_lane0<Op>(part[0]);
#pragma unroll
    for (int j = 1; j < GP__REDUCE_UNROLL; j++) acc = Op::apply(acc, gp__warp_reduce_lane0<Op>(part[j]));
    return acc;
}

/* The whole block reduces body vectors [begin, end) in order, tile by tile (see the top
 * of this file). The total is valid in thread 0. One barrier per GROUP tiles: the slots
 * are double-buffered, and warp 0 folds group g between the barriers of groups g and g+1,
 * before any warp can write group g+2 into the same buffer. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__reduce_block_run(const typename Op::type *body, size_t begin,
                                                                        size_t end, unsigned vec, bool aligned16)
{
    typedef typename Op::type T;
    enum { SLOTS = GP__REDUCE_GROUP * GP__REDUCE_WARPS, PER_LANE = SLOTS / 32 };
    static_assert(SLOTS % 32 == 0, "GP__REDUCE_GROUP * warps per block must be a multiple of 32");
    __shared__ T slots[2][SLOTS]; /* [buffer][tile-in-group * WARPS + warp] */
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    T acc = Op::identity();
    unsigned buf = 0;
    for (size_t group = begin; group < end; group += GP__REDUCE_GROUP * GP__REDUCE_TILE, buf ^= 1) {
#pragma unroll 1
        for (int k = 0; k < GP__REDUCE_GROUP; k++) {
            const size_t tile = group + k * GP__REDUCE_TILE; /* the same in every warp */
            T t = Op::identity();
            if (tile < end) t = gp__reduce_step<Op>(body, tile + warp * 32 * GP__REDUCE_UNROLL, end, vec, aligned16);
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
template <class Op>
static __device__ __forceinline__ typename Op::type gp__reduce_with_edges(const typename Op::type *in,
                                                                         const gp__reduce_plan &p,
                                                                         typename Op::type body_total)
{
    typedef typename Op::type T;
    T acc = Op::identity();
    for (size_t i = 0; i < p.head; i++) acc = Op::apply(acc, gp__load_elem(in + i));
    acc = Op::apply(acc, body_total);
    const T *tail = in + p.head + p.nvec * p.vec;
    for (size_t i = 0; i < p.tail; i++) acc = Op::apply(acc, gp__load_elem(tail + i));
    return acc;
}

template <class Op>
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__MIN_BLOCKS(GP__REDUCE_BLOCK, GP__REDUCE_BLOCKS_PER_SM))
    gp__reduce_kernel(typename Op::type *out, const typename Op::type *in, gp__reduce_plan p, void *scratch)
{
    typedef typename Op::type T;
    const size_t vec_per_block = p.vec_per_block;
    const int mode = p.mode;
    const size_t first = (size_t)blockIdx.x * vec_per_block;
    const size_t begin = gp__min_size(first, p.nvec), end = gp__min_size(first + vec_per_block, p.nvec);
    /* A block with one tile (ONE_BLOCK, CLUSTER) takes one step per warp and skips the
     * grouped fold: measured 0.4-1 us faster per call at n <= 2^16. Valid in thread 0. */
    const T block_total =
        end - begin <= GP__REDUCE_TILE
            ? gp__block_combine_warps<Op>(gp__reduce_step<Op>(in + p.head, begin + (threadIdx.x >> 5) * 32 * GP__REDUCE_UNROLL,
                                                              end, p.vec, p.aligned16 != 0))
            : gp__reduce_block_run<Op>(in + p.head, begin, end, p.vec, p.aligned16 != 0);

    if (mode == GP__ONE_BLOCK) {
        if (threadIdx.x == 0) *out = gp__reduce_with_edges<Op>(in, p, block_total);
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
            *out = gp__reduce_with_edges<Op>(in, p, acc);
        }
        __cluster_barrier_arrive(); /* no block exits while block 0 may still read its slot */
        __cluster_barrier_wait();
        return;
    }
#endif
    /* GRID: publish this block's total; the last block to take a ticket combines all. */
    unsigned *ticket = static_cast<unsigned *>(scratch);
    T *partials = reinterpret_cast<T *>(static_cast<char *>(scratch) + GP__SCRATCH_ALIGN);
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence();
        gp__scratch_wait(); /* the ticket is cleared (launch.cuh) */
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    const size_t per = gp__ceil_div(gridDim.x, blockDim.x); /* thread t: partials [t*per, t*per+per) */
    const size_t lo = gp__min_size((size_t)threadIdx.x * per, gridDim.x), hi = gp__min_size(lo + per, gridDim.x);
    T acc = Op::identity();
    for (size_t i = lo; i < hi; i++) acc = Op::apply(acc, gp__load_cg(partials + i));
    const T total = gp__block_reduce<Op>(acc);
    if (threadIdx.x == 0) *out = gp__reduce_with_edges<Op>(in, p, total);
}

/* The host side of every gp_reduce_<name>. */
template <class Op>
static cudaError_t gp__reduce(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)d_in, n, sizeof(T), dev.sms, dev.cluster_ok);
    gp__launch_shape shape = gp__reduce_shape(p, sizeof(T));
    shape.scratch_wait = dev.cluster_ok; /* sm_90 code on an sm_90+ device: the clearing overlaps the launch */
    return gp__launch_device_wide(shape, dev.id, s,
                                  [&](const cudaLaunchConfig_t &cfg, void *scratch) {
                                      return cudaLaunchKernelEx(&cfg, gp__reduce_kernel<Op>, d_out, d_in, p, scratch);
                                  });
}

/* ---- instantiation ----------------------------------------------------------------------
 * Every family has the same macros (klib's KHASH_DECLARE / KHASH_INIT2 are the model):
 *   GP__DEFINE_<F>_DEVICE(name, T, OPS)          the warp- and block-level names
 *   GP__DEFINE_<F>_HOST(SCOPE, name, T, OPS)     the host launchers, linkage SCOPE
 *   GP_DECLARE_<F>(name, T)                      declarations, C linkage (C and CUDA)
 *   GP_DEFINE_<F>(name, T, OP, IDENTITY)         all of it, local to this TU (static)
 *   GP_DEFINE_<F>_EXTERN(name, T, OP, IDENTITY)  all of it; the host launchers with
 *                                                external C linkage, for one TU of a
 *                                                program whose other files use GP_DECLARE_<F>
 * OPS is an operator struct from GP_DEFINE_OP. */
#define GP__DEFINE_REDUCE_DEVICE(name, T, OPS) \
    GP__DEFINE_WARP_REDUCE(name, T, OPS)        \
    GP__DEFINE_BLOCK_REDUCE(name, T, OPS)

#define GP__DEFINE_REDUCE_HOST(SCOPE, name, T, OPS)                                         \
    SCOPE cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s)  \
    {                                                                                      \
        return gp__reduce<OPS>(d_out, d_in, n, s);                                         \
    }

/* GP_DEFINE_REDUCE(name, T, OP, IDENTITY): the reduce family for a user's type and
 * associative operator (need not be commutative), at file scope of a .cu file:
 *   T gp_warp_reduce_<name>(T v)         every lane gets the warp's total     (warp.cuh)
 *   T gp_warp_reduce_smem_<name>(T *s)   lane 0: the total of s[0..63]         (warp.cuh)
 *   T gp_block_reduce_<name>(T v)        every thread gets the block's total   (block_reduce.cuh)
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       *d_out = d_in[0] OP d_in[1] OP ... OP d_in[n-1], asynchronously on s; n == 0 is a
 *       no-op; NULL pointers with n > 0 give cudaErrorInvalidValue and launch nothing.
 * The operator struct is gp__op_reduce_<name>. GP_DEFINE_REDUCE gives TU-local (static)
 * definitions; GP_DEFINE_REDUCE_EXTERN gives gp_reduce_<name> external C linkage (use it
 * in one .cu file, and GP_DECLARE_REDUCE(name, T) in the files that call it). */
#define GP__DEFINE_REDUCE_AS(SCOPE, name, T, OP, IDENTITY)                                  \
    namespace {                                                                            \
    GP_DEFINE_OP(reduce_##name, T, OP, IDENTITY)                                           \
    GP__DEFINE_REDUCE_DEVICE(name, T, gp__op_reduce_##name)                                \
    }                                                                                      \
    GP__DEFINE_REDUCE_HOST(SCOPE, name, T, gp__op_reduce_##name)
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_REDUCE_EXTERN(name, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_AS(extern "C", name, T, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE)
#define GP_DEFINE_REDUCE_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_CUH */
