/* detail/device/scan.cuh -- device-wide exclusive and inclusive scan: one pass over the data
 * (n elements read, n written), in index order, deterministic, in place allowed, no static
 * device state, optionally starting from a carry-in value on the device. Level 3: needs
 * block_scan.cuh, warp.cuh, launch.cuh (the device-wide skeleton), ops.cuh and common.cuh.
 * The plan and scratch arithmetic are plain host/device code, tested on the host.
 *
 * Registers. Each scanning thread holds 64 bytes of its tile (16 floats: four 16-byte
 * vectors). Warp w owns a contiguous run of the tile, held warp-striped (row j, lane l:
 * vector j*32+l), so every load and store instruction moves 512 contiguous bytes. Each
 * lane folds its vector, each row is a warp scan, rows chain by their totals, the warps
 * by their totals. Tiles are aligned to 16-byte boundaries of the input (the first tile
 * starts `pad` elements before d_in and masks them), so whole tiles move as 16-byte
 * vectors. The tile's exclusive prefix comes from:
 *   - ONE_BLOCK (n <= 4K floats on sm_90, 16K before): one tile, as many warps as hold
 *     elements: nothing to wait for.
 *   - CLUSTER (sm_90+, up to 16 tiles of up to 1024 threads, 2^18 floats, where the device
 *     takes clusters of 16, else 8 and 2^17): the blocks of one cluster swap tile totals
 *     through distributed shared memory. One launch, no scratch, no memset. The elements
 *     are spread over all the cluster's blocks wherever each still gets a few warps' worth:
 *     small scans are bound by what each SM has in flight, so more SMs moving less each
 *     finish sooner.
 *   - GRID: a persistent look-ahead scan (below): a small kernel clears the scratch and the
 *     scan kernel is launched as its programmatic dependent (sm_90+), so that launch overlaps it.
 * On sm_90 every call is chained (launch.cuh): its first kernel waits for the stream's
 * earlier work at its first instruction, so it can be placed on the GPU while that work
 * (the previous call, often) finishes.
 *
 * GRID, persistent look-ahead. As many blocks as fit (two per SM on an H100: registers),
 * each looping over tiles of 256 x 64 bytes that it takes from an atomic counter, so
 * tiles are handed out in increasing order, and only to blocks already running: a block
 * waits only on tiles taken before its own, by blocks that hold an SM and publish their
 * totals without waiting on anything. That is what makes a persistent grid safe when
 * other kernels hold most SMs (blocks that never start take no tiles). Each block has
 * four roles:
 *   - a producer warp (one lane) takes the next tile index and starts a bulk copy
 *     (cp.async.bulk) of the tile into a ring of shared-memory stages, completing on the
 *     stage's mbarrier; the ring keeps several tiles per block in flight whatever the
 *     scanning warps are doing (that, not registers, is what reaches the copy rate);
 *   - a reduce warp folds each tile as soon as it lands and publishes its total A(t) to
 *     a status word; it never waits on a prefix, so totals never chain (a first version
 *     let the scanning warps publish A(t) after their previous tile's prefix: every
 *     block then advanced in lock step with the slowest, at a fifth of the copy rate);
 *   - 8 scanning warps move a stage into registers, scan it, wait for the tile's
 *     exclusive prefix, add it, give the stage back and store from registers;
 *   - a look-ahead warp folds published tile totals into a running prefix (two warps
 *     for types of 8 bytes and more: gp__scan_look_ahead).
 * Tiles publish only totals, never inclusive prefixes, so nothing ever chains through
 * another tile's prefix. The association is fixed by tile indices alone: batch k is tiles
 * 32k .. 32k+31, B(k) is their totals reduced by one warp in a fixed tree (lane l takes
 * tile 32k+l; gp__warp_reduce), and
 *   Q(k)     = B(0) OP B(1) OP ... OP B(k)        (left to right)
 *   prefix t = Q(k-1) OP R(A(32k) .. A(t-1))      (k = t / 32; R: the same tree, missing
 *                                                  lanes the identity)
 * Every block's look-ahead warp computes the same Q for itself (it keeps Q between its
 * tiles and folds only the batches since its last tile: about (blocks / 32) batches,
 * all their loads in flight at once, their trees reduced together), so the result is
 * bitwise the same on every run, and in index order for operators that do not commute. A status word is 64 bits:
 * a nonzero flag in the high half and 32 bits of the value in the low half; a type of
 * more than 4 bytes uses several words, each flagged, so a reader needs no fence (every
 * word is written once, with a relaxed gpu-scope store, and read the same way). */
#ifndef GPUPRIMS_DETAIL_SCAN_CUH
#define GPUPRIMS_DETAIL_SCAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

/* GP_DECLARE_SCAN(name, T): the host functions' declarations, with C linkage, for C and
 * CUDA files alike (the definitions are GP_DEFINE_SCAN_EXTERN in one .cu file). */
#define GP_DECLARE_SCAN(name, T)                                                                        \
    GP__EXTERN_C cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s); \
    GP__EXTERN_C cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s); \
    GP__EXTERN_C cudaError_t gp_exclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                           cudaStream_t s);                             \
    GP__EXTERN_C cudaError_t gp_inclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                           cudaStream_t s);

#ifdef __CUDACC__
#include "../warp/warp.cuh"
#include "../block/block_scan.cuh"
#include "../util/launch.cuh"
#include "../util/scratch.cuh"
#include "../util/mbarrier.cuh"
#include "../agent/single_pass.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured). */
#ifndef GP__SCAN_BLOCK_BIG
#define GP__SCAN_BLOCK_BIG 1024     /* ONE_BLOCK and CLUSTER modes: threads per block */
#endif
#ifndef GP__SCAN_THREAD_BYTES
#define GP__SCAN_THREAD_BYTES 64    /* bytes each thread holds in registers: 4 x 16-byte vectors */
#endif
#ifndef GP__SCAN_WARPS
#define GP__SCAN_WARPS 8            /* GRID mode: scanning warps per block (tile: 256 x 64 bytes) */
#endif
#ifndef GP__SCAN_STAGES
#define GP__SCAN_STAGES 4           /* GRID mode: shared-memory ring depth, in tiles */
#endif
#ifndef GP__SCAN_RAMP
#define GP__SCAN_RAMP 3             /* GRID mode: ring stages first filled one at a time (below) */
#endif
#ifndef GP__SCAN_POLL_NS
#define GP__SCAN_POLL_NS 64         /* look-ahead: sleep after a polling round that found nothing */
#endif
/* Small scans (ONE_BLOCK, CLUSTER) are bound by what each SM has in flight: on the H100 one
 * SM moving 32 KB in and out takes about 1 us longer than one moving 16 KB, 64 KB about 3 us
 * (bench/scan/probes/scan_small.cu), so they are spread over a cluster's SMs (16, or 8) as soon
 * as they outgrow one block of a few warps. */
