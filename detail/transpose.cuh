/* detail/transpose.cuh -- out-of-place transpose of row-major matrices: any shape, any
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
 * When the pointers, leading dimensions or dimensions do not allow words (a 1-byte matrix
 * with an odd number of columns, a 16-byte struct aligned to 4), the same kernel moves
 * elements one at a time: correct, slower.
 * Tiles are numbered in one dimension (tile rows fastest, then tile columns, then the
 * batch) and blocks loop over them, so no shape reaches a grid limit. Three tile shapes:
 * square, and two for matrices of few rows or few columns, where a square tile would be
 * mostly empty. */
#ifndef GPUPRIMS_DETAIL_TRANSPOSE_CUH
#define GPUPRIMS_DETAIL_TRANSPOSE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common.cuh"

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
#include "check.cuh"
#include "launch.cuh"
#include "tile.cuh"

/* Tuning (overridable for experiments; the defaults are what bench/results measured).
 * GP__TILE_BATCH_BYTES in tile.cuh matters here too. */
#ifndef GP__TRANSPOSE_THREADS
#define GP__TRANSPOSE_THREADS 256
#endif
#ifndef GP__TRANSPOSE_TILE_BYTES
#define GP__TRANSPOSE_TILE_BYTES 16384 /* shared memory per tile, before padding */
#endif
#ifndef GP__TRANSPOSE_ROW_BYTES
#define GP__TRANSPOSE_ROW_BYTES 256    /* bytes of an input row in one tile */
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

/* The word the kernel moves, in bytes (4, 8 or 16), or 0: one element at a time. */
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

/* Tile shapes: one for most matrices, two for skinny ones, where a square tile would be
 * mostly empty. */
enum { GP__TILE_SQUARE = 0, GP__TILE_SHORT = 1 /* few rows */, GP__TILE_NARROW = 2 /* few columns */ };

/* Tile of the kernel moving words W with K x K cells: SR input rows (K groups of Q rows)
 * by COLS words, padded to PITCH words. Q is a multiple of 32, so a warp's lanes read Q
 * consecutive rows of one column and write consecutive words of one output row. */
