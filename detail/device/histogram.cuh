/* detail/device/histogram.cuh -- device-wide histograms: equal-width bins, bins between
 * edges, and a user's own binning (GP_DEFINE_HISTOGRAM), any bins count from 1 to 2^32,
 * one pass over the input (two past shared memory), counts exact in uint64_t. Level 4:
 * needs histogram_bin.cuh (the rules and the plan), histogram_binners.cuh (the binners
 * and their 32-bit keys), histogram_split.cuh (past shared memory), block/block_histogram.cuh, util/launch.cuh, util/status.cuh and
 * agent/single_pass.cuh.
 *
 * How it works. Each block keeps private counters in shared memory, `copies` of them (warp w
 * counts into copy w % copies: with few bins, warps would otherwise queue on the same
 * counters), and streams its share of the input as 16-byte vectors (GP__HIST_UNROLL loads
 * in flight per thread). A vector whose elements all fall in one bin costs one atomic, so
 * constant data does not queue a warp on one counter element by element. Bytes count by
 * value (256 values whatever the bins; the value-to-bin map is applied once per value, at
 * the merge), so u8 is as fast with 7 bins, 256, or 2^32, with even, range or user
 * binning; each value has a counter per lane, in the lane's own bank, so a byte costs
 * three instructions (extract, address, a shared reduction) and no two lanes ever meet.
 * Floats binned evenly use float arithmetic, and the rule in double only next to a bin's
 * edge; range bins look their bin up in a table of cells (histogram_bin.cuh).
 * Counts are integers, so the order of the atomics changes nothing: the result is
 * the same on every run and stream. The blocks' counters then merge, in one launch:
 *   GP__HIST_ONE    small inputs: one block, which writes every bin itself;
 *   GP__HIST_LAST   up to GP__HIST_LAST_BINS bins: blocks add into accumulators in the
 *                   stream's status memory (zero between calls), and the last block to
 *                   finish moves them to the output (atomicExch with 0: the accumulators
 *                   are left as found) and resets the done counter;
 *   GP__HIST_ZEROED more bins: the output is cleared (cudaMemsetAsync), and blocks add
 *                   into it.
 * Past what shared memory holds (about 115K bins on the H100, in 16-bit counters), the
 * values are partitioned by bin first and each part counted in shared memory
 * (histogram_split.cuh); small inputs, more than 2^26 bins, and calls whose scratch cannot
 * be had count every element with a 64-bit atomic in global memory instead.
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
#include "histogram_binners.cuh"
#include "histogram_split.cuh"
#include "../block/block_histogram.cuh"
#include "../util/launch.cuh"
#include "../agent/single_pass.cuh"

/* Adds 1 to the shared-memory counter at `addr` (a shared-window address), no result. */
static __device__ __forceinline__ void gp__hist_red_shared(uint32_t addr)
{
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
}

/* ---- the kernel ------------------------------------------------------------------------------
 * VALUES: 1-byte elements, counted by value (lane-banked counters) and binned at the merge.
 * Every block: clear its counters, count its chunks of BLOCK x GP__HIST_UNROLL
 * vectors (grid-stride) and its share of the head and tail elements, then merge (see the
 * top of this file). */
