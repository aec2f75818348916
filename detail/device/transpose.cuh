/* detail/device/transpose.cuh -- out-of-place transpose of row-major matrices: any shape, any
 * element size, strided and batched, one launch: the padded shared-memory tile of Ruetsch
 * & Micikevicius, "Optimizing Matrix Transpose in CUDA" (2009), taken to Hopper. Level 3:
 * needs tile.cuh, check.cuh and common.cuh. The plan (validation, word size) is plain host
 * code, tested on the host.
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

/* ---- prefetch -----------------------------------------------------------------------------
 * Rows that do not start on 16 bytes go in 4- or 8-byte copies (the padded tile, the ragged
 * one), and the L2 asks DRAM for each 32-byte sector as those copies reach it. With
 * .L2::256B (gp__cp_async's PREFETCH) each copy has the L2 fetch the 256-byte block around
 * it at once: the sectors of the tile's row segment and of its neighbours', which a block
 * a few tiles later reads. Measured on the H100 (bench/transpose/probes/transpose_tiles.cu `lib`, %
 * of copy, two runs each, without -> with): u8 8191^2 72.6-73.1 -> 77.8, u16 8191^2
 * 75.7-76.0 -> 80.9-81.3, f32 8191^2 89.8-90.0 -> 92.4-92.9, f64 8191^2 91.1-91.3 ->
 * 93.2-93.3, u16 4097 x 3001 76.7-78.2 -> 80.4-80.9, f64 4097 x 3001 93.8-95.4 -> 96.2-96.4;
 * u8 4097 x 3001 80.2-82.1 -> 81.7-81.9 and the skinny shapes within a point. The chunked
 * tile (rows on 16 bytes, 16-byte copies) gained nothing from it (f32 and f64 squares
 * within half a point) and goes without. Where the input rows lie far apart (a few columns
 * of a wide matrix) the block around a segment is mostly bytes no tile reads, so only rows
 * at most GP__TRANSPOSE_DENSE_GAP bytes apart get the prefetch. */

/* Tile row r = K q + k goes to shared row k Q + q: the K rows of a cell are then K
 * conflict-free column reads (consecutive q on consecutive lanes). */
template <int K, int Q>
struct gp__rows_interleaved {
    __device__ __forceinline__ int operator()(int r) const { return r % K * Q + r / K; }
};

/* Where tile t of a call starts: tile rows fastest, then tile columns, then the batch.
 * Consecutive blocks take consecutive tile rows: their writes continue one another along
 * the output's rows (tile columns first measured 10-20% slower). */
struct gp__tile_at {
    size_t b, row0, col0;
};
static __device__ __forceinline__ gp__tile_at gp__tile_locate(size_t t, size_t tiles_y, size_t per_matrix, int sr,
                                                             int cols)
{
    return {t / per_matrix, t % tiles_y * sr, t % per_matrix / tiles_y * cols};
}

