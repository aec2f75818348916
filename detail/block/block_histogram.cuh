/* detail/block/block_histogram.cuh -- block-wide histograms in shared memory, for users'
 * kernels and for the device histogram: clear the counters, count items into them (runs of
 * equal bins counted once), add them to a histogram in global memory. Level 2: needs
 * util/common.cuh. Device code only. */
#ifndef GPUPRIMS_DETAIL_BLOCK_HISTOGRAM_CUH
#define GPUPRIMS_DETAIL_BLOCK_HISTOGRAM_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__

/* A thread's run of equal keys: consecutive items of one key cost one atomic, so a block of
 * equal items (a flat image, a constant column) does not serialise on one counter. Push
 * each key in turn, then flush. `add(key, count)` does the counting. */
struct gp__hist_run {
    uint64_t key;
    uint32_t count;
    __device__ __forceinline__ gp__hist_run() : key(0), count(0) {}
    template <class Add>
    __device__ __forceinline__ void push(uint64_t k, Add &add)
    {
        if (k != key) {
            if (count) add(key, count);
            key = k;
            count = 0;
        }
        count++;
    }
    template <class Add>
    __device__ __forceinline__ void flush(Add &add)
    {
        if (count) add(key, count);
        count = 0;
    }
};

/* ---- public names ---------------------------------------------------------------------------
 * A block histogram is `keys` uint32_t counters in shared memory (4 * keys bytes, which the
 * caller declares). The usual sequence, all threads of the block:
 *     __shared__ uint32_t s_hist[256];
 *     gp_block_histogram_zero(s_hist, 256);                  // ends with a barrier
 *     gp_block_histogram_<name>(s_hist, 256, items, count);  // GP_DEFINE_HISTOGRAM's BIN
 *     __syncthreads();
 *     gp_block_histogram_flush(d_hist, s_hist, 256);         // d_hist[k] += s_hist[k]
 * Counters are 32-bit: a block counts fewer than 2^32 items between a zero and a flush.
 *
 * void gp_block_histogram_zero(uint32_t *s_hist, size_t keys)
 *     Sets s_hist[0 .. keys) to 0. All threads of the block call it; it ends with a
 *     __syncthreads(), so counting may start at once. */
static __device__ __forceinline__ void gp_block_histogram_zero(uint32_t *s_hist, size_t keys)
{
    for (size_t i = gp__thread_rank(); i < keys; i += gp__block_size()) s_hist[i] = 0;
    __syncthreads();
}

/* void gp_block_histogram_add(uint32_t *s_hist, size_t keys, uint64_t key, uint32_t count)
 *     Adds count to s_hist[key] (a shared-memory atomic) when key < keys; any thread, any
 *     time between a zero and a flush. */
static __device__ __forceinline__ void gp_block_histogram_add(uint32_t *s_hist, size_t keys, uint64_t key, uint32_t count)
{
    if (key < keys) atomicAdd(&s_hist[key], count);
}

/* void gp_block_histogram_flush(uint64_t *d_hist, const uint32_t *s_hist, size_t keys)
 *     d_hist[k] += s_hist[k] for every k < keys with a non-zero count (64-bit atomics in
 *     global memory: blocks may flush into one histogram at once; counts are integers, so
 *     the result does not depend on their order). All threads of the block call it, after
 *     a __syncthreads() that follows the last count. No barrier inside. */
static __device__ __forceinline__ void gp_block_histogram_flush(uint64_t *d_hist, const uint32_t *s_hist, size_t keys)
{
    for (size_t k = gp__thread_rank(); k < keys; k += gp__block_size()) {
        const uint32_t c = s_hist[k];
        if (c) atomicAdd(reinterpret_cast<unsigned long long *>(d_hist + k), (unsigned long long)c);
    }
}

/* Counts items[0 .. count) of one thread by Bin (a functor: bin or >= keys), runs of equal
 * bins once. The engine of gp_block_histogram_<name> (GP_DEFINE_HISTOGRAM). */
template <class T, class Bin>
static __device__ __forceinline__ void gp__block_histogram(uint32_t *s_hist, size_t keys, const T *items, int count,
                                                           const Bin &bin)
{
    auto add = [&](uint64_t k, uint32_t c) { gp_block_histogram_add(s_hist, keys, k, c); };
    gp__hist_run run;
    for (int i = 0; i < count; i++) run.push(bin(items[i]), add);
    run.flush(add);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_BLOCK_HISTOGRAM_CUH */