template <class T, class Bin, bool VALUES>
__global__ void __launch_bounds__(gp__hist_block(sizeof(T)), GP__MIN_BLOCKS(gp__hist_block(sizeof(T)), 1024 / gp__hist_block(sizeof(T))))
    gp__hist_kernel(const T *in, size_t n, gp__hist_plan p, Bin bin, uint64_t *out, unsigned long long *scratch)
{
    extern __shared__ __align__(16) unsigned char gp__hist_smem[];
    enum { VEC = 16 / sizeof(T) };
    constexpr unsigned BLOCK = gp__hist_block(sizeof(T)); /* == p.threads */
    gp__chain_wait();
    const unsigned tid = threadIdx.x;
    const uint4 *body = reinterpret_cast<const uint4 *>(in + p.head);
    const size_t chunk = (size_t)BLOCK * GP__HIST_UNROLL;
    uint4 v[GP__HIST_UNROLL];
    /* vector k of the chunk at c0 (whole: all of the chunk lies below p.nvec) */
    auto load_vec = [&](int k, size_t c0, bool whole) {
        const size_t i = c0 + (size_t)k * BLOCK + tid;
        if (whole || i < p.nvec) v[k] = __ldg(body + i);
    };
    auto load = [&](size_t c0) {
        const bool whole = c0 + chunk <= p.nvec;
#pragma unroll
        for (int k = 0; k < GP__HIST_UNROLL; k++) load_vec(k, c0, whole);
    };
    size_t c0 = blockIdx.x * chunk;
    bool loaded = c0 < p.nvec;
    if (loaded) load(c0); /* the first chunk is in flight while the counters are cleared */
    Bin b = bin;
    b.setup(gp__hist_smem, p.merge != GP__HIST_ONE);
    uint32_t *cnt = reinterpret_cast<uint32_t *>(gp__hist_smem + b.smem_bytes);
    const size_t keys = p.keys, per_copy = gp__hist_copy_words(p);
    gp_block_histogram_zero(cnt, (size_t)p.copies * per_copy); /* its barrier also covers setup() */
    uint32_t *mine = p.copies ? cnt + ((tid >> 5) % p.copies) * per_copy : cnt;
    /* bytes: lane l counts value v at mine[v * 32 + l], in bank l (lanes == 1: at mine[v]) */
    const uint32_t lane_base = (uint32_t)__cvta_generic_to_shared(mine + (p.lanes == 32 ? (tid & 31) : 0)),
                   value_step = 4 * p.lanes;

    /* 16-bit counters (p.half): key k is half k & 1 of word k / 2. The add that takes a half to
     * 2^15 (exactly one does) moves 2^15 to the output at once, so a half stays below 2^16
     * unless 2^15 more increments of that one counter land between this thread's two
     * atomics: same-address atomics are served one at a time, so that would take tens of
     * microseconds, and a ready warp is never kept waiting that long. The extra counter
     * (k == keys) is never flushed: its carries go only to bits no key uses. */
    auto half_word = [&](uint32_t k) { return &mine[k >> 1]; };               /* key k's word */
    auto half_inc = [](uint32_t k, uint32_t c) { return c << ((k & 1) << 4); }; /* c in key k's half */
    auto half_add = [&](uint32_t k, uint32_t c) { return atomicAdd(half_word(k), half_inc(k, c)); };
    auto half_check = [&](uint32_t k, uint32_t c, uint32_t old) {
        const uint32_t shift = (k & 1) << 4, h = (old >> shift) & 0xffff;
        if (h < 0x8000 && h + c >= 0x8000 && k < keys) {
            atomicSub(half_word(k), half_inc(k, 0x8000u));
            atomicAdd(reinterpret_cast<unsigned long long *>(out + k), 0x8000ull);
        }
    };
    auto add_half = [&](uint32_t k, uint32_t c) { half_check(k, c, half_add(k, c)); };
    auto add = [&](uint64_t k, uint32_t c) {
        if (keys && p.half) add_half(k < keys ? (uint32_t)k : (uint32_t)keys, c);
        else if (keys) gp_block_histogram_add(mine, keys, k, c);
        else if (k < p.bins) atomicAdd(reinterpret_cast<unsigned long long *>(out + k), (unsigned long long)c);
    };
    const bool fast32 = keys && gp__hist_key32_ok(b); /* shared counters, 32-bit keys, no branch */
    auto count_one = [&](T x) {
        if constexpr (VALUES) {
            uint8_t v;
            memcpy(&v, &x, 1);
            gp__hist_red_shared(lane_base + v * value_step);
        } else {
            add(b(x), 1);
        }
    };
    /* 16 bytes. Elements: when the vector's bins are all equal (constant data), one atomic of
     * VEC, so that a warp on one counter does not queue a VEC-fold; else one per element. */
    auto count_vector = [&](const uint4 &v) {
        if constexpr (VALUES) {
            const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (unsigned k = 0; k < 4; k++) gp__hist_red_shared(lane_base + __byte_perm(w[q], 0, 0x4440 + k) * value_step);
        } else {
            T x[VEC];
            memcpy(x, &v, 16);
            if (fast32) {
                uint32_t k[VEC], slow[VEC], any = 0;
                bool same = true;
#pragma unroll
                for (int j = 0; j < VEC; j++) {
                    slow[j] = 0;
                    k[j] = gp__hist_key32(b, x[j], (uint32_t)keys, slow[j]);
                    any |= slow[j];
                }
                if (any) /* next to an edge: those elements by the exact rule (rare) */
#pragma unroll
                    for (int j = 0; j < VEC; j++)
                        if (slow[j]) k[j] = gp__hist_key32_exact(b, x[j], (uint32_t)keys);
#pragma unroll
                for (int j = 1; j < VEC; j++) same &= k[j] == k[0];
                if (p.half) {
                    if (same) {
                        add_half(k[0], VEC);
                    } else { /* every atomic in flight before the first check */
                        uint32_t old[VEC], inc[VEC], rose = 0;
#pragma unroll
                        for (int j = 0; j < VEC; j++) {
                            inc[j] = 1u + (k[j] & 1) * 0xffffu; /* half_inc(k, 1): one instruction fewer */
                            old[j] = atomicAdd(half_word(k[j]), inc[j]);
                        }
                        /* one test for the vector: the bits the adds took from 0 to 1. An add
                         * changes only its own half (a half never carries into the other), so
                         * bit 15 or 31 among them means a half reached 2^15; then (rarely)
                         * every element is checked as one alone is */
#pragma unroll
                        for (int j = 0; j < VEC; j++) rose |= ~old[j] & (old[j] + inc[j]);
                        if (rose & 0x80008000u)
#pragma unroll
                            for (int j = 0; j < VEC; j++) half_check(k[j], 1, old[j]);
                    }
                } else if (same) {
                    atomicAdd(&mine[k[0]], (uint32_t)VEC);
                } else {
#pragma unroll
                    for (int j = 0; j < VEC; j++) atomicAdd(&mine[k[j]], 1u);
                }
                return;
            }
            uint64_t k[VEC];
            bool same = true;
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                k[j] = b(x[j]);
                same &= k[j] == k[0];
            }
            if (same) {
                add(k[0], VEC);
            } else {
#pragma unroll
                for (int j = 0; j < VEC; j++) add(k[j], 1);
            }
        }
    };

    /* bytes: each vector's register takes the next chunk's vector once it is counted, so the
     * next chunk's loads are in flight during this one's count (H100, u8 at 2^24: 61 to 64%
     * of the read rate). Wider elements lose by it (u16 at 65536 bins 52 to 48%, range bins
     * 79 to 75%): their counting is bound by shared atomics, not by the loads. */
    constexpr bool prefetch = VALUES;
    for (; c0 < p.nvec; c0 += (size_t)gridDim.x * chunk) {
        if (!loaded) load(c0);
        const size_t next = c0 + (size_t)gridDim.x * chunk;
        const bool whole = c0 + chunk <= p.nvec, next_whole = next + chunk <= p.nvec;
        loaded = prefetch && next < p.nvec;
#pragma unroll
        for (int k = 0; k < GP__HIST_UNROLL; k++) {
            if (!whole && c0 + (size_t)k * BLOCK + tid >= p.nvec) break;
            count_vector(v[k]);
            if (prefetch) load_vec(k, next, next_whole);
        }
    }
    /* head and tail, element by element, spread over the grid */
    const size_t edges = p.head + p.tail, after = p.head + p.nvec * VEC;
    for (size_t s = blockIdx.x * (size_t)BLOCK + tid; s < edges; s += (size_t)gridDim.x * BLOCK)
        count_one(gp__load_elem(in + (s < p.head ? s : after + (s - p.head))));
    (void)n;
    if (!keys) return; /* global counting: done */
    __syncthreads();

    /* merge: the block's total of key k, and its bin */
    auto total = [&](size_t k) {
        uint32_t c = 0;
        if (p.half) return (cnt[k >> 1] >> ((k & 1) << 4)) & 0xffff;
        for (uint32_t q = 0; q < p.copies; q++) {
            const uint32_t *row = cnt + q * per_copy + k * p.lanes;
            if (p.lanes == 1) c += row[0];
            else /* rotated by k: the 32 threads of a warp read 32 banks */
                for (uint32_t j = 0; j < 32; j++) c += row[(j + (uint32_t)k) & 31];
        }
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
            for (size_t k = tid; k < keys; k += BLOCK) out[k] = total(k);
            return;
        } else if (p.bins <= (size_t)p.copies * per_copy) { /* bins summed over the counters' memory */
            static_assert(BLOCK >= 256, "a thread per byte value");
            const uint32_t c = tid < 256 ? total(tid) : 0;
            const uint64_t bk = tid < 256 ? bin_of(tid) : p.bins;
            __syncthreads();
            for (size_t k = tid; k < p.bins; k += BLOCK) cnt[k] = 0;
            __syncthreads();
            if (c && bk < p.bins) atomicAdd(&cnt[bk], c);
            __syncthreads();
            for (size_t k = tid; k < p.bins; k += BLOCK) out[k] = cnt[k];
            return;
        } else {
            for (size_t k = tid; k < p.bins; k += BLOCK) out[k] = 0;
            __syncthreads(); /* the zeros come before this block's atomics */
        }
    }
    uint64_t *target = p.merge == GP__HIST_LAST ? reinterpret_cast<uint64_t *>(scratch + 1) : out;
    for (size_t k = tid; k < keys; k += BLOCK) {
        const uint32_t c = total(k);
        const uint64_t bk = bin_of(k);
        if (c && bk < p.bins) atomicAdd(reinterpret_cast<unsigned long long *>(target + bk), (unsigned long long)c);
    }
    if (p.merge != GP__HIST_LAST) return;
    /* the last block to finish moves the accumulators to the output, leaving them 0 */
    if (!gp__block_is_last(scratch)) return;
    unsigned long long *acc = scratch + 1;
    for (size_t k = tid; k < p.bins; k += BLOCK) out[k] = atomicExch(acc + k, 0ull);
    if (tid == 0) *scratch = 0;
}

