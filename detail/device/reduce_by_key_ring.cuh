/* detail/device/reduce_by_key_ring.cuh -- reduce-by-key on the scan's grid design, for keys
 * and values of one size that move as 16-byte vectors, both on 16-byte boundaries, on sm_90
 * code; other calls run on gp__sscan_kernel (segmented_scan.cuh). The ring's roles are
 * segmented_scan_ring.cuh's.
 * Level 4: needs segmented_scan_ring.cuh. */
#ifndef GPUPRIMS_DETAIL_REDUCE_BY_KEY_RING_CUH
#define GPUPRIMS_DETAIL_REDUCE_BY_KEY_RING_CUH

#include <stddef.h>
#include <stdint.h>
#include "segmented_scan_ring.cuh"
#include "../warp/warp.cuh"

#ifndef GP__RBKR_MIN_BLOCKS
/* reduce-by-key: blocks an SM the registers must allow. Two (80 registers, 12 bytes spilled
 * then; 52-72 bytes for 4-byte types since a scanning thread's elements are consecutive, none
 * for 8-byte ones) ran i32/f32 runs of 1 / 8 / 1024 at 2^28 in 1590 / 1112 / 1024 us on the
 * H100; one (138 registers) in 1999 / 1725 / 1640 us (an earlier form of the kernel, one run
 * each). The kernel is latency-bound (ncu, one block an SM: 0.46 instructions issued a cycle
 * a scheduler), so twice the warps count more than the spills, as long as they are few. */
#define GP__RBKR_MIN_BLOCKS 2
#endif

#ifndef GP__RBKR_NB
/* batches of 32 tiles a look-ahead warp polls a round (two warps), where a block's
 * consecutive tiles lie about 264 apart (two blocks an SM, 132 SMs): 8 or 9 batches and a
 * partial one, three rounds at 2, two at 3. Every slot's tree is reduced whether polled or
 * not, and the slots' registers are the kernel's: H200, i32/f32 at 2^28, builds run in turn
 * twice, runs of 8 / 1024 / 65536: 2 857 / 792 / 736 us, 3 849 / 781 / 734 (a batch's trees
 * in 32-bit pairs, gp__ahead_batch; runs of 1 level); at 4 and 5 ptxas spills in the
 * scanning warps' path (64 bytes), and with 64-bit trees 3 to 5 ran runs of 8 / 1024 in
 * 1083 / 934 to 1151 / 1026 us against 2's 899 / 822. */
#define GP__RBKR_NB 3
#endif

#ifdef __CUDACC__
#include <type_traits>

/* Reduce-by-key inside a tile: the heads so far as a 32-bit count (a tile has at most
 * 4096), widened to the 64-bit pair of gp__rbk_op against the tile's prefix. */
template <class T>
struct gp__rbk_pair32 {
    uint32_t h;
    T v;
};
template <class Op>
using gp__rbk_op32 = gp__head_op<Op, gp__rbk_pair32<typename Op::type>, GP__HEADS_COUNT>;

/* How a tile's total travels: its heads (at most a tile, 32 bits) and its value, in 32-bit
 * words with no padding: two status words for 4-byte values, three for 8-byte ones, where
 * gp__rbk_pair (a 64-bit count, padded) takes four, and a look-ahead round covers twice the
 * tiles. The look-ahead reduces a batch of 32 tiles as 32-bit pairs (at most 2^17 runs) and
 * folds the batches as gp__rbk_op's 64-bit pairs (gp__rbkr_wide_op, whose codec and batch
 * op these are). */
