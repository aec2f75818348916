/* detail/device/sort.cuh -- device-wide radix sort: keys ascending and descending, key-value
 * pairs, argsort; stable, deterministic, in place allowed. Level 4: needs sort_kernels.cuh
 * (the grid path's kernels and how they work), sort_block.cuh (one block's sort: small
 * inputs, the bucket path), sort_bitonic.cuh, sort_cluster.cuh, util/launch.cuh and
 * util/scratch.cuh.
 *
 * A call is: n <= GP__SORT_BITONIC_MAX (1024): one launch of one block that sorts by a
 * bitonic network (sort_bitonic.cuh), 8 keys a thread above 512 keys of up to 4 bytes,
 * else a thread a key. Up to 16 tiles of 4096 keys (65536), from two tiles, where the GPU
 * launches clusters and shared memory holds the tiles: one launch of one thread-block
 * cluster that keeps the keys in its blocks' shared memory through every pass
 * (sort_cluster.cuh). Else n <= GP__SORT_SMALL_MAX (and the data fits one block's shared
 * memory): one launch of one block (256 threads up to 2048 keys, else 1024) that
 * radix-sorts everything in shared memory. Otherwise: the histogram kernel, one kernel
 * per pass (tiles of 2048
 * keys up to GP__SORT_SMALL_TILES_MAX keys, of the sizes below beyond; 8-bit digits:
 * 2 passes for 16-bit keys, 4 for 32-bit, 8 for 64-bit; a pass whose digit is the same for
 * every key returns at once), and in place a copy kernel that works only when one pass was
 * real. Up to GP__SORT_BUCKET_CAP x GP__SORT_BUCKET_SPREAD keys (2^20 for 4-byte keys; for
 * the instances gp__sort_has_buckets names) the histogram kernel may choose, on the
 * device, the bucket path instead: where no top digit holds more keys than one block's
 * shared memory takes, the pass kernels of the lower digits return at once, the top
 * digit's orders the keys by that digit, and the bucket kernel (launched after the
 * passes, returning at once on the LSD path) sorts each top digit's keys by the other
 * digits in one block. No host synchronisation anywhere.
 *
 * Scratch (the library's stream-ordered pool; cudaErrorMemoryAllocation, nothing launched
 * and the inputs untouched when it cannot be had): n keys (2n in place and for argsort),
 * plus n values for pairs (2n in place) or n 32-bit indices for argsort (64-bit above 2^32
 * keys; they also pass through the caller's index array). Status memory (util/status.cuh,
 * kept per stream up to GP__STATUS_MAX bytes, else per-call scratch cleared by a kernel
 * before the histogram kernel): the status words (8 bytes per digit per tile: 2 KB a tile
 * of 10752 keys for keys of up to 4 bytes alone or with 4-byte values, 7680 for 8-byte keys
 * alone or with 4-byte values and other pairs within 8 bytes, 4608 within 16, else 3072, and
 * 2048 for every type up to 2^18 keys; twice that above 2^32 keys) and 32 KB of histograms,
 * offsets and counters. */
#ifndef GPUPRIMS_DETAIL_SORT_CUH
#define GPUPRIMS_DETAIL_SORT_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "sort_kernels.cuh"
#include "sort_block.cuh"
#include "sort_bitonic.cuh"
#include "sort_cluster.cuh"

/* GP_DECLARE_SORT(name, K): the keys' host functions, C linkage (instances.cuh uses it). */
#define GP_DECLARE_SORT(name, K)                                                                              \
    GP__EXTERN_C cudaError_t gp_sort_##name(K *d_out, const K *d_in, size_t n, cudaStream_t s);               \
    GP__EXTERN_C cudaError_t gp_sort_desc_##name(K *d_out, const K *d_in, size_t n, cudaStream_t s);          \
    GP__EXTERN_C cudaError_t gp_argsort_##name(uint64_t *d_idx, const K *d_in, size_t n, cudaStream_t s);     \
    GP__EXTERN_C cudaError_t gp_argsort_desc_##name(uint64_t *d_idx, const K *d_in, size_t n, cudaStream_t s);
/* GP_DECLARE_SORT_PAIRS(name, K, V): gp_sort_pairs_<name> and gp_sort_pairs_desc_<name>. */
#define GP_DECLARE_SORT_PAIRS(name, K, V)                                                                       \
    GP__EXTERN_C cudaError_t gp_sort_pairs_##name(K *d_keys_out, V *d_values_out, const K *d_keys,              \
                                                  const V *d_values, size_t n, cudaStream_t s);                 \
    GP__EXTERN_C cudaError_t gp_sort_pairs_desc_##name(K *d_keys_out, V *d_values_out, const K *d_keys,         \
                                                       const V *d_values, size_t n, cudaStream_t s);

