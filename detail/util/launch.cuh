/* detail/util/launch.cuh -- the launch skeleton that every device-wide primitive with a
 * cross-block step shares (reduce and scan today): the device's properties, the launch
 * mode, stream-ordered scratch, and one cluster or grid launch. Level 0 (host code): needs
 * check.cuh, scratch.cuh, status.cuh, device_cache.cuh and common.cuh.
 *
 * A primitive plans its launch from n, the pointers and gp__device (plain host/device
 * arithmetic, tested on the host), fills a gp__launch_shape, and hands the skeleton a
 * callable that launches its kernel on a cudaLaunchConfig_t and a scratch pointer. Modes:
 *   GP__ONE_BLOCK  one block does everything; no scratch.
 *   GP__CLUSTER    up to GP__CLUSTER_MAX blocks (16 where gp__cluster_limit allows) as one
 *                  thread-block cluster (sm_90+):
 *                  blocks exchange partial results through distributed shared memory;
 *                  no scratch. Planned only when the device can launch clusters and this
 *                  translation unit was built for sm_90 or later (gp__built_for_clusters),
 *                  so older targets take ONE_BLOCK or GRID instead, with no device-side
 *                  fallback to keep in step.
 *   GP__GRID       a full grid; blocks exchange through `scratch_bytes` of stream-ordered
 *                  scratch (scratch.cuh), of which the first `scratch_zeroed` bytes are
 *                  cleared before the launch (tickets, tile counters, status flags).
 *                  A kernel that calls gp__chain_wait() before it touches the scratch
 *                  (shape.scratch_wait; sm_90+) is launched as a programmatic dependent of a
 *                  small zeroing kernel: it starts while the zeroing runs and waits only at
 *                  that call, where a plain cudaMemsetAsync would cost its launch and
 *                  completion (2-4 us on an H100) before the kernel could even start.
 * The scratch is freed on the stream after the launch (stream-ordered), so nothing lives
 * between calls: concurrent calls on several streams and graph capture are safe. */
#ifndef GPUPRIMS_DETAIL_LAUNCH_CUH
#define GPUPRIMS_DETAIL_LAUNCH_CUH

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "common.cuh"
#include "check.cuh"
#include "scratch.cuh"
#include "device_cache.cuh"
#include "status.cuh"

enum { GP__ONE_BLOCK = 0, GP__CLUSTER = 1, GP__GRID = 2 };

/* What a plan needs to know of the current device. */
typedef struct gp__device {
    int id;
    unsigned sms;      /* multiprocessors */
    int cluster_ok;    /* clusters can be launched, and this TU has sm_90+ code for them */
    int smem_block;    /* shared memory a block may opt in to (227 KB on sm_90, 99 KB on sm_86) */
    int smem_sm;       /* shared memory per SM (228 KB on sm_90) */
    int smem_reserved; /* shared memory the system keeps per block (1 KB since sm_80) */
    unsigned mem_gbs_sm; /* peak DRAM bandwidth per multiprocessor, GB/s (H100 SXM 25, H200 36;
                          * 0 where the device does not say): how many bytes an SM must keep
                          * in flight to do its share */
} gp__device;

typedef struct gp__launch_shape {
    int mode;              /* GP__ONE_BLOCK, GP__CLUSTER or GP__GRID */
    unsigned blocks;       /* grid size (the cluster size in GP__CLUSTER) */
    unsigned threads;      /* block size */
    size_t smem_bytes;     /* dynamic shared memory per block */
    size_t scratch_bytes;  /* GP__GRID: scratch to allocate (0: none) */
    size_t scratch_zeroed; /* bytes of it cleared before the launch */
    int scratch_wait;      /* the kernel calls gp__chain_wait() first: the clearing may overlap
                            * its launch (set only for sm_90 code on an sm_90+ device) */
    int status_kept;       /* 0, or the kernel's layout key (GP__STATUS_*, status.cuh): it keeps
                            * the status-memory protocol, its first `scratch_zeroed` bytes
                            * being tagged words and counters it leaves as found, so an eager
                            * call runs on the region of its stream and layout with no
                            * clearing (a chained kernel calls gp__chain_wait() first) */
    int chain;             /* the kernel (or the zeroing kernel before it) waits for the stream's
                            * earlier work before it touches memory (griddepcontrol.wait): it is
                            * launched as that work's programmatic dependent, so that back-to-back
                            * calls overlap their launches (sm_90 code on an sm_90+ device only) */
} gp__launch_shape;

