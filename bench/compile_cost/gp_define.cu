/* A user's TU with one device reduce of its own: GP_DEFINE_REDUCE instantiates one kernel here. */
#include "../../gpuprims.cuh"
GP_DEFINE_REDUCE(mysum, float, GP_OP_SUM, 0.0f)
cudaError_t sum(float *d_out, const float *d_in, size_t n, cudaStream_t s) { return gp_reduce_mysum(d_out, d_in, n, s); }
