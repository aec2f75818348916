/* detail/device/segmented_cols.cuh -- the reduce along columns (gp_reduce_cols_<name>): the
 * plan, the kernel and its host side. Level 4: needs reduce_plan.cuh (gp__reduce_vec_elems:
 * elements a 16-byte vector), segmented_reduce.cuh (gp__seg_fill: every column the identity
 * when there are no rows), agent/single_pass.cuh (gp__block_is_last: a strip's last chunk;
 * the tagged status words of one strip's chunks), launch.cuh (status memory), ops.cuh and
 * common.cuh; the public names and macros are in segmented.cuh.
 *
 * A block is row groups of w lanes (w * VEC columns, VEC elements a 16-byte vector); each
 * lane folds its VEC columns over a contiguous run of rows, in index order, U rows in
 * flight, and the groups' partials fold in order in shared memory. Chunks of rows are
 * spread over blocks, and their partials folded in chunk order, as the blocks fold rows:
 * every lane a run of chunks, then the groups in order, by each strip's last block. The
 * partials and a counter a strip live in the stream's status memory (a region of their own,
 * the counters' span fixed), so the call is one launch.
 *
 * Narrow rows stored contiguously (ld == cols; rows that divide a vector or fill up to
 * GP__COLS_STEPS_LANES of them, and rows of 3 elements, three vectors a unit) take warp
 * steps instead: row groups of so few lanes would read as many separate places per load as
 * the warp has groups (at 1 float a row, 32 places 4 bytes each: 20% of the read rate,
 * 2^28 x 1 on the H200). A warp
 * reads the flat matrix 32 vectors a step, lane l vector l, so every load is 512 bytes in
 * one piece; each lane folds its vector's elements of a column in order, the lanes of a
 * column fold by a tree in lane order, and the steps fold in order: index order, as the
 * plain reduce folds a vector. Their chunks' partials travel as tagged words in status
 * memory to the grid's last block, so such a call is one launch. */
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
/* Chunked columns that do not take warp steps: a counter a strip, then the partials. A call
 * of several chunks has fewer strips than GP__COLS_TARGET_BLOCKS (gp__cols_make_plan), so
 * the counters' span is the same for every call: in a kept region (GP__STATUS_COLS) a
 * counter is always a counter, whatever the shape of the call that left it there. */
#define GP__COLS_COUNTER_BYTES gp__round_up((size_t)GP__COLS_TARGET_BLOCKS * 8, GP__SCRATCH_ALIGN)
/* The most lanes a row (8 floats) that take warp steps, for elements of up to 4 bytes (one
 * for wider ones: gp__cols_steps_ok). H200, 2026-12-02, 2^28 floats, us
 * by row groups / warp steps (bench/segmented/probes/cols.cu): rows of 1 1205 / 261, 2 1128
 * / 259, 4 446 / 266, 8 301 / 262, 16 264 / 261, 32 260 / 262, 64 262 / 265; at 2^24, 8
 * 36.3 / 34.1 but 16 30.8 / 32.8 and 32 31.2 / 33.1: from 16 floats a row (64-byte pieces
 * a load) the row groups are within a few percent at 2^28 and faster at 2^24. */
#ifndef GP__COLS_STEPS_LANES
#define GP__COLS_STEPS_LANES 2
#endif
#ifndef GP__COLS_STEPS_MIN
#define GP__COLS_STEPS_MIN 16       /* warp steps: at least this many vectors a lane in a block's chunk */
#endif
/* Warp steps: vectors a lane's unit holds (two: 32 bytes in a row) for rows of a vector or
 * less, so each tree of shuffles folds twice the bytes. H200, 2026-12-02, the probe built
 * with one and with two, us: doubles at 2^27, rows of 1 327.4 / 270.3, 2 348.3 / 268.4 (74 /
 * 90% of read); floats at 2^28, rows of 4 272.1 / 263.5, rows of 1 and 2 within 1%. */
