/* detail/device/scan_plan.cuh -- the device-wide scan's tuning and plan: how n elements are
 * tiled (vectors, rows, items per thread), which mode runs (ONE_BLOCK, CLUSTER, GRID: see
 * device/scan.cuh) and the GRID mode's status-region layout. Level 4 (plain host/device
 * arithmetic, tested on the host): needs util/common.cuh, util/launch.cuh (the modes) and
 * agent/look_ahead.cuh (status words per value). */
#ifndef GPUPRIMS_DETAIL_SCAN_PLAN_CUH
#define GPUPRIMS_DETAIL_SCAN_PLAN_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../agent/look_ahead.cuh"

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

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SCAN_PLAN_CUH */
