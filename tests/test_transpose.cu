/* tests/test_transpose.cu -- tile load/store and gp_transpose_<name>.
 * Host: the bank model, the padded pitch for 1- to 16-byte elements, chunk widths, the
 * in-register cell transpose, argument validation and the word each call moves.
 * GPU: tile load/store against a host model (ragged edges, fill, pitches, block shapes,
 * every chunk width); every default transpose instance and two user types (a 12-byte
 * struct, an 8-byte struct aligned to 4) on edge, skinny, odd and random shapes, plain,
 * strided and batched, bitwise against a host transpose, with poisoned outputs whose
 * untouched gaps must stay poisoned; doubles at 4-byte and gp_v16_t at 4- and 8-byte
 * boundaries; bad input; counts above 2^32 elements, generated
 * and checked on the device. */
#include "../gpuprims.cuh"
#include "harness.h"
#include "hash.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float r, g, b; } rgb_t;      /* 12 bytes: moved element by element */
typedef struct { float re, im; } cplx_t;      /* 8 bytes, aligned to 4 only */
GP_DEFINE_TRANSPOSE(rgb, rgb_t)
GP_DEFINE_TRANSPOSE(cplx, cplx_t)

static const unsigned char POISON = 0xA7;

/* ---- host ------------------------------------------------------------------------------ */

static void check_bank_model(void)
{
    uint64_t a[32];
    for (int i = 0; i < 32; i++) a[i] = 0;
    EXPECT(gp_bank_wavefronts(a, 32, 4) == 1, "one word read by 32 threads: a broadcast, 1 wavefront");
    for (int i = 0; i < 32; i++) a[i] = 4 * i;
    EXPECT(gp_bank_wavefronts(a, 32, 4) == 1, "32 consecutive words: 1 wavefront");
    for (int i = 0; i < 32; i++) a[i] = 8 * i;
    EXPECT(gp_bank_wavefronts(a, 32, 4) == 2, "stride 2 words: 2-way conflict");
    for (int i = 0; i < 32; i++) a[i] = 128 * i;
    EXPECT(gp_bank_wavefronts(a, 32, 4) == 32, "stride 32 words: 32-way conflict");
    for (int i = 0; i < 32; i++) a[i] = 8 * i;
    EXPECT(gp_bank_wavefronts(a, 32, 8) == 2 && gp_bank_wavefronts_ideal(a, 32, 8) == 2,
           "32 consecutive 8-byte reads: 2 wavefronts, the ideal");
    for (int i = 0; i < 32; i++) a[i] = 16 * i;
    EXPECT(gp_bank_wavefronts(a, 32, 16) == 4 && gp_bank_wavefronts_ideal(a, 32, 16) == 4,
           "32 consecutive 16-byte reads: 4 wavefronts, the ideal");
    for (int i = 0; i < 32; i++) a[i] = i;
    EXPECT(gp_bank_wavefronts(a, 32, 1) == 1 && gp_bank_wavefronts_ideal(a, 32, 1) == 1,
           "32 consecutive bytes: 8 words, 1 wavefront");
}

static void check_pitch(void)
{
    /* The issue's statement, for 4-byte elements: a column of a 32-wide tile. */
    EXPECT(gp_tile_column_wavefronts(32, 4, 0, 1) == 32, "unpadded 32 x 32 floats: a column is a 32-way conflict (%d)",
           gp_tile_column_wavefronts(32, 4, 0, 1));
    EXPECT(gp_tile_column_wavefronts(33, 4, 0, 1) == 1, "padded to 33: a column touches 32 distinct banks");
    static_assert(gp_tile_pitch(32, 4) == 33 && gp_tile_pitch(32, 8) == 33, "one element of padding for 4 and 8 bytes");

    /* Every element size and several widths: the pitch found is conflict-free for every
     * column, no smaller pitch is, and the unpadded tile of 32 columns is not. */
    const int elems[] = {1, 2, 4, 8, 16};
    const int ideal[] = {1, 1, 1, 2, 4}; /* wavefronts for 32 elements on 32 rows */
    for (int e = 0; e < 5; e++) {
        const int elem = elems[e];
        for (int cols = 1; cols <= 160; cols += cols < 40 ? 1 : 31) {
            const int p = gp_tile_pitch(cols, elem);
            int ok = p >= cols && gp_tile_pitch_is_conflict_free(p, elem, 1);
            for (int q = cols; q < p; q++) ok = ok && !gp_tile_pitch_is_conflict_free(q, elem, 1);
            for (int col = 0; col < 4 && ok; col++) ok = gp_tile_column_wavefronts(p, elem, col, 1) == ideal[e];
            EXPECT(ok, "gp_tile_pitch(%d, %d) = %d: smallest conflict-free pitch", cols, elem, p);
        }
        const int unpadded = gp_tile_column_wavefronts(32, elem, 0, 1);
        EXPECT(unpadded >= 8 * ideal[e], "%d-byte elements, unpadded 32-wide tile: %d wavefronts (ideal %d)", elem, unpadded, ideal[e]);
        printf("  %2d-byte elements, 32 columns: pitch %d, column read %d wavefront(s); unpadded %d\n", elem,
               gp_tile_pitch(32, elem), gp_tile_column_wavefronts(gp_tile_pitch(32, elem), elem, 0, 1), unpadded);
    }
}

