/* detail/device/transpose.cuh -- out-of-place transpose of row-major matrices: any shape, any
 * element size, strided and batched, one launch: the padded shared-memory tile of Ruetsch
 * & Micikevicius, "Optimizing Matrix Transpose in CUDA" (2009), taken to Hopper. Level 4:
 * needs transpose_plan.cuh (the plan: validation, word size, tile shapes; plain host code,
 * tested on the host), transpose_kernels.cuh (the kernel), launch.cuh, check.cuh and
 * common.cuh. This file: the launchers, the choice by device, the instance macros.
 *
 * How it works. A block takes one tile of the input: the rows of the tile are loaded with
 * gp__tile_load_async (coalesced, cp.async: the whole tile in flight at once, no
 * registers held), the tile is read back column by column from shared memory,
 * whose rows are padded (gp_tile_pitch) so that a column read has no bank conflict, and
 * written to the output's rows (coalesced). The kernel moves words, not elements:
 *   - 4-, 8- and 16-byte elements are one word each;
 *   - 1- and 2-byte elements are packed K = 4 / size to a 4-byte word. A word column of
 *     K consecutive input rows is a K x K cell; the thread transposes the cell in
 *     registers (byte permutes) and writes K words, one to each of K output rows. So a
 *     warp still moves 128 contiguous bytes per access. Rows k, k + K, k + 2K, ... of the
 *     tile are stored together in shared memory, so the K reads of a cell are still
 *     conflict-free column reads.
 * Where the input rows start on 16 bytes, the square tile of 4- and 8-byte words moves
 * 16-byte chunks instead, through an unpadded tile whose chunks are swizzled so that the
 * column reads stay conflict-free (see "16-byte chunks").
 * When the pointers, leading dimensions or dimensions do not allow words for 1- and
 * 2-byte elements (a u8 matrix with an odd number of columns, an odd pointer), the same
 * kernel runs "ragged": it realigns each row segment of the tile to a word boundary as it
 * reads it from shared memory and realigns each output row segment to its own offset
 * before it stores it (funnel shifts, one shuffle), so it still moves aligned 4-byte
 * words on both sides with the same cells; its tiles reach K rows above their own, so
 * that single elements are stored only where the matrix's first and last rows cut a word
 * (see "the ragged kernel's two ends"). Other elements that do
 * not fit words (a 12-byte struct, a 16-byte struct aligned to 4) go one element at a
 * time through the word kernel: correct, slower.
 * Tiles are numbered in one dimension (tile rows fastest, then tile columns, then the
 * batch) and blocks loop over them, so no shape reaches a grid limit. The tile's shape
 * follows the matrix (gp__transpose_shape): square, small for matrices of fewer square
 * tiles than SMs, and short or narrow ones for matrices of few rows or few columns, where
 * a square tile would be mostly empty.
 * On sm_90 each call is a programmatic dependent launch (gp__chained_launch): it waits for
 * the stream's earlier work at its first instruction, so back-to-back calls do not each
 * wait for a launch (H100, probe: f64 1000^2 9.1 -> 8.2 us, f32 1000^2 6.5 -> 5.5 us,
 * f64 2048^2 27.2 -> 26.3 us; 8192^2 unchanged). */
#ifndef GPUPRIMS_DETAIL_TRANSPOSE_CUH
#define GPUPRIMS_DETAIL_TRANSPOSE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"

/* GP_DECLARE_TRANSPOSE(name, T): the host functions' declarations, with C linkage, for C
 * and CUDA files alike (the definitions are GP_DEFINE_TRANSPOSE_EXTERN in one .cu file). */
#define GP_DECLARE_TRANSPOSE(name, T)                                                                        \
    GP__EXTERN_C cudaError_t gp_transpose_##name(T *d_out, const T *d_in, size_t rows, size_t cols,          \
                                                 cudaStream_t s);                                            \
    GP__EXTERN_C cudaError_t gp_transpose_strided_##name(T *d_out, size_t ld_out, const T *d_in, size_t ld_in, \
                                                         size_t rows, size_t cols, cudaStream_t s);          \
    GP__EXTERN_C cudaError_t gp_transpose_batched_##name(T *d_out, size_t ld_out, size_t stride_out,         \
                                                         const T *d_in, size_t ld_in, size_t stride_in,      \
                                                         size_t rows, size_t cols, size_t batch, cudaStream_t s);