#ifdef __CUDACC__

/* For the length of one call, the device of the stream `s` is the current one (a call on a
 * stream of device 1 while device 0 is current launches on device 1, with device 1's
 * scratch pool); the caller's current device is restored on return. Check `err` first.
 * The default streams (0, cudaStreamLegacy, cudaStreamPerThread) belong to the current
 * device, and a capturing stream may not be asked (cudaStreamGetDevice would invalidate
 * the capture): both keep the current device, with no query. */
struct gp__stream_device {
    int prev = -1, dev = -1;
    cudaError_t err;
    explicit gp__stream_device(cudaStream_t s)
    {
        err = cudaGetDevice(&prev);
        dev = prev;
        if (err != cudaSuccess || s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread) return;
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        err = cudaStreamIsCapturing(s, &capturing);
        if (err != cudaSuccess || capturing != cudaStreamCaptureStatusNone) return;
        err = cudaStreamGetDevice(s, &dev);
        if (err == cudaSuccess && dev != prev) err = cudaSetDevice(dev);
    }
    ~gp__stream_device()
    {
        if (dev >= 0 && prev >= 0 && dev != prev) cudaSetDevice(prev);
    }
    gp__stream_device(const gp__stream_device &) = delete;
    gp__stream_device &operator=(const gp__stream_device &) = delete;
};

/* Lazy loading (CUDA's default on Linux since 12.2) puts a kernel's code on the device the
 * first time the kernel is launched or queried, not when the program starts. On a GPU with
 * no memory left that load fails (cudaErrorUnknown on an H100 filled to 2 MB free), and
 * CUDA does not try it again: the kernel then fails for the rest of the process, even once
 * memory is freed. So every kernel of the library is loaded on purpose before its first
 * use on a device (cudaFuncGetAttributes, which the CUDA Programming Guide names as the way
 * to force a load), and only while GP__LOAD_HEADROOM bytes are free: on a fuller GPU the
 * call returns cudaErrorMemoryAllocation, launches nothing, leaves the kernel unloaded, and
 * a call made once memory is freed loads it. A heuristic, as any such check must be: the
 * load itself takes well under a megabyte of code memory, and the margin covers the page
 * it may have to map. With CUDA_MODULE_LOADING=EAGER every kernel is loaded at start-up,
 * and the check is skipped. Queries in relaxed capture mode: a first call may come inside
 * a global-mode stream capture, where other threads' "unsafe" calls are refused. */
#define GP__LOAD_HEADROOM ((size_t)32 << 20)

/* Loads `kernel` on the current device (see above) and returns its attributes. */
static inline cudaError_t gp__kernel_attributes(const void *kernel, cudaFuncAttributes *fa)
{
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    GP__TRY(cudaThreadExchangeStreamCaptureMode(&mode));
    const char *loading = getenv("CUDA_MODULE_LOADING");
    size_t free_bytes = GP__LOAD_HEADROOM, total_bytes = 0;
    cudaError_t err = loading && strcmp(loading, "EAGER") == 0 ? cudaSuccess : cudaMemGetInfo(&free_bytes, &total_bytes);
    if (err == cudaSuccess && free_bytes < GP__LOAD_HEADROOM) err = cudaErrorMemoryAllocation;
    if (err == cudaSuccess) err = cudaFuncGetAttributes(fa, kernel);
    const cudaError_t restore = cudaThreadExchangeStreamCaptureMode(&mode);
    return err != cudaSuccess ? err : restore;
}

