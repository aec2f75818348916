/* detail/device/histogram.cuh -- device-wide histograms: equal-width bins, bins between
 * edges, and a user's own binning (GP_DEFINE_HISTOGRAM), any bins count from 1 to 2^32,
 * one pass over the input, counts exact in uint64_t. Level 4: needs histogram_bin.cuh (the
 * rules and the plan), block/block_histogram.cuh, util/launch.cuh, util/status.cuh and
 * agent/single_pass.cuh.
 *
 * How it works. Each block keeps private counters in shared memory, `copies` of them (warp w
 * counts into copy w % copies: with few bins, warps would otherwise queue on the same
 * counters), streams its share of the input as 16-byte vectors (GP__HIST_UNROLL loads in
 * flight per thread), and counts a run of equal bins within a thread once, so data of one
 * value costs one atomic per run rather than per element. Bytes count by value (256
 * counters whatever the bins; the value-to-bin map is applied once per value, at the
 * merge), so u8 is as fast with 7 bins, 256, or 2^32, with even, range or user binning.
 * Counts are integers, so the order of the atomics changes nothing: the result is
 * the same on every run and stream. The blocks' counters then merge, in one launch:
 *   GP__HIST_ONE    small inputs: one block, which writes every bin itself;
 *   GP__HIST_LAST   up to GP__HIST_LAST_BINS bins: blocks add into accumulators in the
 *                   stream's status memory (zero between calls), and the last block to
 *                   finish moves them to the output (atomicExch with 0: the accumulators
 *                   are left as found) and resets the done counter;
 *   GP__HIST_ZEROED more bins: the output is cleared (cudaMemsetAsync), and blocks add
 *                   into it; past what shared memory holds (about 58K bins on the H100),
 *                   every element is a 64-bit atomic in global memory (the L2).
 * Edges (range bins) sit in shared memory beside the counters when they fit, floats' edges
 * rounded up to float (x >= e exactly when x >= the smallest float >= e). */
#ifndef GPUPRIMS_DETAIL_HISTOGRAM_CUH
#define GPUPRIMS_DETAIL_HISTOGRAM_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"

/* Declarations, C linkage (the definitions: GP_DEFINE_HISTOGRAM_EXTERN, and the default
 * instances in detail/instances.cuh):
 *   cudaError_t gp_histogram_<name>(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, cudaStream_t s); */
#define GP_DECLARE_HISTOGRAM(name, T) \
    GP__EXTERN_C cudaError_t gp_histogram_##name(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, cudaStream_t s);
/* The default instances' even and range names; L: int64_t for integer T, double for floats. */
#define GP__DECLARE_HISTOGRAM_EVEN(name, T, L)                                                          \
    GP__EXTERN_C cudaError_t gp_histogram_even_##name(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, \
                                                      L lower, L upper, cudaStream_t s);                \
    GP__EXTERN_C cudaError_t gp_histogram_range_##name(uint64_t *d_hist, const T *d_in, size_t n,        \
                                                       const L *d_edges, size_t bins, cudaStream_t s);

#ifdef __CUDACC__
#include <type_traits>
#include "histogram_bin.cuh"
#include "../block/block_histogram.cuh"
#include "../util/launch.cuh"
#include "../agent/single_pass.cuh"

/* ---- binners: bin(x) < bins, or >= bins (not counted). setup() runs once per block, before
 * a barrier, with the binner's shared memory (smem_bytes of it, 0 for none). ------------ */
template <class T>
struct gp__hist_by_even_int {
    gp__hist_even_int e;
    size_t smem_bytes;
    __device__ __forceinline__ void setup(void *) {}
    __device__ __forceinline__ uint64_t operator()(T x) const { return gp__hist_even_int_bin(e, (int64_t)x); }
};

template <class T>
struct gp__hist_by_even_float {
    gp__hist_even_float e;
    size_t smem_bytes;
    __device__ __forceinline__ void setup(void *) {}
    __device__ __forceinline__ uint64_t operator()(T x) const { return gp__hist_even_float_bin(e, (double)x); }
};

