/* detail/device/matmul_kernels.cuh -- the matrix multiply's kernels: fixed-shape
 * the cp.async pipeline, the CUDA-core kernel
 * (gp__matmul_kernel), the FP64 tensor-core kernel (gp__matmul_tc_kernel), the split-k ends
 * (over a cluster, or the workspace's sum kernel). Level 4 (device code): needs
 * device/matmul_plan.cuh, block/tile_async.cuh (gp__tile_async), util/async_copy.cuh,
 * util/launch.cuh (gp__chain_wait) and util/common.cuh. See device/matmul.cuh for how the product works. */
#ifndef GPUPRIMS_DETAIL_MATMUL_KERNELS_CUH
#define GPUPRIMS_DETAIL_MATMUL_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../util/common.cuh"

#ifdef __CUDACC__
#include "../util/async_copy.cuh"
#include "../util/launch.cuh"
#include "../block/tile_async.cuh"
#include "matmul_plan.cuh"

/* ---- the kernels ----------------------------------------------------------------------- */

/* Shared memory of a block whose k is split: its pipeline's, or its partial tile of C
 * (part bytes) where that is more. */
static constexpr GP__HD int gp__mm_split_smem(int pipeline, int part) { return pipeline > part ? pipeline : part; }

/* A configuration is a struct of named sizes (a "spec"), for example
 *     struct gp__mm_f32_128x128 {
 *         typedef float type;
 *         static constexpr int BM = 128, BN = 128, BK = 32;  block tile of C, k step
 *         static constexpr int WM = 64, WN = 32;             warp tile
 *         static constexpr int TM = 8, TN = 8;               values of C per thread (multiples of 4)
 *         static constexpr int STAGES = 2;                   tiles in flight (1: load, wait, compute)
 *         static constexpr int GROUP_M = 8;                  block-rows per L2 group
 *         static constexpr int MIN_BLOCKS = 2;               resident blocks per SM (launch bounds)
 *         static constexpr int TC = 0;                       1: tensor cores (FP64 DMMA, no TM, TN)
 *         static constexpr int VEC_B_ONLY = 1;               1: only where B's rows allow 16-byte copies
 *         static constexpr int MIN_WAVES = 0;                only where the grid is this many waves or more
 *         static constexpr int MAX_WAVES = 0;                n > 0: only where it is n waves or fewer
 *         static constexpr int MAX_SLICES = 1;               k split into up to this many (1: never;
 *                                                            above 1 a split instance is built)
 *         static constexpr int MAX_WS_SLICES = 1;            ... or through a workspace (1: never)
 *         static constexpr float EFF = 1.00f;                relative throughput (gp__matmul_choose)
 *     };
 * A variant derives from another spec and overrides one name (the bench's ladder does).
 * gp__mm_cfg<Spec> (CUDA cores) and gp__mm_tc_cfg<Spec> (tensor cores) add what follows
 * from the sizes; gp__mm_launcher<Spec> launches either. */
template <class S>
struct gp__mm_cfg : S {
    typedef typename S::type T;
    enum {
        WARPS_N = S::BN / S::WN, WARPS = (S::BM / S::WM) * (S::BN / S::WN), THREADS = WARPS * 32,
        LANES_M = S::WM / S::TM, LANES_N = S::WN / S::TN,         /* a warp's lanes, as LANES_M x LANES_N */
        SUB_M = S::WM / (S::TM / 4), SUB_N = S::WN / (S::TN / 4), /* a warp's piece per 4 x 4 sub-tile */
        PAD = 16 / (int)sizeof(T),                                /* As row padding: 16 bytes */
        PITCH_A = S::BM + PAD, PITCH_B = S::BN,
        STAGE_A = S::BK * PITCH_A, STAGE_ELEMS = STAGE_A + S::BK * PITCH_B, /* a stage: As, then Bs */
        SMEM_BYTES = S::STAGES * STAGE_ELEMS * (int)sizeof(T),
        SPLIT_SMEM = gp__mm_split_smem(SMEM_BYTES, S::BM * S::BN * (int)sizeof(T)),
    };
    static_assert(S::BM % S::WM == 0 && S::BN % S::WN == 0 && S::TM % 4 == 0 && S::TN % 4 == 0, "tile shapes");
    static_assert(LANES_M * LANES_N == 32 && S::WM % S::TM == 0 && S::WN % S::TN == 0, "a warp is 32 lanes of TM x TN");
    static_assert(S::STAGES >= 1, "stages");
};

