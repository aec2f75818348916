/* detail/device/matmul.cuh -- tiled matrix multiply, row-major C = A.B: FP32 FMA on the CUDA
 * cores (no TF32), FP64 on the FP64 tensor cores (IEEE double FMA; the CUDA cores before
 * sm_80); the tiling of Kirk & Hwu's tiled matrix multiply, taken to Hopper. Level 3:
 * needs tile.cuh (gp__tile_chunk_bytes), async_copy.cuh, check.cuh and common.cuh. The
 * plan arithmetic (block order, tile choice, shape checks) is plain host/device code,
 * tested on the host.
 *
 * How it works (one kernel template, gp__matmul_kernel; a config picks its sizes).
 *  - Block tile BM x BN of C. The k dimension is walked BK at a time: A's BM x BK tile and
 *    B's BK x BN tile go to shared memory with cp.async, STAGES tiles in flight, so the
 *    copy of tile kt+STAGES-1 overlaps the arithmetic on tile kt (one barrier per tile).
 *  - A is stored transposed in shared memory (As[k][m]), so a thread's TM values of one k
 *    are contiguous and come in with 16-byte shared loads, as B's TN values do. The
 *    transposing copy moves one element per cp.async; a warp copies 8 (k) x 4 (m)
 *    patches, each four full 32-byte sectors written to 32 distinct banks (the rows of As
 *    are padded by 16 bytes). B is copied 16 bytes at a time when its rows allow.
 *  - Few instructions besides the FFMAs and shared loads: each thread copies from running
 *    pointers (one add per tile) at fixed offsets, a stage's As and Bs sit side by side
 *    (one offset per stage), and whole tiles of interior blocks skip the bounds checks.
 *  - Warp tiling: warp w owns a WM x WN piece of the block tile; inside it each lane owns
 *    TM x TN values of C in registers, as (TM/4) x (TN/4) sub-tiles of 4 x 4 spread over
 *    the warp's piece, so that the lanes' 16-byte shared loads are broadcasts over 128
 *    contiguous bytes (one wavefront, no bank conflict).
 *  - Edges: the copies clip to the matrix (missing elements are zero-filled by cp.async),
 *    so partial tiles in m, n and k need no other code; the stores are guarded.
 *  - Blocks are numbered in groups of GROUP_M block-rows (column-major inside a group), so
 *    blocks running together share A and B tiles in L2.
 *  - The tile size is chosen per shape and GPU (gp__matmul_choose): big tiles reuse more,
 *    small tiles fill all SMs when m x n is small, and a grid that the SMs hold at once
 *    (one wave) may get a config that is faster only there.
 *  - Where the tiles of C leave SMs idle, k is split: over a thread-block cluster whose
 *    blocks add their partial tiles through distributed shared memory (sm_90), or, for
 *    more slices, over the grid's rows, each slice storing its partial tile in a workspace
 *    that a second kernel adds up (gp__matmul_by_workspace). Either adds the slices in
 *    slice order: the same bits on every run.
 *
 * FP64 on the tensor cores (gp__matmul_tc_kernel; sm_80 and later). DMMA
 * (mma.sync ... .f64) is an IEEE double multiply-add like the CUDA cores' DFMA, at twice
 * their peak: the result differs from the CUDA-core kernel only in the order of the sums.
 * Same block tiling, pipeline, block order and edge handling as above; A stays row-major in
 * shared memory (the fragments want A by rows and B by columns), the rows of both tiles
 * padded by 32 bytes so that every fragment load is conflict-free, and each warp owns a
 * WM x WN piece of C as (WM/16) x (WN/8) fragments of 16 x 8. gp_matmul_f64 uses it where
 * its code was compiled for sm_80 or later (gp__mm_tc_built), else the CUDA-core kernel. */
#ifndef GPUPRIMS_DETAIL_MATMUL_CUH
#define GPUPRIMS_DETAIL_MATMUL_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"

/* GP_DECLARE_MATMUL(name, T): the host function's declaration, with C linkage. */
#define GP_DECLARE_MATMUL(name, T)                                                                       \
    GP__EXTERN_C cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, \
                                              cudaStream_t s);

#ifdef __CUDACC__
#include "../util/check.cuh"
#include "../util/async_copy.cuh"
#include "../util/launch.cuh"
#include "../util/scratch.cuh"
#include "../block/tile.cuh"

/* ---- plan arithmetic (host and device) ------------------------------------------------ */

/* Block index -> (block-row bm, block-column bn) of C: groups of `group` block-rows, each
 * walked column by column, so consecutive blocks share B's columns and a group's A rows. */
static inline GP__HD void gp__matmul_tile_of(size_t idx, size_t tiles_m, size_t tiles_n, size_t group,
                                                          size_t *bm, size_t *bn)
{
    const size_t per_group = group * tiles_n;
    const size_t first_m = idx / per_group * group;
    const size_t rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const size_t in_group = idx % per_group;
    *bm = first_m + in_group % rows;
    *bn = in_group / rows;
}

/* 1 when a product of m x k and k x n matrices of `elem`-byte elements has sizes that
 * fit in size_t (element and byte counts) and a grid of at most 2^31-1 blocks of the
 * smallest tile (min_tile x min_tile). */
static inline GP__HD int gp__matmul_shape_ok(size_t m, size_t n, size_t k, size_t elem, size_t min_tile)
{
    const size_t lim = SIZE_MAX / elem;
    if (m && (n > lim / m || k > lim / m)) return 0;
    if (k && n > lim / k) return 0;
    return gp__ceil_div(m, min_tile) * gp__ceil_div(n, min_tile) <= GP__GRID_MAX; /* no overflow: m*n fits */
}

/* What gp__matmul_choose knows of a config (gp__mm_plan_of<Spec>() fills it in). */
typedef struct gp__mm_plan_cfg {
    int bm, bn, bk;  /* block tile of C, k step */
    int smem;        /* dynamic shared memory per block, bytes */
    int min_blocks;  /* blocks per SM its registers allow (its launch bounds) */
    int needs;       /* GP__MM_NEED_*: what it needs of the call */
    float eff;       /* throughput of a busy SM, relative to the list's first config */
    int min_waves;   /* waves of blocks (blocks / (SMs x resident blocks)) it runs from ... */
    int max_waves;   /* ... and up to; 0: no limit */
    int max_slices;  /* k may be split into up to this many slices (1: never; sm_90 clusters) */
    int split_smem;  /* shared memory per block when k is split (the partial tile of C) */
    int max_ws_slices; /* ... or into up to this many through a workspace (1: never) */
} gp__mm_plan_cfg;

/* Blocks of config c that one SM holds at once: as many as its registers allow
 * (min_blocks) and its shared memory fits (split: with k split, where a block holds its
 * partial tile of C). 0 where a block does not fit at all. */
static inline GP__HD int gp__matmul_resident(const gp__mm_plan_cfg *c, const gp__device *g, bool split = false)
{
    const int smem = split ? c->split_smem : c->smem;
    if (smem > g->smem_block) return 0;
    const int fit = g->smem_sm / (smem + g->smem_reserved);
    return fit < c->min_blocks ? fit : c->min_blocks;
}

/* Split k. A product whose m x n tiles leave SMs idle (1000^3: 64 tiles of 128 x 128 on
 * 132 SMs) can split k into `slices`: the slices of one tile run as one thread-block
 * cluster (sm_90), each multiplies its share of the k tiles, and the blocks then add their
 * partial tiles through distributed shared memory, in slice order, each storing its band
 * of rows of C (gp__mm_sum_slices): no scratch, no second launch, and the same bits on
 * every run. The sums' order differs from one slice's, so the result may round
 * differently from the unsplit product (within the same bound). In the model a split
 * costs GP__MM_SPLIT_COST_K more k per block (writing, swapping and adding the partials),
 * each slice must get GP__MM_SPLIT_MIN_KTILES k tiles, and the split grid must be one block
 * per SM at most. Two slices at most (the configs' MAX_SLICES): on the H100 the GPU held
 * 62 clusters of 4 and 30 of 8 at once, short of 1000^3's 64 (81 and 75 us against 57 for
 * 2 slices), and where they fit (512 x 512 x 8192) it put several blocks of a cluster on
 * one SM and left others idle: every 4- and 8-slice candidate there (189-241 us) was
 * slower than the 64 x 64 tile in 2 slices (178 us) (bench/matmul/probes/matmul_split.cu). */
#define GP__MM_SPLIT_COST_K 32
#define GP__MM_SPLIT_MIN_KTILES 4

/* Split k through a workspace. Where even clusters of two leave the SMs idle (512 x 512 x
 * 8192: 16 tiles of 128 x 128), k is split into more slices, as ordinary blocks (the grid's
 * rows: any config, any GPU): each stores its partial tile in its own slab of stream-ordered
 * scratch (gp__mm_slab), and a second kernel, chained to the first, adds the slabs in slice
 * order into C (gp__mm_sum_slabs_kernel): the same bits on every run. The launchers take it
 * as slices | GP__MM_WORKSPACE. In the model each block pays GP__MM_WS_COST_K more k (its
 * partial's store, and its share of the second kernel's reads), and the split grid must be
 * one wave at most (tiles x slices <= the blocks the SMs hold at once), so large products
 * are never split and the workspace stays below one wave of tiles (34 MB for f32 on an
 * H100). Up to GP__MM_WS_SLICES_MAX slices. */
#define GP__MM_WORKSPACE 0x10000u
#define GP__MM_WS_COST_K 64
#define GP__MM_WS_SLICES_MAX 16
#define GP__MM_SUM_THREADS 256

/* The k tiles [*begin, *end) of slice `slice` of `slices`, out of ktiles: as even a share
 * as whole tiles allow, in order. */