#ifndef GP__COLS_STEPS_M4
#define GP__COLS_STEPS_M4 2 /* elements of up to 4 bytes */
#endif
#ifndef GP__COLS_STEPS_M8
#define GP__COLS_STEPS_M8 2 /* 8-byte elements */
#endif
#define GP__COLS_STEPS_M(elem) ((elem) == 8 ? GP__COLS_STEPS_M8 : (elem) <= 4 ? GP__COLS_STEPS_M4 : 1)
/* Rows of four 8-byte elements (two vectors): vectors a lane's unit holds, 4 (a unit two
 * rows) or 8 (four rows); the rows fold in the lane before the tree of shuffles. H200,
 * 2026-12-02, the probe, doubles at 2^27 in rows of 4, alternated twice: 287.1-287.2 us
 * with 4, 372.2-372.8 with 8, 322.1-322.4 by row groups (rows of 8: 268.8). A lane's unit
 * spans 64 bytes (128 with 8), so each load instruction of the warp touches 16 lines (32),
 * where rows of 1 and 2 touch 8: the loads, not the shuffles, hold it above rows of 2. */
#ifndef GP__COLS_STEPS_M8R4
#define GP__COLS_STEPS_M8R4 4
#endif
#ifndef GP__COLS_STEPS_U
#define GP__COLS_STEPS_U GP__COLS_U /* warp steps: vectors a lane loads before it folds any */
#endif

/* The column plan: a strip is w * vec columns (w lanes a row group, a power of two up to
 * 32, the fewest whose vectors of `vec` elements cover the row); rows split into `chunks`
 * runs of `per` rows (the last may be short). It depends on the shape and the element size
 * only, so the association is the same on every GPU and at every alignment. */
typedef struct gp__cols_plan {
    size_t strips, chunks, per;
    unsigned w;
    int steps; /* warp steps (gp__cols_steps_ok): one strip, chunks of whole vectors */
} gp__cols_plan;

/* Whether rows of `cols` elements at leading dimension `ld` take warp steps: contiguous,
 * and each vector of `vec` elements holds whole rows (cols divides vec), or three vectors
 * hold whole rows of 3 (elements of 4 bytes or more: x, y, z), or two vectors rows of 4
 * (8-byte elements; units of whole rows, GP__COLS_STEPS_M8R4), or (elements of 4 bytes or
 * less) a power of two of vectors makes a row, up to GP__COLS_STEPS_LANES. Shape only, never
 * the alignment. Two lanes a row lost for doubles (H200, 2026-12-02, the probe: 2^25 x 4
 * 328.7 us by row groups, 342.5 by two lanes a row), where for floats they won (2^25 x 8
 * 320.1 against 261.7); units of two rows a lane won (287.2 against 322.1). */
static inline GP__HD int gp__cols_steps_ok(size_t cols, size_t ld, size_t vec)
{
    if (cols == 0 || ld != cols) return 0;
    if ((cols == 3 && vec <= 4) || (cols == 4 && vec == 2)) return 1;
    if (cols <= vec) return vec % cols == 0;
    const size_t lanes = cols / vec;
    return cols % vec == 0 && (lanes & (lanes - 1)) == 0 && lanes <= (vec >= 4 ? GP__COLS_STEPS_LANES : 1);
}

