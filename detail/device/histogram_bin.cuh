/* detail/device/histogram_bin.cuh -- the histogram's bin rules (equal-width bins over an
 * integer or a floating range, bins between edges) and its launch plan: plain host/device
 * arithmetic, so the host tests call exactly what the kernels call. Level 4 (a part of the
 * histogram family): needs util/common.cuh.
 *
 * A binner maps an element to its bin, or to a value >= bins (not counted). The rules,
 * exact and the same on host and device:
 *   integers  x in [lower, upper) -> floor((x - lower) * bins / (upper - lower)), computed
 *             exactly in 64/128-bit integers (no overflow for any x, bins or range);
 *   floats    x with lower <= (double)x < upper -> floor(((double)x - lower) * bins /
 *             (upper - lower)), each operation rounded in double as written, clamped to
 *             bins - 1 (NaN never satisfies the range test, so it is not counted);
 *   edges     bin i holds edges[i] <= x < edges[i+1], x compared as int64_t or double. */
#ifndef GPUPRIMS_DETAIL_HISTOGRAM_BIN_CUH
#define GPUPRIMS_DETAIL_HISTOGRAM_BIN_CUH

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __cplusplus
#define GP__HIST_MAX_BINS ((size_t)1 << 32) /* bins from 1 to 2^32 */

/* The high 64 bits of a * b. */
static inline GP__HD uint64_t gp__mulhi_u64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* floor((hi * 2^64 + lo) / d) for a quotient below 2^64 (hi < d): restoring division, one
 * bit a step. The general integer rule's last resort (ranges that are neither a multiple
 * of bins nor a power of two, with v * bins past 64 bits): slow, and rare. */
static inline GP__HD uint64_t gp__div_u128(uint64_t hi, uint64_t lo, uint64_t d)
{
    uint64_t q = 0, rem = hi;
    for (int i = 63; i >= 0; i--) {
        const uint64_t carry = rem >> 63;
        rem = rem << 1 | (lo >> i & 1);
        if (carry || rem >= d) {
            rem -= d;
            q |= (uint64_t)1 << i;
        }
    }
    return q;
}

/* ---- equal bins over an integer range ------------------------------------------------------
 * v = x - lower in [0, range); bin = floor(v * bins / range), by the cheapest exact form. */
enum { GP__HIST_SHIFT = 0, /* range = bins * 2^shift:            v >> shift */
       GP__HIST_DIV32 = 1, /* range = bins * d, v and d < 2^32:   v / d by a multiply (Lemire) */
       GP__HIST_MULSHIFT = 2, /* range = 2^shift, v * bins fits: (v * bins) >> shift */
       GP__HIST_GENERIC = 3 /* 128-bit product, restoring division */ };

typedef struct gp__hist_even_int {
    int64_t lower, upper;
    uint64_t range, bins, magic;
    unsigned shift;
    int kind;
} gp__hist_even_int;

static inline GP__HD int gp__is_pow2_u64(uint64_t x) { return x && !(x & (x - 1)); }
static inline GP__HD unsigned gp__log2_u64(uint64_t x)
{
    unsigned s = 0;
    while (x >> s > 1) s++;
    return s;
}

/* The plan of an integer rule; lower < upper, 1 <= bins <= 2^32 (checked by the caller). */
static inline GP__HD gp__hist_even_int gp__hist_even_int_make(int64_t lower, int64_t upper, uint64_t bins)
{
    gp__hist_even_int e;
    e.lower = lower;
    e.upper = upper;
    e.range = (uint64_t)upper - (uint64_t)lower; /* exact: 0 < upper - lower < 2^64 */
    e.bins = bins;
    e.magic = 0;
    e.shift = 0;
    if (e.range % bins == 0) {
        const uint64_t d = e.range / bins;
        if (gp__is_pow2_u64(d)) {
            e.kind = GP__HIST_SHIFT;
            e.shift = gp__log2_u64(d);
            return e;
        }
        if (e.range - 1 <= 0xffffffffull) { /* v < 2^32 and d < 2^32 */
            e.kind = GP__HIST_DIV32;
            e.magic = UINT64_MAX / d + 1; /* ceil(2^64 / d), d not a power of two */
            return e;
        }
    }
    if (gp__is_pow2_u64(e.range) && gp__mulhi_u64(e.range - 1, bins) == 0) {
        e.kind = GP__HIST_MULSHIFT;
        e.shift = gp__log2_u64(e.range);
        return e;
    }
    e.kind = GP__HIST_GENERIC;
    return e;
}