static inline GP__HD void gp__matmul_k_range(size_t ktiles, unsigned slice, unsigned slices, size_t *begin,
                                             size_t *end)
{
    *begin = ktiles * slice / slices;
    *end = ktiles * (slice + 1) / slices;
}

/* A split through a workspace (GP__MM_WORKSPACE): slice s of the product is stored at
 * ws + s * gp__mm_slab(m, n, elem) elements, rows n apart; the slab is rounded up to 16
 * bytes, so every slice's rows start on 16 bytes where C's would. */
static inline GP__HD size_t gp__mm_slab(size_t m, size_t n, size_t elem)
{
    return gp__round_up(m * n, 16 / elem);
}

/* The model's time for `blocks` blocks of config c, each bm x bn x depth, on GPU g, which
 * holds `resident` of them per SM: blocks are spread evenly, so the busiest SM computes
 * ceil(blocks / SMs) of them at the config's rate eff, or at GP__MM_LONE_RATE of it where
 * each SM gets one block and could hold more (nothing beside a block hides its pipeline's
 * fill and its stores: on the H100, 512 x 512 x 8192 in 8 slices, one 128 x 128 block per
 * SM, ran at 37.4 TFLOP/s, in 16 slices, two per SM, at 40.3). */
#define GP__MM_LONE_RATE 0.92
static inline GP__HD double gp__matmul_model_time(const gp__mm_plan_cfg *c, const gp__device *g, size_t blocks,
                                                 int resident, double depth)
{
    const double rate = blocks <= g->sms && resident > 1 ? c->eff * GP__MM_LONE_RATE : c->eff;
    return (double)gp__ceil_div(blocks, g->sms) * c->bm * c->bn * depth / rate;
}

/* Which of the `ncfg` configs finishes an m x n x k product first on GPU g, and into how
 * many slices it splits k (*slices; 1: none). Model: blocks are spread evenly, so the
 * busiest SM computes ceil(blocks / sms) blocks of bm x bn x (k / slices + the split's
 * cost) at its rate eff; ties go to the earlier (larger) config and to fewer slices. Big
 * tiles win on large products; small ones, or split k, when big tiles would leave SMs idle
 * (1024^2: 64 tiles of 128 x 128 on 132 SMs).
 * Skipped: configs that need what the call lacks (needs & ~have: GP__MM_NEED_TC, the
 * tensor-core kernel's code; GP__MM_NEED_B16, rows of B that allow 16-byte copies), that
 * do not fit in the GPU's shared memory, and those whose range of waves (min_waves to
 * max_waves, in the blocks the SMs hold at once: gp__matmul_resident) the grid falls
 * outside. A config for one wave at most has its eff measured there, where every block
 * starts at once and the call lasts as long as one block: it can win there and lose over
 * many waves (see the f32 configs); the f64 tensor-core 128 x 128 tile, one block per SM,
 * runs from three waves. Splits: up to the config's max_slices, only where the split grid
 * is one block per SM at most (the model's rounding to whole waves would otherwise split
 * large products to fill their last wave) and where the device launches clusters and this
 * code was built for them (g->cluster_ok); through a workspace (*slices has GP__MM_WORKSPACE
 * set), up to the config's max_ws_slices, where the split grid is one wave at most. -1 if
 * none is left
 * (the lists hold a small CUDA-core config, which always runs). */
enum { GP__MM_NEED_TC = 1, GP__MM_NEED_B16 = 2 };
static inline GP__HD int gp__matmul_choose(size_t m, size_t n, size_t k, const gp__device *g, int have,
                                           const gp__mm_plan_cfg *cfg, int ncfg, unsigned *slices = NULL)
{
    int best = -1;
    unsigned best_slices = 1;
    double best_t = 0;
    auto consider = [&](int i, unsigned s, double t) { /* s as the launchers take it */
        if (best < 0 || t < best_t) best = i, best_slices = s, best_t = t;
    };
    for (int i = 0; i < ncfg; i++) {
        const gp__mm_plan_cfg *c = &cfg[i];
        if (c->needs & ~have) continue;
        const size_t tiles = gp__ceil_div(m, (size_t)c->bm) * gp__ceil_div(n, (size_t)c->bn);
        const size_t ktiles = gp__ceil_div(k, (size_t)c->bk);
        for (unsigned s = 1; s <= (unsigned)c->max_slices && s <= GP__CLUSTER_MAX; s *= 2) {
            if (s > 1 && !(g->cluster_ok && tiles * s <= g->sms && ktiles >= (size_t)s * GP__MM_SPLIT_MIN_KTILES))
                break;
            const int resident = gp__matmul_resident(c, g, s > 1);
            if (resident == 0) continue;
            const size_t blocks = tiles * s, wave = (size_t)g->sms * (size_t)resident; /* blocks held at once */
            if (blocks < c->min_waves * wave || (c->max_waves && blocks > c->max_waves * wave)) continue;
            const double depth = (double)(k ? k : 1) / s + (s > 1 ? GP__MM_SPLIT_COST_K : 0);
            consider(i, s, gp__matmul_model_time(c, g, blocks, resident, depth));
        }
        const int resident = gp__matmul_resident(c, g);
        const size_t wave = (size_t)g->sms * (size_t)resident;
        for (unsigned s = 2; s <= (unsigned)c->max_ws_slices && s <= GP__MM_WS_SLICES_MAX; s *= 2) {
            const size_t blocks = tiles * s;
            if (resident == 0 || blocks > wave || ktiles < (size_t)s * GP__MM_SPLIT_MIN_KTILES) break;
            if (blocks < c->min_waves * wave || (c->max_waves && blocks > c->max_waves * wave)) continue;
            const double depth = (double)k / s + GP__MM_WS_COST_K;
            consider(i, s | GP__MM_WORKSPACE, gp__matmul_model_time(c, g, blocks, resident, depth));
        }
    }
    if (slices) *slices = best_slices;
    return best;
}


/* ---- Fixed-shape asynchronous tile copies, for pipelined kernels ------------------------
 * Used by detail/device/matmul.cuh. Like gp__tile_load_async, in the same chunk order, but the
 * tile shape, the block size (a 1-D block of NT threads) and the chunk width are fixed at
 * compile time (the caller checks alignment, e.g. with gp__tile_chunk_bytes), so each
 * thread's addresses are worked out once; one variant transposes; and the caller manages
 * the groups (gp__cp_async_commit, gp__cp_async_wait<N>), so that tile k + 1 is copied
 * while the block computes on tile k. Parts of a tile outside the matrix are zero-filled.
 * The caller waits and calls __syncthreads() before reading a tile. */

/* gp__tile_async<T, ROWS, COLS, NT, VEC, TRANSPOSE, CPR>: one thread's share of copying a
 * ROWS x COLS tile, with its place in the tile worked out once (the constructor). Thread t
 * copies RPT x CPR pieces, at rows r0 + q * RSTEP (q < RPT) and columns c0 + p * CSTEP
 * (p < CPR): the CPR pieces of a row lie at fixed offsets from one address, so a kernel
 * that keeps a running pointer per row pays no address arithmetic for them.
 *  - TRANSPOSE == false: VEC elements per copy (VEC * sizeof(T) = 4, 8 or 16 bytes; for
 *    VEC > 1 the caller guarantees whole, 16-byte aligned vectors), s[r][c] = g[r][c]; a
 *    warp copies consecutive vectors of a row (COLS / VEC / CPR threads to a row).
 *  - TRANSPOSE == true: one element per copy, s[c][r] = g[r][c]; a warp copies 8 (c) x 4
 *    (r) patches: four rows of 8 consecutive elements (whole 32-byte sectors when aligned),
 *    written to distinct banks when s_pitch * sizeof(T) % 128 == 16 (4-byte T: rows
 *    ROWS + 4 elements long, ROWS a multiple of 32); CPR patches side by side.
 * copy<CHECK>(dst, s_pitch, src, ld, fallback, rows_left, cols_left): dst is the shared
 * address (gp__smem_u32) of the thread's first piece, src its global address (the
 * tile's top-left element + r0 * ld + c0). With CHECK, the tile is clipped to rows_left x
 * cols_left and the rest zero-filled, read from `fallback` (any real element); without,
 * all of it must exist. load<CHECK>(s, s_pitch, g, ld, rows_left, cols_left) is the same
 * from the tile's top-left element g (a real one) and the tile's place s in shared memory. */