/* ---- the ragged kernel's two ends ---------------------------------------------------------
 * 1- and 2-byte elements whose rows do not start on 4-byte boundaries (a u8 matrix of 3001
 * columns, an odd pointer) go through the word kernel's tile and cells all the same, with
 * the rows realigned at both ends:
 *   Load: tile row r's segment starts `s` bytes into an aligned word; the aligned words it
 *   touches (COLS + 1) are copied as they are (cp.async, 4 bytes; byte by byte where a
 *   word reaches outside the matrix row). Word w of the segment is then the funnel shift
 *   of shared words w and w + 1 by s bytes.
 *   Store: an output row segment starts `t` bytes into an aligned word; aligned word q of
 *   it holds the segment's words q - 1 and q shifted by t: lane q takes word q - 1 from
 *   lane q - 1 (a shuffle).
 *   Halo: the aligned word that straddles two tiles' segments needs both tiles' rows. A
 *   tile of 32 cell rows (H = K) therefore loads the K rows above its own as well and owns
 *   only STEP = 4 * 31 bytes of each output row: lane q holds cell q - 1, and the aligned
 *   words from t bytes before its first row to t bytes before the next tile's are whole in
 *   its lanes. Only the matrix's first and last tile rows store the words that the matrix
 *   edge cuts, element by element, in a pass of their own (gp__ragged_store_ends); tiles
 *   of fewer cell rows (Q < 32: a warp spans several columns) have no halo and do that at
 *   both ends of every segment.
 * A row's shift depends only on the row modulo K (K elements are 4 bytes), as does an
 * output row's, so each tile has K shifts of each kind, one per shared row group.
 * Measured on the H100 (% of the copy rate, probe and bench in one run): the first word
 * kernel with this realignment ran u8 4097 x 3001 at 60%, u16 at 64%. Its instructions
 * went 40% down (the per-word index and bounds arithmetic of the load, the per-column set-
 * up of the stores: Nsight Compute 9.8 -> 6.0 million for u8 4097 x 3001) with no change
 * in time: the issue slots were 70% busy, then 37%. What the time follows is the tiles:
 * each block waits for its whole tile, then writes it out, so fewer, larger tiles expose
 * more of that wait. Square ragged tiles half as wide (8 KB: 64 input bytes by 128 rows
 * for u8, 128 by 64 for u16; GP__RAGGED_NARROWER) took u8 4097 x 3001 from 55% to 70%,
 * u16 from 61% to 78%, u8 8191^2 from 50% to 68% (4 KB tiles: 56-65%, and worse again for
 * u16); 4 blocks per SM (64 registers, no spills) against 5 or 6 (spills) measured 0-3
 * points better then (today's kernels fit 5 for u8 and 6 for u16 without spills, and with
 * the L2 prefetch those gain: gp__transpose_tile); chained launches (gp__chained_launch) 2-4 points more. The halo then
 * took u8 4097 x 3001 from 73-75% to 80-82% (3001 x 4097 75 -> 83%, 2049 x 2047 71-72 ->
 * 80-82%, 8191^2 68-69 -> 72%); u16 stayed at 76-78% (83% for 3001 x 4097, 76% for
 * 8191^2), its ends being one element each. Not taken: blocks of 128 threads for the
 * ragged tiles, 8 per SM at the same registers (u8 4097 x 3001 66% against 82%, u16 71%
 * against 78%, in one run). */

/* Aligned word w of the row segment at g (tile_bytes long; the matrix row spans
 * [g - col0_bytes, g + row_left_bytes)) into dst. `inside`: every aligned word of the
 * tile's rows lies in the matrix rows (a tile off the matrix's left and right edges). */
template <int PREFETCH>
static __device__ __forceinline__ void gp__ragged_load_word(uint32_t *dst, uintptr_t g, int w, bool inside,
                                                            size_t tile_bytes, size_t col0_bytes, size_t row_left_bytes)
{
    const uintptr_t word = (g & ~(uintptr_t)3) + 4 * w;
    if (inside) return gp__cp_async<4, PREFETCH>(dst, (const void *)word, true);
    if (word >= g + tile_bytes) return; /* no byte of the tile's segment */
    const uintptr_t row_lo = g - col0_bytes, row_hi = g + row_left_bytes;
    if (word >= row_lo && word + 4 <= row_hi) return gp__cp_async<4, PREFETCH>(dst, (const void *)word, true);
    for (int j = 0; j < 4; j++)
        if (word + j >= row_lo && word + j < row_hi)
            reinterpret_cast<unsigned char *>(dst)[j] = *(const unsigned char *)(word + j);
}

/* The tile's `rows` row segments (at in + r * ld_b) as their aligned words: first the
 * COLS words from each row's aligned start, then the one more word of each row. Thread t
 * copies word t % COLS of rows t / COLS, t / COLS + NT / COLS, ...: inside the matrix that
 * word is (row start + 4 (t % COLS)) rounded down to 4, one 64-bit add a row, and its
 * shared row steps by a constant (the per-word bounds and index arithmetic of a plain
 * loop over the tile's words took three quarters of the ragged kernel's instructions). */