#ifndef GP__SORT_SMALL_MAX
#define GP__SORT_SMALL_MAX 8192 /* one block up to this many keys (where shared memory holds them) */
#endif
#define GP__SORT_BLOCK 384       /* grid path: threads per block (2 blocks per SM) */
/* Keys a thread. 24 and 16 were the fastest on the H100 (bench/sort/probes/shapes.cu,
 * 2026-11-26: 20 and 24, 12 and 16); on the H200 (2026-11-29, the same probe, one run,
 * medians of 15, outputs equal to CUB's), at 2^28: u32 keys x 24 / 26 / 28 / 30 / 32 / 36
 * 5.68 / 5.53 / 5.44 / 5.80 / 5.89 / 5.73 ms (8 distinct keys 4.33 / 4.21 / 4.11 / 4.31 /
 * 4.25 / 4.12, 2^24 0.421 / 0.412 / 0.413 / 0.438 / 0.442 / 0.440); pairs u32/u32 x 16 / 18
 * / 20 / 22 / 24 8.77 / 8.62 / 8.27 / 8.20 / 8.16 ms; u64 keys x 16 / 18 / 20 / 24 16.83 /
 * 16.31 / 16.28 / 20.16 ms (24: one block an SM). The H100's shape was not measured again
 * (no H100 was lent). At 80 registers (ptxas, sm_90, CUDA 13.0, 32-bit counts, those below
 * 2^32 keys) x 28 is the most keys of up to 4 bytes with no spill (x 30 spills 4 bytes, x 32
 * 28). At x 20 u64 keys spill 24 bytes (x 18 none, and as fast); 20 was the fastest or
 * level with it for both measured jobs. Since pairs stage their values in the rank's
 * counters (02d48c6) no pair or argsort instance at x 20 spills (4-32 bytes before), 4-byte
 * keys with 8-byte values at x 12 spill 8 (none before), and pairs u32/u32 at x 20 / 24 took
 * 7.85-7.87 / 7.92-7.95 ms (H200, 2^28, two runs). */
#define GP__SORT_ITEMS_KEYS4 28  /* keys only, up to 4 bytes, or 4-byte keys with 4-byte values (10752-key tiles) */
#define GP__SORT_ITEMS_8B 20     /* 8-byte keys alone or with 4-byte values, or pairs within 8 bytes (7680) */
#define GP__SORT_ITEMS_16B 12    /* key and value within 16 bytes */
#define GP__SORT_ITEMS_MORE 8    /* larger (a user's value type) */
/* Up to GP__SORT_SMALL_TILES_MAX keys past the one-block paths, tiles of 256 threads x 8
 * keys: the default tiles leave most SMs idle there. Measured (H100, u32 keys, one call from
 * an idle GPU / calls back to back, us, a probe of the grid path's shapes): 2^14 61.2 / 52.4
 * with 384 x 24 against 41.2 / 33.8; 2^16 66.2 / 56.6 against 47.6 / 38.9; 2^18 67.5 / 57.0
 * against 56.4 / 47.3; at 2^20 the default is as fast as any shape (77.2 / 63.5; 256 x 8:
 * 91.5 / 78.7). */
#define GP__SORT_SMALL_TILES_MAX ((size_t)1 << 18)
#define GP__SORT_SMALL_TILES_BLOCK 256
#define GP__SORT_SMALL_TILES_ITEMS 8
/* Past the small tiles, 4-byte keys sorted alone run tiles of GP__SORT_BLOCK x 16 keys (6144)
 * up to one wave of them (as many tiles as fit on the GPU at once: 2 blocks an SM, 1.62 M
 * keys on an H200's 132 SMs). Between 2^18 and 2^21 keys the default tiles leave SMs idle:
 * at 2^19 49 tiles of 10752 keys run on 132 SMs, each a long chain of count, rank, look-back
 * and write. Probe (H200, 2026-11-29, bench/sort/probes/buckets.cu, 64 calls back to back,
 * us a call, builds run in turn twice, outputs hashed equal), x 28 against x 16: u32 keys
 * 2^19 37.9 / 36.0, 2^20 47.0 / 45.9, 1.5 M 68.2 / 60.3, 1.7 M (above the wave; x 28 both)
 * 68.9; floats in [0, 1) (a crowded top digit, the four passes) 55.8 / 46.3, 61.0 / 54.9,
 * 69.8 / 61.0. x 12 (4608) was better at 2^19 (35.6) and worse from 2^20 (46.5, 1.5 M 73.0),
 * 256 x 16 at 3 blocks an SM worse (36.5, 46.3, 64.4). 8-byte keys gained 1-3%, not worth
 * a kernel more each in the build (building.md), so they keep theirs. 4-byte keys with 4-byte
 * values (pairs, argsort's 32-bit indices) take them too since their default tiles are of
 * 28 keys (their values by cp.async, sort_kernels.cuh): x 16 against x 20, their tiles
 * before, pairs u32/u32 2^19 44.3 / 45.4 us, 2^20 56.1 / 57.6, 1.5 M 73.8 / 76.2. */
#define GP__SORT_MID_TILES_ITEMS 16

#ifdef __CUDACC__
/* Keys a thread ranks per pass, by the bytes of a key and of a value (0: keys only), and
 * whether the values go to shared memory by copies (gp__sort_values_by_copy): then they
 * take no registers, and the keys take the tiles of keys alone (x 28 for 4-byte keys, x 20
 * for 8-byte keys: pairs u64/u32 and the argsort of 8-byte keys, x 12 in registers). Larger tiles mean fewer
 * status words and look-back steps per key; the registers of 2 blocks of 384 threads a SM
 * bound them (above). */