/* The bin of x, or e.bins when x is outside [lower, upper). */
static inline GP__HD uint64_t gp__hist_even_int_bin(const gp__hist_even_int &e, int64_t x)
{
    if (x < e.lower || x >= e.upper) return e.bins;
    const uint64_t v = (uint64_t)x - (uint64_t)e.lower;
    switch (e.kind) {
    case GP__HIST_SHIFT: return v >> e.shift;
    case GP__HIST_DIV32: return gp__mulhi_u64(e.magic, v); /* exact for 32-bit v and d */
    case GP__HIST_MULSHIFT: return (v * e.bins) >> e.shift;
    default: return gp__div_u128(gp__mulhi_u64(v, e.bins), v * e.bins, e.range);
    }
}

/* ---- equal bins over a floating range ---------------------------------------------------------
 * r = fl(fl(fl(x - lower) * bins) / fl(upper - lower)); bin = floor(r), at most bins - 1.
 * The division is the costly step (a software sequence on the GPU), so the kernel takes
 * q = a * fl(1 / w) instead: |q - r| < 2^-50 q, so floor(q) == floor(r) unless q lies that
 * close to an integer; then (rarely: exact hits, x == lower) it divides. */
typedef struct gp__hist_even_float {
    double lower, upper, width, inv, dbins;
    uint64_t bins;
    /* float x, in float arithmetic (gp__hist_even_float_bin_f32): x >= lower and x < upper
     * exactly as x >= f_lower_ceil and x < f_upper_ceil; q = (x - f_lower) * f_scale lies
     * within q * 2^-21 + f_tol of the rule's quotient (f_fast: where that bound is useful) */
    float f_lower_ceil, f_upper_ceil, f_lower, f_scale, f_tol, f_rel; /* tolerance f_rel * q + f_tol */
    uint32_t f_bins; /* bins, where f_fast */
    int f_fast;
    int f_exact; /* q is the rule's quotient itself: no tolerance, no element left to the rule */
    int w_pow2; /* upper - lower is a power of two: a / w is exactly a * inv, no check needed */
} gp__hist_even_float;

/* Float arithmetic rounded as written on host and device (nvcc would fuse into an FMA). */
static inline GP__HD float gp__fsub_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
/* floor(f) as int, saturated (NaN: 0), as the GPU converts. */
static inline GP__HD int gp__f2i_floor(float f)
{
#ifdef __CUDA_ARCH__
    return __float2int_rd(f);
#else
    if (!(f == f)) return 0;
    f = floorf(f);
    return f >= 2147483648.0f ? INT32_MAX : f < -2147483648.0f ? INT32_MIN : (int)f;
#endif
}
static inline GP__HD float gp__fmul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

/* The smallest float >= e (a double edge as a float edge: for a float x, x >= e exactly when
 * x >= gp__float_ceil(e)). NaN stays NaN; past FLT_MAX it is +inf. */
static inline GP__HD float gp__float_ceil(double e)
{
    float f = (float)e;
    if ((double)f < e) f = nextafterf(f, INFINITY);
    return f;
}

