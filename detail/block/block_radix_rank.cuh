/* detail/block/block_radix_rank.cuh -- block radix rank: where each key of a tile goes when
 * the tile is ordered stably by one 8-bit digit. Level 2 (device code): needs
 * util/common.cuh and warp/warp.cuh (the warp scan). The radix sort (device/sort*.cuh)
 * ranks every tile of every pass with it; a user's kernel may call it to sort a tile in
 * shared memory.
 *
 * How. First the counts: each warp adds its keys to its own 256 counters with shared-
 * memory atomics, and per digit the warps' counts become where each warp's first key of that
 * digit goes (digit start plus the earlier warps' counts). Then the places, one item row at
 * a time: lanes holding the same digit find each other (each sets its bit in a per-warp word
 * of its digit with atomicOr and reads the word back, as CUB's one-sweep rank does; or with
 * __match_any_sync, MATCH_ANY = 1, slower on the H100), the lowest of them advances the
 * warp's counter by the group's size, and each lane's place is the counter before the add
 * plus the number of group members in lower lanes. Counting first lets the radix sort
 * publish a tile's counts before it ranks (Adinets & Merrill, "Onesweep" (2022): early
 * counts). A warp whose keys all hold one digit takes one add in each step and no match
 * word: keys an earlier pass grouped come in such warps, and 32 atomics on one word run one
 * at a time. Stable: a key's place depends only on the keys before it in tile order (warp,
 * then item row, then lane), never on timing (the atomics only count). */
#ifndef GPUPRIMS_DETAIL_BLOCK_RADIX_RANK_CUH
#define GPUPRIMS_DETAIL_BLOCK_RADIX_RANK_CUH

#include <stdint.h>
#include "../util/common.cuh"

#define GP_RADIX_DIGITS 256 /* 8-bit digits */

#ifdef __CUDACC__
#include "../warp/warp.cuh"

/* The sum of digit counts (C: unsigned, or unsigned long long for 64-bit counts), as the
 * warp scans take an operator. */
template <class C>
struct gp__op_digit_sum {
    typedef C type;
    static __device__ __forceinline__ C apply(C a, C b) { return a + b; }
    static __device__ __forceinline__ C identity() { return 0; }
};

/* Exclusive scan of one value per digit over the block's first 256 threads (thread d holds
 * digit d's x; the others pass anything and get garbage). Every thread of the block calls
 * it (it has barriers); s_total is 8 values of shared memory, free again on return. */
template <class C>
static __device__ __forceinline__ C gp__block_digit_scan(C x, C *s_total)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const C inc = gp__warp_inclusive_scan<gp__op_digit_sum<C>>(x);
    if (threadIdx.x < GP_RADIX_DIGITS && lane == 31) s_total[warp] = inc;
    __syncthreads();
    C base = 0;
    if (threadIdx.x < GP_RADIX_DIGITS)
        for (unsigned w = 0; w < warp; w++) base += s_total[w];
    __syncthreads();
    return base + inc - x;
}

/* The shared memory gp_block_radix_rank needs for a block of BLOCK threads:
 * BLOCK / 8 KB + 2 KB + 32 bytes (34 KB for 256 threads); with BUFS = 1 (one match word per
 * digit, a longer chain per item row) BLOCK / 16 KB + 2 KB + 32 bytes. After the call, digit_count[d]
 * holds how many of the tile's keys have digit d and digit_start[d] the exclusive scan of
 * those counts (where digit d's keys begin in the ordered tile). */
template <int BLOCK, int BUFS = 3>
struct __align__(16) gp_block_radix_rank_smem {
    unsigned warp_count[BLOCK / 32][GP_RADIX_DIGITS];
    unsigned warp_match[BLOCK / 32][BUFS][GP_RADIX_DIGITS]; /* lanes holding each digit, BUFS rows' buffers */
    unsigned digit_count[GP_RADIX_DIGITS];
    unsigned digit_start[GP_RADIX_DIGITS];
    unsigned total[8];
};

/* Whether all the ITEMS x 32 digits of the calling warp are one digit (then d0 = it): keys
 * an earlier pass grouped (a run of equal keys, or few distinct keys) come in such warps.
 * Every lane of the warp calls it. A test per warp, not per item row: 24 compares and one
 * vote rather than 24 shuffles and 24 votes, so that random keys pay little for it. */
template <int ITEMS>
static __device__ __forceinline__ bool gp__warp_one_digit(const unsigned (&digit)[ITEMS], unsigned &d0)
{
    d0 = __shfl_sync(GP__FULL_MASK, digit[0], 0);
    bool same = true;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) same &= digit[i] == d0;
    return __all_sync(GP__FULL_MASK, same);
}

