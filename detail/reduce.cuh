/* detail/reduce.cuh -- device-wide reduce: one kernel launch for any n, in index order,
 * deterministic, no static device state. Level 3: needs block_reduce.cuh, warp.cuh,
 * check.cuh. The plan arithmetic is plain host/device code, tested on the host.
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
 *   - ONE_BLOCK: small n, one block, writes the result itself.
 *   - CLUSTER (sm_90+): up to 8 blocks launched as one thread-block cluster; block 0 reads
 *     the others' totals through distributed shared memory. One launch, no scratch.
 *   - GRID: large n, a full grid; each block writes its total to stream-ordered scratch
 *     (detail/scratch.cuh), and the last block to finish (an atomic ticket) combines
 *     them in block order.
 * The head and tail (a few elements) are combined by whoever writes the result. Every
 * split depends only on n, the pointer's alignment and the device's SM count: the same
 * call gives bitwise the same result on every run. */
#ifndef GPUPRIMS_DETAIL_REDUCE_CUH
#define GPUPRIMS_DETAIL_REDUCE_CUH

#include <stdint.h>

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
#define GP__REDUCE_CLUSTER_MAX 8    /* portable cluster size */
#define GP__REDUCE_WARPS (GP__REDUCE_BLOCK / 32)
#define GP__REDUCE_TILE ((size_t)GP__REDUCE_BLOCK * GP__REDUCE_UNROLL) /* vectors per tile */
#define GP__REDUCE_SCRATCH_ALIGN 256

enum { GP__REDUCE_ONE_BLOCK = 0, GP__REDUCE_CLUSTER = 1, GP__REDUCE_GRID = 2 };

typedef struct gp__reduce_plan {
    size_t head;         /* leading elements before the first 16-byte boundary */
    size_t nvec;         /* whole vectors (vec elements each) in the body */
    size_t tail;         /* trailing elements after the last whole vector */
    size_t vec_per_block; /* body vectors each block streams (a multiple of 32) */
    unsigned vec;        /* elements per vector: 16 / sizeof(T), or 1 */
    unsigned blocks;     /* grid size */
    int aligned16;       /* body vectors may be loaded as 16-byte words */
    int mode;            /* GP__REDUCE_ONE_BLOCK, _CLUSTER or _GRID */
} gp__reduce_plan;

/* Small helpers the later device primitives (scan, transpose, matmul) share. */
static inline __host__ __device__ size_t gp__ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static inline __host__ __device__ size_t gp__min_size(size_t a, size_t b) { return a < b ? a : b; }

/* 1 when the byte ranges [p, p+a) and [q, q+b) overlap (an empty range overlaps nothing). */
static inline __host__ __device__ int gp__ranges_overlap(const void *p, size_t a, const void *q, size_t b)
{
    const uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return a && b && x < y + b && y < x + a;
}

/* How a reduce of n elements of `elem` bytes at address `addr` is split (see the top of
 * this file). sm_count and cluster_ok describe the device. */
static inline __host__ __device__ gp__reduce_plan gp__reduce_make_plan(uintptr_t addr, size_t n, size_t elem,
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
        p.mode = GP__REDUCE_ONE_BLOCK;
        blocks = 1;
        p.vec_per_block = GP__REDUCE_TILE;
    } else if (cluster_ok && blocks <= GP__REDUCE_CLUSTER_MAX) {
        p.mode = GP__REDUCE_CLUSTER;
        p.vec_per_block = GP__REDUCE_TILE;
    } else {
        p.mode = GP__REDUCE_GRID;
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
static inline __host__ __device__ size_t gp__reduce_scratch_bytes(unsigned blocks, size_t elem)
{
    return GP__REDUCE_SCRATCH_ALIGN + (size_t)blocks * elem;
}

#ifdef __CUDACC__

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
        for (int k = 0; k < VEC; k++) x[k] = p[k];
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
    for (size_t i = 0; i < p.head; i++) acc = Op::apply(acc, in[i]);
    acc = Op::apply(acc, body_total);
    const T *tail = in + p.head + p.nvec * p.vec;
    for (size_t i = 0; i < p.tail; i++) acc = Op::apply(acc, tail[i]);
    return acc;
}

/* A load that bypasses L1: the partials were written by other SMs during this kernel. */
template <class T>
static __device__ __forceinline__ T gp__load_cg(const T *p)
{
    T v;
    if (sizeof(T) % 4 == 0) {
        unsigned w[GP__SHFL_WORDS(T)];
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = __ldcg(reinterpret_cast<const unsigned *>(p) + i);
        memcpy(&v, w, sizeof(T));
    } else { /* 1- and 2-byte types */
        unsigned char b[sizeof(T)];
        const volatile unsigned char *src = reinterpret_cast<const volatile unsigned char *>(p);
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); i++) b[i] = src[i];
        memcpy(&v, b, sizeof(T));
    }
    return v;
}