template <class T, int ROWS, int COLS, int NT, int VEC, bool TRANSPOSE, int CPR = 1>
struct gp__tile_async {
    enum {
        PER_ROW = COLS / VEC,                          /* copies per row (TRANSPOSE: of 8-wide patches) */
        COPIES = ROWS * COLS / VEC / NT,               /* per thread */
        KG = TRANSPOSE ? COLS / 8 / CPR : PER_ROW / CPR, /* threads (TRANSPOSE: warps) to a row */
        RPT = COPIES / CPR,                            /* rows per thread */
        RSTEP = TRANSPOSE ? NT / 32 / KG * 4 : NT / KG, /* rows between a thread's rows */
        CSTEP = TRANSPOSE ? KG * 8 : KG * VEC,         /* columns between a thread's pieces of a row */
    };
    static_assert(!TRANSPOSE || VEC == 1, "the transposing copy moves one element at a time");
    static_assert(TRANSPOSE ? COLS % (8 * CPR) == 0 && (NT / 32) % KG == 0 && ROWS % RSTEP == 0
                            : COLS % VEC == 0 && PER_ROW % CPR == 0 && NT % KG == 0,
                  "every thread's copies lie in RPT rows, RSTEP rows apart");
    static_assert((ROWS * COLS / VEC) % NT == 0 && NT % 32 == 0 && COPIES % CPR == 0, "whole passes of whole warps");
    int r0, c0;
    __device__ __forceinline__ gp__tile_async()
    {
        const int t = (int)threadIdx.x, lane = t & 31;
        if (TRANSPOSE) {
            c0 = (t >> 5) % KG * 8 + (lane & 7);
            r0 = (t >> 5) / KG * 4 + (lane >> 3);
        } else {
            c0 = t % KG * VEC;
            r0 = t / KG;
        }
    }
    /* the thread's first piece in a tile stored at s_pitch elements a row */
    __device__ __forceinline__ int s_offset(int s_pitch) const { return TRANSPOSE ? c0 * s_pitch + r0 : r0 * s_pitch + c0; }
    template <bool CHECK>
    __device__ __forceinline__ void copy(unsigned dst, int s_pitch, const T *src, size_t ld, const T *fallback,
                                         size_t rows_left, size_t cols_left) const
    {
#pragma unroll
        for (int p = 0; p < CPR; p++) {
            const bool col_ok = !CHECK || (size_t)(c0 + p * CSTEP) < cols_left;
#pragma unroll
            for (int q = 0; q < RPT; q++) {
                const bool ok = col_ok && (!CHECK || (size_t)(r0 + q * RSTEP) < rows_left);
                const int s_off = TRANSPOSE ? p * CSTEP * s_pitch + q * RSTEP : q * RSTEP * s_pitch + p * CSTEP;
                gp__cp_async<VEC * sizeof(T)>(dst + s_off * (unsigned)sizeof(T), ok ? src + q * RSTEP * ld + p * CSTEP : fallback,
                                              ok);
            }
        }
    }
    template <bool CHECK>
    __device__ __forceinline__ void load(T *s, int s_pitch, const T *g, size_t ld, size_t rows_left,
                                         size_t cols_left) const
    {
        copy<CHECK>(gp__smem_u32(s + s_offset(s_pitch)), s_pitch, g + r0 * ld + c0, ld, g, rows_left, cols_left);
    }
};

/* ---- the kernels ----------------------------------------------------------------------- */

/* Shared memory of a block whose k is split: its pipeline's, or its partial tile of C
 * (part bytes) where that is more. */
static constexpr GP__HD int gp__mm_split_smem(int pipeline, int part) { return pipeline > part ? pipeline : part; }

/* A configuration is a struct of named sizes (a "spec"), for example
 *     struct gp__mm_f32_128x128 {
 *         typedef float type;
 *         static constexpr int BM = 128, BN = 128, BK = 32;  block tile of C, k step
 *         static constexpr int WM = 64, WN = 32;             warp tile
 *         static constexpr int TM = 8, TN = 8;               values of C per thread (multiples of 4)
 *         static constexpr int STAGES = 2;                   tiles in flight (1: load, wait, compute)
 *         static constexpr int GROUP_M = 8;                  block-rows per L2 group
 *         static constexpr int MIN_BLOCKS = 2;               resident blocks per SM (launch bounds)
 *         static constexpr int TC = 0;                       1: tensor cores (FP64 DMMA, no TM, TN)
 *         static constexpr int VEC_B_ONLY = 1;               1: only where B's rows allow 16-byte copies
 *         static constexpr int MIN_WAVES = 0;                only where the grid is this many waves or more
 *         static constexpr int MAX_WAVES = 0;                n > 0: only where it is n waves or fewer
 *         static constexpr int MAX_SLICES = 1;               k split into up to this many (1: never;
 *                                                            above 1 a split instance is built)
 *         static constexpr int MAX_WS_SLICES = 1;            ... or through a workspace (1: never)
 *         static constexpr float EFF = 1.00f;                relative throughput (gp__matmul_choose)
 *     };
 * A variant derives from another spec and overrides one name (the bench's ladder does).
 * gp__mm_cfg<Spec> (CUDA cores) and gp__mm_tc_cfg<Spec> (tensor cores) add what follows
 * from the sizes; gp__mm_launcher<Spec> launches either. */
template <class S>
struct gp__mm_cfg : S {
    typedef typename S::type T;
    enum {
        WARPS_N = S::BN / S::WN, WARPS = (S::BM / S::WM) * (S::BN / S::WN), THREADS = WARPS * 32,
        LANES_M = S::WM / S::TM, LANES_N = S::WN / S::TN,         /* a warp's lanes, as LANES_M x LANES_N */
        SUB_M = S::WM / (S::TM / 4), SUB_N = S::WN / (S::TN / 4), /* a warp's piece per 4 x 4 sub-tile */
        PAD = 16 / (int)sizeof(T),                                /* As row padding: 16 bytes */
        PITCH_A = S::BM + PAD, PITCH_B = S::BN,
        STAGE_A = S::BK * PITCH_A, STAGE_ELEMS = STAGE_A + S::BK * PITCH_B, /* a stage: As, then Bs */
        SMEM_BYTES = S::STAGES * STAGE_ELEMS * (int)sizeof(T),
        SPLIT_SMEM = gp__mm_split_smem(SMEM_BYTES, S::BM * S::BN * (int)sizeof(T)),
    };
    static_assert(S::BM % S::WM == 0 && S::BN % S::WN == 0 && S::TM % 4 == 0 && S::TN % 4 == 0, "tile shapes");
    static_assert(LANES_M * LANES_N == 32 && S::WM % S::TM == 0 && S::WN % S::TN == 0, "a warp is 32 lanes of TM x TN");
    static_assert(S::STAGES >= 1, "stages");
};

/* 16-byte shared loads of 4 consecutive T (one float4, or two double2). */
template <class T>
static __device__ __forceinline__ void gp__mm_lds4(T *r, const T *s)
{
    uint4 w[4 * sizeof(T) / 16];
#pragma unroll
    for (int i = 0; i < (int)(4 * sizeof(T) / 16); i++) w[i] = reinterpret_cast<const uint4 *>(s)[i];
    memcpy(r, w, sizeof w);
}

/* The k loop of both kernels over tiles 0 .. ktiles-1: load(kt, stage) issues the copies of
 * tile kt into a stage, compute(stage) multiplies the tile held there. STAGES > 1: the copy
 * of tile kt + STAGES - 1 overlaps the arithmetic on tile kt, into the stage that tile kt-1
 * used, which every thread has left once it passes tile kt's barrier: one barrier per tile,
 * one cp.async group per tile (empty ones too, so that the count stays exact). STAGES == 1:
 * load, wait, compute, with a second barrier before the next tile overwrites the stage. */
template <int STAGES, class Load, class Compute>
static __device__ __forceinline__ void gp__mm_pipeline(size_t ktiles, Load load, Compute compute)
{
    static_assert(STAGES >= 1, "stages");
    if constexpr (STAGES == 1) {
        for (size_t kt = 0; kt < ktiles; kt++) {
            load(kt, 0);
            gp__cp_async_commit();
            gp__cp_async_wait<0>();
            __syncthreads();
            compute(0);
            __syncthreads();
        }
    } else {
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++) {
            if ((size_t)s < ktiles) load(s, s);
            gp__cp_async_commit();
        }
        int read = 0, write = STAGES - 1; /* the stage computed on, the stage copied into */
        for (size_t kt = 0; kt < ktiles; kt++) {
            gp__cp_async_wait<STAGES - 2>(); /* this thread's copies of tile kt have landed */
            __syncthreads();                 /* everyone's have; everyone is done with tile kt-1 */
            if (kt + STAGES - 1 < ktiles) load(kt + STAGES - 1, write);
            gp__cp_async_commit();
            compute(read);
            read = read + 1 == STAGES ? 0 : read + 1;
            write = write + 1 == STAGES ? 0 : write + 1;
        }
        gp__cp_async_wait<0>(); /* no copy outlives the block (empty groups) */
    }
}

/* Copies the k tile at k0 of A's block-rows (a_blk) and B's block-columns (b_blk) with the
 * copiers ac and bc. Interior tiles (all of the block's rows and columns exist, and all
 * BK of k: `interior` says the first two) skip the bounds checks. */
template <int BK, class AC, class BC, class T>
static __device__ __forceinline__ void gp__mm_load_tile(const AC &ac, T *as, int pitch_a, const BC &bc, T *bs,
                                                        int pitch_b, const T *a_blk, const T *b_blk, size_t k0,
                                                        size_t k, size_t n, size_t m_left, size_t n_left,
                                                        bool interior)
{
    if (interior && k0 + BK <= k) {
        ac.template load<false>(as, pitch_a, a_blk + k0, k, m_left, k - k0);
        bc.template load<false>(bs, pitch_b, b_blk + k0 * n, n, k - k0, n_left);
    } else {
        ac.template load<true>(as, pitch_a, a_blk + k0, k, m_left, k - k0);
        bc.template load<true>(bs, pitch_b, b_blk + k0 * n, n, k - k0, n_left);
    }
}

/* Stores N consecutive values v of a row of C at dst, of which cols_left exist: 16-byte
 * stores when all N exist and the row allows (vec; N * sizeof(T) a multiple of 16), else
 * element by element. */
template <int N, class T>
static __device__ __forceinline__ void gp__mm_store(T *dst, const T *v, size_t cols_left, bool vec)
{
    static_assert(N * sizeof(T) % 16 == 0, "whole 16-byte stores");
    if (vec && cols_left >= (size_t)N) {
        uint4 w[N * sizeof(T) / 16];
        memcpy(w, v, sizeof w);
#pragma unroll
        for (int q = 0; q < (int)(N * sizeof(T) / 16); q++) reinterpret_cast<uint4 *>(dst)[q] = w[q];
    } else {
#pragma unroll
        for (int q = 0; q < N; q++)
            if ((size_t)q < cols_left) dst[q] = v[q];
    }
}

