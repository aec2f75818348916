/* bench/transpose/probes/transpose_order.cu -- a one-off probe, not part of `make bench`: where do the
 * padded transpose and the simple copy of Ruetsch & Micikevicius ("Optimizing Matrix
 * Transpose in CUDA", 2009) lose to cudaMemcpy on an HBM3e GPU?
 *
 * 8192 x 8192 floats (256 MB each way, DRAM), 32 x 32 tiles, 32 x 8 threads, "loop over
 * kernel" (100 launches per measurement, median of 15). Each variant is checked bit for
 * bit against a host transpose (or the input, for the copies) before it is timed.
 *   - K tiles per block, stacked down the input: each block writes 32*K contiguous floats
 *     per output row instead of 32.
 *   - COL: consecutive block ids walk down the input's tile columns, i.e. along the
 *     output's rows ("row order", the paper's, walks along the input's rows, so the
 *     blocks running together write one column band of the output, 32 rows each).
 *   - The paper's simple copy has pointers that may alias, so every load waits behind the
 *     previous store; with __restrict__ the four loads of a thread are in flight together.
 *
 * Build and run (on the GPU machine):
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/transpose/probes/transpose_order.cu -o probe && ./probe
 * Result on the H200 (2026-11-21), % of cudaMemcpy (4168 GB/s): row order K=1 87.0,
 * column order K=1 93.9, K=2 row order 92.2, K=4 row order 91.7, K=2 column order 94.7,
 * K=4 column order 93.6; simple copy 73.9, simple copy with __restrict__ 98.6 (two runs
 * agreed within 0.1 point). */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static const int N = 8192;
static const int REPS = 100, SAMPLES = 15;

template <int K, bool COL>
__global__ void tp(float *o, const float *in, int n)
{
    __shared__ float tile[K][32][33];
    int bx = COL ? blockIdx.y : blockIdx.x, by = COL ? blockIdx.x : blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int k = 0; k < K; k++)
        for (int i = 0; i < 32; i += 8)
            tile[k][ty + i][tx] = in[(size_t)((by * K + k) * 32 + ty + i) * n + bx * 32 + tx];
    __syncthreads();
    for (int i = 0; i < 32; i += 8)
        for (int k = 0; k < K; k++)
            o[(size_t)(bx * 32 + ty + i) * n + (by * K + k) * 32 + tx] = tile[k][tx][ty + i];
}

__global__ void copy_alias(float *o, const float *in, int n)
{
    int idx = (blockIdx.y * 32 + threadIdx.y) * n + blockIdx.x * 32 + threadIdx.x;
    for (int i = 0; i < 32; i += 8) o[idx + i * n] = in[idx + i * n];
}

__global__ void copy_restrict(float *__restrict__ o, const float *__restrict__ in, int n)
{
    int idx = (blockIdx.y * 32 + threadIdx.y) * n + blockIdx.x * 32 + threadIdx.x;
    for (int i = 0; i < 32; i += 8) o[idx + i * n] = in[idx + i * n];
}

typedef void (*kfn)(float *, const float *, int);
struct variant { const char *name; kfn f; int k; bool col, transpose; };

/* Median milliseconds of one pass: `launch` issues REPS passes. */
template <typename F> static float median_pass_ms(F launch)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    launch(); /* warm-up */
    std::vector<float> t;
    for (int s = 0; s < SAMPLES; s++) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms / REPS);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[SAMPLES / 2];
}

int main()
{
    const variant v[] = {
        {"padded, row order (K=1)", tp<1, false>, 1, false, true},
        {"padded, column order (K=1)", tp<1, true>, 1, true, true},
        {"K=2 tiles per block, row order", tp<2, false>, 2, false, true},
        {"K=4 tiles per block, row order", tp<4, false>, 4, false, true},
        {"K=2, column order", tp<2, true>, 2, true, true},
        {"K=4, column order", tp<4, true>, 4, true, true},
        {"simple copy (as in the paper: may alias)", copy_alias, 1, false, false},
        {"simple copy, __restrict__", copy_restrict, 1, false, false},
    };
    const size_t elems = (size_t)N * N, bytes = elems * sizeof(float);
    float *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    std::vector<float> h(elems), ref(elems), got(elems);
    for (size_t i = 0; i < elems; i++) h[i] = (float)(i * 2654435761u % 16777216u);
    for (size_t r = 0; r < (size_t)N; r++)
        for (size_t c = 0; c < (size_t)N; c++) ref[c * N + r] = h[r * N + c];
    CK(cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice));

    float copy_ms = median_pass_ms([&] {
        for (int r = 0; r < REPS; r++) CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    });
    printf("cudaMemcpy: %.1f GB/s\n", 2.0 * bytes / copy_ms / 1e6);
    for (const variant &x : v) {
        dim3 thr(32, 8), grid = x.col ? dim3(N / 32 / x.k, N / 32) : dim3(N / 32, N / 32 / x.k);
        CK(cudaMemset(b, 0xFF, bytes));
        x.f<<<grid, thr>>>(b, a, N);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), b, bytes, cudaMemcpyDeviceToHost));
        if (memcmp(got.data(), x.transpose ? ref.data() : h.data(), bytes)) {
            printf("MISMATCH: %s\n", x.name);
            return 1;
        }
        float ms = median_pass_ms([&] {
            for (int r = 0; r < REPS; r++) x.f<<<grid, thr>>>(b, a, N);
        });
        printf("%-36s %7.1f GB/s  %5.1f%% of memcpy\n", x.name, 2.0 * bytes / ms / 1e6,
               100.0 * copy_ms / ms);
    }
    return 0;
}