#ifdef __CUDACC__
#include "../util/check.cuh"
#include "../util/launch.cuh"
#include "../block/tile.cuh"
#include "transpose_plan.cuh"
#include "transpose_kernels.cuh"

/* Tiles of COLS x Q a call covers (RAGGED: a in elements, a tile COLS * K of them wide). */
template <class W, int K, int COLS, int Q, int MODE>
static inline size_t gp__transpose_tiles(const gp__transpose_words &a)
{
    const size_t wide = MODE == GP__TR_RAGGED ? (size_t)COLS * K : COLS;
    return gp__ceil_div(a.cols_w, wide) * gp__ceil_div(a.rows, (size_t)gp__transpose_tile<W, K, COLS, Q, MODE>::STEP) * a.batch;
}

/* chain: a programmatic dependent launch (gp__chained_launch). */
template <class W, int K, int COLS, int Q, int MODE = GP__TR_CELLS>
static cudaError_t gp__transpose_run(const gp__transpose_words &a, cudaStream_t s, bool chain = false)
{
    const size_t tiles = gp__transpose_tiles<W, K, COLS, Q, MODE>(a);
    GP__TRY(gp__kernel_load<gp__transpose_kernel<W, K, COLS, Q, MODE>>());
    return gp__chained_launch(gp__transpose_kernel<W, K, COLS, Q, MODE>, (unsigned)gp__min_size(tiles, GP__GRID_MAX),
                              GP__TRANSPOSE_THREADS, s, chain, a);
}

/* RAGGED: at most 32 cell rows (a NARROW shape's tile gets fewer rows), and square tiles
 * NARROWER times narrower. chain: a programmatic dependent launch. */
template <class W, int K, int SHAPE, int MODE = GP__TR_CELLS, int NARROWER = GP__RAGGED_NARROWER>
static cudaError_t gp__transpose_run_shape(const gp__transpose_words &a, cudaStream_t s, bool chain = false)
{
    constexpr int WB = (int)sizeof(W), Q = gp__transpose_q(SHAPE, WB, K);
    constexpr int COLS = gp__transpose_cols(SHAPE, WB, K) / (MODE == GP__TR_RAGGED && SHAPE == GP__TILE_SQUARE ? NARROWER : 1);
    return gp__transpose_run<W, K, COLS, (MODE == GP__TR_RAGGED && Q > 32 ? 32 : Q), MODE>(a, s, chain);
}

/* The call in the kernel's units: per_unit elements each (K a word, or 1). */
static inline gp__transpose_words gp__transpose_in_units(const gp__transpose_desc *d, size_t per_unit)
{
    gp__transpose_words a;
    a.out = (void *)d->out;
    a.in = (const void *)d->in;
    a.ld_out = d->ld_out / per_unit;
    a.stride_out = d->stride_out / per_unit;
    a.ld_in = d->ld_in / per_unit;
    a.stride_in = d->stride_in / per_unit;
    a.rows = d->rows;
    a.cols_w = d->cols / per_unit;
    a.batch = d->batch;
    a.prefetch = false; /* gp__transpose_launch decides */
    return a;
}
template <class W, int K>
static gp__transpose_words gp__transpose_in_words(const gp__transpose_desc *d)
{
    return gp__transpose_in_units(d, sizeof(W) / d->elem);
}

/* Whether the tile copies of words of `word` bytes get the L2 prefetch ("prefetch"): input
 * rows close together, copied in pieces of less than 16 bytes. */
static inline bool gp__transpose_prefetch(const gp__transpose_desc *d, size_t word)
{
    return word < 16 && (d->ld_in - d->cols) * d->elem <= GP__TRANSPOSE_DENSE_GAP;
}

/* Whether the input's rows all start on 16 bytes (the chunked tile). */
static inline bool gp__transpose_rows16(const gp__transpose_desc *d)
{
    const size_t strides = d->batch > 1 ? d->stride_in : 0;
    return d->in % 16 == 0 && (d->ld_in * d->elem) % 16 == 0 && (strides * d->elem) % 16 == 0;
}

