/* examples/need_gpu.h -- need_gpu(name): the first call in every example's and bench's main.
 * Without a usable CUDA GPU it prints "<name>: no CUDA GPU found (<what the runtime said>)"
 * to stderr and exits with status 1, rather than failing at the first cudaMalloc with the
 * runtime's "CUDA driver version is insufficient" (what it says when no driver is loaded). */
#ifndef GPUPRIMS_EXAMPLES_NEED_GPU_H
#define GPUPRIMS_EXAMPLES_NEED_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

static inline void need_gpu(const char *name)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return;
    if (err == cudaSuccess)
        fprintf(stderr, "%s: no CUDA GPU found (cudaGetDeviceCount: 0 devices)\n", name);
    else
        fprintf(stderr, "%s: no CUDA GPU found (cudaGetDeviceCount: %s: %s)\n", name, cudaGetErrorName(err),
                cudaGetErrorString(err));
    exit(EXIT_FAILURE);
}

#endif /* GPUPRIMS_EXAMPLES_NEED_GPU_H */
