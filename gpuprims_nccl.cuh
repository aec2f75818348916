/* gpuprims_nccl.cuh -- reduce, scan and transpose of data sharded over the GPUs of an NCCL
 * communicator. Optional: the core header (gpuprims.cuh) never needs NCCL; this one
 * includes it and <nccl.h>.
 *
 * WHAT IT IS
 *   NCCL gives all-reduce, all-gather and send/recv, but no prefix scan, no distributed
 *   transpose, and an all-reduce whose order of combination is NCCL's, not the caller's.
 *   These functions fill that gap, built on the single-GPU primitives:
 *     cudaError_t gp_nccl_reduce_<name>(T *d_out, const T *d_in_shard, size_t n_local,
 *                                       ncclComm_t comm, cudaStream_t s);
 *         every rank gets d_in(rank 0) OP d_in(rank 1) OP ... in rank order and index
 *         order: the local reduce of each shard, an all-gather of the totals, and the
 *         totals folded in rank order on the device (gp_reduce_<name> of the gathered
 *         totals). Deterministic, and exact for operators that do not commute.
 *     cudaError_t gp_nccl_exclusive_scan_<name>(T *d_out, const T *d_in_shard, size_t n_local,
 *                                               ncclComm_t comm, cudaStream_t s);   (and _inclusive_)
 *         the scan of the concatenation of the shards in rank order: the local reduce, an
 *         all-gather of the totals, their exclusive scan (the carry of each rank), and the
 *         local scan from that carry (gp_*_scan_init_<name>). In place allowed. Shards may
 *         differ in size; an empty shard (n_local == 0) still takes part.
 *     cudaError_t gp_nccl_transpose_<name>(T *d_out, const T *d_in, size_t rows, size_t cols,
 *                                          ncclComm_t comm, cudaStream_t s);
 *         the global matrix is rows x cols, row-major, distributed by row blocks: rank i
 *         holds rows [i*rows/P, (i+1)*rows/P) (rows/P x cols) and gets rows
 *         [i*cols/P, (i+1)*cols/P) of the transpose (cols/P x rows). P must divide rows
 *         and cols. In pieces of 1 GiB of each tile, each rank transposes the tiles for
 *         the other ranks into contiguous staging, exchanges them with ncclSend/ncclRecv
 *         (all to all) on a second stream of the greatest priority (made per call),
 *         transposes its piece of the tile it keeps straight into place, and copies each
 *         received piece into its columns: the local work overlaps the exchange. Staging:
 *         2 (P-1)/P of the shard, stream-ordered (cudaMallocAsync on the device's current
 *         pool): a program that transposes repeatedly should let that pool keep its
 *         memory (cudaMemPoolAttrReleaseThreshold), else every call maps it afresh (on
 *         two H200s, 32 GB shards: 161 ms a call, against 53 ms).
 *   <name>: the default instances (sum/min/max over i32 u32 i64 u64 f32 f64; transposes
 *   u8 u16 f32 f64 v16), compiled once: link libgpuprims_nccl.a (make nccl), or define
 *   GPUPRIMS_NCCL_IMPLEMENTATION before including this header in one .cu file.
 *
 * YOUR OWN INSTANCES (file scope of a .cu file, after the single-GPU instance they build on)
 *     GP_DEFINE_REDUCE(argmax, pair_t, PAIR_MAX, ID)   GP_DEFINE_NCCL_REDUCE(argmax, pair_t)
 *     GP_DEFINE_SCAN(aff, aff_t, AFF_THEN, ID)         GP_DEFINE_NCCL_SCAN(aff, aff_t)
 *     GP_DEFINE_TRANSPOSE(rgb, rgb_t)                  GP_DEFINE_NCCL_TRANSPOSE(rgb, rgb_t)
 *   (TU-local, as GP_DEFINE_* are; GP_DECLARE_NCCL_{REDUCE,SCAN,TRANSPOSE}(name, T) declare.)
 *
 * RUNNING IT
 *   One rank per GPU: one process per GPU (MPI: rank 0 calls ncclGetUniqueId, MPI_Bcast
 *   sends it to every process, each calls ncclCommInitRank(&comm, nranks, id, rank) on its
 *   own GPU), or one thread per GPU of one process (ncclCommInitAll). The calls are
 *   collective: every rank of comm makes the same calls in the same order, with the same
 *   instance, on a stream of the communicator's GPU. Asynchronous on s like NCCL's own
 *   calls, except the transpose, which waits for a 32-byte shape check (below).
 *   Communicators must be blocking (the default config).
 *
 * ERRORS (cudaError_t, as the rest of the library, so CUDA_CHK and callers' checks work
 * unchanged; the NCCL reason stays readable with ncclGetLastError(comm))
 *   - bad input on a rank (NULL pointer with data, a partial overlap, a stream on another
 *     GPU than the communicator's: cudaErrorInvalidDevice) returns before that rank
 *     communicates; as with NCCL's own calls, the other ranks then wait for it (end them
 *     with ncclCommAbort). The transpose instead checks every rank's arguments together:
 *     an all-gather of each rank's (rows, cols, element size, arguments valid) first, so
 *     a mismatch of shapes or bad input on any rank returns cudaErrorInvalidValue on every
 *     rank, and nothing hangs. Reduce and scan have no sizes that must agree.
 *   - a failed NCCL call: ncclInvalidArgument, ncclInvalidUsage -> cudaErrorInvalidValue;
 *     ncclInProgress (a non-blocking communicator) -> cudaErrorNotReady; any other failure
 *     (system, internal, remote, unhandled CUDA error) -> cudaErrorUnknown.
 *   A one-rank communicator works (nothing to exchange), and n_local == 0 is a valid shard. */
