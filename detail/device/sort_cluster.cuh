/* detail/device/sort_cluster.cuh -- the sort of more keys than one block's shared memory
 * holds, up to GP__SORT_CLUSTER_BLOCKS tiles: one thread-block cluster, each block a tile of
 * GP__SORT_CLUSTER_BLOCK x GP__SORT_CLUSTER_ITEMS keys kept in its shared memory through all
 * the passes. Level 4: needs sort_kernels.cuh (the key transforms, the modes, the block
 * rank), sort_block.cuh (a warp's rows of a tile) and util/common.cuh.
 *
 * Why: at 2^16 keys the grid path is six launches (a zeroing, the histograms, four passes)
 * and each pass a chain of look-backs through global memory, about 45 us from an idle GPU.
 * In a cluster the blocks exchange their digit counts through distributed shared memory:
 * a pass is a block rank, the tile put in digit order in place, a cluster barrier, 16
 * remote loads a digit (all in flight at once), a scatter of the keys into the blocks that
 * own their places, and a second barrier. One launch, and the data touch global memory
 * once each way. In digit order, each digit's keys go to consecutive places, so a warp's
 * remote stores are contiguous: stored from the registers in tile order, a 2^16-key sort
 * took 39.7 us against 34.3 (H100, one call from an idle GPU; loads one at a time: 43.6).
 *
 * A pass, block b of C: its tile ranked by digit (stable, gp_block_radix_rank); after the
 * barrier, thread d sums digit d's counts over the C blocks (all of them: the digit's
 * total; those before b: the keys of digit d that go before this block's); an exclusive
 * scan of the totals gives each digit's first place, so a key goes to place
 * first[d] + before[d] + (its rank among the tile's digit-d keys): block place / TILE, slot
 * place % TILE. Places follow (digit, block, rank), so the order is the stable one. Tiles
 * are filled in order, so only the last block has slots past n; they are counted as digit
 * 255 and rank after its real keys, so their places lie past n and real keys never land
 * there. A pass whose digit is the same for every key is skipped (the same test in every
 * block: the totals). The second barrier also orders every block's remote reads of the
 * counts before the next pass's rank rewrites them. */
#ifndef GPUPRIMS_DETAIL_SORT_CLUSTER_CUH
#define GPUPRIMS_DETAIL_SORT_CLUSTER_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"
#include "sort_block.cuh" /* gp__sort_load_rows */

#ifndef GP__SORT_CLUSTER_BLOCK
#define GP__SORT_CLUSTER_BLOCK 512 /* threads a block */
#define GP__SORT_CLUSTER_ITEMS 8   /* keys a thread: tiles of 4096 */
#endif
#define GP__SORT_CLUSTER_BLOCKS 16 /* the largest cluster (non-portable; 8 where refused) */
#ifndef GP__SORT_CLUSTER_BUFS
#define GP__SORT_CLUSTER_BUFS 1 /* the rank's match buffers */
#endif

#ifdef __CUDACC__

template <int BLOCK>
struct gp__sort_cluster_smem {
    gp_block_radix_rank_smem<BLOCK, GP__SORT_CLUSTER_BUFS> rank;
    unsigned shift[256];                     /* place of digit d's first key of the tile, minus its start */
    unsigned skip;
};

/* Dynamic shared memory of a block: the rank and two tiles of keys and values. */
template <class K, class V, int MODE>
static inline GP__HD size_t gp__sort_cluster_smem_bytes(void)
{
    constexpr size_t TILE = (size_t)GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_ITEMS;
    return gp__round_up(sizeof(gp__sort_cluster_smem<GP__SORT_CLUSTER_BLOCK>), 16) + 2 * gp__round_up(TILE * sizeof(K), 16) +
           (MODE == GP__SORT_KEYS ? 0 : 2 * gp__round_up(TILE * sizeof(V), 16));
}

/* One cluster of gridDim.x blocks sorts n <= gridDim.x x TILE elements (every input is read
 * into shared memory before any output is written, so in place is safe). */
