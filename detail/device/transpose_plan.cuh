/* detail/device/transpose_plan.cuh -- the transpose's tuning and plan: the call's
 * description and its validation, the word the kernel moves, the tile shapes and their
 * sizes, the in-register cell transpose. Level 4 (plain host/device code, tested on the
 * host): needs block/tile.cuh and util/common.cuh. See device/transpose.cuh for how the
 * transpose works. */
#ifndef GPUPRIMS_DETAIL_TRANSPOSE_PLAN_CUH
#define GPUPRIMS_DETAIL_TRANSPOSE_PLAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../block/tile.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured).
 * GP__TILE_BATCH_BYTES in tile.cuh matters here too. */
#ifndef GP__TRANSPOSE_THREADS
#define GP__TRANSPOSE_THREADS 256
#endif
#ifndef GP__TRANSPOSE_TILE_BYTES
#define GP__TRANSPOSE_TILE_BYTES 16384 /* bytes of a tile (most shapes), before padding */
#endif
#ifndef GP__RAGGED_BLOCKS
#define GP__RAGGED_BLOCKS 0 /* ragged tiles: blocks per SM; 0: as many as fit without spills (below) */
#endif
#ifndef GP__RAGGED_NARROWER
#define GP__RAGGED_NARROWER 2 /* ragged square tiles: that many times narrower than the others */
#endif
#ifndef GP__TRANSPOSE_DENSE_GAP
#define GP__TRANSPOSE_DENSE_GAP 128 /* bytes between input rows up to which the L2 prefetches (below) */
#endif

/* One transpose call, in elements: batch matrices of rows x cols (leading dimension ld_in,
 * matrix b at in + b * stride_in) into batch matrices of cols x rows (ld_out, stride_out). */
typedef struct gp__transpose_desc {
    uintptr_t out, in;
    size_t ld_out, stride_out, ld_in, stride_in;
    size_t rows, cols, batch, elem;
} gp__transpose_desc;

/* Bytes spanned by `batch` matrices of rows x cols, leading dimension ld, `stride` apart;
 * 0 when that does not fit in size_t. */
static inline size_t gp__matrix_span_bytes(size_t rows, size_t cols, size_t ld, size_t batch, size_t stride, size_t elem)
{
    const size_t max = SIZE_MAX / 2;
    if (rows - 1 > (max - cols) / ld) return 0;
    size_t elems = (rows - 1) * ld + cols;
    if (batch > 1) {
        if (stride != 0 && batch - 1 > (max - elems) / stride) return 0;
        elems += (batch - 1) * stride;
    }
    return elems > max / elem ? 0 : elems * elem;
}

/* cudaSuccess when the call can run (or is an empty no-op), else cudaErrorInvalidValue:
 * NULL pointers, leading dimensions shorter than a row, output matrices of a batch that
 * overlap one another, input and output that overlap (no in-place transpose), or a size
 * beyond the address space. */
static inline cudaError_t gp__transpose_validate(const gp__transpose_desc *d)
{
    if (d->rows == 0 || d->cols == 0 || d->batch == 0) return cudaSuccess;
    if (d->out == 0 || d->in == 0 || d->ld_in < d->cols || d->ld_out < d->rows) return cudaErrorInvalidValue;
    const size_t in_bytes = gp__matrix_span_bytes(d->rows, d->cols, d->ld_in, d->batch, d->stride_in, d->elem);
    const size_t out_bytes = gp__matrix_span_bytes(d->cols, d->rows, d->ld_out, d->batch, d->stride_out, d->elem);
    const size_t one_out = (d->cols - 1) * d->ld_out + d->rows;
    if (in_bytes == 0 || out_bytes == 0) return cudaErrorInvalidValue;
    if (d->batch > 1 && d->stride_out < one_out) return cudaErrorInvalidValue;
    if (gp__ranges_overlap((const void *)d->in, in_bytes, (const void *)d->out, out_bytes))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* The word the kernel moves, in bytes (4, 8 or 16), or 0: the ragged kernel (1- and
 * 2-byte elements) or one element at a time (other types). */
static inline int gp__transpose_word_bytes(const gp__transpose_desc *d)
{
    const size_t e = d->elem;
    const size_t word = e < 4 ? 4 : e;
    if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) return 0;
    const size_t k = word / e; /* elements per word */
    const size_t strides = d->batch > 1 ? (d->stride_in | d->stride_out) : 0;
    if ((d->in | d->out) % word != 0) return 0;
    if ((d->ld_in | d->ld_out | strides | d->rows | d->cols) % k != 0) return 0;
    return (int)word;
}