/* 16-byte shared loads of 4 consecutive T (one float4, or two double2). */
template <class T>
static __device__ __forceinline__ void gp__mm_lds4(T *r, const T *s)
{
    uint4 w[4 * sizeof(T) / 16];
#pragma unroll
    for (int i = 0; i < (int)(4 * sizeof(T) / 16); i++) w[i] = reinterpret_cast<const uint4 *>(s)[i];
    memcpy(r, w, sizeof w);
}

/* The k loop of both kernels over tiles 0 .. ktiles-1: load(kt, stage) issues the copies of
 * tile kt into a stage, compute(stage) multiplies the tile held there. STAGES > 1: the copy
 * of tile kt + STAGES - 1 overlaps the arithmetic on tile kt, into the stage that tile kt-1
 * used, which every thread has left once it passes tile kt's barrier: one barrier per tile,
 * one cp.async group per tile (empty ones too, so that the count stays exact). STAGES == 1:
 * load, wait, compute, with a second barrier before the next tile overwrites the stage. */
template <int STAGES, class Load, class Compute>
static __device__ __forceinline__ void gp__mm_pipeline(size_t ktiles, Load load, Compute compute)
{
    static_assert(STAGES >= 1, "stages");
    if constexpr (STAGES == 1) {
        for (size_t kt = 0; kt < ktiles; kt++) {
            load(kt, 0);
            gp__cp_async_commit();
            gp__cp_async_wait<0>();
            __syncthreads();
            compute(0);
            __syncthreads();
        }
    } else {
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++) {
            if ((size_t)s < ktiles) load(s, s);
            gp__cp_async_commit();
        }
        int read = 0, write = STAGES - 1; /* the stage computed on, the stage copied into */
        for (size_t kt = 0; kt < ktiles; kt++) {
            gp__cp_async_wait<STAGES - 2>(); /* this thread's copies of tile kt have landed */
            __syncthreads();                 /* everyone's have; everyone is done with tile kt-1 */
            if (kt + STAGES - 1 < ktiles) load(kt + STAGES - 1, write);
            gp__cp_async_commit();
            compute(read);
            read = read + 1 == STAGES ? 0 : read + 1;
            write = write + 1 == STAGES ? 0 : write + 1;
        }
        gp__cp_async_wait<0>(); /* no copy outlives the block (empty groups) */
    }
}

/* Copies the k tile at k0 of A's block-rows (a_blk) and B's block-columns (b_blk) with the
 * copiers ac and bc. Interior tiles (all of the block's rows and columns exist, and all
 * BK of k: `interior` says the first two) skip the bounds checks. */
template <int BK, class AC, class BC, class T>
static __device__ __forceinline__ void gp__mm_load_tile(const AC &ac, T *as, int pitch_a, const BC &bc, T *bs,
                                                        int pitch_b, const T *a_blk, const T *b_blk, size_t k0,
                                                        size_t k, size_t n, size_t m_left, size_t n_left,
                                                        bool interior)
{
    if (interior && k0 + BK <= k) {
        ac.template load<false>(as, pitch_a, a_blk + k0, k, m_left, k - k0);
        bc.template load<false>(bs, pitch_b, b_blk + k0 * n, n, k - k0, n_left);
    } else {
        ac.template load<true>(as, pitch_a, a_blk + k0, k, m_left, k - k0);
        bc.template load<true>(bs, pitch_b, b_blk + k0 * n, n, k - k0, n_left);
    }
}

/* Stores N consecutive values v of a row of C at dst, of which cols_left exist: 16-byte
 * stores when all N exist and the row allows (vec; N * sizeof(T) a multiple of 16), else
 * element by element. */
template <int N, class T>
static __device__ __forceinline__ void gp__mm_store(T *dst, const T *v, size_t cols_left, bool vec)
{
    static_assert(N * sizeof(T) % 16 == 0, "whole 16-byte stores");
    if (vec && cols_left >= (size_t)N) {
        uint4 w[N * sizeof(T) / 16];
        memcpy(w, v, sizeof w);
#pragma unroll
        for (int q = 0; q < (int)(N * sizeof(T) / 16); q++) reinterpret_cast<uint4 *>(dst)[q] = w[q];
    } else {
#pragma unroll
        for (int q = 0; q < N; q++)
            if ((size_t)q < cols_left) dst[q] = v[q];
    }
}