static void check_chunk_bytes(void)
{
    EXPECT(gp_tile_chunk_bytes(0x1000, 4096, 64, 4) == 16, "all aligned: 16-byte chunks");
    EXPECT(gp_tile_chunk_bytes(0x1004, 4096, 64, 4) == 4, "start on 4 bytes: element chunks");
    EXPECT(gp_tile_chunk_bytes(0x1008, 4096, 64, 4) == 8, "start on 8 bytes: 8-byte chunks");
    EXPECT(gp_tile_chunk_bytes(0x1000, 4100, 64, 4) == 4, "leading dimension 1025 floats: element chunks");
    EXPECT(gp_tile_chunk_bytes(0x1000, 4096, 36, 4) == 4, "a tile 9 floats wide: element chunks");
    EXPECT(gp_tile_chunk_bytes(0x1001, 4096, 64, 1) == 1, "bytes at an odd address: 1-byte chunks");
    EXPECT(gp_tile_chunk_bytes(0x1002, 4096, 64, 1) == 1, "bytes at an address on 2: 1-byte chunks");
    EXPECT(gp_tile_chunk_bytes(0x1000, 48, 48, 12) == 12, "12-byte elements: one at a time");
    EXPECT(gp_tile_chunk_bytes(0x1000, 4096, 64, 16) == 16, "16-byte elements: one per chunk");
}

static void check_cell(void)
{
    uint64_t st = gp_t_state(31);
    int ok = 1;
    for (int trial = 0; trial < 100; trial++) {
        uint32_t v[4], w[4];
        for (int k = 0; k < 4; k++) v[k] = w[k] = (uint32_t)gp_t_next(&st);
        gp__transpose_cell<4>(w); /* bytes: w[j] byte k == v[k] byte j */
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++) ok &= ((w[j] >> 8 * k) & 0xff) == ((v[k] >> 8 * j) & 0xff);
        for (int k = 0; k < 4; k++) w[k] = v[k];
        gp__transpose_cell<2>(w); /* halves */
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) ok &= ((w[j] >> 16 * k) & 0xffff) == ((v[k] >> 16 * j) & 0xffff);
    }
    EXPECT(ok, "4x4 byte and 2x2 half-word cells transpose in registers");
}

static gp__transpose_desc desc(uintptr_t out, uintptr_t in, size_t rows, size_t cols, size_t elem)
{
    gp__transpose_desc d = {out, in, rows, 0, cols, 0, rows, cols, 1, elem};
    return d;
}

