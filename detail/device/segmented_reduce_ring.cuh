/* detail/device/segmented_reduce_ring.cuh -- the segmented reduce (and rows with ld == cols)
 * on sm_90: the merge path of segmented_path.cuh, fed by two rings of bulk copies.
 * Level 4 (device code and its launcher): needs segmented_path.cuh, segmented_walk.cuh,
 * util/mbarrier.cuh, util/launch.cuh.
 *
 * Why: the one-tile kernel (segmented_reduce.cuh) loads a tile, then folds it, then loads
 * the next: each block has one tile's loads in flight at a time, and four blocks an SM
 * read at 31-45% of the read rate on the H100. Here a block's work is two streams read in
 * order, whatever the segment lengths: its values [j_start, j_end) and its segment ends
 * [i_start, i_end) (the block's first and last splits, found by two searches at the
 * start). At each tile warp 1 refills each stream's ring (32 KB by default, in chunks) with bulk
 * copies, a lane a chunk, as far ahead of the tile being folded as the ring allows, so the
 * loads of the next tiles fly while this one is folded; meanwhile warp 0 finds the tile's
 * end on the merge path in the ends ring (shared memory, never global memory), 32 probes
 * a round (gp__seg_first), and waits for the tile's chunks. The rest of the block waits
 * for both at the tile's first barrier, so they are kept short: with one warp doing all
 * of it, one lane searching, a tile took 3569 cycles at segments of 65536, 2300 of them
 * in warp 0 alone (H200, clock64).
 *
 * A block takes its share one of three ways, chosen once from its mean segment length: with
 * CSR offsets, its warps walk it from global memory where that mean is above 24 values and
 * the share more than a tile (gp__seg_walk, segmented_walk.cuh: no rings), or its tiles
 * fold by heads (gp__seg_tile_heads: values in a straight line, outputs a thread an end)
 * where it is 12 to 24; else a thread a segment (gp__seg_tile_segs), each tile whose
 * segments are all short (32 values or fewer), and the other tiles, and rows, by merge
 * items (gp__seg_tile). There a tile of very short segments writes its outputs into shared memory (the heads'
 * `at`, unused by that fold) as the fold finds them, then stores them in order, a thread
 * an output: stored where they are found, a warp's outputs lie about ITEMS / 2 apart
 * (length 1), so each store touches up to 32 sectors.
 *
 * Bulk copies move 16-byte aligned pieces that lie inside the input; the few words of a
 * stream outside them (its first and last 16 bytes, where the input starts or ends there)
 * are copied by the issuing lane itself before it arrives on the chunk's barrier. A chunk's
 * barrier completes once per use of its ring slot, so chunk c waits on parity (c / slots) & 1.
 * The tiles and the choice of fold, so the association and the result, depend only on the
 * offsets and the grid: bitwise the same on every run. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_REDUCE_RING_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_REDUCE_RING_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#define GP__SEGR_THREADS 256
/* The rings, blocks an SM and merge items a thread (4-byte values) can be set at build time
 * for measurements: a values' ring of 64 KB at 2 blocks an SM, or tiles of 7 or 11 items a
 * thread, were 1.2-1.8x slower at every segment length (H200, 2^28 f32): the block's
 * time a tile hardly depends on the tile's size, so fewer or smaller tiles in flight lose. */
#ifndef GP__SEGR_VALUE_RING
#define GP__SEGR_VALUE_RING 32768 /* bytes of the values' ring (a power of two) */
#endif
#ifndef GP__SEGR_END_RING
#define GP__SEGR_END_RING 32768 /* of the ends' ring */
#endif
#define GP__SEGR_VALUE_CHUNK 4096 /* bytes a bulk copy of values */
#define GP__SEGR_END_CHUNK 2048   /* of ends: a tile's ends (up to 8 bytes an item) and the
                                   * chunk they start in must fit the ring */
