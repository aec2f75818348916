/* tests/scan_wrap.h -- type-erased wrappers ex_<name> / in_<name> around the exclusive and
 * inclusive device scans of one instance, and exi_<name> / ini_<name> around the same scans
 * from a carry-in, shared by the scan tests. */
#ifndef GPUPRIMS_TESTS_SCAN_WRAP_H
#define GPUPRIMS_TESTS_SCAN_WRAP_H

#define SCAN_WRAPPERS(name, T)                                                                          \
    [[maybe_unused]] static cudaError_t ex_##name(void *o, const void *i, size_t n, cudaStream_t s)                     \
    {                                                                                                  \
        return gp_exclusive_scan_##name((T *)o, (const T *)i, n, s);                                   \
    }                                                                                                  \
    [[maybe_unused]] static cudaError_t in_##name(void *o, const void *i, size_t n, cudaStream_t s)                     \
    {                                                                                                  \
        return gp_inclusive_scan_##name((T *)o, (const T *)i, n, s);                                   \
    }                                                                                                  \
    [[maybe_unused]] static cudaError_t exi_##name(void *o, const void *i, size_t n, const void *c, cudaStream_t s)     \
    {                                                                                                  \
        return gp_exclusive_scan_init_##name((T *)o, (const T *)i, n, (const T *)c, s);                \
    }                                                                                                  \
    [[maybe_unused]] static cudaError_t ini_##name(void *o, const void *i, size_t n, const void *c, cudaStream_t s)     \
    {                                                                                                  \
        return gp_inclusive_scan_init_##name((T *)o, (const T *)i, n, (const T *)c, s);                \
    }

#endif