static void check_validate_and_words(void)
{
    gp__transpose_desc d = desc(0x100000, 0x200000, 100, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaSuccess, "disjoint 100 x 200 floats: valid");
    d.out = 0;
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "NULL output");
    d = desc(0x100000, 0, 100, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "NULL input");
    d = desc(0, 0, 0, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaSuccess, "zero rows: a valid no-op, even with NULL pointers");
    d = desc(0x200000, 0x200000, 100, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "in place");
    d = desc(0x200000 + 4 * 20000 - 4, 0x200000, 100, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "output overlaps the input's last element");
    d = desc(0x200000 + 4 * 20000, 0x200000, 100, 200, 4);
    EXPECT(gp__transpose_validate(&d) == cudaSuccess, "output right after the input");
    d = desc(0x100000, 0x200000, 100, 200, 4);
    d.ld_in = 199;
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "input leading dimension shorter than a row");
    d = desc(0x100000, 0x200000, 100, 200, 4);
    d.ld_out = 99;
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "output leading dimension shorter than a row");
    d = desc(0x100000, 0x20000000, 100, 200, 4);
    d.batch = 3, d.stride_in = 20000, d.stride_out = 19999;
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "batched outputs that overlap one another");
    d.stride_out = 20000, d.stride_in = 0;
    EXPECT(gp__transpose_validate(&d) == cudaSuccess, "batched, one input read by every matrix (stride 0)");
    d = desc(0x100000, 0x200000, SIZE_MAX / 2, 3, 4);
    EXPECT(gp__transpose_validate(&d) == cudaErrorInvalidValue, "a size beyond the address space");

    d = desc(0x100000, 0x200000, 128, 256, 1);
    EXPECT(gp__transpose_word_bytes(&d) == 4, "bytes, dimensions multiples of 4: 4x4 cells in words");
    d = desc(0x100000, 0x200000, 128, 255, 1);
    EXPECT(gp__transpose_word_bytes(&d) == 0, "bytes, 255 columns: element by element");
    d = desc(0x100000, 0x200001, 128, 256, 1);
    EXPECT(gp__transpose_word_bytes(&d) == 0, "bytes at an odd address: element by element");
    d = desc(0x100000, 0x200000, 6, 10, 2);
    EXPECT(gp__transpose_word_bytes(&d) == 4, "shorts, even dimensions: 2x2 cells");
    d = desc(0x100000, 0x200000, 7, 3, 4);
    EXPECT(gp__transpose_word_bytes(&d) == 4, "floats: any shape in words");
    d = desc(0x100004, 0x200000, 7, 3, 8);
    EXPECT(gp__transpose_word_bytes(&d) == 0, "8-byte elements at a 4-byte boundary: element by element");
    d = desc(0x100000, 0x200000, 7, 3, 16);
    EXPECT(gp__transpose_word_bytes(&d) == 16, "16-byte elements: 16-byte words");
    d = desc(0x100000, 0x200000, 7, 3, 12);
    EXPECT(gp__transpose_word_bytes(&d) == 0, "12-byte elements: element by element");
}

extern "C" void test_transpose_host(void)
{
    gp_t_section("tile: bank model, padded pitch, chunk widths (host)");
    check_bank_model();
    check_pitch();
    check_chunk_bytes();
    gp_t_section("transpose: cells, validation, word choice (host)");
    check_cell();
    check_validate_and_words();
}

/* ---- GPU: tile load/store --------------------------------------------------------------- */

/* Loads a tile, dumps shared memory densely to `dump`, then stores the tile to `g_out`. */
#define TILE_KERNEL(name, T)                                                                                      \
    __global__ void __launch_bounds__(1024) tile_kernel_##name(T *dump, T *g_out, size_t ld_out, const T *g, size_t ld, size_t rows_left, \
                                       size_t cols_left, int tile_rows, int tile_cols, int pitch, T fill, int async)\
    {                                                                                                             \
        extern __shared__ __align__(16) unsigned char raw[];                                                      \
        T *s = reinterpret_cast<T *>(raw);                                                                        \
        if (async) {                                                                                              \
            gp_tile_load_async_##name(s, pitch, g, ld, rows_left, cols_left, tile_rows, tile_cols, fill);         \
            gp_tile_load_wait();                                                                                  \
        } else {                                                                                                  \
            gp_tile_load_##name(s, pitch, g, ld, rows_left, cols_left, tile_rows, tile_cols, fill);               \
        }                                                                                                         \
        __syncthreads();                                                                                          \
        for (int i = gp__thread_rank(); i < tile_rows * tile_cols; i += gp__block_size())                         \
            dump[i] = s[i / tile_cols * pitch + i % tile_cols];                                                   \
        gp_tile_store_##name(g_out, ld_out, rows_left, cols_left, s, pitch, tile_rows, tile_cols);                \
    }
TILE_KERNEL(u8, uint8_t)
TILE_KERNEL(f32, float)
TILE_KERNEL(f64, double)
TILE_KERNEL(v16, gp_v16_t)
TILE_KERNEL(rgb, rgb_t)

#define TILE_LAUNCHER(name, T)                                                                                   \
    static void launch_tile_##name(dim3 block, size_t smem, void *dump, void *g_out, size_t ld_out, const void *g, \
                                   size_t ld, size_t rl, size_t cl, int tr, int tc, int pitch, const void *fill,  \
                                   int async)                                                                    \
    {                                                                                                            \
        tile_kernel_##name<<<1, block, smem>>>((T *)dump, (T *)g_out, ld_out, (const T *)g, ld, rl, cl, tr, tc,  \
                                               pitch, *(const T *)fill, async);                                  \
    }