static constexpr GP__HD int gp__sort_items(size_t kbytes, size_t vbytes, bool values_by_copy)
{
    return (vbytes == 0 && kbytes <= 4) || (kbytes == 4 && values_by_copy) ? GP__SORT_ITEMS_KEYS4
           : kbytes + vbytes <= 8 || (kbytes == 8 && values_by_copy)      ? GP__SORT_ITEMS_8B
           : kbytes + vbytes <= 16                                        ? GP__SORT_ITEMS_16B
                                                                          : GP__SORT_ITEMS_MORE;
}
/* The tiles given to values by copy must be ones the pass kernel copies them in: else they
 * would sit in registers in tiles sized for none (spills). */
static_assert(gp__sort_items(4, 4, true) >= gp__sort_async_items(4) &&
                  gp__sort_items(8, 4, true) >= gp__sort_async_items(8),
              "tiles of values by copy reach GP__SORT_ASYNC_ITEMS(_K8)");
#include "../util/launch.cuh"
#include "../util/scratch.cuh"
#include "../util/status.cuh"

/* Knobs for tests and the bench (NULL: the defaults). no_small: never the one-block path;
 * small_max: its limit (0: GP__SORT_SMALL_MAX); wide: 64-bit counts in the status words
 * (the default only above 2^32 keys). Start from {} and set fields by name, so a field added
 * later is 0 at every caller. */
typedef struct gp__sort_knobs {
    int no_small;
    size_t small_max;
    int wide;
    int no_bitonic;     /* the one-block radix sort even where the bitonic network would run */
    int no_small_tiles; /* the default tiles even where the small or mid tiles would run */
    int no_cluster;     /* not the one-cluster sort (sort_cluster.cuh) */
    int no_cluster_split; /* the one-cluster sort by its LSD passes only, never the split */
    int no_buckets;     /* never the bucket path (always the LSD passes) */
    unsigned bucket_cap; /* the bucket path's largest bucket (0: gp__sort_bucket_cap's) */
    int mid_tiles;       /* the mid tiles at any size where the grid path runs (the tests) */
} gp__sort_knobs;

#ifndef GP__SORT_BUCKET_CAP
#define GP__SORT_BUCKET_CAP 8192  /* keys a bucket block holds at most (fewer where shared memory is short) */
#endif
#define GP__SORT_BUCKET_SPREAD 128 /* the bucket path runs up to cap x this keys: buckets of half a block on average */

/* Which instances have the bucket path: keys of 4 or 8 bytes, with no values, argsort's
 * indices or values of up to 4 bytes, the cases measured faster (docs/sort.md). The others
 * (16-bit keys, wider values) keep the LSD passes, and `make` compiles no bucket kernel for
 * them: the 28 default instances' bucket kernels took lib/sort.cu from 34 to 43 s. */
template <class K, class V, int MODE>
static constexpr bool gp__sort_has_buckets(void)
{
    return sizeof(typename gp__sort_key<K>::U) >= 4 && (MODE == GP__SORT_KEYS || sizeof(V) <= 4);
}
/* The bucket kernel's shared memory for buckets of up to `cap` keys (the instances above). */
template <class K, class V, int MODE>
static inline size_t gp__sort_bucket_smem(size_t cap)
{
    static_assert(gp__sort_has_buckets<K, V, MODE>(), "the bucket path's instances only");
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    return gp__sort_small_smem_bytes<K, V, MODE, GP__SORT_BUCKET_BLOCK, P - 1>(cap);
}
/* The largest bucket a block of the bucket kernel holds on the device: blocks hold a bucket
 * in shared memory, twice (keys and values), so the largest power of two up to
 * GP__SORT_BUCKET_CAP that fits (0: none). */
template <class K, class V, int MODE>
static unsigned gp__sort_bucket_cap_max(const gp__device &dev)
{
    for (unsigned cap = GP__SORT_BUCKET_CAP; cap >= 1024; cap /= 2)
        if (gp__sort_bucket_smem<K, V, MODE>(cap) <= (size_t)dev.smem_block) return cap;
    return 0;
}
/* The bucket path's largest bucket for n keys (0: not this call): offered where the mean
 * bucket (n / 256) is at most half of the cap, so that random keys never overflow one. */
template <class K, class V, int MODE>
static unsigned gp__sort_bucket_cap(size_t n, const gp__device &dev, const gp__sort_knobs *knobs)
{
    if (knobs && (knobs->no_buckets || knobs->wide)) return 0;
    const unsigned cap = gp__sort_bucket_cap_max<K, V, MODE>(dev);
    if (n > (size_t)cap * GP__SORT_BUCKET_SPREAD) return 0;
    return knobs && knobs->bucket_cap ? (unsigned)gp__min_size(knobs->bucket_cap, cap) : cap;
}

/* One block sorts n <= GP__SORT_BITONIC_MAX elements by the bitonic network, I keys a thread. */
template <class K, class V, int MODE, int I>
static cudaError_t gp__sort_bitonic(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc, cudaStream_t s)
{
    GP__TRY((gp__kernel_load<gp__sort_bitonic_kernel<K, V, MODE, I>>()));
    return gp__launch(gp__sort_bitonic_kernel<K, V, MODE, I>, 1, gp__sort_bitonic_threads(n, I), 0, s, false, k_out,
                      v_out, k_in, v_in, (unsigned)n, desc);
}

