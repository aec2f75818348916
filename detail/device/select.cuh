/* detail/device/select.cuh -- stream compaction in one pass: select (by flags or by a
 * predicate), stable partition, nonzero, unique and run-length encode share one kernel.
 * Level 4 (device code and its plan): needs the scan's look-ahead (scan.cuh), the status
 * words (agent/single_pass.cuh) and the launch skeleton; the host side and the instance
 * macros are select_host.cuh.
 *
 * Compaction is a scan of keep flags followed by a scatter (Sengupta, Harris, Zhang &
 * Owens, "Scan Primitives for GPU Computing", 2007): item i goes to the number of kept items
 * before it. Here both happen in one pass over the data, per tile of 256 threads x 64 bytes:
 *   - map: each thread loads its items (16-byte vectors, warp-striped as in the scan, so one
 *     instruction moves 512 contiguous bytes) and its flags, and works out a keep bit per
 *     item: the flag, the predicate, x != 0, or "head of a run" (x[i-1] != x[i]);
 *   - count: a warp scan of the bits (gp__select_scan_rows) and the 8 warps' totals give each
 *     item its place in the tile; one thread publishes the tile's count as a status word
 *     tagged with the call's epoch (agent/single_pass.cuh). A count never waits on anything,
 *     so counts never chain;
 *   - prefix: two look-ahead warps fold every earlier tile's count with the scan's
 *     gp__scan_look_ahead over a 64-bit sum, in a fixed order (the counts are integers, so any
 *     order would give the same bits: the result is deterministic either way). They work on
 *     the block's next tile while the scanning warps finish this one;
 *   - scatter: the kept items go to shared memory at their places in the tile (partition's
 *     rejected ones after them, also in order), then the block writes them to global memory
 *     as one contiguous run: out[prefix ...], and partition's rejected side at
 *     rejected[tile_start - prefix ...]. While it writes, the next tile's loads are in
 *     flight. The block holding the last tile writes the count.
 * Run-length encoding also needs each run's length, which may span tiles: each tile
 * publishes (runs started in it, place of its last head), packed in one status word
 * (gp__sel_runs_word), and the prefix folds them as (sum, max). A run's length is the place
 * of the next head (or the tile's end) less its own head's: the heads' places are in shared
 * memory, and a run that began in an earlier tile begins at the prefix's last head. The
 * runs that end in a tile follow from its heads and its two ends (gp__select_write_lengths),
 * so no item needs a tail bit.
 *
 * In place (select, unique: d_out == d_in) is safe: tile t writes below its own end, and
 * only once its prefix is known, that is once every earlier tile has been read. */
#ifndef GPUPRIMS_DETAIL_SELECT_CUH
#define GPUPRIMS_DETAIL_SELECT_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#define GP__SEL_WARPS 8                     /* scanning warps a block */
#define GP__SEL_BLOCK (GP__SEL_WARPS * 32)  /* scanning threads */
#define GP__SEL_THREADS (GP__SEL_BLOCK + 64) /* + two look-ahead warps */
#define GP__SEL_MIN_BLOCKS 2

/* What a call selects, and what it writes. */
enum {
    GP__SEL_FLAGGED = 0, /* keep where flags[i] != 0; values out (and rejected: partition) */
    GP__SEL_PRED = 1,    /* keep where PRED(x, p); values out (and rejected) */
    GP__SEL_NONZERO = 2, /* keep where x != 0; indices out */
    GP__SEL_UNIQUE = 3,  /* keep heads of runs; values out */
    GP__SEL_RUNS = 4     /* heads' values and run lengths out */
};

typedef struct gp__select_plan {
    size_t n;
    size_t tile;  /* elements a tile */
    size_t tiles;
    int in_vec;    /* the input moves as 16-byte vectors (whole tiles) */
    int flags_vec; /* the flags move as one word of VEC bytes a vector */
} gp__select_plan;

