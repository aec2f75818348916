/* tests/status/test_status.cu -- status memory (detail/util/status.cuh): the per-stream
 * regions that grid-mode reduce and scan, the column reduces (narrow rows, and chunks of
 * wider rows with their counters) and the row reduce in parts keep between calls, with no
 * clearing launch. All of these calls are also captured in graphs. GPU: back-to-back calls
 * of different sizes on one stream (stale words of a larger call lie beyond a smaller
 * one's), streams destroyed and re-created
 * in a loop, 16 host threads on private and shared streams and on their per-thread default
 * streams, graphs replayed back to back and two instantiations on two streams at once, eager
 * calls between graph replays, a call that fails its argument check in the middle of a
 * sequence, and gp_release_device_state while idle followed by more calls. Every result is
 * checked bitwise against a host reference (integer sums: exact). */
#include "../../gpuprims.cuh"
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

#define CK(x) EXPECT((x) == cudaSuccess, "%s failed", #x)

/* A device buffer of n ints drawn from st, its host copy, and the host references. */
typedef struct status_case {
    size_t n;
    std::vector<int> in, scan; /* inclusive sum, wrapping like the device (two's complement) */
    long long sum;
    int cols4[4]; /* the first n / 4 rows of 4 summed along columns (gp_reduce_cols), wrapping */
    int rows4[4]; /* 4 rows of n / 4 summed along rows (gp_reduce_rows, in parts), wrapping */
    std::vector<int> wide; /* the first n / 320 rows of 320, then n / 1100 rows of 1100, summed along columns */
    int *d_in;
} status_case;

/* The first in.size() / cols rows of cols elements of in summed along columns into out[0 ..
 * cols), wrapping like the device (two's complement). */
static void host_col_sums(const std::vector<int> &in, size_t cols, int *out)
{
    std::vector<uint32_t> acc(cols, 0);
    for (size_t i = 0; i < in.size() / cols * cols; i++) acc[i % cols] += (uint32_t)in[i];
    for (size_t k = 0; k < cols; k++) out[k] = (int)acc[k];
}

static void case_make(status_case *c, size_t n, uint64_t *st)
{
    c->n = n;
    c->in.resize(n);
    c->scan.resize(n);
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        c->in[i] = (int)(gp_t_next(st) % 2001) - 1000;
        acc += (uint32_t)c->in[i];
        c->scan[i] = (int)acc;
    }
    c->sum = (int)acc;
    host_col_sums(c->in, 4, c->cols4);
    uint32_t row[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n / 4 * 4; i++) row[i / (n / 4)] += (uint32_t)c->in[i];
    for (int k = 0; k < 4; k++) c->rows4[k] = (int)row[k];
    c->wide.resize(320 + 1100);
    host_col_sums(c->in, 320, c->wide.data());
    host_col_sums(c->in, 1100, c->wide.data() + 320);
    c->d_in = NULL;
    CK(cudaMalloc(&c->d_in, n * sizeof(int)));
    CK(cudaMemcpy(c->d_in, c->in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
}

/* Ints in d_sum: the reduce, rows of 1, of 4, rows in parts, rows of 320 and of 1100. */
#define SUMS (10 + 320 + 1100)

/* The reduces of c on s into d_sum (SUMS ints): one reduce, column reduces of rows of 1 and
 * of 4 (warp steps) and a row reduce of 4 long rows in parts, all in the reduce's region,
 * and column reduces of rows of 320 and 1100 (3 and 9 strips of chunks, their counters and
 * partials in a region of their own). */
static cudaError_t case_reduces(const status_case *c, int *d_sum, cudaStream_t s)
{
    GP__TRY(gp_reduce_sum_i32(d_sum, c->d_in, c->n, s));
    GP__TRY(gp_reduce_cols_sum_i32(d_sum + 1, c->d_in, c->n, 1, 1, s));
    GP__TRY(gp_reduce_cols_sum_i32(d_sum + 2, c->d_in, c->n / 4, 4, 4, s));
    GP__TRY(gp_reduce_rows_sum_i32(d_sum + 6, c->d_in, 4, c->n / 4, c->n / 4, s));
    GP__TRY(gp_reduce_cols_sum_i32(d_sum + 10, c->d_in, c->n / 320, 320, 320, s));
    return gp_reduce_cols_sum_i32(d_sum + 10 + 320, c->d_in, c->n / 1100, 1100, 1100, s);
}

/* d_sum's SUMS ints (copied on s, which is synchronised) against c's references. */
static int case_sums_ok(const status_case *c, const int *d_sum, cudaStream_t s)
{
    int sum[SUMS];
    if (cudaMemcpyAsync(sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost, s) != cudaSuccess) return 0;
    if (cudaStreamSynchronize(s) != cudaSuccess) return 0;
    int ok = sum[0] == (int)c->sum && sum[1] == (int)c->sum;
    for (int k = 0; k < 4; k++) ok &= sum[2 + k] == c->cols4[k] && sum[6 + k] == c->rows4[k];
    return ok && memcmp(sum + 10, c->wide.data(), c->wide.size() * sizeof(int)) == 0;
}

/* One inclusive scan and the reduces of c on s into d_scan / d_sum, checked; returns 1 when
 * right. */
static int case_run_check(const status_case *c, int *d_scan, int *d_sum, cudaStream_t s, const char *what)
{
    std::vector<int> got(c->n);
    if (cudaMemsetAsync(d_scan, 0xA5, c->n * sizeof(int), s) != cudaSuccess) return 0;
    if (cudaMemsetAsync(d_sum, 0xA5, SUMS * sizeof(int), s) != cudaSuccess) return 0;
    if (gp_inclusive_scan_sum_i32(d_scan, c->d_in, c->n, s) != cudaSuccess) return 0;
    if (case_reduces(c, d_sum, s) != cudaSuccess) return 0;
    if (cudaMemcpyAsync(got.data(), d_scan, c->n * sizeof(int), cudaMemcpyDeviceToHost, s) != cudaSuccess) return 0;
    int ok = case_sums_ok(c, d_sum, s) && memcmp(got.data(), c->scan.data(), c->n * sizeof(int)) == 0;
    if (!ok) printf("    %s: n = %zu wrong\n", what, c->n);
    return ok;
}

/* 4 KB of static shared memory and `words` ints of dynamic: their sum in *out. */
__global__ void t_smem_static_and_dynamic(long long *out, int words)
{
    __shared__ int s_static[1024];
    extern __shared__ int s_dynamic[];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s_static[i] = i;
    for (int i = threadIdx.x; i < words; i += blockDim.x) s_dynamic[i] = 2 * i;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long sum = 0;
        for (int i = 0; i < 1024; i++) sum += s_static[i];
        for (int i = 0; i < words; i++) sum += s_dynamic[i];
        *out = sum;
    }
}