/* Edges of type E (int64_t or double) on the device; in shared memory as SE (float for float
 * x, else E) when smem_bytes says they fit. */
template <class T, class E>
struct gp__hist_by_edges {
    typedef typename std::conditional<std::is_same<T, float>::value, float, E>::type SE;
    const E *edges;
    const SE *s_edges;
    uint64_t bins;
    size_t smem_bytes;
    __device__ __forceinline__ void setup(void *smem)
    {
        if (!smem_bytes) return;
        SE *s = static_cast<SE *>(smem);
        for (uint64_t i = gp__thread_rank(); i <= bins; i += gp__block_size()) {
            const E e = edges[i];
            if constexpr (std::is_same<SE, float>::value) s[i] = gp__float_ceil(e);
            else s[i] = e;
        }
        s_edges = s;
    }
    __device__ __forceinline__ uint64_t operator()(T x) const
    {
        if (smem_bytes) return gp__hist_edges_bin(s_edges, bins, (SE)x);
        return gp__hist_edges_bin(edges, bins, (E)x);
    }
};

/* ---- the kernel ------------------------------------------------------------------------------
 * VALUES: 1-byte elements, counted by value and binned at the merge. Every block: clear its
 * counters, count its chunks of GP__HIST_BLOCK x GP__HIST_UNROLL vectors (grid-stride) and
 * its share of the head and tail elements, then merge (see the top of this file). */
template <class T, class Bin, bool VALUES>
__global__ void __launch_bounds__(GP__HIST_BLOCK, GP__MIN_BLOCKS(GP__HIST_BLOCK, 2))
    gp__hist_kernel(const T *in, size_t n, gp__hist_plan p, Bin bin, uint64_t *out, unsigned long long *scratch)
{
    extern __shared__ __align__(16) unsigned char gp__hist_smem[];
    enum { VEC = 16 / sizeof(T) };
    gp__chain_wait();
    const unsigned tid = threadIdx.x;
    Bin b = bin;
    b.setup(gp__hist_smem);
    uint32_t *cnt = reinterpret_cast<uint32_t *>(gp__hist_smem + b.smem_bytes);
    const size_t keys = p.keys;
    gp_block_histogram_zero(cnt, (size_t)p.copies * keys); /* its barrier also covers setup() */
    uint32_t *mine = p.copies ? cnt + ((tid >> 5) % p.copies) * keys : cnt;

    auto key_of = [&](T x) -> uint64_t {
        if constexpr (VALUES) {
            uint8_t v;
            memcpy(&v, &x, 1);
            return v;
        } else {
            return b(x);
        }
    };
    auto add = [&](uint64_t k, uint32_t c) {
        if (keys) gp_block_histogram_add(mine, keys, k, c);
        else if (k < p.bins) atomicAdd(reinterpret_cast<unsigned long long *>(out + k), (unsigned long long)c);
    };
    gp__hist_run run;

    const uint4 *body = reinterpret_cast<const uint4 *>(in + p.head);
    const size_t chunk = (size_t)GP__HIST_BLOCK * GP__HIST_UNROLL;
    for (size_t c0 = blockIdx.x * chunk; c0 < p.nvec; c0 += (size_t)gridDim.x * chunk) {
        uint4 v[GP__HIST_UNROLL];
        const bool whole = c0 + chunk <= p.nvec;
#pragma unroll
        for (int k = 0; k < GP__HIST_UNROLL; k++) {
            const size_t i = c0 + (size_t)k * GP__HIST_BLOCK + tid;
            if (whole || i < p.nvec) v[k] = __ldg(body + i);
        }
#pragma unroll
        for (int k = 0; k < GP__HIST_UNROLL; k++) {
            if (!whole && c0 + (size_t)k * GP__HIST_BLOCK + tid >= p.nvec) break;
            T x[VEC];
            memcpy(x, &v[k], 16);
#pragma unroll
            for (int j = 0; j < VEC; j++) run.push(key_of(x[j]), add);
        }
    }
    /* head and tail, element by element, spread over the grid */
    const size_t edges = p.head + p.tail, after = p.head + p.nvec * VEC;
    for (size_t s = blockIdx.x * (size_t)GP__HIST_BLOCK + tid; s < edges; s += (size_t)gridDim.x * GP__HIST_BLOCK)
        run.push(key_of(gp__load_elem(in + (s < p.head ? s : after + (s - p.head)))), add);
    run.flush(add);
    (void)n;
    if (!keys) return; /* global counting: done */
    __syncthreads();

    /* merge: the block's total of key k, and its bin */
    auto total = [&](size_t k) {
        uint32_t c = 0;
        for (uint32_t q = 0; q < p.copies; q++) c += cnt[q * keys + k];
        return c;
    };
    auto bin_of = [&](size_t k) -> uint64_t {
        if constexpr (VALUES) {
            const uint8_t v = (uint8_t)k;
            T x;
            memcpy(&x, &v, 1);
            return b(x);
        } else {
            return k;
        }
    };
    if (p.merge == GP__HIST_ONE) {
        if constexpr (!VALUES) {
            for (size_t k = tid; k < keys; k += GP__HIST_BLOCK) out[k] = total(k);
            return;
        } else {
            for (size_t k = tid; k < p.bins; k += GP__HIST_BLOCK) out[k] = 0;
            __syncthreads(); /* the zeros come before this block's atomics */
        }
    }
    uint64_t *target = p.merge == GP__HIST_LAST ? reinterpret_cast<uint64_t *>(scratch + 1) : out;
    for (size_t k = tid; k < keys; k += GP__HIST_BLOCK) {
        const uint32_t c = total(k);
        const uint64_t bk = bin_of(k);
        if (c && bk < p.bins) atomicAdd(reinterpret_cast<unsigned long long *>(target + bk), (unsigned long long)c);
    }
    if (p.merge != GP__HIST_LAST) return;
    /* the last block to finish moves the accumulators to the output, leaving them 0 */
    if (!gp__block_is_last(scratch)) return;
    unsigned long long *acc = scratch + 1;
    for (size_t k = tid; k < p.bins; k += GP__HIST_BLOCK) out[k] = atomicExch(acc + k, 0ull);
    if (tid == 0) *scratch = 0;
}