/* Step 1 of the rank: the tile's digit counts, before any key is ranked (so a caller can
 * publish them at once: "early counts", Adinets & Merrill, "Onesweep" (2022)). Each warp
 * adds its keys to its own 256 counters with shared-memory atomics (a count does not
 * depend on the order of the adds); then, per digit, the warps' counters become where the
 * warp's first key of that digit goes in the ordered tile (the digit's start plus the
 * counts of the warps before it), and digit_count / digit_start are filled. Returns digit
 * d's count in thread d (d < 256; other threads: 0). Every thread calls it; it ends with a
 * barrier. With `first` (shared memory, written before the call): digit d's keys begin at
 * first[d] instead of the digit's start, so that step 2's ranks are the keys' places in the
 * caller's order (a block sort's whole array), with no lookup a key after it. */
template <int BLOCK, int ITEMS, int BUFS, bool MATCH_CLEAN = false>
static __device__ __forceinline__ unsigned gp__block_radix_count(const unsigned (&digit)[ITEMS],
                                                                 gp_block_radix_rank_smem<BLOCK, BUFS> &s,
                                                                 bool crowded = false, const unsigned *first = nullptr)
{
    static_assert(BLOCK % 32 == 0 && BLOCK >= GP_RADIX_DIGITS && BLOCK <= 1024, "gp_block_radix_rank: 256..1024 threads, whole warps");
    static_assert(!MATCH_CLEAN || BUFS == 1, "only the one-buffer rank leaves its match words at 0");
    const unsigned warp = threadIdx.x >> 5;
    /* warp_count and warp_match are adjacent: zeroed together, 16 bytes a store. MATCH_CLEAN:
     * the caller knows the match words are 0 (a rank with one buffer clears each word it sets,
     * so after the first zeroing they stay 0), and only the counters are zeroed. */
    uint4 *flat = reinterpret_cast<uint4 *>(&s.warp_count[0][0]);
    for (unsigned i = threadIdx.x; i < BLOCK / 32 * (MATCH_CLEAN ? 1 : 1 + BUFS) * GP_RADIX_DIGITS / 4; i += BLOCK)
        flat[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    const unsigned lane = threadIdx.x & 31;
    unsigned d0;
    if (gp__warp_one_digit(digit, d0)) { /* one add, not 32 ITEMS on one counter (one at a time) */
        if (lane == 0) atomicAdd(&s.warp_count[warp][d0], 32u * ITEMS);
    } else if (crowded) { /* a group of lanes on one digit: one add of its size */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const unsigned peers = __match_any_sync(GP__FULL_MASK, digit[i]);
            if (lane == (unsigned)__ffs(peers) - 1) atomicAdd(&s.warp_count[warp][digit[i]], (unsigned)__popc(peers));
        }
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) atomicAdd(&s.warp_count[warp][digit[i]], 1u);
    }
    __syncthreads();
    unsigned c = 0;
    if (threadIdx.x < GP_RADIX_DIGITS)
        for (int w = 0; w < BLOCK / 32; w++) c += s.warp_count[w][threadIdx.x];
    const unsigned start = gp__block_digit_scan<unsigned>(c, s.total);
    if (threadIdx.x < GP_RADIX_DIGITS) { /* warps' counts -> first places, in warp order */
        unsigned at = first ? first[threadIdx.x] : start;
        for (int w = 0; w < BLOCK / 32; w++) {
            const unsigned k = s.warp_count[w][threadIdx.x];
            s.warp_count[w][threadIdx.x] = at;
            at += k;
        }
        s.digit_count[threadIdx.x] = c;
        s.digit_start[threadIdx.x] = start;
    }
    __syncthreads();
    return c;
}

/* How step 2 finds the lanes of a warp that hold the same digit (GP__RANK_*). */
enum { GP__RANK_OR = 0, GP__RANK_MATCH_ANY = 1, GP__RANK_OR_LONG = 2 };

/* Step 2: each key's place, after gp__block_radix_count on the same digits. One item row
 * at a time, the lanes of a warp holding the same digit find each other: each sets its bit
 * in a per-warp word of its digit with atomicOr and reads the word back, as CUB's one-sweep
 * rank does (HOW = GP__RANK_OR; __match_any_sync, GP__RANK_MATCH_ANY, is slower on the
 * H100). The lowest of them advances the warp's counter of that digit by the group's size
 * (atomicAdd, which returns the count before), and each lane's place is that count plus the
 * group members in lower lanes. The order comes from warp, row and lane, never from timing:
 * the next row's leader adds only after the shuffle that needs this row's result.
 * The match words rotate over three buffers, so a word is cleared one row after its use,
 * off the row's chain: row i's reads end before barrier i + 1 and its buffer is next set
 * after barrier i + 2 (GP__RANK_OR_LONG: one buffer, cleared within the row, two more
 * __syncwarp a row: the ladder's previous step). No barrier at the end: smem.warp_count
 * and warp_match are in use until every thread has returned. */
