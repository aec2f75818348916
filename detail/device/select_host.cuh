/* detail/device/select_host.cuh -- the host side of stream compaction: argument checks, the
 * launch of select.cuh's kernel, and the instance macros (GP_DEFINE_SELECT,
 * GP_DEFINE_UNIQUE, their _EXTERN and GP_DECLARE_ forms, and the default instances' rows).
 * Level 4: needs select.cuh, select_one.cuh, select_ring.cuh and the launch skeleton. The argument checks are plain host code,
 * tested on the host. */
#ifndef GPUPRIMS_DETAIL_SELECT_HOST_CUH
#define GPUPRIMS_DETAIL_SELECT_HOST_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "select.cuh"
#include "select_one.cuh"
#include "select_ring.cuh"

/* Whether a call's buffers may be used together: none NULL, and no two overlapping, except
 * that the first output may be the input itself when `in_place` (select, unique). ptr[0] is
 * the input, ptr[1] the first output; bytes[k] each one's extent. A plain host function,
 * tested on the host. */
static inline int gp__select_args_ok(const void *const *ptr, const size_t *bytes, int count, int in_place)
{
    for (int i = 0; i < count; i++)
        if (ptr[i] == NULL) return 0;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++) {
            if (in_place && i == 0 && j == 1 && ptr[0] == ptr[1]) continue;
            if (gp__ranges_overlap(ptr[i], bytes[i], ptr[j], bytes[j])) return 0;
        }
    return 1;
}

/* GP_DECLARE_SELECT(name, T, P) / GP_DECLARE_UNIQUE(name, T): declarations, C linkage. */
#define GP_DECLARE_SELECT(name, T, P)                                                                    \
    GP__EXTERN_C cudaError_t gp_select_##name(T *d_out, uint64_t *d_count, const T *d_in, size_t n, P p,    \
                                              cudaStream_t s);                                           \
    GP__EXTERN_C cudaError_t gp_partition_##name(T *d_selected, T *d_rejected, uint64_t *d_count,          \
                                                 const T *d_in, size_t n, P p, cudaStream_t s);
#define GP_DECLARE_UNIQUE(name, T)                                                                        \
    GP__EXTERN_C cudaError_t gp_unique_##name(T *d_out, uint64_t *d_count, const T *d_in, size_t n,       \
                                              cudaStream_t s);                                            \
    GP__EXTERN_C cudaError_t gp_run_length_##name(T *d_values, uint64_t *d_lengths, uint64_t *d_runs,    \
                                                  const T *d_in, size_t n, cudaStream_t s);
/* The default instances' extra names: by flags, and nonzero. */
#define GP__DECLARE_SELECT_DEFAULT(name, T)                                                               \
    GP__EXTERN_C cudaError_t gp_select_flagged_##name(T *d_out, uint64_t *d_count, const T *d_in,         \
                                                      const uint8_t *d_flags, size_t n, cudaStream_t s);  \
    GP__EXTERN_C cudaError_t gp_partition_flagged_##name(T *d_selected, T *d_rejected, uint64_t *d_count, \
                                                         const T *d_in, const uint8_t *d_flags, size_t n, \
                                                         cudaStream_t s);                                 \
    GP__EXTERN_C cudaError_t gp_nonzero_##name(uint64_t *d_idx, uint64_t *d_count, const T *d_in, size_t n, \
                                               cudaStream_t s);                                           \
    GP_DECLARE_UNIQUE(name, T)

#ifdef __CUDACC__
#include <type_traits>

/* The ring's depth in stages for `kind` on elements of `elem` bytes on device `d`, where
 * the kernel has `fixed` bytes of static shared memory: GP__SEL_RING_STAGES, or for a
 * look-ahead by windows as many as two blocks an SM allow, up to GP__SEL_RING_STAGES_WINDOW
 * (its tiles wait for their prefixes longer), a multiple of the count warps. Below 2 the
 * ring is not used. A plain host function, tested on the host. */
