/* detail/device/sort_look_back.cuh -- the radix sort's status words and its decoupled
 * look-back per digit (sort_kernels.cuh's pass kernel): each tile publishes, for each of the
 * 256 digits, its own count ("aggregate") and then the count of every tile up to it
 * ("inclusive"); a tile finds a digit's count in the tiles before it by walking back over
 * those words. Level 3 (device code): needs agent/single_pass.cuh (the tagged words, their
 * relaxed loads) and util/common.cuh. */
#ifndef GPUPRIMS_DETAIL_SORT_LOOK_BACK_CUH
#define GPUPRIMS_DETAIL_SORT_LOOK_BACK_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../agent/single_pass.cuh"

/* ---- status words: a tile's count of one digit, aggregate or inclusive ------------------- */
/* A call owns GP__SORT_EPOCHS consecutive epochs from io.epoch (status memory, sort.cuh): pass
 * p tags its words epoch + 2p (the tile's own count) or epoch + 2p + 1 (all tiles up to it),
 * so a word of an earlier pass or call reads as not yet written, and the words are never
 * cleared. */
#define GP__SORT_EPOCHS 16 /* two tags a pass, 8 passes at most */
static constexpr GP__HD uint32_t gp__sort_tag(uint32_t epoch, int pass, bool inclusive)
{
    return epoch + 2u * (uint32_t)pass + (inclusive ? 1u : 0u);
}
/* Reads the WW words of a slot into w (all loads issued before any is used). */
template <class W>
static __device__ __forceinline__ void gp__sort_status_load(const uint64_t *status, size_t slot,
                                                            uint64_t (&w)[gp__status_words(sizeof(W))])
{
    enum { WW = gp__status_words(sizeof(W)) };
#pragma unroll
    for (int c = 0; c < WW; c++) w[c] = gp__ld_relaxed_u64(status + slot * WW + c);
}
/* Whether the loaded words hold a count of this pass, tagged tag0 or tag0 + 1 (then v and
 * inclusive are set). */
template <class W>
static __device__ __forceinline__ bool gp__sort_status_parse(const uint64_t (&w)[gp__status_words(sizeof(W))],
                                                             uint32_t tag0, W &v, bool &inclusive)
{
    enum { WW = gp__status_words(sizeof(W)) };
    const uint32_t tag = (uint32_t)(w[0] >> 32);
    if (tag != tag0 && tag != tag0 + 1) return false;
    uint32_t bits[WW];
#pragma unroll
    for (int c = 0; c < WW; c++) {
        if ((uint32_t)(w[c] >> 32) != tag) return false; /* a wide value seen between its two stores */
        bits[c] = (uint32_t)w[c];
    }
    memcpy(&v, bits, sizeof(W));
    inclusive = tag == tag0 + 1;
    return true;
}

/* Digit d's count in all tiles before `tile` (tile > 0): decoupled look-back over the
 * digit's status words. Each step loads the WIN nearest words not yet added at once (one L2
 * round trip for up to WIN tiles), then adds them nearest first up to the first inclusive
 * word (done) or the first not yet written (the next step starts there). The sum is of
 * integers, so it does not depend on which words were ready when. */
template <class W, int WIN>
static __device__ __forceinline__ W gp__sort_look_back(const uint64_t *status, size_t tile, unsigned d, uint32_t tag0)
{
    enum { WW = gp__status_words(sizeof(W)) };
    W before = 0;
    size_t k = tile; /* tiles k-1, k-2, ... are still to add */
    for (;;) {
        uint64_t w[WIN][WW];
#pragma unroll
        for (int j = 0; j < WIN; j++)
            if (k > (size_t)j) gp__sort_status_load<W>(status, (k - 1 - j) * 256 + d, w[j]);
        size_t used = 0;
#pragma unroll
        for (int j = 0; j < WIN; j++) {
            if (k <= (size_t)j) break; /* not reached: tile 0's word is inclusive */
            W v;
            bool inclusive;
            if (!gp__sort_status_parse<W>(w[j], tag0, v, inclusive)) break;
            before += v;
            if (inclusive) return before;
            used++;
        }
        k -= used;
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SORT_LOOK_BACK_CUH */
