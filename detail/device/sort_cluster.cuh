/* detail/device/sort_cluster.cuh -- the sort of more keys than one block's shared memory
 * holds, up to GP__SORT_CLUSTER_BLOCKS tiles: one thread-block cluster, each block a tile of
 * GP__SORT_CLUSTER_BLOCK x GP__SORT_CLUSTER_ITEMS keys kept in its shared memory through all
 * the passes. Level 4: needs sort_kernels.cuh (the key transforms, the modes, the block
 * rank), sort_block.cuh (a warp's rows of a tile, a tile's sort), util/mbarrier.cuh (the stores between
 * blocks), warp/warp.cuh (the scan of the digit totals) and util/common.cuh.
 *
 * Why: at 2^16 keys the grid path is five launches or more (the histograms, four passes)
 * and each pass a chain of look-backs through global memory, about 45 us from an idle GPU.
 * In a cluster the blocks exchange their digit counts and their keys through distributed
 * shared memory: one launch, and the data touch global memory once each way.
 *
 * A pass, block b of C: its tile counted by digit (gp__block_radix_count); the 256 counts
 * stored into every block's `counts` (16-bit, by pass parity); the tile ranked (stable,
 * gp__block_radix_rank_counted) and put in digit order in place (its keys are in
 * registers), so that each digit's keys go to consecutive places and a warp's stores to
 * its peers are contiguous (stored from the registers in tile order, a 2^16-key sort took
 * 39.7 us against 34.3: H100, one call from an idle GPU). Then one warp sums digit d's counts
 * over the C blocks (the digit's total) and over blocks before b (the keys of digit d that go
 * before this block's); a scan of the totals gives each digit's first place, so a key goes
 * to place first[d] + before[d] + (its rank among the tile's digit-d keys): block
 * place / TILE, slot place % TILE. Places follow (digit, block, rank), so the order is the
 * stable one. Tiles are filled in order, so only the last block has slots past n; they are
 * counted as digit 255 and rank after its real keys, so their places lie past n and real
 * keys never land there. A pass whose digit is the same for every key is skipped (the same
 * test in every block: the totals).
 *
 * No cluster barrier in a pass: counts and keys travel as asynchronous stores
 * (gp__store_async) that complete their bytes on the receiver's mbarrier, and each block
 * knows how many bytes it will receive (C blocks' counts; `mine` keys, since places are a
 * permutation). Under two cluster barriers a pass (the counts' release, then the keys'), a
 * barrier with the release of what was stored before it took 1600-2000 cycles, and the
 * counts read from the peers 2200 more (H100, 2^16 u32 keys, clock64 in block 0: 13.3K
 * cycles a pass); with the stores, 2^16 u32 keys took 22.4 us a call back to back against
 * 28.6, 2^13 19.7 against 23.2 (a probe of both kernels, outputs equal). The buffers are
 * safe without barriers: a block stores pass p's keys into a peer only after it has all
 * pass-p counts, so after the peer has finished pass p - 1 (it sends its counts after its
 * own keys of p - 1 have landed) and read what they overwrite; counts go to a buffer by
 * pass parity, and pass p + 2's counts come only after every block's pass p + 1 counts,
 * sent after it read pass p's. Keys of 2 bytes and values whose size is not a multiple of 4
 * (st.async stores 4-byte words) take plain stores to the peers and a cluster barrier after
 * them instead.
 *
 * The split, first: the top digit's pass as above, but each key sent to the block that sorts
 * its top digit. Block q takes the top digits whose first place lies in [q TILE, (q + 1)
 * TILE), receives their keys in one exchange, and sorts them alone with every digit, keys in
 * registers (gp__sort_block_lsd_tile, as the bucket path's blocks do), writing its part of
 * the output. Its bucket holds at most TILE - 1 keys plus its last digit's, so it fits a
 * tile of GP__SORT_CLUSTER_SPLIT_ITEMS keys a thread wherever no top digit holds more than
 * 512 keys (the same test in every block, from the totals); else the LSD passes run, on the
 * tile the top digit's count left in top-digit order (stable, so the LSD order stays the
 * stable one). One exchange of counts and keys instead of one a pass: the passes after it
 * wait for nothing outside the block. */