#ifndef GP__SCAN_ONE_BLOCK_WARPS
#define GP__SCAN_ONE_BLOCK_WARPS 8  /* ONE_BLOCK up to this many warps of elements (4096 floats) */
#endif
#ifndef GP__SCAN_CLUSTER_MIN_WARPS
#define GP__SCAN_CLUSTER_MIN_WARPS 4 /* CLUSTER: at least this many warps of elements a block */
#endif
#ifndef GP__SCAN_MIN_BLOCKS
#define GP__SCAN_MIN_BLOCKS 2       /* GRID mode: blocks per SM the registers must allow */
#endif
#define GP__SCAN_STAGES_MAX 8
/* A probe's hook (bench/scan/probes/scan_trace.cu): GP__SCAN_TRACE(t, event) marks when the
 * grid kernel's roles reach each step of tile t (events 6 and 7: block t starts, after and
 * before its wait for the stream's earlier work). It expands to nothing unless the probe
 * defines it before including gpuprims.cuh. */
#ifndef GP__SCAN_TRACE
#define GP__SCAN_TRACE(t, event) ((void)0)
#endif
#define GP__SCAN_BLOCK (GP__SCAN_WARPS * 32)        /* GRID mode: scanning threads */
#define GP__SCAN_THREADS (GP__SCAN_BLOCK + 128)     /* + producer, look-ahead, reduce, second look-ahead warps */
#define GP__SCAN_BATCH 32           /* look-ahead: tiles per batch (one warp, one tree) */

/* Elements per 16-byte vector (1 for types that do not divide 16), vectors per thread,
 * and elements per thread, for an element of `elem` bytes. */
static constexpr GP__HD unsigned gp__scan_vec(size_t elem)
{
    return elem <= 16 && 16 % elem == 0 ? (unsigned)(16 / elem) : 1u;
}
static constexpr GP__HD unsigned gp__scan_rows(size_t elem)
{
    return GP__SCAN_THREAD_BYTES / (gp__scan_vec(elem) * elem) > 0
               ? (unsigned)(GP__SCAN_THREAD_BYTES / (gp__scan_vec(elem) * elem)) : 1u;
}
static constexpr GP__HD unsigned gp__scan_items(size_t elem) { return gp__scan_vec(elem) * gp__scan_rows(elem); }
/* 64-bit status words per tile total: 32 bits of value each */
static constexpr GP__HD unsigned gp__scan_words(size_t elem) { return gp__status_words(elem); }

typedef struct gp__scan_plan {
    size_t n;       /* elements */
    size_t pad;     /* masked elements before d_in in tile 0 (to a 16-byte boundary of d_in) */
    size_t tile;    /* elements per tile: block * items per thread */
    size_t tiles;
    unsigned block; /* scanning threads per block: GP__SCAN_BLOCK (GRID), up to GP__SCAN_BLOCK_BIG (others) */
    int in_vec;     /* whole tiles of the input may move as 16-byte vectors (and bulk copies) */
    int vec_ok;     /* ... and so may the output (equally placed against 16 bytes) */
    int mode;       /* GP__ONE_BLOCK, GP__CLUSTER or GP__GRID (launch.cuh) */
} gp__scan_plan;

/* How a scan of n elements of `elem` bytes from address `in` to address `out` is tiled
 * (see the top of this file). cluster_ok: clusters can be launched and the kernel was
 * built for them. one_block_warps and min_warps (the bench's ladder varies them): ONE_BLOCK
 * up to this many warps of elements, and CLUSTER blocks of at least min_warps warps, at most
 * cluster_max blocks (8, or 16 where the device allows: gp__cluster_limit). */
static inline GP__HD gp__scan_plan gp__scan_make_plan(uintptr_t in, uintptr_t out, size_t n, size_t elem,
                                                      int cluster_ok,
                                                      size_t one_block_warps = GP__SCAN_ONE_BLOCK_WARPS,
                                                      size_t min_warps = GP__SCAN_CLUSTER_MIN_WARPS,
                                                      size_t cluster_max = GP__CLUSTER_MAX)
{
    gp__scan_plan p;
    const size_t mis = in % 16;
    p.n = n;
    /* Vectors need a type whose size divides 16 sitting on its own size (a 16-byte struct
     * at a 4-byte boundary never reaches one); the output moves as vectors only if it is
     * placed as the input is. Otherwise elements move one by one. */
    p.in_vec = gp__scan_vec(elem) * elem == 16 && mis % elem == 0;
    p.vec_ok = p.in_vec && out % 16 == mis;
    p.pad = p.in_vec ? mis / elem : 0;
    /* ONE_BLOCK and CLUSTER count in warps of 32 * items elements (512 floats). */
    const size_t per_warp = 32 * (size_t)gp__scan_items(elem), warps = gp__ceil_div(n + p.pad, per_warp);
    const size_t big_warps = GP__SCAN_BLOCK_BIG / 32;
    if (warps <= gp__min_size(one_block_warps, big_warps) || (!cluster_ok && warps <= big_warps)) {
        p.mode = GP__ONE_BLOCK; /* only the warps that hold elements: less to wait for */
        p.block = (unsigned)warps * 32;
    } else if (cluster_ok && warps <= cluster_max * big_warps) {
        /* spread over as many SMs as the cluster allows, at least min_warps warps a block:
         * a small scan is latency-bound, and each SM then moves fewer bytes (see the tuning) */
        size_t blocks = gp__min_size(cluster_max, gp__ceil_div(warps, min_warps < 1 ? 1 : min_warps));
        blocks = gp__max_size(blocks, gp__ceil_div(warps, big_warps));
        const size_t block_warps = gp__ceil_div(warps, blocks);
        p.mode = GP__CLUSTER;
        p.block = (unsigned)block_warps * 32;
    } else {
        p.mode = GP__GRID;
        p.block = GP__SCAN_BLOCK;
    }
    p.tile = (size_t)p.block * gp__scan_items(elem);
    p.tiles = gp__ceil_div(n + p.pad, p.tile);
    return p;
}

