/* detail/scan.cuh -- device-wide exclusive and inclusive scan: one pass over the data
 * (n elements read, n written), one kernel launch, in index order, deterministic, in place
 * allowed, no static device state. Level 3: needs block_scan.cuh, warp.cuh, scratch.cuh,
 * and reduce.cuh's small helpers (gp__ceil_div, gp__load_cg). The plan and scratch
 * arithmetic are plain host/device code, tested on the host.
 *
 * How it works. The array is cut into tiles of GP__SCAN_BLOCK threads x 64 bytes each
 * (8192 4-byte elements). Tiles are aligned to 16-byte boundaries of the input (the first
 * tile starts `pad` elements before d_in and masks them), so whole tiles move as 16-byte
 * vectors. Within a tile, warp w owns a contiguous run; its lanes load it warp-striped
 * (row j, lane l: vector j*32+l: every load instruction is one contiguous 512 bytes); each
 * lane folds its vector, each row is a warp scan, rows chain by their totals, warps chain
 * through shared memory (block_scan.cuh). The tile's exclusive prefix then comes from:
 *   - ONE_BLOCK: one tile: nothing to wait for.
 *   - CLUSTER (sm_90+, up to 8 tiles): the blocks of one cluster swap tile totals through
 *     distributed shared memory. One launch, no scratch, no memset.
 *   - GRID: look-back over tile status words in stream-ordered scratch, zeroed by one
 *     cudaMemsetAsync. Tiles are numbered in the order blocks start (an atomic counter),
 *     so every tile a block waits on belongs to a block already running: no deadlock.
 *
 * Deterministic look-back. Classic decoupled look-back combines whatever predecessors
 * happen to be done (an inclusive prefix k tiles back plus k-1 tile totals, k varying
 * from run to run): for floats that changes the rounding run to run. Here the association
 * is fixed by the tile index alone. Tiles form windows of W = GP__SCAN_WINDOW tiles; the
 * last tile of window k publishes the checkpoint C(k) = inclusive prefix through it. Tile t
 * in window k computes
 *     exclusive(t) = C(k-1) OP R(kW .. t-1),
 * where R is the reduction of those tile totals by one warp in a fixed tree (lane l folds
 * its 8 in order, then a butterfly). Each tile publishes its total as soon as it has it;
 * only the checkpoints form a chain, one hop per W = 256 tiles, so the chain's latency
 * (about 1 us a hop) is far below the time the GPU takes to stream 256 tiles.
 * Status words: for types of at most 4 bytes, flag and value share one 64-bit word
 * (written and read with relaxed gpu-scope 64-bit accesses: no fence); larger types use a
 * flag word with release/acquire and the value beside it (written once, never changed). */
#ifndef GPUPRIMS_DETAIL_SCAN_CUH
#define GPUPRIMS_DETAIL_SCAN_CUH

#include <stdint.h>

/* Tuning (overridable for experiments; the defaults are what bench/results measured). */
#ifndef GP__SCAN_BLOCK
#define GP__SCAN_BLOCK 512          /* threads per block (a multiple of 32, at most 1024) */
#endif
#ifndef GP__SCAN_THREAD_BYTES
#define GP__SCAN_THREAD_BYTES 64    /* bytes each thread holds in registers: 4 x 16-byte vectors */
#endif
#ifndef GP__SCAN_WINDOW_PER_LANE
#define GP__SCAN_WINDOW_PER_LANE 8  /* look-back window: 32 lanes x 8 tile totals */
#endif
#define GP__SCAN_WINDOW (32 * GP__SCAN_WINDOW_PER_LANE)
#define GP__SCAN_CLUSTER_MAX 8      /* portable cluster size */
#define GP__SCAN_ALIGN 256

enum { GP__SCAN_ONE_BLOCK = 0, GP__SCAN_CLUSTER = 1, GP__SCAN_GRID = 2 };

/* Elements per 16-byte vector (1 for types that do not divide 16), vectors per thread,
 * elements per thread and per tile, for an element of `elem` bytes. */
static constexpr __host__ __device__ unsigned gp__scan_vec(size_t elem)
{
    return elem <= 16 && 16 % elem == 0 ? (unsigned)(16 / elem) : 1u;
}
static constexpr __host__ __device__ unsigned gp__scan_rows(size_t elem)
{
    return GP__SCAN_THREAD_BYTES / (gp__scan_vec(elem) * elem) > 0
               ? (unsigned)(GP__SCAN_THREAD_BYTES / (gp__scan_vec(elem) * elem)) : 1u;
}
static constexpr __host__ __device__ size_t gp__scan_tile(size_t elem)
{
    return (size_t)GP__SCAN_BLOCK * gp__scan_vec(elem) * gp__scan_rows(elem);
}