/* acc += the product of one stage's tiles: as points at the thread's first column of As
 * (A transposed: As[k][m]), bs at its first column of Bs. */
template <class C, class T>
static __device__ __forceinline__ void gp__mm_compute(T (&acc)[C::TM][C::TN], const T *as, const T *bs)
{
#pragma unroll
    for (int kk = 0; kk < C::BK; kk++) {
        T af[C::TM], bf[C::TN];
#pragma unroll
        for (int i = 0; i < C::TM / 4; i++) gp__mm_lds4(af + 4 * i, as + kk * C::PITCH_A + i * C::SUB_M);
#pragma unroll
        for (int j = 0; j < C::TN / 4; j++) gp__mm_lds4(bf + 4 * j, bs + kk * C::PITCH_B + j * C::SUB_N);
#pragma unroll
        for (int i = 0; i < C::TM; i++)
#pragma unroll
            for (int j = 0; j < C::TN; j++) acc[i][j] = fma(af[i], bf[j], acc[i][j]);
    }
}

/* How many of a thread's COPIES pieces of a tile row (per_row pieces of piece_bytes each)
 * it takes from one row: as many as leave a row's consecutive lanes at least 32 bytes
 * (whole sectors) of it, so that the others are fixed offsets from one address. */
static constexpr GP__HD int gp__mm_pieces_per_row(int per_row, int copies, int piece_bytes)
{
    int best = 1;
    for (int c = 2; c <= copies; c++)
        if (copies % c == 0 && per_row % c == 0 && per_row / c * piece_bytes >= 32) best = c;
    return best;
}

/* The kernels' instances by how k is split (a template parameter): not at all; over a
 * cluster (sm_90); or through a workspace, over the grid's rows. Each is its own instance:
 * with the cluster code compiled into the unsplit kernel, ptxas scheduled its main loop
 * 4-7% slower (H100), and with the grid-row arithmetic, the 128 x 64 tile's 13% slower. */
enum { GP__MM_UNSPLIT = 0, GP__MM_BY_CLUSTER = 1, GP__MM_BY_WORKSPACE = 2 };

/* The k slices of this block's tile, and which of them it multiplies: the blocks of its
 * cluster, or the grid's rows (each slice storing its partial product in its own slab of
 * the workspace: gp__mm_slab). */
template <int SPLIT>
static __device__ __forceinline__ unsigned gp__mm_slices(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) return __clusterSizeInBlocks();
#endif
    return SPLIT == GP__MM_BY_WORKSPACE ? gridDim.y : 1;
}
template <int SPLIT>
static __device__ __forceinline__ unsigned gp__mm_slice(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) return __clusterRelativeBlockRank();
#endif
    return SPLIT == GP__MM_BY_WORKSPACE ? blockIdx.y : 0;
}
/* The block's tile of C, numbered as gp__matmul_tile_of takes it (a cluster's blocks share
 * one), and where its product goes: C, or its slice's slab of the workspace. */
template <int SPLIT>
static __device__ __forceinline__ size_t gp__mm_tile_index(void)
{
    return SPLIT == GP__MM_BY_CLUSTER ? blockIdx.x / gp__mm_slices<SPLIT>() : blockIdx.x;
}
template <int SPLIT, class T>
static __device__ __forceinline__ T *gp__mm_output(T *c, size_t m, size_t n)
{
    return SPLIT == GP__MM_BY_WORKSPACE ? c + blockIdx.y * gp__mm_slab(m, n, sizeof(T)) : c;
}

/* The end of a split product (gp__matmul_choose): each block of the cluster holds its
 * slice's BM x BN partial tile at `part` in its shared memory (rows BN apart); block
 * `slice` adds all of them, in slice order, over its band of BM / slices rows and stores
 * the sums to the tile of C at c_tile (rows ldc apart; m_left x n_left of it exist). */
