/* The same TU written with CUB: one DeviceReduce::Sum, with its temp-storage query. */
#include <cub/device/device_reduce.cuh>
cudaError_t sum(float *d_out, const float *d_in, size_t n, cudaStream_t s, void *d_temp, size_t *temp_bytes)
{
    return cub::DeviceReduce::Sum(d_temp, *temp_bytes, d_in, d_out, n, s);
}
