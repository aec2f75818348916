/* bench/scan/probes/scan_trace.cu -- a one-off probe, not part of `make bench`: a timeline of the
 * device scan's persistent grid kernel, tile by tile, from %globaltimer stamps that the
 * kernel's roles write through the GP__SCAN_TRACE hook of detail/device/scan.cuh:
 *   0 take     the producer took tile t from the counter and started its bulk copy;
 *   1 land     the reduce warp saw the tile in shared memory;
 *   2 publish  the reduce warp published the tile's total;
 *   3 prefix   the look-ahead warp had the tile's exclusive prefix;
 *   4 ready    the scanning warps had their own totals and the prefix;
 *   5 stored   warp 0 had issued its stores;
 *   6, 7       block t started, after and before its wait for the zeroing kernel.
 * For f32 exclusive sums at 2^22, 2^24 and 2^26 (input beyond the L2, one call behind a
 * spin kernel), it prints the GPU's time of the call and of the same-size copy, the
 * kernel's milestones from the first block's start, the median and 90th percentile of each
 * step over all tiles and over the last tenth to land, and the bytes landed and stored per
 * 2 us: where the time above the copy's goes.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/scan/probes/scan_trace.cu -o probe && ./probe
 *
 * Results on the H100 (2026-11-23, main at bf159be plus the hook; us, one call behind a
 * spin, medians of 31; "bench": from an idle GPU, as bench/scan/scan.cu times one call):
 *   n      gpu    copy   kernel alone   bench   copy bench
 *   2^22   17.3   9.8    15.8           24.5    12.7
 *   2^24   55.5   47.7   54.2           63.2    51.4
 *   2^26   194.2  180.4  192.1          203.4   185.9
 * At 2^24 from the first block's start: first tile taken 0.35, landed 1.28, stored 3.10;
 * last tile taken 40.8, last landed 44.3, last total published 45.6, last prefix 49.3,
 * last store 49.7. The spin's end to the first block's start: 2.3 (the zeroing kernel).
 * Per tile (medians): land - take 2.8, publish - land 1.2, prefix - land 7.0 (5.7 for the
 * last tenth), ready - prefix 0.1, stored - ready 0.3. Where the 7.7 us above the copy
 * (bench) go: about 4 us of host issue that the copy does not have (the allocation and a
 * second launch: bench - gpu is 7.7 against the copy's 3.6), 1.3 the zeroing kernel
 * (kernel alone), and in the kernel the end: the look-ahead warp takes a polling round
 * (an L2 round trip of about a microsecond while memory is busy) per tile, a tile lands
 * about every 1.4 us per block, so it runs about a ring behind; the ring hides that until
 * the loads stop, and then the last prefix comes 3.7 us after the last total.
 * Tried against that end, and not kept (gpu us at 2^22 / 2^24 / 2^26, same runs):
 *   - one round serving every tile of the ring whose totals are in (the later tiles'
 *     status words loaded with the first's, never waited for; the same trees, bitwise the
 *     same): up to 4 tiles 27.8 / 76.9 / 244.1, up to 2 21.4 / 60.5 / 203.1, 1 20.0 /
 *     58.2 / 196.5, against 17.4 / 54.8 / 189.0. The kernel is at its 80 registers; every
 *     version spilled, and the later tiles' words, loaded on every polling pass, doubled
 *     the look-ahead's L2 traffic.
 *   - the 4-byte types' idle second look-ahead warp as a second server, each warp taking
 *     every other tile of the ring with its own running prefix (bitwise the same): 17.3 /
 *     60.9 / 209.6 against 17.4 / 54.8 / 191.9. A warp's tiles then lie about 528 apart,
 *     past the 512 a round covers, so each took two rounds: the end's last prefix came
 *     3.0 us after the last total (3.7 before), and the polling slowed the data stream.
 *   - a shallower ring at the end, so that fewer tiles queue for the look-ahead there:
 *     once a block has taken one of the last R x (grid) tiles, it takes another only when
 *     the tile D uses back is consumed. D 1, 2, 3 with R 2 or 4: 17.2-25.6 / 56.9-63.8 /
 *     193.5-200.7, against 17.3 / 54.5-54.9 / 191.2-191.7 in the same run. The loads in
 *     flight matter more than the queue: a tile's last byte lands 44 us into 2^24's 55.
 *   - fewer batches a round for 4-byte types (10, 12 or 14 instead of 16: a block's tiles
 *     lie 264 apart, 8-9 batches, so a round still covers one): the same within noise,
 *     16.9-17.0 / 54.5-54.9 / 190.9-191.8 against 17.2-17.3 / 54.6-54.8 / 190.8-191.3. The
 *     round's own work is not what a tile waits for: its prefix waits for the totals of the
 *     tiles taken just before it, which land over a spread of 1.5-4 us (land - take).
 *   - the two look-ahead warps taking turns, each polling and reducing the batches since
 *     the other's tile as soon as its own tile is taken, and waiting for the other's
 *     running prefix (handed over through shared memory and an mbarrier) only to fold
 *     them: two round trips in flight, the same trees and order, bitwise the same (the
 *     tests agreed). Slower: 17.4 / 63.8-64.5 / 225.8-226.8 against one warp's 18.2-18.4 /
 *     55.6-55.9 / 191.5-191.9 in the same runs; a tile's prefix came 8.2 us after it
 *     landed (7.0 with one warp), though the last prefix came 3.1 us after the last total
 *     (3.7). Neither a longer sleep between polls (256 or 1024 ns, either design) nor the
 *     polls' traffic explains it: one warp measured the same at every sleep. */
