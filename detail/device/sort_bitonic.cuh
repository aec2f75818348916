/* detail/device/sort_bitonic.cuh -- the sort of at most GP__SORT_BITONIC_MAX keys: one block,
 * a thread a key, Batcher's bitonic sorting network on (key bits, input index). Level 4:
 * needs sort_kernels.cuh (the key transforms and the modes) and util/common.cuh.
 *
 * Why not the one-block radix sort (sort_kernels.cuh) down there: four passes of a block
 * rank over 1024 keys are latency, about ten barriers and a chain of shared-memory atomics
 * a pass. The network is log2(N) (log2(N) + 1) / 2 compare-exchange steps (55 for 1024
 * keys), each a shuffle inside a warp, or, for partners 32 or more apart, one exchange
 * through shared memory between two barriers (15 of the 55). Ties are broken by the input
 * index, so the order is the stable one and the same on every run; slots past n hold the
 * largest bits and indices past n, so they sort last and are never written. */
#ifndef GPUPRIMS_DETAIL_SORT_BITONIC_CUH
#define GPUPRIMS_DETAIL_SORT_BITONIC_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"

#define GP__SORT_BITONIC_MAX 1024 /* keys: one thread each, one block */

#ifdef __CUDACC__

/* Threads of the block for n keys: the power of two at or above n, at least a warp. */
static inline GP__HD unsigned gp__sort_bitonic_threads(size_t n)
{
    unsigned t = 32;
    while (t < n) t <<= 1;
    return t;
}

/* One block of gp__sort_bitonic_threads(n) threads sorts n <= GP__SORT_BITONIC_MAX keys (and
 * their values, or their indices). Every input is read into shared memory before any
 * output is written, so in place is safe. */
template <class K, class V, int MODE>
__global__ void __launch_bounds__(GP__SORT_BITONIC_MAX) gp__sort_bitonic_kernel(K *k_out, V *v_out, const K *k_in,
                                                                               const V *v_in, unsigned n, int desc)
{
    typedef typename gp__sort_key<K>::U U;
    enum { M = GP__SORT_BITONIC_MAX };
    /* raw bytes: a user's value type need not be constructible in shared memory */
    __shared__ __align__(16) unsigned char smem[M * (sizeof(V) + 2 * sizeof(U) + sizeof(uint32_t))];
    V *s_value = reinterpret_cast<V *>(smem);                       /* pairs */
    U *s_bits = reinterpret_cast<U *>(smem + M * sizeof(V));
    K *s_key = reinterpret_cast<K *>(s_bits + M);                    /* keys and pairs */
    uint32_t *s_index = reinterpret_cast<uint32_t *>(s_bits + 2 * M);
    static_assert(sizeof(K) == sizeof(U), "a key is as wide as its bits");
    const unsigned t = threadIdx.x, N = blockDim.x;
    U bits = (U)~(U)0; /* past n: the largest */
    uint32_t index = t;
    if (t < n) {
        const K k = gp__load_elem(k_in + t);
        bits = gp__sort_key<K>::bits(k);
        if (desc) bits = (U)~bits;
        if constexpr (MODE != GP__SORT_ARGSORT) s_key[t] = k;
        if constexpr (MODE == GP__SORT_PAIRS) s_value[t] = gp__load_elem(v_in + t);
    }
    for (unsigned k = 2; k <= N; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            U other_bits;
            uint32_t other_index;
            if (j >= 32) {
                s_bits[t] = bits;
                s_index[t] = index;
                __syncthreads();
                other_bits = s_bits[t ^ j];
                other_index = s_index[t ^ j];
                __syncthreads();
            } else {
                other_bits = (U)__shfl_xor_sync(GP__FULL_MASK, bits, j);
                other_index = __shfl_xor_sync(GP__FULL_MASK, index, j);
            }
            /* the pair (t, t ^ j) is ascending where bit k of its lower place is 0; the lower
             * place keeps the smaller of an ascending pair */
            const bool mine_smaller = bits < other_bits || (bits == other_bits && index < other_index);
            const bool keep_smaller = ((t & j) == 0) == ((t & k) == 0);
            if (mine_smaller != keep_smaller) {
                bits = other_bits;
                index = other_index;
            }
        }
    __syncthreads(); /* every input is in shared memory before any output is written */
    if (t < n) {
        if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(k_out + t, s_key[index]);
        if constexpr (MODE == GP__SORT_PAIRS) gp__store_elem(v_out + t, s_value[index]);
        if constexpr (MODE == GP__SORT_ARGSORT) gp__store_elem(v_out + t, (V)index);
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_BITONIC_CUH */
