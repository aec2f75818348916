/* detail/device/scan.cuh -- device-wide exclusive and inclusive scan: one pass over the data
 * (n elements read, n written), in index order, deterministic, in place allowed, no static
 * device state, optionally starting from a carry-in value on the device. Level 4 (the
 * host side and the instance macros): needs scan_plan.cuh, scan_kernels.cuh, launch.cuh
 * (the device-wide skeleton), device_cache.cuh, ops.cuh and common.cuh. The plan and
 * scratch arithmetic are plain host/device code, tested on the host.
 *
 * Registers. Each scanning thread holds 64 bytes of its tile (16 floats: four 16-byte
 * vectors). Warp w owns a contiguous run of the tile, held warp-striped (row j, lane l:
 * vector j*32+l), so every load and store instruction moves 512 contiguous bytes. Each
 * lane folds its vector, each row is a warp scan, rows chain by their totals, the warps
 * by their totals. Tiles are aligned to 16-byte boundaries of the input (the first tile
 * starts `pad` elements before d_in and masks them), so whole tiles move as 16-byte
 * vectors. The tile's exclusive prefix comes from:
 *   - ONE_BLOCK (n <= 4K floats on sm_90, 16K before): one tile, as many warps as hold
 *     elements: nothing to wait for.
 *   - CLUSTER (sm_90+, up to 16 tiles of up to 1024 threads, 2^18 floats, where the device
 *     takes clusters of 16, else 8 and 2^17): the blocks of one cluster swap tile totals
 *     through distributed shared memory. One launch, no scratch, no memset. The elements
 *     are spread over all the cluster's blocks wherever each still gets a few warps' worth:
 *     small scans are bound by what each SM has in flight, so more SMs moving less each
 *     finish sooner.
 *   - GRID: a persistent look-ahead scan (below): a small kernel clears the scratch and the
 *     scan kernel is launched as its programmatic dependent (sm_90+), so that launch overlaps it.
 * On sm_90 every call is chained (launch.cuh): its first kernel waits for the stream's
 * earlier work at its first instruction, so it can be placed on the GPU while that work
 * (the previous call, often) finishes.
 *
 * GRID, persistent look-ahead. As many blocks as fit (two per SM on an H100: registers),
 * each looping over tiles of 256 x 64 bytes that it takes from an atomic counter, so
 * tiles are handed out in increasing order, and only to blocks already running: a block
 * waits only on tiles taken before its own, by blocks that hold an SM and publish their
 * totals without waiting on anything. That is what makes a persistent grid safe when
 * other kernels hold most SMs (blocks that never start take no tiles). Each block has
 * four roles:
 *   - a producer warp (one lane) takes the next tile index and starts a bulk copy
 *     (cp.async.bulk) of the tile into a ring of shared-memory stages, completing on the
 *     stage's mbarrier; the ring keeps several tiles per block in flight whatever the
 *     scanning warps are doing (that, not registers, is what reaches the copy rate);
 *   - a reduce warp folds each tile as soon as it lands and publishes its total A(t) to
 *     a status word; it never waits on a prefix, so totals never chain (a first version
 *     let the scanning warps publish A(t) after their previous tile's prefix: every
 *     block then advanced in lock step with the slowest, at a fifth of the copy rate);
 *   - 8 scanning warps move a stage into registers, scan it, wait for the tile's
 *     exclusive prefix, add it, give the stage back and store from registers;
 *   - a look-ahead warp folds published tile totals into a running prefix (two warps
 *     for types of 8 bytes and more: gp__scan_look_ahead).
 * The look-ahead itself (batches, the fixed association, status words) is
 * agent/look_ahead.cuh; the plan is device/scan_plan.cuh, the kernels
 * device/scan_kernels.cuh; this file is the host side and the instance macros. */
#ifndef GPUPRIMS_DETAIL_SCAN_CUH
#define GPUPRIMS_DETAIL_SCAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

/* GP_DECLARE_SCAN(name, T): the host functions' declarations, with C linkage, for C and
 * CUDA files alike (the definitions are GP_DEFINE_SCAN_EXTERN in one .cu file). */
