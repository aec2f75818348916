/* detail/matmul.cuh -- tiled matrix multiply, row-major C = A.B, plain FP32/FP64 FMA on
 * the CUDA cores (no TF32, no tensor cores); the tiling of Kirk & Hwu's tiled matrix
 * multiply, taken to Hopper. Level 3: needs tile.cuh (gp__tile_chunk_bytes),
 * async_copy.cuh, check.cuh and common.cuh. The plan arithmetic (block order, tile choice,
 * shape checks) is plain host/device code, tested on the host.
 *
 * How it works (one kernel template, gp__matmul_kernel; a config picks its sizes).
 *  - Block tile BM x BN of C. The k dimension is walked BK at a time: A's BM x BK tile and
 *    B's BK x BN tile go to shared memory with cp.async, STAGES tiles in flight, so the
 *    copy of tile kt+STAGES-1 overlaps the arithmetic on tile kt (one barrier per tile).
 *  - A is stored transposed in shared memory (As[k][m]), so a thread's TM values of one k
 *    are contiguous and come in with 16-byte shared loads, as B's TN values do. The
 *    transposing copy moves one element per cp.async; a warp copies an 8 (k) x 4 (m)
 *    patch, which reads four full 32-byte sectors and writes 32 distinct banks (the rows
 *    of As are padded by 16 bytes). B is copied 16 bytes at a time when its rows allow.
 *  - Warp tiling: warp w owns a WM x WN piece of the block tile; inside it each lane owns
 *    TM x TN values of C in registers, as (TM/4) x (TN/4) sub-tiles of 4 x 4 spread over
 *    the warp's piece, so that the lanes' 16-byte shared loads are broadcasts over 128
 *    contiguous bytes (one wavefront, no bank conflict).
 *  - Edges: the copies clip to the matrix (missing elements are zero-filled by cp.async),
 *    so partial tiles in m, n and k need no other code; the stores are guarded.
 *  - Blocks are numbered in groups of GROUP_M block-rows (column-major inside a group), so
 *    blocks running together share A and B tiles in L2.
 *  - The tile size is chosen per shape (gp__matmul_choose): big tiles reuse more, small
 *    tiles fill all SMs when m x n is small. */
#ifndef GPUPRIMS_DETAIL_MATMUL_CUH
#define GPUPRIMS_DETAIL_MATMUL_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "common.cuh"

/* GP_DECLARE_MATMUL(name, T): the host function's declaration, with C linkage. */
#define GP_DECLARE_MATMUL(name, T)                                                                       \
    GP__EXTERN_C cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, \
                                              cudaStream_t s);

#ifdef __CUDACC__
#include "check.cuh"
#include "async_copy.cuh"
#include "launch.cuh"
#include "scratch.cuh"
#include "tile.cuh"

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

/* Which of `ncfg` block-tile sizes (bm[i] x bn[i], relative per-SM throughput eff[i] when
 * the SM is busy) finishes an m x n product first on `sms` SMs. Model: blocks are spread
 * evenly, so the busiest SM computes ceil(tiles / sms) tiles of bm x bn at its rate eff;
 * ties go to the earlier (larger) config. Big tiles win on large products; small ones
 * when big tiles would leave SMs idle (1024^2: 64 tiles of 128 x 128 on 132 SMs). */
static inline GP__HD int gp__matmul_choose(size_t m, size_t n, unsigned sms, const int *bm, const int *bn,
                                                        const float *eff, int ncfg)
{
    int best = 0;
    double best_t = 0;
    for (int i = 0; i < ncfg; i++) {
        const size_t tiles = gp__ceil_div(m, (size_t)bm[i]) * gp__ceil_div(n, (size_t)bn[i]);
        const double t = (double)gp__ceil_div(tiles, sms) * bm[i] * bn[i] / eff[i];
        if (i == 0 || t < best_t) { best = i; best_t = t; }
    }
    return best;
}


/* ---- Fixed-shape asynchronous tile copies, for pipelined kernels ------------------------
 * Used by detail/matmul.cuh. Like gp__tile_load_async, in the same chunk order, but the
 * tile shape, the block size (a 1-D block of NT threads) and the chunk width are fixed at
 * compile time (the caller checks alignment, e.g. with gp__tile_chunk_bytes), so each
 * thread's addresses are worked out once; one variant transposes; and the caller manages
 * the groups (gp__cp_async_commit, gp__cp_async_wait<N>), so that tile k + 1 is copied
 * while the block computes on tile k. Parts of a tile outside the matrix are zero-filled.
 * The caller waits and calls __syncthreads() before reading a tile. */

