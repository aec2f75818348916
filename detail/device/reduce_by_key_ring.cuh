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

#ifndef GP__RBKR_MIN_BLOCKS
/* reduce-by-key: blocks an SM the registers must allow. One (98-101 registers, no spills)
 * ran runs of 1 / 8 / 1024 at 2^28 in 3053 / 1609 / 1506 us on the H100, two (80 registers,
 * 172-196 bytes spilled) in 3333 / 1635 / 1515 us, one run. */
#define GP__RBKR_MIN_BLOCKS 1
#endif

#ifdef __CUDACC__

/* Reduce-by-key inside a tile: the heads so far as a 32-bit count (a tile has at most
 * 4096), widened to the 64-bit pair of gp__rbk_op against the tile's prefix. */
template <class T>
struct gp__rbk_pair32 {
    uint32_t h;
    T v;
};
template <class Op>
using gp__rbk_op32 = gp__head_op<Op, gp__rbk_pair32<typename Op::type>, GP__HEADS_COUNT>;

/* An in-tile pair as gp__rbk_op's 64-bit pair. */
template <class T>
static __device__ __forceinline__ gp__rbk_pair<T> gp__rbk_wide(const gp__rbk_pair32<T> &x)
{
    gp__rbk_pair<T> r;
    r.h = x.h;
    r.v = x.v;
    return r;
}

/* A whole tile's total by one warp, in index order, from its stage (keys, then values):
 * gp__ssr_tile_total's order; a key is a head where it differs from the one before (the
 * tile's first: from global memory; tile 0: a head). */
template <class Op, class K, class EqS, int TILE>
static __device__ __forceinline__ gp__rbk_pair<typename Op::type> gp__rbkr_tile_total(const unsigned char *stage,
                                                                                     const K *keys, size_t t)
{
    typedef gp__rbk_op32<Op> POp;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    enum { VEC = gp__scan_vec(sizeof(T)), R = TILE / VEC / 32 };
    const unsigned lane = gp__lane_id(), start = lane % R;
    const K *ks = reinterpret_cast<const K *>(stage);
    const uint4 *vs = reinterpret_cast<const uint4 *>(stage + (size_t)TILE * sizeof(K));
    const K before = t > 0 ? gp__load_elem(keys + t * TILE - 1) : K(); /* tile 0: unused */
    pair head = POp::identity(), tail = POp::identity();
#pragma unroll 4
    for (unsigned r = 0; r < R; r++) {
        const unsigned k = (r + start) % R, u = lane * R + k; /* the vector's index in the tile */
        const uint4 w = vs[u];
        T e[VEC];
        memcpy(e, &w, sizeof w);
        K prev = u > 0 ? ks[u * VEC - 1] : before;
        pair f = POp::identity();
#pragma unroll
        for (int q = 0; q < VEC; q++) {
            const K key = ks[u * VEC + q];
            pair x;
            x.v = e[q];
            x.h = (t == 0 && u == 0 && q == 0) || !EqS::eq(prev, key) ? 1u : 0u;
            f = q == 0 ? x : POp::apply(f, x);
            prev = key;
        }
        if (k >= start) tail = POp::apply(tail, f);
        else head = POp::apply(head, f);
    }
    __syncwarp();
    return gp__rbk_wide(gp__warp_reduce<POp>(POp::apply(head, tail)));
}

/* Reduce-by-key on the ring, for keys and values of one size that moves as 16-byte
 * vectors, both on 16-byte boundaries (the outputs: any). The scanning warps find each
 * element's head and tail bits from its neighbours (in the stage, or for the tile's edges
 * in global memory), scan (heads, value) by rows, and write a run's key at its head and
 * its value at its tail, at the run's number less one. */
