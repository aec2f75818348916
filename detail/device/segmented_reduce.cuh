/* detail/device/segmented_reduce.cuh -- the segmented reduce (CSR offsets) and the reduce
 * along rows: the one-tile merge-path kernel, the rows kernels, the identity fill, and the
 * host side of both (the columns are segmented_cols.cuh). Level 4: needs
 * segmented_path.cuh (the merge path both segmented reduce kernels share),
 * segmented_reduce_ring.cuh (the kernel fed by rings of bulk copies, sm_90), reduce.cuh,
 * agent/single_pass.cuh (the rows' tagged parts), launch.cuh, ops.cuh and common.cuh; the
 * public names and macros are in segmented.cuh.
 *
 * The one-tile kernel (other value sizes, ld != cols, GPUs before sm_90): each block takes
 * its tiles of 256 x 16 merge items (4-byte types) one at a time; warp 0 finds the next
 * tile's end by a 32-way search of the offsets in global memory while the tile's values
 * and ends are loaded, coalesced, into shared memory (one pad word per 32, so that threads
 * 16 items apart fall in distinct banks); then the block folds the tile (gp__seg_tile).
 *
 * Rows of 16 KB or more (GP__ROWS_BLOCK_MIN_BYTES): two waves of blocks of them or more, a
 * block a row, each row reduced as the plain reduce reduces a block's run (reduce.cuh);
 * fewer, parts of rows, a block a part. Shorter rows, at least a warp's worth of them an
 * SM: G lanes a row. Other rows go on the merge path. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_REDUCE_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_REDUCE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#define GP__SEG_THREADS 256
#define GP__SEG_MIN_BLOCKS 4                               /* blocks an SM the registers must allow */
#ifndef GP__ROWS_BLOCK_MIN_BYTES
#define GP__ROWS_BLOCK_MIN_BYTES 16384                     /* rows at least this long: a block a row */
#endif
#ifndef GP__ROWS_SPLIT_ITEMS
#define GP__ROWS_SPLIT_ITEMS 256 /* fewer long rows than two waves: parts of rows, about this many (H100: one wave) */
#endif
#define GP__ROWS_SHORT_THREADS 256 /* the short rows' kernel: blocks of 256 threads, 4 an SM at least */
#define GP__ROWS_SHORT_U 4         /* pieces a lane loads before it folds any */
#ifndef GP__ROWS_BLOCKS_PER_SM
#define GP__ROWS_BLOCKS_PER_SM 2 /* a block a row, 512 threads: 64 registers (sm_90: 8-24 bytes of the row's plan spill) */
#endif

/* Shared-memory index with one pad word per 32: thread k starts near item 16 k, and
 * without the pad every other thread would fall in the same bank. */
static inline GP__HD unsigned gp__seg_pad(unsigned i) { return i + (i >> 5); }

#ifdef __CUDACC__
#include "../warp/warp.cuh"

/* Merge items a thread: 16 for types of up to 4 bytes, fewer for wider ones, so that a
 * tile's values and ends fit the 48 KB of static shared memory. */
static constexpr GP__HD unsigned gp__seg_items(size_t elem) { return elem <= 4 ? 16u : elem >= 64 ? 1u : (unsigned)(64 / elem); }

#include "../util/launch.cuh"
#include "../agent/single_pass.cuh" /* gp__block_is_last: the last part of a row */
#include "segmented_path.cuh"
#include "segmented_reduce_ring.cuh"
#include "reduce.cuh"

/* Four blocks an SM at least (64 registers a thread): a block waits on each tile's search,
 * loads and scan in turn, so the SM's other blocks are what keeps memory busy (at 128
 * registers, two blocks an SM read at 14-25% of the read rate on the H100). */