/* gp__tile_async<T, ROWS, COLS, NT, VEC, TRANSPOSE>: one thread's share of copying a
 * ROWS x COLS tile, with its place in the tile worked out once (the constructor). Thread t copies COPIES pieces at
 * (r0 + p * RSTEP, c0), p = 0 .. COPIES-1:
 *  - TRANSPOSE == false: VEC elements per copy (VEC * sizeof(T) = 4, 8 or 16 bytes; for
 *    VEC > 1 the caller guarantees whole, 16-byte aligned vectors), s[r][c] = g[r][c]; a
 *    warp copies consecutive vectors of a row.
 *  - TRANSPOSE == true: one element per copy, s[c][r] = g[r][c]; a warp copies an 8 (c) x 4
 *    (r) patch: four rows of 8 consecutive elements (whole 32-byte sectors when aligned),
 *    written to distinct banks when s_pitch * sizeof(T) % 128 == 16 (4-byte T: rows
 *    ROWS + 4 elements long, ROWS a multiple of 32).
 * load<CHECK>(s, s_pitch, g, ld, rows_left, cols_left): g is the tile's top-left element
 * (a real one: it is also the source of the zero-filled copies). With CHECK, the tile is
 * clipped to rows_left x cols_left and the rest zero-filled; without, all of it must exist. */
template <class T, int ROWS, int COLS, int NT, int VEC, bool TRANSPOSE>
struct gp__tile_async {
    enum {
        PER_ROW = COLS / VEC,                          /* copies per row (TRANSPOSE: 8-wide patches) */
        COPIES = ROWS * COLS / VEC / NT,               /* per thread */
        KG = COLS / 8,                                 /* TRANSPOSE: patches across a row */
        RSTEP = TRANSPOSE ? NT / 32 / KG * 4 : NT / PER_ROW, /* rows between a thread's copies */
    };
    static_assert(!TRANSPOSE || VEC == 1, "the transposing copy moves one element at a time");
    static_assert(TRANSPOSE ? COLS % 8 == 0 && (NT / 32) % KG == 0 && ROWS % RSTEP == 0
                            : COLS % VEC == 0 && NT % PER_ROW == 0,
                  "every thread's copies lie in one column, RSTEP rows apart");
    static_assert((ROWS * COLS / VEC) % NT == 0 && NT % 32 == 0, "whole passes of whole warps");
    int r0, c0;
    __device__ __forceinline__ gp__tile_async()
    {
        const int t = (int)threadIdx.x, lane = t & 31;
        if (TRANSPOSE) {
            c0 = (t >> 5) % KG * 8 + (lane & 7);
            r0 = (t >> 5) / KG * 4 + (lane >> 3);
        } else {
            c0 = t % PER_ROW * VEC;
            r0 = t / PER_ROW;
        }
    }
    template <bool CHECK>
    __device__ __forceinline__ void load(T *s, int s_pitch, const T *g, size_t ld, size_t rows_left,
                                         size_t cols_left) const
    {
        const T *const src = g + r0 * ld + c0;
        T *const dst = TRANSPOSE ? s + c0 * s_pitch + r0 : s + r0 * s_pitch + c0;
        const bool col_ok = !CHECK || (size_t)c0 < cols_left;
#pragma unroll
        for (int p = 0; p < COPIES; p++) {
            const bool ok = col_ok && (!CHECK || (size_t)(r0 + p * RSTEP) < rows_left);
            gp__cp_async<VEC * sizeof(T)>(dst + p * RSTEP * (TRANSPOSE ? 1 : s_pitch),
                                          ok ? src + p * RSTEP * ld : g, ok);
        }
    }
};

/* ---- the kernel ------------------------------------------------------------------------ */

