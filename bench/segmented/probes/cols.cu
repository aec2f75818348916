/* bench/segmented/probes/cols.cu -- the column reduce of contiguous rows (ld == cols) by row
 * groups against warp steps (detail/device/segmented_cols.cuh), both in one build, at 2^28
 * and 2^24 floats (2^27 doubles) for rows of 3 and of every power of two from 1 to 128 (16),
 * so that the widest rows worth the warp steps (GP__COLS_STEPS_LANES) can be read off one
 * device call. Not part of `make bench`.
 *
 * Build with the warp steps allowed up to 32 lanes a row (128 floats), and run:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Ibench -DGP__COLS_STEPS_LANES=32 \
 *        bench/segmented/probes/cols.cu build/lib/libgpuprims.a -o build/bench/segmented/cols
 *   build/bench/segmented/cols            (COLS_ONLY=f32 or f64: one type)
 * Each line: R <type> <2^lg> <rows> x <cols> <row groups us> <warp steps us> <% of read, each> ok|BAD;
 * rows of 1 add the plain reduce of the same elements (gp_reduce_sum_<type>), a reference
 * that reads as fast as a reduce can (its association depends on the SM count, the columns'
 * on the shape only). Each is timed in turn twice (the best median of each). The sums are of f32 (f64);
 * the check runs the same shapes on u32 (u64) values below 16 (exact sums, whatever the
 * association) against the host. */
#include <algorithm>
#include <initializer_list>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "gpuprims.cuh"
#include "bench.cuh"
#include "probe_matrix.cuh"
#include "read_kernel.cuh"

template <class OpF>
static void run_cols(void *p)
{
    probe_ctx<OpF, gp__cols_knobs> *q = (probe_ctx<OpF, gp__cols_knobs> *)p;
    CUDA_CHK(gp__reduce_cols<OpF>(q->out, q->in, q->r, q->c, q->c, 0, &q->k));
}
static cudaError_t plain_reduce(float *out, const float *in, size_t n) { return gp_reduce_sum_f32(out, in, n, 0); }
static cudaError_t plain_reduce(double *out, const double *in, size_t n) { return gp_reduce_sum_f64(out, in, n, 0); }
template <class OpF>
static void run_reduce(void *p)
{
    probe_ctx<OpF, gp__cols_knobs> *q = (probe_ctx<OpF, gp__cols_knobs> *)p;
    CUDA_CHK(plain_reduce(q->out, q->in, q->r * q->c));
}

/* Both ways at 2^lg elements of OpF's type (timed) and of OpU's (checked against the host),
 * for each count of columns in `cols`. */
template <class OpF, class OpU>
static void sweep(const char *type, std::initializer_list<int> lgs, std::initializer_list<size_t> cols, double read_gbs)
{
    typedef typename OpF::type F;
    typedef typename OpU::type U;
    const size_t N = (size_t)1 << *std::max_element(lgs.begin(), lgs.end());
    F *d_f, *d_out;
    U *d_u, *d_uo;
    CUDA_CHK(cudaMalloc(&d_f, N * sizeof(F)));
    CUDA_CHK(cudaMalloc(&d_u, N * sizeof(U)));
    CUDA_CHK(cudaMalloc(&d_out, 128 * sizeof(F)));
    CUDA_CHK(cudaMalloc(&d_uo, 128 * sizeof(U)));
    const std::vector<U> hu = probe_make(d_u, d_f, N);
    for (int lg : lgs) {
        const size_t n = (size_t)1 << lg;
        for (size_t c : cols) {
            const size_t r = n / c;
            std::vector<U> ref(c, 0);
            for (size_t i = 0; i < r * c; i++) ref[i % c] += hu[i];
            bool ok = true;
            for (int way = 0; way < 2; way++) {
                gp__cols_knobs k = {way == 0};
                CUDA_CHK(cudaMemset(d_uo, 0xA5, 128 * sizeof(U)));
                CUDA_CHK(gp__reduce_cols<OpU>(d_uo, d_u, r, c, c, 0, &k));
                std::vector<U> got(c);
                CUDA_CHK(cudaMemcpy(got.data(), d_uo, c * sizeof(U), cudaMemcpyDeviceToHost));
                for (size_t j = 0; j < c; j++) ok &= got[j] == ref[j];
            }
            float best[3] = {1e30f, 1e30f, 1e30f};
            for (int round = 0; round < 2; round++)
                for (int way = 0; way < (c == 1 ? 3 : 2); way++) {
                    probe_ctx<OpF, gp__cols_knobs> x = {d_out, d_f, r, c, {way == 0}};
                    const float ms = gp_bench_median_ms(way == 2 ? run_reduce<OpF> : run_cols<OpF>, &x);
                    best[way] = ms < best[way] ? ms : best[way];
                }
            const double bytes = (r * c + c) * (double)sizeof(F);
            printf("R %s 2^%d %zu x %zu %.1f %.1f %.1f%% %.1f%% %s", type, lg, r, c, best[0] * 1e3, best[1] * 1e3,
                   100.0 * gp_bench_gbps(bytes, best[0]) / read_gbs, 100.0 * gp_bench_gbps(bytes, best[1]) / read_gbs,
                   ok ? "ok" : "BAD");
            if (c == 1) printf(" reduce %.1f %.1f%%", best[2] * 1e3, 100.0 * gp_bench_gbps(bytes, best[2]) / read_gbs);
            printf("\n");
            fflush(stdout);
        }
    }
    cudaFree(d_f);
    cudaFree(d_u);
    cudaFree(d_out);
    cudaFree(d_uo);
}

int main(void)
{
    const size_t N = (size_t)1 << 28;
    float *d_f;
    unsigned *d_sink;
    CUDA_CHK(cudaMalloc(&d_f, N * 4));
    CUDA_CHK(cudaMemset(d_f, 0, N * 4));
    CUDA_CHK(cudaMalloc(&d_sink, 4));
    cudaDeviceProp prop;
    CUDA_CHK(cudaGetDeviceProperties(&prop, 0));
    struct rd { const float *in; size_t n; unsigned *sink; int sms; } rctx = {d_f, N, d_sink, prop.multiProcessorCount};
    const float read_ms = gp_bench_median_ms([](void *p) {
        rd *r = (rd *)p;
        read_only<<<r->sms * READ_BLOCKS_PER_SM, READ_BLOCK>>>((const uint4 *)r->in, r->n / 4, r->sink);
    }, &rctx);
    const double read_gbs = gp_bench_gbps(N * 4.0, read_ms);
    printf("read %.1f us, %.0f GB/s (%s)\n", read_ms * 1e3, read_gbs, prop.name);
    cudaFree(d_f);
    const char *only = getenv("COLS_ONLY"); /* f32 or f64: that type alone */
    if (!only || !strcmp(only, "f32"))
        sweep<gp__op_sum_f32, gp__op_sum_u32>("f32", {28, 24}, {1, 2, 3, 4, 8, 16, 32, 64, 128}, read_gbs);
    if (!only || !strcmp(only, "f64")) sweep<gp__op_sum_f64, gp__op_sum_u64>("f64", {27, 23}, {1, 2, 3, 4, 8, 16}, read_gbs);
    return 0;
}