#ifndef GPUPRIMS_NCCL_CUH
#define GPUPRIMS_NCCL_CUH

#include "gpuprims.cuh"
#include <nccl.h>

#define GP_DECLARE_NCCL_REDUCE(name, T)                                                                       \
    GP__EXTERN_C cudaError_t gp_nccl_reduce_##name(T *d_out, const T *d_in_shard, size_t n_local, ncclComm_t comm, \
                                                   cudaStream_t s);
#define GP_DECLARE_NCCL_SCAN(name, T)                                                                         \
    GP__EXTERN_C cudaError_t gp_nccl_exclusive_scan_##name(T *d_out, const T *d_in_shard, size_t n_local,     \
                                                           ncclComm_t comm, cudaStream_t s);                  \
    GP__EXTERN_C cudaError_t gp_nccl_inclusive_scan_##name(T *d_out, const T *d_in_shard, size_t n_local,     \
                                                           ncclComm_t comm, cudaStream_t s);
#define GP_DECLARE_NCCL_TRANSPOSE(name, T)                                                                    \
    GP__EXTERN_C cudaError_t gp_nccl_transpose_##name(T *d_out, const T *d_in, size_t rows, size_t cols,      \
                                                      ncclComm_t comm, cudaStream_t s);

#define GP__DECLARE_NCCL_OP_ROW(name, T, op, kind, OP, IDENTITY) GP_DECLARE_NCCL_REDUCE(name, T) GP_DECLARE_NCCL_SCAN(name, T)
GP__OP_INSTANCES(GP__DECLARE_NCCL_OP_ROW)
GP__TRANSPOSE_INSTANCES(GP_DECLARE_NCCL_TRANSPOSE)

#ifdef __CUDACC__

/* Pieces of the transpose's exchange, in bytes of a tile (the pipeline's grain: the local
 * work of one piece overlaps the exchange of the previous one). The bench's ladder on two
 * H200s (32 GB shards; the all-to-all alone 43.7 ms): 16 MiB 89.5 ms, 64 MiB 74.2, 256 MiB
 * 68.0, 1 GiB 53.0, 4 GiB 52.9, one piece 64.5: smaller pieces lose more to each piece's
 * launches and exchange start than they gain in overlap. */
#ifndef GP__NCCL_PIECE_BYTES
#define GP__NCCL_PIECE_BYTES ((size_t)1 << 30)
#endif

/* ncclResult_t -> cudaError_t (the table at the top of this file). */
static inline cudaError_t gp__nccl_err(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return cudaSuccess;
    case ncclInvalidArgument:
    case ncclInvalidUsage: return cudaErrorInvalidValue;
    case ncclInProgress: return cudaErrorNotReady;
    default: return cudaErrorUnknown;
    }
}
#define GP__NCCL_TRY(call) GP__TRY(gp__nccl_err(call))

