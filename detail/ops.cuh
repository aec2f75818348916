/* detail/ops.cuh -- operator and identity macros for the default instances, and the
 * small struct that carries a user's OP and IDENTITY into the generic device code.
 * Level 0: needs only <stdint.h> and <math.h>.
 *
 * An operator is a function-like macro OP(a, b) that must be associative; it need not be
 * commutative: everything in gpuprims combines in index order, `a` before `b`.
 * GP__DEFINE_OP evaluates OP on two plain locals, so an OP that names an argument twice
 * never repeats a load or a shuffle. */
#ifndef GPUPRIMS_DETAIL_OPS_CUH
#define GPUPRIMS_DETAIL_OPS_CUH

#include <stdint.h>
#include <math.h>

#define GP_OP_SUM(a, b) ((a) + (b))
/* Ties keep `a`, the earlier element: min and max are then stable (first of equals). */
#define GP_OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define GP_OP_MAX(a, b) ((a) < (b) ? (b) : (a))

/* Identities per type suffix: GP_ID_<op>_<suffix>. */
#define GP_ID_SUM_i32 ((int32_t)0)
#define GP_ID_SUM_u32 ((uint32_t)0)
#define GP_ID_SUM_i64 ((int64_t)0)
#define GP_ID_SUM_u64 ((uint64_t)0)
#define GP_ID_SUM_f32 (0.0f)
#define GP_ID_SUM_f64 (0.0)
#define GP_ID_MIN_i32 INT32_MAX
#define GP_ID_MIN_u32 UINT32_MAX
#define GP_ID_MIN_i64 INT64_MAX
#define GP_ID_MIN_u64 UINT64_MAX
#define GP_ID_MIN_f32 ((float)INFINITY)
#define GP_ID_MIN_f64 ((double)INFINITY)
#define GP_ID_MAX_i32 INT32_MIN
#define GP_ID_MAX_u32 ((uint32_t)0)
#define GP_ID_MAX_i64 INT64_MIN
#define GP_ID_MAX_u64 ((uint64_t)0)
#define GP_ID_MAX_f32 (-(float)INFINITY)
#define GP_ID_MAX_f64 (-(double)INFINITY)

/* A 16-byte element (four 32-bit words, 16-byte aligned): the default instance for
 * 16-byte data (float4, double2, complex double, ...) in type-agnostic primitives such as
 * transpose. Cast your pointers to it. */
#ifdef __cplusplus
#define GP__ALIGNAS(n) alignas(n)
#else
#define GP__ALIGNAS(n) _Alignas(n)
#endif
typedef struct gp_v16 {
    GP__ALIGNAS(16) uint32_t w[4];
} gp_v16_t;

#ifdef __CUDACC__
/* One struct per instance name: the generic code in warp.cuh, block_reduce.cuh and
 * reduce.cuh is written once against `Op::type`, `Op::apply` and `Op::identity`. */
#define GP__DEFINE_OP(name, T, OP, IDENTITY)                                               \
    struct gp__op_##name {                                                                 \
        typedef T type;                                                                    \
        static __host__ __device__ __forceinline__ T apply(T a, T b) { return OP(a, b); } \
        static __host__ __device__ __forceinline__ T identity() { return IDENTITY; }      \
    };
#endif

#endif /* GPUPRIMS_DETAIL_OPS_CUH */
