/* detail/device/histogram_split.cuh -- histograms with more bins than shared memory holds:
 * the values partitioned by the high bits of their bins first, then each part counted in
 * shared memory. Level 4: needs util/common.cuh, util/launch.cuh, util/scratch.cuh,
 * block/block_scan.cuh, block/block_select.cuh, agent/single_pass.cuh (the last block, the
 * flags between blocks) and
 * histogram_bin.cuh (the float rule).
 *
 * Why. Past what shared memory holds (about 115K bins in 16-bit counters on the H100),
 * counting straight into the output is a global atomic per element, each on a random 8-byte
 * counter, of an output larger than the L2 cache from 2^22 bins: 4.4 ms for 2^28 floats
 * over 2^18 bins, 16 ms over 2^24 bins, 2-8% of the read rate. A partition turns those
 * random read-modify-writes into streaming traffic, as a radix sort's first digit does:
 *   1. tile kernel: a block bins a tile of GP__HSPLIT_TILE values, counts them per bucket
 *      (bin >> GP__HSPLIT_SHIFT), and writes the tile's low bin bits (16 bits a value)
 *      grouped by bucket into the tile's own region of scratch, and the start of each
 *      bucket's run into the tile's row of a table. Values not counted are dropped here.
 *      The last tile block writes the count kernel's work list (below).
 *   2. count kernel: a block takes a bucket (2^GP__HSPLIT_SHIFT bins, 64 KB of shared
 *      counters) and reads that bucket's run from every tile, a lane a tile, counting in
 *      shared memory; it then writes every bin of its bucket in the output, so the output
 *      needs no clearing. A heavy bucket (data of a few values) is shared by one block per
 *      chunk of its values (n over the GPU's resident count blocks): its first block
 *      writes, the others add after it.
 * Bytes moved: the input once, 2 bytes a value written and read back, 2 bytes a bucket a
 * tile of table, and the output once: for f32 about twice the input, where the atomics
 * moved 12-45 times it. No count pass and no global scan: a tile's runs stay in its own
 * region, so no tile needs offsets from another. Counts are integers, so the order in
 * which atomics land changes nothing: the result is the same on every run.
 *
 * Limits: up to GP__HSPLIT_MAX_BUCKETS buckets (2^26 bins); past it, below
 * GP__HSPLIT_MIN_N values, and where the scratch (2 bytes a value and the table) cannot be
 * had, the caller counts with global atomics. The scratch comes from the library's pool,
 * which keeps it between calls (util/scratch.cuh): mapped afresh after each
 * synchronisation, the 570 MB of a call on 2^28 values cost 0.55 ms (H100). */
#ifndef GPUPRIMS_DETAIL_HISTOGRAM_SPLIT_CUH
#define GPUPRIMS_DETAIL_HISTOGRAM_SPLIT_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include <type_traits>
#include <cuda_runtime_api.h>
#include "../util/launch.cuh"
#include "../util/scratch.cuh"
#include "../block/block_scan.cuh"
#include "../block/block_select.cuh" /* gp__op_sel_u32: a count's sum */
#include "../agent/single_pass.cuh"
#include "histogram_bin.cuh"

/* The key of even float bins whose width is a power of two ([0, 1), [-1, 1)): the rule
 * without a division or a branch, for every x, edges included (histogram_bin.cuh). A key
 * type of its own, so the tile kernel tests the width once per call, not per element. */
template <class T>
struct gp__hist_key_pow2 {
    gp__hist_even_float e;
    __device__ __forceinline__ uint32_t operator()(T x) const { return (uint32_t)gp__hist_even_float_pow2_bin(e, (double)x); }
};

#ifndef GP__HSPLIT_SHIFT
#define GP__HSPLIT_SHIFT 14 /* bins per bucket: 2^14, 64 KB of 32-bit shared counters */
#endif
#ifndef GP__HSPLIT_TILE
#define GP__HSPLIT_TILE 16384 /* values per tile of the tile kernel (its runs' starts fit 16 bits) */
#endif
#define GP__HSPLIT_THREADS 512 /* both kernels */
#define GP__HSPLIT_ITEMS (GP__HSPLIT_TILE / GP__HSPLIT_THREADS)
#define GP__HSPLIT_MAX_BUCKETS 4096 /* 2^26 bins */
#ifndef GP__HSPLIT_MIN_N
#define GP__HSPLIT_MIN_N 65536 /* fewer values: global atomics (a memset and one launch) */
#endif
#define GP__HSPLIT_BUCKET_BINS ((uint64_t)1 << GP__HSPLIT_SHIFT)
#define GP__HSPLIT_HEAVY 32 /* a tile's run this long counts towards its bucket's heavy count */
#define GP__HSPLIT_CHUNK_MAX ((size_t)1 << 30) /* a count block's 32-bit counters never overflow */
static_assert(GP__HSPLIT_TILE % GP__HSPLIT_THREADS == 0 && GP__HSPLIT_TILE < 65536, "a tile's starts fit 16 bits");
static_assert(GP__HSPLIT_SHIFT <= 16, "a value's low bin bits fit 16 bits");

