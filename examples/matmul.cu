/* examples/matmul.cu -- the textbook tiled matrix multiply (Kirk & Hwu, Programming
 * Massively Parallel Processors), walked through, then the library.
 *
 * Part 1 runs Kirk & Hwu's tiled kernel (shared-memory tiles of TILE x TILE) on a 512 x 512
 * product, written out right (copies of it in lecture notes carry typos: `__syncthreads`
 * split across lines, and in one version the shared tiles indexed [tx][ty] on store and
 * [tx][k] on use, which multiplies the wrong elements). Then the same kernel with the
 * library's tile load (gp_tile_load_f32), which clips tiles at the matrix's edges: any
 * m, n, k.
 * Part 2 calls gp_matmul_f32 on the same product and on a shape that is no multiple of
 * any tile (1000 x 777 x 333), which the textbook kernel cannot do, and checks both against
 * the host.
 * Build and run: make examples && build/examples/matmul */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

/* Kirk & Hwu's kernel. Block (bx, by) computes the TILE x TILE tile of P at block-row by,
 * block-column bx; thread (tx, ty) computes one element of it. Width must be a multiple
 * of TILE (the textbook's assumption). */
__global__ void MatrixMulKernel(const float *Md, const float *Nd, float *Pd, int Width)
{
    __shared__ float Mds[TILE][TILE]; /* this phase's tile of M (rows of P's tile) */
    __shared__ float Nds[TILE][TILE]; /* and of N (columns of P's tile) */
    const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    const int Row = by * TILE + ty, Col = bx * TILE + tx; /* the element of P this thread owns */
    float Pvalue = 0;
    /* Phase m: the TILE x TILE threads load tile m of M's block-row and tile m of N's
     * block-column, one element each (adjacent tx read adjacent addresses: coalesced). */
    for (int m = 0; m < Width / TILE; ++m) {
        Mds[ty][tx] = Md[Row * Width + m * TILE + tx];
        Nds[ty][tx] = Nd[(m * TILE + ty) * Width + Col];
        __syncthreads(); /* the tiles are complete before anyone reads them */
        for (int k = 0; k < TILE; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads(); /* everyone is done with them before the next phase overwrites them */
    }
    /* Each element of M and N was loaded from global memory once per block rather than once
     * per thread: 2 Width^3 / TILE loads in all instead of 2 Width^3 (a factor TILE fewer). */
    Pd[Row * Width + Col] = Pvalue;
}

/* The same kernel for any shape (m x k times k x n): gp_tile_load_f32 copies each tile
 * with the whole block (16-byte global loads where the rows allow) and fills what lies
 * outside the matrix with 0, which adds nothing to the dot products. */
__global__ void MatrixMulTiles(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int row = row0 + threadIdx.y, col = col0 + threadIdx.x;
    float v = 0;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        gp_tile_load_f32(&as[0][0], TILE, a + (size_t)row0 * k + k0, k, m - row0, k - k0, TILE, TILE, 0.0f);
        gp_tile_load_f32(&bs[0][0], TILE, b + (size_t)k0 * n + col0, n, k - k0, n - col0, TILE, TILE, 0.0f);
        __syncthreads();
        for (int kk = 0; kk < TILE; kk++) v += as[threadIdx.y][kk] * bs[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = v;
}

static int check(const char *what, const float *got, const float *a, const float *b, int m, int n, int k)
{
    int bad = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double ref = 0, mag = 0;
            for (int p = 0; p < k; p++) {
                ref += (double)a[i * k + p] * b[p * n + j];
                mag += fabs((double)a[i * k + p] * b[p * n + j]);
            }
            if (!(fabs(got[i * n + j] - ref) <= (k + 2) * 6e-8 * mag)) bad++;
        }
    printf("%-40s %dx%dx%d: %s\n", what, m, n, k, bad ? "MISMATCH" : "matches the host");
    return bad != 0;
}

int main(void)
{
    need_gpu(__FILE__);
    enum { W = 512, M2 = 1000, N2 = 777, K2 = 333 };
    const size_t cap = (size_t)M2 * N2 > (size_t)W * W ? (size_t)M2 * N2 : (size_t)W * W; /* the largest matrix */
    float *a = (float *)malloc(cap * 4), *b = (float *)malloc(cap * 4), *c = (float *)malloc(cap * 4);
    for (size_t i = 0; i < cap; i++) {
        a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    }
    float *d_a, *d_b, *d_c;
    CUDA_CHK(cudaMalloc(&d_a, cap * 4));
    CUDA_CHK(cudaMalloc(&d_b, cap * 4));
    CUDA_CHK(cudaMalloc(&d_c, cap * 4));
    CUDA_CHK(cudaMemcpy(d_a, a, cap * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_b, b, cap * 4, cudaMemcpyHostToDevice));
    int failed = 0;

    /* Part 1: the textbook's configuration, one block per tile of P, TILE x TILE threads. */
    MatrixMulKernel<<<dim3(W / TILE, W / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, W);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(c, d_c, (size_t)W * W * 4, cudaMemcpyDeviceToHost));
    failed |= check("Kirk & Hwu tiled kernel (16x16 tiles)", c, a, b, W, W, W);

    /* Part 1b: the same kernel on tiles loaded by the library: no multiple of TILE needed. */
    MatrixMulTiles<<<dim3((N2 + TILE - 1) / TILE, (M2 + TILE - 1) / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, M2, N2, K2);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(c, d_c, (size_t)M2 * N2 * 4, cudaMemcpyDeviceToHost));
    failed |= check("same kernel on gp_tile_load_f32 tiles", c, a, b, M2, N2, K2);

    /* Part 2: the library. Asynchronous on stream 0; any shape. */
    CUDA_CHK(gp_matmul_f32(d_c, d_a, d_b, W, W, W, 0));
    CUDA_CHK(cudaMemcpy(c, d_c, (size_t)W * W * 4, cudaMemcpyDeviceToHost));
    failed |= check("gp_matmul_f32", c, a, b, W, W, W);
    CUDA_CHK(gp_matmul_f32(d_c, d_a, d_b, M2, N2, K2, 0));
    CUDA_CHK(cudaMemcpy(c, d_c, (size_t)M2 * N2 * 4, cudaMemcpyDeviceToHost));
    failed |= check("gp_matmul_f32, no multiple of a tile", c, a, b, M2, N2, K2);

    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_b));
    CUDA_CHK(cudaFree(d_c));
    free(a);
    free(b);
    free(c);
    return failed;
}