template <int NT, int K, int Q, int COLS, int P, int PREFETCH>
static __device__ __forceinline__ void gp__ragged_load(uint32_t *s, uintptr_t in, size_t ld_b, int rows, int r_first,
                                                       size_t tile_bytes, size_t col0_bytes, size_t row_left_bytes)
{
    static_assert(NT % COLS == 0, "ragged tiles: whole rows a pass");
    constexpr int RS = NT / COLS; /* rows a pass */
    const gp__rows_interleaved<K, Q> row_map;
    const bool inside = col0_bytes >= 4 && row_left_bytes >= tile_bytes + 4;
    const int w = (int)threadIdx.x % COLS, r0 = (int)threadIdx.x / COLS;
    if (inside) {
        uintptr_t g = in + (size_t)r0 * ld_b + 4 * w;
        uint32_t *d = s + row_map(r0) * P + w; /* RS a multiple of K: RS / K shared rows a pass */
#pragma unroll 4
        for (int r = r0; r < rows; r += RS, g += RS * ld_b, d += RS % K == 0 ? RS / K * P : 0)
            if (r >= r_first)
                gp__cp_async<4, PREFETCH>(RS % K == 0 ? d : s + row_map(r) * P + w, (const void *)(g & ~(uintptr_t)3),
                                          true);
    } else {
        for (int r = r0; r < rows; r += RS)
            if (r >= r_first)
                gp__ragged_load_word<PREFETCH>(s + row_map(r) * P + w, in + r * ld_b, w, false, tile_bytes,
                                               col0_bytes, row_left_bytes);
    }
    for (int r = threadIdx.x; r < rows; r += NT)
        if (r >= r_first)
            gp__ragged_load_word<PREFETCH>(s + row_map(r) * P + COLS, in + r * ld_b, COLS, inside, tile_bytes,
                                           col0_bytes, row_left_bytes);
}

/* *p = v where ok != 0, as a predicated store; gp__opaque(x) is x, computed where it
 * stands. Without them the compiler moves the per-tile set-up of the ragged cell loop
 * (destinations, shift amounts, which words are whole) into the loop, next to the stores
 * it guards: 130 instructions a u8 column instead of 50. */
static __device__ __forceinline__ void gp__store_if(unsigned ok, uint32_t *p, uint32_t v)
{
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b32 [%1], %2; }" ::"r"(ok), "l"(p), "r"(v)
                 : "memory");
}
static __device__ __forceinline__ unsigned gp__opaque(unsigned x)
{
    asm volatile("" : "+r"(x));
    return x;
}
static __device__ __forceinline__ unsigned long long gp__opaque(unsigned long long x)
{
    asm volatile("" : "+l"(x));
    return x;
}

/* The cells of a ragged tile. Thread t takes cell row q = t % Q of columns c = t / Q,
 * t / Q + NT / Q, ...: for each, the K row words (each the funnel shift of two shared words
 * by its row's in_bits), the cell transpose, then K output words. Lane q then holds word q
 * (bytes 4q..4q+3) of each of K output row segments of len bytes; segment k starts
 * out_bits[k] / 8 bytes into an aligned word, so aligned word q of it holds the segment's
 * words q - 1 and q shifted by that: lane q takes word q - 1 from lane q - 1 (a shuffle)
 * and stores the aligned word if the segment holds all of it (the others are
 * gp__ragged_store_ends' work). Everything that does not change from column to column
 * (the K destinations, which of them are whole) is set up once a tile; a column costs 2K
 * shared reads, 2K funnel shifts, the cell's byte permutes, K shuffles and K stores. A
 * warp runs whole (the shuffle) while its first column is in the tile. */
template <int NT, int K, int Q, int COLS, int P, int H>
static __device__ __forceinline__ void gp__ragged_cells(uintptr_t out, size_t ld_b, const uint32_t *s, int cols, int len,
                                                        unsigned in_bits, unsigned out_bits, bool open_top)
{
    static_assert(NT % 32 == 0 && 32 % Q == 0, "ragged tiles: a warp holds whole columns");
    constexpr int CS = NT / Q; /* columns a pass */
    const int q = (int)threadIdx.x % Q, dc = (int)threadIdx.x % 32 / Q;
    int cw = ((int)threadIdx.x & ~31) / Q; /* the warp's first column */
    size_t off[K]; /* from word q of output row K c to aligned word q of output row K c + k */
    unsigned sh[K], whole = 0; /* its shift (bits); bit k: the segment holds all of that word */
#pragma unroll
    for (int k = 0; k < K; k++) {
        const unsigned t = (out_bits >> (8 * k)) & 31;
        const int lo = 4 * (q - H / K) - (int)t / 8; /* H: lane q holds the segment's word q - 1 */
        whole |= (lo >= (open_top ? -(int)t / 8 : 0) && lo + 4 <= len) << k;
        off[k] = gp__opaque((unsigned long long)(k * ld_b - t / 8));
        sh[k] = gp__opaque(t);
    }
    whole = gp__opaque(whole);
    const size_t step = (size_t)CS * K * ld_b;
    uintptr_t o = out + (size_t)K * (cw + dc) * ld_b + 4 * (q - H / K);
    const uint32_t *row = s + q * P + cw + dc;
#pragma unroll 1
    for (; K * cw < cols; cw += CS, row += CS, o += step) {
        uint32_t v[K];
#pragma unroll
        for (int k = 0; k < K; k++) v[k] = __funnelshift_r(row[k * Q * P], row[k * Q * P + 1], in_bits >> (8 * k));
        gp__transpose_cell<K>(v);
        const int n = cols - K * (cw + dc); /* output rows of this column in the tile */
        const unsigned mine = n >= K ? whole : whole & ((1u << (n > 0 ? n : 0)) - 1);
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint32_t prev = __shfl_up_sync(0xffffffffu, v[k], 1, Q); /* word q - 1 (lane 0: its own, unused) */
            gp__store_if(mine & (1u << k), reinterpret_cast<uint32_t *>(o + off[k]), __funnelshift_l(prev, v[k], sh[k]));
        }
    }
}