/* The tiling of n elements of `elem` bytes at address `in`, flags at `flags` (0: none):
 * 64 bytes a thread, as the scan holds them (gp__scan_items). */
static inline GP__HD size_t gp__select_items(size_t elem)
{
    const size_t vec = elem <= 16 && 16 % elem == 0 ? 16 / elem : 1;
    const size_t rows = 64 / (vec * elem) > 0 ? 64 / (vec * elem) : 1;
    return vec * rows;
}
static inline GP__HD gp__select_plan gp__select_make_plan(uintptr_t in, uintptr_t flags, size_t n, size_t elem)
{
    gp__select_plan p;
    const size_t vec = elem <= 16 && 16 % elem == 0 ? 16 / elem : 1;
    p.n = n;
    p.tile = (size_t)GP__SEL_BLOCK * gp__select_items(elem);
    p.tiles = (n + p.tile - 1) / p.tile;
    p.in_vec = vec * elem == 16 && in % 16 == 0;
    p.flags_vec = flags % vec == 0;
    return p;
}
/* Shared memory a block: the tile's values (not for nonzero) and 32-bit places (nonzero,
 * run-length). */
static inline GP__HD size_t gp__select_smem(int kind, size_t elem)
{
    const size_t tile = (size_t)GP__SEL_BLOCK * gp__select_items(elem);
    return (kind == GP__SEL_NONZERO ? 0 : tile * elem) + (kind == GP__SEL_NONZERO || kind == GP__SEL_RUNS ? tile * 4 : 0);
}
/* Scratch: the tile counter and the done counter, then the status words (one a tile: the
 * tile's count, or for run-length its heads and last head packed, gp__sel_runs_word). */
static inline GP__HD size_t gp__select_scratch_bytes(size_t tiles, int kind)
{
    (void)kind; /* every kind alike */
    return GP__SCRATCH_ALIGN + tiles * 8;
}

#ifdef __CUDACC__
#include "../warp/warp.cuh"
#include "../util/launch.cuh"
#include "../agent/single_pass.cuh"
#include "../block/block_select.cuh"
#include "scan.cuh"

/* The values tiles hand on: a count of kept items (select), or that and the last head so
 * far (run-length: a run's length needs its head), as tile << 16 | place + 1 (below). */
struct gp__sel_count_op {
    typedef unsigned long long type;
    static __device__ __forceinline__ type apply(type a, type b) { return a + b; }
    static __device__ __forceinline__ type identity() { return 0ull; }
};
#ifndef GP__SEL_COUNT_NB
#define GP__SEL_COUNT_NB 6 /* batches a look-ahead warp polls a round: 2 x 6 x 32 tiles */
#endif
/* A tile's count travels as one status word (it is at most a tile, below 2^32); the
 * look-ahead folds the counts as 64-bit sums. H100, one run against two words a count:
 * select by a predicate 2-4% faster at 2^28 and 2^24, unique within 2%.
 * Batches a round: a block's consecutive tiles lie about 264 apart (two blocks on each of
 * 132 SMs), so 2 x 6 x 32 = 384 tiles take a tile's look-ahead in one round, with the
 * partial batch. Only the chain uses these (select, partition, nonzero, and select_one);
 * unique and run-length fold windows. H200, 2^28, builds alternated twice in one device
 * call, us, 8 / 6 / 5 / 4 batches: by flags none kept 376.5 / 353.5 / 377.6 / 379.0, 10%
 * kept 441.0 / 424.2 / 450.7 / 434.6, 50% kept 495.2 / 493.5 / 503.8 / 490.0; by a
 * predicate, 50% kept, 471.6 / 462.9 / 497.0 / 489.3; partition 664.4 / 648.6 / 641.2 /
 * 645.6 (docs/select.md). */
