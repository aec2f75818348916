/* examples/histogram.cu -- histogram equalisation of an 8-bit image: the histogram of the
 * pixels (gp_histogram_even_u8, 256 bins over [0, 256)), its cumulative sum turned into a
 * look-up table, the table applied on the device, and the histogram of the result. Prints
 * both histograms (in 16 groups of 16 grey levels) and checks every pixel and both
 * histograms against a host reference; exits non-zero on a mismatch.
 *
 * The image is made up: a dim, low-contrast gradient with noise (grey levels 60..123), which
 * equalisation spreads over 0..255.
 *
 * Build and run: make examples && build/examples/histogram [width height, default 1920 1080] */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* out[i] = lut[in[i]], the table in shared memory */
__global__ void apply_lut(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *lut)
{
    __shared__ uint8_t s[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = lut[i];
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = s[in[i]];
}

/* The classic equalisation map: lut[v] = round((cdf[v] - cdf_min) * 255 / (n - cdf_min)). */
static void make_lut(const uint64_t *hist, size_t n, uint8_t *lut)
{
    uint64_t cdf = 0, cdf_min = 0;
    for (int v = 0; v < 256; v++)
        if (hist[v]) { cdf_min = hist[v]; break; }
    for (int v = 0; v < 256; v++) {
        cdf += hist[v];
        lut[v] = n == cdf_min ? (uint8_t)v : (uint8_t)llround((double)(cdf > cdf_min ? cdf - cdf_min : 0) * 255.0 / (double)(n - cdf_min));
    }
}

static void print_hist(const char *title, const uint64_t *h, size_t n)
{
    printf("%s\n", title);
    for (int g = 0; g < 16; g++) {
        uint64_t c = 0;
        for (int v = g * 16; v < g * 16 + 16; v++) c += h[v];
        const int bar = (int)(60.0 * (double)c / (double)n + 0.5);
        printf("  %3d-%3d %9llu |", g * 16, g * 16 + 15, (unsigned long long)c);
        for (int k = 0; k < bar; k++) putchar('#');
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    need_gpu("histogram");
    const size_t w = argc > 2 ? strtoul(argv[1], NULL, 10) : 1920, h = argc > 2 ? strtoul(argv[2], NULL, 10) : 1080, n = w * h;
    uint8_t *img = (uint8_t *)malloc(n), *eq = (uint8_t *)malloc(n), lut[256];
    uint64_t hist[256], hist_eq[256], ref[256] = {0}, ref_eq[256] = {0};
    uint32_t seed = 12345;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            seed = seed * 1664525u + 1013904223u;
            img[y * w + x] = (uint8_t)(60 + (x * 48) / w + (y * 8) / h + (seed >> 28)); /* 60 .. 123 */
        }
    uint8_t *d_img, *d_eq, *d_lut;
    uint64_t *d_hist;
    CUDA_CHK(cudaMalloc(&d_img, n));
    CUDA_CHK(cudaMalloc(&d_eq, n));
    CUDA_CHK(cudaMalloc(&d_lut, 256));
    CUDA_CHK(cudaMalloc(&d_hist, 256 * sizeof(uint64_t)));
    CUDA_CHK(cudaMemcpy(d_img, img, n, cudaMemcpyHostToDevice));

    CUDA_CHK(gp_histogram_even_u8(d_hist, d_img, n, 256, 0, 256, 0));
    CUDA_CHK(cudaMemcpy(hist, d_hist, sizeof hist, cudaMemcpyDeviceToHost));
    make_lut(hist, n, lut);
    CUDA_CHK(cudaMemcpy(d_lut, lut, 256, cudaMemcpyHostToDevice));
    apply_lut<<<256, 256>>>(d_eq, d_img, n, d_lut);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(gp_histogram_even_u8(d_hist, d_eq, n, 256, 0, 256, 0));
    CUDA_CHK(cudaMemcpy(hist_eq, d_hist, sizeof hist_eq, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(eq, d_eq, n, cudaMemcpyDeviceToHost));

    /* the host reference: both histograms and every pixel */
    uint8_t ref_lut[256];
    for (size_t i = 0; i < n; i++) ref[img[i]]++;
    make_lut(ref, n, ref_lut);
    int bad = memcmp(hist, ref, sizeof ref) != 0;
    for (size_t i = 0; i < n; i++) {
        ref_eq[ref_lut[img[i]]]++;
        bad |= eq[i] != ref_lut[img[i]];
    }
    bad |= memcmp(hist_eq, ref_eq, sizeof ref_eq) != 0;

    printf("%zu x %zu image, %zu pixels\n", w, h, n);
    print_hist("before equalisation (grey levels in 16 groups):", hist, n);
    print_hist("after:", hist_eq, n);
    printf("%s\n", bad ? "MISMATCH against the host reference" : "both histograms and every pixel match the host reference");
    CUDA_CHK(cudaFree(d_img));
    CUDA_CHK(cudaFree(d_eq));
    CUDA_CHK(cudaFree(d_lut));
    CUDA_CHK(cudaFree(d_hist));
    free(img);
    free(eq);
    return bad ? 1 : 0;
}
