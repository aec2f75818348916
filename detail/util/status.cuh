/* detail/util/status.cuh -- status memory: the one state the library keeps between calls.
 * Level 0 (host code): needs common.cuh, check.cuh and scratch.cuh.
 *
 * A single-pass kernel (scan, select, sort, ...) needs words that every block of one launch
 * sees start at "nothing yet": tile status words, a tile counter, a done counter. Clearing
 * them before each call costs a launch (about 1.3 us on an H100, and a dependency), and
 * allocating them costs pool traffic. Instead, each stream gets a region of device memory
 * that holds nothing but such words. It is zeroed once, when it is created, and every
 * kernel that uses it leaves it as it found it, by two rules:
 *   - a status word carries the call's epoch in its high 32 bits (gp__status_word in
 *     detail/agent/single_pass.cuh): a word whose tag is not this call's epoch is "not yet
 *     published", whatever an earlier call left in it, so tagged words need no reset;
 *   - an untagged word (a counter) is reset to 0 by the kernel before it ends (the last
 *     block to finish does it).
 * The epoch is a host counter per region, never 0, advanced by each call (by the number of
 * tags the call uses: a sort tags each pass's words apart); when it would wrap (after
 * 2^32 - 1 tags) the region is cleared once, stream-ordered, and it restarts.
 * Data that no protocol reads before writing (partials, carries) may live beside the
 * words in the same region.
 *
 * Layouts. A region belongs to one stream and one layout key (GP__STATUS_* below): the
 * kernels that share a key use one layout, in which each word is always a counter (0
 * between calls), always a tagged word, or always data written before it is read,
 * whatever the call's size and type. Two families never share a region: one's data or
 * tagged words would read as another's counters (or as its tagged words, when a data word
 * happened to carry the epoch in its high half).
 *
 * Ownership. A region belongs to one stream, named by cudaStreamGetId (unique for the
 * stream's lifetime, so a destroyed stream's reused handle, or each host thread's
 * per-thread default stream, gets a region of its own). Calls on one stream share it:
 * stream order separates them. The table is guarded by a lock held from the acquire
 * through the launch, so two host threads on one stream enqueue in epoch order. After each
 * launch an event records the region's last use; a region is reused for another stream, or
 * freed, only once that event has completed. A call under stream capture never takes a
 * region (a graph may be replayed on any stream, next to eager calls): it gets graph-owned
 * scratch cleared by a node of the graph, with epoch 1, as before status memory existed.
 *
 * Limits. GP__STATUS_SLOTS regions per device; GP__STATUS_MAX bytes per region. A call that
 * needs more, or finds every slot busy, takes the per-call path (scratch from the pool,
 * cleared before the launch): slower by a launch, never wrong. A region grows by
 * replacement: a new, larger, zeroed region is made on the stream and the old one freed
 * behind the stream's work. A launch that fails without poisoning the context discards its
 * region (freed on the stream), so a half-finished protocol never reaches the next call.
 * gp_release_device_state(device) waits for each region's last use and frees them all; it
 * is safe at exit and between calls. */
#ifndef GPUPRIMS_DETAIL_STATUS_CUH
#define GPUPRIMS_DETAIL_STATUS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "check.cuh"
#include "common.cuh"
#include "scratch.cuh"

#ifdef __cplusplus
#include <mutex>

#ifndef GP__STATUS_SLOTS
#define GP__STATUS_SLOTS 256 /* regions per device (streams x layouts in use at once) */
#endif

/* Layout keys (gp__launch_shape.status_kept): one per kernel layout. */
enum {
    GP__STATUS_SCAN = 1,     /* tile and done counters, then tagged tile totals */
    GP__STATUS_REDUCE,       /* one tagged total a block; tagged partials of narrow columns' chunks and rows' parts */
    GP__STATUS_SELECT,       /* tile and done counters, then tagged tile counts */
    GP__STATUS_SEGMENTED,    /* one tagged carry a block */
    GP__STATUS_SEGMENTED_SCAN, /* counters, then tagged (head, value) tile totals */
    GP__STATUS_HISTOGRAM,    /* done counter and bin accumulators, all returned to 0 */
    GP__STATUS_SORT,         /* digit counts and counters, offsets, then tagged tile counts (sort_kernels.cuh) */
    GP__STATUS_COLS,         /* a fixed span of counters (one a strip), then the chunks' partials (data) */
};
#ifndef GP__STATUS_MAX
#define GP__STATUS_MAX ((size_t)64 << 20) /* bytes per region; larger calls clear per call */
#endif