#ifndef GPUPRIMS_DETAIL_SORT_CLUSTER_CUH
#define GPUPRIMS_DETAIL_SORT_CLUSTER_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"
#include "sort_block.cuh" /* gp__sort_load_rows, gp__sort_block_lsd_tile */
#include "../util/mbarrier.cuh"
#include "../warp/warp.cuh"

#ifndef GP__SORT_CLUSTER_BLOCK
#define GP__SORT_CLUSTER_BLOCK 512 /* threads a block */
#define GP__SORT_CLUSTER_ITEMS 8   /* keys a thread: tiles of 4096 */
#endif
#define GP__SORT_CLUSTER_BLOCKS 16 /* the largest cluster (non-portable; 8 where refused) */
#ifndef GP__SORT_CLUSTER_BUFS
#define GP__SORT_CLUSTER_BUFS 1 /* the rank's match buffers (the split's bucket sort takes one) */
#endif

#ifdef __CUDACC__

/* The split's buckets (gp__sort_cluster_kernel, "The split"): a block sorts up to
 * GP__SORT_CLUSTER_BLOCK x GP__SORT_CLUSTER_SPLIT_ITEMS keys in registers, a tile and
 * GP__SORT_CLUSTER_BLOCK more (512), so any top digit of up to that many keys keeps the
 * split. */
#define GP__SORT_CLUSTER_SPLIT_ITEMS 9

template <int BLOCK>
struct gp__sort_cluster_smem {
    gp_block_radix_rank_smem<BLOCK, GP__SORT_CLUSTER_BUFS> rank;
    uint16_t counts[2][GP__SORT_CLUSTER_BLOCKS][256]; /* every block's digit counts, by exchange parity */
    unsigned shift[256];                              /* place of digit d's first key of the tile, minus its start */
    unsigned owner_start[GP__SORT_CLUSTER_BLOCKS];    /* the split: where each block's bucket begins in the output */
    uint8_t owner[256];                               /* the split: the block that sorts top digit d */
    unsigned skip[8];                                 /* pass p moves nothing */
    unsigned run[8];                                  /* the bucket's sort: key 0's digit of each pass */
    unsigned sample[256];                             /* top digits of BLOCK keys spread over the input */
    unsigned split, bucket_start, bucket_count;       /* the split runs; this block's bucket */
    uint64_t counts_in[2];                            /* the C blocks' counts of an exchange have landed (by parity) */
    uint64_t keys_in;                                 /* this tile's keys (and values) of a pass have landed (stores by st.async) */
};

/* Dynamic shared memory of a block: the rank and two buffers of keys and values, each a
 * bucket's size (the split's), a tile and 512 more. */
template <class K, class V, int MODE>
static inline GP__HD size_t gp__sort_cluster_smem_bytes(void)
{
    constexpr size_t CAP = (size_t)GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_SPLIT_ITEMS;
    return gp__round_up(sizeof(gp__sort_cluster_smem<GP__SORT_CLUSTER_BLOCK>), 16) + 2 * gp__round_up(CAP * sizeof(K), 16) +
           (MODE == GP__SORT_KEYS ? 0 : 2 * gp__round_up(CAP * sizeof(V), 16));
}