static inline unsigned gp__select_ring_depth(int kind, size_t elem, const gp__device &d, size_t fixed)
{
    const size_t stage = gp__select_ring_stage(kind, elem), extra = gp__select_ring_extra(kind, elem);
    /* the dynamic shared memory a block may have, and that of each of two blocks an SM */
    const size_t block = (size_t)d.smem_block > fixed ? (size_t)d.smem_block - fixed : 0;
    const size_t half = (size_t)d.smem_sm / 2, kept = (size_t)d.smem_reserved + fixed;
    const size_t two = half > kept ? half - kept : 0;
    const size_t most = gp__select_ring_window(kind) && two < block ? two : block;
    const size_t room = most > extra ? (most - extra) / stage : 0;
    const size_t deepest = gp__select_ring_window(kind) ? GP__SEL_RING_STAGES_WINDOW : GP__SEL_RING_STAGES;
    /* a whole number of rounds of the count warps: count warp c takes the takes i = c mod C,
     * so each stage must always go to the same one. Else the warp of take i + stages could
     * wait on the stage's `full` while take i still fills it, and pass at once: an
     * mbarrier's parity tells only two phases apart. */
    const size_t counters = gp__select_ring_counters(kind), depth = room < deepest ? room : deepest;
    return (unsigned)(depth - depth % counters);
}

/* Launches the compaction of n > 0 elements (arguments checked by the caller): on the ring
 * kernel (select_ring.cuh) where it applies, sm_90 code on an sm_90+ device; else (inputs
 * off 16-byte boundaries, older GPUs) on select_one. ONE_TILE: select_one always (the bench's ladder). */
template <int KIND, class T, class P, class Fn, bool ONE_TILE>
static cudaError_t gp__select_launch(const gp__select_args<T, P> &a, size_t n, cudaStream_t s)
{
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    const gp__select_plan p = gp__select_make_plan((uintptr_t)a.in, (uintptr_t)a.flags, n, sizeof(T));
    if (p.tiles > GP__GRID_MAX) return cudaErrorInvalidValue;
    const int sm90 = dev.cluster_ok; /* sm_90 code on an sm_90+ device: chained launches, bulk copies */
    gp__launch_shape shape = {GP__GRID, (unsigned)p.tiles, GP__SEL_THREADS, 0, 0, 0, 0, 0, 0};
    shape.scratch_bytes = shape.scratch_zeroed = gp__select_scratch_bytes(p.tiles, KIND);
    shape.scratch_wait = sm90;
    shape.status_kept = GP__STATUS_SELECT; /* tagged words; the last block resets the counters */
    shape.chain = sm90;
    /* a persistent grid: as many blocks as fit at once, up to one a tile */
    const auto launch = [&](auto kernel, int smem, auto... extra) {
        shape.smem_bytes = (size_t)smem;
        return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &base, void *scratch, uint32_t epoch) {
            static gp__device_cache<int> fits;
            int fit = 0;
            GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, kernel, shape.threads, (size_t)smem, &fit));
            const size_t most = (size_t)fit * dev.sms;
            cudaLaunchConfig_t cfg = base;
            cfg.gridDim = dim3((unsigned)(p.tiles < most ? p.tiles : most));
            return cudaLaunchKernelEx(&cfg, kernel, a, p, (char *)scratch, epoch, extra...);
        });
    };
    if constexpr (!ONE_TILE && gp__select_ring_kind<KIND, T>()) {
        if (sm90 && gp__select_ring_ok(KIND, p, (uintptr_t)a.flags)) {
            void (*kernel)(gp__select_args<T, P>, gp__select_plan, char *, uint32_t, unsigned) =
                gp__select_ring_kernel<KIND, T, P, Fn>;
            /* its static shared memory (barriers, slots, exchange buffers), asked once per
             * device; the query loads the kernel (gp__kernel_attributes) */
            static gp__device_cache<size_t> statics;
            size_t fixed = 0;
            GP__TRY(statics.get(dev.id, 0, &fixed, [&](size_t *bytes) {
                cudaFuncAttributes fa;
                GP__TRY(gp__kernel_attributes((const void *)kernel, &fa));
                *bytes = fa.sharedSizeBytes;
                return cudaSuccess;
            }));
            const unsigned stages = gp__select_ring_depth(KIND, sizeof(T), dev, fixed);
            if (stages >= 2) {
                const int smem =
                    (int)(stages * gp__select_ring_stage(KIND, sizeof(T)) + gp__select_ring_extra(KIND, sizeof(T)));
                GP__TRY(gp__kernel_load<gp__select_ring_kernel<KIND, T, P, Fn>>(smem));
                shape.threads = gp__select_ring_threads(KIND);
                return launch(kernel, smem, stages);
            }
        }
    }
    const size_t smem = gp__select_smem(KIND, sizeof(T));
    if (smem > (size_t)dev.smem_block) return cudaErrorInvalidValue;
    void (*kernel)(gp__select_args<T, P>, gp__select_plan, char *, uint32_t) = gp__select_one_kernel<KIND, T, P, Fn>;
    GP__TRY(gp__kernel_load<gp__select_one_kernel<KIND, T, P, Fn>>((int)smem));
    return launch(kernel, (int)smem);
}

