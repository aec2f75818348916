/* detail/device/segmented_cols.cuh -- the reduce along columns (gp_reduce_cols_<name>): the
 * plan, the kernel and its host side. Level 4: needs reduce_plan.cuh (gp__reduce_vec_elems:
 * elements a 16-byte vector), segmented_reduce.cuh (gp__seg_fill: every column the identity
 * when there are no rows), agent/single_pass.cuh (gp__block_is_last: a strip's last chunk),
 * launch.cuh, ops.cuh and common.cuh; the public names and macros are in segmented.cuh.
 *
 * A block is row groups of w lanes (w * VEC columns, VEC elements a 16-byte vector); each
 * lane folds its VEC columns over a contiguous run of rows, in index order, U rows in
 * flight, and the groups' partials fold in order in shared memory. Chunks of rows are
 * spread over blocks, their partials written to scratch, and the last block of a strip
 * folds them as it folds rows: every lane a run of chunks, then the groups in order. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_COLS_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_COLS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#define GP__COLS_THREADS 256        /* a column block: row groups of w lanes */
#ifndef GP__COLS_U
#define GP__COLS_U 4                /* rows a lane loads before it folds any (fewer for vectors of more than 4 elements) */
#endif
#define GP__COLS_TARGET_BLOCKS 2048 /* blocks a column reduce aims at */

/* The column plan: a strip is w * vec columns (w lanes a row group, a power of two up to
 * 32, the fewest whose vectors of `vec` elements cover the row); rows split into `chunks`
 * runs of `per` rows (the last may be short). It depends on the shape and the element size
 * only, so the association is the same on every GPU and at every alignment. */
typedef struct gp__cols_plan {
    size_t strips, chunks, per;
    unsigned w;
} gp__cols_plan;
static inline GP__HD gp__cols_plan gp__cols_make_plan(size_t rows, size_t cols, size_t vec)
{
    gp__cols_plan p;
    p.w = 1;
    while (p.w < 32 && p.w * vec < cols) p.w *= 2;
    p.strips = gp__ceil_div(cols, p.w * vec);
    size_t chunks = gp__ceil_div(GP__COLS_TARGET_BLOCKS, p.strips);
    /* each lane at least 32 rows: with 8, 4096^2 floats took 39-42 us against 36-38 at 32 (H100) */
    const size_t min_rows = GP__COLS_THREADS / p.w * 32;
    if (chunks > gp__ceil_div(rows, min_rows)) chunks = gp__ceil_div(rows, min_rows);
    if (chunks < 1) chunks = 1;
    p.per = gp__ceil_div(rows, chunks);
    p.chunks = rows ? gp__ceil_div(rows, p.per) : 1;
    return p;
}

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../agent/single_pass.cuh" /* gp__block_is_last: a strip's last chunk */
#include "reduce_plan.cuh"          /* gp__reduce_vec_elems: the columns' vectors */
#include "segmented_reduce.cuh"     /* gp__seg_fill */

/* Columns: rows [0, n) from p (leading dimension ld) folded into acc, in row order, U rows
 * in flight; each row's VEC elements as one 16-byte load (VECLOAD) or element by element,
 * the `left` that lie inside the row (the association is the same). CG: the partials of
 * other blocks. */
template <class Op, bool CG, bool VECLOAD>
static __device__ __forceinline__ void gp__cols_rows(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                     const typename Op::type *p, size_t n, size_t ld, size_t left)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)), U = VEC > 4 ? (GP__COLS_U * 4 + VEC - 1) / VEC : GP__COLS_U };
    auto load = [&](const T *q, T(&x)[VEC]) {
        if constexpr (VECLOAD) {
            const uint4 w = CG ? __ldcg(reinterpret_cast<const uint4 *>(q)) : __ldg(reinterpret_cast<const uint4 *>(q));
            memcpy(x, &w, sizeof x);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; k++)
                x[k] = (size_t)k < left ? (CG ? gp__load_cg(q + k) : gp__load_elem(q + k)) : Op::identity();
        }
    };
    size_t r = 0;
    for (; r + U <= n; r += U, p += U * ld) {
        T x[U][VEC];
#pragma unroll
        for (int u = 0; u < U; u++) load(p + u * ld, x[u]);
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int k = 0; k < VEC; k++) acc[k] = Op::apply(acc[k], x[u][k]);
    }
    for (; r < n; r++, p += ld) {
        T x[VEC];
        load(p, x);
#pragma unroll
        for (int k = 0; k < VEC; k++) acc[k] = Op::apply(acc[k], x[k]);
    }
}

/* Columns: rows [r0, r1) of m split into one contiguous run a row group (the thread's
 * group y of GP__COLS_THREADS / w); the thread folds its VEC columns c0 .. c0 + VEC over
 * its group's run: 16-byte loads where `aligned16` and the vector lies inside the row. */
template <class Op, bool CG>
static __device__ __forceinline__ void gp__cols_fold(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                     const typename Op::type *m, size_t r0, size_t r1, size_t ld,
                                                     size_t c0, size_t cols, unsigned w, bool aligned16)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)) };
    const size_t sub = gp__ceil_div(r1 - r0, GP__COLS_THREADS / w);
    const size_t a = gp__min_size(r1, r0 + threadIdx.x / w * sub), b = gp__min_size(r1, a + sub);
#pragma unroll
    for (int k = 0; k < VEC; k++) acc[k] = Op::identity();
    if (c0 >= cols || a >= b) return;
    const T *p = m + a * ld + c0;
    if (VEC * sizeof(T) == 16 && aligned16 && c0 + VEC <= cols) gp__cols_rows<Op, CG, true>(acc, p, b - a, ld, cols - c0);
    else gp__cols_rows<Op, CG, false>(acc, p, b - a, ld, cols - c0);
}

