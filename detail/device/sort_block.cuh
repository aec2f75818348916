/* detail/device/sort_block.cuh -- one block radix-sorts keys in its shared memory: the whole
 * input of a small sort (1025 to 8192 keys, one launch), one top digit's keys on the bucket
 * path (the grid path's last kernel, sort.cuh), or a cluster block's top digits after the
 * cluster's split (sort_cluster.cuh). Level 4: needs sort_kernels.cuh (the
 * key transforms, the modes, the grid path's control words) and block/block_radix_rank.cuh.
 *
 * LSD in shared memory. Up to one tile of BLOCK x ITEMS keys (every bucket, the cluster's
 * too, and the one-block sort up to 4096 keys): the keys stay in registers, and each pass ranks them,
 * scatters them to their places and reads them back in order. More: the digit counts of
 * every pass from one read of the data, then per pass and tile a block rank (stable) and a
 * scatter into the other copy. Either way a pass whose digit is the same for every key is
 * skipped. */
#ifndef GPUPRIMS_DETAIL_SORT_BLOCK_CUH
#define GPUPRIMS_DETAIL_SORT_BLOCK_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"

/* The bucket kernel's tile: 512 threads x 9 keys, 4608 keys. At 2^20 keys, the bucket path's
 * largest input, a bucket holds 4096 keys on average and the largest of 256 random ones
 * about 4300: tiles of 4096 ranked that block's keys twice a pass, and the kernel waits for
 * its slowest block. H200, the library built with each shape, run in turn twice, 64 calls
 * back to back (us a call): at 2^20 u32 keys 55.0 to 48.6, pairs u32/u32 71.2 to 59.4,
 * argsort i32 71.9 to 59.8, u64 keys 124.4 to 99.9; at 2^17 to 2^19, where one tile of
 * either takes a bucket, 0.4-4.4% slower (u32 keys 2^19 39.0 to 39.7). 512 x 10, 576 x 8 and
 * 640 x 8 were slower than 512 x 9 at every size measured (docs/sort.md). */
#ifndef GP__SORT_BUCKET_BLOCK
#define GP__SORT_BUCKET_BLOCK 512 /* the bucket kernel's threads a block, */
#define GP__SORT_BUCKET_ITEMS 9   /* and keys a thread a tile */
#endif

#ifdef __CUDACC__
#include "../block/block_radix_rank.cuh"

/* ---- one block sorts it all (small n), or one bucket of the top digit ------------------------ */
#define GP__SORT_SMALL_BLOCK 1024 /* threads */
#define GP__SORT_TINY 2048       /* up to this many keys, GP__SORT_TINY_BLOCK threads: less to clear and to wait for */
#define GP__SORT_TINY_BLOCK 256
#define GP__SORT_SMALL_ITEMS 4
#ifndef GP__SORT_TINY_ITEMS
#define GP__SORT_TINY_ITEMS 8 /* 256 x 8: up to GP__SORT_TINY keys in one tile, its keys kept in registers */
#endif
template <int PASSES, int BLOCK>
struct gp__sort_small_smem {
    gp_block_radix_rank_smem<BLOCK, 1> rank; /* one match buffer: less to clear, more data fits */
    unsigned hist[PASSES][256];
    unsigned run[256];
    unsigned skip;
};
/* Bytes of dynamic shared memory for n elements (two copies of keys and values), sorted by
 * PASSES digits (every digit of the key by default). */
template <class K, class V, int MODE, int BLOCK, int PASSES = (int)sizeof(typename gp__sort_key<K>::U)>
static inline GP__HD size_t gp__sort_small_smem_bytes(size_t n)
{
    return gp__round_up(sizeof(gp__sort_small_smem<PASSES, BLOCK>), 16) + 2 * gp__round_up(n * sizeof(K), 16) +
           (MODE == GP__SORT_KEYS ? 0 : 2 * gp__round_up(n * sizeof(V), 16));
}

/* A warp's rows of a tile in shared memory: item i is slot first + 32 i (first: the warp's
 * first slot plus its lane), loaded (load(j, key, value)) with its digit of pass p where
 * the slot is below `end`; else digit 255, so an empty slot ranks last. */