/* The host side of every name: checks, n == 0 (a stream-ordered memset of the count), the
 * launch. `outs` extra output bytes per element for the overlap check. */
template <int KIND, class T, class P, class Fn, bool ONE_TILE = false>
static cudaError_t gp__select(gp__select_args<T, P> a, size_t n, cudaStream_t s)
{
    if (a.count == NULL) return cudaErrorInvalidValue;
    if (n > SIZE_MAX / 16 / (sizeof(T) + 8)) return cudaErrorInvalidValue;
    const void *ptr[5];
    size_t bytes[5];
    int c = 0;
    ptr[c] = a.in, bytes[c++] = n * sizeof(T);
    if (KIND == GP__SEL_NONZERO) ptr[c] = a.idx, bytes[c++] = n * 8;
    else ptr[c] = a.out, bytes[c++] = n * sizeof(T);
    ptr[c] = a.count, bytes[c++] = 8;
    if (KIND == GP__SEL_FLAGGED) ptr[c] = a.flags, bytes[c++] = n;
    if (KIND <= GP__SEL_PRED && a.rejected) ptr[c] = a.rejected, bytes[c++] = n * sizeof(T);
    if (KIND == GP__SEL_RUNS) ptr[c] = a.lengths, bytes[c++] = n * 8;
    const int in_place = KIND != GP__SEL_RUNS && KIND != GP__SEL_NONZERO && a.rejected == NULL;
    if (n == 0) {
        if (!gp__select_args_ok(ptr + 2, bytes + 2, 1, 0)) return cudaErrorInvalidValue;
        return cudaMemsetAsync(a.count, 0, sizeof(uint64_t), s);
    }
    if (!gp__select_args_ok(ptr, bytes, c, in_place)) return cudaErrorInvalidValue;
    return gp__select_launch<KIND, T, P, Fn, ONE_TILE>(a, n, s);
}

/* The element types whose kernels the default instances run, where they give the same bits
 * as T's own: by flags values only move, so every T runs the kernels of the unsigned integer
 * of its size (gp__uint_of); nonzero, unique and run-length test x != 0 and ==, which on a
 * signed integer compare its bits, so signed integers run those of the unsigned integers
 * (floats keep their own: -0.0 == 0.0, NaN != NaN). 14 ring kernels and 14 one-tile
 * kernels to compile instead of 24 and 24. */
template <class T, bool = std::is_integral<T>::value>
struct gp__sel_compared_as {
    typedef T type;
};
template <class T>
struct gp__sel_compared_as<T, true> {
    typedef typename std::make_unsigned<T>::type type;
};
template <class T>
using gp__sel_compared = typename gp__sel_compared_as<T>::type;

/* gp__select on the elements of T run by the kernels of B (sizeof(B) == sizeof(T)) and Fn on B. */
template <int KIND, class B, class Fn, class T, class P>
static cudaError_t gp__select_as(gp__select_args<T, P> a, size_t n, cudaStream_t s)
{
    static_assert(sizeof(B) == sizeof(T), "the same bits");
    return gp__select<KIND, B, P, Fn>({reinterpret_cast<const B *>(a.in), a.flags, a.p, reinterpret_cast<B *>(a.out),
                                      reinterpret_cast<B *>(a.rejected), a.idx, a.lengths, a.count},
                                     n, s);
}

/* ---- instantiation --------------------------------------------------------------------------
 * The default instances (every select type; detail/instances.cuh):
 *   cudaError_t gp_select_flagged_<t>(T *d_out, uint64_t *d_count, const T *d_in,
 *                                     const uint8_t *d_flags, size_t n, cudaStream_t s)
 *       keeps d_in[i] where d_flags[i] != 0, in order; *d_count (device) = the number kept.
 *   cudaError_t gp_partition_flagged_<t>(T *d_selected, T *d_rejected, uint64_t *d_count,
 *                                        const T *d_in, const uint8_t *d_flags, size_t n, cudaStream_t s)
 *       kept items in order to d_selected, the others in order to d_rejected (stable both).
 *   cudaError_t gp_nonzero_<t>(uint64_t *d_idx, uint64_t *d_count, const T *d_in, size_t n, cudaStream_t s)
 *       the indices of the elements != 0 (floats: NaN counts, -0.0 does not), increasing.
 *   cudaError_t gp_unique_<t>(T *d_out, uint64_t *d_count, const T *d_in, size_t n, cudaStream_t s)
 *       the first of each run of equal consecutive elements (std::unique; floats by ==).
 *   cudaError_t gp_run_length_<t>(T *d_values, uint64_t *d_lengths, uint64_t *d_runs,
 *                                 const T *d_in, size_t n, cudaStream_t s)
 *       unique's values, each run's length, and the number of runs.
 * All: asynchronous on s, one launch, deterministic; outputs hold at most n elements and are
 * untouched past the count; n == 0 writes 0 to the count (a stream-ordered memset);
 * select and unique may run in place (d_out == d_in); any other overlap between the input,
 * the outputs and the count, or a NULL pointer, gives cudaErrorInvalidValue and launches
 * nothing. */
