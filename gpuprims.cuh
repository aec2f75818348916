/* gpuprims.cuh -- memory-hierarchy primitives for CUDA C, in one header.
 *
 * WHAT IT IS
 *   Error checks; warp and block reductions and scans; a device-wide reduce at the
 *   memory-bandwidth limit in one pass, and fused map-reduces (dot products, sums of
 *   squares, counts) on the same kernel; a single-pass, deterministic device scan;
 *   cooperative 2-D tile loads and stores between global and shared memory (padded,
 *   vectorised, asynchronous); a transpose of any shape and element size; a tiled
 *   FP32/FP64 matrix multiply. Plain C names.
 *
 * USING IT
 *   The default instances (gp_reduce_sum_f32, ... below) are compiled once, into
 *   libgpuprims (make lib: build/lib/libgpuprims.a and .so; make install). Include the
 *   header and link the library:
 *       #include <gpuprims/gpuprims.cuh>     (installed; in the source tree "gpuprims.cuh")
 *       nvcc app.cu $(pkg-config --cflags --libs gpuprims)
 *       gcc  app.c  $(pkg-config --cflags --libs gpuprims)      (C sees the host API only)
 *       CMake: find_package(gpuprims CONFIG REQUIRED), target gpuprims::gpuprims
 *   A C program that links libgpuprims.a itself needs -lcudart -lstdc++ (its objects are C++).
 *   Header-only instead: in exactly ONE .cu file of your program
 *       #define GPUPRIMS_IMPLEMENTATION
 *       #include "gpuprims.cuh"
 *   compiles the default instances there; no library then. GP_DEFINE_* instances of your
 *   own compile in your files either way.
 *
 *       float *d_x, *d_sum;                 // n floats on the device, one for the result
 *       CUDA_CHK(gp_reduce_sum_f32(d_sum, d_x, n, 0));
 *
 * CONTENTS, by level (each level uses only the levels above it; each file includes what
 * it uses and compiles on its own)                      file
 *   0  gp_v16_t, GP_MAX_ELEM_BYTES, shared helpers       detail/util/common.cuh
 *      CUDA_CHK(call), CUDA_CHK_LAUNCH(),                detail/util/check.cuh
 *        gp_check_format, gp_check_fail
 *      GP_OP_SUM/MIN/MAX, GP_ID_<OP>_<type>, GP_DEFINE_OP detail/util/ops.cuh
 *      (cp.async copies)                                 detail/util/async_copy.cuh
 *      (stream-ordered scratch)                          detail/util/scratch.cuh
 *      (the one per-device cache)                        detail/util/device_cache.cuh
 *      (status memory: per-stream state between calls)   detail/util/status.cuh
 *      (mbarriers, bulk copies, stores to cluster peers) detail/util/mbarrier.cuh
 *      (the device-wide launch skeleton)                 detail/util/launch.cuh
 *   1  gp_warp_reduce_<name>, gp_warp_reduce_smem_<name>, detail/warp/warp.cuh
 *        gp_warp_inclusive_scan_<name>, gp_warp_exclusive_scan_<name>
 *   2  gp_block_reduce_<name>                            detail/block/block_reduce.cuh
 *      gp_block_inclusive_scan_<name>,                   detail/block/block_scan.cuh
 *        gp_block_exclusive_scan_<name>, gp_block_scan_blelloch_<name>,
 *        gp_blelloch_index, gp_blelloch_smem_elems
 *      gp_tile_pitch, gp_tile_load_<name>,               detail/block/tile.cuh
 *        gp_tile_load_async_<name>, gp_tile_load_wait, gp_tile_store_<name>, GP_DEFINE_TILE
 *      (fixed-shape cp.async tile copies)                detail/block/tile_async.cuh
 *   3  (the single-pass engine: status words; look-ahead) detail/agent/single_pass.cuh,
 *                                                          detail/agent/look_ahead.cuh
 *   3  gp_reduce_<name>, GP_DEFINE_REDUCE[_EXTERN],      detail/device/reduce.cuh
 *        GP_DECLARE_REDUCE; gp_dot_*, gp_sum_squares_*, gp_count_nonzero_*,
 *        GP_DEFINE_MAP[2]_REDUCE[_EXTERN], GP_DECLARE_MAP[2]_REDUCE (plan: reduce_plan.cuh;
 *        kernels: reduce_kernels.cuh)
 *      gp_{ex,in}clusive_scan[_init]_<name>, GP_DEFINE_SCAN[_EXTERN], GP_DECLARE_SCAN   detail/device/scan.cuh
 *        (plan: scan_plan.cuh; kernels: scan_kernels.cuh)
 *      gp_transpose[_strided|_batched]_<name>,           detail/device/transpose.cuh
 *        GP_DEFINE_TRANSPOSE[_EXTERN], GP_DECLARE_TRANSPOSE (plan: transpose_plan.cuh;
 *        kernels: transpose_kernels.cuh)
 *      gp_matmul_f32, gp_matmul_f64                      detail/device/matmul.cuh
 *        (plan: matmul_plan.cuh; kernels: matmul_kernels.cuh)
 *      gp_select_flagged_<t>, gp_partition_flagged_<t>,  detail/device/select_host.cuh
 *        gp_nonzero_<t>, gp_unique_<t>, gp_run_length_<t>; GP_DEFINE_SELECT[_EXTERN],
 *        GP_DEFINE_UNIQUE[_EXTERN], GP_DECLARE_SELECT, GP_DECLARE_UNIQUE (kernels:
 *        select.cuh, select_one.cuh, select_ring.cuh)
 *      gp_block_select_flagged_<t>, gp_block_select_<name> detail/block/block_select.cuh
 *      gp_segmented_reduce_<name>, gp_reduce_rows_<name>,  detail/device/segmented.cuh
 *        gp_reduce_cols_<name>, gp_{in,ex}clusive_segmented_scan_<name>,
 *        gp_reduce_by_key_<op>_<k>_<v>, GP_DEFINE_SEGMENTED_REDUCE, GP_DEFINE_SEGMENTED_SCAN,
 *        GP_DEFINE_REDUCE_BY_KEY (each [_EXTERN], GP_DECLARE_*) (kernels:
 *        segmented_path.cuh, segmented_reduce.cuh, segmented_reduce_ring.cuh,
 *        segmented_scan.cuh, segmented_scan_ring.cuh, reduce_by_key_ring.cuh)
 *      gp_histogram_even_<t>, gp_histogram_range_<t>,    detail/device/histogram.cuh
 *        GP_DEFINE_HISTOGRAM[_EXTERN], GP_DECLARE_HISTOGRAM (bin rules: histogram_bin.cuh;
 *        past shared memory: histogram_split.cuh)
 *   2  gp_block_histogram_zero/_add/_flush,              detail/block/block_histogram.cuh
 *        gp_block_histogram_<name> (GP_DEFINE_HISTOGRAM)
 *      gp_sort[_desc]_<type>, gp_argsort[_desc]_<type>,  detail/device/sort.cuh
 *        gp_sort_pairs[_desc]_<ktype>_<vtype>, GP_DEFINE_SORT_PAIRS[_EXTERN],
 *        GP_DECLARE_SORT_PAIRS (kernels: detail/device/sort_kernels.cuh and
 *        sort_look_back.cuh; up to 1024 keys: sort_bitonic.cuh; up to 65536:
 *        sort_cluster.cuh; one block's sort, small inputs and the bucket path:
 *        sort_block.cuh)
 *      gp_block_radix_rank, gp_block_radix_rank_smem     detail/block/block_radix_rank.cuh
 *   4  the default instance lists                        detail/instances.cuh
 *   Each file's end documents the exact contract of the names it defines: which threads
 *   hold the result, the shared memory used, the barriers, the block shapes.
 *
 * DEFAULT INSTANCES
 *   <name> = <op>_<type>, op in sum min max, type in i32 u32 i64 u64 f32 f64
 *   (int32_t uint32_t int64_t uint64_t float double):
 *     cudaError_t gp_reduce_sum_f32(float *d_out, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_exclusive_scan_sum_f32(float *d_out, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_inclusive_scan_sum_f32(float *d_out, const float *d_in, size_t n, cudaStream_t s);
 *   Fused map-reduces (one pass over the input; the mapped values are never stored):
 *     cudaError_t gp_dot_f32(float *d_out, const float *d_a, const float *d_b, size_t n, cudaStream_t s);
 *     cudaError_t gp_sum_squares_f32(float *d_out, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_count_nonzero_i32(uint64_t *d_out, const int32_t *d_in, size_t n, cudaStream_t s);
 *   dot and sum_squares (the square of BLAS's nrm2) for f32 and f64; count_nonzero for
 *   every type above, always into a uint64_t (for floats -0.0 is zero, NaN is not). Same
 *   contract as the reduce; two inputs at different offsets from a 16-byte boundary
 *   are read element by element (slower, still one pass).
 *   The exclusive scan starts from the operator's identity (out[0] = 0 for sum). Scans
 *   may run in place (d_out == d_in); a partial overlap returns cudaErrorInvalidValue.
 *   From a carry-in: one element on the device, before d_in[0] (chunked or multi-GPU scans):
 *     cudaError_t gp_exclusive_scan_init_sum_f32(float *d_out, const float *d_in, size_t n,
 *                                                const float *d_init, cudaStream_t s);  (and _inclusive_)
 *   Several GPUs over NCCL (reduce, scan, transpose of sharded data): gpuprims_nccl.cuh.
 *   GP_DEFINE_SCAN(name, T, OP, IDENTITY) makes the scan family for your own type and
 *   operator, as GP_DEFINE_REDUCE does below (detail/device/scan.cuh lists the names).
 *   Transposes (and tile functions) for <name> in u8 u16 f32 f64 v16 (uint8_t uint16_t
 *   float double gp_v16_t, a 16-byte struct): d_in is rows x cols, row-major; d_out
 *   cols x rows. Strided: leading dimensions; batched: `batch` matrices, `stride` apart.
 *     cudaError_t gp_transpose_f32(float *d_out, const float *d_in, size_t rows, size_t cols, cudaStream_t s);
 *     cudaError_t gp_transpose_strided_f32(float *d_out, size_t ld_out, const float *d_in, size_t ld_in,
 *                                          size_t rows, size_t cols, cudaStream_t s);
 *     cudaError_t gp_transpose_batched_f32(float *d_out, size_t ld_out, size_t stride_out,
 *                                          const float *d_in, size_t ld_in, size_t stride_in,
 *                                          size_t rows, size_t cols, size_t batch, cudaStream_t s);
 *   Radix sort (stable, deterministic, in place allowed), keys <type> in u16 i32 u32 i64
 *   u64 f32 f64, values <vtype> in u32 u64; floats in IEEE 754 totalOrder (-NaN < -inf <
 *   -0.0 < +0.0 < +inf < +NaN, bits kept); descending is the reverse order, still stable:
 *     cudaError_t gp_sort_u32(uint32_t *d_out, const uint32_t *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_sort_desc_f32(float *d_out, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_sort_pairs_u64_u32(uint64_t *d_keys_out, uint32_t *d_values_out,
 *                                       const uint64_t *d_keys, const uint32_t *d_values,
 *                                       size_t n, cudaStream_t s);           (and _desc_)
 *     cudaError_t gp_argsort_f32(uint64_t *d_idx, const float *d_in, size_t n, cudaStream_t s);
 *   Scratch from the pool (n keys, n values; argsort 2n keys and n 32-bit indices; n / 2
 *   bytes of status); none available:
 *   cudaErrorMemoryAllocation, inputs untouched. GP_DEFINE_SORT_PAIRS(name, K, V) for any
 *   value type of 1 to 16 bytes.
 *   Input and output must not overlap (cudaErrorInvalidValue). Other types of these sizes:
 *   cast the pointers, or GP_DEFINE_TRANSPOSE(name, T) for any T.
 *
 *   Histograms, <t> in u8 u16 i32 u32 f32 f64; L = int64_t for the integer types, double
 *   for f32 and f64; counts are uint64_t, d_hist[0 .. bins) overwritten (zeroed when n == 0):
 *     cudaError_t gp_histogram_even_u8(uint64_t *d_hist, const uint8_t *d_in, size_t n, size_t bins,
 *                                      int64_t lower, int64_t upper, cudaStream_t s);
 *     cudaError_t gp_histogram_range_f32(uint64_t *d_hist, const float *d_in, size_t n,
 *                                        const double *d_edges, size_t bins, cudaStream_t s);
 *   Even: x in [lower, upper) goes to floor((x - lower) * bins / (upper - lower)), exact in
 *   integers; for floats evaluated in double as written, clamped to bins - 1; NaN and values
 *   outside are not counted. Range: bin i is [d_edges[i], d_edges[i+1]) (bins + 1 ascending
 *   edges on the device). bins from 1 to 2^32. cudaErrorInvalidValue: bins == 0 or > 2^32,
 *   lower >= upper, a NaN or infinite bound, NULL d_hist, NULL d_in or d_edges with n > 0.
 *   Your own binning: GP_DEFINE_HISTOGRAM(name, T, BIN) makes gp_histogram_<name>(d_hist,
 *   d_in, n, bins, s), counting BIN(x) (an int64_t; outside [0, bins) not counted), and
 *   gp_block_histogram_<name> for your kernels (detail/block/block_histogram.cuh).
 *
 *   Matrix multiply, row-major C = A.B (A m x k, B k x n, C m x n, leading dimensions k, n, n):
 *     cudaError_t gp_matmul_f32(float *d_c, const float *d_a, const float *d_b,
 *                               size_t m, size_t n, size_t k, cudaStream_t s);   (and _f64)
 *   f32: FMA on the CUDA cores (no TF32). f64: on the FP64 tensor cores (DMMA, IEEE double
 *   FMA; only the order of the sums differs) where built for sm_80 and later, else on the
 *   CUDA cores. Any m, n, k; k == 0 writes zeros; m == 0 or n == 0 is a no-op; C must not
 *   overlap A or B, and sizes must fit in size_t (else cudaErrorInvalidValue). With
 *   k == 0, A and B may be NULL. Where the tiles of C would leave SMs idle, k is split
 *   (over a cluster of two blocks on sm_90, or into up to 16 slices added by a second
 *   kernel): the sums' order then depends on the shape and the GPU's SM count (never on
 *   timing: the same bits on every run).
 *
 *   Stream compaction, <t> in i32 u32 i64 u64 f32 f64 (one pass, stable, deterministic; the
 *   counts land in device memory, nothing synchronises the host):
 *     cudaError_t gp_select_flagged_f32(float *d_out, uint64_t *d_count, const float *d_in,
 *                                       const uint8_t *d_flags, size_t n, cudaStream_t s);
 *     cudaError_t gp_partition_flagged_f32(float *d_selected, float *d_rejected, uint64_t *d_count,
 *                                          const float *d_in, const uint8_t *d_flags, size_t n, cudaStream_t s);
 *     cudaError_t gp_nonzero_f32(uint64_t *d_idx, uint64_t *d_count, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_unique_f32(float *d_out, uint64_t *d_count, const float *d_in, size_t n, cudaStream_t s);
 *     cudaError_t gp_run_length_f32(float *d_values, uint64_t *d_lengths, uint64_t *d_runs,
 *                                   const float *d_in, size_t n, cudaStream_t s);
 *   select and unique may run in place; n == 0 writes 0 to the count. Your own type and
 *   predicate or equality: GP_DEFINE_SELECT(name, T, P, PRED) (PRED(x, p), p of type P by
 *   value: gp_select_<name>, gp_partition_<name>), GP_DEFINE_UNIQUE(name, T, EQ)
 *   (gp_unique_<name>, gp_run_length_<name>); contracts at the end of select_host.cuh.
 *   Segments (<name> as for the reduce; offsets are uint64_t, num_segments + 1 of them,
 *   ascending; an empty segment gives the identity; heads: d_heads[i] != 0 starts a segment):
 *     cudaError_t gp_segmented_reduce_sum_f32(float *d_out, const float *d_in, const uint64_t *d_offsets,
 *                                             size_t num_segments, cudaStream_t s);
 *     cudaError_t gp_reduce_rows_sum_f32(float *d_out, const float *d_in, size_t rows, size_t cols,
 *                                        size_t ld, cudaStream_t s);               (and _cols_)
 *     cudaError_t gp_inclusive_segmented_scan_sum_f32(float *d_out, const float *d_in,
 *                                                     const uint8_t *d_heads, size_t n, cudaStream_t s);
 *     cudaError_t gp_reduce_by_key_sum_i32_f32(int32_t *d_keys_out, float *d_values_out, uint64_t *d_runs,
 *                                              const int32_t *d_keys, const float *d_values, size_t n,
 *                                              cudaStream_t s);   (sum; keys i32 u32 i64 u64, values i32 i64 f32 f64)
 *     cudaError_t gp_segmented_check_offsets(size_t *first_bad, const uint64_t *d_offsets,
 *                                            size_t num_segments, cudaStream_t s);
 *                    (debugging: cudaErrorInvalidValue where the offsets do not ascend; waits for s)
 *   Any segment lengths run at one rate (merge path); see detail/device/segmented.cuh.
 *
 * YOUR OWN TYPE AND OPERATOR (at file scope of a .cu file)
 *     typedef struct { float v; int i; } pair_t;
 *     #define PAIR_MAX(a, b) ((b).v > (a).v ? (b) : (a))      // ties keep the lower index
 *     GP_DEFINE_REDUCE(argmax, pair_t, PAIR_MAX, ((pair_t){-INFINITY, -1}))
 *     // now: gp_warp_reduce_argmax, gp_block_reduce_argmax, gp_reduce_argmax(...)
 *   Every family has the same shape: GP_DEFINE_REDUCE, GP_DEFINE_SCAN (name, T, OP,
 *   IDENTITY); GP_DEFINE_TRANSPOSE, GP_DEFINE_TILE (name, T).
 *   A map-reduce reduces MAP(x) (or MAP2(a, b) over two arrays) in one pass, from inputs
 *   of type Tin to a result of type T; it makes gp_<name>, the host function only:
 *     #define ABS_DIFF(a, b) fabs((double)(a) - (double)(b))
 *     GP_DEFINE_MAP2_REDUCE(l1_f32, float, double, ABS_DIFF, GP_OP_SUM, 0.0)
 *     // cudaError_t gp_l1_f32(double *d_out, const float *d_a, const float *d_b, size_t n, cudaStream_t s)
 *     GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY)  // gp_<name>(T *d_out, const Tin *d_in, n, s)
 *   MAP and MAP2 are function-like macros that run on the device, as OP is.
 *   - OP is a function-like macro OP(a, b), associative; it need not be commutative:
 *     everything combines in index order, so the answer is the sequential one (up to
 *     floating-point re-association). It runs on the device only: a host-only function, a
 *     token that is not function-like (`+`), an element over GP_MAX_ELEM_BYTES (128), a
 *     GP_DEFINE_* inside a function or in a C file: each is a compile error on your line.
 *   - An IDENTITY (or T) containing commas goes in parentheses, as above.
 *   - GP_DEFINE_<F> makes TU-local (static) definitions. To compile an instance once and
 *     call it from other files, C ones included: GP_DECLARE_<F>(name, T) in a shared
 *     header, and GP_DEFINE_<F>_EXTERN(name, T, OP, IDENTITY) in exactly one .cu file
 *     (the host functions get external C linkage; the warp and block names stay local
 *     to that file, and any .cu file can GP_DEFINE_<F> them for itself).
 *     typedef struct { float r, g, b; } rgb_t;
 *     GP_DEFINE_TRANSPOSE(rgb, rgb_t)       // gp_transpose_rgb, gp_tile_load_rgb, ...
 *
 * TILES IN YOUR OWN KERNEL (see detail/block/tile.cuh for the contract)
 *     __shared__ float s[32 * gp_tile_pitch(32, 4)];             // 32 x 33: columns conflict-free
 *     gp_tile_load_f32(s, gp_tile_pitch(32, 4), a + r0 * lda + c0, lda, m - r0, k - c0, 32, 32, 0.0f);
 *     __syncthreads();                                            // ragged edges read as 0
 *
 * HOST API RULES
 *   Destination first. Counts are size_t (more than 2^31 elements work). Asynchronous on
 *   the given stream; the result lands in device memory. Returns the first cudaError_t:
 *   n == 0 is a no-op returning cudaSuccess; a NULL pointer with n > 0 returns
 *   cudaErrorInvalidValue and launches nothing. No caller workspace. Scratch, when needed,
 *   is stream-ordered (cudaMallocFromPoolAsync on a pool the library keeps per device).
 *   STATUS MEMORY is the one state kept between calls (detail/util/status.cuh): per device
 *   and per stream (named by cudaStreamGetId, so per-thread default streams and re-created
 *   streams each get their own), a region holding only the library's status words (tile
 *   words tagged with the call's epoch, counters the kernel's last block resets), zeroed
 *   once when made and left as found by every call, so a grid-mode reduce or scan is one
 *   launch with no clearing and no allocation. Calls on one stream share its region (stream
 *   order separates them); calls on two streams never do. A call under stream capture uses
 *   graph-owned scratch cleared by the graph instead (a graph may run on any stream). At
 *   most 64 regions of at most 64 MB per device; beyond, a call clears its own scratch as
 *   before (slower by a launch, never wrong). A launch that fails without killing the
 *   context discards its region; a kernel fault kills the context anyway.
 *   gp_release_device_state(device) frees the regions and gives back the scratch the
 *   library's memory pool keeps between calls (up to 1/8 of the device's memory: mapping it
 *   afresh each call costs as much as the work); safe at exit, later calls make them again.
 *   No data of the user's is kept.
 *   Deterministic: the same input, at the same pointer alignment, on the same GPU model,
 *   gives bitwise the same output on every run and on every stream.
 *
 * OPTIONS (define before including)
 *   GPUPRIMS_IMPLEMENTATION   in one .cu file: compile the default instances there
 *                             (instead of linking libgpuprims)
 *   GPUPRIMS_IMPLEMENTATION_REDUCE, _SCAN, _TRANSPOSE, _MATMUL, _SELECT, _SEGMENTED, _HISTOGRAM,
 *   _SORT: one family only (the files in lib/)
 *   GP_DEBUG_SYNC             CUDA_CHK_LAUNCH() also synchronises, so errors inside a
 *                             kernel are reported at the launch that caused them
 *
 * NOTES
 *   - Library functions never print or exit. CUDA_CHK/CUDA_CHK_LAUNCH do (to stderr,
 *     then exit(1), through gp_check_fail; gp_check_format writes the same message into
 *     a buffer): they are for programs, not library code.
 *   - The device reduce and scan launch small inputs as one thread-block cluster on
 *     sm_90 and later; a build without sm_90 code launches one block or a grid instead.
 *   - Names: gp_ and GP_ are public; gp__ and GP__ are internal and may change.
 *     detail/names.txt lists every public function of the default instances.
 *   - MIT licence (LICENSE). Version: GPUPRIMS_VERSION_* above; releases are git tags
 *     vMAJOR.MINOR.PATCH on the commit whose header says that version (make version-check).
 *   - `make expand F=file.cu` shows the code the macros generate.
 */