/* The table tile-major (1: a tile block writes its row in one piece) or bucket-major (0: a
 * count warp reads its 32 tiles' starts in 64 bytes). 2^28 floats, calls back to back, H100:
 * 1.39 ms a call against 1.48 at 2^24 bins, 1.32 against 1.37 at 2^18. */
#ifndef GP__HSPLIT_BY_TILE
#define GP__HSPLIT_BY_TILE 1
#endif
/* Where bucket b's run in tile t starts, in the table */
static inline GP__HD size_t gp__hsplit_at(size_t t, uint32_t b, size_t tiles, uint32_t buckets)
{
    return GP__HSPLIT_BY_TILE ? t * ((size_t)buckets + 1) + b : b * tiles + t;
}

/* Where the scratch of a call goes: the values' low bits tile by tile, the table of runs,
 * the control words (cleared before the call: the buckets' heavy counts, the tile kernel's
 * done counter, the number of work items, the buckets' flags), and the work items. */
typedef struct gp__hsplit_plan {
    size_t tiles;       /* tiles of GP__HSPLIT_TILE values */
    uint32_t buckets;   /* ceil(bins / 2^GP__HSPLIT_SHIFT) */
    uint32_t max_items; /* count blocks launched; those past the work list return at once */
    uint64_t chunk;     /* a block's share of a heavy bucket, in values */
    size_t table_at, ctl_at, items_at; /* bytes into scratch */
    size_t ctl_bytes, bytes;
} gp__hsplit_plan;

static inline GP__HD gp__hsplit_plan gp__hsplit_make_plan(size_t n, uint64_t bins, size_t count_slots)
{
    gp__hsplit_plan p;
    p.tiles = gp__ceil_div(n, (size_t)GP__HSPLIT_TILE);
    p.buckets = (uint32_t)gp__ceil_div((size_t)bins, (size_t)GP__HSPLIT_BUCKET_BINS);
    /* a heavy bucket takes one block per chunk: the GPU's count blocks share n evenly */
    p.chunk = gp__max_size(gp__min_size(gp__ceil_div(n, gp__max_size(count_slots, 1)), GP__HSPLIT_CHUNK_MAX),
                           GP__HSPLIT_TILE);
    p.max_items = (uint32_t)(p.buckets + n / p.chunk + 1);
    p.table_at = gp__round_up(p.tiles * GP__HSPLIT_TILE * 2, 256);
    p.ctl_at = p.table_at + gp__round_up(p.tiles * ((size_t)p.buckets + 1) * 2, 256);
    p.ctl_bytes = gp__round_up((size_t)p.buckets * 12 + 16, 256);
    p.items_at = p.ctl_at + p.ctl_bytes;
    p.bytes = p.items_at + (size_t)p.max_items * 8;
    return p;
}

/* The control words of a call, in scratch (cleared before it) */
struct gp__hsplit_ctl {
    unsigned long long *heavy; /* [buckets]: values in the tiles' runs of GP__HSPLIT_HEAVY or more */
    unsigned long long *done;  /* tile blocks finished */
    uint32_t *items;           /* work items written by the last tile block */
    uint32_t *flags;           /* [buckets]: 1 once a shared bucket's first block has written it */
    unsigned long long *list;  /* work items: bucket << 32 | group << 16 | groups */
};
static inline GP__HD gp__hsplit_ctl gp__hsplit_ctl_at(void *scratch, const gp__hsplit_plan &p)
{
    char *c = static_cast<char *>(scratch) + p.ctl_at;
    gp__hsplit_ctl r;
    r.heavy = reinterpret_cast<unsigned long long *>(c);
    r.done = r.heavy + p.buckets;
    r.items = reinterpret_cast<uint32_t *>(r.done + 1);
    r.flags = r.items + 2;
    r.list = reinterpret_cast<unsigned long long *>(static_cast<char *>(scratch) + p.items_at);
    return r;
}