/* ---- the host side (gp__hist_knobs: histogram_bin.cuh) ---------------------------------------- */
template <class T, class Bin>
static cudaError_t gp__histogram_run(uint64_t *d_hist, const T *d_in, size_t n, uint64_t bins, Bin bin, cudaStream_t s,
                                     const gp__hist_knobs *knobs = NULL)
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
    gp__hist_plan p = gp__hist_make_plan((uintptr_t)d_in, n, sizeof(T), bins, bin.smem_want(smem_max), smem_max);
    bin.smem_bytes = p.smem_bytes - (size_t)p.copies * gp__hist_copy_words(p) * 4; /* the binner's, if it stayed */
    /* too many bins for shared counters: the partition (bytes are counted by value,
     * p.values, whatever the bins) */
    if constexpr (sizeof(T) > 1) {
        if (!p.keys && n >= GP__HSPLIT_MIN_N && bins <= GP__HSPLIT_MAX_BUCKETS * GP__HSPLIT_BUCKET_BINS &&
            !(knobs && knobs->no_split)) {
            auto split = [&]() -> cudaError_t {
                if constexpr (std::is_same<Bin, gp__hist_by_even_float<T>>::value)
                    if (bin.e.w_pow2)
                        return gp__hsplit_run(d_hist, d_in, n, bins, gp__hist_key_pow2<T>{bin.e}, dev.id, dev.sms, s);
                gp__hist_key_of<T, Bin> key = {bin, (uint32_t)bins}; /* the exact float bins: floor(x * S) */
                key.b.smem_bytes = 0; /* its tables stay in global memory */
                return gp__hsplit_run(d_hist, d_in, n, bins, key, dev.id, dev.sms, s);
            };
            const cudaError_t err = split();
            if (err != cudaErrorMemoryAllocation) return err; /* else: no scratch, global atomics */
        }
    }