TILE_LAUNCHER(u8, uint8_t)
TILE_LAUNCHER(f32, float)
TILE_LAUNCHER(f64, double)
TILE_LAUNCHER(v16, gp_v16_t)
TILE_LAUNCHER(rgb, rgb_t)
typedef void (*tile_launcher)(dim3, size_t, void *, void *, size_t, const void *, size_t, size_t, size_t, int, int,
                              int, const void *, int);
typedef struct { const char *name; size_t elem, align; tile_launcher launch; } tile_type;

/* One tile case: returns 1 when both the shared-memory dump and the stored matrix match. */
static int tile_case(const tile_type *ty, uint64_t *st, unsigned char *d_buf, unsigned char *d_dump,
                     unsigned char *d_out, unsigned char *h, size_t buf_bytes, dim3 block, int aligned, int async)
{
    const size_t e = ty->elem;
    const int tr = 1 + (int)(gp_t_next(st) % 40);
    const int tc = aligned ? 16 * (1 + (int)(gp_t_next(st) % 3)) : 1 + (int)(gp_t_next(st) % 40);
    const size_t rl = gp_t_next(st) % (tr + 6), cl = gp_t_next(st) % (tc + 6);
    const size_t ld = cl + (aligned ? 16 * (gp_t_next(st) % 3) + (16 - cl % 16) % 16 : gp_t_next(st) % 5);
    const size_t ld_out = ld + gp_t_next(st) % 3 * (aligned ? 16 : 1) + (ld == 0); /* >= 1: the check divides by it */
    const size_t off = aligned ? 0 : (gp_t_next(st) % 8) * ty->align / e * e; /* element offset, keeps T's alignment */
    const int pitch = aligned ? tc + 16 * (int)(gp_t_next(st) % 2) : tc + (int)(gp_t_next(st) % 5);
    const size_t span = (rl + 1) * (ld > ld_out ? ld : ld_out) * e + 64;
    if (off + span > buf_bytes) return 1;
    gp_v16_t fill_storage; /* aligned for any of the types */
    unsigned char *fill = (unsigned char *)&fill_storage;
    for (size_t i = 0; i < e; i++) fill[i] = (unsigned char)(0x30 + i);

    for (size_t i = 0; i < span; i++) h[i] = (unsigned char)gp_t_next(st);
    CUDA_CHK(cudaMemcpy(d_buf + off, h, span, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d_out, POISON, span + off));
    CUDA_CHK(cudaMemset(d_dump, POISON, (size_t)tr * tc * e));
    ty->launch(block, (size_t)tr * pitch * e, d_dump, d_out + off, ld_out, d_buf + off, ld, rl, cl, tr, tc, pitch, fill,
               async);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaDeviceSynchronize());

    unsigned char *dump = (unsigned char *)malloc((size_t)tr * tc * e), *out = (unsigned char *)malloc(span + off);
    CUDA_CHK(cudaMemcpy(dump, d_dump, (size_t)tr * tc * e, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(out, d_out, span + off, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int r = 0; r < tr; r++)
        for (int c = 0; c < tc; c++) {
            const int inside = (size_t)r < rl && (size_t)c < cl;
            const unsigned char *want = inside ? h + ((size_t)r * ld + c) * e : fill;
            ok &= memcmp(dump + ((size_t)r * tc + c) * e, want, e) == 0;
        }
    for (size_t i = 0; i < span; i++) { /* stored: the clipped tile, nothing else */
        const size_t el = i / e, r = el / ld_out, c = el % ld_out;
        const int inside = r < rl && r < (size_t)tr && c < cl && c < (size_t)tc;
        ok &= out[off + i] == (inside ? h[(r * ld + c) * e + i % e] : POISON);
    }
    for (size_t i = 0; i < off; i++) ok &= out[i] == POISON;
    EXPECT(ok, "tile %s%s: %dx%d tile, %zux%zu left, ld %zu, ld_out %zu, pitch %d, offset %zu, block %ux%ux%u",
           ty->name, async ? " (async)" : "", tr, tc, rl, cl, ld, ld_out, pitch, off, block.x, block.y, block.z);
    free(dump);
    free(out);
    return ok;
}

static void check_tiles(void)
{
    const tile_type types[] = {{"u8", 1, 1, launch_tile_u8},      {"f32", 4, 4, launch_tile_f32},
                               {"f64", 8, 8, launch_tile_f64},    {"v16", 16, 16, launch_tile_v16},
                               {"rgb", 12, 4, launch_tile_rgb}};
    const dim3 blocks[] = {dim3(128), dim3(32), dim3(16, 8), dim3(8, 4, 2), dim3(1024)};
    const size_t buf_bytes = 1 << 20;
    unsigned char *d_buf, *d_dump, *d_out, *h = (unsigned char *)malloc(buf_bytes);
    CUDA_CHK(cudaMalloc(&d_buf, buf_bytes));
    CUDA_CHK(cudaMalloc(&d_dump, buf_bytes));
    CUDA_CHK(cudaMalloc(&d_out, buf_bytes));
    uint64_t st = gp_t_state(32);
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        int cases = 0, fails = 0;
        for (int i = 0; i < 120; i++) {
            const int aligned = i % 3 == 0; /* a third of the cases allow 16-byte chunks */
            fails += !tile_case(&types[t], &st, d_buf, d_dump, d_out, h, buf_bytes, blocks[i % 5], aligned, i % 2);
            cases++;
        }
        printf("  tile %-4s %d cases, %d failed\n", types[t].name, cases, fails);
    }
    CUDA_CHK(cudaFree(d_buf));
    CUDA_CHK(cudaFree(d_dump));
    CUDA_CHK(cudaFree(d_out));
    free(h);
}

