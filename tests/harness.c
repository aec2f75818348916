/* tests/harness.c -- counters, seed, skips; see harness.h. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
    return s && *s && *s != '0';
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