/* ld: the call's (0: row groups whatever the shape, for the bench's ladder). */
static inline GP__HD gp__cols_plan gp__cols_make_plan(size_t rows, size_t cols, size_t vec, size_t ld)
{
    gp__cols_plan p;
    p.w = 1;
    while (p.w < 32 && p.w * vec < cols) p.w *= 2;
    p.strips = gp__ceil_div(cols, p.w * vec);
    p.steps = gp__cols_steps_ok(cols, ld, vec);
    size_t chunks = gp__ceil_div(GP__COLS_TARGET_BLOCKS, p.strips);
    /* each lane at least 32 rows: with 8, 4096^2 floats took 39-42 us against 36-38 at 32 (H100);
     * warp steps: each lane at least GP__COLS_STEPS_MIN vectors */
    const size_t min_rows = p.steps ? gp__ceil_div((size_t)GP__COLS_THREADS * GP__COLS_STEPS_MIN * vec, cols)
                                    : GP__COLS_THREADS / p.w * 32;
    if (chunks > gp__ceil_div(rows, min_rows)) chunks = gp__ceil_div(rows, min_rows);
    if (chunks < 1) chunks = 1;
    p.per = gp__ceil_div(rows, chunks);
    /* a chunk starts on a unit: vec x M rows hold whole units (M vectors, GP__COLS_STEPS_M) */
    if (p.steps) p.per = gp__round_up(p.per, vec * (vec > 1 ? GP__COLS_STEPS_M(16 / vec) : 1));
    p.chunks = rows ? gp__ceil_div(rows, p.per) : 1;
    return p;
}

#ifdef __CUDACC__
#include "../util/launch.cuh"
#include "../warp/warp.cuh"         /* gp__warp_reduce_lane0_each, gp__shfl: the warp steps' trees */
#include "../agent/single_pass.cuh" /* gp__block_is_last, gp__status_publish, gp__status_load, gp__status_decode */
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

/* Warp steps over a block's rows [r0, r1) of the flat matrix m, in units of M vectors (M x
 * VEC elements; r0 x cols is a multiple, as the plan's chunks start on multiples of VEC
 * rows): the chunk's units split into a run of whole steps a warp, 32 units a step, U steps
 * in flight, the elements from e1 = r1 x cols on the identity. Either a unit holds whole
 * rows of NV columns (w 1): each lane first folds its unit's elements of column c (c, c +
 * NV, ...) in order, then all 32 lanes fold by a tree towards lane 0; or (M 1, NV == VEC) w
 * lanes a row: lane l's columns are those of lane l % w, folded by a tree over the lanes l,
 * l + w, l + 2w, ... towards lane l < w. Either way the tree keeps lane order and each step
 * folds after the one before: index order. On return lane l < w holds columns l VEC .. l
 * VEC + VEC - 1 in acc (the row groups' layout; a row of more columns than a vector, in
 * lane 0 until then, is handed out by shuffles). */
template <class Op, int NV, int M>
static __device__ __forceinline__ void gp__cols_steps(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                      const typename Op::type *m, size_t r0, size_t r1, size_t cols,
                                                      unsigned w, bool aligned16)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)), E = M * VEC, U = (GP__COLS_STEPS_U + M - 1) / M, WARPS = GP__COLS_THREADS / 32 };
    static_assert(NV >= 1 && NV <= E && E % NV == 0 && (M == 1 || NV < E || VEC == 1),
                  "a unit holds whole rows, or a vector part of one");
    const size_t e1 = r1 * cols, u0 = r0 * cols / E, u1 = gp__ceil_div(e1, (size_t)E);
    const size_t part = gp__round_up(gp__ceil_div(u1 - u0, (size_t)WARPS), (size_t)32);
    const size_t v = gp__min_size(u1, u0 + threadIdx.x / 32 * part), v_end = gp__min_size(u1, v + part);
    const unsigned lane = gp__lane_id();
    T tot[NV];
