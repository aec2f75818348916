/* bench/reduce/probes/reduce_cluster.cu -- a one-off probe, not part of `make bench`: how fast can
 * one thread-block cluster read a few megabytes when each block keeps a deep ring of bulk
 * copies (cp.async.bulk) in flight? gp_reduce's CLUSTER mode (one launch, no scratch) stops
 * at 1 MB because its blocks, 64 KB of loads in flight each, read about 40 GB/s apiece;
 * GRID mode beyond costs a second launch and a scratch allocation (about 10 us of host
 * time a call). If a cluster can read 4 MB in a few microseconds, one launch wins there.
 *
 * Rows (float sums, inputs rotated through pools beyond the L2 as bench/reduce/reduce.cu does):
 * the library's gp_reduce_sum_f32, and a cluster of C blocks of 512 threads, each block
 * streaming its contiguous share through a ring of S stages of K KB (bulk copies on
 * mbarriers), the warps summing each stage from shared memory, block 0 adding the blocks'
 * totals through distributed shared memory. Columns: us a call as bench/reduce/reduce.cu times
 * (min(64, 2^22 / n) calls from an idle GPU), and the GPU's time alone (behind a spin).
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/reduce/probes/reduce_cluster.cu -o probe && ./probe
 *
 * Results on the H100 (2026-11-23; bench us / GPU us):
 *   n      library         cluster 16: 4x32 KB  3x64 KB       12x16 KB      cluster 8: 6x32 KB
 *   2^18   4.94 / 4.82     6.19 / 6.16          5.99 / 5.98   6.57 / 6.54   6.79 / 6.78
 *   2^20   7.86 / 5.82     9.48 / 9.01          9.57 / 9.03   11.31 / 10.84 12.62 / 12.27
 *   2^22   14.46 / 12.64   23.30 / 21.44        23.33 / 21.47 30.88 / 28.70 36.32 / 34.27
 * No: a cluster lives on one GPC, and 16 blocks there read at most about 780 GB/s (49 GB/s
 * a block) however deep the ring, against the 1070-1330 GB/s of the library's grid at
 * 2^21-2^22. At 1 MB the library's cluster of plain loads is already faster. CLUSTER mode
 * keeps its 1 MB limit. */
#include <math.h>
#include <string.h>

#include "gpuprims.cuh"
#include "../../probe.cuh"

__global__ void fill(float *p, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        p[k] = (float)(k % 1000) * 0.001f;
}

/* n a multiple of 4 * 512 * gridDim.x; each block sums [b * per, (b + 1) * per) floats,
 * through the scan's ring primitives (detail/device/scan.cuh: mbarriers and bulk copies) */
template <int S, int KB>
__global__ void __launch_bounds__(512, 1) cluster_sum(const float *in, size_t n, float *out)
{
    enum { CHUNK = KB * 1024 };
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ uint64_t full[S];
    __shared__ float block_total;
    const size_t per = n / gridDim.x; /* floats per block */
    const char *src = reinterpret_cast<const char *>(in + blockIdx.x * per);
    const size_t bytes = per * 4, chunks = (bytes + CHUNK - 1) / CHUNK;
    auto len = [&](size_t c) { return (unsigned)(bytes - c * CHUNK < CHUNK ? bytes - c * CHUNK : CHUNK); };
    auto issue = [&](size_t c) { gp__bulk_load(ring + (c % S) * CHUNK, src + c * CHUNK, len(c), &full[c % S]); };
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++) gp__mbar_init(&full[s], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (size_t c = 0; c < chunks && c < S; c++) issue(c);
    float acc = 0.f;
    for (size_t c = 0; c < chunks; c++) {
        gp__mbar_wait(&full[c % S], (unsigned)(c / S) & 1);
        const float4 *v = reinterpret_cast<const float4 *>(ring + (c % S) * CHUNK);
        for (unsigned i = threadIdx.x; i < len(c) / 16; i += 512) {
            const float4 x = v[i];
            acc += (x.x + x.y) + (x.z + x.w);
        }
        __syncthreads(); /* the stage is read: refill it */
        if (threadIdx.x == 0 && c + S < chunks) issue(c + S);
    }
    const float total = gp__block_reduce<gp__op_sum_f32>(acc);
    if (threadIdx.x == 0) block_total = total;
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float t = 0.f;
        for (unsigned r = 0; r < gridDim.x; r++) t += *static_cast<float *>(__cluster_map_shared_rank(&block_total, r));
        *out = t;
    }
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
}