template <int ITEMS, class K, class V, class Load>
static __device__ __forceinline__ void gp__sort_load_rows(K (&key)[ITEMS], V (&val)[ITEMS], unsigned (&digit)[ITEMS],
                                                          Load load, unsigned first, unsigned end, int p, int desc)
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const unsigned j = first + 32 * i;
        digit[i] = 255;
        if (j < end) {
            load(j, key[i], val[i]);
            digit[i] = gp__sort_digit(key[i], p, desc);
        }
    }
}

/* A warp's rows (slots first + 32 i below `end`) to their ranks in kdst (and vdst where
 * values travel). */
template <int MODE, int ITEMS, class K, class V>
static __device__ __forceinline__ void gp__sort_scatter_rows(K *kdst, V *vdst, const K (&key)[ITEMS], const V (&val)[ITEMS],
                                                             const unsigned (&rank)[ITEMS], unsigned first, unsigned end)
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (first + 32 * i < end) {
            kdst[rank[i]] = key[i];
            if constexpr (MODE != GP__SORT_KEYS) vdst[rank[i]] = val[i];
        }
    }
}

/* One tile (n <= BLOCK x ITEMS) sorted with its keys in registers: each pass ranks the
 * registers, scatters them to their places in `kb` and reads them back in tile order, so
 * the input is read once from global memory and the output written from the registers. A
 * pass whose digit is the same for every key (the count of key 0's digit is n) keeps the
 * registers as they are. Against the general loop below this drops, per key, the copy of
 * the input into shared memory and its read back, and the counts of every pass's digit
 * before the first pass (an atomic a key and pass): the tile's own count gives its digit
 * starts. H200, 64 calls back to back, u32 keys: 2048 13.6 to 8.4 us, 4096 17.4 to 13.9, 2^20
 * (the bucket path) 42.5 to 39.1 (docs/sort.md, "One tile in registers"). */
template <class K, class V, int MODE, int BLOCK, int ITEMS, int PASSES, class Load, class Store>
static __device__ __forceinline__ void gp__sort_block_lsd_tile(gp_block_radix_rank_smem<BLOCK, 1> &rank_smem, unsigned *run,
                                                               K *kb, V *vb, unsigned n, int desc, Load load, Store store)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned first = warp * 32 * ITEMS + lane;
    K key[ITEMS];
    V val[ITEMS];
    unsigned digit[ITEMS], rank[ITEMS];
    gp__sort_load_rows(key, val, digit, load, first, n, 0, desc);
    for (int p = 0; p < PASSES; p++) {
        if (p > 0) /* the registers hold the order of pass p - 1: their digits of pass p */
#pragma unroll
            for (int i = 0; i < ITEMS; i++) digit[i] = first + 32 * i < n ? gp__sort_digit(key[i], p, desc) : 255;
        if (threadIdx.x == 0) run[p] = digit[0]; /* slot 0 always holds a key; a word a pass, so no barrier frees it */
        if (p == 0) /* the first count zeroes the match words; the one-buffer rank leaves them at 0 */
            gp__block_radix_count<BLOCK, ITEMS>(digit, rank_smem);
        else
            gp__block_radix_count<BLOCK, ITEMS, 1, true>(digit, rank_smem);
        const unsigned d0 = run[p];
        if (rank_smem.digit_count[d0] - (d0 == 255 ? BLOCK * ITEMS - n : 0) == n) continue; /* the empty slots rank as 255 */
        gp__block_radix_rank_counted<BLOCK, ITEMS>(digit, rank, rank_smem);
        gp__sort_scatter_rows<MODE>(kb, vb, key, val, rank, first, n);
        __syncthreads(); /* the next count's barriers come before the next scatter */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            if (first + 32 * i < n) {
                key[i] = kb[first + 32 * i];
                if constexpr (MODE != GP__SORT_KEYS) val[i] = vb[first + 32 * i];
            }
        }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (first + 32 * i < n) store(first + 32 * i, key[i], val[i]);
}

/* One block sorts n elements in `smem` (gp__sort_small_smem_bytes(n)) by their digits
 * 0 .. PASSES - 1, least significant first: load(i, k, v) gives element i (v only where
 * values travel), store(i, k, v) takes place i of the order. The digit counts of every
 * pass come from one read of the data; a pass whose digit is the same for all n is skipped.
 * ONE_TILE: the caller's n never exceeds a tile, so the general loop is not compiled. */
