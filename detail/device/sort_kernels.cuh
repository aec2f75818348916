/* detail/device/sort_kernels.cuh -- the radix sort's key transforms, buffer schedule and
 * kernels (the host side and the names are in sort.cuh). Level 4: needs
 * block/block_radix_rank.cuh, agent/single_pass.cuh, sort_look_back.cuh (the status words
 * and the look-back of a pass), util/launch.cuh (the chained launch's wait),
 * util/async_copy.cuh (4-byte values to their slots) and util/common.cuh.
 *
 * LSD radix sort with 8-bit digits after Adinets & Merrill, "Onesweep: A Faster Least
 * Significant Digit Radix Sort for GPUs" (2022):
 *   1. one histogram kernel reads the keys once and counts the digits of every pass; its
 *      last block turns the counts into each pass's digit offsets and marks the passes
 *      whose digit is the same for every key (they are skipped: no data moves);
 *   2. one kernel per pass: each tile (taken in order from an atomic counter) counts its
 *      keys' digits and publishes the 256 counts in status words at once ("early counts"),
 *      ranks its keys (gp__block_radix_rank_counted), then finds for each digit the count
 *      of all earlier tiles (decoupled look-back per digit: one thread per digit walks
 *      back, GP__SORT_WIN words a load step, adding counts until it meets an inclusive
 *      prefix), publishes its own inclusive prefix, and scatters keys and values
 *      through shared memory, so that each digit's run is written in order;
 *   3. small inputs, and the bucket path's buckets: one block sorts them in shared memory
 *      (sort_block.cuh).
 * Keys are compared as unsigned bits: signed integers with the sign bit flipped, floats in
 * IEEE 754 totalOrder (negative: all bits flipped; positive: the sign bit), descending with
 * every bit flipped (the reverse order, still stable). The buffers hold the original keys;
 * the transform is applied at every load. */
#ifndef GPUPRIMS_DETAIL_SORT_KERNELS_CUH
#define GPUPRIMS_DETAIL_SORT_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"

enum { GP__SORT_KEYS = 0, GP__SORT_PAIRS = 1, GP__SORT_ARGSORT = 2 };
/* buffers of the schedule */
enum { GP__SORT_IN = 0, GP__SORT_OUT = 1, GP__SORT_TMP_A = 2, GP__SORT_TMP_B = 3 };

/* Which buffer real pass r of R writes. The last writes the output; going back, passes
 * alternate with TMP_A, so data lands in the output without a copy. In place, pass 0
 * would write the output it is still reading: it writes TMP_B instead (with R == 1 the
 * data then ends in TMP_B and a copy follows). Argsort's keys never reach an output: they
 * alternate TMP_A, TMP_B (the last pass writes no keys). */
static inline GP__HD int gp__sort_dst(int r, int R, int in_place, int argsort_keys)
{
    if (argsort_keys) return (r & 1) ? GP__SORT_TMP_B : GP__SORT_TMP_A;
    int d = ((R - 1 - r) & 1) ? GP__SORT_TMP_A : GP__SORT_OUT;
    if (r == 0 && d == GP__SORT_OUT && in_place) d = GP__SORT_TMP_B;
    return d;
}
static inline GP__HD int gp__sort_src(int r, int R, int in_place, int argsort_keys)
{
    return r == 0 ? GP__SORT_IN : gp__sort_dst(r - 1, R, in_place, argsort_keys);
}
/* Real passes (not skipped) among P passes, and how many of them come before pass p. */
static inline GP__HD int gp__sort_popc(unsigned x)
{
    int c = 0;
    for (; x; x &= x - 1) c++;
    return c;
}
static inline GP__HD int gp__sort_real_passes(unsigned skip, int P) { return P - gp__sort_popc(skip & ((1u << P) - 1)); }
static inline GP__HD int gp__sort_rank_of(unsigned skip, int p) { return p - gp__sort_popc(skip & ((1u << p) - 1)); }

#ifdef __cplusplus
/* ---- key transforms --------------------------------------------------------------------- */
template <class K> struct gp__sort_key;
#define GP__SORT_UINT_KEY(K, UT)                                                        \
    template <> struct gp__sort_key<K> {                                                 \
        typedef UT U;                                                                    \
        static GP__HD U bits(K k) { return (U)k; }                                       \
    };