/* GRID-mode scratch, a status region (util/status.cuh): the tile counter and the done
 * counter (0 at the start, reset by the last block), then the tiles' status words, tagged
 * with the call's epoch (agent/single_pass.cuh). */
static inline GP__HD size_t gp__scan_status_offset(void) { return GP__SCRATCH_ALIGN; }
static inline GP__HD size_t gp__scan_scratch_bytes(size_t tiles, size_t elem)
{
    return gp__scan_status_offset() + tiles * gp__scan_words(elem) * 8;
}


/* ---- register tiles ------------------------------------------------------------------------ */

/* Moves one thread's ROWS vectors of VEC elements between registers x (row j at
 * x[j*VEC]) and memory: row j starts at virtual element v0 + j * 32 * VEC (= real index +
 * pad), so a warp's row is 32 consecutive vectors: one load or store instruction covers
 * 512 contiguous bytes. As 16-byte vectors when `vec` (the whole tile is in range and the
 * pointer allows it), else element by element with bounds (masked elements load as the
 * identity and are never stored). */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_load(typename Op::type (&x)[ROWS * VEC], const typename Op::type *in,
                                                    size_t v0, const gp__scan_plan &p, bool vec)
{
    typedef typename Op::type T;
    if constexpr (VEC * sizeof(T) == 16) {
        if (vec) {
            const uint4 *src = reinterpret_cast<const uint4 *>(in + (v0 - p.pad));
            uint4 w[ROWS];
#pragma unroll
            for (int j = 0; j < ROWS; j++) w[j] = src[j * 32];
            memcpy(x, w, sizeof w);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; j++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t v = v0 + (size_t)j * 32 * VEC + k;
            x[j * VEC + k] = v >= p.pad && v - p.pad < p.n ? gp__load_elem(in + (v - p.pad)) : Op::identity();
        }
}

template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_store(typename Op::type *out, const typename Op::type (&x)[ROWS * VEC],
                                                     size_t v0, const gp__scan_plan &p, bool vec)
{
    typedef typename Op::type T;
    if constexpr (VEC * sizeof(T) == 16) {
        if (vec) {
            uint4 w[ROWS];
            memcpy(w, x, sizeof w);
            uint4 *dst = reinterpret_cast<uint4 *>(out + (v0 - p.pad));
#pragma unroll
            for (int j = 0; j < ROWS; j++) dst[j * 32] = w[j];
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; j++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t v = v0 + (size_t)j * 32 * VEC + k;
            if (v >= p.pad && v - p.pad < p.n) gp__store_elem(out + (v - p.pad), x[j * VEC + k]);
        }
}

/* The warp's scan of its registers: per row, the lane's vector total, a warp scan and the
 * row's total; rows chain in order. lane_prefix[j]: the warp's elements before vector
 * (j, lane). Returns the warp's total. The lanes must be converged. */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ typename Op::type gp__scan_warp_rows(const typename Op::type (&x)[ROWS * VEC],
                                                                      typename Op::type (&lane_prefix)[ROWS])
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
    T carry = Op::identity();
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T v = x[j * VEC];
#pragma unroll
        for (int k = 1; k < VEC; k++) v = Op::apply(v, x[j * VEC + k]);
        const T incl = gp__warp_inclusive_scan<Op>(v);
        const T row_total = gp__shfl<GP__SHFL_IDX>(incl, 31);
        const T left = gp__shfl<GP__SHFL_UP>(incl, 1);
        if (j == 0) {
            lane_prefix[0] = gp__select<T>(lane == 0, Op::identity(), left);
            carry = row_total;
        } else {
            lane_prefix[j] = gp__select<T>(lane == 0, carry, Op::apply(carry, left));
            carry = Op::apply(carry, row_total);
        }
    }
    return carry;
}

/* Outputs in place in x: base OP (the warp's elements before each one), inclusive or not. */
template <class Op, int ROWS, int VEC>
static __device__ __forceinline__ void gp__scan_finish(typename Op::type (&x)[ROWS * VEC],
                                                      const typename Op::type (&lane_prefix)[ROWS],
                                                      typename Op::type base, int inclusive)
{
    typedef typename Op::type T;
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T run = Op::apply(base, lane_prefix[j]);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const T next = Op::apply(run, x[j * VEC + k]);
            x[j * VEC + k] = inclusive ? next : run;
            run = next;
        }
    }
}

/* ---- ONE_BLOCK and CLUSTER: one tile per block, no scratch --------------------------------- */

/* Warp w owns the 32 * ITEMS contiguous elements from virtual index
 * blockIdx.x * TILE + w * 32 * ITEMS (virtual = real + pad), as ROWS rows of 32 vectors.
 * init (may be NULL): a value on the device that comes before element 0. */
template <class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    gp__scan_small_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p,
                          const typename Op::type *init, int inclusive)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS };
    const size_t TILE = p.tile, tile = blockIdx.x; /* p.block (= blockDim.x) threads */
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();
    gp__chain_wait(); /* launched chained (launch.cuh): nothing is read or written before it */
    const size_t v0 = tile * TILE + (size_t)warp * 32 * ITEMS + (size_t)lane * VEC;
    const bool whole = p.vec_ok && tile * TILE >= p.pad && (tile + 1) * TILE - p.pad <= p.n;
    T x[ITEMS];
    gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, whole);
    /* Reconverge before the shuffles: after the element-by-element path's branches the
     * lanes may still run apart, and nvcc then takes a slow "collective" path for every
     * shuffle (ncu: 30% of stalls were branch resolving, every shuffle one at a time). */
    __syncwarp();
    T lane_prefix[ROWS];
    const T carry = gp__scan_warp_rows<Op, ROWS, VEC>(x, lane_prefix);
    T agg;
    T base = gp__block_scan_warp_totals<Op>(carry, &agg); /* the warps before this one */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ T s_agg, s_prefix;
    if (p.mode == GP__CLUSTER) { /* the cluster is the whole grid: rank = blockIdx.x */
        if (threadIdx.x == 0) s_agg = agg;
        __cluster_barrier_arrive(); /* release: s_agg is visible cluster-wide */
        __cluster_barrier_wait();
        if (warp == 0) {
            T v = Op::identity();
            if (lane < blockIdx.x) v = *static_cast<T *>(__cluster_map_shared_rank(&s_agg, lane));
            __syncwarp();
            const T pre = gp__warp_reduce<Op>(v); /* blocks before this one, fixed tree */
            if (lane == 0) s_prefix = pre;
        }
        __syncthreads();
        if (blockIdx.x > 0) base = Op::apply(s_prefix, base);
    }
