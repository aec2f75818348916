/* detail/device/matmul_plan.cuh -- the matrix multiply's plan arithmetic: block order, shape
 * checks, split-k sizes, the model that picks a config (tile, and how k is split) per shape
 * and GPU. Level 4 (plain host/device code, tested on the host): needs util/common.cuh and
 * util/launch.cuh (gp__device). See device/matmul.cuh for how the product works. */
#ifndef GPUPRIMS_DETAIL_MATMUL_PLAN_CUH
#define GPUPRIMS_DETAIL_MATMUL_PLAN_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/launch.cuh"

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

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_PLAN_CUH */
