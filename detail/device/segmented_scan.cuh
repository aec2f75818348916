/* detail/device/segmented_scan.cuh -- the kernel and host launchers of the segmented scan
 * (head flags) and of reduce-by-key. Level 4: needs scan.cuh (its look-ahead),
 * segmented_reduce.cuh (the segmented operator), block_scan.cuh, launch.cuh.
 *
 * Both are one scan over pairs (Sengupta, Harris, Zhang & Owens, "Scan Primitives for GPU
 * Computing", 2007): the segmented scan over (head flag, value) with the segmented
 * operator, reduce-by-key over (head count, value) where a head is a key that differs from
 * the one before it: (c1, a) . (c2, b) = (c1 + c2, c2 ? b : a OP b). Both operators are
 * associative and keep index order, so the device scan's machinery applies as it is: a
 * persistent grid takes tiles from an atomic counter, each block folds its tile, publishes
 * the tile's total in the epoch-tagged status words and gets the tile's exclusive prefix
 * from gp__scan_look_ahead (scan.cuh), whose association depends only on tile indices:
 * bitwise the same on every run. Reduce-by-key writes a run's key at its head and its value
 * at its tail (the count before it gives the place), and the count at the last element. */
#ifndef GPUPRIMS_DETAIL_SEGMENTED_SCAN_CUH
#define GPUPRIMS_DETAIL_SEGMENTED_SCAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "../util/common.cuh"
#include "../util/ops.cuh"
#include "segmented_reduce.cuh"

#define GP__SSCAN_THREADS 256
static inline GP__HD size_t gp__sscan_status_offset(void) { return GP__SCRATCH_ALIGN; }

#ifdef __CUDACC__
#include "scan.cuh"
#include "../agent/single_pass.cuh"

/* Elements a thread: 8 for 4-byte values, fewer for wider ones (registers). */
static constexpr GP__HD unsigned gp__sscan_items(size_t elem) { return elem <= 4 ? 8u : elem >= 32 ? 1u : (unsigned)(32 / elem); }

/* Reduce-by-key's pair: the heads so far (a count: the run's number) and a value. */
template <class T>
struct gp__rbk_pair {
    uint64_t h;
    T v;
};
template <class Op>
using gp__rbk_op = gp__head_op<Op, gp__rbk_pair<typename Op::type>, GP__HEADS_COUNT>;

/* The segmented scan's job: element i is (head, d_in[i]); its output, from the pairs
 * before it (`before`) and itself. */
template <class Op>
struct gp__sscan_job {
    typedef gp__seg_op<Op> POp;
    typedef typename Op::type T;
    typedef typename POp::type pair;
    T *out;
    const T *in;
    const uint8_t *heads;
    size_t n;
    int inclusive;
    __device__ __forceinline__ pair element(size_t i) const
    {
        pair x;
        x.v = gp__load_elem(in + i);
        x.h = i == 0 || heads[i] != 0;
        return x;
    }
    __device__ __forceinline__ void emit(size_t i, const pair &before, const pair &x) const
    {
        const T v = inclusive ? POp::apply(before, x).v : x.h ? Op::identity() : before.v;
        gp__store_elem(out + i, v);
    }
};

/* Reduce-by-key's job: EqS::eq(a, b) compares keys. */
template <class Op, class K, class EqS>
struct gp__rbk_job {
    typedef gp__rbk_op<Op> POp;
    typedef typename Op::type T;
    typedef typename POp::type pair;
    K *keys_out;
    T *vals_out;
    uint64_t *runs;
    const K *keys;
    const T *vals;
    size_t n;
    __device__ __forceinline__ pair element(size_t i) const
    {
        pair x;
        x.v = gp__load_elem(vals + i);
        x.h = i == 0 || !EqS::eq(gp__load_elem(keys + i - 1), gp__load_elem(keys + i));
        return x;
    }
    __device__ __forceinline__ void emit(size_t i, const pair &before, const pair &x) const
    {
        const pair after = POp::apply(before, x);
        const K k = gp__load_elem(keys + i);
        if (x.h) gp__store_elem(keys_out + (after.h - 1), k);
        if (i + 1 == n || !EqS::eq(k, gp__load_elem(keys + i + 1))) gp__store_elem(vals_out + (after.h - 1), after.v);
        if (i + 1 == n) *runs = after.h;
    }
};