template <>
struct gp__status_codec<gp__sel_count_op> {
    typedef unsigned long long T;
    enum { W = 1, NB = GP__SEL_COUNT_NB };
    static __device__ __forceinline__ T decode(size_t, const uint32_t (&bits)[1]) { return bits[0]; }
};
struct gp__sel_runs {
    unsigned long long count, last;
};
struct gp__sel_runs_op {
    typedef gp__sel_runs type;
    static __device__ __forceinline__ type apply(type a, type b)
    {
        return {a.count + b.count, a.last > b.last ? a.last : b.last};
    }
    static __device__ __forceinline__ type identity() { return {0ull, 0ull}; }
};
/* Run-length's status word: a tile's heads and its last head's place + 1 (0: none), both
 * below 2^16, in one 32-bit word; the look-ahead reads it back as the pair it folds, the last
 * head as tile << 16 | place + 1 (0: none), which orders heads as their indices do. As a
 * pair of 64-bit values (four words) a round polled half as many tiles, and a block's next
 * prefix took two round trips: run-length on the ring at 41-55% of copy. */
static __device__ __forceinline__ uint32_t gp__sel_runs_word(uint32_t heads, int last_place)
{
    return heads | (uint32_t)(last_place + 1) << 16;
}
#ifndef GP__SEL_RUNS_NB
#define GP__SEL_RUNS_NB 5 /* batches a look-ahead warp polls a round: 2 x 5 x 32 tiles (6 spilled) */
#endif
template <>
struct gp__status_codec<gp__sel_runs_op> {
    typedef gp__sel_runs T;
    enum { W = 1, NB = GP__SEL_RUNS_NB };
    static __device__ __forceinline__ T decode(size_t t, const uint32_t (&bits)[1])
    {
        const uint32_t place1 = bits[0] >> 16;
        return {bits[0] & 0xffffu, place1 ? (unsigned long long)t << 16 | place1 : 0ull};
    }
};
/* The index of the last head of a run-length prefix (tiles of `tile` elements; never "none":
 * tile 0 starts with a head). */
static __device__ __forceinline__ unsigned long long gp__sel_last_head(unsigned long long last, size_t tile)
{
    return (last >> 16) * tile + (last & 0xffffu) - 1;
}
template <int KIND> struct gp__sel_status { typedef gp__sel_count_op op; };
template <> struct gp__sel_status<GP__SEL_RUNS> { typedef gp__sel_runs_op op; };

/* A call's pointers: out (values), rejected (partition, else NULL), idx (nonzero),
 * lengths (run-length), count (device). */
template <class T, class P>
struct gp__select_args {
    const T *in;
    const uint8_t *flags;
    P p;
    T *out;
    T *rejected;
    uint64_t *idx;
    uint64_t *lengths;
    uint64_t *count;
};

/* The defaults' predicate (nonzero: x != 0, so -0.0 is zero and NaN is not) and equality
 * (==: -0.0 equals 0.0, a NaN equals nothing, so each NaN is a run of its own). */
template <class T>
struct gp__sel_default_fn {
    static __device__ __forceinline__ bool pred(const T &x, char) { return x != (T)0; }
    static __device__ __forceinline__ bool eq(const T &a, const T &b) { return a == b; }
};

/* Loads a thread's items of the tile starting at `start`: vector (j, lane) of warp w holds
 * elements start + w * 32 * ITEMS + (j * 32 + lane) * VEC + k (k < VEC). Elements past n
 * are not loaded (their keep bits are 0). fl[j]: bit k = flags of element k of vector j. */
