/* tests/test_compile_errors.cu -- mistakes the compiler must reject, on the user's line.
 * Host (runs in CI, no GPU): each file in tests/compile_errors/ marks one line with
 * "error here: <text>" (or "<text> && <text> ..."); compiling it (nvcc for .cu, the C
 * compiler for .c) must fail, and the diagnostic must name that file and line and contain
 * every <text>: the message says what the mistake is, in the user's words where it can. A mistake that compiled
 * with only a warning would make a wrong kernel (a host function as OP compiles to a
 * kernel with no arithmetic), so a warning is not enough.
 * Each compile's status and output are kept under GP_T_CACHE (gp_t_run_cached): a second
 * run compiles again only the cases whose file or the library's headers changed.
 * The Makefile passes GP_T_NVCC, GP_T_ARCH, GP_T_ROOT, GP_T_CC, GP_T_CUDA_INC and GP_T_CACHE. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(GP_T_NVCC) || !defined(GP_T_ARCH) || !defined(GP_T_ROOT) || !defined(GP_T_CC) || !defined(GP_T_CUDA_INC) || \
    !defined(GP_T_CACHE)
#error "tests/test_compile_errors.cu: build it with the Makefile (it defines GP_T_NVCC, GP_T_ARCH, GP_T_ROOT, GP_T_CC, GP_T_CUDA_INC, GP_T_CACHE)"
#endif

/* The line marked "error here: <text>" in a case file: its number, and <text> in `want`. */
static int marked_line(const char *path, char *want, size_t cap)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0, found = 0;
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        const char *m = strstr(line, "error here: ");
        if (!m) continue;
        snprintf(want, cap, "%s", m + strlen("error here: "));
        char *end = strstr(want, " */");
        if (end) *end = 0;
        found = n;
    }
    fclose(f);
    return found;
}

extern "C" void test_compile_errors(void)
{
    gp_t_section("compile errors: bad operators, types and placements fail on the user's line (host)");
    static const char *const cases[] = {"op_host_function.cu", "op_std_plus.cu",        "op_not_function_like.cu",
                                        "elem_too_large.cu",   "transpose_too_large.cu", "define_in_function.cu",
                                        "define_in_c.c",       "map_host_function.cu",   "op_token_scan.cu"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024], want[256] = "", cmd[2048], out[16384], at_nvcc[600], at_cc[600];
        snprintf(path, sizeof path, "%s/tests/compile_errors/%s", GP_T_ROOT, cases[i]);
        const int line = marked_line(path, want, sizeof want);
        EXPECT(line > 0, "%s: no line marked \"error here: \"", cases[i]);
        if (line <= 0) continue;
        const int is_c = strcmp(cases[i] + strlen(cases[i]) - 2, ".c") == 0;
        if (is_c)
            snprintf(cmd, sizeof cmd, "%s -std=c11 -I'%s' -I'%s' -c '%s' -o /dev/null", GP_T_CC, GP_T_ROOT,
                     GP_T_CUDA_INC, path);
        else
            snprintf(cmd, sizeof cmd, "%s -std=c++17 -arch=%s -I'%s' -c '%s' -o /dev/null", GP_T_NVCC, GP_T_ARCH,
                     GP_T_ROOT, path);
        char stamp[1100];
        snprintf(stamp, sizeof stamp, "%s/compile_errors/%s.txt", GP_T_CACHE, cases[i]);
        const char *const deps[] = {path, NULL};
        const int status = gp_t_run_cached(stamp, GP_T_ROOT, deps, cmd, out, sizeof out);
        snprintf(at_nvcc, sizeof at_nvcc, "%s(%d): error", cases[i], line); /* nvcc's form */
        snprintf(at_cc, sizeof at_cc, "%s:%d:", cases[i], line);            /* gcc's form */
        const int named = strstr(out, at_nvcc) != NULL || strstr(out, at_cc) != NULL;
        int says = 1; /* every " && "-separated part of want is in the output */
        for (char *part = want, *next; part; part = next) {
            next = strstr(part, " && ");
            if (next) *next = 0;
            says = says && strstr(out, part) != NULL;
            if (next) {
                *next = ' '; /* restore for the message */
                next += 4;
            }
        }
        EXPECT(status != 0 && status != -1 && named && says,
               "%s: want a failed compile naming line %d with \"%s\"; status %d, output:\n%s", cases[i], line, want,
               status, out);
    }
}