/* ---- the choice by device ---------------------------------------------------------------
 * Deep tiles. Where each SM has a large share of the DRAM bandwidth (gp__device.mem_gbs_sm),
 * it must keep more bytes in flight to do its share, and two tile choices that win on the
 * H100 (25 GB/s an SM) lose on the H200 (36 GB/s) with the same SMs. % of copy, same run
 * on each GPU (bench/transpose/probes/transpose_tiles.cu, H100 / H200):
 *   - floats on rows off 16 bytes, 8 KB tiles of 128-byte rows against the 16 KB square
 *     tile: 4097 x 3001 94.7 / 74.5 against 84.5 / 84.0; 8191^2 89.4 / 67.8 against
 *     74.7 / 77.8; 2049 x 2047 101.9 / 83.3 against 100.2 / 92.5;
 *   - ragged u8 and u16, square tiles half as wide (8 KB) against 16 KB: on the H100 8 KB
 *     won everywhere (u8 8191^2 68 against 50); on the H200 16 KB won on matrices of two
 *     waves of tiles or more (u8 8191^2 57.0 -> 65.9, u16 60.2 -> 66.8, u16 4097 x 3001 61.4
 *     -> 65.8) and lost on smaller ones (u8 4097 x 3001, 1.5 waves, 63.1 -> 61.8; 2049 x
 *     2047 77.0 -> 61.1). Since u16 tiles run 6 blocks an SM, not 4, they stay half as wide
 *     there too (gp__ragged_wide).
 * The threshold lies between the two GPUs. */
#ifndef GP__TRANSPOSE_DEEP_GBS
#define GP__TRANSPOSE_DEEP_GBS 30 /* GB/s of DRAM bandwidth per SM from which tiles go deep */
#endif
static inline bool gp__transpose_deep(const gp__device &dev) { return dev.mem_gbs_sm >= GP__TRANSPOSE_DEEP_GBS; }

/* Ragged square tiles at full width (16 KB) rather than GP__RAGGED_NARROWER times narrower:
 * for u8 (K = 4) on a deep device, for a call of at least two waves of them. a: in
 * elements. u16 tiles stay half as wide everywhere since they run 6 blocks an SM (H200,
 * bench/transpose/probes/transpose_tiles.cu prefetch, two runs, % of copy, half against full width:
 * u16 8191^2 67.8 against 62.1-62.6, 4097 x 3001 69.6-70.5 against 67.8-68.5, 3001 x 4097
 * 72.8-74.1 against 68.1-68.9; u8 8191^2 still 64.8-65.6 against 69.5-69.9). */
template <int K>
static inline bool gp__ragged_wide(const gp__transpose_words &a, const gp__device &dev)
{
    if (K != 4) return false;
    const size_t tiles = gp__transpose_tiles<uint32_t, K, gp__transpose_cols(GP__TILE_SQUARE, 4, K), 32, GP__TR_RAGGED>(a);
    constexpr int WIDE_BLOCKS = gp__transpose_tile<uint32_t, K, gp__transpose_cols(GP__TILE_SQUARE, 4, K), 32, GP__TR_RAGGED>::MIN_BLOCKS;
    return gp__transpose_deep(dev) && tiles >= 2 * (size_t)WIDE_BLOCKS * dev.sms;
}

/* SHAPE in MODE, or in 16-byte chunks where the input rows start on 16 bytes (rows16) and
 * the shape takes them: the square shape of 4- and 8-byte words, and the short and narrow
 * shapes of floats (32 rows by 2^22 / 2^22 by 32, % of copy, H100 / H200: 96.5 / 78.1 ->
 * 97.4 / 96.7 and 96.3 / 78.4 -> 97.1 / 91.3). */
template <class W, int K, int SHAPE, int MODE>
static cudaError_t gp__transpose_run_rows(const gp__transpose_words &a, cudaStream_t s, bool chain, bool rows16)
{
    constexpr bool WORDS = MODE != GP__TR_RAGGED && (sizeof(W) == 4 || sizeof(W) == 8) && alignof(W) == sizeof(W);
    constexpr bool CHUNKS = WORDS && (SHAPE == GP__TILE_SQUARE ||
                                      (sizeof(W) == 4 && K == 1 && (SHAPE == GP__TILE_SHORT32 || SHAPE == GP__TILE_NARROW128)));
    if constexpr (CHUNKS)
        if (rows16) return gp__transpose_run_shape<W, K, SHAPE, GP__TR_CHUNKS>(a, s, chain);
    return gp__transpose_run_shape<W, K, SHAPE, MODE>(a, s, chain);
}