typedef struct gp__status_slot {
    unsigned long long stream_id; /* cudaStreamGetId of the owner; valid while `mem` != NULL */
    int key;                      /* its layout (GP__STATUS_*) */
    void *mem;                    /* `bytes` of device memory, zero or left as found */
    size_t bytes;
    uint32_t epoch;               /* the last epoch handed out (0: none yet) */
    cudaEvent_t last;             /* recorded after the region's last launch */
    unsigned long long used;      /* for the choice of a slot to recycle: least recently used */
} gp__status_slot;

typedef struct gp__status_device {
    std::mutex lock;
    gp__status_slot slot[GP__STATUS_SLOTS];
    unsigned long long clock;
} gp__status_device;

/* One table per program (an inline function's static: one across translation units). */
inline gp__status_device *gp__status_table(int dev)
{
    static gp__status_device table[GP__MAX_DEVICES];
    return dev >= 0 && dev < GP__MAX_DEVICES ? &table[dev] : NULL;
}

/* Frees a slot's region after its last use on the stream that used it (stream-ordered, so
 * the free waits for that work), or at once when `wait` (gp_release_device_state). */
static inline cudaError_t gp__status_drop(gp__status_slot *sl, cudaStream_t s, bool wait)
{
    cudaError_t err = cudaSuccess;
    if (sl->mem) {
        if (wait) {
            if (sl->last) err = cudaEventSynchronize(sl->last);
            const cudaError_t e = cudaFree(sl->mem);
            if (err == cudaSuccess) err = e;
        } else {
            err = cudaFreeAsync(sl->mem, s);
        }
    }
    sl->mem = NULL;
    sl->bytes = 0;
    sl->epoch = 0;
    return err;
}

/* What a launch gets: `mem` (at least the bytes asked for) and the epoch its words carry
 * (the first of the `epochs` it asked for). Epoch 1 is the first call on a region just made
 * and zeroed on the stream. */
typedef struct gp__status_lease {
    void *mem;
    uint32_t epoch;
    gp__status_slot *slot; /* NULL: per-call scratch (free `mem` on the stream after the launch) */
} gp__status_lease;

/* The region of the stream and layout `key`, grown to `bytes`, with its next epoch. Called with the device's lock
 * held. Returns cudaSuccess with lease->mem == NULL when no region can serve the call
 * (too large, or every slot busy): the caller takes the per-call path. */
static inline cudaError_t gp__status_take(gp__status_device *d, gp__status_lease *lease, size_t bytes, int key,
                                          int dev, cudaStream_t s, uint32_t epochs = 1)
{
    lease->mem = NULL;
    lease->slot = NULL;
    if (bytes > GP__STATUS_MAX) return cudaSuccess;
    unsigned long long id = 0;
    GP__TRY(cudaStreamGetId(s, &id));
    gp__status_slot *sl = NULL, *free_sl = NULL, *idle = NULL;
    for (int i = 0; i < GP__STATUS_SLOTS && !sl; i++) {
        gp__status_slot *c = &d->slot[i];
        if (c->mem && c->stream_id == id && c->key == key) sl = c;
        else if (!c->mem && !free_sl) free_sl = c;
    }
    if (!sl && !free_sl) { /* recycle the least recently used region whose work is done */
        for (int i = 0; i < GP__STATUS_SLOTS; i++) {
            gp__status_slot *c = &d->slot[i];
            if ((!idle || c->used < idle->used) && cudaEventQuery(c->last) == cudaSuccess) idle = c;
        }
        (void)cudaGetLastError(); /* cudaErrorNotReady from the queries is not an error */
        if (!idle) return cudaSuccess;
        GP__TRY(gp__status_drop(idle, s, false)); /* its work is done */
        free_sl = idle;
    }
    if (!sl) {
        sl = free_sl;
        if (!sl->last) GP__TRY(cudaEventCreateWithFlags(&sl->last, cudaEventDisableTiming));
        sl->stream_id = id;
        sl->key = key;
    }
    if (sl->bytes < bytes || sl->epoch > UINT32_MAX - epochs) {
        /* grow by replacement (or clear at the epoch's wrap): the old region is freed behind
         * the stream's work, the new one zeroed on the stream before the launch */
        size_t want = sl->bytes < bytes ? (bytes > 2 * sl->bytes ? bytes : 2 * sl->bytes) : sl->bytes;
        if (want > GP__STATUS_MAX) want = GP__STATUS_MAX;
        want = gp__ceil_div(want, (size_t)4096) * 4096;
        GP__TRY(gp__status_drop(sl, s, false));
        void *mem = NULL;
        GP__TRY(gp__scratch_alloc(&mem, want, dev, s));
        const cudaError_t err = cudaMemsetAsync(mem, 0, want, s);
        if (err != cudaSuccess) {
            cudaFreeAsync(mem, s);
            return err;
        }
        sl->mem = mem;
        sl->bytes = want;
        sl->epoch = 0;
    }
    lease->epoch = sl->epoch + 1;
    sl->epoch += epochs;
    sl->used = ++d->clock;
    lease->mem = sl->mem;
    lease->slot = sl;
    return cudaSuccess;
}

