/* examples/chunked_scan.cu -- an inclusive scan of a host array larger than the device
 * buffers it passes through: chunks stream in and out while the previous chunk is scanned,
 * and each chunk starts from the last inclusive value of the one before, which stays on the
 * device (gp_inclusive_scan_init_sum_u32 reads it there): the host never waits per chunk.
 *
 * Two buffers, two streams: chunk k goes up, is scanned in place and comes back on stream
 * k % 2, so the copy of chunk k+1 up and of chunk k-1 down overlap the scan of chunk k (the
 * two copy directions use separate engines). The carry is one device word: after each scan
 * the chunk's last element is copied into it, and the next chunk's scan (on the other
 * stream) waits for that copy through an event. With the array in pinned host memory the
 * whole run goes at the speed of the host link; the same code scans arrays far larger
 * than device memory (give the size in MiB).
 *
 * Build and run: make examples && build/examples/chunked_scan [MiB of data, default 512]
 *                [MiB per device buffer, default 32] */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    need_gpu(__FILE__);
    const size_t total_mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 512;
    const size_t chunk_mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 32;
    const size_t n = total_mib << 18, chunk = chunk_mib << 18; /* uint32_t elements */
    if (n == 0 || chunk == 0) {
        fprintf(stderr, "usage: %s [MiB of data] [MiB per device buffer]\n", argv[0]);
        return 2;
    }

    uint32_t *h; /* pinned: asynchronous copies that overlap the scans */
    CUDA_CHK(cudaMallocHost(&h, n * sizeof *h));
    for (size_t i = 0; i < n; i++) h[i] = (uint32_t)(i * 2654435761u) >> 20; /* 0 .. 4095 */

    uint32_t *buf[2], *carry;
    cudaStream_t st[2];
    cudaEvent_t carried[2], t0, t1;
    for (int b = 0; b < 2; b++) {
        CUDA_CHK(cudaMalloc(&buf[b], chunk * sizeof(uint32_t)));
        CUDA_CHK(cudaStreamCreateWithFlags(&st[b], cudaStreamNonBlocking));
        CUDA_CHK(cudaEventCreateWithFlags(&carried[b], cudaEventDisableTiming));
    }
    CUDA_CHK(cudaMalloc(&carry, sizeof *carry));
    CUDA_CHK(cudaMemset(carry, 0, sizeof *carry)); /* the first chunk starts from 0 */
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaEventCreate(&t0));
    CUDA_CHK(cudaEventCreate(&t1));

    CUDA_CHK(cudaEventRecord(t0, st[0]));
    for (size_t k = 0, off = 0; off < n; k++, off += chunk) {
        const int b = (int)(k % 2);
        const size_t len = n - off < chunk ? n - off : chunk;
        uint32_t *d = buf[b];
        /* the buffer's previous chunk (k-2) came down earlier on this same stream */
        CUDA_CHK(cudaMemcpyAsync(d, h + off, len * sizeof *d, cudaMemcpyHostToDevice, st[b]));
        if (k > 0) CUDA_CHK(cudaStreamWaitEvent(st[b], carried[1 - b], 0)); /* chunk k-1's last value */
        CUDA_CHK(gp_inclusive_scan_init_sum_u32(d, d, len, carry, st[b]));
        CUDA_CHK(cudaMemcpyAsync(carry, d + len - 1, sizeof *carry, cudaMemcpyDeviceToDevice, st[b]));
        CUDA_CHK(cudaEventRecord(carried[b], st[b]));
        CUDA_CHK(cudaMemcpyAsync(h + off, d, len * sizeof *d, cudaMemcpyDeviceToHost, st[b]));
    }
    CUDA_CHK(cudaEventRecord(carried[1], st[1])); /* the end of stream 1, for the timing */
    CUDA_CHK(cudaStreamWaitEvent(st[0], carried[1], 0));
    CUDA_CHK(cudaEventRecord(t1, st[0]));
    CUDA_CHK(cudaEventSynchronize(t1));
    float ms;
    CUDA_CHK(cudaEventElapsedTime(&ms, t0, t1));

    /* check against the sequential scan of the same inputs */
    uint32_t acc = 0;
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        acc += (uint32_t)(i * 2654435761u) >> 20;
        if (h[i] != acc) bad = i;
    }
    printf("inclusive scan of %zu MiB in %zu chunks of %zu MiB through 2 device buffers: %.1f ms, %.1f GB/s "
           "(host to host); %s\n",
           total_mib, (size_t)gp__ceil_div(n, chunk), chunk_mib, ms, 2e-6 * (double)n * sizeof(uint32_t) / ms,
           bad == n ? "matches the host" : "WRONG");
    if (bad != n) fprintf(stderr, "first wrong element: %zu\n", bad);

    for (int b = 0; b < 2; b++) {
        CUDA_CHK(cudaFree(buf[b]));
        CUDA_CHK(cudaStreamDestroy(st[b]));
        CUDA_CHK(cudaEventDestroy(carried[b]));
    }
    CUDA_CHK(cudaFree(carry));
    CUDA_CHK(cudaEventDestroy(t0));
    CUDA_CHK(cudaEventDestroy(t1));
    CUDA_CHK(cudaFreeHost(h));
    return bad == n ? 0 : 1;
}