/* Shared memory of the tile kernel: the buckets' counters (and the dropped values'), the
 * tile's keys (in shared memory, not registers: two blocks an SM overlap one's loads with
 * the other's counting), then the tile's low bits in bucket order. */
static inline GP__HD size_t gp__hsplit_keys_at(uint32_t buckets) { return gp__round_up(((size_t)buckets + 1) * 4, 16); }
static inline GP__HD size_t gp__hsplit_tile_smem(uint32_t buckets)
{
    return gp__hsplit_keys_at(buckets) + GP__HSPLIT_TILE * 4 + (GP__HSPLIT_TILE + 2) * 2;
}

/* Whether the whole warp's bucket is b for all its B items: data of one value, or sorted
 * data. Such a batch takes one atomic for the warp, not 32 x B on one address. */
template <int B>
static __device__ __forceinline__ bool gp__hsplit_warp_uniform(const uint32_t (&b)[B])
{
    bool same = b[0] == __shfl_sync(0xffffffffu, b[0], 0);
#pragma unroll
    for (int j = 1; j < B; j++) same &= b[j] == b[0];
    return __all_sync(0xffffffffu, same);
}

/* 1. The tile kernel: tile blockIdx.x of the input. Key(x): x's bin, or `bins` when x is not
 * counted. */