#ifndef GP__SEGR_MIN_BLOCKS
#define GP__SEGR_MIN_BLOCKS 3 /* blocks an SM: by default 3 x 64 KB of rings, 85 registers a thread */
#endif
#ifndef GP__SEGR_ITEMS4
#define GP__SEGR_ITEMS4 15 /* odd: see gp__segr_items */
#endif
/* CSR offsets: a block of more than one tile whose share averages more than WALK values a
 * segment (or has no segment end), or at most GP__SEG_WALK_LANES_UPTO, leaves the rings, and
 * its warps walk its values straight from global memory (gp__seg_walk: a lane a segment up
 * to LANES_UPTO values a segment, streamed with head bits up to GP__SEG_WALK_PIECES_ABOVE,
 * by pieces above); one that averages HEADS_LO to WALK folds its tiles by heads
 * (gp__seg_tile_heads); any other a thread a segment where its tiles allow (GP__SEGR_SEGS,
 * gp__seg_tile_segs), and rows by merge items (gp__seg_tile). H200, 2^28 f32, us, by merge
 * items (lengths up to 8: heads) / a thread a segment: fixed lengths of 1 2161 / 1690, 2
 * 1291 / 1013, 4 898 / 621, 8 895 / 557; random lengths 0-20 823 / 538; of 16, heads /
 * a thread a segment 677 / 840, so heads from 12. Before: fixed lengths of 4, merge items / heads 840 / 1030; of 32, the stream / heads 462 /
 * 597; of 128 418 / 576; of 1024, the walk by pieces / the stream / merge items 278 / 321 /
 * 492; power-law lengths, the stream / heads 359 / 505. Shares are equal in merge items, not in time, so a launch
 * whose blocks take different ways waits for the slowest: lengths half empty, 40% of 0-7
 * and 10% of 0-2999 (mean 150), the walk by pieces above 128 / 160 / 256: 529 / 653 / 592
 * us. Blocks of one tile (calls under about 2^20 values) keep the rings: the walk's
 * searches, then ends, then values, one after another, took the 2^16 call of segments of
 * 32 from 7.6 to 10.8 us, and a lane a segment took segments of 1 / 4 from 7.0 / 5.6 to
 * 7.6 / 6.8 us. */
#ifndef GP__SEGR_HEADS_LO
#define GP__SEGR_HEADS_LO 12
#endif
#ifndef GP__SEGR_WALK
#define GP__SEGR_WALK 24
#endif
#ifndef GP__SEGR_SEGS
#define GP__SEGR_SEGS 1 /* 0: tiles of short segments keep the merge-item fold */
#endif
#ifndef GP__SEGR_RING
#define GP__SEGR_RING 1 /* 0: every call on the one-tile kernel (the bench's ladder builds it so) */
#endif

#ifdef __CUDACC__
#include "../util/mbarrier.cuh"
#include "../util/launch.cuh"
#include "segmented_path.cuh"
#include "segmented_walk.cuh"
#include "segmented_lanes.cuh" /* gp__seg_walk_lanes */
#include "../warp/warp.cuh"

/* Merge items a thread: odd, so that threads that fold only values (long segments) start
 * in 32 different banks: 15 for 4-byte types, 7 for 8-byte, 3 for 16-byte. */
static constexpr GP__HD unsigned gp__segr_items(size_t elem) { return elem <= 4 ? (unsigned)GP__SEGR_ITEMS4 : elem <= 8 ? 7u : 3u; }
/* The types the rings take: 4, 8 or 16 bytes, in whole aligned words. */
template <class T>
static constexpr bool gp__segr_fits(void)
{
    return (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) && alignof(T) >= 4;
}

/* Whether every architecture this file is compiled for is sm_90 or later: then every GPU
 * that runs it has the bulk copy engine and clusters (gp__device.cluster_ok), and the CSR
 * reduce needs no other kernel. */
static constexpr bool gp__segr_every_arch_sm90(void)
{
#ifdef __CUDA_ARCH_LIST__
    constexpr int archs[] = {__CUDA_ARCH_LIST__};
    for (int a : archs)
        if (a < 900) return false;
    return true;
#else
    return false;
#endif
}

