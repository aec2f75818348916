/* examples/compact.cu -- stream compaction on the scan (one of the scan applications in
 * Harris, Sengupta & Owens, "Parallel Prefix Sum (Scan) with CUDA", GPU Gems 3 ch. 39):
 * keep the elements of x that pass a predicate, in order.
 *   1. flags[i] = pred(x[i]) ? 1 : 0                       (one kernel)
 *   2. pos = exclusive scan of flags: pos[i] = where x[i] goes   (gp_exclusive_scan_sum_u32)
 *   3. if flags[i]: out[pos[i]] = x[i]; kept = pos[n-1] + flags[n-1]   (one kernel)
 * The scan runs in place on the flags (d_out == d_in is allowed). That is the teaching
 * version: three passes, and 4n bytes of positions written and read back.
 * Beside it, the library's one-pass call: gp_select_flagged_f32 keeps d_x[i] where a byte
 * flag is set, counting, looking ahead for the tile's place and scattering in one kernel
 * (here the flags come from the same predicate; a user predicate would use
 * GP_DEFINE_SELECT and skip the flags entirely). Both are timed with CUDA events.
 * Build and run: make examples && build/examples/compact */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <stdio.h>
#include <stdlib.h>

static __host__ __device__ int keep(float v) { return v > 0.5f; } /* the predicate */

__global__ void mark_bytes(uint8_t *flags, const float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        flags[i] = (uint8_t)keep(x[i]);
}

__global__ void mark(uint32_t *flags, const float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        flags[i] = keep(x[i]);
}

/* pos holds the exclusive scan of the flags; the flag is recomputed from x. The last
 * thread also writes the count. */
__global__ void scatter(float *out, uint32_t *count, const float *x, const uint32_t *pos, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int k = keep(x[i]);
        if (k) out[pos[i]] = x[i];
        if (i == n - 1) *count = pos[i] + k;
    }
}

int main(void)
{
    need_gpu(__FILE__);
    const size_t n = 10000019; /* a prime: no size is special */
    float *h = (float *)malloc(n * sizeof(float)), *got = (float *)malloc(n * sizeof(float));
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = (float)(s >> 40) / 16777216.0f; /* [0, 1) */
    }
    float *d_x, *d_out;
    uint32_t *d_pos, *d_count, count = 0;
    CUDA_CHK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHK(cudaMalloc(&d_pos, n * sizeof(uint32_t)));
    CUDA_CHK(cudaMalloc(&d_count, sizeof(uint32_t)));
    CUDA_CHK(cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t e0, e1;
    CUDA_CHK(cudaEventCreate(&e0));
    CUDA_CHK(cudaEventCreate(&e1));
    float ms3 = 0, ms1 = 0;
    for (int rep = 0; rep < 2; rep++) { /* the second run is timed (the first loads the kernels) */
        CUDA_CHK(cudaEventRecord(e0));
        mark<<<1024, 256>>>(d_pos, d_x, n);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(gp_exclusive_scan_sum_u32(d_pos, d_pos, n, 0)); /* in place */
        scatter<<<1024, 256>>>(d_out, d_count, d_x, d_pos, n);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaEventRecord(e1));
        CUDA_CHK(cudaEventSynchronize(e1));
        CUDA_CHK(cudaEventElapsedTime(&ms3, e0, e1));
    }
    CUDA_CHK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(got, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    /* the host's answer */
    size_t want = 0, wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (keep(h[i])) wrong += want < count && got[want] != h[i], want++;
    printf("three passes (mark, scan, scatter): kept %u of %zu elements (host: %zu), %zu misplaced, %.1f us\n", count, n,
           want, wrong, ms3 * 1e3);

    /* the library: one pass over the values and byte flags */
    uint8_t *d_flags;
    uint64_t *d_kept, kept = 0;
    CUDA_CHK(cudaMalloc(&d_flags, n));
    CUDA_CHK(cudaMalloc(&d_kept, sizeof kept));
    mark_bytes<<<1024, 256>>>(d_flags, d_x, n);
    CUDA_CHK_LAUNCH();
    for (int rep = 0; rep < 2; rep++) {
        CUDA_CHK(cudaEventRecord(e0));
        CUDA_CHK(gp_select_flagged_f32(d_out, d_kept, d_x, d_flags, n, 0));
        CUDA_CHK(cudaEventRecord(e1));
        CUDA_CHK(cudaEventSynchronize(e1));
        CUDA_CHK(cudaEventElapsedTime(&ms1, e0, e1));
    }
    CUDA_CHK(cudaMemcpy(&kept, d_kept, sizeof kept, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(got, d_out, kept * sizeof(float), cudaMemcpyDeviceToHost));
    size_t wrong1 = 0;
    for (size_t i = 0, j = 0; i < n; i++)
        if (keep(h[i])) wrong1 += j < kept && got[j] != h[i], j++;
    printf("one pass (gp_select_flagged_f32): kept %llu, %zu misplaced, %.1f us\n", (unsigned long long)kept, wrong1,
           ms1 * 1e3);
    CUDA_CHK(cudaFree(d_flags));
    CUDA_CHK(cudaFree(d_kept));
    CUDA_CHK(cudaEventDestroy(e0));
    CUDA_CHK(cudaEventDestroy(e1));
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_out));
    CUDA_CHK(cudaFree(d_pos));
    CUDA_CHK(cudaFree(d_count));
    free(h);
    free(got);
    return count == want && wrong == 0 && kept == want && wrong1 == 0 ? 0 : 1;
}