/* RAGGED: K elements of 1 or 2 bytes to a 4-byte word, at any alignment (see above).
 * prefetch: false turns the L2 prefetch off (the bench's history). */
template <class W, int K, int MODE = GP__TR_CELLS>
static cudaError_t gp__transpose_launch(const gp__transpose_desc *d, const gp__device &dev, cudaStream_t s, bool prefetch)
{
    constexpr bool RAGGED = MODE == GP__TR_RAGGED;
    /* 4- or 8-byte elements, one a word */
    constexpr bool ELEM_WORDS = !RAGGED && K == 1 && (sizeof(W) == 4 || sizeof(W) == 8) && alignof(W) == sizeof(W);
    gp__transpose_words a = RAGGED ? gp__transpose_in_units(d, 1) : gp__transpose_in_words<W, K>(d);
    a.prefetch = prefetch && gp__transpose_prefetch(d, sizeof(W));
    const size_t cells = RAGGED ? gp__ceil_div(a.rows, (size_t)K) : a.rows / K;
    const size_t cols_w = RAGGED ? gp__ceil_div(a.cols_w, (size_t)K) : a.cols_w;
    const bool chain = dev.cluster_ok; /* sm_90 code on an sm_90 device: chained launches */
    const bool rows16 = gp__transpose_rows16(d);
    switch (gp__transpose_shape(cells, cols_w, a.batch, (int)sizeof(W), K, dev.sms)) {
    case GP__TILE_SMALL: return gp__transpose_run_rows<W, K, GP__TILE_SMALL, MODE>(a, s, chain, rows16);
    case GP__TILE_SHORT8: return gp__transpose_run_rows<W, K, GP__TILE_SHORT8, MODE>(a, s, chain, rows16);
    case GP__TILE_SHORT16: return gp__transpose_run_rows<W, K, GP__TILE_SHORT16, MODE>(a, s, chain, rows16);
    case GP__TILE_SHORT32: return gp__transpose_run_rows<W, K, GP__TILE_SHORT32, MODE>(a, s, chain, rows16);
    case GP__TILE_NARROW32: return gp__transpose_run_rows<W, K, GP__TILE_NARROW32, MODE>(a, s, chain, rows16);
    case GP__TILE_NARROW64: return gp__transpose_run_rows<W, K, GP__TILE_NARROW64, MODE>(a, s, chain, rows16);
    case GP__TILE_NARROW128: return gp__transpose_run_rows<W, K, GP__TILE_NARROW128, MODE>(a, s, chain, rows16);
    default:
        if constexpr (RAGGED && K == 4)
            if (gp__ragged_wide<K>(a, dev)) return gp__transpose_run_shape<W, K, GP__TILE_SQUARE, MODE, 1>(a, s, chain);
        /* 4- and 8-byte elements on rows off 16 bytes: tiles of 128-byte rows (64 of them)
         * reach more of the copy rate than 256-byte ones on the H100: floats 2.5 to 15
         * points (f32 2049 x 2047 100.0 -> 102.5%, 4097 x 3001 85.9 -> 93.9%, 3001 x 4097
         * 86.3 -> 95.9%, 8191^2 75.2 -> 89.8%), doubles 2 to 4 once the L2 prefetches (two
         * runs, bench/transpose/probes/transpose_tiles.cu prefetch: f64 4097 x 3001 97.6-98.6 ->
         * 99.6-100.5%, 3001 x 4097 98.2-99.1 -> 100.8%, 8191^2 92.9-94.7 -> 97.0-97.3%,
         * 2049 x 2047 104.0-105.2 -> 106.4-107.9%; before it they were within a point).
         * 256-byte rows win on rows on 16 bytes (f32 8192^2: 95.4 against 91.4%), and on
         * every shape on a deep device (H200, same probe: f64 4097 x 3001 93.0-95.2 against
         * 89.3-91.5%, f32 74.2-74.5 against 83.6-84.2%). */
        if constexpr (ELEM_WORDS)
            if (!rows16 && !gp__transpose_deep(dev)) return gp__transpose_run<W, 1, 128 / (int)sizeof(W), 64>(a, s, chain);
        return gp__transpose_run_rows<W, K, GP__TILE_SQUARE, MODE>(a, s, chain, rows16);
    }
}