template <class K, class V, int MODE, int BLOCK, int ITEMS, int PASSES, bool ONE_TILE = false, class Load, class Store>
static __device__ __forceinline__ void gp__sort_block_lsd(unsigned char *smem, unsigned n, int desc, Load load, Store store)
{
    constexpr unsigned TILE = BLOCK * ITEMS;
    gp__sort_small_smem<PASSES, BLOCK> &s = *reinterpret_cast<gp__sort_small_smem<PASSES, BLOCK> *>(smem);
    unsigned char *at = smem + gp__round_up(sizeof(gp__sort_small_smem<PASSES, BLOCK>), 16);
    /* the two copies as two pointers each, chosen by `cur`: an array of them indexed at run
     * time lives in local memory, and its loads sat on every pass's critical path (ncu) */
    K *const kb0 = reinterpret_cast<K *>(at), *const kb1 = reinterpret_cast<K *>(at + gp__round_up(n * sizeof(K), 16));
    at += 2 * gp__round_up(n * sizeof(K), 16);
    V *const vb0 = reinterpret_cast<V *>(at), *const vb1 = reinterpret_cast<V *>(at + gp__round_up(n * sizeof(V), 16));
    if (ONE_TILE || n <= TILE)
        return gp__sort_block_lsd_tile<K, V, MODE, BLOCK, ITEMS, PASSES>(s.rank, s.run, kb0, vb0, n, desc, load, store);
    if constexpr (!ONE_TILE) { /* more than a tile */
        for (unsigned i = threadIdx.x; i < PASSES * 256; i += BLOCK) (&s.hist[0][0])[i] = 0;
        if (threadIdx.x == 0) s.skip = 0;
        __syncthreads();
        for (unsigned base = 0; base < n; base += TILE) { /* a tile's loads all in flight, then counted */
            K k[ITEMS];
            V v[ITEMS];
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                if (base + threadIdx.x + i * BLOCK < n) load(base + threadIdx.x + i * BLOCK, k[i], v[i]);
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                const unsigned j = base + threadIdx.x + i * BLOCK;
                if (j < n) {
                    kb0[j] = k[i];
                    if constexpr (MODE != GP__SORT_KEYS) vb0[j] = v[i];
#pragma unroll
                    for (int p = 0; p < PASSES; p++) atomicAdd(&s.hist[p][gp__sort_digit(k[i], p, desc)], 1u);
                }
            }
        }
        __syncthreads();
        for (int p = 0; p < PASSES; p++) { /* counts -> offsets; a pass with one digit is skipped */
            const unsigned c = threadIdx.x < 256 ? s.hist[p][threadIdx.x] : 0;
            const unsigned start = gp__block_digit_scan<unsigned>(c, s.rank.total);
            if (threadIdx.x < 256) {
                s.hist[p][threadIdx.x] = start;
                if (c == n) atomicOr(&s.skip, 1u << p);
            }
        }
        __syncthreads();
        const unsigned skip = s.skip;
        const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        int cur = 0;
        for (int p = 0; p < PASSES; p++) {
            if (skip >> p & 1) continue;
            if (threadIdx.x < 256) s.run[threadIdx.x] = s.hist[p][threadIdx.x];
            K *const ksrc = cur ? kb1 : kb0, *const kdst = cur ? kb0 : kb1;
            V *const vsrc = cur ? vb1 : vb0, *const vdst = cur ? vb0 : vb1;
            for (unsigned base = 0; base < n; base += TILE) {
                const unsigned first = base + warp * 32 * ITEMS + lane;
                K key[ITEMS];
                V val[ITEMS];
                unsigned digit[ITEMS], rank[ITEMS];
                gp__sort_load_rows(key, val, digit, [&](unsigned j, K &k, V &v) {
                    k = ksrc[j];
                    if constexpr (MODE != GP__SORT_KEYS) v = vsrc[j];
                }, first, n, p, desc);
                /* ranks counted from s.run: each key's place in the pass's order (two random
                 * shared-memory reads a key fewer than the tile's rank plus a lookup). The rank
                 * leaves its counters in use; the barrier after the scatter frees them. */
                gp__block_radix_count<BLOCK, ITEMS>(digit, s.rank, false, s.run);
                gp__block_radix_rank_counted<BLOCK, ITEMS>(digit, rank, s.rank);
                gp__sort_scatter_rows<MODE>(kdst, vdst, key, val, rank, first, n);
                __syncthreads();
                if (threadIdx.x < 256) s.run[threadIdx.x] += s.rank.digit_count[threadIdx.x];
                /* the next tile's rank begins with a barrier before it touches its counts */
            }
            __syncthreads();
            cur ^= 1;
        }
        const K *const kfin = cur ? kb1 : kb0;
        const V *const vfin = cur ? vb1 : vb0;
        for (unsigned i = threadIdx.x; i < n; i += BLOCK) {
            V v{};
            if constexpr (MODE != GP__SORT_KEYS) v = vfin[i];
            store(i, kfin[i], v);
        }
    }
}

