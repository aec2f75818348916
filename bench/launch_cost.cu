/* bench/launch_cost.cu -- a one-off probe, not part of `make bench`: what one launch
 * costs the host and the GPU, by the form of the launch. At 2^16 elements a reduce or a
 * scan is one launch, and back to back its time per call is the host's time to issue it
 * (the benches compare it with an empty kernel launched with <<<>>>).
 *
 * Rows: an empty kernel of 1 x 32 threads or 16 x 512 (as the reduce's 2^16 cluster),
 * launched with <<<>>> or cudaLaunchKernelEx with no attribute, a programmatic dependent
 * launch, a cluster of 16 (non-portable size), or both; and the host calls a gpuprims
 * call makes before its launch. Columns: host us a call (the GPU kept busy by a spin
 * kernel, so launches only queue), and us a call back to back from an idle GPU (64 calls
 * between events, as the benches time 2^16). Medians of 31.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/launch_cost.cu -o probe && ./probe
 *
 * Results on the H100 machine (2026-11-23, two runs; host us / back to back us):
 *   <<<1, 32>>> 3.44 / 3.50, 4.04 / 4.08; <<<16, 512>>> 3.24 / 3.33, 4.10 / 4.22;
 *   cudaLaunchKernelEx 3.07 / 3.21, 4.10 / 4.16; + PDL 2.68 / 2.66, 3.49 / 3.66; + cluster
 *   3.31 / 3.33, 4.02 / 4.14; + both 2.69 / 2.76, 3.83 / 3.81; cudaGetDevice 0.04-0.05,
 *   cudaStreamIsCapturing 0.07-0.10.
 * So the form of the launch costs nothing beyond the launch itself (a chained one is
 * cheaper back to back), the queries a call makes first are noise, and the host's own
 * speed moves by 15% from run to run: a 2^16 reduce or scan, one chained cluster launch,
 * sits at the empty launch's time within that spread. */
#include "probe.cuh"

/* waits for the stream's earlier work, as the library's chained kernels do */
__global__ void chained_kernel(void)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
}

enum { PLAIN_1, PLAIN_16, EX_16, EX_PDL_16, EX_CLUSTER_16, EX_BOTH_16, GET_DEVICE, IS_CAPTURING, NROWS };
static const char *names[NROWS] = {"<<<1, 32>>>",
                                   "<<<16, 512>>>",
                                   "cudaLaunchKernelEx 16 x 512",
                                   "  + programmatic dependent launch",
                                   "  + cluster of 16 (no PDL)",
                                   "  + cluster of 16 and PDL",
                                   "cudaGetDevice",
                                   "cudaStreamIsCapturing (stream 0)"};

static void call(void *p)
{
    const int row = *(const int *)p;
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[0].val.programmaticStreamSerializationAllowed = 1;
    attrs[1].id = cudaLaunchAttributeClusterDimension;
    attrs[1].val.clusterDim.x = 16;
    attrs[1].val.clusterDim.y = 1;
    attrs[1].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(16);
    cfg.blockDim = dim3(512);
    cfg.stream = 0;
    cfg.attrs = row == EX_CLUSTER_16 ? attrs + 1 : attrs;
    cfg.numAttrs = row == EX_PDL_16 || row == EX_CLUSTER_16 ? 1 : row == EX_BOTH_16 ? 2 : 0;
    int dev;
    cudaStreamCaptureStatus st;
    switch (row) {
    case PLAIN_1: empty_kernel<<<1, 32>>>(); break;
    case PLAIN_16: empty_kernel<<<16, 512>>>(); break;
    case GET_DEVICE: CK(cudaGetDevice(&dev)); break;
    case IS_CAPTURING: CK(cudaStreamIsCapturing(0, &st)); break;
    default: CK(cudaLaunchKernelEx(&cfg, chained_kernel));
    }
}

int main(void)
{
    CK(cudaFuncSetAttribute(chained_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const int batch = 64;
    printf("launch|host us|back to back us\n");
    for (int row = 0; row < NROWS; row++) {
        double host;
        probe_time(call, &row, batch, 1, 1000, &host); /* behind 1 ms of spin: the host's time */
        const double gpu = probe_time(call, &row, batch, 0, 0, NULL);
        printf("%s|%.2f|%.2f\n", names[row], host, row < GET_DEVICE ? gpu : 0.0);
    }
    return 0;
}
