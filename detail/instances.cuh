/* detail/instances.cuh -- the default instances, one row each. Everything that has one
 * entry per instance (C declarations, device names, the compiled launchers, the tests'
 * tables) is generated from these lists, so they cannot drift apart. Level 4: needs
 * reduce.cuh, scan.cuh, transpose.cuh, matmul.cuh and segmented.cuh. Readable by a C compiler (only the
 * declarations are seen there).
 *
 * The reduce and scan families share their instances and operator structs
 * (gp__op_<name>): one row makes gp_reduce_<name>, gp_exclusive_scan_<name>,
 * gp_inclusive_scan_<name> and the warp and block names of both. A map-reduce row makes
 * gp_<name> (gp_dot_f32, gp_sum_squares_f64, gp_count_nonzero_i32, ...). */
#ifndef GPUPRIMS_DETAIL_INSTANCES_CUH
#define GPUPRIMS_DETAIL_INSTANCES_CUH

#include "util/common.cuh"
#include "util/ops.cuh"
#include "device/reduce.cuh"
#include "device/scan.cuh"
#include "device/transpose.cuh"
#include "device/matmul.cuh"
#include "device/select_host.cuh"
#include "device/segmented.cuh"
#include "device/histogram.cuh"
#include "device/sort.cuh"

/* X(name, T, op, kind, OP, IDENTITY)
 *   op:   sum, min or max            kind: int (signed), uint (unsigned) or float
 *   OP:   the operator macro         IDENTITY: its identity for T */
#define GP__OP_INSTANCES(X)                                    \
    X(sum_i32, int32_t, sum, int, GP_OP_SUM, GP_ID_SUM_i32)    \
    X(sum_u32, uint32_t, sum, uint, GP_OP_SUM, GP_ID_SUM_u32)  \
    X(sum_i64, int64_t, sum, int, GP_OP_SUM, GP_ID_SUM_i64)    \
    X(sum_u64, uint64_t, sum, uint, GP_OP_SUM, GP_ID_SUM_u64)  \
    X(sum_f32, float, sum, float, GP_OP_SUM, GP_ID_SUM_f32)    \
    X(sum_f64, double, sum, float, GP_OP_SUM, GP_ID_SUM_f64)   \
    X(min_i32, int32_t, min, int, GP_OP_MIN, GP_ID_MIN_i32)    \
    X(min_u32, uint32_t, min, uint, GP_OP_MIN, GP_ID_MIN_u32)  \
    X(min_i64, int64_t, min, int, GP_OP_MIN, GP_ID_MIN_i64)    \
    X(min_u64, uint64_t, min, uint, GP_OP_MIN, GP_ID_MIN_u64)  \
    X(min_f32, float, min, float, GP_OP_MIN, GP_ID_MIN_f32)    \
    X(min_f64, double, min, float, GP_OP_MIN, GP_ID_MIN_f64)   \
    X(max_i32, int32_t, max, int, GP_OP_MAX, GP_ID_MAX_i32)    \
    X(max_u32, uint32_t, max, uint, GP_OP_MAX, GP_ID_MAX_u32)  \
    X(max_i64, int64_t, max, int, GP_OP_MAX, GP_ID_MAX_i64)    \
    X(max_u64, uint64_t, max, uint, GP_OP_MAX, GP_ID_MAX_u64)  \
    X(max_f32, float, max, float, GP_OP_MAX, GP_ID_MAX_f32)    \
    X(max_f64, double, max, float, GP_OP_MAX, GP_ID_MAX_f64)

/* X(name, Tin, T, MAP, OP, IDENTITY): one-input map-reduces, gp_<name>(T *d_out, const Tin
 * *d_in, size_t n, cudaStream_t s). A count of non-zero elements is a uint64_t. */
