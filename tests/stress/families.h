/* tests/stress/families.h -- the stress sections of the families built on the single-pass
 * engine (compaction, segments, histogram, sort), each in its own file beside stress.cu:
 * randomized cases against a host reference for about `seconds`, every case from `seed` and
 * its number, so that a failure prints what replays it. Each case's output is poisoned
 * first, with guard bytes after it that must stay poisoned. Checks go through FEXPECT
 * (counted by the harness, from any thread); ctx->beat is the watchdog's heartbeat. */
#ifndef GPUPRIMS_TESTS_STRESS_FAMILIES_H
#define GPUPRIMS_TESTS_STRESS_FAMILIES_H

#include <stdint.h>

typedef struct {
    double seconds;                /* the time this family may take */
    uint64_t seed;                 /* the run's seed (GP_TEST_SEED) */
    void (*beat)(const char *what); /* at least every few seconds, a string literal: the watchdog ends a run that stops */
} stress_family_ctx;

/* Counted checks from any thread: one EXPECT of the harness under the suite's lock. */
void stress_check(int ok, const char *file, int line, const char *fmt, ...);
#define FEXPECT(cond, ...) stress_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

void stress_select(const stress_family_ctx *ctx);    /* stress_select.cu: select, partition, nonzero, unique, run-length */
void stress_segmented(const stress_family_ctx *ctx); /* stress_segmented.cu: segmented reduce, rows, columns, reduce-by-key, segmented scan */
void stress_histogram(const stress_family_ctx *ctx); /* stress_histogram.cu: even and range bins */
void stress_sort(const stress_family_ctx *ctx);      /* stress_sort.cu: keys, descending, pairs, argsort */

#endif
