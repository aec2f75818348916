/* tests/tile/test_tile.cu -- the tile level: gp_tile_load_<name>, gp_tile_load_async_<name>,
 * gp_tile_store_<name>, gp_tile_pitch and the bank model behind it.
 * Host: the bank model, the padded pitch for 1- to 16-byte elements, chunk widths.
 * GPU: tile load/store against a host model (ragged edges, fill, pitches, block shapes,
 * every chunk width), for the default u8, f32, f64 and v16 instances and a 12-byte user
 * type. */
#include "../../gpuprims.cuh"
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float r, g, b; } rgb_t; /* 12 bytes: moved element by element */
GP_DEFINE_TILE(rgb, rgb_t)

static const unsigned char POISON = 0xA7;

/* ---- host ------------------------------------------------------------------------------ */

static void check_bank_model(void)
{
    uint64_t a[32];
    for (int i = 0; i < 32; i++) a[i] = 0;
    EXPECT(gp__bank_wavefronts(a, 32, 4) == 1, "one word read by 32 threads: a broadcast, 1 wavefront");
    for (int i = 0; i < 32; i++) a[i] = 4 * i;
    EXPECT(gp__bank_wavefronts(a, 32, 4) == 1, "32 consecutive words: 1 wavefront");
    for (int i = 0; i < 32; i++) a[i] = 8 * i;
    EXPECT(gp__bank_wavefronts(a, 32, 4) == 2, "stride 2 words: 2-way conflict");
    for (int i = 0; i < 32; i++) a[i] = 128 * i;
    EXPECT(gp__bank_wavefronts(a, 32, 4) == 32, "stride 32 words: 32-way conflict");
    for (int i = 0; i < 32; i++) a[i] = 8 * i;
    EXPECT(gp__bank_wavefronts(a, 32, 8) == 2 && gp__bank_wavefronts_ideal(a, 32, 8) == 2,
           "32 consecutive 8-byte reads: 2 wavefronts, the ideal");
    for (int i = 0; i < 32; i++) a[i] = 16 * i;
    EXPECT(gp__bank_wavefronts(a, 32, 16) == 4 && gp__bank_wavefronts_ideal(a, 32, 16) == 4,
           "32 consecutive 16-byte reads: 4 wavefronts, the ideal");
    for (int i = 0; i < 32; i++) a[i] = i;
    EXPECT(gp__bank_wavefronts(a, 32, 1) == 1 && gp__bank_wavefronts_ideal(a, 32, 1) == 1,
           "32 consecutive bytes: 8 words, 1 wavefront");
}

static void check_pitch(void)
{
    /* The claim, for 4-byte elements: a column of a 32-wide tile. */
    EXPECT(gp__tile_column_wavefronts(32, 4, 0, 1) == 32, "unpadded 32 x 32 floats: a column is a 32-way conflict (%d)",
           gp__tile_column_wavefronts(32, 4, 0, 1));
    EXPECT(gp__tile_column_wavefronts(33, 4, 0, 1) == 1, "padded to 33: a column touches 32 distinct banks");
    static_assert(gp_tile_pitch(32, 4) == 33 && gp_tile_pitch(32, 8) == 33, "one element of padding for 4 and 8 bytes");

    /* Every element size and several widths: the pitch found is conflict-free for every
     * column, no smaller pitch is, and the unpadded tile of 32 columns is not. */
    const int elems[] = {1, 2, 4, 8, 16};
    const int ideal[] = {1, 1, 1, 2, 4}; /* wavefronts for 32 elements on 32 rows */
    for (int e = 0; e < 5; e++) {
        const int elem = elems[e];
        for (int cols = 1; cols <= 160; cols += cols < 40 ? 1 : 31) {
            const int p = gp_tile_pitch(cols, elem);
            int ok = p >= cols && gp__tile_pitch_is_conflict_free(p, elem, 1);
            for (int q = cols; q < p; q++) ok = ok && !gp__tile_pitch_is_conflict_free(q, elem, 1);
            for (int col = 0; col < 4 && ok; col++) ok = gp__tile_column_wavefronts(p, elem, col, 1) == ideal[e];
            EXPECT(ok, "gp_tile_pitch(%d, %d) = %d: smallest conflict-free pitch", cols, elem, p);
        }
        const int unpadded = gp__tile_column_wavefronts(32, elem, 0, 1);
        EXPECT(unpadded >= 8 * ideal[e], "%d-byte elements, unpadded 32-wide tile: %d wavefronts (ideal %d)", elem, unpadded, ideal[e]);
        printf("  %2d-byte elements, 32 columns: pitch %d, column read %d wavefront(s); unpadded %d\n", elem,
               gp_tile_pitch(32, elem), gp__tile_column_wavefronts(gp_tile_pitch(32, elem), elem, 0, 1), unpadded);
    }
}

static void check_chunk_bytes(void)
{
    EXPECT(gp__tile_chunk_bytes(0x1000, 4096, 64, 4) == 16, "all aligned: 16-byte chunks");
    EXPECT(gp__tile_chunk_bytes(0x1004, 4096, 64, 4) == 4, "start on 4 bytes: element chunks");
    EXPECT(gp__tile_chunk_bytes(0x1008, 4096, 64, 4) == 8, "start on 8 bytes: 8-byte chunks");
    EXPECT(gp__tile_chunk_bytes(0x1000, 4100, 64, 4) == 4, "leading dimension 1025 floats: element chunks");
    EXPECT(gp__tile_chunk_bytes(0x1000, 4096, 36, 4) == 4, "a tile 9 floats wide: element chunks");
    EXPECT(gp__tile_chunk_bytes(0x1001, 4096, 64, 1) == 1, "bytes at an odd address: 1-byte chunks");
    EXPECT(gp__tile_chunk_bytes(0x1002, 4096, 64, 1) == 1, "bytes at an address on 2: 1-byte chunks");
    EXPECT(gp__tile_chunk_bytes(0x1000, 48, 48, 12) == 12, "12-byte elements: one at a time");
    EXPECT(gp__tile_chunk_bytes(0x1000, 4096, 64, 16) == 16, "16-byte elements: one per chunk");
}

extern "C" void test_tile_host(void)
{
    gp_t_section("tile: bank model, padded pitch, chunk widths (host)");
    check_bank_model();
    check_pitch();
    check_chunk_bytes();
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
    if (off + span > buf_bytes) { /* cannot happen with the sizes above: a case that does not run fails */
        EXPECT(0, "tile %s: a %zu-byte case does not fit the %zu-byte test buffer", ty->name, off + span, buf_bytes);
        return 0;
    }
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

extern "C" void test_tile_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("tile: load (plain and async)/store against the host model (5 types x 120 cases)");
        return;
    }
    gp_t_section("tile: load (plain and async) and store against the host model");
    check_tiles();
}