/* A configuration is a struct of named sizes (a "spec"), for example
 *     struct gp__mm_f32_128x128 {
 *         typedef float type;
 *         static constexpr int BM = 128, BN = 128, BK = 16;  block tile of C, k step
 *         static constexpr int WM = 64, WN = 32;             warp tile
 *         static constexpr int TM = 8, TN = 8;               values of C per thread (multiples of 4)
 *         static constexpr int STAGES = 3;                   tiles in flight (1: load, wait, compute)
 *         static constexpr int GROUP_M = 8;                  block-rows per L2 group
 *         static constexpr int MIN_BLOCKS = 2;               resident blocks per SM (launch bounds)
 *         static constexpr float EFF = 1.00f;                relative throughput (gp__matmul_choose)
 *     };
 * A variant derives from another spec and overrides one name (the bench's ladder does).
 * gp__mm_cfg<Spec> adds what follows from the sizes. */
template <class S>
struct gp__mm_cfg : S {
    typedef typename S::type T;
    enum {
        WARPS_N = S::BN / S::WN, WARPS = (S::BM / S::WM) * (S::BN / S::WN), THREADS = WARPS * 32,
        LANES_M = S::WM / S::TM, LANES_N = S::WN / S::TN,         /* a warp's lanes, as LANES_M x LANES_N */
        SUB_M = S::WM / (S::TM / 4), SUB_N = S::WN / (S::TN / 4), /* a warp's piece per 4 x 4 sub-tile */
        PAD = 16 / (int)sizeof(T),                                /* As row padding: 16 bytes */
        PITCH_A = S::BM + PAD, PITCH_B = S::BN,
        STAGE_ELEMS = S::BK * (PITCH_A + PITCH_B),
        SMEM_BYTES = S::STAGES * STAGE_ELEMS * (int)sizeof(T),
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

template <class C, bool VEC_B>
__global__ void __launch_bounds__(C::THREADS, GP__MIN_BLOCKS(C::THREADS, C::MIN_BLOCKS))
    gp__matmul_kernel(typename C::type *c, const typename C::type *a, const typename C::type *b, size_t m, size_t n,
                      size_t k, size_t tiles_m, size_t tiles_n, bool vec_c)
{
    typedef typename C::type T;
    extern __shared__ __align__(16) unsigned char gp__mm_smem[];
    T *const As = reinterpret_cast<T *>(gp__mm_smem);     /* [STAGES][BK][PITCH_A] */
    T *const Bs = As + C::STAGES * C::BK * C::PITCH_A;     /* [STAGES][BK][PITCH_B] */

    size_t bm, bn;
    gp__matmul_tile_of(blockIdx.x, tiles_m, tiles_n, C::GROUP_M, &bm, &bn);
    const size_t row0 = bm * C::BM, col0 = bn * C::BN;
    const T *const a_blk = a + row0 * k, *const b_blk = b + col0;
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

    /* This thread's copies of A's and B's tiles. Interior tiles (all of the block's rows
     * and columns exist, and all BK of k) skip the bounds checks. */
    const gp__tile_async<T, C::BM, C::BK, C::THREADS, 1, true> a_copy;
    const gp__tile_async<T, C::BK, C::BN, C::THREADS, VEC_B ? 16 / (int)sizeof(T) : 1, false> b_copy;
    const bool interior = m_left >= (size_t)C::BM && n_left >= (size_t)C::BN;
    auto load = [&](size_t kt, int stage) {
        const size_t k0 = kt * C::BK;
        T *const as = As + stage * (C::BK * C::PITCH_A), *const bs = Bs + stage * (C::BK * C::PITCH_B);
        if (interior && k0 + C::BK <= k) {
            a_copy.template load<false>(as, C::PITCH_A, a_blk + k0, k, m_left, k - k0);
            b_copy.template load<false>(bs, C::PITCH_B, b_blk + k0 * n, n, k - k0, n_left);
        } else {
            a_copy.template load<true>(as, C::PITCH_A, a_blk + k0, k, m_left, k - k0);
            b_copy.template load<true>(bs, C::PITCH_B, b_blk + k0 * n, n, k - k0, n_left);
        }
    };

    const size_t ktiles = gp__ceil_div(k, C::BK);
    int read = 0, write = C::STAGES - 1; /* the stage computed on, the stage copied into */
    if constexpr (C::STAGES > 1) {
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++) {
            if ((size_t)s < ktiles) load(s, s);
            gp__cp_async_commit(); /* one group per tile, empty ones too: the count stays exact */
        }
    }
    for (size_t kt = 0; kt < ktiles; kt++) {
        if constexpr (C::STAGES > 1) {
            gp__cp_async_wait<C::STAGES - 2>(); /* this thread's copies of tile kt have landed */
            __syncthreads();                    /* everyone's have; everyone is done with tile kt-1 */
            if (kt + C::STAGES - 1 < ktiles) load(kt + C::STAGES - 1, write); /* where tile kt-1 was */
            gp__cp_async_commit();
        } else {
            load(kt, 0);
            gp__cp_async_commit();
            gp__cp_async_wait<0>();
            __syncthreads();
        }
        const T *const as = As + read * (C::BK * C::PITCH_A) + a_off;
        const T *const bs = Bs + read * (C::BK * C::PITCH_B) + b_off;
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
        if constexpr (C::STAGES == 1) {
            __syncthreads(); /* before the next tile overwrites this one */
        } else {
            read = read + 1 == C::STAGES ? 0 : read + 1;
            write = write + 1 == C::STAGES ? 0 : write + 1;
        }
    }
    if constexpr (C::STAGES > 1) gp__cp_async_wait<0>(); /* no copy outlives the block (empty groups) */

