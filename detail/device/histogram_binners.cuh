/* detail/device/histogram_binners.cuh -- the binners of the device-wide histograms (even
 * integer and float bins, the exact float bins, range bins through the table of cells) and
 * their 32-bit keys for shared counters and for the partition (gp__hist_key_of). The rules
 * themselves are histogram_bin.cuh (host and device); the kernels that call these are
 * histogram.cuh and histogram_split.cuh. Level 3 (device code): needs histogram_bin.cuh and
 * common.cuh. */
#ifndef GPUPRIMS_DETAIL_HISTOGRAM_BINNERS_CUH
#define GPUPRIMS_DETAIL_HISTOGRAM_BINNERS_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include <limits>
#include <type_traits>
#include "histogram_bin.cuh"

/* ---- binners: bin(x) < bins, or >= bins (not counted). On the host, smem_want(smem_max)
 * says how much shared memory the binner would like (it may shrink its plans to fit);
 * smem_bytes is what it got (0: none). On the device, setup(smem, build) runs once per
 * block, every thread, before a barrier (build: the input is large enough to repay a
 * table). ------------------------------------------------------------------------------ */
struct gp__hist_binner_base {
    size_t smem_bytes;
    size_t smem_want(size_t) { return 0; }
    __device__ __forceinline__ void setup(void *, bool) {}
};

template <class T>
struct gp__hist_by_even_int : gp__hist_binner_base {
    gp__hist_even_int e;
    /* the shift rule in 32 bits (gp__hist_key32), set by gp__hist_by_even_int_make */
    uint32_t lower32, last32; /* lower mod 2^32; the last counted x - lower */
    uint32_t not32;           /* 1: the 32-bit form is not exact here, every vector takes the rule */
    __device__ __forceinline__ uint64_t operator()(T x) const { return gp__hist_even_int_bin(e, (int64_t)x); }
};

/* The even integer binner, with the 32-bit form of the shift rule where it is exact: for T of
 * at most 4 bytes, r = (uint32)x - (uint32)lower, x counted when r <= last32, bin r >> shift.
 * Let end = max T + 1 and top = min(upper, end). The form is exact when the shift is below 32
 * and end - lower <= 2^32: then every x of T has x - lower < 2^32, so a counted x
 * (lower <= x < top) has r = x - lower, and an x at or past top has r >= top - lower; an x
 * below lower has r = x - lower + 2^32 >= top - lower, since top <= min T + 2^32 <= x + 2^32.
 * Either way it is not counted. Other calls (a lower bound more than 2^32 below the type's
 * top, a rule that is not a shift) take the exact rule, vector by vector.
 * u16 at 65536 bins: 4 instructions a key instead of 8 in 64 bits. */
template <class T>
static inline gp__hist_by_even_int<T> gp__hist_by_even_int_make(int64_t lower, int64_t upper, uint64_t bins)
{
    gp__hist_by_even_int<T> b = {};
    b.e = gp__hist_even_int_make(lower, upper, bins);
    b.not32 = 1;
    if constexpr (sizeof(T) <= 4) {
        const int64_t end = (int64_t)std::numeric_limits<T>::max() + 1; /* at most 2^32 */
        const int64_t top = upper < end ? upper : end;
        if (b.e.kind == GP__HIST_SHIFT && b.e.shift < 32 && top > lower && lower >= end - ((int64_t)1 << 32)) {
            b.lower32 = (uint32_t)(uint64_t)lower;
            b.last32 = (uint32_t)((uint64_t)top - (uint64_t)lower - 1);
            b.not32 = 0;
        }
    }
    return b;
}
/* x's key by the 32-bit form, where it is exact (!b.not32): x's bin, or `keys` when x is not
 * counted. Host and device, so that the host tests check this very code. */