#define GP__SORT_INT_KEY(K, UT)                                                         \
    template <> struct gp__sort_key<K> {                                                 \
        typedef UT U;                                                                    \
        static GP__HD U bits(K k) { return (U)k ^ ((U)1 << (sizeof(U) * 8 - 1)); }       \
    };
/* totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN */
#define GP__SORT_FLOAT_KEY(K, UT, IT)                                                   \
    template <> struct gp__sort_key<K> {                                                 \
        typedef UT U;                                                                    \
        static GP__HD U bits(K k)                                                        \
        {                                                                                \
            U u;                                                                         \
            memcpy(&u, &k, sizeof u);                                                    \
            const U sign = (U)1 << (sizeof(U) * 8 - 1);                                  \
            return u ^ ((U)((IT)u >> (sizeof(U) * 8 - 1)) | sign);                       \
        }                                                                                \
    };
GP__SORT_UINT_KEY(uint8_t, uint8_t)
GP__SORT_UINT_KEY(uint16_t, uint16_t)
GP__SORT_UINT_KEY(uint32_t, uint32_t)
GP__SORT_UINT_KEY(uint64_t, uint64_t)
GP__SORT_INT_KEY(int8_t, uint8_t)
GP__SORT_INT_KEY(int16_t, uint16_t)
GP__SORT_INT_KEY(int32_t, uint32_t)
GP__SORT_INT_KEY(int64_t, uint64_t)
GP__SORT_FLOAT_KEY(float, uint32_t, int32_t)
GP__SORT_FLOAT_KEY(double, uint64_t, int64_t)

/* Whether a pair's values of type V may go to their ranked slots by 4-byte copies
 * (cp.async) instead of through registers: 4 bytes on 4-byte boundaries (a type of four
 * chars may sit anywhere, where a 4-byte copy would fault). The pass kernel copies them so
 * in tiles of GP__SORT_ASYNC_ITEMS keys a thread or more (GP__SORT_ASYNC_ITEMS_K8 with
 * 8-byte keys); they then take the tiles of keys alone (gp__sort_items, sort.cuh). */
template <class V>
static constexpr GP__HD bool gp__sort_values_by_copy() { return sizeof(V) == 4 && alignof(V) >= 4; }
#ifndef GP__SORT_ASYNC_ITEMS
#define GP__SORT_ASYNC_ITEMS 24 /* from this many keys a thread, 4-byte values go by cp.async (the pass kernel) */
#endif
#ifndef GP__SORT_ASYNC_ITEMS_K8
#define GP__SORT_ASYNC_ITEMS_K8 16 /* the same with 8-byte keys, whose registers allow no larger tiles than x 20 */
#endif
/* The fewest keys a thread at which the pass kernel copies such values, for keys of
 * `kbytes` (below it the loads into registers, issued earlier, were faster). */
static constexpr GP__HD int gp__sort_async_items(size_t kbytes)
{
    return kbytes == 8 ? GP__SORT_ASYNC_ITEMS_K8 : GP__SORT_ASYNC_ITEMS;
}

/* Digit p (0: least significant) of key k in the sort's order. */
template <class K>
static inline GP__HD unsigned gp__sort_digit(K k, int p, int desc)
{
    typedef typename gp__sort_key<K>::U U;
    U b = gp__sort_key<K>::bits(k);
    if (desc) b = (U)~b;
    return (unsigned)(b >> (8 * p)) & 255u;
}

#endif /* __cplusplus */

/* Memory of the grid path, in two parts, each part's pieces GP__SCRATCH_ALIGN-aligned.
 * The control part is the stream's status region where one serves (util/status.cuh; else
 * per-call scratch cleared before the histogram kernel), so its layout is the same for
 * every key type and size, and each word in it is always a counter left at 0 by the call,
 * always a tagged word, or always data written before it is read:
 *   hist     8 x 256 u64   digit counts of every pass (counters)
 *   offsets  8 x 256 u64   each pass's exclusive digit offsets (data, from the last block)
 *   ctl      10 u64        skip mask (data), done counter, a tile counter a pass (counters)
 *   status   tiles x 256 x words x 8   per-tile digit counts (tagged words)
 * The buffers (per-call scratch from the pool): keys A, keys B, values A, values B (n
 * elements each, where needed). */
#define GP__SORT_MAX_PASSES 8
typedef struct gp__sort_layout {
    size_t hist, offsets, ctl, status, control; /* from the control part's start; control: its bytes */
    size_t ka, kb, va, vb, buffers;            /* from the buffers' start; buffers: their bytes */
} gp__sort_layout;

