/* detail/device/sort_bitonic.cuh -- the sort of at most GP__SORT_BITONIC_MAX keys: one block,
 * GP__SORT_BITONIC_ITEMS keys a thread in registers, Batcher's bitonic sorting network on
 * (key bits, input index); a thread a key up to GP__SORT_BITONIC_ONE_MAX keys and for 8-byte
 * keys. Level 4: needs sort_kernels.cuh (the key transforms and the modes) and
 * util/common.cuh.
 *
 * Why not the one-block radix sort (sort_kernels.cuh) down there: four passes of a block
 * rank over 1024 keys are latency, about ten barriers and a chain of shared-memory atomics
 * a pass. The network is log2(N) (log2(N) + 1) / 2 compare-exchange steps (55 for 1024
 * keys). With 8 keys a thread at consecutive slots, a step whose partners are under 8 apart
 * stays in the thread's registers (27 of the 55), one under 256 apart is a shuffle inside
 * the warp (25), and only partners 256 or more apart meet through shared memory between
 * two barriers (3). Ties are broken by the input index, so the order is the stable one and
 * the same on every run; slots past n hold the largest bits and indices past n, so they
 * sort last and are never written. */
#ifndef GPUPRIMS_DETAIL_SORT_BITONIC_CUH
#define GPUPRIMS_DETAIL_SORT_BITONIC_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"

#define GP__SORT_BITONIC_MAX 1024 /* keys: one block */
#define GP__SORT_BITONIC_ITEMS 8  /* keys a thread above GP__SORT_BITONIC_ONE_MAX (keys of up to 4 bytes) */
#ifndef GP__SORT_BITONIC_ONE_MAX
#define GP__SORT_BITONIC_ONE_MAX 512 /* up to here a thread a key */
#endif

#ifdef __CUDACC__

/* Keys a thread for n keys of kbytes bytes. Both ways sort a power of two of slots, so
 * 513 to 1024 keys cost what 1024 do. Measured (H100, us a call, 64 calls back to back,
 * both ways alternated in one session; a thread a key / 8 a thread, with an empty kernel's
 * time in turn): u32 keys, 1024: 8.5-8.6 / 7.8-8.0 (empty 3.5-3.7 both); 256: 4.2 / 5.2
 * (3.5-3.6); 33: 3.6 / 4.9; 512: 5.4 / 6.1, but with empty kernels of 3.8 / 4.5, so no
 * gain shown; argsort of f64 keys (8-byte bits, twice the registers and shuffles): 512
 * 6.1 / 7.6, 1024 10.2 / 10.5 (empty 3.7-3.9 both). Below 1024 slots, 8 keys a thread
 * leave too few warps to hide the latency of the steps. */
static inline GP__HD unsigned gp__sort_bitonic_items(size_t n, size_t kbytes)
{
    return n <= GP__SORT_BITONIC_ONE_MAX || kbytes > 4 ? 1 : GP__SORT_BITONIC_ITEMS;
}

/* Threads of the block for n keys, `items` a thread: a power of two, at least a warp. */
static inline GP__HD unsigned gp__sort_bitonic_threads(size_t n, unsigned items)
{
    unsigned t = 32;
    while ((size_t)t * items < n) t <<= 1;
    return t;
}

/* (bits, input index) a before b: the stable order */
template <class U>
static __device__ __forceinline__ bool gp__sort_bitonic_before(U a, uint32_t ia, U b, uint32_t ib)
{
    return a < b || (a == b && ia < ib);
}

/* The compare-exchange steps of stage k whose partners are inside each thread: partners J,
 * J/2, .., 1 apart (J < I; none for J = 0). Slot p of item i is t * I + i; the pair
 * (p, p | J) is ascending where bit k of p is 0. */
template <int I, int J, class U>
static __device__ __forceinline__ void gp__sort_bitonic_in_thread(U (&bits)[I], uint32_t (&index)[I], unsigned t,
                                                                  unsigned k)
{
    if constexpr (J > 0) {
#pragma unroll
        for (int i = 0; i < I; i++)
            if ((i & J) == 0) {
                const bool ascending = ((t * I + i) & k) == 0;
                const bool swap = ascending ? gp__sort_bitonic_before(bits[i + J], index[i + J], bits[i], index[i])
                                            : gp__sort_bitonic_before(bits[i], index[i], bits[i + J], index[i + J]);
                if (swap) {
                    const U b = bits[i];
                    const uint32_t x = index[i];
                    bits[i] = bits[i + J], index[i] = index[i + J];
                    bits[i + J] = b, index[i + J] = x;
                }
            }
        gp__sort_bitonic_in_thread<I, J / 2>(bits, index, t, k);
    }
}

/* One block of gp__sort_bitonic_threads(n, I) threads, I keys each (1, 2, 4 or 8), sorts
 * n <= GP__SORT_BITONIC_MAX keys (and their values, or their indices). Every input is read
 * into shared memory before any output is written, so in place is safe. */