#define GP_DECLARE_SCAN(name, T)                                                                        \
    GP__EXTERN_C cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s); \
    GP__EXTERN_C cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s); \
    GP__EXTERN_C cudaError_t gp_exclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                           cudaStream_t s);                             \
    GP__EXTERN_C cudaError_t gp_inclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                           cudaStream_t s);

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../util/scratch.cuh"
#include "../util/device_cache.cuh"
#include "scan_plan.cuh"
#include "scan_kernels.cuh"

/* ---- host side ------------------------------------------------------------------------------ */

/* Knobs for the bench's ladder (NULL: the defaults). stages: ring depth (1..8); bulk: 0
 * makes the scanning warps load from global memory themselves; blocks_per_sm: caps the
 * persistent grid (0: as many as fit); memset_clear: clear the scratch with
 * cudaMemsetAsync before the launch, as the first versions did; trees_apart: the
 * look-ahead reduces its batches one tree after another, as the first versions did;
 * unchained: launch without waiting in the kernel for the stream's earlier work, as the
 * first versions did; one_block_warps, min_warps, cluster_max: the small plan's limits
 * (0: the defaults; 32, 32 and 8: one full block per 16K floats, in clusters of up to 8,
 * as the first versions did); ramp: ring stages first filled one at a time (0: the default,
 * GP__SCAN_RAMP; -1: none, as the first versions did); one_ahead: one look-ahead warp for
 * every type, as the first versions had; per_call: scratch from the pool for each call, cleared
 * before the kernel, as before status memory. */
typedef struct gp__scan_knobs {
    unsigned stages;
    int bulk;
    int blocks_per_sm;
    int memset_clear;
    int trees_apart;
    int unchained;
    unsigned one_block_warps;
    unsigned min_warps;
    unsigned cluster_max;
    int ramp;
    int one_ahead;
    int per_call;
} gp__scan_knobs;

/* The host side of every gp_{exclusive,inclusive}_scan_<name>. d_init (may be NULL): a
 * value on the device that comes before d_in[0] (the exclusive scan's first output). */
