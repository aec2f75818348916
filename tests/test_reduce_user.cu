/* tests/test_reduce_user.cu -- GP_DEFINE_REDUCE for a user's type and operator, and the
 * warp- and block-level primitives.
 *   argmax: {value, index}, ties to the lowest index (not commutative on ties).
 *   mat2:   2x2 integer matrix product mod 2^32 (not commutative at all), 16 bytes. */
#include "../gpuprims.cuh"
#include "harness.h"
#include "user_pair.h"
#include "mat2.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float v; int i; } pair_t;
#define PAIR_MAX(a, b) ((b).v > (a).v ? (b) : (a))
GP_DEFINE_REDUCE(argmax, pair_t, PAIR_MAX, ((pair_t){-INFINITY, -1}))

GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))

static mat2 mat2_ref(const mat2 *x, size_t n)
{
    mat2 acc = MAT2_ID;
    for (size_t i = 0; i < n; i++) acc = mat2_mul(acc, x[i]);
    return acc;
}

/* ---- warp and block level ------------------------------------------------------------ */

/* Each thread of each block reduces its own element; every thread writes what it got. */
__global__ void block_reduce_mat2(const mat2 *x, mat2 *out)
{
    const unsigned t = gp__thread_rank(), b = blockIdx.x * gp__block_size();
    const mat2 first = gp_block_reduce_mat2(x[b + t]);
    const mat2 again = gp_block_reduce_mat2(x[b + t]); /* back to back: no barrier of ours between */
    const mat2 bad = {0, 0, 0, 0};
    const bool same = first.a == again.a && first.b == again.b && first.c == again.c && first.d == again.d;
    out[b + t] = same ? first : bad;
}
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
__global__ void block_reduce_sum_u32(const uint32_t *x, uint32_t *out)
{
    out[threadIdx.x] = gp_block_reduce_sum_u32(x[threadIdx.x]);
}
__global__ void warp_reduce_argmax(const pair_t *x, pair_t *out) { out[threadIdx.x] = gp_warp_reduce_argmax(x[threadIdx.x]); }

static void check_warp_block(void)
{
    uint64_t st = gp_t_state(10);
    const size_t cap = 4 * 1024;
    mat2 *h = (mat2 *)malloc(cap * sizeof(mat2)), *got = (mat2 *)malloc(cap * sizeof(mat2));
    mat2 *d_x, *d_out;
    CUDA_CHK(cudaMalloc(&d_x, cap * sizeof(mat2)));
    CUDA_CHK(cudaMalloc(&d_out, cap * sizeof(mat2)));
    for (size_t i = 0; i < cap; i++) h[i] = mat2_random(&st);
    CUDA_CHK(cudaMemcpy(d_x, h, cap * sizeof(mat2), cudaMemcpyHostToDevice));

    /* block shapes: multiples of 32 up to 1024, in 1, 2 and 3 dimensions; 2 blocks each */
    const dim3 shapes[] = {dim3(32), dim3(64), dim3(96), dim3(256), dim3(544), dim3(1024), dim3(32, 8), dim3(16, 4, 2),
                           dim3(8, 4, 32)};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const unsigned bs = shapes[k].x * shapes[k].y * shapes[k].z;
        CUDA_CHK(cudaMemset(d_out, 0xA7, 2 * bs * sizeof(mat2)));
        block_reduce_mat2<<<2, shapes[k]>>>(d_x, d_out);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(got, d_out, 2 * bs * sizeof(mat2), cudaMemcpyDeviceToHost));
        int ok = 1;
        for (unsigned b = 0; b < 2; b++) {
            const mat2 want = mat2_ref(h + b * bs, bs);
            for (unsigned t = 0; t < bs; t++) ok &= mat2_eq(got[b * bs + t], want);
        }
        EXPECT(ok, "gp_block_reduce_mat2, block (%u,%u,%u): every thread holds the ordered product", shapes[k].x,
               shapes[k].y, shapes[k].z);
    }
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

    uint32_t hu[1024], gu[1024], want = 0;
    for (int i = 0; i < 1024; i++) want += hu[i] = (uint32_t)gp_t_next(&st);
    uint32_t *d_u;
    CUDA_CHK(cudaMalloc(&d_u, 2 * sizeof hu));
    CUDA_CHK(cudaMemcpy(d_u, hu, sizeof hu, cudaMemcpyHostToDevice));
    block_reduce_sum_u32<<<1, 1024>>>(d_u, d_u + 1024);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(gu, d_u + 1024, sizeof gu, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int i = 0; i < 1024; i++) ok &= gu[i] == want;
    EXPECT(ok, "gp_block_reduce_sum_u32 (a default instance), 1024 threads");
    CUDA_CHK(cudaFree(d_u));

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

    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_out));
    free(h);
    free(got);
}

/* ---- device level -------------------------------------------------------------------- */