/* exact_ok 0: never f_exact (the bench's ladder: the tolerance's path where the exact one applies) */
static inline GP__HD gp__hist_even_float gp__hist_even_float_make(double lower, double upper, uint64_t bins, int exact_ok = 1)
{
    gp__hist_even_float e;
    e.lower = lower;
    e.upper = upper;
    e.width = upper - lower;
    e.inv = 1.0 / e.width;
    e.dbins = (double)bins;
    e.bins = bins;
    /* The float quotient's error against the exact (x - lower) * bins / w, S = bins / w:
     * f_lower is lower rounded (off by e1), then three float roundings (2^-24 each), so
     * |q - exact| <= 0.76 * 2^-22 (exact + e1 S) + e1 S; the rule's own double rounding is
     * 2^-51 relative. Allowing q * 2^-21 + 2 e1 S + 2^-40 covers both, and the rounding of
     * q -+ that (2^-24 q), with room. Far from an integer by more than that, floor(q) is
     * the rule's bin. */
    const double S = e.dbins / e.width;
    e.f_lower_ceil = gp__float_ceil(lower);
    e.f_upper_ceil = gp__float_ceil(upper);
    e.f_lower = (float)lower;
    e.f_scale = (float)S;
    e.f_tol = gp__float_ceil(2.0 * fabs(lower - (double)e.f_lower) * S + 0x1p-40);
    e.f_rel = 0x1p-21f;
    e.f_bins = (uint32_t)bins;
    /* Dividing by 2^k and multiplying by 2^-k round the same real number, so give the same
     * double, subnormal or not: with such a width the rule needs no division (as [0, 1)). */
    int ex = 0;
    e.w_pow2 = isfinite(e.width) && e.width > 0.0 && frexp(e.width, &ex) == 0.5 && e.inv * e.width == 1.0;
    /* lower 0 and S a power of two as well (2^k bins over [0, 1), say): the rule's quotient is
     * x * S exactly (bins = S w is a power of two, so nothing rounds), and so is the float
     * product (a float times a power of two, below bins <= 2^31: no overflow; a product that
     * underflows is below 1, as is the exact one). Then floor(q) is the bin, with no tolerance:
     * with it, 65536 bins over [0, 1) left 3% of the elements next to an edge, one in almost
     * every warp's vectors, and the warp ran the rule as written for it. */
    e.f_exact = exact_ok && lower == 0.0 && e.w_pow2 && S >= 0x1p-126 && frexp(S, &ex) == 0.5 && bins <= ((uint64_t)1 << 31);
    if (e.f_exact) e.f_tol = e.f_rel = 0.0f;
    e.f_fast = (bins < ((uint64_t)1 << 24) || e.f_exact) && isfinite(e.f_lower) && isfinite(e.f_scale) &&
               e.f_scale > 0.0f && e.f_tol < 0.25f;
    return e;
}

/* floor(r) of a finite r >= 0 as a bin: bins - 1 where r >= bins (or r is NaN: inf / inf). */
static inline GP__HD uint64_t gp__hist_clamp_bin(double f, const gp__hist_even_float &e)
{
    return f < e.dbins ? (uint64_t)f : e.bins - 1;
}

/* The rule as written: the slow path of gp__hist_even_float_bin, near a bin's edge. */
static inline GP__HD uint64_t gp__hist_even_float_exact(const gp__hist_even_float &e, double x)
{
    if (!(x >= e.lower && x < e.upper)) return e.bins;
    return gp__hist_clamp_bin(floor(((x - e.lower) * e.dbins) / e.width), e);
}

/* The rule where w_pow2, without a branch: x's bin, or bins when x is not counted. */
static inline GP__HD uint64_t gp__hist_even_float_pow2_bin(const gp__hist_even_float &e, double x)
{
    const bool in = x >= e.lower && x < e.upper; /* NaN fails */
    const double f = floor((((in ? x : e.lower) - e.lower) * e.dbins) * e.inv);
    return in ? (f < e.dbins ? (uint64_t)f : e.bins - 1) : e.bins;
}

static inline GP__HD uint64_t gp__hist_even_float_bin(const gp__hist_even_float &e, double x)
{
    if (e.w_pow2) return gp__hist_even_float_pow2_bin(e, x); /* a / w exactly; tests the range itself */
    if (!(x >= e.lower && x < e.upper)) return e.bins;
    const double q = ((x - e.lower) * e.dbins) * e.inv, f = floor(q), tol = q * 0x1p-46;
    if (q - f > tol && f + 1.0 - q > tol && q < e.dbins) return (uint64_t)f; /* NaN/inf fail the tests */
    return gp__hist_even_float_exact(e, x);
}

/* The same rule for a float x, through float arithmetic: a third of the instructions of
 * the double path, none of them on the (half-rate) FP64 pipe, and no branch. Needs f_fast.
 * Gives x's bin (bins when x is not counted), or sets `undecided` when x lies next to a
 * bin's edge, where only the rule as written can tell: no integer lies strictly between
 * q - tol and q + tol exactly when both floor the same. */