/* acc += the product of one stage's tiles: as points at the thread's first column of As
 * (A transposed: As[k][m]), bs at its first column of Bs. */
template <class C, class T>
static __device__ __forceinline__ void gp__mm_compute(T (&acc)[C::TM][C::TN], const T *as, const T *bs)
{
#pragma unroll
    for (int kk = 0; kk < C::BK; kk++) {
        T af[C::TM], bf[C::TN];
#pragma unroll
        for (int i = 0; i < C::TM / 4; i++) gp__mm_lds4(af + 4 * i, as + kk * C::PITCH_A + i * C::SUB_M);
#pragma unroll
        for (int j = 0; j < C::TN / 4; j++) gp__mm_lds4(bf + 4 * j, bs + kk * C::PITCH_B + j * C::SUB_N);
#pragma unroll
        for (int i = 0; i < C::TM; i++)
#pragma unroll
            for (int j = 0; j < C::TN; j++) acc[i][j] = fma(af[i], bf[j], acc[i][j]);
    }
}

/* How many of a thread's COPIES pieces of a tile row (per_row pieces of piece_bytes each)
 * it takes from one row: as many as leave a row's consecutive lanes at least 32 bytes
 * (whole sectors) of it, so that the others are fixed offsets from one address. */
static constexpr GP__HD int gp__mm_pieces_per_row(int per_row, int copies, int piece_bytes)
{
    int best = 1;
    for (int c = 2; c <= copies; c++)
        if (copies % c == 0 && per_row % c == 0 && per_row / c * piece_bytes >= 32) best = c;
    return best;
}

/* The kernels' instances by how k is split (a template parameter): not at all; over a
 * cluster (sm_90); or through a workspace, over the grid's rows. Each is its own instance:
 * with the cluster code compiled into the unsplit kernel, ptxas scheduled its main loop
 * 4-7% slower (H100), and with the grid-row arithmetic, the 128 x 64 tile's 13% slower. */
enum { GP__MM_UNSPLIT = 0, GP__MM_BY_CLUSTER = 1, GP__MM_BY_WORKSPACE = 2 };

/* The k slices of this block's tile, and which of them it multiplies: the blocks of its
 * cluster, or the grid's rows (each slice storing its partial product in its own slab of
 * the workspace: gp__mm_slab). */
template <int SPLIT>
static __device__ __forceinline__ unsigned gp__mm_slices(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) return __clusterSizeInBlocks();
#endif
    return SPLIT == GP__MM_BY_WORKSPACE ? gridDim.y : 1;
}
template <int SPLIT>
static __device__ __forceinline__ unsigned gp__mm_slice(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) return __clusterRelativeBlockRank();
#endif
    return SPLIT == GP__MM_BY_WORKSPACE ? blockIdx.y : 0;
}
/* The block's tile of C, numbered as gp__matmul_tile_of takes it (a cluster's blocks share
 * one), and where its product goes: C, or its slice's slab of the workspace. */
template <int SPLIT>
static __device__ __forceinline__ size_t gp__mm_tile_index(void)
{
    return SPLIT == GP__MM_BY_CLUSTER ? blockIdx.x / gp__mm_slices<SPLIT>() : blockIdx.x;
}
template <int SPLIT, class T>
static __device__ __forceinline__ T *gp__mm_output(T *c, size_t m, size_t n)
{
    return SPLIT == GP__MM_BY_WORKSPACE ? c + blockIdx.y * gp__mm_slab(m, n, sizeof(T)) : c;
}

/* The end of a split product (gp__matmul_choose): each block of the cluster holds its
 * slice's BM x BN partial tile at `part` in its shared memory (rows BN apart); block
 * `slice` adds all of them, in slice order, over its band of BM / slices rows and stores
 * the sums to the tile of C at c_tile (rows ldc apart; m_left x n_left of it exist). */
template <class T, int BM, int BN, int THREADS>
static __device__ __forceinline__ void gp__mm_sum_slices(const T *part, T *c_tile, size_t ldc, size_t m_left,
                                                         size_t n_left, bool vec, unsigned slice, unsigned slices)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { V = 16 / (int)sizeof(T), PER_ROW = BN / V }; /* 16-byte pieces */
    static_assert(BN % V == 0, "rows of whole 16-byte pieces");
    __cluster_barrier_arrive(); /* release: this block's partial is visible to the cluster */
    __cluster_barrier_wait();   /* acquire: so are the others' */
    const int r0 = (int)(slice * BM / slices), r1 = (int)((slice + 1) * BM / slices);
    for (int u = (int)threadIdx.x; u < (r1 - r0) * PER_ROW; u += THREADS) {
        const int r = r0 + u / PER_ROW, col = u % PER_ROW * V;
        if ((size_t)r >= m_left || (size_t)col >= n_left) continue;
        const T *const mine = part + r * BN + col;
        /* 16-byte loads from each block's shared memory (a memcpy straight from there
         * compiles to 16 one-byte loads, each a round trip) */
        const uint4 w0 = *static_cast<const uint4 *>(__cluster_map_shared_rank((void *)mine, 0));
        T sum[V], p[V];
        memcpy(sum, &w0, sizeof sum);
        for (unsigned q = 1; q < slices; q++) {
            const uint4 w = *static_cast<const uint4 *>(__cluster_map_shared_rank((void *)mine, q));
            memcpy(p, &w, sizeof p);
#pragma unroll
            for (int v = 0; v < V; v++) sum[v] += p[v];
        }
        gp__mm_store<V>(c_tile + r * ldc + col, sum, n_left - col, vec);
    }
    __cluster_barrier_arrive(); /* no block leaves while another may still read its partial */
    __cluster_barrier_wait();
#else
    (void)part, (void)c_tile, (void)ldc, (void)m_left, (void)n_left, (void)vec, (void)slice, (void)slices;
#endif
}

/* Both kernels' last step: store(dst, ld, rows_left, cols_left, vec) writes the thread's
 * values of the block's tile at dst (rows ld apart, rows_left x cols_left of it exist,
 * 16-byte stores where vec). Unsplit or through a workspace, straight to C or the slab;
 * over a cluster, to the partial tile in the shared memory the pipeline is done with (every
 * thread must be: a barrier first), then the cluster adds the slices. */
template <class T, int BM, int BN, int THREADS, int SPLIT, class Store>
static __device__ __forceinline__ void gp__mm_epilogue(Store store, T *smem, T *c_tile, size_t ldc, size_t m_left,
                                                       size_t n_left, bool vec_c)
{
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) {
        __syncthreads();
        store(smem, (size_t)BN, (size_t)BM, (size_t)BN, true);
        gp__mm_sum_slices<T, BM, BN, THREADS>(smem, c_tile, ldc, m_left, n_left, vec_c, gp__mm_slice<SPLIT>(),
                                              gp__mm_slices<SPLIT>());
    } else {
        (void)smem;
        store(c_tile, ldc, m_left, n_left, vec_c);
    }
}

/* VEC_B: elements per copy of B's rows (16 bytes where the rows allow, else 1). SPLIT: the
 * instance by how k is split (GP__MM_UNSPLIT, _BY_CLUSTER, _BY_WORKSPACE: gp__mm_launch_grid). */