/* ---- the host side ---------------------------------------------------------------------------
 * Knobs for the bench's ladder (NULL: the defaults). */
typedef struct gp__hist_knobs {
    int force_zeroed; /* merge by a cleared output even where GP__HIST_LAST applies */
    int copies;       /* copies per block (0: the plan's) */
    int no_values;    /* bytes counted by bin, not by value */
} gp__hist_knobs;

template <class T, class Bin>
static cudaError_t gp__histogram_run(uint64_t *d_hist, const T *d_in, size_t n, uint64_t bins, Bin bin,
                                     size_t edge_bytes, cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (d_hist == NULL || bins == 0 || bins > GP__HIST_MAX_BINS) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(d_hist, 0, (size_t)bins * sizeof(uint64_t), s);
    if (d_in == NULL) return cudaErrorInvalidValue;
    if (gp__ranges_overlap(d_hist, (size_t)bins * 8, d_in, n * sizeof(T))) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const size_t smem_max = (size_t)dev.smem_block - 1024; /* the kernel's own static bytes and margin */
    gp__hist_plan p = gp__hist_make_plan((uintptr_t)d_in, n, sizeof(T), bins, edge_bytes, smem_max);
    if (knobs && knobs->no_values && p.values) { /* bytes by bin: as a 2-byte type would be */
        p.values = 0;
        p.keys = bins * 4 <= smem_max ? (uint32_t)bins : 0;
        p.copies = p.keys ? (uint32_t)gp__max_size(1, gp__min_size(GP__HIST_BLOCK / 32, GP__HIST_COPY_BYTES / (4 * bins))) : 0;
        p.smem_bytes = edge_bytes + (size_t)p.copies * p.keys * 4;
    }
    if (knobs && knobs->copies && p.keys) {
        p.copies = (uint32_t)knobs->copies;
        p.smem_bytes = edge_bytes + (size_t)p.copies * p.keys * 4;
    }
    if (knobs && knobs->force_zeroed && p.merge == GP__HIST_LAST) p.merge = GP__HIST_ZEROED;
    bin.smem_bytes = p.smem_bytes - (size_t)p.copies * p.keys * 4; /* edges, if they stayed */
    const bool values = p.values != 0;
    void (*kernel)(const T *, size_t, gp__hist_plan, Bin, uint64_t *, unsigned long long *) =
        values ? gp__hist_kernel<T, Bin, true> : gp__hist_kernel<T, Bin, false>;
    GP__TRY(values ? gp__kernel_load<gp__hist_kernel<T, Bin, true>>((int)smem_max)
                   : gp__kernel_load<gp__hist_kernel<T, Bin, false>>((int)smem_max));
    int per_sm = 1;
    if (p.merge != GP__HIST_ONE) {
        GP__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, GP__HIST_BLOCK, p.smem_bytes));
        if (per_sm < 1) per_sm = 1;
    }
    gp__hist_set_blocks(p, n, (size_t)dev.sms * (size_t)per_sm);

    gp__launch_shape shape;
    shape.mode = p.merge == GP__HIST_ONE ? GP__ONE_BLOCK : GP__GRID;
    shape.blocks = p.blocks;
    shape.threads = GP__HIST_BLOCK;
    shape.smem_bytes = p.smem_bytes;
    shape.scratch_bytes = p.merge == GP__HIST_LAST ? gp__hist_scratch_bytes(bins) : 0;
    shape.scratch_zeroed = shape.scratch_bytes; /* every byte is a counter returned to 0 */
    shape.scratch_wait = 0;
    shape.status_kept = GP__STATUS_HISTOGRAM;
    shape.chain = dev.cluster_ok && p.merge != GP__HIST_ZEROED; /* after a memset: plain stream order */
    if (p.merge == GP__HIST_ZEROED) GP__TRY(cudaMemsetAsync(d_hist, 0, (size_t)bins * sizeof(uint64_t), s));
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t) {
        return cudaLaunchKernelEx(&cfg, kernel, d_in, n, p, bin, d_hist, static_cast<unsigned long long *>(scratch));
    });
}