static inline GP__HD uint32_t gp__hist_even_float_fast_f32(const gp__hist_even_float &e, float x, uint32_t &undecided)
{
    const float q = gp__fmul_rn(gp__fsub_rn(x, e.f_lower), e.f_scale); /* >= 0 when in: x >= f_lower */
    const float tol = fmaf(q, e.f_rel, e.f_tol);
    const int lo = gp__f2i_floor(gp__fsub_rn(q, tol)), hi = gp__f2i_floor(q + tol);
    const bool in = (x >= e.f_lower_ceil) & (x < e.f_upper_ceil); /* NaN fails */
    undecided |= (uint32_t)(in & ((lo != hi) | ((uint32_t)hi >= e.f_bins)));
    return in ? (uint32_t)hi : e.f_bins;
}
/* The same where f_exact (lower 0): floor(x * S) is the bin, nothing left undecided. */
static inline GP__HD uint32_t gp__hist_even_float_exact_f32(const gp__hist_even_float &e, float x)
{
    const int bin = gp__f2i_floor(gp__fmul_rn(x, e.f_scale));
    const bool in = (x >= e.f_lower_ceil) & (x < e.f_upper_ceil); /* NaN fails */
    return in ? (uint32_t)bin : e.f_bins;
}
static inline GP__HD uint64_t gp__hist_even_float_bin_f32(const gp__hist_even_float &e, float x)
{
    uint32_t undecided = !e.f_fast;
    const uint32_t bin = gp__hist_even_float_fast_f32(e, x, undecided);
    return undecided ? gp__hist_even_float_bin(e, (double)x) : bin;
}

/* ---- edges ----------------------------------------------------------------------------------
 * The bin of x among edges[0..bins]: the last i < bins with edges[i] <= x, found in
 * ceil(log2(bins)) steps of the same length in every thread. Edges out of order give some
 * bin in [0, bins): never an index outside the array. */
template <class E, class X>
static inline GP__HD uint64_t gp__hist_edges_bin(const E *edges, uint64_t bins, X x)
{
    if (!(x >= edges[0] && x < edges[bins])) return bins;
    uint64_t base = 0, n = bins;
    while (n > 1) {
        const uint64_t half = n / 2;
        base = x >= edges[base + half] ? base + half : base;
        n -= half;
    }
    return base;
}

/* ---- edges through a table of cells ------------------------------------------------------------
 * The bisection above costs ceil(log2(bins)) dependent loads per element. Instead, cut
 * [edges[0], edges[bins]) into `cells` equal cells by a float function cell(x) that never
 * decreases as x grows, and keep for each cell c the bins its elements can have: lo(c) =
 * #{i in 1..bins-1 : cell(edges[i]) < c} and hi(c) = #{... <= c}. For x in range, every
 * edge of a lower cell is <= x and every edge of a higher cell is > x, so bin(x) = lo(c) +
 * #{i in (lo, hi] : edges[i] <= x}: with a few cells per bin, usually hi == lo and the bin
 * is one table load, whatever the edges. Exact by construction (no tolerance involved):
 * only the monotonicity of cell() matters, which float subtraction and multiplication by
 * a non-negative scale keep. A table entry packs lo | hi << 16 (bins <= 65536). Edges out of
 * order give some bin in [0, bins), never an index outside the arrays. */
typedef struct gp__hist_cells {
    float e0, scale; /* cell(x) = floor(((float)x - e0) * scale), clamped to [0, cells) */
    uint32_t cells;
} gp__hist_cells;

#define GP__HIST_CELLS_MAX 8192   /* cells of the table (32 KB) */
#define GP__HIST_CELLS_BINS 65536 /* the table's entries hold bins below this */

/* Cells for `bins` bins (0: no table): a power of two, about four per bin. */
static inline GP__HD uint32_t gp__hist_cells_for(uint64_t bins)
{
    if (bins < 2 || bins > GP__HIST_CELLS_BINS) return 0;
    uint32_t c = 256;
    while (c < 4 * bins && c < GP__HIST_CELLS_MAX) c *= 2;
    return c;
}