/* An element of N bytes (8 or 16) that sits on 4 bytes only: moved as N / 4 words of 4. */
template <size_t N>
struct gp__words4 {
    uint32_t w[N / 4];
};

/* A valid, non-empty call d on the stream's device, described by dev; prefetch as for
 * gp__transpose_launch. */
template <class T>
static cudaError_t gp__transpose_on(const gp__transpose_desc &d, const gp__device &dev, cudaStream_t s,
                                    bool prefetch = true)
{
    switch (gp__transpose_word_bytes(&d)) {
    case 4:
        if constexpr (sizeof(T) == 1) return gp__transpose_launch<uint32_t, 4>(&d, dev, s, prefetch);
        if constexpr (sizeof(T) == 2) return gp__transpose_launch<uint32_t, 2>(&d, dev, s, prefetch);
        if constexpr (sizeof(T) == 4) return gp__transpose_launch<uint32_t, 1>(&d, dev, s, prefetch);
        break;
    case 8:
        if constexpr (sizeof(T) == 8) return gp__transpose_launch<uint2, 1>(&d, dev, s, prefetch);
        break;
    case 16:
        if constexpr (sizeof(T) == 16) return gp__transpose_launch<uint4, 1>(&d, dev, s, prefetch);
        break;
    }
    /* 1- and 2-byte elements off the word grid: aligned words all the same. */
    if constexpr (sizeof(T) == 1) return gp__transpose_launch<uint32_t, 4, GP__TR_RAGGED>(&d, dev, s, prefetch);
    if constexpr (sizeof(T) == 2) {
        if (((d.in | d.out) & 1) == 0) return gp__transpose_launch<uint32_t, 2, GP__TR_RAGGED>(&d, dev, s, prefetch);
        if constexpr (alignof(T) == 1) return gp__transpose_launch<T, 1>(&d, dev, s, prefetch); /* a pair of bytes */
        return cudaErrorInvalidValue; /* below the type's own alignment */
    }
    /* Element by element: T's own alignment or the shape rules words out. */
    if constexpr (sizeof(T) != 1 && sizeof(T) != 2 &&
                  (alignof(T) < sizeof(T) || (sizeof(T) != 8 && sizeof(T) != 16 && sizeof(T) != 4)))
        return gp__transpose_launch<T, 1>(&d, dev, s, prefetch);
    /* An 8- or 16-byte element at an address aligned to 4 but not to its size (a double at
     * 4, a gp_v16_t standing for float4 or double2 data at 4 or 8): element by element too,
     * each element moved as 4-byte pieces. Correct, slower. */
    if constexpr (sizeof(T) == 8 || sizeof(T) == 16)
        if ((d.in | d.out) % 4 == 0) return gp__transpose_launch<gp__words4<sizeof(T)>, 1>(&d, dev, s, prefetch);
    return cudaErrorInvalidValue; /* addresses not even aligned to 4 */
}

/* described: NULL (the host functions), or a description of the stream's device to plan
 * with instead of its own (the tests and the bench's history run the choices of other
 * GPUs on the one they have). */
template <class T>
static cudaError_t gp__transpose(T *d_out, size_t ld_out, size_t stride_out, const T *d_in, size_t ld_in,
                                 size_t stride_in, size_t rows, size_t cols, size_t batch, cudaStream_t s,
                                 const gp__device *described = NULL)
{
    const gp__transpose_desc d = {(uintptr_t)d_out, (uintptr_t)d_in, ld_out, stride_out, ld_in, stride_in,
                                  rows, cols, batch, sizeof(T)};
    GP__TRY(gp__transpose_validate(&d));
    if (rows == 0 || cols == 0 || batch == 0) return cudaSuccess;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    if (described) dev = *described;
    else GP__TRY(gp__device_query(&dev, on.dev));
    return gp__transpose_on<T>(d, dev, s);
}

/* The default instances' transposes planned for a described device, for the tests, which run
 * other GPUs' choices on the one they have without compiling every transpose kernel again
 * (lib/transpose.cu compiles them). Instantiated for the default instances' types where
 * those are compiled (GPUPRIMS_IMPLEMENTATION_TRANSPOSE, detail/instances.cuh); not API, and
 * not exported by the shared library (C++ names). */
template <class T>
cudaError_t gp__transpose_described(T *d_out, size_t ld_out, size_t stride_out, const T *d_in, size_t ld_in,
                                    size_t stride_in, size_t rows, size_t cols, size_t batch, cudaStream_t s,
                                    const gp__device *described);