/* ---- GPU: transpose ---------------------------------------------------------------------- */

typedef cudaError_t (*batched_fn)(void *o, size_t ld_out, size_t so, const void *i, size_t ld_in, size_t si,
                                  size_t rows, size_t cols, size_t batch, cudaStream_t s);
typedef cudaError_t (*plain_fn)(void *o, const void *i, size_t rows, size_t cols, cudaStream_t s);
typedef cudaError_t (*strided_fn)(void *o, size_t ld_out, const void *i, size_t ld_in, size_t rows, size_t cols,
                                  cudaStream_t s);
typedef struct {
    const char *name;
    size_t elem, align;
    plain_fn plain;
    strided_fn strided;
    batched_fn batched;
} tr_type;

#define TR_WRAPPERS(name, T)                                                                                      \
    static cudaError_t plain_##name(void *o, const void *i, size_t r, size_t c, cudaStream_t s)                  \
    {                                                                                                             \
        return gp_transpose_##name((T *)o, (const T *)i, r, c, s);                                                \
    }                                                                                                             \
    static cudaError_t strided_##name(void *o, size_t lo, const void *i, size_t li, size_t r, size_t c,          \
                                      cudaStream_t s)                                                             \
    {                                                                                                             \
        return gp_transpose_strided_##name((T *)o, lo, (const T *)i, li, r, c, s);                                \
    }                                                                                                             \
    static cudaError_t batched_##name(void *o, size_t lo, size_t so, const void *i, size_t li, size_t si,        \
                                      size_t r, size_t c, size_t b, cudaStream_t s)                               \
    {                                                                                                             \
        return gp_transpose_batched_##name((T *)o, lo, so, (const T *)i, li, si, r, c, b, s);                     \
    }
GP__TRANSPOSE_INSTANCES(TR_WRAPPERS)
TR_WRAPPERS(rgb, rgb_t)
TR_WRAPPERS(cplx, cplx_t)
#define TR_ROW(name, T) {#name, sizeof(T), alignof(T), plain_##name, strided_##name, batched_##name},
static const tr_type tr_types[] = {GP__TRANSPOSE_INSTANCES(TR_ROW) TR_ROW(rgb, rgb_t) TR_ROW(cplx, cplx_t)};

typedef struct {
    size_t rows, cols, batch, ld_in, ld_out, stride_in, stride_out;
    size_t offset; /* bytes added to both pointers (a multiple of the type's alignment) */
    int api;       /* 0 plain, 1 strided, 2 batched */
} tr_case;

typedef struct {
    unsigned char *d_in, *d_out, *h_in, *h_want, *h_got;
    size_t bytes; /* of each buffer */
} tr_fixture;

