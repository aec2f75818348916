/* detail/block/block_scan.cuh -- block-wide scans: Blelloch's work-efficient scan in shared
 * memory (Harris, Sengupta & Owens, GPU Gems 3 ch. 39, with its bank-conflict-free padding
 * done right), and a register scan built from warp scans. Level 2: needs warp.cuh (and
 * common.cuh).
 * The padding arithmetic is plain host/device code: tests/scan/test_scan.cu checks it against
 * a 32-bank model on the host.
 *
 * Which is faster where: the register scan needs 2 barriers and 10 shuffles per element;
 * Blelloch needs 2 log2(n) barriers and shared-memory traffic; bench/scan/scan.cu measures both
 * (ladder rows "Blelloch padded" and "register block scan"). */
#ifndef GPUPRIMS_DETAIL_BLOCK_SCAN_CUH
#define GPUPRIMS_DETAIL_BLOCK_SCAN_CUH

#include "../util/common.cuh"
#include "../warp/warp.cuh"

/* ---- conflict-free padding ---------------------------------------------------------------
 * The Blelloch tree at level d touches indices offset*(2t+1)-1 and offset*(2t+2)-1 with
 * offset = 2^d: a stride of 2*offset words between neighbouring threads, so without
 * padding 2*offset threads of a warp share a bank. Inserting one empty word after every
 * 32 words, and one more after every 1024, moves those indices onto distinct banks at
 * every level for n <= 2048 (the host test checks every level, both sweeps and the loads).
 *
 * The trap: GPU Gems 3 (ch. 39) gives the "zero bank conflicts" variant as
 *     #define CONFLICT_FREE_OFFSET(n) ((n) >> NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))
 * `+` binds tighter than `>>`, so this is (n >> (NUM_BANKS + n)) >> (2 * LOG_NUM_BANKS):
 * 0 for small n (and an over-wide shift, undefined behaviour, for larger n). It also
 * uses NUM_BANKS where LOG_NUM_BANKS was meant. The intended offset is below. */
#define GP__LOG_NUM_BANKS 5

static inline GP__HD unsigned gp__blelloch_pad(unsigned i)
{
    return (i >> GP__LOG_NUM_BANKS) + (i >> (2 * GP__LOG_NUM_BANKS));
}

/* gp_blelloch_index(i): where logical element i lives in a padded Blelloch array (host
 * and device). Load element i to s[gp_blelloch_index(i)] before gp_block_scan_blelloch_<name>
 * and read it back from there. */
static inline GP__HD unsigned gp_blelloch_index(unsigned i) { return i + gp__blelloch_pad(i); }

/* gp_blelloch_smem_elems(n): the shared-memory elements (not bytes) that a padded Blelloch
 * scan of n elements needs: size the array (static or dynamic) with it. */
static inline GP__HD unsigned gp_blelloch_smem_elems(unsigned n) { return n ? gp_blelloch_index(n - 1) + 1 : 0; }

#ifdef __CUDACC__

/* Blelloch (work-efficient) exclusive scan of n elements in shared memory, in place.
 *   s: the n elements, element i at s[PADDED ? gp_blelloch_index(i) : i] (the caller loads
 *      and stores them there; gp_blelloch_smem_elems(n) elements when padded).
 *   n: a power of two, 2 <= n <= 2 * blockDim.x (n <= 2048); thread t (1-D block,
 *      threadIdx.x) works on the pairs of the tree; threads t >= n/2 only take the barriers.
 *   After it, element i holds s[0] OP ... OP s[i-1] (element 0: the identity): exclusive.
 *   Returns the total of the n elements to every thread (the block aggregate).
 *   Barriers: one on entry (the caller's stores become visible) and one on exit (the
 *   results are visible; s may be read or reused at once). All threads must call it.
 * Order: up-sweep combines left subtree before right; down-sweep gives the right child
 * OP(prefix, left total), so a non-commutative operator gives the sequential answer. */
template <class Op, bool PADDED>
static __device__ __forceinline__ typename Op::type gp__block_scan_blelloch(typename Op::type *s, unsigned n)
{
    typedef typename Op::type T;
#define GP__BL(i) (PADDED ? gp_blelloch_index(i) : (i))
    const unsigned t = threadIdx.x;
    unsigned offset = 1;
    for (unsigned d = n >> 1; d > 0; d >>= 1, offset <<= 1) { /* up-sweep: build totals */
        __syncthreads();
        if (t < d) {
            const unsigned ai = GP__BL(offset * (2 * t + 1) - 1), bi = GP__BL(offset * (2 * t + 2) - 1);
            s[bi] = Op::apply(s[ai], s[bi]);
        }
    }
    __syncthreads();
    const T total = s[GP__BL(n - 1)];
    __syncthreads(); /* everyone has read the total before it is cleared */
    if (t == 0) s[GP__BL(n - 1)] = Op::identity();
    for (unsigned d = 1; d < n; d <<= 1) { /* down-sweep: push prefixes down the tree */
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            const unsigned ai = GP__BL(offset * (2 * t + 1) - 1), bi = GP__BL(offset * (2 * t + 2) - 1);
            const T left = s[ai], prefix = s[bi];
            s[ai] = prefix;
            s[bi] = Op::apply(prefix, left);
        }
    }
    __syncthreads();