template <class T, int BM, int BN, int THREADS>
static __device__ __forceinline__ void gp__mm_sum_slices(const T *part, T *c_tile, size_t ldc, size_t m_left,
                                                         size_t n_left, bool vec, unsigned slice, unsigned slices)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { V = 16 / (int)sizeof(T), PER_ROW = BN / V }; /* 16-byte pieces */
    static_assert(BN % V == 0, "rows of whole 16-byte pieces");
    __cluster_barrier_arrive(); /* release: this block's partial is visible to the cluster */
    __cluster_barrier_wait();   /* acquire: so are the others' */
    const int r0 = (int)(slice * BM / slices), r1 = (int)((slice + 1) * BM / slices);
    for (int u = (int)threadIdx.x; u < (r1 - r0) * PER_ROW; u += THREADS) {
        const int r = r0 + u / PER_ROW, col = u % PER_ROW * V;
        if ((size_t)r >= m_left || (size_t)col >= n_left) continue;
        const T *const mine = part + r * BN + col;
        /* 16-byte loads from each block's shared memory (a memcpy straight from there
         * compiles to 16 one-byte loads, each a round trip) */
        const uint4 w0 = *static_cast<const uint4 *>(__cluster_map_shared_rank((void *)mine, 0));
        T sum[V], p[V];
        memcpy(sum, &w0, sizeof sum);
        for (unsigned q = 1; q < slices; q++) {
            const uint4 w = *static_cast<const uint4 *>(__cluster_map_shared_rank((void *)mine, q));
            memcpy(p, &w, sizeof p);
#pragma unroll
            for (int v = 0; v < V; v++) sum[v] += p[v];
        }
        gp__mm_store<V>(c_tile + r * ldc + col, sum, n_left - col, vec);
    }
    __cluster_barrier_arrive(); /* no block leaves while another may still read its partial */
    __cluster_barrier_wait();
#else
    (void)part, (void)c_tile, (void)ldc, (void)m_left, (void)n_left, (void)vec, (void)slice, (void)slices;
#endif
}

/* Both kernels' last step: store(dst, ld, rows_left, cols_left, vec) writes the thread's
 * values of the block's tile at dst (rows ld apart, rows_left x cols_left of it exist,
 * 16-byte stores where vec). Unsplit or through a workspace, straight to C or the slab;
 * over a cluster, to the partial tile in the shared memory the pipeline is done with (every
 * thread must be: a barrier first), then the cluster adds the slices. */
template <class T, int BM, int BN, int THREADS, int SPLIT, class Store>
static __device__ __forceinline__ void gp__mm_epilogue(Store store, T *smem, T *c_tile, size_t ldc, size_t m_left,
                                                       size_t n_left, bool vec_c)
{
    if constexpr (SPLIT == GP__MM_BY_CLUSTER) {
        __syncthreads();
        store(smem, (size_t)BN, (size_t)BM, (size_t)BN, true);
        gp__mm_sum_slices<T, BM, BN, THREADS>(smem, c_tile, ldc, m_left, n_left, vec_c, gp__mm_slice<SPLIT>(),
                                              gp__mm_slices<SPLIT>());
    } else {
        (void)smem;
        store(c_tile, ldc, m_left, n_left, vec_c);
    }
}

/* VEC_B: elements per copy of B's rows (16 bytes where the rows allow, else 1). SPLIT: the
 * instance by how k is split (GP__MM_UNSPLIT, _BY_CLUSTER, _BY_WORKSPACE: gp__mm_launch_grid). */