template <class T, int ROWS, int VEC, bool FLAGS>
static __device__ __forceinline__ void gp__select_load(T (&x)[ROWS * VEC], uint32_t (&fl)[ROWS], const T *in,
                                                      const uint8_t *flags, size_t start, const gp__select_plan &p)
{
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    const size_t e0 = start + (size_t)warp * 32 * ROWS * VEC + (size_t)lane * VEC;
    const bool whole = start + p.tile <= p.n;
    bool done = false;
    if constexpr (VEC * sizeof(T) == 16) {
        if (whole && p.in_vec) {
            uint4 w[ROWS];
#pragma unroll
            for (int j = 0; j < ROWS; j++) w[j] = *reinterpret_cast<const uint4 *>(in + e0 + (size_t)j * 32 * VEC);
            memcpy(x, w, sizeof w);
            done = true;
        }
    }
    if (!done)
#pragma unroll
        for (int j = 0; j < ROWS; j++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t e = e0 + (size_t)j * 32 * VEC + k;
                if (e < p.n) x[j * VEC + k] = gp__load_elem(in + e);
                else memset(&x[j * VEC + k], 0, sizeof(T));
            }
    if constexpr (FLAGS) {
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const size_t e = e0 + (size_t)j * 32 * VEC;
            uint32_t bits = 0;
            if (whole && p.flags_vec && VEC > 1) {
                bits = gp__flag_bits<VEC>(flags + e);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (e + k < p.n && flags[e + k]) bits |= 1u << k;
            }
            fl[j] = bits;
        }
    }
}

/* A thread's keep bits, one an item: item (j, k) of gp__select_load's layout is bit
 * FB * (j % PER) + k of word j / PER. Row j's bits sit in the field where the packed scan
 * (gp__select_scan_rows) keeps row j's count, so a word's per-field popcount is what the
 * warp scans. Why: as a 0/1 word an item, nvcc kept
 * the bits in predicates and, short of those, set and cleared each in a spare register and
 * read it back one test at a time: about 180 of unique's 540 instructions a warp a tile
 * (SASS, sm_90). */
template <int ROWS, int VEC>
struct gp__sel_mask {
    enum { FB = 32 * VEC < 256 ? 8 : 16, PER = 32 / FB, WORDS = (ROWS + PER - 1) / PER };
    static_assert(VEC <= FB && 32 * VEC < (1 << FB), "a row's bits, and its warp count, fit its field");
    uint32_t w[WORDS];
    static constexpr GP__HD int at(int j) { return j % PER * FB; }
    static constexpr uint32_t ROW = (1u << VEC) - 1;
    __device__ __forceinline__ void clear()
    {
#pragma unroll
        for (int q = 0; q < WORDS; q++) w[q] = 0;
    }
    __device__ __forceinline__ void put(int j, int k, bool b) { w[j / PER] |= (b ? 1u : 0u) << (at(j) + k); }
    __device__ __forceinline__ uint32_t row(int j) const { return w[j / PER] >> at(j) & ROW; }
    /* the place in the tile of the last item set (-1: none), for a thread whose item
     * (j, k) is at local0 + j * 32 * VEC + k (gp__select_load's layout): run-length's last
     * head, in the scanning threads and in the ring's count warps alike. A word's higher
     * fields are later rows, so its highest bit is its last item. */
    __device__ __forceinline__ int last_place(uint32_t local0) const
    {
        int last = -1;
#pragma unroll
        for (int q = 0; q < WORDS; q++)
            if (w[q] != 0) {
                const int b = 31 - __clz(w[q]);
                last = (int)(local0 + (uint32_t)(q * PER + b / FB) * 32 * VEC + b % FB);
            }
        return last;
    }
    /* clears the items `left` or more places after the thread's first (item (j, k) is
     * j * 32 * VEC + k places after it) */
    __device__ __forceinline__ void keep_below(uint32_t left)
    {
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const uint32_t off = (uint32_t)j * 32 * VEC, in = left > off ? min(left - off, (uint32_t)VEC) : 0u;
            w[j / PER] &= ~((ROW & ~((1u << in) - 1)) << at(j));
        }
    }
};

/* Heads of runs (unique keeps them; run-length's lengths are the distances between them).
 * The neighbours come from the next lane or row by shuffles, and at the warp's start from
 * global memory: the previous warp's or tile's last element, edge[0]. Run-length also needs
 * the element after the tile, edge[1], in the tile's last thread (gp__sel_last_tail). */