/* The communicator's size and this rank; the call's stream must be on its GPU. */
typedef struct gp__nccl_where {
    int ranks, rank;
} gp__nccl_where;
static inline cudaError_t gp__nccl_locate(ncclComm_t comm, int dev, gp__nccl_where *w)
{
    if (comm == NULL) return cudaErrorInvalidValue;
    int cu = -1;
    GP__NCCL_TRY(ncclCommCount(comm, &w->ranks));
    GP__NCCL_TRY(ncclCommUserRank(comm, &w->rank));
    GP__NCCL_TRY(ncclCommCuDevice(comm, &cu));
    return cu == dev ? cudaSuccess : cudaErrorInvalidDevice;
}

/* The single-GPU calls a distributed one is made of (an instance's host functions). */
template <class T> struct gp__nccl_calls {
    cudaError_t (*reduce)(T *, const T *, size_t, cudaStream_t);
    cudaError_t (*exclusive)(T *, const T *, size_t, cudaStream_t);
    cudaError_t (*scan_init)(T *, const T *, size_t, const T *, cudaStream_t);
};

template <class Op> __global__ void gp__nccl_identity_kernel(typename Op::type *p) { *p = Op::identity(); }

/* Frees stream-ordered memory whatever err is; returns the first error. */
static inline cudaError_t gp__nccl_free(void *p, cudaStream_t s, cudaError_t err)
{
    const cudaError_t freed = p ? cudaFreeAsync(p, s) : cudaSuccess;
    return err != cudaSuccess ? err : freed;
}

/* Every rank's total, in rank order, into all[0 .. ranks): the local reduce into *mine
 * (the identity for an empty shard), then an all-gather. */
template <class Op>
static cudaError_t gp__nccl_totals(typename Op::type *all, typename Op::type *mine, const typename Op::type *d_in,
                                   size_t n, const gp__nccl_calls<typename Op::type> &f, ncclComm_t comm,
                                   cudaStream_t s)
{
    typedef typename Op::type T;
    if (n > 0) {
        GP__TRY(f.reduce(mine, d_in, n, s));
    } else {
        void *args[] = {&mine};
        GP__TRY(gp__kernel_load<gp__nccl_identity_kernel<Op>>());
        GP__TRY(cudaLaunchKernel((const void *)gp__nccl_identity_kernel<Op>, dim3(1), dim3(1), args, 0, s));
    }
    return gp__nccl_err(ncclAllGather(mine, all, sizeof(T), ncclUint8, comm, s));
}

/* The host side of every gp_nccl_reduce_<name>. */
template <class Op>
static cudaError_t gp__nccl_reduce(typename Op::type *d_out, const typename Op::type *d_in, size_t n, ncclComm_t comm,
                                   cudaStream_t s, const gp__nccl_calls<typename Op::type> &f)
{
    typedef typename Op::type T;
    if (d_out == NULL || (n > 0 && d_in == NULL)) return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__nccl_where w;
    GP__TRY(gp__nccl_locate(comm, on.dev, &w));
    T *scratch = NULL; /* [0, ranks): the gathered totals; [ranks]: this rank's */
    GP__TRY(gp__scratch_alloc((void **)&scratch, (w.ranks + 1) * sizeof(T), on.dev, s));
    cudaError_t err = gp__nccl_totals<Op>(scratch, scratch + w.ranks, d_in, n, f, comm, s);
    if (err == cudaSuccess) err = f.reduce(d_out, scratch, (size_t)w.ranks, s); /* rank order */
    return gp__nccl_free(scratch, s, err);
}

/* The host side of every gp_nccl_{exclusive,inclusive}_scan_<name> (f.scan_init is the
 * exclusive or the inclusive one). */
template <class Op>
static cudaError_t gp__nccl_scan(typename Op::type *d_out, const typename Op::type *d_in, size_t n, ncclComm_t comm,
                                 cudaStream_t s, const gp__nccl_calls<typename Op::type> &f)
{
    typedef typename Op::type T;
    if (n > 0 && (d_out == NULL || d_in == NULL || n > SIZE_MAX / 2 / sizeof(T))) return cudaErrorInvalidValue;
    if (n > 0 && d_out != d_in && gp__ranges_overlap(d_in, n * sizeof(T), d_out, n * sizeof(T)))
        return cudaErrorInvalidValue;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__nccl_where w;
    GP__TRY(gp__nccl_locate(comm, on.dev, &w));
    T *scratch = NULL; /* [0, P): the gathered totals; [P, 2P): their exclusive scan; [2P]: this rank's */
    GP__TRY(gp__scratch_alloc((void **)&scratch, (2 * (size_t)w.ranks + 1) * sizeof(T), on.dev, s));
    T *carries = scratch + w.ranks;
    cudaError_t err = gp__nccl_totals<Op>(scratch, scratch + 2 * w.ranks, d_in, n, f, comm, s);
    if (err == cudaSuccess) err = f.exclusive(carries, scratch, (size_t)w.ranks, s);
    if (err == cudaSuccess && n > 0) err = f.scan_init(d_out, d_in, n, carries + w.rank, s);
    return gp__nccl_free(scratch, s, err);
}