template <int BLOCK, int ITEMS, int HOW_ = GP__RANK_OR, int BUFS>
static __device__ __forceinline__ void gp__block_radix_rank_counted(const unsigned (&digit)[ITEMS],
                                                                    unsigned (&rank)[ITEMS],
                                                                    gp_block_radix_rank_smem<BLOCK, BUFS> &s,
                                                                    bool crowded = false)
{
    constexpr int HOW = HOW_ == GP__RANK_OR && BUFS < 3 ? GP__RANK_OR_LONG : HOW_; /* three buffers or the long chain */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned *count = s.warp_count[warp];
    const unsigned below = (1u << lane) - 1;
    unsigned d0;
    if (HOW != GP__RANK_MATCH_ANY && gp__warp_one_digit(digit, d0)) {
        /* one digit in the whole warp: its keys go in tile order, and no match word is set.
         * Without this, a pass over keys that an earlier pass grouped (8 distinct values:
         * each tile of one or two digits) sent 32 atomics of a warp to one word and ran
         * 1.4x slower than one over random keys (H100, ncu: 574 against 417 us a pass at 2^26). */
        unsigned before = 0;
        if (lane == 0) before = atomicAdd(&count[d0], 32u * ITEMS);
        before = __shfl_sync(GP__FULL_MASK, before, 0);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) rank[i] = before + 32 * i + lane;
        return;
    }
    int led = -1; /* the digit this lane led in the row before (GP__RANK_OR) */
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        unsigned *match = s.warp_match[warp][HOW == GP__RANK_OR ? i % 3 % BUFS : 0];
        unsigned peers;
        if (HOW == GP__RANK_MATCH_ANY || crowded) {
            peers = __match_any_sync(GP__FULL_MASK, digit[i]);
        } else {
            atomicOr(&match[digit[i]], 1u << lane);
            __syncwarp();
            peers = match[digit[i]];
            if constexpr (HOW == GP__RANK_OR_LONG) __syncwarp();
        }
        const unsigned leader = __ffs(peers) - 1;
        unsigned before = 0;
        if constexpr (HOW == GP__RANK_OR_LONG) {
            if (lane == leader) {
                before = count[digit[i]];
                count[digit[i]] = before + __popc(peers);
                match[digit[i]] = 0; /* clean for the next row */
            }
        } else {
            if (lane == leader) before = atomicAdd(&count[digit[i]], __popc(peers));
            if (HOW == GP__RANK_OR && i > 0 && led >= 0) s.warp_match[warp][(i + 2) % 3 % BUFS][led] = 0;
            led = lane == leader ? (int)digit[i] : -1;
        }
        before = __shfl_sync(GP__FULL_MASK, before, leader);
        rank[i] = before + __popc(peers & below);
        if constexpr (HOW == GP__RANK_OR_LONG) __syncwarp(); /* the leader's count is seen by the next row's leader */
    }
}

/* gp_block_radix_rank<BLOCK, ITEMS>(digit, rank, smem): every thread of a block of BLOCK
 * threads (a multiple of 32, at least 256, blockDim.x == BLOCK) passes the digits (0..255)
 * of its ITEMS keys; on return rank[i] is where key i goes in the tile ordered stably by
 * digit (0 .. BLOCK * ITEMS - 1, each exactly once). Tile order is warp-striped: item i of
 * lane l of warp w is key w * 32 * ITEMS + i * 32 + l (so a warp loads row i of its run
 * with one coalesced access). Pad a partial tile with digit 255 at its end: padding then
 * ranks last. Every thread of the block must call it (barriers inside; it ends with one,
 * so smem may be reused at once, and digit_count / digit_start read by any thread).
 * It is gp__block_radix_count then gp__block_radix_rank_counted. */
template <int BLOCK, int ITEMS, int HOW = GP__RANK_OR, int BUFS>
static __device__ __forceinline__ void gp_block_radix_rank(const unsigned (&digit)[ITEMS], unsigned (&rank)[ITEMS],
                                                           gp_block_radix_rank_smem<BLOCK, BUFS> &s)
{
    gp__block_radix_count<BLOCK, ITEMS, BUFS>(digit, s);
    gp__block_radix_rank_counted<BLOCK, ITEMS, HOW>(digit, rank, s);
    __syncthreads();
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_BLOCK_RADIX_RANK_CUH */
