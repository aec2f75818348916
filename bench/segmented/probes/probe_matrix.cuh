/* bench/segmented/probes/probe_matrix.cuh -- what the row and column probes share: a matrix
 * made on the device twice from a hash of the index, as values below 16 of an unsigned type
 * (their sums are exact, whatever the association, so the host can check them) and as
 * values in [0, 1) of a floating type (the ones timed); and a call's arguments with the
 * knobs of its way. */
#ifndef GPUPRIMS_BENCH_SEGMENTED_PROBE_MATRIX_CUH
#define GPUPRIMS_BENCH_SEGMENTED_PROBE_MATRIX_CUH

#include <stddef.h>
#include <stdint.h>
#include <vector>
#include "../../bench.cuh" /* CUDA_CHK */

template <class U, class F>
static __global__ void probe_fill(U *u, F *f, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        u[i] = h & 15u;
        f[i] = (F)(h & 0xffffu) / (F)65536;
    }
}

/* Both matrices of n values made on the device; returns the unsigned one's host copy. */
template <class U, class F>
static std::vector<U> probe_make(U *d_u, F *d_f, size_t n)
{
    probe_fill<<<4096, 256>>>(d_u, d_f, n);
    CUDA_CHK(cudaDeviceSynchronize());
    std::vector<U> hu(n);
    CUDA_CHK(cudaMemcpy(hu.data(), d_u, n * sizeof(U), cudaMemcpyDeviceToHost));
    return hu;
}

/* A reduce of r x c values (leading dimension c) of OpF's type, and the way (Knobs). */
template <class OpF, class Knobs>
struct probe_ctx {
    typename OpF::type *out;
    const typename OpF::type *in;
    size_t r, c;
    Knobs k;
};

#endif /* GPUPRIMS_BENCH_SEGMENTED_PROBE_MATRIX_CUH */