/* A block's stream: bytes [lead, end) from g0 (16-byte aligned) in `chunks` chunks of CH
 * bytes, in a ring of RING bytes; [in_lo, in_hi): the 16-byte aligned part of the
 * input, from g0 (the bulk copies stay inside it). */
template <unsigned CH, unsigned RING>
struct gp__segr_stream {
    enum { CHUNK = CH, BYTES = RING, SLOTS = RING / CH };
    const unsigned char *g0;
    int64_t lead, end, in_lo, in_hi;
    uint32_t chunks;
};
/* The stream of bytes [first, last) of the input [valid_lo, valid_hi). */
template <class Stream>
static __device__ __forceinline__ Stream gp__segr_make(const void *first, const void *last,
                                                                   const void *valid_lo, const void *valid_hi)
{
    const uintptr_t a = (uintptr_t)first, b = (uintptr_t)last, g = a & ~(uintptr_t)15;
    Stream s;
    s.g0 = reinterpret_cast<const unsigned char *>(g);
    s.lead = (int64_t)(a - g);
    s.end = (int64_t)(b - g);
    s.in_lo = (int64_t)((((uintptr_t)valid_lo + 15) & ~(uintptr_t)15) - g); /* may be below 0 */
    s.in_hi = (int64_t)(((uintptr_t)valid_hi & ~(uintptr_t)15)) - (int64_t)g;
    s.chunks = b > a ? (uint32_t)((s.end + Stream::CHUNK - 1) / Stream::CHUNK) : 0;
    return s;
}
/* The chunk that holds byte `rel` of the stream (counted from its first byte). */
template <class Stream>
static __device__ __forceinline__ uint32_t gp__segr_chunk_of(const Stream &s, uint64_t rel)
{
    return (uint32_t)((s.lead + (int64_t)rel) / Stream::CHUNK);
}

/* One lane: chunk c of stream s into its ring slot. The bulk copy takes the chunk's bytes
 * inside [in_lo, in_hi) and up to the stream's last 16-byte boundary; the stream's words
 * outside that (under 16 bytes at each end of the input) are copied here, before the
 * arrival that releases them. */
template <class Stream>
static __device__ __forceinline__ void gp__segr_issue(const Stream &s, uint32_t c, unsigned char *slot, uint64_t *bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* the bulk copy */
    const int64_t c0 = (int64_t)c * Stream::CHUNK, c1 = c0 + Stream::CHUNK;
    const int64_t up = (s.end + 15) & ~(int64_t)15;
    if (c0 >= s.in_lo && c1 <= s.in_hi && c1 <= up) { /* inside the input and the stream: all of it */
        gp__bulk_load(slot, s.g0 + c0, Stream::CHUNK, bar);
        return;
    }
    const int64_t a0 = c0 > s.lead ? c0 : s.lead, a1 = c1 < s.end ? c1 : s.end;
    const int64_t top = c1 < s.in_hi ? c1 : s.in_hi;
    const int64_t b0 = c0 > s.in_lo ? c0 : s.in_lo, b1 = top < up ? top : up;
    auto words = [&](int64_t w0, int64_t w1) {
        for (int64_t w = w0; w < w1; w += 4)
            *reinterpret_cast<uint32_t *>(slot + (w - c0)) = *reinterpret_cast<const uint32_t *>(s.g0 + w);
    };
    if (b1 > b0) {
        words(a0, a1 < b0 ? a1 : b0);
        words(a0 > b1 ? a0 : b1, a1);
        gp__mbar_arrive_expect(bar, (unsigned)(b1 - b0));
        gp__bulk_copy(slot + (b0 - c0), s.g0 + b0, (unsigned)(b1 - b0), bar);
    } else {
        words(a0, a1);
        gp__mbar_arrive(bar);
    }
#endif
}
/* Warp 1: every chunk of s not yet issued whose slot is free (the chunks before the one
 * that holds byte `rel`, where folding is, are read), a lane a chunk (at most SLOTS <= 32).
 * `next`: the stream's next chunk, the same in every lane. */