/* Whether a pass's keys and values go to the peers as asynchronous stores (4-byte words). */
template <class K, class V, int MODE>
static inline GP__HD constexpr bool gp__sort_cluster_async(void)
{
    return sizeof(K) % 4 == 0 && (MODE == GP__SORT_KEYS || sizeof(V) % 4 == 0);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* the helpers use the cluster's stores and barriers */
/* A pass's first half, every thread: the tile's digits of pass p counted, the counts sent to
 * every block (exchange `seq`, buffer seq & 1), the tile ranked and put in digit order in
 * place, so that each digit's keys are consecutive. */
template <int BLOCK, int ITEMS, int MODE, class K, class V>
static __device__ __forceinline__ void gp__sort_cluster_order(gp__sort_cluster_smem<BLOCK> &s, K *ksrc, V *vsrc, unsigned first,
                                                              unsigned mine, int p, int seq, int desc)
{
    const unsigned b = blockIdx.x, C = gridDim.x;
    if (threadIdx.x == 0) gp__mbar_arrive_expect(&s.counts_in[seq & 1], C * (unsigned)sizeof(s.counts[0][0]));
    K key[ITEMS];
    V val[ITEMS];
    unsigned digit[ITEMS], rank[ITEMS];
    gp__sort_load_rows(key, val, digit, [=](unsigned j, K &k, V &v) {
        k = ksrc[j];
        if constexpr (MODE != GP__SORT_KEYS) v = vsrc[j];
    }, first, mine, p, desc);
    gp__block_radix_count<BLOCK, ITEMS, GP__SORT_CLUSTER_BUFS>(digit, s.rank); /* ends with a barrier */
    for (unsigned i = threadIdx.x; i < C * 32; i += BLOCK) { /* this tile's counts to every block, 8 a store */
        const unsigned *c = s.rank.digit_count + 8 * (i % 32);
        const uint4 w = make_uint4(c[0] | c[1] << 16, c[2] | c[3] << 16, c[4] | c[5] << 16, c[6] | c[7] << 16);
        gp__store_async(reinterpret_cast<uint4 *>(s.counts[seq & 1][b]) + i % 32, w, &s.counts_in[seq & 1], i / 32);
    }
    gp__block_radix_rank_counted<BLOCK, ITEMS>(digit, rank, s.rank);
    __syncthreads();
    gp__sort_scatter_rows<MODE>(ksrc, vsrc, key, val, rank, first, mine);
}

/* A pass's second half, every thread: the tile's keys (and values), in digit order in ksrc,
 * each to slot `slot` of block q's kdst, (q, slot) = where(j, key) for the tile's j-th key,
 * as asynchronous stores that complete on the receiver's keys_in (else plain stores and a
 * cluster barrier); returns once this block's `expect` keys have landed (keys_in's phase of
 * parity `phase`). */
template <int BLOCK, int ITEMS, int MODE, class K, class V, class Where>
static __device__ __forceinline__ void gp__sort_cluster_send(gp__sort_cluster_smem<BLOCK> &s, const K *ksrc, const V *vsrc,
                                                             K *kdst, V *vdst, unsigned mine, unsigned expect,
                                                             unsigned phase, Where where)
{
    constexpr bool ASYNC = gp__sort_cluster_async<K, V, MODE>();
    if (ASYNC && threadIdx.x == 0)
        gp__mbar_arrive_expect(&s.keys_in, expect * (unsigned)(sizeof(K) + (MODE == GP__SORT_KEYS ? 0 : sizeof(V))));
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const unsigned j = threadIdx.x + i * BLOCK; /* the tile's j-th key in digit order */
        if (j < mine) {
            const K k = ksrc[j];
            unsigned q, slot;
            where(j, k, q, slot);
            if constexpr (ASYNC) {
                gp__store_async(kdst + slot, k, &s.keys_in, q);
                if constexpr (MODE != GP__SORT_KEYS) gp__store_async(vdst + slot, vsrc[j], &s.keys_in, q);
            } else {
                static_cast<K *>(__cluster_map_shared_rank((void *)kdst, q))[slot] = k;
                if constexpr (MODE != GP__SORT_KEYS) static_cast<V *>(__cluster_map_shared_rank((void *)vdst, q))[slot] = vsrc[j];
            }
        }
    }
    if constexpr (ASYNC) {
        gp__mbar_wait_cluster(&s.keys_in, phase); /* this tile's keys of the pass have landed */
    } else {
        __cluster_barrier_arrive(); /* release: the keys have landed */
        __cluster_barrier_wait();
    }
}

