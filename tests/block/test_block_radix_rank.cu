/* tests/block/test_block_radix_rank.cu -- the block radix rank (block/block_radix_rank.cuh),
 * called from a kernel of ours as a user would: every key's rank against a host stable
 * counting sort of the tile by digit, and the tile's digit counts and starts. Shapes: the
 * documented <256, 8>, one match buffer (<256, 8> with smem <256, 1>: the long chain), an
 * odd number of items, one item a thread, 512 threads; digits random, few, all one, one a
 * warp (the one-digit path), half of them one digit, and a partial tile padded with 255.
 * Each block ranks two tiles back to back in one shared-memory object (the call ends with a
 * barrier, so it may be reused at once). */
#include "../../gpuprims.cuh"
#include "../harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

/* Block b ranks tiles 2b and 2b + 1 of `digits` (item i of lane l of warp w of a tile is
 * key w * 32 * ITEMS + i * 32 + l), writes each key's rank at the key's index, and each
 * tile's 256 digit counts and starts. */
template <int BLOCK, int ITEMS, int BUFS>
__global__ void __launch_bounds__(BLOCK) rank_kernel(const uint8_t *digits, unsigned *ranks, unsigned *counts,
                                                     unsigned *starts)
{
    __shared__ gp_block_radix_rank_smem<BLOCK, BUFS> smem;
    constexpr unsigned TILE = BLOCK * ITEMS;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (unsigned k = 0; k < 2; k++) {
        const size_t tile = 2 * (size_t)blockIdx.x + k, first = tile * TILE + warp * 32 * ITEMS + lane;
        unsigned digit[ITEMS], rank[ITEMS];
        for (int i = 0; i < ITEMS; i++) digit[i] = digits[first + 32 * i];
        gp_block_radix_rank<BLOCK, ITEMS>(digit, rank, smem);
        for (int i = 0; i < ITEMS; i++) ranks[first + 32 * i] = rank[i];
        if (threadIdx.x < GP_RADIX_DIGITS) {
            counts[tile * GP_RADIX_DIGITS + threadIdx.x] = smem.digit_count[threadIdx.x];
            starts[tile * GP_RADIX_DIGITS + threadIdx.x] = smem.digit_start[threadIdx.x];
        }
        /* no barrier of ours: the next call's first touch of smem comes after its own */
    }
}

enum { D_RANDOM, D_FEW, D_ONE, D_WARP, D_HALF, D_PARTIAL, D_KINDS };
static const char *const kind_name[D_KINDS] = {"random",           "two values",          "all one digit",
                                               "one digit a warp", "half of them digit 7", "partial tile, 255 after"};

/* The digits of one tile of `tile` keys, warp-striped keys of `per_warp` each. */
static void fill_tile(uint8_t *d, unsigned tile, unsigned per_warp, int kind, uint64_t *st)
{
    const unsigned valid = kind == D_PARTIAL ? 1 + (unsigned)(gp_t_next(st) % tile) : tile;
    const uint8_t one = (uint8_t)gp_t_next(st);
    for (unsigned j = 0; j < tile; j++) {
        const uint64_t r = gp_t_next(st);
        switch (kind) {
        case D_FEW: d[j] = r & 1 ? 3 : 200; break;
        case D_ONE: d[j] = one; break;
        case D_WARP: d[j] = (uint8_t)(one + 37 * (j / per_warp)); break;
        case D_HALF: d[j] = r & 1 ? 7 : (uint8_t)(r >> 8); break;
        default: d[j] = j < valid ? (uint8_t)(r >> 8) : 255; break;
        }
    }
}

template <int BLOCK, int ITEMS, int BUFS>
static void check_shape(unsigned blocks)
{
    constexpr unsigned TILE = BLOCK * ITEMS, PER_WARP = 32 * ITEMS;
    const unsigned tiles = 2 * blocks;
    const size_t n = (size_t)tiles * TILE;
    std::vector<uint8_t> h_d(n);
    std::vector<unsigned> h_r(n), h_c(tiles * 256), h_s(tiles * 256);
    uint8_t *d_d;
    unsigned *d_r, *d_c, *d_s;
    CUDA_CHK(cudaMalloc(&d_d, n));
    CUDA_CHK(cudaMalloc(&d_r, n * 4));
    CUDA_CHK(cudaMalloc(&d_c, tiles * 256 * 4));
    CUDA_CHK(cudaMalloc(&d_s, tiles * 256 * 4));
    uint64_t st = gp_t_state(0x7a4c + 131 * BLOCK + ITEMS + 7 * BUFS);
    for (int kind = 0; kind < D_KINDS; kind++) {
        /* tile t of kind (kind + t) % D_KINDS: kinds meet back to back in a block */
        for (unsigned t = 0; t < tiles; t++)
            fill_tile(h_d.data() + (size_t)t * TILE, TILE, PER_WARP, (kind + (int)t) % D_KINDS, &st);
        CUDA_CHK(cudaMemcpy(d_d, h_d.data(), n, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(d_r, 0xA7, n * 4)); /* poisoned */
        CUDA_CHK(cudaMemset(d_c, 0xA7, tiles * 256 * 4));
        CUDA_CHK(cudaMemset(d_s, 0xA7, tiles * 256 * 4));
        rank_kernel<BLOCK, ITEMS, BUFS><<<blocks, BLOCK>>>(d_d, d_r, d_c, d_s);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(h_r.data(), d_r, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(h_c.data(), d_c, tiles * 256 * 4, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(h_s.data(), d_s, tiles * 256 * 4, cudaMemcpyDeviceToHost));
        /* the host's stable counting sort of each tile by digit, in tile order */
        size_t bad_rank = n, bad_count = tiles;
        for (unsigned t = 0; t < tiles && bad_rank == n && bad_count == tiles; t++) {
            const uint8_t *d = h_d.data() + (size_t)t * TILE;
            unsigned count[256] = {0}, start[256], at[256];
            for (unsigned j = 0; j < TILE; j++) count[d[j]]++;
            for (unsigned v = 0, s = 0; v < 256; s += count[v], v++) start[v] = at[v] = s;
            for (unsigned v = 0; v < 256; v++)
                if (h_c[t * 256 + v] != count[v] || h_s[t * 256 + v] != start[v]) bad_count = t;
            for (unsigned j = 0; j < TILE; j++)
                if (h_r[(size_t)t * TILE + j] != at[d[j]]++ && bad_rank == n) bad_rank = (size_t)t * TILE + j;
        }
        EXPECT(bad_rank == n && bad_count == tiles,
               "gp_block_radix_rank<%d, %d> (smem <%d, %d>), %u blocks of two tiles from %s on: every rank the "
               "stable one, the counts and starts the tile's (first wrong rank: key %zu of %zu; first wrong counts: "
               "tile %u of %u)",
               BLOCK, ITEMS, BLOCK, BUFS, blocks, kind_name[kind], bad_rank, n, bad_count, tiles);
    }
    CUDA_CHK(cudaFree(d_d));
    CUDA_CHK(cudaFree(d_r));
    CUDA_CHK(cudaFree(d_c));
    CUDA_CHK(cudaFree(d_s));
}

extern "C" void test_block_radix_rank(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("block radix rank: ranks, counts and starts against a host counting sort");
        return;
    }
    gp_t_section("block radix rank: every key's stable rank, the digit counts and starts, shapes and digit mixes");
    check_shape<256, 8, 3>(8);
    check_shape<256, 8, 1>(8);
    check_shape<256, 9, 3>(5);
    check_shape<256, 1, 3>(16);
    check_shape<512, 4, 1>(6);
    check_shape<320, 5, 3>(3);
}
