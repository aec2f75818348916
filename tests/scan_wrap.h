/* tests/scan_wrap.h -- type-erased wrappers ex_<name> / in_<name> around the exclusive and
 * inclusive device scans of one instance, shared by the scan tests. */
#ifndef GPUPRIMS_TESTS_SCAN_WRAP_H
#define GPUPRIMS_TESTS_SCAN_WRAP_H

#define SCAN_WRAPPERS(name, T)                                                                          \
    static cudaError_t ex_##name(void *o, const void *i, size_t n, cudaStream_t s)                     \
    {                                                                                                  \
        return gp_exclusive_scan_##name((T *)o, (const T *)i, n, s);                                   \
    }                                                                                                  \
    static cudaError_t in_##name(void *o, const void *i, size_t n, cudaStream_t s)                     \
    {                                                                                                  \
        return gp_inclusive_scan_##name((T *)o, (const T *)i, n, s);                                   \
    }

#endif