/* The aligned words that output row segments hold in part, element by element from the
 * tile, in a pass of their own, one thread a word (in the store loop they would serialise
 * a warp on its first and last lanes). Output row c of the tile (cols rows) has its
 * elements in tile column c: tile row r at shared row row_map(r + H), byte
 * in_bits[r % K] / 8 + c * E. The segment's bytes [lo_min, len) are the tile's to write
 * (lo_min = -t where the halo holds the t bytes before it: open_top); gp__ragged_cells
 * stores the aligned words inside them, words m0 .. m1; this stores the head [lo_min, a)
 * before them where `head`, and the tail after them where `tail`. */
template <int NT, int K, int Q, int P, int H, class U>
static __device__ __forceinline__ void gp__ragged_store_ends(U *out, size_t ld_out, const uint32_t *s, int cols, int len,
                                                             unsigned in_bits, unsigned out_bits, bool open_top,
                                                             bool head, bool tail)
{
    constexpr int E = (int)sizeof(U);
    const gp__rows_interleaved<K, Q> row_map;
    const unsigned char *sb = reinterpret_cast<const unsigned char *>(s);
    for (int i = threadIdx.x; i < 2 * cols; i += NT) {
        if (!(i & 1 ? tail : head)) continue;
        const int c = i >> 1, t = (int)((out_bits >> (8 * (c % K))) & 31) / 8;
        const int lo_min = open_top ? -t : 0, a = open_top || t == 0 ? lo_min : 4 - t < len ? 4 - t : len;
        const int m0 = !open_top && t > 0, m1 = (len + t) / 4 - 1;
        const int lo = i & 1 ? (m1 >= m0 ? 4 * (m1 + 1) - t : a) : lo_min, hi = i & 1 ? len : a;
        U *dst = out + c * ld_out;
#pragma unroll
        for (int j = 0; j < K - 1; j++) { /* a word held in part holds at most K - 1 elements */
            const int r = lo / E + j;   /* negative: a halo row (open_top) */
            if (r * E < hi)
                dst[r] = *reinterpret_cast<const U *>(sb + row_map(r + H) * P * 4 +
                                                      ((in_bits >> (8 * ((r + H) % K))) & 31) / 8 + c * E);
        }
    }
}

/* ---- 16-byte chunks ---------------------------------------------------------------------------
 * 4- and 8-byte words (uint32_t, uint2) on rows that start on 16 bytes. The padded
 * tile's odd pitch leaves its rows off 16 bytes, so its loads are 4- or 8-byte cp.async
 * and its reads one word a lane; the chunked tile is not padded: chunk j (V = 16 /
 * sizeof(W) words) of shared row h sits at chunk j ^ (h % 8) of its row. The 8 rows a
 * quarter warp reads (one chunk each, lanes on consecutive cell rows) then fall in 32
 * distinct banks, as do the 8 chunks of a row that a quarter warp writes. A lane reads the
 * chunk of each of its cell's K rows: V cells, each transposed and stored as K output
 * words, lanes on consecutive words of an output row as in the padded tile. A quarter of
 * the load and read instructions. Measured on the H100 (% of the copy rate, padded ->
 * chunked, over four runs): f32 2048^2 87-88 -> 97-98% (cuBLAS geam 98-99%), f32 1000^2
 * 115-118 -> 126-139% (geam 110-120%), u16 2048^2 87 -> 92-93.5%; f32 8192^2 95.3-95.5%
 * and f64 squares move by less than a point: bound by memory, as geam is. */
template <int COLS, int V>
static __device__ __forceinline__ int gp__chunk_at(int h, int j)
{
    return h * COLS + V * (j ^ (h & 7));
}