template <class T>
struct gp__rbkr_packed {
    uint32_t h;
    uint32_t v[(sizeof(T) + 3) / 4];
};
template <class Op>
struct gp__rbkr_wide_op : gp__rbk_op<Op> {
};
template <class Op>
struct gp__ahead_batch<gp__rbkr_wide_op<Op>> {
    typedef gp__rbk_op32<Op> op;
    static __device__ __forceinline__ typename gp__rbk_op<Op>::type widen(const gp__rbk_pair32<typename Op::type> &x)
    {
        typename gp__rbk_op<Op>::type r;
        r.h = x.h;
        r.v = x.v;
        return r;
    }
};
template <class Op>
struct gp__status_codec<gp__rbkr_wide_op<Op>> {
    typedef gp__rbk_pair32<typename Op::type> T; /* a batch's slot (gp__ahead_batch) */
    enum { W = gp__status_words(sizeof(gp__rbkr_packed<typename Op::type>)), NB = GP__RBKR_NB };
    static __device__ __forceinline__ T decode(size_t, const uint32_t (&bits)[W])
    {
        T r;
        r.h = bits[0];
        memcpy(&r.v, bits + 1, sizeof r.v);
        return r;
    }
};
template <class T>
static __device__ __forceinline__ gp__rbkr_packed<T> gp__rbkr_pack(const gp__rbk_pair32<T> &x)
{
    gp__rbkr_packed<T> p;
    p.h = x.h;
    memset(p.v, 0, sizeof p.v);
    memcpy(p.v, &x.v, sizeof x.v);
    return p;
}

/* A whole tile's total by one warp, from its stage: its heads, and its values from its last
 * head on (all of them if it has none) folded in index order: the pair the tile's elements
 * fold to under gp__rbk_op. In two passes, so that no value before the last head is read:
 *   - the heads, a row of 32 vectors at a time (lane l reads vector 32 r + l of row r, 16
 *     bytes, all lanes' reads in different banks). A key is a head where it differs from the
 *     one before: its vector's previous key or, for the vector's first, the last key of the
 *     lane before, one shuffle a row (lane 0: lane 31's of the row before, or the key before
 *     the tile, which the stage holds; tile 0's first key is a head whatever it is). The lane
 *     counts them and keeps its last vector with one.
 *   - the values from the last head (gp__ssr_fold_from): 32 runs of consecutive values, a
 *     run a lane (odd lengths, so that the lanes' reads fall in different banks); each lane
 *     folds its run in order (four parts side by side, then the parts), then a tree in lane
 *     order. A tile with no head folds its values by 16-byte vectors.
 * The association depends on the keys only. This warp runs beside the scanning warps for
 * the issue slots, and every prefix waits for its total: folding every element as a pair
 * (a head test, an add and a select), a tile took it 6500 cycles, as long as the block's
 * whole time a tile (H200, i32/f32 2^28, runs of 1024, clock64), and it set the pace. */
template <class Op, class K, class EqS, int TILE>
static __device__ __forceinline__ gp__rbk_pair32<typename Op::type> gp__rbkr_tile_total(const K *ks,
                                                                                       const typename Op::type *vs,
                                                                                       size_t t)
{
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), R = TILE / VEC / 32 };
    const unsigned lane = gp__lane_id();
    /* a head at element q of a vector: a key unlike the one before (prev: before q = 0) */
    auto heads_of = [&](const K (&key)[VEC], const K &prev) {
        uint32_t bits = 0;
#pragma unroll
        for (int q = 0; q < VEC; q++) bits |= (EqS::eq(q > 0 ? key[q - 1] : prev, key[q]) ? 0u : 1u) << q;
        return bits;
    };
    const K before = t > 0 ? ks[-1] : K(); /* the key before the tile (tile 0: see below) */
    uint32_t heads = 0;
    int last = -1; /* the lane's last vector with a head */
    K carry = before; /* lane 0: the key before its vector */
