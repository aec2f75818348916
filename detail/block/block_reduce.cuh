/* detail/block/block_reduce.cuh -- block-wide reduction: warp shuffles, one slot per warp in
 * shared memory, one more warp reduce. Level 2: needs warp.cuh (and common.cuh). Device
 * code only. */
#ifndef GPUPRIMS_DETAIL_BLOCK_REDUCE_CUH
#define GPUPRIMS_DETAIL_BLOCK_REDUCE_CUH

#include "../util/common.cuh"
#include "../warp/warp.cuh"

#ifdef __CUDACC__

/* Combines one value per warp, each held in that warp's lane 0, in warp order; every
 * thread of the block returns the total.
 * Shared memory: 32 * sizeof(T), static, one array per operator instance.
 * Barriers: two __syncthreads(); the first guards the array against a previous call, so
 * back-to-back calls need no barrier of the caller's. All threads of the block must call. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__block_combine_warps(typename Op::type warp_total)
{
    typedef typename Op::type T;
    __shared__ T warp_totals[32];
    const unsigned rank = gp__thread_rank(), lane = rank & 31, nwarps = gp__block_size() >> 5;
    __syncthreads();
    if (lane == 0) warp_totals[rank >> 5] = warp_total;
    __syncthreads();
    T v = lane < nwarps ? warp_totals[lane] : Op::identity();
    return gp__warp_reduce<Op>(v);
}

/* Block reduce: every thread of the block returns the total of all threads' v, combined
 * in thread-rank order (so a non-commutative operator gives the sequential answer).
 * Block size: any multiple of 32 up to 1024, in 1, 2 or 3 dimensions.
 * Shared memory and barriers: as gp__block_combine_warps (32 * sizeof(T), two barriers,
 * safe to call again at once). All threads of the block must call it. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__block_reduce(typename Op::type v)
{
    return gp__block_combine_warps<Op>(gp__warp_reduce_lane0<Op>(v));
}

/* ---- public names (stamped out by GP_DEFINE_REDUCE and for every default instance) ------
 *   T gp_block_reduce_<name>(T v)
 *       Every thread of the block returns the total of all threads' v, combined in linear
 *       thread-rank order (x fastest). All threads of the block must call it, converged.
 *       Block shape: 1-, 2- or 3-D, a multiple of 32 threads, at most 1024.
 *       Shared memory: 32 * sizeof(T), static (one array per instance, not per call).
 *       Barriers: two __syncthreads() inside; the first guards the array against the
 *       previous call, so calls may follow one another with no barrier of the caller's. */
#define GP__DEFINE_BLOCK_REDUCE(name, T, OPS)                                                  \
    [[maybe_unused]] static __device__ __forceinline__ T gp_block_reduce_##name(T v)           \
    {                                                                                         \
        return gp__block_reduce<OPS>(v);                                                      \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_BLOCK_REDUCE_CUH */
