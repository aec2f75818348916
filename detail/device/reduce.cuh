/* detail/device/reduce.cuh -- device-wide reduce and map-reduce: one pass over the input for any n
 * (one launch: a cluster up to 1 MB, a grid whose last block finishes beyond), in index
 * order, deterministic. Level 4: needs block_reduce.cuh, warp.cuh, launch.cuh (the
 * device-wide skeleton and its status memory), agent/single_pass.cuh, ops.cuh and common.cuh. The plan
 * arithmetic is plain host/device code, tested on the host.
 *
 * One kernel serves both: it reduces MAP(a[i]) or MAP2(a[i], b[i]) over i, and a plain
 * reduce is the identity map. A two-input map (a dot product) streams both arrays in step,
 * so each is read once.
 *
 * How it works. The input splits into a head (the elements before the first 16-byte
 * boundary), a body of whole 16-byte vectors, and a tail (what is left after the last
 * whole vector). Each block streams one contiguous run of the body, one tile at a time:
 * a tile is 64 KB, and warp w reads its w-th 4 KB of it (32 lanes x UNROLL vectors, all
 * loads issued before any is used; a two-input map takes half as many rows of each input,
 * so the bytes in flight, the tile's bytes and the registers stay the same; elements wider
 * than 8 bytes take half as many rows), so the whole grid sweeps memory in large
 * contiguous pieces, as a bandwidth-bound kernel wants. Order is kept at every level: a
 * lane reduces its own vector in order; a warp combines its lanes in lane order (shuffles)
 * and its rows in order; the warps' results for GROUP tiles go to shared memory, and
 * after one barrier warp 0 folds them in (tile, warp) order into the block's total.
 * Blocks then combine in block order:
 *   - GP__ONE_BLOCK: one tile or less, one block, writes the result itself.
 *   - GP__CLUSTER (sm_90+): up to GP__REDUCE_CLUSTER_TILES tiles (1 MB), up to 8 blocks (16
 *     where the device allows) launched as one thread-block cluster, spread as thin as one
 *     warp step (4 KB) a block, each block a contiguous run; block 0
 *     reads the others' totals through distributed shared memory. One launch and no
 *     scratch: up to 1 MB, 8 blocks read the input in less time than the host takes for
 *     GRID mode's second launch and scratch allocation (see the tuning).
 *   - GP__GRID: large n, a full grid; each block writes its total beside a done counter in
 *     the stream's status region (util/status.cuh) and adds one to the counter; warp 0 of
 *     the last block to arrive combines the totals in block order, writes the result and
 *     sets the counter back to 0 for the next call on the region. One launch, no clearing.
 * With GP__REDUCE_CHAIN, the first kernel is a programmatic dependent of whatever the
 * stream ran before (sm_90): it waits for that work at its first instruction, so nothing
 * changes for a user's kernel before it, but a reduce after a reduce is placed on the GPU
 * while the earlier one finishes, and back-to-back calls do not pay a launch each.
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
#include "../util/common.cuh"
#include "../util/ops.cuh"

/* GP_DECLARE_REDUCE(name, T): the host function's declaration, with C linkage, for C and
 * CUDA files alike (the definition is GP_DEFINE_REDUCE_EXTERN in one .cu file):
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s); */
#define GP_DECLARE_REDUCE(name, T) \
    GP__EXTERN_C cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);

/* GP_DECLARE_MAP_REDUCE(name, Tin, T) and GP_DECLARE_MAP2_REDUCE(name, Tin, T): the same for
 * a map-reduce (the definitions: GP_DEFINE_MAP_REDUCE_EXTERN, GP_DEFINE_MAP2_REDUCE_EXTERN):
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_in, size_t n, cudaStream_t s);
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s); */
#define GP_DECLARE_MAP_REDUCE(name, Tin, T) \
    GP__EXTERN_C cudaError_t gp_##name(T *d_out, const Tin *d_in, size_t n, cudaStream_t s);
#define GP_DECLARE_MAP2_REDUCE(name, Tin, T) \
    GP__EXTERN_C cudaError_t gp_##name(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s);

#ifdef __CUDACC__
#include "../warp/warp.cuh"
#include "../block/block_reduce.cuh"
#include "../util/launch.cuh"
#include "../agent/single_pass.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured).
 * Eight 16-byte loads in flight per lane at two blocks of 512 per SM: 128 KB in flight per
 * SM, as the read kernel of the bench has (four loads at 2048 threads), with 64 registers a
 * thread, so no instance spills (at four blocks and four loads, 32 registers, the 8-byte
 * sums, the counts and the dot products did). 2^22 floats then take one round trip per
 * block, where three blocks of four loads per SM took two. */
