/* detail/instances.cuh -- the default instance list, one line per instance. Everything
 * that has one entry per instance (C declarations, device names, the compiled launchers)
 * is generated from these lists, so they cannot drift apart. Level 4: needs ops.cuh and,
 * in CUDA translation units, reduce.cuh, scan.cuh and matmul.cuh. Readable by a C compiler.
 * The scans have exactly the reduce's instances (same operators, types and identities),
 * so both are generated from GP__REDUCE_INSTANCES, and the scans reuse its Op structs. */
#ifndef GPUPRIMS_DETAIL_INSTANCES_CUH
#define GPUPRIMS_DETAIL_INSTANCES_CUH

/* X(name, T, OP, IDENTITY) */
#define GP__REDUCE_INSTANCES(X)                      \
    X(sum_i32, int32_t, GP_OP_SUM, GP_ID_SUM_i32)    \
    X(sum_u32, uint32_t, GP_OP_SUM, GP_ID_SUM_u32)   \
    X(sum_i64, int64_t, GP_OP_SUM, GP_ID_SUM_i64)    \
    X(sum_u64, uint64_t, GP_OP_SUM, GP_ID_SUM_u64)   \
    X(sum_f32, float, GP_OP_SUM, GP_ID_SUM_f32)      \
    X(sum_f64, double, GP_OP_SUM, GP_ID_SUM_f64)     \
    X(min_i32, int32_t, GP_OP_MIN, GP_ID_MIN_i32)    \
    X(min_u32, uint32_t, GP_OP_MIN, GP_ID_MIN_u32)   \
    X(min_i64, int64_t, GP_OP_MIN, GP_ID_MIN_i64)    \
    X(min_u64, uint64_t, GP_OP_MIN, GP_ID_MIN_u64)   \
    X(min_f32, float, GP_OP_MIN, GP_ID_MIN_f32)      \
    X(min_f64, double, GP_OP_MIN, GP_ID_MIN_f64)     \
    X(max_i32, int32_t, GP_OP_MAX, GP_ID_MAX_i32)    \
    X(max_u32, uint32_t, GP_OP_MAX, GP_ID_MAX_u32)   \
    X(max_i64, int64_t, GP_OP_MAX, GP_ID_MAX_i64)    \
    X(max_u64, uint64_t, GP_OP_MAX, GP_ID_MAX_u64)   \
    X(max_f32, float, GP_OP_MAX, GP_ID_MAX_f32)      \
    X(max_f64, double, GP_OP_MAX, GP_ID_MAX_f64)

/* X(name, T): transposes (and tile functions) for 1, 2, 4, 8 and 16-byte elements. */
#define GP__TRANSPOSE_INSTANCES(X) \
    X(u8, uint8_t)                 \
    X(u16, uint16_t)               \
    X(f32, float)                  \
    X(f64, double)                 \
    X(v16, gp_v16_t)
/* X(name, T): matrix multiply (detail/matmul.cuh; configs in GP__MATMUL_CONFIGS_<name>) */
#define GP__MATMUL_INSTANCES(X) \
    X(f32, float)               \
    X(f64, double)

/* Declarations, visible to C and C++ alike. */
#define GP__DECLARE_REDUCE(name, T, OP, IDENTITY) \
    cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);
#define GP__DECLARE_SCAN(name, T, OP, IDENTITY)                                               \
    cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);  \
    cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);
#define GP__DECLARE_MATMUL(name, T) \
    cudaError_t gp_matmul_##name(T *d_c, const T *d_a, const T *d_b, size_t m, size_t n, size_t k, cudaStream_t s);

#define GP__DECLARE_TRANSPOSE(name, T)                                                                        \
    cudaError_t gp_transpose_##name(T *d_out, const T *d_in, size_t rows, size_t cols, cudaStream_t s);       \
    cudaError_t gp_transpose_strided_##name(T *d_out, size_t ld_out, const T *d_in, size_t ld_in, size_t rows, \
                                            size_t cols, cudaStream_t s);                                     \
    cudaError_t gp_transpose_batched_##name(T *d_out, size_t ld_out, size_t stride_out, const T *d_in,        \
                                            size_t ld_in, size_t stride_in, size_t rows, size_t cols,         \
                                            size_t batch, cudaStream_t s);

#ifdef __cplusplus
extern "C" {
#endif
GP__REDUCE_INSTANCES(GP__DECLARE_REDUCE)
GP__REDUCE_INSTANCES(GP__DECLARE_SCAN)
GP__TRANSPOSE_INSTANCES(GP__DECLARE_TRANSPOSE)
GP__MATMUL_INSTANCES(GP__DECLARE_MATMUL)
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Device-side names (warp and block level) in every CUDA translation unit. */
#define GP__DEFINE_SCAN_DEVICE_DEFAULT(name, T, OP, IDENTITY) GP__DEFINE_SCAN_DEVICE(name, T, gp__op_##name)
namespace {
GP__REDUCE_INSTANCES(GP__DEFINE_REDUCE_DEVICE)
GP__REDUCE_INSTANCES(GP__DEFINE_SCAN_DEVICE_DEFAULT)
GP__TRANSPOSE_INSTANCES(GP_DEFINE_TILE)
}

/* Kernels and launchers, compiled once, with C linkage, where GPUPRIMS_IMPLEMENTATION is
 * (every family), or one family per translation unit (GPUPRIMS_IMPLEMENTATION_REDUCE,
 * _SCAN, _TRANSPOSE, _MATMUL): the library build compiles the families in parallel. */
#ifdef GPUPRIMS_IMPLEMENTATION
#define GPUPRIMS_IMPLEMENTATION_REDUCE
#define GPUPRIMS_IMPLEMENTATION_SCAN
#define GPUPRIMS_IMPLEMENTATION_TRANSPOSE
#define GPUPRIMS_IMPLEMENTATION_MATMUL
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_REDUCE
#define GP__DEFINE_REDUCE_EXTERN_C(name, T, OP, IDENTITY) GP__DEFINE_REDUCE_HOST(extern "C", name, T)
GP__REDUCE_INSTANCES(GP__DEFINE_REDUCE_EXTERN_C)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_SCAN
#define GP__DEFINE_SCAN_EXTERN_C(name, T, OP, IDENTITY) GP__DEFINE_SCAN_HOST(extern "C", name, T, gp__op_##name)
GP__REDUCE_INSTANCES(GP__DEFINE_SCAN_EXTERN_C)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_TRANSPOSE
#define GP__DEFINE_TRANSPOSE_EXTERN_C(name, T) GP__DEFINE_TRANSPOSE_HOST(extern "C", name, T)
GP__TRANSPOSE_INSTANCES(GP__DEFINE_TRANSPOSE_EXTERN_C)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_MATMUL
#define GP__DEFINE_MATMUL_EXTERN_C(name, T) GP__DEFINE_MATMUL_HOST(extern "C", name, T)
GP__MATMUL_INSTANCES(GP__DEFINE_MATMUL_EXTERN_C)
#endif
#endif /* __CUDACC__ */

#endif /* GPUPRIMS_DETAIL_INSTANCES_CUH */