/* The default instances' even and range bins (checks: the argument rules at GP_DEFINE_HISTOGRAM). */
template <class T>
static cudaError_t gp__histogram_even(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, int64_t lower, int64_t upper,
                                      cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (lower >= upper || bins == 0 || bins > GP__HIST_MAX_BINS) return cudaErrorInvalidValue;
    gp__hist_by_even_int<T> b = {gp__hist_even_int_make(lower, upper, bins), 0};
    return gp__histogram_run(d_hist, d_in, n, bins, b, 0, s, knobs);
}
template <class T>
static cudaError_t gp__histogram_even(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, double lower, double upper,
                                      cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (!(lower < upper) || !isfinite(lower) || !isfinite(upper) || bins == 0 || bins > GP__HIST_MAX_BINS)
        return cudaErrorInvalidValue;
    gp__hist_by_even_float<T> b = {gp__hist_even_float_make(lower, upper, bins), 0};
    return gp__histogram_run(d_hist, d_in, n, bins, b, 0, s, knobs);
}
template <class T, class E>
static cudaError_t gp__histogram_range(uint64_t *d_hist, const T *d_in, size_t n, const E *d_edges, size_t bins,
                                       cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (bins == 0 || bins > GP__HIST_MAX_BINS || (n > 0 && d_edges == NULL)) return cudaErrorInvalidValue;
    typedef gp__hist_by_edges<T, E> B;
    B b = {d_edges, NULL, bins, 0};
    return gp__histogram_run(d_hist, d_in, n, bins, b, (bins + 1) * sizeof(typename B::SE), s, knobs);
}