/* One block of BLOCK threads sorts all n elements in `smem` bytes of shared memory. */
template <class K, class V, int MODE, int BLOCK>
static cudaError_t gp__sort_small(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc, size_t smem,
                                  const gp__device &dev, cudaStream_t s)
{
    GP__TRY(gp__kernel_load<gp__sort_small_kernel<K, V, MODE, BLOCK>>(dev.smem_block));
    return gp__launch(gp__sort_small_kernel<K, V, MODE, BLOCK>, 1, BLOCK, smem, s, false, k_out, v_out, k_in, v_in,
                      (unsigned)n, desc);
}

/* One cluster of `blocks` blocks sorts all n elements, each block a tile in its shared memory. */
template <class K, class V, int MODE>
static cudaError_t gp__sort_cluster(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc,
                                    unsigned blocks, size_t smem, int split, cudaStream_t s)
{
    cudaLaunchAttribute cluster = gp__cluster_attribute(blocks);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(GP__SORT_CLUSTER_BLOCK);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = &cluster;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, gp__sort_cluster_kernel<K, V, MODE>, k_out, v_out, k_in, v_in, (unsigned)n, desc, split);
}

/* Which counts a grid instance may put in its status words: 32-bit ones only, 64-bit ones
 * only, or either (64-bit above 2^32 keys, or by knob). Each instance compiles only the
 * pass kernels it may run. */
enum { GP__SORT_COUNTS_32 = 1, GP__SORT_COUNTS_64 = 2, GP__SORT_COUNTS_ANY = 3 };

/* The grid path: histograms, then one pass kernel of BLOCK x ITEMS-key tiles per digit.
 * idx_out: argsort's output (V, the indices between passes, may be 32-bit). bucket_cap
 * (the library's shape only, BUCKETS): where no top digit holds more keys than that, the
 * histogram kernel chooses the bucket path, decided on the device: the pass kernels of the
 * lower digits return at once, the top digit's orders the keys by that digit, and the
 * bucket kernel after it sorts each top digit's keys in one block's shared memory by the
 * other digits. */
template <class K, class V, int MODE, int BLOCK, int ITEMS, int VARIANT, int MINB, int COUNTS = GP__SORT_COUNTS_ANY,
          bool BUCKETS = false>
