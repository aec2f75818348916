/* tests/transpose/test_transpose.cu -- gp_transpose_<name> (the tile level: tests/tile/test_tile.cu).
 * Host: the in-register cell transpose, argument validation, the word each call moves,
 * the tile shape each matrix gets and the pitches that keep the tile reads conflict-free.
 * GPU: every default transpose instance and two user types (a 12-byte struct, an 8-byte
 * struct aligned to 4) on edge, skinny, odd and random shapes that reach every tile shape,
 * word-aligned (padded or chunked tiles) and ragged, plain, strided and batched, at every
 * byte offset, bitwise against a host transpose, with poisoned outputs whose untouched gaps
 * must stay poisoned; doubles at 4-byte and gp_v16_t at 4- and 8-byte boundaries; bad
 * input; the tiles a GPU with more DRAM bandwidth an SM chooses, run on this one; counts
 * above 2^32 elements, generated and checked on the device. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float r, g, b; } rgb_t;      /* 12 bytes: moved element by element */
typedef struct { float re, im; } cplx_t;      /* 8 bytes, aligned to 4 only */
GP_DEFINE_TRANSPOSE(rgb, rgb_t)
GP_DEFINE_TRANSPOSE(cplx, cplx_t)

static const unsigned char POISON = 0xA7;

/* ---- host ------------------------------------------------------------------------------ */

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
    EXPECT(gp__transpose_word_bytes(&d) == 0, "bytes, 255 columns: ragged");
    d = desc(0x100000, 0x200001, 128, 256, 1);
    EXPECT(gp__transpose_word_bytes(&d) == 0, "bytes at an odd address: ragged");
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

    d = desc(0x100004, 0x200000, 64, 1024, 4);
    EXPECT(gp__transpose_rows16(&d), "floats, 4 KB rows from a 16-byte boundary: chunks (the output may sit anywhere)");
    d = desc(0x100000, 0x200008, 64, 1024, 4);
    EXPECT(!gp__transpose_rows16(&d), "input 8 bytes off 16: no chunks");
    d = desc(0x100000, 0x200000, 64, 1022, 4);
    EXPECT(!gp__transpose_rows16(&d), "rows of 4088 bytes: no chunks");
    d = desc(0x100000, 0x200000, 64, 1024, 8);
    d.batch = 2, d.stride_in = 64 * 1024 + 1, d.stride_out = 64 * 1024;
    EXPECT(!gp__transpose_rows16(&d), "batched, matrices 8 bytes off 16: no chunks");
}

/* The shape each matrix gets, and the pitches of the tile reads (lane l: cell row l % Q
 * of column l / Q) against the bank model. */