template <class C, int VEC_B, int SPLIT>
__global__ void __launch_bounds__(C::THREADS, GP__MIN_BLOCKS(C::THREADS, C::MIN_BLOCKS))
    gp__matmul_kernel(typename C::type *c, const typename C::type *a, const typename C::type *b, size_t m, size_t n,
                      size_t k, size_t tiles_m, size_t tiles_n, bool vec_c)
{
    typedef typename C::type T;
    enum { STAGE_BYTES = C::STAGE_ELEMS * (int)sizeof(T) };
    /* stage s: As ([BK][PITCH_A]) at s * STAGE_ELEMS, Bs ([BK][PITCH_B]) after it, so that
     * one offset per stage serves both */
    extern __shared__ __align__(16) unsigned char gp__mm_smem[];
    T *const As = reinterpret_cast<T *>(gp__mm_smem), *const Bs = As + C::STAGE_A;

    /* the block's tile, and its slice of the k tiles (all of them unless k is split) */
    size_t bm, bn, kt0, kt1;
    gp__matmul_tile_of(gp__mm_tile_index<SPLIT>(), tiles_m, tiles_n, C::GROUP_M, &bm, &bn);
    gp__matmul_k_range(gp__ceil_div(k, C::BK), gp__mm_slice<SPLIT>(), gp__mm_slices<SPLIT>(), &kt0, &kt1);
    const size_t row0 = bm * C::BM, col0 = bn * C::BN;
    const size_t m_left = m - row0, n_left = n - col0;

    /* this lane's place: warp (wr, wc) of the block, lane (lm, ln) of the warp */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wr = warp / C::WARPS_N, wc = warp % C::WARPS_N;
    const int lm = lane / C::LANES_N, ln = lane % C::LANES_N;
    const int a_off = wr * C::WM + lm * 4, b_off = wc * C::WN + ln * 4;

    T acc[C::TM][C::TN];
#pragma unroll
    for (int i = 0; i < C::TM; i++)
#pragma unroll
        for (int j = 0; j < C::TN; j++) acc[i][j] = T(0);

    /* this thread's copies of A's tile (transposed) and B's: the shared address of its first
     * piece in stage 0, and a running pointer to its first element of the next tile to copy
     * (one add per tile); a warp copies all BK / 8 patches of its rows of A */
    const gp__tile_async<T, C::BM, C::BK, C::THREADS, 1, true, C::BK / 8> a_copy;
    const gp__tile_async<T, C::BK, C::BN, C::THREADS, VEC_B, false,
                         gp__mm_pieces_per_row(C::BN / VEC_B, C::BK * C::BN / VEC_B / C::THREADS, VEC_B * sizeof(T))>
        b_copy;
    const unsigned a_dst = gp__smem_u32(As + a_copy.s_offset(C::PITCH_A));
    const unsigned b_dst = gp__smem_u32(Bs + b_copy.s_offset(C::PITCH_B));
    const T *a_src = a + (row0 + a_copy.r0) * k + kt0 * C::BK + a_copy.c0,
            *b_src = b + (kt0 * C::BK + b_copy.r0) * n + col0 + b_copy.c0;
    /* tiles 0 .. full-1 lie wholly inside the matrices: no bounds checks */
    const size_t full = m_left >= (size_t)C::BM && n_left >= (size_t)C::BN ? k / C::BK : 0;
    const T *const a_frag = As + a_off, *const b_frag = Bs + b_off;
    gp__mm_pipeline<C::STAGES>(
        kt1 - kt0,
        [&](size_t kt, int stage) {
            const unsigned sa = a_dst + stage * STAGE_BYTES, sb = b_dst + stage * STAGE_BYTES;
            const size_t k0 = (kt0 + kt) * C::BK;
            if (kt0 + kt < full) {
                a_copy.template copy<false>(sa, C::PITCH_A, a_src, k, a, 0, 0);
                b_copy.template copy<false>(sb, C::PITCH_B, b_src, n, b, 0, 0);
            } else {
                a_copy.template copy<true>(sa, C::PITCH_A, a_src, k, a, m_left, k - k0);
                b_copy.template copy<true>(sb, C::PITCH_B, b_src, n, b, k - k0, n_left);
            }
            a_src += C::BK;
            b_src += C::BK * n;
        },
        [&](int stage) {
            gp__mm_compute<C>(acc, a_frag + stage * C::STAGE_ELEMS, b_frag + stage * C::STAGE_ELEMS);
        });

    /* store: 4 consecutive values per row of a sub-tile */
    auto store = [&](T *dst, size_t ld, size_t rows_left, size_t cols_left, bool vec) {
#pragma unroll
        for (int i = 0; i < C::TM; i++) {
            const size_t row = (size_t)(a_off + (i / 4) * C::SUB_M + i % 4);
            if (row >= rows_left) continue;
#pragma unroll
            for (int j4 = 0; j4 < C::TN / 4; j4++) {
                const size_t col = (size_t)(b_off + j4 * C::SUB_N);
                if (col < cols_left) gp__mm_store<4>(dst + row * ld + col, &acc[i][4 * j4], cols_left - col, vec);
            }
        }
    };
    gp__mm_epilogue<T, C::BM, C::BN, C::THREADS, SPLIT>(store, As, gp__mm_output<SPLIT>(c, m, n) + row0 * n + col0, n,
                                                  m_left, n_left, vec_c);
}

/* ---- FP64 on the tensor cores ------------------------------------------------------------ */

/* d += a.b for a 16 x 8 x 4 piece in FP64 on the tensor cores (sm_80 and later). Fragments,
 * with g = lane / 4 and t = lane % 4: a[0] = A[g][t], a[1] = A[g + 8][t]; b = B[t][g];
 * d[0], d[1] = D[g][2t], D[g][2t + 1]; d[2], d[3] = the same of row g + 8. That is two
 * m8n8k4 (rows 0-7 and 8-15) with the same fragments; sm_90 also has it as one instruction,
 * m16n8k4, used when M16 is set. */
