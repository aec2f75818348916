/* detail/matmul.cuh -- tiled matrix multiply, row-major C = A.B, plain FP32/FP64 FMA on
 * the CUDA cores (no TF32, no tensor cores). Level 3: needs tile.cuh (its cp.async
 * section, and gp_tile_chunk_bytes), check.cuh, and reduce.cuh's small helpers. The
 * plan arithmetic (block order, tile choice, shape checks) is plain host/device code,
 * tested on the host.
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

#include <stdint.h>
#include <string.h>

/* ---- plan arithmetic (host and device) ------------------------------------------------ */

/* Block index -> (block-row bm, block-column bn) of C: groups of `group` block-rows, each
 * walked column by column, so consecutive blocks share B's columns and a group's A rows. */
static inline __host__ __device__ void gp__matmul_tile_of(size_t idx, size_t tiles_m, size_t tiles_n, size_t group,
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
static inline __host__ __device__ int gp__matmul_shape_ok(size_t m, size_t n, size_t k, size_t elem, size_t min_tile)
{
    const size_t lim = SIZE_MAX / elem;
    if (m && (n > lim / m || k > lim / m)) return 0;
    if (k && n > lim / k) return 0;
    return gp__ceil_div(m, min_tile) * gp__ceil_div(n, min_tile) <= 0x7fffffffu; /* no overflow: m*n fits */
}

/* Which of `ncfg` block-tile sizes (bm[i] x bn[i], relative per-SM throughput eff[i] when
 * the SM is busy) finishes an m x n product first on `sms` SMs. Model: blocks are spread
 * evenly, so the busiest SM computes ceil(tiles / sms) tiles of bm x bn at its rate eff;
 * ties go to the earlier (larger) config. Big tiles win on large products; small ones
 * when big tiles would leave SMs idle (1024^2: 64 tiles of 128 x 128 on 132 SMs). */
static inline __host__ __device__ int gp__matmul_choose(size_t m, size_t n, unsigned sms, const int *bm, const int *bn,
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

#ifdef __CUDACC__

/* ---- the kernel ------------------------------------------------------------------------ */

/* A config: block tile BM x BN x BK, warp tile WM x WN, TM x TN values of C per thread
 * (multiples of 4), STAGES tiles in flight (1: load, wait, compute, no overlap), GROUP_M
 * block-rows per L2 group, MIN_BLOCKS resident blocks per SM for __launch_bounds__. */
template <class T, int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int GROUP_M_,
          int MIN_BLOCKS_>
struct gp__mm_cfg {
    typedef T type;
    enum {
        BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_, STAGES = STAGES_,
        GROUP_M = GROUP_M_, MIN_BLOCKS = MIN_BLOCKS_,
        WARPS_N = BN / WN, WARPS = (BM / WM) * (BN / WN), THREADS = WARPS * 32,
        LANES_M = WM / TM, LANES_N = WN / TN,       /* a warp's lanes, as LANES_M x LANES_N */
        SUB_M = WM / (TM / 4), SUB_N = WN / (TN / 4), /* a warp's piece per 4 x 4 sub-tile */
        PAD = 16 / (int)sizeof(T),                   /* As row padding: 16 bytes */
        PITCH_A = BM + PAD, PITCH_B = BN,
        STAGE_ELEMS = BK * (PITCH_A + PITCH_B),
        SMEM_BYTES = STAGES * STAGE_ELEMS * (int)sizeof(T),
    };
    static_assert(BM % WM == 0 && BN % WN == 0 && TM % 4 == 0 && TN % 4 == 0, "tile shapes");
    static_assert(LANES_M * LANES_N == 32 && WM % TM == 0 && WN % TN == 0, "a warp is 32 lanes of TM x TN");
    static_assert(STAGES >= 1, "stages");
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
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS)
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
    const bool vec_b = gp_tile_chunk_bytes((uintptr_t)b, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const bool vec_c = gp_tile_chunk_bytes((uintptr_t)c, n * sizeof(T), C::BN * sizeof(T), sizeof(T)) == 16;
    const size_t tiles_m = gp__ceil_div(m, C::BM), tiles_n = gp__ceil_div(n, C::BN);
    void (*kernel)(T *, const T *, const T *, size_t, size_t, size_t, size_t, size_t, bool) =
        vec_b ? gp__matmul_kernel<C, true> : gp__matmul_kernel<C, false>;
    if (C::SMEM_BYTES > 48 * 1024) /* above the default limit: opt in */
        GP__TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM_BYTES));
    kernel<<<(unsigned)(tiles_m * tiles_n), C::THREADS, C::SMEM_BYTES, s>>>(c, a, b, m, n, k, tiles_m, tiles_n, vec_c);
    return cudaGetLastError();
}

