/* examples/spmv.cu -- a CSR sparse matrix times a vector, y = A x, as a map then a segmented
 * reduce: one kernel of ours writes the products vals[k] * x[cols[k]] (the map), and
 * gp_segmented_reduce_sum_f32 sums each row's products over the CSR row offsets. The
 * segmented reduce splits the work over the nonzeros, not the rows (merge path: Merrill &
 * Garland, SC'16), so a matrix with empty rows, rows of one element and one dense row runs at
 * one rate. Checked against a host reference, and timed next to cuSPARSE's SpMV (loaded at
 * run time, if the toolkit's libcusparse is there: the build links only gpuprims).
 * Build and run: make examples && build/examples/spmv */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <cusparse.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

/* The median of 20 timed calls of call() on stream 0, after 3 warm-ups, in ms. */
template <class Call>
static float median_ms(Call call)
{
    cudaEvent_t a, b;
    CUDA_CHK(cudaEventCreate(&a));
    CUDA_CHK(cudaEventCreate(&b));
    std::vector<float> ms(20);
    for (int i = 0; i < 23; i++) {
        CUDA_CHK(cudaEventRecord(a, 0));
        call();
        CUDA_CHK(cudaEventRecord(b, 0));
        CUDA_CHK(cudaEventSynchronize(b));
        if (i >= 3) CUDA_CHK(cudaEventElapsedTime(&ms[i - 3], a, b));
    }
    CUDA_CHK(cudaEventDestroy(a));
    CUDA_CHK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[10];
}

/* the map: one product per nonzero */
__global__ void products(float *p, const float *vals, const int *cols, const float *x, size_t nnz)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz; k += (size_t)gridDim.x * blockDim.x)
        p[k] = vals[k] * x[cols[k]];
}