static void check_shapes(void)
{
    const unsigned sms = 132;
    EXPECT(gp__transpose_shape(8, 1 << 20, 1, 4, 4, sms) == GP__TILE_SHORT8, "u8 32 x 2^22: 8-word output rows");
    EXPECT(gp__transpose_shape(16, 1 << 20, 1, 4, 2, sms) == GP__TILE_SHORT16, "u16 32 x 2^21: 16-word output rows");
    EXPECT(gp__transpose_shape(32, 1 << 20, 1, 4, 1, sms) == GP__TILE_SHORT32, "f32 32 x 2^20: 32-word output rows");
    EXPECT(gp__transpose_shape(1 << 20, 8, 1, 4, 4, sms) == GP__TILE_NARROW32, "u8 2^22 x 32: 32-byte input rows");
    EXPECT(gp__transpose_shape(1 << 20, 16, 1, 4, 2, sms) == GP__TILE_NARROW64, "u16 2^21 x 32: 64-byte input rows");
    EXPECT(gp__transpose_shape(1 << 20, 32, 1, 4, 1, sms) == GP__TILE_NARROW128, "f32 2^20 x 32: 128-byte input rows");
    EXPECT(gp__transpose_shape(8192, 8192, 1, 4, 1, sms) == GP__TILE_SQUARE, "f32 8192^2: square");
    EXPECT(gp__transpose_shape(1000, 1000, 1, 4, 1, sms) == GP__TILE_SQUARE, "f32 1000^2: 256 square tiles, square");
    EXPECT(gp__transpose_shape(250, 250, 1, 4, 4, sms) == GP__TILE_SMALL, "u8 1000^2 on 132 SMs: 64 square tiles, small");
    EXPECT(gp__transpose_shape(250, 250, 1, 4, 4, 16) == GP__TILE_SQUARE, "u8 1000^2 on 16 SMs: square");
    EXPECT(gp__transpose_shape(250, 250, 4, 4, 4, sms) == GP__TILE_SQUARE, "u8 1000^2 x 4: square");
    EXPECT(gp__transpose_pitch(64, 64, 4) == 65 && gp__transpose_pitch(128, 8, 4) == 132 &&
               gp__transpose_pitch(16, 16, 4) == 18,
           "pitches: 65 words for Q = 64, 132 for Q = 8 (4 more than a multiple of 32), 18 for Q = 16");
    int ok = 1;
    const int wbytes[] = {4, 8, 16}, ks[] = {1, 2, 4};
    for (int w = 0; w < 3; w++)
        for (int k = 0; k < 3; k++)
            for (int sh = GP__TILE_SQUARE; sh <= GP__TILE_NARROW128; sh++) {
                if (ks[k] > 1 && wbytes[w] != 4) continue;
                const int cols = gp__transpose_cols(sh, wbytes[w], ks[k]), q = gp__transpose_q(sh, wbytes[w], ks[k]);
                const int p = gp__transpose_pitch(cols, q, wbytes[w]);
                uint64_t addr[32];
                for (int l = 0; l < 32; l++) addr[l] = ((uint64_t)(l % q) * p + (uint64_t)(l / q)) * wbytes[w];
                ok &= (q & (q - 1)) == 0 && p >= cols &&
                      gp__bank_wavefronts(addr, 32, wbytes[w]) == gp__bank_wavefronts_ideal(addr, 32, wbytes[w]);
            }
    EXPECT(ok, "every tile shape: Q a power of two, reads at the ideal wavefront count");
    ok = 1; /* ragged tiles: rows of cols + 1 words, at most 32 cell rows, read at columns c and c + 1 */
    for (int k = 2; k <= 4; k += 2)
        for (int sh = GP__TILE_SQUARE; sh <= GP__TILE_NARROW128; sh++) {
            const int cols = gp__transpose_cols(sh, 4, k) / (sh == GP__TILE_SQUARE ? GP__RAGGED_NARROWER : 1);
            const int q0 = gp__transpose_q(sh, 4, k), q = q0 > 32 ? 32 : q0;
            const int p = gp__transpose_pitch(cols + 1, q, 4);
            for (int c = 0; c < 2; c++) {
                uint64_t addr[32];
                for (int l = 0; l < 32; l++) addr[l] = ((uint64_t)(l % q) * p + (uint64_t)(l / q + c)) * 4;
                ok &= p >= cols + 1 && gp__bank_wavefronts(addr, 32, 4) == gp__bank_wavefronts_ideal(addr, 32, 4);
            }
        }
    EXPECT(ok, "ragged tiles (a word more a row): conflict-free reads of both words of a cell row");
    gp__device h100 = {0, 132, 1, 227 * 1024, 228 * 1024, 1024, 25}, h200 = h100;
    h200.mem_gbs_sm = 36;
    EXPECT(!gp__transpose_deep(h100) && gp__transpose_deep(h200), "deep tiles on the H200 (36 GB/s an SM), not the H100 (25)");
    const gp__transpose_desc u8_big = desc(0x100000, 0x80000001, 8191, 8191, 1), u8_mid = desc(0x100000, 0x80000001, 4097, 3001, 1),
                             u16_mid = desc(0x100000, 0x80000002, 4097, 3001, 2);
    EXPECT(gp__ragged_wide<4>(gp__transpose_in_units(&u8_big, 1), h200) &&
               !gp__ragged_wide<4>(gp__transpose_in_units(&u8_big, 1), h100) &&
               !gp__ragged_wide<4>(gp__transpose_in_units(&u8_mid, 1), h200) &&
               !gp__ragged_wide<2>(gp__transpose_in_units(&u16_mid, 1), h200),
           "wide ragged u8 tiles on a deep GPU from two waves of them: u8 8191^2 (8 waves); not u8 4097 x 3001 "
           "(1.5), nor on the H100, nor u16 tiles (4097 x 3001: 3 waves)");
    EXPECT((gp__transpose_tile<uint32_t, 4, 16, 32, GP__TR_RAGGED>::STEP == 124 &&
            gp__transpose_tile<uint32_t, 2, 32, 32, GP__TR_RAGGED>::STEP == 62 &&
            gp__transpose_tile<uint32_t, 4, 16, 16, GP__TR_RAGGED>::STEP == 64 &&
            gp__transpose_tile<uint32_t, 4, 32, 32, GP__TR_CELLS>::STEP == 128),
           "ragged tiles of 32 cell rows own all but their halo cell (124 u8 rows, 62 u16), others every row");
    gp__transpose_desc slice = desc(0x100000, 0x80000000, 4096, 8, 4), padded = slice;
    slice.ld_in = 4096, padded.ld_in = 8 + 128 / 4;
    const gp__transpose_desc v16 = desc(0x100000, 0x80000000, 4097, 3001, 16);
    EXPECT(gp__transpose_prefetch(&u8_mid, 4) && gp__transpose_prefetch(&u16_mid, 4) && gp__transpose_prefetch(&padded, 4) &&
               !gp__transpose_prefetch(&slice, 4) && !gp__transpose_prefetch(&v16, 16),
           "the L2 prefetch for rows at most 128 bytes apart (dense or padded), not for 8 columns of a 4096-wide "
           "matrix, nor for 16-byte copies");
}

