/* examples/coalescing.cu -- coalesced global-memory access, a classic lesson in two parts:
 * the offset copy, and array-of-structs against struct-of-arrays.
 *
 * 1. Offset copy. The classic offset-copy kernel, out[i] = in[i] with i shifted by
 *    `offset` floats, for offsets 0 to 32: a warp's 128 bytes straddle two 128-byte lines
 *    unless the offset is a multiple of 32. On a GTX 480 (peak 177 GB/s) it ran at 49 GB/s
 *    at offset 0 and 45 elsewhere. Since Fermi, L1/L2 serve 32-byte sectors, so a
 *    misaligned warp costs one extra sector (5 instead of 4), not a second transaction,
 *    and the neighbouring warp finds that sector in L2. Buffers of 256 MB each, well above
 *    the L2, so these are DRAM figures (the classic launch, 320 blocks of 128 threads, would
 *    sit in today's L2). The classic kernel, one float per thread, is limited on a GPU this wide
 *    by the bytes it keeps in flight (2048 threads x 4 bytes per SM, far below bandwidth
 *    x latency), not by coalescing; the "x4" columns run the same pattern with four floats
 *    per thread, nearer the peak, where the offset shows.
 *    An H200 (make run-examples): the classic kernel 1669 GB/s (35% of peak) at every
 *    offset; x4, about 4150 GB/s (86%) at offsets that are multiples of 8 floats and
 *    3850-3950 (80-82%) at the others: today the unit is the 32-byte sector, not the
 *    128-byte line, and missing it costs about 6%.
 * 2. AoS against SoA (Robert Strzodka's example): a kernel that uses one
 *    field of a 3-float struct reads the whole struct's sectors from an array of structs,
 *    only the field's from a struct of arrays; a kernel that uses all three fields reads
 *    the same bytes either way. An H200: one field, AoS 1.3x slower (it moves 16 bytes
 *    per element against 8, but the SoA kernel is itself held back by its loads in flight,
 *    at 51% of peak, so the gap is less than 2x); all fields, the same time.
 * Every result is compared with the host (bitwise); GB/s counts the bytes the kernel
 * needs (read + written), against the theoretical peak (memory clock x bus width x 2) and
 * the measured device-to-device cudaMemcpy rate.
 *
 * Run:  make build/examples/coalescing && build/examples/coalescing */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COPY_N ((size_t)1 << 26) /* floats copied per offset: 256 MB */
#define MAX_OFFSET 32
#define COPY_BLOCK 128           /* the classic block size */
#define AOS_N ((size_t)1 << 24)  /* structs: 192 MB as AoS */

/* The classic kernel. The launch covers exactly COPY_N threads; in and out hold
 * COPY_N + MAX_OFFSET floats, so no bound check is needed. */
__global__ void copy_offset(float *out, const float *in, int offset)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x + offset;
    out[idx] = in[idx];
}

/* The same access pattern, four floats per thread (a block covers 4 * blockDim.x
 * consecutive floats, each load instruction still warp-contiguous), all four loads issued
 * before the first store: four times the bytes in flight per thread. */
__global__ void copy_offset_x4(float *__restrict__ out, const float *__restrict__ in, int offset)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x + offset;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = in[idx + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < 4; k++) out[idx + k * blockDim.x] = v[k];
}

typedef struct {
    float a, b, c;
} point_t; /* Strzodka's NormalStruct: 12 bytes */

typedef struct {
    float *a, *b, *c;
} points_soa_t; /* Strzodka's SoAContainer */

__global__ void aos_one_field(float *out, const point_t *p, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * p[i].c;
}

__global__ void soa_one_field(float *out, points_soa_t p, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * p.c[i];
}

__global__ void aos_all_fields(float *out, const point_t *p, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p[i].a + p[i].b + p[i].c;
}

__global__ void soa_all_fields(float *out, points_soa_t p, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.a[i] + p.b[i] + p.c[i];
}