/* Loads `kernel` on device `dev` (the current one) and, where smem_bytes with the kernel's
 * static shared memory is above the 48 KB a block gets without asking, opts it in to
 * smem_bytes of dynamic shared memory, unless the
 * caller's cache says both are done there: entry `which` of `loaded` (device_cache.cuh).
 * Both cost microseconds of host time, which a stream of mid-sized calls would pay every
 * time, so they are done once per device and kernel (host memory only; devices past
 * GP__MAX_DEVICES do them every time). cudaDeviceReset unloads the kernel and forgets the
 * opt-in, but not the cache: do not reset under the library. */
template <int KEYS>
static inline cudaError_t gp__kernel_load(const void *kernel, int dev, gp__device_cache<char, KEYS> &loaded, int which,
                                          int smem_bytes = 0)
{
    char done;
    return loaded.get(dev, which, &done, [&](char *ok) {
        cudaFuncAttributes fa;
        GP__TRY(gp__kernel_attributes(kernel, &fa));
        /* the 48 KB without opt-in count the kernel's static shared memory too */
        if (smem_bytes > 0 && (size_t)smem_bytes + fa.sharedSizeBytes > GP__STATIC_SMEM_MAX)
            GP__TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
        *ok = 1;
        return cudaSuccess;
    });
}

/* The same for a kernel known at compile time, on the current device, with its own cache
 * (so smem_bytes must be the same on every call). */
template <auto Kernel>
static inline cudaError_t gp__kernel_load(int smem_bytes = 0)
{
    static gp__device_cache<char> loaded;
    int dev = -1;
    GP__TRY(cudaGetDevice(&dev));
    return gp__kernel_load((const void *)Kernel, dev, loaded, 0, smem_bytes);
}

/* First thing in a kernel that is a programmatic dependent of the stream's earlier work
 * (gp__chained_launch, gp__launch_shape.chain or .scratch_wait: then the earlier work is
 * the zeroing kernel): waits until that work has finished and its writes are visible.
 * Nothing may be read or written before it. Without a programmatic launch it returns at
 * once. The stream's next programmatic dependent is then placed as this grid's blocks
 * exit; gp__chain_wait places it at once. */
static __device__ __forceinline__ void gp__chain_wait_only(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The wait, then the stream's next programmatic dependent (the next call) placed on the GPU
 * at once, where it waits in turn. Not for a call's own chain of grids (the sort's passes):
 * there the dependent's blocks, placed early, hold SM slots through the whole grid; measured
 * on the H100 (u32 keys, 16 sorts back to back, the probe alternated twice), 2^20 keys
 * 65.0-65.3 us a call unchained, 66.7-67.4 with this, 57.1-57.3 with gp__chain_wait_only. */
static __device__ __forceinline__ void gp__chain_wait(void)
{
    gp__chain_wait_only();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/* The launch attributes the primitives use: a programmatic dependent launch (the kernel
 * may be placed while the stream's earlier work runs; it waits with gp__chain_wait), and a
 * thread-block cluster of n blocks. */
#ifndef GP__PDL
#define GP__PDL 1 /* 0: every launch waits for the stream's earlier work in plain stream order */
#endif
static inline cudaLaunchAttribute gp__pdl_attribute(void)
{
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = GP__PDL;
    return a;
}
static inline cudaLaunchAttribute gp__cluster_attribute(unsigned n)
{
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = n;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    return a;
}

/* Launches kernel<<<blocks, threads, smem, s>>>(args...), as a programmatic dependent of
 * the stream's earlier work where `chain` (sm_90 code on an sm_90 device: gp__device's
 * cluster_ok): the kernel must call gp__chain_wait() first. Back-to-back calls then do not
 * each wait for a launch: the next grid is placed while this one finishes. */
template <class... Params, class... Args>
static cudaError_t gp__launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, size_t smem,
                              cudaStream_t s, bool chain, Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute pdl = gp__pdl_attribute();
    cfg.attrs = &pdl;
    cfg.numAttrs = chain ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}
