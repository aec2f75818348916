/* detail/device/transpose_kernels.cuh -- the transpose's kernel and its pieces: the L2
 * prefetch, the ragged kernel's two ends (1- and 2-byte elements on unaligned rows), the
 * 16-byte chunked tile, and gp__transpose_kernel. Level 4 (device code): needs
 * device/transpose_plan.cuh, block/tile.cuh, util/async_copy.cuh, util/launch.cuh
 * (gp__chain_wait) and util/common.cuh. See device/transpose.cuh for how it works. */
#ifndef GPUPRIMS_DETAIL_TRANSPOSE_KERNELS_CUH
#define GPUPRIMS_DETAIL_TRANSPOSE_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/async_copy.cuh"
#include "../util/launch.cuh"
#include "../block/tile.cuh"
#include "transpose_plan.cuh"

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
static __device__ __forceinline__ int gp__transpose_chunk_at(int h, int j)
{
    return h * COLS + V * (j ^ (h & 7));
}

template <int NT, int K, int Q, int COLS, class W>
static __device__ __forceinline__ void gp__transpose_chunks_load(W *s, const W *in, size_t ld, int rows, int cols)
{
    constexpr int V = 16 / (int)sizeof(W), CH = COLS / V;
    const gp__rows_interleaved<K, Q> row_map;
#pragma unroll 4
    for (int i = threadIdx.x; i < K * Q * CH; i += NT) {
        const int r = i / CH, j = i % CH;
        W *dst = s + gp__transpose_chunk_at<COLS, V>(row_map(r), j);
        const W *src = in + (size_t)r * ld + V * j;
        if (r < rows && V * j + V <= cols) gp__cp_async<16>(dst, src, true);
        else if (r < rows)
            for (int m = 0; m < V && V * j + m < cols; m++) dst[m] = src[m]; /* the matrix's right edge */
    }
}

/* Item i: cell row q = i % Q of chunk column j = i / Q; q_here cell rows and c_here word
 * columns are the matrix's. */
template <int NT, int K, int Q, int COLS, class W>
static __device__ __forceinline__ void gp__transpose_chunks_store(W *out, size_t ld, const W *s, int q_here, int c_here)
{
    constexpr int V = 16 / (int)sizeof(W), CH = COLS / V;
#pragma unroll(K == 1 ? 2 : 1) /* K x V words an item */
    for (int i = threadIdx.x; i < Q * CH; i += NT) {
        const int q = i % Q, j = i / Q;
        if (q >= q_here || V * j >= c_here) continue;
        W v[V][K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint4 chunk = *reinterpret_cast<const uint4 *>(s + gp__transpose_chunk_at<COLS, V>(k * Q + q, j));
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
            gp__transpose_chunks_load<NT, K, Q, COLS>(s, in, a.ld_in, gp__tile_clip(rows_left, SR), gp__tile_clip(cols_left, COLS));
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
            gp__transpose_chunks_store<NT, K, Q, COLS>(out, a.ld_out, s, q_here, c_here);
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

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_TRANSPOSE_KERNELS_CUH */
