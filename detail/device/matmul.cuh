/* detail/device/matmul.cuh -- tiled matrix multiply, row-major C = A.B: FP32 FMA on the CUDA
 * cores (no TF32), FP64 on the FP64 tensor cores (IEEE double FMA; the CUDA cores before
 * sm_80); the tiling of Kirk & Hwu's tiled matrix multiply, taken to Hopper. Level 4:
 * needs matmul_plan.cuh, matmul_kernels.cuh, tile.cuh (gp__tile_chunk_bytes), launch.cuh,
 * scratch.cuh, device_cache.cuh, check.cuh and common.cuh. The
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
 * its code was compiled for sm_80 or later (gp__mm_tc_built), else the CUDA-core kernel.
 *
 * Files: device/matmul_plan.cuh (the plan arithmetic), device/matmul_kernels.cuh (the
 * kernels), this one (the launchers, the configs, the host function and its macro). */
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
#include "../util/device_cache.cuh"
#include "matmul_plan.cuh"
#include "matmul_kernels.cuh"

/* ---- launchers --------------------------------------------------------------------------
 * Not through the shared launch skeleton (gp__launch_device_wide, util/launch.cuh), which
 * launches one kernel as one block, one cluster or a 1-D grid around the scratch it
 * clears: a product is a 1-D grid of many clusters (k split over clusters), a 2-D grid
 * (k split over the grid's rows), or two kernels around one uncleared workspace (the
 * product into it, then the chained sum out of it); the pieces it shares with the
 * skeleton are the skeleton's own helpers (gp__kernel_load, gp__cluster_attribute,
 * gp__chained_launch, gp__scratch_alloc, gp__device_query). */

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
 * the shared memory that needs (loaded and opted in once per device: entry `which` of
 * `ready`, gp__kernel_load). The clusters' placement is left to the GPU: the spread and
 * load-balancing policies measured the same as the default for clusters of two
 * (bench/matmul/probes/matmul_split.cu). */
template <class C, int KEYS, class... Params, class... Args>
static cudaError_t gp__mm_launch_grid(void (*kernel)(Params...), gp__device_cache<char, KEYS> &ready, int which,
                                      size_t tiles, unsigned slices, cudaStream_t s, Args... args)
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
    static gp__device_cache<char, 6> ready; /* vec_b + 2 * split */
    return gp__mm_launch_grid<C>(kernel, ready, vec_b + 2 * split, tiles_m * tiles_n, slices, s, c, a, b, m, n, k,
                                 tiles_m, tiles_n, vec_c);
}

/* *built = 1 when the current device runs code of this translation unit compiled for sm_80
 * or later, where the tensor-core kernel has a body. The PTX version of the code the device
 * runs (its SASS, or its PTX compiled at load time) is the __CUDA_ARCH__ it was compiled
 * with: a library built for sm_75 alone runs its sm_75 code on an H100 too. */
static inline cudaError_t gp__mm_tc_built(int *built)
{
    /* the answer per device (device_cache.cuh), as gp__kernel_load keeps its loads: the
     * query costs microseconds, and every f64 call asks */
    static gp__device_cache<int> known;
    int dev = -1;
    GP__TRY(cudaGetDevice(&dev));
    return known.get(dev, 0, built, [&](int *b) {
        cudaFuncAttributes fa;
        GP__TRY(gp__kernel_attributes((const void *)gp__mm_probe_kernel<0>, &fa));
        *b = fa.ptxVersion >= 80;
        return cudaSuccess;
    });
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
    static gp__device_cache<char, 12> ready; /* 2 * vec_a + vec_b + 4 * split */
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

/* Every tile config's launcher of the default instances (f32, f64), in the order of
 * GP__MATMUL_CONFIGS_<name>: the table gp_matmul_<name> picks from, for the tests, which run
 * each config directly (gp_matmul runs one a shape) without compiling every matmul kernel
 * again. Defined with gp_matmul_<name> (GP__DEFINE_MATMUL_HOST, below); not API, and not
 * exported by the shared library (C++ names: overloads by the element type). */
template <class T>
using gp__mm_launch_fn = cudaError_t (*)(T *, const T *, const T *, size_t, size_t, size_t, unsigned, cudaStream_t);
const gp__mm_launch_fn<float> *gp__matmul_launchers(const float *);
const gp__mm_launch_fn<double> *gp__matmul_launchers(const double *);

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
    static const gp__mm_launch_fn<T> gp__mm_launch_##name[] = {GP__MATMUL_CONFIGS_##name(GP__MM_LAUNCHER)}; \
    SCOPE cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k,   \
                                       cudaStream_t s)                                                     \
    {                                                                                                      \
        static constexpr gp__mm_plan_cfg cfg[] = {GP__MATMUL_CONFIGS_##name(GP__MM_PLAN)};                 \
        return gp__matmul<T>(d_c, d_a, d_b, m, n, k, s, cfg, gp__mm_launch_##name);                        \
    }                                                                                                      \
    const gp__mm_launch_fn<T> *gp__matmul_launchers(const T *) { return gp__mm_launch_##name; }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_CUH */