static cudaError_t gp__sort_grid(K *k_out, V *v_out, uint64_t *idx_out, const K *k_in, const V *v_in, size_t n,
                                 int desc, int in_place, const gp__device &dev, cudaStream_t s,
                                 const gp__sort_knobs *knobs, unsigned bucket_cap = 0)
{
    constexpr int P = sizeof(typename gp__sort_key<K>::U);
    constexpr size_t KB = sizeof(K), VB = MODE == GP__SORT_KEYS ? 0 : sizeof(V);
    constexpr unsigned TILE = BLOCK * ITEMS;
    const size_t tiles = gp__ceil_div(n, (size_t)TILE);
    if (tiles > GP__GRID_MAX) return cudaErrorInvalidValue;
    const bool wide = COUNTS == GP__SORT_COUNTS_64 ||
                      (COUNTS == GP__SORT_COUNTS_ANY && (n > UINT32_MAX || (knobs && knobs->wide)));
    if (!wide && n > UINT32_MAX) return cudaErrorInvalidValue; /* not reached: the callers choose by n */
    void (*pass)(gp__sort_io<K, V>, int) = NULL;
    constexpr size_t pass_smem = gp__sort_pass_smem_bytes<K, V, BLOCK, ITEMS, VARIANT>();
    /* every kernel loaded before the allocation: a full GPU fails here, nothing launched */
    GP__TRY(gp__kernel_load<gp__sort_hist_kernel<K, V>>());
    if constexpr ((COUNTS & GP__SORT_COUNTS_64) != 0)
        if (wide) {
            pass = gp__sort_pass_kernel<K, V, MODE, uint64_t, BLOCK, ITEMS, VARIANT, MINB>;
            GP__TRY((gp__kernel_load<gp__sort_pass_kernel<K, V, MODE, uint64_t, BLOCK, ITEMS, VARIANT, MINB>>(
                (int)pass_smem)));
        }
    if constexpr ((COUNTS & GP__SORT_COUNTS_32) != 0)
        if (!wide) {
            pass = gp__sort_pass_kernel<K, V, MODE, uint32_t, BLOCK, ITEMS, VARIANT, MINB>;
            GP__TRY((gp__kernel_load<gp__sort_pass_kernel<K, V, MODE, uint32_t, BLOCK, ITEMS, VARIANT, MINB>>(
                (int)pass_smem)));
        }
    if (in_place) GP__TRY(gp__kernel_load<gp__sort_finish_kernel<K, V, MODE>>());
    if constexpr (BUCKETS)
        if (bucket_cap) /* opted in once per kernel, for the device's largest bucket (a knob may ask less) */
            GP__TRY((gp__kernel_load<gp__sort_bucket_kernel<K, V, MODE>>(
                (int)gp__sort_bucket_smem<K, V, MODE>(gp__sort_bucket_cap_max<K, V, MODE>(dev)))));
    if (dev.cluster_ok) GP__TRY(gp__kernel_load<gp__scratch_zero_kernel<>>());

    const gp__sort_layout l = gp__sort_make_layout(n, tiles, KB, VB, wide ? 2 : 1,
                                                   in_place || MODE == GP__SORT_ARGSORT, MODE != GP__SORT_KEYS,
                                                   MODE == GP__SORT_PAIRS && in_place);
    gp__sort_io<K, V> io;
    io.k_in = k_in;
    io.k_buf[GP__SORT_IN] = NULL; /* read through k_in */
    io.k_buf[GP__SORT_OUT] = k_out;
    io.v_buf[GP__SORT_IN] = (V *)v_in;
    io.v_buf[GP__SORT_OUT] = v_out;
    io.idx_out = idx_out;
    io.n = n;
    io.desc = desc;
    io.in_place = in_place;
    io.bucket_cap = BUCKETS ? bucket_cap : 0;
    /* On sm_90 each kernel is the programmatic dependent of the one before (the first, of
     * the stream's earlier work): placed on the GPU as the one before finishes, it waits
     * (gp__chain_wait_only) before it touches memory, so the launches of a call do not each
     * wait for the one before to drain. H100, u32 keys, 16 calls back to back (probe, both
     * builds alternated twice): 2^17 42.7-43.0 to 35.4 us a call, 2^18 47.4-48.0 to 40.6-40.7,
     * 2^19 60.4-60.7 to 52.8-52.9, 2^20 65.0-65.3 to 57.1-57.3; pairs u32/u32 at 2^20 76.1-76.5
     * to 68.9-69.2. */
    const bool chain = dev.cluster_ok != 0;
    /* The histogram kernel's blocks: 16 keys a thread, but at least 64 blocks (where there
     * are 512 keys a block), and at most 4 an SM. About 64 to 128 blocks were the fastest
     * from 2^17 to 2^21 keys: fewer leave each thread more rounds of loads, more send more
     * atomics to the same 256 counters a pass. Probe (H200, 2026-11-29, 64 calls back to
     * back, builds run in turn twice), us a call at 2^17 / 2^18 keys with 16 / 32 blocks
     * (16 keys a thread) against 64: pairs u32/u32 37.6 / 40.0 against 36.3 / 39.1, u64 keys
     * 65.1 / 69.2 against 62.9 / 67.6, floats in [0, 1) 34.3 / 39.7 against 33.3 / 39.0. At
     * 2^19 (64 blocks) 128 were within 0.8 us either way and 256 1-2 us slower; at 2^20 (128)
     * 256 were 0.6-1.3 us slower; at 2^21 (256) 128 were 0.4-0.8 us faster (about 1%, not
     * taken). */
    const size_t hist_blocks =
        gp__min_size(gp__max_size(gp__ceil_div(n, (size_t)GP__SORT_HIST_THREADS * 16),
                                  gp__min_size(64, gp__ceil_div(n, (size_t)GP__SORT_HIST_THREADS))),
                     (size_t)dev.sms * 4);
    /* The kernels of one call from the histogram kernel on, over the control part at
     * `control` and the buffers at `buffers`; the first chained where `chain_first`. */
    auto run = [&](char *control, char *buffers, uint32_t epoch, bool chain_first) {
        io.k_buf[GP__SORT_TMP_A] = (K *)(buffers + l.ka);
        io.k_buf[GP__SORT_TMP_B] = (K *)(buffers + l.kb);
        io.v_buf[GP__SORT_TMP_A] = (V *)(buffers + l.va);
        io.v_buf[GP__SORT_TMP_B] = (V *)(buffers + l.vb);
        io.hist = (unsigned long long *)(control + l.hist);
        io.offsets = (unsigned long long *)(control + l.offsets);
        io.ctl = (unsigned long long *)(control + l.ctl);
        io.status = (uint64_t *)(control + l.status);
        io.epoch = epoch;
        cudaError_t err =
            gp__launch(gp__sort_hist_kernel<K, V>, (unsigned)hist_blocks, GP__SORT_HIST_THREADS, 0, s, chain_first, io);
        for (int p = 0; p < P && err == cudaSuccess; p++)
            err = gp__launch(pass, (unsigned)tiles, BLOCK, pass_smem, s, chain, io, p);
        if constexpr (BUCKETS)
            if (bucket_cap && err == cudaSuccess)
                err = gp__launch(gp__sort_bucket_kernel<K, V, MODE>, 256, GP__SORT_BUCKET_BLOCK,
                                 gp__sort_bucket_smem<K, V, MODE>(bucket_cap), s, chain, io);
        if (in_place && err == cudaSuccess)
            err = gp__launch(gp__sort_finish_kernel<K, V, MODE>,
                             (unsigned)gp__min_size(gp__ceil_div(n, (size_t)1024), (size_t)dev.sms * 8), 256, 0, s, chain, io);
        return err;
    };

    /* Status memory: the control part is the stream's region, kept between calls (its
     * counters come back to 0 at the end of each call, its status words are tagged with the
     * call's epochs), so nothing is cleared and only the buffers come from the pool. A call
     * under stream capture, or one whose status words exceed a region, takes per-call
     * scratch for both parts, the control part cleared first (a chained kernel, a memset
     * where kernels are not chained), with epoch 1. */
    bool served = false;
    const cudaError_t status_err =
        gp__status_run(dev.id, s, GP__STATUS_SORT, l.control, GP__SORT_EPOCHS, &served, [&](void *mem, uint32_t epoch) {
            void *buffers = NULL;
            GP__TRY(gp__scratch_alloc(&buffers, l.buffers, dev.id, s)); /* nothing launched (the region is let go) */
            /* chained, except right after the region's zeroing (a memset, epoch 1) */
            const cudaError_t err = run((char *)mem, (char *)buffers, epoch, chain && epoch != 1);
            const cudaError_t free_err = cudaFreeAsync(buffers, s);
            return err != cudaSuccess ? err : free_err;
        });
    if (served || status_err != cudaSuccess) return status_err;
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, l.control + l.buffers, dev.id, s));
    cudaError_t err = chain ? gp__scratch_zero((unsigned long long *)scratch, l.control / 8, s, true)
                            : cudaMemsetAsync(scratch, 0, l.control, s);
    if (err == cudaSuccess) err = run((char *)scratch, (char *)scratch + l.control, 1, chain);
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}