    /* Store: 4 consecutive values per row of a sub-tile, as 16-byte stores where C's rows
     * allow (vec_c), element by element at the right and bottom edges. */
#pragma unroll
    for (int i = 0; i < C::TM; i++) {
        const size_t row = (size_t)(a_off + (i / 4) * C::SUB_M + i % 4);
        if (row >= m_left) continue;
        T *const c_row = c + (row0 + row) * n + col0;
#pragma unroll
        for (int j4 = 0; j4 < C::TN / 4; j4++) {
            const size_t col = (size_t)(b_off + j4 * C::SUB_N);
            const T *v = &acc[i][4 * j4];
            if (vec_c && col + 4 <= n_left) {
                uint4 w[4 * sizeof(T) / 16];
                memcpy(w, v, sizeof w);
#pragma unroll
                for (int q = 0; q < (int)(4 * sizeof(T) / 16); q++) reinterpret_cast<uint4 *>(c_row + col)[q] = w[q];
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (col + q < n_left) c_row[col + q] = v[q];
            }
        }
    }
}

/* Launches config C on the whole product. */
template <class C>
static cudaError_t gp__matmul_launch(typename C::type *c, const typename C::type *a, const typename C::type *b,
                                     size_t m, size_t n, size_t k, cudaStream_t s)
{
    typedef typename C::type T;
    /* 16-byte copies of B and stores of C need every row to start on a 16-byte boundary */
    const bool vec_b = gp__tile_chunk_bytes((uintptr_t)b, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const bool vec_c = gp__tile_chunk_bytes((uintptr_t)c, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const size_t tiles_m = gp__ceil_div(m, C::BM), tiles_n = gp__ceil_div(n, C::BN);
    void (*kernel)(T *, const T *, const T *, size_t, size_t, size_t, size_t, size_t, bool) =
        vec_b ? gp__matmul_kernel<C, true> : gp__matmul_kernel<C, false>;
    if (C::SMEM_BYTES > GP__STATIC_SMEM_MAX) /* above the default limit: opt in */
        GP__TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES));
    kernel<<<(unsigned)(tiles_m * tiles_n), C::THREADS, C::SMEM_BYTES, s>>>(c, a, b, m, n, k, tiles_m, tiles_n, vec_c);
    return cudaGetLastError();
}

/* The configs gp_matmul chooses from, per type, largest first. EFF is a config's
 * throughput on a busy GPU relative to the first (TFLOP/s at 8192^3 on an H200, from
 * bench/matmul.cu's tile sweep), for gp__matmul_choose. The sweep's other candidates
 * (BK = 8, 4 stages, a 32 x 64 warp tile, a 256 x 128 block tile with 16 x 8 per thread)
 * measured as fast or slower; BK = 32 spills at 128 registers. See bench/results. */
struct gp__mm_f32_128x128 {
    typedef float type;
    static constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 32, TM = 8, TN = 8;
    static constexpr int STAGES = 3, GROUP_M = 8, MIN_BLOCKS = 2;
    static constexpr float EFF = 1.00f;
};
struct gp__mm_f32_128x64 : gp__mm_f32_128x128 {
    static constexpr int BN = 64, STAGES = 4, MIN_BLOCKS = 3;
    static constexpr float EFF = 0.97f;
};
struct gp__mm_f32_64x64 : gp__mm_f32_128x128 {
    static constexpr int BM = 64, BN = 64, BK = 8, WM = 32, TM = 4, STAGES = 4, MIN_BLOCKS = 4;
    static constexpr float EFF = 0.76f;
};
/* FP64: twice the registers per value, so smaller thread tiles. */
struct gp__mm_f64_64x64 {
    typedef double type;
    static constexpr int BM = 64, BN = 64, BK = 8, WM = 32, WN = 32, TM = 4, TN = 8;
    static constexpr int STAGES = 4, GROUP_M = 8, MIN_BLOCKS = 3;
    static constexpr float EFF = 1.00f;
};
struct gp__mm_f64_64x32 : gp__mm_f64_64x64 {
    static constexpr int BN = 32, WN = 16, TN = 4, MIN_BLOCKS = 5;
    static constexpr float EFF = 0.70f;
};
#define GP__MATMUL_CONFIGS_f32(X) X(gp__mm_f32_128x128) X(gp__mm_f32_128x64) X(gp__mm_f32_64x64)
#define GP__MATMUL_CONFIGS_f64(X) X(gp__mm_f64_64x64) X(gp__mm_f64_64x32)

/* Columns of a config list, for the host tables. */
#define GP__MM_BM(S) S::BM,
#define GP__MM_BN(S) S::BN,
#define GP__MM_EFF(S) S::EFF,
#define GP__MM_LAUNCHER(S) gp__matmul_launch<gp__mm_cfg<S> >,

/* A product whose matrices sit below their type's alignment (a double at a 4-byte
 * boundary: the host API accepts it; the copies and FMAs want whole elements): A and B
 * are copied to aligned stream-ordered scratch, the product lands in aligned scratch and
 * is copied to C. O(mk + kn + mn) extra traffic against O(mnk) work. */
template <class T>
static cudaError_t gp__matmul_staged(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, cudaStream_t s,
                                     int dev, cudaError_t (*launch)(T *, const T *, const T *, size_t, size_t, size_t,
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
    if (err == cudaSuccess) err = launch(c, a, b, m, n, k, s);
    if (err == cudaSuccess) err = cudaMemcpyAsync(d_c, c, c_bytes, cudaMemcpyDeviceToDevice, s);
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

/* The host side of gp_matmul_<name>: checks, tile choice, one launch. */
template <class T, int N>
static cudaError_t gp__matmul(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, cudaStream_t s,
                              const int (&bm)[N], const int (&bn)[N], const float (&eff)[N],
                              cudaError_t (*const (&launch)[N])(T *, const T *, const T *, size_t, size_t, size_t,
                                                                cudaStream_t))
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
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const int i = gp__matmul_choose(m, n, dev.sms, bm, bn, eff, N);
    if (((uintptr_t)d_a | (uintptr_t)d_b | (uintptr_t)d_c) % alignof(T) == 0) return launch[i](d_c, d_a, d_b, m, n, k, s);
    return gp__matmul_staged(d_c, d_a, d_b, m, n, k, s, dev.id, launch[i]);
}

/* ---- instantiation ------------------------------------------------------------------------
 * GP__DEFINE_MATMUL_HOST: the host function gp_matmul_<name> (name f32 or f64), with the
 * linkage given by SCOPE; its config table comes from GP__MATMUL_CONFIGS_<name>. Only the
 * two default instances exist: the kernel is written for float and double FMA. */
#define GP__DEFINE_MATMUL_HOST(SCOPE, name, T)                                                               \
    SCOPE cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k,     \
                                       cudaStream_t s)                                                      \
    {                                                                                                       \
        static const int bm[] = {GP__MATMUL_CONFIGS_##name(GP__MM_BM)};                                     \
        static const int bn[] = {GP__MATMUL_CONFIGS_##name(GP__MM_BN)};                                     \
        static const float eff[] = {GP__MATMUL_CONFIGS_##name(GP__MM_EFF)};                                 \
        static cudaError_t (*const launch[])(T *, const T *, const T *, size_t, size_t, size_t, cudaStream_t) = { \
            GP__MATMUL_CONFIGS_##name(GP__MM_LAUNCHER)};                                                    \
        return gp__matmul<T>(d_c, d_a, d_b, m, n, k, s, bm, bn, eff, launch);                              \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_CUH */