static inline GP__HD gp__sort_layout gp__sort_make_layout(size_t n, size_t tiles, size_t kbytes, size_t vbytes,
                                                          int status_words, int need_kb, int need_va, int need_vb)
{
    gp__sort_layout l;
    size_t at = 0;
    l.hist = at;
    at = gp__round_up(at + (size_t)GP__SORT_MAX_PASSES * 256 * 8, GP__SCRATCH_ALIGN);
    l.offsets = at;
    at = gp__round_up(at + (size_t)GP__SORT_MAX_PASSES * 256 * 8, GP__SCRATCH_ALIGN);
    l.ctl = at;
    at = gp__round_up(at + (size_t)(2 + GP__SORT_MAX_PASSES) * 8, GP__SCRATCH_ALIGN);
    l.status = at;
    at = gp__round_up(at + tiles * 256 * (size_t)status_words * 8, GP__SCRATCH_ALIGN);
    l.control = at;
    at = 0;
    l.ka = at;
    at = gp__round_up(at + n * kbytes, GP__SCRATCH_ALIGN);
    l.kb = at;
    if (need_kb) at = gp__round_up(at + n * kbytes, GP__SCRATCH_ALIGN);
    l.va = at;
    if (need_va) at = gp__round_up(at + n * vbytes, GP__SCRATCH_ALIGN);
    l.vb = at;
    if (need_vb) at = gp__round_up(at + n * vbytes, GP__SCRATCH_ALIGN);
    l.buffers = at;
    return l;
}

#ifdef __CUDACC__
#include "../block/block_radix_rank.cuh"
#include "../agent/single_pass.cuh"
#include "../util/launch.cuh"
#include "../util/async_copy.cuh"
#include "sort_look_back.cuh"

/* What every grid kernel of one call sees. Values are V (keys only: unused). Argsort's
 * values are the indices, 32-bit below 2^32 keys (half the bytes a pass moves), which may
 * ping-pong through the caller's index array (as uint32_t, v_buf[OUT]); the last pass
 * writes them to idx_out as 64-bit. */
template <class K, class V>
struct gp__sort_io {
    const K *k_in;
    K *k_buf[4]; /* GP__SORT_IN (as K *), OUT, TMP_A, TMP_B */
    V *v_buf[4];
    uint64_t *idx_out; /* argsort: the caller's indices */
    size_t n;
    unsigned long long *hist, *offsets, *ctl; /* ctl[0] skip mask (crowded mask << 32, GP__SORT_BUCKET_MODE), ctl[1] done, ctl[2 + p] tile counter */
    uint64_t *status;
    uint32_t epoch; /* the first of the call's GP__SORT_EPOCHS tags (sort_look_back.cuh) */
    int desc, in_place;
    unsigned bucket_cap; /* the bucket path's largest bucket (0: never the bucket path) */
};

/* buf[i] without indexing the kernel parameter (which would copy the array to local memory) */
template <class T>
static __device__ __forceinline__ T *gp__sort_pick(T *const (&buf)[4], int i)
{
    return i == 0 ? buf[0] : i == 1 ? buf[1] : i == 2 ? buf[2] : buf[3];
}

/* ---- histogram of every pass ------------------------------------------------------------- */
#define GP__SORT_HIST_THREADS 512
/* The bucket path (gp__sort_bucket_kernel, sort_block.cuh): set in ctl[0] by the histogram kernel where no
 * top digit holds more than io.bucket_cap keys */