template <class Stream>
static __device__ __forceinline__ void gp__segr_fill(const Stream &s, uint32_t &next, uint64_t rel,
                                                     unsigned char *ring, uint64_t *bars)
{
    static_assert(Stream::SLOTS <= 32, "a lane a slot");
    uint32_t free_end = gp__segr_chunk_of(s, rel) + Stream::SLOTS;
    if (free_end > s.chunks) free_end = s.chunks;
    if (next >= free_end) return;
    const uint32_t c = next + gp__lane_id();
    if (c < free_end) gp__segr_issue(s, c, ring + (c % Stream::SLOTS) * Stream::CHUNK, &bars[c % Stream::SLOTS]);
    next = free_end;
}
/* Waits for chunk c of a ring. */
template <class Stream>
static __device__ __forceinline__ void gp__segr_wait(uint64_t *bars, uint32_t c)
{
    gp__mbar_wait(&bars[c % Stream::SLOTS], (c / Stream::SLOTS) & 1);
}

/* Loads from shared memory by 32-bit address (the ring's base computed once, not the
 * generic-to-shared window in every iteration of a fold). Volatile: never moved across
 * the barriers that publish the data. */
template <class W>
static __device__ __forceinline__ W gp__segr_lds(unsigned a);
template <>
__device__ __forceinline__ uint32_t gp__segr_lds<uint32_t>(unsigned a)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    return v;
}
template <>
__device__ __forceinline__ uint64_t gp__segr_lds<uint64_t>(unsigned a)
{
    uint64_t v;
    asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(a));
    return v;
}
template <>
__device__ __forceinline__ uint4 gp__segr_lds<uint4>(unsigned a)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
    return v;
}

template <int BYTES> struct gp__segr_word;
template <> struct gp__segr_word<4> { typedef uint32_t type; };
template <> struct gp__segr_word<8> { typedef uint64_t type; };
template <> struct gp__segr_word<16> { typedef uint4 type; };
/* A value out of the ring at shared address `ring` (32-bit), byte b (any, taken modulo the
 * ring): whole if its alignment keeps it inside the ring, else word by word. */
template <class T, unsigned RING>
static __device__ __forceinline__ T gp__segr_value(unsigned ring, unsigned b)
{
    enum { MASK = RING - 1 };
    T v;
    if constexpr (alignof(T) >= sizeof(T)) {
        typedef typename gp__segr_word<sizeof(T)>::type W;
        const W w = gp__segr_lds<W>(ring + (b & MASK));
        memcpy(&v, &w, sizeof v);
    } else {
        uint32_t w[sizeof(T) / 4];
#pragma unroll
        for (unsigned q = 0; q < sizeof(T) / 4; q++) w[q] = gp__segr_lds<uint32_t>(ring + ((b + 4 * q) & MASK));
        memcpy(&v, w, sizeof v);
    }
    return v;
}