template <class T, int ROWS, int VEC, bool AFTER>
static __device__ __forceinline__ void gp__select_load_edges(T (&edge)[2], const T *in, size_t start, size_t n)
{
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    const size_t w0 = start + (size_t)warp * 32 * ROWS * VEC, w1 = w0 + 32 * ROWS * VEC; /* the warp's range */
    memset(&edge[0], 0, sizeof(T));
    memset(&edge[1], 0, sizeof(T));
    if (lane == 0 && w0 > 0 && w0 - 1 < n) edge[0] = gp__load_elem(in + (w0 - 1));
    if (AFTER && threadIdx.x == GP__SEL_BLOCK - 1 && w1 < n) edge[1] = gp__load_elem(in + w1);
}
template <class T, class Fn, int ROWS, int VEC>
static __device__ __forceinline__ void gp__select_heads(gp__sel_mask<ROWS, VEC> &heads, const T (&x)[ROWS * VEC],
                                                       const T &before, size_t start, size_t n)
{
    enum { WARP_ITEMS = 32 * ROWS * VEC };
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    const size_t w0 = start + (size_t)warp * WARP_ITEMS;
    heads.clear();
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        const T up = gp__shfl<GP__SHFL_UP>(x[j * VEC + VEC - 1], 1);
        const T last_row = gp__shfl<GP__SHFL_IDX>(x[(j > 0 ? j - 1 : 0) * VEC + VEC - 1], 31);
        /* gp__select, not ?: on the lane: nvcc unswitched the rows on `lane > 0` and ran
         * every shuffle on a slow divergent path (unique on the ring at 36% of copy) */
        const T prev0 = gp__select(lane > 0, up, j > 0 ? last_row : before);
        /* no bounds here: a warp whose range reaches n is fixed below, so a whole warp's
         * bits cost one comparison an element (64-bit index tests on every element were
         * most of unique's instructions) */
#pragma unroll
        for (int k = 0; k < VEC; k++) heads.put(j, k, !Fn::eq(k > 0 ? x[j * VEC + k - 1] : prev0, x[j * VEC + k]));
    }
    /* the input's first element is a head whatever its neighbour (lane 0's item 0) */
    if (w0 == 0 && lane == 0) heads.w[0] |= 1u;
    if (w0 + WARP_ITEMS >= n) { /* the warp holding n - 1 (or past n): nothing past n */
        const uint32_t valid = w0 >= n ? 0u : (uint32_t)(n - w0), first = lane * VEC;
        heads.keep_below(valid > first ? valid - first : 0u);
    }
}
/* Run-length: whether the tile's last item is the end of a run (its next element differs,
 * or the input ends with the tile or within it), from its value x_last and the element
 * after it: in the tile's last thread (edge[1] of gp__select_load_edges), or in the ring's
 * count warp (gp__select_ring_after). */
template <class T, class Fn>
static __device__ __forceinline__ bool gp__sel_last_tail(const T &x_last, const T &after, size_t start, size_t tile,
                                                        size_t n)
{
    return start + tile >= n || !Fn::eq(x_last, after);
}

/* The count in each FB-bit field of v (a SWAR popcount that stops at the field's width). */
template <int FB>
static __device__ __forceinline__ uint32_t gp__sel_field_popc(uint32_t v)
{
    v -= v >> 1 & 0x55555555u;
    v = (v & 0x33333333u) + (v >> 2 & 0x33333333u);
    v = (v + (v >> 4)) & 0x0f0f0f0fu;
    if constexpr (FB == 16) v = (v + (v >> 8)) & 0x00ff00ffu;
    return v;
}

/* The warp's scan of its keep bits by rows (the layout of gp__select_load), as
 * gp__scan_warp_rows<gp__op_sel_u32> gives it: lp[j], the warp's keep bits before vector
 * (j, lane); returns the warp's total. A row's warp total is at most 32 * VEC, so the rows'
 * lane counts travel packed, FB bits each, in one word (two for 1- and 2-byte types), and
 * the warp scans each word once: 6 shuffles instead of 7 a row. Probe (H100, 2^28, both
 * builds alternated twice): select 2.5-4% faster, partition 2.5%, unique 1-3%. */