template <class Op>
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__REDUCE_BLOCKS_PER_SM)
    gp__reduce_kernel(typename Op::type *out, const typename Op::type *in, gp__reduce_plan p, void *scratch)
{
    typedef typename Op::type T;
    size_t vec_per_block = p.vec_per_block;
    int mode = p.mode;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    /* Built without distributed shared memory (run from older PTX): block 0 alone covers
     * the cluster's range, which is the blocks' contiguous runs end to end. */
    if (mode == GP__REDUCE_CLUSTER) {
        if (blockIdx.x != 0) return;
        vec_per_block *= gridDim.x;
        mode = GP__REDUCE_ONE_BLOCK;
    }
#endif
    const size_t first = (size_t)blockIdx.x * vec_per_block;
    const size_t begin = gp__min_size(first, p.nvec), end = gp__min_size(first + vec_per_block, p.nvec);
    /* A block with one tile (ONE_BLOCK, CLUSTER) takes one step per warp and skips the
     * grouped fold: measured 0.4-1 us faster per call at n <= 2^16. Valid in thread 0. */
    const T block_total =
        end - begin <= GP__REDUCE_TILE
            ? gp__block_combine_warps<Op>(gp__reduce_step<Op>(in + p.head, begin + (threadIdx.x >> 5) * 32 * GP__REDUCE_UNROLL,
                                                              end, p.vec, p.aligned16 != 0))
            : gp__reduce_block_run<Op>(in + p.head, begin, end, p.vec, p.aligned16 != 0);

    if (mode == GP__REDUCE_ONE_BLOCK) {
        if (threadIdx.x == 0) *out = gp__reduce_with_edges<Op>(in, p, block_total);
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (mode == GP__REDUCE_CLUSTER) {
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
    T *partials = reinterpret_cast<T *>(static_cast<char *>(scratch) + GP__REDUCE_SCRATCH_ALIGN);
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence();
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
    int dev, sms, cluster_ok;
    GP__TRY(cudaGetDevice(&dev));
    GP__TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GP__TRY(cudaDeviceGetAttribute(&cluster_ok, cudaDevAttrClusterLaunch, dev));
    const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)d_in, n, sizeof(T), (unsigned)sms, cluster_ok);

    if (p.mode == GP__REDUCE_ONE_BLOCK) {
        gp__reduce_kernel<Op><<<1, GP__REDUCE_BLOCK, 0, s>>>(d_out, d_in, p, NULL);
        return cudaGetLastError();
    }
    if (p.mode == GP__REDUCE_CLUSTER) {
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = p.blocks;
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(p.blocks);
        cfg.blockDim = dim3(GP__REDUCE_BLOCK);
        cfg.stream = s;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        return cudaLaunchKernelEx(&cfg, gp__reduce_kernel<Op>, d_out, d_in, p, (void *)NULL);
    }
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, gp__reduce_scratch_bytes(p.blocks, sizeof(T)), dev, s));
    cudaError_t err = cudaMemsetAsync(scratch, 0, sizeof(unsigned), s);
    if (err == cudaSuccess) {
        gp__reduce_kernel<Op><<<p.blocks, GP__REDUCE_BLOCK, 0, s>>>(d_out, d_in, p, scratch);
        err = cudaGetLastError();
    }
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

/* ---- instantiation --------------------------------------------------------------------
 * GP__DEFINE_REDUCE_DEVICE: the Op struct and the device-side names of one instance.
 * GP__DEFINE_REDUCE_HOST: the host launcher, with the linkage given by SCOPE. */
#define GP__DEFINE_REDUCE_DEVICE(name, T, OP, IDENTITY)                                     \
    GP__DEFINE_OP(name, T, OP, IDENTITY)                                                   \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_reduce_##name(T v)         \
    {                                                                                      \
        return gp__warp_reduce<gp__op_##name>(v);                                          \
    }                                                                                      \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_reduce_smem_##name(T *s)   \
    {                                                                                      \
        return gp__warp_reduce_smem<gp__op_##name>(s);                                     \
    }                                                                                      \
    [[maybe_unused]] static __device__ __forceinline__ T gp_block_reduce_##name(T v)        \
    {                                                                                      \
        return gp__block_reduce<gp__op_##name>(v);                                         \
    }

#define GP__DEFINE_REDUCE_HOST(SCOPE, name, T)                                              \
    SCOPE cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s)  \
    {                                                                                      \
        return gp__reduce<gp__op_##name>(d_out, d_in, n, s);                               \
    }

/* GP_DEFINE_REDUCE(name, T, OP, IDENTITY): the whole reduce family for a user's type and
 * operator, local to this translation unit:
 *   T gp_warp_reduce_<name>(T v)         every lane gets the warp's total
 *   T gp_warp_reduce_smem_<name>(T *s)   lane 0 gets the total of s[0..63] (last-warp unroll)
 *   T gp_block_reduce_<name>(T v)        every thread gets the block's total
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 * Use at file scope. */
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY)                                             \
    namespace {                                                                            \
    GP__DEFINE_REDUCE_DEVICE(name, T, OP, IDENTITY)                                        \
    }                                                                                      \
    GP__DEFINE_REDUCE_HOST([[maybe_unused]] static, name, T)

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_CUH */
