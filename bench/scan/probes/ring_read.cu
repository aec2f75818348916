/* bench/scan/probes/ring_read.cu -- how fast the single-pass kernels' ring of stages
 * (agent/ring.cuh) can read when its consumers do almost nothing: the ceiling of the
 * read-mostly ring kernels (select with few kept, unique and run-length on long runs,
 * reduce-by-key). One producer thread a block takes tiles and fills `stages` stages of
 * `bytes` each by bulk copies; eight consumer warps read each stage from shared memory
 * (xor of its words, optionally a spin of `spin` cycles to stand for their work) and
 * free it. Against the bench's read kernel (16-byte loads) on the same 1 GiB.
 *
 * How the producer gets a stage's tile (`take`):
 *   0  after the stage is free, from the grid's atomic counter (the library's rings);
 *   1  from the counter one take ahead, so its round trip overlaps the wait;
 *   2  statically, block b's i-th tile is b + i * grid (no atomic; not safe for a kernel
 *      whose blocks wait on each other unless all are resident);
 *   K >= 3  from the counter K - 1 consecutive tiles at a time (one atomic for K - 1 takes).
 * `copies`: the stage's bulk copies (its bytes split evenly).
 *
 * Build and run (not part of `make bench`):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Ibench bench/scan/probes/ring_read.cu -o /tmp/ring_read
 *   /tmp/ring_read [label]
 * Each line: R <label> <config> <median us> <GB/s> <% of read kernel>. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprims.cuh"
#include "probe.cuh"
#include "read_kernel.cuh"

#define RR_WARPS 8 /* consumer warps */
#define RR_MAX_STAGES 16

__global__ void __launch_bounds__((RR_WARPS + 1) * 32) ring_read(const unsigned char *in, size_t tiles,
                                                                  unsigned bytes, unsigned stages, int take,
                                                                  int copies, int spin,
                                                                  unsigned long long *counter, unsigned *sink)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* the bulk copy's helpers exist in sm_90 device code only */
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ uint64_t full[RR_MAX_STAGES], empty[RR_MAX_STAGES];
    __shared__ unsigned long long s_tile[RR_MAX_STAGES];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages; s++) {
            gp__mbar_init(&full[s], 1);
            gp__mbar_init(&empty[s], RR_WARPS);
        }
        gp__mbar_init_fence_cluster();
    }
    __syncthreads();
    if (warp == RR_WARPS) {
        if (lane != 0) return;
        unsigned long long next = take == 1 ? atomicAdd(counter, 1ull) : 0;
        for (unsigned i = 0;; i++) {
            const unsigned s = i % stages;
            if (i >= stages) gp__mbar_wait(&empty[s], (i / stages - 1) & 1);
            unsigned long long t;
            if (take == 0) t = atomicAdd(counter, 1ull);
            else if (take == 1) t = next;
            else if (take == 2) t = blockIdx.x + (unsigned long long)i * gridDim.x;
            else {
                if (i % (take - 1) == 0) next = atomicAdd(counter, (unsigned long long)(take - 1));
                t = next + i % (take - 1);
            }
            s_tile[s] = t;
            if (t < tiles) {
                gp__mbar_arrive_expect(&full[s], bytes);
                const unsigned part = bytes / copies;
                for (int c = 0; c < copies; c++)
                    gp__bulk_copy(ring + (size_t)s * bytes + c * part, in + t * bytes + c * part, part, &full[s]);
            } else {
                gp__mbar_arrive(&full[s]);
                break;
            }
            if (take == 1) next = atomicAdd(counter, 1ull);
        }
        return;
    }
    unsigned acc = 0;
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages;
        gp__mbar_wait(&full[s], (i / stages) & 1);
        if (s_tile[s] >= tiles) break;
        const uint4 *v = reinterpret_cast<const uint4 *>(ring + (size_t)s * bytes);
        for (unsigned q = threadIdx.x; q < bytes / 16; q += RR_WARPS * 32) {
            const uint4 w = v[q];
            acc ^= w.x ^ w.y ^ w.z ^ w.w;
        }
        if (spin > 0) {
            const long long t0 = clock64();
            while (clock64() - t0 < spin) {
            }
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncwarp();
        if (lane == 0) gp__mbar_arrive(&empty[s]);
    }
    if (acc == 0x9E3779B9u) *sink = acc;
#endif
}

struct rr_ctx {
    const unsigned char *in;
    size_t tiles;
    unsigned bytes, stages, grid;
    int take, copies, spin, smem;
    unsigned long long *counters;
    unsigned next;
    unsigned *sink;
};
#define RR_COUNTERS 65536