typedef void (*kernel_t)(const float *, size_t, float *);
struct variant {
    const char *name;
    kernel_t k;
    int stages, kb, cluster;
};
static const variant variants[] = {
    {"library", NULL, 0, 0, 0},
    {"cluster 16, 4 x 32 KB", cluster_sum<4, 32>, 4, 32, 16},
    {"cluster 16, 6 x 32 KB", cluster_sum<6, 32>, 6, 32, 16},
    {"cluster 16, 3 x 64 KB", cluster_sum<3, 64>, 3, 64, 16},
    {"cluster 16, 12 x 16 KB", cluster_sum<12, 16>, 12, 16, 16},
    {"cluster 8, 6 x 32 KB", cluster_sum<6, 32>, 6, 32, 8},
};
enum { NV = sizeof variants / sizeof *variants };

struct ctx {
    int v;
    size_t n;
    float *in, *out;
    int slots, next;
};
static void call(void *p)
{
    ctx *c = (ctx *)p;
    const float *in = c->in + (size_t)c->next * c->n;
    float *out = c->out + c->next;
    c->next = (c->next + 1) % c->slots;
    const variant &v = variants[c->v];
    if (!v.k) {
        CK(gp__reduce<gp__op_sum_f32>(out, in, c->n, 0));
        return;
    }
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = v.cluster;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(v.cluster);
    cfg.blockDim = dim3(512);
    cfg.dynamicSmemBytes = (size_t)v.stages * v.kb * 1024;
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, v.k, in, c->n, out));
}

int main(void)
{
    const size_t pool = (size_t)1 << 29;
    float *in, *out;
    CK(cudaMalloc(&in, pool));
    CK(cudaMalloc(&out, 1 << 20));
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    for (int i = 1; i < NV; i++) {
        CK(cudaFuncSetAttribute(variants[i].k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        CK(cudaFuncSetAttribute(variants[i].k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                variants[i].stages * variants[i].kb * 1024));
    }
    printf("n|variant|bench us|gpu us|GB/s (gpu)|sum ok\n");
    for (int lg = 18; lg <= 22; lg++) {
        const size_t n = (size_t)1 << lg;
        int slots = (int)(2 * (size_t)l2 / (4 * n) + 1);
        if ((size_t)slots * n * 4 > pool) slots = (int)(pool / (n * 4));
        fill<<<1024, 256>>>(in, n * slots);
        double want = 0;
        for (size_t i = 0; i < n; i++) want += (double)(float)((i % 1000) * 0.001f);
        const size_t b = ((size_t)1 << 22) / n;
        const int batch = b < 1 ? 1 : b > 64 ? 64 : (int)b;
        for (int v = 0; v < NV; v++) {
            ctx c = {v, n, in, out, 1, 0};
            call(&c);
            CK(cudaDeviceSynchronize());
            float got;
            CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
            c.slots = slots;
            const double bench = probe_time(call, &c, batch, 0, 0, NULL);
            const double gpu = probe_time(call, &c, batch, 1, batch * 20 + 40, NULL);
            printf("2^%d|%s|%.2f|%.2f|%.0f|%s\n", lg, variants[v].name, bench, gpu, n * 4 / gpu * 1e-3,
                   fabs(got - want) <= 1e-4 * fabs(want) ? "yes" : "NO");
        }
    }
    return 0;
}