static void check_device(void)
{
    const size_t sizes[] = {1, 2, 31, 33, 1025, 65536, 65537, 1048573, (1u << 24) + 7};
    const size_t max_n = gp_t_small() ? 1048573 : (1u << 24) + 7;
    uint64_t st = gp_t_state(11);
    mat2 *h = (mat2 *)malloc((max_n + 1) * sizeof(mat2));
    pair_t *hp = (pair_t *)malloc((max_n + 1) * sizeof(pair_t));
    char *d_base;
    CUDA_CHK(cudaMalloc(&d_base, (max_n + 1) * sizeof(mat2) + 16));
    mat2 *d_out;
    CUDA_CHK(cudaMalloc(&d_out, 2 * sizeof(mat2)));
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        if (n > max_n) continue;
        for (size_t i = 0; i < n; i++) h[i] = mat2_random(&st);
        const mat2 want = mat2_ref(h, n);
        /* byte offsets 0, 16 (one element) and 4 (off every 16-byte boundary) */
        const size_t offsets[] = {0, 16, 4};
        for (size_t o = 0; o < 3; o++) {
            mat2 got;
            CUDA_CHK(cudaMemcpy(d_base + offsets[o], h, n * sizeof(mat2), cudaMemcpyHostToDevice));
            CUDA_CHK(cudaMemset(d_out, 0xA7, 2 * sizeof(mat2)));
            CUDA_CHK(gp_reduce_mat2(d_out, (const mat2 *)(d_base + offsets[o]), n, 0));
            CUDA_CHK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            EXPECT(mat2_eq(got, want), "gp_reduce_mat2 n=%zu byte offset %zu: ordered product", n, offsets[o]);
        }
        /* argmax over few distinct values: many ties, the first must win */
        size_t best = 0;
        for (size_t i = 0; i < n; i++) {
            hp[i].v = (float)(gp_t_next(&st) % 16);
            hp[i].i = (int)i;
            if (hp[i].v > hp[best].v) best = i;
        }
        for (size_t o = 0; o <= 1; o++) {
            pair_t got;
            CUDA_CHK(cudaMemcpy(d_base + o * sizeof(pair_t), hp, n * sizeof(pair_t), cudaMemcpyHostToDevice));
            CUDA_CHK(cudaMemset(d_out, 0xA7, sizeof(pair_t)));
            CUDA_CHK(gp_reduce_argmax((pair_t *)d_out, (const pair_t *)(d_base + o * sizeof(pair_t)), n, 0));
            CUDA_CHK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            EXPECT(got.i == (int)best && got.v == hp[best].v, "gp_reduce_argmax n=%zu offset %zu: got (%g, %d) want (%g, %zu)",
                   n, o, got.v, got.i, hp[best].v, best);
        }
    }
    CUDA_CHK(cudaFree(d_base));
    CUDA_CHK(cudaFree(d_out));
    free(h);
    free(hp);
}

/* A user's instance compiled in another translation unit (tests/user_pair.cu, with
 * GP_DEFINE_*_EXTERN) and called here through its GP_DECLARE_* header: ties keep the
 * lower index, so the reduce and the last element of the inclusive scan are the first
 * maximum. */
static void check_extern_instance(void)
{
    const size_t n = 1000003;
    gp_t_pair *h = (gp_t_pair *)malloc(n * sizeof *h), *d, got, want = {-INFINITY, -1};
    uint64_t st = gp_t_state(77);
    for (size_t i = 0; i < n; i++) {
        h[i].v = (float)(gp_t_next(&st) % 1000); /* many ties */
        h[i].i = (int32_t)i;
        if (h[i].v > want.v) want = h[i];
    }
    CUDA_CHK(cudaMalloc(&d, (n + 1) * sizeof *d));
    CUDA_CHK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d + n, 0xA7, sizeof *d));
    CUDA_CHK(gp_reduce_argmax_pair(d + n, d, n, 0));
    CUDA_CHK(cudaMemcpy(&got, d + n, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got.v == want.v && got.i == want.i, "extern argmax_pair reduce: (%g, %d) want (%g, %d)", got.v, got.i,
           want.v, want.i);
    CUDA_CHK(gp_inclusive_scan_argmax_pair(d, d, n, 0));
    CUDA_CHK(cudaMemcpy(&got, d + n - 1, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got.v == want.v && got.i == want.i, "extern argmax_pair inclusive scan, last: (%g, %d) want (%g, %d)",
           got.v, got.i, want.v, want.i);
    CUDA_CHK(cudaFree(d));
    free(h);
}

extern "C" void test_reduce_user(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("GP_DEFINE_REDUCE: warp and block level (mat2, argmax, sum_u32)");
        gp_t_skip("GP_DEFINE_REDUCE: device level (mat2 product, argmax with ties)");
        gp_t_skip("GP_DEFINE_*_EXTERN: a user's instance from another translation unit");
        return;
    }
    gp_t_section("user instances: warp and block level");
    check_warp_block();
    gp_t_section("user instances: device level (non-commutative)");
    check_device();
    gp_t_section("user instances: GP_DEFINE_*_EXTERN in one file, GP_DECLARE_* in another");
    check_extern_instance();
}