/* ---- tile shapes (host and device) ---------------------------------------------------------
 * A tile of the word kernel is COLS words of Q * K input rows: Q cells of K rows down, so
 * Q words of each of the K * COLS output rows it writes. The shape follows the matrix:
 *   SQUARE   128 input bytes a row for bytes (4x4 cells), 256 for the rest; 16 KB a tile
 *            (ragged: half as wide, see "the ragged kernel's two ends").
 *   SMALL    64-byte rows, 4 KB: a matrix of fewer square tiles than the GPU has SMs
 *            would leave SMs idle.
 *   SHORT8, SHORT16, SHORT32   at most 8, 16 or 32 words an output row (a u8 matrix of 32
 *            rows: 8): Q that many, long input rows, 16 KB. With Q < 32 a warp's lanes
 *            spread over 32 / Q output rows, so none idles.
 *   NARROW32, NARROW64, NARROW128   input rows of at most 32, 64 or 128 bytes: COLS that
 *            wide, many rows, 16 KB. */
enum {
    GP__TILE_SQUARE, GP__TILE_SMALL,
    GP__TILE_SHORT8, GP__TILE_SHORT16, GP__TILE_SHORT32,
    GP__TILE_NARROW32, GP__TILE_NARROW64, GP__TILE_NARROW128,
    GP__TILE_SHAPES
};

/* The cell rows Q of a SHORT shape (0 for the others), the input row bytes of a NARROW one. */
static inline GP__HD constexpr int gp__short_q(int shape) { return shape >= GP__TILE_SHORT8 && shape <= GP__TILE_SHORT32 ? 8 << (shape - GP__TILE_SHORT8) : 0; }
static inline GP__HD constexpr int gp__narrow_bytes(int shape) { return shape >= GP__TILE_NARROW32 ? 32 << (shape - GP__TILE_NARROW32) : 0; }

/* COLS: words of a tile row, for words of `wbytes` bytes holding K elements. */
static inline GP__HD constexpr int gp__transpose_cols(int shape, int wbytes, int k)
{
    const int row_bytes = shape == GP__TILE_SMALL ? 64
                          : gp__short_q(shape)    ? GP__TRANSPOSE_TILE_BYTES / (gp__short_q(shape) * k)
                          : gp__narrow_bytes(shape) ? gp__narrow_bytes(shape)
                          : k == 4                ? 128
                                                  : 256;
    return row_bytes >= wbytes ? row_bytes / wbytes : 1;
}

/* Q: cell rows of a tile, a power of two (at least 8). */
static inline GP__HD constexpr int gp__transpose_q(int shape, int wbytes, int k)
{
    if (gp__short_q(shape)) return gp__short_q(shape);
    const int bytes = shape == GP__TILE_SMALL ? GP__TRANSPOSE_TILE_BYTES / 4 : GP__TRANSPOSE_TILE_BYTES;
    const int q = bytes / (gp__transpose_cols(shape, wbytes, k) * k * wbytes);
    int p = 8; /* the power of two at or below q (elements of odd sizes give odd quotients) */
    while (2 * p <= q) p *= 2;
    return p;
}

/* The row pitch (words) of a tile read as the kernel reads it: lane l of a warp takes cell
 * row l % Q of column l / Q (Q >= 32: 32 consecutive rows of one column). The smallest
 * pitch >= cols whose reads take the ideal number of wavefronts (the bank model of
 * tile.cuh): odd for Q >= 32 and 4-byte words, 4 more than a multiple of 32 for Q = 8. */