template <class Op, class K, class EqS>
__global__ void __launch_bounds__(GP__SSR_THREADS, GP__MIN_BLOCKS(GP__SSR_THREADS, GP__RBKR_MIN_BLOCKS))
    gp__rbkr_kernel(K *keys_out, typename Op::type *vals_out, uint64_t *runs, const K *keys,
                    const typename Op::type *vals, size_t n, size_t tiles, char *scratch, uint32_t epoch,
                    unsigned stages)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gp__rbk_op<Op> WOp; /* across tiles: 64-bit counts */
    typedef gp__rbk_op32<Op> POp; /* inside a tile */
    typedef typename WOp::type wide;
    typedef typename POp::type pair;
    typedef typename Op::type T;
    static_assert(sizeof(K) == sizeof(T), "keys and values of one size");
    enum { VEC = gp__scan_vec(sizeof(T)), ROWS = gp__scan_rows(sizeof(T)), ITEMS = VEC * ROWS,
           TILE = GP__SSR_BLOCK * ITEMS, SMAX = GP__SCAN_STAGES_MAX };
    constexpr unsigned BYTES = (unsigned)(TILE * sizeof(T)), STAGE = 2 * BYTES; /* keys, then values */
    extern __shared__ __align__(128) unsigned char gp__ssr_ring[];
    __shared__ uint64_t full[SMAX], taken[SMAX], ready[SMAX], empty[SMAX];
    __shared__ unsigned long long s_tile[SMAX], s_ahead_tile[2];
    __shared__ wide s_prefix[SMAX], s_xchg[2 * gp__scan_nb(sizeof(wide))];
    __shared__ pair s_warp[SMAX][GP__SSR_WARPS];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned warp = threadIdx.x >> 5, lane = gp__lane_id();

    gp__ssr_start(stages, full, taken, ready, empty);

    if (warp == GP__SSR_WARPS) { /* producer */
        if (lane == 0)
            gp__ring_produce(stages, GP__SSR_RAMP, tiles, TILE, n, gp__ssr_ring, STAGE, full, taken, empty, s_tile,
                             counter, [&](unsigned char *stage, unsigned long long t, uint64_t *bar) {
                                gp__mbar_arrive_expect(bar, STAGE);
                                gp__bulk_copy(stage, reinterpret_cast<const unsigned char *>(keys + t * TILE), BYTES,
                                              bar);
                                gp__bulk_copy(stage + BYTES, reinterpret_cast<const unsigned char *>(vals + t * TILE),
                                              BYTES, bar);
                            });
        return;
    }
    if (warp == GP__SSR_WARPS + 1 || warp == GP__SSR_WARPS + 3) { /* look-ahead, parts 0 and 1 */
        gp__ring_look_ahead<WOp>(warp == GP__SSR_WARPS + 3, stages, tiles, status, epoch, taken, ready, s_tile,
                                s_ahead_tile, s_prefix, s_xchg);
        return;
    }
    if (warp == GP__SSR_WARPS + 2) { /* reduce */
        gp__ring_reduce<wide>(stages, tiles, TILE, n, gp__ssr_ring, STAGE, full, empty, s_tile, status, epoch,
                             [&](const unsigned char *stage, unsigned long long t) {
                                 return gp__rbkr_tile_total<Op, K, EqS, TILE>(stage, keys, t);
                             });
        return;
    }

    /* scanning warps: vector (j, lane) of warp w is the tile's vector w * 32 * ROWS + j * 32 + lane */
    const unsigned local0 = warp * 32 * ITEMS + lane * VEC; /* + j * 32 * VEC + k */
    for (unsigned i = 0;; i++) {
        const unsigned s = i % stages, parity = (i / stages) & 1;
        gp__mbar_wait(&full[s], parity);
        const unsigned long long t = s_tile[s];
        if (t >= tiles) break;
        const size_t start = t * TILE;
        const bool whole = start + TILE <= n;
        pair x[ITEMS];
        uint32_t hb = 0, tb = 0; /* bit j * VEC + k: element (j, k) starts, ends a run */
        const unsigned char *stage = gp__ssr_ring + (size_t)s * STAGE;
        const K *ks = reinterpret_cast<const K *>(stage);
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const unsigned l = local0 + j * 32 * VEC; /* the vector's first place in the tile */
            const size_t e0 = start + l;
            T v[VEC];
            K key[VEC]; /* this row's keys: not kept (registers); the emit reads the heads' again */
            if (whole) { /* warp-striped out of the stage: conflict-free 16-byte reads */
                const uint4 wk = reinterpret_cast<const uint4 *>(ks)[l / VEC];
                const uint4 wv = reinterpret_cast<const uint4 *>(stage + BYTES)[l / VEC];
                memcpy(key, &wk, sizeof wk);
                memcpy(v, &wv, sizeof wv);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    key[k] = e0 + k < n ? gp__load_elem(keys + e0 + k) : K();
                    v[k] = e0 + k < n ? gp__load_elem(vals + e0 + k) : Op::identity();
                }
            }
            /* the neighbours: in the stage inside a whole tile, else from global memory */
            K prev = K(), next = K();
            if (e0 > 0 && e0 - 1 < n) prev = whole && l > 0 ? ks[l - 1] : gp__load_elem(keys + e0 - 1);
            if (e0 + VEC < n) next = whole && l + VEC < TILE ? ks[l + VEC] : gp__load_elem(keys + e0 + VEC);
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t e = e0 + k;
                const K &before = k > 0 ? key[k - 1] : prev;
                const K &after = k < VEC - 1 ? key[k + 1] : next;
                const bool in = e < n;
                hb |= (in && (e == 0 || !EqS::eq(before, key[k])) ? 1u : 0u) << (j * VEC + k);
                tb |= (in && (e + 1 == n || !EqS::eq(key[k], after)) ? 1u : 0u) << (j * VEC + k);
                x[j * VEC + k].v = v[k];
            }
        }