template <class T>
static inline GP__HD uint32_t gp__hist_even_int_key32(const gp__hist_by_even_int<T> &b, T x, uint32_t keys)
{
    const uint32_t r = (uint32_t)x - b.lower32; /* mod 2^32 */
    return r <= b.last32 ? r >> b.e.shift : keys;
}

template <class T>
struct gp__hist_by_even_float : gp__hist_binner_base {
    gp__hist_even_float e;
    __device__ __forceinline__ uint64_t operator()(T x) const
    {
        if constexpr (std::is_same<T, float>::value) return gp__hist_even_float_bin_f32(e, x);
        else return gp__hist_even_float_bin(e, (double)x);
    }
};

/* Float x where the float product is the rule's quotient (f_exact: 2^k bins over [0, 1), say):
 * a binner, and so a kernel, of its own. Choosing per call inside the even binner's kernel
 * cost the other float bins: 60000 bins over [0, 1) went from 613 to 777 us (H100, 2^28). */
struct gp__hist_by_exact_f32 : gp__hist_binner_base {
    gp__hist_even_float e;
    __device__ __forceinline__ uint64_t operator()(float x) const { return gp__hist_even_float_exact_f32(e, x); }
};

/* Edges of type E (int64_t or double) on the device; in shared memory as SE (float for float
 * x, else E) when they fit, with the table of cells (histogram_bin.cuh) after them when it
 * fits too and the input repays building it. */
template <class T, class E>
struct gp__hist_by_edges : gp__hist_binner_base {
    typedef typename std::conditional<std::is_same<T, float>::value, float, E>::type SE;
    const E *edges;
    uint64_t bins;
    uint32_t ncells;       /* cells of the table (0: bisection over the edges) */
    int no_table;          /* the bench's ladder: no table */
    const SE *s_edges;     /* device: the edges in shared memory */
    const uint32_t *table; /* device: the table, or NULL */
    gp__hist_cells cells;
    SE e0, eN;
    GP__HD size_t edge_bytes() const { return gp__round_up((size_t)(bins + 1) * sizeof(SE), 4); }
    size_t smem_want(size_t smem_max)
    {
        ncells = no_table ? 0 : gp__hist_cells_for(bins);
        if (edge_bytes() + (size_t)ncells * 4 + (size_t)bins * 4 > smem_max) ncells = 0;
        return edge_bytes() + (size_t)ncells * 4;
    }
    __device__ __forceinline__ void setup(void *smem, bool build)
    {
        table = NULL;
        if (!smem_bytes) return;
        SE *s = static_cast<SE *>(smem);
        for (uint64_t i = gp__thread_rank(); i <= bins; i += gp__block_size()) {
            const E e = edges[i];
            if constexpr (std::is_same<SE, float>::value) s[i] = gp__float_ceil(e);
            else s[i] = e;
        }
        s_edges = s;
        if (!build || !ncells || smem_bytes < edge_bytes() + (size_t)ncells * 4) return;
        __syncthreads(); /* the edges are in */
        e0 = s[0];
        eN = s[bins];
        cells = gp__hist_cells_make((float)e0, (float)eN, ncells);
        uint32_t *t = reinterpret_cast<uint32_t *>(static_cast<unsigned char *>(smem) + edge_bytes());
        for (uint32_t c = gp__thread_rank(); c < ncells; c += gp__block_size()) t[c] = gp__hist_cell_entry(s, bins, cells, c);
        table = t;
    }
    __device__ __forceinline__ uint64_t operator()(T x) const
    {
        if (table) {
            const SE v = (SE)x;
            if (!(v >= e0 && v < eN)) return bins;
            return gp__hist_cells_bin(s_edges, table, cells, v);
        }
        if (smem_bytes) return gp__hist_edges_bin(s_edges, bins, (SE)x);
        return gp__hist_edges_bin(edges, bins, (E)x);
    }
};