template <int NT, int K, int Q, int COLS, class W>
static __device__ __forceinline__ void gp__chunks_load(W *s, const W *in, size_t ld, int rows, int cols)
{
    constexpr int V = 16 / (int)sizeof(W), CH = COLS / V;
    const gp__rows_interleaved<K, Q> row_map;
#pragma unroll 4
    for (int i = threadIdx.x; i < K * Q * CH; i += NT) {
        const int r = i / CH, j = i % CH;
        W *dst = s + gp__chunk_at<COLS, V>(row_map(r), j);
        const W *src = in + (size_t)r * ld + V * j;
        if (r < rows && V * j + V <= cols) gp__cp_async<16>(dst, src, true);
        else if (r < rows)
            for (int m = 0; m < V && V * j + m < cols; m++) dst[m] = src[m]; /* the matrix's right edge */
    }
}

/* Item i: cell row q = i % Q of chunk column j = i / Q; q_here cell rows and c_here word
 * columns are the matrix's. */
template <int NT, int K, int Q, int COLS, class W>
static __device__ __forceinline__ void gp__chunks_store(W *out, size_t ld, const W *s, int q_here, int c_here)
{
    constexpr int V = 16 / (int)sizeof(W), CH = COLS / V;
#pragma unroll(K == 1 ? 2 : 1) /* K x V words an item */
    for (int i = threadIdx.x; i < Q * CH; i += NT) {
        const int q = i % Q, j = i / Q;
        if (q >= q_here || V * j >= c_here) continue;
        W v[V][K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint4 chunk = *reinterpret_cast<const uint4 *>(s + gp__chunk_at<COLS, V>(k * Q + q, j));
            if constexpr (V == 4) {
                v[0][k] = chunk.x, v[1][k] = chunk.y, v[2][k] = chunk.z, v[3][k] = chunk.w;
            } else {
                v[0][k] = make_uint2(chunk.x, chunk.y), v[1][k] = make_uint2(chunk.z, chunk.w);
            }
        }
        W *o = out + q + (size_t)V * j * K * ld;
        const int m_here = c_here - V * j; /* V or fewer at the matrix's right edge */
#pragma unroll
        for (int m = 0; m < V; m++) {
            gp__transpose_cell<K>(v[m]);
            if (m < m_here)
#pragma unroll
                for (int k = 0; k < K; k++) o[(m * K + k) * ld] = v[m][k];
        }
    }
}

/* What a unit of gp__transpose_words is: a word, or a 1- or 2-byte element (RAGGED). */
template <class W, int K, int MODE> struct gp__transpose_unit { typedef W type; };
template <> struct gp__transpose_unit<uint32_t, 4, GP__TR_RAGGED> { typedef uint8_t type; };
template <> struct gp__transpose_unit<uint32_t, 2, GP__TR_RAGGED> { typedef uint16_t type; };

/* The kernel: W words of K elements, K x K cells, moved as MODE says; RAGGED: the units
 * of `a` are elements. */
