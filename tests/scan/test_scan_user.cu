/* tests/scan/test_scan_user.cu -- GP_DEFINE_SCAN for users' types and non-commutative
 * operators, at device level (the warp and block levels: tests/warp, tests/block).
 *   mat2:  2x2 integer matrix product mod 2^32, 16 bytes (one element per 16-byte vector)
 *   aff:   composition of affine maps x -> a*x + b mod 2^32, 8 bytes (two status words)
 *   aff16: the same mod 2^16, packed in 4 bytes (one status word, 4 per vector)
 * Any slip in the order of combination changes the result. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../mat2.cuh"
#include "../scan_wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GP_DEFINE_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1})) /* beside a scan of the same name */

/* f then g: x -> g.a * (f.a * x + f.b) + g.b */
typedef struct { uint32_t a, b; } aff;
static __host__ __device__ aff aff_then(aff f, aff g)
{
    aff r = {g.a * f.a, g.a * f.b + g.b};
    return r;
}
#define AFF_THEN(f, g) aff_then((f), (g))
GP_DEFINE_SCAN(aff, aff, AFF_THEN, ((aff){1, 0}))

typedef struct { uint16_t a, b; } aff16;
static __host__ __device__ aff16 aff16_then(aff16 f, aff16 g)
{
    aff16 r = {(uint16_t)(g.a * f.a), (uint16_t)(g.a * f.b + g.b)};
    return r;
}
#define AFF16_THEN(f, g) aff16_then((f), (g))
GP_DEFINE_SCAN(aff16, aff16, AFF16_THEN, ((aff16){1, 0}))

static aff aff_random(uint64_t *st)
{
    const uint64_t r = gp_t_next(st);
    aff f = {(uint32_t)r | 1u, (uint32_t)(r >> 32)}; /* odd a: invertible maps keep information */
    return f;
}
static aff16 aff16_random(uint64_t *st)
{
    const uint64_t r = gp_t_next(st);
    aff16 f = {(uint16_t)(r | 1u), (uint16_t)(r >> 16)};
    return f;
}


/* ---- device level ---------------------------------------------------------------------- */

typedef cudaError_t (*user_scan)(void *o, const void *i, size_t n, cudaStream_t s);
SCAN_WRAPPERS(mat2, mat2)
SCAN_WRAPPERS(aff, aff)
SCAN_WRAPPERS(aff16, aff16)

/* One type: sizes, exclusive/inclusive, in place and out of place, byte offsets
 * (aligned, one element, and off every 16-byte boundary where the type allows). */
template <class T, class R, class F>
static void check_device_type(const char *name, user_scan ex, user_scan in, R random, F op, T id, size_t max_n)
{
    const size_t sizes[] = {1, 2, 31, 33, 1025, 8193, 65536, 65537, 300007, 1048573, (1u << 24) + 7};
    const size_t offsets[] = {0, sizeof(T), 4};
    uint64_t st = gp_t_state(31);
    T *h = (T *)malloc((max_n + 1) * sizeof(T)), *got = (T *)malloc((max_n + 1) * sizeof(T));
    char *d_in, *d_out;
    CUDA_CHK(cudaMalloc(&d_in, (max_n + 1) * sizeof(T) + 16));
    CUDA_CHK(cudaMalloc(&d_out, (max_n + 1) * sizeof(T) + 16));
    int cases = 0, fails = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        if (n > max_n) continue;
        for (size_t i = 0; i < n; i++) h[i] = random(&st);
        for (size_t o = 0; o < 3; o++)
            for (int inclusive = 0; inclusive <= 1; inclusive++)
                for (int in_place = 0; in_place <= 1; in_place++) {
                    if (n > (gp_t_small() ? 65537u : 1048573u) && (o != (size_t)inclusive || in_place != inclusive))
                        continue; /* the largest size of the run: two cases */
                    if (gp_t_small() >= 2 && o != (size_t)in_place) continue; /* racecheck: fewer placements */
                    T *out = (T *)(d_out + offsets[o]);
                    const T *x = in_place ? out : (const T *)(d_in + offsets[o]);
                    CUDA_CHK(cudaMemset(d_out, 0xA7, (max_n + 1) * sizeof(T) + 16));
                    CUDA_CHK(cudaMemcpy((void *)x, h, n * sizeof(T), cudaMemcpyHostToDevice));
                    CUDA_CHK((inclusive ? in : ex)(out, x, n, 0));
                    CUDA_CHK(cudaMemcpy(got, out, n * sizeof(T), cudaMemcpyDeviceToHost));
                    const size_t bad = first_wrong(h, got, n, inclusive, id, op);
                    EXPECT(bad == n, "gp_%s_scan_%s n=%zu byte offset %zu %s: first wrong element %zu",
                           inclusive ? "inclusive" : "exclusive", name, n, offsets[o], in_place ? "in place" : "out of place",
                           bad);
                    cases++;
                    fails += bad != n;
                }
    }
    printf("  %-6s %d cases, %d failed\n", name, cases, fails);
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_out));
    free(h);
    free(got);
}