/* After the launch (err: its result): records the region's last use, or discards the
 * region when the launch failed, so that no half-run protocol is seen by the next call. */
static inline cudaError_t gp__status_done(gp__status_lease *lease, cudaError_t err, cudaStream_t s)
{
    gp__status_slot *sl = lease->slot;
    if (!sl) return err;
    if (err != cudaSuccess) {
        gp__status_drop(sl, s, false);
        return err;
    }
    return cudaEventRecord(sl->last, s);
}

/* 1 when s is capturing: then no region is taken (see the top of this file). */
static inline cudaError_t gp__stream_capturing(cudaStream_t s, int *capturing)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    GP__TRY(cudaStreamIsCapturing(s, &st));
    *capturing = st != cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

/* The status-memory path of a call: under the device's lock (held through `use`, so the
 * epochs of one stream are handed out in stream order), the region of stream s and layout
 * `key` with at least `bytes` and `epochs` fresh tags, then `use(mem, epoch)` (its launches;
 * epoch 1: the region was just zeroed by a memset on s, so the first launch must not be a
 * programmatic dependent), then the region's use recorded, or the region discarded if `use`
 * failed. *served is false, and nothing is run, where no region serves the call (stream
 * capture, too large, every slot busy): the caller takes its per-call path. */
template <class Use>
static inline cudaError_t gp__status_run(int dev, cudaStream_t s, int key, size_t bytes, uint32_t epochs, bool *served,
                                         Use use)
{
    *served = false;
    int capturing = 0;
    GP__TRY(gp__stream_capturing(s, &capturing));
    gp__status_device *d = capturing ? NULL : gp__status_table(dev);
    if (!d) return cudaSuccess;
    std::lock_guard<std::mutex> g(d->lock);
    gp__status_lease lease;
    GP__TRY(gp__status_take(d, &lease, bytes, key, dev, s, epochs));
    if (!lease.mem) return cudaSuccess;
    *served = true;
    return gp__status_done(&lease, use(lease.mem, lease.epoch), s);
}

/* gp_release_device_state: every region of `dev` freed after its last use, and the memory
 * the scratch pool (scratch.cuh) keeps between calls given back. */
static inline cudaError_t gp__release_device_state(int dev)
{
    gp__status_device *d = gp__status_table(dev);
    if (!d) return cudaErrorInvalidDevice;
    int cur = 0;
    GP__TRY(cudaGetDevice(&cur));
    GP__TRY(cudaSetDevice(dev));
    cudaError_t err = cudaSuccess;
    {
        std::lock_guard<std::mutex> g(d->lock);
        for (int i = 0; i < GP__STATUS_SLOTS; i++) {
            gp__status_slot *sl = &d->slot[i];
            const cudaError_t e = gp__status_drop(sl, 0, true);
            if (sl->last) cudaEventDestroy(sl->last);
            sl->last = NULL;
            if (err == cudaSuccess) err = e;
        }
    }
    /* and the scratch pool's kept memory (scratch.cuh), once the device's work is done;
     * a device whose pool was never made has none to give back */
    cudaMemPool_t pool;
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess && gp__scratch_pools().find(dev, 0, &pool)) err = cudaMemPoolTrimTo(pool, 0);
    const cudaError_t e = cudaSetDevice(cur);
    return err != cudaSuccess ? err : e;
}

#endif /* __cplusplus */
#endif /* GPUPRIMS_DETAIL_STATUS_CUH */