template <class Op, class Src>
__global__ void __launch_bounds__(GP__SEG_THREADS, GP__SEG_MIN_BLOCKS)
    gp__seg_reduce_kernel(typename Op::type *out, Src src, char *scratch, uint32_t epoch)
{
    typedef typename Op::type T;
    typedef gp__seg_op<Op> SOp;
    typedef gp__seg_pair<T> pair;
    enum { ITEMS = gp__seg_items(sizeof(T)), TILE = GP__SEG_THREADS * ITEMS, SMEM = (TILE + TILE / 32 + 1) };
    __shared__ T s_val[SMEM];
    __shared__ uint32_t s_end[SMEM];
    __shared__ unsigned long long s_i0, s_j0, s_i1[2], s_j1[2];
    const unsigned tid = threadIdx.x, warp = tid >> 5;
    gp__chain_wait();
    src.init();
    const uint64_t N = src.total(), S = src.S, total = N + S;
    const gp__seg_share share = gp__seg_share_of((total + TILE - 1) / TILE);
    if (blockIdx.x >= share.blocks) return; /* no tile (a small call) */
    const uint64_t t_begin = share.begin, t_end = share.end;
    /* the block's start (i0, j0) on diagonal t_begin * TILE (warp 0) and its first tile's
     * end (warp 1), searched at once */
    uint64_t i0 = 0, j0 = 0;
    if (t_begin < t_end) {
        if (warp < 2) {
            const uint64_t d = warp == 0 ? t_begin * TILE : gp__min_size((t_begin + 1) * TILE, total);
            const size_t x = gp__seg_search(src, d, (size_t)(d > N ? d - N : 0), (size_t)(d < S ? d : S));
            if (tid == 0) { s_i0 = x; s_j0 = d - x; }
            if (tid == 32) { s_i1[0] = x; s_j1[0] = d - x; }
        }
        __syncthreads();
        i0 = s_i0;
        j0 = s_j0;
    }
    pair run = SOp::identity();    /* the block's carry so far */
    uint64_t head_row = GP__SEG_NONE;
    T head_val = Op::identity();
    for (uint64_t t = t_begin; t < t_end; t++) {
        const unsigned par = (unsigned)((t - t_begin) & 1);
        __syncthreads(); /* the previous tile's shared memory is read; this tile's end is known */
        const uint64_t i1 = s_i1[par], j1 = s_j1[par];
        const unsigned ne = (unsigned)(i1 - i0), nv = (unsigned)(j1 - j0);
        { /* all loads in flight before the first store */
            T r[ITEMS];
            uint32_t e[ITEMS];
#pragma unroll
            for (unsigned q = 0; q < ITEMS; q++) {
                const unsigned k = tid + q * GP__SEG_THREADS;
                if (k < nv) r[q] = src.value(j0 + k);
                if (k < ne) { /* >= 0 on the merge path; only compared with positions below TILE:
                               * clamped so that adding one cannot wrap */
                    const uint64_t x = src.end(i0 + k) - j0;
                    e[q] = (uint32_t)(x < 0x7fffffffu ? x : 0x7fffffffu);
                }
            }
            if (warp == 0 && t + 1 < t_end) { /* the next tile's end, while the loads fly */
                const uint64_t d2 = gp__min_size((t + 2) * TILE, total);
                const uint64_t lo = gp__max_size(i1, d2 > N ? d2 - N : 0);
                const uint64_t hi = gp__min_size(gp__min_size(d2, S), i1 + TILE);
                const size_t x = gp__seg_search(src, d2, (size_t)lo, (size_t)hi);
                if (tid == 0) { s_i1[par ^ 1] = x; s_j1[par ^ 1] = d2 - x; }
            }
#pragma unroll
            for (unsigned q = 0; q < ITEMS; q++) {
                const unsigned k = tid + q * GP__SEG_THREADS;
                if (k < nv) s_val[gp__seg_pad(k)] = r[q];
                if (k < ne) s_end[gp__seg_pad(k)] = e[q];
            }
        }
        __syncthreads();
        gp__seg_tile<Op, ITEMS>(
            i0, ne, nv, [&](unsigned i) { return s_end[gp__seg_pad(i)]; },
            [&](unsigned j) { return s_val[gp__seg_pad(j)]; },
            [&](unsigned i, const T &v) { gp__store_elem(out + i0 + i, v); }, run, head_row, head_val);
        i0 = i1;
        j0 = j1;
    }
    gp__seg_finish<Op>(out, scratch, run, head_row, head_val, share.blocks, epoch);
}

/* Long rows: one block a row, or, with fewer rows than two waves of blocks, `parts` blocks a
 * row, each a contiguous part (the grid strides over rows x parts). Each part is reduced as
 * the plain reduce's block reduces its run: the elements before the part's first 16-byte
 * boundary, whole 16-byte vectors tile by tile (every load of a step issued before any is
 * used), the rest; in index order, with an association fixed by the row's length,
 * alignment and `parts`. A row's parts are published in status memory (part `item` in slot
 * `item`, tagged with the call's epoch: nothing to clear, one launch a call), and the
 * grid's last block folds each row's parts in order, as the grid-wide reduce's last block
 * folds its blocks' totals. The merge path (above) is made for any segment lengths; rows of
 * equal, long length need none of its searches and carries. */