typedef struct gp__scan_plan {
    size_t n;      /* elements */
    size_t pad;    /* masked elements before d_in in tile 0 (to a 16-byte boundary) */
    size_t tiles;  /* tiles = blocks */
    int vec_ok;    /* whole tiles may move as 16-byte vectors (in and out alike) */
    int mode;      /* GP__SCAN_ONE_BLOCK, _CLUSTER or _GRID */
} gp__scan_plan;

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
    p.pad = p.vec_ok ? mis / elem : 0;
    p.tiles = gp__ceil_div(n + p.pad, gp__scan_tile(elem));
    p.mode = p.tiles <= 1 ? GP__SCAN_ONE_BLOCK
             : cluster_ok && p.tiles <= GP__SCAN_CLUSTER_MAX ? GP__SCAN_CLUSTER : GP__SCAN_GRID;
    return p;
}

/* GRID-mode scratch: a 64-bit tile counter, then the status of every tile and of every
 * window's checkpoint. `zeroed` bytes from the start are cleared before the launch; the
 * values of the split layout (types over 4 bytes) are written before they are read. */
typedef struct gp__scan_layout {
    size_t agg, ckpt;         /* packed words (<= 4 bytes) or flags (larger types) */
    size_t agg_val, ckpt_val; /* values, split layout only */
    size_t zeroed, bytes;
} gp__scan_layout;

static inline __host__ __device__ size_t gp__scan_align(size_t x) { return gp__ceil_div(x, GP__SCAN_ALIGN) * GP__SCAN_ALIGN; }

static inline __host__ __device__ gp__scan_layout gp__scan_make_layout(size_t tiles, size_t elem)
{
    gp__scan_layout L;
    const size_t checkpoints = tiles / GP__SCAN_WINDOW + 1;
    const size_t word = elem <= 4 ? 8 : 4;
    L.agg = GP__SCAN_ALIGN; /* after the counter */
    L.ckpt = L.agg + tiles * word;
    L.zeroed = L.ckpt + checkpoints * word;
    L.agg_val = L.ckpt_val = 0;
    L.bytes = L.zeroed;
    if (elem > 4) {
        L.agg_val = gp__scan_align(L.zeroed);
        L.ckpt_val = gp__scan_align(L.agg_val + tiles * elem);
        L.bytes = L.ckpt_val + checkpoints * elem;
    }
    return L;
}

#ifdef __CUDACC__

/* Which architectures this translation unit compiles device code for: clusters need
 * sm_90 code (nvcc defines __CUDA_ARCH_LIST__ in host and device passes alike). */
static inline int gp__scan_built_for_clusters(void)
{
#ifdef __CUDA_ARCH_LIST__
    const int archs[] = {__CUDA_ARCH_LIST__};
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++)
        if (archs[i] >= 900) return 1;
#endif
    return 0;
}

/* ---- tile status (GRID mode) ------------------------------------------------------------ */