template <class K, class V, int MODE, int I>
__global__ void __launch_bounds__(GP__SORT_BITONIC_MAX / I)
    gp__sort_bitonic_kernel(K *k_out, V *v_out, const K *k_in, const V *v_in, unsigned n, int desc)
{
    typedef typename gp__sort_key<K>::U U;
    enum { M = GP__SORT_BITONIC_MAX };
    static_assert(I == 1 || I == 2 || I == 4 || I == 8, "the stages inside a thread below cover up to 8 keys");
    /* raw bytes: a user's value type need not be constructible in shared memory */
    __shared__ __align__(16) unsigned char smem[M * (sizeof(V) + 2 * sizeof(U) + sizeof(uint32_t))];
    V *s_value = reinterpret_cast<V *>(smem);                       /* pairs */
    U *s_bits = reinterpret_cast<U *>(smem + M * sizeof(V));
    K *s_key = reinterpret_cast<K *>(s_bits + M);                    /* keys and pairs */
    uint32_t *s_index = reinterpret_cast<uint32_t *>(s_bits + 2 * M);
    static_assert(sizeof(K) == sizeof(U), "a key is as wide as its bits");
    const unsigned t = threadIdx.x, T = blockDim.x, N = T * I;
    /* item i of thread t: input i * T + t (coalesced loads), at slot t * I + i; past n the
     * largest bits and indices past n, so those sort last and are never written */
    U bits[I];
    uint32_t index[I];
#pragma unroll
    for (int i = 0; i < I; i++) {
        const unsigned x = i * T + t;
        bits[i] = (U)~(U)0;
        index[i] = x;
        if (x < n) {
            const K k = gp__load_elem(k_in + x);
            bits[i] = gp__sort_key<K>::bits(k);
            if (desc) bits[i] = (U)~bits[i];
            if constexpr (MODE != GP__SORT_ARGSORT) s_key[x] = k;
            if constexpr (MODE == GP__SORT_PAIRS) s_value[x] = gp__load_elem(v_in + x);
        }
    }
    /* stages k = 2 .. I: inside each thread */
    if constexpr (I >= 2) gp__sort_bitonic_in_thread<I, 1>(bits, index, t, 2);
    if constexpr (I >= 4) gp__sort_bitonic_in_thread<I, 2>(bits, index, t, 4);
    if constexpr (I >= 8) gp__sort_bitonic_in_thread<I, 4>(bits, index, t, 8);
    for (unsigned k = 2 * I; k <= N; k <<= 1) {
        /* partners j >= I apart: another thread, through a shuffle inside the warp (j < 32 I)
         * or shared memory between two barriers. Slot p's pair keeps the smaller in its lower
         * place where bit k of p is 0; both bits are the same for all of a thread's items. */
        for (unsigned j = k >> 1; j >= I; j >>= 1) {
            const bool keep_smaller = (((t * I) & j) == 0) == (((t * I) & k) == 0);
            U other_bits[I];
            uint32_t other_index[I];
            if (j >= 32 * I) {
#pragma unroll
                for (int i = 0; i < I; i++) s_bits[t * I + i] = bits[i], s_index[t * I + i] = index[i];
                __syncthreads();
#pragma unroll
                for (int i = 0; i < I; i++) {
                    other_bits[i] = s_bits[(t * I + i) ^ j];
                    other_index[i] = s_index[(t * I + i) ^ j];
                }
                __syncthreads();
            } else {
#pragma unroll
                for (int i = 0; i < I; i++) {
                    other_bits[i] = (U)__shfl_xor_sync(GP__FULL_MASK, bits[i], j / I);
                    other_index[i] = __shfl_xor_sync(GP__FULL_MASK, index[i], j / I);
                }
            }
#pragma unroll
            for (int i = 0; i < I; i++)
                if (gp__sort_bitonic_before(bits[i], index[i], other_bits[i], other_index[i]) != keep_smaller)
                    bits[i] = other_bits[i], index[i] = other_index[i];
        }
        gp__sort_bitonic_in_thread<I, I / 2>(bits, index, t, k);
    }
    /* the sorted input indices through shared memory, so the stores are coalesced */
#pragma unroll
    for (int i = 0; i < I; i++) s_index[t * I + i] = index[i];
    __syncthreads(); /* also: every input is in shared memory before any output is written */
#pragma unroll
    for (int i = 0; i < I; i++) {
        const unsigned x = i * T + t;
        if (x < n) {
            const uint32_t from = s_index[x];
            if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(k_out + x, s_key[from]);
            if constexpr (MODE == GP__SORT_PAIRS) gp__store_elem(v_out + x, s_value[from]);
            if constexpr (MODE == GP__SORT_ARGSORT) gp__store_elem(v_out + x, (V)from);
        }
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_BITONIC_CUH */