/* ---- transpose ---------------------------------------------------------------------------- */

/* What every rank says before the transpose moves anything. */
typedef struct gp__nccl_shape {
    uint64_t rows, cols, elem, ok;
} gp__nccl_shape;

/* All ranks' shapes, gathered and compared on the host: cudaSuccess on every rank if all
 * agree and are valid, else cudaErrorInvalidValue on every rank. */
static inline cudaError_t gp__nccl_agree(const gp__nccl_shape *mine, int ranks, int dev, ncclComm_t comm,
                                         cudaStream_t s)
{
    gp__nccl_shape *d = NULL;
    GP__TRY(gp__scratch_alloc((void **)&d, (ranks + 1) * sizeof *d, dev, s));
    gp__nccl_shape *all = (gp__nccl_shape *)malloc(ranks * sizeof *all);
    cudaError_t err = all ? cudaSuccess : cudaErrorMemoryAllocation;
    if (err == cudaSuccess) err = cudaMemcpyAsync(d + ranks, mine, sizeof *mine, cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess) err = gp__nccl_err(ncclAllGather(d + ranks, d, sizeof *d, ncclUint8, comm, s));
    if (err == cudaSuccess) err = cudaMemcpyAsync(all, d, ranks * sizeof *all, cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    for (int r = 0; err == cudaSuccess && r < ranks; r++)
        if (!all[r].ok || all[r].rows != mine->rows || all[r].cols != mine->cols || all[r].elem != mine->elem)
            err = cudaErrorInvalidValue;
    free(all);
    return gp__nccl_free(d, s, err);
}

/* Piece k of K of a tile's c columns: columns [c*k/K, c*(k+1)/K). */
static inline size_t gp__nccl_cut(size_t c, size_t k, size_t pieces) { return c * k / pieces; }

/* Strided transpose: out (cols x rows, ld_out) = in (rows x cols, ld_in)^T. */
template <class T>
using gp__nccl_strided_fn = cudaError_t (*)(T *, size_t, const T *, size_t, size_t, size_t, cudaStream_t);

/* ---- the unpack: rows of bytes from contiguous staging into strided columns -----------------
 * cudaMemcpy2DAsync did it first, at 1.7 TB/s (read + write) on an H200 for 16 GB tiles,
 * 0.40 of the device's copy rate (cudaMemcpyAsync, 4.2 TB/s); this kernel reaches 0.95. A
 * copy needs no element boundaries, so the kernel moves the widest vector (16, 8 or 4
 * bytes) that both addresses, both pitches and the width allow, else single bytes; each
 * thread has UNROLL vectors in flight. Blocks take a row (y) and a run of its vectors (x),
 * so no index is divided. */
#define GP__NCCL_COPY_THREADS 256
#define GP__NCCL_COPY_UNROLL 4
#define GP__NCCL_GRID_Y_MAX 65535u /* blocks in gridDim.y */

template <class V>
__global__ void __launch_bounds__(GP__NCCL_COPY_THREADS)
    gp__nccl_copy_rows_kernel(char *dst, size_t dpitch, const char *src, size_t spitch, size_t units, size_t rows)
{
    constexpr int U = GP__NCCL_COPY_UNROLL, NT = GP__NCCL_COPY_THREADS;
    const size_t step = (size_t)gridDim.x * NT * U;
    for (size_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const V *in = reinterpret_cast<const V *>(src + y * spitch);
        V *out = reinterpret_cast<V *>(dst + y * dpitch);
        for (size_t x = (size_t)blockIdx.x * NT * U + threadIdx.x; x < units; x += step) {
            V v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (x + (size_t)u * NT < units) v[u] = in[x + (size_t)u * NT];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (x + (size_t)u * NT < units) out[x + (size_t)u * NT] = v[u];
        }
    }
}

template <class V>
static cudaError_t gp__nccl_copy_rows_as(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t rows, cudaStream_t s)
{
    const size_t units = width / sizeof(V), per_block = (size_t)GP__NCCL_COPY_THREADS * GP__NCCL_COPY_UNROLL;
    const dim3 grid((unsigned)gp__min_size(gp__ceil_div(units, per_block), GP__GRID_MAX),
                    (unsigned)gp__min_size(rows, GP__NCCL_GRID_Y_MAX));
    GP__TRY(gp__kernel_load<gp__nccl_copy_rows_kernel<V>>());
    gp__nccl_copy_rows_kernel<V><<<grid, GP__NCCL_COPY_THREADS, 0, s>>>((char *)dst, dpitch, (const char *)src,
                                                                        spitch, units, rows);
    return cudaGetLastError();
}

/* rows rows of width bytes: dst (row pitch dpitch bytes) = src (row pitch spitch), as
 * cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToDevice, s). */
static inline cudaError_t gp__nccl_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                             size_t rows, cudaStream_t s)
{
    if (width == 0 || rows == 0) return cudaSuccess;
    switch (gp__tile_chunk_bytes((uintptr_t)dst | (uintptr_t)src, dpitch | spitch, width, 1)) {
    case 16: return gp__nccl_copy_rows_as<uint4>(dst, dpitch, src, spitch, width, rows, s);
    case 8: return gp__nccl_copy_rows_as<uint2>(dst, dpitch, src, spitch, width, rows, s);
    case 4: return gp__nccl_copy_rows_as<unsigned>(dst, dpitch, src, spitch, width, rows, s);
    default: return gp__nccl_copy_rows_as<unsigned char>(dst, dpitch, src, spitch, width, rows, s);
    }
}

