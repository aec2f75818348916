/* detail/block/tile.cuh -- 2-D tiles between a row-major global matrix and shared memory.
 * Level 2: needs common.cuh (thread geometry) and async_copy.cuh (cp.async). The bank
 * model and the padding and chunk-width arithmetic are plain host-and-device functions,
 * tested on the host.
 *
 * The pattern every tiled kernel repeats: the block copies a tile of a matrix into shared
 * memory with coalesced global accesses (consecutive threads take consecutive pieces of a
 * row), synchronises, then works from shared memory in whatever order it likes (a
 * transpose reads columns, a matrix multiply reads rows of one tile and columns of the
 * other). Two things decide whether that is fast:
 *   - the global side moves whole sectors: rows are split into chunks of up to 16 bytes,
 *     as wide as the addresses, the leading dimension and the shared-memory pitch allow;
 *   - the shared side has no bank conflicts on the access pattern that follows: a
 *     column of a row-major tile of 32 floats sits in one bank (32-way conflict) unless
 *     each row is padded. gp_tile_pitch() finds the smallest padded pitch.
 *
 *   __shared__ float s[32 * gp_tile_pitch(32, 4)];           // 32 x 33 floats
 *   gp_tile_load_f32(s, gp_tile_pitch(32, 4), a + r0 * lda + c0, lda,
 *                    m - r0, k - c0, 32, 32, 0.0f);           // ragged edges read 0
 *   __syncthreads();
 *
 * Contract of gp_tile_load_<name> / gp_tile_store_<name> (generated per type by
 * GP_DEFINE_TILE, and by GP_DEFINE_TRANSPOSE for the transpose instances):
 *   - Every thread of the block calls, with the same arguments; any block shape. There is
 *     no barrier inside: the caller synchronises before reading what a load wrote, and
 *     before overwriting a tile that other threads may still read.
 *   - `g` points at the tile's top-left element of a row-major matrix with leading
 *     dimension `ld` (elements); `rows_left` / `cols_left` say how many rows and columns
 *     of the matrix exist from that corner. The tile (tile_rows x tile_cols, at most
 *     2^31 - 1 elements) is clipped to them: a load writes `fill` into the part of the
 *     tile outside the matrix, a store writes nothing outside the matrix.
 *   - The tile in shared memory is row-major with pitch `s_pitch` >= tile_cols elements.
 */
#ifndef GPUPRIMS_DETAIL_TILE_CUH
#define GPUPRIMS_DETAIL_TILE_CUH

#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"
#include "../util/async_copy.cuh"

/* ---- The bank model (host and device) ------------------------------------------------
 * Shared memory has 32 banks of 4 bytes; word w lives in bank w % 32. A warp's request
 * takes as many wavefronts as the busiest bank has distinct words to deliver (threads
 * reading the same word share it). For accesses wider than 4 bytes the ideal is more
 * than one: 32 threads x 8 bytes need 2 wavefronts whatever the layout. */
#define GP__BANKS 32
#define GP__BANK_BYTES 4

/* The distinct words that `nthreads` (<= 32) threads touch, each accessing `bytes`
 * (<= 16) bytes at byte offset addr[t]; written to words[] (room for 160), counted. */
static inline __host__ __device__ constexpr int gp__bank_words(const uint64_t *addr, int nthreads, int bytes,
                                                               uint64_t *words)
{
    int nwords = 0;
    for (int t = 0; t < nthreads; t++)
        for (uint64_t w = addr[t] / GP__BANK_BYTES; w <= (addr[t] + bytes - 1) / GP__BANK_BYTES; w++) {
            bool seen = false;
            for (int i = 0; i < nwords; i++) seen = seen || words[i] == w;
            if (!seen) words[nwords++] = w;
        }
    return nwords;
}

/* Wavefronts for that request: the busiest bank's count of distinct words. */
static inline __host__ __device__ constexpr int gp__bank_wavefronts(const uint64_t *addr, int nthreads, int bytes)
{
    uint64_t words[32 * 5] = {};
    int per_bank[GP__BANKS] = {}, worst = 0;
    const int nwords = gp__bank_words(addr, nthreads, bytes, words);
    for (int i = 0; i < nwords; i++) {
        const int b = (int)(words[i] % GP__BANKS);
        worst = ++per_bank[b] > worst ? per_bank[b] : worst;
    }
    return worst;
}

