/* bench/read_kernel.cuh -- the read ceiling of a reduce, shared by bench/reduce/reduce.cu and the
 * probes: a kernel that only reads. */
#ifndef GP_BENCH_READ_KERNEL_CUH
#define GP_BENCH_READ_KERNEL_CUH

#include <stddef.h>
#include <cuda_runtime.h>

/* The read ceiling: a kernel that only reads. 16-byte loads, four in flight per thread,
 * READ_BLOCKS_PER_SM blocks of READ_BLOCK threads per SM, a grid-stride loop; it writes
 * only if the xor of all it read is one given value, so no load can be dropped. A reduce
 * reads the same bytes and little else: this is the fastest it can be. */
#define READ_BLOCK 512
#define READ_BLOCKS_PER_SM 4
__global__ void __launch_bounds__(READ_BLOCK) read_only(const uint4 *in, size_t n16, unsigned *sink)
{
    const size_t stride = (size_t)gridDim.x * READ_BLOCK;
    size_t i = blockIdx.x * (size_t)READ_BLOCK + threadIdx.x;
    unsigned acc = 0;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) v[k] = __ldg(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < 4; k++) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    for (; i < n16; i += stride) {
        const uint4 v = __ldg(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9E3779B9u) *sink = acc;
}

#endif /* GP_BENCH_READ_KERNEL_CUH */