template <class K, class V, int MODE>
__global__ void __launch_bounds__(GP__SORT_CLUSTER_BLOCK, 1) gp__sort_cluster_kernel(K *k_out, V *v_out, const K *k_in,
                                                                                 const V *v_in, unsigned n, int desc)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int P = sizeof(typename gp__sort_key<K>::U), BLOCK = GP__SORT_CLUSTER_BLOCK, ITEMS = GP__SORT_CLUSTER_ITEMS;
    constexpr unsigned TILE = BLOCK * ITEMS;
    extern __shared__ __align__(16) unsigned char gp__sort_smem[];
    gp__sort_cluster_smem<BLOCK> &s = *reinterpret_cast<gp__sort_cluster_smem<BLOCK> *>(gp__sort_smem);
    unsigned char *at = gp__sort_smem + gp__round_up(sizeof(gp__sort_cluster_smem<BLOCK>), 16);
    K *const kb0 = reinterpret_cast<K *>(at), *const kb1 = reinterpret_cast<K *>(at + gp__round_up(TILE * sizeof(K), 16));
    at += 2 * gp__round_up(TILE * sizeof(K), 16);
    V *const vb0 = reinterpret_cast<V *>(at), *const vb1 = reinterpret_cast<V *>(at + gp__round_up(TILE * sizeof(V), 16));

    const unsigned b = blockIdx.x, C = gridDim.x, base = b * TILE;
    const unsigned mine = n > base ? (n - base < TILE ? n - base : TILE) : 0; /* this tile's keys */
    const unsigned pad = C * TILE - n;                                        /* the last tile's empty slots */
    { /* the tile into shared memory: every load in flight first */
        K k[ITEMS];
        V v[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const unsigned j = threadIdx.x + i * BLOCK;
            if (j < mine) {
                k[i] = gp__load_elem(k_in + base + j);
                if constexpr (MODE == GP__SORT_PAIRS) v[i] = gp__load_elem(v_in + base + j);
                if constexpr (MODE == GP__SORT_ARGSORT) v[i] = (V)(base + j);
            }
        }
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const unsigned j = threadIdx.x + i * BLOCK;
            if (j < mine) {
                kb0[j] = k[i];
                if constexpr (MODE != GP__SORT_KEYS) vb0[j] = v[i];
            }
        }
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, first = warp * 32 * ITEMS + lane;
    int cur = 0; /* the tile is in kb0 / vb0, else in kb1 / vb1 */
    for (int p = 0; p < P; p++) {
        K *ksrc = cur ? kb1 : kb0;
        V *vsrc = cur ? vb1 : vb0;
        K key[ITEMS];
        V val[ITEMS];
        unsigned digit[ITEMS], rank[ITEMS];
        gp__sort_load_rows(key, val, digit, [=](unsigned j, K &k, V &v) {
            k = ksrc[j];
            if constexpr (MODE != GP__SORT_KEYS) v = vsrc[j];
        }, first, mine, p, desc);
        gp_block_radix_rank<BLOCK, ITEMS>(digit, rank, s.rank); /* ends with a barrier */
        /* the tile in digit order, in place (its keys are in registers): each digit's keys go
         * to consecutive places, so a warp's remote stores below are contiguous */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            if (first + 32 * i < mine) {
                ksrc[rank[i]] = key[i];
                if constexpr (MODE != GP__SORT_KEYS) vsrc[rank[i]] = val[i];
            }
        }
        __cluster_barrier_arrive(); /* release: the counts are visible (and orders the staging) */
        __cluster_barrier_wait();
        unsigned total = 0, before = 0;
        if (threadIdx.x < 256) { /* every block's count of digit d: all the loads in flight at once */
            unsigned c[GP__SORT_CLUSTER_BLOCKS];
#pragma unroll
            for (unsigned q = 0; q < GP__SORT_CLUSTER_BLOCKS; q++)
                c[q] = q < C ? static_cast<const unsigned *>(
                                   __cluster_map_shared_rank((void *)&s.rank.digit_count[threadIdx.x], q))[0]
                             : 0;
#pragma unroll
            for (unsigned q = 0; q < GP__SORT_CLUSTER_BLOCKS; q++) {
                total += c[q];
                if (q < b) before += c[q];
            }
            if (threadIdx.x == 255) total -= pad; /* the empty slots, all in the last tile */
        }
        const unsigned first_place = gp__block_digit_scan<unsigned>(total, s.rank.total);
        if (threadIdx.x == 0) s.skip = 0;
        __syncthreads();
        if (threadIdx.x < 256) {
            s.shift[threadIdx.x] = first_place + before - s.rank.digit_start[threadIdx.x];
            if (total == n) s.skip = 1; /* every key has this digit: the pass moves nothing */
        }
        __syncthreads();
        const bool skip = s.skip != 0;
        if (!skip) {
            K *kdst = cur ? kb0 : kb1;
            V *vdst = cur ? vb0 : vb1;
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                const unsigned j = threadIdx.x + i * BLOCK; /* the tile's j-th key in digit order */
                if (j < mine) {
                    const K k = ksrc[j];
                    const unsigned place = s.shift[gp__sort_digit(k, p, desc)] + j, q = place / TILE, slot = place % TILE;
                    static_cast<K *>(__cluster_map_shared_rank((void *)kdst, q))[slot] = k;
                    if constexpr (MODE != GP__SORT_KEYS) static_cast<V *>(__cluster_map_shared_rank((void *)vdst, q))[slot] = vsrc[j];
                }
            }
        }
        __cluster_barrier_arrive(); /* release: the keys have landed, and every count was read */
        __cluster_barrier_wait();
        if (!skip) cur ^= 1;
    }
    const K *kfin = cur ? kb1 : kb0;
    const V *vfin = cur ? vb1 : vb0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const unsigned j = threadIdx.x + i * BLOCK;
        if (j < mine) {
            if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(k_out + base + j, kfin[j]);
            if constexpr (MODE != GP__SORT_KEYS) gp__store_elem(v_out + base + j, vfin[j]);
        }
    }
#endif
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_CLUSTER_CUH */