static uint64_t rng = 12345;
static uint32_t next32(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* cuSPARSE's generic SpMV through dlopen; returns the median ms of 20 calls, or -1 */
static float cusparse_spmv_ms(int rows, int cols, int64_t nnz, const int *d_rowoff32, const int *d_cols,
                              const float *d_vals, const float *d_x, float *d_y)
{
    void *h = dlopen("libcusparse.so.12", RTLD_NOW);
    if (!h) h = dlopen("libcusparse.so", RTLD_NOW);
    if (!h) return -1;
#define SYM(name) decltype(&name) p_##name = (decltype(&name))dlsym(h, #name)
    SYM(cusparseCreate); SYM(cusparseCreateCsr); SYM(cusparseCreateDnVec); SYM(cusparseSpMV_bufferSize);
    SYM(cusparseSpMV); SYM(cusparseDestroySpMat); SYM(cusparseDestroyDnVec); SYM(cusparseDestroy);
#undef SYM
    if (!p_cusparseCreate || !p_cusparseSpMV) return -1;
    cusparseHandle_t hs;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    const float one = 1.0f, zero = 0.0f;
    p_cusparseCreate(&hs);
    p_cusparseCreateCsr(&A, rows, cols, nnz, (void *)d_rowoff32, (void *)d_cols, (void *)d_vals, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    p_cusparseCreateDnVec(&X, cols, (void *)d_x, CUDA_R_32F);
    p_cusparseCreateDnVec(&Y, rows, (void *)d_y, CUDA_R_32F);
    size_t bytes = 0;
    p_cusparseSpMV_bufferSize(hs, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
    void *buf = NULL;
    CUDA_CHK(cudaMalloc(&buf, bytes + 1));
    const float ms = median_ms([&] {
        p_cusparseSpMV(hs, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
    });
    p_cusparseDestroySpMat(A);
    p_cusparseDestroyDnVec(X);
    p_cusparseDestroyDnVec(Y);
    p_cusparseDestroy(hs);
    CUDA_CHK(cudaFree(buf));
    return ms;
}

int main(void)
{
    need_gpu(__FILE__);
    /* a generated matrix: most rows short (0 .. 16 nonzeros), every 997th row empty, one dense row */
    const int rows = 1 << 18, cols = 1 << 16;
    std::vector<uint64_t> off(rows + 1, 0);
    std::vector<int> colidx;
    std::vector<float> vals;
    for (int r = 0; r < rows; r++) {
        const int len = r % 997 == 0 ? 0 : r == rows / 2 ? cols / 2 : (int)(next32() % 17);
        for (int k = 0; k < len; k++) {
            colidx.push_back(r == rows / 2 ? 2 * k : (int)(next32() % cols));
            vals.push_back((float)(next32() % 9) - 4.0f);
        }
        off[r + 1] = colidx.size();
    }
    const size_t nnz = colidx.size();
    std::vector<float> x(cols);
    for (int c = 0; c < cols; c++) x[c] = (float)(next32() % 5) - 2.0f; /* small integers: exact sums */
    std::vector<float> want(rows, 0.0f), got(rows);
    for (int r = 0; r < rows; r++)
        for (uint64_t k = off[r]; k < off[r + 1]; k++) want[r] += vals[k] * x[colidx[k]];

    float *d_vals, *d_x, *d_p, *d_y, *d_y2;
    int *d_cols, *d_off32;
    uint64_t *d_off;
    CUDA_CHK(cudaMalloc(&d_vals, nnz * 4));
    CUDA_CHK(cudaMalloc(&d_cols, nnz * 4));
    CUDA_CHK(cudaMalloc(&d_p, nnz * 4));
    CUDA_CHK(cudaMalloc(&d_x, cols * 4));
    CUDA_CHK(cudaMalloc(&d_y, rows * 4));
    CUDA_CHK(cudaMalloc(&d_y2, rows * 4));
    CUDA_CHK(cudaMalloc(&d_off, (rows + 1) * 8));
    CUDA_CHK(cudaMalloc(&d_off32, (rows + 1) * 4));
    CUDA_CHK(cudaMemcpy(d_vals, vals.data(), nnz * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_cols, colidx.data(), nnz * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_x, x.data(), cols * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_off, off.data(), (rows + 1) * 8, cudaMemcpyHostToDevice));
    std::vector<int> off32(off.begin(), off.end());
    CUDA_CHK(cudaMemcpy(d_off32, off32.data(), (rows + 1) * 4, cudaMemcpyHostToDevice));

    /* y = A x: the map, then the segmented reduce over the row offsets */
    const float ms = median_ms([&] {
        products<<<1024, 256>>>(d_p, d_vals, d_cols, d_x, nnz);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(gp_segmented_reduce_sum_f32(d_y, d_p, d_off, rows, 0));
    });
    CUDA_CHK(cudaMemcpy(got.data(), d_y, rows * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int r = 0; r < rows; r++) bad += got[r] != want[r];
    printf("spmv: %d x %d, %zu nonzeros (empty rows, one of %d): map + gp_segmented_reduce_sum_f32 %.1f us, %zu rows wrong\n",
           rows, cols, nnz, cols / 2, ms * 1e3, bad);
    const float cs = cusparse_spmv_ms(rows, cols, (int64_t)nnz, d_off32, d_cols, d_vals, d_x, d_y2);
    if (cs >= 0) {
        CUDA_CHK(cudaMemcpy(got.data(), d_y2, rows * 4, cudaMemcpyDeviceToHost));
        size_t bad2 = 0;
        for (int r = 0; r < rows; r++) bad2 += got[r] != want[r];
        printf("spmv: cuSPARSE SpMV (CSR, default algorithm) %.1f us, %zu rows wrong\n", cs * 1e3, bad2);
    } else {
        printf("spmv: cuSPARSE not found at run time: its row skipped\n");
    }
    CUDA_CHK(cudaFree(d_vals));
    CUDA_CHK(cudaFree(d_cols));
    CUDA_CHK(cudaFree(d_p));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_y));
    CUDA_CHK(cudaFree(d_y2));
    CUDA_CHK(cudaFree(d_off));
    CUDA_CHK(cudaFree(d_off32));
    return bad == 0 ? 0 : 1;
}