/* ---- instantiation (the shape every family shares: see the end of reduce.cuh) -----------
 * GP__DEFINE_TRANSPOSE_HOST: the three host launchers of one instance, with linkage SCOPE. */
#define GP__DEFINE_TRANSPOSE_HOST(SCOPE, name, T)                                                              \
    SCOPE cudaError_t gp_transpose_##name(T *d_out, const T *d_in, size_t rows, size_t cols, cudaStream_t s)  \
    {                                                                                                          \
        return gp__transpose(d_out, rows, 0, d_in, cols, 0, rows, cols, 1, s);                                 \
    }                                                                                                          \
    SCOPE cudaError_t gp_transpose_strided_##name(T *d_out, size_t ld_out, const T *d_in, size_t ld_in,       \
                                                  size_t rows, size_t cols, cudaStream_t s)                    \
    {                                                                                                          \
        return gp__transpose(d_out, ld_out, 0, d_in, ld_in, 0, rows, cols, 1, s);                              \
    }                                                                                                          \
    SCOPE cudaError_t gp_transpose_batched_##name(T *d_out, size_t ld_out, size_t stride_out, const T *d_in,  \
                                                  size_t ld_in, size_t stride_in, size_t rows, size_t cols,    \
                                                  size_t batch, cudaStream_t s)                                \
    {                                                                                                          \
        return gp__transpose(d_out, ld_out, stride_out, d_in, ld_in, stride_in, rows, cols, batch, s);         \
    }

/* GP_DEFINE_TRANSPOSE(name, T): tile functions and transposes for a user's element type
 * (at most GP_MAX_ELEM_BYTES), at file scope of a .cu file, local to it:
 *   gp_tile_load_<name>, gp_tile_load_async_<name>, gp_tile_store_<name>   (tile.cuh)
 *   cudaError_t gp_transpose_<name>(T *d_out, const T *d_in, size_t rows, size_t cols, cudaStream_t s)
 *   cudaError_t gp_transpose_strided_<name>(T *d_out, size_t ld_out, const T *d_in, size_t ld_in,
 *                                           size_t rows, size_t cols, cudaStream_t s)
 *   cudaError_t gp_transpose_batched_<name>(T *d_out, size_t ld_out, size_t stride_out,
 *                                           const T *d_in, size_t ld_in, size_t stride_in,
 *                                           size_t rows, size_t cols, size_t batch, cudaStream_t s)
 * d_in is rows x cols, row-major, leading dimension ld_in >= cols; d_out is cols x rows
 * with ld_out >= rows; batched: `batch` matrices, `stride_in` / `stride_out` elements apart.
 * Asynchronous on s. An empty shape is a no-op; NULL pointers, short leading dimensions,
 * overlapping output matrices or any overlap of input and output (no in-place transpose)
 * give cudaErrorInvalidValue and launch nothing. GP_DEFINE_TRANSPOSE_EXTERN gives the
 * three host functions external C linkage (one .cu file; GP_DECLARE_TRANSPOSE elsewhere). */
#define GP__DEFINE_TRANSPOSE_AS(SCOPE, name, T)                                               \
    namespace gp_DEFINE_must_be_used_at_file_scope {}                                        \
    static_assert(sizeof(T) <= GP_MAX_ELEM_BYTES, "gpuprims: element type " #T                \
                                                  " is larger than GP_MAX_ELEM_BYTES");       \
    GP_DEFINE_TILE(name, T)                                                                   \
    GP__DEFINE_TRANSPOSE_HOST(SCOPE, name, T)
#define GP_DEFINE_TRANSPOSE(name, T) GP__DEFINE_TRANSPOSE_AS([[maybe_unused]] static, name, T)
#define GP_DEFINE_TRANSPOSE_EXTERN(name, T) GP__DEFINE_TRANSPOSE_AS(extern "C", name, T)

#else /* not CUDA: the definitions need nvcc */
#define GP_DEFINE_TRANSPOSE(name, T) GP__NEEDS_CUDA(GP_DEFINE_TRANSPOSE)
#define GP_DEFINE_TRANSPOSE_EXTERN(name, T) GP__NEEDS_CUDA(GP_DEFINE_TRANSPOSE_EXTERN)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_TRANSPOSE_CUH */
