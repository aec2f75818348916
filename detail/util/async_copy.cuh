/* detail/util/async_copy.cuh -- cp.async, the global -> shared copy that does not pass through
 * registers (sm_80 and later), as the tile loads and the matrix multiply use it. Level 0:
 * needs common.cuh (gp__smem_u32). Device code only.
 *
 * A copy global -> shared goes on while the thread does other work. Copies are committed
 * in groups and waited for by group. Built for targets before sm_80 the copies are
 * ordinary loads and stores, and commit and wait do nothing. */
#ifndef GPUPRIMS_DETAIL_ASYNC_COPY_CUH
#define GPUPRIMS_DETAIL_ASYNC_COPY_CUH

#include <cuda_runtime_api.h>
#include "common.cuh"

#ifdef __CUDACC__

template <int BYTES> struct gp__uint_of_size;
template <> struct gp__uint_of_size<4> { typedef unsigned type; };
template <> struct gp__uint_of_size<8> { typedef uint2 type; };
template <> struct gp__uint_of_size<16> { typedef uint4 type; };

/* One copy of BYTES (4, 8 or 16) bytes to the shared-memory address d (gp__smem_u32);
 * with ok == false the destination gets zeros and nothing is read. PREFETCH 256: the copy
 * also asks the L2 to fetch the whole 256-byte block around it from DRAM (.L2::256B), for
 * tiles whose rows are loaded in 4- or 8-byte pieces: the L2 then fetches each row
 * segment in large pieces instead of as the sectors are asked for (see gp_transpose). */
template <int BYTES, int PREFETCH = 0>
static __device__ __forceinline__ void gp__cp_async(unsigned d, const void *src, bool ok)
{
    static_assert(PREFETCH == 0 || PREFETCH == 256, "gp__cp_async: PREFETCH is 0 or 256");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* .cg: 16-byte copies may skip L1; the tile lives in shared memory */
#define GP__CP_ASYNC_AS(op) \
    asm volatile(op " [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES), "r"(ok ? BYTES : 0) : "memory")
    if constexpr (BYTES == 16 && PREFETCH == 256) GP__CP_ASYNC_AS("cp.async.cg.shared.global.L2::256B");
    else if constexpr (BYTES == 16) GP__CP_ASYNC_AS("cp.async.cg.shared.global");
    else if constexpr (PREFETCH == 256) GP__CP_ASYNC_AS("cp.async.ca.shared.global.L2::256B");
    else GP__CP_ASYNC_AS("cp.async.ca.shared.global");
#undef GP__CP_ASYNC_AS
#else
    typedef typename gp__uint_of_size<BYTES>::type W;
    *static_cast<W *>(__cvta_shared_to_generic(d)) = ok ? *static_cast<const W *>(src) : W();
#endif
}
/* The same to a pointer into shared memory. */
template <int BYTES, int PREFETCH = 0>
static __device__ __forceinline__ void gp__cp_async(void *dst, const void *src, bool ok)
{
    gp__cp_async<BYTES, PREFETCH>(gp__smem_u32(dst), src, ok);
}

static __device__ __forceinline__ void gp__cp_async_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N>
static __device__ __forceinline__ void gp__cp_async_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_ASYNC_COPY_CUH */