static inline GP__HD constexpr int gp__transpose_pitch(int cols, int q, int wbytes)
{
    if (wbytes > 16) return cols + 1;
    for (int p = cols; p < cols + 64; p++) {
        uint64_t addr[32] = {};
        for (int l = 0; l < 32; l++) addr[l] = ((uint64_t)(l % q) * p + (uint64_t)(l / q)) * wbytes;
        if (gp__bank_wavefronts(addr, 32, wbytes) == gp__bank_wavefronts_ideal(addr, 32, wbytes)) return p;
    }
    return cols + 1;
}

/* Which shape the word kernel uses for a matrix of `cells` cell rows (rows / K) by
 * `cols_w` words, `batch` times, on a GPU of `sms` multiprocessors. */
static inline int gp__transpose_shape(size_t cells, size_t cols_w, size_t batch, int wbytes, int k, unsigned sms)
{
    const size_t row_bytes = cols_w * (size_t)wbytes;
    if (row_bytes > 128 && cells <= 32) return cells <= 8 ? GP__TILE_SHORT8 : cells <= 16 ? GP__TILE_SHORT16 : GP__TILE_SHORT32;
    if (cells > 32 && row_bytes <= 128) return row_bytes <= 32 ? GP__TILE_NARROW32 : row_bytes <= 64 ? GP__TILE_NARROW64 : GP__TILE_NARROW128;
    const size_t tiles = gp__ceil_div(cols_w, (size_t)gp__transpose_cols(GP__TILE_SQUARE, wbytes, k)) *
                         gp__ceil_div(cells, (size_t)gp__transpose_q(GP__TILE_SQUARE, wbytes, k)) * batch;
    return tiles < sms ? GP__TILE_SMALL : GP__TILE_SQUARE;
}

/* How the kernel moves a tile (the MODE of gp__transpose_tile and gp__transpose_kernel):
 *   CELLS   words by cp.async into a padded tile, read back one word a lane (the default);
 *   RAGGED  1- and 2-byte elements off the word grid, rows realigned at both ends (below);
 *   CHUNKS  rows that start on 16 bytes, 4- and 8-byte words: 16-byte cp.async into an
 *           unpadded, swizzled tile, read back 16 bytes a lane (below). */
enum { GP__TR_CELLS, GP__TR_RAGGED, GP__TR_CHUNKS };

/* Tile of the kernel moving words W with K x K cells: SR = K * Q input rows (K groups of
 * Q rows) by COLS words, padded to PITCH words. RAGGED: a row segment that starts inside a
 * word touches COLS + 1 aligned words, and a lane needs its neighbour's cell, so Q <= 32
 * (a warp holds whole columns). CHUNKS: unpadded, at least 8 chunks a row, Q >= 32. */