template <class K, class V, int MODE, int BLOCK>
__global__ void __launch_bounds__(BLOCK) gp__sort_small_kernel(K *k_out, V *v_out, const K *k_in, const V *v_in,
                                                              unsigned n, int desc)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    extern __shared__ __align__(16) unsigned char gp__sort_smem[];
    constexpr int ITEMS = BLOCK == GP__SORT_TINY_BLOCK ? GP__SORT_TINY_ITEMS : GP__SORT_SMALL_ITEMS;
    /* the tiny kernel's inputs (at most GP__SORT_TINY keys) fit one tile */
    constexpr bool ONE_TILE = BLOCK == GP__SORT_TINY_BLOCK && GP__SORT_TINY_BLOCK * GP__SORT_TINY_ITEMS >= GP__SORT_TINY;
    gp__sort_block_lsd<K, V, MODE, BLOCK, ITEMS, P, ONE_TILE>(
        gp__sort_smem, n, desc,
        [&](unsigned i, K &k, V &v) {
            k = gp__load_elem(k_in + i);
            if constexpr (MODE == GP__SORT_PAIRS) v = gp__load_elem(v_in + i);
            if constexpr (MODE == GP__SORT_ARGSORT) v = (V)i;
        },
        [&](unsigned i, const K &k, const V &v) {
            if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(k_out + i, k);
            if constexpr (MODE != GP__SORT_KEYS) gp__store_elem(v_out + i, v);
        });
}

/* The bucket path's second kernel: block d sorts the keys whose top digit is d (the pass of
 * that digit put them, in input order, at offsets[P - 1][d] of TMP_A) by their other
 * digits, in shared memory, and writes them at the same place of the output. Where the
 * histogram kernel did not choose the bucket path, it returns at once. */
template <class K, class V, int MODE>
__global__ void __launch_bounds__(GP__SORT_BUCKET_BLOCK) gp__sort_bucket_kernel(gp__sort_io<K, V> io)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    extern __shared__ __align__(16) unsigned char gp__sort_smem[];
    gp__chain_wait_only();
    if (!(__ldcg(&io.ctl[0]) & GP__SORT_BUCKET_MODE)) return;
    const size_t lo = (size_t)__ldcg(&io.offsets[(P - 1) * 256 + blockIdx.x]);
    /* its count from the offsets (the histogram kernel leaves its counts at 0 for the next call) */
    const size_t hi = blockIdx.x < 255 ? (size_t)__ldcg(&io.offsets[(P - 1) * 256 + blockIdx.x + 1]) : io.n;
    const unsigned count = (unsigned)(hi - lo); /* <= io.bucket_cap */
    if (count == 0) return;
    const K *k_in = io.k_buf[GP__SORT_TMP_A] + lo;
    const V *v_in = io.v_buf[GP__SORT_TMP_A] + lo;
    gp__sort_block_lsd<K, V, MODE, GP__SORT_BUCKET_BLOCK, GP__SORT_BUCKET_ITEMS, P - 1>(
        gp__sort_smem, count, io.desc,
        [&](unsigned i, K &k, V &v) {
            k = k_in[i];
            if constexpr (MODE != GP__SORT_KEYS) v = v_in[i];
        },
        [&](unsigned i, const K &k, const V &v) {
            if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(io.k_buf[GP__SORT_OUT] + lo + i, k);
            if constexpr (MODE == GP__SORT_PAIRS) gp__store_elem(io.v_buf[GP__SORT_OUT] + lo + i, v);
            if constexpr (MODE == GP__SORT_ARGSORT) gp__store_elem(io.idx_out + lo + i, (uint64_t)v);
        });
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_BLOCK_CUH */