/* The fewest wavefronts any layout could need for the same count of distinct words. */
static inline __host__ __device__ constexpr int gp__bank_wavefronts_ideal(const uint64_t *addr, int nthreads, int bytes)
{
    uint64_t words[32 * 5] = {};
    return (gp__bank_words(addr, nthreads, bytes, words) + GP__BANKS - 1) / GP__BANKS;
}

/* Byte offsets of a warp reading one column of a row-major tile: lane i reads the element
 * in row i * row_step, column `col`, with a row pitch of `pitch` elements of `elem` bytes. */
static inline __host__ __device__ constexpr void gp__column_addresses(uint64_t *addr, int pitch, int elem, int col,
                                                                      int row_step)
{
    for (int i = 0; i < 32; i++) addr[i] = ((uint64_t)i * row_step * pitch + col) * elem;
}

static inline __host__ __device__ constexpr int gp__tile_column_wavefronts(int pitch, int elem, int col, int row_step)
{
    uint64_t addr[32] = {};
    gp__column_addresses(addr, pitch, elem, col, row_step);
    return gp__bank_wavefronts(addr, 32, elem);
}

/* True when every column read (lanes row_step rows apart) of a pitch-`pitch` tile takes
 * the ideal number of wavefronts. Columns 0..3 cover every alignment of an element
 * within a word. */
static inline __host__ __device__ constexpr bool gp__tile_pitch_is_conflict_free(int pitch, int elem, int row_step)
{
    for (int col = 0; col < 4; col++) {
        uint64_t addr[32] = {};
        gp__column_addresses(addr, pitch, elem, col, row_step);
        if (gp__bank_wavefronts(addr, 32, elem) != gp__bank_wavefronts_ideal(addr, 32, elem)) return false;
    }
    return true;
}

/* The smallest row pitch (elements) >= cols for which a warp reading a column of the tile
 * (lanes on consecutive rows) is bank-conflict free: 33 for 32 floats or doubles, 36
 * bytes for 32 bytes, 34 for 32 shorts. Elements over 16 bytes: cols + 1. */
static inline __host__ __device__ constexpr int gp_tile_pitch(int cols, int elem)
{
    if (elem > 16) return cols + 1;
    for (int p = cols; p < cols + 64; p++)
        if (gp__tile_pitch_is_conflict_free(p, elem, 1)) return p;
    return cols + 1; /* not reached for elem <= 16 (tested) */
}

/* ---- Chunk width (host and device) ---------------------------------------------------
 * The widest global access (16, 8 or 4 bytes, or else one element) that keeps every
 * chunk of a tile row aligned: the start address, the row pitch and the tile width must
 * all be multiples of it. Elements whose size is not 1, 2, 4, 8 or 16 bytes go one at a
 * time. The shared side need not be aligned to the chunk: a padded tile (33 floats a row)
 * still gets 16-byte global accesses, and its shared-memory side goes element by element
 * (see gp__tile_load_as). */
static inline __host__ __device__ constexpr int gp__tile_chunk_bytes(uintptr_t g_addr, size_t g_ld_bytes,
                                                                    size_t tile_cols_bytes, int elem)
{
    if (elem > 16 || (elem & (elem - 1)) != 0) return elem;
    for (int c = 16; c >= 4 && c > elem; c /= 2)
        if ((g_addr | g_ld_bytes | tile_cols_bytes) % c == 0) return c;
    return elem;
}

#ifdef __CUDACC__

#ifndef GP__TILE_BATCH_BYTES
#define GP__TILE_BATCH_BYTES 16 /* global bytes each thread has in flight in a tile load */
#endif

/* Row maps: where tile row r goes in shared memory. The public functions use the
 * identity; the transpose of 1- and 2-byte elements groups rows k, k + K, k + 2K, ...
 * (gp__rows_interleaved), so that reading K consecutive rows is K conflict-free reads. */
