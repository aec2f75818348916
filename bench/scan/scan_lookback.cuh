/* bench/scan/scan_lookback.cuh -- the previous device scan's GRID mode, kept as the first
 * row of the bench's redesign ladder: one tile per 128-thread block (2048 floats), tiles
 * numbered by an atomic counter, and a deterministic two-level look-back (tile totals in
 * windows of 32, window totals in super-windows of 32, one checkpoint chain hop per 1024
 * tiles). bench/scan/scan.cu includes it inside a namespace; only gp__lb_scan is used. */
#ifndef GPUPRIMS_BENCH_SCAN_LOOKBACK_CUH
#define GPUPRIMS_BENCH_SCAN_LOOKBACK_CUH

#include <stdint.h>
#include "../../detail/device/scan.cuh" /* the plan struct, register tiles, cluster prefix, status accesses */

/* Tuning (overridable for experiments; the defaults are what bench/results measured). */
#ifndef GP__LB_BLOCK
#define GP__LB_BLOCK 128          /* GRID mode: threads per block (many small tiles) */
#endif
#ifndef GP__LB_BLOCK_BIG
#define GP__LB_BLOCK_BIG 1024     /* ONE_BLOCK and CLUSTER modes: threads per block */
#endif
#ifndef GP__LB_BACKOFF_NS
#define GP__LB_BACKOFF_NS 0       /* look-back: sleep between polling rounds (100 ns: no change) */
#endif
#define GP__LB_LEVEL 32           /* look-back: tiles per window, windows per super-window */
#define GP__LB_CLUSTER_MAX 8      /* portable cluster size */
#define GP__LB_ALIGN 256