template <class Op>
static cudaError_t gp__scan(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s,
                            int inclusive, const typename Op::type *d_init = NULL,
                            const gp__scan_knobs *knobs = NULL)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || n > SIZE_MAX / 2 / sizeof(T)) return cudaErrorInvalidValue;
    /* in place, or apart: a partial overlap would let one tile overwrite another's input */
    const uintptr_t a = (uintptr_t)d_in, b = (uintptr_t)d_out, bytes = n * sizeof(T);
    if (a != b && gp__ranges_overlap(d_in, bytes, d_out, bytes)) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const int sm90 = dev.cluster_ok; /* clusters and bulk copies: an sm_90+ device and sm_90 code */
    void (*small)(T *, const T *, gp__scan_plan, const T *, int) = gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>;
    /* loaded first: the cluster limit asks it, and every small scan runs it */
    GP__TRY(gp__kernel_load<gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>>());
    const unsigned cluster_max =
        !sm90 ? 0 : knobs && knobs->cluster_max ? knobs->cluster_max
                                                : gp__cluster_limit<gp__scan_small_kernel<Op, GP__SCAN_BLOCK_BIG>>(
                                                      dev.id, GP__SCAN_BLOCK_BIG);
    const gp__scan_plan p =
        gp__scan_make_plan(a, b, n, sizeof(T), sm90,
                           knobs && knobs->one_block_warps ? knobs->one_block_warps : GP__SCAN_ONE_BLOCK_WARPS,
                           knobs && knobs->min_warps ? knobs->min_warps : GP__SCAN_CLUSTER_MIN_WARPS, cluster_max);
    if (p.tiles > GP__GRID_MAX) return cudaErrorInvalidValue;

    gp__launch_shape shape = {p.mode, (unsigned)p.tiles, p.block, 0, 0, 0, 0, 0, 0};
    /* chained (sm_90): each kernel waits for the stream's earlier work at its first
     * instruction, so a call is placed on the GPU while the one before it finishes */
    shape.chain = sm90 && !(knobs && knobs->unchained);
    if (p.mode != GP__GRID)
        return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *, uint32_t) {
            return cudaLaunchKernelEx(&cfg, small, d_out, d_in, p, d_init, inclusive);
        });

    const unsigned stages = knobs && knobs->stages ? (knobs->stages < GP__SCAN_STAGES_MAX ? knobs->stages
                                                                                         : GP__SCAN_STAGES_MAX)
                                                   : GP__SCAN_STAGES;
    const int bulk = sm90 && p.in_vec && (knobs ? knobs->bulk : 1);
    const size_t ring = bulk ? (size_t)stages * p.tile * sizeof(T) : 0;
    const unsigned flags = (knobs && knobs->trees_apart ? (unsigned)GP__SCAN_TREES_APART : 0u) |
                           (knobs && knobs->one_ahead ? (unsigned)GP__SCAN_ONE_AHEAD : 0u);
    const unsigned ramp = knobs && knobs->ramp ? (knobs->ramp < 0 ? 0u : (unsigned)knobs->ramp) : GP__SCAN_RAMP;
    void (*kernel)(T *, const T *, gp__scan_plan, char *, const T *, int, unsigned, int, unsigned, unsigned,
                   uint32_t) =
        gp__scan_grid_kernel<Op>;
    shape.threads = GP__SCAN_THREADS;
    shape.smem_bytes = ring;
    shape.scratch_bytes = shape.scratch_zeroed = gp__scan_scratch_bytes(p.tiles, sizeof(T));
    shape.scratch_wait = sm90 && !(knobs && knobs->memset_clear); /* its sm_90 code calls gp__chain_wait() */
    shape.status_kept = knobs && (knobs->memset_clear || knobs->per_call) ? 0 : GP__STATUS_SCAN;
    /* loaded, and opted in to the deepest ring any configuration asks for (the same for
     * every call of this type), so the bench's knobs never leave it below what one needs */
    const size_t ring_max =
        sm90 && gp__scan_vec(sizeof(T)) * sizeof(T) == 16 ? (size_t)GP__SCAN_STAGES_MAX * p.tile * sizeof(T) : 0;
    GP__TRY(gp__kernel_load<gp__scan_grid_kernel<Op>>((int)ring_max));
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &base, void *scratch, uint32_t epoch) {
        static gp__device_cache<int, (GP__SCAN_STAGES_MAX + 1) * 2> fits; /* per device and ring */
        int fit = 0;
        GP__TRY(gp__blocks_per_sm(fits, dev.id, (int)stages * 2 + (bulk != 0), kernel, GP__SCAN_THREADS, ring, &fit));
        if (knobs && knobs->blocks_per_sm > 0 && knobs->blocks_per_sm < fit) fit = knobs->blocks_per_sm;
        if (fit < 1) return cudaErrorInvalidConfiguration;
        const size_t most = (size_t)fit * dev.sms;
        cudaLaunchConfig_t cfg = base;
        cfg.gridDim = dim3((unsigned)(p.tiles < most ? p.tiles : most));
        return cudaLaunchKernelEx(&cfg, kernel, d_out, d_in, p, (char *)scratch, d_init, inclusive, stages, bulk, flags,
                                  ramp, epoch);
    });
}

/* The host side of every gp_{exclusive,inclusive}_scan_init_<name>: the carry-in is
 * required, and must not lie in the output, which the grid's blocks overwrite while
 * others, started later, are still to read the carry (it may lie in the input when the
 * scan is not in place). */
template <class Op>
static cudaError_t gp__scan_init(typename Op::type *d_out, const typename Op::type *d_in, size_t n,
                                 const typename Op::type *d_init, cudaStream_t s, int inclusive)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_init == NULL || (d_out != NULL && n <= SIZE_MAX / sizeof(T) &&
                           gp__ranges_overlap(d_init, sizeof(T), d_out, n * sizeof(T))))
        return cudaErrorInvalidValue;
    return gp__scan<Op>(d_out, d_in, n, s, inclusive, d_init);
}

/* ---- instantiation (the shape every family shares: see the end of reduce.cuh) ----------- */
#define GP__DEFINE_SCAN_DEVICE(name, T, OPS) \
    GP__DEFINE_WARP_SCAN(name, T, OPS)        \
    GP__DEFINE_BLOCK_SCAN(name, T, OPS)