#ifndef GP__REDUCE_BLOCK
#define GP__REDUCE_BLOCK 512        /* threads per block */
#endif
#ifndef GP__REDUCE_UNROLL
#define GP__REDUCE_UNROLL 8         /* 16-byte vectors in flight per lane per step */
#endif
#ifndef GP__REDUCE_UNROLL_WIDE
#define GP__REDUCE_UNROLL_WIDE 4    /* the same for elements wider than 8 bytes (see below) */
#endif
#ifndef GP__REDUCE_BLOCKS_PER_SM
#define GP__REDUCE_BLOCKS_PER_SM 2  /* GRID mode: 1024 threads, 64 registers each */
#endif
/* CLUSTER mode's limit. Measured on the H100 (floats, calls back to back): a block with
 * its 64 KB in flight reads about 40 GB/s, 8 blocks 340 GB/s, so one cluster launch beats
 * GRID mode's two launches and scratch (about 10 us of host time a call) up to 1-2 MB:
 * 1 MB 6.6-8.0 us a call against 12.6, 2 MB 9.0 against 8.7-9.1, 4 MB 13.7 against 9.5. */
#ifndef GP__REDUCE_CLUSTER_TILES
#define GP__REDUCE_CLUSTER_TILES 16 /* CLUSTER mode up to this many tiles (1 MB) */
#endif
#ifndef GP__REDUCE_GROUP
#define GP__REDUCE_GROUP 8          /* tiles per barrier */
#endif
#ifndef GP__REDUCE_CHAIN
#define GP__REDUCE_CHAIN 1          /* sm_90: launch the first kernel early too (see below) */
#endif
#define GP__REDUCE_WARPS (GP__REDUCE_BLOCK / 32)
/* Elements in a 16-byte body vector of elements of `elem` bytes: 16 / elem where whole
 * elements fill it, else 1 (each element its own vector, read element by element unless it
 * is 16 bytes). The plan and the kernels (gp__reduce_vec) both count with it. */
static constexpr GP__HD unsigned gp__reduce_vec_elems(size_t elem)
{
    return elem <= 16 && 16 % elem == 0 ? (unsigned)(16 / elem) : 1u;
}

/* Rows of vectors a lane loads per step from each input of `elem`-byte elements: a
 * two-input map loads half as many rows of each, so every kernel has the same bytes in
 * flight and data registers. Elements wider than 8 bytes (a user's 16-byte pair, a 2x2
 * matrix) are reduced as whole values of 4 or more registers each, and eight rows of them
 * spilled at 64 registers; they take half as many rows. */
#define GP__REDUCE_ROWS(arity, elem) \
    ((((elem) > 8 ? GP__REDUCE_UNROLL_WIDE : GP__REDUCE_UNROLL) + (arity) - 1) / (arity))

typedef struct gp__reduce_plan {
    size_t head;         /* leading elements before the first 16-byte boundary */
    size_t nvec;         /* whole vectors (vec elements each) in the body */
    size_t tail;         /* trailing elements after the last whole vector */
    size_t vec_per_block; /* body vectors each block streams (a multiple of 32) */
    unsigned vec;        /* elements per vector: gp__reduce_vec_elems(sizeof(Tin)) */
    unsigned blocks;     /* grid size */
    int aligned16;       /* body vectors may be loaded as 16-byte words */
    int mode;            /* GP__ONE_BLOCK, GP__CLUSTER or GP__GRID (launch.cuh) */
} gp__reduce_plan;

/* How a reduce of n input elements of `elem` bytes each, at addresses a and b (b == a for
 * a one-input map), is split (see the top of this file). `arity` is the map's number of
 * inputs (1 or 2); sm_count, cluster_ok and cluster_max (8, or 16 where the device allows:
 * gp__cluster_limit) describe the device. CLUSTER and GRID blocks
 * get runs of equal length (multiples of 32 vectors, the last one shorter). */