static_assert(2 * GP__ROWS_SPLIT_ITEMS <= GP__REDUCE_BLOCK, "the parts of rows (fewer than 2 x GP__ROWS_SPLIT_ITEMS) a thread each");
template <class Op, bool SPLIT>
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__MIN_BLOCKS(GP__REDUCE_BLOCK, GP__ROWS_BLOCKS_PER_SM))
    gp__rows_block_kernel(typename Op::type *out, const typename Op::type *in, size_t rows, size_t cols, size_t ld,
                          size_t parts, char *scratch, uint32_t epoch)
{
    /* SPLIT: parts > 1 (a kernel of its own: the parts' bookkeeping in the whole rows' kernel
     * cost them 5%, 16384^2 floats 362 to 382 us on the H100, its 64 registers spilling more) */
    typedef typename Op::type T;
    typedef gp__map_identity<T> Map;
    enum { ROWS = GP__REDUCE_ROWS(1, sizeof(T)) };
    gp__chain_wait();
    if (!SPLIT) parts = 1;
    const size_t per = gp__ceil_div(cols, parts);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch); /* SPLIT: a tagged slot a part */
    for (size_t item = blockIdx.x; item < rows * parts; item += gridDim.x) {
        const size_t r = SPLIT ? item / parts : item, c0 = SPLIT ? item % parts * per : 0;
        const size_t n = SPLIT ? gp__min_size(per, cols - c0) : cols;
        const T *row = in + r * ld + c0;
        const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)row, (uintptr_t)row, n, sizeof(T), 1, 1, 0);
        const gp__reduce_src<T> src = {row, row}, body = {row + p.head, row + p.head};
        const bool aligned16 = p.aligned16 != 0;
        const T total = p.nvec <= (size_t)GP__REDUCE_BLOCK * ROWS
                            ? gp__block_combine_warps<Op>(
                                  gp__reduce_step<Op, Map>(body, (threadIdx.x >> 5) * 32 * ROWS, p.nvec, aligned16))
                            : gp__reduce_block_run<Op, Map>(body, 0, p.nvec, aligned16);
        if (threadIdx.x == 0) {
            const T v = gp__reduce_with_edges<Op, Map>(src, p, total);
            if constexpr (SPLIT) gp__status_publish<T>(status, item, v, epoch);
            else gp__store_elem(out + r, v);
        }
        __syncthreads(); /* the next item reuses the block's shared slots */
    }
    if constexpr (SPLIT) {
        /* the grid's last block: a thread a part (fewer than 2 x GP__ROWS_SPLIT_ITEMS), then
         * thread r folds row r's parts in order; it waits only for blocks that wait for
         * nothing */
        __shared__ T part[GP__REDUCE_BLOCK];
        if (blockIdx.x != gridDim.x - 1) return;
        if (threadIdx.x < rows * parts) part[threadIdx.x] = gp__status_wait<T>(status, threadIdx.x, epoch);
        __syncthreads();
        if (threadIdx.x >= rows) return;
        T acc = part[threadIdx.x * parts];
        for (size_t q = 1; q < parts; q++) acc = Op::apply(acc, part[threadIdx.x * parts + q]);
        gp__store_elem(out + threadIdx.x, acc);
    }
}

/* Rows shorter than GP__ROWS_BLOCK_MIN_BYTES, many of them: G lanes a row (a power of two,
 * the fewest whose VEC-element pieces cover the row, at most 32; a longer row takes a warp
 * and goes chunk by chunk). Each lane folds its piece's VEC contiguous elements in order
 * (the identity past the row's end), the G lanes' folds go up a tree towards the group's
 * first lane (lane i takes lane i + o for o = 1, 2, 4, ...: index order), and a row's
 * chunks fold in order. The association depends only on cols, never on alignment: an
 * unaligned row loads the same pieces element by element. Each lane loads U pieces before
 * folding any: U rows' pieces (a warp's rows a step are consecutive, so its loads and
 * stores are too), the chunks of U / cpr rows of cpr chunks, or U chunks of one row. On the merge path such rows read at
 * about half the read rate (2^22 rows of 64 floats, H100: 54%): its searches and carries
 * are made for segments of any lengths, and these are all of one. */
