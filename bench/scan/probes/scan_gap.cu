/* bench/scan/probes/scan_gap.cu -- a one-off probe, not part of `make bench`: where does the
 * device scan's fixed cost at mid sizes (2^20 .. 2^24) go, beyond the copy's?
 *
 * For each n and configuration, three figures per call (exclusive sum, inputs rotated
 * through pools beyond the L2 as bench/scan/scan.cu does, median of 31 batches):
 *   bench: events around min(64, 2^22/n) calls back to back from an idle GPU, as the bench
 *          times (host latency included where the GPU waits on the host);
 *   gpu:   the same batch queued behind a spin kernel long enough to hide the host's
 *          issue, so the events see the GPU's time alone;
 *   host:  the host's time to issue one call (measured during the gpu run).
 * Configurations: the library's knobs (gp__scan_knobs) and, rebuilt with -D, its tile
 * macros (GP__SCAN_WARPS, GP__SCAN_THREAD_BYTES). Each gp configuration's output is
 * checked on a sample of indices against a host reference before it is timed.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/scan/probes/scan_gap.cu -o probe && ./probe
 *   ./probe one <log2n> <config>   (five calls of one configuration: for ncu / nsys)
 *
 * Results on the H100 (2026-11-22, f32; gpu us per call, copy 5.7 / 15.1 / 48.0 / 180.2 us
 * at 2^20 / 2^22 / 2^24 / 2^26, CUB 10.5 / 22.8 / 62.5 / 225.6):
 *   - before: 11.7 / 27.1 / 60.8 / 197.1. The time above the copy's rate is a fixed cost:
 *     about 9 us at 2^20 and 16 us from 2^22 to 2^26 (the copy's: about 4). The host issues
 *     a call in 8-10 us (CUB the same), which the bench's one-call timings at 2^24 and up
 *     partly see: 5-6 us more than these figures, against the copy's 3.5.
 *   - knobs: 1 block per SM, 2 stages: much slower from 2^22; 3 stages = 4; 6 stages
 *     slightly slower; 3 blocks per SM (GP__SCAN_MIN_BLOCKS=3: 56 registers, spills):
 *     slower; no polling sleep (GP__SCAN_POLL_NS=0): no change. Tiles of 8 KB (4 warps,
 *     or 32 bytes a thread): equal at 2^20, 10-50% slower from 2^22.
 *   - a temporary %globaltimer trace of every tile's steps (take, land, publish, prefix,
 *     store; not kept) at 2^24: for the first 11 us only loads ran (the producer's four
 *     first atomics each waited behind the loads in flight to its SM, and the first
 *     prefixes behind them), and after the last load landed the stores took 7 us more at
 *     half the copy rate: each block's last tiles' prefixes came one polling round and
 *     one round of batch trees after another. Filling the ring with one atomic for four
 *     consecutive tiles starved small scans (2^20: 19.3 us, a quarter of the blocks got
 *     all the tiles) and gained nothing at 2^24 (58.1); not kept.
 *   - a change tried and backed out: the look-ahead reducing a polling round's batch trees
 *     interleaved level by level (gp__warp_reduce's butterfly on all 16 slots at once,
 *     the same trees) and the reduce warp issuing its stage loads 8 units at a time. In a
 *     build with no other path it measured 11.1 / 24.2 / 56.7 / 190.6 here. With a runtime
 *     knob added to keep the old order for the bench's ladder (if (knob) trees one by one,
 *     else interleaved), bench/scan/scan.cu measured the interleaved default at 25% of the copy
 *     rate at every size from 2^20 to 2^28 (2844 us at 2^28 f32), the knob's old order at
 *     its usual 93%, results correct. The PTX shows why: with the knob, nvcc turned each
 *     level's lane-dependent selects (upper ? other : v) into a branch on the lane bit and
 *     copied the level's 16 shuffles into both sides (in every scan instance of lib/), so
 *     the warp runs them apart, down the slow path detail/device/scan.cuh warns of at
 *     gp__select; the build measured fast has the 80 shuffles in one straight run. With
 *     gp__select for those selects, the knob build's PTX has the one run again, in every
 *     instance. That version was then measured and kept (bench/scan/scan.cu's gp 6).
 * Later (2026-11-23, H100, the library with chained launches and 16-block clusters; gpu us
 * at 2^22 / 2^24 / 2^26; copy 15.1 / 48.0 / 180.3, CUB 23.4 / 63.0 / 224.6): the ring's
 * first stages taken one at a time, each once the one before has landed (the "ramp" knob,
 * after the trace above): none 24.2 / 56.0 / 190.8; stage 1 only 23.5 / 55.6 / 190.3; 2
 * stages 22.6 / 54.7 / 189.5; 3 (all of a 4-stage ring) 23.1 / 54.5 / 189.6; 6 stages with
 * 3 or 5 ramped 23.4-24.4 / 55.2-56.1 / 189.0-189.5, without 25.0 / 55.8 / 189.4. 2^18
 * and 2^20 unchanged. Kept: 3 (GP__SCAN_RAMP). The host issues a call in 8-14 us here. */
#include <math.h>
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "gpuprims.cuh"
#include "../../probe.cuh"

#ifndef PROBE_TAG
#define PROBE_TAG "default"
#endif