#endif
    if (init) base = Op::apply(*init, base);
    gp__scan_finish<Op, ROWS, VEC>(x, lane_prefix, base, inclusive);
    gp__scan_store<Op, ROWS, VEC>(out, x, v0, p, whole);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (p.mode == GP__CLUSTER) { /* no block exits while another may still read its s_agg */
        __cluster_barrier_arrive_relaxed();
        __cluster_barrier_wait();
    }
#endif
}

/* ---- GRID: the persistent look-ahead scan ---------------------------------------------------- */

/* The look-ahead warp's state: Q = B(0) OP .. OP B(done - 1) (see the top of this file). */
template <class T>
struct gp__scan_ahead {
    T q;
    size_t done;    /* batches folded into q */
    unsigned round; /* rounds so far (two look-ahead warps: which exchange buffer) */
};

/* Polls the totals of tiles first + 32 b for the slots b set in this lane's `pending`
 * until all are published, all loads of a round in flight together; v[b] gets them. The
 * warp returns together. */
template <class Op, int NB>
static __device__ __forceinline__ void gp__scan_poll(const uint64_t *status, uint32_t epoch, size_t first,
                                                    unsigned pending,
                                                    typename Op::type (&v)[NB])
{
    typedef typename Op::type T;
    enum { W = gp__scan_words(sizeof(T)) };
    for (;;) {
        uint64_t w[NB][W];
#pragma unroll
        for (int b = 0; b < NB; b++)
            if (pending >> b & 1)
#pragma unroll
                for (int c = 0; c < W; c++) w[b][c] = gp__ld_relaxed_u64(status + (first + 32 * (size_t)b) * W + c);
        const unsigned before = pending;
#pragma unroll
        for (int b = 0; b < NB; b++)
            if (pending >> b & 1) {
                bool ready = true;
                uint32_t bits[W];
#pragma unroll
                for (int c = 0; c < W; c++) {
                    ready &= gp__status_ready(w[b][c], epoch);
                    bits[c] = (uint32_t)w[b][c];
                }
                if (ready) {
                    memcpy(&v[b], bits, sizeof(T));
                    pending &= ~(1u << b);
                }
            }
        if (!__any_sync(GP__FULL_MASK, pending)) break;
#if GP__SCAN_POLL_NS > 0
        if (__all_sync(GP__FULL_MASK, pending == before)) __nanosleep(GP__SCAN_POLL_NS);
#endif
    }
    __syncwarp(); /* converged for the shuffles that follow */
}

/* Batches a look-ahead warp polls in a round: 16 status words a lane (24 from 5 words up). */
static constexpr GP__HD unsigned gp__scan_nb(size_t elem)
{
    const unsigned w = gp__scan_words(elem);
    return w == 1 ? 16 : w == 2 ? 8 : w <= 4 ? 4 : w >= 24 ? 1 : 24 / w;
}
/* Look-ahead warps a block runs for a type: two from 8 bytes up (below). */
static constexpr GP__HD unsigned gp__scan_aheads(size_t elem) { return gp__scan_words(elem) >= 2 ? 2u : 1u; }

enum { GP__SCAN_TREES_APART = 1, GP__SCAN_ONE_AHEAD = 2 }; /* the kernel's flags (knobs) */

/* Tile t's exclusive prefix, by the look-ahead warps (every lane of warp 0 gets it); s holds
 * Q through the batches this block folded for its earlier tiles. Tile 0: the identity.
 * Rounds of up to `parts` x NB batches; the partial batch k rides in the last round when
 * there is room, so a tile usually costs one round trip.
 *
 * A round covers 16 status words a lane: 512 tiles of 4-byte types, 256 of 8-byte ones,
 * 128 of 16-byte ones, where a block's consecutive tiles lie about 264 apart on the H100
 * (2 blocks per SM). One warp then took two rounds a tile for 8-byte types and three for
 * 16-byte ones: a float4 sum reached 67% of copy, in 1080 us at 2^26 on the H100 and the
 * H200 alike (bound by the round trips, not by memory), f64 78% on the H200. More slots a
 * round need registers the kernel does not have (5, 6 or 8 batches of 16-byte types
 * spilled and ran 40-100% slower), so from 8 bytes up a second warp polls the next NB
 * batches of each round: part 1 reduces its slots' trees and hands them to part 0 through
 * shared memory (`xchg`, two buffers by round parity; one named barrier a round), and part
 * 0 folds them after its own, in batch order: the same trees and the same order as one
 * warp's, so the same bits. Both warps track s.done alike; only part 0 keeps s.q.
 * Tried and not kept (H100): batch totals, B(k) published once by the warp whose tile
 * starts batch k + 1 and read speculatively, with the newest tiles, by warps that need
 * more batches than a round covers. The totals were seldom there in time (the batches a
 * warp needs are the ones every warp is reducing at that moment), and fitting the extra
 * words took a batch from each round: float4 2^26 1417 us against one warp's 1080, f64
 * 2^27 817 against 733. Every warp publishing every batch it reduced: f32 2^28 1300 us against
 * 728 (same-address stores queue at the L2). */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_look_ahead(const uint64_t *status, uint32_t epoch,
                                                                       size_t t,
                                                                       gp__scan_ahead<typename Op::type> &s,
                                                                       unsigned flags, unsigned part_id,
                                                                       unsigned parts, typename Op::type *xchg)
{
    typedef typename Op::type T;
    enum { NB = gp__scan_nb(sizeof(T)) };
    const unsigned lane = gp__lane_id();
    const size_t k = t / GP__SCAN_BATCH;
    const unsigned r = (unsigned)(t % GP__SCAN_BATCH); /* tiles of batch k before t */
    for (;;) {
        const size_t left = k - s.done, cap = (size_t)parts * NB;
        const unsigned nb = left < cap ? (unsigned)left : (unsigned)cap; /* whole batches this round */
        const bool part = left < cap && r > 0;                            /* and the partial batch (slot nb) */
        if (nb == 0 && !part) return k == 0 ? Op::identity() : s.q;
        /* this warp's slots: batches s.done + base + b */
        const unsigned base = part_id * NB;
        const unsigned mine = nb > base ? (nb - base < NB ? nb - base : (unsigned)NB) : 0u;
        const bool mine_part = part && nb >= base && nb < base + NB;
        T v[NB]; /* slots not polled (lanes of the partial batch from r on, unused slots): identity */
#pragma unroll
        for (int b = 0; b < NB; b++) v[b] = Op::identity();
        const unsigned pending = (mine >= 32 ? ~0u : (1u << mine) - 1) | (mine_part && lane < r ? 1u << (nb - base) : 0u);
        gp__scan_poll<Op, NB>(status, epoch, (s.done + base) * GP__SCAN_BATCH + lane, pending, v);
        /* every slot's tree at once, their shuffles overlapping: one tree after another
         * (trees apart, as the first versions did) is five dependent shuffles a batch, half
         * a microsecond or so for a round of 8, on each tile's path; the same trees, so the
         * same result */
        if (flags & GP__SCAN_TREES_APART) {
#pragma unroll
            for (int b = 0; b < NB; b++)
                if (b <= (int)mine) v[b] = gp__warp_reduce<Op>(v[b]);
        } else {
            gp__warp_reduce_each<Op, NB>(v);
        }
        T *buf = xchg + (s.round & 1) * NB;
        s.round++;
        if (parts > 1) {
            if (part_id == 1 && lane == 0)
#pragma unroll
                for (int b = 0; b < NB; b++) buf[b] = v[b];
            asm volatile("bar.sync 2, 64;" ::: "memory"); /* the two look-ahead warps */
            if (part_id == 1) {
                s.done += nb;
                if (part) return Op::identity(); /* part 0's answer is the one used */
                continue;
            }
        }
        T partial = Op::identity();
#pragma unroll
        for (int b = 0; b < NB; b++) {
            if (b < (int)nb) s.q = s.done + b == 0 ? v[b] : Op::apply(s.q, v[b]);
            if (part && b == (int)nb) partial = v[b];
        }
        if (parts > 1)
#pragma unroll
            for (int b = 0; b < NB; b++) {
                const T u = buf[b];
                if (NB + b < (int)nb) s.q = Op::apply(s.q, u); /* s.done + NB + b > 0 */
                if (part && NB + b == (int)nb) partial = u;
            }
        s.done += nb;
        if (part) return k == 0 ? partial : Op::apply(s.q, partial);
    }
}