#include <algorithm>
#include <string.h>
#include <vector>

#define TRACE_TILES (1 << 16)
__device__ unsigned long long g_trace[TRACE_TILES][8];
static __device__ __forceinline__ unsigned long long trace_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define GP__SCAN_TRACE(t, event)                                      \
    do {                                                              \
        if ((t) < TRACE_TILES) g_trace[(t)][(event)] = trace_now();    \
    } while (0)

#include "gpuprims.cuh"
#include "../../probe.cuh"

/* spin, then stamp its end: the call's work starts after it */
__device__ unsigned long long g_spin_end;
__global__ void spin_stamped(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    g_spin_end = trace_now();
}

/* The grid kernel alone, on scratch cleared before the spin (no zeroing kernel, no chain):
 * what the call's clearing step costs. */
struct alone {
    size_t n;
    float *in, *out;
    char *scratch; /* 1 MB, cleared before each call */
};
static double time_alone(alone *a)
{
    const gp__scan_plan p = gp__scan_make_plan((uintptr_t)a->in, (uintptr_t)a->out, a->n, 4, 1);
    int fit = 0;
    const size_t ring = (size_t)GP__SCAN_STAGES * p.tile * 4;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, gp__scan_grid_kernel<gp__op_sum_f32>, GP__SCAN_THREADS,
                                                     ring));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned grid = (unsigned)std::min(p.tiles, (size_t)fit * sms);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> ms;
    for (int r = 0; r < 36; r++) {
        CK(cudaMemsetAsync(a->scratch, 0, gp__scan_scratch_bytes(p.tiles, 4), 0));
        spin<<<1, 32>>>(probe_cycles(30));
        CK(cudaEventRecord(e0, 0));
        gp__scan_grid_kernel<gp__op_sum_f32><<<grid, GP__SCAN_THREADS, ring, 0>>>(a->out, a->in, p, a->scratch, NULL, 0,
                                                                                  GP__SCAN_STAGES, 1, 0, GP__SCAN_RAMP, 1u);
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float m;
        CK(cudaEventElapsedTime(&m, e0, e1));
        if (r >= 5) ms.push_back(m * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

__global__ void fill(float *p, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        p[k] = (float)(k * 2654435761u >> 28) * 0.25f;
}

struct ctx {
    size_t n;
    float *in, *out;
    int copy;
    const gp__scan_knobs *knobs;
};
static void call(void *p)
{
    ctx *c = (ctx *)p;
    if (c->copy) CK(cudaMemcpyAsync(c->out, c->in, c->n * 4, cudaMemcpyDeviceToDevice, 0));
    else CK(gp__scan<gp__op_sum_f32>(c->out, c->in, c->n, 0, 0, NULL, c->knobs));
}

static double pct(std::vector<double> v, double q)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (v.size() - 1))];
}