template <class W, int K, int SHAPE>
struct gp__transpose_tile {
    static constexpr int BYTES = GP__TRANSPOSE_TILE_BYTES, NT = GP__TRANSPOSE_THREADS;
    static constexpr int ROW_BYTES = SHAPE == GP__TILE_SHORT    ? BYTES / (K * 32)
                                     : SHAPE == GP__TILE_NARROW ? 128
                                                                : GP__TRANSPOSE_ROW_BYTES;
    static constexpr int COLS = ROW_BYTES >= (int)sizeof(W) ? ROW_BYTES / (int)sizeof(W) : 1;
    static constexpr int Q_RAW = (int)(BYTES / (K * COLS * sizeof(W)));
    static constexpr int Q = Q_RAW < 32 ? 32 : Q_RAW > NT ? NT : Q_RAW / 32 * 32;
    static constexpr int SR = K * Q;
    static constexpr int PITCH = gp_tile_pitch(COLS, (int)sizeof(W));
    static constexpr size_t SMEM = (size_t)SR * PITCH * sizeof(W);
    /* Occupancy: 8 blocks per SM for 4- to 16-byte words (32 registers); the byte-permute
     * cells and elements of odd sizes need a few more registers (6 blocks). */
    static constexpr int MIN_BLOCKS = K == 1 && sizeof(W) >= 4 && sizeof(W) <= 16 ? 8 : 6;
    static_assert(SMEM <= GP__STATIC_SMEM_MAX, "gp_transpose: element type too large for a shared-memory tile");
    static_assert(NT % Q == 0, "a whole number of threads per cell row");
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


/* The call in words: the input is rows x cols_w words (rows in elements), the output
 * cols_w * K rows of rows / K words. */
struct gp__transpose_words {
    void *out;
    const void *in;
    size_t ld_out, stride_out, ld_in, stride_in; /* in words */
    size_t rows, cols_w, batch;
};

/* Tile row r = K q + k goes to shared row k Q + q: the K rows of a cell are then K
 * conflict-free column reads (consecutive q on consecutive lanes). */
template <int K, int Q>
struct gp__rows_interleaved {
    __device__ __forceinline__ int operator()(int r) const { return r % K * Q + r / K; }
};

template <class W, int K, int SHAPE>
__global__ void __launch_bounds__(GP__TRANSPOSE_THREADS, GP__MIN_BLOCKS(GP__TRANSPOSE_THREADS, (gp__transpose_tile<W, K, SHAPE>::MIN_BLOCKS)))
    gp__transpose_kernel(gp__transpose_words a)
{
    typedef gp__transpose_tile<W, K, SHAPE> Tile;
    constexpr int NT = GP__TRANSPOSE_THREADS, Q = Tile::Q, COLS = Tile::COLS, P = Tile::PITCH;
    __shared__ __align__(16) unsigned char raw[Tile::SMEM]; /* raw bytes: W may have constructors */
    W *s = reinterpret_cast<W *>(raw);

    const size_t tiles_x = gp__ceil_div(a.cols_w, COLS), tiles_y = gp__ceil_div(a.rows, Tile::SR);
    const size_t per_matrix = tiles_x * tiles_y;
    for (size_t t = blockIdx.x; t < per_matrix * a.batch; t += gridDim.x) {
        /* Consecutive blocks take consecutive tile rows: their writes continue one another
         * along the output's rows (tile columns first measured 10-20% slower). */
        const size_t b = t / per_matrix, tx = t % per_matrix / tiles_y, ty = t % tiles_y;
        const size_t row0 = ty * Tile::SR, cw0 = tx * COLS;
        const W *in = static_cast<const W *>(a.in) + b * a.stride_in + row0 * a.ld_in + cw0;
        W *out = static_cast<W *>(a.out) + b * a.stride_out + cw0 * K * a.ld_out + row0 / K;
        const size_t rows_left = a.rows - row0, cols_left = a.cols_w - cw0;

        gp__tile_load_async<NT>(s, P, in, a.ld_in, rows_left, cols_left, Tile::SR, COLS, W(), gp__rows_interleaved<K, Q>());
        gp__tile_load_wait();
        __syncthreads();

        /* Thread t owns cell row q = t % Q of columns t / Q, t / Q + NT / Q, ...: for each,
         * K reads from shared memory (lanes on consecutive q: conflict-free), a cell
         * transpose in registers, K writes (lanes on consecutive words of an output row). */
        const int q = threadIdx.x % Q, c0 = threadIdx.x / Q, c_here = gp__tile_clip(cols_left, COLS);
        if (q < gp__tile_clip(rows_left / K, Q)) {
            W *o = out + q + (size_t)c0 * K * a.ld_out;
#pragma unroll 4
            for (int c = c0; c < COLS; c += NT / Q, o += (size_t)NT / Q * K * a.ld_out) {
                if (c >= c_here) break;
                W v[K];
#pragma unroll
                for (int k = 0; k < K; k++) v[k] = s[(k * Q + q) * P + c];
                gp__transpose_cell<K>(v);
#pragma unroll
                for (int k = 0; k < K; k++) o[k * a.ld_out] = v[k];
            }
        }
        __syncthreads(); /* the next tile overwrites s */
    }
}

template <class W, int K, int SHAPE>
static cudaError_t gp__transpose_launch_shape(const gp__transpose_words &a, cudaStream_t s)
{
    typedef gp__transpose_tile<W, K, SHAPE> Tile;
    const size_t tiles = gp__ceil_div(a.cols_w, Tile::COLS) * gp__ceil_div(a.rows, Tile::SR) * a.batch;
    const unsigned grid = (unsigned)gp__min_size(tiles, GP__GRID_MAX);
    gp__transpose_kernel<W, K, SHAPE><<<grid, GP__TRANSPOSE_THREADS, 0, s>>>(a);
    return cudaGetLastError();
}

template <class W, int K>
static cudaError_t gp__transpose_launch(const gp__transpose_desc *d, cudaStream_t s)
{
    const size_t per_word = sizeof(W) / d->elem; /* K elements per word, or 1 */
    gp__transpose_words a;
    a.out = (void *)d->out;
    a.in = (const void *)d->in;
    a.ld_out = d->ld_out / per_word;
    a.stride_out = d->stride_out / per_word;
    a.ld_in = d->ld_in / per_word;
    a.stride_in = d->stride_in / per_word;
    a.rows = d->rows;
    a.cols_w = d->cols / per_word;
    a.batch = d->batch;
    if (a.rows <= (size_t)32 * K && a.cols_w * sizeof(W) > 128) return gp__transpose_launch_shape<W, K, GP__TILE_SHORT>(a, s);
    if (a.cols_w * sizeof(W) <= 128 && a.rows > (size_t)32 * K) return gp__transpose_launch_shape<W, K, GP__TILE_NARROW>(a, s);
    return gp__transpose_launch_shape<W, K, GP__TILE_SQUARE>(a, s);
}

/* An element of N bytes (8 or 16) that sits on 4 bytes only: moved as N / 4 words of 4. */
template <size_t N>
struct gp__words4 {
    uint32_t w[N / 4];
};

template <class T>
static cudaError_t gp__transpose(T *d_out, size_t ld_out, size_t stride_out, const T *d_in, size_t ld_in,
                                 size_t stride_in, size_t rows, size_t cols, size_t batch, cudaStream_t s)
{
    const gp__transpose_desc d = {(uintptr_t)d_out, (uintptr_t)d_in, ld_out, stride_out, ld_in, stride_in,
                                  rows, cols, batch, sizeof(T)};
    GP__TRY(gp__transpose_validate(&d));
    if (rows == 0 || cols == 0 || batch == 0) return cudaSuccess;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    switch (gp__transpose_word_bytes(&d)) {
    case 4:
        if constexpr (sizeof(T) == 1) return gp__transpose_launch<uint32_t, 4>(&d, s);
        if constexpr (sizeof(T) == 2) return gp__transpose_launch<uint32_t, 2>(&d, s);
        if constexpr (sizeof(T) == 4) return gp__transpose_launch<uint32_t, 1>(&d, s);
        break;
    case 8:
        if constexpr (sizeof(T) == 8) return gp__transpose_launch<uint2, 1>(&d, s);
        break;
    case 16:
        if constexpr (sizeof(T) == 16) return gp__transpose_launch<uint4, 1>(&d, s);
        break;
    }
    /* Element by element: T's own alignment or the shape rules words out. */
    if constexpr (sizeof(T) < 4 || alignof(T) < sizeof(T) || (sizeof(T) != 8 && sizeof(T) != 16 && sizeof(T) != 4))
        return gp__transpose_launch<T, 1>(&d, s);
    /* An 8- or 16-byte element at an address aligned to 4 but not to its size (a double at
     * 4, a gp_v16_t standing for float4 or double2 data at 4 or 8): element by element too,
     * each element moved as 4-byte pieces. Correct, slower. */
    if constexpr (sizeof(T) == 8 || sizeof(T) == 16)
        if ((d.in | d.out) % 4 == 0) return gp__transpose_launch<gp__words4<sizeof(T)>, 1>(&d, s);
    return cudaErrorInvalidValue; /* addresses not even aligned to 4 */
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
