/* detail/util/scratch.cuh -- stream-ordered scratch memory for the device-wide primitives.
 * Level 0: host code (C++), needs check.cuh and device_cache.cuh.
 *
 * Scratch comes from cudaMallocFromPoolAsync / cudaFreeAsync on one memory pool per
 * device that the library creates on first use, with the release threshold raised so the
 * pool keeps what the calls took, up to 1/GP__SCRATCH_KEEP_SHARE of the device's memory
 * (10 GB on an 80 GB H100), between calls. Memory given back at a synchronisation is
 * mapped afresh by the next call that needs it, and that costs as much as the work: the
 * device's default pool (threshold 0) cost ~45 us per reduce on an H200, and a pool that
 * kept only 64 MB cost a 2^28-value histogram over 2^24 bins 0.55 ms a call (1.9 ms against
 * 1.34, H100), its 570 MB mapped again after each synchronisation. We leave the user's
 * default pool settings alone. gp_release_device_state(device) gives the kept memory back
 * (status.cuh); above the share, the pool gives it back at the next synchronisation. No
 * data lives in the pool between calls: each call gets its own block, stream-ordered, so
 * concurrent calls on several streams and graph capture are safe. */
#ifndef GPUPRIMS_DETAIL_SCRATCH_CUH
#define GPUPRIMS_DETAIL_SCRATCH_CUH

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "check.cuh"
#include "device_cache.cuh"

#ifdef __cplusplus
#ifndef GP__SCRATCH_KEEP_SHARE
#define GP__SCRATCH_KEEP_SHARE 8 /* the pool keeps up to 1/8 of the device's memory between calls */
#endif

/* A pool on device `dev` that keeps up to 1/GP__SCRATCH_KEEP_SHARE of its memory between calls. */
inline cudaError_t gp__scratch_pool_create(int dev, cudaMemPool_t *pool)
{
    cudaDeviceProp prop;
    GP__TRY(cudaGetDeviceProperties(&prop, dev));
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    *pool = NULL;
    GP__TRY(cudaMemPoolCreate(pool, &props));
    uint64_t keep = (uint64_t)prop.totalGlobalMem / GP__SCRATCH_KEEP_SHARE;
    return cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep);
}

/* The library's pool for device `dev`, created once (thread-safe; a loser of the creation
 * race destroys its own pool and takes the winner's: device_cache.cuh). An `inline`
 * function: one pool per program, not per TU. */
inline gp__device_cache<cudaMemPool_t> &gp__scratch_pools(void)
{
    static gp__device_cache<cudaMemPool_t> pools;
    return pools;
}
inline cudaError_t gp__scratch_pool(int dev, cudaMemPool_t *pool)
{
    if (dev < 0 || dev >= GP__MAX_DEVICES) return cudaErrorInvalidDevice;
    return gp__scratch_pools().get(
        dev, 0, pool,
        [&](cudaMemPool_t *p) {
            /* The first call may come inside a stream capture; creating a pool there is an
             * "unsafe" call that would invalidate a global-mode capture. Relaxed mode for
             * this thread, for the creation only (the documented way for lazy initialisation). */
            cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
            GP__TRY(cudaThreadExchangeStreamCaptureMode(&mode));
            cudaError_t err = gp__scratch_pool_create(dev, p);
            const cudaError_t restore = cudaThreadExchangeStreamCaptureMode(&mode);
            if (err == cudaSuccess) err = restore;
            if (err != cudaSuccess && *p) cudaMemPoolDestroy(*p);
            return err;
        },
        [](cudaMemPool_t *p) { cudaMemPoolDestroy(*p); });
}

/* bytes of scratch on stream s, for device dev; release with cudaFreeAsync(p, s). */
static inline cudaError_t gp__scratch_alloc(void **p, size_t bytes, int dev, cudaStream_t s)
{
    cudaMemPool_t pool = NULL; /* set on success; gcc -O1 cannot see that and warns */
    GP__TRY(gp__scratch_pool(dev, &pool));
    return cudaMallocFromPoolAsync(p, bytes, pool, s);
}

#endif /* __cplusplus */
#endif /* GPUPRIMS_DETAIL_SCRATCH_CUH */
