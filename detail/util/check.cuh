/* detail/util/check.cuh -- error checks for programs (CUDA_CHK, CUDA_CHK_LAUNCH) and the
 * library's own early-return helper (GP__TRY). Level 0: needs only the CUDA runtime API,
 * and compiles as plain C as well as CUDA C++.
 *
 * CUDA_CHK and CUDA_CHK_LAUNCH print and exit: they are for programs (tests, examples,
 * benches, users' own code). Library functions never print or exit; they return the
 * first cudaError_t they meet, through GP__TRY. */
#ifndef GPUPRIMS_DETAIL_CHECK_CUH
#define GPUPRIMS_DETAIL_CHECK_CUH

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/* Writes "file:line: call: errorName: errorString" into buf (always NUL-terminated when
 * cap > 0) and returns what snprintf returns. Split out of gp_check_fail so the message
 * format is testable on a machine without a GPU. */
static inline int gp_check_format(char *buf, size_t cap, cudaError_t err, const char *call,
                                  const char *file, int line)
{
    return snprintf(buf, cap, "%s:%d: %s: %s: %s", file, line, call, cudaGetErrorName(err),
                    cudaGetErrorString(err));
}

/* Prints the message above to stderr and exits with status 1. */
static inline void gp_check_fail(cudaError_t err, const char *call, const char *file, int line)
{
    char msg[1024];
    gp_check_format(msg, sizeof msg, err, call, file, line);
    fprintf(stderr, "%s\n", msg);
    exit(EXIT_FAILURE);
}

/* CUDA_CHK(call): evaluate a CUDA runtime call once; on failure report and exit. */
#define CUDA_CHK(call)                                                                     \
    do {                                                                                   \
        cudaError_t gp__chk_err = (call);                                                  \
        if (gp__chk_err != cudaSuccess) gp_check_fail(gp__chk_err, #call, __FILE__, __LINE__); \
    } while (0)

/* CUDA_CHK_LAUNCH(): right after a kernel launch. A bad configuration (say 10000 threads
 * per block) is reported only by cudaGetLastError(); an error inside the kernel (an
 * illegal address) only at the next synchronisation, which GP_DEBUG_SYNC adds here. */
#ifdef GP_DEBUG_SYNC
#define CUDA_CHK_LAUNCH()                                                                  \
    do {                                                                                   \
        CUDA_CHK(cudaGetLastError());                                                      \
        CUDA_CHK(cudaDeviceSynchronize());                                                 \
    } while (0)
#else
#define CUDA_CHK_LAUNCH() CUDA_CHK(cudaGetLastError())
#endif

/* Library-internal: return the first error. Variadic, so that a call with template
 * arguments (gp__kernel_load<kernel<A, B>>()) passes through whole. */
#define GP__TRY(...)                                                                       \
    do {                                                                                   \
        cudaError_t gp__try_err = (__VA_ARGS__);                                           \
        if (gp__try_err != cudaSuccess) return gp__try_err;                                \
    } while (0)

#endif /* GPUPRIMS_DETAIL_CHECK_CUH */