template <class Job>
__global__ void __launch_bounds__(GP__SSCAN_THREADS)
    gp__sscan_kernel(Job job, char *scratch, size_t tiles, uint32_t epoch)
{
    typedef typename Job::POp POp;
    typedef typename POp::type pair;
    enum { ITEMS = gp__sscan_items(sizeof(typename Job::T)), TILE = GP__SSCAN_THREADS * ITEMS };
    __shared__ unsigned long long s_t;
    __shared__ pair s_prefix, s_xchg[2 * gp__scan_nb(sizeof(pair))];
    unsigned long long *counter = reinterpret_cast<unsigned long long *>(scratch);
    uint64_t *status = reinterpret_cast<uint64_t *>(scratch + gp__sscan_status_offset());
    const unsigned tid = threadIdx.x;
    gp__chain_wait(); /* the stream's earlier work is done: it may have used this status region */
    gp__scan_ahead<pair> ahead = {POp::identity(), 0, 0};
    for (;;) {
        if (tid == 0) s_t = atomicAdd(counter, 1ull);
        __syncthreads();
        const unsigned long long t = s_t;
        if (t >= tiles) break;
        const size_t i0 = (size_t)t * TILE + (size_t)tid * ITEMS;
        pair x[ITEMS];
        pair mine = POp::identity();
#pragma unroll
        for (unsigned q = 0; q < ITEMS; q++) {
            x[q] = i0 + q < job.n ? job.element(i0 + q) : POp::identity();
            mine = POp::apply(mine, x[q]);
        }
        pair agg;
        pair before = gp__block_scan<POp, false>(mine, &agg); /* ends with a barrier: s_t is read */
        if (tid < 32) {
            if (tid == 0) gp__status_publish<pair>(status, t, agg, epoch);
            __syncwarp();
            const pair pre = gp__scan_look_ahead<POp>(status, epoch, t, ahead, 0u, 0u, 1u, s_xchg);
            if (tid == 0) s_prefix = pre;
        }
        __syncthreads();
        before = POp::apply(s_prefix, before);
#pragma unroll
        for (unsigned q = 0; q < ITEMS; q++)
            if (i0 + q < job.n) {
                job.emit(i0 + q, before, x[q]);
                before = POp::apply(before, x[q]);
            }
    }
    /* every tile taken: the last block back resets the counters (status memory) */
    if (tid == 0) gp__last_block_reset(counter + 1, counter, 1);
}

/* ---- host side ------------------------------------------------------------------------------ */

/* The launch of a scan over pairs on gp__sscan_kernel, on the stream's device `dev`. */
template <class Job>
static cudaError_t gp__sscan_run(const Job &job, size_t n, const gp__device &dev, cudaStream_t s)
{
    typedef typename Job::POp POp;
    typedef typename POp::type pair;
    const size_t tile = (size_t)GP__SSCAN_THREADS * gp__sscan_items(sizeof(typename Job::T));
    const size_t tiles = gp__ceil_div(n, tile);
    void (*kernel)(Job, char *, size_t, uint32_t) = gp__sscan_kernel<Job>;
    GP__TRY(gp__kernel_load<gp__sscan_kernel<Job>>());
    static gp__device_cache<int> fits;
    int fit = 0;
    GP__TRY(gp__blocks_per_sm(fits, dev.id, 0, kernel, GP__SSCAN_THREADS, 0, &fit));
    const size_t most = (size_t)fit * dev.sms;
    gp__launch_shape shape = {GP__GRID, (unsigned)(tiles < most ? tiles : most), GP__SSCAN_THREADS, 0, 0, 0, 0, 0, 0};
    shape.scratch_bytes = shape.scratch_zeroed =
        gp__sscan_status_offset() + tiles * gp__status_words(sizeof(pair)) * 8;
    shape.scratch_wait = dev.cluster_ok;
    shape.status_kept = GP__STATUS_SEGMENTED_SCAN;
    shape.chain = dev.cluster_ok;
    return gp__launch_device_wide(shape, dev.id, s, [&](const cudaLaunchConfig_t &cfg, void *scratch, uint32_t epoch) {
        return cudaLaunchKernelEx(&cfg, kernel, job, (char *)scratch, tiles, epoch);
    });
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_SEGMENTED_SCAN_CUH */