static __device__ __forceinline__ void gp__st_relaxed_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ uint64_t gp__ld_relaxed_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void gp__st_release_u32(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
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

/* Reads the statuses first + q for the q set in `pending` (at most 32 of them), all loads
 * in flight at once (one L2 round trip, not one per status); clears the bit of each one
 * found published and stores its value in v[q]. Packed words carry their value; in the
 * split layout the flags are read relaxed, then one acquire fence orders the value loads
 * after them (the classic flag, fence, value pattern). */
template <class T, int K>
static __device__ __forceinline__ unsigned gp__scan_poll(const char *scratch, size_t words, size_t vals, size_t first,
                                                        unsigned pending, T *v)
{
    if constexpr (sizeof(T) <= 4) {
        uint64_t w[K];
#pragma unroll
        for (int q = 0; q < K; q++)
            if (pending >> q & 1) w[q] = gp__ld_relaxed_u64(reinterpret_cast<const uint64_t *>(scratch + words) + first + q);
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
            if (pending >> q & 1) f[q] = gp__ld_relaxed_u32(reinterpret_cast<const unsigned *>(scratch + words) + first + q);
#pragma unroll
        for (int q = 0; q < K; q++)
            if ((pending >> q & 1) && f[q] != 0) ready |= 1u << q;
        if (ready) {
            gp__fence_acquire();
#pragma unroll
            for (int q = 0; q < K; q++)
                if (ready >> q & 1) v[q] = gp__load_cg(reinterpret_cast<const T *>(scratch + vals) + first + q);
        }
        pending &= ~ready;
    }
    return pending;
}

/* The exclusive prefix of `tile`, by warp 0 (all 32 lanes call; all get the result),
 * given the tile's total `agg`. See "Deterministic look-back" at the top of this file. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__scan_lookback(char *scratch, const gp__scan_layout &L,
                                                                     size_t tile, size_t tiles, typename Op::type agg)
{
    typedef typename Op::type T;
    enum { PER = GP__SCAN_WINDOW_PER_LANE };
    const unsigned lane = gp__lane_id();
    if (lane == 0) gp__scan_publish<T>(scratch, L.agg, L.agg_val, tile, agg);
    const size_t first = tile - tile % GP__SCAN_WINDOW, mine = first + (size_t)lane * PER;
    /* this lane's (up to) PER tile totals and, in lane 0, the previous checkpoint: all
     * loads in flight together, re-reading only what was not yet published */
    const size_t k = tile / GP__SCAN_WINDOW;
    T vals[PER], c = Op::identity();
    unsigned pending = 0, ck_pending = lane == 0 && k > 0;
#pragma unroll
    for (int q = 0; q < PER; q++)
        if (mine + q < tile) pending |= 1u << q;
    while (pending | ck_pending) {
        pending = gp__scan_poll<T, PER>(scratch, L.agg, L.agg_val, mine, pending, vals);
        if (ck_pending) ck_pending = gp__scan_poll<T, 1>(scratch, L.ckpt, L.ckpt_val, k - 1, 1u, &c);
    }
    T part = Op::identity();
#pragma unroll
    for (int q = 0; q < PER; q++)
        if (mine + q < tile) part = q == 0 ? vals[0] : Op::apply(part, vals[q]);
    const T window = gp__warp_reduce<Op>(part); /* fixed tree: depends on tile % W only */
    T prefix = window;
    if (k > 0) {
        c = gp__shfl<GP__SHFL_IDX>(c, 0);
        prefix = tile == first ? c : Op::apply(c, window);
    }
    if (lane == 0 && tile % GP__SCAN_WINDOW == GP__SCAN_WINDOW - 1 && tile + 1 < tiles)
        gp__scan_publish<T>(scratch, L.ckpt, L.ckpt_val, k, Op::apply(prefix, agg));
    return prefix;
}

/* ---- the kernel -------------------------------------------------------------------------- */

/* One tile per block. Thread (warp w, lane l) holds ROWS vectors of VEC elements: row j is
 * the vector at virtual element tile*TILE + ((w*ROWS + j)*32 + l)*VEC, virtual = real + pad. */