#pragma unroll 4
    for (unsigned r = 0; r < R; r++) {
        const unsigned u = r * 32 + lane; /* the vector's index in the tile */
        const uint4 wk = reinterpret_cast<const uint4 *>(ks)[u];
        K key[VEC];
        memcpy(key, &wk, sizeof wk);
        const K left = gp__shfl<GP__SHFL_IDX>(key[VEC - 1], (int)((lane + 31) & 31)); /* lane 0: lane 31's */
        const uint32_t bits = heads_of(key, gp__select<K>(lane == 0, carry, left));
        carry = left;
        heads += __popc(bits);
        if (bits != 0) last = (int)u;
    }
    if (t == 0 && lane == 0) { /* the input's first key is a head, equal to K() or not */
        K key0[VEC];
        const uint4 wk = reinterpret_cast<const uint4 *>(ks)[0];
        memcpy(key0, &wk, sizeof wk);
        if (EqS::eq(K(), key0[0])) {
            heads += 1;
            if (last < 0) last = 0;
        }
    }
    heads = __reduce_add_sync(GP__FULL_MASK, heads);
    const int lv = gp__warp_max_i32(last); /* the tile's last vector with a head */
    unsigned from = 0; /* the tile's last head, where its value starts */
    if (lv >= 0) { /* every lane reads the vector (one broadcast) */
        const uint4 wk = reinterpret_cast<const uint4 *>(ks)[lv];
        K key[VEC];
        memcpy(key, &wk, sizeof wk);
        uint32_t bits = heads_of(key, lv > 0 || t > 0 ? ks[lv * VEC - 1] : key[0]);
        if (lv == 0 && t == 0) bits |= 1u;
        from = (unsigned)lv * VEC + 31 - __clz(bits);
    }
    return gp__rbk_pair32<T>{heads, gp__ssr_fold_from<Op, TILE>(vs, lv < 0 ? -1 : (int)from)};
}

/* Where run r of a whole tile waits in its stage (keys or values of SIZE bytes): rows of 128
 * bytes (E runs), its place in its row XOR the row's number modulo E, so that runs written a
 * lane apart fall in different banks (runs of 1: ITEMS runs a lane, in the same bank in
 * every lane, 16-way conflicts for 4-byte keys; 2-byte ones keep 2-way conflicts, two to a
 * bank word); the write-out reads rows whole, without conflicts. */
template <size_t SIZE>
static __device__ __forceinline__ unsigned gp__rbkr_slot(unsigned r)
{
    enum { E = 128 / SIZE };
    return r ^ (r / E % E);
}

/* Reduce-by-key on the ring, for keys and values of one size that moves as 16-byte
 * vectors, both on 16-byte boundaries (the outputs: any). A scanning thread holds ITEMS
 * consecutive elements; it finds their head and tail bits from its keys and its neighbours'
 * (in the stage; for the partial last tile in global memory), scans (heads, value) once
 * across the block (gp__ssr_scan), and gives a run's key at its head and its value at its
 * tail the run's number less one as their place. A whole tile's runs go out through its
 * stage (gp__rbkr_slot), so that the block writes two contiguous runs of places (stored one
 * element a thread where they fall, runs of 1 ran at 47% of copy, H100); the partial last
 * tile's are stored where they fall. */
