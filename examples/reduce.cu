/* examples/reduce.cu -- the README's example: sum a million floats on the GPU.
 * Build and run: make examples && build/examples/reduce */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    need_gpu(__FILE__);
    const size_t n = 1 << 20;
    float *h = (float *)malloc(n * sizeof(float)), *d_x, *d_sum, sum;
    double want = 0;
    for (size_t i = 0; i < n; i++) want += h[i] = (float)(i % 100) * 0.25f;

    CUDA_CHK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHK(cudaMalloc(&d_sum, sizeof(float)));
    CUDA_CHK(cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHK(gp_reduce_sum_f32(d_sum, d_x, n, 0)); /* asynchronous, one launch */
    CUDA_CHK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));

    printf("sum of %zu floats: %.1f (host: %.1f)\n", n, sum, want);
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_sum));
    free(h);
    return sum == (float)want ? 0 : 1;
}
