/* tests/test_check.cu -- CUDA_CHK and CUDA_CHK_LAUNCH.
 * Host: the message format. GPU: the three classic runtime errors, each run in a child
 * process (they exit, and the third poisons the context), each caught by the right check
 * with the right message. */
#include "../gpuprims.cuh"
#include "harness.h"

#include <stdio.h>
#include <string.h>

static void check_format(void)
{
    char buf[512];
    gp_check_format(buf, sizeof buf, cudaErrorInvalidValue, "cudaMalloc(&p, n)", "dir/file.cu", 42);
    EXPECT(strcmp(buf, "dir/file.cu:42: cudaMalloc(&p, n): cudaErrorInvalidValue: invalid argument") == 0,
           "format: got \"%s\"", buf);
    gp_check_format(buf, sizeof buf, cudaErrorInvalidConfiguration, "cudaGetLastError()", "a.cu", 7);
    EXPECT(strstr(buf, "a.cu:7: cudaGetLastError(): cudaErrorInvalidConfiguration: ") == buf, "format: got \"%s\"",
           buf);
    /* a short buffer is truncated, never overrun */
    char small[64]; /* larger than the whole message, so gcc sees no truncation to warn about */
    volatile size_t cap = 4; /* not a constant: the truncation happens at run time only */
    memset(small, 'x', sizeof small);
    gp_check_format(small, cap, cudaErrorInvalidValue, "c", "f", 1);
    EXPECT(small[3] == 0 && small[4] == 'x', "format: truncation");
}

__global__ void write_far(int *p) { p[(size_t)1 << 36] = 1; } /* 256 GiB past the allocation */
__global__ void nothing(void) {}

/* Child side: each scenario must end in CUDA_CHK's exit. Returns 0 if it did not. */
extern "C" int test_check_scenario(int which)
{
    if (which == 1) { /* copy to a pointer that was never allocated: invalid argument */
        int host = 1, *never_allocated = (int *)(uintptr_t)0x10;
        CUDA_CHK(cudaMemcpy(never_allocated, &host, sizeof host, cudaMemcpyHostToDevice));
    } else if (which == 2) { /* 10000 threads per block: only the launch check sees it */
        nothing<<<1, 10000>>>();
        CUDA_CHK_LAUNCH();
    } else if (which == 3) { /* out-of-bounds write: reported at the synchronisation */
        int *d;
        CUDA_CHK(cudaMalloc(&d, sizeof(int)));
        write_far<<<1, 1>>>(d);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaDeviceSynchronize());
    }
    return 0;
}

static void check_scenario(int which, const char *call, const char *error, const char *or_error)
{
    char cmd[1024], what[32];
    snprintf(cmd, sizeof cmd, "'%s' --scenario %d", gp_t_argv0, which);
    snprintf(what, sizeof what, "scenario %d", which);
    gp_t_expect_chk_failure(what, cmd, "test_check.cu:", call, error, or_error);
}

extern "C" void test_check(void)
{
    gp_t_section("check: CUDA_CHK message format");
    check_format();
    if (!gp_t_have_gpu()) {
        gp_t_skip("check: the three runtime-error scenarios need a GPU");
        return;
    }
    gp_t_section("check: runtime-error scenarios (child processes)");
    check_scenario(1, "cudaMemcpy(never_allocated", "cudaErrorInvalidValue", NULL);
    /* CUDA 12 reports cudaErrorInvalidConfiguration; the CUDA 13 runtime (seen on an H200,
     * driver 580) reports cudaErrorInvalidValue for a block of 10000 threads. Either way
     * only the launch check sees it. */
    check_scenario(2, "cudaGetLastError()", "cudaErrorInvalidConfiguration", "cudaErrorInvalidValue");
    check_scenario(3, "cudaDeviceSynchronize()", "cudaErrorIllegalAddress", NULL);
}