template <class C, int VEC_B, int SPLIT>
__global__ void __launch_bounds__(C::THREADS, GP__MIN_BLOCKS(C::THREADS, C::MIN_BLOCKS))
    gp__matmul_kernel(typename C::type *c, const typename C::type *a, const typename C::type *b, size_t m, size_t n,
                      size_t k, size_t tiles_m, size_t tiles_n, bool vec_c)
{
    typedef typename C::type T;
    enum { STAGE_BYTES = C::STAGE_ELEMS * (int)sizeof(T) };
    /* stage s: As ([BK][PITCH_A]) at s * STAGE_ELEMS, Bs ([BK][PITCH_B]) after it, so that
     * one offset per stage serves both */
    extern __shared__ __align__(16) unsigned char gp__mm_smem[];
    T *const As = reinterpret_cast<T *>(gp__mm_smem), *const Bs = As + C::STAGE_A;

    /* the block's tile, and its slice of the k tiles (all of them unless k is split) */
    size_t bm, bn, kt0, kt1;
    gp__matmul_tile_of(gp__mm_tile_index<SPLIT>(), tiles_m, tiles_n, C::GROUP_M, &bm, &bn);
    gp__matmul_k_range(gp__ceil_div(k, C::BK), gp__mm_slice<SPLIT>(), gp__mm_slices<SPLIT>(), &kt0, &kt1);
    const size_t row0 = bm * C::BM, col0 = bn * C::BN;
    const size_t m_left = m - row0, n_left = n - col0;

    /* this lane's place: warp (wr, wc) of the block, lane (lm, ln) of the warp */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wr = warp / C::WARPS_N, wc = warp % C::WARPS_N;
    const int lm = lane / C::LANES_N, ln = lane % C::LANES_N;
    const int a_off = wr * C::WM + lm * 4, b_off = wc * C::WN + ln * 4;

    T acc[C::TM][C::TN];
#pragma unroll
    for (int i = 0; i < C::TM; i++)
#pragma unroll
        for (int j = 0; j < C::TN; j++) acc[i][j] = T(0);

    /* this thread's copies of A's tile (transposed) and B's: the shared address of its first
     * piece in stage 0, and a running pointer to its first element of the next tile to copy
     * (one add per tile); a warp copies all BK / 8 patches of its rows of A */
    const gp__tile_async<T, C::BM, C::BK, C::THREADS, 1, true, C::BK / 8> a_copy;
    const gp__tile_async<T, C::BK, C::BN, C::THREADS, VEC_B, false,
                         gp__mm_pieces_per_row(C::BN / VEC_B, C::BK * C::BN / VEC_B / C::THREADS, VEC_B * sizeof(T))>
        b_copy;
    const unsigned a_dst = gp__smem_u32(As + a_copy.s_offset(C::PITCH_A));
    const unsigned b_dst = gp__smem_u32(Bs + b_copy.s_offset(C::PITCH_B));
    const T *a_src = a + (row0 + a_copy.r0) * k + kt0 * C::BK + a_copy.c0,
            *b_src = b + (kt0 * C::BK + b_copy.r0) * n + col0 + b_copy.c0;
    /* tiles 0 .. full-1 lie wholly inside the matrices: no bounds checks */
    const size_t full = m_left >= (size_t)C::BM && n_left >= (size_t)C::BN ? k / C::BK : 0;
    const T *const a_frag = As + a_off, *const b_frag = Bs + b_off;
    gp__mm_pipeline<C::STAGES>(
        kt1 - kt0,
        [&](size_t kt, int stage) {
            const unsigned sa = a_dst + stage * STAGE_BYTES, sb = b_dst + stage * STAGE_BYTES;
            const size_t k0 = (kt0 + kt) * C::BK;
            if (kt0 + kt < full) {
                a_copy.template copy<false>(sa, C::PITCH_A, a_src, k, a, 0, 0);
                b_copy.template copy<false>(sb, C::PITCH_B, b_src, n, b, 0, 0);
            } else {
                a_copy.template copy<true>(sa, C::PITCH_A, a_src, k, a, m_left, k - k0);
                b_copy.template copy<true>(sb, C::PITCH_B, b_src, n, b, k - k0, n_left);
            }
            a_src += C::BK;
            b_src += C::BK * n;
        },
        [&](int stage) {
            gp__mm_compute<C>(acc, a_frag + stage * C::STAGE_ELEMS, b_frag + stage * C::STAGE_ELEMS);
        });

    /* store: 4 consecutive values per row of a sub-tile */
    auto store = [&](T *dst, size_t ld, size_t rows_left, size_t cols_left, bool vec) {
#pragma unroll
        for (int i = 0; i < C::TM; i++) {
            const size_t row = (size_t)(a_off + (i / 4) * C::SUB_M + i % 4);
            if (row >= rows_left) continue;
#pragma unroll
            for (int j4 = 0; j4 < C::TN / 4; j4++) {
                const size_t col = (size_t)(b_off + j4 * C::SUB_N);
                if (col < cols_left) gp__mm_store<4>(dst + row * ld + col, &acc[i][4 * j4], cols_left - col, vec);
            }
        }
    };
    gp__mm_epilogue<T, C::BM, C::BN, C::THREADS, SPLIT>(store, As, gp__mm_output<SPLIT>(c, m, n) + row0 * n + col0, n,
                                                  m_left, n_left, vec_c);
}

/* How `slices` (as the launchers take it) splits k: GP__MM_UNSPLIT, _BY_CLUSTER or
 * _BY_WORKSPACE. */
static inline int gp__mm_split_of(unsigned slices)
{
    return slices & GP__MM_WORKSPACE ? GP__MM_BY_WORKSPACE : slices > 1 ? GP__MM_BY_CLUSTER : GP__MM_UNSPLIT;
}

/* Launches `kernel`, config C's instance for `slices` (1: unsplit; 2 up to C::MAX_SLICES:
 * split k over clusters, sm_90 code only, other counts refused; with GP__MM_WORKSPACE, a
 * count gp__mm_launcher has checked, on a grid of that many rows, `c` the workspace), on
 * the tiles: tiles x slices blocks, in clusters of `slices` where split over clusters, with
 * the shared memory that needs (loaded and opted in once per device: bit `which` of
 * `ready`, gp__kernel_load). The clusters' placement is left to the GPU: the spread and
 * load-balancing policies measured the same as the default for clusters of two
 * (bench/matmul/probes/matmul_split.cu). */
template <class C, class... Params, class... Args>
static cudaError_t gp__mm_launch_grid(void (*kernel)(Params...), unsigned *ready, int which, size_t tiles,
                                      unsigned slices, cudaStream_t s, Args... args)
{
    const int how = gp__mm_split_of(slices);
    slices &= ~GP__MM_WORKSPACE;
    if (how == GP__MM_BY_CLUSTER && !((int)slices <= C::MAX_SLICES && slices <= GP__CLUSTER_MAX &&
                                      gp__built_for_clusters() && tiles <= GP__GRID_MAX / slices))
        return cudaErrorInvalidValue;
    const int smem = how == GP__MM_BY_CLUSTER ? C::SPLIT_SMEM : C::SMEM_BYTES;
    int dev = -1;
    GP__TRY(cudaGetDevice(&dev));
    GP__TRY(gp__kernel_load((const void *)kernel, dev, ready, which, smem));
    if (how != GP__MM_BY_CLUSTER) { /* through a workspace: slice y of the grid's rows writes slab y of c */
        kernel<<<dim3((unsigned)tiles, how == GP__MM_BY_WORKSPACE ? slices : 1), C::THREADS, smem, s>>>(args...);
        return cudaGetLastError();
    }
    cudaLaunchAttribute cluster = gp__cluster_attribute(slices);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(tiles * slices));
    cfg.blockDim = dim3(C::THREADS);
    cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = s;
    cfg.attrs = &cluster;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/* Launches config C on the whole product, k split into `slices` (1: not split; more only
 * up to C::MAX_SLICES or C::MAX_WS_SLICES, the configs built with such an instance). One
 * kernel: with GP__MM_WORKSPACE, `c` is the workspace (gp__matmul_by_workspace). */
template <class C>
static cudaError_t gp__matmul_launch(typename C::type *c, const typename C::type *a, const typename C::type *b,
                                     size_t m, size_t n, size_t k, unsigned slices, cudaStream_t s)
{
    typedef typename C::type T;
    enum { V = 16 / (int)sizeof(T) }; /* elements per 16-byte copy */
    /* 16-byte copies of B and stores of C need every row to start on a 16-byte boundary */
    const bool vec_b = gp__tile_chunk_bytes((uintptr_t)b, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const bool vec_c = gp__tile_chunk_bytes((uintptr_t)c, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const size_t tiles_m = gp__ceil_div(m, C::BM), tiles_n = gp__ceil_div(n, C::BN);
    const int split = gp__mm_split_of(slices);
    void (*kernel)(T *, const T *, const T *, size_t, size_t, size_t, size_t, size_t, bool) =
        vec_b ? gp__matmul_kernel<C, V, GP__MM_UNSPLIT> : gp__matmul_kernel<C, 1, GP__MM_UNSPLIT>;
    if constexpr (C::MAX_SLICES > 1)
        if (split == GP__MM_BY_CLUSTER)
            kernel = vec_b ? gp__matmul_kernel<C, V, GP__MM_BY_CLUSTER> : gp__matmul_kernel<C, 1, GP__MM_BY_CLUSTER>;
    if constexpr (C::MAX_WS_SLICES > 1)
        if (split == GP__MM_BY_WORKSPACE)
            kernel = vec_b ? gp__matmul_kernel<C, V, GP__MM_BY_WORKSPACE> : gp__matmul_kernel<C, 1, GP__MM_BY_WORKSPACE>;
    static unsigned ready[GP__MAX_DEVICES];
    return gp__mm_launch_grid<C>(kernel, ready, vec_b + 2 * split, tiles_m * tiles_n, slices, s, c, a, b, m, n, k,
                                 tiles_m, tiles_n, vec_c);
}

/* ---- FP64 on the tensor cores ------------------------------------------------------------ */

/* d += a.b for a 16 x 8 x 4 piece in FP64 on the tensor cores (sm_80 and later). Fragments,
 * with g = lane / 4 and t = lane % 4: a[0] = A[g][t], a[1] = A[g + 8][t]; b = B[t][g];
 * d[0], d[1] = D[g][2t], D[g][2t + 1]; d[2], d[3] = the same of row g + 8. That is two
 * m8n8k4 (rows 0-7 and 8-15) with the same fragments; sm_90 also has it as one instruction,
 * m16n8k4, used when M16 is set. */
template <bool M16>
static __device__ __forceinline__ void gp__dmma_16x8x4(double (&d)[4], const double (&a)[2], double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (M16)
        asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a[0]), "d"(a[1]), "d"(b));
    else
#endif
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
        for (int h = 0; h < 2; h++)
            asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                : "d"(a[h]), "d"(b));
#else
        (void)d, (void)a, (void)b;
#endif
    }
}

/* A tensor-core config: the spec's BM, BN, BK, WM, WN, STAGES, GROUP_M, MIN_BLOCKS, and M16
 * (1: the one-instruction 16 x 8 x 4 where built for sm_90). Row padding: a fragment load
 * is two 16-lane halves of 8-byte loads, lanes (g, t) at g * pitch + t (A) or t * pitch + g
 * (B), g, t < 4 in a half: distinct banks when pitch % 8 == 4 (in doubles). */
template <class S>
struct gp__mm_tc_cfg : S {
    typedef typename S::type T;
    enum {
        WARPS_N = S::BN / S::WN, WARPS = (S::BM / S::WM) * WARPS_N, THREADS = WARPS * 32,
        MI = S::WM / 16, NI = S::WN / 8, /* a warp's fragments of C, as MI x NI pieces of 16 x 8 */
        PITCH_A = S::BK + 4, PITCH_B = S::BN + 4,
        STAGE_A = S::BM * PITCH_A, STAGE_B = S::BK * PITCH_B,
        SMEM_BYTES = S::STAGES * (STAGE_A + STAGE_B) * (int)sizeof(T),
        SPLIT_SMEM = gp__mm_split_smem(SMEM_BYTES, S::BM * S::BN * (int)sizeof(T)),
    };
    static_assert(sizeof(T) == 8 && S::TC, "the tensor-core kernel multiplies doubles");
    static_assert(S::BM % S::WM == 0 && S::BN % S::WN == 0 && S::WM % 16 == 0 && S::WN % 8 == 0 && S::BK % 4 == 0,
                  "tile shapes");
    static_assert(PITCH_A % 8 == 4 && PITCH_B % 8 == 4, "conflict-free fragment loads");
};

