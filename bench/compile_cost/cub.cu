/* The same TU written with CUB: one DeviceReduce::Sum and one DeviceScan::ExclusiveSum, with
 * their temp-storage queries. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
cudaError_t sum(float *d_out, const float *d_in, size_t n, cudaStream_t s, void *d_temp, size_t *temp_bytes)
{
    return cub::DeviceReduce::Sum(d_temp, *temp_bytes, d_in, d_out, n, s);
}
cudaError_t prefix(float *d_out, const float *d_in, size_t n, cudaStream_t s, void *d_temp, size_t *temp_bytes)
{
    return cub::DeviceScan::ExclusiveSum(d_temp, *temp_bytes, d_in, d_out, n, s);
}
