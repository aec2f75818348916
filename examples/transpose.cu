/* examples/transpose.cu -- transposes in a user's program: a float matrix of odd shape,
 * a batch of double matrices, and an image of 12-byte RGB pixels (a user type, through
 * GP_DEFINE_TRANSPOSE). Each result is checked against a host transpose (exit status 1
 * on a mismatch), and the float transpose is timed against a device-to-device copy
 * (bench/bench.cuh: CUDA events, median of 31 calls).
 *
 *   make examples && build/examples/transpose */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh" /* gp_bench_median_ms, gp_bench_copy_ms: CUDA events, median of 31 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float r, g, b; } rgb_t; /* 12 bytes: moved one pixel at a time */
GP_DEFINE_TRANSPOSE(rgb, rgb_t)          /* gp_transpose_rgb, gp_tile_load_rgb, ... */

/* Host check: out (cols x rows, leading dimension ld_out) is the transpose of in. */
static int same_transpose(const void *out, size_t ld_out, const void *in, size_t ld_in, size_t rows, size_t cols,
                          size_t elem)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            if (memcmp((const char *)out + (c * ld_out + r) * elem, (const char *)in + (r * ld_in + c) * elem, elem))
                return 0;
    return 1;
}

static void *upload_random(size_t bytes, void **host)
{
    unsigned char *h = (unsigned char *)malloc(bytes);
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(rand() >> 7);
    void *d;
    CUDA_CHK(cudaMalloc(&d, bytes));
    CUDA_CHK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    *host = h;
    return d;
}

typedef struct { float *d_out; const float *d_in; size_t rows, cols; } transpose_call;
static void run_transpose(void *p)
{
    const transpose_call *c = (const transpose_call *)p;
    CUDA_CHK(gp_transpose_f32(c->d_out, c->d_in, c->rows, c->cols, 0));
}

int main(void)
{
    need_gpu(__FILE__);
    int ok = 1;
    /* 1. A 4097 x 3001 float matrix (no multiple of anything), timed. */
    const size_t rows = 4097, cols = 3001, bytes = rows * cols * sizeof(float);
    void *h_a, *h_t = malloc(bytes);
    float *d_a = (float *)upload_random(bytes, &h_a), *d_t;
    CUDA_CHK(cudaMalloc(&d_t, bytes));
    transpose_call call = {d_t, d_a, rows, cols};
    const float ms_tr = gp_bench_median_ms(run_transpose, &call);
    CUDA_CHK(cudaMemcpy(h_t, d_t, bytes, cudaMemcpyDeviceToHost));
    ok &= same_transpose(h_t, rows, h_a, cols, rows, cols, sizeof(float));
    const float ms_copy = gp_bench_copy_ms(d_t, d_a, bytes); /* overwrites d_t: after the check */

    /* 2. A batch of 7 double matrices of 33 x 65, packed, into padded outputs (ld 40). */
    const size_t br = 33, bc = 65, batch = 7, ld_out = 40, in_bytes = batch * br * bc * sizeof(double);
    const size_t out_bytes = batch * bc * ld_out * sizeof(double);
    void *h_b, *h_bt = malloc(out_bytes);
    double *d_b = (double *)upload_random(in_bytes, &h_b), *d_bt;
    CUDA_CHK(cudaMalloc(&d_bt, out_bytes));
    CUDA_CHK(gp_transpose_batched_f64(d_bt, ld_out, bc * ld_out, d_b, bc, br * bc, br, bc, batch, 0));
    CUDA_CHK(cudaMemcpy(h_bt, d_bt, out_bytes, cudaMemcpyDeviceToHost));
    for (size_t b = 0; b < batch; b++)
        ok &= same_transpose((double *)h_bt + b * bc * ld_out, ld_out, (double *)h_b + b * br * bc, bc, br, bc,
                             sizeof(double));

    /* 3. A 480 x 640 image of RGB pixels, rotated into a 640 x 480 one. */
    const size_t ih = 480, iw = 640, ibytes = ih * iw * sizeof(rgb_t);
    void *h_img, *h_rot = malloc(ibytes);
    rgb_t *d_img = (rgb_t *)upload_random(ibytes, &h_img), *d_rot;
    CUDA_CHK(cudaMalloc(&d_rot, ibytes));
    CUDA_CHK(gp_transpose_rgb(d_rot, d_img, ih, iw, 0));
    CUDA_CHK(cudaMemcpy(h_rot, d_rot, ibytes, cudaMemcpyDeviceToHost));
    ok &= same_transpose(h_rot, ih, h_img, iw, ih, iw, sizeof(rgb_t));

    printf("| what | result |\n|---|---|\n");
    printf("| f32 %zu x %zu transpose | %.1f us, %.0f GB/s (copy of the same bytes: %.1f us) |\n", rows, cols,
           ms_tr * 1e3, gp_bench_gbps(2.0 * bytes, ms_tr), ms_copy * 1e3);
    printf("| f64 batch of %zu, %zu x %zu into ld %zu | %s |\n", batch, br, bc, ld_out, ok ? "checked" : "-");
    printf("| rgb_t %zu x %zu image | %s |\n", ih, iw, ok ? "checked" : "-");
    printf("%s\n", ok ? "all transposes match the host" : "MISMATCH");
    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_t));
    CUDA_CHK(cudaFree(d_b));
    CUDA_CHK(cudaFree(d_bt));
    CUDA_CHK(cudaFree(d_img));
    CUDA_CHK(cudaFree(d_rot));
    free(h_a), free(h_t), free(h_b), free(h_bt), free(h_img), free(h_rot);
    return ok ? 0 : 1;
}