/* Warp 0, lane l, once exchange `seq` has landed: digits 8l .. 8l + 7's totals over the
 * cluster (the last tile's empty slots taken from digit 255) and their keys in the blocks
 * before this one; returns the lane's first place (digit 8l's), and whether one digit holds
 * every key. */
static __device__ __forceinline__ unsigned gp__sort_cluster_totals(const uint16_t (*counts)[256], uint64_t *landed, int seq,
                                                                   unsigned pad, unsigned n, unsigned (&total)[8],
                                                                   unsigned (&before)[8], bool &one)
{
    const unsigned lane = threadIdx.x & 31, b = blockIdx.x, C = gridDim.x;
    gp__mbar_wait_cluster(landed, (seq >> 1) & 1);
#pragma unroll
    for (int d = 0; d < 8; d++) total[d] = before[d] = 0;
    for (unsigned q = 0; q < C; q++) {
        const uint4 w = reinterpret_cast<const uint4 *>(counts[q])[lane];
        const unsigned c[8] = {w.x & 0xffffu, w.x >> 16, w.y & 0xffffu, w.y >> 16, w.z & 0xffffu, w.z >> 16, w.w & 0xffffu, w.w >> 16};
#pragma unroll
        for (int d = 0; d < 8; d++) {
            total[d] += c[d];
            if (q < b) before[d] += c[d];
        }
    }
    if (lane == 31) total[7] -= pad; /* the empty slots, all in the last tile */
    unsigned sum = 0;
    one = false;
#pragma unroll
    for (int d = 0; d < 8; d++) {
        sum += total[d];
        one |= total[d] == n;
    }
    /* exclusive scan of the lanes' sums: digit 8l's first place */
    return gp__warp_inclusive_scan<gp__op_digit_sum<unsigned>>(sum) - sum;
}

#endif

/* One cluster of gridDim.x blocks sorts n <= gridDim.x x TILE elements (every input is read
 * into shared memory before any output is written, so in place is safe). `split`: the split
 * may run (0: the LSD passes only, for the tests and the bench's small table). */