/* The same without dynamic shared memory. */
template <class... Params, class... Args>
static cudaError_t gp__chained_launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t s,
                                      bool chain, Args... args)
{
    return gp__launch(kernel, blocks, threads, 0, s, chain, args...);
}

/* Clears `bytes` (a multiple of 8) at `p`, and lets the dependent launch begin at once. A
 * template so that a translation unit that never launches it compiles no copy. Chained, it
 * is placed on the GPU while the stream's earlier work runs, so it waits for that first:
 * the scratch may be memory that work still uses (the pool reuses blocks in stream order). */
template <int = 0>
__global__ void gp__scratch_zero_kernel(unsigned long long *p, size_t words)
{
    gp__chain_wait();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 0;
}
/* Launches it over `words` 8-byte words at `p` (4 words a thread, at most 1024 blocks of
 * 256), as the stream's earlier work's programmatic dependent where `chain`. */
static inline cudaError_t gp__scratch_zero(unsigned long long *p, size_t words, cudaStream_t s, bool chain)
{
    const size_t blocks = gp__ceil_div(words, (size_t)(256 * 4));
    return gp__launch(gp__scratch_zero_kernel<>, (unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, s, chain, p, words);
}

/* Blocks of `kernel` that fit on one SM with `threads` threads and `smem` bytes of dynamic
 * shared memory: the occupancy query costs microseconds of host time, which a stream of
 * mid-sized calls would pay every time, so the answer is kept in the caller's `cache`
 * under (device, key); none is kept, and cudaErrorInvalidConfiguration is returned, where
 * no block fits. */
template <class Kernel, int KEYS>
static inline cudaError_t gp__blocks_per_sm(gp__device_cache<int, KEYS> &cache, int dev, int key, Kernel kernel,
                                            unsigned threads, size_t smem, int *fit)
{
    return cache.get(dev, key, fit, [&](int *v) {
        GP__TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(v, kernel, (int)threads, smem));
        return *v < 1 ? cudaErrorInvalidConfiguration : cudaSuccess;
    });
}

/* The properties of device `id` (gp__stream_device's dev: the call's device), asked once
 * per device and translation unit (device_cache.cuh): asked on every call, the queries cost
 * a small product (gp_matmul_f32 at 1000^3, 70 us on the H100) 3%. */
static inline cudaError_t gp__device_query(gp__device *d, int id)
{
    static gp__device_cache<gp__device> known;
    return known.get(id, 0, d, [&](gp__device *q) {
        int sms, cluster, mem_khz, bus_bits;
        GP__TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
        GP__TRY(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, id));
        GP__TRY(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, id));
        GP__TRY(cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, id));
        GP__TRY(cudaDeviceGetAttribute(&q->smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, id));
        GP__TRY(cudaDeviceGetAttribute(&q->smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, id));
        GP__TRY(cudaDeviceGetAttribute(&q->smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock, id));
        q->id = id;
        q->sms = (unsigned)sms;
        /* two transfers a clock on every bit of the bus: kHz x bits / 4e6 = GB/s */
        q->mem_gbs_sm = sms > 0 ? (unsigned)((double)mem_khz * bus_bits / 4e6 / sms) : 0;
        q->cluster_ok = cluster && gp__built_for_clusters();
        return cudaSuccess;
    });
}

/* The largest thread-block cluster that `Kernel` may be launched with on device `dev`, at up
 * to `threads` threads a block: 16 where the device takes clusters beyond the portable 8 and
 * 16 such blocks fit in one GPC (the H100 and H200 do), else 8. Small primitives are bound
 * by what each SM can have in flight, so twice the SMs is nearly half the time. Asked once
 * per kernel and device (the kernel is allowed non-portable sizes on the way); a device
 * that refuses keeps 8. Call it only where clusters can be launched (gp__device.cluster_ok),
 * and only once the kernel is loaded (gp__kernel_load): the queries would load it. */
