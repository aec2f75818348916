/* detail/device/reduce.cuh -- device-wide reduce and map-reduce: one pass over the input for any n
 * (one launch: a cluster up to 1 MB, a grid whose last block finishes beyond), in index
 * order, deterministic. Level 4: the host side and the instance macros; the plan (plain
 * host/device arithmetic, tested on the host) is reduce_plan.cuh, the kernel
 * reduce_kernels.cuh. Needs those, warp.cuh and block_reduce.cuh (the warp and block
 * names), launch.cuh (the device-wide skeleton and its status memory), ops.cuh and
 * common.cuh.
 *
 * One kernel serves both: it reduces MAP(a[i]) or MAP2(a[i], b[i]) over i, and a plain
 * reduce is the identity map. A two-input map (a dot product) streams both arrays in step,
 * so each is read once.
 *
 * How it works. The input splits into a head (the elements before the first 16-byte
 * boundary), a body of whole 16-byte vectors, and a tail (what is left after the last
 * whole vector). Each block streams one contiguous run of the body, one tile at a time:
 * a tile is 64 KB, and warp w reads its w-th 4 KB of it (32 lanes x UNROLL vectors, all
 * loads issued before any is used; a two-input map takes half as many rows of each input,
 * so the bytes in flight, the tile's bytes and the registers stay the same; elements wider
 * than 8 bytes take half as many rows), so the whole grid sweeps memory in large
 * contiguous pieces, as a bandwidth-bound kernel wants. Order is kept at every level: a
 * lane reduces its own vector in order; a warp combines its lanes in lane order (shuffles)
 * and its rows in order; the warps' results for GROUP tiles go to shared memory, and
 * after one barrier warp 0 folds them in (tile, warp) order into the block's total.
 * Blocks then combine in block order:
 *   - GP__ONE_BLOCK: one tile or less, one block, writes the result itself.
 *   - GP__CLUSTER (sm_90+): up to GP__REDUCE_CLUSTER_TILES tiles (1 MB), up to 8 blocks (16
 *     where the device allows) launched as one thread-block cluster, spread as thin as one
 *     warp step (4 KB) a block, each block a contiguous run; block 0
 *     reads the others' totals through distributed shared memory. One launch and no
 *     scratch: up to 1 MB, 8 blocks read the input in less time than the host takes for
 *     GRID mode's second launch and scratch allocation (see the tuning).
 *   - GP__GRID: large n, a full grid; each block publishes its total in the stream's
 *     status region (util/status.cuh), tagged with the call's epoch; warp 0 of the grid's
 *     last block polls the totals until all are this call's and combines them in block
 *     order. One launch, no clearing, and no counter or fence between the last block's data
 *     and the result (measured on the H100 at 2^24 floats: a done counter and its last
 *     block's reads took 1.7 us after the last total; see docs/reduce.md).
 * With GP__REDUCE_CHAIN, the first kernel is a programmatic dependent of whatever the
 * stream ran before (sm_90): it waits for that work at its first instruction, so nothing
 * changes for a user's kernel before it, but a reduce after a reduce is placed on the GPU
 * while the earlier one finishes, and back-to-back calls do not pay a launch each.
 * (launch.cuh runs the three modes; it is shared with the scan.)
 * The head and tail (a few elements) are combined by whoever writes the result. Every
 * split depends only on n, the pointer's alignment and the device's SM count: the same
 * input at the same alignment on the same GPU model gives bitwise the same result on every
 * run and every stream. */
#ifndef GPUPRIMS_DETAIL_REDUCE_CUH
#define GPUPRIMS_DETAIL_REDUCE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

/* GP_DECLARE_REDUCE(name, T): the host function's declaration, with C linkage, for C and
 * CUDA files alike (the definition is GP_DEFINE_REDUCE_EXTERN in one .cu file):
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s); */
#define GP_DECLARE_REDUCE(name, T) \
    GP__EXTERN_C cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s);