#ifdef GP__HIST_LADDER
    if (knobs && knobs->no_values && p.values) { /* bytes by bin: as a 2-byte type would be */
        p.values = 0;
        p.lanes = 1;
        p.keys = bins * 4 <= smem_max ? (uint32_t)bins : 0;
        p.copies = p.keys ? (uint32_t)gp__max_size(1, gp__min_size(p.threads / 32, GP__HIST_COPY_BYTES / (4 * bins))) : 0;
    }
#endif
    if (knobs && knobs->copies && p.keys) p.copies = (uint32_t)knobs->copies;
    if (knobs && knobs->lanes && p.values) p.lanes = (uint32_t)knobs->lanes; /* 1: byte counters as one array */
    p.smem_bytes = bin.smem_bytes + (size_t)p.copies * gp__hist_copy_words(p) * 4;
    if (knobs && knobs->force_zeroed && p.merge == GP__HIST_LAST) p.merge = GP__HIST_ZEROED;
    constexpr bool bytes = sizeof(T) == 1; /* the plan counts bytes by value */
    void (*kernel)(const T *, size_t, gp__hist_plan, Bin, uint64_t *, unsigned long long *) = gp__hist_kernel<T, Bin, bytes>;
    GP__TRY(gp__kernel_load<gp__hist_kernel<T, Bin, bytes>>((int)smem_max));
