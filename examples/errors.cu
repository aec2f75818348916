/* examples/errors.cu -- three classic runtime errors, each caught by the right check,
 * with file and line.
 *
 * CUDA reports errors late and in different places. The lesson, in three bugs:
 *   1  cudaMemcpy to a pointer that was never allocated: the call itself returns
 *      cudaErrorInvalidValue, so wrapping every runtime call in CUDA_CHK catches it.
 *   2  a launch with 10000 threads per block (the limit is 1024): the kernel never runs,
 *      and cudaDeviceSynchronize() reports success. Only cudaGetLastError() right after
 *      the launch sees it: CUDA_CHK_LAUNCH().
 *   3  an out-of-bounds write inside the kernel: the launch succeeds; the error
 *      (cudaErrorIllegalAddress) surfaces at the next synchronisation,
 *      CUDA_CHK(cudaDeviceSynchronize()). It also ends the CUDA context: no further call
 *      in this process can succeed.
 *
 * Build and run:  make build/examples/errors
 *   build/examples/errors       the program without the bugs: checks its result, and shows
 *                               (bug 1 and 2, which leave the context usable) what each
 *                               call returns when nothing aborts; exits 0
 *   build/examples/errors K     K = 1, 2 or 3: the program with bug K; CUDA_CHK prints
 *                               "examples/errors.cu:LINE: call: cudaErrorX: message" and
 *                               exits 1. LINE is the line marked "bug K is caught here".
 * tests/test_examples.cu runs the three and checks the exit status, the line and the error. */
#include "../gpuprims.cuh"
#include "need_gpu.h"

#include <stdio.h>
#include <stdlib.h>

#define N 1000
/* Bug 3: every thread writes 2^36 floats (256 GiB) past its element. The classic version
 * writes v[i*1000], at most 4 MB past a 4 KB allocation, which a modern GPU does not always
 * fault on (small overruns are what compute-sanitizer is for). Spreading the writes over
 * the address space is no better: one run of v[i * 2^26] (a 256 MB stride) on an H200 hit an address that
 * is not global memory and got cudaErrorInvalidAddressSpace instead. 256 GiB past one
 * allocation (the address tests/test_check.cu also uses) is unmapped global space. */
#define FAR ((size_t)1 << 36)

/* The classic exercise's kernel1, its write shifted by `past` elements: past = 0 doubles
 * v in place. */
__global__ void kernel1(float *v, size_t past)
{
    size_t i = threadIdx.x;
    v[i + past] = v[i] + v[i];
}

/* The classic exercise's program; `bug` (0 = none) plants one of the three. */
static int run(int bug)
{
    float in[N], out[N], *d_v = NULL;
    for (int j = 0; j < N; j++) in[j] = j + 1.1f;

    if (bug != 1) CUDA_CHK(cudaMalloc(&d_v, sizeof in)); /* bug 1 forgets this: d_v stays NULL */
    CUDA_CHK(cudaMemcpy(d_v, in, sizeof in, cudaMemcpyHostToDevice)); /* bug 1 is caught here */
    kernel1<<<1, bug == 2 ? 10000 : N>>>(d_v, bug == 3 ? FAR : 0);
    CUDA_CHK_LAUNCH();                 /* bug 2 is caught here */
    CUDA_CHK(cudaDeviceSynchronize()); /* bug 3 is caught here */
    CUDA_CHK(cudaMemcpy(out, d_v, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaFree(d_v));

    int bad = 0;
    for (int j = 0; j < N; j++) bad += out[j] != in[j] + in[j];
    printf("clean run: %d of %d elements doubled correctly\n", N - bad, N);
    return bad != 0;
}

/* What each call returns when nothing aborts: bugs 1 and 2 leave the context usable, so
 * the clean run can show the lesson's point (bug 2 passes a synchronisation unseen). */
static void show_unchecked(void)
{
    float h = 1, *never_allocated = NULL;
    cudaError_t copy = cudaMemcpy(never_allocated, &h, sizeof h, cudaMemcpyHostToDevice);
    (void)cudaGetLastError(); /* the failed copy is also "the last error": clear it */
    kernel1<<<1, 10000>>>(NULL, 0);
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t last = cudaGetLastError(); /* also clears the error */

    printf("\n| bug | the call | returns (unchecked) | caught by |\n|---|---|---|---|\n");
    printf("| 1 | cudaMemcpy to NULL | %s | CUDA_CHK(cudaMemcpy(...)) |\n", cudaGetErrorName(copy));
    printf("| 2 | cudaDeviceSynchronize after <<<1, 10000>>> | %s | - |\n", cudaGetErrorName(sync));
    printf("| 2 | cudaGetLastError after <<<1, 10000>>> | %s | CUDA_CHK_LAUNCH() |\n", cudaGetErrorName(last));
    printf("| 3 | cudaDeviceSynchronize after the far write | (not run here: it ends the context; "
           "run `errors 3`) | CUDA_CHK(cudaDeviceSynchronize()) |\n\n");
}

int main(int argc, char **argv)
{
    need_gpu(__FILE__);
    int bug = argc > 1 ? atoi(argv[1]) : 0;
    if (argc > 2 || bug < 0 || bug > 3) {
        fprintf(stderr, "usage: %s [1|2|3]   (no argument: the clean run)\n", argv[0]);
        return 2;
    }
    if (bug == 0) show_unchecked();
    int failed = run(bug);
    if (bug != 0) fprintf(stderr, "bug %d was not caught\n", bug); /* run() should have exited */
    return failed || bug != 0;
}