/* GP_DECLARE_MAP_REDUCE(name, Tin, T) and GP_DECLARE_MAP2_REDUCE(name, Tin, T): the same for
 * a map-reduce (the definitions: GP_DEFINE_MAP_REDUCE_EXTERN, GP_DEFINE_MAP2_REDUCE_EXTERN):
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_in, size_t n, cudaStream_t s);
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s); */
#define GP_DECLARE_MAP_REDUCE(name, Tin, T) \
    GP__EXTERN_C cudaError_t gp_##name(T *d_out, const Tin *d_in, size_t n, cudaStream_t s);
#define GP_DECLARE_MAP2_REDUCE(name, Tin, T) \
    GP__EXTERN_C cudaError_t gp_##name(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s);

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../warp/warp.cuh"
#include "../block/block_reduce.cuh"
#include "reduce_plan.cuh"
#include "reduce_kernels.cuh"

/* The host side of every map-reduce (d_b: the second input of a two-input map; d_a again
 * for one input) and, with the identity map, of every gp_reduce_<name> (gp__reduce below).
 * PER_CALL (the bench's ladder only): grid-mode scratch from the pool for this call, cleared
 * before the kernel, instead of the stream's status memory. */
template <class Op, class Map, bool PER_CALL = false>
static cudaError_t gp__map_reduce(typename Op::type *d_out, const typename Map::in_type *d_a,
                                  const typename Map::in_type *d_b, size_t n, cudaStream_t s)
{
    typedef typename Op::type T;
    typedef typename Map::in_type Tin;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_a == NULL || d_b == NULL) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    GP__TRY(gp__kernel_load<gp__reduce_kernel<Op, Map>>());
    const unsigned cluster_max = dev.cluster_ok ? gp__cluster_limit<gp__reduce_kernel<Op, Map>>(dev.id, GP__REDUCE_BLOCK)
                                                : GP__CLUSTER_MAX;
    const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)d_a, (uintptr_t)d_b, n, sizeof(Tin), Map::ARITY, dev.sms,
                                                   dev.cluster_ok, cluster_max);
    const gp__reduce_src<Tin> src = {d_a, d_b};
    gp__launch_shape shape = gp__reduce_shape(p, sizeof(T));
    /* programmatic dependent launches where the kernels wait for them: sm_90 code on an
     * sm_90 device, the same condition as for clusters */
    const int pdl_ok = dev.cluster_ok;
    shape.chain = GP__REDUCE_CHAIN && pdl_ok;
    if (PER_CALL) shape.status_kept = 0;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, gp__reduce_kernel<Op, Map>, d_out, src, p, static_cast<char *>(scratch), epoch);
    });
}

/* The plain reduce: the identity map. */
template <class Op, bool PER_CALL = false>
static cudaError_t gp__reduce(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s)
{
    return gp__map_reduce<Op, gp__map_identity<typename Op::type>, PER_CALL>(d_out, d_in, d_in, n, s);
}

/* ---- instantiation ----------------------------------------------------------------------
 * Every family has the same macros (klib's KHASH_DECLARE / KHASH_INIT2 are the model):
 *   GP__DEFINE_<F>_DEVICE(name, T, OPS)          the warp- and block-level names
 *   GP__DEFINE_<F>_HOST(SCOPE, name, T, OPS)     the host launchers, linkage SCOPE
 *   GP_DECLARE_<F>(name, T)                      declarations, C linkage (C and CUDA)
 *   GP_DEFINE_<F>(name, T, OP, IDENTITY)         all of it, local to this TU (static)
 *   GP_DEFINE_<F>_EXTERN(name, T, OP, IDENTITY)  all of it; the host launchers with
 *                                                external C linkage, for one TU of a
 *                                                program whose other files use GP_DECLARE_<F>
 * OPS is an operator struct from GP_DEFINE_OP. */
#define GP__DEFINE_REDUCE_DEVICE(name, T, OPS) \
    GP__DEFINE_WARP_REDUCE(name, T, OPS)        \
    GP__DEFINE_BLOCK_REDUCE(name, T, OPS)