#define GP__MAP_REDUCE_INSTANCES(X)                                                         \
    X(sum_squares_f32, float, float, GP_MAP_SQUARE, GP_OP_SUM, GP_ID_SUM_f32)               \
    X(sum_squares_f64, double, double, GP_MAP_SQUARE, GP_OP_SUM, GP_ID_SUM_f64)             \
    X(count_nonzero_i32, int32_t, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)       \
    X(count_nonzero_u32, uint32_t, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)      \
    X(count_nonzero_i64, int64_t, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)       \
    X(count_nonzero_u64, uint64_t, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)      \
    X(count_nonzero_f32, float, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)         \
    X(count_nonzero_f64, double, uint64_t, GP_MAP_NONZERO, GP_OP_SUM, GP_ID_SUM_u64)

/* X(name, Tin, T, MAP2, OP, IDENTITY): two-input map-reduces, gp_<name>(T *d_out, const Tin
 * *d_a, const Tin *d_b, size_t n, cudaStream_t s). */
#define GP__MAP2_REDUCE_INSTANCES(X)                                  \
    X(dot_f32, float, float, GP_MAP2_MUL, GP_OP_SUM, GP_ID_SUM_f32)   \
    X(dot_f64, double, double, GP_MAP2_MUL, GP_OP_SUM, GP_ID_SUM_f64)

/* X(name, T): transposes (and tile functions) for 1, 2, 4, 8 and 16-byte elements. */
#define GP__TRANSPOSE_INSTANCES(X) \
    X(u8, uint8_t)                 \
    X(u16, uint16_t)               \
    X(f32, float)                  \
    X(f64, double)                 \
    X(v16, gp_v16_t)

/* X(name, T): matrix multiply (its tile configurations: GP__MATMUL_CONFIGS_<name>). */
#define GP__MATMUL_INSTANCES(X) \
    X(f32, float)               \
    X(f64, double)

/* X(name, T): stream compaction (select, partition, nonzero, unique, run-length) and the
 * block select, by flags. */
#define GP__SELECT_INSTANCES(X) \
    X(i32, int32_t)             \
    X(u32, uint32_t)            \
    X(i64, int64_t)             \
    X(u64, uint64_t)            \
    X(f32, float)               \
    X(f64, double)
/* X(name, K, T, op): reduce-by-key instances, gp_reduce_by_key_<name> (name = <op>_<k>_<v>),
 * keys compared with ==, values under gp__op_<op> (an operator row above). The segmented
 * reduce, rows, columns and segmented scan use the operator rows (GP__OP_INSTANCES). */
#define GP__REDUCE_BY_KEY_INSTANCES(X)                    \
    X(sum_i32_i32, int32_t, int32_t, sum_i32)             \
    X(sum_i32_i64, int32_t, int64_t, sum_i64)             \
    X(sum_i32_f32, int32_t, float, sum_f32)               \
    X(sum_i32_f64, int32_t, double, sum_f64)              \
    X(sum_u32_i32, uint32_t, int32_t, sum_i32)            \
    X(sum_u32_i64, uint32_t, int64_t, sum_i64)            \
    X(sum_u32_f32, uint32_t, float, sum_f32)              \
    X(sum_u32_f64, uint32_t, double, sum_f64)             \
    X(sum_i64_i32, int64_t, int32_t, sum_i32)             \
    X(sum_i64_i64, int64_t, int64_t, sum_i64)             \
    X(sum_i64_f32, int64_t, float, sum_f32)               \
    X(sum_i64_f64, int64_t, double, sum_f64)              \
    X(sum_u64_i32, uint64_t, int32_t, sum_i32)            \
    X(sum_u64_i64, uint64_t, int64_t, sum_i64)            \
    X(sum_u64_f32, uint64_t, float, sum_f32)              \
    X(sum_u64_f64, uint64_t, double, sum_f64)
/* X(name, T, L): histograms, gp_histogram_even_<name> and gp_histogram_range_<name>; L is the
 * type of the bounds and edges (int64_t for integer T, double for floating T). */
#define GP__HISTOGRAM_INSTANCES(X) \
    X(u8, uint8_t, int64_t)        \
    X(u16, uint16_t, int64_t)      \
    X(i32, int32_t, int64_t)       \
    X(u32, uint32_t, int64_t)      \
    X(f32, float, double)          \
    X(f64, double, double)
