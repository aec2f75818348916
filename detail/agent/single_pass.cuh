/* detail/agent/single_pass.cuh -- the single-pass engine's shared pieces: tile status
 * words tagged with the call's epoch, their relaxed loads and stores, the last-block
 * reset of a launch's counters, and a flag one block raises for others (release/acquire). Level 3 (device code): needs util/common.cuh; the host
 * side of status memory is util/status.cuh, and util/launch.cuh hands each launch its
 * region and epoch.
 *
 * The single-pass families (scan, select, segmented scan, reduce-by-key) hand values from
 * tile to tile through these words, the segmented reduce each block's carry to the blocks
 * after it, and the grid-wide reduce hands each block's total to
 * the grid's last block (the sort tags its words by pass instead, in scratch
 * cleared per call: sort_kernels.cuh). A value of type T travels as ceil(sizeof(T) / 4) 64-bit words, each holding
 * 32 bits of the value in its low half and the call's epoch in its high half. A reader
 * takes a word as published only when its tag is this call's epoch: whatever an earlier
 * call left there (another epoch) reads as "not yet", so the words are never cleared
 * between calls (status.cuh). Each word is written once per call with a relaxed gpu-scope
 * store and read the same way, so a value is complete when all its words carry the epoch;
 * a 64-bit store is single-copy atomic, so no word is ever seen half written.
 *
 * Counters (a tile counter, a done counter) are not tagged: the kernel that uses them
 * returns them to 0 before it ends, with gp__last_block_reset. */
#ifndef GPUPRIMS_DETAIL_SINGLE_PASS_CUH
#define GPUPRIMS_DETAIL_SINGLE_PASS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"

/* 64-bit words per value of `elem` bytes. */
static constexpr GP__HD unsigned gp__status_words(size_t elem) { return (unsigned)((elem + 3) / 4); }

#ifdef __CUDACC__

static __device__ __forceinline__ void gp__st_relaxed_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ uint64_t gp__ld_relaxed_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* A flag between blocks of one grid: written with release (what the writer's block wrote
 * before its barrier comes first), read with acquire (gpu scope). */
static __device__ __forceinline__ void gp__st_release_u32(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ uint32_t gp__ld_acquire_u32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* A word of this call: `bits` tagged with `epoch` (never 0). */
static __device__ __forceinline__ uint64_t gp__status_word(uint32_t bits, uint32_t epoch)
{
    return (uint64_t)epoch << 32 | bits;
}
static __device__ __forceinline__ bool gp__status_ready(uint64_t w, uint32_t epoch) { return (uint32_t)(w >> 32) == epoch; }

/* Publishes v in slot t (words t * W .. t * W + W - 1). */
template <class T>
static __device__ __forceinline__ void gp__status_publish(uint64_t *status, size_t t, T v, uint32_t epoch)
{
    enum { W = gp__status_words(sizeof(T)) };
    uint32_t bits[W] = {};
    memcpy(bits, &v, sizeof(T));
#pragma unroll
    for (int c = 0; c < W; c++) gp__st_relaxed_u64(status + t * W + c, gp__status_word(bits[c], epoch));
}

/* Slot t's words as they are now (a reader may put several slots' loads in flight before
 * it decodes any). */
template <class T>
static __device__ __forceinline__ void gp__status_load(const uint64_t *status, size_t t,
                                                       uint64_t (&word)[gp__status_words(sizeof(T))])
{
#pragma unroll
    for (unsigned c = 0; c < gp__status_words(sizeof(T)); c++)
        word[c] = gp__ld_relaxed_u64(status + t * gp__status_words(sizeof(T)) + c);
}

/* A slot's loaded words: true, with the value in v, when all of them carry `epoch`. */
template <class T>
static __device__ __forceinline__ bool gp__status_decode(const uint64_t (&word)[gp__status_words(sizeof(T))],
                                                         uint32_t epoch, T &v)
{
    enum { W = gp__status_words(sizeof(T)) };
    uint32_t bits[W];
    bool ready = true;
#pragma unroll
    for (int c = 0; c < W; c++) {
        ready &= gp__status_ready(word[c], epoch);
        bits[c] = (uint32_t)word[c];
    }
    memcpy(&v, bits, sizeof(T));
    return ready;
}

/* One look at slot t: true, with the value in v, when all its words carry `epoch`. */
template <class T>
static __device__ __forceinline__ bool gp__status_try(const uint64_t *status, size_t t, uint32_t epoch, T &v)
{
    uint64_t word[gp__status_words(sizeof(T))];
    gp__status_load<T>(status, t, word);
    return gp__status_decode<T>(word, epoch, v);
}

/* The value in slot t, once all its words carry `epoch` (one thread spins on them). */
template <class T>
static __device__ __forceinline__ T gp__status_wait(const uint64_t *status, size_t t, uint32_t epoch)
{
    T v;
    while (!gp__status_try<T>(status, t, epoch, v)) {
    }
    return v;
}

/* Called by one thread of every block as the block's last act, after all its uses of the
 * counters: the last block to arrive returns `done` and the other `n` counters to 0, so
 * the next call on the region finds them as this one did. `done` counts blocks. */
static __device__ __forceinline__ void gp__last_block_reset(unsigned long long *done, unsigned long long *counters,
                                                            unsigned n)
{
    __threadfence(); /* this block's uses of the counters come before its arrival */
    if (atomicAdd(done, 1ull) == (unsigned long long)gridDim.x * gridDim.y * gridDim.z - 1) {
        for (unsigned i = 0; i < n; i++) counters[i] = 0;
        *done = 0;
    }
}

/* Called by every thread of each of `arrivals` blocks (0: every block of the grid), in
 * uniform control flow, after the writes that the last block will read (partials, records,
 * accumulators): true in every thread of the last block to arrive at `done`, which then
 * sees every block's writes. That block returns `done` to 0 after its last use of it
 * (status memory). */
static __device__ __forceinline__ bool gp__block_is_last(unsigned long long *done, unsigned long long arrivals = 0)
{
    __shared__ bool last;
    __threadfence(); /* this thread's writes come before the block's arrival */
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(done, 1ull) == (arrivals ? arrivals : (unsigned long long)gridDim.x * gridDim.y * gridDim.z) - 1;
    __syncthreads();
    if (!last) return false;
    __threadfence(); /* the other blocks' writes are seen */
    return true;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SINGLE_PASS_CUH */
