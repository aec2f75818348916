/* detail/device/segmented.cuh -- segments: segmented reduce over CSR offsets, reduce along
 * rows and along columns, segmented scan (head flags) and reduce-by-key; their public
 * names, declarations and instantiation macros. Level 4: the kernels and launchers are in
 * segmented_reduce.cuh (merge-path reduce, rows), segmented_cols.cuh (columns),
 * segmented_scan.cuh (the scan over pairs: segmented scan, reduce-by-key),
 * segmented_scan_ring.cuh and reduce_by_key_ring.cuh (both on the scan's ring of stages).
 * Needs ops.cuh and common.cuh.
 *
 * Every result combines in index order (non-commutative operators give the sequential
 * answer) with an association fixed by the offsets, heads or keys, n, and the GPU model:
 * bitwise the same on every run and stream. One launch a call, no caller workspace, no
 * host synchronisation; scratch is the stream's status memory (util/status.cuh). */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"
#include "segmented_reduce.cuh"
#include "segmented_cols.cuh"
#include "reduce_by_key_ring.cuh"

/* The key comparison of the default reduce-by-key instances. */
#define GP_EQ_KEYS(a, b) ((a) == (b))

/* Declarations, C linkage, for C and CUDA files alike (definitions: the _EXTERN forms). */
#define GP_DECLARE_SEGMENTED_REDUCE(name, T)                                                          \
    GP__EXTERN_C cudaError_t gp_segmented_reduce_##name(T *d_out, const T *d_in, const uint64_t *d_offsets, \
                                                        size_t num_segments, cudaStream_t s);         \
    GP__EXTERN_C cudaError_t gp_reduce_rows_##name(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, \
                                                   cudaStream_t s);                                   \
    GP__EXTERN_C cudaError_t gp_reduce_cols_##name(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, \
                                                   cudaStream_t s);
#define GP_DECLARE_SEGMENTED_SCAN(name, T)                                                            \
    GP__EXTERN_C cudaError_t gp_inclusive_segmented_scan_##name(T *d_out, const T *d_in, const uint8_t *d_heads, \
                                                                size_t n, cudaStream_t s);            \
    GP__EXTERN_C cudaError_t gp_exclusive_segmented_scan_##name(T *d_out, const T *d_in, const uint8_t *d_heads, \
                                                                size_t n, cudaStream_t s);
#define GP_DECLARE_REDUCE_BY_KEY(name, K, T)                                                          \
    GP__EXTERN_C cudaError_t gp_reduce_by_key_##name(K *d_keys_out, T *d_values_out, uint64_t *d_runs,  \
                                                     const K *d_keys, const T *d_values, size_t n, cudaStream_t s);

#ifdef __CUDACC__
#include <type_traits>

/* The key comparison as the kernels take it. */
#define GP__DEFINE_EQ(name, K, EQ)                                                           \
    GP__DIAG_PUSH_OP_ERRORS                                                                \
    struct gp__eq_##name {                                                                 \
        static __device__ __forceinline__ bool eq(K a, K b) { return (EQ(a, b)) != 0; }    \
    };                                                                                     \
    GP__DIAG_POP
template <class K>
struct gp__eq_default {
    static __device__ __forceinline__ bool eq(K a, K b) { return GP_EQ_KEYS(a, b); }
};

/* Each launcher runs the kernels of gp__kernels_op<OPS> on the same bits (util/ops.cuh). */
#define GP__DEFINE_SEGMENTED_HOST(SCOPE, name, T, OPS)                                                     \
    SCOPE cudaError_t gp_segmented_reduce_##name(T *d_out, const T *d_in, const uint64_t *d_offsets,       \
                                                 size_t num_segments, cudaStream_t s)                      \
    {                                                                                                     \
        return gp__segmented_reduce<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), \
                                                         d_offsets, num_segments, s);                      \
    }                                                                                                     \
    SCOPE cudaError_t gp_reduce_rows_##name(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, \
                                            cudaStream_t s)                                               \
    {                                                                                                     \
        return gp__reduce_rows<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), \
                                                    rows, cols, ld, s);                                    \
    }                                                                                                     \
    SCOPE cudaError_t gp_reduce_cols_##name(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, \
                                            cudaStream_t s)                                               \
    {                                                                                                     \
        return gp__reduce_cols<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), \
                                                    rows, cols, ld, s);                                    \
    }
