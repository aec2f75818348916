/* tests/consumers/app.cu -- a CUDA program with an instance of its own (GP_DEFINE_REDUCE)
 * beside the library's default instances. With GPUPRIMS_IMPLEMENTATION defined (the plain
 * `nvcc -I` user, no library) it also compiles the default instances itself; without it,
 * they come from libgpuprims (CMake: gpuprims::gpuprims). APP_IN_TREE: include the header
 * as a user of the source tree does (-I<gpuprims>), not as installed. See run.sh. */
#ifdef APP_IN_TREE
#include "gpuprims.cuh"
#else
#include <gpuprims/gpuprims.cuh>
#endif

#include <math.h>
#include <stdio.h>

#define ABS_MAX(a, b) (fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b))
GP_DEFINE_REDUCE(absmax, float, ABS_MAX, 0.0f)

int main(void)
{
    /* Library code runs without a GPU: a NULL input with n > 0 is refused before any launch. */
    cudaError_t e1 = gp_reduce_sum_f32(NULL, NULL, 1, 0), e2 = gp_reduce_absmax(NULL, NULL, 1, 0);
    printf("app.cu: gpuprims %s; gp_reduce_sum_f32 / gp_reduce_absmax (NULL, NULL, 1, 0) = %s / %s\n",
           GPUPRIMS_VERSION_STRING, cudaGetErrorName(e1), cudaGetErrorName(e2));
    fflush(stdout);
    if (e1 != cudaErrorInvalidValue || e2 != cudaErrorInvalidValue) return 2;

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        fprintf(stderr, "app.cu: no CUDA GPU found (cudaGetDeviceCount: %s)\n",
                e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        return 1;
    }
    enum { N = 1000 };
    float h[N], *d_x, *d_out, sum = 0, amax = 0;
    for (int i = 0; i < N; i++) h[i] = (float)(i % 10) * (i == 777 ? -2.0f : 1.0f);
    CUDA_CHK(cudaMalloc(&d_x, sizeof h));
    CUDA_CHK(cudaMalloc(&d_out, 2 * sizeof(float)));
    CUDA_CHK(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    CUDA_CHK(gp_reduce_sum_f32(d_out, d_x, N, 0));
    CUDA_CHK(gp_reduce_absmax(d_out + 1, d_x, N, 0));
    CUDA_CHK(cudaMemcpy(&sum, d_out, sizeof sum, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(&amax, d_out + 1, sizeof amax, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_out));
    const int ok = sum == 4479.0f && amax == 14.0f;
    printf("app.cu: sum %g (want 4479), absmax %g (want 14): %s\n", sum, amax, ok ? "ok" : "WRONG");
    return ok ? 0 : 3;
}