template <class W, int K, int COLS_, int Q_, int MODE = GP__TR_CELLS>
struct gp__transpose_tile {
    static constexpr int NT = GP__TRANSPOSE_THREADS, COLS = COLS_, Q = Q_, SR = K * Q;
    static constexpr int ROW_WORDS = COLS + (MODE == GP__TR_RAGGED ? 1 : 0);
    static constexpr int PITCH = MODE == GP__TR_CHUNKS ? COLS : gp__transpose_pitch(ROW_WORDS, Q, (int)sizeof(W));
    static constexpr int V = 16 / (int)sizeof(W); /* CHUNKS: words a chunk */
    static constexpr size_t SMEM = (size_t)SR * PITCH * sizeof(W);
    /* RAGGED with whole warps down a column: the first H of the SR rows are the K rows above
     * the tile's own (a halo cell), so a tile owns STEP rows (see "the ragged kernel's two
     * ends"). */
    static constexpr int H = MODE == GP__TR_RAGGED && Q == 32 ? K : 0, STEP = SR - H;
    /* Occupancy: 8 blocks per SM (32 registers) for 4- to 16-byte words read by lanes on
     * consecutive rows; the byte-permute cells and elements of odd sizes need a few more
     * registers (6 blocks, 40); lanes spread over columns (Q < 32) more again (4, 64:
     * with fewer they spill), as do ragged tiles: as many blocks as their registers allow
     * without spills (ptxas, sm_90): 2-byte elements 6 (40 registers), 1-byte tiles 16 words
     * wide 5 (48), wider ones 4 (64). With the L2 prefetch each block more gained 2-7
     * points of copy on the H100 (bench/transpose/probes/transpose_tiles.cu prefetch, two runs: u8
     * 4097 x 3001 83.8-84.0 -> 86.6-87.3%, 8191^2 77.7-78.0 -> 80.2-80.9%; u16 4097 x 3001
     * 80.2-80.3 -> 85.7-86.2%, 8191^2 79.9-80.0 -> 86.5-86.6%; u8 2049 x 2047 87.5-88.7 ->
     * 84.9-85.5%); 6 blocks of u8 tiles spill and lost 3-7 points. */
    static constexpr int RAGGED_BLOCKS = GP__RAGGED_BLOCKS ? GP__RAGGED_BLOCKS : K == 2 ? 6 : COLS <= 16 ? 5 : 4;
    static constexpr int MIN_BLOCKS = Q < 32 ? 4 : MODE == GP__TR_RAGGED ? RAGGED_BLOCKS : K == 1 && sizeof(W) >= 4 && sizeof(W) <= 16 ? 8 : 6;
    static_assert(SMEM <= GP__STATIC_SMEM_MAX, "gp_transpose: element type too large for a shared-memory tile");
    static_assert((Q & (Q - 1)) == 0, "cell rows a power of two (lanes split evenly over columns)");
    static_assert(MODE != GP__TR_RAGGED || (sizeof(W) == 4 && K > 1 && Q <= 32 && Q * COLS % 32 == 0 &&
                                            (COLS & (COLS - 1)) == 0),
                  "ragged tiles: 4-byte words of 1- or 2-byte elements, whole columns in a warp");
    static_assert(MODE != GP__TR_CHUNKS || ((sizeof(W) == 4 || sizeof(W) == 8) && Q >= 32 && COLS % (8 * V) == 0),
                  "chunked tiles: 4- or 8-byte words, 8 chunks a row or more, whole warps down a column");
};

/* A byte permute: bytes of (b:a) picked by the four selector nibbles (PRMT). */
static inline GP__HD uint32_t gp__prmt(uint32_t a, uint32_t b, uint32_t sel)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(a, b, sel);
#else
    const uint64_t x = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)((x >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}

/* Transposes a K x K cell of K words in place: on entry v[k] holds row k (element j in
 * its j-th lane of 32 / K bits), on return v[j] holds column j. */
template <int K, class W>
static inline GP__HD void gp__transpose_cell(W *v)
{
    if constexpr (K == 2) {
        const uint32_t a = v[0], b = v[1];
        v[0] = gp__prmt(a, b, 0x5410);
        v[1] = gp__prmt(a, b, 0x7632);
    } else if constexpr (K == 4) {
        const uint32_t t0 = gp__prmt(v[0], v[1], 0x5140), t1 = gp__prmt(v[0], v[1], 0x7362);
        const uint32_t u0 = gp__prmt(v[2], v[3], 0x5140), u1 = gp__prmt(v[2], v[3], 0x7362);
        v[0] = gp__prmt(t0, u0, 0x5410);
        v[1] = gp__prmt(t0, u0, 0x7632);
        v[2] = gp__prmt(t1, u1, 0x5410);
        v[3] = gp__prmt(t1, u1, 0x7632);
    }
}

/* The call in the kernel's units: words of K elements (or one element of any size a
 * "word"), or for the ragged kernel elements. The input is rows x cols_w units (rows in
 * elements), the output cols_w * K rows of rows / K words (ragged: cols_w rows of rows). */
struct gp__transpose_words {
    void *out;
    const void *in;
    size_t ld_out, stride_out, ld_in, stride_in; /* in units */
    size_t rows, cols_w, batch;
    bool prefetch; /* the tile copies have the L2 fetch 256-byte blocks (see "prefetch") */
};

/* An int as a type, to pass a compile-time choice to a generic lambda. */
template <int N> struct gp__int_c { static constexpr int value = N; };

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_TRANSPOSE_PLAN_CUH */