/* The library's kernel load opts a kernel in above 48 KB of shared memory counting its static
 * shared memory too: 4 KB static and 45 KB dynamic need the opt-in, though the dynamic part
 * alone is under 48 KB (the launch failed before). */
static void check_smem_opt_in(void)
{
    const int words = 45 * 256;
    long long *d = NULL, got = -1;
    CK(cudaMalloc(&d, sizeof got));
    const cudaError_t load = gp__kernel_load<t_smem_static_and_dynamic>(words * 4);
    t_smem_static_and_dynamic<<<1, 256, words * 4>>>(d, words);
    const cudaError_t launch = cudaGetLastError();
    CK(cudaDeviceSynchronize());
    if (launch == cudaSuccess) CK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
    const long long want = 1023LL * 1024 / 2 + (long long)(words - 1) * words;
    EXPECT(load == cudaSuccess && launch == cudaSuccess && got == want,
           "kernel load: 4 KB static + 45 KB dynamic shared memory: load %s, launch %s, sum %lld (want %lld)",
           cudaGetErrorName(load), cudaGetErrorName(launch), got, want);
    CK(cudaFree(d));
}

/* A line after each step, so that a run that stops shows where. */
static void step_done(const char *what)
{
    printf("  done: %s\n", what);
    fflush(stdout);
}

