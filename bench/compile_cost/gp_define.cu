/* A user's TU with one device reduce and one device scan of its own: GP_DEFINE_REDUCE and
 * GP_DEFINE_SCAN instantiate their kernels here. */
#include "../../gpuprims.cuh"
GP_DEFINE_REDUCE(mysum, float, GP_OP_SUM, 0.0f)
GP_DEFINE_SCAN(mysum, float, GP_OP_SUM, 0.0f)
cudaError_t sum(float *d_out, const float *d_in, size_t n, cudaStream_t s) { return gp_reduce_mysum(d_out, d_in, n, s); }
cudaError_t prefix(float *d_out, const float *d_in, size_t n, cudaStream_t s)
{
    return gp_exclusive_scan_mysum(d_out, d_in, n, s);
}