#pragma unroll
        for (int q = 0; q < ITEMS; q++) x[q].h = hb >> q & 1u;
        __syncwarp();
        pair lane_prefix[ROWS];
        pair base = gp__ssr_scan_rows<POp, ROWS, VEC>(x, lane_prefix, s_warp[s], warp, lane);
        gp__mbar_wait(&ready[s], parity);
        const wide pre = t > 0 ? s_prefix[s] : WOp::identity();
        gp__scan_finish<POp, ROWS, VEC>(x, lane_prefix, base, 1);
#pragma unroll
        for (int j = 0; j < ROWS; j++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const int q = j * VEC + k;
                if (!((hb | tb) >> q & 1u)) continue;
                /* pre then x[q], 64-bit: after.h is the run's number. This is WOp::apply(pre,
                 * gp__rbk_wide(x[q])) in the instruction order that was measured on the H100
                 * (the call orders them otherwise) */
                wide after;
                after.h = pre.h + x[q].h;
                after.v = x[q].h ? x[q].v : Op::apply(pre.v, x[q].v);
                const unsigned l = local0 + j * 32 * VEC + k;
                if (hb >> q & 1u)
                    gp__store_elem(keys_out + (after.h - 1), whole ? ks[l] : gp__load_elem(keys + start + l));
                if (tb >> q & 1u) {
                    gp__store_elem(vals_out + (after.h - 1), after.v);
                    if (start + l + 1 == n) *runs = after.h;
                }
            }
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
    typedef typename gp__rbk_op<Op>::type wide;
    typedef typename Op::type T;
    const size_t tile = gp__ssr_tile(sizeof(T)), tiles = gp__ceil_div(n, tile), stage = 2 * tile * sizeof(T);
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
    shape.scratch_bytes = shape.scratch_zeroed = gp__sscan_status_offset() + tiles * gp__status_words(sizeof(wide)) * 8;
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
    if constexpr (sizeof(K) == sizeof(T) && gp__scan_vec(sizeof(T)) * sizeof(T) == 16)
        if (dev.cluster_ok && (uintptr_t)d_keys % 16 == 0 && (uintptr_t)d_values % 16 == 0) /* sm_90 code */
            return gp__rbkr_run<Op, K, EqS>(d_keys_out, d_values_out, d_runs, d_keys, d_values, n, dev, s);
    gp__rbk_job<Op, K, EqS> job = {d_keys_out, d_values_out, d_runs, d_keys, d_values, n};
    return gp__sscan_run(job, n, dev, s);
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_REDUCE_BY_KEY_RING_CUH */