int main(void)
{
    const size_t max_n = (size_t)1 << 26;
    float *in, *out;
    CK(cudaMalloc(&in, max_n * 4));
    CK(cudaMalloc(&out, max_n * 4));
    fill<<<1024, 256>>>(in, max_n);
    char *scratch;
    CK(cudaMalloc(&scratch, 1 << 20));
    for (int lg = 22; lg <= 26; lg += 2) {
        const size_t n = (size_t)1 << lg;
        static const gp__scan_knobs one_server = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}; /* one look-ahead warp */
        ctx c = {n, in, out, 0, NULL};
        ctx cc = {n, in, out, 1, NULL};
        ctx c1 = {n, in, out, 0, &one_server};
        const double gpu1 = probe_time(call, &c1, 1, 1, 60, NULL);
        const double bench1 = probe_time(call, &c1, 1, 0, 0, NULL);
        const double gpu = probe_time(call, &c, 1, 1, 60, NULL);
        const double copy = probe_time(call, &cc, 1, 1, 60, NULL);
        const double bench = probe_time(call, &c, 1, 0, 0, NULL);
        const double copy_bench = probe_time(call, &cc, 1, 0, 0, NULL);
        alone al = {n, in, out, scratch};
        const double kernel_alone = time_alone(&al);
        /* one traced call */
        static unsigned long long h[TRACE_TILES][8];
        memset(h, 0, sizeof h);
        CK(cudaMemcpyToSymbol(g_trace, h, sizeof h));
        spin_stamped<<<1, 32>>>(probe_cycles(60));
        call(&c);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpyFromSymbol(h, g_trace, sizeof h));
        const size_t tile = (size_t)GP__SCAN_BLOCK * gp__scan_items(4), tiles = (n + tile - 1) / tile;
        unsigned long long t0 = ~0ull;
        unsigned blocks = 0;
        for (size_t b = 0; b < TRACE_TILES; b++)
            if (h[b][6]) { t0 = std::min(t0, h[b][6]); blocks++; }
        auto at = [&](size_t t, int e) { return h[t][e] ? (h[t][e] - t0) * 1e-3 : -1.0; };
        double first[6], last[6];
        for (int e = 0; e < 6; e++) {
            first[e] = 1e30;
            last[e] = 0;
            for (size_t t = 0; t < tiles; t++) {
                const double v = at(t, e);
                if (v < 0) continue;
                first[e] = std::min(first[e], v);
                last[e] = std::max(last[e], v);
            }
        }
        unsigned long long bmax = 0;
        for (size_t b = 0; b < TRACE_TILES; b++)
            if (h[b][6]) bmax = std::max(bmax, h[b][6]);
        printf("\n2^%d f32: %zu tiles, %u blocks; gpu %.2f us (copy %.2f, %.1f%%); bench %.2f us (copy %.2f, %.1f%%)\n",
               lg, tiles, blocks, gpu, copy, 100 * copy / gpu, bench, copy_bench, 100 * copy_bench / bench);
        unsigned long long spin_end = 0, entry = ~0ull;
        CK(cudaMemcpyFromSymbol(&spin_end, g_spin_end, sizeof spin_end));
        for (size_t b = 0; b < TRACE_TILES; b++)
            if (h[b][7]) entry = std::min(entry, h[b][7]);
        printf("kernel alone on cleared scratch: %.2f us; one look-ahead warp: gpu %.2f us, bench %.2f us\n", kernel_alone,
               gpu1, bench1);
        printf("blocks started over %.2f us; spin end -> first block entry %.2f us -> first start %.2f us\n",
               (bmax - t0) * 1e-3, ((double)entry - (double)spin_end) * 1e-3, ((double)t0 - (double)entry) * 1e-3);
        const char *names[6] = {"take", "land", "publish", "prefix", "ready", "stored"};
        printf("event|first us|last us\n");
        for (int e = 0; e < 6; e++) printf("%s|%.2f|%.2f\n", names[e], first[e], last[e]);
        /* steps: land-take, publish-land, prefix-land, prefix-publish(own), ready-prefix, stored-ready */
        const int from[6] = {0, 1, 1, 2, 3, 4}, to[6] = {1, 2, 3, 3, 4, 5};
        const char *steps[6] = {"land-take", "publish-land", "prefix-land", "prefix-publish", "ready-prefix",
                                "stored-ready"};
        std::vector<std::pair<double, size_t>> by_land;
        for (size_t t = 0; t < tiles; t++) by_land.push_back({at(t, 1), t});
        std::sort(by_land.begin(), by_land.end());
        printf("step|median all|p90 all|median last tenth|p90 last tenth|median first tenth\n");
        for (int k = 0; k < 6; k++) {
            std::vector<double> all, tail, head;
            for (size_t i = 0; i < by_land.size(); i++) {
                const size_t t = by_land[i].second;
                const double d = at(t, to[k]) - at(t, from[k]);
                all.push_back(d);
                if (i >= by_land.size() * 9 / 10) tail.push_back(d);
                if (i < by_land.size() / 10) head.push_back(d);
            }
            printf("%s|%.2f|%.2f|%.2f|%.2f|%.2f\n", steps[k], pct(all, 0.5), pct(all, 0.9), pct(tail, 0.5),
                   pct(tail, 0.9), pct(head, 0.5));
        }
        /* bytes landed and stored per 2 us, GB/s */
        const double bin = 2.0;
        const int bins = (int)(last[5] / bin) + 1;
        std::vector<double> landed(bins), stored(bins);
        for (size_t t = 0; t < tiles; t++) {
            const double l = at(t, 1), s = at(t, 5);
            if (l >= 0) landed[(int)(l / bin)] += tile * 4;
            if (s >= 0) stored[(int)(s / bin)] += tile * 4;
        }
        printf("us from|landed GB/s|stored GB/s\n");
        for (int i = 0; i < bins; i++)
            if (i < 8 || i >= bins - 8) printf("%.0f|%.0f|%.0f\n", i * bin, landed[i] / (bin * 1e3), stored[i] / (bin * 1e3));
    }
    return 0;
}
