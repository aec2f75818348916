/* bench/matmul/matmul.cu -- the tiled matrix-multiply ladder replayed on today's GPU, then
 * gp_matmul_f32 / gp_matmul_f64 against cuBLAS (pedantic math: no TF32, no tensor cores
 * for FP32) at several shapes.
 *
 * Part 1, "Matmul ladder (4096^3, f32)": the textbook kernels of Kirk & Hwu (naive, one
 * thread per element; tiled in shared memory with 16x16 and 32x32 tiles), then each step
 * taken on the way to gp_matmul_f32, each commented with the one thing it adds, then the
 * library call and cublasSgemm: ms, TFLOP/s, % of cuBLAS, % of the FP32 peak (SMs x 128 lanes x 2
 * x the clock the device reports). Kirk & Hwu's arithmetic (global accesses cut by the tile
 * width) is printed beside the measured speedups.
 *
 * Part 2, "gp_matmul vs cuBLAS": f32 at 1024^3, 2048^3, 4096^3, 8192^3, 1000^3,
 * 4097 x 3001 x 2049 and 512 x 512 x 8192 (m x n x k; 1024^3, 1000^3 and 512 x 512 x 8192
 * have fewer 128 x 128 tiles of C than the SMs: gp_matmul_f32 splits k there, on sm_90);
 * f64 against cublasDgemm at the same shapes, with the
 * CUDA-core kernel (gp_matmul_f64 before the tensor cores) beside it; for each type a tile
 * sweep (every candidate config at every shape) to set gp_matmul's choice.
 *
 * Part 3, "Matmul ladder, f64 (4096^3)": from the CUDA cores to the FP64 tensor cores,
 * step by step, from part 2's figures.
 *
 * Every result is checked before it is timed: 256 sampled entries of C against a host
 * reference in double, within |c - ref| <= (k + 2) u sum|a||b|; a mismatch prints FAIL and
 * exits 1. Inputs come from a hash of the index, computed the same way on the host.
 *
 * Build and run:  make bench   (or: make build/bench/matmul && build/bench/matmul)
 * Tables go to stdout and bench/results/<gpu>.matmul.{md,csv}. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"

#define LADDER_N 4096
#define SAMPLES 256


/* ---- inputs: a hash of (matrix, index), uniform in [-1, 1), same on host and device ---- */
static __host__ __device__ inline double input_value(uint64_t i, uint32_t which)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull + which * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0; /* 53-bit k / 2^52 - 1 */
}
template <class T>
__global__ void fill(T *p, size_t count, uint32_t which)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (T)input_value(i, which);
}
enum { WHICH_A = 1, WHICH_B = 2 };

/* ======================================================================================
 * Part 1: the ladder kernels (f32, square n, n a multiple of 128: 4096)
 * ==================================================================================== */

/* 1. Naive, as in Kirk & Hwu: one thread per element of C, 16 x 16 threads per block; every
 * thread reads a row of A and a column of B from global memory: 2n^3 loads. */
__global__ void mm_naive(float *c, const float *a, const float *b, int n)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float v = 0;
        for (int k = 0; k < n; k++) v += a[row * n + k] * b[k * n + col];
        c[row * n + col] = v;
    }
}

/* 2, 3. Kirk & Hwu's tiled kernel: the block's TILE x TILE threads load one tile of A and
 * one of B into shared memory together, then each computes its dot product from there:
 * each element loaded once per block instead of once per thread, 2n^3 / TILE loads. */
