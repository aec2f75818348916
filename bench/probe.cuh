/* bench/probe.cuh -- what the one-off probes share: a check that exits on a CUDA
 * error, and a timing that sees either what the benches see (calls from an idle GPU) or
 * the GPU's time alone (calls queued behind a spin kernel that hides the host's issue),
 * with the host's time to issue a call beside it. */
#ifndef GP_BENCH_PROBE_CUH
#define GP_BENCH_PROBE_CUH

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void spin(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/* the launch floor */
__global__ void empty_kernel(void) {}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Clock cycles of the device's clock in `us` microseconds (for spin). */
static long long probe_cycles(double us)
{
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    return (long long)(khz * 1e-3 * us);
}

/* Median us per call(ctx) over 31 batches of `batch` calls on the default stream, after
 * 5 batches of warm-up: from an idle GPU (hide == 0), or queued behind a spin kernel of
 * `spin_us` (hide == 1). *host_us, when not NULL: the median host time to issue a call. */
static double probe_time(void (*call)(void *), void *ctx, int batch, int hide, double spin_us, double *host_us)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 5 * batch; i++) call(ctx);
    CK(cudaDeviceSynchronize());
    const long long cycles = hide ? probe_cycles(spin_us) : 0;
    std::vector<double> ms, hs;
    for (int r = 0; r < 31; r++) {
        if (hide) spin<<<1, 32>>>(cycles);
        CK(cudaEventRecord(a, 0));
        const double h0 = now_us();
        for (int i = 0; i < batch; i++) call(ctx);
        const double h1 = now_us();
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        float m;
        CK(cudaEventElapsedTime(&m, a, b));
        ms.push_back(m * 1e3 / batch);
        hs.push_back((h1 - h0) / batch);
    }
    std::sort(ms.begin(), ms.end());
    std::sort(hs.begin(), hs.end());
    if (host_us) *host_us = hs[15];
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms[15];
}

#endif /* GP_BENCH_PROBE_CUH */
