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
} gp__hist_even_float;

static inline GP__HD gp__hist_even_float gp__hist_even_float_make(double lower, double upper, uint64_t bins)
{
    gp__hist_even_float e;
    e.lower = lower;
    e.upper = upper;
    e.width = upper - lower;
    e.inv = 1.0 / e.width;
    e.dbins = (double)bins;
    e.bins = bins;
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

static inline GP__HD uint64_t gp__hist_even_float_bin(const gp__hist_even_float &e, double x)
{
    if (!(x >= e.lower && x < e.upper)) return e.bins;
    const double a = (x - e.lower) * e.dbins;
    const double q = a * e.inv, f = floor(q), tol = q * 0x1p-46;
    if (q - f > tol && f + 1.0 - q > tol && q < e.dbins) return (uint64_t)f; /* NaN/inf fail the tests */
    return gp__hist_even_float_exact(e, x);
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

/* The smallest float >= e (a double edge as a float edge: for a float x, x >= e exactly when
 * x >= gp__float_ceil(e)). NaN stays NaN; past FLT_MAX it is +inf. */
static inline GP__HD float gp__float_ceil(double e)
{
    float f = (float)e;
    if ((double)f < e) f = nextafterf(f, INFINITY);
    return f;
}

/* ---- the launch plan --------------------------------------------------------------------------
 * The input splits into a head (elements before the first 16-byte boundary), a body of whole
 * 16-byte vectors, and a tail. Counters: `keys` counters per copy (bins, or 256 byte values
 * for 1-byte types), `copies` copies per block in shared memory (a warp uses copy
 * warp % copies), or none (global: atomics straight into the output). Merge:
 *   GP__HIST_ONE    one block writes every bin of the output itself (small n);
 *   GP__HIST_LAST   blocks add into accumulators in status memory, and the last block to
 *                   finish copies them to the output and returns them to 0: one launch;
 *   GP__HIST_ZEROED the output is cleared first (a memset), then blocks add into it
 *                   (bins past GP__HIST_LAST_BINS, where one block's copy would be long). */
enum { GP__HIST_ONE = 0, GP__HIST_LAST = 1, GP__HIST_ZEROED = 2 };

#ifndef GP__HIST_BLOCK
#define GP__HIST_BLOCK 512 /* threads per block */
#endif
#ifndef GP__HIST_UNROLL
#define GP__HIST_UNROLL 4 /* 16-byte loads in flight per thread */
#endif
#ifndef GP__HIST_COPY_BYTES
#define GP__HIST_COPY_BYTES (32 * 1024) /* shared counters a block spends on copies */
#endif
#ifndef GP__HIST_LAST_BINS
#define GP__HIST_LAST_BINS 8192 /* GP__HIST_LAST up to here; past it GP__HIST_ZEROED */
#endif
#ifndef GP__HIST_ONE_VECS
#define GP__HIST_ONE_VECS 4096 /* GP__HIST_ONE up to this many 16-byte vectors (64 KB) */
#endif

typedef struct gp__hist_plan {
    size_t head, nvec, tail; /* elements before the body, body vectors, elements after */
    uint64_t bins;           /* output bins */
    uint32_t keys;           /* counters per copy (0: global counting) */
    uint32_t copies;         /* counter copies per block */
    uint32_t blocks;
    uint32_t values;         /* counters are byte values, mapped to bins at the merge */
    int merge;               /* GP__HIST_ONE, _LAST or _ZEROED */
    size_t smem_bytes;       /* dynamic shared memory: edges, then copies * keys counters */
} gp__hist_plan;

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
    const size_t warps = GP__HIST_BLOCK / 32;
    size_t fit = smem_max > edge_bytes ? (smem_max - edge_bytes) / 4 : 0;
    if (keys > fit && edge_bytes) { /* edges move to global memory before the counters do */
        edge_bytes = 0;
        fit = smem_max / 4;
    }
    if (keys <= fit) {
        p.keys = (uint32_t)keys;
        p.copies = (uint32_t)gp__max_size(1, gp__min_size(warps, GP__HIST_COPY_BYTES / (4 * keys)));
    } else {
        p.keys = 0;
        p.copies = 0;
    }
    p.smem_bytes = edge_bytes + (size_t)p.copies * p.keys * 4;
    p.blocks = 1;
    p.merge = bins > GP__HIST_LAST_BINS      ? GP__HIST_ZEROED
              : p.nvec <= GP__HIST_ONE_VECS ? GP__HIST_ONE
                                            : GP__HIST_LAST;
    return p;
}

/* The grid of a plan, given the resident blocks of the whole GPU: no more blocks than there
 * are chunks of GP__HIST_BLOCK x GP__HIST_UNROLL vectors, and enough that no block counts
 * 2^31 elements (its 32-bit shared counters cannot overflow). */
static inline GP__HD void gp__hist_set_blocks(gp__hist_plan &p, size_t n, size_t grid_blocks)
{
    if (p.merge == GP__HIST_ONE) {
        p.blocks = 1;
        return;
    }
    const size_t chunks = gp__ceil_div(p.nvec, (size_t)GP__HIST_BLOCK * GP__HIST_UNROLL);
    size_t blocks = gp__max_size(1, gp__min_size(chunks, grid_blocks));
    blocks = gp__max_size(blocks, gp__ceil_div(n, (size_t)1 << 31) + 1);
    p.blocks = (uint32_t)gp__min_size(blocks, GP__GRID_MAX);
}

/* Status memory of a GP__HIST_LAST call: a done counter, then bins accumulators; all of it
 * counters that the last block returns to 0. */
static inline GP__HD size_t gp__hist_scratch_bytes(uint64_t bins) { return 8 + 8 * (size_t)bins; }

#endif /* __cplusplus */
#endif /* GPUPRIMS_DETAIL_HISTOGRAM_BIN_CUH */
