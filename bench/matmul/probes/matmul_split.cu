/* bench/matmul/probes/matmul_split.cu -- a one-off probe, not part of `make bench`: what splitting
 * k over a cluster's blocks (detail/device/matmul.cuh, gp__matmul_choose) costs and gains where
 * m x n leaves SMs idle.
 *
 * Rows: a config at m x n x k, k split into S slices (up to the library's 2), GPU time per
 * call (calls queued behind a spin kernel, median of 31 batches of 8), and TFLOP/s.
 *
 * Beside them, the one-wave config's split instance launched by hand under each cluster
 * scheduling policy, and with one block per SM forced, with the clusters the GPU holds at
 * once (cudaOccupancyMaxActiveClusters).
 *
 * Results on the H100 (2026-11-23; GPU us per call):
 *   - 1000^3: unsplit 128 x 128 (w32x64) 108.4, 128 x 64 65.3; 128 x 128 in 2 slices 57.4,
 *     in 4 80.9 (62 clusters at once for 64; 55.4 with the load-balancing policy, 66 at
 *     once), in 8 74.8 (30 at once). A first version that read the partials with a memcpy
 *     from distributed shared memory (16 one-byte loads each) took 68.3 in 2 slices.
 *   - 512 x 512 x 8192 (16 tiles of 128 x 128): unsplit 812, in 2 / 4 / 8 slices 412 / 210 /
 *     189 (8: not the 105 that one block per SM would give: the GPU put two blocks of a
 *     cluster on one SM); 128 x 64 in 2 / 4: 272 / 242; 64 x 64 unsplit 333, in 2: 178.
 *   - one 128 x 128 block per SM: k = 1024 in 104 us (512 x 512 x 1024, 16 blocks).
 *   - forcing one block per SM (more than half an SM's shared memory per block): the H100
 *     then holds 66 clusters of 2, 30 of 4 and 15 of 8 at once; 512 x 512 x 8192 in 8
 *     slices (16 clusters) 213.9 us, in 4 209.8, 1000^3 in 2 57.4 (unchanged), in 4 91.4.
 *   No 4- or 8-slice candidate, placed either way, beat the best 2-slice one (64 x 64 in 2
 *     at 512 x 512 x 8192: 178 us; 128 x 128 in 2 at 1000^3: 57.4 us).
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/matmul/probes/matmul_split.cu -o probe && ./probe
 *   ./probe one <row>   (three calls of one row: for ncu) */
#include <string.h>

#include "gpuprims.cuh"
#include "../../probe.cuh"

typedef cudaError_t (*launch_fn)(float *, const float *, const float *, size_t, size_t, size_t, unsigned,
                                 cudaStream_t);
static const struct { const char *name; launch_fn fn; size_t m, n, k; unsigned slices; } rows[] = {
    {"128x128 w32x64, 1000^3", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, 1000, 1000, 1000, 1},
    {"128x128 w32x64, 1000^3, k in 2", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, 1000, 1000, 1000, 2},
    {"128x64, 1000^3", gp__mm_launcher<gp__mm_f32_128x64>, 1000, 1000, 1000, 1},
    {"128x128 w32x64, 512 x 512 x 8192", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, 512, 512, 8192, 1},
    {"128x128 w32x64, 512 x 512 x 8192, k in 2", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, 512, 512, 8192, 2},
    {"128x64, 512 x 512 x 8192, k in 2", gp__mm_launcher<gp__mm_f32_128x64>, 512, 512, 8192, 2},
    {"64x64, 512 x 512 x 8192", gp__mm_launcher<gp__mm_f32_64x64>, 512, 512, 8192, 1},
    {"64x64, 512 x 512 x 8192, k in 2", gp__mm_launcher<gp__mm_f32_64x64>, 512, 512, 8192, 2},
    {"128x128 w32x64, 512 x 512 x 1024", gp__mm_launcher<gp__mm_f32_128x128_w32x64>, 512, 512, 1024, 1},
};
enum { NROWS = sizeof rows / sizeof *rows };

static float *g_a, *g_b, *g_c;
static void call(void *p)
{
    const int r = *(const int *)p;
    CK(rows[r].fn(g_c, g_a, g_b, rows[r].m, rows[r].n, rows[r].k, rows[r].slices, 0));
}