#pragma unroll
    for (int c = 0; c < NV; c++) tot[c] = Op::identity();
    auto load = [&](size_t i, T(&x)[E]) { /* unit i, its elements below e1 */
#pragma unroll
        for (int j = 0; j < M; j++) {
            const size_t e = (i * M + j) * VEC;
            if (e + VEC <= e1 && VEC * sizeof(T) == 16 && aligned16) {
                const uint4 q = __ldg(reinterpret_cast<const uint4 *>(m + e));
                memcpy(x + j * VEC, &q, sizeof q);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++) x[j * VEC + k] = e + k < e1 ? gp__load_elem(m + e + k) : Op::identity();
            }
        }
    };
    for (size_t s = v; s < v_end; s += 32 * U) {
        T x[U][E];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = s + 32 * u + lane;
            if (i < v_end) {
                load(i, x[u]);
            } else {
#pragma unroll
                for (int k = 0; k < E; k++) x[u][k] = Op::identity();
            }
        }
        T y[U * NV];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int c = 0; c < NV; c++) {
                y[u * NV + c] = x[u][c];
#pragma unroll
                for (int k = c + NV; k < E; k += NV) y[u * NV + c] = Op::apply(y[u * NV + c], x[u][k]);
            }
        gp__warp_reduce_lane0_each<Op, U * NV>(y, 32, w);
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int c = 0; c < NV; c++) tot[c] = Op::apply(tot[c], y[u * NV + c]);
    }
#pragma unroll
    for (int c = 0; c < NV; c++) {
        if constexpr (NV <= VEC) {
            acc[c] = tot[c];
        } else { /* column c to lane c / VEC */
            const T t = gp__shfl<GP__SHFL_IDX>(tot[c], 0);
            if (lane == (unsigned)c / VEC) acc[c % VEC] = t;
        }
    }
}

/* Rows of cols elements, cols a power of two: the first of NV, 2 NV, ... below VEC that is
 * cols, else (cols >= VEC) w lanes a row. Rows of a vector or less take units of
 * GP__COLS_STEPS_M vectors. */
template <class Op, int NV>
static __device__ __forceinline__ void gp__cols_steps_pow2(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                           const typename Op::type *m, size_t r0, size_t r1, size_t cols,
                                                           unsigned w, bool aligned16)
{
    enum { VEC = gp__reduce_vec_elems(sizeof(typename Op::type)), M = GP__COLS_STEPS_M(sizeof(typename Op::type)) };
    if constexpr (NV < VEC) {
        if (cols == NV) return gp__cols_steps<Op, NV, M>(acc, m, r0, r1, cols, w, aligned16);
        gp__cols_steps_pow2<Op, 2 * NV>(acc, m, r0, r1, cols, w, aligned16);
    } else {
        if constexpr (M > 1) /* a unit holds whole rows only with one lane a row */
            if (w == 1) return gp__cols_steps<Op, VEC, M>(acc, m, r0, r1, cols, w, aligned16);
        gp__cols_steps<Op, VEC, 1>(acc, m, r0, r1, cols, w, aligned16);
    }
}