template <bool M16>
static __device__ __forceinline__ void gp__dmma_16x8x4(double (&d)[4], const double (&a)[2], double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (M16)
        asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a[0]), "d"(a[1]), "d"(b));
    else
#endif
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
        for (int h = 0; h < 2; h++)
            asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                : "d"(a[h]), "d"(b));
#else
        (void)d, (void)a, (void)b;
#endif
    }
}

/* A tensor-core config: the spec's BM, BN, BK, WM, WN, STAGES, GROUP_M, MIN_BLOCKS, and M16
 * (1: the one-instruction 16 x 8 x 4 where built for sm_90). Row padding: a fragment load
 * is two 16-lane halves of 8-byte loads, lanes (g, t) at g * pitch + t (A) or t * pitch + g
 * (B), g, t < 4 in a half: distinct banks when pitch % 8 == 4 (in doubles). */
template <class S>
struct gp__mm_tc_cfg : S {
    typedef typename S::type T;
    enum {
        WARPS_N = S::BN / S::WN, WARPS = (S::BM / S::WM) * WARPS_N, THREADS = WARPS * 32,
        MI = S::WM / 16, NI = S::WN / 8, /* a warp's fragments of C, as MI x NI pieces of 16 x 8 */
        PITCH_A = S::BK + 4, PITCH_B = S::BN + 4,
        STAGE_A = S::BM * PITCH_A, STAGE_B = S::BK * PITCH_B,
        SMEM_BYTES = S::STAGES * (STAGE_A + STAGE_B) * (int)sizeof(T),
        SPLIT_SMEM = gp__mm_split_smem(SMEM_BYTES, S::BM * S::BN * (int)sizeof(T)),
    };
    static_assert(sizeof(T) == 8 && S::TC, "the tensor-core kernel multiplies doubles");
    static_assert(S::BM % S::WM == 0 && S::BN % S::WN == 0 && S::WM % 16 == 0 && S::WN % 8 == 0 && S::BK % 4 == 0,
                  "tile shapes");
    static_assert(PITCH_A % 8 == 4 && PITCH_B % 8 == 4, "conflict-free fragment loads");
};

/* VEC_A, VEC_B: doubles per copy of A's and B's rows (2: 16-byte copies, where the rows
 * allow; 1: 8-byte). Built for targets before sm_80 the body is empty: gp__mm_tc_launch
 * never launches it there. */