/* The row groups' partials of lane x, folded in group order into group 0's lanes. */
template <class Op>
static __device__ __forceinline__ void gp__cols_combine(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                        typename Op::type *s, unsigned w)
{
    enum { VEC = gp__reduce_vec_elems(sizeof(typename Op::type)) };
#pragma unroll
    for (int k = 0; k < VEC; k++) s[threadIdx.x * VEC + k] = acc[k];
    __syncthreads();
    if (threadIdx.x >= w) return;
    for (unsigned y = 1; y < GP__COLS_THREADS / w; y++)
#pragma unroll
        for (int k = 0; k < VEC; k++) acc[k] = Op::apply(acc[k], s[(y * w + threadIdx.x) * VEC + k]);
}

/* Columns: block (strip, chunk), planned by gp__cols_make_plan; a chunk's partials go to
 * scratch, and the block that finishes a strip's last chunk folds its chunks' partials
 * (chunks x cols, in chunk order) as it folded rows. One chunk: the block writes the result.
 * Four blocks an SM (64 registers, none spilled for f32 or f64 on sm_90): 4 rows of 16-byte
 * vectors a lane in flight, 64 KB an SM. */
template <class Op>
__global__ void __launch_bounds__(GP__COLS_THREADS, GP__MIN_BLOCKS(GP__COLS_THREADS, 4))
    gp__cols_kernel(typename Op::type *out, const typename Op::type *in, size_t rows, size_t cols, size_t ld,
                    gp__cols_plan p, bool aligned16, char *scratch)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)) };
    __shared__ T s[GP__COLS_THREADS * VEC];
    gp__chain_wait();
    const size_t strip = blockIdx.x % p.strips, chunk = blockIdx.x / p.strips;
    const size_t c0 = (strip * p.w + threadIdx.x % p.w) * VEC;
    T acc[VEC];
    auto put = [&](T *row) { /* the strip's totals, in row group 0 */
        if (threadIdx.x < p.w)
#pragma unroll
            for (int k = 0; k < VEC; k++)
                if (c0 + k < cols) gp__store_elem(row + c0 + k, acc[k]);
    };
    gp__cols_fold<Op, false>(acc, in, chunk * p.per, gp__min_size(rows, (chunk + 1) * p.per), ld, c0, cols, p.w,
                             aligned16);
    gp__cols_combine<Op>(acc, s, p.w);
    if (p.chunks > 1) { /* the chunk's partials, then the strip's last block folds them */
        unsigned long long *count = reinterpret_cast<unsigned long long *>(scratch);
        T *part = reinterpret_cast<T *>(scratch + gp__round_up(p.strips * 8, GP__SCRATCH_ALIGN));
        put(part + chunk * cols);
        if (!gp__block_is_last(count + strip, p.chunks)) return;
        /* the partials sit on a scratch boundary: 16-byte rows where cols allows */
        gp__cols_fold<Op, true>(acc, part, 0, p.chunks, cols, c0, cols, p.w, cols * sizeof(T) % 16 == 0);
        gp__cols_combine<Op>(acc, s, p.w);
    }
    put(out);
}

/* gp_reduce_cols_<name> */
template <class Op>
static cudaError_t gp__reduce_cols(typename Op::type *d_out, const typename Op::type *d_in, size_t rows, size_t cols,
                                   size_t ld, cudaStream_t s)
{
    typedef typename Op::type T;
    if (ld < cols) return cudaErrorInvalidValue;
    if (cols == 0) return cudaSuccess;
    if (d_out == NULL || (rows > 0 && d_in == NULL)) return cudaErrorInvalidValue;
    if (rows > 0 && rows - 1 > SIZE_MAX / sizeof(T) / ld) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    if (rows == 0) return gp__seg_fill<Op>(d_out, cols, dev, s);
    constexpr size_t VEC = gp__reduce_vec_elems(sizeof(T));
    const gp__cols_plan p = gp__cols_make_plan(rows, cols, VEC);
    if (p.strips * p.chunks > GP__GRID_MAX) return cudaErrorInvalidValue;
    GP__TRY(gp__kernel_load<gp__cols_kernel<Op>>());
    /* 16-byte vectors where every row's vectors are whole: with a lane of each row group
     * on the element path beside the others' vectors (cols 63 at ld 64), the warps ran both
     * paths in turn, 17% slower than all lanes element by element */
    const bool aligned16 = (uintptr_t)d_in % 16 == 0 && ld * sizeof(T) % 16 == 0 && cols % VEC == 0;
    gp__launch_shape shape = {GP__GRID, (unsigned)(p.strips * p.chunks), GP__COLS_THREADS, 0, 0, 0, 0, 0, 0};
    if (p.chunks > 1) {
        shape.scratch_zeroed = gp__round_up(p.strips * 8, GP__SCRATCH_ALIGN);
        shape.scratch_bytes = shape.scratch_zeroed + p.chunks * cols * sizeof(T);
        shape.scratch_wait = dev.cluster_ok;
        /* per-call scratch, cleared: the counters' span grows with the strips, over
         * what an earlier call of fewer strips used as data, so no kept region */
        shape.status_kept = 0;
    }
    shape.chain = dev.cluster_ok;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t) {
        return cudaLaunchKernelEx(&cfg, gp__cols_kernel<Op>, d_out, d_in, rows, cols, ld, p, aligned16,
                                  (char *)scratch);
    });
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_COLS_CUH */
