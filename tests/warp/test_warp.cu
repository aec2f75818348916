/* tests/warp/test_warp.cu -- the warp-level primitives (detail/warp/warp.cuh) of users'
 * instances: reduce (the 2x2 matrix product, argmax with ties, the shared-memory last-warp
 * unroll) and inclusive/exclusive scans, in lane order for non-commutative operators.
 *   mat2:   2x2 integer matrix product mod 2^32 (not commutative at all), 16 bytes.
 *   argmax: {value, index}, ties to the lowest index (not commutative on ties). */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../mat2.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float v; int i; } pair_t;
#define PAIR_MAX(a, b) ((b).v > (a).v ? (b) : (a))
GP_DEFINE_REDUCE(argmax, pair_t, PAIR_MAX, ((pair_t){-INFINITY, -1}))

GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1})) /* beside a reduce of the same name */

__global__ void warp_reduce_mat2(const mat2 *x, mat2 *out) { out[threadIdx.x] = gp_warp_reduce_mat2(x[threadIdx.x]); }
__global__ void warp_reduce_smem_mat2(const mat2 *x, mat2 *out)
{
    __shared__ mat2 s[64];
    s[threadIdx.x] = x[threadIdx.x];
    s[threadIdx.x + 32] = x[threadIdx.x + 32];
    __syncwarp();
    mat2 v = gp_warp_reduce_smem_mat2(s);
    if (threadIdx.x == 0) { out[0] = v; out[1] = s[0]; }
}
__global__ void warp_reduce_argmax(const pair_t *x, pair_t *out) { out[threadIdx.x] = gp_warp_reduce_argmax(x[threadIdx.x]); }

__global__ void warp_scans_mat2(const mat2 *x, mat2 *out)
{
    const unsigned l = threadIdx.x;
    mat2 total;
    out[l] = gp_warp_inclusive_scan_mat2(x[l]);
    out[32 + l] = gp_warp_exclusive_scan_mat2(x[l], &total);
    out[64 + l] = total;
}

static void check_warp_reduce(void)
{
    mat2 *h, *got, *d_x, *d_out;
    mat2_alloc(10, 4 * 1024, &h, &got, &d_x, &d_out);
    uint64_t st = gp_t_state(11);
    warp_reduce_mat2<<<1, 32>>>(d_x, d_out);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(got, d_out, 32 * sizeof(mat2), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int l = 0; l < 32; l++) ok &= mat2_eq(got[l], mat2_ref(h, 32));
    EXPECT(ok, "gp_warp_reduce_mat2: every lane holds the ordered product");

    warp_reduce_smem_mat2<<<1, 32>>>(d_x, d_out);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(got, d_out, 2 * sizeof(mat2), cudaMemcpyDeviceToHost));
    EXPECT(mat2_eq(got[0], mat2_ref(h, 64)) && mat2_eq(got[1], got[0]),
           "gp_warp_reduce_smem_mat2 (last-warp unroll): lane 0 and s[0] hold the ordered product of 64");

    pair_t hp[32], gpair[32];
    for (int l = 0; l < 32; l++) { hp[l].v = (float)(gp_t_next(&st) % 4); hp[l].i = l; }
    pair_t *d_p;
    CUDA_CHK(cudaMalloc(&d_p, 2 * sizeof hp));
    CUDA_CHK(cudaMemcpy(d_p, hp, sizeof hp, cudaMemcpyHostToDevice));
    warp_reduce_argmax<<<1, 32>>>(d_p, d_p + 32);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(gpair, d_p + 32, sizeof gpair, cudaMemcpyDeviceToHost));
    int best = 0;
    for (int l = 1; l < 32; l++) if (hp[l].v > hp[best].v) best = l;
    ok = 1;
    for (int l = 0; l < 32; l++) ok &= gpair[l].i == best && gpair[l].v == hp[best].v;
    EXPECT(ok, "gp_warp_reduce_argmax: every lane holds the first maximum (lane %d)", best);
    CUDA_CHK(cudaFree(d_p));
    mat2_free(h, got, d_x, d_out);
}

static void check_warp_scan(void)
{
    mat2 *h, *got, *d_x, *d_out;
    mat2_alloc(30, 96, &h, &got, &d_x, &d_out);
    CUDA_CHK(cudaMemset(d_out, 0xA7, 96 * sizeof(mat2)));
    warp_scans_mat2<<<1, 32>>>(d_x, d_out);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(got, d_out, 96 * sizeof(mat2), cudaMemcpyDeviceToHost));
    EXPECT(first_wrong(h, got, 32, 1, MAT2_ID, mat2_mul) == 32, "gp_warp_inclusive_scan_mat2: ordered prefixes");
    EXPECT(first_wrong(h, got + 32, 32, 0, MAT2_ID, mat2_mul) == 32, "gp_warp_exclusive_scan_mat2: ordered prefixes");
    mat2 total = MAT2_ID;
    for (int l = 0; l < 32; l++) total = mat2_mul(total, h[l]);
    int ok = 1;
    for (int l = 0; l < 32; l++) ok &= memcmp(&got[64 + l], &total, sizeof total) == 0;
    EXPECT(ok, "gp_warp_exclusive_scan_mat2: every lane gets the total");
    mat2_free(h, got, d_x, d_out);
}

extern "C" void test_warp_reduce(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("warp reduce: mat2, argmax, last-warp unroll");
        return;
    }
    gp_t_section("warp reduce: users' instances (mat2, argmax), last-warp unroll");
    check_warp_reduce();
}

extern "C" void test_warp_scan(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("warp scans of 2x2 matrix products");
        return;
    }
    gp_t_section("warp scans (2x2 matrix product)");
    check_warp_scan();
}