/* X(name, K): radix sort keys (gp_sort[_desc]_<name>, gp_argsort[_desc]_<name>). */
#define GP__SORT_INSTANCES(X) \
    X(u16, uint16_t)          \
    X(i32, int32_t)           \
    X(u32, uint32_t)          \
    X(i64, int64_t)           \
    X(u64, uint64_t)          \
    X(f32, float)             \
    X(f64, double)

/* X(name, K, V): radix sort pairs, every key type above with u32 and u64 values. */
#define GP__SORT_PAIRS_INSTANCES(X)          \
    X(u16_u32, uint16_t, uint32_t)           \
    X(u16_u64, uint16_t, uint64_t)           \
    X(i32_u32, int32_t, uint32_t)            \
    X(i32_u64, int32_t, uint64_t)            \
    X(u32_u32, uint32_t, uint32_t)           \
    X(u32_u64, uint32_t, uint64_t)           \
    X(i64_u32, int64_t, uint32_t)            \
    X(i64_u64, int64_t, uint64_t)            \
    X(u64_u32, uint64_t, uint32_t)           \
    X(u64_u64, uint64_t, uint64_t)           \
    X(f32_u32, float, uint32_t)              \
    X(f32_u64, float, uint64_t)              \
    X(f64_u32, double, uint32_t)             \
    X(f64_u64, double, uint64_t)