/* ---- instantiation ------------------------------------------------------------------------------
 * GP_DEFINE_HISTOGRAM(name, T, BIN), at file scope of a .cu file: BIN(x) is a function-like
 * macro that runs on the device and gives an int64_t; a value outside [0, bins) is not
 * counted. It makes
 *   cudaError_t gp_histogram_<name>(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, cudaStream_t s)
 *       d_hist[b] = the number of i < n with BIN(d_in[i]) == b, for every b < bins (the
 *       whole array overwritten; zeroed when n == 0). bins from 1 to 2^32; d_hist must not
 *       overlap d_in. cudaErrorInvalidValue, nothing launched: NULL d_hist, bins == 0 or
 *       > 2^32, NULL d_in with n > 0, overlap. Asynchronous on s, one launch (two, a memset
 *       first, past GP__HIST_LAST_BINS bins), deterministic, any alignment of d_in.
 *   void gp_block_histogram_<name>(uint32_t *s_hist, size_t bins, const T *items, int count)
 *       (device) Adds the calling thread's items[0 .. count) to the block histogram s_hist
 *       (block/block_histogram.cuh: zero it first, __syncthreads() after); shared-memory
 *       atomics, a run of equal bins counted once. Any threads, no barrier inside.
 * The binner is gp__hist_by_<name>. GP_DEFINE_HISTOGRAM gives TU-local (static) definitions;
 * GP_DEFINE_HISTOGRAM_EXTERN gives gp_histogram_<name> external C linkage (one .cu file;
 * GP_DECLARE_HISTOGRAM(name, T) elsewhere). A BIN that calls a host-only function is a
 * compile error, as an OP is (util/ops.cuh). */
#define GP__DEFINE_HISTOGRAM_AS(SCOPE, name, T, BIN)                                                   \
    namespace {                                                                                        \
    GP__DIAG_PUSH_OP_ERRORS                                                                            \
    struct gp__hist_by_##name {                                                                        \
        size_t smem_bytes;                                                                             \
        __device__ __forceinline__ void setup(void *) {}                                               \
        __device__ __forceinline__ uint64_t operator()(T x) const { return (uint64_t)(int64_t)(BIN(x)); } \
    };                                                                                                 \
    GP__DIAG_POP                                                                                       \
    [[maybe_unused]] static __device__ __forceinline__ void gp_block_histogram_##name(                 \
        uint32_t *s_hist, size_t bins, const T *items, int count)                                      \
    {                                                                                                  \
        gp__block_histogram(s_hist, bins, items, count, gp__hist_by_##name{0});                        \
    }                                                                                                  \
    }                                                                                                  \
    SCOPE cudaError_t gp_histogram_##name(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, cudaStream_t s) \
    {                                                                                                  \
        return gp__histogram_run(d_hist, d_in, n, bins, gp__hist_by_##name{0}, 0, s);                  \
    }
#define GP_DEFINE_HISTOGRAM(name, T, BIN) GP__DEFINE_HISTOGRAM_AS([[maybe_unused]] static, name, T, BIN)
#define GP_DEFINE_HISTOGRAM_EXTERN(name, T, BIN) GP__DEFINE_HISTOGRAM_AS(extern "C", name, T, BIN)

/* The default instances' host functions (detail/instances.cuh): L is int64_t or double. */
#define GP__DEFINE_HISTOGRAM_EVEN_HOST(SCOPE, name, T, L)                                               \
    SCOPE cudaError_t gp_histogram_even_##name(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, L lower, \
                                               L upper, cudaStream_t s)                                \
    {                                                                                                  \
        return gp__histogram_even<T>(d_hist, d_in, n, bins, lower, upper, s);                          \
    }                                                                                                  \
    SCOPE cudaError_t gp_histogram_range_##name(uint64_t *d_hist, const T *d_in, size_t n, const L *d_edges, \
                                                size_t bins, cudaStream_t s)                           \
    {                                                                                                  \
        return gp__histogram_range<T, L>(d_hist, d_in, n, d_edges, bins, s);                           \
    }

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_HISTOGRAM(name, T, BIN) GP__NEEDS_CUDA(GP_DEFINE_HISTOGRAM)
#define GP_DEFINE_HISTOGRAM_EXTERN(name, T, BIN) GP__NEEDS_CUDA(GP_DEFINE_HISTOGRAM_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_HISTOGRAM_CUH */