/* A tile's total by one warp, in index order: lane l folds the l-th 32nd of the tile (R
 * units of VEC elements), then the ordered butterfly (gp__warp_reduce). Lane l visits its
 * run starting at unit l and wrapping, so from the stage the lanes' 16-byte reads fall in
 * different banks; the units before the wrap point are folded apart and put first, which
 * keeps index order. A unit comes from the stage (`stage` not NULL) or from global memory
 * element by element with bounds (partial tiles, types or placements without vectors);
 * the association is the same either way, so the result does not depend on the path. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_tile_total(const unsigned char *stage,
                                                                       const typename Op::type *in, size_t t,
                                                                       const gp__scan_plan &p)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           R = GP__SCAN_BLOCK * ROWS / 32 };
    /* G units at a time, their loads issued before the serial fold needs the first (one
     * unit at a time, a traced tile's total took 1.1-1.3 us from its landing to its
     * publication at 2^20-2^24 floats; in groups, 0.9-1.2) */
    enum { G = R % 8 == 0 ? 8 : R % 4 == 0 ? 4 : R % 2 == 0 ? 2 : 1 };
    const unsigned lane = gp__lane_id(), start = lane % R;
    const size_t u0 = t * (size_t)(GP__SCAN_BLOCK * ROWS) + (size_t)lane * R; /* first unit of the run */
    T head = Op::identity(), tail = Op::identity();
#pragma unroll 1
    for (unsigned r0 = 0; r0 < R; r0 += G) {
        T f[G];
#pragma unroll
        for (int g = 0; g < G; g++) {
            const unsigned k = (r0 + g + start) % R;
            T e[VEC];
            bool from_stage = false;
            if constexpr (VEC * sizeof(T) == 16) {
                if (stage) {
                    const uint4 w = reinterpret_cast<const uint4 *>(stage)[(size_t)lane * R + k];
                    memcpy(e, &w, sizeof w);
                    from_stage = true;
                }
            }
            if (!from_stage)
#pragma unroll
                for (int q = 0; q < VEC; q++) {
                    const size_t v = (u0 + k) * VEC + q;
                    e[q] = v >= p.pad && v - p.pad < p.n ? gp__load_elem(in + (v - p.pad)) : Op::identity();
                }
            f[g] = e[0];
#pragma unroll
            for (int q = 1; q < VEC; q++) f[g] = Op::apply(f[g], e[q]);
        }
#pragma unroll
        for (int g = 0; g < G; g++) {
            if ((r0 + g + start) % R >= start) tail = Op::apply(tail, f[g]);
            else head = Op::apply(head, f[g]);
        }
    }
    __syncwarp();
    return gp__warp_reduce<Op>(Op::apply(head, tail));
}

/* Threads: GP__SCAN_BLOCK scanning threads, then the producer, look-ahead and reduce
 * warps. Dynamic shared memory: `stages` tiles (0 when bulk copies are off: the scanning
 * warps then load from global memory themselves). */
template <class Op>
__global__ void __launch_bounds__(GP__SCAN_THREADS, GP__SCAN_MIN_BLOCKS)
    gp__scan_grid_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p, char *scratch,
                         const typename Op::type *init, int inclusive, unsigned stages, int bulk, unsigned flags,
                         unsigned ramp, uint32_t epoch)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           WARPS = GP__SCAN_WARPS, S = GP__SCAN_STAGES_MAX };
    const size_t TILE = (size_t)GP__SCAN_BLOCK * ITEMS;
    extern __shared__ __align__(128) unsigned char gp__scan_ring[];
    __shared__ uint64_t full[S], taken[S], ready[S], reduced[S], empty[S];
    __shared__ unsigned long long s_tile[S], s_ahead_tile[2];
    __shared__ T s_prefix[S], s_warp[S][WARPS], s_xchg[2 * gp__scan_nb(sizeof(T))];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__scan_status_offset());
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    /* per stage: full (data in, or the tile index for tiles loaded from global), taken
     * (tile index known: the look-ahead starts before the data lands), ready (prefix
     * known), reduced (the reduce warp has read the tile: until then nobody may store over
     * it in place), empty (the scanning warps and the reduce warp are done with the stage) */
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages; s++) {
            gp__mbar_init(&full[s], 1);
            gp__mbar_init(&taken[s], 1);
            gp__mbar_init(&ready[s], 1);
            gp__mbar_init(&reduced[s], 1);
            gp__mbar_init(&empty[s], (WARPS + 1) * 32); /* every thread that read the stage */
        }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); /* visible to the copy engine */