/* The warp steps of a block, by the shape of its rows (gp__cols_steps_ok). */
template <class Op>
static __device__ __forceinline__ void gp__cols_steps_fold(typename Op::type (&acc)[gp__reduce_vec_elems(sizeof(typename Op::type))],
                                                           const typename Op::type *m, size_t r0, size_t r1, size_t cols,
                                                           unsigned w, bool aligned16)
{
    enum { VEC = gp__reduce_vec_elems(sizeof(typename Op::type)) };
#pragma unroll
    for (int k = 0; k < VEC; k++) acc[k] = Op::identity();
    if constexpr (VEC <= 4) /* rows of 3: units of 3 vectors, each holding whole rows */
        if (cols == 3) return gp__cols_steps<Op, 3, 3>(acc, m, r0, r1, cols, 1, aligned16);
    static_assert(GP__COLS_STEPS_M8R4 == 4 || GP__COLS_STEPS_M8R4 == 8, "units of whole rows, a chunk's start on a unit");
    if constexpr (VEC == 2) /* rows of 4 (8-byte elements): units of whole rows, a lane each */
        if (cols == 4) return gp__cols_steps<Op, 4, GP__COLS_STEPS_M8R4>(acc, m, r0, r1, cols, 1, aligned16);
    gp__cols_steps_pow2<Op, 1>(acc, m, r0, r1, cols, w, aligned16);
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

/* The grid's last block: the chunk partials of narrow rows (warp steps), published in
 * status memory (chunk k's column c in slot k cols + c, tagged with the call's epoch),
 * folded in chunk order into out[0 .. cols). Thread t folds column t % cols over a run of
 * chunks, U chunks' words loaded together before any is looked at (a look after each load
 * waits a round trip a slot) and loaded again while one of them is not yet this call's;
 * then the runs fold in order through shared memory s (GP__COLS_THREADS values). A thread
 * a column, not VEC: the kernel holds 64 registers, and VEC columns of U chunks spilled. */
template <class Op>
static __device__ __forceinline__ void gp__cols_finish_status(typename Op::type *out, typename Op::type *s,
                                                              const uint64_t *status, uint32_t epoch, size_t chunks,
                                                              size_t cols)
{
    typedef typename Op::type T;
    enum { W = gp__status_words(sizeof(T)), U = W >= 8 ? 1 : 8 / W };
    const unsigned runs = GP__COLS_THREADS / (unsigned)cols, run = threadIdx.x / (unsigned)cols; /* cols <= 128 */
    const size_t sub = gp__ceil_div(chunks, (size_t)runs);
    const size_t a = gp__min_size(chunks, run * sub), b = gp__min_size(chunks, a + sub);
    const size_t c = threadIdx.x % cols;
    T acc = Op::identity();
    for (size_t r = a; r < b && run < runs; r += U) {
        uint64_t word[U][W];
        T x[U];
        bool ready;
        do { /* the loads first, then the looks */
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (r + u < b) gp__status_load<T>(status, (r + u) * cols + c, word[u]);
                else
#pragma unroll
                    for (int k = 0; k < W; k++) word[u][k] = gp__status_word(0, epoch);
            }
            ready = true;
#pragma unroll
            for (int u = 0; u < U; u++) ready &= gp__status_decode<T>(word[u], epoch, x[u]);
        } while (!ready);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (r + u < b) acc = Op::apply(acc, x[u]);
    }
    if (run < runs) s[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x >= cols) return;
    for (unsigned k = 1; k < runs; k++) acc = Op::apply(acc, s[k * cols + c]);
    gp__store_elem(out + c, acc);
}

/* Columns: block (strip, chunk), planned by gp__cols_make_plan. One chunk: the block
 * writes the result. Narrow rows (warp steps) of several chunks: each block publishes its
 * chunk's partials in status memory (`epoch`-tagged: nothing to clear, one launch a call)
 * and the grid's last block folds them in chunk order, as the grid-wide reduce folds its
 * blocks' totals (it waits only for blocks that wait for nothing, so it cannot hold them
 * up). Otherwise a chunk's partials go to the stream's GP__STATUS_COLS region, after a
 * counter a strip, and the block that finishes a strip's last chunk folds them and returns
 * the counter to 0: one launch a call as well (16-byte loads of untagged partials: wider
 * rows in one strip, 2048 chunks of 128 floats, folded by tagged words took 425 us at 2^28
 * against 273). Four blocks an SM (64 registers, none spilled for f32 or f64 on sm_90): 4
 * rows of 16-byte vectors a lane in flight, 64 KB an SM. */
