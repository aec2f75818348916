/* tests/test_c_api.c -- plain C (compiled by gcc, not nvcc) calls the library through the
 * header's C declarations and links against the library (build/lib/libgpuprims.a). */
#include "../gpuprims.cuh"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_c_api(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("C API: gp_reduce_sum_f32 and gp_transpose_v16 from a .c file (linked, not run)");
        return;
    }
    gp_t_section("C API: gp_reduce_sum_f32 and gp_inclusive_scan_max_i32 called from C");
    enum { N = 100003 };
    float *h = malloc(N * sizeof(float)), *d_x, *d_sum, got = -1.0f;
    double want = 0;
    for (int i = 0; i < N; i++) want += h[i] = (float)(i % 7) - 3.0f;
    CUDA_CHK(cudaMalloc((void **)&d_x, N * sizeof(float)));
    CUDA_CHK(cudaMalloc((void **)&d_sum, sizeof(float)));
    CUDA_CHK(cudaMemcpy(d_x, h, N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHK(gp_reduce_sum_f32(d_sum, d_x, N, 0));
    CUDA_CHK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == (float)want, "C: gp_reduce_sum_f32 got %g want %g", got, want);
    EXPECT(gp_reduce_sum_f32(d_sum, NULL, N, 0) == cudaErrorInvalidValue, "C: NULL input is cudaErrorInvalidValue");
    /* the scan, in place, from C: the inclusive max of values that end in the largest */
    int32_t last = -1;
    CUDA_CHK(gp_inclusive_scan_max_i32((int32_t *)d_x, (const int32_t *)d_x, N, 0));
    CUDA_CHK(cudaMemcpy(&last, (int32_t *)d_x + N - 1, sizeof last, cudaMemcpyDeviceToHost));
    int32_t want_max = 0;
    for (int i = 0; i < N; i++) {
        int32_t v;
        memcpy(&v, &h[i], sizeof v);
        if (i == 0 || v > want_max) want_max = v;
    }
    EXPECT(last == want_max, "C: gp_inclusive_scan_max_i32 in place, last element %d want %d", last, want_max);
    /* transpose from C: a 3 x 5 matrix of 16-byte elements, and the strided form */
    gp_v16_t a[15], t[15], *d_a, *d_t;
    for (int i = 0; i < 15; i++) a[i].w[0] = a[i].w[1] = a[i].w[2] = a[i].w[3] = (uint32_t)i;
    CUDA_CHK(cudaMalloc((void **)&d_a, sizeof a));
    CUDA_CHK(cudaMalloc((void **)&d_t, sizeof t));
    CUDA_CHK(cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_transpose_v16(d_t, d_a, 3, 5, 0));
    CUDA_CHK(cudaMemcpy(t, d_t, sizeof t, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++) ok &= t[c * 3 + r].w[3] == (uint32_t)(r * 5 + c);
    EXPECT(ok, "C: gp_transpose_v16 of a 3 x 5 matrix");
    EXPECT(gp_transpose_strided_v16(d_t, 2, d_a, 5, 3, 5, 0) == cudaErrorInvalidValue, "C: ld_out < rows");
    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_t));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_sum));
    free(h);
}