/* stages, bulk, blocks per SM, memset clear, trees apart, unchained, one-block warps, min
 * warps, cluster max, ramp, one look-ahead warp; name */
static const struct { gp__scan_knobs k; const char *name; } configs[] = {
    {{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "default"},        {{0, 1, 0, 0, 0, 0, 0, 0, 0, -1, 0}, "no ramp"},
    {{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0}, "ramp 1"},         {{0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0}, "ramp 2"},
    {{0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0}, "ramp 3"},         {{6, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0}, "6 stages ramp 3"},
    {{6, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0}, "6 stages ramp 5"}, {{6, 1, 0, 0, 0, 0, 0, 0, 0, -1, 0}, "6 stages"},
};
enum { NCONF = sizeof configs / sizeof *configs, CUB_ROW = NCONF, COPY_ROW = NCONF + 1, NROWS = NCONF + 2 };

__global__ void fill(float *p, size_t n, int slots)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n * (size_t)slots;
         k += (size_t)gridDim.x * blockDim.x)
        p[k] = (float)((k % n) * 2654435761u >> 28) * 0.25f;
}

struct ctx {
    int row;
    size_t n;
    float *in, *out;
    int slots, next;
    void *cub_temp;
    size_t cub_bytes;
};

static void call(void *p)
{
    ctx *c = (ctx *)p;
    const float *in = c->in + (size_t)c->next * c->n;
    float *out = c->out + (size_t)c->next * c->n;
    c->next = (c->next + 1) % c->slots;
    if (c->row == CUB_ROW) CK(cub::DeviceScan::ExclusiveSum(c->cub_temp, c->cub_bytes, in, out, (int)c->n));
    else if (c->row == COPY_ROW) CK(cudaMemcpyAsync(out, in, c->n * 4, cudaMemcpyDeviceToDevice, 0));
    else if (c->row == 0) CK(gp__scan<gp__op_sum_f32>(out, in, c->n, 0, 0));
    else CK(gp__scan<gp__op_sum_f32>(out, in, c->n, 0, 0, NULL, &configs[c->row].k));
}

static void check(ctx *c, const std::vector<double> &ref)
{
    if (c->row >= NCONF) return;
    c->next = 0;
    CK(cudaMemset(c->out, 0xA7, c->n * 4));
    call(c);
    CK(cudaDeviceSynchronize());
    const size_t step = c->n / 4096 ? c->n / 4096 : 1;
    for (size_t i = 0; i < c->n; i += (i + step < c->n || i == c->n - 1) ? step : c->n - 1 - i) {
        float g;
        CK(cudaMemcpy(&g, c->out + i, 4, cudaMemcpyDeviceToHost));
        if (fabs(g - ref[i]) > 1e-5 * (fabs(ref[i]) + 1)) {
            fprintf(stderr, "FAIL %s n=%zu i=%zu: %g vs %g\n", configs[c->row].name, c->n, i, g, ref[i]);
            exit(1);
        }
        if (i == c->n - 1) break;
    }
}

int main(int argc, char **argv)
{
    const size_t pool = (size_t)1 << 29; /* bytes per pool */
    float *in, *out;
    CK(cudaMalloc(&in, pool));
    CK(cudaMalloc(&out, pool));
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    if (argc == 4 && strcmp(argv[1], "one") == 0) {
        const size_t n = (size_t)1 << atoi(argv[2]);
        ctx c = {atoi(argv[3]), n, in, out, 1, 0, NULL, 0};
        fill<<<1024, 256>>>(in, n, 1);
        for (int i = 0; i < 5; i++) call(&c);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    printf("tag|n|config|bench us|gpu us|host us\n");
    for (int lg = 18; lg <= 26; lg += 2) {
        const size_t n = (size_t)1 << lg;
        int slots = (int)(2 * (size_t)l2 / (8 * n) + 1);
        if ((size_t)slots * n * 4 > pool) slots = (int)(pool / (n * 4));
        fill<<<1024, 256>>>(in, n, slots);
        std::vector<float> h(n);
        CK(cudaMemcpy(h.data(), in, n * 4, cudaMemcpyDeviceToHost));
        std::vector<double> ref(n);
        double acc = 0;
        for (size_t i = 0; i < n; i++) { ref[i] = acc; acc += h[i]; }
        ctx c = {0, n, in, out, slots, 0, NULL, 0};
        CK(cub::DeviceScan::ExclusiveSum(NULL, c.cub_bytes, in, out, (int)n));
        CK(cudaMalloc(&c.cub_temp, c.cub_bytes));
        const size_t b = ((size_t)1 << 22) / n;
        const int batch = b < 1 ? 1 : b > 64 ? 64 : (int)b;
        for (int r = 0; r < NROWS; r++) {
            c.row = r;
            check(&c, ref);
            c.next = 0;
            const double bench = probe_time(call, &c, batch, 0, 0, NULL);
            double host;
            /* spin long enough to cover the host's issue of the whole batch */
            const double gpu = probe_time(call, &c, batch, 1, batch * 20 + 40, &host);
            printf("%s|2^%d|%s|%.2f|%.2f|%.2f\n", PROBE_TAG, lg,
                   r == CUB_ROW ? "CUB" : r == COPY_ROW ? "copy" : configs[r].name, bench, gpu, host);
        }
        CK(cudaFree(c.cub_temp));
    }
    return 0;
}