/* ---- 32-bit keys for shared counters -------------------------------------------------------------
 * gp__hist_key32(b, x, keys, slow): x's bin, or `keys` (the copy's extra counter) when x is
 * not counted; a binner with a fast path may instead set `slow` (never clear it), and the
 * kernel then bins the vector again by the exact b(x). No branch on the fast path. */
template <class Bin, class T>
static __device__ __forceinline__ uint32_t gp__hist_key32_exact(const Bin &b, T x, uint32_t keys)
{
    const uint64_t k = b(x);
    return k < keys ? (uint32_t)k : keys;
}
template <class Bin, class T>
static __device__ __forceinline__ uint32_t gp__hist_key32(const Bin &b, T x, uint32_t keys, uint32_t &)
{
    return gp__hist_key32_exact(b, x, keys);
}
/* Integers by a shift (the range a multiple of bins by a power of two, as u8 / u16 over
 * their whole range): 32-bit work where it is exact (gp__hist_by_even_int_make); the other
 * forms by the rule. */
template <class T>
static __device__ __forceinline__ uint32_t gp__hist_key32(const gp__hist_by_even_int<T> &b, T x, uint32_t keys,
                                                          uint32_t &slow)
{
    if constexpr (sizeof(T) <= 4) {
        slow |= b.not32;
        return gp__hist_even_int_key32(b, x, keys);
    } else {
        return gp__hist_key32_exact(b, x, keys);
    }
}
static __device__ __forceinline__ uint32_t gp__hist_key32(const gp__hist_by_exact_f32 &b, float x, uint32_t, uint32_t &)
{
    return gp__hist_even_float_exact_f32(b.e, x); /* keys == bins here */
}
static __device__ __forceinline__ uint32_t gp__hist_key32(const gp__hist_by_even_float<float> &b, float x, uint32_t keys,
                                                          uint32_t &slow)
{
    return gp__hist_even_float_fast_f32(b.e, x, slow); /* keys == bins here; f_fast checked by the kernel */
}
/* Edges by the table: a cell without an edge is its bin; with one edge, one comparison;
 * with more (crowded edges), the bisection of b(x). */
template <class T, class E>
static __device__ __forceinline__ uint32_t gp__hist_key32(const gp__hist_by_edges<T, E> &b, T x, uint32_t keys,
                                                          uint32_t &slow)
{
    const typename gp__hist_by_edges<T, E>::SE v = x;
    const bool in = (v >= b.e0) & (v < b.eN);
    const uint32_t t = b.table[gp__hist_cell(b.cells, v)], lo = t & 0xffff, hi = t >> 16;
    const uint32_t bin = (hi == lo + 1) & (v >= b.s_edges[hi]) ? hi : lo; /* hi < bins: in bounds */
    slow |= (uint32_t)(in & (hi > lo + 1));
    return in ? bin : keys;
}
/* Whether gp__hist_key32 may be called (the fast path's data is there): */
template <class Bin>
static __device__ __forceinline__ bool gp__hist_key32_ok(const Bin &) { return true; }
static __device__ __forceinline__ bool gp__hist_key32_ok(const gp__hist_by_even_float<float> &b) { return b.e.f_fast; }
template <class T, class E>
static __device__ __forceinline__ bool gp__hist_key32_ok(const gp__hist_by_edges<T, E> &b) { return b.table != NULL; }

/* x's bin in 32 bits, or `bins` (< 2^32) where x is not counted: the partitioned path's key
 * (histogram_split.cuh), by the fast path where the binner has one. */
template <class T, class Bin>
struct gp__hist_key_of {
    Bin b;
    uint32_t bins;
    __device__ __forceinline__ uint32_t operator()(T x) const
    {
        if (!gp__hist_key32_ok(b)) return gp__hist_key32_exact(b, x, bins);
        uint32_t slow = 0;
        const uint32_t k = gp__hist_key32(b, x, bins, slow);
        return slow ? gp__hist_key32_exact(b, x, bins) : k;
    }
};

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_HISTOGRAM_BINNERS_CUH */