#ifdef GP__HIST_LADDER /* the bench's ladder: bytes counted by bin */
    if (bytes && !p.values) {
        kernel = gp__hist_kernel<T, Bin, false>;
        GP__TRY(gp__kernel_load<gp__hist_kernel<T, Bin, false>>((int)smem_max));
    }
#endif
    int per_sm = 1;
    if (p.merge != GP__HIST_ONE) {
        GP__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)p.threads, p.smem_bytes));
        if (per_sm < 1) per_sm = 1;
    }
    gp__hist_set_blocks(p, n, (size_t)dev.sms * (size_t)per_sm, dev.sms, knobs && knobs->all_blocks ? 1 : GP__HIST_BLOCK_CHUNKS);

    gp__launch_shape shape;
    shape.mode = p.merge == GP__HIST_ONE ? GP__ONE_BLOCK : GP__GRID;
    shape.blocks = p.blocks;
    shape.threads = p.threads;
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
    return gp__histogram_run(d_hist, d_in, n, bins, gp__hist_by_even_int_make<T>(lower, upper, (uint64_t)bins), s, knobs);
}
template <class T>
static cudaError_t gp__histogram_even(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, double lower, double upper,
                                      cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (!(lower < upper) || !isfinite(lower) || !isfinite(upper) || bins == 0 || bins > GP__HIST_MAX_BINS)
        return cudaErrorInvalidValue;
    gp__hist_by_even_float<T> b = {};
    b.e = gp__hist_even_float_make(lower, upper, bins, !(knobs && knobs->no_exact));
    if (knobs && knobs->double_rule) b.e.f_fast = b.e.f_exact = 0;
    if constexpr (std::is_same<T, float>::value)
        if (b.e.f_exact) {
            gp__hist_by_exact_f32 x = {};
            x.e = b.e;
            return gp__histogram_run(d_hist, d_in, n, bins, x, s, knobs);
        }
    return gp__histogram_run(d_hist, d_in, n, bins, b, s, knobs);
}
template <class T, class E>
static cudaError_t gp__histogram_range(uint64_t *d_hist, const T *d_in, size_t n, const E *d_edges, size_t bins,
                                       cudaStream_t s, const gp__hist_knobs *knobs = NULL)
{
    if (bins == 0 || bins > GP__HIST_MAX_BINS || (n > 0 && d_edges == NULL)) return cudaErrorInvalidValue;
    gp__hist_by_edges<T, E> b = {};
    b.edges = d_edges;
    b.bins = bins;
    b.no_table = knobs && knobs->no_cells;
    return gp__histogram_run(d_hist, d_in, n, bins, b, s, knobs);
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
 *       first, past GP__HIST_LAST_BINS bins; past shared memory a memset and two, with
 *       scratch of 2 bytes a value), deterministic, any alignment of d_in.
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
    struct gp__hist_by_##name : gp__hist_binner_base {                                                 \
        __device__ __forceinline__ uint64_t operator()(T x) const { return (uint64_t)(int64_t)(BIN(x)); } \
    };                                                                                                 \
    GP__DIAG_POP                                                                                       \
    [[maybe_unused]] static __device__ __forceinline__ void gp_block_histogram_##name(                 \
        uint32_t *s_hist, size_t bins, const T *items, int count)                                      \
    {                                                                                                  \
        gp__block_histogram(s_hist, bins, items, count, gp__hist_by_##name{});                         \
    }                                                                                                  \
    }                                                                                                  \
    SCOPE cudaError_t gp_histogram_##name(uint64_t *d_hist, const T *d_in, size_t n, size_t bins, cudaStream_t s) \
    {                                                                                                  \
        return gp__histogram_run(d_hist, d_in, n, bins, gp__hist_by_##name{}, s);                      \
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