/* Knobs for the bench's ladder (NULL: the defaults). piece_bytes: the pieces' size (0:
 * GP__NCCL_PIECE_BYTES); each of the others, set, brings back one thing the first version
 * did: default_priority, the exchange's stream at the default priority; memcpy2d_unpack,
 * the unpack by cudaMemcpy2DAsync; whole_stay, the tile that stays transposed in one call,
 * at the first piece. */
typedef struct gp__nccl_transpose_knobs {
    size_t piece_bytes;
    int default_priority, memcpy2d_unpack, whole_stay;
} gp__nccl_transpose_knobs;

/* The exchange, with the validated shape: r = rows/P rows of the input per rank, c =
 * cols/P rows of the output per rank; the tile (this rank -> rank j) is the input's
 * columns [j*c, (j+1)*c), transposed (c x r). Staging: send and recv, (P-1) tiles each,
 * peer q at q*c*r (peers in rank order, this rank left out). Piece k of every tile on s:
 * transposed into send; then on the second stream x: sent and received (one NCCL group);
 * then back on s, this rank's own piece transposed into place, and, once the exchange of
 * piece k-1 is done, that piece copied from recv into the output's columns [i*r, (i+1)*r).
 * Stream s runs pack 0, own 0, pack 1, own 1, unpack 0, pack 2, own 2, unpack 1, ...: the
 * exchange of piece k overlaps own k, unpack k-1 and pack k+1, and pack k+1 is ready
 * before the exchange of piece k ends as long as the local work of a piece takes less
 * time than its exchange.
 * Why x has the greatest priority: a kernel's blocks are dispatched as SMs free up, and
 * at equal priority the blocks of a grid that started first go first, so NCCL's kernel,
 * launched while a transpose of millions of blocks fills every SM, waits for that grid's
 * last wave; at a greater priority its blocks take the first SMs that free up. On two
 * H200s (32 GB shards, the all-to-all alone 43.7 ms) the first version took 76.8 ms, 58.7
 * with x at the greatest priority alone; this form takes 53.0 ms, 58.4 without it. The
 * tile that stays, whole at the first piece, held pack 1 back by its whole time: in
 * pieces, 6.8 ms less. The copy kernel (7.9 ms for the unpack alone, against 18.9 by
 * cudaMemcpy2DAsync) takes 10.2 ms off the first version, but in this form the unpack
 * hides under the exchange either way (52.8 ms with cudaMemcpy2DAsync). */