#define GP__DEFINE_SCAN_HOST(SCOPE, name, T, OPS)                                              \
    SCOPE cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), n, s, 0); \
    }                                                                                         \
    SCOPE cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), n, s, 1); \
    }                                                                                         \
    SCOPE cudaError_t gp_exclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                    cudaStream_t s)                           \
    {                                                                                         \
        return gp__scan_init<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), n, \
                                                  gp__as_kernels<OPS>(d_init), s, 0);                   \
    }                                                                                         \
    SCOPE cudaError_t gp_inclusive_scan_init_##name(T *d_out, const T *d_in, size_t n, const T *d_init, \
                                                    cudaStream_t s)                           \
    {                                                                                         \
        return gp__scan_init<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), n, \
                                                  gp__as_kernels<OPS>(d_init), s, 1);                   \
    }

/* GP_DEFINE_SCAN(name, T, OP, IDENTITY): the scan family for a user's type and
 * associative operator (need not be commutative), at file scope of a .cu file:
 *   T gp_warp_inclusive_scan_<name>(T v)              lane l: v[0] OP ... OP v[l]      (warp.cuh)
 *   T gp_warp_exclusive_scan_<name>(T v, T *total)    lane l: v[0] OP ... OP v[l-1]    (warp.cuh)
 *   T gp_block_inclusive_scan_<name>(T v, T *agg)     by thread rank             (block_scan.cuh)
 *   T gp_block_exclusive_scan_<name>(T v, T *agg)                                (block_scan.cuh)
 *   T gp_block_scan_blelloch_<name>(T *s, unsigned n) padded shared-memory scan   (block_scan.cuh)
 *   cudaError_t gp_exclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       d_out[i] = d_in[0] OP ... OP d_in[i-1] (d_out[0] = IDENTITY)
 *   cudaError_t gp_inclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       d_out[i] = d_in[0] OP ... OP d_in[i]
 *   cudaError_t gp_exclusive_scan_init_<name>(T *d_out, const T *d_in, size_t n, const T *d_init, cudaStream_t s)
 *       d_out[i] = *d_init OP d_in[0] OP ... OP d_in[i-1] (d_out[0] = *d_init)
 *   cudaError_t gp_inclusive_scan_init_<name>(T *d_out, const T *d_in, size_t n, const T *d_init, cudaStream_t s)
 *       d_out[i] = *d_init OP d_in[0] OP ... OP d_in[i]
 *       The carry-in *d_init is one element in device memory, read on the device when the
 *       scan runs (so a previous call on s may compute it: chunked and multi-GPU scans);
 *       same speed as the plain scans. NULL d_init with n > 0, or d_init inside d_out's
 *       n elements, gives cudaErrorInvalidValue.
 *   All four: asynchronous on s; in place allowed (d_out == d_in), a partial overlap gives
 *   cudaErrorInvalidValue; n == 0 is a no-op; NULL with n > 0 is cudaErrorInvalidValue.
 * The operator struct is gp__op_scan_<name>, so GP_DEFINE_REDUCE may use the same name.
 * GP_DEFINE_SCAN_EXTERN / GP_DECLARE_SCAN: as for the reduce (reduce.cuh). */
#define GP__DEFINE_SCAN_AS(SCOPE, name, T, OP, IDENTITY)                                       \
    namespace {                                                                               \
    GP_DEFINE_OP(scan_##name, T, OP, IDENTITY)                                                \
    GP__DEFINE_SCAN_DEVICE(name, T, gp__op_scan_##name)                                       \
    }                                                                                         \
    GP__DEFINE_SCAN_HOST(SCOPE, name, T, gp__op_scan_##name)
#define GP_DEFINE_SCAN(name, T, OP, IDENTITY) GP__DEFINE_SCAN_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_SCAN_EXTERN(name, T, OP, IDENTITY) GP__DEFINE_SCAN_AS(extern "C", name, T, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_SCAN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SCAN)
#define GP_DEFINE_SCAN_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_SCAN_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SCAN_CUH */