/* Runs one case; returns 1 when the output buffer (gaps included) matches bitwise. */
static int tr_run(const tr_fixture *f, const tr_type *ty, const tr_case *c, uint64_t *st)
{
    const size_t e = ty->elem;
    const size_t in_elems = (c->batch - 1) * c->stride_in + (c->rows - 1) * c->ld_in + c->cols;
    const size_t out_elems = (c->batch - 1) * c->stride_out + (c->cols - 1) * c->ld_out + c->rows;
    const size_t in_bytes = in_elems * e + c->offset, out_bytes = out_elems * e + c->offset;
    if (in_bytes > f->bytes || out_bytes > f->bytes) {
        gp_t_skip("transpose %s %zux%zu: larger than the test buffers", ty->name, c->rows, c->cols);
        return 1;
    }
    for (size_t i = 0; i < in_bytes; i += 8) {
        const uint64_t x = gp_t_next(st);
        memcpy(f->h_in + i, &x, in_bytes - i < 8 ? in_bytes - i : 8);
    }
    memset(f->h_want, POISON, out_bytes);
    for (size_t b = 0; b < c->batch; b++)
        for (size_t r = 0; r < c->rows; r++)
            for (size_t k = 0; k < c->cols; k++)
                memcpy(f->h_want + c->offset + (b * c->stride_out + k * c->ld_out + r) * e,
                       f->h_in + c->offset + (b * c->stride_in + r * c->ld_in + k) * e, e);
    CUDA_CHK(cudaMemcpy(f->d_in, f->h_in, in_bytes, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(f->d_out, POISON, out_bytes));
    void *o = f->d_out + c->offset;
    const void *i = f->d_in + c->offset;
    cudaError_t err = c->api == 0   ? ty->plain(o, i, c->rows, c->cols, 0)
                      : c->api == 1 ? ty->strided(o, c->ld_out, i, c->ld_in, c->rows, c->cols, 0)
                                    : ty->batched(o, c->ld_out, c->stride_out, i, c->ld_in, c->stride_in, c->rows,
                                                  c->cols, c->batch, 0);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(f->h_got, f->d_out, out_bytes, cudaMemcpyDeviceToHost));
    const int ok = err == cudaSuccess && memcmp(f->h_got, f->h_want, out_bytes) == 0;
    EXPECT(ok, "transpose %s %s %zux%zu batch %zu ld %zu/%zu stride %zu/%zu offset %zu: %s", ty->name,
           c->api == 0 ? "plain" : c->api == 1 ? "strided" : "batched", c->rows, c->cols, c->batch, c->ld_in,
           c->ld_out, c->stride_in, c->stride_out, c->offset, err ? cudaGetErrorName(err) : "output differs");
    return ok;
}

static tr_case plain_case(size_t rows, size_t cols)
{
    tr_case c = {rows, cols, 1, cols, rows, 0, 0, 0, 0};
    return c;
}