#define GP__DEFINE_SELECT_DEFAULT_HOST(SCOPE, name, T)                                                     \
    SCOPE cudaError_t gp_select_flagged_##name(T *d_out, uint64_t *d_count, const T *d_in,                 \
                                               const uint8_t *d_flags, size_t n, cudaStream_t s)           \
    {                                                                                                      \
        return gp__select_as<GP__SEL_FLAGGED, gp__uint_of<T>, gp__sel_default_fn<gp__uint_of<T>>>(     \
            gp__select_args<T, char>{d_in, d_flags, 0, d_out, NULL, NULL, NULL, d_count}, n, s);          \
    }                                                                                                      \
    SCOPE cudaError_t gp_partition_flagged_##name(T *d_selected, T *d_rejected, uint64_t *d_count,         \
                                                  const T *d_in, const uint8_t *d_flags, size_t n,         \
                                                  cudaStream_t s)                                          \
    {                                                                                                      \
        if (d_rejected == NULL) return cudaErrorInvalidValue;                                              \
        return gp__select_as<GP__SEL_FLAGGED, gp__uint_of<T>, gp__sel_default_fn<gp__uint_of<T>>>(     \
            gp__select_args<T, char>{d_in, d_flags, 0, d_selected, d_rejected, NULL, NULL, d_count}, n, s); \
    }                                                                                                      \
    SCOPE cudaError_t gp_nonzero_##name(uint64_t *d_idx, uint64_t *d_count, const T *d_in, size_t n,       \
                                        cudaStream_t s)                                                    \
    {                                                                                                      \
        return gp__select_as<GP__SEL_NONZERO, gp__sel_compared<T>, gp__sel_default_fn<gp__sel_compared<T>>>( \
            gp__select_args<T, char>{d_in, NULL, 0, NULL, NULL, d_idx, NULL, d_count}, n, s);              \
    }                                                                                                      \
    GP__DEFINE_UNIQUE_HOST(SCOPE, name, T, gp__sel_compared<T>, gp__sel_default_fn<gp__sel_compared<T>>)

/* B: the element type the kernels take (T, or one of T's size that FN compares alike) */
#define GP__DEFINE_UNIQUE_HOST(SCOPE, name, T, B, FN)                                                      \
    SCOPE cudaError_t gp_unique_##name(T *d_out, uint64_t *d_count, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                                      \
        return gp__select_as<GP__SEL_UNIQUE, B, FN>(                                                       \
            gp__select_args<T, char>{d_in, NULL, 0, d_out, NULL, NULL, NULL, d_count}, n, s);             \
    }                                                                                                      \
    SCOPE cudaError_t gp_run_length_##name(T *d_values, uint64_t *d_lengths, uint64_t *d_runs, const T *d_in, \
                                           size_t n, cudaStream_t s)                                       \
    {                                                                                                      \
        return gp__select_as<GP__SEL_RUNS, B, FN>(                                                         \
            gp__select_args<T, char>{d_in, NULL, 0, d_values, NULL, NULL, d_lengths, d_runs}, n, s);      \
    }

#define GP__DEFINE_SELECT_HOST(SCOPE, name, T, P, FN)                                                      \
    SCOPE cudaError_t gp_select_##name(T *d_out, uint64_t *d_count, const T *d_in, size_t n, P p,           \
                                       cudaStream_t s)                                                     \
    {                                                                                                      \
        return gp__select<GP__SEL_PRED, T, P, FN>({d_in, NULL, p, d_out, NULL, NULL, NULL, d_count}, n, s); \
    }                                                                                                      \
    SCOPE cudaError_t gp_partition_##name(T *d_selected, T *d_rejected, uint64_t *d_count, const T *d_in,  \
                                          size_t n, P p, cudaStream_t s)                                   \
    {                                                                                                      \
        if (d_rejected == NULL) return cudaErrorInvalidValue;                                              \
        return gp__select<GP__SEL_PRED, T, P, FN>({d_in, NULL, p, d_selected, d_rejected, NULL, NULL, d_count}, \
                                                  n, s);                                                   \
    }

