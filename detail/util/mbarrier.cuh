/* detail/util/mbarrier.cuh -- shared-memory barriers (mbarrier), the bulk copy engine (global
 * to shared memory, and back) and asynchronous stores between the blocks of a cluster, for
 * the pipelines of the single-pass kernels and the one-cluster sort. Level 0 (device code):
 * needs common.cuh. */
#ifndef GPUPRIMS_DETAIL_MBARRIER_CUH
#define GPUPRIMS_DETAIL_MBARRIER_CUH

#include <stdint.h>
#include <string.h>
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

/* A bulk copy of `bytes` (a multiple of 16) from shared `src` to global `dst` (both 16-byte
 * aligned), as one bulk group of the calling thread. The writes to `src` before it must be
 * made visible to the copy engine first (fence.proxy.async.shared::cta by each writer, then a
 * barrier among them). */
static __device__ __forceinline__ void gp__bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(gp__smem_u32(src)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Until the calling thread's bulk stores have read their sources (which may then be written
 * again), or, `done`, until their writes are complete. */
template <bool done>
static __device__ __forceinline__ void gp__bulk_store_wait(void)
{
    if constexpr (done) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    else asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* After gp__mbar_init, before anything but this block's threads uses the barriers: makes
 * them visible to the bulk copy engine that completes bytes on them, and to a cluster's
 * peers that store to them (this fence, then a cluster barrier before any peer's store). */
static __device__ __forceinline__ void gp__mbar_init_fence_cluster(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/* Between blocks of a cluster. Waits until the phase of parity `parity` has completed,
 * acquiring at cluster scope: what peers stored with gp__store_async before completing their
 * bytes on `b` is visible. */
static __device__ __forceinline__ void gp__mbar_wait_cluster(uint64_t *b, unsigned parity)
{
    unsigned ok;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(gp__smem_u32(b)), "r"(parity) : "memory");
    } while (!ok);
}
/* The address of this block's shared variable `p` in cluster block `rank`'s shared memory. */
static __device__ __forceinline__ unsigned gp__cluster_smem_u32(const void *p, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(gp__smem_u32(p)), "r"(rank));
    return r;
}
/* Stores v at `dst` in cluster block `rank` (dst: this block's address of the same variable,
 * aligned to sizeof(T) up to 16 bytes) without waiting, and completes sizeof(T) bytes on that
 * block's `bar`: the receiver learns from its barrier that the data has landed, so the
 * sender needs no fence and no cluster barrier. T: a multiple of 4 bytes. */
template <class T>
static __device__ __forceinline__ void gp__store_async(T *dst, const T &v, uint64_t *bar, unsigned rank)
{
    static_assert(sizeof(T) % 4 == 0 && sizeof(T) <= 16, "gp__store_async: 4, 8, 12 or 16 bytes");
    const unsigned a = gp__cluster_smem_u32(dst, rank), m = gp__cluster_smem_u32(bar, rank);
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
    if constexpr (sizeof(T) == 16) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(a),
                     "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"(m)
                     : "memory");
    } else if constexpr (sizeof(T) == 8) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];" ::"r"(a), "r"(w[0]),
                     "r"(w[1]), "r"(m)
                     : "memory");
    } else {
#pragma unroll
        for (unsigned i = 0; i < sizeof(T) / 4; i++)
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(a + 4 * i), "r"(w[i]),
                         "r"(m)
                         : "memory");
    }
}
#endif

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MBARRIER_CUH */