template <int TILE>
__global__ void mm_tiled(float *c, const float *a, const float *b, int n)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float v = 0;
    for (int m = 0; m < n / TILE; m++) {
        as[ty][tx] = a[row * n + m * TILE + tx];
        bs[ty][tx] = b[(m * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) v += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = v;
}

/* 4. Register tiling (2-D thread coarsening, the next step Kirk & Hwu point to: each
 * thread computes a small tile of C): a 128 x 128 block tile, 256 threads, each computing
 * an 8 x 8 patch of C from 8 values of A and 8 of B per k: 64 FMAs per 16 shared loads
 * instead of 1 per 2. Tiles as stored in memory (A row-major), scalar loads, no overlap of
 * copy and arithmetic. */
__global__ void __launch_bounds__(256) mm_regtile(float *c, const float *a, const float *b, int n)
{
    enum { BM = 128, BN = 128, BK = 8, TM = 8, TN = 8 };
    __shared__ float as[BM][BK], bs[BK][BN];
    const int t = threadIdx.x, ty = t / (BN / TN), tx = t % (BN / TN);
    const float *ab = a + (size_t)blockIdx.y * BM * n, *bb = b + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
        for (int i = t; i < BM * BK; i += 256) as[i / BK][i % BK] = ab[(size_t)(i / BK) * n + k0 + i % BK];
        for (int i = t; i < BK * BN; i += 256) bs[i / BN][i % BN] = bb[(size_t)(k0 + i / BN) * n + i % BN];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float af[TM], bf[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) af[i] = as[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) bf[j] = bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += af[i] * bf[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            c[((size_t)blockIdx.y * BM + ty * TM + i) * n + blockIdx.x * BN + tx * TN + j] = acc[i][j];
}

/* 5-13: the library's kernel template (detail/device/matmul.cuh) with the later steps switched
 * on one at a time; each step's spec derives from the one before and names what it changes.
 * 5. A transposed in shared memory (16-byte loads of both operands' fragments), the
 *    thread tile spread as 4 x 4 pieces over a warp tile (conflict-free broadcasts),
 *    copies with cp.async but waited for at once: no overlap (1 stage). */
struct step5 {
    typedef float type;
    static constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, TM = 8, TN = 8;
    static constexpr int STAGES = 1, GROUP_M = 1, MIN_BLOCKS = 2, MAX_SLICES = 1, MAX_WS_SLICES = 1;
    static constexpr float EFF = 1.0f;
};
/* 6. + double buffering: tile k+1 is copied while tile k is multiplied (2 stages). */
struct step6 : step5 { static constexpr int STAGES = 2; };
/* 7. + deeper pipeline: 4 stages, 3 tiles in flight. */
struct step7 : step6 { static constexpr int STAGES = 4; };
/* 8. + L2-friendly block order: groups of 8 block-rows, column by column. */
struct step8 : step7 { static constexpr int GROUP_M = 8; };
/* 9. + BK = 16: half the barriers and copy set-ups per FMA. */
struct step9 : step8 { static constexpr int BK = 16; };
/* 10. 256 x 128 block tile, 16 x 8 per thread (warp tile 64 x 64), one block per SM: 6
 * instead of 8 shared loads per 128 FMAs, and half the copy work per FMA. */
struct step10 : step8 { static constexpr int BM = 256, WN = 64, TM = 16, MIN_BLOCKS = 1; };
/* 11. the same with BK = 16 (3 stages). */
struct step11 : step10 { static constexpr int BK = 16, STAGES = 3; };
/* 12. + BK = 32 (2 stages): half the barriers, copy set-ups and loop instructions per FMA
 * of step 9; 2 x 33 KB of shared memory per block, so two blocks still fit on an SM. */
struct step12 : step9 { static constexpr int BK = 32, STAGES = 2; };
/* 13. a 32 x 64 warp tile (8 lanes across instead of 4): 1.03x where the grid is one wave
 * (2048^3), slower where blocks run in several (here, 4 waves), so gp_matmul takes it only
 * for one-wave grids (gp__mm_f32_128x128_w32x64); the row shows what it costs here. */
struct step13 : step12 { static constexpr int WM = 32, WN = 64; };
typedef gp__mm_cfg<step5> step5_cfg;
typedef gp__mm_cfg<step6> step6_cfg;
typedef gp__mm_cfg<step7> step7_cfg;
typedef gp__mm_cfg<step8> step8_cfg;
typedef gp__mm_cfg<step9> step9_cfg;
typedef gp__mm_cfg<step10> step10_cfg;
typedef gp__mm_cfg<step11> step11_cfg;
typedef gp__mm_cfg<step12> step12_cfg;
typedef gp__mm_cfg<step13> step13_cfg;

/* Candidates beside the library's configs (gp__mm_f32_*), for the sweep. */
struct sweep_bk16 : gp__mm_f32_128x128 { static constexpr int BK = 16, STAGES = 3; };
struct sweep_bk16_4st : sweep_bk16 { static constexpr int STAGES = 4; };
struct sweep_bk24 : gp__mm_f32_128x128 { static constexpr int BK = 24, STAGES = 3; };
struct sweep_bk32_2st : gp__mm_f32_128x128 { static constexpr int BK = 32, STAGES = 2; };
struct sweep_bk32_3st : gp__mm_f32_128x128 { static constexpr int BK = 32, STAGES = 3; };
struct sweep_bk32_3st_w32x64 : sweep_bk32_3st { static constexpr int WM = 32, WN = 64; };
struct sweep_128x64_w64x32 : gp__mm_f32_128x64 { static constexpr int WM = 64, WN = 32, MAX_SLICES = 1; };
struct sweep_128x64_4st : sweep_128x64_w64x32 { static constexpr int STAGES = 4; };
struct sweep_128x64_bk32 : sweep_128x64_w64x32 { static constexpr int BK = 32, STAGES = 2; };
struct sweep_64x64x16 : gp__mm_f32_64x64 { static constexpr int BK = 16, STAGES = 3, MAX_SLICES = 1; };

/* FP64: the ladder from the CUDA cores to the tensor cores (f64 rows 1-3), and candidates
 * beside the library's configs (gp__mm_f64_*), for the f64 sweep.
 * f64 1. the CUDA-core kernel, 64 x 64 block tile (gp_matmul_f64 before DMMA): gp__mm_f64_64x64.
 * f64 2. DMMA: 128 x 128 x 16 block tile, 8 warps of 64 x 32, 4 stages, padded shared rows,
 *        each 16 x 8 x 4 piece as two m8n8k4 (sm_80's only FP64 shape). */
struct f64_step2 : gp__mm_f64_tc_128x128 { static constexpr int M16 = 0; };
/* f64 3. + the one-instruction m16n8k4 of sm_90 (gp__mm_f64_tc_128x128). */
struct sweep64_warp32x64 : gp__mm_f64_tc_128x128 { static constexpr int WM = 32, WN = 64; };
struct sweep64_3stages : gp__mm_f64_tc_128x128 { static constexpr int STAGES = 3; };
struct sweep64_bk32 : gp__mm_f64_tc_128x128 { static constexpr int BK = 32, STAGES = 3; }; /* 4: 276 KB */
struct sweep64_bk8 : gp__mm_f64_tc_128x128 { static constexpr int BK = 8, STAGES = 4; };
struct sweep64_128x64 : gp__mm_f64_tc_128x128 { static constexpr int BN = 64, WM = 32, WN = 32, MIN_BLOCKS = 2; };

/* The tile sizes gp_matmul_f32 may choose from, and candidates, each timed at every shape
 * of part 2 ("Tile sweep"), to set the choice. */
typedef cudaError_t (*launch_f32)(float *, const float *, const float *, size_t, size_t, size_t, unsigned,
                                  cudaStream_t);
/* slices: k split into that many (clusters; 1: not split; | WS: through a workspace, with
 * gp__mm_launcher, timed only where the product has at most WS_MAX_MN elements), see
 * gp__matmul_choose */
#define WS GP__MM_WORKSPACE
#define WS_MAX_MN ((size_t)1 << 21)
static const struct { const char *name; launch_f32 fn; unsigned slices; } sweep[] = {
    {"128x128 (gp)", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x128> >, 1},
    {"BK = 16, 3 stages", gp__matmul_launch<gp__mm_cfg<sweep_bk16> >, 1},
    {"BK = 16, 4 stages", gp__matmul_launch<gp__mm_cfg<sweep_bk16_4st> >, 1},
    {"BK = 16, 4 stages, warp 32x64 (gp, B by elements)", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x128x16> >, 1},
    {"BK = 24, 3 stages", gp__matmul_launch<gp__mm_cfg<sweep_bk24> >, 1},
    {"BK = 32, 2 stages", gp__matmul_launch<gp__mm_cfg<sweep_bk32_2st> >, 1},
    {"BK = 32, 3 stages", gp__matmul_launch<gp__mm_cfg<sweep_bk32_3st> >, 1},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave)", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x128_w32x64> >, 1},
    {"BK = 32, 3 stages, warp 32x64", gp__matmul_launch<gp__mm_cfg<sweep_bk32_3st_w32x64> >, 1},
    {"128x64x16, 4 stages", gp__matmul_launch<gp__mm_cfg<sweep_128x64_4st> >, 1},
    {"128x64x16, 3 stages", gp__matmul_launch<gp__mm_cfg<sweep_128x64_w64x32> >, 1},
    {"128x64x16, 3 stages, warp 32x64 (gp)", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x64> >, 1},
    {"128x64x32, 2 stages", gp__matmul_launch<gp__mm_cfg<sweep_128x64_bk32> >, 1},
    {"64x64x8 (gp)", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_64x64> >, 1},
    {"64x64x16, 3 stages", gp__matmul_launch<gp__mm_cfg<sweep_64x64x16> >, 1},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave), k in 2", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x128_w32x64> >, 2},
    {"128x64x16, 3 stages, warp 32x64 (gp), k in 2", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_128x64> >, 2},
    {"64x64x8 (gp), k in 2", gp__matmul_launch<gp__mm_cfg<gp__mm_f32_64x64> >, 2},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave), k in 2 (workspace)", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, WS | 2},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave), k in 4 (workspace)", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, WS | 4},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave), k in 8 (workspace)", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, WS | 8},
    {"BK = 32, 2 stages, warp 32x64 (gp, one wave), k in 16 (workspace)", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, WS | 16},
    {"BK = 16, 4 stages, warp 32x64 (gp, B by elements), k in 16 (workspace)", gp__mm_launcher<gp__mm_f32_128x128x16>, WS | 16},
};
#define SWEEP ((int)(sizeof sweep / sizeof *sweep))
typedef cudaError_t (*launch_f64)(double *, const double *, const double *, size_t, size_t, size_t, unsigned,
                                  cudaStream_t);
