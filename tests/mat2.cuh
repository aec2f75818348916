/* tests/mat2.cuh -- the non-commutative operator the reduce and scan tests share: 2x2
 * integer matrices under the product, mod 2^32 (16 bytes). Any slip in the order of
 * combination changes the result. */
#ifndef GPUPRIMS_TESTS_MAT2_CUH
#define GPUPRIMS_TESTS_MAT2_CUH

#include <stdint.h>
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

#endif /* GPUPRIMS_TESTS_MAT2_CUH */