static void check_transposes(tr_fixture *f)
{
    uint64_t st = gp_t_state(33);
    for (size_t t = 0; t < sizeof tr_types / sizeof *tr_types; t++) {
        const tr_type *ty = &tr_types[t];
        /* 2^22 x 32 and 32 x 2^22 for elements up to 4 bytes (2^16 for wider ones and
         * under GP_TEST_SMALL, to keep the host reference quick) */
        const size_t big = gp_t_small() || ty->elem > 4 ? (size_t)1 << 16 : (size_t)1 << 22;
        const size_t shapes[][2] = {{1, 1},      {1, 1000},    {1000, 1},   {31, 33},  {32, 32},
                                    {33, 31},    {4, 128},     {128, 4},    {129, 131}, {1000, 1000},
                                    {4097, 3001}, {big, 32},   {32, big},   {3, 777777}, {777777, 3}};
        int cases = 0, fails = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            tr_case c = plain_case(shapes[s][0], shapes[s][1]);
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        for (int k = 0; k < 8; k++) { /* random shapes, plain, strided (with offsets) and batched */
            const size_t rows = 1 + gp_t_next(&st) % 700, cols = 1 + gp_t_next(&st) % 700;
            tr_case c = plain_case(rows, cols);
            fails += !tr_run(f, ty, &c, &st), cases++;
            c.api = 1;
            c.ld_in = cols + gp_t_next(&st) % 9;
            c.ld_out = rows + gp_t_next(&st) % 9;
            c.offset = (gp_t_next(&st) % 4) * ty->align;
            fails += !tr_run(f, ty, &c, &st), cases++;
            c.api = 2;
            c.batch = 1 + gp_t_next(&st) % 5;
            c.stride_in = rows * c.ld_in + gp_t_next(&st) % 5;
            c.stride_out = cols * c.ld_out + gp_t_next(&st) % 5;
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        tr_case c = plain_case(40, 48); /* a batch that re-reads one input (stride 0) */
        c.api = 2, c.batch = 3, c.stride_in = 0, c.stride_out = 40 * 48;
        fails += !tr_run(f, ty, &c, &st), cases++;
        printf("  transpose %-4s %d cases, %d failed\n", ty->name, cases, fails);
    }
}

/* 8- and 16-byte elements below their own alignment but on 4 bytes (a double at 4, a
 * gp_v16_t standing for double2 or float4 data at 4 or 8): element by element, right. */
static void check_misaligned(tr_fixture *f)
{
    uint64_t st = gp_t_state(34);
    const tr_type *f64 = NULL, *v16 = NULL;
    for (size_t t = 0; t < sizeof tr_types / sizeof *tr_types; t++) {
        if (strcmp(tr_types[t].name, "f64") == 0) f64 = &tr_types[t];
        if (strcmp(tr_types[t].name, "v16") == 0) v16 = &tr_types[t];
    }
    const struct { const tr_type *ty; size_t offset; } placements[] = {{f64, 4}, {f64, 12}, {v16, 4}, {v16, 8}, {v16, 12}};
    int cases = 0, fails = 0;
    for (size_t p = 0; p < sizeof placements / sizeof *placements; p++) {
        const size_t shapes[][2] = {{1, 1}, {31, 33}, {32, 32}, {129, 131}, {3, 5000}, {5000, 3}};
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            tr_case c = plain_case(shapes[s][0], shapes[s][1]);
            c.offset = placements[p].offset;
            fails += !tr_run(f, placements[p].ty, &c, &st), cases++;
        }
        const size_t rows = 1 + gp_t_next(&st) % 300, cols = 1 + gp_t_next(&st) % 300;
        tr_case c = plain_case(rows, cols);
        c.offset = placements[p].offset;
        c.api = 1, c.ld_in = cols + gp_t_next(&st) % 5, c.ld_out = rows + gp_t_next(&st) % 5;
        fails += !tr_run(f, placements[p].ty, &c, &st), cases++;
        c.api = 2, c.batch = 2 + gp_t_next(&st) % 3;
        c.stride_in = rows * c.ld_in + gp_t_next(&st) % 3, c.stride_out = cols * c.ld_out + gp_t_next(&st) % 3;
        fails += !tr_run(f, placements[p].ty, &c, &st), cases++;
    }
    printf("  f64 at 4 and 12, v16 at 4, 8 and 12 bytes: %d cases, %d failed\n", cases, fails);
    /* not even 4-byte aligned: refused, nothing written */
    double *out = (double *)(f->d_out + 2);
    const double *in = (const double *)(f->d_in + 2);
    CUDA_CHK(cudaMemset(f->d_out, POISON, 64));
    EXPECT(gp_transpose_f64(out, in, 2, 2, 0) == cudaErrorInvalidValue, "f64 at a 2-byte boundary: cudaErrorInvalidValue");
    unsigned char got[64];
    CUDA_CHK(cudaMemcpy(got, f->d_out, 64, cudaMemcpyDeviceToHost));
    int untouched = 1;
    for (int i = 0; i < 64; i++) untouched &= got[i] == POISON;
    EXPECT(untouched, "f64 at a 2-byte boundary: nothing written");
}

static void check_bad_input(tr_fixture *f)
{
    float *out = (float *)f->d_out, *in = (float *)f->d_in;
    unsigned char got[64];
    CUDA_CHK(cudaMemset(f->d_out, POISON, 64));
    EXPECT(gp_transpose_f32(NULL, in, 4, 4, 0) == cudaErrorInvalidValue, "NULL d_out");
    EXPECT(gp_transpose_f32(out, NULL, 4, 4, 0) == cudaErrorInvalidValue, "NULL d_in");
    EXPECT(gp_transpose_f32(out, out, 4, 4, 0) == cudaErrorInvalidValue, "in place (overlap)");
    EXPECT(gp_transpose_f32(out + 1, out, 4, 4, 0) == cudaErrorInvalidValue, "partial overlap");
    EXPECT(gp_transpose_strided_f32(out, 4, in, 3, 4, 4, 0) == cudaErrorInvalidValue, "ld_in < cols");
    EXPECT(gp_transpose_strided_f32(out, 3, in, 4, 4, 4, 0) == cudaErrorInvalidValue, "ld_out < rows");
    EXPECT(gp_transpose_batched_f32(out, 4, 15, in, 4, 16, 4, 4, 2, 0) == cudaErrorInvalidValue,
           "batched outputs overlap");
    EXPECT(gp_transpose_f32(out, in, 0, 4, 0) == cudaSuccess && gp_transpose_f32(out, in, 4, 0, 0) == cudaSuccess &&
               gp_transpose_batched_f32(out, 4, 16, in, 4, 16, 4, 4, 0, 0) == cudaSuccess &&
               gp_transpose_f32(NULL, NULL, 0, 0, 0) == cudaSuccess,
           "zero rows, columns or batch: success");
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, f->d_out, 64, cudaMemcpyDeviceToHost));
    int untouched = 1;
    for (int i = 0; i < 64; i++) untouched &= got[i] == POISON;
    EXPECT(untouched, "bad input and no-ops write nothing");
}

