/* tests/mat2.cuh -- the non-commutative operator the reduce and scan tests share: 2x2
 * integer matrices under the product, mod 2^32 (16 bytes). Any slip in the order of
 * combination changes the result. */
#ifndef GPUPRIMS_TESTS_MAT2_CUH
#define GPUPRIMS_TESTS_MAT2_CUH

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

typedef struct { uint32_t a, b, c, d; } mat2; /* [[a b] [c d]] */
static __host__ __device__ mat2 mat2_mul(mat2 x, mat2 y)
{
    mat2 r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    return r;
}
#define MAT2_MUL(x, y) mat2_mul((x), (y))
static const mat2 MAT2_ID = {1, 0, 0, 1};
static inline int mat2_eq(mat2 x, mat2 y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

static inline mat2 mat2_random(uint64_t *st)
{
    const uint64_t r = gp_t_next(st), s = gp_t_next(st);
    mat2 m = {(uint32_t)r, (uint32_t)(r >> 32), (uint32_t)s, (uint32_t)(s >> 32)};
    return m;
}

/* The ordered product x[0] x[1] ... x[n-1]. */
static inline mat2 mat2_ref(const mat2 *x, size_t n)
{
    mat2 acc = MAT2_ID;
    for (size_t i = 0; i < n; i++) acc = mat2_mul(acc, x[i]);
    return acc;
}

/* Sequential scan of x (exclusive or inclusive) with any T and operator, compared with
 * got; returns the first wrong index, or n if all match. */
template <class T, class F>
static size_t first_wrong(const T *x, const T *got, size_t n, int inclusive, T id, F op)
{
    T acc = id;
    for (size_t i = 0; i < n; i++) {
        const T next = op(acc, x[i]);
        const T want = inclusive ? next : acc;
        if (memcmp(&want, &got[i], sizeof(T)) != 0) return i;
        acc = next;
    }
    return n;
}

/* The warp and block checks' buffers: cap random matrices (seed) on the host (*h) and the
 * device (*d_x), and cap of output on each (*got, *d_out); mat2_free releases them. */
static inline void mat2_alloc(uint64_t seed, size_t cap, mat2 **h, mat2 **got, mat2 **d_x, mat2 **d_out)
{
    uint64_t st = gp_t_state(seed);
    *h = (mat2 *)malloc(cap * sizeof(mat2));
    *got = (mat2 *)malloc(cap * sizeof(mat2));
    CUDA_CHK(cudaMalloc(d_x, cap * sizeof(mat2)));
    CUDA_CHK(cudaMalloc(d_out, cap * sizeof(mat2)));
    for (size_t i = 0; i < cap; i++) (*h)[i] = mat2_random(&st);
    CUDA_CHK(cudaMemcpy(*d_x, *h, cap * sizeof(mat2), cudaMemcpyHostToDevice));
}
static inline void mat2_free(mat2 *h, mat2 *got, mat2 *d_x, mat2 *d_out)
{
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_out));
    free(h);
    free(got);
}

#endif /* GPUPRIMS_TESTS_MAT2_CUH */