#endif
    }
    if (threadIdx.x == 0) GP__SCAN_TRACE(blockIdx.x, 7);
    gp__chain_wait(); /* the stream's earlier work is done: it may have used this status region */
    __syncthreads();
    if (threadIdx.x == 0) GP__SCAN_TRACE(blockIdx.x, 6);

    if (warp == WARPS) { /* producer */
        if (lane == 0)
            for (unsigned i = 0;; i++) {
                const unsigned s = i % stages;
                if (i >= stages) gp__mbar_wait(&empty[s], (i / stages - 1) & 1);
                /* the ramp: stage i (i <= ramp) is taken once stage i - 1 has landed, so that the
                 * grid's first tiles land, and the chain of prefixes starts, before the rest
                 * of the ring is in flight */
                else if (i > 0 && i <= ramp) gp__mbar_wait(&full[i - 1], 0);
                const unsigned long long t = atomicAdd(counter, 1ull);
                s_tile[s] = t;
                if (t < p.tiles) GP__SCAN_TRACE(t, 0);
                gp__mbar_arrive(&taken[s]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
                const bool whole = t < p.tiles && t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
                if (bulk && whole && p.in_vec)
                    gp__bulk_load(gp__scan_ring + (size_t)s * TILE * sizeof(T), in + (t * TILE - p.pad),
                                  (unsigned)(TILE * sizeof(T)), &full[s]);
                else
#endif
                    gp__mbar_arrive(&full[s]);
                if (t >= p.tiles) break;
            }
        /* every block's producer has taken its last tile: the last one back resets the
         * counters for the next call on this region (status memory) */
        if (lane == 0) gp__last_block_reset(counter + 1, counter, 1);
        return;
    }
    if (warp == WARPS + 1 || warp == WARPS + 3) { /* look-ahead, parts 0 and 1 */
        const unsigned part_id = warp == WARPS + 3;
        const unsigned parts = flags & GP__SCAN_ONE_AHEAD ? 1u : gp__scan_aheads(sizeof(T));
        if (part_id >= parts) return;
        gp__scan_ahead<T> ahead = {Op::identity(), 0, 0};
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            unsigned long long t = 0;
            if (part_id == 0 && lane == 0) { /* one reader: the slot is rewritten once the stage's readers are done */
                gp__mbar_wait(&taken[s], (i / stages) & 1);
                t = s_tile[s];
                if (parts > 1) s_ahead_tile[i & 1] = t; /* for part 1: two slots, as part 0 may be a tile ahead */
            }
            if (parts > 1) {
                asm volatile("bar.sync 2, 64;" ::: "memory"); /* the two look-ahead warps */
                if (part_id == 1 && lane == 0) t = s_ahead_tile[i & 1];
            }
            t = __shfl_sync(GP__FULL_MASK, t, 0);
            if (t >= p.tiles) break;
            const T pre = gp__scan_look_ahead<Op>(status, epoch, t, ahead, flags, part_id, parts, s_xchg);
            if (part_id == 0 && lane == 0) {
                s_prefix[s] = pre;
                GP__SCAN_TRACE(t, 3);
                gp__mbar_arrive(&ready[s]);
            }
        }
        return;
    }

    if (warp == WARPS + 2) { /* reduce: publishes each tile's total as soon as its data is in,
                              * never waiting on a prefix, so no chain forms through them */
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            gp__mbar_wait(&full[s], (i / stages) & 1);
            const unsigned long long t = s_tile[s];
            if (t >= p.tiles) break;
            if (lane == 0) GP__SCAN_TRACE(t, 1);
            const bool whole = t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
            const unsigned char *stage = bulk && whole && p.in_vec ? gp__scan_ring + (size_t)s * TILE * sizeof(T) : NULL;
            const T agg = gp__scan_tile_total<Op>(stage, in, t, p);
            if (lane == 0) {
                gp__status_publish<T>(status, t, agg, epoch);
                GP__SCAN_TRACE(t, 2);
                gp__mbar_arrive(&reduced[s]);
            }
            gp__mbar_arrive(&empty[s]); /* every lane, after its own reads of the stage */
        }
        return;
    }

    /* scanning warps */
    T x[ITEMS];
    const T carry_in = init ? *init : Op::identity();
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= p.tiles) break;
        const bool whole = t * TILE >= p.pad && (t + 1) * TILE - p.pad <= p.n;
        const size_t v0 = t * TILE + (size_t)warp * 32 * ITEMS + (size_t)lane * VEC;
        if constexpr (VEC * sizeof(T) == 16) {
            if (bulk && whole && p.in_vec) { /* warp-striped out of the stage: conflict-free 16-byte reads */
                const uint4 *src = reinterpret_cast<const uint4 *>(gp__scan_ring + (size_t)s * TILE * sizeof(T)) +
                                   (size_t)warp * 32 * ROWS + lane;
                uint4 w[ROWS];
#pragma unroll
                for (int j = 0; j < ROWS; j++) w[j] = src[j * 32];
                memcpy(x, w, sizeof w);
            } else {
                gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, whole && p.in_vec);
            }
        } else {
            gp__scan_load<Op, ROWS, VEC>(x, in, v0, p, false);
        }
        __syncwarp();
        T lane_prefix[ROWS];
        const T carry = gp__scan_warp_rows<Op, ROWS, VEC>(x, lane_prefix);
        if (lane == 0) s_warp[s][warp] = carry;
        asm volatile("bar.sync 1, %0;" ::"r"(GP__SCAN_BLOCK) : "memory"); /* scanning warps only */
        /* the warps before this one, in warp order (the tile's total is the reduce warp's) */
        T before = Op::identity();
        if (warp > 0) {
            before = s_warp[s][0];
            for (unsigned w = 1; w < warp; w++) before = Op::apply(before, s_warp[s][w]);
        }
        gp__mbar_wait(&ready[s], parity);
        gp__mbar_wait(&reduced[s], parity); /* in place: the reduce warp may read this tile from global */
        if (threadIdx.x == 0) GP__SCAN_TRACE(t, 4);
        T base = before;
        if (t > 0) base = Op::apply(s_prefix[s], base);
        if (init) base = Op::apply(carry_in, base);
        gp__mbar_arrive(&empty[s]); /* every thread, after its reads of the stage, tile index, warp totals, prefix */
        gp__scan_finish<Op, ROWS, VEC>(x, lane_prefix, base, inclusive);
        gp__scan_store<Op, ROWS, VEC>(out, x, v0, p, whole && p.vec_ok);
        if (threadIdx.x == 0) GP__SCAN_TRACE(t, 5);
    }
}

