/* detail/util/device_cache.cuh -- the one per-device cache: a value computed once per device
 * (and key) and then read without a lock. Level 0 (host code, C++): needs check.cuh.
 *
 * Queries that cost microseconds of host time (device attributes, occupancy, a kernel's
 * load and shared-memory opt-in, a memory pool's creation) would be paid by every call of
 * a stream of mid-sized calls; each is answered once per device and kept here:
 *
 *     static gp__device_cache<int, 4> fits;      // zero-initialised: a static needs no guard
 *     int fit;
 *     GP__TRY(fits.get(dev, key, &fit, [&](int *v) { return query(v); }));
 *
 * get(dev, key, out, compute, drop): the cached value when one is published (one acquire
 * load); else compute(&v) (which returns a cudaError_t; on an error nothing is kept and the
 * error is returned), and the first caller to claim the entry publishes its value. A caller
 * that loses the race to claim it drops its own value (drop(&v), if given: a pool it
 * created) and takes the winner's, so every caller sees one value per device and key. The
 * claim and the publication are two stores apart: a loser spins for that long at most.
 * Devices outside [0, GP__MAX_DEVICES) are computed every time and never kept; keys outside
 * [0, KEYS) likewise. Host memory only: cudaDeviceReset does not clear it (a kernel's load
 * and opt-in would then be forgotten by the device but not here): do not reset a device
 * under the library. */
#ifndef GPUPRIMS_DETAIL_DEVICE_CACHE_CUH
#define GPUPRIMS_DETAIL_DEVICE_CACHE_CUH

#include <cuda_runtime_api.h>
#include "check.cuh"

#ifdef __cplusplus
#define GP__MAX_DEVICES 64

struct gp__cache_no_drop {
    template <class T>
    void operator()(T *) const {}
};

template <class T, int KEYS = 1>
struct gp__device_cache {
    T value[GP__MAX_DEVICES][KEYS];
    int state[GP__MAX_DEVICES][KEYS]; /* 0: empty, 1: being published, 2: published */

    /* The value for (dev, key) if one is published; false (and nothing made) if not. */
    bool find(int dev, int key, T *out) const
    {
        if (dev < 0 || dev >= GP__MAX_DEVICES || key < 0 || key >= KEYS) return false;
        if (__atomic_load_n(&state[dev][key], __ATOMIC_ACQUIRE) != 2) return false;
        *out = value[dev][key];
        return true;
    }

    template <class Compute, class Drop = gp__cache_no_drop>
    cudaError_t get(int dev, int key, T *out, Compute compute, Drop drop = Drop())
    {
        const bool cacheable = dev >= 0 && dev < GP__MAX_DEVICES && key >= 0 && key < KEYS;
        if (cacheable && __atomic_load_n(&state[dev][key], __ATOMIC_ACQUIRE) == 2) {
            *out = value[dev][key];
            return cudaSuccess;
        }
        T v;
        GP__TRY(compute(&v));
        if (cacheable) {
            int empty = 0;
            if (__atomic_compare_exchange_n(&state[dev][key], &empty, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                value[dev][key] = v;
                __atomic_store_n(&state[dev][key], 2, __ATOMIC_RELEASE);
            } else { /* another caller claimed it first: its value is the one kept */
                drop(&v);
                while (__atomic_load_n(&state[dev][key], __ATOMIC_ACQUIRE) != 2) {
                }
                v = value[dev][key];
            }
        }
        *out = v;
        return cudaSuccess;
    }
};

#endif /* __cplusplus */
#endif /* GPUPRIMS_DETAIL_DEVICE_CACHE_CUH */
