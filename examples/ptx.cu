/* examples/ptx.cu -- reading PTX, a classic exercise: a float times 2.27 against a
 * float times 2.27f.
 *
 * 2.27 is a double literal, so C's rules make `x * 2.27` a double multiply: the PTX
 * widens x (cvt.f64.f32), multiplies in double (mul.f64) and rounds back
 * (cvt.rn.f32.f64). `x * 2.27f` stays a single mul.f32. The results differ too: the
 * double product is rounded once, the float one uses a rounded constant. See it with
 *     make ptx          (writes build/examples/ptx.ptx, prints the entries and cvt/mul lines)
 * or by hand:  nvcc -arch=sm_90 -ptx examples/ptx.cu -o ptx.ptx
 * tests/test_examples.cu generates the PTX with nvcc and checks both claims (no GPU needed).
 *
 * Run:  make build/examples/ptx && build/examples/ptx
 * Times both kernels on 2^26 floats (memory-bound, so the double multiply costs little on
 * an H100; on a GPU with slow FP64 it does not), checks each bitwise against the same
 * expression on the host, and counts the elements where the two kernels disagree. */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* extern "C": plain entry names in the PTX, which is what `make ptx` greps. */
extern "C" __global__ void scale_by_double_literal(float *out, const float *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.27; /* float * double -> double; stored as float */
}

extern "C" __global__ void scale_by_float_literal(float *out, const float *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.27f;
}

typedef struct {
    void (*kernel)(float *, const float *, size_t);
    float *out;
    const float *in;
    size_t n;
} launch_t;

static void launch(void *p)
{
    launch_t *a = (launch_t *)p;
    a->kernel<<<(unsigned)((a->n + 255) / 256), 256>>>(a->out, a->in, a->n);
    CUDA_CHK_LAUNCH();
}

int main(void)
{
    need_gpu(__FILE__);
    const size_t n = (size_t)1 << 26;
    const size_t bytes = n * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (size_t i = 0; i < n; i++) h_in[i] = (float)(i % 1000003) * 0.001f - 500.0f;

    float *d_in, *d_out;
    CUDA_CHK(cudaMalloc(&d_in, bytes));
    CUDA_CHK(cudaMalloc(&d_out, bytes));
    CUDA_CHK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    struct {
        const char *name, *ptx;
        void (*kernel)(float *, const float *, size_t);
        int dbl;
    } runs[2] = {{"x * 2.27", "cvt.f64.f32, mul.f64, cvt.rn.f32.f64", scale_by_double_literal, 1},
                 {"x * 2.27f", "mul.f32", scale_by_float_literal, 0}};
    int bad = 0;
    printf("| kernel | PTX arithmetic | time (us) | GB/s | mismatches vs host | differs from the other |\n"
           "|---|---|---|---|---|---|\n");
    for (int r = 0; r < 2; r++) {
        launch_t a = {runs[r].kernel, d_out, d_in, n};
        CUDA_CHK(cudaMemset(d_out, 0xff, bytes)); /* poison: NaN everywhere */
        launch(&a);
        CUDA_CHK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        size_t mismatches = 0, differs = 0;
        for (size_t i = 0; i < n; i++) {
            float want = runs[r].dbl ? (float)(h_in[i] * 2.27) : h_in[i] * 2.27f;
            float other = runs[r].dbl ? h_in[i] * 2.27f : (float)(h_in[i] * 2.27);
            mismatches += memcmp(&h_out[i], &want, sizeof want) != 0;
            differs += h_out[i] != other;
        }
        float ms = gp_bench_median_ms(launch, &a);
        printf("| %s | %s | %.1f | %.0f | %zu | %zu of %zu |\n", runs[r].name, runs[r].ptx, ms * 1e3,
               gp_bench_gbps(2.0 * bytes, ms), mismatches, differs, n);
        bad += mismatches != 0;
    }
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    printf("%s\n", bad ? "FAIL: a kernel disagrees with the host" : "both kernels match the host bitwise");
    return bad != 0;
}