#define GP__SORT_BUCKET_MODE (1ull << 16)
#ifndef GP__SORT_CROWDED_SHIFT
#define GP__SORT_CROWDED_SHIFT 2 /* a pass is crowded where one digit holds more than n >> this */
#endif
template <class K, class V>
__global__ void __launch_bounds__(GP__SORT_HIST_THREADS) gp__sort_hist_kernel(gp__sort_io<K, V> io)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    static_assert(P <= GP__SORT_MAX_PASSES && 2 * GP__SORT_MAX_PASSES <= GP__SORT_EPOCHS, "the control part's layout");
    __shared__ unsigned s_hist[P][256];
    gp__chain_wait_only(); /* a programmatic dependent of the stream's earlier work (sm_90) */
    for (unsigned i = threadIdx.x; i < P * 256; i += blockDim.x) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < io.n; i += 4 * stride) { /* four loads in flight a thread */
        K k[4];
#pragma unroll
        for (int u = 0; u < 4; u++) k[u] = gp__load_elem(io.k_in + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int p = 0; p < P; p++) atomicAdd(&s_hist[p][gp__sort_digit(k[u], p, io.desc)], 1u);
    }
    for (; i < io.n; i += stride) {
        const K k = gp__load_elem(io.k_in + i);
#pragma unroll
        for (int p = 0; p < P; p++) atomicAdd(&s_hist[p][gp__sort_digit(k, p, io.desc)], 1u);
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < P * 256; j += blockDim.x)
        if ((&s_hist[0][0])[j]) atomicAdd(&io.hist[j], (unsigned long long)(&s_hist[0][0])[j]);
    if (!gp__block_is_last(&io.ctl[1])) return;
    /* The last block: each pass's exclusive digit offsets, the passes to skip (one digit
     * holds every key), the crowded passes (see the pass kernel) and the bucket path. Warp
     * p takes pass p whole, a lane 8 consecutive digits, so every count is loaded at once
     * and no block-wide barrier stands between the passes (four block scans one after the
     * other made this tail a chain of round trips and barriers). */
    static_assert(P * 32 <= GP__SORT_HIST_THREADS, "a warp a pass");
    __shared__ unsigned s_flags;
    if (threadIdx.x == 0) {
        s_flags = 0;
        io.ctl[1] = 0; /* the done counter, every block counted: back to 0 for the next call */
    }
    __syncthreads();
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp < P) {
        unsigned long long c[8], sum = 0;
#pragma unroll
        for (int j = 0; j < 8; j++) c[j] = __ldcg(&io.hist[warp * 256 + lane * 8 + j]);
#pragma unroll
        for (int j = 0; j < 8; j++) io.hist[warp * 256 + lane * 8 + j] = 0; /* left at 0 for the next call */
        bool all = false, many = false, over = false;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            sum += c[j];
            all |= c[j] == io.n;
            many |= (c[j] << GP__SORT_CROWDED_SHIFT) > io.n;
            over |= c[j] > io.bucket_cap;
        }
        unsigned long long start = gp__warp_inclusive_scan<gp__op_digit_sum<unsigned long long>>(sum) - sum;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            io.offsets[warp * 256 + lane * 8 + j] = start;
            start += c[j];
        }
        const bool skip = __any_sync(~0u, all), crowded = __any_sync(~0u, many);
        /* the bucket path: every top digit's keys fit one bucket block, and the top digit is
         * not skipped (the terms before the vote are the same in every lane of the warp) */
        const bool buckets = warp == P - 1 && io.bucket_cap && !skip && !__any_sync(~0u, over);
        if (lane == 0)
            atomicOr(&s_flags, (skip ? 1u << warp : 0u) | (crowded ? 1u << (8 + warp) : 0u) | (buckets ? 1u << 16 : 0u));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned f = s_flags;
        io.ctl[0] = (f & 255u) | (unsigned long long)(f >> 8 & 255u) << 32 | (f >> 16 ? GP__SORT_BUCKET_MODE : 0);
    }
}

/* Blocks per SM the pass kernel's registers must allow: 3 of 256 threads, else 2 (80
 * registers a thread at 384). */
static constexpr GP__HD int gp__sort_min_blocks(int block) { return block <= 256 ? 3 : 2; }
/* The pass kernel's variants (template flags; 0 is the default, the others are the bench's
 * ladder): GP__SORT_V_MATCH_ANY ranks with __match_any_sync; GP__SORT_V_LATE publishes a
 * tile's counts only after the rank (the order before early counts); GP__SORT_V_WIN1 walks
 * the look-back one word a step; GP__SORT_V_LONG ranks with the longer chain per item row
 * (GP__RANK_OR_LONG). */
enum {
    GP__SORT_V_MATCH_ANY = 1,
    GP__SORT_V_LATE = 2,
    GP__SORT_V_WIN1 = 4,
    GP__SORT_V_LONG = 8,
    GP__SORT_V_VALUES_LATE = 16, /* values loaded after the keys are written, staged where the keys were */
    GP__SORT_V_VALUES_REGS = 32, /* 4-byte values through registers even in large tiles (the order before) */
};
#ifndef GP__SORT_PREFETCH
#define GP__SORT_PREFETCH 1 /* 0: no L2 prefetch of argsort's indices (see the pass kernel) */
#endif
#ifndef GP__SORT_WIN
#define GP__SORT_WIN 8 /* look-back words a step (on the H100, 4 measured alike, 16 slower) */
#endif