struct gp__rows_identity {
    __device__ __forceinline__ int operator()(int r) const { return r; }
};

/* The lane's starting element for the shared side of a chunk that is not aligned there.
 * The 8 lanes that cover 128 bytes of a row would all hit the same banks at the same
 * step (a 4-way conflict for 16-byte chunks of floats); lane group j starts at element j
 * instead, so each step touches 32 distinct banks. Chunks of more than 4 elements (bytes
 * and shorts) keep the plain order. */
template <class C, class T>
static __device__ __forceinline__ int gp__chunk_rotation(void)
{
    constexpr int W = sizeof(C) / sizeof(T), LANES_PER_128B = sizeof(C) < 128 ? 128 / sizeof(C) : 1;
    return W <= 4 ? (int)(gp__lane_id() / LANES_PER_128B) % W : 0;
}

/* Reads one chunk of W = sizeof(C) / sizeof(T) elements from global memory: whole when
 * all W are inside the matrix (`valid` >= W), else the first `valid` and `fill`. */
template <class C, class T>
static __device__ __forceinline__ C gp__chunk_read(const T *src, int valid, T fill)
{
    constexpr int W = sizeof(C) / sizeof(T);
    if (valid >= W) return *reinterpret_cast<const C *>(src);
    T e[W];
    for (int k = 0; k < W; k++) e[k] = k < valid ? src[k] : fill;
    C v;
    memcpy(&v, e, sizeof(C));
    return v;
}

/* Writes one chunk to shared memory: whole when the shared side is aligned to C, else
 * element by element from the lane's rotation (see gp__chunk_rotation). */
template <class C, class T>
static __device__ __forceinline__ void gp__chunk_write_shared(T *dst, const C &v, bool whole, int rot)
{
    constexpr int W = sizeof(C) / sizeof(T);
    if (W == 1 || whole) {
        *reinterpret_cast<C *>(dst) = v;
        return;
    }
    T e[W];
    memcpy(e, &v, sizeof(C));
#pragma unroll
    for (int j = 0; j < W; j++) {
        const int k = (j + rot) % W;
        T x = e[0]; /* e[k] by selects, so e stays in registers */
#pragma unroll
        for (int m = 1; m < W; m++)
            if (k == m) x = e[m];
        dst[k] = x;
    }
}

/* Global -> shared with global chunks of type C. Chunk i of the tile (row i / per_row) goes
 * to thread i % block size: consecutive threads take consecutive chunks of a row, so a
 * warp's global accesses are contiguous. Each thread reads BATCH chunks into registers
 * before it writes any to shared memory: the loads are all in flight together (a
 * compiler cannot hoist a load above a store that might alias it). */
template <int NT, class C, class T, class RowMap>
static __device__ __forceinline__ void gp__tile_load_as(T *s, int s_pitch, const T *g, size_t ld, int rows, int cols,
                                                        int tile_rows, int tile_cols, T fill, RowMap row_map)
{
    constexpr int W = sizeof(C) / sizeof(T), BATCH = GP__TILE_BATCH_BYTES / sizeof(C) > 1 ? GP__TILE_BATCH_BYTES / sizeof(C) : 1;
    const bool whole = ((uintptr_t)s | (size_t)s_pitch * sizeof(T)) % sizeof(C) == 0;
    const int per_row = tile_cols / W, chunks = tile_rows * per_row, rot = gp__chunk_rotation<C, T>();
    const int stride = NT > 0 ? NT : (int)gp__block_size();
    for (int base = (int)gp__thread_rank(); base < chunks; base += BATCH * stride) {
        C v[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            const int i = base + j * stride, r = i / per_row, c = i % per_row * W;
            if (i < chunks) v[j] = gp__chunk_read<C>(g + (size_t)r * ld + c, r < rows ? cols - c : 0, fill);
        }
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            const int i = base + j * stride, r = i / per_row, c = i % per_row * W;
            if (i < chunks) gp__chunk_write_shared(s + (size_t)row_map(r) * s_pitch + c, v[j], whole, rot);
        }
    }
}

