/* tests/reduce/test_reduce_user.cu -- GP_DEFINE_REDUCE for a user's type and operator, at
 * device level (the warp and block levels: tests/warp, tests/block).
 *   argmax: {value, index}, ties to the lowest index (not commutative on ties).
 *   mat2:   2x2 integer matrix product mod 2^32 (not commutative at all), 16 bytes. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../user_pair.h"
#include "../mat2.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float v; int i; } pair_t;
#define PAIR_MAX(a, b) ((b).v > (a).v ? (b) : (a))
GP_DEFINE_REDUCE(argmax, pair_t, PAIR_MAX, ((pair_t){-INFINITY, -1}))

GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))


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
        gp_t_skip("GP_DEFINE_REDUCE: device level (mat2 product, argmax with ties)");
        gp_t_skip("GP_DEFINE_*_EXTERN: a user's instance from another translation unit");
        return;
    }
    gp_t_section("user instances: device level (non-commutative)");
    check_device();
    gp_t_section("user instances: GP_DEFINE_*_EXTERN in one file, GP_DECLARE_* in another");
    check_extern_instance();
}