/* ---- one pass ------------------------------------------------------------------------------ */
/* Dynamic shared memory of the pass kernel: the rank's, the digits' shifts, and one staging
 * buffer of a tile of keys (values are staged in the rank's counters; VALUES_LATE: here,
 * after the keys). */
template <int BLOCK>
struct gp__sort_pass_smem {
    gp_block_radix_rank_smem<BLOCK> rank;
    size_t shift[256]; /* global place of a staged slot j of digit d: shift[d] + j */
    unsigned tile;
};
/* Whether a pass's values are staged after its keys, where the keys were: asked for
 * (VALUES_LATE), or where a tile of values does not fit in the rank's counters and match
 * words (ITEMS x sizeof(V) > 128: argsort's 64-bit indices past 2^32 keys in large tiles). */
template <class V, int BLOCK, int ITEMS, int VARIANT>
static constexpr GP__HD bool gp__sort_values_late()
{
    return (VARIANT & GP__SORT_V_VALUES_LATE) != 0 ||
           (size_t)BLOCK * ITEMS * sizeof(V) > sizeof(gp_block_radix_rank_smem<BLOCK>::warp_count) +
                                                   sizeof(gp_block_radix_rank_smem<BLOCK>::warp_match);
}
template <class K, class V, int BLOCK, int ITEMS, int VARIANT = 0>
static constexpr GP__HD size_t gp__sort_pass_smem_bytes()
{
    return (sizeof(gp__sort_pass_smem<BLOCK>) + 15) / 16 * 16 +
           (size_t)BLOCK * ITEMS *
               (gp__sort_values_late<V, BLOCK, ITEMS, VARIANT>() && sizeof(V) > sizeof(K) ? sizeof(V) : sizeof(K));
}

/* This thread's values of the tile (warp-striped like its keys: item i at first + 32 i);
 * argsort's first pass makes its indices. */
template <int MODE, int ITEMS, class V>
static __device__ __forceinline__ void gp__sort_load_values(V (&val)[ITEMS], const V *vin, size_t first, size_t n,
                                                            bool whole, int r)
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const size_t at = first + 32 * (size_t)i;
        if (whole || at < n) {
            if constexpr (MODE == GP__SORT_ARGSORT) val[i] = r == 0 ? (V)at : gp__load_elem(vin + at);
            else val[i] = gp__load_elem(vin + at);
        }
    }
}

/* One pass over the keys: each block takes the next tile (in start order), loads its keys,
 * counts its digits and publishes the counts at once (so a later tile's look-back finds
 * them without waiting for this tile's rank), ranks, stages its keys in shared memory in
 * digit order, looks back for every digit's count in the tiles before it, publishes its
 * inclusive counts and writes each digit's run in address order, each key with its value. */
template <class K, class V, int MODE, class W, int BLOCK, int ITEMS, int VARIANT = 0,
          int MINB = gp__sort_min_blocks(BLOCK)>