static inline GP__HD gp__reduce_plan gp__reduce_make_plan(uintptr_t a, uintptr_t b, size_t n, size_t elem,
                                                          unsigned arity, unsigned sm_count, int cluster_ok,
                                                          size_t cluster_max = GP__CLUSTER_MAX)
{
    gp__reduce_plan p;
    const size_t to_boundary = (16 - a % 16) % 16;
    const size_t tile = (size_t)GP__REDUCE_BLOCK * GP__REDUCE_ROWS(arity, elem); /* vectors per tile */
    p.vec = gp__reduce_vec_elems(elem);
    const int vectorisable = p.vec * elem == 16; /* whole elements fill a 16-byte vector */
    /* A type that divides 16 but sits off its size (a 16-byte struct at a 4-byte
     * boundary) can never reach a 16-byte boundary, nor can two inputs at different
     * offsets from one: they are read element by element. */
    p.aligned16 = vectorisable && to_boundary % elem == 0 && (a - b) % 16 == 0;
    p.head = p.aligned16 ? gp__min_size(n, to_boundary / elem) : 0;
    const size_t body = n - p.head;
    p.nvec = body / p.vec;
    p.tail = body % p.vec;

    const size_t tiles = gp__ceil_div(p.nvec, tile);
    size_t blocks = 1;
    if (tiles <= 1) {
        p.mode = GP__ONE_BLOCK;
        p.vec_per_block = tile;
    } else {
        if (cluster_ok && tiles <= GP__REDUCE_CLUSTER_TILES) {
            /* as many blocks as the cluster allows, down to one warp step (32 x rows
             * vectors) each: a few tiles are latency-bound, so more SMs each reading less
             * finish sooner (2^16 floats: 16 blocks of 16 KB on the H100, not 4 of 64 KB) */
            p.mode = GP__CLUSTER;
            blocks = gp__min_size(gp__ceil_div(p.nvec, tile / GP__REDUCE_WARPS), cluster_max);
        } else {
            p.mode = GP__GRID;
            blocks = gp__min_size(tiles, (size_t)sm_count * GP__REDUCE_BLOCKS_PER_SM);
        }
        /* a multiple of 32 vectors, not of a whole tile: a block's last tile is partial,
         * and the blocks stay balanced to within 32 vectors */
        p.vec_per_block = gp__ceil_div(gp__ceil_div(p.nvec, blocks), 32) * 32;
        blocks = gp__ceil_div(p.nvec, p.vec_per_block); /* drop blocks left empty */
    }
    p.blocks = (unsigned)blocks;
    return p;
}

/* GRID-mode scratch, a status region (util/status.cuh): the done counter (0 at the start,
 * reset by the last block), then one partial per block, written before it is read. */
static inline GP__HD size_t gp__reduce_partials_offset(void) { return GP__SCRATCH_ALIGN; }

/* The launch of a plan (elem: the size of the reduced type). */
static inline GP__HD gp__launch_shape gp__reduce_shape(const gp__reduce_plan &p, size_t elem)
{
    gp__launch_shape sh;
    sh.mode = p.mode;
    sh.blocks = p.blocks;
    sh.threads = GP__REDUCE_BLOCK;
    sh.smem_bytes = 0;
    sh.scratch_bytes = p.mode == GP__GRID ? gp__reduce_partials_offset() + (size_t)p.blocks * elem : 0;
    sh.scratch_zeroed = p.mode == GP__GRID ? sizeof(unsigned long long) : 0;
    sh.scratch_wait = 0;
    sh.status_kept = GP__STATUS_REDUCE;
    sh.chain = 0; /* set by the caller, which knows the device */
    return sh;
}

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

/* GRID mode's finish: the partials of the p.blocks blocks in block order, then head and
 * tail. Warp 0 of the last block alone: lane l folds [l*per, l*per+per) in order, its loads
 * in flight eight at a time, then the warp's ordered tree. The same association for every
 * grid of the same size, so the result is the same on every run. */
template <class Op, class Map>
static __device__ __forceinline__ void gp__reduce_finish(typename Op::type *out,
                                                         const gp__reduce_src<typename Map::in_type> &src,
                                                         const gp__reduce_plan &p, const typename Op::type *partials)
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id(), per = (p.blocks + 31) / 32;
    const unsigned lo = min(lane * per, p.blocks), hi = min(lo + per, p.blocks);
    T acc = Op::identity();
    for (unsigned i = lo; i < hi; i += 8) {
        T v[8];
#pragma unroll
        for (unsigned k = 0; k < 8; k++)
            if (i + k < hi) v[k] = gp__load_cg(partials + i + k);
#pragma unroll
        for (unsigned k = 0; k < 8; k++)
            if (i + k < hi) acc = i + k == lo ? v[k] : Op::apply(acc, v[k]);
    }
    const T total = gp__warp_reduce_lane0<Op>(acc);
    if (lane == 0) *out = gp__reduce_with_edges<Op, Map>(src, p, total);
}

/* The body of the input: ONE_BLOCK and CLUSTER write the result; in GRID mode each block
 * writes its partial and the last block to finish combines them (one launch a call). */
