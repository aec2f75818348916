/* detail/warp/warp.cuh -- warp-level reductions and scans: register shuffles, and the classic
 * shared-memory "unrolled last warp" (Harris, "Optimizing Parallel Reduction in CUDA",
 * 2007) made correct under independent thread scheduling. Level 1: needs common.cuh, and
 * an Op struct from GP_DEFINE_OP (ops.cuh). Device code only.
 *
 * Every function here must be called by all 32 lanes of a warp (full mask), with no lane
 * exited: the shuffles and __syncwarp name all 32 lanes. Combining order is lane order,
 * so an associative, non-commutative operator gives the sequential answer. */
#ifndef GPUPRIMS_DETAIL_WARP_CUH
#define GPUPRIMS_DETAIL_WARP_CUH

#include <string.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"

#ifdef __CUDACC__

/* Shuffles of any trivially copyable T, one 32-bit word at a time (a struct of any size,
 * a double, a 1-byte integer): one code path for every type. */

enum { GP__SHFL_XOR, GP__SHFL_DOWN, GP__SHFL_UP, GP__SHFL_IDX };

template <int KIND, class T>
static __device__ __forceinline__ T gp__shfl(T v, int arg)
{
    int w[GP__WORDS(T)] = {}; /* a T of 1 or 2 bytes: the rest of its word set */
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)GP__WORDS(T); i++)
        w[i] = KIND == GP__SHFL_XOR    ? __shfl_xor_sync(GP__FULL_MASK, w[i], arg)
               : KIND == GP__SHFL_DOWN ? __shfl_down_sync(GP__FULL_MASK, w[i], (unsigned)arg)
               : KIND == GP__SHFL_UP   ? __shfl_up_sync(GP__FULL_MASK, w[i], (unsigned)arg)
                                       : __shfl_sync(GP__FULL_MASK, w[i], arg);
    memcpy(&v, w, sizeof(T));
    return v;
}

/* c ? a : b without a branch. nvcc otherwise may turn a select on the lane into a branch
 * that duplicates the shuffles around it on both sides: shuffles executed apart gave
 * wrong sums (4-byte integer sums in the scan's one-block kernel), and a slow path for
 * every shuffle (the scan's look-ahead at a quarter of the copy rate). */
template <class T>
static __device__ __forceinline__ T gp__select(bool c, T a, T b)
{
    uint32_t wa[GP__WORDS(T)] = {}, wb[GP__WORDS(T)] = {};
    memcpy(wa, &a, sizeof(T));
    memcpy(wb, &b, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)GP__WORDS(T); i++)
        asm("{ .reg .pred p; setp.ne.u32 p, %3, 0; selp.b32 %0, %1, %2, p; }"
            : "=r"(wa[i]) : "r"(wa[i]), "r"(wb[i]), "r"((unsigned)c));
    memcpy(&a, wa, sizeof(T));
    return a;
}

/* c, which the caller knows is the same in every lane, as a vote of the full warp (every
 * lane calls it). nvcc takes a vote's result as the same in every lane, but not a condition
 * on shuffled or loaded values: a loop or branch on one makes it compile each shuffle after
 * it for a possibly divergent warp (WARPSYNC.COLLECTIVE in the SASS: a check, and a
 * fallback that runs the shuffle group by group). The segmented walk's loops tested so:
 * 570 of those to 84 in its f32 kernel, and 2-3% faster at segments of 32 to 128 (H200). */
static __device__ __forceinline__ bool gp__warp_uniform(bool c)
{
    return __any_sync(GP__FULL_MASK, c);
}

/* This thread's warp in the block, shuffled from lane 0 so that nvcc takes it as the same
 * in every lane, which it does not for threadIdx.x >> 5: the shuffles inside a branch on
 * it (a ring kernel's roles) then leave the divergent-warp path. In the compaction's and
 * the segments' ring kernels (sm_90, f32 / i32) that took the collectives from 10-166 to
 * 0-54 a kernel and the instructions down 5-20%: on the H200 at 2^28, partition 5%,
 * run-length 1-8%, segmented reduce of lengths 1 to 8 4-6% faster. Where it was only
 * fewer instructions (the scan's ring kernel: collectives 224 to 4, instructions 3792 to
 * 2736), it measured 1% slower, and threadIdx.x >> 5 stayed (scan_kernels.cuh). */
static __device__ __forceinline__ unsigned gp__warp_id(void)
{
    return __shfl_sync(GP__FULL_MASK, threadIdx.x >> 5, 0);
}