#ifndef GPUPRIMS_CUH
#define GPUPRIMS_CUH

#define GPUPRIMS_VERSION_MAJOR 0
#define GPUPRIMS_VERSION_MINOR 5
#define GPUPRIMS_VERSION_PATCH 0
#define GPUPRIMS_VERSION_STRING "0.5.0"

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* Level 0: shared helpers and limits, checks, operators, scratch, the launch skeleton. */
#include "detail/util/common.cuh"
#include "detail/util/check.cuh"
#include "detail/util/ops.cuh"
#ifdef __CUDACC__
#include "detail/util/async_copy.cuh"
#include "detail/util/device_cache.cuh"
#include "detail/util/scratch.cuh"
#include "detail/util/status.cuh"
#include "detail/util/mbarrier.cuh"
#include "detail/util/launch.cuh"
/* Level 1: warp.  Level 2: block and tile. */
#include "detail/warp/warp.cuh"
#include "detail/block/block_reduce.cuh"
#include "detail/block/block_scan.cuh"
#include "detail/block/tile.cuh"
#include "detail/block/tile_async.cuh"
#include "detail/block/block_select.cuh"
#include "detail/block/block_histogram.cuh"
#include "detail/block/block_radix_rank.cuh"
/* Level 3: the single-pass engine. */
#include "detail/agent/single_pass.cuh"
#include "detail/agent/look_ahead.cuh"
#endif
/* Level 3: device-wide primitives (C files see their declarations only). */
#include "detail/device/reduce.cuh"
#include "detail/device/scan.cuh"
#include "detail/device/transpose.cuh"
#include "detail/device/matmul.cuh"
#include "detail/device/select.cuh"
#include "detail/device/select_one.cuh"
#include "detail/device/select_host.cuh"
#include "detail/device/segmented.cuh"
#include "detail/device/histogram.cuh"
#include "detail/device/sort.cuh"
/* Level 4: the default instances. */
#include "detail/instances.cuh"

#endif /* GPUPRIMS_CUH */