template <class T, class Key>
__global__ void __launch_bounds__(GP__HSPLIT_THREADS, 2)
    gp__hsplit_tile_kernel(const T *in, size_t n, Key key, uint32_t bins, uint32_t buckets, uint64_t chunk,
                           uint16_t *low, uint16_t *table, gp__hsplit_ctl ctl)
{
    extern __shared__ __align__(16) unsigned char gp__hsplit_smem[];
    uint32_t *cnt = reinterpret_cast<uint32_t *>(gp__hsplit_smem);
    uint32_t *keys = reinterpret_cast<uint32_t *>(gp__hsplit_smem + gp__hsplit_keys_at(buckets));
    uint16_t *stage = reinterpret_cast<uint16_t *>(keys + GP__HSPLIT_TILE);
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * GP__HSPLIT_TILE;
    const uint32_t count = (uint32_t)gp__min_size(GP__HSPLIT_TILE, n - base);
    for (uint32_t b = tid; b <= buckets; b += GP__HSPLIT_THREADS) cnt[b] = 0;
    __syncthreads();
    /* each value's key, and its bucket (buckets: not counted) counted; the loads of a batch
     * (128 bytes a thread for floats, else 64: the other rules take more registers) in
     * flight before the first use */
    constexpr int WANT = std::is_same<T, float>::value ? 32 : (int)(64 / (sizeof(T) < 4 ? 4 : sizeof(T)));
    constexpr int BATCH = WANT < GP__HSPLIT_ITEMS ? WANT : GP__HSPLIT_ITEMS;
    static_assert(GP__HSPLIT_ITEMS % BATCH == 0 && GP__HSPLIT_ITEMS % 8 == 0, "whole batches");
    const unsigned lane = tid & 31;
    auto batch = [&](int j0, auto whole) {
        constexpr bool full = decltype(whole)::value;
        T x[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            const uint32_t i = (j0 + j) * GP__HSPLIT_THREADS + tid;
            if (full || i < count) x[j] = gp__load_elem(in + base + i);
        }
        uint32_t bk[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            const uint32_t i = (j0 + j) * GP__HSPLIT_THREADS + tid, k = full || i < count ? key(x[j]) : bins;
            keys[i] = k;
            bk[j] = k < bins ? k >> GP__HSPLIT_SHIFT : buckets;
        }
        if (gp__hsplit_warp_uniform(bk)) {
            if (lane == 0) atomicAdd(&cnt[bk[0]], 32u * BATCH);
        } else {
#pragma unroll
            for (int j = 0; j < BATCH; j++) atomicAdd(&cnt[bk[j]], 1u);
        }
    };
    if (count == GP__HSPLIT_TILE) { /* a whole tile: no bounds to test */
#pragma unroll 1
        for (int j0 = 0; j0 < GP__HSPLIT_ITEMS; j0 += BATCH) batch(j0, std::true_type());
    } else {
#pragma unroll 1
        for (int j0 = 0; j0 < GP__HSPLIT_ITEMS; j0 += BATCH) batch(j0, std::false_type());
    }
    __syncthreads();
    /* counts to starts: each thread a run of the counters, one block scan */
    const uint32_t per = (buckets + GP__HSPLIT_THREADS) / GP__HSPLIT_THREADS, b0 = tid * per;
    uint32_t mine = 0;
    for (uint32_t b = b0; b < b0 + per && b <= buckets; b++) mine += cnt[b];
    uint32_t run = gp__block_scan<gp__op_sel_u32, false>(mine, NULL); /* its barriers: every count read */
    for (uint32_t b = b0; b < b0 + per && b <= buckets; b++) {
        const uint32_t c = cnt[b];
        cnt[b] = run;
        table[gp__hsplit_at(blockIdx.x, b, gridDim.x, buckets)] = (uint16_t)run;
        run += c;
        if (c >= GP__HSPLIT_HEAVY && b < buckets) atomicAdd(ctl.heavy + b, (unsigned long long)c);
    }
    __syncthreads();
    /* each counted value's low bits to its slot in its bucket's run, eight values a step */
#pragma unroll 1
    for (int j0 = 0; j0 < GP__HSPLIT_ITEMS; j0 += 8) {
        uint32_t k[8], bk[8], at[8];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            k[j] = keys[(j0 + j) * GP__HSPLIT_THREADS + tid];
            bk[j] = k[j] < bins ? k[j] >> GP__HSPLIT_SHIFT : buckets;
        }
        if (gp__hsplit_warp_uniform(bk)) {
            uint32_t first = 0;
            if (lane == 0) first = atomicAdd(&cnt[bk[0]], 32u * 8);
            first = __shfl_sync(0xffffffffu, first, 0) + lane * 8;
#pragma unroll
            for (int j = 0; j < 8; j++) at[j] = first + j;
        } else {
#pragma unroll
            for (int j = 0; j < 8; j++) at[j] = atomicAdd(&cnt[bk[j]], 1u);
        }
#pragma unroll
        for (int j = 0; j < 8; j++)
            if (k[j] < bins) stage[at[j]] = (uint16_t)(k[j] & (GP__HSPLIT_BUCKET_BINS - 1));
    }
    __syncthreads();
    /* the counted values (start of the dropped ones: bucket buckets - 1's cursor, which no
     * dropped value moved), as 32-bit words, zeros after them to a whole 16 bytes: the
     * count kernel reads whole 16-byte words, and every byte it reads was written */
    const uint32_t counted = cnt[buckets - 1];
    const uint32_t *src = reinterpret_cast<const uint32_t *>(stage);
    uint32_t *dst = reinterpret_cast<uint32_t *>(low + base);
    for (uint32_t w = tid; w < (counted + 7) / 8 * 4; w += GP__HSPLIT_THREADS)
        dst[w] = 2 * w + 1 < counted ? src[w] : 2 * w < counted ? (uint32_t)stage[2 * w] : 0u;

    /* the last tile block writes the count kernel's work list: bucket b in groups blocks,
     * one more per chunk of its heavy count (so data of one value is counted by the whole
     * GPU, not one block), in bucket order, each bucket's group 0 first */
    if (!gp__block_is_last(ctl.done)) return;
    uint32_t g[GP__HSPLIT_MAX_BUCKETS / GP__HSPLIT_THREADS + 1], total = 0;
    for (uint32_t b = b0, q = 0; q < per; b++, q++) {
        g[q] = b < buckets ? (uint32_t)(1 + ctl.heavy[b] / chunk) : 0;
        total += g[q];
    }
    uint32_t at = gp__block_scan<gp__op_sel_u32, false>(total, &total);
    for (uint32_t b = b0, q = 0; q < per; b++, q++)
        for (uint32_t r = 0; r < g[q]; r++) ctl.list[at++] = (unsigned long long)b << 32 | r << 16 | g[q];
    if (tid == 0) *ctl.items = total;
}

/* Counts the 8 low-bit values of word v (its first at index `at`) that lie in the run
 * [s0, s0 + len), without a branch: a word of 8 equal values inside the run is one atomic
 * of 8 (data of one value would otherwise queue 8 atomics a lane on one counter). */