template <class W, int K, int COLS, int Q, int MODE>
__global__ void __launch_bounds__(GP__TRANSPOSE_THREADS, GP__MIN_BLOCKS(GP__TRANSPOSE_THREADS, (gp__transpose_tile<W, K, COLS, Q, MODE>::MIN_BLOCKS)))
    gp__transpose_kernel(gp__transpose_words a)
{
    typedef gp__transpose_tile<W, K, COLS, Q, MODE> Tile;
    constexpr int NT = Tile::NT, P = Tile::PITCH, SR = Tile::SR;
    constexpr bool RAGGED = MODE == GP__TR_RAGGED;
    /* RAGGED: units are elements, a tile is COLS * K of them wide. */
    constexpr int WIDE = RAGGED ? COLS * K : COLS, KO = RAGGED ? 1 : K;
    __shared__ __align__(16) unsigned char raw[Tile::SMEM]; /* raw bytes: W may have constructors */
    W *s = reinterpret_cast<W *>(raw);
    gp__chain_wait(); /* launched chained: the stream's earlier work is done past here */

    constexpr int H = Tile::H, STEP = Tile::STEP; /* RAGGED: the halo rows above the tile's own STEP */
    const size_t tiles_y = gp__ceil_div(a.rows, STEP), per_matrix = gp__ceil_div(a.cols_w, WIDE) * tiles_y;
    for (size_t t = blockIdx.x; t < per_matrix * a.batch; t += gridDim.x) {
        const gp__tile_at at = gp__tile_locate(t, tiles_y, per_matrix, STEP, WIDE);
        typedef typename gp__transpose_unit<W, K, MODE>::type U;
        constexpr int E = (int)sizeof(U);
        const U *in = static_cast<const U *>(a.in) + at.b * a.stride_in + at.row0 * a.ld_in + at.col0;
        U *out = static_cast<U *>(a.out) + at.b * a.stride_out + at.col0 * KO * a.ld_out + at.row0 / KO;
        const size_t rows_left = a.rows - at.row0, cols_left = a.cols_w - at.col0;

        /* The tile's copies; PF 256: the L2 fetches 256-byte blocks (a.prefetch). */
        const auto load = [&](auto prefetch) {
            constexpr int PF = decltype(prefetch)::value;
            if constexpr (RAGGED) /* from H rows above the tile (none above the matrix) */
                gp__ragged_load<NT, K, Q, COLS, P, PF>(s, (uintptr_t)in - (uintptr_t)H * a.ld_in * E, a.ld_in * E,
                                                       H + gp__tile_clip(rows_left, STEP), at.row0 == 0 ? H : 0,
                                                       (size_t)gp__tile_clip(cols_left, WIDE) * E, at.col0 * E,
                                                       cols_left * E);
            else
                gp__tile_load_async<NT, PF>(s, P, in, a.ld_in, rows_left, cols_left, SR, COLS, W(),
                                            gp__rows_interleaved<K, Q>());
        };
        if constexpr (MODE == GP__TR_CHUNKS)
            gp__chunks_load<NT, K, Q, COLS>(s, in, a.ld_in, gp__tile_clip(rows_left, SR), gp__tile_clip(cols_left, COLS));
        else if (a.prefetch)
            load(gp__int_c<256>());
        else
            load(gp__int_c<0>());
        gp__tile_load_wait();
        __syncthreads();

        /* Work item i is cell row q = i % Q of column i / Q: K reads from shared memory
         * (lanes on consecutive q, or with Q < 32 on 32 / Q columns: conflict-free by the
         * pitch), a cell transpose in registers, K writes (lanes on consecutive words of
         * an output row). RAGGED: rows_here and cols_here count elements; byte k of
         * in_bits and out_bits is the shift (bits) of the input and output rows of class k. */
        const int q_here = gp__tile_clip(rows_left / K, Q), c_here = gp__tile_clip(cols_left, COLS);
        if constexpr (RAGGED) {
            const int rows_here = gp__tile_clip(rows_left, STEP), cols_here = gp__tile_clip(cols_left, WIDE);
            const bool first = at.row0 == 0, last = rows_left <= (size_t)STEP;
            unsigned in_bits = 0, out_bits = 0;
#pragma unroll
            for (int k = 0; k < K; k++) {
                in_bits |= (8u * (unsigned)((uintptr_t)(in + k * a.ld_in) & 3)) << (8 * k);
                out_bits |= (8u * (unsigned)((uintptr_t)(out + k * a.ld_out) & 3)) << (8 * k);
            }
            gp__ragged_cells<NT, K, Q, COLS, P, H>((uintptr_t)out, a.ld_out * E, s, cols_here, rows_here * E, in_bits,
                                                   out_bits, H && !first);
            if (H == 0 || first || last) /* with the halo, a tile inside the matrix has no ends */
                gp__ragged_store_ends<NT, K, Q, P, H>(out, a.ld_out, s, cols_here, rows_here * E, in_bits, out_bits,
                                                      H && !first, H == 0 || first, H == 0 || last);
        } else if constexpr (MODE == GP__TR_CHUNKS) {
            gp__chunks_store<NT, K, Q, COLS>(out, a.ld_out, s, q_here, c_here);
        } else {
#pragma unroll(K == 1 ? 4 : 2) /* K words an item: fewer items for cells keep registers */
            for (int i = threadIdx.x; i < Q * COLS; i += NT) {
                const int q = i % Q, c = i / Q;
                if (q >= q_here || c >= c_here) continue;
                W v[K];
#pragma unroll
                for (int k = 0; k < K; k++) v[k] = s[(k * Q + q) * P + c];
                gp__transpose_cell<K>(v);
                W *o = out + q + (size_t)c * K * a.ld_out;
#pragma unroll
                for (int k = 0; k < K; k++) o[k * a.ld_out] = v[k];
            }
        }
        __syncthreads(); /* the next tile overwrites s */
    }
}

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
