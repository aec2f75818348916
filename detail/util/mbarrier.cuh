/* detail/util/mbarrier.cuh -- shared-memory barriers (mbarrier) and the bulk copy engine,
 * for the pipelines of the single-pass kernels. Level 0 (device code): needs common.cuh. */
#ifndef GPUPRIMS_DETAIL_MBARRIER_CUH
#define GPUPRIMS_DETAIL_MBARRIER_CUH

#include <stdint.h>
#include "common.cuh"

#ifdef __CUDACC__
/* mbarriers (sm_80+; try_wait and the bulk copy sm_90). Every arrive releases and every
 * completed wait acquires, at CTA scope: ordinary shared-memory writes before an arrive
 * are visible after the matching wait. sm_75 has no mbarrier: there a 64-bit shared word
 * stands in (arrivals in bits 0-15, expected arrivals in 16-31, the phase above), with
 * block-scope fences; no bulk copies are issued there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static __device__ __forceinline__ void gp__mbar_init(uint64_t *b, unsigned count) { *b = (uint64_t)count << 16; }
static __device__ __forceinline__ void gp__mbar_arrive(uint64_t *b)
{
    __threadfence_block();
    const unsigned long long old = atomicAdd(reinterpret_cast<unsigned long long *>(b), 1ull);
    const unsigned expected = (unsigned)(old >> 16) & 0xffffu;
    if (((unsigned)old & 0xffffu) + 1 == expected) /* last arrival: next phase, count from 0 */
        atomicAdd(reinterpret_cast<unsigned long long *>(b), (1ull << 32) - expected);
}
static __device__ __forceinline__ bool gp__mbar_test(uint64_t *b, unsigned parity)
{
    const uint64_t w = *reinterpret_cast<volatile uint64_t *>(b);
    const bool done = ((unsigned)(w >> 32) & 1u) != parity;
    if (done) __threadfence_block();
    return done;
}
#else
static __device__ __forceinline__ void gp__mbar_init(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(gp__smem_u32(b)), "r"(count) : "memory");
}
static __device__ __forceinline__ void gp__mbar_arrive(uint64_t *b)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(gp__smem_u32(b)) : "memory");
}
static __device__ __forceinline__ bool gp__mbar_test(uint64_t *b, unsigned parity)
{
    unsigned ok;
#if __CUDA_ARCH__ >= 900
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(gp__smem_u32(b)), "r"(parity) : "memory");
#else
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(gp__smem_u32(b)), "r"(parity) : "memory");
#endif
    return ok != 0;
}
#endif
/* Waits until the phase of parity `parity` has completed. */
static __device__ __forceinline__ void gp__mbar_wait(uint64_t *b, unsigned parity)
{
    while (!gp__mbar_test(b, parity)) {
    }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* One arrival that also expects `bytes` more from bulk copies completing on `bar`. */
static __device__ __forceinline__ void gp__mbar_arrive_expect(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(gp__smem_u32(bar)), "r"(bytes)
                 : "memory");
}
/* A bulk copy of `bytes` (a multiple of 16) from global `src` (16-byte aligned) to shared
 * `dst` (16-byte aligned), completing its bytes on `bar`. */
static __device__ __forceinline__ void gp__bulk_copy(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     gp__smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(gp__smem_u32(bar))
                 : "memory");
}
/* One arrival that also expects `bytes`, and the one bulk copy that brings them. */
static __device__ __forceinline__ void gp__bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    gp__mbar_arrive_expect(bar, bytes);
    gp__bulk_copy(dst, src, bytes, bar);
}
#endif

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MBARRIER_CUH */