static __device__ __forceinline__ void gp__hsplit_count_word(uint32_t *c, const uint4 &v, uint32_t at, uint32_t s0,
                                                             uint32_t len)
{
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    const bool eq8 = at - s0 < len && at + 7 - s0 < len && v.x == v.y && v.x == v.z && v.x == v.w &&
                     (v.x >> 16) == (v.x & 0xffff);
#pragma unroll
    for (int h = 0; h < 8; h++) {
        const uint32_t val = (w[h >> 1] >> ((h & 1) * 16)) & 0xffff;
        const bool in = at + h - s0 < len; /* unsigned: below s0 wraps past len */
        if (h == 0 && in) atomicAdd(&c[val], eq8 ? 8u : 1u);
        if (h > 0 && in && !eq8) atomicAdd(&c[val], 1u);
    }
}

/* 2. The count kernel: block i takes work item i (past the list: nothing), a bucket and a
 * group of its tiles, lane t % GP__HSPLIT_THREADS taking tile t's run. A bucket's only
 * block writes its bins of out; a shared bucket's group 0 writes them and raises the
 * bucket's flag, and its other groups add into them after it (blocks start in index order,
 * so group 0 has started before any other waits for it). */
template <int = 0>
__global__ void __launch_bounds__(GP__HSPLIT_THREADS, 2)
    gp__hsplit_count_kernel(const uint16_t *low, const uint16_t *table, size_t tiles, uint32_t buckets, uint64_t bins,
                            gp__hsplit_ctl ctl, uint64_t *out)
{
    extern __shared__ __align__(16) unsigned char gp__hsplit_smem[];
    if (blockIdx.x >= *ctl.items) return;
    uint32_t *c = reinterpret_cast<uint32_t *>(gp__hsplit_smem);
    const unsigned tid = threadIdx.x;
    const unsigned long long item = ctl.list[blockIdx.x];
    const uint32_t bucket = (uint32_t)(item >> 32), g = (uint32_t)(item >> 16) & 0xffff, groups = (uint32_t)item & 0xffff;
    const size_t t0 = tiles * g / groups, t1 = tiles * (g + 1) / groups;
    for (uint32_t i = tid; i < GP__HSPLIT_BUCKET_BINS; i += GP__HSPLIT_THREADS) c[i] = 0;
    __syncthreads();
    /* two tiles a lane at a time, their runs' first words (a run of the mean length at 1024
     * buckets, 16 values, spans 3) loaded together */
    constexpr int FIRST = 3, LONG = 2;
    auto run_of = [&](size_t t, uint32_t &s0, uint32_t &s1) {
        s0 = s1 = 0;
        if (t < t1) {
            s0 = __ldg(table + gp__hsplit_at(t, bucket, tiles, buckets));
            s1 = __ldg(table + gp__hsplit_at(t, bucket + 1, tiles, buckets));
        }
    };
    auto first_words = [&](size_t t, uint32_t s0, uint32_t s1, uint4 (&v)[FIRST]) {
        const uint4 *words = reinterpret_cast<const uint4 *>(low + t * GP__HSPLIT_TILE);
#pragma unroll
        for (int q = 0; q < FIRST; q++)
            if (s0 / 8 + q < (s1 + 7) / 8) v[q] = __ldg(words + s0 / 8 + q);
    };
    auto count_run = [&](size_t t, uint32_t s0, uint32_t s1, const uint4 (&v)[FIRST]) {
        const uint32_t w0 = s0 / 8, w1 = (s1 + 7) / 8;
#pragma unroll
        for (int q = 0; q < FIRST; q++)
            if (w0 + q < w1) gp__hsplit_count_word(c, v[q], (w0 + q) * 8, s0, s1 - s0);
        const uint4 *words = reinterpret_cast<const uint4 *>(low + t * GP__HSPLIT_TILE);
        for (uint32_t w = w0 + FIRST; w < w1; w += LONG) { /* long runs */
            uint4 u[LONG];
#pragma unroll
            for (int q = 0; q < LONG; q++)
                if (w + q < w1) u[q] = __ldg(words + w + q);
#pragma unroll
            for (int q = 0; q < LONG; q++)
                if (w + q < w1) gp__hsplit_count_word(c, u[q], (w + q) * 8, s0, s1 - s0);
        }
    };
    uint32_t a0, a1, b0, b1;
    run_of(t0 + tid, a0, a1);
    run_of(t0 + tid + GP__HSPLIT_THREADS, b0, b1);
    for (size_t t = t0 + tid; t < t1; t += 2 * GP__HSPLIT_THREADS) {
        const size_t u = t + GP__HSPLIT_THREADS;
        uint4 va[FIRST], vb[FIRST];
        first_words(t, a0, a1, va);
        first_words(u, b0, b1, vb);
        uint32_t na0, na1, nb0, nb1; /* the next two tiles' runs are asked for before these are counted */
        run_of(t + 2 * GP__HSPLIT_THREADS, na0, na1);
        run_of(u + 2 * GP__HSPLIT_THREADS, nb0, nb1);
        count_run(t, a0, a1, va);
        count_run(u, b0, b1, vb);
        a0 = na0, a1 = na1, b0 = nb0, b1 = nb1;
    }
    if (groups > 1 && g > 0) { /* after group 0's writes */
        if (tid == 0)
            while (gp__ld_acquire_u32(ctl.flags + bucket) == 0) __nanosleep(256);
    }
    __syncthreads();
    const uint64_t first = (uint64_t)bucket << GP__HSPLIT_SHIFT;
    for (uint32_t i = tid; i < GP__HSPLIT_BUCKET_BINS && first + i < bins; i += GP__HSPLIT_THREADS) {
        const uint32_t v = c[i];
        if (g == 0) out[first + i] = v;
        else if (v) atomicAdd(reinterpret_cast<unsigned long long *>(out + first + i), (unsigned long long)v);
    }
    if (groups > 1 && g == 0) {
        __syncthreads(); /* the block's writes, then (cumulative) the release */
        if (tid == 0) gp__st_release_u32(ctl.flags + bucket, 1u);
    }
}