#undef GP__BL
    return total;
}

/* Scans one value per warp (warp_total, the same in every lane of warp w) across the
 * warps of the block, in warp order. Returns, in every thread, the total of the warps
 * before this one (identity in warp 0); *aggregate (when not NULL) gets the block's total.
 * Shared memory: 32 * sizeof(T), static. Barriers: two; the first guards the array
 * against a previous call, so back-to-back calls need no barrier of the caller's. Each
 * warp scans the (at most 32) warp totals itself, which is cheaper than a third barrier. */
template <class Op>
static __device__ __forceinline__ typename Op::type gp__block_scan_warp_totals(typename Op::type warp_total,
                                                                              typename Op::type *aggregate)
{
    typedef typename Op::type T;
    __shared__ T totals[32];
    const unsigned rank = gp__thread_rank(), lane = rank & 31, warp = rank >> 5,
                   nwarps = (gp__block_size() + 31) >> 5;
    __syncthreads();
    if (lane == 0) totals[warp] = warp_total;
    __syncthreads();
    __syncwarp(); /* lanes converged before the shuffles (else nvcc's slow collective path) */
    const T w = lane < nwarps ? totals[lane] : Op::identity();
    const T incl = gp__warp_inclusive_scan<Op>(w);
    if (aggregate) *aggregate = gp__shfl<GP__SHFL_IDX>(incl, (int)nwarps - 1);
    const T before = gp__shfl<GP__SHFL_IDX>(incl, warp > 0 ? (int)warp - 1 : 0);
    return warp > 0 ? before : Op::identity();
}

/* Register block scan: every thread passes one value v; thread r (linear rank) gets
 *   exclusive: v[0] OP ... OP v[r-1] (thread 0: the identity)      INCLUSIVE == false
 *   inclusive: v[0] OP ... OP v[r]                                   INCLUSIVE == true
 * and *aggregate (when not NULL) gets the block's total, in every thread.
 * Block size: any multiple of 32 up to 1024, in 1, 2 or 3 dimensions.
 * Shared memory and barriers: as gp__block_scan_warp_totals (32 * sizeof(T), two
 * barriers, safe to call again at once). All threads of the block must call it. */
template <class Op, bool INCLUSIVE>
static __device__ __forceinline__ typename Op::type gp__block_scan(typename Op::type v, typename Op::type *aggregate)
{
    typedef typename Op::type T;
    const T incl = gp__warp_inclusive_scan<Op>(v);
    const T warp_total = gp__shfl<GP__SHFL_IDX>(incl, 31);
    const T left = gp__shfl<GP__SHFL_UP>(incl, 1);
    const unsigned rank = gp__thread_rank(), lane = rank & 31;
    const T before = gp__block_scan_warp_totals<Op>(warp_total, aggregate);
    if (INCLUSIVE) return rank < 32 ? incl : Op::apply(before, incl);
    if (lane == 0) return before;
    return rank < 32 ? left : Op::apply(before, left);
}

/* ---- public names (stamped out by GP_DEFINE_SCAN and for every default instance) --------
 *   T gp_block_inclusive_scan_<name>(T v, T *aggregate)
 *   T gp_block_exclusive_scan_<name>(T v, T *aggregate)
 *       Register scan: thread r (linear rank, x fastest) returns v[0] OP ... OP v[r]
 *       (inclusive) or v[0] OP ... OP v[r-1] (exclusive; thread 0: the identity). When
 *       aggregate is not NULL, *aggregate gets the block's total in every thread.
 *       All threads of the block call it, converged. Block shape: 1-, 2- or 3-D, a
 *       multiple of 32 threads, at most 1024. Shared memory: 32 * sizeof(T), static.
 *       Barriers: two inside; calls may follow one another with no barrier of the caller's.
 *   T gp_block_scan_blelloch_<name>(T *s, unsigned n)
 *       Blelloch's exclusive scan of n elements in place in shared memory, padded: element
 *       i at s[gp_blelloch_index(i)] (an array of gp_blelloch_smem_elems(n) elements, the
 *       caller's). n a power of two, 2 <= n <= 2 * blockDim.x <= 2048; a 1-D block. Returns
 *       the total of the n elements to every thread. Barriers: one on entry (so the
 *       caller's stores need none of their own) and one on exit (s may be read at once).
 *       All threads of the block must call it. */
#define GP__DEFINE_BLOCK_SCAN(name, T, OPS)                                                    \
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

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_BLOCK_SCAN_CUH */
