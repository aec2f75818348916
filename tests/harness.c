/* tests/harness.c -- counters, seed, skips, child processes; see harness.h. */
#define _POSIX_C_SOURCE 200809L /* popen, pclose */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cuda_runtime_api.h>

uint64_t gp_t_seed;
const char *gp_t_argv0;
int gp_t_passed, gp_t_failed, gp_t_skipped;

int gp_t_have_gpu(void)
{
    static int known = -1;
    if (known < 0) {
        int count = 0;
        known = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
        cudaGetLastError(); /* clear the "no device" error */
    }
    return known;
}

int gp_t_small(void)
{
    const char *s = getenv("GP_TEST_SMALL");
    return s && *s ? atoi(s) : 0;
}

void gp_t_check(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        gp_t_passed++;
        return;
    }
    gp_t_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

void gp_t_skip(const char *fmt, ...)
{
    gp_t_skipped++;
    va_list ap;
    va_start(ap, fmt);
    printf("  skip: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

void gp_t_section(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("-- ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

uint64_t gp_t_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t gp_t_state(uint64_t stream)
{
    uint64_t s = gp_t_seed ^ (stream * 0xd1b54a32d192ed03ull);
    return gp_t_next(&s);
}

int gp_t_run(const char *cmd, char *out, size_t cap)
{
    char full[2048];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    if (cap) out[0] = 0;
    fflush(stdout);
    FILE *f = popen(full, "r");
    if (!f) return -1;
    size_t got = cap ? fread(out, 1, cap - 1, f) : 0;
    char sink[256];
    while (fread(sink, 1, sizeof sink, f) > 0) { /* drain the rest: the child never blocks on a full pipe */
    }
    if (cap) out[got] = 0;
    int status = pclose(f);
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void gp_t_expect_chk_failure(const char *what, const char *cmd, const char *where, const char *call,
                             const char *error, const char *or_error)
{
    char out[4096];
    int status = gp_t_run(cmd, out, sizeof out);
    EXPECT(status > 0, "%s: exit status %d, expected a failure", what, status);
    EXPECT(strstr(out, where) != NULL, "%s: expected \"%s\" (file:line) in \"%s\"", what, where, out);
    EXPECT(strstr(out, call) != NULL, "%s: expected the call %s in \"%s\"", what, call, out);
    EXPECT(strstr(out, error) != NULL || (or_error && strstr(out, or_error) != NULL), "%s: expected %s%s%s in \"%s\"",
           what, error, or_error ? " or " : "", or_error ? or_error : "", out);
    printf("  %s: %s", what, out);
}

void gp_t_check_streams(const char *what, size_t out_bytes, gp_t_stream_launch launch, void *ctx)
{
    enum { STREAMS = 4 };
    unsigned char *d_out = NULL, want[STREAMS * 16], got[STREAMS * 16];
    const size_t total = STREAMS * out_bytes;
    if (out_bytes > 16 || cudaMalloc((void **)&d_out, total) != cudaSuccess) {
        gp_t_check(0, __FILE__, __LINE__, "%s: no room for the outputs", what);
        return;
    }
    for (int k = 0; k < STREAMS; k++) launch(ctx, k, d_out + k * out_bytes, 0);
    int ok = cudaMemcpy(want, d_out, total, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int rep = 0; rep < 3 && ok; rep++) {
        cudaStream_t streams[STREAMS];
        ok = cudaMemset(d_out, 0xA7, total) == cudaSuccess;
        /* cudaMemset is asynchronous and non-blocking streams do not wait for the legacy
         * default stream: without this the poison could land on top of the results. */
        ok = ok && cudaDeviceSynchronize() == cudaSuccess;
        for (int k = 0; k < STREAMS; k++) ok = ok && cudaStreamCreateWithFlags(&streams[k], cudaStreamNonBlocking) == cudaSuccess;
        for (int k = 0; k < STREAMS && ok; k++) launch(ctx, k, d_out + k * out_bytes, streams[k]);
        for (int k = 0; k < STREAMS && ok; k++) ok = cudaStreamSynchronize(streams[k]) == cudaSuccess;
        ok = ok && cudaMemcpy(got, d_out, total, cudaMemcpyDeviceToHost) == cudaSuccess;
        gp_t_check(ok && memcmp(got, want, total) == 0, __FILE__, __LINE__,
                   "%s: four concurrent streams, repeat %d: bitwise equal", what, rep);
        for (int k = 0; k < STREAMS; k++) cudaStreamDestroy(streams[k]);
    }
    gp_t_check(ok, __FILE__, __LINE__, "%s: CUDA calls succeeded (%s)", what, cudaGetErrorName(cudaGetLastError()));
    cudaFree(d_out);
}