/* ---- host side ------------------------------------------------------------------------------ */

/* Knobs for the bench's ladder (NULL: the defaults). stages: ring depth (1..8); bulk: 0
 * makes the scanning warps load from global memory themselves; blocks_per_sm: caps the
 * persistent grid (0: as many as fit); memset_clear: clear the scratch with
 * cudaMemsetAsync before the launch, as the first versions did; trees_apart: the
 * look-ahead reduces its batches one tree after another, as the first versions did;
 * unchained: launch without waiting in the kernel for the stream's earlier work, as the
 * first versions did; one_block_warps, min_warps, cluster_max: the small plan's limits
 * (0: the defaults; 32, 32 and 8: one full block per 16K floats, in clusters of up to 8,
 * as the first versions did); ramp: ring stages first filled one at a time (0: the default,
 * GP__SCAN_RAMP; -1: none, as the first versions did); one_ahead: one look-ahead warp for
 * every type, as the first versions had; per_call: scratch from the pool for each call, cleared
 * before the kernel, as before status memory. */
typedef struct gp__scan_knobs {
    unsigned stages;
    int bulk;
    int blocks_per_sm;
    int memset_clear;
    int trees_apart;
    int unchained;
    unsigned one_block_warps;
    unsigned min_warps;
    unsigned cluster_max;
    int ramp;
    int one_ahead;
    int per_call;
} gp__scan_knobs;

/* The host side of every gp_{exclusive,inclusive}_scan_<name>. d_init (may be NULL): a
 * value on the device that comes before d_in[0] (the exclusive scan's first output). */
template <class Op>
static cudaError_t gp__scan(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s,
                            int inclusive, const typename Op::type *d_init = NULL,
                            const gp__scan_knobs *knobs = NULL)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || n > SIZE_MAX / 2 / sizeof(T)) return cudaErrorInvalidValue;
    /* in place, or apart: a partial overlap would let one tile overwrite another's input */
    const uintptr_t a = (uintptr_t)d_in, b = (uintptr_t)d_out, bytes = n * sizeof(T);
    if (a != b && gp__ranges_overlap(d_in, bytes, d_out, bytes)) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const int sm90 = dev.cluster_ok; /* clusters and bulk copies: an sm_90+ device and sm_90 code */
    void (*small)(T *, const T *, gp__scan_plan, const T *, int) = gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>;
    /* loaded first: the cluster limit asks it, and every small scan runs it */
    GP__TRY(gp__kernel_load<gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>>());
    const unsigned cluster_max =
        !sm90 ? 0 : knobs && knobs->cluster_max ? knobs->cluster_max
                                                : gp__cluster_limit<gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>>(
                                                      dev.id, GP__SCAN_BLOCK_BIG);
    const gp__scan_plan p =
        gp__scan_make_plan(a, b, n, sizeof(T), sm90,
                           knobs && knobs->one_block_warps ? knobs->one_block_warps : GP__SCAN_ONE_BLOCK_WARPS,
                           knobs && knobs->min_warps ? knobs->min_warps : GP__SCAN_CLUSTER_MIN_WARPS, cluster_max);
    if (p.tiles > GP__GRID_MAX) return cudaErrorInvalidValue;

    gp__launch_shape shape = {p.mode, (unsigned)p.tiles, p.block, 0, 0, 0, 0, 0, 0};
    /* chained (sm_90): each kernel waits for the stream's earlier work at its first
     * instruction, so a call is placed on the GPU while the one before it finishes */
    shape.chain = sm90 && !(knobs && knobs->unchained);
    if (p.mode != GP__GRID)
        return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *, uint32_t) {
            return cudaLaunchKernelEx(&cfg, small, d_out, d_in, p, d_init, inclusive);
        });

    const unsigned stages = knobs && knobs->stages ? (knobs->stages < GP__SCAN_STAGES_MAX ? knobs->stages
                                                                                         : GP__SCAN_STAGES_MAX)
                                                   : GP__SCAN_STAGES;
    const int bulk = sm90 && p.in_vec && (knobs ? knobs->bulk : 1);
    const size_t ring = bulk ? (size_t)stages * p.tile * sizeof(T) : 0;
    const unsigned flags = (knobs && knobs->trees_apart ? (unsigned)GP__SCAN_TREES_APART : 0u) |
                           (knobs && knobs->one_ahead ? (unsigned)GP__SCAN_ONE_AHEAD : 0u);
    const unsigned ramp = knobs && knobs->ramp ? (knobs->ramp < 0 ? 0u : (unsigned)knobs->ramp) : GP__SCAN_RAMP;
    void (*kernel)(T *, const T *, gp__scan_plan, char *, const T *, int, unsigned, int, unsigned, unsigned,
                   uint32_t) =
        gp__scan_grid_kernel<Op>;
    shape.threads = GP__SCAN_THREADS;
    shape.smem_bytes = ring;
    shape.scratch_bytes = shape.scratch_zeroed = gp__scan_scratch_bytes(p.tiles, sizeof(T));
    shape.scratch_wait = sm90 && !(knobs && knobs->memset_clear); /* its sm_90 code calls gp__chain_wait() */
    shape.status_kept = knobs && (knobs->memset_clear || knobs->per_call) ? 0 : GP__STATUS_SCAN;
    /* loaded, and opted in to the deepest ring any configuration asks for (the same for
     * every call of this type), so the bench's knobs never leave it below what one needs */
    const size_t ring_max =
        sm90 && gp__scan_vec(sizeof(T)) * sizeof(T) == 16 ? (size_t)GP__SCAN_STAGES_MAX * p.tile * sizeof(T) : 0;
    GP__TRY(gp__kernel_load<gp__scan_grid_kernel<Op>>((int)ring_max));
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &base, void *scratch, uint32_t epoch) {
        int fit = 0;
        /* The occupancy query costs microseconds of host time, which a stream of mid-sized
         * calls would pay every time: the answer is kept per device and ring (host memory
         * only; a race computes it twice, harmlessly). */
        static int fit_cache[GP__MAX_DEVICES][GP__SCAN_STAGES_MAX + 1][2];
        const bool cacheable = dev.id >= 0 && dev.id < GP__MAX_DEVICES;
        if (cacheable) fit = __atomic_load_n(&fit_cache[dev.id][stages][bulk != 0], __ATOMIC_ACQUIRE);
        if (fit == 0) {
            GP__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, GP__SCAN_THREADS, ring));
            if (cacheable && fit > 0) __atomic_store_n(&fit_cache[dev.id][stages][bulk != 0], fit, __ATOMIC_RELEASE);
        }
        if (knobs && knobs->blocks_per_sm > 0 && knobs->blocks_per_sm < fit) fit = knobs->blocks_per_sm;
        if (fit < 1) return cudaErrorInvalidConfiguration;
        const size_t most = (size_t)fit * dev.sms;
        cudaLaunchConfig_t cfg = base;
        cfg.gridDim = dim3((unsigned)(p.tiles < most ? p.tiles : most));
        return cudaLaunchKernelEx(&cfg, kernel, d_out, d_in, p, (char *)scratch, d_init, inclusive, stages, bulk, flags,
                                  ramp, epoch);
    });
}

