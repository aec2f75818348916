/* lib/nccl/nccl.cu -- the NCCL layer's default instances: libgpuprims_nccl.a (make nccl). */
#define GPUPRIMS_NCCL_IMPLEMENTATION
#include "../../gpuprims_nccl.cuh"