template <class Op, class K, class EqS>
__global__ void __launch_bounds__(GP__SSR_THREADS, GP__MIN_BLOCKS(GP__SSR_THREADS, GP__RBKR_MIN_BLOCKS))
    gp__rbkr_kernel(K *keys_out, typename Op::type *vals_out, uint64_t *runs, const K *keys,
                    const typename Op::type *vals, size_t n, size_t tiles, char *scratch, uint32_t epoch,
                    unsigned stages)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gp__rbkr_wide_op<Op> WOp; /* across tiles: 64-bit counts (totals travel packed) */
    typedef gp__rbk_op32<Op> POp; /* inside a tile */
    typedef typename WOp::type wide;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    static_assert(sizeof(K) == sizeof(T), "keys and values of one size");
    static_assert(gp__ssr_takes<T>(), "the ring's elements: 16-byte vectors, at most 32 a thread");
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SSR_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    /* a stage: the 16 bytes before the tile's keys (the first key's neighbour), its keys, the
     * 16 bytes after them (the last key's), then its values: no head or tail test of a whole
     * tile reads global memory, but where fewer than 16 bytes of keys follow it */
    constexpr unsigned BYTES = (unsigned)(TILE * sizeof(T)), EDGE = 16, STAGE = 2 * BYTES + 2 * EDGE;
    extern __shared__ __align__(128) unsigned char gp__ssr_ring[];
    /* per stage (agent/ring.cuh): full, taken, ready, empty; counted: the reduce warp has read
     * the stage (the scanning warps may write their runs in it) */
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], empty[SMAX], counted[SMAX];
    __shared__ uint8_t s_head0[SMAX], s_tail_last[SMAX]; /* the tile's first element starts a run, its last ends one */
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2];
    __shared__ wide s_prefix[SMAX], s_xchg[2 * gp__status_codec<WOp>::NB];
    __shared__ pair s_warp[SMAX][GP__SSR_WARPS];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned warp = gp__warp_id(), lane = gp__lane_id();

    if (threadIdx.x == 0)
        for (unsigned s = 0; s < stages; s++) gp__mbar_init(&counted[s], 32); /* made visible in gp__ssr_start */
    gp__ssr_start(stages, full, taken, ready, empty);

    const gp__ssr_roles_args roles = {gp__ssr_ring, stages, STAGE, full, taken, ready, empty, counted,
                                      s_tile, s_ahead_tile, counter, status, epoch};
    if (gp__ssr_roles<WOp, gp__rbkr_packed<T>>(
            roles, warp, lane, tiles, TILE, n, s_prefix, s_xchg,
            [&](unsigned char *stage, unsigned long long t, uint64_t *bar) {
                const unsigned pre = t > 0 ? EDGE : 0, post = (t + 1) * TILE + VEC <= n ? EDGE : 0;
                gp__mbar_arrive_expect(bar, pre + BYTES + post + BYTES);
                gp__bulk_copy(stage + EDGE - pre, reinterpret_cast<const unsigned char *>(keys + t * TILE) - pre,
                              pre + BYTES + post, bar);
                gp__bulk_copy(stage + 2 * EDGE + BYTES, reinterpret_cast<const unsigned char *>(vals + t * TILE),
                              BYTES, bar);
            },
            [&](const unsigned char *stage, unsigned long long t) {
                return gp__rbkr_pack(gp__rbkr_tile_total<Op, K, EqS, TILE>(
                    reinterpret_cast<const K *>(stage + EDGE), reinterpret_cast<const T *>(stage + 2 * EDGE + BYTES),
                    t));
            }))
        return;

    /* scanning warps: thread (warp, lane) holds the tile's elements [local0, local0 + ITEMS),
     * ROWS consecutive 16-byte vectors (gp__ssr_own), so a warp's pairs need one scan */
    const unsigned local0 = (warp * 32 + lane) * ITEMS;
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        const size_t start = t * TILE;
        /* the tile, with its bounds known at compile time (a whole tile: none to test): its code
         * is made twice, for whole tiles and for the partial last one */
        auto tile = [&](auto whole_c) {
            constexpr bool whole = decltype(whole_c)::value;
            /* the values and the head and tail bits (bit q: element q starts, ends a run); the
             * pairs are made from them where needed, not kept: with a pair an element (a count
             * and a value) the kernel needed 98 to 132 registers, one block an SM */
            T v[ITEMS];
            uint32_t hb = 0, tb = 0;
            unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
            const K *ks = reinterpret_cast<const K *>(stage + EDGE);
            const size_t e0 = start + local0;
            if constexpr (whole) {
                /* The keys read rotated (gp__ssr_rot), x[j]: the thread's vector (j + r) % 4, left
                 * in that order (gp__ssr_own would put them back in order with selects). Vector
                 * m's heads need only the key before it, the last of x[j - 1] (for m = 0: the key
                 * before the thread), and go to bits VEC m on. A tail is the
                 * element before a head (the same test of the same two keys), so tb is hb moved
                 * by one and the head bit after the thread: the next lane's, or at the warp's end
                 * the key after it from the stage. */
                const unsigned r = gp__ssr_rot(lane);
                const uint4 *kv = reinterpret_cast<const uint4 *>(ks) + local0 / VEC;
                K x[ROWS][VEC];
#pragma unroll
                for (int j = 0; j < ROWS; j++) {
                    const uint4 w = kv[(j + r) & 3];
                    memcpy(x[j], &w, sizeof w);
                }
                K last = x[0][VEC - 1]; /* the thread's last key, in x[(3 - r) % 4] */
#pragma unroll
                for (int j = 1; j < ROWS; j++)
                    if (((j + r) & 3) == 3) last = x[j][VEC - 1];
                /* the warps' edges from the stage, picked without a branch around the shuffles
                 * (gp__select says why) */
                const K up = gp__shfl<GP__SHFL_UP>(last, 1);
                K edge = K(); /* lane 0: the key before the warp (none before tile 0's first) */
                if (lane == 0 && (local0 > 0 || t > 0)) edge = ks[(int)local0 - 1];
                const K before = gp__select<K>(lane == 0, edge, up);
#pragma unroll
                for (int j = 0; j < ROWS; j++) {
                    const unsigned m = (j + r) & 3;
                    const K pk = m == 0 ? before : x[(j + 3) & 3][VEC - 1];
                    uint32_t bits = 0;
#pragma unroll
                    for (int k = 0; k < VEC; k++) bits |= (EqS::eq(k > 0 ? x[j][k - 1] : pk, x[j][k]) ? 0u : 1u) << k;
                    hb |= bits << (VEC * m);
                }
                if (t == 0 && local0 == 0) hb |= 1u; /* the input's first element */
                const uint32_t next_head = __shfl_down_sync(GP__FULL_MASK, hb, 1) & 1u;
                uint32_t edge_after = 1u; /* lane 31: the input's last element ends a run */
                if (lane == 31) { /* the stage holds the VEC keys after the tile where the input has them */
                    if (local0 + ITEMS < TILE || start + TILE + VEC <= n)
                        edge_after = EqS::eq(last, ks[local0 + ITEMS]) ? 0u : 1u;
                    else if (start + TILE < n)
                        edge_after = EqS::eq(last, gp__load_elem(keys + start + TILE)) ? 0u : 1u;
                }
                const uint32_t after = gp__select<uint32_t>(lane == 31, edge_after, next_head);
                tb = hb >> 1 | after << (ITEMS - 1);
                uint4 w[ROWS];
                gp__ssr_own<ROWS>(reinterpret_cast<const uint4 *>(stage + 2 * EDGE + BYTES) + local0 / VEC, w, lane);
                memcpy(v, w, sizeof w);
            } else {
                K key[ITEMS], prev = K(), next = K(); /* the keys, and the ones before and after them */
#pragma unroll
                for (int q = 0; q < ITEMS; q++) {
                    key[q] = e0 + q < n ? gp__load_elem(keys + e0 + q) : K();
                    v[q] = e0 + q < n ? gp__load_elem(vals + e0 + q) : Op::identity();
                }
                if (e0 > 0 && e0 - 1 < n) prev = gp__load_elem(keys + e0 - 1);
                if (e0 + ITEMS < n) next = gp__load_elem(keys + e0 + ITEMS);
#pragma unroll
                for (int q = 0; q < ITEMS; q++) {
                    const size_t e = e0 + q;
                    const bool head = e < n && (e == 0 || !EqS::eq(q > 0 ? key[q - 1] : prev, key[q]));
                    const bool tail = e < n && (e + 1 == n || !EqS::eq(key[q], q < ITEMS - 1 ? key[q + 1] : next));
                    hb |= (head ? 1u : 0u) << q;
                    tb |= (tail ? 1u : 0u) << q;
                }
            }
            if (whole && warp == 0 && lane == 0) s_head0[s] = hb & 1u; /* read after the scan's barrier */
            if (whole && warp == GP__SSR_WARPS - 1 && lane == 31) s_tail_last[s] = tb >> (ITEMS - 1) & 1u;
            /* the thread's elements folded to one pair, then one scan of those across the warps */
            pair mine[1];
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const pair x = {hb >> q & 1u, v[q]};
                mine[0] = q == 0 ? x : POp::apply(mine[0], x);
            }
            __syncwarp();
            pair lane_prefix[1];
            {
                const pair base = gp__ssr_scan<POp, 1>(mine, lane_prefix, s_warp[s], warp, lane);
                lane_prefix[0] = POp::apply(base, lane_prefix[0]); /* from the tile's start */
            }
            /* Element q's pair from the tile's start (its run in the tile, its fold so far) and,
             * where it starts or ends a run, emit(q, run, key): the run's number is pre.h + run.h
             * - 1; key: element q's where it starts one, from chunk_keys(c, keys), which gives
             * the keys of the thread's vector c where a run starts in it. */
            auto each_end = [&](auto chunk_keys, auto emit) {
                pair run = lane_prefix[0]; /* the tile's elements before the thread's */
#pragma unroll
                for (int c = 0; c < ROWS; c++) {
                    K kc[VEC] = {};
                    if (hb >> (c * VEC) & ((1u << VEC) - 1)) chunk_keys(c, kc);
#pragma unroll
                    for (int k = 0; k < VEC; k++) {
                        const int q = c * VEC + k;
                        run = POp::apply(run, pair{hb >> q & 1u, v[q]});
                        if ((hb | tb) >> q & 1u) emit(q, run, kc[k]);
                    }
                }
            };
            /* a run's value: the prefix's then run's when the run began before the tile (run.h == 0) */
            auto value = [&](const T &pre_v, const pair &run) { return run.h ? run.v : Op::apply(pre_v, run.v); };
            if constexpr (whole) {
                /* The runs go out through the stage, so that a warp's stores are contiguous: the
                 * heads' keys into the values' bytes (every scanning thread has read its values,
                 * and the reduce warp the stage) while the tails' values replace theirs in v;
                 * after a barrier, the tails' values into the keys' bytes; then the block writes
                 * both runs of places. (Folding the elements again for the tails spilled.) */
                uint32_t heads = 0; /* the tile's */
#pragma unroll
                for (int w = 0; w < GP__SSR_WARPS; w++) heads += s_warp[s][w].h;
                const uint32_t head0 = s_head0[s], tail_last = s_tail_last[s];
                const uint32_t tails = heads - head0 + tail_last; /* runs ending in the tile */
                K *s_keys = reinterpret_cast<K *>(stage + 2 * EDGE + BYTES);
                T *s_vals = reinterpret_cast<T *>(stage + EDGE);
                /* Who waits. Only the places of the runs (after the second barrier) need the
                 * tile's prefix, and one value before them: the tile's first run's, where it began
                 * in an earlier tile (a tail of the thread's before any head, none in the tile
                 * before the thread). Only the threads that write into the stage wait for the
                 * reduce warp to have read it. Thread 0 waits for both at every tile, before the
                 * barrier after which they are needed, so no thread's wait on ready[s] or
                 * counted[s] can come a phase early: its next wait there, at stage s's next tile,
                 * comes after this tile's barriers. The threads with run ends go on meanwhile
                 * (H200, 2^28, with the reduce warp's rows: runs of 1024 832-838 to 825 us, 2^24
                 * 1.01-1.03x; docs/segmented.md). */
                const bool thread0 = warp == 0 && lane == 0;
                /* a tail below the thread's first head (hb & -hb: its lowest bit), no head before */
                const bool own_first_run = lane_prefix[0].h == 0 && (tb & (hb != 0 ? (hb & (0u - hb)) - 1 : ~0u)) != 0;
                T pre_v = Op::identity();
                if (own_first_run) {
                    gp__mbar_wait(&ready[s], parity);
                    if (t > 0) pre_v = s_prefix[s].v;
                }
                /* a thread with no run end among its elements (most of them, with long runs) skips
                 * both loops: 0.97x the time at runs of 1024 (H200, 2^28) */
                if ((hb | tb) != 0 || thread0) gp__mbar_wait(&counted[s], parity);
                if ((hb | tb) != 0)
                    each_end(
                        [&](int c, K (&kc)[VEC]) { /* one 16-byte read (a key at a time: 16-way conflicts) */
                            const uint4 w = reinterpret_cast<const uint4 *>(ks)[local0 / VEC + c];
                            memcpy(kc, &w, sizeof w);
                        },
                        [&](int q, const pair &run, const K &key) {
                            if (hb >> q & 1u) s_keys[gp__rbkr_slot<sizeof(K)>(run.h - 1)] = key;
                            if (tb >> q & 1u) v[q] = value(pre_v, run);
                        });
                asm volatile("bar.sync 1, %0;" ::"r"(GP__SSR_BLOCK) : "memory"); /* every key read */
                if (tb != 0) {
                    const uint32_t before = lane_prefix[0].h; /* heads before the thread's elements */
#pragma unroll
                    for (int q = 0; q < ITEMS; q++) /* its run: heads up to it, less one; less first_tail: */
                        if (tb >> q & 1u) s_vals[gp__rbkr_slot<sizeof(T)>(before + __popc(hb & ((2u << q) - 1)) - head0)] = v[q];
                }
                if (thread0) gp__mbar_wait(&ready[s], parity);
                asm volatile("bar.sync 1, %0;" ::"r"(GP__SSR_BLOCK) : "memory"); /* the runs and the prefix are in */
                const wide pre = t > 0 ? s_prefix[s] : WOp::identity();
                const unsigned long long first_tail = pre.h + head0 - 1; /* the run of the tile's first element */
                for (unsigned r = threadIdx.x; r < heads; r += GP__SSR_BLOCK)
                    gp__store_elem(keys_out + pre.h + r, s_keys[gp__rbkr_slot<sizeof(K)>(r)]);
                for (unsigned r = threadIdx.x; r < tails; r += GP__SSR_BLOCK)
                    gp__store_elem(vals_out + first_tail + r, s_vals[gp__rbkr_slot<sizeof(T)>(r)]);
                if (start + TILE == n && threadIdx.x == 0) *runs = pre.h + heads;
            } else {
                gp__mbar_wait(&ready[s], parity);
                const wide pre = t > 0 ? s_prefix[s] : WOp::identity();
                each_end([&](int, K (&)[VEC]) {}, [&](int q, const pair &run, const K &) {
                    const unsigned long long r = pre.h + run.h - 1, l = local0 + q; /* the run's number; q's place */
                    if (hb >> q & 1u) gp__store_elem(keys_out + r, gp__load_elem(keys + start + l));
                    if (tb >> q & 1u) {
                        gp__store_elem(vals_out + r, value(pre.v, run));
                        if (start + l + 1 == n) *runs = r + 1;
                    }
                });
            }
        };
        if (start + TILE <= n) tile(std::true_type());
        else tile(std::false_type());
        /* every thread, after its reads of the stage, tile index, warp totals, prefix */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        gp__mbar_arrive(&empty[s]);
    }