typedef struct {
    float *out, *in;
    int offset, x4;
} copy_args;

static void launch_copy(void *p)
{
    copy_args *a = (copy_args *)p;
    if (a->x4)
        copy_offset_x4<<<(unsigned)(COPY_N / (4 * COPY_BLOCK)), COPY_BLOCK>>>(a->out, a->in, a->offset);
    else
        copy_offset<<<(unsigned)(COPY_N / COPY_BLOCK), COPY_BLOCK>>>(a->out, a->in, a->offset);
    CUDA_CHK_LAUNCH();
}

typedef struct {
    int kind; /* 0..3: aos one, soa one, aos all, soa all */
    float *out;
    const point_t *aos;
    points_soa_t soa;
} layout_args;

static void launch_layout(void *p)
{
    layout_args *a = (layout_args *)p;
    unsigned blocks = (unsigned)((AOS_N + 255) / 256);
    if (a->kind == 0) aos_one_field<<<blocks, 256>>>(a->out, a->aos, AOS_N);
    if (a->kind == 1) soa_one_field<<<blocks, 256>>>(a->out, a->soa, AOS_N);
    if (a->kind == 2) aos_all_fields<<<blocks, 256>>>(a->out, a->aos, AOS_N);
    if (a->kind == 3) soa_all_fields<<<blocks, 256>>>(a->out, a->soa, AOS_N);
    CUDA_CHK_LAUNCH();
}

static double peak_gbps(void)
{
    int khz = 0, bits = 0;
    CUDA_CHK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0));
    CUDA_CHK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    return 2.0 * khz * 1e3 * (bits / 8) / 1e9; /* double data rate */
}

static int offset_copy(double peak, double copy_rate)
{
    const size_t len = COPY_N + MAX_OFFSET, bytes = len * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes), *d_in, *d_out;
    for (size_t i = 0; i < len; i++) h_in[i] = (float)i;
    CUDA_CHK(cudaMalloc(&d_in, bytes));
    CUDA_CHK(cudaMalloc(&d_out, bytes));
    CUDA_CHK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    int bad = 0;
    double gbps0[2] = {0, 0};
    printf("Offset copy: %zu floats per launch, %d threads per block; the classic kernel (one float per "
           "thread) and the same with four floats per thread\n\n"
           "| offset | GB/s | %% of peak | %% of offset 0 | GB/s, x4 | %% of peak, x4 | %% of offset 0, x4 | check "
           "|\n|---|---|---|---|---|---|---|---|\n",
           COPY_N, COPY_BLOCK);
    for (int offset = 0; offset <= MAX_OFFSET; offset++) {
        int ok = 1;
        printf("| %d ", offset);
        for (int x4 = 0; x4 < 2; x4++) {
            copy_args a = {d_out, d_in, offset, x4};
            CUDA_CHK(cudaMemset(d_out, 0xff, bytes)); /* poison */
            launch_copy(&a);
            CUDA_CHK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
            ok &= memcmp(h_out + offset, h_in + offset, COPY_N * sizeof(float)) == 0;
            float ms = gp_bench_median_ms(launch_copy, &a);
            double gbps = gp_bench_gbps(2.0 * COPY_N * sizeof(float), ms);
            if (offset == 0) gbps0[x4] = gbps;
            printf("| %.0f | %.1f | %.1f ", gbps, 100 * gbps / peak, 100 * gbps / gbps0[x4]);
        }
        printf("| %s |\n", ok ? "ok" : "MISMATCH");
        bad += !ok;
    }
    printf("(theoretical peak %.0f GB/s; cudaMemcpy device to device %.0f GB/s)\n\n", peak, copy_rate);
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return bad;
}