static const struct { const char *name; launch_f64 fn; unsigned slices; } sweep64[] = {
    {"DMMA 128x128x16 m16n8k4, 4 stages (gp)", gp__mm_launcher<gp__mm_f64_tc_128x128>, 1},
    {"DMMA 128x128x16 m8n8k4", gp__mm_launcher<f64_step2>, 1},
    {"warp tile 32x64", gp__mm_launcher<sweep64_warp32x64>, 1},
    {"3 stages", gp__mm_launcher<sweep64_3stages>, 1},
    {"BK = 32, 3 stages", gp__mm_launcher<sweep64_bk32>, 1},
    {"BK = 8, 4 stages", gp__mm_launcher<sweep64_bk8>, 1},
    {"128x64, warp 32x32", gp__mm_launcher<sweep64_128x64>, 1},
    {"DMMA 64x64 (gp)", gp__mm_launcher<gp__mm_f64_tc_64x64>, 1},
    {"DMMA 64x64 (gp), k in 2", gp__mm_launcher<gp__mm_f64_tc_64x64>, 2},
    {"DMMA 64x64 (gp), k in 4 (workspace)", gp__mm_launcher<gp__mm_f64_tc_64x64>, WS | 4},
    {"DMMA 64x64 (gp), k in 8 (workspace)", gp__mm_launcher<gp__mm_f64_tc_64x64>, WS | 8},
    {"DMMA 64x64 (gp), k in 16 (workspace)", gp__mm_launcher<gp__mm_f64_tc_64x64>, WS | 16},
    {"CUDA cores 64x64 (gp, pre-sm_80)", gp__mm_launcher<gp__mm_f64_64x64>, 1},
};
#define SWEEP64 ((int)(sizeof sweep64 / sizeof *sweep64))
static_assert(SWEEP <= 32 && SWEEP64 <= 32, "the sweep tables' name arrays");