/* The grid path for n keys: up to GP__SORT_SMALL_TILES_MAX keys, tiles of
 * GP__SORT_SMALL_TILES_BLOCK x GP__SORT_SMALL_TILES_ITEMS; for 4-byte keys alone, up to a
 * wave of them, BLOCK x GP__SORT_MID_TILES_ITEMS (both for more blocks on the GPU at once;
 * the library's own shape only, and never with 64-bit counts, which need more than 2^32
 * keys); else BLOCK x ITEMS. */
template <class K, class V, int MODE, int BLOCK, int ITEMS, int VARIANT, int MINB, bool LIBRARY_SHAPE, int COUNTS>
static cudaError_t gp__sort_grid_sized(K *k_out, V *v_out, uint64_t *idx_out, const K *k_in, const V *v_in, size_t n,
                                       int desc, int in_place, const gp__device &dev, cudaStream_t s,
                                       const gp__sort_knobs *knobs)
{
    if constexpr (LIBRARY_SHAPE && (COUNTS & GP__SORT_COUNTS_32) != 0) {
        constexpr bool BUCKETS = gp__sort_has_buckets<K, V, MODE>();
        unsigned cap = 0;
        if constexpr (BUCKETS) cap = gp__sort_bucket_cap<K, V, MODE>(n, dev, knobs);
        const bool default_tiles = knobs && (knobs->wide || knobs->no_small_tiles);
        const bool mid_knob = knobs && knobs->mid_tiles;
        if (n <= GP__SORT_SMALL_TILES_MAX && !default_tiles && !mid_knob)
            return gp__sort_grid<K, V, MODE, GP__SORT_SMALL_TILES_BLOCK, GP__SORT_SMALL_TILES_ITEMS, 0,
                                 gp__sort_min_blocks(GP__SORT_SMALL_TILES_BLOCK), GP__SORT_COUNTS_32, BUCKETS>(
                k_out, v_out, idx_out, k_in, v_in, n, desc, in_place, dev, s, knobs, cap);
        if constexpr (sizeof(K) == 4 && (MODE == GP__SORT_KEYS || gp__sort_values_by_copy<V>()) &&
                      ITEMS > GP__SORT_MID_TILES_ITEMS) {
            const size_t wave = (size_t)dev.sms * MINB * BLOCK * GP__SORT_MID_TILES_ITEMS;
            if ((n <= wave || mid_knob) && !default_tiles)
                return gp__sort_grid<K, V, MODE, BLOCK, GP__SORT_MID_TILES_ITEMS, 0, MINB, GP__SORT_COUNTS_32, BUCKETS>(
                    k_out, v_out, idx_out, k_in, v_in, n, desc, in_place, dev, s, knobs, cap);
        }
        if constexpr (BUCKETS)
            if (cap) /* never with the wide knob (gp__sort_bucket_cap) */
                return gp__sort_grid<K, V, MODE, BLOCK, ITEMS, VARIANT, MINB, GP__SORT_COUNTS_32, true>(
                    k_out, v_out, idx_out, k_in, v_in, n, desc, in_place, dev, s, knobs, cap);
    }
    return gp__sort_grid<K, V, MODE, BLOCK, ITEMS, VARIANT, MINB, COUNTS>(k_out, v_out, idx_out, k_in, v_in, n, desc,
                                                                          in_place, dev, s, knobs);
}

/* The host side of every sort. MODE: GP__SORT_KEYS (V unused), _PAIRS, _ARGSORT (V is
 * uint64_t, v_out the indices). BLOCK, ITEMS (0: gp__sort_items), VARIANT and MINB: the
 * grid path's pass kernel (the bench's ladder and probes try others). */
template <class K, class V, int MODE, int BLOCK = GP__SORT_BLOCK, int ITEMS_ = 0, int VARIANT = 0,
          int MINB = gp__sort_min_blocks(BLOCK)>