template <int ROWS, int VEC>
static __device__ __forceinline__ uint32_t gp__select_scan_rows(const gp__sel_mask<ROWS, VEC> &m, uint32_t (&lp)[ROWS])
{
    typedef gp__sel_mask<ROWS, VEC> M;
    constexpr uint32_t FIELD = (1u << M::FB) - 1;
    uint32_t before[M::WORDS], total[M::WORDS]; /* fields: this lane's rows before it, the warp's rows */
#pragma unroll
    for (int q = 0; q < M::WORDS; q++) {
        const uint32_t w = gp__sel_field_popc<M::FB>(m.w[q]);
        const uint32_t incl = gp__warp_inclusive_scan<gp__op_sel_u32>(w);
        before[q] = incl - w; /* no field borrows: each is at least this lane's */
        total[q] = gp__shfl<GP__SHFL_IDX>(incl, 31);
    }
    uint32_t run = 0;
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        lp[j] = run + (before[j / M::PER] >> M::at(j) & FIELD);
        run += total[j / M::PER] >> M::at(j) & FIELD;
    }
    return run;
}
/* From the scanning warps' totals in shared memory: the tile's kept items before this
 * warp's (`before`) and in all (`total`). */
static __device__ __forceinline__ void gp__select_warps_before(const uint32_t *s_wtot, unsigned warp,
                                                              uint32_t &before, uint32_t &total)
{
    before = total = 0;
#pragma unroll
    for (unsigned w = 0; w < GP__SEL_WARPS; w++) {
        const uint32_t v = s_wtot[w];
        before += w < warp ? v : 0u;
        total += v;
    }
}

/* Keep bits of select, partition and nonzero (unique and run-length: gp__select_heads):
 * the flags, or PRED(x, p) / x != 0 for elements below n. local0: the thread's first place
 * in the tile, as gp__select_load lays it out. Elements past n hold zeros (gp__select_load)
 * and their flags are 0; the predicate's bits for them are cleared after it ran. */
template <int KIND, class T, class P, class Fn, int ROWS, int VEC>
static __device__ __forceinline__ void gp__select_keep(gp__sel_mask<ROWS, VEC> &keep, const T (&x)[ROWS * VEC],
                                                      const uint32_t (&fl)[ROWS], size_t start, uint32_t local0,
                                                      size_t n, const P &p)
{
    typedef gp__sel_mask<ROWS, VEC> M;
    keep.clear();
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        if constexpr (KIND == GP__SEL_FLAGGED) {
            keep.w[j / M::PER] |= fl[j] << M::at(j);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; k++) keep.put(j, k, Fn::pred(x[j * VEC + k], p));
        }
    }
    const size_t first = start + local0;
    if (KIND != GP__SEL_FLAGGED && first + (size_t)(ROWS - 1) * 32 * VEC + VEC > n)
        keep.keep_below(first < n ? (uint32_t)(n - first) : 0u);
}

/* Calls f(q, local, b, run) for each of the thread's items in order: q its index in the
 * thread's arrays, local its place in the tile, b its keep bit, run the keep bits of the
 * tile before it (before + lp[j]: those before row j of the thread, from the warp scan). */
template <int ROWS, int VEC, class F>
static __device__ __forceinline__ void gp__select_each_item(const gp__sel_mask<ROWS, VEC> &keep,
                                                           const uint32_t (&lp)[ROWS], uint32_t before,
                                                           uint32_t local0, F f)
{
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        uint32_t run = before + lp[j];
        const uint32_t row = keep.row(j);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const uint32_t b = row >> k & 1u;
            f(j * VEC + k, local0 + j * 32 * VEC + k, b, run);
            run += b;
        }
    }
}

/* Puts the thread's items at their places in the tile's buffer (shared memory): kept items
 * at their rank (values to s_val, or places to s_idx: nonzero, and run-length beside the
 * values), partition's rejected ones after the tile's `kept`, in order. before + lp[j]: the
 * tile's keep bits before row j of the thread; valid: the tile's elements below n. */