#define GP__DEFINE_REDUCE_HOST(SCOPE, name, T, OPS)                                         \
    SCOPE cudaError_t gp_reduce_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s)  \
    {                                                                                      \
        return gp__reduce<gp__kernels_op<OPS>>(gp__as_kernels<OPS>(d_out), gp__as_kernels<OPS>(d_in), n, s); \
    }

/* GP_DEFINE_REDUCE(name, T, OP, IDENTITY): the reduce family for a user's type and
 * associative operator (need not be commutative), at file scope of a .cu file:
 *   T gp_warp_reduce_<name>(T v)         every lane gets the warp's total     (warp.cuh)
 *   T gp_warp_reduce_smem_<name>(T *s)   lane 0: the total of s[0..63]         (warp.cuh)
 *   T gp_block_reduce_<name>(T v)        every thread gets the block's total   (block_reduce.cuh)
 *   cudaError_t gp_reduce_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *       *d_out = d_in[0] OP d_in[1] OP ... OP d_in[n-1], asynchronously on s; n == 0 is a
 *       no-op; NULL pointers with n > 0 give cudaErrorInvalidValue and launch nothing.
 * The operator struct is gp__op_reduce_<name>. GP_DEFINE_REDUCE gives TU-local (static)
 * definitions; GP_DEFINE_REDUCE_EXTERN gives gp_reduce_<name> external C linkage (use it
 * in one .cu file, and GP_DECLARE_REDUCE(name, T) in the files that call it). */