template <class C, int VEC_A, int VEC_B, int SPLIT>
__global__ void __launch_bounds__(C::THREADS, GP__MIN_BLOCKS(C::THREADS, C::MIN_BLOCKS))
    gp__matmul_tc_kernel(double *c, const double *a, const double *b, size_t m, size_t n, size_t k, size_t tiles_m,
                         size_t tiles_n, bool vec_c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char gp__mm_smem[];
    double *const As = reinterpret_cast<double *>(gp__mm_smem); /* [STAGES][BM][PITCH_A] */
    double *const Bs = As + C::STAGES * C::STAGE_A;              /* [STAGES][BK][PITCH_B] */

    size_t bm, bn, kt0, kt1; /* the tile, and the slice of the k tiles, as above */
    gp__matmul_tile_of(gp__mm_tile_index<SPLIT>(), tiles_m, tiles_n, C::GROUP_M, &bm, &bn);
    gp__matmul_k_range(gp__ceil_div(k, C::BK), gp__mm_slice<SPLIT>(), gp__mm_slices<SPLIT>(), &kt0, &kt1);
    const size_t row0 = bm * C::BM, col0 = bn * C::BN;
    const double *const a_blk = a + row0 * k, *const b_blk = b + col0;
    const size_t m_left = m - row0, n_left = n - col0;

    /* this lane's place: the warp's piece of C at (wm, wn), the lane (g, t) in a fragment */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int wm = warp / C::WARPS_N * C::WM, wn = warp % C::WARPS_N * C::WN;

    double acc[C::MI][C::NI][4];
#pragma unroll
    for (int i = 0; i < C::MI; i++)
#pragma unroll
        for (int j = 0; j < C::NI; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0;

    const gp__tile_async<double, C::BM, C::BK, C::THREADS, VEC_A, false> a_copy;
    const gp__tile_async<double, C::BK, C::BN, C::THREADS, VEC_B, false> b_copy;
    const bool interior = m_left >= (size_t)C::BM && n_left >= (size_t)C::BN;
    gp__mm_pipeline<C::STAGES>(
        kt1 - kt0,
        [&](size_t kt, int stage) {
            gp__mm_load_tile<C::BK>(a_copy, As + stage * C::STAGE_A, C::PITCH_A, b_copy, Bs + stage * C::STAGE_B,
                                    C::PITCH_B, a_blk, b_blk, (kt0 + kt) * C::BK, k, n, m_left, n_left, interior);
        },
        [&](int stage) {
            const double *const as = As + stage * C::STAGE_A + (wm + g) * C::PITCH_A + t;
            const double *const bs = Bs + stage * C::STAGE_B + t * C::PITCH_B + wn + g;
#pragma unroll
            for (int kk = 0; kk < C::BK; kk += 4) {
                double af[C::MI][2], bf[C::NI];
#pragma unroll
                for (int i = 0; i < C::MI; i++) {
                    af[i][0] = as[(i * 16) * C::PITCH_A + kk];
                    af[i][1] = as[(i * 16 + 8) * C::PITCH_A + kk];
                }
#pragma unroll
                for (int j = 0; j < C::NI; j++) bf[j] = bs[kk * C::PITCH_B + j * 8];
#pragma unroll
                for (int i = 0; i < C::MI; i++)
#pragma unroll
                    for (int j = 0; j < C::NI; j++) gp__dmma_16x8x4<C::M16 != 0>(acc[i][j], af[i], bf[j]);
            }
        });

    /* store: each fragment row holds 2 consecutive values of a row of C */
    auto store = [&](double *dst, size_t ld, size_t rows_left, size_t cols_left, bool vec) {
#pragma unroll
        for (int i = 0; i < C::MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const size_t row = (size_t)(wm + i * 16 + h * 8 + g);
                if (row >= rows_left) continue;
#pragma unroll
                for (int j = 0; j < C::NI; j++) {
                    const size_t col = (size_t)(wn + j * 8 + 2 * t);
                    if (col < cols_left) gp__mm_store<2>(dst + row * ld + col, &acc[i][j][2 * h], cols_left - col, vec);
                }
            }
    };
    gp__mm_epilogue<double, C::BM, C::BN, C::THREADS, SPLIT>(store, As, gp__mm_output<SPLIT>(c, m, n) + row0 * n + col0,
                                                              n, m_left, n_left, vec_c);
#else
    (void)c, (void)a, (void)b, (void)m, (void)n, (void)k, (void)tiles_m, (void)tiles_n, (void)vec_c;
#endif
}

/* Never launched: its attributes say which of the code built into this translation unit
 * the current device runs. */
template <int>
__global__ void gp__mm_probe_kernel(void) {}

/* A split through a workspace, its second kernel: C (mn elements) = the slices' partial
 * products (slabs of `slab` elements at ws), added in slice order; 16 bytes a thread where
 * C starts on 16 bytes (vec). Chained behind the product: it waits for it first. */
template <class T>
__global__ void __launch_bounds__(GP__MM_SUM_THREADS)
    gp__mm_sum_slabs_kernel(T *c, const T *ws, size_t mn, size_t slab, unsigned slices, bool vec)
{
    enum { V = 16 / (int)sizeof(T) };
    gp__chain_wait();
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    const size_t units = vec ? mn / V : 0; /* whole 16-byte pieces; the rest element by element */
    for (size_t u = first; u < units; u += step) {
        T sum[V], p[V];
        const uint4 w0 = reinterpret_cast<const uint4 *>(ws + u * V)[0];
        memcpy(sum, &w0, sizeof sum);
        for (unsigned q = 1; q < slices; q++) {
            const uint4 w = reinterpret_cast<const uint4 *>(ws + q * slab + u * V)[0];
            memcpy(p, &w, sizeof p);
#pragma unroll
            for (int v = 0; v < V; v++) sum[v] += p[v];
        }
        uint4 out;
        memcpy(&out, sum, sizeof out);
        reinterpret_cast<uint4 *>(c + u * V)[0] = out;
    }
    for (size_t i = units * V + first; i < mn; i += step) {
        T sum = ws[i];
        for (unsigned q = 1; q < slices; q++) sum += ws[q * slab + i];
        c[i] = sum;
    }
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_MATMUL_KERNELS_CUH */
