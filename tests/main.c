/* tests/main.c -- runs every test file in turn; ends with "N passed, N failed, N skipped".
 *   run_tests                  all tests (GPU tests skipped without a GPU)
 *   run_tests --scenario K     one CUDA_CHK error scenario (test_check spawns these)
 *   GP_TEST_ONLY=scan run_tests   only the test functions whose name contains "scan" */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int gp_t_passed, gp_t_failed, gp_t_skipped;

int main(int argc, char **argv)
{
    gp_t_argv0 = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress survives a crash, even through a pipe */
    if (argc == 3 && strcmp(argv[1], "--scenario") == 0) return test_check_scenario(atoi(argv[2]));

    const char *seed = getenv("GP_TEST_SEED");
    gp_t_seed = seed && *seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("gpuprims tests: seed %llu (replay with GP_TEST_SEED=%llu)%s; %s\n", (unsigned long long)gp_t_seed,
           (unsigned long long)gp_t_seed, gp_t_small() ? ", small sizes" : "",
           gp_t_have_gpu() ? "GPU present" : "no GPU: GPU tests are skipped");

    /* GP_TEST_ONLY=<text>: only the test functions whose name contains it (e.g. "scan"). */
    static const struct { const char *name; void (*run)(void); } tests[] = {
#define T(f) {#f, f}
        T(test_check), T(test_compile_errors), T(test_reduce_host), T(test_reduce_host_rows), T(test_reduce_gpu),   T(test_reduce_user),
        T(test_map_reduce_host_rows), T(test_map_reduce_gpu),
        T(test_scan_host), T(test_scan_host_rows), T(test_scan_gpu),       T(test_scan_user),    T(test_tile_host), T(test_tile_gpu), T(test_transpose_host),
        T(test_transpose_gpu),  T(test_c_api),          T(test_examples_ptx), T(test_examples_errors),
        T(test_matmul_host),    T(test_matmul_gpu),
#undef T
    };
    const char *only = getenv("GP_TEST_ONLY");
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        if (!only || !*only || strstr(tests[i].name, only)) tests[i].run();

    printf("%d passed, %d failed, %d skipped\n", gp_t_passed, gp_t_failed, gp_t_skipped);
    return gp_t_failed ? 1 : 0;
}