#endif
}

/* The ring launch of a reduce-by-key (arguments checked, n > 0, gp__rbkr_ok). */
template <class Op, class K, class EqS>
static cudaError_t gp__rbkr_run(K *keys_out, typename Op::type *vals_out, uint64_t *runs, const K *keys,
                                const typename Op::type *vals, size_t n, const gp__device &dev, cudaStream_t s)
{
    typedef typename Op::type T;
    const size_t tile = gp__ssr_tile(sizeof(T)), tiles = gp__ceil_div(n, tile), stage = 2 * tile * sizeof(T) + 32;
    if (tiles > GP__GRID_MAX) return cudaErrorInvalidValue;
    const size_t room = (size_t)dev.smem_block / GP__RBKR_MIN_BLOCKS / stage;
    const unsigned stages = (unsigned)(room < GP__SSR_STAGES ? room : GP__SSR_STAGES);
    const int smem = (int)(stages * stage);
    void (*kernel)(K *, T *, uint64_t *, const K *, const T *, size_t, size_t, char *, uint32_t, unsigned) =
        gp__rbkr_kernel<Op, K, EqS>;
    GP__TRY(gp__kernel_load<gp__rbkr_kernel<Op, K, EqS>>(smem));
    static gp__device_cache<int> fits;
    int fit = 0;
    GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, kernel, GP__SSR_THREADS, (size_t)smem, &fit));
    const size_t most = (size_t)fit * dev.sms;
    gp__launch_shape shape = {GP__GRID, (unsigned)(tiles < most ? tiles : most), GP__SSR_THREADS, 0, 0, 0, 0, 0, 0};
    shape.smem_bytes = (size_t)smem;
    shape.scratch_bytes = shape.scratch_zeroed = gp__sscan_status_offset() + tiles * gp__status_codec<gp__rbkr_wide_op<Op>>::W * 8;
    shape.scratch_wait = 1;
    shape.status_kept = GP__STATUS_SEGMENTED_SCAN;
    shape.chain = 1;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, kernel, keys_out, vals_out, runs, keys, vals, n, tiles, (char *)scratch, epoch,
                                  stages);
    });
}