/* GP_DEFINE_SELECT(name, T, P, PRED): at file scope of a .cu file, for a user's type T and a
 * predicate PRED(x, p) (a function-like macro or device function; p of type P, passed by
 * value to the kernel), makes
 *   cudaError_t gp_select_<name>(T *d_out, uint64_t *d_count, const T *d_in, size_t n, P p, cudaStream_t s)
 *   cudaError_t gp_partition_<name>(T *d_selected, T *d_rejected, uint64_t *d_count, const T *d_in,
 *                                   size_t n, P p, cudaStream_t s)
 *   unsigned gp_block_select_<name>(T *dst, T x, P p, unsigned *position)   (block_select.cuh)
 * with the contract of the default instances above.
 * GP_DEFINE_UNIQUE(name, T, EQ): EQ(a, b) an equality (true for equal neighbours); makes
 * gp_unique_<name> and gp_run_length_<name>, as above.
 * _EXTERN: external (C) linkage, for one .cu file; GP_DECLARE_SELECT / GP_DECLARE_UNIQUE the
 * declarations for the others. The structs are gp__sel_fn_<name> and gp__eq_fn_<name>. */
#define GP__DEFINE_SELECT_AS(SCOPE, name, T, P, PRED)                                                      \
    namespace gp_DEFINE_must_be_used_at_file_scope {}                                                      \
    static_assert(sizeof(T) <= GP_MAX_ELEM_BYTES, "gpuprims: element type " #T " is larger than GP_MAX_ELEM_BYTES"); \
    GP__DIAG_PUSH_OP_ERRORS                                                                                \
    namespace {                                                                                            \
    struct gp__sel_fn_##name {                                                                             \
        static __device__ __forceinline__ bool pred(const T &x, const P &p) { return (PRED(x, p)) ? true : false; } \
    };                                                                                                     \
    GP__DEFINE_BLOCK_SELECT_PRED(name, T, P, gp__sel_fn_##name)                                            \
    }                                                                                                      \
    GP__DIAG_POP                                                                                           \
    GP__DEFINE_SELECT_HOST(SCOPE, name, T, P, gp__sel_fn_##name)
#define GP_DEFINE_SELECT(name, T, P, PRED) GP__DEFINE_SELECT_AS([[maybe_unused]] static, name, T, P, PRED)
#define GP_DEFINE_SELECT_EXTERN(name, T, P, PRED) GP__DEFINE_SELECT_AS(extern "C", name, T, P, PRED)

#define GP__DEFINE_UNIQUE_AS(SCOPE, name, T, EQ)                                                           \
    namespace gp_DEFINE_must_be_used_at_file_scope {}                                                      \
    static_assert(sizeof(T) <= GP_MAX_ELEM_BYTES, "gpuprims: element type " #T " is larger than GP_MAX_ELEM_BYTES"); \
    GP__DIAG_PUSH_OP_ERRORS                                                                                \
    namespace {                                                                                            \
    struct gp__eq_fn_##name {                                                                              \
        static __device__ __forceinline__ bool eq(const T &a, const T &b) { return (EQ(a, b)) ? true : false; } \
    };                                                                                                     \
    }                                                                                                      \
    GP__DIAG_POP                                                                                           \
    GP__DEFINE_UNIQUE_HOST(SCOPE, name, T, T, gp__eq_fn_##name)
#define GP_DEFINE_UNIQUE(name, T, EQ) GP__DEFINE_UNIQUE_AS([[maybe_unused]] static, name, T, EQ)
#define GP_DEFINE_UNIQUE_EXTERN(name, T, EQ) GP__DEFINE_UNIQUE_AS(extern "C", name, T, EQ)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_SELECT(name, T, P, PRED) GP__NEEDS_CUDA(GP_DEFINE_SELECT)
#define GP_DEFINE_SELECT_EXTERN(name, T, P, PRED) GP__NEEDS_CUDA(GP_DEFINE_SELECT_EXTERN)
#define GP_DEFINE_UNIQUE(name, T, EQ) GP__NEEDS_CUDA(GP_DEFINE_UNIQUE)
#define GP_DEFINE_UNIQUE_EXTERN(name, T, EQ) GP__NEEDS_CUDA(GP_DEFINE_UNIQUE_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SELECT_HOST_CUH */
