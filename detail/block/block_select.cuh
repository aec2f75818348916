/* detail/block/block_select.cuh -- block-wide select (stream compaction inside one block):
 * a scan of the keep flags, then a scatter of the kept items to consecutive places, in
 * thread order (Harris, Sengupta & Owens, GPU Gems 3 ch. 39.3.1). Level 2: needs
 * block_scan.cuh (and warp.cuh, common.cuh). The device-wide select (device/select.cuh)
 * does the same per tile with many items a thread, and its tile totals chained across the
 * grid. */
#ifndef GPUPRIMS_DETAIL_BLOCK_SELECT_CUH
#define GPUPRIMS_DETAIL_BLOCK_SELECT_CUH

#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "block_scan.cuh"

/* The 32-bit count a select scans (flags, positions): a sum that never overflows a tile. */
struct gp__op_sel_u32 {
    typedef uint32_t type;
    static __device__ __forceinline__ uint32_t apply(uint32_t a, uint32_t b) { return a + b; }
    static __device__ __forceinline__ uint32_t identity() { return 0u; }
};

/* Every thread passes one item x and whether to keep it. The kept items land at dst[0],
 * dst[1], ... in thread-rank order (stable); the others are not written. Returns the
 * number kept to every thread; *position (when not NULL) gets this thread's place in dst
 * (the number of kept items before it, whether or not it keeps its own).
 * dst: shared or global memory, room for the block's size. Block: 1-, 2- or 3-D, a
 * multiple of 32 threads, at most 1024; all threads call it, converged. Shared memory:
 * 128 bytes, static (the block scan's). Barriers: two inside (the scan's), none after the
 * scatter: put a __syncthreads() between the call and reads of dst[] made by other threads. */
template <class T>
static __device__ __forceinline__ unsigned gp__block_select(T *dst, const T &x, bool keep, unsigned *position)
{
    uint32_t total;
    const uint32_t pos = gp__block_scan<gp__op_sel_u32, false>(keep ? 1u : 0u, &total);
    if (keep) dst[pos] = x;
    if (position) *position = pos;
    return total;
}

/* ---- public names ------------------------------------------------------------------------
 *   unsigned gp_block_select_flagged_<name>(T *dst, T x, int keep, unsigned *position)
 *       (default instances: every select type; GP_DEFINE_SELECT makes the next one)
 *   unsigned gp_block_select_<name>(T *dst, T x, P p, unsigned *position)
 *       keeps x where PRED(x, p)
 *   Both: gp__block_select above (contract, shared memory, barriers). Snippet:
 *       __shared__ float kept[256];
 *       unsigned n = gp_block_select_flagged_f32(kept, v, v > 0.5f, NULL);
 *       __syncthreads();   // kept[0 .. n-1]: the block's v > 0.5, in thread order */
#define GP__DEFINE_BLOCK_SELECT_FLAGGED(name, T)                                                          \
    [[maybe_unused]] static __device__ __forceinline__ unsigned gp_block_select_flagged_##name(           \
        T *dst, T x, int keep, unsigned *position)                                                        \
    {                                                                                                     \
        return gp__block_select<T>(dst, x, keep != 0, position);                                          \
    }
#define GP__DEFINE_BLOCK_SELECT_PRED(name, T, P, FN)                                                       \
    [[maybe_unused]] static __device__ __forceinline__ unsigned gp_block_select_##name(T *dst, T x, P p,   \
                                                                                       unsigned *position) \
    {                                                                                                     \
        return gp__block_select<T>(dst, x, FN::pred(x, p), position);                                     \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_BLOCK_SELECT_CUH */