namespace gp_lookback {
enum { GP__LB_ONE_BLOCK = 0, GP__LB_CLUSTER = 1, GP__LB_GRID = 2 };

/* How a scan of n elements of `elem` bytes from address `in` to address `out` is tiled
 * (see the top of this file). cluster_ok: clusters can be launched and the kernel was
 * built for them. */
static inline __host__ __device__ gp__scan_plan gp__scan_make_plan(uintptr_t in, uintptr_t out, size_t n, size_t elem,
                                                                   int cluster_ok)
{
    gp__scan_plan p;
    const size_t mis = in % 16;
    p.n = n;
    /* Vectors need in and out equally placed against 16-byte boundaries, and a type
     * whose size divides 16 sitting on its own size (a 16-byte struct at a 4-byte
     * boundary never reaches one). Otherwise every element moves on its own. */
    p.vec_ok = gp__scan_vec(elem) * elem == 16 && out % 16 == mis && mis % elem == 0;
    p.in_vec = p.vec_ok; /* the library's plan struct; this design moves both sides alike */
    p.pad = p.vec_ok ? mis / elem : 0;
    const size_t big = (size_t)GP__LB_BLOCK_BIG * gp__scan_items(elem);
    const size_t big_tiles = gp__ceil_div(n + p.pad, big);
    if (big_tiles <= 1 || (cluster_ok && big_tiles <= GP__LB_CLUSTER_MAX)) {
        p.mode = big_tiles <= 1 ? GP__LB_ONE_BLOCK : GP__LB_CLUSTER;
        p.block = GP__LB_BLOCK_BIG;
    } else {
        p.mode = GP__LB_GRID;
        p.block = GP__LB_BLOCK;
    }
    p.tile = (size_t)p.block * gp__scan_items(elem);
    p.tiles = gp__ceil_div(n + p.pad, p.tile);
    return p;
}

/* GRID-mode scratch: a 64-bit tile counter, then the status words of the tiles, of the
 * windows and of the super-windows (see the top of this file); `zeroed` bytes from the
 * start are cleared before the launch. The split layout (types over 4 bytes) keeps the
 * values after the flags; they are written before they are read. */
typedef struct gp__scan_layout {
    size_t words[3]; /* tile, window, super-window status: packed words or flags */
    size_t vals[3];  /* their values, split layout only */
    size_t zeroed, bytes;
} gp__scan_layout;

static inline __host__ __device__ size_t gp__scan_align(size_t x) { return gp__ceil_div(x, GP__LB_ALIGN) * GP__LB_ALIGN; }

static inline __host__ __device__ gp__scan_layout gp__scan_make_layout(size_t tiles, size_t elem)
{
    gp__scan_layout L;
    const size_t count[3] = {tiles, tiles / GP__LB_LEVEL + 1, tiles / (GP__LB_LEVEL * GP__LB_LEVEL) + 1};
    const size_t word = elem <= 4 ? 8 : 4;
    size_t off = GP__LB_ALIGN; /* after the counter */
    for (int i = 0; i < 3; i++) {
        L.words[i] = off;
        off += count[i] * word;
    }
    L.zeroed = off;
    for (int i = 0; i < 3; i++) {
        L.vals[i] = elem <= 4 ? 0 : gp__scan_align(off);
        if (elem > 4) off = L.vals[i] + count[i] * elem;
    }
    L.bytes = off;
    return L;
}

#ifdef __CUDACC__

/* ---- tile status (GRID mode; the release store is the library's, agent/single_pass.cuh) --- */

static __device__ __forceinline__ unsigned gp__ld_relaxed_u32(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void gp__fence_acquire(void)
{
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

/* Publishes value v as status i of the array at byte offset `words` (values at `vals`,
 * split layout). The flag is 1: the memset left 0 = "not yet". */
template <class T>
static __device__ __forceinline__ void gp__scan_publish(char *scratch, size_t words, size_t vals, size_t i, T v)
{
    if constexpr (sizeof(T) <= 4) {
        uint32_t bits = 0;
        memcpy(&bits, &v, sizeof(T));
        gp__st_relaxed_u64(reinterpret_cast<uint64_t *>(scratch + words) + i, (1ull << 32) | bits);
    } else {
        reinterpret_cast<T *>(scratch + vals)[i] = v;
        gp__st_release_u32(reinterpret_cast<unsigned *>(scratch + words) + i, 1u); /* after the value */
    }
}

/* Reads the K statuses (array words[q], values at vals[q], index idx[q]) whose bit q is
 * set in `pending`, all loads in flight at once (one L2 round trip, not one per status);
 * clears the bit of each one found published and stores its value in v[q]. Returns the
 * bits still pending. Packed words carry their value; in the split layout the flags are
 * read relaxed, then one acquire fence orders the value loads after them. */
template <class T, int K>
static __device__ __forceinline__ unsigned gp__scan_poll(const char *scratch, const size_t *words, const size_t *vals,
                                                        const size_t *idx, unsigned pending, T *v)
{
    if constexpr (sizeof(T) <= 4) {
        uint64_t w[K];
#pragma unroll
        for (int q = 0; q < K; q++)
            if (pending >> q & 1) w[q] = gp__ld_relaxed_u64(reinterpret_cast<const uint64_t *>(scratch + words[q]) + idx[q]);
#pragma unroll
        for (int q = 0; q < K; q++)
            if ((pending >> q & 1) && (w[q] >> 32) != 0) {
                const uint32_t bits = (uint32_t)w[q];
                memcpy(&v[q], &bits, sizeof(T));
                pending &= ~(1u << q);
            }
    } else {
        unsigned f[K], ready = 0;
#pragma unroll
        for (int q = 0; q < K; q++)
            if (pending >> q & 1) f[q] = gp__ld_relaxed_u32(reinterpret_cast<const unsigned *>(scratch + words[q]) + idx[q]);
#pragma unroll
        for (int q = 0; q < K; q++)
            if ((pending >> q & 1) && f[q] != 0) ready |= 1u << q;
        if (ready) {
            gp__fence_acquire();
#pragma unroll
            for (int q = 0; q < K; q++)
                if (ready >> q & 1) v[q] = gp__load_cg(reinterpret_cast<const T *>(scratch + vals[q]) + idx[q]);
        }
        pending &= ~ready;
    }
    return pending;
}

/* The exclusive prefix of `tile`, by one warp (all 32 lanes call; all get the result),
 * given the tile's total `agg`. See "Deterministic look-back" at the top of this file. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_lookback(char *scratch, const gp__scan_layout &L,
                                                                     size_t tile, size_t tiles, typename Op::type agg)
{
    typedef typename Op::type T;
    enum { W = GP__LB_LEVEL };
    const unsigned lane = gp__lane_id();
    if (lane == 0) gp__scan_publish<T>(scratch, L.words[0], L.vals[0], tile, agg);
    const size_t window = tile / W, super = tile / (W * W);
    const size_t a = window * W + lane, w = super * W + lane; /* this lane's tile and window */
    /* lane: its tile total and its window total (if before us); lane 0: the checkpoint.
     * All loads of a round in flight together; re-read only what was not yet there. */
    const size_t words[3] = {L.words[0], L.words[1], L.words[2]}, vals[3] = {L.vals[0], L.vals[1], L.vals[2]};
    const size_t idx[3] = {a, w, super > 0 ? super - 1 : 0};
    T v[3] = {Op::identity(), Op::identity(), Op::identity()};
    unsigned pending = (a < tile) | (w < window) << 1 | (lane == 0 && super > 0) << 2;
    /* The window's tile totals are published without waiting on anything, so once they
     * are all in, the last tile of a window publishes the window total at once, before
     * it waits on earlier windows or the checkpoint: window totals never chain. */
    bool have_tiles = false;
    T tiles_before = Op::identity(); /* A(32k) .. A(t-1), fixed tree */
    for (;;) {
        if (pending) pending = gp__scan_poll<T, 3>(scratch, words, vals, idx, pending, v);
        if (!have_tiles && __all_sync(GP__FULL_MASK, !(pending & 1u))) {
            __syncwarp(); /* converged shuffles (see the kernel) */
            have_tiles = true;
            tiles_before = gp__warp_reduce<Op>(v[0]);
            if (lane == 0 && tile % W == W - 1 && tile + 1 < tiles)
                gp__scan_publish<T>(scratch, L.words[1], L.vals[1], window, Op::apply(tiles_before, agg));
        }
        if (!__any_sync(GP__FULL_MASK, pending)) break;
#if GP__LB_BACKOFF_NS > 0
        __nanosleep(GP__LB_BACKOFF_NS);
#endif
    }
    __syncwarp();
    const T windows_before = gp__warp_reduce<Op>(v[1]); /* WT(32K) .. WT(k-1) */
    const T checkpoint = gp__shfl<GP__SHFL_IDX>(v[2], 0);
    const T prefix = Op::apply(Op::apply(checkpoint, windows_before), tiles_before);
    if (lane == 0 && tile + 1 < tiles && tile % (W * W) == W * W - 1) /* last of its super-window */
        gp__scan_publish<T>(scratch, L.words[2], L.vals[2], super, Op::apply(prefix, agg));
    return prefix;
}

/* ---- the kernel -------------------------------------------------------------------------- */

/* Tiles move between registers and memory, and are scanned there, with the library's
 * register tiles (gp__scan_block_tile, gp__scan_finish, gp__scan_store:
 * detail/device/scan_kernels.cuh), 64 bytes a thread as there; CLUSTER mode's prefix is the
 * library's (gp__scan_cluster_prefix). Only the GRID mode's look-back is this design's own. */

/* One tile per block of BLOCK threads (p.block). Warp w owns the 32 * ITEMS contiguous
 * elements from virtual index tile * TILE + w * 32 * ITEMS (virtual = real + pad), as
 * ROWS rows of 32 vectors; lane l holds vector l of each row. */
template <class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    gp__scan_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p, gp__scan_layout L,
                    char *scratch, int inclusive)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS };
    const size_t TILE = (size_t)BLOCK * ITEMS;
    __shared__ size_t s_tile;
    __shared__ T s_prefix;
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    size_t tile = blockIdx.x;
    if (p.mode == GP__LB_GRID) { /* tiles in the order blocks start */
        if (threadIdx.x == 0) s_tile = atomicAdd(reinterpret_cast<unsigned long long *>(scratch), 1ull);
        __syncthreads();
        tile = s_tile;
    }
    const size_t v0 = tile * TILE + (size_t)warp * 32 * ITEMS + (size_t)lane * VEC;
    const bool whole = p.vec_ok && tile * TILE >= p.pad && (tile + 1) * TILE - p.pad <= p.n;
    T x[ITEMS], lane_prefix[ROWS], agg;
    T base = gp__scan_block_tile<Op, ROWS, VEC>(x, lane_prefix, &agg, in, v0, p, whole);

    /* the tile's exclusive prefix */
    if (p.mode == GP__LB_GRID) {
        if (tile > 0) {
            if (warp == 0) {
                const T pre = gp__scan_lookback<Op>(scratch, L, tile, p.tiles, agg);
                if (lane == 0) s_prefix = pre;
            }
            __syncthreads();
            base = Op::apply(s_prefix, base);
        } else if (threadIdx.x == 0) {
            gp__scan_publish<T>(scratch, L.words[0], L.vals[0], 0, agg);
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ T s_agg;
    if (p.mode == GP__LB_CLUSTER) base = gp__scan_cluster_prefix<Op>(&s_agg, &s_prefix, agg, base, warp, lane);
#endif
    gp__scan_finish<Op, ROWS, VEC>(x, lane_prefix, base, inclusive);
    gp__scan_store<Op, ROWS, VEC>(out, x, v0, p, whole);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (p.mode == GP__LB_CLUSTER) gp__scan_cluster_done(); /* others may still read s_agg */
#endif
}

/* The host side of every gp_{exclusive,inclusive}_scan_<name>. */
template <class Op>
static cudaError_t gp__lb_scan(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s,
                            int inclusive)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || n > SIZE_MAX / 2 / sizeof(T)) return cudaErrorInvalidValue;
    /* in place, or apart: a partial overlap would let one tile overwrite another's input */
    const uintptr_t a = (uintptr_t)d_in, b = (uintptr_t)d_out, bytes = n * sizeof(T);
    if (a != b && gp__ranges_overlap(d_in, bytes, d_out, bytes)) return cudaErrorInvalidValue;
    int dev, cluster_ok;
    GP__TRY(cudaGetDevice(&dev));
    GP__TRY(cudaDeviceGetAttribute(&cluster_ok, cudaDevAttrClusterLaunch, dev));
    const gp__scan_plan p = gp__scan_make_plan(a, b, n, sizeof(T), cluster_ok && ::gp__built_for_clusters());
    if (p.tiles > 0x7fffffffu) return cudaErrorInvalidValue;
    const gp__scan_layout L = gp__scan_make_layout(p.tiles, sizeof(T));

    if (p.mode != GP__LB_GRID) {
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)p.tiles; /* 1 for ONE_BLOCK */
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)p.tiles);
        cfg.blockDim = dim3(GP__LB_BLOCK_BIG);
        cfg.stream = s;
        cfg.attrs = &attr;
        cfg.numAttrs = p.mode == GP__LB_CLUSTER;
        return cudaLaunchKernelEx(&cfg, gp__scan_kernel<Op, GP__LB_BLOCK_BIG>, d_out, d_in, p, L, (char *)NULL,
                                  inclusive);
    }
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, L.bytes, dev, s));
    cudaError_t err = cudaMemsetAsync(scratch, 0, L.zeroed, s);
    if (err == cudaSuccess) {
        gp__scan_kernel<Op, GP__LB_BLOCK><<<(unsigned)p.tiles, GP__LB_BLOCK, 0, s>>>(d_out, d_in, p, L,
                                                                                       (char *)scratch, inclusive);
        err = cudaGetLastError();
    }
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}


#endif /* __CUDACC__ */
} /* namespace gp_lookback */
#endif /* GPUPRIMS_BENCH_SCAN_LOOKBACK_CUH */
