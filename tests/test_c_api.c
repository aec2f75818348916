/* tests/test_c_api.c -- plain C (compiled by gcc, not nvcc) calls the library through the
 * header's C declarations (linked against build/lib/libgpuprims.a), and a user's instance
 * through its GP_DECLARE_* header (tests/user_pair.h; defined in tests/user_pair.cu). */
#include "../gpuprims.cuh"
#include "harness.h"
#include "user_pair.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_c_api(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("C API: default instances and a user's GP_DEFINE_*_EXTERN instance from a .c file (linked, not run)");
        return;
    }
    gp_t_section("C API: gp_reduce_sum_f32, gp_dot_f32 and gp_inclusive_scan_max_i32 called from C");
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
    /* the dot product of x with itself (values -3..3: exact), and the L1 distance of x and
     * x shifted by one (a user's map-reduce, float in, double out) */
    double want_dot = 0, want_l1 = 0, got_l1 = -1;
    for (int i = 0; i < N; i++) want_dot += (double)h[i] * h[i];
    for (int i = 0; i + 1 < N; i++) want_l1 += fabs((double)h[i] - h[i + 1]);
    CUDA_CHK(gp_dot_f32(d_sum, d_x, d_x, N, 0));
    CUDA_CHK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == (float)want_dot, "C: gp_dot_f32 got %g want %g", got, want_dot);
    double *d_l1;
    CUDA_CHK(cudaMalloc((void **)&d_l1, sizeof(double)));
    CUDA_CHK(gp_l1_distance_f32(d_l1, d_x, d_x + 1, N - 1, 0));
    CUDA_CHK(cudaMemcpy(&got_l1, d_l1, sizeof got_l1, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaFree(d_l1));
    EXPECT(got_l1 == want_l1, "C: gp_l1_distance_f32 (GP_DEFINE_MAP2_REDUCE_EXTERN) got %g want %g", got_l1, want_l1);
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
    /* a user's instance, defined in another translation unit (GP_DEFINE_*_EXTERN) */
    enum { P = 1000 };
    gp_t_pair hp[P], *d_p, got_p = {0, 0}, want_p = {-INFINITY, -1}, last_p = {0, 0};
    for (int i = 0; i < P; i++) {
        hp[i].v = (float)((i * 7919) % 613);
        hp[i].i = i;
        if (hp[i].v > want_p.v) want_p = hp[i];
    }
    CUDA_CHK(cudaMalloc((void **)&d_p, sizeof hp));
    CUDA_CHK(cudaMemcpy(d_p, hp, sizeof hp, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_reduce_argmax_pair(d_p + P - 1, d_p, P - 1, 0)); /* into the last slot: no overlap with the input */
    CUDA_CHK(cudaMemcpy(&got_p, d_p + P - 1, sizeof got_p, cudaMemcpyDeviceToHost));
    want_p.v = -INFINITY;
    for (int i = 0; i < P - 1; i++)
        if (hp[i].v > want_p.v) want_p = hp[i];
    EXPECT(got_p.v == want_p.v && got_p.i == want_p.i, "C: gp_reduce_argmax_pair got (%g, %d) want (%g, %d)",
           got_p.v, got_p.i, want_p.v, want_p.i);
    CUDA_CHK(cudaMemcpy(d_p, hp, sizeof hp, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_inclusive_scan_argmax_pair(d_p, d_p, P, 0));
    CUDA_CHK(cudaMemcpy(&last_p, d_p + P - 1, sizeof last_p, cudaMemcpyDeviceToHost));
    want_p.v = -INFINITY;
    for (int i = 0; i < P; i++)
        if (hp[i].v > want_p.v) want_p = hp[i];
    EXPECT(last_p.v == want_p.v && last_p.i == want_p.i, "C: gp_inclusive_scan_argmax_pair, last (%g, %d) want (%g, %d)",
           last_p.v, last_p.i, want_p.v, want_p.i);
    CUDA_CHK(cudaFree(d_p));
    /* and a user's transpose (GP_DEFINE_TRANSPOSE_EXTERN): 3-byte pixels, 7 x 5 */
    gp_t_rgb8 px[35], pt[35], *d_px, *d_pt;
    for (int i = 0; i < 35; i++) px[i].r = (uint8_t)i, px[i].g = (uint8_t)(100 + i), px[i].b = (uint8_t)(200 - i);
    CUDA_CHK(cudaMalloc((void **)&d_px, sizeof px));
    CUDA_CHK(cudaMalloc((void **)&d_pt, sizeof pt));
    CUDA_CHK(cudaMemcpy(d_px, px, sizeof px, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_transpose_rgb8(d_pt, d_px, 7, 5, 0));
    CUDA_CHK(cudaMemcpy(pt, d_pt, sizeof pt, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int r = 0; r < 7; r++)
        for (int c = 0; c < 5; c++) ok &= memcmp(&pt[c * 7 + r], &px[r * 5 + c], sizeof(gp_t_rgb8)) == 0;
    EXPECT(ok, "C: gp_transpose_rgb8 (a user's extern instance) of a 7 x 5 matrix");
    CUDA_CHK(cudaFree(d_px));
    CUDA_CHK(cudaFree(d_pt));
    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_t));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_sum));
    free(h);
}