#define GP__DEFINE_SEGMENTED_SCAN_HOST(SCOPE, name, T, OPS)                                                \
    SCOPE cudaError_t gp_inclusive_segmented_scan_##name(T *d_out, const T *d_in, const uint8_t *d_heads, \
                                                         size_t n, cudaStream_t s)                        \
    {                                                                                                     \
        return gp__segmented_scan<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), \
                                                       d_heads, n, s, 1);                                  \
    }                                                                                                     \
    SCOPE cudaError_t gp_exclusive_segmented_scan_##name(T *d_out, const T *d_in, const uint8_t *d_heads, \
                                                         size_t n, cudaStream_t s)                        \
    {                                                                                                     \
        return gp__segmented_scan<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), \
                                                       d_heads, n, s, 0);                                  \
    }
/* KK: the key type the kernels take, K itself or one of K's size whose EQS compares the same
 * bits (the default instances' signed keys run the unsigned keys' kernels: gp__uint_of) */
#define GP__DEFINE_REDUCE_BY_KEY_HOST(SCOPE, name, K, T, OPS, KK, EQS)                         \
    SCOPE cudaError_t gp_reduce_by_key_##name(K *d_keys_out, T *d_values_out, uint64_t *d_runs, const K *d_keys, \
                                              const T *d_values, size_t n, cudaStream_t s)    \
    {                                                                                         \
        static_assert(sizeof(KK) == sizeof(K), "reduce-by-key: kernels' keys of the keys' size"); \
        return gp__reduce_by_key<OPS, KK, EQS>(reinterpret_cast<KK *>(d_keys_out), d_values_out, d_runs, \
                                               reinterpret_cast<const KK *>(d_keys), d_values, n, s); \
    }

/* GP_DEFINE_SEGMENTED_REDUCE(name, T, OP, IDENTITY), at file scope of a .cu file:
 *   cudaError_t gp_segmented_reduce_<name>(T *d_out, const T *d_in, const uint64_t *d_offsets,
 *                                          size_t num_segments, cudaStream_t s)
 *       d_out[i] = d_in[d_offsets[i]] OP ... OP d_in[d_offsets[i+1] - 1], IDENTITY for an
 *       empty segment; num_segments + 1 ascending offsets (the caller's contract), d_offsets[0]
 *       need not be 0. Writes only d_out[0 .. num_segments). Offsets that do not ascend
 *       give unspecified results (nothing else is written); to find them while debugging:
 *   cudaError_t gp_segmented_check_offsets(size_t *first_bad, const uint64_t *d_offsets,
 *                                          size_t num_segments, cudaStream_t s)
 *       (the library's, for every instance) cudaSuccess where the offsets ascend (equal
 *       neighbours are empty segments); cudaErrorInvalidValue where some d_offsets[i + 1] <
 *       d_offsets[i], *first_bad (host, may be NULL) the least such i, else num_segments.
 *       NULL d_offsets with num_segments > 0 is cudaErrorInvalidValue, num_segments 0
 *       cudaSuccess, both with no CUDA call. It waits for s (a capturing stream gets
 *       cudaErrorStreamCaptureUnsupported, and the capture goes on).
 *   cudaError_t gp_reduce_rows_<name>(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, cudaStream_t s)
 *       d_out[r] = the fold of row r (cols elements at d_in + r * ld); cols == 0: IDENTITY
 *       in every row; rows == 0: a no-op.
 *   cudaError_t gp_reduce_cols_<name>(T *d_out, const T *d_in, size_t rows, size_t cols, size_t ld, cudaStream_t s)
 *       d_out[c] = d_in[c] OP d_in[ld + c] OP ... (rows in order); rows == 0: IDENTITY in
 *       every column; cols == 0: a no-op.
 *   All: asynchronous on s; ld < cols, or a NULL pointer where something is read or
 *   written, gives cudaErrorInvalidValue and launches nothing.
 * The operator struct is gp__op_segmented_<name>. GP_DEFINE_SEGMENTED_REDUCE_EXTERN gives
 * external C linkage (one .cu file; GP_DECLARE_SEGMENTED_REDUCE(name, T) elsewhere). */