/* The rows, read by each family's macros (which take fewer columns). */
#define GP__DECLARE_OP_ROW(name, T, op, kind, OP, IDENTITY) GP_DECLARE_REDUCE(name, T) GP_DECLARE_SCAN(name, T)
#define GP__DEVICE_OP_ROW(name, T, op, kind, OP, IDENTITY) \
    GP_DEFINE_OP(name, T, OP, IDENTITY)                     \
    GP__DEFINE_REDUCE_DEVICE(name, T, gp__op_##name)        \
    GP__DEFINE_SCAN_DEVICE(name, T, gp__op_##name)
#define GP__REDUCE_HOST_ROW(name, T, op, kind, OP, IDENTITY) GP__DEFINE_REDUCE_HOST(extern "C", name, T, gp__op_##name)
#define GP__SCAN_HOST_ROW(name, T, op, kind, OP, IDENTITY) GP__DEFINE_SCAN_HOST(extern "C", name, T, gp__op_##name)
#define GP__DECLARE_MAP_ROW(name, Tin, T, MAP, OP, IDENTITY) GP_DECLARE_MAP_REDUCE(name, Tin, T)
#define GP__DECLARE_MAP2_ROW(name, Tin, T, MAP2, OP, IDENTITY) GP_DECLARE_MAP2_REDUCE(name, Tin, T)
#define GP__TRANSPOSE_HOST_ROW(name, T) GP__DEFINE_TRANSPOSE_HOST(extern "C", name, T)
#define GP__MATMUL_HOST_ROW(name, T) GP__DEFINE_MATMUL_HOST(extern "C", name, T)
#define GP__SELECT_HOST_ROW(name, T) GP__DEFINE_SELECT_DEFAULT_HOST(extern "C", name, T)
#define GP__DECLARE_SEGMENTED_ROW(name, T, op, kind, OP, IDENTITY) \
    GP_DECLARE_SEGMENTED_REDUCE(name, T) GP_DECLARE_SEGMENTED_SCAN(name, T)
#define GP__SEGMENTED_HOST_ROW(name, T, op, kind, OP, IDENTITY) \
    GP__DEFINE_SEGMENTED_HOST(extern "C", name, T, gp__op_##name)  \
    GP__DEFINE_SEGMENTED_SCAN_HOST(extern "C", name, T, gp__op_##name)
#define GP__DECLARE_RBK_ROW(name, K, T, op) GP_DECLARE_REDUCE_BY_KEY(name, K, T)
/* Keys compare by ==, which for integers is a comparison of their bits: signed keys run the
 * kernels of the unsigned keys of their size (half the reduce-by-key kernels to compile),
 * with the same results bit for bit. */
#define GP__RBK_HOST_ROW(name, K, T, op)                                                   \
    GP__DEFINE_REDUCE_BY_KEY_HOST(extern "C", name, K, T, gp__op_##op, gp__uint_of<K>, \
                                  gp__eq_default<gp__uint_of<K>>)
#define GP__HISTOGRAM_HOST_ROW(name, T, L) GP__DEFINE_HISTOGRAM_EVEN_HOST(extern "C", name, T, L)

/* Declarations, C linkage, visible to C and C++ alike. */
GP__OP_INSTANCES(GP__DECLARE_OP_ROW)
GP__MAP_REDUCE_INSTANCES(GP__DECLARE_MAP_ROW)
GP__MAP2_REDUCE_INSTANCES(GP__DECLARE_MAP2_ROW)
GP__TRANSPOSE_INSTANCES(GP_DECLARE_TRANSPOSE)
GP__MATMUL_INSTANCES(GP_DECLARE_MATMUL)
GP__SELECT_INSTANCES(GP__DECLARE_SELECT_DEFAULT)
GP__OP_INSTANCES(GP__DECLARE_SEGMENTED_ROW)
GP__REDUCE_BY_KEY_INSTANCES(GP__DECLARE_RBK_ROW)
GP__HISTOGRAM_INSTANCES(GP__DECLARE_HISTOGRAM_EVEN)
GP__SORT_INSTANCES(GP_DECLARE_SORT)
GP__SORT_PAIRS_INSTANCES(GP_DECLARE_SORT_PAIRS)
/* Frees the library's status memory on `device` (util/status.cuh) once its last use is
 * done; later calls make it again. Safe at exit and between calls. */
GP__EXTERN_C cudaError_t gp_release_device_state(int device);
/* A debugging aid for the segmented reduce: cudaSuccess where d_offsets[0 .. num_segments]
 * ascend; cudaErrorInvalidValue where they do not, with *first_bad (host, may be NULL) the
 * first i with d_offsets[i + 1] < d_offsets[i] (num_segments otherwise), or where d_offsets
 * is NULL with num_segments > 0. It waits for the stream (detail/device/segmented.cuh). */
GP__EXTERN_C cudaError_t gp_segmented_check_offsets(size_t *first_bad, const uint64_t *d_offsets, size_t num_segments,
                                                    cudaStream_t s);

#ifdef __CUDACC__
/* Device-side names (warp, block and tile level) in every CUDA translation unit. */
namespace {
GP__OP_INSTANCES(GP__DEVICE_OP_ROW)
GP__TRANSPOSE_INSTANCES(GP_DEFINE_TILE)
GP__SELECT_INSTANCES(GP__DEFINE_BLOCK_SELECT_FLAGGED)
}
/* The sums of signed integers run the kernels of the unsigned sums of their size (the same
 * bits: util/ops.cuh), in the reduce, scan and segmented families: two kernel sets fewer
 * of 18 to compile. */
template <>
struct gp__runs_as<gp__op_sum_i32> {
    typedef gp__op_sum_u32 type;
};
template <>
struct gp__runs_as<gp__op_sum_i64> {
    typedef gp__op_sum_u64 type;
};

/* Kernels and launchers, compiled once, with C linkage, where GPUPRIMS_IMPLEMENTATION is
 * (every family), or one family per translation unit (GPUPRIMS_IMPLEMENTATION_REDUCE,
 * _SCAN, _TRANSPOSE, _MATMUL, _SORT): the library build compiles the families in parallel. */
#ifdef GPUPRIMS_IMPLEMENTATION
#define GPUPRIMS_IMPLEMENTATION_REDUCE
#define GPUPRIMS_IMPLEMENTATION_SCAN
#define GPUPRIMS_IMPLEMENTATION_TRANSPOSE
#define GPUPRIMS_IMPLEMENTATION_MATMUL
#define GPUPRIMS_IMPLEMENTATION_SELECT
#define GPUPRIMS_IMPLEMENTATION_SEGMENTED
#define GPUPRIMS_IMPLEMENTATION_HISTOGRAM
#define GPUPRIMS_IMPLEMENTATION_SORT
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_REDUCE
GP__OP_INSTANCES(GP__REDUCE_HOST_ROW)
GP__MAP_REDUCE_INSTANCES(GP_DEFINE_MAP_REDUCE_EXTERN)
GP__MAP2_REDUCE_INSTANCES(GP_DEFINE_MAP2_REDUCE_EXTERN)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_SCAN
GP__OP_INSTANCES(GP__SCAN_HOST_ROW)
extern "C" cudaError_t gp_release_device_state(int device) { return gp__release_device_state(device); }
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_TRANSPOSE
GP__TRANSPOSE_INSTANCES(GP__TRANSPOSE_HOST_ROW)
template <class T>
cudaError_t gp__transpose_described(T *d_out, size_t ld_out, size_t stride_out, const T *d_in, size_t ld_in,
                                    size_t stride_in, size_t rows, size_t cols, size_t batch, cudaStream_t s,
                                    const gp__device *described)
{
    return gp__transpose<T>(d_out, ld_out, stride_out, d_in, ld_in, stride_in, rows, cols, batch, s, described);
}
#define GP__TRANSPOSE_DESCRIBED_ROW(name, T)                                                                    \
    template cudaError_t gp__transpose_described<T>(T *, size_t, size_t, const T *, size_t, size_t, size_t, size_t, \
                                                    size_t, cudaStream_t, const gp__device *);
GP__TRANSPOSE_INSTANCES(GP__TRANSPOSE_DESCRIBED_ROW)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_MATMUL
GP__MATMUL_INSTANCES(GP__MATMUL_HOST_ROW)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_SELECT
GP__SELECT_INSTANCES(GP__SELECT_HOST_ROW)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_SEGMENTED
GP__OP_INSTANCES(GP__SEGMENTED_HOST_ROW)
GP__REDUCE_BY_KEY_INSTANCES(GP__RBK_HOST_ROW)
extern "C" cudaError_t gp_segmented_check_offsets(size_t *first_bad, const uint64_t *d_offsets, size_t num_segments,
                                                  cudaStream_t s)
{
    return gp__segmented_check_offsets(first_bad, d_offsets, num_segments, s);
}
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_HISTOGRAM
GP__HISTOGRAM_INSTANCES(GP__HISTOGRAM_HOST_ROW)
#endif
#ifdef GPUPRIMS_IMPLEMENTATION_SORT
#define GP__SORT_HOST_ROW(name, K) GP__DEFINE_SORT_HOST(extern "C", name, K)
GP__SORT_INSTANCES(GP__SORT_HOST_ROW)
GP__SORT_PAIRS_INSTANCES(GP_DEFINE_SORT_PAIRS_EXTERN)
template <class K, class V, int MODE>
cudaError_t gp__sort_with_knobs(K *k_out, V *v_out, const K *k_in, const V *v_in, size_t n, int desc,
                                const gp__sort_knobs *knobs)
{
    return gp__sort<K, V, MODE>(k_out, v_out, k_in, v_in, n, desc, 0, knobs);
}
#define GP__SORT_WITH_KNOBS_AS(K, V, MODE) \
    template cudaError_t gp__sort_with_knobs<K, V, MODE>(K *, V *, const K *, const V *, size_t, int, const gp__sort_knobs *);
#define GP__SORT_KNOBS_ROW(name, K) GP__SORT_WITH_KNOBS_AS(K, K, GP__SORT_KEYS) GP__SORT_WITH_KNOBS_AS(K, uint64_t, GP__SORT_ARGSORT)
#define GP__SORT_PAIRS_KNOBS_ROW(name, K, V) GP__SORT_WITH_KNOBS_AS(K, V, GP__SORT_PAIRS)
GP__SORT_INSTANCES(GP__SORT_KNOBS_ROW)
GP__SORT_PAIRS_INSTANCES(GP__SORT_PAIRS_KNOBS_ROW)
#endif
#endif /* __CUDACC__ */

#endif /* GPUPRIMS_DETAIL_INSTANCES_CUH */