template <class T>
static cudaError_t gp__nccl_exchange(T *d_out, const T *d_in, size_t rows, size_t cols, const gp__nccl_where &w,
                                     ncclComm_t comm, cudaStream_t s, gp__nccl_strided_fn<T> tr, T *send, T *recv,
                                     cudaStream_t x, cudaEvent_t packed, cudaEvent_t moved[2],
                                     const gp__nccl_transpose_knobs &kn)
{
    const size_t P = (size_t)w.ranks, me = (size_t)w.rank, r = rows / P, c = cols / P;
    const size_t grain = kn.piece_bytes ? kn.piece_bytes : GP__NCCL_PIECE_BYTES;
    const size_t want = gp__ceil_div(r * c * sizeof(T), grain);
    const size_t pieces = gp__min_size(c, want > 0 ? want : 1);
    for (size_t k = 0; k <= pieces; k++) {
        if (k < pieces) { /* pack piece k for every peer; hand it to the exchange */
            const size_t c0 = gp__nccl_cut(c, k, pieces), c1 = gp__nccl_cut(c, k + 1, pieces);
            for (size_t j = 0, q = 0; j < P; j++) {
                if (j == me) continue;
                GP__TRY(tr(send + q * c * r + c0 * r, r, d_in + j * c + c0, cols, r, c1 - c0, s));
                q++;
            }
            GP__TRY(cudaEventRecord(packed, s));
            GP__TRY(cudaStreamWaitEvent(x, packed, 0));
            GP__NCCL_TRY(ncclGroupStart());
            ncclResult_t nr = ncclSuccess;
            for (size_t j = 0, q = 0; j < P && nr == ncclSuccess; j++) {
                if (j == me) continue;
                const size_t off = q * c * r + c0 * r, bytes = (c1 - c0) * r * sizeof(T);
                nr = ncclSend(send + off, bytes, ncclUint8, (int)j, comm, x);
                if (nr == ncclSuccess) nr = ncclRecv(recv + off, bytes, ncclUint8, (int)j, comm, x);
                q++;
            }
            const ncclResult_t ended = ncclGroupEnd();
            GP__NCCL_TRY(nr != ncclSuccess ? nr : ended);
            GP__TRY(cudaEventRecord(moved[k % 2], x));
            /* this rank's own piece, straight into place while piece k moves (whole_stay:
             * the whole tile at k == 0, which held pack 1 back by its whole time) */
            const size_t o0 = kn.whole_stay ? 0 : c0, o1 = kn.whole_stay ? c : c1;
            if (!kn.whole_stay || k == 0)
                GP__TRY(tr(d_out + o0 * rows + me * r, rows, d_in + me * c + o0, cols, r, o1 - o0, s));
        }
        if (k > 0) { /* unpack piece k-1 from every peer */
            const size_t c0 = gp__nccl_cut(c, k - 1, pieces), c1 = gp__nccl_cut(c, k, pieces);
            GP__TRY(cudaStreamWaitEvent(s, moved[(k - 1) % 2], 0));
            for (size_t i = 0, q = 0; i < P; i++) {
                if (i == me) continue;
                T *dst = d_out + c0 * rows + i * r;
                const T *src = recv + q * c * r + c0 * r;
                const size_t width = r * sizeof(T);
                GP__TRY(kn.memcpy2d_unpack ? cudaMemcpy2DAsync(dst, rows * sizeof(T), src, width, width, c1 - c0,
                                                               cudaMemcpyDeviceToDevice, s)
                                           : gp__nccl_copy_rows(dst, rows * sizeof(T), src, width, width, c1 - c0, s));
                q++;
            }
        }
    }
    return cudaSuccess;
}

