/* bench/segmented/probes/cols.cu -- the column reduce of contiguous rows (ld == cols) by row
 * groups against warp steps (detail/device/segmented_cols.cuh), both in one build, at 2^28
 * and 2^24 values for rows of 3 floats and of every power of two from 1 to 128, so that the
 * widest rows worth the warp steps (GP__COLS_STEPS_LANES) can be read off one device call.
 * Not part of `make bench`.
 *
 * Build with the warp steps allowed up to 32 lanes a row (128 floats), and run:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Ibench -DGP__COLS_STEPS_LANES=32 \
 *        bench/segmented/probes/cols.cu -o build/bench/segmented/cols
 *   build/bench/segmented/cols
 * Each line: R <2^lg> <rows> x <cols> <row groups us> <warp steps us> <% of read, each> ok|BAD.
 * Both ways are timed in turn twice (the best median of each). The sums are of f32; the
 * check runs the same shapes on u32 values below 16 (exact sums, whatever the
 * association) against the host. */
#include <stdint.h>
#include <stdio.h>
#include <vector>

#include "gpuprims.cuh"
#include "bench.cuh"
#include "read_kernel.cuh"

static __global__ void fill(uint32_t *u, float *f, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        u[i] = h & 15u;
        f[i] = (float)(h & 0xffffu) / 65536.0f;
    }
}

struct ctx {
    float *out;
    const float *in;
    size_t r, c;
    gp__cols_knobs k;
};
static void run_cols(void *p)
{
    ctx *q = (ctx *)p;
    CUDA_CHK(gp__reduce_cols<gp__op_sum_f32>(q->out, q->in, q->r, q->c, q->c, 0, &q->k));
}

int main(void)
{
    const size_t N = (size_t)1 << 28;
    float *d_f, *d_out;
    uint32_t *d_u, *d_uo;
    unsigned *d_sink;
    CUDA_CHK(cudaMalloc(&d_f, N * 4));
    CUDA_CHK(cudaMalloc(&d_u, N * 4));
    CUDA_CHK(cudaMalloc(&d_out, 4096));
    CUDA_CHK(cudaMalloc(&d_uo, 4096));
    CUDA_CHK(cudaMalloc(&d_sink, 4));
    fill<<<4096, 256>>>(d_u, d_f, N);
    CUDA_CHK(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    CUDA_CHK(cudaGetDeviceProperties(&prop, 0));
    struct rd { const float *in; size_t n; unsigned *sink; int sms; } rctx = {d_f, N, d_sink, prop.multiProcessorCount};
    const float read_ms = gp_bench_median_ms([](void *p) {
        rd *r = (rd *)p;
        read_only<<<r->sms * READ_BLOCKS_PER_SM, READ_BLOCK>>>((const uint4 *)r->in, r->n / 4, r->sink);
    }, &rctx);
    const double read_gbs = gp_bench_gbps(N * 4.0, read_ms);
    printf("read %.1f us, %.0f GB/s (%s)\n", read_ms * 1e3, read_gbs, prop.name);
    std::vector<uint32_t> hu(N);
    CUDA_CHK(cudaMemcpy(hu.data(), d_u, N * 4, cudaMemcpyDeviceToHost));
    for (int lg : {28, 24}) {
        const size_t n = (size_t)1 << lg;
        for (size_t c : {1, 2, 3, 4, 8, 16, 32, 64, 128}) {
            const size_t r = n / c;
            /* the check: u32 by both ways against the host */
            std::vector<uint64_t> ref(c, 0);
            for (size_t i = 0; i < r * c; i++) ref[i % c] += hu[i];
            bool ok = true;
            for (int way = 0; way < 2; way++) {
                gp__cols_knobs k = {way == 0};
                CUDA_CHK(cudaMemset(d_uo, 0xA5, 4096));
                CUDA_CHK(gp__reduce_cols<gp__op_sum_u32>(d_uo, d_u, r, c, c, 0, &k));
                std::vector<uint32_t> got(c);
                CUDA_CHK(cudaMemcpy(got.data(), d_uo, c * 4, cudaMemcpyDeviceToHost));
                for (size_t j = 0; j < c; j++) ok &= got[j] == (uint32_t)ref[j];
            }
            float best[2] = {1e30f, 1e30f};
            for (int round = 0; round < 2; round++)
                for (int way = 0; way < 2; way++) {
                    ctx x = {d_out, d_f, r, c, {way == 0}};
                    const float ms = gp_bench_median_ms(run_cols, &x);
                    best[way] = ms < best[way] ? ms : best[way];
                }
            const double bytes = r * c * 4.0 + c * 4.0;
            printf("R 2^%d %zu x %zu %.1f %.1f %.1f%% %.1f%% %s\n", lg, r, c, best[0] * 1e3, best[1] * 1e3,
                   100.0 * gp_bench_gbps(bytes, best[0]) / read_gbs, 100.0 * gp_bench_gbps(bytes, best[1]) / read_gbs,
                   ok ? "ok" : "BAD");
            fflush(stdout);
        }
    }
    return 0;
}