template <auto Kernel>
static inline unsigned gp__cluster_limit(int dev, unsigned threads)
{
    static gp__device_cache<int> known;
    int limit = GP__CLUSTER_MAX;
    known.get(dev, 0, &limit, [&](int *v) {
        cudaLaunchAttribute cluster = gp__cluster_attribute(16);
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(16);
        cfg.blockDim = dim3(threads);
        cfg.attrs = &cluster;
        cfg.numAttrs = 1;
        int size = 0;
        if (cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess ||
            cudaOccupancyMaxPotentialClusterSize(&size, Kernel, &cfg) != cudaSuccess)
            size = 0;
        *v = size >= 16 ? 16 : GP__CLUSTER_MAX;
        return cudaSuccess;
    });
    return (unsigned)limit;
}

/* Launches `launch(cfg, scratch, epoch)` (which returns cudaLaunchKernelEx's error) with the
 * grid, block, stream and cluster attribute of `shape`, around the scratch it needs.
 * GP__GRID with shape.status_kept, on a stream that is not capturing: the scratch is the
 * stream's status region (status.cuh) with its next epoch, and nothing is cleared. Otherwise
 * the scratch comes from the pool with its first `scratch_zeroed` bytes cleared, the epoch
 * is 1, and it is freed (stream-ordered) after the launch. Returns the first error. The
 * caller has loaded its kernels (gp__kernel_load) before: a call on a full GPU then fails
 * here, at the allocation, and leaves nothing half done. */
template <class Launch>
static cudaError_t gp__launch_device_wide(const gp__launch_shape &shape, int device, cudaStream_t s, Launch launch)
{
    cudaLaunchAttribute attrs[2], pdl = gp__pdl_attribute();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(shape.blocks);
    cfg.blockDim = dim3(shape.threads);
    cfg.dynamicSmemBytes = shape.smem_bytes;
    cfg.stream = s;
    cfg.attrs = attrs;
    if (shape.mode == GP__CLUSTER) attrs[cfg.numAttrs++] = gp__cluster_attribute(shape.blocks);
    if (shape.mode != GP__GRID || shape.scratch_bytes == 0) {
        if (shape.chain) attrs[cfg.numAttrs++] = pdl;
        return launch(cfg, (void *)NULL, 1u);
    }

    if (shape.status_kept) {
        bool served = false;
        const cudaError_t err =
            gp__status_run(device, s, shape.status_kept, shape.scratch_bytes, 1, &served, [&](void *mem, uint32_t epoch) {
                /* chained to the stream's earlier kernel, except right after the region's
                 * zeroing (epoch 1): a programmatic dependent waits (griddepcontrol.wait)
                 * for earlier grids, and a memset need not be one, so it follows the memset
                 * in plain stream order (as the per-call path below does) */
                if (shape.chain && epoch != 1) attrs[cfg.numAttrs++] = pdl;
                return launch(cfg, mem, epoch);
            });
        if (served || err != cudaSuccess) return err;
    }

    const size_t words = gp__ceil_div(shape.scratch_zeroed, (size_t)8); /* whole 8-byte words */
    const bool zero_kernel = shape.scratch_zeroed && shape.scratch_wait && words * 8 <= shape.scratch_bytes;
    if (zero_kernel) GP__TRY(gp__kernel_load<gp__scratch_zero_kernel<>>());
    void *scratch = NULL;
    GP__TRY(gp__scratch_alloc(&scratch, shape.scratch_bytes, device, s));
    cudaError_t err = cudaSuccess;
    if (zero_kernel) {
        err = gp__scratch_zero((unsigned long long *)scratch, words, s, shape.chain);
        attrs[cfg.numAttrs++] = pdl; /* the kernel: the zeroing's dependent */
    } else {
        if (shape.scratch_zeroed) err = cudaMemsetAsync(scratch, 0, shape.scratch_zeroed, s);
        else if (shape.chain) attrs[cfg.numAttrs++] = pdl; /* nothing in between: chained to the earlier work */
    }
    if (err == cudaSuccess) err = launch(cfg, scratch, 1u);
    const cudaError_t free_err = cudaFreeAsync(scratch, s);
    return err != cudaSuccess ? err : free_err;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_LAUNCH_CUH */