template <class Op, class Map>
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__MIN_BLOCKS(GP__REDUCE_BLOCK, GP__REDUCE_BLOCKS_PER_SM))
    gp__reduce_kernel(typename Op::type *out, gp__reduce_src<typename Map::in_type> src, gp__reduce_plan p,
                      char *scratch)
{
    typedef typename Op::type T;
    enum { ROWS = GP__REDUCE_ROWS(Map::ARITY, sizeof(typename Map::in_type)) };
    /* Launched early (GP__REDUCE_CHAIN): the stream's earlier work is complete and visible
     * past this point; then a dependent (the finish kernel, the next call) may be placed on
     * the GPU; it waits for our results itself. */
    gp__chain_wait();
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
    /* GRID: the partial, then the done counter; the last block to arrive finishes and
     * returns the counter to 0 for the next call on this status region */
    unsigned long long *done = reinterpret_cast<unsigned long long *>(scratch);
    T *partials = reinterpret_cast<T *>(scratch + gp__reduce_partials_offset());
    /* Thread 0 holds the total and writes the partial, so its arrival alone orders it: one
     * acq_rel atomic at gpu scope, no fences (__threadfence is fence.sc), no barrier, and
     * the last block's warp 0 finishes while the other warps have left: the call's tail
     * after the last block's data is an atomic, a round of loads and five shuffles. */
    if (threadIdx.x >= 32) return;
    unsigned long long arrived = 0;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        arrived = gp__atom_add_acq_rel(done, 1ull);
    }
    if (__shfl_sync(GP__FULL_MASK, arrived, 0) != (unsigned long long)gridDim.x - 1) return;
    __syncwarp(); /* thread 0's acquire orders the lanes' loads of the other blocks' partials */
    gp__reduce_finish<Op, Map>(out, src, p, partials);
    if (threadIdx.x == 0) *done = 0;
}

/* The host side of every map-reduce (d_b: the second input of a two-input map; d_a again
 * for one input) and, with the identity map, of every gp_reduce_<name> (gp__reduce below).
 * PER_CALL (the bench's ladder only): grid-mode scratch from the pool for this call, cleared
 * before the kernel, instead of the stream's status memory. */
template <class Op, class Map, bool PER_CALL = false>
static cudaError_t gp__map_reduce(typename Op::type *d_out, const typename Map::in_type *d_a,
                                  const typename Map::in_type *d_b, size_t n, cudaStream_t s)
{
    typedef typename Op::type T;
    typedef typename Map::in_type Tin;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_a == NULL || d_b == NULL) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    GP__TRY(gp__kernel_load<gp__reduce_kernel<Op, Map>>());
    const unsigned cluster_max = dev.cluster_ok ? gp__cluster_limit<gp__reduce_kernel<Op, Map>>(dev.id, GP__REDUCE_BLOCK)
                                                : GP__CLUSTER_MAX;
    const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)d_a, (uintptr_t)d_b, n, sizeof(Tin), Map::ARITY, dev.sms,
                                                   dev.cluster_ok, cluster_max);
    const gp__reduce_src<Tin> src = {d_a, d_b};
    gp__launch_shape shape = gp__reduce_shape(p, sizeof(T));
    /* programmatic dependent launches where the kernels wait for them: sm_90 code on an
     * sm_90 device, the same condition as for clusters */
    const int pdl_ok = dev.cluster_ok;
    shape.chain = GP__REDUCE_CHAIN && pdl_ok;
    if (PER_CALL) shape.status_kept = 0;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t) {
        return cudaLaunchKernelEx(&cfg, gp__reduce_kernel<Op, Map>, d_out, src, p, static_cast<char *>(scratch));
    });
}