#define GP__DEFINE_REDUCE_AS(SCOPE, name, T, OP, IDENTITY)                                  \
    namespace {                                                                            \
    GP_DEFINE_OP(reduce_##name, T, OP, IDENTITY)                                           \
    GP__DEFINE_REDUCE_DEVICE(name, T, gp__op_reduce_##name)                                \
    }                                                                                      \
    GP__DEFINE_REDUCE_HOST(SCOPE, name, T, gp__op_reduce_##name)
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_AS([[maybe_unused]] static, name, T, OP, IDENTITY)
#define GP_DEFINE_REDUCE_EXTERN(name, T, OP, IDENTITY) \
    GP__DEFINE_REDUCE_AS(extern "C", name, T, OP, IDENTITY)

/* ---- map-reduce ---------------------------------------------------------------------------
 * GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY), at file scope of a .cu file:
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_in, size_t n, cudaStream_t s)
 *       *d_out = MAP(d_in[0]) OP MAP(d_in[1]) OP ... OP MAP(d_in[n-1]), in one pass over
 *       d_in (the mapped values are never stored).
 * GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY):
 *   cudaError_t gp_<name>(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s)
 *       *d_out = MAP2(d_a[0], d_b[0]) OP ... OP MAP2(d_a[n-1], d_b[n-1]), reading each
 *       array once (a dot product: MAP2(a, b) = a * b, OP = sum).
 * MAP(x) and MAP2(a, b) are function-like macros that run on the device and give a T; OP
 * and IDENTITY are as for GP_DEFINE_REDUCE (associative, not necessarily commutative:
 * the mapped values combine in index order). Everything gp_reduce_<name> promises holds:
 * one launch, deterministic, size_t counts, any alignment the type allows (two inputs at
 * different offsets from a 16-byte boundary are read element by element), n == 0 a no-op,
 * a NULL pointer with n > 0 cudaErrorInvalidValue with nothing launched. The output may be
 * one of the inputs. Only the host function is made: for the warp and block names of
 * (T, OP), use GP_DEFINE_REDUCE. The operator struct is gp__op_map_reduce_<name>, the
 * map gp__map_<name>. GP_DEFINE_MAP_REDUCE and GP_DEFINE_MAP2_REDUCE give a TU-local
 * (static) gp_<name>; the _EXTERN forms give it external C linkage (use one in a single
 * .cu file, and GP_DECLARE_MAP_REDUCE / GP_DECLARE_MAP2_REDUCE(name, Tin, T) elsewhere).
 * A MAP that calls a host-only function fails to compile, as an OP does (ops.cuh). */
#define GP__DEFINE_MAP(name, Tin, T, ARITY_, PARAMS, CALL)                                   \
    GP__DIAG_PUSH_OP_ERRORS                                                                \
    struct gp__map_##name {                                                                \
        typedef Tin in_type;                                                               \
        typedef T type;                                                                    \
        enum { ARITY = ARITY_ };                                                           \
        static __device__ __forceinline__ T apply PARAMS { return CALL; }                  \
    };                                                                                     \
    GP__DIAG_POP

#define GP__DEFINE_MAP_REDUCE_HOST(SCOPE, name, Tin, T, OPS, MAPS)                           \
    SCOPE cudaError_t gp_##name(T *d_out, const Tin *d_in, size_t n, cudaStream_t s)       \
    {                                                                                      \
        return gp__map_reduce<OPS, MAPS>(d_out, d_in, d_in, n, s);                         \
    }
#define GP__DEFINE_MAP2_REDUCE_HOST(SCOPE, name, Tin, T, OPS, MAPS)                          \
    SCOPE cudaError_t gp_##name(T *d_out, const Tin *d_a, const Tin *d_b, size_t n, cudaStream_t s) \
    {                                                                                      \
        return gp__map_reduce<OPS, MAPS>(d_out, d_a, d_b, n, s);                           \
    }

#define GP__DEFINE_MAP_REDUCE_AS(SCOPE, name, Tin, T, MAP, OP, IDENTITY)                    \
    namespace {                                                                            \
    GP_DEFINE_OP(map_reduce_##name, T, OP, IDENTITY)                                       \
    GP__DEFINE_MAP(name, Tin, T, 1, (Tin x), MAP(x))                                       \
    }                                                                                      \
    GP__DEFINE_MAP_REDUCE_HOST(SCOPE, name, Tin, T, gp__op_map_reduce_##name, gp__map_##name)
#define GP__DEFINE_MAP2_REDUCE_AS(SCOPE, name, Tin, T, MAP2, OP, IDENTITY)                  \
    namespace {                                                                            \
    GP_DEFINE_OP(map_reduce_##name, T, OP, IDENTITY)                                       \
    GP__DEFINE_MAP(name, Tin, T, 2, (Tin a, Tin b), MAP2(a, b))                            \
    }                                                                                      \
    GP__DEFINE_MAP2_REDUCE_HOST(SCOPE, name, Tin, T, gp__op_map_reduce_##name, gp__map_##name)
#define GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY) \
    GP__DEFINE_MAP_REDUCE_AS([[maybe_unused]] static, name, Tin, T, MAP, OP, IDENTITY)
#define GP_DEFINE_MAP_REDUCE_EXTERN(name, Tin, T, MAP, OP, IDENTITY) \
    GP__DEFINE_MAP_REDUCE_AS(extern "C", name, Tin, T, MAP, OP, IDENTITY)
#define GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY) \
    GP__DEFINE_MAP2_REDUCE_AS([[maybe_unused]] static, name, Tin, T, MAP2, OP, IDENTITY)
#define GP_DEFINE_MAP2_REDUCE_EXTERN(name, Tin, T, MAP2, OP, IDENTITY) \
    GP__DEFINE_MAP2_REDUCE_AS(extern "C", name, Tin, T, MAP2, OP, IDENTITY)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_REDUCE(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE)
#define GP_DEFINE_REDUCE_EXTERN(name, T, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_REDUCE_EXTERN)
#define GP_DEFINE_MAP_REDUCE(name, Tin, T, MAP, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP_REDUCE)
#define GP_DEFINE_MAP_REDUCE_EXTERN(name, Tin, T, MAP, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP_REDUCE_EXTERN)
#define GP_DEFINE_MAP2_REDUCE(name, Tin, T, MAP2, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP2_REDUCE)
#define GP_DEFINE_MAP2_REDUCE_EXTERN(name, Tin, T, MAP2, OP, IDENTITY) GP__NEEDS_CUDA(GP_DEFINE_MAP2_REDUCE_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_CUH */