/* Shared -> global with global chunks of type C; nothing written outside the matrix.
 * Stores do not wait, so a plain loop keeps them all in flight. */
template <int NT, class C, class T>
static __device__ __forceinline__ void gp__tile_store_as(T *g, size_t ld, int rows, int cols, const T *s, int s_pitch,
                                                         int tile_rows, int tile_cols)
{
    constexpr int W = sizeof(C) / sizeof(T);
    const bool whole = ((uintptr_t)s | (size_t)s_pitch * sizeof(T)) % sizeof(C) == 0;
    const int per_row = tile_cols / W, chunks = (tile_rows < rows ? tile_rows : rows) * per_row;
    const int stride = NT > 0 ? NT : (int)gp__block_size(), rot = gp__chunk_rotation<C, T>();
    for (int i = (int)gp__thread_rank(); i < chunks; i += stride) {
        const int r = i / per_row, c = i % per_row * W;
        const T *src = s + (size_t)r * s_pitch + c;
        T *dst = g + (size_t)r * ld + c;
        if (c + W > cols) { /* the ragged right edge */
            for (int k = 0; k < W && c + k < cols; k++) dst[k] = src[k];
        } else if (W == 1 || whole) {
            *reinterpret_cast<C *>(dst) = *reinterpret_cast<const C *>(src);
        } else {
            T e[W];
#pragma unroll
            for (int j = 0; j < W; j++) { /* rotated reads, as gp__chunk_write_shared writes */
                const int k = (j + rot) % W;
                const T x = src[k];
#pragma unroll
                for (int m = 0; m < W; m++)
                    if (k == m) e[m] = x;
            }
            C v;
            memcpy(&v, e, sizeof(C));
            *reinterpret_cast<C *>(dst) = v;
        }
    }
}

/* Runs op.template run<C>() with the chunk type for `bytes` (one of the widths that
 * gp__tile_chunk_bytes can return for T), so load and store share the dispatch. */
template <class T, class Op>
static __device__ __forceinline__ void gp__with_chunk(int bytes, Op op)
{
    if constexpr (sizeof(T) < 16 && 16 % sizeof(T) == 0)
        if (bytes == 16) return op.template run<uint4>();
    if constexpr (sizeof(T) < 8 && 8 % sizeof(T) == 0)
        if (bytes == 8) return op.template run<uint2>();
    if constexpr (sizeof(T) < 4 && 4 % sizeof(T) == 0)
        if (bytes == 4) return op.template run<uint32_t>();
    op.template run<T>();
}

static __device__ __forceinline__ int gp__tile_clip(size_t left, int tile) { return left < (size_t)tile ? (int)left : tile; }

template <int NT, class T, class RowMap>
struct gp__tile_load_op {
    T *s; int s_pitch; const T *g; size_t ld; int rows, cols, tile_rows, tile_cols; T fill; RowMap row_map;
    template <class C> __device__ __forceinline__ void run() const
    {
        gp__tile_load_as<NT, C>(s, s_pitch, g, ld, rows, cols, tile_rows, tile_cols, fill, row_map);
    }
};

template <int NT, class T>
struct gp__tile_store_op {
    T *g; size_t ld; int rows, cols; const T *s; int s_pitch, tile_rows, tile_cols;
    template <class C> __device__ __forceinline__ void run() const
    {
        gp__tile_store_as<NT, C>(g, ld, rows, cols, s, s_pitch, tile_rows, tile_cols);
    }
};

/* Global -> shared. See the contract at the top of this file. NT > 0: the block size,
 * known at compile time (the loops unroll); 0: read at run time. */
template <int NT = 0, class T, class RowMap = gp__rows_identity>
static __device__ __forceinline__ void gp__tile_load(T *s, int s_pitch, const T *g, size_t ld, size_t rows_left,
                                                     size_t cols_left, int tile_rows, int tile_cols, T fill,
                                                     RowMap row_map = RowMap())
{
    const int bytes = gp__tile_chunk_bytes((uintptr_t)g, ld * sizeof(T), (size_t)tile_cols * sizeof(T), (int)sizeof(T));
    gp__with_chunk<T>(bytes, gp__tile_load_op<NT, T, RowMap>{s, s_pitch, g, ld, gp__tile_clip(rows_left, tile_rows),
                                                             gp__tile_clip(cols_left, tile_cols), tile_rows,
                                                             tile_cols, fill, row_map});
}