static cudaError_t gp__sort(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc, cudaStream_t s,
                            const gp__sort_knobs *knobs = NULL)
{
    constexpr size_t KB = sizeof(K), VB = MODE == GP__SORT_KEYS ? 0 : sizeof(V);
    constexpr int ITEMS =
        ITEMS_ ? ITEMS_ : gp__sort_items(KB, VB, MODE != GP__SORT_KEYS && gp__sort_values_by_copy<V>());
    if (n == 0) return cudaSuccess;
    if (k_in == NULL || n > SIZE_MAX / 8 / (KB + 16)) return cudaErrorInvalidValue;
    if ((MODE != GP__SORT_ARGSORT && k_out == NULL) || (MODE != GP__SORT_KEYS && v_out == NULL) ||
        (MODE == GP__SORT_PAIRS && v_in == NULL))
        return cudaErrorInvalidValue;
    /* an output may be its own input (in place); no other overlap */
    const size_t kbytes = n * KB, vbytes = n * VB;
    if (MODE != GP__SORT_ARGSORT && (const void *)k_out != (const void *)k_in &&
        gp__ranges_overlap(k_in, kbytes, k_out, kbytes))
        return cudaErrorInvalidValue;
    if (MODE == GP__SORT_PAIRS &&
        (((const void *)v_out != (const void *)v_in && gp__ranges_overlap(v_in, vbytes, v_out, vbytes)) ||
         gp__ranges_overlap(k_out, kbytes, v_out, vbytes) || gp__ranges_overlap(k_out, kbytes, v_in, vbytes) ||
         gp__ranges_overlap(v_out, vbytes, k_in, kbytes)))
        return cudaErrorInvalidValue;
    if (MODE == GP__SORT_ARGSORT && gp__ranges_overlap(v_out, vbytes, k_in, kbytes)) return cudaErrorInvalidValue;
    const int in_place = MODE != GP__SORT_ARGSORT && ((const void *)k_out == (const void *)k_in ||
                                                      (MODE == GP__SORT_PAIRS && (const void *)v_out == (const void *)v_in));
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));

    /* small: one block, one launch, where its shared memory holds the data; up to 1024
     * keys the bitonic network (sort_bitonic.cuh) */
    const size_t small_max = knobs && knobs->no_small ? 0 : knobs && knobs->small_max ? knobs->small_max : GP__SORT_SMALL_MAX;
    if (n <= small_max && n <= GP__SORT_BITONIC_MAX && !(knobs && knobs->no_bitonic))
        return gp__sort_bitonic_items(n, KB) == 1
                   ? gp__sort_bitonic<K, V, MODE, 1>(k_out, v_out, k_in, v_in, n, desc, s)
                   : gp__sort_bitonic<K, V, MODE, GP__SORT_BITONIC_ITEMS>(k_out, v_out, k_in, v_in, n, desc, s);
    /* two to a cluster's tiles: one cluster, the data in its blocks' shared memory through
     * every pass (sort_cluster.cuh). From two tiles it beats the one-block radix sort (H100,
     * u32 keys, one call from an idle GPU: 8192 keys 39.8 us in one block of 1024 threads,
     * 8193 in a cluster of 3 blocks 27-29 us). */
    constexpr size_t CLUSTER_TILE = (size_t)GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_ITEMS;
    if (n > CLUSTER_TILE && dev.cluster_ok && !(knobs && (knobs->no_small || knobs->no_cluster))) {
        const size_t smem = gp__sort_cluster_smem_bytes<K, V, MODE>();
        if (n <= GP__SORT_CLUSTER_BLOCKS * CLUSTER_TILE && smem <= (size_t)dev.smem_block) {
            GP__TRY((gp__kernel_load<gp__sort_cluster_kernel<K, V, MODE>>((int)smem)));
            const unsigned blocks = (unsigned)gp__ceil_div(n, CLUSTER_TILE);
            if (blocks <= gp__cluster_limit<gp__sort_cluster_kernel<K, V, MODE>>(dev.id, GP__SORT_CLUSTER_BLOCK))
                return gp__sort_cluster<K, V, MODE>(k_out, v_out, k_in, v_in, n, desc, blocks, smem,
                                                    !(knobs && knobs->no_cluster_split), s);
        }
    }

    if (n <= small_max) {
        const bool tiny = n <= GP__SORT_TINY;
        const size_t smem = tiny ? gp__sort_small_smem_bytes<K, V, MODE, GP__SORT_TINY_BLOCK>(n)
                                 : gp__sort_small_smem_bytes<K, V, MODE, GP__SORT_SMALL_BLOCK>(n);
        if (smem <= (size_t)dev.smem_block)
            return tiny ? gp__sort_small<K, V, MODE, GP__SORT_TINY_BLOCK>(k_out, v_out, k_in, v_in, n, desc, smem, dev, s)
                        : gp__sort_small<K, V, MODE, GP__SORT_SMALL_BLOCK>(k_out, v_out, k_in, v_in, n, desc, smem, dev, s);
    }

    constexpr bool LIBRARY_SHAPE = BLOCK == GP__SORT_BLOCK && ITEMS_ == 0 && VARIANT == 0;
    if constexpr (MODE == GP__SORT_ARGSORT) {
        /* below 2^32 keys the indices go through the passes as 32-bit values and the last
         * pass writes them as 64-bit: a pass moves 16 bytes a u32 key instead of 24 */
        uint64_t *idx = reinterpret_cast<uint64_t *>(v_out);
        constexpr int ITEMS32 = ITEMS_ ? ITEMS_ : gp__sort_items(KB, 4, gp__sort_values_by_copy<uint32_t>());
        if (n <= UINT32_MAX && !(knobs && knobs->wide))
            return gp__sort_grid_sized<K, uint32_t, MODE, BLOCK, ITEMS32, VARIANT, MINB, LIBRARY_SHAPE, GP__SORT_COUNTS_32>(
                (K *)NULL, (uint32_t *)idx, idx, k_in, (const uint32_t *)NULL, n, desc, 0, dev, s, knobs);
        return gp__sort_grid<K, V, MODE, BLOCK, ITEMS, VARIANT, MINB, GP__SORT_COUNTS_64>(
            (K *)NULL, v_out, idx, k_in, (const V *)NULL, n, desc, 0, dev, s, knobs);
    } else {
        return gp__sort_grid_sized<K, V, MODE, BLOCK, ITEMS, VARIANT, MINB, LIBRARY_SHAPE, GP__SORT_COUNTS_ANY>(
            k_out, v_out, (uint64_t *)NULL, k_in, v_in, n, desc, in_place, dev, s, knobs);
    }
}

