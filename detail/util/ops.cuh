/* detail/util/ops.cuh -- operators: the macros for the default instances (sum, min, max), their
 * identities per type, and GP_DEFINE_OP, which carries an operator into the generic code.
 * Level 0: needs common.cuh. The operator, map and identity macros are plain C.
 *
 * An operator is a function-like macro OP(a, b) that must be associative; it need not be
 * commutative: everything in gpuprims combines in index order, `a` before `b`. It runs on
 * the device only (a __device__ or __host__ __device__ function, or an expression). An
 * IDENTITY that contains commas, such as a compound literal, goes in parentheses:
 * ((pair_t){-INFINITY, -1}). */
#ifndef GPUPRIMS_DETAIL_OPS_CUH
#define GPUPRIMS_DETAIL_OPS_CUH

#include <stdint.h>
#include <math.h>
#include "common.cuh"

#define GP_OP_SUM(a, b) ((a) + (b))
/* Ties keep `a`, the earlier element: min and max are then stable (first of equals). */
#define GP_OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define GP_OP_MAX(a, b) ((a) < (b) ? (b) : (a))

/* Maps for the default map-reduces (reduce.cuh): x^2 (sum of squares), a*b (dot product),
 * and 1 for an element that is not zero, as a 64-bit count (-0.0 is zero; NaN is not). */
#define GP_MAP_SQUARE(x) ((x) * (x))
#define GP_MAP2_MUL(a, b) ((a) * (b))
#define GP_MAP_NONZERO(x) ((uint64_t)((x) != 0))

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

#ifdef __CUDACC__
/* GP_DEFINE_OP(name, T, OP, IDENTITY): the operator struct gp__op_<name> that the warp,
 * block and device templates are written against (`Op::type`, `Op::apply(a, b)`,
 * `Op::identity()`, both __device__). OP is evaluated on two plain locals, so an OP that
 * names an argument twice never repeats a load or a shuffle. Mistakes fail to compile on
 * the line of the GP_DEFINE_* that names them, never as a warning and a wrong kernel:
 *   - OP calls a host-only function (or std::plus<T>() without --expt-relaxed-constexpr);
 *   - OP is not function-like (`+` would expand to `+(a, b)`, a comma expression): a
 *     static assertion that says so (and "expression has no effect", raised to an error);
 *   - T is larger than GP_MAX_ELEM_BYTES;
 *   - it is used inside a function ("namespace definition is not allowed"), or in a C
 *     file (the static assertion below the #else).
 * Every public GP_DEFINE_<family>(name, T, OP, IDENTITY) starts with it. */
/* OP as written (#OP, before expansion) must name something callable: a macro or function
 * name, a qualified name, or a parenthesised expression. An operator token (`+`, `*`) or
 * nothing at all is the mistake this catches, with a sentence instead of a diagnostic
 * about a comma expression inside a generated struct. */
static constexpr bool gp__op_is_callable(const char *op)
{
    return (op[0] >= 'a' && op[0] <= 'z') || (op[0] >= 'A' && op[0] <= 'Z') || op[0] == '_' || op[0] == ':' ||
           op[0] == '(';
}

/* The unsigned integer of T's size (1, 2, 4 or 8 bytes): what the kernels of an instance
 * that only moves or compares T's bits take instead of T (reduce-by-key's keys, select's
 * elements), so that every type of a size shares them. */
template <size_t N>
struct gp__uint_bytes;
template <>
struct gp__uint_bytes<1> {
    typedef uint8_t type;
};
template <>
struct gp__uint_bytes<2> {
    typedef uint16_t type;
};
template <>
struct gp__uint_bytes<4> {
    typedef uint32_t type;
};
template <>
struct gp__uint_bytes<8> {
    typedef uint64_t type;
};
template <class T>
using gp__uint_of = typename gp__uint_bytes<sizeof(T)>::type;

/* The operator whose kernels run an instance of Op: Op itself, unless specialised for an
 * operator whose results are the same bits as another's on the same bits, so that only one
 * of them is compiled (detail/instances.cuh: the default sums of signed integers run those
 * of the unsigned integers of their size, as two's complement addition is the same either
 * way). gp__as_kernels casts an instance's pointers to that operator's elements. */
template <class Op>
struct gp__runs_as {
    typedef Op type;
};
template <class Op>
using gp__kernels_op = typename gp__runs_as<Op>::type;
template <class Op>
static inline typename gp__kernels_op<Op>::type *gp__as_kernels(typename Op::type *p)
{
    static_assert(sizeof(typename gp__kernels_op<Op>::type) == sizeof(typename Op::type), "the same bits");
    return reinterpret_cast<typename gp__kernels_op<Op>::type *>(p);
}
template <class Op>
static inline const typename gp__kernels_op<Op>::type *gp__as_kernels(const typename Op::type *p)
{
    return gp__as_kernels<Op>(const_cast<typename Op::type *>(p));
}

#define GP__DIAG_PUSH_OP_ERRORS                                                            \
    _Pragma("nv_diagnostic push") _Pragma("nv_diag_error 174") _Pragma("nv_diag_error 20011") \
        _Pragma("nv_diag_error 20013") _Pragma("nv_diag_error 20014")
#define GP__DIAG_POP _Pragma("nv_diagnostic pop")

#define GP_DEFINE_OP(name, T, OP, IDENTITY)                                                \
    namespace gp_DEFINE_must_be_used_at_file_scope {}                                     \
    static_assert(sizeof(T) <= GP_MAX_ELEM_BYTES, "gpuprims: element type " #T             \
                                                  " is larger than GP_MAX_ELEM_BYTES");    \
    static_assert(gp__op_is_callable(#OP), "gpuprims: OP '" #OP "' is not a function-like " \
                  "macro or function: it is called as OP(a, b); write e.g. "               \
                  "#define ADD(a, b) ((a) + (b)) and pass ADD");                           \
    GP__DIAG_PUSH_OP_ERRORS                                                                \
    struct gp__op_##name {                                                                 \
        typedef T type;                                                                    \
        /* A host-only OP fails here: "calling a __host__ function ... from a __device__   \
         * function(...OP_must_run_on_the_device) is not allowed". */                      \
        static __device__ __forceinline__ T OP_must_run_on_the_device(T a, T b) { return OP(a, b); } \
        static __device__ __forceinline__ T apply(T a, T b) { return OP_must_run_on_the_device(a, b); } \
        static __device__ __forceinline__ T identity() { return IDENTITY; }                \
    };                                                                                     \
    GP__DIAG_POP
#else
#define GP_DEFINE_OP(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_OP)
#endif

#endif /* GPUPRIMS_DETAIL_OPS_CUH */