/* The launches, on scratch of the plan's size: the control words cleared, the tile kernel,
 * the count kernel. Returns cudaErrorMemoryAllocation, with nothing launched (and the
 * runtime's last error cleared of it), where the scratch cannot be had: the caller then
 * counts another way. Key: as the tile kernel's. */
template <class T, class Key>
static cudaError_t gp__hsplit_run(uint64_t *d_hist, const T *d_in, size_t n, uint64_t bins, const Key &key, int dev,
                                  int sms, cudaStream_t s)
{
    const size_t count_smem = GP__HSPLIT_BUCKET_BINS * 4;
    /* opted in once per kernel, for the most buckets (a later call may have more) */
    GP__TRY((gp__kernel_load<gp__hsplit_tile_kernel<T, Key>>((int)gp__hsplit_tile_smem(GP__HSPLIT_MAX_BUCKETS))));
    GP__TRY(gp__kernel_load<gp__hsplit_count_kernel<>>((int)count_smem));
    int per_sm = 1;
    GP__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gp__hsplit_count_kernel<>, GP__HSPLIT_THREADS,
                                                          count_smem));
    const gp__hsplit_plan p = gp__hsplit_make_plan(n, bins, (size_t)sms * (size_t)gp__max_size(1, per_sm));
    const size_t tile_smem = gp__hsplit_tile_smem(p.buckets);
    if (p.tiles > GP__GRID_MAX || p.max_items > GP__GRID_MAX) return cudaErrorInvalidValue;
    void *scratch = NULL;
    const cudaError_t alloc = gp__scratch_alloc(&scratch, p.bytes, dev, s);
    if (alloc != cudaSuccess) {
        if (alloc == cudaErrorMemoryAllocation) (void)cudaGetLastError(); /* this call's own, and handled */
        return alloc;
    }
    uint16_t *low = static_cast<uint16_t *>(scratch);
    uint16_t *table = reinterpret_cast<uint16_t *>(static_cast<char *>(scratch) + p.table_at);
    const gp__hsplit_ctl ctl = gp__hsplit_ctl_at(scratch, p);
    cudaError_t err = cudaMemsetAsync(static_cast<char *>(scratch) + p.ctl_at, 0, p.ctl_bytes, s);
    if (err == cudaSuccess)
        err = gp__launch(gp__hsplit_tile_kernel<T, Key>, (unsigned)p.tiles, GP__HSPLIT_THREADS, tile_smem, s, false,
                         d_in, n, key, (uint32_t)bins, p.buckets, p.chunk, low, table, ctl);
    if (err == cudaSuccess)
        err = gp__launch(gp__hsplit_count_kernel<>, p.max_items, GP__HSPLIT_THREADS, count_smem, s, false,
                         (const uint16_t *)low, (const uint16_t *)table, p.tiles, p.buckets, bins, ctl, d_hist);
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_HISTOGRAM_SPLIT_CUH */