/* The default instances' sorts with knobs, for the tests, which choose a path through these
 * instead of compiling every sort kernel again (their translation unit took 41 s of the
 * 2-core build doing so). Instantiated for the default instances' types only, where those
 * are compiled (GPUPRIMS_IMPLEMENTATION_SORT, detail/instances.cuh); not API, and not
 * exported by the shared library (C++ names). */
template <class K, class V, int MODE>
cudaError_t gp__sort_with_knobs(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc,
                                const gp__sort_knobs *knobs);

/* ---- instantiation ----------------------------------------------------------------------------- */
#define GP__DEFINE_SORT_HOST(SCOPE, name, K)                                                            \
    SCOPE cudaError_t gp_sort_##name(K *d_out, const K *d_in, size_t n, cudaStream_t s)                  \
    {                                                                                                  \
        return gp__sort<K, K, GP__SORT_KEYS>(d_out, (K *)NULL, d_in, (const K *)NULL, n, 0, s);         \
    }                                                                                                  \
    SCOPE cudaError_t gp_sort_desc_##name(K *d_out, const K *d_in, size_t n, cudaStream_t s)             \
    {                                                                                                  \
        return gp__sort<K, K, GP__SORT_KEYS>(d_out, (K *)NULL, d_in, (const K *)NULL, n, 1, s);         \
    }                                                                                                  \
    SCOPE cudaError_t gp_argsort_##name(uint64_t *d_idx, const K *d_in, size_t n, cudaStream_t s)        \
    {                                                                                                  \
        return gp__sort<K, uint64_t, GP__SORT_ARGSORT>((K *)NULL, d_idx, d_in, (const uint64_t *)NULL, n, 0, s); \
    }                                                                                                  \
    SCOPE cudaError_t gp_argsort_desc_##name(uint64_t *d_idx, const K *d_in, size_t n, cudaStream_t s)   \
    {                                                                                                  \
        return gp__sort<K, uint64_t, GP__SORT_ARGSORT>((K *)NULL, d_idx, d_in, (const uint64_t *)NULL, n, 1, s); \
    }

#define GP__DEFINE_SORT_PAIRS_HOST(SCOPE, name, K, V)                                                   \
    static_assert(sizeof(V) >= 1 && sizeof(V) <= 16, "GP_DEFINE_SORT_PAIRS: values of 1 to 16 bytes"); \
    SCOPE cudaError_t gp_sort_pairs_##name(K *d_keys_out, V *d_values_out, const K *d_keys, const V *d_values, \
                                           size_t n, cudaStream_t s)                                   \
    {                                                                                                  \
        return gp__sort<K, V, GP__SORT_PAIRS>(d_keys_out, d_values_out, d_keys, d_values, n, 0, s);     \
    }                                                                                                  \
    SCOPE cudaError_t gp_sort_pairs_desc_##name(K *d_keys_out, V *d_values_out, const K *d_keys,        \
                                                const V *d_values, size_t n, cudaStream_t s)           \
    {                                                                                                  \
        return gp__sort<K, V, GP__SORT_PAIRS>(d_keys_out, d_values_out, d_keys, d_values, n, 1, s);     \
    }

/* GP_DEFINE_SORT_PAIRS(name, K, V): a stable radix sort of keys K (uint16_t, int32_t,
 * uint32_t, int64_t, uint64_t, float, double; also 8-bit and int16_t) carrying values of
 * any type V of 1 to 16 bytes, at file scope of a .cu file:
 *   cudaError_t gp_sort_pairs_<name>(K *d_keys_out, V *d_values_out, const K *d_keys,
 *                                    const V *d_values, size_t n, cudaStream_t s)
 *   cudaError_t gp_sort_pairs_desc_<name>(... the same ...)
 *       Ascending (descending) by key, floats in IEEE 754 totalOrder; equal keys keep
 *       their input order, so the result is unique. Either output may be its input (in
 *       place); any other overlap gives cudaErrorInvalidValue, as does NULL with n > 0.
 *       Asynchronous on s; scratch from the pool (see the top of this file).
 * _EXTERN: external linkage, C names (the definition for GP_DECLARE_SORT_PAIRS). */
#define GP_DEFINE_SORT_PAIRS(name, K, V) GP__DEFINE_SORT_PAIRS_HOST([[maybe_unused]] static, name, K, V)
#define GP_DEFINE_SORT_PAIRS_EXTERN(name, K, V) GP__DEFINE_SORT_PAIRS_HOST(extern "C", name, K, V)

#else /* not CUDA */
#define GP_DEFINE_SORT_PAIRS(name, K, V) GP__NEEDS_CUDA(GP_DEFINE_SORT_PAIRS)
#define GP_DEFINE_SORT_PAIRS_EXTERN(name, K, V) GP__NEEDS_CUDA(GP_DEFINE_SORT_PAIRS_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_CUH */