/* The configs gp_matmul chooses from, per type, largest first:
 * X(BM, BN, BK, WM, WN, TM, TN, STAGES, GROUP_M, MIN_BLOCKS, EFF). EFF is the config's
 * throughput on a busy GPU relative to the first (TFLOP/s at 8192^3 on an H200, from
 * bench/matmul.cu's tile sweep), for gp__matmul_choose. The sweep's other candidates
 * (BK = 8, 4 stages, a 32 x 64 warp tile, a 256 x 128 block tile with 16 x 8 per thread)
 * measured as fast or slower; BK = 32 spills at 128 registers. See bench/results. */
#define GP__MATMUL_CONFIGS_f32(X)                   \
    X(128, 128, 16, 64, 32, 8, 8, 3, 8, 2, 1.00f)   \
    X(128, 64, 16, 64, 32, 8, 8, 4, 8, 3, 0.97f)    \
    X(64, 64, 8, 32, 32, 4, 8, 4, 8, 4, 0.76f)
/* FP64: twice the registers per value, so smaller thread tiles. */
#define GP__MATMUL_CONFIGS_f64(X)                   \
    X(64, 64, 8, 32, 32, 4, 8, 4, 8, 3, 1.00f)      \
    X(64, 32, 8, 32, 16, 4, 4, 4, 8, 5, 0.70f)

#define GP__MM_CFG(T, BM, BN, BK, WM, WN, TM, TN, ST, G, MB) gp__mm_cfg<T, BM, BN, BK, WM, WN, TM, TN, ST, G, MB>
#define GP__MM_BM(BM, BN, BK, WM, WN, TM, TN, ST, G, MB, EFF) BM,
#define GP__MM_BN(BM, BN, BK, WM, WN, TM, TN, ST, G, MB, EFF) BN,
#define GP__MM_EFF(BM, BN, BK, WM, WN, TM, TN, ST, G, MB, EFF) EFF,
#define GP__MM_LAUNCHER_f32(BM, BN, BK, WM, WN, TM, TN, ST, G, MB, EFF) \
    gp__matmul_launch<GP__MM_CFG(float, BM, BN, BK, WM, WN, TM, TN, ST, G, MB)>,
#define GP__MM_LAUNCHER_f64(BM, BN, BK, WM, WN, TM, TN, ST, G, MB, EFF) \
    gp__matmul_launch<GP__MM_CFG(double, BM, BN, BK, WM, WN, TM, TN, ST, G, MB)>,

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
    int dev, sms;
    GP__TRY(cudaGetDevice(&dev));
    GP__TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int i = gp__matmul_choose(m, n, (unsigned)sms, bm, bn, eff, N);
    return launch[i](d_c, d_a, d_b, m, n, k, s);
}

/* GP__DEFINE_MATMUL_HOST: the host function gp_matmul_<name> (name f32 or f64), with the
 * linkage given by SCOPE; its config table comes from GP__MATMUL_CONFIGS_<name>. */
#define GP__DEFINE_MATMUL_HOST(SCOPE, name, T)                                                               \
    SCOPE cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k,     \
                                       cudaStream_t s)                                                      \
    {                                                                                                       \
        static const int bm[] = {GP__MATMUL_CONFIGS_##name(GP__MM_BM)};                                     \
        static const int bn[] = {GP__MATMUL_CONFIGS_##name(GP__MM_BN)};                                     \
        static const float eff[] = {GP__MATMUL_CONFIGS_##name(GP__MM_EFF)};                                 \
        static cudaError_t (*const launch[])(T *, const T *, const T *, size_t, size_t, size_t, cudaStream_t) = { \
            GP__MATMUL_CONFIGS_##name(GP__MM_LAUNCHER_##name)};                                             \
        return gp__matmul<T>(d_c, d_a, d_b, m, n, k, s, bm, bn, eff, launch);                              \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_CUH */