/* Shared -> global, nothing written outside the matrix. */
template <int NT = 0, class T>
static __device__ __forceinline__ void gp__tile_store(T *g, size_t ld, size_t rows_left, size_t cols_left, const T *s,
                                                      int s_pitch, int tile_rows, int tile_cols)
{
    const int bytes = gp__tile_chunk_bytes((uintptr_t)g, ld * sizeof(T), (size_t)tile_cols * sizeof(T), (int)sizeof(T));
    gp__with_chunk<T>(bytes, gp__tile_store_op<NT, T>{g, ld, gp__tile_clip(rows_left, tile_rows),
                                                      gp__tile_clip(cols_left, tile_cols), s, s_pitch, tile_rows,
                                                      tile_cols});
}

/* ---- Asynchronous tile load (cp.async, sm_80 and later) ---------------------------------
 * The same copy, but each chunk inside the matrix goes global -> shared through cp.async:
 * it needs no register and no thread waits for it, so a whole tile's loads are in flight
 * at once (the synchronous load keeps GP__TILE_BATCH_BYTES per thread in flight). Chunks
 * outside the matrix are written with `fill` as usual. The caller must call
 * gp__tile_load_wait() and then __syncthreads() before reading the tile. A chunk is as
 * wide as both sides allow (16, 8 or 4 bytes); types that allow none of these, and
 * builds for older GPUs, use the synchronous load. PREFETCH 256: every copy asks the L2 for
 * the 256-byte block around it (gp__cp_async), for tiles of a matrix whose rows lie close
 * together, so that the bytes fetched beyond the tile are ones other tiles read soon. */
static __device__ __forceinline__ int gp__cp_async_bytes(uintptr_t g, size_t ld_bytes, size_t cols_bytes, uintptr_t s,
                                                          size_t pitch_bytes, int elem)
{
    for (int c = 16; c >= 4 && c >= elem; c /= 2)
        if ((g | ld_bytes | cols_bytes | s | pitch_bytes) % c == 0 && c % elem == 0) return c;
    return 0;
}

/* Waits for this thread's cp.async copies; then __syncthreads() makes the tile visible. */
static __device__ __forceinline__ void gp__tile_load_wait(void)
{
    gp__cp_async_commit();
    gp__cp_async_wait<0>();
}

template <int NT, int BYTES, int PREFETCH, class T, class RowMap>
static __device__ __forceinline__ void gp__tile_load_async_as(T *s, int s_pitch, const T *g, size_t ld, int rows,
                                                              int cols, int tile_rows, int tile_cols, T fill,
                                                              RowMap row_map)
{
    constexpr int W = BYTES / sizeof(T);
    const int per_row = tile_cols / W, chunks = tile_rows * per_row;
    const int stride = NT > 0 ? NT : (int)gp__block_size();
#pragma unroll 4
    for (int i = (int)gp__thread_rank(); i < chunks; i += stride) {
        const int r = i / per_row, c = i % per_row * W;
        T *dst = s + (size_t)row_map(r) * s_pitch + c;
        const T *src = g + (size_t)r * ld + c;
        if (r < rows && c + W <= cols) gp__cp_async<BYTES, PREFETCH>(dst, src, true);
        else
            for (int k = 0; k < W; k++) dst[k] = (r < rows && c + k < cols) ? src[k] : fill;
    }
}