extern "C" void test_transpose_host(void)
{
    gp_t_section("transpose: cells, validation, word choice, tile shapes (host)");
    check_cell();
    check_validate_and_words();
    check_shapes();
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
        const size_t sq = gp_t_small() ? 2048 : 4096; /* u8: square tiles (more tiles than SMs) */
        const size_t shapes[][2] = {{1, 1},      {1, 1000},    {1000, 1},   {31, 33},  {32, 32},
                                    {33, 31},    {4, 128},     {128, 4},    {129, 131}, {1000, 1000},
                                    {4097, 3001}, {big, 32},   {32, big},   {3, 777777}, {777777, 3},
                                    {8, 4096},   {64, 5000},   {5000, 64},  {sq, sq},     {36, 20000},
                                    {29, 4100},  {5001, 28}}; /* f32: short and narrow tiles in chunks, clipped */
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
        for (int k = 0; k < 6; k++) { /* on the word grid: strided and batched through the word kernel */
            const size_t rows = 4 * (1 + gp_t_next(&st) % 300), cols = 4 * (1 + gp_t_next(&st) % 300);
            tr_case c = plain_case(rows, cols);
            c.api = 2;
            c.ld_in = cols + 4 * (gp_t_next(&st) % 3);
            c.ld_out = rows + 4 * (gp_t_next(&st) % 3);
            c.offset = 16 * (gp_t_next(&st) % 3);
            c.batch = 1 + gp_t_next(&st) % 4;
            c.stride_in = rows * c.ld_in + 4 * (gp_t_next(&st) % 3);
            c.stride_out = cols * c.ld_out + 4 * (gp_t_next(&st) % 3);
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        if (ty->elem <= 8 && ty->elem == ty->align) { /* rows on 16 bytes: the chunked tile, clipped on both sides */
            tr_case c = plain_case(1604, 1536);
            fails += !tr_run(f, ty, &c, &st), cases++;
            c = plain_case(1604, 1540);
            c.api = 2, c.ld_in = 1552, c.ld_out = 1612, c.offset = 32, c.batch = ty->elem <= 4 ? 2 : 1;
            c.stride_in = 1604 * 1552 + 16, c.stride_out = 1540 * 1612 + 8;
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        if (ty->elem <= 8 && ty->elem == ty->align) { /* short and narrow tiles in chunks, batched */
            tr_case c = plain_case(32, 1028);
            c.api = 2, c.ld_in = 1032, c.ld_out = 36, c.offset = 16, c.batch = 2;
            c.stride_in = 32 * 1032 + 4, c.stride_out = 1028 * 36 + 1;
            fails += !tr_run(f, ty, &c, &st), cases++;
            c = plain_case(1500, 32);
            c.api = 2, c.ld_in = 36, c.ld_out = 1501, c.batch = 2, c.stride_in = 1500 * 36 + 8, c.stride_out = 32 * 1501;
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        if (ty->elem <= 2)
            for (size_t off = 1; off < 4; off++) { /* off the word grid by the pointers alone */
                tr_case c = plain_case(256, 260);
                c.offset = (2 * off - 1) * ty->elem; /* u8: 1, 3, 5; u16: 2, 6, 10 */
                fails += !tr_run(f, ty, &c, &st), cases++;
                c.api = 2, c.batch = 3, c.ld_in = 261, c.ld_out = 257, c.stride_in = 256 * 261 + 1, c.stride_out = 260 * 257 + 3;
                fails += !tr_run(f, ty, &c, &st), cases++;
            }
        if (ty->elem <= 2) { /* ragged square tiles own 124 rows (u8) or 62 (u16) below a halo cell: the
                              * last tile row 1 to 3 rows long, exactly full, or a tile row alone */
            const size_t halo[] = {63, 124, 125, 126, 127, 187, 248, 249, 250, 251, 372};
            for (size_t h = 0; h < sizeof halo / sizeof *halo; h++) {
                tr_case c = plain_case(halo[h], 301);
                c.offset = ty->elem; /* output rows start at every offset within a word */
                fails += !tr_run(f, ty, &c, &st), cases++;
                c.api = 1, c.ld_in = 301 + 2, c.ld_out = halo[h] + 1 + 2 * (h % 3), c.offset = 3 * ty->elem;
                fails += !tr_run(f, ty, &c, &st), cases++;
            }
        }
        if (ty->elem <= 2) { /* ragged: every tile shape, tiles clipped on both sides, odd everything */
            const size_t ragged[][2] = {{1601, 1537}, {61, 5003}, {127, 3001}, {29, 4099}, {3, 70001},
                                        {5003, 61},   {2001, 127}, {3001, 29},  {7001, 13}};
            for (size_t s = 0; s < sizeof ragged / sizeof *ragged; s++) {
                const size_t rows = ragged[s][0], cols = ragged[s][1];
                tr_case c = plain_case(rows, cols);
                c.offset = ty->elem; /* u8: an odd pointer */
                fails += !tr_run(f, ty, &c, &st), cases++;
                c.api = 1, c.ld_in = cols + 3, c.ld_out = rows + 5, c.offset = 3 * ty->elem;
                fails += !tr_run(f, ty, &c, &st), cases++;
                c.api = 2, c.batch = 3, c.stride_in = rows * c.ld_in + 7, c.stride_out = cols * c.ld_out + 1;
                fails += !tr_run(f, ty, &c, &st), cases++;
            }
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
    EXPECT(gp_transpose_u16((uint16_t *)(f->d_out + 1), (const uint16_t *)f->d_in, 4, 4, 0) == cudaErrorInvalidValue,
           "u16 at an odd address (below its alignment)");
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, f->d_out, 64, cudaMemcpyDeviceToHost));
    int untouched = 1;
    for (int i = 0; i < 64; i++) untouched &= got[i] == POISON;
    EXPECT(untouched, "bad input and no-ops write nothing");
}

/* Calls back to back on one stream, each reading what the one before wrote, with no
 * synchronisation between them: on sm_90 each is a programmatic dependent of the one
 * before (gp__chained_launch) and must wait for its writes. Two transposes give the input
 * back; a third call copies nothing in between but transposes again. */
static void check_chained(tr_fixture *f)
{
    uint64_t st = gp_t_state(34);
    cudaStream_t stream;
    CUDA_CHK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    static const struct { const char *type; size_t rows, cols, offset; } cases[] = {
        {"u8", 4097, 3001, 1}, {"u8", 1024, 2048, 0}, {"u16", 1001, 3003, 2}, {"f32", 1000, 1000, 0},
        {"f64", 1000, 1000, 0}, {"f64", 4097, 3001, 8}, {"v16", 129, 4099, 0}};
    int ok = 1;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const tr_type *ty = NULL;
        for (size_t t = 0; t < sizeof tr_types / sizeof *tr_types; t++)
            if (strcmp(tr_types[t].name, cases[k].type) == 0) ty = &tr_types[t];
        if (ty == NULL) continue;
        const size_t rows = cases[k].rows, cols = cases[k].cols, bytes = rows * cols * ty->elem, off = cases[k].offset;
        const size_t stride = (bytes + off + 255) / 256 * 256; /* three matrices in each buffer */
        if (3 * stride > f->bytes) continue;
        for (size_t i = 0; i < bytes; i += 8) {
            const uint64_t x = gp_t_next(&st);
            memcpy(f->h_in + i, &x, bytes - i < 8 ? bytes - i : 8);
        }
        unsigned char *a = f->d_in + off, *b = f->d_out + off, *c = f->d_out + stride + off, *d = f->d_in + stride + off;
        CUDA_CHK(cudaMemcpy(a, f->h_in, bytes, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(f->d_out, POISON, 2 * stride));
        CUDA_CHK(cudaMemset(d, POISON, bytes));
        CUDA_CHK(cudaDeviceSynchronize());
        for (int s = 0; s < 2; s++) { /* the default stream, then a stream of its own */
            const cudaStream_t on = s ? stream : 0;
            cudaError_t err = ty->plain(b, a, rows, cols, on); /* b = a^T */
            if (err == cudaSuccess) err = ty->plain(c, b, cols, rows, on); /* c = a */
            if (err == cudaSuccess) err = ty->plain(d, c, rows, cols, on); /* d = a^T */
            CUDA_CHK(cudaStreamSynchronize(on));
            CUDA_CHK(cudaMemcpy(f->h_got, c, bytes, cudaMemcpyDeviceToHost));
            const int same = err == cudaSuccess && memcmp(f->h_got, f->h_in, bytes) == 0;
            CUDA_CHK(cudaMemcpy(f->h_want, b, bytes, cudaMemcpyDeviceToHost));
            CUDA_CHK(cudaMemcpy(f->h_got, d, bytes, cudaMemcpyDeviceToHost));
            const int twice = memcmp(f->h_got, f->h_want, bytes) == 0;
            EXPECT(same && twice, "transpose %s %zux%zu offset %zu, three calls back to back on %s: %s", ty->name, rows,
                   cols, off, s ? "a stream" : "the default stream",
                   err ? cudaGetErrorName(err) : !same ? "the second differs from the input" : "the third differs from the first");
            ok &= same && twice;
            CUDA_CHK(cudaMemset(f->d_out, POISON, 2 * stride));
            CUDA_CHK(cudaMemset(d, POISON, bytes));
            CUDA_CHK(cudaDeviceSynchronize());
        }
    }
    CUDA_CHK(cudaStreamDestroy(stream));
    printf("  transpose back to back: %s\n", ok ? "ok" : "FAILED");
}

/* ---- a deep device's choices (transpose.cuh, "the choice by device") --------------------
 * The GPU under test described as a deep one (far more DRAM bandwidth an SM than the
 * threshold) of 4 SMs, so that ragged calls of 32 wide tiles or more take them and floats
 * and doubles on rows off 16 bytes take the square tile: what such a GPU runs, run here. */
static gp__device deep_dev;
template <class T>
static cudaError_t deep_batched(void *o, size_t lo, size_t so, const void *i, size_t li, size_t si, size_t r, size_t c,
                                size_t b, cudaStream_t s)
{
    return gp__transpose_described<T>((T *)o, lo, so, (const T *)i, li, si, r, c, b, s, &deep_dev);
}
template <class T>
static cudaError_t deep_plain(void *o, const void *i, size_t r, size_t c, cudaStream_t s)
{
    return deep_batched<T>(o, r, 0, i, c, 0, r, c, 1, s);
}
template <class T>
static cudaError_t deep_strided(void *o, size_t lo, const void *i, size_t li, size_t r, size_t c, cudaStream_t s)
{
    return deep_batched<T>(o, lo, 0, i, li, 0, r, c, 1, s);
}
template <class T>
static cudaError_t deep_typed(T *o, const T *i, size_t r, size_t c, cudaStream_t s)
{
    return deep_plain<T>(o, i, r, c, s);
}
#define DEEP_ROW(name, T) {#name " (deep)", sizeof(T), alignof(T), deep_plain<T>, deep_strided<T>, deep_batched<T>}

static void deep_describe(int verbose)
{
    int dev;
    CUDA_CHK(cudaGetDevice(&dev));
    CUDA_CHK(gp__device_query(&deep_dev, dev));
    if (verbose)
        printf("  this GPU: %u SMs, %u GB/s of DRAM bandwidth an SM (deep tiles from %d): %s\n", deep_dev.sms,
               deep_dev.mem_gbs_sm, GP__TRANSPOSE_DEEP_GBS, gp__transpose_deep(deep_dev) ? "deep" : "not deep");
    deep_dev.sms = 4, deep_dev.mem_gbs_sm = 1000;
}

static void check_deep(tr_fixture *f)
{
    uint64_t st = gp_t_state(35);
    deep_describe(1);
    static const tr_type types[] = {DEEP_ROW(u8, uint8_t), DEEP_ROW(u16, uint16_t), DEEP_ROW(f32, float), DEEP_ROW(f64, double)};
    const gp__transpose_desc wide = desc(0x100000, 0x80000001, 1601, 1537, 1);
    EXPECT(gp__ragged_wide<4>(gp__transpose_in_units(&wide, 1), deep_dev), "u8 1601 x 1537 on the deep description: wide ragged tiles");
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        const tr_type *ty = &types[t];
        const size_t shapes[][2] = {{1601, 1537}, {4097, 3001}, {3001, 4097}, {1000, 1000}, {500, 1300}, {2049, 2047}};
        int cases = 0, fails = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            const size_t rows = shapes[s][0], cols = shapes[s][1];
            tr_case c = plain_case(rows, cols);
            c.offset = ty->elem; /* u8, u16: an odd pointer; f32, f64: rows off 16 bytes */
            fails += !tr_run(f, ty, &c, &st), cases++;
            c.api = 1, c.ld_in = cols + 3, c.ld_out = rows + 5, c.offset = 3 * ty->elem;
            fails += !tr_run(f, ty, &c, &st), cases++;
            c.api = 2, c.batch = 3, c.stride_in = rows * c.ld_in + 7, c.stride_out = cols * c.ld_out + 1;
            fails += !tr_run(f, ty, &c, &st), cases++;
        }
        if (ty->elem <= 2) { /* wide ragged tiles own the same 124 (u8) or 62 (u16) rows below a halo cell */
            const size_t halo[] = {63, 124, 125, 126, 127, 187, 248, 249, 250, 251, 372};
            for (size_t h = 0; h < sizeof halo / sizeof *halo; h++) {
                tr_case c = plain_case(halo[h], 4001);
                c.offset = ty->elem;
                fails += !tr_run(f, ty, &c, &st), cases++;
                c.api = 1, c.ld_in = 4001 + 2, c.ld_out = halo[h] + 1 + 2 * (h % 3), c.offset = 3 * ty->elem;
                fails += !tr_run(f, ty, &c, &st), cases++;
            }
        }
        printf("  transpose %-11s %d cases, %d failed\n", ty->name, cases, fails);
    }
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
        gp_t_skip("transpose: every instance and two user types, plain, strided, batched");
        gp_t_skip("transpose: 8- and 16-byte elements aligned to 4 or 8 bytes only");
        gp_t_skip("transpose: bad input");
        gp_t_skip("transpose: calls back to back");
        gp_t_skip("transpose: the tiles of a GPU with more DRAM bandwidth an SM");
        gp_t_skip("transpose: more than 2^32 elements");
        return;
    }
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
    gp_t_section("transpose: calls back to back");
    check_chained(&f);
    gp_t_section("transpose: the tiles of a GPU with more DRAM bandwidth an SM");
    check_deep(&f);
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
    check_huge_one<uint8_t>("u8 (ragged)", 65537, 65537, gp_transpose_u8);
    deep_describe(0);
    check_huge_one<uint8_t>("u8 (ragged, deep tiles)", 65537, 65537, deep_typed<uint8_t>);
    check_huge_one<float>("f32 (rows off 16 bytes, deep tiles)", 65537, 65537, deep_typed<float>);
    check_huge_one<float>("f32", 65536, 65537, gp_transpose_f32);
    check_huge_one<float>("f32 (2^24 x 3: 2^17 tile rows)", (size_t)1 << 24, 3, gp_transpose_f32);
}