template <class Op>
__global__ void __launch_bounds__(GP__COLS_THREADS, GP__MIN_BLOCKS(GP__COLS_THREADS, 4))
    gp__cols_kernel(typename Op::type *out, const typename Op::type *in, size_t rows, size_t cols, size_t ld,
                    gp__cols_plan p, bool aligned16, char *scratch, uint32_t epoch)
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
    const size_t r0 = chunk * p.per, r1 = gp__min_size(rows, (chunk + 1) * p.per);
    if (p.steps) { /* the warps' totals in their lanes < w, folded in warp order */
        gp__cols_steps_fold<Op>(acc, in, r0, r1, cols, p.w, aligned16);
        gp__cols_combine<Op>(acc, s, 32);
    } else {
        gp__cols_fold<Op, false>(acc, in, r0, r1, ld, c0, cols, p.w, aligned16);
        gp__cols_combine<Op>(acc, s, p.w);
    }
    if (p.chunks > 1 && p.steps) { /* the chunk's partials tagged, then the grid's last block */
        uint64_t *status = reinterpret_cast<uint64_t *>(scratch);
        if (threadIdx.x < p.w)
#pragma unroll
            for (int k = 0; k < VEC; k++)
                if (c0 + k < cols) gp__status_publish<T>(status, chunk * cols + c0 + k, acc[k], epoch);
        if (blockIdx.x != gridDim.x - 1) return;
        __syncthreads(); /* the block's own partials are published before its threads look; s is free */
        return gp__cols_finish_status<Op>(out, s, status, epoch, p.chunks, cols);
    } else if (p.chunks > 1) { /* the chunk's partials, then the strip's last block folds them */
        unsigned long long *count = reinterpret_cast<unsigned long long *>(scratch);
        T *part = reinterpret_cast<T *>(scratch + GP__COLS_COUNTER_BYTES);
        put(part + chunk * cols);
        if (!gp__block_is_last(count + strip, p.chunks)) return;
        if (threadIdx.x == 0) count[strip] = 0; /* every chunk has arrived: 0 for the next call */
        /* the partials sit on a scratch boundary: 16-byte rows where cols allows */
        gp__cols_fold<Op, true>(acc, part, 0, p.chunks, cols, c0, cols, p.w, cols * sizeof(T) % 16 == 0);
        gp__cols_combine<Op>(acc, s, p.w);
    }
    put(out);
}

/* Knobs for the bench's ladder (NULL: the defaults). row_groups: narrow rows by row groups,
 * as before the warp steps. */
typedef struct gp__cols_knobs {
    int row_groups;
} gp__cols_knobs;

/* gp_reduce_cols_<name> */
template <class Op>
static cudaError_t gp__reduce_cols(typename Op::type *d_out, const typename Op::type *d_in, size_t rows, size_t cols,
                                   size_t ld, cudaStream_t s, const gp__cols_knobs *knobs = NULL)
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
    const gp__cols_plan p = gp__cols_make_plan(rows, cols, VEC, knobs && knobs->row_groups ? 0 : ld);
    if (p.strips * p.chunks > GP__GRID_MAX) return cudaErrorInvalidValue;
    GP__TRY(gp__kernel_load<gp__cols_kernel<Op>>());
    /* 16-byte vectors where every row's vectors are whole: with a lane of each row group
     * on the element path beside the others' vectors (cols 63 at ld 64), the warps ran both
     * paths in turn, 17% slower than all lanes element by element */
    const bool aligned16 = (uintptr_t)d_in % 16 == 0 && (p.steps || (ld * sizeof(T) % 16 == 0 && cols % VEC == 0));
    gp__launch_shape shape = {GP__GRID, (unsigned)(p.strips * p.chunks), GP__COLS_THREADS, 0, 0, 0, 0, 0, 0};
    if (p.chunks > 1 && p.steps) {
        /* every word a tagged partial, as the reduce's totals are: its region serves */
        shape.scratch_bytes = p.chunks * cols * gp__status_words(sizeof(T)) * sizeof(uint64_t);
        shape.scratch_zeroed = shape.scratch_bytes;
        shape.scratch_wait = dev.cluster_ok;
        shape.status_kept = GP__STATUS_REDUCE;
    } else if (p.chunks > 1) {
        shape.scratch_zeroed = GP__COLS_COUNTER_BYTES;
        shape.scratch_bytes = shape.scratch_zeroed + p.chunks * cols * sizeof(T);
        shape.scratch_wait = dev.cluster_ok;
        shape.status_kept = GP__STATUS_COLS;
    }
    shape.chain = dev.cluster_ok;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, gp__cols_kernel<Op>, d_out, d_in, rows, cols, ld, p, aligned16,
                                  (char *)scratch, epoch);
    });
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_COLS_CUH */