/* gp_reduce_by_key_<name>: on the ring for keys and values of one size on 16-byte boundaries, else
 * gp__sscan_kernel */
template <class Op, class K, class EqS>
static cudaError_t gp__reduce_by_key(K *d_keys_out, typename Op::type *d_values_out, uint64_t *d_runs, const K *d_keys,
                                     const typename Op::type *d_values, size_t n, cudaStream_t s)
{
    typedef typename Op::type T;
    if (d_runs == NULL) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(d_runs, 0, sizeof(uint64_t), s);
    if (d_keys_out == NULL || d_values_out == NULL || d_keys == NULL || d_values == NULL ||
        n > SIZE_MAX / 2 / (sizeof(T) > sizeof(K) ? sizeof(T) : sizeof(K)))
        return cudaErrorInvalidValue;
    /* the outputs may not overlap the inputs (later tiles read them) or each other */
    const size_t kb = n * sizeof(K), vb = n * sizeof(T);
    if (gp__ranges_overlap(d_keys_out, kb, d_keys, kb) || gp__ranges_overlap(d_keys_out, kb, d_values, vb) ||
        gp__ranges_overlap(d_values_out, vb, d_keys, kb) || gp__ranges_overlap(d_values_out, vb, d_values, vb) ||
        gp__ranges_overlap(d_keys_out, kb, d_values_out, vb) || gp__ranges_overlap(d_runs, 8, d_keys_out, kb) ||
        gp__ranges_overlap(d_runs, 8, d_values_out, vb) || gp__ranges_overlap(d_runs, 8, d_keys, kb) ||
        gp__ranges_overlap(d_runs, 8, d_values, vb))
        return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__device dev;
    GP__TRY(gp__device_query(&dev, on.dev));
    if constexpr (sizeof(K) == sizeof(T) && gp__ssr_takes<T>())
        if (dev.cluster_ok && (uintptr_t)d_keys % 16 == 0 && (uintptr_t)d_values % 16 == 0) /* sm_90 code */
            return gp__rbkr_run<Op, K, EqS>(d_keys_out, d_values_out, d_runs, d_keys, d_values, n, dev, s);
    gp__rbk_job<Op, K, EqS> job = {d_keys_out, d_values_out, d_runs, d_keys, d_values, n};
    return gp__sscan_run(job, n, dev, s);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_BY_KEY_RING_CUH */