/* A carry-in value on the device (gp_{ex,in}clusive_scan_init_<name> of a user instance):
 * the scan starts from init instead of the identity, in every mode (one block, cluster,
 * grid), exclusive and inclusive, out of place and in place, outputs poisoned first. */
static void check_carry_in(size_t max_n)
{
    const size_t sizes[] = {1, 33, 20000, 65537, 300007, (1u << 22) + 3};
    uint64_t st = gp_t_state(32);
    mat2 *h = (mat2 *)malloc(max_n * sizeof(mat2)), *got = (mat2 *)malloc(max_n * sizeof(mat2));
    mat2 *d_x, *d_y, *d_init;
    CUDA_CHK(cudaMalloc(&d_x, max_n * sizeof(mat2)));
    CUDA_CHK(cudaMalloc(&d_y, max_n * sizeof(mat2)));
    CUDA_CHK(cudaMalloc(&d_init, sizeof(mat2)));
    int cases = 0, fails = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const size_t n = sizes[k];
        if (n > max_n) continue;
        for (size_t i = 0; i < n; i++) h[i] = mat2_random(&st);
        const mat2 init = mat2_random(&st);
        CUDA_CHK(cudaMemcpy(d_x, h, n * sizeof(mat2), cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemcpy(d_init, &init, sizeof init, cudaMemcpyHostToDevice));
        for (int inclusive = 0; inclusive <= 1; inclusive++)
        for (int in_place = 0; in_place <= 1; in_place++) {
            CUDA_CHK(cudaMemset(d_y, 0xA7, n * sizeof(mat2)));
            if (in_place) CUDA_CHK(cudaMemcpy(d_y, d_x, n * sizeof(mat2), cudaMemcpyDeviceToDevice));
            CUDA_CHK((inclusive ? ini_mat2 : exi_mat2)(d_y, in_place ? d_y : d_x, n, d_init, 0));
            CUDA_CHK(cudaMemcpy(got, d_y, n * sizeof(mat2), cudaMemcpyDeviceToHost));
            mat2 acc = init;
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++) {
                const mat2 next = mat2_mul(acc, h[i]);
                const mat2 want = inclusive ? next : acc;
                if (memcmp(&want, &got[i], sizeof want) != 0) bad = i;
                acc = next;
            }
            EXPECT(bad == n, "gp_%s_scan_init_mat2 n=%zu %s: first wrong element %zu",
                   inclusive ? "inclusive" : "exclusive", n, in_place ? "in place" : "out of place", bad);
            cases++;
            fails += bad != n;
        }
    }
    printf("  mat2 from a carry-in: %d cases, %d failed\n", cases, fails);
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_y));
    CUDA_CHK(cudaFree(d_init));
    free(h);
    free(got);
}

extern "C" void test_scan_user(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("GP_DEFINE_SCAN: device scans of mat2, affine maps (8 and 4 bytes), carry-in");
        return;
    }
    gp_t_section("GP_DEFINE_SCAN: device level, non-commutative operators");
    const size_t max_n = gp_t_small() ? 300007 : (1u << 24) + 7;
    const aff AFF_ID = {1, 0};
    const aff16 AFF16_ID = {1, 0};
    check_device_type<mat2>("mat2", ex_mat2, in_mat2, mat2_random, mat2_mul, MAT2_ID, max_n);
    check_device_type<aff>("aff", ex_aff, in_aff, aff_random, aff_then, AFF_ID, max_n);
    check_device_type<aff16>("aff16", ex_aff16, in_aff16, aff16_random, aff16_then, AFF16_ID, max_n);
    check_carry_in(max_n);
}