__global__ void __launch_bounds__(BLOCK, MINB) gp__sort_pass_kernel(gp__sort_io<K, V> io, int pass)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    constexpr unsigned TILE = BLOCK * ITEMS;
    constexpr int EARLY = !(VARIANT & GP__SORT_V_LATE);
    constexpr int HOW = (VARIANT & GP__SORT_V_MATCH_ANY) ? GP__RANK_MATCH_ANY
                        : (VARIANT & GP__SORT_V_LONG)    ? GP__RANK_OR_LONG
                                                         : GP__RANK_OR;
    constexpr int WIN = (VARIANT & GP__SORT_V_WIN1) ? 1 : GP__SORT_WIN;
    extern __shared__ __align__(16) unsigned char gp__sort_smem[];
    gp__sort_pass_smem<BLOCK> &s = *reinterpret_cast<gp__sort_pass_smem<BLOCK> *>(gp__sort_smem);
    unsigned char *stage = gp__sort_smem + gp__round_up(sizeof(gp__sort_pass_smem<BLOCK>), 16);
    K *s_keys = reinterpret_cast<K *>(stage);
    /* Values are loaded once the keys are staged and staged in the rank's counters and match
     * words (free once every warp has ranked: one barrier), before the look-back, so that
     * keys and values go out together after the look-back's barrier. VALUES_LATE (the order
     * before; also where a tile of values does not fit there): loaded after the keys are
     * written and staged where the keys were, two barriers more. Measured (H200, 2^28,
     * bench/sort/probes/shapes.cu, two runs): pairs u32/u32 8.29 to 7.85-7.87 ms, argsort u32
     * 8.12 to 7.61; staged after the look-back instead, the values' registers live across
     * it spilled (32 bytes) and pairs took 8.66-8.68. */
    constexpr bool VALUES_LATE = gp__sort_values_late<V, BLOCK, ITEMS, VARIANT>();
    /* In large tiles, 4-byte values are copied from global memory straight to their ranked
     * slots (cp.async, 4 bytes each), never held in registers: ITEMS registers a thread
     * fewer, so pairs u32/u32 and argsort's 32-bit indices take the tiles of keys alone
     * (28 a thread) without spilling. Measured (H200, 2^28, bench/sort/probes/shapes.cu,
     * two rounds, outputs equal to CUB's): pairs u32/u32 in registers at x 20 7.84 ms, by
     * cp.async at x 20 / 24 / 28 8.27 / 7.85 / 7.63-7.65; argsort u32 7.60 against 7.71 /
     * 7.47 / 7.32. At x 20 the copies lose (issued after the barrier, where the loads into
     * registers are issued before it); hence only from x 24. */
    constexpr bool VALUES_ASYNC = MODE != GP__SORT_KEYS && !VALUES_LATE && gp__sort_values_by_copy<V>() &&
                                  ITEMS >= gp__sort_async_items(sizeof(K)) &&
                                  !(VARIANT & GP__SORT_V_VALUES_REGS);
    V *s_vals = VALUES_LATE ? reinterpret_cast<V *>(stage) : reinterpret_cast<V *>(&s.rank.warp_count[0][0]);

    gp__chain_wait_only(); /* a programmatic dependent of the kernel before (sm_90) */
    const unsigned long long ctl0 = __ldcg(&io.ctl[0]); /* skip mask, bucket path, crowded mask << 32 */
    const unsigned skip = (unsigned)ctl0;
    /* the bucket path: the top digit's pass (the last launch) writes TMP_A, as the first of
     * two real passes, and the bucket kernel after it sorts the rest; the others return */
    const bool buckets = (ctl0 & GP__SORT_BUCKET_MODE) != 0;
    if (buckets && pass != P - 1) return;
    const int R = buckets ? 2 : gp__sort_real_passes(skip, P), r = buckets ? 0 : gp__sort_rank_of(skip, pass);
    const size_t t0 = (size_t)blockIdx.x * TILE;
    if (skip >> pass & 1) {
        /* every pass skipped: the last pass's kernel copies the input (argsort: 0, 1, 2, ...),
         * each side whose output is not its input (in place may hold for the keys only) */
        if (pass != P - 1 || R != 0) return;
        const bool copy_keys = io.k_buf[GP__SORT_OUT] != io.k_in, copy_values = io.v_buf[GP__SORT_OUT] != io.v_buf[GP__SORT_IN];
        for (size_t i = t0 + threadIdx.x; i < t0 + TILE && i < io.n; i += BLOCK) {
            if constexpr (MODE != GP__SORT_ARGSORT)
                if (copy_keys) gp__store_elem(io.k_buf[GP__SORT_OUT] + i, gp__load_elem(io.k_in + i));
            if constexpr (MODE == GP__SORT_PAIRS)
                if (copy_values) gp__store_elem(io.v_buf[GP__SORT_OUT] + i, gp__load_elem(io.v_buf[GP__SORT_IN] + i));
            if constexpr (MODE == GP__SORT_ARGSORT) gp__store_elem(io.idx_out + i, (uint64_t)i);
        }
        return;
    }
    const int ksrc = gp__sort_src(r, R, io.in_place, MODE == GP__SORT_ARGSORT);
    const int kdst = gp__sort_dst(r, R, io.in_place, MODE == GP__SORT_ARGSORT);
    const int vsrc = gp__sort_src(r, R, io.in_place, 0), vdst = gp__sort_dst(r, R, io.in_place, 0);
    const K *kin = ksrc == GP__SORT_IN ? io.k_in : gp__sort_pick(io.k_buf, ksrc);
    K *kout = gp__sort_pick(io.k_buf, kdst);
    const V *vin = gp__sort_pick(io.v_buf, vsrc);
    V *vout = gp__sort_pick(io.v_buf, vdst);

    if (threadIdx.x == 0) { /* tiles in start order */
        s.tile = (unsigned)atomicAdd(&io.ctl[2 + pass], 1ull);
        /* the last number taken: no block of this pass reads the counter again, so it goes
         * back to 0 for the stream's next call (status memory, sort.cuh) */
        if (s.tile == gridDim.x - 1) atomicExch(&io.ctl[2 + pass], 0ull);
    }
    __syncthreads();
    const size_t tile = s.tile, base = tile * TILE;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t first = base + (size_t)warp * 32 * ITEMS + lane; /* warp-striped: item i at first + 32 i */
    const bool whole = base + TILE <= io.n;
    K key[ITEMS];
    unsigned digit[ITEMS], rank[ITEMS];
    /* A whole tile issues all its loads before the first digit. Written as one loop
     * (`whole || at < n`), this relied on nvcc unswitching it on `whole`, and code added
     * elsewhere in the kernel twice stopped that (an L2 prefetch of a later tile; the bucket
     * path's test): each load then waited behind the digit of the one before (the SASS: runs
     * of 4-6 loads, not 24), and a pass ran up to 1.4x slower (H100, u32 keys at 2^28: 8.2
     * against 5.8 ms). So the two cases are written apart. Check the SASS after changes. */
    if (whole) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) key[i] = gp__load_elem(kin + first + 32 * (size_t)i);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) digit[i] = gp__sort_digit(key[i], pass, io.desc);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            key[i] = K();
            digit[i] = 255; /* padding ranks last */
            if (first + 32 * (size_t)i < io.n) {
                key[i] = gp__load_elem(kin + first + 32 * (size_t)i);
                digit[i] = gp__sort_digit(key[i], pass, io.desc);
            }
        }
    }
    /* argsort's indices (after the first pass) asked of the L2 while the keys rank; measured
     * (H100, 2^28, both builds alternated twice, medians of 9 calls): argsort i32 9.99-10.00
     * to 9.54-9.57 ms, f32 in [0, 1) 9.84-9.85 to 9.38-9.40; but u64 keys' argsort (2^27)
     * 13.55 to 13.61-13.65, pairs u32/u32 9.79 to 9.82-9.84 and pairs u64/u64 (2^26) 8.68 to
     * 9.15-9.20, so only there */
    if constexpr (MODE == GP__SORT_ARGSORT && sizeof(K) <= 4 && GP__SORT_PREFETCH)
        if (r != 0)
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                const size_t at = first + 32 * (size_t)i;
                if (whole || at < io.n) asm volatile("prefetch.global.L2 [%0];" ::"l"(vin + at));
            }
    /* counts first (a partial tile's padding counts as digit 255: it is the last tile, so no
     * look-back reads its words) */
    const unsigned d = threadIdx.x;
    /* a crowded pass (one digit holds more than a quarter of the keys, e.g. the top digit of
     * floats in [0, 1)) finds each row's groups with __match_any_sync: with atomicOr, half a
     * warp's lanes on one word are served one at a time (H100, f32 in [0, 1) at 2^28: 6.40
     * to 6.05 ms; crowded from an eighth, 8 distinct keys lost 8%) */
    const bool crowded = HOW == GP__RANK_OR && (ctl0 >> (32 + pass) & 1);
    const W count = gp__block_radix_count(digit, s.rank, crowded);
    if (EARLY && d < 256) /* tile 0's count is its inclusive prefix */
        gp__status_publish<W>(io.status, tile * 256 + d, count, gp__sort_tag(io.epoch, pass, tile == 0));
    gp__block_radix_rank_counted<BLOCK, ITEMS, HOW>(digit, rank, s.rank, crowded);
    if (!EARLY && d < 256)
        gp__status_publish<W>(io.status, tile * 256 + d, count, gp__sort_tag(io.epoch, pass, tile == 0));