template <class Op>
__global__ void __launch_bounds__(GP__ROWS_SHORT_THREADS, GP__MIN_BLOCKS(GP__ROWS_SHORT_THREADS, 4))
    gp__rows_short_kernel(typename Op::type *out, const typename Op::type *in, size_t rows, size_t cols, size_t ld,
                          unsigned G, bool aligned16)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)), U = GP__ROWS_SHORT_U };
    gp__chain_wait();
    const unsigned lane = threadIdx.x & 31, g = lane & (G - 1);
    const size_t warp = blockIdx.x * (size_t)(blockDim.x >> 5) + gp__warp_id();
    const size_t warps = (size_t)gridDim.x * (blockDim.x >> 5), per_warp = 32 / G;
    const size_t span = (size_t)G * VEC; /* elements of a chunk */
    /* the fold of the piece at column c of row r, and the tree of a warp's U folds */
    auto load = [&](size_t r, size_t c, T (&x)[VEC]) {
        const T *p = in + r * ld + c;
        if (VEC > 1 && aligned16 && c + VEC <= cols) {
            gp__reduce_load<T, VEC>(p, true, x);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; k++) x[k] = c + k < cols ? gp__load_elem(p + k) : Op::identity();
        }
    };
    auto fold = [&](T (&x)[U][VEC], T (&v)[U]) { gp__warp_fold_groups_lane0<Op, U, VEC>(x, v, G); };
    if (span >= cols) { /* one chunk a row: a warp U * per_warp consecutive rows a step */
        const size_t step = U * per_warp;
        for (size_t base = warp * step; base < rows; base += warps * step) { /* the same for the whole warp */
            T x[U][VEC], v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const size_t r = base + u * per_warp + lane / G;
                if (r < rows) {
                    load(r, (size_t)g * VEC, x[u]);
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; k++) x[u][k] = Op::identity();
                }
            }
            fold(x, v);
#pragma unroll
            for (int u = 0; u < U; u++) {
                const size_t r = base + u * per_warp + lane / G;
                if (g == 0 && r < rows) gp__store_elem(out + r, v[u]);
            }
        }
    } else if (cols <= U / 2 * span) { /* a warp a row, cpr chunks: U / cpr rows a step */
        const unsigned cpr = (unsigned)gp__ceil_div(cols, span), R = U / cpr;
        for (size_t base = warp * R; base < rows; base += warps * R) {
            T x[U][VEC], v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const size_t r = base + u / cpr;
                if (u < R * cpr && r < rows) {
                    load(r, (u % cpr) * span + (size_t)g * VEC, x[u]);
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; k++) x[u][k] = Op::identity();
                }
            }
            fold(x, v);
            T acc = Op::identity(); /* right in lane 0: each row's chunks in order */
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (u >= R * cpr) break;
                acc = Op::apply(acc, v[u]);
                if (u % cpr == cpr - 1) {
                    if (lane == 0 && base + u / cpr < rows) gp__store_elem(out + base + u / cpr, acc);
                    acc = Op::identity();
                }
            }
        }
    } else { /* a warp a row (G is 32), U chunks at a time */
        for (size_t r = warp; r < rows; r += warps) {
            T acc = Op::identity();
            for (size_t c0 = 0; c0 < cols; c0 += U * span) {
                T x[U][VEC], v[U];
#pragma unroll
                for (int u = 0; u < U; u++) load(r, c0 + u * span + (size_t)g * VEC, x[u]);
                fold(x, v);
#pragma unroll
                for (int u = 0; u < U; u++) acc = Op::apply(acc, v[u]); /* right in lane 0 */
            }
            if (lane == 0) gp__store_elem(out + r, acc);
        }
    }
}

