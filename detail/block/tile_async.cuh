/* detail/block/tile_async.cuh -- fixed-shape asynchronous tile copies between global and
 * shared memory, for pipelined kernels (the matrix multiply's). Level 2 (device code):
 * needs util/async_copy.cuh (cp.async) and util/common.cuh.
 *
 * Used by detail/device/matmul_kernels.cuh. Like gp__tile_load_async, in the same chunk order, but the
 * tile shape, the block size (a 1-D block of NT threads) and the chunk width are fixed at
 * compile time (the caller checks alignment, e.g. with gp__tile_chunk_bytes), so each
 * thread's addresses are worked out once; one variant transposes; and the caller manages
 * the groups (gp__cp_async_commit, gp__cp_async_wait<N>), so that tile k + 1 is copied
 * while the block computes on tile k. Parts of a tile outside the matrix are zero-filled.
 * The caller waits and calls __syncthreads() before reading a tile. */
#ifndef GPUPRIMS_DETAIL_TILE_ASYNC_CUH
#define GPUPRIMS_DETAIL_TILE_ASYNC_CUH

#include <stddef.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/async_copy.cuh"

/* gp__tile_async<T, ROWS, COLS, NT, VEC, TRANSPOSE, CPR>: one thread's share of copying a
 * ROWS x COLS tile, with its place in the tile worked out once (the constructor). Thread t
 * copies RPT x CPR pieces, at rows r0 + q * RSTEP (q < RPT) and columns c0 + p * CSTEP
 * (p < CPR): the CPR pieces of a row lie at fixed offsets from one address, so a kernel
 * that keeps a running pointer per row pays no address arithmetic for them.
 *  - TRANSPOSE == false: VEC elements per copy (VEC * sizeof(T) = 4, 8 or 16 bytes; for
 *    VEC > 1 the caller guarantees whole, 16-byte aligned vectors), s[r][c] = g[r][c]; a
 *    warp copies consecutive vectors of a row (COLS / VEC / CPR threads to a row).
 *  - TRANSPOSE == true: one element per copy, s[c][r] = g[r][c]; a warp copies 8 (c) x 4
 *    (r) patches: four rows of 8 consecutive elements (whole 32-byte sectors when aligned),
 *    written to distinct banks when s_pitch * sizeof(T) % 128 == 16 (4-byte T: rows
 *    ROWS + 4 elements long, ROWS a multiple of 32); CPR patches side by side.
 * copy<CHECK>(dst, s_pitch, src, ld, fallback, rows_left, cols_left): dst is the shared
 * address (gp__smem_u32) of the thread's first piece, src its global address (the
 * tile's top-left element + r0 * ld + c0). With CHECK, the tile is clipped to rows_left x
 * cols_left and the rest zero-filled, read from `fallback` (any real element); without,
 * all of it must exist. load<CHECK>(s, s_pitch, g, ld, rows_left, cols_left) is the same
 * from the tile's top-left element g (a real one) and the tile's place s in shared memory. */
template <class T, int ROWS, int COLS, int NT, int VEC, bool TRANSPOSE, int CPR = 1>
struct gp__tile_async {
    enum {
        PER_ROW = COLS / VEC,                          /* copies per row (TRANSPOSE: of 8-wide patches) */
        COPIES = ROWS * COLS / VEC / NT,               /* per thread */
        KG = TRANSPOSE ? COLS / 8 / CPR : PER_ROW / CPR, /* threads (TRANSPOSE: warps) to a row */
        RPT = COPIES / CPR,                            /* rows per thread */
        RSTEP = TRANSPOSE ? NT / 32 / KG * 4 : NT / KG, /* rows between a thread's rows */
        CSTEP = TRANSPOSE ? KG * 8 : KG * VEC,         /* columns between a thread's pieces of a row */
    };
    static_assert(!TRANSPOSE || VEC == 1, "the transposing copy moves one element at a time");
    static_assert(TRANSPOSE ? COLS % (8 * CPR) == 0 && (NT / 32) % KG == 0 && ROWS % RSTEP == 0
                            : COLS % VEC == 0 && PER_ROW % CPR == 0 && NT % KG == 0,
                  "every thread's copies lie in RPT rows, RSTEP rows apart");
    static_assert((ROWS * COLS / VEC) % NT == 0 && NT % 32 == 0 && COPIES % CPR == 0, "whole passes of whole warps");
    int r0, c0;
    __device__ __forceinline__ gp__tile_async()
    {
        const int t = (int)threadIdx.x, lane = t & 31;
        if (TRANSPOSE) {
            c0 = (t >> 5) % KG * 8 + (lane & 7);
            r0 = (t >> 5) / KG * 4 + (lane >> 3);
        } else {
            c0 = t % KG * VEC;
            r0 = t / KG;
        }
    }
    /* the thread's first piece in a tile stored at s_pitch elements a row */
    __device__ __forceinline__ int s_offset(int s_pitch) const { return TRANSPOSE ? c0 * s_pitch + r0 : r0 * s_pitch + c0; }
    template <bool CHECK>
    __device__ __forceinline__ void copy(unsigned dst, int s_pitch, const T *src, size_t ld, const T *fallback,
                                         size_t rows_left, size_t cols_left) const
    {
#pragma unroll
        for (int p = 0; p < CPR; p++) {
            const bool col_ok = !CHECK || (size_t)(c0 + p * CSTEP) < cols_left;
#pragma unroll
            for (int q = 0; q < RPT; q++) {
                const bool ok = col_ok && (!CHECK || (size_t)(r0 + q * RSTEP) < rows_left);
                const int s_off = TRANSPOSE ? p * CSTEP * s_pitch + q * RSTEP : q * RSTEP * s_pitch + p * CSTEP;
                gp__cp_async<VEC * sizeof(T)>(dst + s_off * (unsigned)sizeof(T), ok ? src + q * RSTEP * ld + p * CSTEP : fallback,
                                              ok);
            }
        }
    }
    template <bool CHECK>
    __device__ __forceinline__ void load(T *s, int s_pitch, const T *g, size_t ld, size_t rows_left,
                                         size_t cols_left) const
    {
        copy<CHECK>(gp__smem_u32(s + s_offset(s_pitch)), s_pitch, g + r0 * ld + c0, ld, g, rows_left, cols_left);
    }
};

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_TILE_ASYNC_CUH */