/* The plain reduce: the identity map. */
template <class Op, bool PER_CALL = false>
static cudaError_t gp__reduce(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s)
{
    return gp__map_reduce<Op, gp__map_identity<typename Op::type>, PER_CALL>(d_out, d_in, d_in, n, s);
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

/* ---- map-reduce ---------------------------------------------------------------------------
 * GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY), at file scope of a .cu file:
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_in, size_t n, cudaStream_t s)
 *       *d_out = MAP(d_in[0]) OP MAP(d_in[1]) OP ... OP MAP(d_in[n-1]), in one pass over
 *       d_in (the mapped values are never stored).
 * GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY):
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s)
 *       *d_out = MAP2(d_a[0], d_b[0]) OP ... OP MAP2(d_a[n-1], d_b[n-1]), reading each
 *       array once (a dot product: MAP2(a, b) = a * b, OP = sum).
 * MAP(x) and MAP2(a, b) are function-like macros that run on the device and give a T; OP
 * and IDENTITY are as for GP_DEFINE_REDUCE (associative, not necessarily commutative:
 * the mapped values combine in index order). Everything gp_reduce_<name> promises holds:
 * one launch, deterministic, size_t counts, any alignment the type allows (two inputs at
 * different offsets from a 16-byte boundary are read element by element), n == 0 a no-op,
 * a NULL pointer with n > 0 cudaErrorInvalidValue with nothing launched. The output may be
 * one of the inputs. Only the host function is made: for the warp and block names of
 * (T, OP), use GP_DEFINE_REDUCE. The operator struct is gp__op_map_reduce_<name>, the
 * map gp__map_<name>. GP_DEFINE_MAP_REDUCE and GP_DEFINE_MAP2_REDUCE give a TU-local
 * (static) gp_<name>; the _EXTERN forms give it external C linkage (use one in a single
 * .cu file, and GP_DECLARE_MAP_REDUCE / GP_DECLARE_MAP2_REDUCE(name, Tin, T) elsewhere).
 * A MAP that calls a host-only function fails to compile, as an OP does (ops.cuh). */
#define GP__DEFINE_MAP(name, Tin, T, ARITY_, PARAMS, CALL)                                   \
    GP__DIAG_PUSH_OP_ERRORS                                                                \
    struct gp__map_##name {                                                                \
        typedef Tin in_type;                                                               \
        typedef T type;                                                                    \
        enum { ARITY = ARITY_ };                                                           \
        static __device__ __forceinline__ T apply PARAMS { return CALL; }                  \
    };                                                                                     \
    GP__DIAG_POP

#define GP__DEFINE_MAP_REDUCE_HOST(SCOPE, name, Tin, T, OPS, MAPS)                           \
    SCOPE cudaError_t gp_##name(T *d_out, const Tin *d_in, size_t n, cudaStream_t s)       \
    {                                                                                      \
        return gp__map_reduce<OPS, MAPS>(d_out, d_in, d_in, n, s);                         \
    }
#define GP__DEFINE_MAP2_REDUCE_HOST(SCOPE, name, Tin, T, OPS, MAPS)                          \
    SCOPE cudaError_t gp_##name(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s) \
    {                                                                                      \
        return gp__map_reduce<OPS, MAPS>(d_out, d_a, d_b, n, s);                           \
    }

#define GP__DEFINE_MAP_REDUCE_AS(SCOPE, name, Tin, T, MAP, OP, IDENTITY)                    \
    namespace {                                                                            \
    GP_DEFINE_OP(map_reduce_##name, T, OP, IDENTITY)                                       \
    GP__DEFINE_MAP(name, Tin, T, 1, (Tin x), MAP(x))                                       \
    }                                                                                      \
    GP__DEFINE_MAP_REDUCE_HOST(SCOPE, name, Tin, T, gp__op_map_reduce_##name, gp__map_##name)
#define GP__DEFINE_MAP2_REDUCE_AS(SCOPE, name, Tin, T, MAP2, OP, IDENTITY)                  \
    namespace {                                                                            \
    GP_DEFINE_OP(map_reduce_##name, T, OP, IDENTITY)                                       \
    GP__DEFINE_MAP(name, Tin, T, 2, (Tin a, Tin b), MAP2(a, b))                            \
    }                                                                                      \
    GP__DEFINE_MAP2_REDUCE_HOST(SCOPE, name, Tin, T, gp__op_map_reduce_##name, gp__map_##name)
#define GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY) \
    GP__DEFINE_MAP_REDUCE_AS([[maybe_unused]] static, name, Tin, T, MAP, OP, IDENTITY)
#define GP_DEFINE_MAP_REDUCE_EXTERN(name, Tin, T, MAP, OP, IDENTITY) \
    GP__DEFINE_MAP_REDUCE_AS(extern "C", name, Tin, T, MAP, OP, IDENTITY)
#define GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY) \
    GP__DEFINE_MAP2_REDUCE_AS([[maybe_unused]] static, name, Tin, T, MAP2, OP, IDENTITY)
#define GP_DEFINE_MAP2_REDUCE_EXTERN(name, Tin, T, MAP2, OP, IDENTITY) \
    GP__DEFINE_MAP2_REDUCE_AS(extern "C", name, Tin, T, MAP2, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE)
#define GP_DEFINE_REDUCE_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE_EXTERN)
#define GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP_REDUCE)
#define GP_DEFINE_MAP_REDUCE_EXTERN(name, Tin, T, MAP, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP_REDUCE_EXTERN)
#define GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP2_REDUCE)
#define GP_DEFINE_MAP2_REDUCE_EXTERN(name, Tin, T, MAP2, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP2_REDUCE_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_CUH */