/* Rows of one element, contiguous (ld == 1), the input on a 16-byte boundary: a lane a
 * 16-byte vector, VEC rows, U vectors in flight, each warp's loads and stores consecutive
 * (the kernel above gives a lane a row, a 4-byte load for a float: 2^28 floats at 78% of
 * the copy rate). A row folds as that kernel folds it, its element then the identity once
 * for each other element of the piece, so the bits are those of an unaligned call, which
 * takes that kernel. The VEC results (16 bytes, as VEC > 1) go out in one store where
 * `out_vec` (the output on a 16-byte boundary). Rows of 2 floats by this kernel (VEC / 2 rows a vector) lost 2.4% at
 * 2^28 (docs/segmented.md, "Rows of one element"), so it takes rows of one element only. */
template <class Op>
__global__ void __launch_bounds__(GP__ROWS_SHORT_THREADS, GP__MIN_BLOCKS(GP__ROWS_SHORT_THREADS, 4))
    gp__rows_of_one_kernel(typename Op::type *out, const typename Op::type *in, size_t rows, bool out_vec)
{
    typedef typename Op::type T;
    enum { VEC = gp__reduce_vec_elems(sizeof(T)), U = GP__ROWS_SHORT_U };
    static_assert(VEC > 1 && VEC * sizeof(T) == 16, "rows of elements that fill a 16-byte vector");
    gp__chain_wait();
    const size_t nv = gp__ceil_div(rows, (size_t)VEC);
    for (size_t base = blockIdx.x * (size_t)blockDim.x * U; base < nv; base += (size_t)gridDim.x * blockDim.x * U) {
        T x[U][VEC];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = base + u * blockDim.x + threadIdx.x;
            if ((i + 1) * VEC <= rows) {
                gp__reduce_load<T, VEC>(in + i * VEC, true, x[u]);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++) x[u][k] = i * VEC + k < rows ? gp__load_elem(in + i * VEC + k) : Op::identity();
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = base + u * blockDim.x + threadIdx.x;
#pragma unroll
            for (int k = 0; k < VEC; k++)
#pragma unroll
                for (int e = 1; e < VEC; e++) x[u][k] = Op::apply(x[u][k], Op::identity());
            if (out_vec && (i + 1) * VEC <= rows) {
                uint4 w;
                memcpy(&w, x[u], sizeof w);
                *reinterpret_cast<uint4 *>(out + i * VEC) = w;
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (i * VEC + k < rows) gp__store_elem(out + i * VEC + k, x[u][k]);
            }
        }
    }
}

/* Fills out[0 .. n) with the identity (empty rows or columns). */
template <class Op>
__global__ void gp__seg_fill_kernel(typename Op::type *out, size_t n)
{
    gp__chain_wait();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        gp__store_elem(out + i, Op::identity());
}

/* ---- host side ------------------------------------------------------------------------------ */

template <class Op>
static cudaError_t gp__seg_fill(typename Op::type *out, size_t n, const gp__device &dev, cudaStream_t s)
{
    GP__TRY(gp__kernel_load<gp__seg_fill_kernel<Op>>());
    const size_t blocks = gp__min_size(gp__ceil_div(n, 256), (size_t)dev.sms * 8);
    return gp__chained_launch(gp__seg_fill_kernel<Op>, (unsigned)blocks, 256, s, dev.cluster_ok != 0, out, n);
}

/* The launch of the one-tile kernel. */
template <class Op, class Src>
static cudaError_t gp__seg_one_tile_run(typename Op::type *d_out, const Src &src, cudaStream_t s,
                                        const gp__device &dev)
{
    return gp__seg_launch<gp__seg_reduce_kernel<Op, Src>>(d_out, src, GP__SEG_THREADS, 0, s, dev);
}

/* The segmented reduce and the rows on the merge path: on the rings where they apply, else
 * one tile at a time. Where every target is sm_90 or later, the CSR reduce of a type the
 * rings take never needs the one-tile kernel, and it is not compiled. */
template <class Op, class Src>
static cudaError_t gp__seg_reduce_run(typename Op::type *d_out, const Src &src, cudaStream_t s, const gp__device &dev)
{
    typedef typename Op::type T;
    constexpr bool ring = gp__segr_fits<T>() && GP__SEGR_RING;
    if constexpr (ring && Src::ENDS && gp__segr_every_arch_sm90()) {
        return gp__segr_run<Op>(d_out, src, s, dev);
    } else {
        if constexpr (ring)
            if (dev.cluster_ok && src.contiguous()) return gp__segr_run<Op>(d_out, src, s, dev); /* sm_90 code */
        return gp__seg_one_tile_run<Op>(d_out, src, s, dev);
    }
}