template <class K, class V, int MODE>
__global__ void __launch_bounds__(GP__SORT_CLUSTER_BLOCK, 1) gp__sort_cluster_kernel(K *k_out, V *v_out, const K *k_in,
                                                                                 const V *v_in, unsigned n, int desc, int split)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int P = sizeof(typename gp__sort_key<K>::U), BLOCK = GP__SORT_CLUSTER_BLOCK, ITEMS = GP__SORT_CLUSTER_ITEMS;
    constexpr unsigned TILE = BLOCK * ITEMS, CAP = BLOCK * GP__SORT_CLUSTER_SPLIT_ITEMS;
    constexpr bool ASYNC = gp__sort_cluster_async<K, V, MODE>();
    static_assert(CAP < 65536 && P <= 8, "a tile's digit counts are 16-bit");
    static_assert(GP__SORT_CLUSTER_BLOCKS <= 256, "a digit's owner is a byte");
    extern __shared__ __align__(16) unsigned char gp__sort_smem[];
    gp__sort_cluster_smem<BLOCK> &s = *reinterpret_cast<gp__sort_cluster_smem<BLOCK> *>(gp__sort_smem);
    unsigned char *at = gp__sort_smem + gp__round_up(sizeof(gp__sort_cluster_smem<BLOCK>), 16);
    K *const kb0 = reinterpret_cast<K *>(at), *const kb1 = reinterpret_cast<K *>(at + gp__round_up(CAP * sizeof(K), 16));
    at += 2 * gp__round_up(CAP * sizeof(K), 16);
    V *const vb0 = reinterpret_cast<V *>(at), *const vb1 = reinterpret_cast<V *>(at + gp__round_up(CAP * sizeof(V), 16));

    const unsigned b = blockIdx.x, C = gridDim.x, base = b * TILE;
    const unsigned mine = n > base ? (n - base < TILE ? n - base : TILE) : 0; /* this tile's keys */
    const unsigned pad = C * TILE - n;                                        /* the last tile's empty slots */
    if (threadIdx.x == 0) {
        gp__mbar_init(&s.counts_in[0], 1);
        gp__mbar_init(&s.counts_in[1], 1);
        if constexpr (ASYNC) gp__mbar_init(&s.keys_in, 1);
        gp__mbar_init_fence_cluster();
    }
    if (threadIdx.x < 8) s.skip[threadIdx.x] = 0;
    /* 2-byte keys: the split and two passes in the block took longer than two passes (H200,
     * 4097 keys 12.8 against 10.4 us, 65536 13.5 against 13.1) */
    const bool try_split = split && P > 2;
    if (try_split) {
        if (threadIdx.x < 256) s.sample[threadIdx.x] = 0;
        __syncthreads();
    }
    __cluster_barrier_arrive(); /* release: the barriers are ready (waited for before the first store to a peer) */
    K sampled{};
    if (try_split) sampled = gp__load_elem(k_in + threadIdx.x * n / BLOCK); /* the same keys in every block */
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
    if (try_split) atomicAdd(&s.sample[gp__sort_digit(sampled, P - 1, desc)], 1u);
    __syncthreads();
    __cluster_barrier_wait();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, first = warp * 32 * ITEMS + lane;
    int seq = 0; /* exchanges of counts so far */
    /* A top digit crowded in the sample would most likely leave the split at its exact test
     * below, after a pass's work (3.4-4.1 us: H200, 2^16 floats in [0, 1) 27.4 against 23.2
     * us, 8 distinct u32 keys 22.3 against 18.4): so the LSD passes at once where a top digit
     * holds 16 of the BLOCK sampled keys or more, standing for more than 3/4 of the split's
     * 512. The sample is the same in every block, and so is the choice. */
    bool go_split = false;
    if (try_split) {
        const unsigned c = threadIdx.x < 256 ? s.sample[threadIdx.x] : 0;
        go_split = !__syncthreads_or(c >= 16 && 4 * c * n > 3 * (CAP - TILE) * BLOCK);
    }

    /* The split: the top digit's counts decide. Where no top digit holds more than CAP - TILE
     * keys, block q takes the top digits whose first place lies in [q TILE, (q + 1) TILE) (at
     * most TILE - 1 + CAP - TILE keys), receives their keys in one exchange, in order of
     * (digit, block, rank), and sorts them alone, as the bucket kernel does. Else (a crowded
     * top digit) the LSD passes run; the tile put in top-digit order keeps equal keys in
     * their input order, so the LSD order stays the stable one. */
    if (go_split) {
        gp__sort_cluster_order<BLOCK, ITEMS, MODE>(s, kb0, vb0, first, mine, P - 1, seq, desc);
        if (threadIdx.x < 32) {
            unsigned total[8], before[8];
            bool one; /* unused: a top digit held by every key fills the sample, so the split is not tried */
            unsigned place = gp__sort_cluster_totals(s.counts[seq & 1], &s.counts_in[seq & 1], seq, pad, n, total, before, one);
            unsigned most = 0;
#pragma unroll
            for (int d = 0; d < 8; d++) most = most > total[d] ? most : total[d];
            const bool go = __reduce_max_sync(GP__FULL_MASK, most) <= CAP - TILE; /* the same in every block */
            unsigned owner[8], from[8], mine_q = 0; /* digit 8l + d's block and first place */
            if (go) {
#pragma unroll
                for (int d = 0; d < 8; d++) {
                    from[d] = place;
                    owner[d] = place / TILE; /* >= C only for empty digits at the end */
                    if (owner[d] == b) mine_q += total[d];
                    place += total[d];
                }
                /* a block's bucket begins at its first digit's first place */
                unsigned prev = __shfl_up_sync(GP__FULL_MASK, owner[7], 1); /* digit 8l - 1's owner */
                if (lane == 0) prev = ~0u;
#pragma unroll
                for (int d = 0; d < 8; d++) {
                    if (owner[d] != prev && owner[d] < C) s.owner_start[owner[d]] = from[d];
                    prev = owner[d];
                }
                __syncwarp();
#pragma unroll
                for (int d = 0; d < 8; d++) {
                    const unsigned q = owner[d] < C ? owner[d] : 0;
                    s.owner[8 * lane + d] = (uint8_t)q;
                    s.shift[8 * lane + d] = from[d] - s.owner_start[q] + before[d] - s.rank.digit_start[8 * lane + d];
                }
                mine_q = __reduce_add_sync(GP__FULL_MASK, mine_q);
                if (lane == 0) {
                    s.bucket_count = mine_q;
                    s.bucket_start = mine_q ? s.owner_start[b] : 0;
                }
            }
            if (lane == 0) s.split = go;
        }
        seq++;
        __syncthreads();
        if (s.split) {
            const unsigned count = s.bucket_count, start = s.bucket_start;
            gp__sort_cluster_send<BLOCK, ITEMS, MODE>(s, kb0, vb0, kb1, vb1, mine, count, 0,
                                                      [&](unsigned j, const K &k, unsigned &q, unsigned &slot) {
                                                          const unsigned d = gp__sort_digit(k, P - 1, desc);
                                                          q = s.owner[d];
                                                          slot = s.shift[d] + j;
                                                      });
            if (count == 0) return;
            /* the rank's match words were left at 0 by the one-buffer rank; its own first count zeroes them anyway */
            gp__sort_block_lsd_tile<K, V, MODE, BLOCK, GP__SORT_CLUSTER_SPLIT_ITEMS, P>(
                s.rank, s.run, kb1, vb1, count, desc,
                [&](unsigned i, K &k, V &v) {
                    k = kb1[i];
                    if constexpr (MODE != GP__SORT_KEYS) v = vb1[i];
                },
                [&](unsigned i, const K &k, const V &v) {
                    if constexpr (MODE != GP__SORT_ARGSORT) gp__store_elem(k_out + start + i, k);
                    if constexpr (MODE != GP__SORT_KEYS) gp__store_elem(v_out + start + i, v);
                });
            return;
        }
    }

    /* The LSD passes: a pass's counts, then each key straight to its place. */
    int cur = 0;           /* the tile is in kb0 / vb0, else in kb1 / vb1 */
    unsigned keys_ph = 0;  /* parity of keys_in's current phase */
    for (int p = 0; p < P; p++, seq++) {
        K *ksrc = cur ? kb1 : kb0;
        V *vsrc = cur ? vb1 : vb0;
        gp__sort_cluster_order<BLOCK, ITEMS, MODE>(s, ksrc, vsrc, first, mine, p, seq, desc);
        if (threadIdx.x < 32) {
            unsigned total[8], before[8];
            bool one;
            unsigned place = gp__sort_cluster_totals(s.counts[seq & 1], &s.counts_in[seq & 1], seq, pad, n, total, before, one);
#pragma unroll
            for (int d = 0; d < 8; d++) {
                s.shift[8 * lane + d] = place + before[d] - s.rank.digit_start[8 * lane + d];
                place += total[d];
            }
            if (one) s.skip[p] = 1; /* every key has this digit: the pass moves nothing */
        }
        __syncthreads();
        if (s.skip[p]) continue; /* the same in every block */
        K *kdst = cur ? kb0 : kb1;
        V *vdst = cur ? vb0 : vb1;
        gp__sort_cluster_send<BLOCK, ITEMS, MODE>(s, ksrc, vsrc, kdst, vdst, mine, mine, keys_ph,
                                                  [&](unsigned j, const K &k, unsigned &q, unsigned &slot) {
                                                      const unsigned place = s.shift[gp__sort_digit(k, p, desc)] + j;
                                                      q = place / TILE;
                                                      slot = place % TILE;
                                                  });
        keys_ph ^= 1;
        cur ^= 1;
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