/* The host side of every gp_nccl_transpose_<name> (knobs: the bench's ladder). */
template <class T>
static cudaError_t gp__nccl_transpose(T *d_out, const T *d_in, size_t rows, size_t cols, ncclComm_t comm,
                                      cudaStream_t s, gp__nccl_strided_fn<T> tr,
                                      const gp__nccl_transpose_knobs *knobs = NULL)
{
    static const gp__nccl_transpose_knobs defaults = {0, 0, 0, 0};
    const gp__nccl_transpose_knobs &kn = knobs ? *knobs : defaults;
    const gp__stream_device on(s);
    GP__TRY(on.err);
    gp__nccl_where w;
    GP__TRY(gp__nccl_locate(comm, on.dev, &w));
    const size_t P = (size_t)w.ranks, r = rows / P, c = cols / P;
    /* this rank's arguments: P divides both sides, sizes fit, pointers where there is data,
     * input and output apart */
    const int fits = rows % P == 0 && cols % P == 0 && (rows == 0 || r <= SIZE_MAX / sizeof(T) / cols) &&
                     (cols == 0 || c <= SIZE_MAX / sizeof(T) / rows);
    const size_t in_bytes = fits ? r * cols * sizeof(T) : 0, out_bytes = fits ? c * rows * sizeof(T) : 0;
    const int ok = fits && (in_bytes == 0 || (d_in != NULL && d_out != NULL &&
                                              !gp__ranges_overlap(d_in, in_bytes, d_out, out_bytes)));
    const gp__nccl_shape mine = {rows, cols, sizeof(T), (uint64_t)ok};
    GP__TRY(gp__nccl_agree(&mine, w.ranks, on.dev, comm, s));
    if (in_bytes == 0) return cudaSuccess;
    if (P == 1) return tr(d_out, rows, d_in, cols, rows, cols, s);

    /* Staging: send, then recv from recv_at bytes on. NCCL's LL protocol (its small
     * messages) loads 1-byte data (ncclUint8, as here) as the aligned 4-byte words that
     * cover it, up to 3 bytes past a message's end: compute-sanitizer caught such a read
     * past a 2-byte staging (a 1 x 1 u8 tile each way). So send is followed by at least
     * GP__VECTOR_BYTES of zeroed padding, recv starting aligned after it. */
    const size_t staged = (P - 1) * r * c, staged_bytes = staged * sizeof(T);
    const size_t recv_at = gp__round_up(staged_bytes + GP__VECTOR_BYTES, GP__SCRATCH_ALIGN);
    char *stage = NULL;
    GP__TRY(cudaMallocAsync((void **)&stage, recv_at + staged_bytes, s));
    cudaStream_t x = NULL;
    cudaEvent_t packed = NULL, moved[2] = {NULL, NULL};
    int least = 0, greatest = 0;
    cudaError_t err = cudaMemsetAsync(stage + staged_bytes, 0, recv_at - staged_bytes, s);
    if (err == cudaSuccess) err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (err == cudaSuccess)
        err = cudaStreamCreateWithPriority(&x, cudaStreamNonBlocking, kn.default_priority ? 0 : greatest);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&packed, cudaEventDisableTiming);
    for (int k = 0; k < 2 && err == cudaSuccess; k++) err = cudaEventCreateWithFlags(&moved[k], cudaEventDisableTiming);
    if (err == cudaSuccess)
        err = gp__nccl_exchange<T>(d_out, d_in, rows, cols, w, comm, s, tr, (T *)stage, (T *)(stage + recv_at), x,
                                   packed, moved, kn);
    /* s waits for all of x's work (also after an error part-way), then frees the staging;
     * the stream and events can go now (their destruction waits for pending work) */
    if (x && packed && cudaEventRecord(packed, x) == cudaSuccess) cudaStreamWaitEvent(s, packed, 0);
    err = gp__nccl_free(stage, s, err);
    if (x) cudaStreamDestroy(x);
    if (packed) cudaEventDestroy(packed);
    for (int k = 0; k < 2; k++)
        if (moved[k]) cudaEventDestroy(moved[k]);
    return err;
}

/* ---- instantiation (the shape of the core families: see the end of detail/device/reduce.cuh) ---- */
#define GP__DEFINE_NCCL_REDUCE_HOST(SCOPE, name, T, OPS, REDUCE)                                          \
    SCOPE cudaError_t gp_nccl_reduce_##name(T *d_out, const T *d_in_shard, size_t n_local, ncclComm_t comm, \
                                            cudaStream_t s)                                              \
    {                                                                                                    \
        const gp__nccl_calls<T> f = {REDUCE, NULL, NULL};                                                \
        return gp__nccl_reduce<OPS>(d_out, d_in_shard, n_local, comm, s, f);                             \
    }