/* The split instance of the one-wave config at 1000^3 launched by hand, with the cluster
 * scheduling policy `policy`; prints the clusters of `slices` the GPU holds at once. */
typedef gp__mm_cfg<gp__mm_f32_128x128_w32x64> W;
static unsigned g_slices;
static cudaClusterSchedulingPolicy g_policy;
static size_t g_m, g_n, g_k;
static int g_smem = W::SPLIT_SMEM; /* more than half an SM's: one block per SM */
static void call_policy(void *)
{
    const size_t m = g_m, n = g_n, k = g_k, tm = gp__ceil_div(m, (size_t)W::BM), tn = gp__ceil_div(n, (size_t)W::BN);
    cudaLaunchAttribute at[2];
    at[0] = gp__cluster_attribute(g_slices);
    at[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
    at[1].val.clusterSchedulingPolicyPreference = g_policy;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(tm * tn * g_slices));
    cfg.blockDim = dim3(W::THREADS);
    cfg.dynamicSmemBytes = g_smem;
    cfg.attrs = at;
    cfg.numAttrs = 2;
    CK(cudaLaunchKernelEx(&cfg, gp__matmul_kernel<W, 4, true>, g_c, (const float *)g_a, (const float *)g_b, m, n, k, tm,
                          tn, true));
}

int main(int argc, char **argv)
{
    const size_t most = (size_t)2048 * 2048;
    CK(cudaMalloc(&g_a, most * 4));
    CK(cudaMalloc(&g_b, most * 4));
    CK(cudaMalloc(&g_c, most * 4));
    CK(cudaMemset(g_a, 0, most * 4));
    CK(cudaMemset(g_b, 0, most * 4));
    if (argc > 2 && strcmp(argv[1], "one") == 0) {
        int r = atoi(argv[2]);
        for (int i = 0; i < 3; i++) call(&r);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    int smem_sm = 0;
    CK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    const int one_per_sm = smem_sm / 2 + 1024;
    CK(cudaFuncSetAttribute(gp__matmul_kernel<W, 4, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm));
    static const char *pname[] = {"default", "spread", "load balancing"};
    static const size_t mnk[][3] = {{1000, 1000, 1000}, {512, 512, 8192}};
    for (int forced = 0; forced <= 1; forced++)
    for (int d = 0; d < 2; d++)
        for (unsigned sl = 2; sl <= 8; sl *= 2)
            for (int pol = 0; pol < 3; pol++) {
                if (forced && pol != 1) continue;
                g_smem = forced ? one_per_sm : W::SPLIT_SMEM;
                g_m = mnk[d][0], g_n = mnk[d][1], g_k = mnk[d][2];
                const unsigned blocks = (unsigned)(gp__ceil_div(g_m, (size_t)W::BM) * gp__ceil_div(g_n, (size_t)W::BN) * sl);
                g_slices = sl;
                g_policy = (cudaClusterSchedulingPolicy)pol;
                cudaLaunchAttribute at[2];
                at[0] = gp__cluster_attribute(sl);
                at[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
                at[1].val.clusterSchedulingPolicyPreference = g_policy;
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3(blocks);
                cfg.blockDim = dim3(W::THREADS);
                cfg.dynamicSmemBytes = g_smem;
                cfg.attrs = at;
                cfg.numAttrs = 2;
                int clusters = 0;
                CK(cudaOccupancyMaxActiveClusters(&clusters, gp__matmul_kernel<W, 4, true>, &cfg));
                const double us = probe_time(call_policy, NULL, 8, 1, 3000, NULL);
                printf("%zu x %zu x %zu w32x64, k in %u, %-15s%s: %8.2f us (%u blocks; %d clusters at once)\n", g_m,
                       g_n, g_k, sl, pname[pol], forced ? ", one block per SM" : "", us, blocks, clusters);
            }
    printf("%-48s %10s %10s\n", "row", "gpu us", "TFLOP/s");
    for (int r = 0; r < NROWS; r++) {
        const double us = probe_time(call, (void *)&r, 8, 1, 3000, NULL);
        printf("%-48s %10.2f %10.2f\n", rows[r].name, us, 2.0 * rows[r].m * rows[r].n * rows[r].k / us * 1e-6);
    }
    return 0;
}