/* ---- what a timed call is --------------------------------------------------------------- */
enum kind {
    K_NAIVE, K_TILED16, K_TILED32, K_REGTILE, K_STEP5, K_STEP6, K_STEP7, K_STEP8, K_STEP9, K_STEP10, K_STEP11, K_STEP12, K_STEP13, K_GP, K_CUBLAS, K_SWEEP
};
typedef struct {
    int kind, f64;
    void *c;
    const void *a, *b;
    size_t m, n, k;
    cublasHandle_t h;
    launch_f32 fn;   /* K_SWEEP, f32 */
    launch_f64 fn64; /* K_SWEEP, f64 */
    unsigned slices; /* K_SWEEP */
} call_ctx;

static void call(void *p)
{
    call_ctx *x = (call_ctx *)p;
    float *c = (float *)x->c;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    const int n = (int)x->n;
    switch (x->kind) {
    case K_NAIVE: mm_naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(c, a, b, n); break;
    case K_TILED16: mm_tiled<16><<<dim3(n / 16, n / 16), dim3(16, 16)>>>(c, a, b, n); break;
    case K_TILED32: mm_tiled<32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(c, a, b, n); break;
    case K_REGTILE: mm_regtile<<<dim3(n / 128, n / 128), 256>>>(c, a, b, n); break;
    case K_STEP5: CUDA_CHK(gp__matmul_launch<step5_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP6: CUDA_CHK(gp__matmul_launch<step6_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP7: CUDA_CHK(gp__matmul_launch<step7_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP8: CUDA_CHK(gp__matmul_launch<step8_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP9: CUDA_CHK(gp__matmul_launch<step9_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP10: CUDA_CHK(gp__matmul_launch<step10_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP11: CUDA_CHK(gp__matmul_launch<step11_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP12: CUDA_CHK(gp__matmul_launch<step12_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_STEP13: CUDA_CHK(gp__matmul_launch<step13_cfg>(c, a, b, x->m, x->n, x->k, 1, 0)); break;
    case K_SWEEP:
        if (x->f64)
            CUDA_CHK(x->fn64((double *)x->c, (const double *)x->a, (const double *)x->b, x->m, x->n, x->k, x->slices, 0));
        else CUDA_CHK(x->fn(c, a, b, x->m, x->n, x->k, x->slices, 0));
        break;
    case K_GP:
        if (x->f64) CUDA_CHK(gp_matmul_f64((double *)x->c, (const double *)x->a, (const double *)x->b, x->m, x->n, x->k, 0));
        else CUDA_CHK(gp_matmul_f32(c, a, b, x->m, x->n, x->k, 0));
        break;
    case K_CUBLAS: {
        /* row-major C = A B is column-major C^T = B^T A^T: swap the operands */
        if (x->f64) {
            const double one = 1, zero = 0;
            CUBLAS_CHK(cublasDgemm(x->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)x->n, (int)x->m, (int)x->k, &one,
                                   (const double *)x->b, (int)x->n, (const double *)x->a, (int)x->k, &zero,
                                   (double *)x->c, (int)x->n));
        } else {
            const float one = 1, zero = 0;
            CUBLAS_CHK(cublasSgemm(x->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)x->n, (int)x->m, (int)x->k, &one, b,
                                   (int)x->n, a, (int)x->k, &zero, c, (int)x->n));
        }
        break;
    }
    }
    CUDA_CHK(cudaGetLastError());
}

/* Checks SAMPLES entries of C (first the four corners) against a host reference. */
static void check(const call_ctx *x, const char *who)
{
    const size_t m = x->m, n = x->n, k = x->k, es = x->f64 ? 8 : 4;
    const double u = x->f64 ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
    CUDA_CHK(cudaDeviceSynchronize());
    uint64_t st = 0x5eedull + m * 31 + n;
    for (int s = 0; s < SAMPLES; s++) {
        size_t i, j;
        if (s < 4) { i = s & 1 ? m - 1 : 0; j = s & 2 ? n - 1 : 0; }
        else { st = st * 6364136223846793005ull + 1442695040888963407ull; i = (st >> 33) % m; j = (st >> 13) % n; }
        double ref = 0, mag = 0;
        for (size_t p = 0; p < k; p++) {
            double av = input_value(i * k + p, WHICH_A), bv = input_value(p * n + j, WHICH_B);
            if (!x->f64) { av = (float)av; bv = (float)bv; }
            ref += av * bv;
            mag += fabs(av * bv);
        }
        double got;
        if (x->f64) CUDA_CHK(cudaMemcpy(&got, (const char *)x->c + (i * n + j) * es, 8, cudaMemcpyDeviceToHost));
        else {
            float g;
            CUDA_CHK(cudaMemcpy(&g, (const char *)x->c + (i * n + j) * es, 4, cudaMemcpyDeviceToHost));
            got = g;
        }
        if (!(fabs(got - ref) <= (double)(k + 2) * u * mag)) {
            fprintf(stderr, "FAIL: %s %zux%zux%zu: C[%zu][%zu] = %.9g, host reference %.9g\n", who, m, n, k, i, j,
                    got, ref);
            exit(1);
        }
    }
}

/* Poisons C, runs once, checks, then times: median ms. */
static float measure(call_ctx *x, const char *who)
{
    CUDA_CHK(cudaMemset(x->c, 0xFF, x->m * x->n * (x->f64 ? 8 : 4)));
    call(x);
    check(x, who);
    return gp_bench_median_ms(call, x); /* GP_BENCH_REPS calls after GP_BENCH_WARMUP */
}

static double tflops(size_t m, size_t n, size_t k, float ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e12; }

static double g_peak32, g_peak64; /* TFLOP/s: FP32 CUDA cores, FP64 tensor cores */

static void bench_ladder(cublasHandle_t h, int profile)
{
    const size_t n = LADDER_N;
    float *a, *b, *c;
    CUDA_CHK(cudaMalloc(&a, n * n * 4));
    CUDA_CHK(cudaMalloc(&b, n * n * 4));
    CUDA_CHK(cudaMalloc(&c, n * n * 4));
    fill<<<1024, 256>>>(a, n * n, WHICH_A);
    fill<<<1024, 256>>>(b, n * n, WHICH_B);
    CUDA_CHK_LAUNCH();

    static const struct { int kind; const char *name; double seed_loads; } rows[] = {
        {K_NAIVE, "1. naive, one thread per element (Kirk & Hwu)", 2.0},
        {K_TILED16, "2. tiled in shared memory, 16x16 (Kirk & Hwu)", 2.0 / 16},
        {K_TILED32, "3. tiled in shared memory, 32x32 (Kirk & Hwu)", 2.0 / 32},
        {K_REGTILE, "4. + register tiling: 128x128 block, 8x8 per thread", 0},
        {K_STEP5, "5. + A transposed, 16-byte fragment loads, warp tiling", 0},
        {K_STEP6, "6. + cp.async double buffering (2 stages)", 0},
        {K_STEP7, "7. + 4 stages", 0},
        {K_STEP8, "8. + L2-grouped block order", 0},
        {K_STEP9, "9. + BK = 16", 0},
        {K_STEP10, "10. 256x128 block tile, 16x8 per thread, BK = 8", 0},
        {K_STEP11, "11. 256x128 block tile, 16x8 per thread, BK = 16", 0},
        {K_STEP12, "12. + BK = 32, 2 stages", 0},
        {K_STEP13, "13. warp tile 32x64: gp_matmul's choice for one-wave grids (2048^3), not for this one", 0},
        {K_GP, "gp_matmul_f32", 0},
        {K_CUBLAS, "cublasSgemm (pedantic)", 0},
    };
    const int nrows = (int)(sizeof rows / sizeof *rows);
    float ms[16];
    for (int r = 0; r < nrows; r++) {
        call_ctx x = {rows[r].kind, 0, c, a, b, n, n, n, h, NULL, NULL, 1};
        if (profile) { /* one call of each of the fast kernels, for ncu */
            if (rows[r].kind >= K_STEP5) call(&x);
            continue;
        }
        ms[r] = measure(&x, rows[r].name);
    }
    if (profile) { /* and each sweep candidate */
        for (int i = 0; i < SWEEP; i++) {
            if (sweep[i].slices & WS) continue; /* splits for small products only */
            call_ctx x = {K_SWEEP, 0, c, a, b, n, n, n, h, sweep[i].fn, NULL, sweep[i].slices};
            call(&x);
        }
        CUDA_CHK(cudaDeviceSynchronize());
        return;
    }
    const float cublas_ms = ms[nrows - 1];
    gp_table_begin("Matmul ladder (4096^3, f32)",
                   "Kernel|ms|TFLOP/s|% of cuBLAS|% of FP32 peak|Step speedup|Cumulative speedup|"
                   "global loads, Kirk & Hwu's count (GB)|implied load rate (GB/s)");
    for (int r = 0; r < nrows; r++) {
        char step[32] = "-", cum[32] = "-", loads[32] = "-", rate[32] = "-";
        if (r > 0) {
            snprintf(step, sizeof step, "%.2fx", ms[r - 1] / ms[r]);
            snprintf(cum, sizeof cum, "%.1fx", ms[0] / ms[r]);
        }
        if (rows[r].seed_loads > 0) {
            const double gb = rows[r].seed_loads * (double)n * n * n * 4 / 1e9;
            snprintf(loads, sizeof loads, "%.0f", gb);
            snprintf(rate, sizeof rate, "%.0f", gb / (ms[r] * 1e-3));
        }
        const double tf = tflops(n, n, n, ms[r]);
        gp_table_row("%s|%.3f|%.2f|%.1f%%|%.1f%%|%s|%s|%s|%s", rows[r].name, ms[r], tf, 100.0 * cublas_ms / ms[r],
                     100.0 * tf / g_peak32, step, cum, loads, rate);
    }
    gp_bench_note(
        "Kirk & Hwu: tiling cuts global loads from 2n^3 to 2n^3/TILE, so if the naive kernel were bound "
        "by global-memory bandwidth, 16x16 tiles would be 16x faster and 32x32 tiles 32x. Measured: %.2fx and %.2fx. "
        "The naive kernel is not DRAM-bound on this GPU: its 2n^3 loads (%.0f GB) would need %.0f GB/s, far above "
        "DRAM bandwidth, because a warp's 32 loads of A are one broadcast and its loads of B one coalesced line, "
        "both mostly L1/L2 hits. Tiling removes that traffic, but each FMA of rows 1-3 still needs two loads "
        "(global or shared), so they are load-issue-bound at a few %% of the FP32 peak; register tiling (row 4) "
        "is what changes the ratio (64 FMAs per 16 loads). FP32 peak = %d SMs x 128 lanes x 2 x %.0f MHz = %.1f "
        "TFLOP/s (the clock the device reports, cudaDevAttrClockRate).",
        ms[0] / ms[1], ms[0] / ms[2], 2.0 * n * n * n * 4 / 1e9, 2.0 * n * n * n * 4 / 1e9 / (ms[0] * 1e-3),
        gp__bench.sms, g_peak32 * 1e12 / (gp__bench.sms * 256.0) / 1e6, g_peak32);
    CUDA_CHK(cudaFree(a));
    CUDA_CHK(cudaFree(b));
    CUDA_CHK(cudaFree(c));
}

static const size_t shapes[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                                   {1000, 1000, 1000},  {4097, 3001, 2049}, {512, 512, 8192}};

#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))
static float g_sweep_ms[NSHAPES][SWEEP], g_sweep64_ms[NSHAPES][SWEEP64];
static float g_gp_ms[2][NSHAPES], g_cublas_ms[2][NSHAPES]; /* [f64][shape] */

/* The block tile gp_matmul_<type> chooses for m x n (B's rows 16-byte aligned where n
 * allows) on this GPU, as "BMxBNxBK", and its warp tile where it is not 64 x 32
 * ("128x128x32, warp 32x64"). */
#define CONFIG_WARP(S) {S::WM, S::WN},
#define GP_CONFIG(name)                                                                                        \
    do {                                                                                                      \
        static constexpr gp__mm_plan_cfg cfg[] = {GP__MATMUL_CONFIGS_##name(GP__MM_PLAN)};                    \
        static const int warp[][2] = {GP__MATMUL_CONFIGS_##name(CONFIG_WARP)};                                \
        const int have = (built ? GP__MM_NEED_TC : 0) | (n * sizeof(name##_t) % 16 == 0 ? GP__MM_NEED_B16 : 0); \
        unsigned slices = 1;                                                                                  \
        const int i = gp__matmul_choose(m, n, k, &gpu, have, cfg, (int)(sizeof cfg / sizeof *cfg), &slices); \
        int len = snprintf(out, 48, "%dx%dx%d", cfg[i].bm, cfg[i].bn, cfg[i].bk);                            \
        if (warp[i][0] != 64 || warp[i][1] != 32)                                                             \
            len += snprintf(out + len, 48 - len, ", warp %dx%d", warp[i][0], warp[i][1]);                     \
        if (slices > 1)                                                                                       \
            snprintf(out + len, 48 - len, ", k in %u%s", slices & ~GP__MM_WORKSPACE,                          \
                     slices & GP__MM_WORKSPACE ? " (workspace)" : "");                                        \
        return out;                                                                                           \
    } while (0)
typedef float f32_t;
typedef double f64_t;
static const char *gp_tile(size_t m, size_t n, size_t k, int f64, char *out)
{
    int built = 0, dev = 0;
    gp__device gpu;
    CUDA_CHK(gp__mm_tc_built(&built));
    CUDA_CHK(cudaGetDevice(&dev));
    CUDA_CHK(gp__device_query(&gpu, dev));
    if (f64) GP_CONFIG(f64);
    GP_CONFIG(f32);
}

/* A table of TFLOP/s: one row per shape, one column per candidate. */
static void sweep_table(const char *title, const char *const *names, int count, const float *ms, int stride)
{
    char cols[4096] = "m x n x k";
    for (int i = 0; i < count; i++) {
        strcat(cols, "|");
        strcat(cols, names[i]);
    }
    gp_table_begin(title, cols);
    for (int s = 0; s < NSHAPES; s++) {
        char row[1024];
        int len = snprintf(row, sizeof row, "%zu x %zu x %zu", shapes[s][0], shapes[s][1], shapes[s][2]);
        for (int i = 0; i < count; i++) /* 0 ms: not timed at this shape */
            len += ms[s * stride + i] > 0 ? snprintf(row + len, sizeof row - len, "|%.2f",
                                                     tflops(shapes[s][0], shapes[s][1], shapes[s][2], ms[s * stride + i]))
                                          : snprintf(row + len, sizeof row - len, "|-");
        gp_table_row("%s", row);
    }
}

static void bench_shapes(cublasHandle_t h, int f64)
{
    const size_t es = f64 ? 8 : 4;
    size_t max_a = 0, max_b = 0, max_c = 0;
    for (int s = 0; s < NSHAPES; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        if (m * k > max_a) max_a = m * k;
        if (k * n > max_b) max_b = k * n;
        if (m * n > max_c) max_c = m * n;
    }
    void *a, *b, *c;
    CUDA_CHK(cudaMalloc(&a, max_a * es));
    CUDA_CHK(cudaMalloc(&b, max_b * es));
    CUDA_CHK(cudaMalloc(&c, max_c * es));
    char title[128];
    snprintf(title, sizeof title, "gp_matmul_%s vs %s (m x n x k)", f64 ? "f64" : "f32",
             f64 ? "cublasDgemm" : "cublasSgemm, pedantic");
    gp_table_begin(title, f64 ? "m x n x k|gp tile|gp ms|gp TFLOP/s|cuBLAS ms|cuBLAS TFLOP/s|gp / cuBLAS|"
                                "CUDA cores / cuBLAS|gp % of DMMA peak|cuBLAS % of DMMA peak"
                              : "m x n x k|gp tile|gp ms|gp TFLOP/s|cuBLAS ms|cuBLAS TFLOP/s|gp / cuBLAS|gp % of peak|"
                                "cuBLAS % of peak");
    for (int s = 0; s < NSHAPES; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        if (f64) {
            fill<<<1024, 256>>>((double *)a, m * k, WHICH_A);
            fill<<<1024, 256>>>((double *)b, k * n, WHICH_B);
        } else {
            fill<<<1024, 256>>>((float *)a, m * k, WHICH_A);
            fill<<<1024, 256>>>((float *)b, k * n, WHICH_B);
        }
        CUDA_CHK_LAUNCH();
        call_ctx g = {K_GP, f64, c, a, b, m, n, k, h, NULL, NULL, 1}, cb = g;
        cb.kind = K_CUBLAS;
        const float gms = measure(&g, "gp_matmul"), cms = measure(&cb, "cuBLAS");
        g_gp_ms[f64][s] = gms;
        g_cublas_ms[f64][s] = cms;
        /* every candidate tile at this shape, for the sweep table */
        for (int i = 0; i < (f64 ? SWEEP64 : SWEEP); i++) {
            call_ctx x = g;
            x.kind = K_SWEEP;
            x.slices = f64 ? sweep64[i].slices : sweep[i].slices;
            const bool timed = !(x.slices & WS) || m * n <= WS_MAX_MN;
            if (f64) {
                x.fn64 = sweep64[i].fn;
                g_sweep64_ms[s][i] = timed ? measure(&x, sweep64[i].name) : 0;
            } else {
                x.fn = sweep[i].fn;
                g_sweep_ms[s][i] = timed ? measure(&x, sweep[i].name) : 0;
            }
        }
        char tile[48];
        gp_tile(m, n, k, f64, tile);
        const double peak = f64 ? g_peak64 : g_peak32, gt = tflops(m, n, k, gms), ct = tflops(m, n, k, cms);
        if (f64) /* the CUDA-core kernel is the sweep's last candidate */
            gp_table_row("%zu x %zu x %zu|%s|%.3f|%.2f|%.3f|%.2f|%.3fx|%.3fx|%.1f%%|%.1f%%", m, n, k, tile, gms, gt, cms,
                         ct, cms / gms, cms / g_sweep64_ms[s][SWEEP64 - 1],
                         100.0 * gt / peak, 100.0 * ct / peak);
        else
            gp_table_row("%zu x %zu x %zu|%s|%.3f|%.2f|%.3f|%.2f|%.3fx|%.1f%%|%.1f%%", m, n, k, tile, gms, gt, cms, ct,
                         cms / gms, 100.0 * gt / peak, 100.0 * ct / peak);
    }
    if (f64) {
        gp_bench_note("gp_matmul_f64 runs on the FP64 tensor cores (DMMA, IEEE FP64 FMA) where built for sm_80 and "
                      "later; CUDA cores / cuBLAS: the CUDA-core kernel it used before (and still uses on older "
                      "targets), its best config at the shape. DMMA peak = SMs x 128 FP64 FMA per clock x 2 x clock "
                      "= %.1f TFLOP/s, twice the CUDA cores'.",
                      g_peak64);
        const char *names[32]; /* at least SWEEP64 */
        for (int i = 0; i < SWEEP64; i++) names[i] = sweep64[i].name;
        sweep_table("Tile sweep, f64: TFLOP/s of each candidate (the choice is gp_matmul's)", names, SWEEP64,
                    &g_sweep64_ms[0][0], SWEEP64);
    } else {
        gp_bench_note("gp / cuBLAS = cuBLAS ms / gp ms (above 1: gp faster). Inputs of 1024^3 fit in L2 for both. "
                      "gp tile: the block tile gp_matmul chose for the shape (and its warp tile, where not 64x32).");
        const char *names[32]; /* at least SWEEP */
        for (int i = 0; i < SWEEP; i++) names[i] = sweep[i].name;
        sweep_table("Tile sweep, f32: TFLOP/s of each candidate block tile (the choice is gp_matmul's)", names, SWEEP,
                    &g_sweep_ms[0][0], SWEEP);
    }
    CUDA_CHK(cudaFree(a));
    CUDA_CHK(cudaFree(b));
    CUDA_CHK(cudaFree(c));
}

/* The f64 ladder at 4096^3, from the CUDA cores to the tensor cores: the sweep's figures,
 * measured in the same run as cublasDgemm. */
static void ladder64_table(void)
{
    const int s = 2; /* 4096^3 */
    const size_t n = shapes[s][0];
    static const struct { int cand; const char *name; } rows[] = {
        {SWEEP64 - 1, "f64 1. CUDA cores, 64x64 block tile, 4x8 per thread (gp_matmul_f64 before DMMA)"},
        {1, "f64 2. DMMA (two m8n8k4 per 16x8x4), 128x128x16 block tile, 64x32 per warp, 4 stages, padded rows"},
        {0, "f64 3. + one m16n8k4 per 16x8x4 (sm_90)"},
        {-1, "gp_matmul_f64"},
        {-2, "cublasDgemm"},
    };
    gp_table_begin("Matmul ladder, f64 (4096^3)", "Kernel|ms|TFLOP/s|% of cublasDgemm|% of DMMA peak|Step speedup");
    float prev = 0;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const int c = rows[r].cand;
        const float ms = c >= 0 ? g_sweep64_ms[s][c] : c == -1 ? g_gp_ms[1][s] : g_cublas_ms[1][s];
        char step[32] = "-";
        if (r > 0) snprintf(step, sizeof step, "%.2fx", prev / ms);
        const double tf = tflops(n, n, n, ms);
        gp_table_row("%s|%.3f|%.2f|%.1f%%|%.1f%%|%s", rows[r].name, ms, tf, 100.0 * g_cublas_ms[1][s] / ms,
                     100.0 * tf / g_peak64, step);
        prev = ms;
    }
}

/* build/bench/matmul          the tables
 * build/bench/matmul f32      only the f32 tables (parts 1 and 2)
 * build/bench/matmul f64      only the f64 tables (parts 2 and 3)
 * build/bench/matmul profile  one call of each fast ladder kernel at 4096^3 (for ncu) */
/* The shapes' rows against the targets set for an H100, each marked met or not: f32 at
 * >= 0.95x cuBLAS pedantic from 2048^3 to 8192^3 and >= 0.90x at 1000^3 and 4097 x 3001 x
 * 2049; f64 at >= 0.90x cublasDgemm from 2048^3 to 8192^3. */
static void goals_table(int f32, int f64)
{
    gp_table_begin("gp_matmul against the goals (this run)", "type|m x n x k|gp / cuBLAS|goal|met");
    for (int t = 0; t < 2; t++) {
        if (!(t ? f64 : f32)) continue;
        for (int s = 0; s < NSHAPES; s++) {
            const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            const int cube = m == n && n == k, big = cube && m >= 2048 && m <= 8192;
            const double goal = big ? (t ? 0.90 : 0.95) : !t && ((cube && m == 1000) || m == 4097) ? 0.90 : 0;
            if (goal == 0 || g_gp_ms[t][s] == 0) continue;
            const double r = g_cublas_ms[t][s] / g_gp_ms[t][s];
            gp_table_row("%s|%zu x %zu x %zu|%.3fx|>= %.2fx|%s", t ? "f64" : "f32", m, n, k, r, goal,
                         r >= goal ? "yes" : "no");
        }
    }
    gp_bench_note("From the shape tables above, this run (cuBLAS pedantic for f32, no TF32). The other shapes "
                  "have no target.");
}

int main(int argc, char **argv)
{
    need_gpu(__FILE__);
    const char *arg = argc > 1 ? argv[1] : "";
    const int profile = strcmp(arg, "profile") == 0, f32 = strcmp(arg, "f64") != 0, f64 = !profile && strcmp(arg, "f32") != 0;
    gp_bench_begin("matmul", "Matrix multiply");
    int dev = 0, clock_khz = 0;
    CUDA_CHK(cudaGetDevice(&dev));
    CUDA_CHK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    g_peak32 = gp__bench.sms * 128.0 * 2 * clock_khz * 1e3 / 1e12;
    g_peak64 = g_peak32; /* the FP64 tensor cores: twice the CUDA cores' FP64 rate, the FP32 rate */
    cublasHandle_t h;
    CUBLAS_CHK(cublasCreate(&h));
    CUBLAS_CHK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    if (f32) bench_ladder(h, profile);
    if (f32 && !profile) bench_shapes(h, 0);
    if (f64) {
        bench_shapes(h, 1);
        ladder64_table();
    }
    if (!profile) goals_table(f32, f64);
    CUBLAS_CHK(cublasDestroy(h));
    gp_bench_end();
    return 0;
}