template <int KIND, class T, int ROWS, int VEC, class I>
static __device__ __forceinline__ void gp__select_scatter(T *s_val, I *s_idx, const T (&x)[ROWS * VEC],
                                                         const gp__sel_mask<ROWS, VEC> &keep, const uint32_t (&lp)[ROWS],
                                                         uint32_t before, uint32_t kept, uint32_t valid,
                                                         uint32_t local0, bool rejected, uint32_t warp_total)
{
    constexpr bool RUNS = KIND == GP__SEL_RUNS;
    /* a warp that keeps nothing (and places no rejected items) has nothing to put: sparse
     * outputs (unique with long runs, few items kept) skip the per-item tests */
    if (warp_total == 0 && !(KIND <= GP__SEL_PRED && rejected)) return;
    gp__select_each_item<ROWS, VEC>(keep, lp, before, local0, [&](int q, uint32_t local, uint32_t b, uint32_t pos) {
        if (b) {
            if constexpr (KIND == GP__SEL_NONZERO) s_idx[pos] = (I)local;
            else s_val[pos] = x[q];
            if constexpr (RUNS) s_idx[pos] = (I)local;
        } else if (KIND <= GP__SEL_PRED && rejected && local < valid) {
            s_val[kept + local - pos] = x[q];
        }
    });
}

/* Run-length, once the tile's prefix is known and its heads' places are in s_idx (the
 * scatter, visible to the block): the block writes the lengths of the runs that end in the
 * tile. The tile's run r spans its places [s_idx[r], s_idx[r + 1]), its last one up to
 * `valid`, which ends in this tile when the tile's last item is a tail; when the tile does
 * not begin with a head, the first run to end in it (number P0 - 1) began at last_head, in
 * an earlier tile. So a length needs no tail's place: no pass over the items for it, and no
 * barrier; only the count of tails, from the tile's two ends. */
template <class I>
static __device__ __forceinline__ void gp__select_write_lengths(uint64_t *lengths, const I *s_idx, uint32_t heads,
                                                               bool head0, bool last_tail, unsigned long long P0,
                                                               size_t start, uint32_t valid,
                                                               unsigned long long last_head)
{
    const int r0 = head0 ? 0 : -1;
    const uint32_t tails = heads + (head0 ? 0u : 1u) - (last_tail ? 0u : 1u); /* runs that end here */
    for (uint32_t q = threadIdx.x; q < tails; q += GP__SEL_BLOCK) {
        const int r = r0 + (int)q;
        const uint32_t end = r + 1 < (int)heads ? (uint32_t)s_idx[r + 1] : valid;
        const unsigned long long begin = r < 0 ? last_head : start + s_idx[r];
        lengths[P0 + r] = start + end - begin;
    }
}

/* The block's scanning threads write the tile's buffer out as contiguous runs: the kept
 * items (or nonzero's indices) from out[P0], partition's rejected ones from
 * rejected[start - P0]. */
template <int KIND, class T, class P, class I>
static __device__ __forceinline__ void gp__select_write(const gp__select_args<T, P> &a, const T *s_val,
                                                       const I *s_idx, unsigned long long P0, uint32_t kept,
                                                       uint32_t valid, size_t start)
{
    for (uint32_t q = threadIdx.x; q < kept; q += GP__SEL_BLOCK) {
        if constexpr (KIND == GP__SEL_NONZERO) a.idx[P0 + q] = start + s_idx[q];
        else gp__store_elem(a.out + (P0 + q), s_val[q]);
    }
    if (KIND <= GP__SEL_PRED && a.rejected)
        for (uint32_t q = kept + threadIdx.x; q < valid; q += GP__SEL_BLOCK)
            gp__store_elem(a.rejected + (start - P0 + (q - kept)), s_val[q]);
}


#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SELECT_CUH */