/* Dynamic shared memory: the values ring, then (CSR) the ends ring. sm_90+. */
template <class Op, class Src>
__global__ void __launch_bounds__(GP__SEGR_THREADS, GP__SEGR_MIN_BLOCKS)
    gp__segr_kernel(typename Op::type *out, Src src, char *scratch, uint32_t epoch)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    typedef gp__segr_stream<GP__SEGR_VALUE_CHUNK, GP__SEGR_VALUE_RING> VStream;
    typedef gp__segr_stream<GP__SEGR_END_CHUNK, GP__SEGR_END_RING> EStream;
    enum { ITEMS = gp__segr_items(sizeof(T)), TILE = GP__SEGR_THREADS * ITEMS, VRING = VStream::BYTES,
           ERING = EStream::BYTES };
    /* a tile's ends and values fit their rings whatever their offset in their first chunk */
    static_assert(TILE * 8 + EStream::CHUNK <= ERING && TILE * sizeof(T) + VStream::CHUNK <= VRING, "ring too small");
    static_assert((VRING & (VRING - 1)) == 0 && (ERING & (ERING - 1)) == 0, "offsets wrap by masks");
    static_assert(GP__SEGR_THREADS >= 64, "warp 0 searches while warp 1 issues");
    extern __shared__ __align__(128) unsigned char gp__segr_rings[];
    unsigned char *vring = gp__segr_rings, *ering = gp__segr_rings + VRING;
    __shared__ uint64_t vbar[VStream::SLOTS], ebar[EStream::SLOTS];
    __shared__ unsigned long long s_split[4], s_tile_end[2];
    __shared__ gp__seg_heads_smem<T, TILE, GP__SEGR_THREADS> s_heads;
    const unsigned tid = threadIdx.x, warp = gp__warp_id(), lane = gp__lane_id();
    if (tid == 0) {
        for (unsigned c = 0; c < VStream::SLOTS; c++) gp__mbar_init(&vbar[c], 1);
        for (unsigned c = 0; c < EStream::SLOTS; c++) gp__mbar_init(&ebar[c], 1);
        gp__mbar_init_fence_cluster(); /* the barriers visible to the copy engine */
    }
    for (unsigned w = tid; w < decltype(s_heads)::WORDS; w += GP__SEGR_THREADS) s_heads.bits[w] = 0;
    gp__chain_wait();
    src.init();
    const uint64_t N = src.total(), S = src.S, total = N + S;
    const gp__seg_share share = gp__seg_share_of((total + TILE - 1) / TILE);
    if (blockIdx.x >= share.blocks) return; /* no tile (a small call) */
    const uint64_t t_begin = share.begin, t_end = share.end;
    pair run = SOp::identity(); /* the block's carry so far */
    uint64_t head_row = GP__SEG_NONE;
    T head_val = Op::identity();
    if (t_begin < t_end) {
        /* the block's first split (warp 0) and its last (warp 1), searched at once */
        if (warp < 2) {
            const uint64_t d = warp == 0 ? t_begin * TILE : gp__min_size(t_end * TILE, total);
            const size_t x = gp__seg_search(src, d, (size_t)(d > N ? d - N : 0), (size_t)(d < S ? d : S));
            if (lane == 0) {
                s_split[2 * warp] = x;
                s_split[2 * warp + 1] = d - x;
            }
        }
        __syncthreads(); /* also: the barriers are set up */
        /* ends that are not ascending (the caller's contract broken) can make the two searches
         * disagree: i_end is kept in [i_start, i_start + d_end - d_start], so that both streams
         * run forward and every chunk waited for is issued. Ascending ends: the split found. */
        const uint64_t i_start = s_split[0], j_start = s_split[1], d_end = s_split[2] + s_split[3];
        const uint64_t i_end = gp__min_size(gp__max_size(s_split[2], i_start), i_start + (d_end - i_start - j_start));
        const uint64_t j_end = d_end - i_end;
        const T *values = src.values();
        const VStream vs = gp__segr_make<VStream>(values + j_start, values + j_end, values, values + N);
        EStream es = {};
        if constexpr (Src::ENDS) {
            const uint64_t *ends = src.ends();
            es = gp__segr_make<EStream>(ends + i_start, ends + i_end, ends - 1, ends + S);
        }
        const unsigned vring_u32 = gp__smem_u32(vring), ering_u32 = gp__smem_u32(ering);
        uint32_t v_next = 0, e_next = 0; /* warp 1: each stream's next chunk to issue */
        /* the block's tiles, each folded by heads (by_heads true) or by merge items */
        auto tiles = [&](auto by_heads) {
            uint64_t i_t = i_start, j_t = j_start;
            for (uint64_t t = t_begin; t < t_end; t++) {
                const uint64_t d_e = gp__min_size((t + 1) * TILE, total);
                if (warp == 1) {
                    /* the slots before this tile's were read (the last tile's block scan
                     * synchronised): order those reads before the copies' writes. Warp 1 issues
                     * while warp 0 searches, so warp 0 may wait for a chunk issued only here.
                     * That is safe: a refilled slot's previous chunk, c - SLOTS, lies below the
                     * chunk where folding is, so an earlier tile waited for it; the slot's
                     * barrier is one phase behind, and the wait on parity (c / SLOTS) & 1 lasts
                     * until this copy lands */
                    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                    gp__segr_fill(vs, v_next, (j_t - j_start) * sizeof(T), vring, vbar);
                    if constexpr (Src::ENDS) gp__segr_fill(es, e_next, (i_t - i_start) * 8, ering, ebar);
                }
                if (warp == 0) {
                    /* the tile's end: the smallest x in [lo, hi] with end(x) + x >= d_e, where lo
                     * leaves no more ends after the tile than merge items (with ascending ends the
                     * split is there anyway; the last tile ends at i_end) */
                    const uint64_t rest = d_end - d_e, lo = i_end - i_t > rest ? i_end - rest : i_t;
                    const uint64_t hi = gp__min_size(d_e - j_t, i_end);
                    uint64_t x = lo;
                    if constexpr (Src::ENDS) {
                        /* chunk by chunk: wait for one, test its last end, search it */
                        auto pos = [&](uint64_t y) {
                            const uint64_t raw = *reinterpret_cast<const uint64_t *>(
                                ering + ((uint64_t)es.lead + (y - i_start) * 8) % ERING);
                            return raw - src.base + y;
                        };
                        while (x < hi) {
                            const uint32_t c = gp__segr_chunk_of(es, (x - i_start) * 8);
                            const uint64_t in_c =
                                i_start + (uint64_t)(((int64_t)(c + 1) * EStream::CHUNK - es.lead) / 8) - 1;
                            const uint64_t last = in_c < hi - 1 ? in_c : hi - 1;
                            gp__segr_wait<EStream>(ebar, c);
                            if (pos(last) < d_e) {
                                x = last + 1;
                                continue;
                            }
                            x = gp__seg_first(x, last, [&](uint64_t y) { return pos(y) >= d_e; });
                            break;
                        }
                    } else {
                        x = gp__seg_search(src, d_e, x, hi);
                    }
                    if (lane == 0) {
                        s_tile_end[0] = x;
                        s_tile_end[1] = d_e - x;
                    }
                    __syncwarp();
                    /* the tile's ends below lo, which the search did not wait for (near the end of
                     * the block's share, or ends not ascending), and its values: a lane a chunk */
                    if constexpr (Src::ENDS) {
                        const uint64_t below = gp__min_size(lo, s_tile_end[0]);
                        if (below > i_t) {
                            const uint32_t c0 = gp__segr_chunk_of(es, (i_t - i_start) * 8),
                                           c1 = gp__segr_chunk_of(es, (below - i_start) * 8 - 1);
                            if (c0 + lane <= c1) gp__segr_wait<EStream>(ebar, c0 + lane);
                        }
                    }
                    const uint64_t j_e = s_tile_end[1];
                    if (j_e > j_t) {
                        const uint32_t c0 = gp__segr_chunk_of(vs, (j_t - j_start) * sizeof(T)),
                                       c1 = gp__segr_chunk_of(vs, (j_e - j_start) * sizeof(T) - 1);
                        if (c0 + lane <= c1) gp__segr_wait<VStream>(vbar, c0 + lane);
                    }
                }
                __syncthreads(); /* the tile's end is known, its ends and values have landed */
                const uint64_t x_e = s_tile_end[0], j_e = s_tile_end[1];
                const unsigned voff = (unsigned)(((uint64_t)vs.lead + (j_t - j_start) * sizeof(T)) % VRING);
                const unsigned eoff = (unsigned)(((uint64_t)es.lead + (i_t - i_start) * 8) % ERING);
                (void)eoff; /* rows compute their ends */
                const uint64_t i0 = i_t, j0 = j_t;
                const unsigned ne = (unsigned)(x_e - i0), nv = (unsigned)(j_e - j0);
                const auto end_at = [&](unsigned i) -> uint32_t {
                    if constexpr (Src::ENDS) {
                        const uint64_t end = gp__segr_lds<uint64_t>(ering_u32 + ((eoff + 8 * i) & (ERING - 1)));
                        return (uint32_t)(end - src.base - j0);
                    } else {
                        return (uint32_t)(src.end(i0 + i) - j0);
                    }
                };
                const auto value_at = [&](unsigned j) {
                    return gp__segr_value<T, VRING>(vring_u32, voff + j * (unsigned)sizeof(T));
                };
                const auto put = [&](unsigned i, const T &v) { gp__store_elem(out + i0 + i, v); };
                const auto by_segments = [&]() { /* CSR only: rows reach the rings when short and few */
                    if constexpr (GP__SEGR_SEGS && Src::ENDS)
                        return gp__seg_tile_segs<Op, GP__SEGR_THREADS>(s_heads.at, i0, ne, nv, end_at, value_at, put,
                                                                       run, head_row, head_val);
                    else
                        return false;
                };
                if constexpr (decltype(by_heads)::value) {
                    gp__seg_tile_heads<Op, ITEMS, GP__SEGR_THREADS>(s_heads, i0, ne, nv, end_at, value_at, put, run,
                                                                    head_row, head_val);
                } else if (by_segments()) {
                    /* a thread a segment: every segment of the tile short */
                } else if (ne * 5 >= 2 * TILE && ne <= sizeof(s_heads.at) / sizeof(T)) {
                    const bool head_here = run.h == 0;
                    T *stage = s_heads.at;
                    gp__seg_tile<Op, ITEMS>(i0, ne, nv, end_at, value_at, [&](unsigned i, const T &v) { stage[i] = v; },
                                            run, head_row, head_val);
                    __syncthreads(); /* the tile's outputs are staged */
                    for (unsigned i = (head_here ? 1u : 0u) + tid; i < ne; i += GP__SEGR_THREADS)
                        gp__store_elem(out + i0 + i, stage[i]);
                } else {
                    gp__seg_tile<Op, ITEMS>(i0, ne, nv, end_at, value_at, put, run, head_row, head_val);
                }
                i_t = x_e;
                j_t = j_e;
            }
        };
        const uint64_t nb_e = i_end - i_start, nb_v = j_end - j_start;
        /* rows come here only when few and short (segmented_reduce.cuh): they keep the
         * merge-item fold alone, which halves the fold by heads' build time */
        static_assert(GP__SEG_WALK_LANES_UPTO < GP__SEGR_HEADS_LO, "the walk a lane a segment below the folds by heads");
        if (Src::ENDS && t_end - t_begin > 1 && (nb_v > GP__SEGR_WALK * nb_e || gp__seg_walk_lanes(nb_e, nb_v))) {
            typedef gp__seg_walk_smem<T, GP__SEGR_THREADS / 32> WalkSmem;
            static_assert(sizeof(WalkSmem) <= VRING + ERING, "the walk's shared memory lies in the rings");
            if constexpr (Src::ENDS)
                gp__seg_walk<Op, GP__SEGR_THREADS / 32>(out, src, i_start, i_end, j_start, j_end,
                                                        *reinterpret_cast<WalkSmem *>(vring), scratch, share.blocks, epoch);
            return; /* the walk ended the block (gp__seg_finish) */
        } else if (Src::ENDS && nb_v >= GP__SEGR_HEADS_LO * nb_e) {
            if constexpr (Src::ENDS) tiles(std::true_type());
        } else {
            tiles(std::false_type());
        }
    }
    gp__seg_finish<Op>(out, scratch, run, head_row, head_val, share.blocks, epoch);
#endif
}

/* The launch (arguments checked; sm_90 code, gp__segr_fits<T>, contiguous values). */
template <class Op, class Src>
static cudaError_t gp__segr_run(typename Op::type *d_out, const Src &src, cudaStream_t s, const gp__device &dev)
{
    return gp__seg_launch<gp__segr_kernel<Op, Src>>(d_out, src, GP__SEGR_THREADS,
                                                    GP__SEGR_VALUE_RING + (Src::ENDS ? GP__SEGR_END_RING : 0), s, dev);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_REDUCE_RING_CUH */