template <int NT = 0, int PREFETCH = 0, class T, class RowMap = gp__rows_identity>
static __device__ __forceinline__ void gp__tile_load_async(T *s, int s_pitch, const T *g, size_t ld, size_t rows_left,
                                                           size_t cols_left, int tile_rows, int tile_cols, T fill,
                                                           RowMap row_map = RowMap())
{
    const int rows = gp__tile_clip(rows_left, tile_rows), cols = gp__tile_clip(cols_left, tile_cols);
    const int bytes = gp__cp_async_bytes((uintptr_t)g, ld * sizeof(T), (size_t)tile_cols * sizeof(T), (uintptr_t)s,
                                         (size_t)s_pitch * sizeof(T), (int)sizeof(T));
    if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0)
        if (bytes == 16) return gp__tile_load_async_as<NT, 16, PREFETCH>(s, s_pitch, g, ld, rows, cols, tile_rows, tile_cols, fill, row_map);
    if constexpr (sizeof(T) <= 8 && 8 % sizeof(T) == 0)
        if (bytes == 8) return gp__tile_load_async_as<NT, 8, PREFETCH>(s, s_pitch, g, ld, rows, cols, tile_rows, tile_cols, fill, row_map);
    if constexpr (sizeof(T) <= 4 && 4 % sizeof(T) == 0)
        if (bytes == 4) return gp__tile_load_async_as<NT, 4, PREFETCH>(s, s_pitch, g, ld, rows, cols, tile_rows, tile_cols, fill, row_map);
    /* A naturally aligned 4-, 8- or 16-byte T always goes whole (bytes >= sizeof(T) above):
     * no synchronous copy to compile, whose registers would crowd the caller's. */
    if constexpr (sizeof(T) >= 4 && sizeof(T) <= 16 && (sizeof(T) & (sizeof(T) - 1)) == 0 && alignof(T) >= sizeof(T))
        gp__tile_load_async_as<NT, (int)sizeof(T), PREFETCH>(s, s_pitch, g, ld, rows, cols, tile_rows, tile_cols, fill, row_map);
    else
        gp__tile_load<NT>(s, s_pitch, g, ld, rows_left, cols_left, tile_rows, tile_cols, fill, row_map);
}

/* gp_tile_load_wait(): after gp_tile_load_async_<name>, before the __syncthreads() that
 * publishes the tile. */
[[maybe_unused]] static __device__ __forceinline__ void gp_tile_load_wait(void) { gp__tile_load_wait(); }

/* GP_DEFINE_TILE(name, T): the C-named tile functions for one element type.
 *   void gp_tile_load_<name>(T *s_tile, int s_pitch, const T *g, size_t ld,
 *                            size_t rows_left, size_t cols_left, int tile_rows, int tile_cols, T fill)
 *   void gp_tile_load_async_<name>(same arguments)     then gp_tile_load_wait(); __syncthreads();
 *   void gp_tile_store_<name>(T *g, size_t ld, size_t rows_left, size_t cols_left,
 *                             const T *s_tile, int s_pitch, int tile_rows, int tile_cols) */
#define GP_DEFINE_TILE(name, T)                                                                                   \
    [[maybe_unused]] static __device__ __forceinline__ void gp_tile_load_##name(                                  \
        T *s_tile, int s_pitch, const T *g, size_t ld, size_t rows_left, size_t cols_left, int tile_rows,         \
        int tile_cols, T fill)                                                                                    \
    {                                                                                                             \
        gp__tile_load(s_tile, s_pitch, g, ld, rows_left, cols_left, tile_rows, tile_cols, fill);                  \
    }                                                                                                             \
    [[maybe_unused]] static __device__ __forceinline__ void gp_tile_load_async_##name(                            \
        T *s_tile, int s_pitch, const T *g, size_t ld, size_t rows_left, size_t cols_left, int tile_rows,         \
        int tile_cols, T fill)                                                                                    \
    {                                                                                                             \
        gp__tile_load_async(s_tile, s_pitch, g, ld, rows_left, cols_left, tile_rows, tile_cols, fill);            \
    }                                                                                                             \
    [[maybe_unused]] static __device__ __forceinline__ void gp_tile_store_##name(                                 \
        T *g, size_t ld, size_t rows_left, size_t cols_left, const T *s_tile, int s_pitch, int tile_rows,         \
        int tile_cols)                                                                                            \
    {                                                                                                             \
        gp__tile_store(g, ld, rows_left, cols_left, s_tile, s_pitch, tile_rows, tile_cols);                       \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_TILE_CUH */