/* The largest of v over the warp, in every lane: one redux.sync from sm_80 on (as the
 * compaction's count warps and scanning warps take the place of a tile's last head), a
 * butterfly of shuffles before. */
static __device__ __forceinline__ int gp__warp_max_i32(int v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(GP__FULL_MASK, v);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(GP__FULL_MASK, v, o));
    return v;
#endif
}

/* Warp reduce, butterfly, of each of v[0..NB-1]: every lane gets the total of the 32
 * lanes' v[b], in lane order. At step o each lane holds the total of its aligned group of
 * o lanes; the partner group is the neighbour, and the lower group goes on the left. Both
 * partners compute the same OP(lo, hi), so all lanes hold bitwise the same result. The NB
 * trees go level by level together, so their shuffles overlap (the scan's look-ahead
 * reduces up to 16 batches at once). */
template <class Op, int NB>
static __device__ __forceinline__ void gp__warp_reduce_each(typename Op::type (&v)[NB])
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const bool upper = (lane & o) != 0;
#pragma unroll
        for (int b = 0; b < NB; b++) {
            const T other = gp__shfl<GP__SHFL_XOR>(v[b], o);
            const T lo = gp__select<T>(upper, other, v[b]);
            const T hi = gp__select<T>(upper, v[b], other);
            v[b] = Op::apply(lo, hi);
        }
    }
}

/* The same for one value. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__warp_reduce(typename Op::type v)
{
    typename Op::type one[1] = {v};
    gp__warp_reduce_each<Op, 1>(one);
    return one[0];
}

/* Warp reduce, tree towards lane 0, of each of v[0..NB-1] over each aligned group of `lanes`
 * lanes (a power of two, the same in every lane): lane i takes lane i + o for o = 1, 2, 4,
 * ..., so the group's first lane gets the group's total in lane order (other lanes return
 * partial garbage). Cheaper than the butterfly (no selects); the NB trees go level by level
 * together, so their shuffles overlap. Every lane of the warp calls it. With `stride` (a
 * power of two below `lanes`) a group is the lanes of one aligned span of `lanes` that lie
 * stride apart, i, i + stride, ...: o runs from stride, and the span's first `stride` lanes
 * get their groups' totals (the column reduce's rows of several lanes). */
template <class Op, int NB>
static __device__ __forceinline__ void gp__warp_reduce_lane0_each(typename Op::type (&v)[NB], unsigned lanes = 32,
                                                                 unsigned stride = 1)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        if ((unsigned)o >= stride && (unsigned)o < lanes) {
#pragma unroll
            for (int b = 0; b < NB; b++) v[b] = Op::apply(v[b], gp__shfl<GP__SHFL_DOWN>(v[b], o));
        }
    }
}

/* Chunks of groups, a group a lane: each lane folds its group of chunk u, x[u][0 .. VEC), in
 * order into v[u], then each chunk's groups fold by the tree above over aligned groups of
 * `lanes` lanes (group order), so the first lane of each holds its chunk's total. The
 * segmented reduce's walks and rows fold their 16-byte groups this way. */
template <class Op, int U, int VEC>
static __device__ __forceinline__ void gp__warp_fold_groups_lane0(const typename Op::type (&x)[U][VEC],
                                                                  typename Op::type (&v)[U], unsigned lanes = 32)
{
#pragma unroll
    for (int u = 0; u < U; u++) {
        v[u] = x[u][0];
#pragma unroll
        for (int k = 1; k < VEC; k++) v[u] = Op::apply(v[u], x[u][k]);
    }
    gp__warp_reduce_lane0_each<Op, U>(v, lanes);
}

/* The same for one value over the whole warp: the total in lane 0; the device reduce's inner
 * loop. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__warp_reduce_lane0(typename Op::type v)
{
    typename Op::type one[1] = {v};
    gp__warp_reduce_lane0_each<Op, 1>(one);
    return one[0];
}

/* The classic "unroll the last warp" over a shared-memory tree, made correct on Volta and
 * later and for operators that are not commutative.
 *   Volta: the original relied on the 32 lanes running in lock step through `volatile` shared
 *   memory; with independent thread scheduling a lane may read a slot before its
 *   neighbour has written it. Here each step reads into a register, then __syncwarp,
 *   then writes, then __syncwarp.
 *   Order: the original's sequential addressing pairs s[i] with s[i+32], s[i+16], ... which
 *   is conflict-free but reorders the elements (right only for commutative operators).
 *   Here lane i pairs the neighbours s[2i] and s[2i+1], so the tree keeps index order;
 *   the price is a two-way bank conflict for 4-byte types.
 *   s: 64 values in shared memory, s[0..63], in index order. Overwrites s[0..31].
 *   Returns the total of s[0..63] in lane 0 (other lanes: partial values), and leaves it
 *   in s[0]. Called by all 32 lanes of one warp; no barrier inside besides __syncwarp. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__warp_reduce_smem(typename Op::type *s)
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
    T v = Op::apply(s[2 * lane], s[2 * lane + 1]); /* 64 -> 32 */
