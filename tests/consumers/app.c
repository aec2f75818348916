/* tests/consumers/app.c -- a C program that uses the installed library: the default
 * instances from libgpuprims, the header's C declarations. Built by gcc through pkg-config
 * and by CMake (gpuprims::gpuprims), installed and through add_subdirectory; see run.sh. */
#include <gpuprims/gpuprims.cuh>

#include <stdio.h>

int main(void)
{
    /* Library code runs without a GPU: a NULL input with n > 0 is refused before any launch. */
    cudaError_t e = gp_reduce_sum_f32(NULL, NULL, 1, 0);
    printf("app.c: gpuprims %s; gp_reduce_sum_f32(NULL, NULL, 1, 0) = %s\n", GPUPRIMS_VERSION_STRING,
           cudaGetErrorName(e));
    fflush(stdout);
    if (e != cudaErrorInvalidValue) return 2;

    int count = 0;
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        fprintf(stderr, "app.c: no CUDA GPU found (cudaGetDeviceCount: %s)\n",
                e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        return 1;
    }
    enum { N = 1000 };
    float h[N], *d_x, *d_sum, sum = 0;
    for (int i = 0; i < N; i++) h[i] = (float)(i % 10);
    CUDA_CHK(cudaMalloc((void **)&d_x, sizeof h));
    CUDA_CHK(cudaMalloc((void **)&d_sum, sizeof sum));
    CUDA_CHK(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_reduce_sum_f32(d_sum, d_x, N, 0));
    CUDA_CHK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_sum));
    printf("app.c: gp_reduce_sum_f32 = %g (want 4500): %s\n", sum, sum == 4500.0f ? "ok" : "WRONG");
    return sum == 4500.0f ? 0 : 3;
}