extern "C" void test_status_gpu(void)
{
    gp_t_section("status memory: regions kept between calls, no clearing launch");
    if (!gp_t_have_gpu()) {
        gp_t_skip("status memory: needs a GPU");
        return;
    }
    check_smem_opt_in();
    uint64_t st = gp_t_state(0x57a7);
    const int small = gp_t_small();
    const int stress = getenv("GP_TEST_STRESS") != NULL; /* make stress: more rounds */
    /* grid-mode sizes: larger, then smaller (stale words of the larger call remain) */
    const size_t sizes[] = {(size_t)1 << 23, ((size_t)1 << 21) + 7, ((size_t)1 << 22) + 12345, (size_t)1 << 20};
    const int ncases = small ? 2 : 4;
    status_case cases[4];
    for (int i = 0; i < ncases; i++) case_make(&cases[i], sizes[i], &st);
    size_t most = 0;
    for (int i = 0; i < ncases; i++) most = cases[i].n > most ? cases[i].n : most;

    /* 1. one stream, many calls of mixed sizes, twice over */
    {
        int *d_scan = NULL, *d_sum = NULL;
        CK(cudaMalloc(&d_scan, most * sizeof(int)));
        CK(cudaMalloc(&d_sum, SUMS * sizeof(int)));
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        int ok = 1;
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < ncases; i++) ok &= case_run_check(&cases[i], d_scan, d_sum, s, "one stream");
        EXPECT(ok, "status: back-to-back calls of mixed sizes on one stream");
        step_done("back-to-back calls of mixed sizes on one stream");

        /* 2. a call that fails its argument check between good ones */
        ok = case_run_check(&cases[0], d_scan, d_sum, s, "before a bad call");
        EXPECT(gp_inclusive_scan_sum_i32(NULL, cases[0].d_in, cases[0].n, s) == cudaErrorInvalidValue,
               "status: a NULL output is cudaErrorInvalidValue");
        EXPECT(gp_reduce_sum_i32(d_sum, NULL, cases[0].n, s) == cudaErrorInvalidValue,
               "status: a NULL input is cudaErrorInvalidValue");
        ok &= case_run_check(&cases[ncases - 1], d_scan, d_sum, s, "after a bad call");
        EXPECT(ok, "status: calls before and after a failed argument check");
        step_done("calls before and after a failed argument check");

        /* 3. release while idle, then more calls (the regions are made again) */
        CK(cudaStreamSynchronize(s));
        int dev = 0;
        CK(cudaGetDevice(&dev));
        EXPECT(gp_release_device_state(dev) == cudaSuccess, "status: gp_release_device_state while idle");
        EXPECT(gp_release_device_state(dev) == cudaSuccess, "status: gp_release_device_state twice");
        EXPECT(gp_release_device_state(-1) == cudaErrorInvalidDevice, "status: a bad device is cudaErrorInvalidDevice");
        ok = 1;
        for (int i = 0; i < ncases; i++) ok &= case_run_check(&cases[i], d_scan, d_sum, s, "after release");
        EXPECT(ok, "status: calls after gp_release_device_state");
        step_done("calls after gp_release_device_state");

        /* 4. graphs: captured calls take graph-owned scratch, replayed back to back, with
         * eager calls on the same stream in between, and two instantiations at once */
        const status_case *c = &cases[1];
        int *d_g[2] = {NULL, NULL}, *d_gs[2] = {NULL, NULL};
        cudaGraphExec_t exec[2] = {NULL, NULL};
        cudaStream_t gs[2];
        for (int g = 0; g < 2; g++) {
            CK(cudaMalloc(&d_g[g], c->n * sizeof(int)));
            CK(cudaMalloc(&d_gs[g], SUMS * sizeof(int)));
            CK(cudaStreamCreateWithFlags(&gs[g], cudaStreamNonBlocking));
            cudaGraph_t graph;
            CK(cudaStreamBeginCapture(gs[g], cudaStreamCaptureModeGlobal));
            const cudaError_t e1 = gp_inclusive_scan_sum_i32(d_g[g], c->d_in, c->n, gs[g]);
            const cudaError_t e2 = case_reduces(c, d_gs[g], gs[g]);
            CK(cudaStreamEndCapture(gs[g], &graph));
            EXPECT(e1 == cudaSuccess && e2 == cudaSuccess, "status: calls under capture");
            CK(cudaGraphInstantiate(&exec[g], graph, 0));
            CK(cudaGraphDestroy(graph));
        }
        ok = 1;
        for (int r = 0; r < 4; r++) {
            for (int g = 0; g < 2; g++) {
                CK(cudaMemsetAsync(d_g[g], 0xA5, c->n * sizeof(int), gs[g]));
                CK(cudaMemsetAsync(d_gs[g], 0xA5, SUMS * sizeof(int), gs[g]));
                CK(cudaGraphLaunch(exec[g], gs[g]));
                CK(cudaGraphLaunch(exec[g], gs[g])); /* back to back */
            }
            ok &= case_run_check(&cases[0], d_scan, d_sum, gs[0], "eager between replays");
            for (int g = 0; g < 2; g++) {
                CK(cudaStreamSynchronize(gs[g]));
                std::vector<int> got(c->n);
                CK(cudaMemcpy(got.data(), d_g[g], c->n * sizeof(int), cudaMemcpyDeviceToHost));
                ok &= memcmp(got.data(), c->scan.data(), c->n * sizeof(int)) == 0 && case_sums_ok(c, d_gs[g], gs[g]);
            }
        }
        EXPECT(ok, "status: graphs replayed back to back, two at once, eager calls between");
        step_done("graphs replayed back to back, two at once, eager calls between");
        for (int g = 0; g < 2; g++) {
            CK(cudaGraphExecDestroy(exec[g]));
            CK(cudaStreamDestroy(gs[g]));
            CK(cudaFree(d_g[g]));
            CK(cudaFree(d_gs[g]));
        }

        /* 5. streams destroyed and re-created in a loop: a new stream never inherits a
         * region that the old one's work may still use */
        ok = 1;
        const int loops = small ? 8 : stress ? 960 : 96, ring = 8;
        int *d_ring[ring];
        for (int k = 0; k < ring; k++) CK(cudaMalloc(&d_ring[k], most * sizeof(int)));
        for (int r = 0; r < loops; r++) {
            cudaStream_t t;
            CK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
            const status_case *cc = &cases[r % ncases];
            ok &= gp_inclusive_scan_sum_i32(d_ring[r % ring], cc->d_in, cc->n, t) == cudaSuccess;
            CK(cudaStreamDestroy(t)); /* its work may still run */
            if (r % ring == ring - 1 || r == loops - 1) { /* check this round's outputs */
                CK(cudaDeviceSynchronize());
                for (int q = r - r % ring; q <= r; q++) {
                    const status_case *cq = &cases[q % ncases];
                    std::vector<int> got(cq->n);
                    CK(cudaMemcpy(got.data(), d_ring[q % ring], cq->n * sizeof(int), cudaMemcpyDeviceToHost));
                    ok &= memcmp(got.data(), cq->scan.data(), cq->n * sizeof(int)) == 0;
                }
            }
        }
        for (int k = 0; k < ring; k++) CK(cudaFree(d_ring[k]));
        ok &= case_run_check(&cases[0], d_scan, d_sum, s, "after the stream loop");
        EXPECT(ok, "status: %d streams created, used and destroyed in a loop", loops);
        step_done("streams created, used and destroyed in a loop");
        CK(cudaStreamDestroy(s));
        CK(cudaFree(d_scan));
        CK(cudaFree(d_sum));
    }

    /* 6. 16 host threads: each on its own stream, on 16 streams shared by all (a different
     * one each round), and on its per-thread default stream, mixed reduce and scan calls */
    {
        const int threads = small ? 4 : 16, rounds = small ? 2 : stress ? 64 : 6;
        cudaStream_t shared[16];
        for (int k = 0; k < 16; k++) CK(cudaStreamCreateWithFlags(&shared[k], cudaStreamNonBlocking));
        std::vector<int> good(threads, 1);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; t++)
            pool.emplace_back([&, t] {
                int *d_scan = NULL, *d_sum = NULL;
                if (cudaMalloc(&d_scan, most * sizeof(int)) != cudaSuccess ||
                    cudaMalloc(&d_sum, SUMS * sizeof(int)) != cudaSuccess) {
                    good[t] = 0;
                    return;
                }
                cudaStream_t own;
                if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) {
                    good[t] = 0;
                    return;
                }
                for (int r = 0; r < rounds; r++)
                    for (int k = 0; k < 3; k++) {
                        const cudaStream_t streams[3] = {own, shared[(t + r) % 16], cudaStreamPerThread};
                        good[t] &= case_run_check(&cases[(t + r + k) % ncases], d_scan, d_sum, streams[k], "threads");
                    }
                cudaStreamDestroy(own);
                cudaFree(d_scan);
                cudaFree(d_sum);
            });
        for (auto &th : pool) th.join();
        int ok = 1;
        for (int t = 0; t < threads; t++) ok &= good[t];
        EXPECT(ok, "status: %d host threads x %d rounds on private, 16 shared and per-thread default streams",
               threads, rounds);
        step_done("host threads on private, shared and per-thread default streams");
        for (int k = 0; k < 16; k++) CK(cudaStreamDestroy(shared[k]));
    }

    /* 7. a second device, where present */
    int devices = 0;
    CK(cudaGetDeviceCount(&devices));
    if (devices > 1) {
        int cur = 0;
        CK(cudaGetDevice(&cur));
        CK(cudaSetDevice(1));
        status_case c1;
        uint64_t st1 = gp_t_state(0x57a8);
        case_make(&c1, cases[0].n, &st1);
        int *d_scan = NULL, *d_sum = NULL;
        CK(cudaMalloc(&d_scan, c1.n * sizeof(int)));
        CK(cudaMalloc(&d_sum, SUMS * sizeof(int)));
        int ok = 1;
        for (int r = 0; r < 3; r++) ok &= case_run_check(&c1, d_scan, d_sum, 0, "device 1");
        EXPECT(ok, "status: calls on a second device");
        CK(cudaFree(d_scan));
        CK(cudaFree(d_sum));
        CK(cudaFree(c1.d_in));
        CK(gp_release_device_state(1));
        CK(cudaSetDevice(cur));
    } else {
        gp_t_skip("status: a second device (one GPU here)");
    }
    for (int i = 0; i < ncases; i++) CK(cudaFree(cases[i].d_in));
}