template <class Op>
__global__ void __launch_bounds__(GP__SCAN_BLOCK)
    gp__scan_kernel(typename Op::type *out, const typename Op::type *in, gp__scan_plan p, gp__scan_layout L,
                    char *scratch, int inclusive)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)) };
    const size_t TILE = gp__scan_tile(sizeof(T));
    __shared__ size_t s_tile;
    __shared__ T s_prefix;
    const unsigned lane = gp__lane_id(), warp = threadIdx.x >> 5;

    size_t tile = blockIdx.x;
    if (p.mode == GP__SCAN_GRID) { /* tiles in the order blocks start */
        if (threadIdx.x == 0) s_tile = atomicAdd(reinterpret_cast<unsigned long long *>(scratch), 1ull);
        __syncthreads();
        tile = s_tile;
    }
    const size_t v0 = tile * TILE + ((size_t)warp * ROWS * 32 + lane) * VEC;
    const bool whole = p.vec_ok && tile * TILE >= p.pad && (tile + 1) * TILE - p.pad <= p.n;

    /* load */
    T x[ROWS][VEC];
    if constexpr (VEC * sizeof(T) == 16) {
        if (whole) {
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                const uint4 w = *reinterpret_cast<const uint4 *>(in + (v0 + (size_t)j * 32 * VEC - p.pad));
                memcpy(x[j], &w, 16);
            }
        }
    }
    if (!(VEC * sizeof(T) == 16 && whole)) {
#pragma unroll
        for (int j = 0; j < ROWS; j++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t v = v0 + (size_t)j * 32 * VEC + k;
                x[j][k] = v >= p.pad && v - p.pad < p.n ? in[v - p.pad] : Op::identity();
            }
    }

    /* lane, row and warp prefixes */
    T lane_prefix[ROWS], carry;
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T v = x[j][0];
#pragma unroll
        for (int k = 1; k < VEC; k++) v = Op::apply(v, x[j][k]);
        const T incl = gp__warp_inclusive_scan<Op>(v);
        const T row_total = gp__shfl<GP__SHFL_IDX>(incl, 31);
        const T left = gp__shfl<GP__SHFL_UP>(incl, 1);
        if (j == 0) {
            lane_prefix[0] = lane == 0 ? Op::identity() : left;
            carry = row_total;
        } else {
            lane_prefix[j] = lane == 0 ? carry : Op::apply(carry, left);
            carry = Op::apply(carry, row_total);
        }
    }
    T agg;
    T base = gp__block_scan_warp_totals<Op>(carry, &agg); /* warps before this one */

    /* the tile's exclusive prefix */
    bool has_prefix = false;
    if (p.mode == GP__SCAN_GRID && tile > 0) {
        if (warp == 0) {
            const T pre = gp__scan_lookback<Op>(scratch, L, tile, p.tiles, agg);
            if (lane == 0) s_prefix = pre;
        }
        __syncthreads();
        has_prefix = true;
    } else if (p.mode == GP__SCAN_GRID) {
        if (threadIdx.x == 0) gp__scan_publish<T>(scratch, L.agg, L.agg_val, 0, agg);
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (p.mode == GP__SCAN_CLUSTER) { /* the cluster is the whole grid: rank = blockIdx.x */
        __shared__ T s_agg;
        if (threadIdx.x == 0) s_agg = agg;
        __cluster_barrier_arrive(); /* release: s_agg is visible cluster-wide */
        __cluster_barrier_wait();
        if (warp == 0) {
            T v = Op::identity();
            if (lane < blockIdx.x) v = *static_cast<T *>(__cluster_map_shared_rank(&s_agg, lane));
            const T pre = gp__warp_reduce<Op>(v);
            if (lane == 0) s_prefix = pre;
        }
        __cluster_barrier_arrive(); /* s_prefix visible; no block exits while others read its s_agg */
        __cluster_barrier_wait();
        has_prefix = blockIdx.x > 0;
    }
#endif
    if (has_prefix) base = Op::apply(s_prefix, base);

    /* outputs, in place in x */
#pragma unroll
    for (int j = 0; j < ROWS; j++) {
        T run = Op::apply(base, lane_prefix[j]);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const T next = Op::apply(run, x[j][k]);
            x[j][k] = inclusive ? next : run;
            run = next;
        }
    }

    /* store */
    if constexpr (VEC * sizeof(T) == 16) {
        if (whole) {
#pragma unroll
            for (int j = 0; j < ROWS; j++) {
                uint4 w;
                memcpy(&w, x[j], 16);
                *reinterpret_cast<uint4 *>(out + (v0 + (size_t)j * 32 * VEC - p.pad)) = w;
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; j++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t v = v0 + (size_t)j * 32 * VEC + k;
            if (v >= p.pad && v - p.pad < p.n) out[v - p.pad] = x[j][k];
        }
}

/* The host side of every gp_{exclusive,inclusive}_scan_<name>. */
template <class Op>
static cudaError_t gp__scan(typename Op::type *d_out, const typename Op::type *d_in, size_t n, cudaStream_t s,
                            int inclusive)
{
    typedef typename Op::type T;
    if (n == 0) return cudaSuccess;
    if (d_out == NULL || d_in == NULL || n > SIZE_MAX / 2 / sizeof(T)) return cudaErrorInvalidValue;
    /* in place, or apart: a partial overlap would let one tile overwrite another's input */
    const uintptr_t a = (uintptr_t)d_in, b = (uintptr_t)d_out, bytes = n * sizeof(T);
    if (a != b && a < b + bytes && b < a + bytes) return cudaErrorInvalidValue;
    int dev, cluster_ok;
    GP__TRY(cudaGetDevice(&dev));
    GP__TRY(cudaDeviceGetAttribute(&cluster_ok, cudaDevAttrClusterLaunch, dev));
    const gp__scan_plan p = gp__scan_make_plan(a, b, n, sizeof(T), cluster_ok && gp__scan_built_for_clusters());
    if (p.tiles > 0x7fffffffu) return cudaErrorInvalidValue;
    const gp__scan_layout L = gp__scan_make_layout(p.tiles, sizeof(T));

    if (p.mode == GP__SCAN_ONE_BLOCK) {
        gp__scan_kernel<Op><<<1, GP__SCAN_BLOCK, 0, s>>>(d_out, d_in, p, L, (char *)NULL, inclusive);
        return cudaGetLastError();
    }
    if (p.mode == GP__SCAN_CLUSTER) {
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)p.tiles;
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)p.tiles);
        cfg.blockDim = dim3(GP__SCAN_BLOCK);
        cfg.stream = s;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        return cudaLaunchKernelEx(&cfg, gp__scan_kernel<Op>, d_out, d_in, p, L, (char *)NULL, inclusive);
    }
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, L.bytes, dev, s));
    cudaError_t err = cudaMemsetAsync(scratch, 0, L.zeroed, s);
    if (err == cudaSuccess) {
        gp__scan_kernel<Op><<<(unsigned)p.tiles, GP__SCAN_BLOCK, 0, s>>>(d_out, d_in, p, L, (char *)scratch, inclusive);
        err = cudaGetLastError();
    }
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

