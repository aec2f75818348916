/* A user's TU that calls default instances (compiled once, in libgpuprims). */
#include "../../gpuprims.cuh"
cudaError_t sum(float *d_out, const float *d_in, size_t n, cudaStream_t s) { return gp_reduce_sum_f32(d_out, d_in, n, s); }
cudaError_t prefix(float *d_out, const float *d_in, size_t n, cudaStream_t s)
{
    return gp_exclusive_scan_sum_f32(d_out, d_in, n, s);
}