/* The cell function of edges e0 .. eN (float edges: lossless; others rounded, which keeps
 * it monotone). A scale that is not a positive finite float puts everything in cell 0. */
static inline GP__HD gp__hist_cells gp__hist_cells_make(float e0, float eN, uint32_t cells)
{
    gp__hist_cells c;
    c.e0 = e0;
    c.cells = cells;
    const float s = (float)cells / gp__fsub_rn(eN, e0);
    c.scale = s > 0.0f && s < INFINITY ? s : 0.0f;
    return c;
}
template <class X>
static inline GP__HD uint32_t gp__hist_cell(const gp__hist_cells &c, X x)
{
    const float q = gp__fmul_rn(gp__fsub_rn((float)x, c.e0), c.scale);
    if (!(q > 0.0f)) return 0; /* negative, zero, NaN */
    return q < (float)c.cells ? (uint32_t)q : c.cells - 1;
}
/* #{i in 1..bins-1 : cell(edges[i]) < cell}, by bisection (a prefix for ascending edges). */
template <class E>
static inline GP__HD uint32_t gp__hist_cell_below(const E *edges, uint64_t bins, const gp__hist_cells &c, uint32_t cell)
{
    uint32_t lo = 1, n = (uint32_t)bins - 1;
    while (n > 0) {
        const uint32_t half = n / 2;
        if (gp__hist_cell(c, edges[lo + half]) < cell) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return lo - 1;
}
/* Table entry of cell c. */
template <class E>
static inline GP__HD uint32_t gp__hist_cell_entry(const E *edges, uint64_t bins, const gp__hist_cells &c, uint32_t cell)
{
    return gp__hist_cell_below(edges, bins, c, cell) | gp__hist_cell_below(edges, bins, c, cell + 1) << 16;
}
/* The bin of an x already known to lie in [edges[0], edges[bins]). */
template <class E, class X>
static inline GP__HD uint64_t gp__hist_cells_bin(const E *edges, const uint32_t *table, const gp__hist_cells &c, X x)
{
    const uint32_t t = table[gp__hist_cell(c, x)];
    uint32_t lo = t & 0xffff, hi = t >> 16;
    while (hi > lo) { /* the last i in [lo, hi] with edges[i] <= x (or lo) */
        const uint32_t mid = lo + (hi - lo + 1) / 2;
        if (x >= edges[mid]) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* ---- the launch plan --------------------------------------------------------------------------
 * The input splits into a head (elements before the first 16-byte boundary), a body of whole
 * 16-byte vectors, and a tail. Counters: `keys` keys per copy (bins, or 256 byte values
 * for 1-byte types), `copies` copies per block in shared memory (a warp uses copy
 * warp % copies), or none (global: atomics straight into the output). Byte values have 32
 * counters each (`lanes`), one per lane, laid out so that lane l's counters all sit in
 * bank l: a warp's 32 increments then never meet in a bank or an address, whatever the
 * bytes, and need no run detection. Past the room of 32-bit counters, 16-bit ones (`half`),
 * two to a word, each flushed to the output by 2^15 as it reaches 2^15. Merge:
 *   GP__HIST_ONE    one block writes every bin of the output itself (small n);
 *   GP__HIST_LAST   blocks add into accumulators in status memory, and the last block to
 *                   finish copies them to the output and returns them to 0: one launch;
 *   GP__HIST_ZEROED the output is cleared first (a memset), then blocks add into it
 *                   (bins past GP__HIST_LAST_BINS, where one block's copy would be long). */
enum { GP__HIST_ONE = 0, GP__HIST_LAST = 1, GP__HIST_ZEROED = 2 };

#ifndef GP__HIST_BLOCK
#define GP__HIST_BLOCK 1024 /* threads per block: wider elements (counting waits on shared atomics) */
#endif
#ifndef GP__HIST_BLOCK_BYTES
#define GP__HIST_BLOCK_BYTES 512 /* threads per block: bytes (a warp's reductions never wait) */
#endif
/* Threads per block for elements of `elem` bytes. 1024 threads (one block an SM) rather
 * than 512 (two) keep the same warps on an SM, but where counters fill shared memory (16-bit
 * counters: 128 KB) only one block fits, and 1024 threads double the warps hiding the
 * atomics' latency (H100: u16 and f32 at 65536 bins 1.15-1.4x, range bins 1.05x). */
static inline constexpr GP__HD unsigned gp__hist_block(size_t elem) { return elem == 1 ? GP__HIST_BLOCK_BYTES : GP__HIST_BLOCK; }
static_assert(GP__HIST_BLOCK >= 256 && GP__HIST_BLOCK <= 1024 && GP__HIST_BLOCK_BYTES >= 256 && GP__HIST_BLOCK_BYTES <= 1024,
              "histogram blocks: 256 to 1024 threads (a thread per byte value at the merge)");
#ifndef GP__HIST_UNROLL
#define GP__HIST_UNROLL 4 /* 16-byte loads in flight per thread */
#endif
#ifndef GP__HIST_COPY_BYTES
#define GP__HIST_COPY_BYTES (32 * 1024) /* shared counters a block spends on copies */
#endif
#ifndef GP__HIST_LAST_BINS
#define GP__HIST_LAST_BINS 8192 /* GP__HIST_LAST up to here; past it GP__HIST_ZEROED */
#endif
#ifndef GP__HIST_VALUE_COPIES
#define GP__HIST_VALUE_COPIES 1 /* copies of the byte counters (32 KB each) per block: one is as fast as two */
#endif
#ifndef GP__HIST_ONE_VECS
#define GP__HIST_ONE_VECS 4096 /* GP__HIST_ONE up to this many 16-byte vectors (64 KB) */
#endif

typedef struct gp__hist_plan {
    size_t head, nvec, tail; /* elements before the body, body vectors, elements after */
    uint64_t bins;           /* output bins */
    uint32_t keys;           /* keys counted per copy (0: global counting) */
    uint32_t lanes;          /* counters per key in a copy: 32 (lane l counts in bank l) or 1 */
    uint32_t half;           /* 16-bit counters, two to a word (bins past 32-bit counters' room) */
    uint32_t copies;         /* counter copies per block */
    uint32_t blocks;
    uint32_t threads;        /* per block: gp__hist_block(elem) */
    uint32_t values;         /* counters are byte values, mapped to bins at the merge */
    int merge;               /* GP__HIST_ONE, _LAST or _ZEROED */
    size_t smem_bytes;       /* dynamic shared memory: edges, then copies * keys counters */
} gp__hist_plan;

/* Counters in a copy: 32 per byte value (lanes), else one per key and one more that takes
 * what is not counted (so that counting needs no branch). */
static inline GP__HD size_t gp__hist_copy_words(const gp__hist_plan &p)
{
    return p.lanes == 32 ? (size_t)p.keys * 32 : p.half ? ((size_t)p.keys + 2) / 2 : p.keys ? (size_t)p.keys + 1 : 0;
}

/* elem: bytes per element; in: the input's address; edge_bytes: shared memory the binner
 * wants (0: none; the edges stay in global memory when they do not fit); smem_max: what a
 * block may have; grid_blocks: the full grid (SMs x resident blocks; the caller asks the
 * occupancy of this plan's shared memory and calls again with it: see gp__hist_blocks). */
static inline GP__HD gp__hist_plan gp__hist_make_plan(uintptr_t in, size_t n, size_t elem, uint64_t bins,
                                                     size_t edge_bytes, size_t smem_max)
{
    gp__hist_plan p;
    const size_t vec = 16 / elem, to_boundary = (16 - in % 16) % 16;
    p.head = to_boundary % elem == 0 ? gp__min_size(n, to_boundary / elem) : n; /* off its size: no vectors */
    p.nvec = (n - p.head) / vec;
    p.tail = n - p.head - p.nvec * vec;
    p.bins = bins;
    p.values = elem == 1; /* bytes: 256 value counters cover any bins */
    const size_t keys = p.values ? 256 : bins;
    p.threads = gp__hist_block(elem);
    const size_t warps = p.threads / 32;
    p.lanes = 1;
    p.half = 0;
    size_t fit = smem_max > edge_bytes ? (smem_max - edge_bytes) / 4 : 0;
    const size_t need = p.values ? 256 * 32 : keys; /* the fewest counters the plan takes */
    if (need > fit && edge_bytes) { /* edges move to global memory before the counters do */
        edge_bytes = 0;
        fit = smem_max / 4;
    }
    if (p.values) { /* 256 keys x 32 lanes: 32 KB a copy */
        p.keys = 256;
        p.lanes = 32;
        p.copies = (uint32_t)gp__max_size(1, gp__min_size(n <= GP__HIST_ONE_VECS * 16 ? 1 : GP__HIST_VALUE_COPIES,
                                                          fit / (256 * 32)));
    } else if (keys + 1 <= fit) {
        p.keys = (uint32_t)keys;
        p.copies = (uint32_t)gp__max_size(1, gp__min_size(warps, GP__HIST_COPY_BYTES / (4 * keys)));
    } else if ((keys + 2) / 2 <= fit) { /* 16-bit counters: u16 and f32 at 65536 bins */
        p.keys = (uint32_t)keys;
        p.half = 1;
        p.copies = 1;
    } else {
        p.keys = 0;
        p.copies = 0;
    }
    p.smem_bytes = edge_bytes + (size_t)p.copies * gp__hist_copy_words(p) * 4;
    p.blocks = 1;
    p.merge = bins > GP__HIST_LAST_BINS      ? GP__HIST_ZEROED
              : p.nvec <= GP__HIST_ONE_VECS ? GP__HIST_ONE
                                            : GP__HIST_LAST;
    return p;
}

/* The grid of a plan, given the resident blocks of the whole GPU and its SMs: no more
 * blocks than there are chunks of p.threads x GP__HIST_UNROLL vectors; past one block an
 * SM, none with fewer than min_chunks chunks (a block's fixed work, clearing and merging
 * its counters, is then repaid); and enough that no block counts 2^31 elements (its 32-bit
 * shared counters cannot overflow). */
#ifndef GP__HIST_BLOCK_CHUNKS
#define GP__HIST_BLOCK_CHUNKS 4 /* min_chunks. H100, u8 at 2^24: 61-62% of the read rate, against 57-59% with 512 blocks of a chunk */
#endif
static inline GP__HD void gp__hist_set_blocks(gp__hist_plan &p, size_t n, size_t grid_blocks, size_t sms,
                                              size_t min_chunks = GP__HIST_BLOCK_CHUNKS)
{
    if (p.merge == GP__HIST_ONE) {
        p.blocks = 1;
        return;
    }
    const size_t chunks = gp__ceil_div(p.nvec, (size_t)p.threads * GP__HIST_UNROLL);
    size_t blocks = gp__max_size(1, gp__min_size(chunks, grid_blocks));
    if (blocks > sms) blocks = gp__max_size(sms, gp__min_size(blocks, gp__ceil_div(chunks, min_chunks)));
    blocks = gp__max_size(blocks, gp__ceil_div(n, (size_t)1 << 31) + 1);
    p.blocks = (uint32_t)gp__min_size(blocks, GP__GRID_MAX);
}

/* Knobs of the launcher (device/histogram.cuh) for the bench's ladder (NULL: the defaults). */
typedef struct gp__hist_knobs {
    int force_zeroed; /* merge by a cleared output even where GP__HIST_LAST applies */
    int copies;       /* copies per block (0: the plan's) */
    int no_values;    /* bytes counted by bin, not by value (only where GP__HIST_LADDER is defined: the bench) */
    int lanes;        /* byte values: 1 counter per value in a copy, not one per lane (0: the plan's) */
    int double_rule;  /* f32 even bins: the rule in double for every element */
    int no_cells;     /* range bins: bisection over the edges, no table of cells */
    int no_split;     /* past shared memory: global atomics, not the partition */
    int all_blocks;   /* every resident block, however few chunks each gets */
    int no_exact;     /* f32 even bins: the float path with its tolerance where floor(x * S) is exact */
} gp__hist_knobs;

/* Status memory of a GP__HIST_LAST call: a done counter, then bins accumulators; all of it
 * counters that the last block returns to 0. */
static inline GP__HD size_t gp__hist_scratch_bytes(uint64_t bins) { return 8 + 8 * (size_t)bins; }

#endif /* __cplusplus */
#endif /* GPUPRIMS_DETAIL_HISTOGRAM_BIN_CUH */