/* ---- instantiation --------------------------------------------------------------------
 * GP__DEFINE_SCAN_DEVICE: the warp- and block-level names of one instance, forwarding to
 * the templates on the Op struct OPS (GP__DEFINE_OP). GP__DEFINE_SCAN_HOST: the two host
 * launchers, with the linkage given by SCOPE. */
#define GP__DEFINE_SCAN_DEVICE(name, T, OPS)                                                   \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_inclusive_scan_##name(T v)     \
    {                                                                                         \
        return gp__warp_inclusive_scan<OPS>(v);                                               \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_exclusive_scan_##name(T v, T *total) \
    {                                                                                         \
        return gp__warp_exclusive_scan<OPS>(v, total);                                        \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_block_inclusive_scan_##name(T v, T *aggregate) \
    {                                                                                         \
        return gp__block_scan<OPS, true>(v, aggregate);                                       \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_block_exclusive_scan_##name(T v, T *aggregate) \
    {                                                                                         \
        return gp__block_scan<OPS, false>(v, aggregate);                                      \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_block_scan_blelloch_##name(T *s, unsigned n) \
    {                                                                                         \
        return gp__block_scan_blelloch<OPS, true>(s, n);                                      \
    }

#define GP__DEFINE_SCAN_HOST(SCOPE, name, T, OPS)                                              \
    SCOPE cudaError_t gp_exclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<OPS>(d_out, d_in, n, s, 0);                                           \
    }                                                                                         \
    SCOPE cudaError_t gp_inclusive_scan_##name(T *d_out, const T *d_in, size_t n, cudaStream_t s) \
    {                                                                                         \
        return gp__scan<OPS>(d_out, d_in, n, s, 1);                                           \
    }

/* GP_DEFINE_SCAN(name, T, OP, IDENTITY): the whole scan family for a user's type and
 * associative operator (need not be commutative), local to this translation unit:
 *   T gp_warp_inclusive_scan_<name>(T v)             lane l: v[0] OP ... OP v[l]
 *   T gp_warp_exclusive_scan_<name>(T v, T *total)   lane l: v[0] OP ... OP v[l-1]; lane 0:
 *                                                    IDENTITY; *total (if not NULL): all 32
 *   T gp_block_inclusive_scan_<name>(T v, T *agg)    by thread rank; *agg: the block total
 *   T gp_block_exclusive_scan_<name>(T v, T *agg)    (contracts: gp__block_scan)
 *   T gp_block_scan_blelloch_<name>(T *s, unsigned n) padded shared-memory scan, exclusive,
 *                                                    returns the total (gp__block_scan_blelloch)
 *   cudaError_t gp_exclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 *   cudaError_t gp_inclusive_scan_<name>(T *d_out, const T *d_in, size_t n, cudaStream_t s)
 * Use at file scope. May be used beside GP_DEFINE_REDUCE with the same name. */
#define GP_DEFINE_SCAN(name, T, OP, IDENTITY)                                                  \
    namespace {                                                                               \
    GP__DEFINE_OP(scan_##name, T, OP, IDENTITY)                                               \
    GP__DEFINE_SCAN_DEVICE(name, T, gp__op_scan_##name)                                       \
    }                                                                                         \
    GP__DEFINE_SCAN_HOST([[maybe_unused]] static, name, T, gp__op_scan_##name)

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SCAN_CUH */