/* Above 2^32 elements: input (r, c) = hash(r * cols + c), checked on the device. */
template <class T>
__global__ void fill_matrix(T *x, size_t rows, size_t cols, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (T)(hash32(i, key) & 0xffffff); /* exact as a float */
}
template <class T>
__global__ void count_wrong(unsigned long long *wrong, const T *out, size_t rows, size_t cols, uint32_t key)
{
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x) {
        const size_t c = i / rows, r = i % rows; /* out is cols x rows */
        bad += out[i] != (T)(hash32(r * cols + c, key) & 0xffffff);
    }
    if (bad) atomicAdd(wrong, bad);
}

template <class T>
static void check_huge_one(const char *name, size_t rows, size_t cols,
                           cudaError_t (*fn)(T *, const T *, size_t, size_t, cudaStream_t))
{
    T *d_in = NULL, *d_out = NULL;
    const size_t bytes = rows * cols * sizeof(T);
    if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, bytes) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(d_in);
        gp_t_skip("transpose %s %zu x %zu: needs %.1f GB of device memory", name, rows, cols, 2e-9 * bytes);
        return;
    }
    unsigned long long *d_wrong, wrong = 1;
    CUDA_CHK(cudaMalloc(&d_wrong, sizeof wrong));
    CUDA_CHK(cudaMemset(d_wrong, 0, sizeof wrong));
    const uint32_t key = (uint32_t)gp_t_seed ^ 0x5eed;
    fill_matrix<<<4096, 256>>>(d_in, rows, cols, key);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemset(d_out, POISON, bytes));
    const cudaError_t err = fn(d_out, d_in, rows, cols, 0);
    count_wrong<<<4096, 256>>>(d_wrong, d_out, rows, cols, key);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(&wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
    EXPECT(err == cudaSuccess && wrong == 0, "transpose %s %zu x %zu (%.3g elements): %s, %llu wrong", name, rows, cols,
           (double)rows * cols, cudaGetErrorName(err), wrong);
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_out));
    CUDA_CHK(cudaFree(d_wrong));
}

extern "C" void test_transpose_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("tile: load (plain and async)/store against the host model (5 types x 120 cases)");
        gp_t_skip("transpose: every instance and two user types, plain, strided, batched");
        gp_t_skip("transpose: 8- and 16-byte elements aligned to 4 or 8 bytes only");
        gp_t_skip("transpose: bad input");
        gp_t_skip("transpose: more than 2^32 elements");
        return;
    }
    gp_t_section("tile: load (plain and async) and store against the host model");
    check_tiles();
    gp_t_section("transpose: default instances and user types against the host transpose");
    tr_fixture f;
    f.bytes = gp_t_small() ? (size_t)40 << 20 : (size_t)600 << 20;
    CUDA_CHK(cudaMalloc(&f.d_in, f.bytes));
    CUDA_CHK(cudaMalloc(&f.d_out, f.bytes));
    f.h_in = (unsigned char *)malloc(f.bytes);
    f.h_want = (unsigned char *)malloc(f.bytes);
    f.h_got = (unsigned char *)malloc(f.bytes);
    check_transposes(&f);
    gp_t_section("transpose: 8- and 16-byte elements aligned to 4 or 8 bytes only");
    check_misaligned(&f);
    gp_t_section("transpose: bad input");
    check_bad_input(&f);
    free(f.h_in);
    free(f.h_want);
    free(f.h_got);
    CUDA_CHK(cudaFree(f.d_in));
    CUDA_CHK(cudaFree(f.d_out));
    if (gp_t_small()) {
        gp_t_skip("transpose: more than 2^32 elements (small sizes)");
        return;
    }
    gp_t_section("transpose: more than 2^32 elements");
    check_huge_one<uint8_t>("u8 (4x4 cells)", 65536, 65540, gp_transpose_u8);
    check_huge_one<uint8_t>("u8 (by element)", 65537, 65537, gp_transpose_u8);
    check_huge_one<float>("f32", 65536, 65537, gp_transpose_f32);
    check_huge_one<float>("f32 (2^24 x 3: 2^17 tile rows)", (size_t)1 << 24, 3, gp_transpose_f32);
}
