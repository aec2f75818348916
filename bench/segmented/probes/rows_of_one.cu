/* bench/segmented/probes/rows_of_one.cu -- the row reduce of contiguous rows of one element
 * (x.sum(dim=1) of an n x 1 matrix): a lane a row (the short rows' kernel, the knob
 * `lane_a_row`) against a lane a 16-byte vector of rows (`gp__rows_of_one_kernel`), both in
 * one build, at 2^28 and 2^24 floats and 2^27 and 2^23 doubles. Not part of `make bench`.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Ibench bench/segmented/probes/rows_of_one.cu \
 *        build/lib/libgpuprims.a -o build/bench/segmented/rows_of_one
 *   build/bench/segmented/rows_of_one
 * Each line: R <type> <2^lg> <rows> x 1 <a lane a row us> <a lane a vector us> <% of the
 * copy rate, each> same|DIFF ok|BAD, where the bytes are the matrix read and the results
 * written. Each is timed in turn twice (the best median of each). `same`: both ways give
 * the same bits on the timed values (the association is the same); `ok`: both ways give
 * the host's sums on u32 (u64) values below 16. */
#include <initializer_list>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "gpuprims.cuh"
#include "bench.cuh"
#include "probe_matrix.cuh"

template <class OpF>
static void run_rows(void *p)
{
    probe_ctx<OpF, gp__rows_knobs> *q = (probe_ctx<OpF, gp__rows_knobs> *)p;
    CUDA_CHK(gp__reduce_rows<OpF>(q->out, q->in, q->r, q->c, q->c, 0, &q->k));
}

template <class OpF, class OpU>
static void sweep(const char *type, std::initializer_list<int> lgs, std::initializer_list<size_t> cols, double copy_gbs)
{
    typedef typename OpF::type F;
    typedef typename OpU::type U;
    size_t N = 0;
    for (int lg : lgs) N = ((size_t)1 << lg) > N ? (size_t)1 << lg : N;
    F *d_f, *d_out[2];
    U *d_u, *d_uo;
    CUDA_CHK(cudaMalloc(&d_f, N * sizeof(F)));
    CUDA_CHK(cudaMalloc(&d_u, N * sizeof(U)));
    CUDA_CHK(cudaMalloc(&d_out[0], N * sizeof(F)));
    CUDA_CHK(cudaMalloc(&d_out[1], N * sizeof(F)));
    CUDA_CHK(cudaMalloc(&d_uo, N * sizeof(U)));
    const std::vector<U> hu = probe_make(d_u, d_f, N);
    for (int lg : lgs) {
        const size_t n = (size_t)1 << lg;
        for (size_t c : cols) {
            const size_t r = n / c;
            bool ok = true;
            for (int way = 0; way < 2; way++) {
                gp__rows_knobs k = {0, way == 0};
                CUDA_CHK(cudaMemset(d_uo, 0xA5, r * sizeof(U)));
                CUDA_CHK(gp__reduce_rows<OpU>(d_uo, d_u, r, c, c, 0, &k));
                std::vector<U> got(r);
                CUDA_CHK(cudaMemcpy(got.data(), d_uo, r * sizeof(U), cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < r && ok; i++) {
                    U want = 0;
                    for (size_t j = 0; j < c; j++) want += hu[i * c + j];
                    ok &= got[i] == want;
                }
            }
            float best[2] = {1e30f, 1e30f};
            for (int round = 0; round < 2; round++)
                for (int way = 0; way < 2; way++) {
                    probe_ctx<OpF, gp__rows_knobs> x = {d_out[way], d_f, r, c, {0, way == 0}};
                    const float ms = gp_bench_median_ms(run_rows<OpF>, &x);
                    best[way] = ms < best[way] ? ms : best[way];
                }
            std::vector<F> a(r), b(r);
            CUDA_CHK(cudaMemcpy(a.data(), d_out[0], r * sizeof(F), cudaMemcpyDeviceToHost));
            CUDA_CHK(cudaMemcpy(b.data(), d_out[1], r * sizeof(F), cudaMemcpyDeviceToHost));
            const bool same = memcmp(a.data(), b.data(), r * sizeof(F)) == 0;
            const double bytes = (r * c + r) * (double)sizeof(F);
            printf("R %s 2^%d %zu x %zu %.1f %.1f %.1f%% %.1f%% %s %s\n", type, lg, r, c, best[0] * 1e3, best[1] * 1e3,
                   100.0 * gp_bench_gbps(bytes, best[0]) / copy_gbs, 100.0 * gp_bench_gbps(bytes, best[1]) / copy_gbs,
                   same ? "same" : "DIFF", ok ? "ok" : "BAD");
            fflush(stdout);
        }
    }
    cudaFree(d_f);
    cudaFree(d_u);
    cudaFree(d_out[0]);
    cudaFree(d_out[1]);
    cudaFree(d_uo);
}

int main(void)
{
    const size_t N = (size_t)1 << 28;
    float *d_a, *d_b;
    CUDA_CHK(cudaMalloc(&d_a, N * 4));
    CUDA_CHK(cudaMalloc(&d_b, N * 4));
    CUDA_CHK(cudaMemset(d_a, 0, N * 4));
    cudaDeviceProp prop;
    CUDA_CHK(cudaGetDeviceProperties(&prop, 0));
    const float copy_ms = gp_bench_copy_ms(d_b, d_a, N * 4);
    const double copy_gbs = gp_bench_gbps(2.0 * N * 4, copy_ms);
    printf("copy %.1f us, %.0f GB/s (%s)\n", copy_ms * 1e3, copy_gbs, prop.name);
    cudaFree(d_a);
    cudaFree(d_b);
    sweep<gp__op_sum_f32, gp__op_sum_u32>("f32", {28, 24}, {1}, copy_gbs);
    sweep<gp__op_sum_f64, gp__op_sum_u64>("f64", {27, 23}, {1}, copy_gbs);
    return 0;
}