#define GP__DEFINE_SEGMENTED_REDUCE_AS(SCOPE, name, T, OP, IDENTITY)                           \
    namespace {                                                                               \
    GP_DEFINE_OP(segmented_##name, T, OP, IDENTITY)                                           \
    }                                                                                         \
    GP__DEFINE_SEGMENTED_HOST(SCOPE, name, T, gp__op_segmented_##name)
#define GP_DEFINE_SEGMENTED_REDUCE(name, T, OP, IDENTITY) \
    GP__DEFINE_SEGMENTED_REDUCE_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_SEGMENTED_REDUCE_EXTERN(name, T, OP, IDENTITY) \
    GP__DEFINE_SEGMENTED_REDUCE_AS(extern "C", name, T, OP, IDENTITY)

/* GP_DEFINE_SEGMENTED_SCAN(name, T, OP, IDENTITY):
 *   cudaError_t gp_inclusive_segmented_scan_<name>(T *d_out, const T *d_in, const uint8_t *d_heads,
 *                                                  size_t n, cudaStream_t s)
 *       d_out[i] = d_in[h] OP ... OP d_in[i], h the last head at or before i (d_heads[h] !=
 *       0; element 0 always starts a segment).
 *   cudaError_t gp_exclusive_segmented_scan_<name>(...)   the same without d_in[i]: IDENTITY at a head.
 *   In place allowed (d_out == d_in); any other overlap of d_out with d_in or d_heads gives
 *   cudaErrorInvalidValue. n == 0 is a no-op.
 * The operator struct is gp__op_sscan_<name>; _EXTERN and GP_DECLARE_SEGMENTED_SCAN as above. */
#define GP__DEFINE_SEGMENTED_SCAN_AS(SCOPE, name, T, OP, IDENTITY)                             \
    namespace {                                                                               \
    GP_DEFINE_OP(sscan_##name, T, OP, IDENTITY)                                               \
    }                                                                                         \
    GP__DEFINE_SEGMENTED_SCAN_HOST(SCOPE, name, T, gp__op_sscan_##name)
#define GP_DEFINE_SEGMENTED_SCAN(name, T, OP, IDENTITY) \
    GP__DEFINE_SEGMENTED_SCAN_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_SEGMENTED_SCAN_EXTERN(name, T, OP, IDENTITY) \
    GP__DEFINE_SEGMENTED_SCAN_AS(extern "C", name, T, OP, IDENTITY)

/* GP_DEFINE_REDUCE_BY_KEY(name, K, EQ, T, OP, IDENTITY): EQ(a, b) (a function-like macro
 * that runs on the device) says two keys are equal.
 *   cudaError_t gp_reduce_by_key_<name>(K *d_keys_out, T *d_values_out, uint64_t *d_runs,
 *                                       const K *d_keys, const T *d_values, size_t n, cudaStream_t s)
 *       Each run of consecutive equal keys gives its first key in d_keys_out[r] and the fold
 *       of its values, in order, in d_values_out[r]; *d_runs = the number of runs (in device
 *       memory). n == 0 writes 0 to *d_runs. Outputs past *d_runs are left untouched. The
 *       outputs may not overlap the inputs or each other (cudaErrorInvalidValue).
 * The structs are gp__op_rbk_<name> and gp__eq_rbk_<name>; _EXTERN and GP_DECLARE_REDUCE_BY_KEY
 * (name, K, T) as above. */
#define GP__DEFINE_REDUCE_BY_KEY_AS(SCOPE, name, K, EQ, T, OP, IDENTITY)                       \
    namespace {                                                                               \
    GP_DEFINE_OP(rbk_##name, T, OP, IDENTITY)                                                 \
    GP__DEFINE_EQ(rbk_##name, K, EQ)                                                          \
    }                                                                                         \
    GP__DEFINE_REDUCE_BY_KEY_HOST(SCOPE, name, K, T, gp__op_rbk_##name, K, gp__eq_rbk_##name)
#define GP_DEFINE_REDUCE_BY_KEY(name, K, EQ, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_BY_KEY_AS([[maybe_unused]] static, name, K, EQ, T, OP, IDENTITY)
#define GP_DEFINE_REDUCE_BY_KEY_EXTERN(name, K, EQ, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_BY_KEY_AS(extern "C", name, K, EQ, T, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_SEGMENTED_REDUCE(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SEGMENTED_REDUCE)
#define GP_DEFINE_SEGMENTED_REDUCE_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SEGMENTED_REDUCE_EXTERN)
#define GP_DEFINE_SEGMENTED_SCAN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SEGMENTED_SCAN)
#define GP_DEFINE_SEGMENTED_SCAN_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SEGMENTED_SCAN_EXTERN)
#define GP_DEFINE_REDUCE_BY_KEY(name, K, EQ, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE_BY_KEY)
#define GP_DEFINE_REDUCE_BY_KEY_EXTERN(name, K, EQ, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE_BY_KEY_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_CUH */