/* gp_segmented_reduce_<name> */
template <class Op>
static cudaError_t gp__segmented_reduce(typename Op::type *d_out, const typename Op::type *d_in,
                                        const uint64_t *d_offsets, size_t num_segments, cudaStream_t s)
{
    typedef typename Op::type T;
    if (num_segments == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || d_offsets == NULL || num_segments > SIZE_MAX / 2 / sizeof(T))
        return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    gp__seg_csr<T> src = {d_in, d_offsets, num_segments, 0};
    return gp__seg_reduce_run<Op>(d_out, src, s, dev);
}

/* gp_segmented_check_offsets: the first i with offsets[i + 1] < offsets[i], by the least of
 * the descents every thread finds (atomicMin: the answer does not depend on which block
 * finds one first). Neighbouring threads read neighbouring offsets, so the second read of
 * each offset comes from the cache. */
template <int = 0>
__global__ void gp__check_offsets_kernel(unsigned long long *first, const uint64_t *offsets, size_t num_segments)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < num_segments; i += (size_t)gridDim.x * blockDim.x)
        if (offsets[i + 1] < offsets[i]) atomicMin(first, (unsigned long long)i);
}

/* gp_segmented_check_offsets (a debugging aid, contract in segmented.cuh): one kernel, then
 * the answer copied back and the stream waited for. Under stream capture that wait cannot
 * be, so a capturing stream gets cudaErrorStreamCaptureUnsupported before any CUDA work. */
inline cudaError_t gp__segmented_check_offsets(size_t *first_bad, const uint64_t *d_offsets, size_t num_segments,
                                                cudaStream_t s)
{
    if (first_bad) *first_bad = num_segments;
    if (num_segments == 0) return cudaSuccess;
    if (d_offsets == NULL || num_segments > SIZE_MAX / 8 - 1) return cudaErrorInvalidValue;
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    GP__TRY(cudaStreamIsCapturing(s, &capturing));
    if (capturing != cudaStreamCaptureStatusNone) return cudaErrorStreamCaptureUnsupported;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    unsigned long long *d_first = NULL, first = ~0ull;
    GP__TRY(gp__scratch_alloc(reinterpret_cast<void **>(&d_first), sizeof first, on.dev, s));
    const size_t blocks = gp__min_size(gp__ceil_div(num_segments, 256 * 4), (size_t)dev.sms * 8);
    cudaError_t err = cudaMemsetAsync(d_first, 0xFF, sizeof first, s);
    if (err == cudaSuccess)
        err = gp__launch(gp__check_offsets_kernel<>, (unsigned)blocks, 256, 0, s, false, d_first, d_offsets, num_segments);
    if (err == cudaSuccess) err = cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, s);
    const cudaError_t freed = cudaFreeAsync(d_first, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err == cudaSuccess) err = freed;
    if (err != cudaSuccess) return err;
    if (first == ~0ull) return cudaSuccess;
    if (first_bad) *first_bad = (size_t)first;
    return cudaErrorInvalidValue;
}

/* Knobs for the bench's ladder and the probes (NULL: the defaults). merge_path: short rows
 * on the merge path, as before their own kernel (the ladder); lane_a_row: rows of one
 * element on that kernel, a lane a row, as before their own (probes/rows_of_one.cu). */
typedef struct gp__rows_knobs {
    int merge_path;
    int lane_a_row;
} gp__rows_knobs;