/* VEC_A, VEC_B: doubles per copy of A's and B's rows (2: 16-byte copies, where the rows
 * allow; 1: 8-byte). Built for targets before sm_80 the body is empty: gp__mm_tc_launch
 * never launches it there. */
template <class C, int VEC_A, int VEC_B, int SPLIT>
__global__ void __launch_bounds__(C::THREADS, GP__MIN_BLOCKS(C::THREADS, C::MIN_BLOCKS))
    gp__matmul_tc_kernel(double *c, const double *a, const double *b, size_t m, size_t n, size_t k, size_t tiles_m,
                         size_t tiles_n, bool vec_c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char gp__mm_smem[];
    double *const As = reinterpret_cast<double *>(gp__mm_smem); /* [STAGES][BM][PITCH_A] */
    double *const Bs = As + C::STAGES * C::STAGE_A;              /* [STAGES][BK][PITCH_B] */

    size_t bm, bn, kt0, kt1; /* the tile, and the slice of the k tiles, as above */
    gp__matmul_tile_of(gp__mm_tile_index<SPLIT>(), tiles_m, tiles_n, C::GROUP_M, &bm, &bn);
    gp__matmul_k_range(gp__ceil_div(k, C::BK), gp__mm_slice<SPLIT>(), gp__mm_slices<SPLIT>(), &kt0, &kt1);
    const size_t row0 = bm * C::BM, col0 = bn * C::BN;
    const double *const a_blk = a + row0 * k, *const b_blk = b + col0;
    const size_t m_left = m - row0, n_left = n - col0;

    /* this lane's place: the warp's piece of C at (wm, wn), the lane (g, t) in a fragment */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int wm = warp / C::WARPS_N * C::WM, wn = warp % C::WARPS_N * C::WN;

    double acc[C::MI][C::NI][4];
#pragma unroll
    for (int i = 0; i < C::MI; i++)
#pragma unroll
        for (int j = 0; j < C::NI; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0;

    const gp__tile_async<double, C::BM, C::BK, C::THREADS, VEC_A, false> a_copy;
    const gp__tile_async<double, C::BK, C::BN, C::THREADS, VEC_B, false> b_copy;
    const bool interior = m_left >= (size_t)C::BM && n_left >= (size_t)C::BN;
    gp__mm_pipeline<C::STAGES>(
        kt1 - kt0,
        [&](size_t kt, int stage) {
            gp__mm_load_tile<C::BK>(a_copy, As + stage * C::STAGE_A, C::PITCH_A, b_copy, Bs + stage * C::STAGE_B,
                                    C::PITCH_B, a_blk, b_blk, (kt0 + kt) * C::BK, k, n, m_left, n_left, interior);
        },
        [&](int stage) {
            const double *const as = As + stage * C::STAGE_A + (wm + g) * C::PITCH_A + t;
            const double *const bs = Bs + stage * C::STAGE_B + t * C::PITCH_B + wn + g;
#pragma unroll
            for (int kk = 0; kk < C::BK; kk += 4) {
                double af[C::MI][2], bf[C::NI];
#pragma unroll
                for (int i = 0; i < C::MI; i++) {
                    af[i][0] = as[(i * 16) * C::PITCH_A + kk];
                    af[i][1] = as[(i * 16 + 8) * C::PITCH_A + kk];
                }
#pragma unroll
                for (int j = 0; j < C::NI; j++) bf[j] = bs[kk * C::PITCH_B + j * 8];
#pragma unroll
                for (int i = 0; i < C::MI; i++)
#pragma unroll
                    for (int j = 0; j < C::NI; j++) gp__dmma_16x8x4<C::M16 != 0>(acc[i][j], af[i], bf[j]);
            }
        });

    /* store: each fragment row holds 2 consecutive values of a row of C */
    auto store = [&](double *dst, size_t ld, size_t rows_left, size_t cols_left, bool vec) {
#pragma unroll
        for (int i = 0; i < C::MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const size_t row = (size_t)(wm + i * 16 + h * 8 + g);
                if (row >= rows_left) continue;
#pragma unroll
                for (int j = 0; j < C::NI; j++) {
                    const size_t col = (size_t)(wn + j * 8 + 2 * t);
                    if (col < cols_left) gp__mm_store<2>(dst + row * ld + col, &acc[i][j][2 * h], cols_left - col, vec);
                }
            }
    };
    gp__mm_epilogue<double, C::BM, C::BN, C::THREADS, SPLIT>(store, As, gp__mm_output<SPLIT>(c, m, n) + row0 * n + col0,
                                                              n, m_left, n_left, vec_c);
#else
    (void)c, (void)a, (void)b, (void)m, (void)n, (void)k, (void)tiles_m, (void)tiles_n, (void)vec_c;
#endif
}

/* Never launched: its attributes say which of the code built into this translation unit
 * the current device runs. */
template <int>
__global__ void gp__mm_probe_kernel(void) {}

/* *built = 1 when the current device runs code of this translation unit compiled for sm_80
 * or later, where the tensor-core kernel has a body. The PTX version of the code the device
 * runs (its SASS, or its PTX compiled at load time) is the __CUDA_ARCH__ it was compiled
 * with: a library built for sm_75 alone runs its sm_75 code on an H100 too. */
static inline cudaError_t gp__mm_tc_built(int *built)
{
    /* the answer per device (0: not asked yet, else 1 + built), as gp__kernel_load keeps
     * its loads: the query costs microseconds, and every f64 call asks */
    static int known[GP__MAX_DEVICES];
    int dev = -1;
    GP__TRY(cudaGetDevice(&dev));
    const bool cacheable = dev >= 0 && dev < GP__MAX_DEVICES;
    const int k = cacheable ? __atomic_load_n(&known[dev], __ATOMIC_ACQUIRE) : 0;
    if (k) {
        *built = k - 1;
        return cudaSuccess;
    }
    cudaFuncAttributes fa;
    GP__TRY(gp__kernel_attributes((const void *)gp__mm_probe_kernel<0>, &fa));
    *built = fa.ptxVersion >= 80;
    if (cacheable) __atomic_store_n(&known[dev], 1 + *built, __ATOMIC_RELEASE);
    return cudaSuccess;
}

/* The tensor-core kernel's instance for 16-byte (or 8-byte) copies of A and B. */
template <class C, int SPLIT>
static auto gp__mm_tc_instance(bool vec_a, bool vec_b)
{
    return vec_a ? (vec_b ? gp__matmul_tc_kernel<C, 2, 2, SPLIT> : gp__matmul_tc_kernel<C, 2, 1, SPLIT>)
                 : (vec_b ? gp__matmul_tc_kernel<C, 1, 2, SPLIT> : gp__matmul_tc_kernel<C, 1, 1, SPLIT>);
}

/* Launches tensor-core config C on the whole product; cudaErrorInvalidDeviceFunction (and
 * nothing launched) where its code was built for a target before sm_80. */
template <class C>
static cudaError_t gp__matmul_tc_launch(double *c, const double *a, const double *b, size_t m, size_t n, size_t k,
                                        unsigned slices, cudaStream_t s)
{
    int built = 0;
    GP__TRY(gp__mm_tc_built(&built));
    if (!built) return cudaErrorInvalidDeviceFunction;
    /* 16-byte copies and stores need every row to start on a 16-byte boundary */
    const bool vec_a = gp__tile_chunk_bytes((uintptr_t)a, k * 8, C::BK * 8, 8) == 16;
    const bool vec_b = gp__tile_chunk_bytes((uintptr_t)b, n * 8, C::BN * 8, 8) == 16;
    const bool vec_c = gp__tile_chunk_bytes((uintptr_t)c, n * 8, C::BN * 8, 8) == 16;
    const size_t tiles_m = gp__ceil_div(m, C::BM), tiles_n = gp__ceil_div(n, C::BN);
    const int split = gp__mm_split_of(slices);
    void (*kernel)(double *, const double *, const double *, size_t, size_t, size_t, size_t, size_t, bool) =
        gp__mm_tc_instance<C, GP__MM_UNSPLIT>(vec_a, vec_b);
    if constexpr (C::MAX_SLICES > 1)
        if (split == GP__MM_BY_CLUSTER) kernel = gp__mm_tc_instance<C, GP__MM_BY_CLUSTER>(vec_a, vec_b);
    if constexpr (C::MAX_WS_SLICES > 1)
        if (split == GP__MM_BY_WORKSPACE) kernel = gp__mm_tc_instance<C, GP__MM_BY_WORKSPACE>(vec_a, vec_b);
    static unsigned ready[GP__MAX_DEVICES];
    return gp__mm_launch_grid<C>(kernel, ready, 2 * vec_a + vec_b + 4 * split, tiles_m * tiles_n, slices, s, c, a, b,
                                 m, n, k, tiles_m, tiles_n, vec_c);
}

/* The dynamic shared memory a block of spec S needs, unsplit and split. */
template <class S>
static constexpr int gp__mm_smem_bytes(bool split)
{
    if constexpr (S::TC) return split ? gp__mm_tc_cfg<S>::SPLIT_SMEM : gp__mm_tc_cfg<S>::SMEM_BYTES;
    else return split ? gp__mm_cfg<S>::SPLIT_SMEM : gp__mm_cfg<S>::SMEM_BYTES;
}

/* A split through a workspace, its second kernel: C (mn elements) = the slices' partial
 * products (slabs of `slab` elements at ws), added in slice order; 16 bytes a thread where
 * C starts on 16 bytes (vec). Chained behind the product: it waits for it first. */
template <class T>
__global__ void __launch_bounds__(GP__MM_SUM_THREADS)
    gp__mm_sum_slabs_kernel(T *c, const T *ws, size_t mn, size_t slab, unsigned slices, bool vec)
{
    enum { V = 16 / (int)sizeof(T) };
    gp__chain_wait();
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    const size_t units = vec ? mn / V : 0; /* whole 16-byte pieces; the rest element by element */
    for (size_t u = first; u < units; u += step) {
        T sum[V], p[V];
        const uint4 w0 = reinterpret_cast<const uint4 *>(ws + u * V)[0];
        memcpy(sum, &w0, sizeof sum);
        for (unsigned q = 1; q < slices; q++) {
            const uint4 w = reinterpret_cast<const uint4 *>(ws + q * slab + u * V)[0];
            memcpy(p, &w, sizeof p);
#pragma unroll
            for (int v = 0; v < V; v++) sum[v] += p[v];
        }
        uint4 out;
        memcpy(&out, sum, sizeof out);
        reinterpret_cast<uint4 *>(c + u * V)[0] = out;
    }
    for (size_t i = units * V + first; i < mn; i += step) {
        T sum = ws[i];
        for (unsigned q = 1; q < slices; q++) sum += ws[q * slab + i];
        c[i] = sum;
    }
}

/* Config S's launch (`launch`: its one-kernel launcher) with k split through a workspace
 * (slices | GP__MM_WORKSPACE, a count gp__mm_launcher has checked): the slabs in
 * stream-ordered scratch, then their sum into C. */
template <class T>
static cudaError_t gp__matmul_by_workspace(T *c, const T *a, const T *b, size_t m, size_t n, size_t k, unsigned slices,
                                           cudaStream_t s,
                                           cudaError_t (*launch)(T *, const T *, const T *, size_t, size_t, size_t,
                                                                 unsigned, cudaStream_t))
{
    const unsigned count = slices & ~GP__MM_WORKSPACE;
    const size_t slab = gp__mm_slab(m, n, sizeof(T));
    if (slab > SIZE_MAX / sizeof(T) / count) return cudaErrorInvalidValue;
    int dev = -1;
    GP__TRY(cudaGetDevice(&dev));
    gp__device g;
    GP__TRY(gp__device_query(&g, dev));
    GP__TRY(gp__kernel_load<gp__mm_sum_slabs_kernel<T>>());
    void *ws = NULL;
    GP__TRY(gp__scratch_alloc(&ws, count * slab * sizeof(T), dev, s));
    cudaError_t err = launch(static_cast<T *>(ws), a, b, m, n, k, slices, s);
    if (err == cudaSuccess) {
        const bool vec = (uintptr_t)c % 16 == 0;
        const size_t pieces = vec ? gp__ceil_div(m * n, (size_t)(16 / sizeof(T))) : m * n;
        const size_t blocks = gp__min_size(gp__ceil_div(pieces, (size_t)GP__MM_SUM_THREADS), (size_t)g.sms * 8);
        err = gp__chained_launch(gp__mm_sum_slabs_kernel<T>, (unsigned)blocks, GP__MM_SUM_THREADS, s, g.cluster_ok != 0,
                                 c, (const T *)ws, m * n, slab, count, vec);
    }
    const cudaError_t free_err = cudaFreeAsync(ws, s);
    return err != cudaSuccess ? err : free_err;
}

/* Config S on the CUDA cores or the tensor cores, as S::TC says: one kernel. */
template <class S>
static cudaError_t gp__mm_launch_one(typename S::type *c, const typename S::type *a, const typename S::type *b,
                                     size_t m, size_t n, size_t k, unsigned slices, cudaStream_t s)
{
    if constexpr (S::TC) return gp__matmul_tc_launch<gp__mm_tc_cfg<S> >(c, a, b, m, n, k, slices, s);
    else return gp__matmul_launch<gp__mm_cfg<S> >(c, a, b, m, n, k, slices, s);
}

/* The launcher of spec S: k unsplit, split over clusters, or through a workspace
 * (slices | GP__MM_WORKSPACE: two kernels). */
template <class S>
static cudaError_t gp__mm_launcher(typename S::type *c, const typename S::type *a, const typename S::type *b,
                                   size_t m, size_t n, size_t k, unsigned slices, cudaStream_t s)
{
    static_assert(S::MAX_WS_SLICES <= GP__MM_WS_SLICES_MAX, "gp_matmul: a config's workspace split past the limit");
    if (slices & GP__MM_WORKSPACE) { /* checked here, before the workspace is allocated */
        const unsigned count = slices & ~GP__MM_WORKSPACE;
        if (count < 2 || count > (unsigned)S::MAX_WS_SLICES) return cudaErrorInvalidValue;
        return gp__matmul_by_workspace<typename S::type>(c, a, b, m, n, k, slices, s, gp__mm_launch_one<S>);
    }
    return gp__mm_launch_one<S>(c, a, b, m, n, k, slices, s);
}

/* The configs gp_matmul chooses from, per type, largest first. EFF is a config's
 * throughput on a busy GPU relative to the first (f32: TFLOP/s on the H100, from
 * bench/matmul/matmul.cu's tile sweep), for gp__matmul_choose. VEC_B_ONLY: the config runs only
 * where B's rows allow 16-byte copies; MIN_WAVES, MAX_WAVES: only where the grid is that
 * many waves of blocks resident at once (MAX_WAVES 1: all of them at once; 0: no limit);
 * gp__matmul_choose skips it elsewhere.
 * f32: the 128 x 128 tile with BK = 32 (two stages of 33 KB, two blocks per SM) where B's
 * rows are 16-byte aligned; with one-element copies of B the same tile with BK = 16, which
 * measured 1.09x of BK = 32 there (4097 x 3001 x 2049). Beside these the sweeps measured
 * 3 stages at BK = 32, 128 threads of 16 x 8 or 8 x 16, 256 threads of 4 x 8 in a
 * 128 x 64 tile and A by rows in shared memory (as fast or slower everywhere); BK = 24 at
 * 3 stages (1.02x of the chosen BK = 16 at 4097 x 3001 x 2049 in one run, slower at the
 * aligned shapes: a candidate for one-element copies of B); and a 32 x 64 warp tile (8
 * lanes across a row of C instead of 4). That warp tile:
 *  - 128 x 128 at BK = 32: 1.03x at 1024^3 and 2048^3, grids of one wave (2048^3 on the
 *    H100: 256 tiles, 132 SMs x 2 blocks), where every block starts at once and the call
 *    lasts as long as one block; but 0.98x at 4096^3 and 0.97x at 8192^3, where blocks
 *    follow each other over several waves. So it is a config of its own,
 *    gp__mm_f32_128x128_w32x64, taken only for one-wave grids: a rule in the SMs and blocks
 *    per SM of the GPU at hand, not in sizes. Why the warp's shape matters is not settled:
 *    it changes neither the block's copies nor the shared loads per FMA, only which lanes
 *    share a fragment and how a row of C is stored.
 *  - 128 x 128 at BK = 16, 4 stages: 1.02-1.03x of the 64 x 32 warp tile (at 2, 3 or 4
 *    stages) at 4097 x 3001 x 2049 (one-element copies of B, three waves) in three runs;
 *    with 16-byte copies, where the BK = 32 configs run instead, 0.99-1.07x of it.
 *  - 128 x 64, 3 stages: 1.01-1.04x of the 64 x 32 warp tile at every shape swept (4
 *    warps of 32 x 64 stacked in m). 3 stages of 12 KB: as fast as 4 stages or up to
 *    1.02x faster, and within the 48 KB a block gets without the shared-memory opt-in.
 *    This tile is for products too small to fill the GPU with 128 x 128 tiles (1000^3).
 * (The bench's sweep table has the figures.) */
struct gp__mm_f32_128x128 {
    typedef float type;
    static constexpr int BM = 128, BN = 128, BK = 32, WM = 64, WN = 32, TM = 8, TN = 8;
    static constexpr int STAGES = 2, GROUP_M = 8, MIN_BLOCKS = 2, TC = 0, VEC_B_ONLY = 1, MIN_WAVES = 0, MAX_WAVES = 0;
    static constexpr int MAX_SLICES = 1, MAX_WS_SLICES = 1;
    static constexpr float EFF = 1.00f;
};
struct gp__mm_f32_128x128_w32x64 : gp__mm_f32_128x128 {
    static constexpr int WM = 32, WN = 64, MAX_WAVES = 1, MAX_SLICES = 2, MAX_WS_SLICES = GP__MM_WS_SLICES_MAX;
    static constexpr float EFF = 1.03f; /* in one wave; 0.97 at 8192^3 */
};
struct gp__mm_f32_128x128x16 : gp__mm_f32_128x128 {
    static constexpr int BK = 16, WM = 32, WN = 64, STAGES = 4, VEC_B_ONLY = 0, MAX_SLICES = 2;
    static constexpr int MAX_WS_SLICES = GP__MM_WS_SLICES_MAX;
    static constexpr float EFF = 0.96f;
};
struct gp__mm_f32_128x64 : gp__mm_f32_128x128x16 {
    static constexpr int BN = 64, STAGES = 3, MIN_BLOCKS = 3, MAX_SLICES = 2, MAX_WS_SLICES = 1;
    static constexpr float EFF = 0.90f;
};
struct gp__mm_f32_64x64 : gp__mm_f32_128x128x16 {
    static constexpr int BM = 64, BN = 64, BK = 8, WM = 32, WN = 32, TM = 4, STAGES = 4, MIN_BLOCKS = 4, MAX_SLICES = 2;
    static constexpr int MAX_WS_SLICES = 1;
    static constexpr float EFF = 0.75f;
};
/* FP64 on the tensor cores (sm_80 and later). EFF relative to the first, from the H100's
 * f64 tile sweep at 8192^3. 64 x 32 of C per warp is 64 doubles per lane (210 registers),
 * so one block of 8 warps per SM. Beside these the sweep measured a 32 x 64 warp tile, 3
 * stages, BK = 8 and 32 and a 128 x 64 block tile: as fast or slower where it matters;
 * and sm_80's m8n8k4 at 0.6x of m16n8k4 on the H100 (M16 = 0 is the sm_80-89 path).
 * MIN_WAVES 3: the one block an SM holds pays its pipeline's fill and its stores of C
 * with nothing beside it to overlap them, and at 2048^3 (256 tiles on 132 SMs, two
 * waves) the 64 x 64 tile, three blocks an SM, measured 9-11% faster in three runs (the
 * H100 twice, the H200: 47.9 / 47.6 / 48.9 TFLOP/s against 43.2 / 43.5 / 44.3); from six
 * waves on (4097 x 3001 x 2049, 4096^3, 8192^3) it is the 128 x 128 tile that wins, by
 * 3-16% in the same runs. */
struct gp__mm_f64_tc_128x128 {
    typedef double type;
    static constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 32;
    static constexpr int STAGES = 4, GROUP_M = 8, MIN_BLOCKS = 1, TC = 1, M16 = 1, VEC_B_ONLY = 0;
    static constexpr int MIN_WAVES = 3, MAX_WAVES = 0, MAX_SLICES = 1, MAX_WS_SLICES = 1;
    static constexpr float EFF = 1.00f;
};
/* for products too small to give every SM 128 x 128 tiles (1000^3: 64 of them on 132 SMs),
 * or too small for three waves of them (2048^3); k split in two where even its tiles leave
 * SMs idle (512 x 512 x 8192) */
struct gp__mm_f64_tc_64x64 : gp__mm_f64_tc_128x128 {
    static constexpr int BM = 64, BN = 64, WM = 32, WN = 32, STAGES = 4, MIN_BLOCKS = 3, MIN_WAVES = 0, MAX_SLICES = 2;
    static constexpr int MAX_WS_SLICES = GP__MM_WS_SLICES_MAX;
    static constexpr float EFF = 0.94f;
};
/* FP64 on the CUDA cores (where the code is built for targets before sm_80): twice the
 * registers per value, so smaller thread tiles. */
struct gp__mm_f64_64x64 {
    typedef double type;
    static constexpr int BM = 64, BN = 64, BK = 8, WM = 32, WN = 32, TM = 4, TN = 8;
    static constexpr int STAGES = 4, GROUP_M = 8, MIN_BLOCKS = 3, TC = 0, VEC_B_ONLY = 0, MIN_WAVES = 0, MAX_WAVES = 0;
    static constexpr int MAX_SLICES = 1, MAX_WS_SLICES = 1;
    static constexpr float EFF = 0.40f;
};
struct gp__mm_f64_64x32 : gp__mm_f64_64x64 {
    static constexpr int BN = 32, WN = 16, TN = 4, MIN_BLOCKS = 5;
    static constexpr float EFF = 0.28f;
};
#define GP__MATMUL_CONFIGS_f32(X) \
    X(gp__mm_f32_128x128) X(gp__mm_f32_128x128_w32x64) X(gp__mm_f32_128x128x16) X(gp__mm_f32_128x64) X(gp__mm_f32_64x64)
#define GP__MATMUL_CONFIGS_f64(X) \
    X(gp__mm_f64_tc_128x128) X(gp__mm_f64_tc_64x64) X(gp__mm_f64_64x64) X(gp__mm_f64_64x32)

/* A config's entries for gp__matmul_choose, and its launcher: for the host tables. */
template <class S>
static constexpr gp__mm_plan_cfg gp__mm_plan_of(void)
{
    return {S::BM, S::BN, S::BK, gp__mm_smem_bytes<S>(false), S::MIN_BLOCKS,
            (S::TC ? GP__MM_NEED_TC : 0) | (S::VEC_B_ONLY ? GP__MM_NEED_B16 : 0), S::EFF, S::MIN_WAVES,
            S::MAX_WAVES, S::MAX_SLICES, gp__mm_smem_bytes<S>(true), S::MAX_WS_SLICES};
}
#define GP__MM_PLAN(S) gp__mm_plan_of<S>(),
#define GP__MM_LAUNCHER(S) gp__mm_launcher<S>,

/* A product whose matrices sit below their type's alignment (a double at a 4-byte
 * boundary: the host API accepts it; the copies and FMAs want whole elements): A and B
 * are copied to aligned stream-ordered scratch, the product lands in aligned scratch and
 * is copied to C. O(mk + kn + mn) extra traffic against O(mnk) work. */
template <class T>
static cudaError_t gp__matmul_staged(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, unsigned slices,
                                     cudaStream_t s, int dev,
                                     cudaError_t (*launch)(T *, const T *, const T *, size_t, size_t, size_t, unsigned,
                                                           cudaStream_t))
{
    const size_t a_bytes = m * k * sizeof(T), b_bytes = k * n * sizeof(T), c_bytes = m * n * sizeof(T);
    const size_t b_off = gp__round_up(a_bytes, GP__SCRATCH_ALIGN), c_off = b_off + gp__round_up(b_bytes, GP__SCRATCH_ALIGN);
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, c_off + c_bytes, dev, s));
    T *a = static_cast<T *>(scratch), *b = reinterpret_cast<T *>(static_cast<char *>(scratch) + b_off),
      *c = reinterpret_cast<T *>(static_cast<char *>(scratch) + c_off);
    cudaError_t err = cudaSuccess;
    if (k > 0) err = cudaMemcpyAsync(a, d_a, a_bytes, cudaMemcpyDeviceToDevice, s);
    if (err == cudaSuccess && k > 0) err = cudaMemcpyAsync(b, d_b, b_bytes, cudaMemcpyDeviceToDevice, s);
    if (err == cudaSuccess) err = launch(c, a, b, m, n, k, slices, s);
    if (err == cudaSuccess) err = cudaMemcpyAsync(d_c, c, c_bytes, cudaMemcpyDeviceToDevice, s);
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