#define GP__DEFINE_NCCL_SCAN_HOST(SCOPE, name, T, OPS, REDUCE, EXCLUSIVE, EX_INIT, IN_INIT)                   \
    SCOPE cudaError_t gp_nccl_exclusive_scan_##name(T *d_out, const T *d_in_shard, size_t n_local,           \
                                                    ncclComm_t comm, cudaStream_t s)                         \
    {                                                                                                        \
        const gp__nccl_calls<T> f = {REDUCE, EXCLUSIVE, EX_INIT};                                            \
        return gp__nccl_scan<OPS>(d_out, d_in_shard, n_local, comm, s, f);                                   \
    }                                                                                                        \
    SCOPE cudaError_t gp_nccl_inclusive_scan_##name(T *d_out, const T *d_in_shard, size_t n_local,           \
                                                    ncclComm_t comm, cudaStream_t s)                         \
    {                                                                                                        \
        const gp__nccl_calls<T> f = {REDUCE, EXCLUSIVE, IN_INIT};                                            \
        return gp__nccl_scan<OPS>(d_out, d_in_shard, n_local, comm, s, f);                                   \
    }
#define GP__DEFINE_NCCL_TRANSPOSE_HOST(SCOPE, name, T)                                                        \
    SCOPE cudaError_t gp_nccl_transpose_##name(T *d_out, const T *d_in, size_t rows, size_t cols,             \
                                               ncclComm_t comm, cudaStream_t s)                              \
    {                                                                                                        \
        return gp__nccl_transpose<T>(d_out, d_in, rows, cols, comm, s, gp_transpose_strided_##name);         \
    }

/* GP_DEFINE_NCCL_REDUCE(name, T): gp_nccl_reduce_<name>, built on GP_DEFINE_REDUCE(name, ...)
 * GP_DEFINE_NCCL_SCAN(name, T): gp_nccl_{exclusive,inclusive}_scan_<name>, built on
 *   GP_DEFINE_SCAN(name, ...) (its operator also makes the local totals)
 * GP_DEFINE_NCCL_TRANSPOSE(name, T): gp_nccl_transpose_<name>, built on GP_DEFINE_TRANSPOSE(name, T)
 * At file scope of a .cu file, after the instance they build on; TU-local (static). */
#define GP_DEFINE_NCCL_REDUCE(name, T) \
    GP__DEFINE_NCCL_REDUCE_HOST([[maybe_unused]] static, name, T, gp__op_reduce_##name, gp_reduce_##name)
#define GP_DEFINE_NCCL_SCAN(name, T)                                                                       \
    GP__DEFINE_NCCL_SCAN_HOST([[maybe_unused]] static, name, T, gp__op_scan_##name,                         \
                              gp__reduce<gp__op_scan_##name>, gp_exclusive_scan_##name,                     \
                              gp_exclusive_scan_init_##name, gp_inclusive_scan_init_##name)
#define GP_DEFINE_NCCL_TRANSPOSE(name, T) GP__DEFINE_NCCL_TRANSPOSE_HOST([[maybe_unused]] static, name, T)

/* The default instances, compiled where GPUPRIMS_NCCL_IMPLEMENTATION is (lib/nccl/nccl.cu). */
#ifdef GPUPRIMS_NCCL_IMPLEMENTATION
#define GP__NCCL_OP_ROW(name, T, op, kind, OP, IDENTITY)                                                   \
    GP__DEFINE_NCCL_REDUCE_HOST(extern "C", name, T, gp__op_##name, gp_reduce_##name)                       \
    GP__DEFINE_NCCL_SCAN_HOST(extern "C", name, T, gp__op_##name, gp_reduce_##name, gp_exclusive_scan_##name, \
                              gp_exclusive_scan_init_##name, gp_inclusive_scan_init_##name)
GP__OP_INSTANCES(GP__NCCL_OP_ROW)
#define GP__NCCL_TRANSPOSE_ROW(name, T) GP__DEFINE_NCCL_TRANSPOSE_HOST(extern "C", name, T)
GP__TRANSPOSE_INSTANCES(GP__NCCL_TRANSPOSE_ROW)
#endif

#else /* not CUDA */
#define GP_DEFINE_NCCL_REDUCE(name, T) GP__NEEDS_CUDA(GP_DEFINE_NCCL_REDUCE)
#define GP_DEFINE_NCCL_SCAN(name, T) GP__NEEDS_CUDA(GP_DEFINE_NCCL_SCAN)
#define GP_DEFINE_NCCL_TRANSPOSE(name, T) GP__NEEDS_CUDA(GP_DEFINE_NCCL_TRANSPOSE)
#endif /* __CUDACC__ */
#endif /* GPUPRIMS_NCCL_CUH */
