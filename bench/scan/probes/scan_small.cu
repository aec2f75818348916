/* bench/scan/probes/scan_small.cu -- a one-off probe, not part of `make bench`: how should a
 * small scan (ONE_BLOCK and CLUSTER modes, up to 2^18 floats) be laid out over the SMs?
 *
 * For n = 2^11 .. 2^18 floats (exclusive sum, inputs and outputs rotated through 64 MB
 * pools so every call reads and writes DRAM, calls back to back in batches of 64, median
 * of 31 batches, as bench/scan/scan.cu times its small sizes), the time per call of the small
 * plan under several limits: ONE_BLOCK up to W warps of elements (512 floats a warp), and
 * CLUSTER blocks of at least M warps, in clusters of up to 8 or 16 blocks, with and without
 * chained launches; beside it an
 * empty <<<1, 32>>> kernel and a cudaMemcpyAsync of the same bytes. Every configuration's
 * output is checked against a host scan before it is timed.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/scan/probes/scan_small.cu -o probe && ./probe */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../gpuprims.cuh"
#include "../../bench.cuh"

#define POOL_BYTES ((size_t)64 << 20)

typedef struct {
    float *in, *out;
    size_t n;
    int slots, next, copy;
    gp__scan_knobs knobs;
} ctx_t;

static void call(void *p)
{
    ctx_t *c = (ctx_t *)p;
    const float *in = c->in + (size_t)c->next * c->n;
    float *out = c->out + (size_t)c->next * c->n;
    c->next = (c->next + 1) % c->slots;
    if (c->copy) CUDA_CHK(cudaMemcpyAsync(out, in, c->n * 4, cudaMemcpyDeviceToDevice, 0));
    else CUDA_CHK(gp__scan<gp__op_sum_f32>(out, in, c->n, 0, 0, NULL, &c->knobs));
}


int main(void)
{
    float *in, *out;
    CUDA_CHK(cudaMalloc(&in, POOL_BYTES));
    CUDA_CHK(cudaMalloc(&out, POOL_BYTES));
    const size_t pool_n = POOL_BYTES / 4;
    float *h = (float *)malloc(POOL_BYTES), *g = (float *)malloc((size_t)4 << 18);
    for (size_t i = 0; i < pool_n; i++) h[i] = (float)((i * 2654435761u >> 20) & 15);
    CUDA_CHK(cudaMemcpy(in, h, POOL_BYTES, cudaMemcpyHostToDevice));
    /* {one_block_warps, min_warps, largest cluster (0: what the device allows), unchained} */
    static const struct { unsigned w, m, c; int unchained; const char *name; } cfg[] = {
        {32, 32, 8, 1, "full blocks, unchained (gp 6)"}, {32, 32, 8, 0, "full blocks, chained (gp 7)"},
        {8, 4, 8, 0, "W 8, M 4, clusters of 8"}, {8, 4, 0, 0, "W 8, M 4, clusters of 16 (default)"},
        {8, 2, 0, 0, "W 8, M 2, clusters of 16"}, {8, 8, 0, 0, "W 8, M 8, clusters of 16"},
        {16, 4, 0, 0, "W 16, M 4, clusters of 16"}, {4, 2, 0, 0, "W 4, M 2, clusters of 16"},
        {8, 4, 0, 1, "W 8, M 4, clusters of 16, unchained"}};
    const int ncfg = sizeof cfg / sizeof *cfg;
    const float floor_ms = gp_bench_median_ms_batch(gp_bench_empty, NULL, 64);
    printf("empty kernel back to back: %.2f us\n", floor_ms * 1e3);
    printf("%-34s", "us per call (f32)");
    for (int lg = 11; lg <= 18; lg++) printf("   2^%-4d", lg);
    printf("\n");
    ctx_t c = {in, out, 0, 0, 0, 1, {}};
    printf("%-34s", "copy (d2d)");
    for (int lg = 11; lg <= 18; lg++) {
        c.n = (size_t)1 << lg;
        c.slots = (int)(pool_n / c.n);
        c.next = 0;
        printf(" %8.2f", gp_bench_median_ms_batch(call, &c, 64) * 1e3);
    }
    printf("\n");
    c.copy = 0;
    for (int k = 0; k < ncfg; k++) {
        printf("%-34s", cfg[k].name);
        for (int lg = 11; lg <= 18; lg++) {
            c.n = (size_t)1 << lg;
            c.slots = (int)(pool_n / c.n);
            c.knobs = gp__scan_knobs{0, 1, 0, 0, 0, cfg[k].unchained, cfg[k].w, cfg[k].m, cfg[k].c, 0, 0};
            c.next = 0;
            call(&c);
            CUDA_CHK(cudaMemcpy(g, out, c.n * 4, cudaMemcpyDeviceToHost));
            double acc = 0;
            for (size_t i = 0; i < c.n; i++) {
                if (g[i] != (float)acc) {
                    printf("\nwrong at %zu: %g, want %g\n", i, g[i], acc);
                    return 1;
                }
                acc += h[i];
            }
            c.next = 0;
            printf(" %8.2f", gp_bench_median_ms_batch(call, &c, 64) * 1e3);
        }
        printf("\n");
    }
    CUDA_CHK(cudaFree(in));
    CUDA_CHK(cudaFree(out));
    free(h);
    free(g);
    return 0;
}
