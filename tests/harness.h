/* tests/harness.h -- the test harness (C, used from .c and .cu files alike).
 *
 * A check is one EXPECT: it counts as passed or failed, and a failure prints its file,
 * line and message. A GPU test on a machine without a GPU calls gp_t_skip() instead, and
 * counts as skipped, never as passed. The run ends with "N passed, N failed, N skipped";
 * the exit status is non-zero on any failure.
 *
 * Seed: fresh per run (printed first); GP_TEST_SEED=<n> replays one.
 * GP_TEST_SMALL=1 (make sanitize): skips the largest sizes; GP_TEST_SMALL=2 (racecheck,
 * which is slow on shared memory) also runs fewer instances and placements of the scans.
 * GP_TEST_TIMES=1 (make sanitize): section lines start with the seconds since the first.
 * GP_TEST_HANG_S=<s>: a section running longer ends the run with status 3 (default 900; 0: off). */
#ifndef GPUPRIMS_TESTS_HARNESS_H
#define GPUPRIMS_TESTS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

extern uint64_t gp_t_seed;
extern const char *gp_t_argv0;
extern int gp_t_passed, gp_t_failed, gp_t_skipped; /* the run's counts so far */

int gp_t_have_gpu(void);   /* 1 when a CUDA device is usable */
int gp_t_small(void);      /* GP_TEST_SMALL: 0, 1 (small sizes) or 2 (also fewer cases: racecheck) */
void gp_t_check(int ok, const char *file, int line, const char *fmt, ...);
void gp_t_skip(const char *fmt, ...);
void gp_t_section(const char *fmt, ...);
/* A thread that ends the run (exit status 3, naming the section and the seed) when one
 * section runs over GP_TEST_HANG_S seconds (default 900; 0: off). */
void gp_t_watchdog_start(void);
uint64_t gp_t_next(uint64_t *state); /* splitmix64 */
uint64_t gp_t_state(uint64_t stream); /* a fresh state derived from the run's seed */

#define EXPECT(cond, ...) gp_t_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* Determinism across streams: launch(ctx, k, d_out_k, stream) must queue call k (k = 0..3)
 * writing out_bytes at d_out_k. It runs first all on the default stream, then three times
 * on four non-blocking streams at once (outputs poisoned before each round); each round
 * must give bitwise the first's outputs. `what` names the check in messages. */
typedef void (*gp_t_stream_launch)(void *ctx, int k, void *d_out_k, cudaStream_t s);
void gp_t_check_streams(const char *what, size_t out_bytes, gp_t_stream_launch launch, void *ctx);

/* String equality usable in constant initialisers (the instance lists' columns). */
#ifdef __cplusplus
static constexpr int gp_t_streq(const char *a, const char *b) { return *a == *b && (*a == 0 || gp_t_streq(a + 1, b + 1)); }
#define GP_T_STREQ(a, b) gp_t_streq(a, b)
#endif

/* Runs a shell command (stderr folded into stdout), its output into out (NUL-terminated,
 * truncated to cap). Returns the exit status, or -1 if it could not run or did not exit. */
int gp_t_run(const char *cmd, char *out, size_t cap);
/* gp_t_run, remembered: the status and output of a run of `cmd` are kept in the file
 * `stamp`, and a later call with the same cmd gives them again without running it, as long
 * as the stamp is newer than every file in `deps` (NULL-terminated; may be NULL) and, when
 * root is not NULL, every header of the library under root (gpuprims.cuh, detail/). So a
 * second `make test` does not compile again what has not changed. A stamp of NULL: no
 * memory, gp_t_run. */
int gp_t_run_cached(const char *stamp, const char *root, const char *const *deps, const char *cmd, char *out,
                    size_t cap);
/* Runs a program that must fail through CUDA_CHK: EXPECTs a non-zero exit status and, in
 * its output, `where` (file:line), `call` and `error` (or `or_error`, when not NULL).
 * `what` names the run in failure messages; the output is echoed, indented. */
void gp_t_expect_chk_failure(const char *what, const char *cmd, const char *where, const char *call,
                             const char *error, const char *or_error);

/* Every test file defines its entry points as `void test_<family>...(void)` (extern "C" in
 * .cu files) at the start of a line; the Makefile lists them for tests/main.c, and
 * GP_TEST_ONLY=<text> (make test-<family>) runs those whose name contains the text. */
int test_check_scenario(int which); /* runs in a child process: must exit non-zero */
int test_status_launch_count_child(void); /* runs in a child process: the CUPTI count */

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIMS_TESTS_HARNESS_H */