/* gp_reduce_rows_<name> */
template <class Op>
static cudaError_t gp__reduce_rows(typename Op::type *d_out, const typename Op::type *d_in, size_t rows, size_t cols,
                                   size_t ld, cudaStream_t s, const gp__rows_knobs *knobs = NULL)
{
    typedef typename Op::type T;
    if (ld < cols) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (d_out == NULL || (cols > 0 && d_in == NULL)) return cudaErrorInvalidValue;
    if (cols > 0 && (rows - 1 > SIZE_MAX / sizeof(T) / ld || rows > SIZE_MAX / 2 / cols)) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    if (cols == 0) return gp__seg_fill<Op>(d_out, rows, dev, s);
    /* rows of GP__ROWS_BLOCK_MIN_BYTES or more: a block a row where they make two waves of
     * blocks, else parts of GP__ROWS_BLOCK_MIN_BYTES or more, GP__ROWS_SPLIT_ITEMS of them in
     * all where the rows are long enough (a count of rows and columns alone: the association
     * is the same on every GPU) */
    const size_t blocks = (size_t)dev.sms * GP__ROWS_BLOCKS_PER_SM;
    const size_t parts = gp__min_size(gp__ceil_div(GP__ROWS_SPLIT_ITEMS, rows), cols * sizeof(T) / GP__ROWS_BLOCK_MIN_BYTES);
    if (cols * sizeof(T) >= GP__ROWS_BLOCK_MIN_BYTES && rows >= 2 * blocks) {
        GP__TRY((gp__kernel_load<gp__rows_block_kernel<Op, false>>()));
        return gp__chained_launch(gp__rows_block_kernel<Op, false>, (unsigned)blocks, GP__REDUCE_BLOCK, s,
                                  dev.cluster_ok != 0, d_out, d_in, rows, cols, ld, (size_t)1, (char *)NULL, 1u);
    }
    if (cols * sizeof(T) >= GP__ROWS_BLOCK_MIN_BYTES && parts >= 2) {
        GP__TRY((gp__kernel_load<gp__rows_block_kernel<Op, true>>()));
        gp__launch_shape shape = {GP__GRID, (unsigned)gp__min_size(blocks, rows * parts), GP__REDUCE_BLOCK, 0, 0, 0, 0, 0, 0};
        /* every word a tagged part, as the reduce's totals are: its region serves */
        shape.scratch_bytes = shape.scratch_zeroed = rows * parts * gp__status_words(sizeof(T)) * sizeof(uint64_t);
        shape.scratch_wait = dev.cluster_ok;
        shape.status_kept = GP__STATUS_REDUCE;
        shape.chain = dev.cluster_ok;
        return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
            return cudaLaunchKernelEx(&cfg, gp__rows_block_kernel<Op, true>, d_out, d_in, rows, cols, ld, parts,
                                      (char *)scratch, epoch);
        });
    }
    /* shorter rows, at least a warp's worth of them an SM: G lanes a row (above) */
    constexpr size_t VEC = gp__reduce_vec_elems(sizeof(T));
    unsigned G = 1;
    while (G < 32 && (size_t)G * VEC < cols) G *= 2;
    if (!(knobs && knobs->merge_path) && cols * sizeof(T) < GP__ROWS_BLOCK_MIN_BYTES && rows * G >= 32 * (size_t)dev.sms) {
        /* rows of one element, contiguous and aligned: a lane a vector of them */
        if constexpr (VEC > 1) {
            if (!(knobs && knobs->lane_a_row) && cols == 1 && ld == 1 && (uintptr_t)d_in % 16 == 0) {
                GP__TRY(gp__kernel_load<gp__rows_of_one_kernel<Op>>());
                const bool out_vec = (uintptr_t)d_out % 16 == 0;
                const size_t need = gp__ceil_div(gp__ceil_div(rows, VEC), (size_t)GP__ROWS_SHORT_THREADS * GP__ROWS_SHORT_U);
                const size_t blocks = gp__min_size(need, (size_t)dev.sms * (2048 / GP__ROWS_SHORT_THREADS));
                return gp__chained_launch(gp__rows_of_one_kernel<Op>, (unsigned)blocks, GP__ROWS_SHORT_THREADS, s,
                                          dev.cluster_ok != 0, d_out, d_in, rows, out_vec);
            }
        }
        GP__TRY(gp__kernel_load<gp__rows_short_kernel<Op>>());
        const bool aligned16 = (uintptr_t)d_in % 16 == 0 && ld * sizeof(T) % 16 == 0;
        const size_t need = gp__ceil_div(rows * G, (size_t)GP__ROWS_SHORT_THREADS * GP__ROWS_SHORT_U);
        const size_t blocks = gp__min_size(need, (size_t)dev.sms * (2048 / GP__ROWS_SHORT_THREADS));
        return gp__chained_launch(gp__rows_short_kernel<Op>, (unsigned)blocks, GP__ROWS_SHORT_THREADS, s,
                                  dev.cluster_ok != 0, d_out, d_in, rows, cols, ld, G, aligned16);
    }
    gp__seg_rows<T> src = {d_in, rows, cols, ld};
    return gp__seg_reduce_run<Op>(d_out, src, s, dev);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_REDUCE_CUH */