#pragma unroll
    for (int i = 0; i < ITEMS; i++) s_keys[rank[i]] = key[i];
    V val[MODE == GP__SORT_KEYS || VALUES_ASYNC ? 1 : ITEMS];
    if constexpr (VALUES_ASYNC) {
        __syncthreads(); /* every warp has ranked: the counters are free */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const size_t at = first + 32 * (size_t)i;
            if (whole || at < io.n) {
                if (MODE == GP__SORT_ARGSORT && r == 0) s_vals[rank[i]] = (V)at; /* the indices themselves */
                else gp__cp_async<4>(&s_vals[rank[i]], vin + at, true);
            }
        }
        gp__cp_async_commit(); /* waited for before the look-back's barrier */
    } else if constexpr (MODE != GP__SORT_KEYS && !VALUES_LATE) {
        gp__sort_load_values<MODE, ITEMS>(val, vin, first, io.n, whole, r);
        __syncthreads(); /* every warp has ranked: the counters are free */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) s_vals[rank[i]] = val[i];
    }
    /* look-back, one thread per digit, while the other threads' keys are staged */
    if (d < 256) {
        W before = 0;
        if (tile != 0) {
            before = gp__sort_look_back<W, WIN>(io.status, tile, d, gp__sort_tag(io.epoch, pass, false));
            gp__status_publish<W>(io.status, tile * 256 + d, before + count, gp__sort_tag(io.epoch, pass, true));
        }
        s.shift[d] = (size_t)__ldcg(&io.offsets[pass * 256 + d]) + (size_t)before - s.rank.digit_start[d];
    }
    if constexpr (VALUES_ASYNC) gp__cp_async_wait<0>(); /* this thread's values are in place */
    __syncthreads();
    const unsigned valid = whole ? TILE : (unsigned)(io.n - base);
    unsigned slot_digit[ITEMS];
    const bool write_keys = MODE != GP__SORT_ARGSORT || r != R - 1;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const unsigned j = threadIdx.x + i * BLOCK;
        if (j < valid) {
            const K k = s_keys[j];
            slot_digit[i] = gp__sort_digit(k, pass, io.desc);
            if (write_keys) gp__store_elem(kout + s.shift[slot_digit[i]] + j, k);
            if constexpr (MODE == GP__SORT_PAIRS && !VALUES_LATE) gp__store_elem(vout + s.shift[slot_digit[i]] + j, s_vals[j]);
            if constexpr (MODE == GP__SORT_ARGSORT && !VALUES_LATE) { /* the last pass: the caller's 64-bit indices */
                if (r != R - 1) gp__store_elem(vout + s.shift[slot_digit[i]] + j, s_vals[j]);
                else gp__store_elem(io.idx_out + s.shift[slot_digit[i]] + j, (uint64_t)s_vals[j]);
            }
        }
    }
    if constexpr (MODE != GP__SORT_KEYS && VALUES_LATE) {
        gp__sort_load_values<MODE, ITEMS>(val, vin, first, io.n, whole, r);
        __syncthreads(); /* the staged keys are read */
#pragma unroll
        for (int i = 0; i < ITEMS; i++) s_vals[rank[i]] = val[i];
        __syncthreads();
        if constexpr (MODE == GP__SORT_ARGSORT)
            if (r == R - 1) { /* the caller's 64-bit indices */
#pragma unroll
                for (int i = 0; i < ITEMS; i++) {
                    const unsigned j = threadIdx.x + i * BLOCK;
                    if (j < valid) gp__store_elem(io.idx_out + s.shift[slot_digit[i]] + j, (uint64_t)s_vals[j]);
                }
                return;
            }
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const unsigned j = threadIdx.x + i * BLOCK;
            if (j < valid) gp__store_elem(vout + s.shift[slot_digit[i]] + j, s_vals[j]);
        }
    }
}

/* In place with one real pass, the data ended in TMP_B: back to the output. */
template <class K, class V, int MODE>
__global__ void gp__sort_finish_kernel(gp__sort_io<K, V> io)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    gp__chain_wait_only();
    const unsigned long long ctl0 = __ldcg(&io.ctl[0]);
    if ((ctl0 & GP__SORT_BUCKET_MODE) || gp__sort_real_passes((unsigned)ctl0, P) != 1) return;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < io.n; i += (size_t)gridDim.x * blockDim.x) {
        gp__store_elem(io.k_buf[GP__SORT_OUT] + i, io.k_buf[GP__SORT_TMP_B][i]);
        if constexpr (MODE == GP__SORT_PAIRS) gp__store_elem(io.v_buf[GP__SORT_OUT] + i, io.v_buf[GP__SORT_TMP_B][i]);
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_KERNELS_CUH */