/* The host side of gp_matmul_<name>: checks, tile choice (and k split), one launch. */
template <class T, int N>
static cudaError_t gp__matmul(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, cudaStream_t s,
                              const gp__mm_plan_cfg (&cfg)[N],
                              cudaError_t (*const (&launch)[N])(T *, const T *, const T *, size_t, size_t, size_t,
                                                                unsigned, cudaStream_t))
{
    if (m == 0 || n == 0) return cudaSuccess; /* C is empty */
    if (d_c == NULL || (k > 0 && (d_a == NULL || d_b == NULL))) return cudaErrorInvalidValue;
    if (!gp__matmul_shape_ok(m, n, k, sizeof(T), 32)) return cudaErrorInvalidValue;
    /* C is written while A and B are still being read */
    if (gp__ranges_overlap(d_c, m * n * sizeof(T), d_a, m * k * sizeof(T)) ||
        gp__ranges_overlap(d_c, m * n * sizeof(T), d_b, k * n * sizeof(T)))
        return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device gpu; /* what gp__matmul_choose weighs: SMs and shared memory */
    GP__TRY(gp__device_query(&gpu, on.dev));
    int have = 0; /* the tensor-core configs run where this code was built for sm_80+ */
    for (int i = 0; i < N; i++)
        if (cfg[i].needs & GP__MM_NEED_TC) {
            int built = 0;
            GP__TRY(gp__mm_tc_built(&built));
            have |= built ? GP__MM_NEED_TC : 0;
            break;
        }
    if (gp__tile_chunk_bytes((uintptr_t)d_b, n * sizeof(T), 16, sizeof(T)) == 16) have |= GP__MM_NEED_B16;
    unsigned slices = 1;
    const int i = gp__matmul_choose(m, n, k, &gpu, have, cfg, N, &slices);
    if (i < 0) return cudaErrorNotSupported;
    if (((uintptr_t)d_a | (uintptr_t)d_b | (uintptr_t)d_c) % alignof(T) == 0)
        return launch[i](d_c, d_a, d_b, m, n, k, slices, s);
    return gp__matmul_staged(d_c, d_a, d_b, m, n, k, slices, s, on.dev, launch[i]);
}

/* ---- instantiation ------------------------------------------------------------------------
 * GP__DEFINE_MATMUL_HOST: the host function gp_matmul_<name> (name f32 or f64), with the
 * linkage given by SCOPE; its config table comes from GP__MATMUL_CONFIGS_<name>. Only the
 * two default instances exist: the kernel is written for float and double FMA. */
#define GP__DEFINE_MATMUL_HOST(SCOPE, name, T)                                                             \
    SCOPE cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k,   \
                                       cudaStream_t s)                                                     \
    {                                                                                                      \
        static constexpr gp__mm_plan_cfg cfg[] = {GP__MATMUL_CONFIGS_##name(GP__MM_PLAN)};                 \
        static cudaError_t (*const launch[])(T *, const T *, const T *, size_t, size_t, size_t, unsigned,  \
                                             cudaStream_t) = {GP__MATMUL_CONFIGS_##name(GP__MM_LAUNCHER)}; \
        return gp__matmul<T>(d_c, d_a, d_b, m, n, k, s, cfg, launch);                                      \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_CUH */