/* The host side of every gp_{exclusive,inclusive}_scan_init_<name>: the carry-in is
 * required, and must not lie in the output, which the grid's blocks overwrite while
 * others, started later, are still to read the carry (it may lie in the input when the
 * scan is not in place). */
template <class Op>
static cudaError_t gp__scan_init(typename Op::type *d_out, const typename Op::type *d_in, size_t n,
                                 const typename Op::type *d_init, cudaStream_t s, int inclusive)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_init == NULL || (d_out != NULL && n <= SIZE_MAX / sizeof(T) &&
                           gp__ranges_overlap(d_init, sizeof(T), d_out, n * sizeof(T))))
        return cudaErrorInvalidValue;
    return gp__scan<Op>(d_out, d_in, n, s, inclusive, d_init);
}

/* ---- instantiation (the shape every family shares: see the end of reduce.cuh) ----------- */
#define GP__DEFINE_SCAN_DEVICE(name, T, OPS) \
    GP__DEFINE_WARP_SCAN(name, T, OPS)        \
    GP__DEFINE_BLOCK_SCAN(name, T, OPS)

#define GP__DEFINE_SCAN_HOST(SCOPE, name, T, OPS)                                              \
    SCOPE cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<OPS>(d_out, d_in, n, s, 0);                                           \
    }                                                                                         \
    SCOPE cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<OPS>(d_out, d_in, n, s, 1);                                           \
    }                                                                                         \
    SCOPE cudaError_t gp_exclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                    cudaStream_t s)                           \
    {                                                                                         \
        return gp__scan_init<OPS>(d_out, d_in, n, d_init, s, 0);                              \
    }                                                                                         \
    SCOPE cudaError_t gp_inclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                    cudaStream_t s)                           \
    {                                                                                         \
        return gp__scan_init<OPS>(d_out, d_in, n, d_init, s, 1);                              \
    }

/* GP_DEFINE_SCAN(name, T, OP, IDENTITY): the scan family for a user's type and
 * associative operator (need not be commutative), at file scope of a .cu file:
 *   T gp_warp_inclusive_scan_<name>(T v)              lane l: v[0] OP ... OP v[l]      (warp.cuh)
 *   T gp_warp_exclusive_scan_<name>(T v, T *total)    lane l: v[0] OP ... OP v[l-1]    (warp.cuh)
 *   T gp_block_inclusive_scan_<name>(T v, T *agg)     by thread rank             (block_scan.cuh)
 *   T gp_block_exclusive_scan_<name>(T v, T *agg)                                (block_scan.cuh)
 *   T gp_block_scan_blelloch_<name>(T *s, unsigned n) padded shared-memory scan   (block_scan.cuh)
 *   cudaError_t gp_exclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       d_out[i] = d_in[0] OP ... OP d_in[i-1] (d_out[0] = IDENTITY)
 *   cudaError_t gp_inclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       d_out[i] = d_in[0] OP ... OP d_in[i]
 *   cudaError_t gp_exclusive_scan_init_<name>(T *d_out, const T *d_in, size_t n, const T *d_init, cudaStream_t s)
 *       d_out[i] = *d_init OP d_in[0] OP ... OP d_in[i-1] (d_out[0] = *d_init)
 *   cudaError_t gp_inclusive_scan_init_<name>(T *d_out, const T *d_in, size_t n, const T *d_init, cudaStream_t s)
 *       d_out[i] = *d_init OP d_in[0] OP ... OP d_in[i]
 *       The carry-in *d_init is one element in device memory, read on the device when the
 *       scan runs (so a previous call on s may compute it: chunked and multi-GPU scans);
 *       same speed as the plain scans. NULL d_init with n > 0, or d_init inside d_out's
 *       n elements, gives cudaErrorInvalidValue.
 *   All four: asynchronous on s; in place allowed (d_out == d_in), a partial overlap gives
 *   cudaErrorInvalidValue; n == 0 is a no-op; NULL with n > 0 is cudaErrorInvalidValue.
 * The operator struct is gp__op_scan_<name>, so GP_DEFINE_REDUCE may use the same name.
 * GP_DEFINE_SCAN_EXTERN / GP_DECLARE_SCAN: as for the reduce (reduce.cuh). */
#define GP__DEFINE_SCAN_AS(SCOPE, name, T, OP, IDENTITY)                                       \
    namespace {                                                                               \
    GP_DEFINE_OP(scan_##name, T, OP, IDENTITY)                                                \
    GP__DEFINE_SCAN_DEVICE(name, T, gp__op_scan_##name)                                       \
    }                                                                                         \
    GP__DEFINE_SCAN_HOST(SCOPE, name, T, gp__op_scan_##name)
#define GP_DEFINE_SCAN(name, T, OP, IDENTITY) GP__DEFINE_SCAN_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_SCAN_EXTERN(name, T, OP, IDENTITY) GP__DEFINE_SCAN_AS(extern "C", name, T, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_SCAN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SCAN)
#define GP_DEFINE_SCAN_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SCAN_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SCAN_CUH */