static void rr_call(void *p)
{
    rr_ctx *c = (rr_ctx *)p;
    if (c->next == RR_COUNTERS) {
        CK(cudaMemsetAsync(c->counters, 0, RR_COUNTERS * sizeof(unsigned long long)));
        c->next = 0;
    }
    ring_read<<<c->grid, (RR_WARPS + 1) * 32, c->smem>>>(c->in, c->tiles, c->bytes, c->stages, c->take, c->copies,
                                                        c->spin, c->counters + c->next++, c->sink);
}

struct rk_ctx {
    const uint4 *in;
    size_t n16;
    unsigned grid;
    unsigned *sink;
};
static void rk_call(void *p)
{
    rk_ctx *c = (rk_ctx *)p;
    read_only<<<c->grid, READ_BLOCK>>>(c->in, c->n16, c->sink);
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "A";
    const size_t total = (size_t)1 << 30;
    unsigned char *in;
    unsigned *sink;
    unsigned long long *counters;
    CK(cudaMalloc(&in, total));
    CK(cudaMemset(in, 1, total));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&counters, RR_COUNTERS * sizeof(unsigned long long)));
    CK(cudaMemset(counters, 0, RR_COUNTERS * sizeof(unsigned long long)));
    CK(cudaFuncSetAttribute(ring_read, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    rk_ctx k = {(const uint4 *)in, total / 16, (unsigned)(sms * READ_BLOCKS_PER_SM), sink};
    const double read_us = probe_time(rk_call, &k, 1, 0, 0, NULL);
    printf("R %s read-kernel %.2f %.0f 100.0\n", label, read_us, total / read_us * 1e-3);

    /* stages, bytes, blocks an SM, take, copies, spin */
    static const int cfgs[][6] = {
        {3, 32768, 2, 0, 1, 0}, {3, 32768, 2, 1, 1, 0}, {3, 32768, 2, 2, 1, 0}, {6, 8192, 2, 1, 1, 0},
        {4, 16384, 2, 0, 1, 0}, {4, 16384, 2, 2, 1, 0}, {4, 16384, 2, 3, 1, 0}, {4, 16384, 2, 5, 1, 0},
        {6, 16384, 2, 0, 1, 0}, {6, 16384, 2, 2, 1, 0}, {6, 16384, 2, 3, 1, 0}, {6, 16384, 2, 5, 1, 0},
        {6, 8192, 2, 0, 1, 0},  {6, 8192, 2, 2, 1, 0},  {6, 8192, 2, 3, 1, 0},  {6, 8192, 2, 5, 1, 0},
        {4, 20480, 1, 0, 1, 0}, {4, 20480, 1, 2, 1, 0}, {4, 20480, 1, 3, 1, 0}, {4, 20480, 1, 5, 1, 0},
        {4, 20480, 2, 0, 1, 0}, {4, 20480, 2, 2, 1, 0}, {4, 20480, 2, 3, 1, 0}, {4, 20480, 2, 5, 1, 0},
        {4, 20480, 1, 0, 2, 0}, {8, 16384, 1, 0, 1, 0}, {8, 16384, 1, 2, 1, 0}, {8, 16384, 1, 3, 1, 0},
        {6, 16384, 2, 0, 1, 1000}, {6, 16384, 2, 3, 1, 1000}, {4, 20480, 1, 0, 1, 1000}, {4, 20480, 1, 3, 1, 1000},
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const int *g = cfgs[c];
        rr_ctx r;
        r.in = in;
        r.bytes = (unsigned)g[1];
        r.tiles = total / r.bytes; /* whole tiles only */
        const size_t read = r.tiles * r.bytes;
        r.stages = (unsigned)g[0];
        r.take = g[3];
        r.copies = g[4];
        r.spin = g[5];
        r.smem = (int)(r.stages * r.bytes);
        if (g[2] == 1 && r.smem < 120 * 1024) r.smem = 120 * 1024; /* one block an SM */
        int fit = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, ring_read, (RR_WARPS + 1) * 32, r.smem));
        r.grid = (unsigned)(sms * (fit < g[2] ? fit : g[2]));
        r.counters = counters;
        r.next = RR_COUNTERS;
        r.sink = sink;
        const double us = probe_time(rr_call, &r, 1, 0, 0, NULL);
        printf("R %s S%d-B%dK-bps%d(fit%d)-take%d-copies%d-spin%d %.2f %.0f %.1f\n", label, g[0], g[1] / 1024, g[2],
               fit, g[3], g[4], g[5], us, read / us * 1e-3, (read_us / total) / (us / read) * 100);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