#pragma unroll
    for (unsigned live = 16; live > 0; live >>= 1) { /* 32 -> 16 -> ... -> 1 */
        __syncwarp();
        s[lane] = v; /* every read of the previous step is done */
        __syncwarp();
        const unsigned i = lane < live ? lane : 0; /* idle lanes re-read slot 0 (in bounds) */
        T left = s[2 * i], right = s[2 * i + 1];
        v = Op::apply(left, right);
    }
    __syncwarp();
    if (lane == 0) s[0] = v;
    return v;
}

/* ---- warp scans ----------------------------------------------------------------------
 * Kogge-Stone over the 32 lanes: at step o each lane adds the value of lane - o on its
 * LEFT (the earlier elements), so the order is kept. 5 shuffles, log-depth. */

/* Warp inclusive scan: lane l returns v[0] OP v[1] OP ... OP v[l] (lane order). */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__warp_inclusive_scan(typename Op::type v)
{
    typedef typename Op::type T;
    const unsigned lane = gp__lane_id();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        T left = gp__shfl<GP__SHFL_UP>(v, o);
        if (lane >= (unsigned)o) v = Op::apply(left, v);
    }
    return v;
}

/* Warp exclusive scan: lane 0 returns the identity, lane l > 0 returns v[0] OP ... OP
 * v[l-1]. *total (when total is not NULL) gets the warp's total in every lane. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__warp_exclusive_scan(typename Op::type v,
                                                                           typename Op::type *total)
{
    typedef typename Op::type T;
    const T incl = gp__warp_inclusive_scan<Op>(v);
    const T left = gp__shfl<GP__SHFL_UP>(incl, 1);
    if (total) *total = gp__shfl<GP__SHFL_IDX>(incl, 31);
    return gp__lane_id() == 0 ? Op::identity() : left;
}

/* ---- public names ----------------------------------------------------------------------
 * Stamped out per instance by GP_DEFINE_REDUCE / GP_DEFINE_SCAN (and for every default
 * instance), on the operator struct OPS. Contracts, for every function below: called by
 * all 32 lanes of a warp, converged (full mask), no lane exited; combining in lane order.
 *
 *   T gp_warp_reduce_<name>(T v)
 *       Every lane returns v[0] OP v[1] OP ... OP v[31] (bitwise the same in all lanes).
 *       No shared memory, no barrier.
 *   T gp_warp_reduce_smem_<name>(T *s)
 *       The "unrolled last warp": s holds 64 values in shared memory, s[0..63], in index
 *       order; lane 0 returns their total and leaves it in s[0] (other lanes return partial
 *       values); s[0..31] is overwritten. The caller's writes to s must be visible to the
 *       warp first: __syncwarp() when the warp wrote them itself, __syncthreads() when
 *       other warps did. Uses __syncwarp() inside; reuse s after a __syncwarp().
 *   T gp_warp_inclusive_scan_<name>(T v)
 *       Lane l returns v[0] OP ... OP v[l]. No shared memory, no barrier.
 *   T gp_warp_exclusive_scan_<name>(T v, T *total)
 *       Lane l returns v[0] OP ... OP v[l-1]; lane 0 returns the identity. When total is
 *       not NULL, *total gets the warp's total v[0] OP ... OP v[31] in every lane. */
#define GP__DEFINE_WARP_REDUCE(name, T, OPS)                                                   \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_reduce_##name(T v)            \
    {                                                                                         \
        return gp__warp_reduce<OPS>(v);                                                       \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_reduce_smem_##name(T *s)      \
    {                                                                                         \
        return gp__warp_reduce_smem<OPS>(s);                                                  \
    }

#define GP__DEFINE_WARP_SCAN(name, T, OPS)                                                     \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_inclusive_scan_##name(T v)    \
    {                                                                                         \
        return gp__warp_inclusive_scan<OPS>(v);                                               \
    }                                                                                         \
    [[maybe_unused]] static __device__ __forceinline__ T gp_warp_exclusive_scan_##name(T v, T *total) \
    {                                                                                         \
        return gp__warp_exclusive_scan<OPS>(v, total);                                        \
    }

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_WARP_CUH */