static int aos_soa(double peak)
{
    const size_t fbytes = AOS_N * sizeof(float);
    point_t *h_aos = (point_t *)malloc(AOS_N * sizeof(point_t)), *d_aos;
    float *h_soa = (float *)malloc(3 * fbytes), *h_out = (float *)malloc(fbytes), *d_soa, *d_out;
    for (size_t i = 0; i < AOS_N; i++) {
        point_t p = {(float)(i % 1000), (float)(i % 7) * 0.5f, (float)(i % 13) - 6.0f};
        h_aos[i] = p;
        h_soa[i] = p.a;
        h_soa[AOS_N + i] = p.b;
        h_soa[2 * AOS_N + i] = p.c;
    }
    CUDA_CHK(cudaMalloc(&d_aos, AOS_N * sizeof(point_t)));
    CUDA_CHK(cudaMalloc(&d_soa, 3 * fbytes));
    CUDA_CHK(cudaMalloc(&d_out, fbytes));
    CUDA_CHK(cudaMemcpy(d_aos, h_aos, AOS_N * sizeof(point_t), cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_soa, h_soa, 3 * fbytes, cudaMemcpyHostToDevice));
    points_soa_t soa = {d_soa, d_soa + AOS_N, d_soa + 2 * AOS_N};

    static const char *names[4] = {"AoS, one field (p[i].c)", "SoA, one field (p.c[i])",
                                   "AoS, all fields", "SoA, all fields"};
    static const int fields[4] = {1, 1, 3, 3};
    int bad = 0;
    float ms_of[4];
    printf("Array of structs against struct of arrays: %zu points of 3 floats\n\n"
           "| access | time (us) | GB/s needed | %% of peak | vs SoA | check |\n|---|---|---|---|---|---|\n",
           AOS_N);
    for (int k = 0; k < 4; k++) {
        layout_args a = {k, d_out, d_aos, soa};
        CUDA_CHK(cudaMemset(d_out, 0xff, fbytes));
        launch_layout(&a);
        CUDA_CHK(cudaMemcpy(h_out, d_out, fbytes, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (size_t i = 0; i < AOS_N; i++) {
            const point_t *p = &h_aos[i];
            float want = fields[k] == 1 ? 2.0f * p->c : p->a + p->b + p->c;
            wrong += memcmp(&h_out[i], &want, sizeof want) != 0;
        }
        ms_of[k] = gp_bench_median_ms(launch_layout, &a);
        double gbps = gp_bench_gbps((double)(fields[k] + 1) * fbytes, ms_of[k]);
        char vs[32] = "";
        if (k % 2 == 1) snprintf(vs, sizeof vs, "AoS %.2fx slower", ms_of[k - 1] / ms_of[k]);
        printf("| %s | %.1f | %.0f | %.1f | %s | %s |\n", names[k], ms_of[k] * 1e3, gbps, 100 * gbps / peak, vs,
               wrong ? "MISMATCH" : "ok");
        bad += wrong != 0;
    }
    CUDA_CHK(cudaFree(d_aos));
    CUDA_CHK(cudaFree(d_soa));
    CUDA_CHK(cudaFree(d_out));
    free(h_aos);
    free(h_soa);
    free(h_out);
    return bad;
}

int main(void)
{
    need_gpu(__FILE__);
    cudaDeviceProp prop;
    CUDA_CHK(cudaGetDeviceProperties(&prop, 0));
    double peak = peak_gbps();
    void *a, *b;
    const size_t copy_bytes = (size_t)1 << 30;
    CUDA_CHK(cudaMalloc(&a, copy_bytes));
    CUDA_CHK(cudaMalloc(&b, copy_bytes));
    double copy_rate = gp_bench_gbps(2.0 * copy_bytes, gp_bench_copy_ms(b, a, copy_bytes));
    CUDA_CHK(cudaFree(a));
    CUDA_CHK(cudaFree(b));
    printf("%s: theoretical peak %.0f GB/s, device-to-device copy %.0f GB/s\n\n", prop.name, peak, copy_rate);

    int bad = offset_copy(peak, copy_rate);
    bad += aos_soa(peak);
    return bad != 0;
}
