/* tests/test_examples.cu -- the examples that make a claim a test can hold them to.
 * Host (runs in CI, no GPU): examples/ptx.cu compiled to PTX by nvcc; the kernel that
 *   multiplies by 2.27 converts to double and back, the one that multiplies by 2.27f stays
 *   in single precision.
 * GPU: the built examples/errors, run with each bug (1, 2, 3): exits non-zero, and
 *   CUDA_CHK names the line marked "bug K is caught here" and the expected error; run
 *   with no argument: exits 0.
 * The Makefile passes GP_T_NVCC, GP_T_ARCH, GP_T_ROOT (the source tree) and
 * GP_T_EXAMPLES (where `make examples` puts the binaries), and GP_T_CACHE (where the PTX and
 * the compile's status are kept: gp_t_run_cached compiles again only when examples/ptx.cu or
 * a header changed). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(GP_T_NVCC) || !defined(GP_T_ARCH) || !defined(GP_T_ROOT) || !defined(GP_T_EXAMPLES) || !defined(GP_T_CACHE)
#error "tests/test_examples.cu: build it with the Makefile (it defines GP_T_NVCC, GP_T_ARCH, GP_T_ROOT, GP_T_EXAMPLES, GP_T_CACHE)"
#endif

/* Reads a whole file into a NUL-terminated malloc'd buffer; NULL if it cannot. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = len >= 0 ? (char *)malloc((size_t)len + 1) : NULL;
    if (s) s[fread(s, 1, (size_t)len, f)] = 0;
    fclose(f);
    return s;
}

/* The body of `.entry name(` in a PTX text, up to the next .entry (cut in place); NULL if absent. */
static char *ptx_entry(char *ptx, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, ".entry %s(", name);
    char *body = strstr(ptx, head);
    if (!body) return NULL;
    char *next = strstr(body + 1, ".entry ");
    if (next) *next = 0;
    return body;
}

extern "C" void test_examples_ptx(void)
{
    gp_t_section("examples: PTX of examples/ptx.cu (2.27 against 2.27f)");
    const char *path = GP_T_CACHE "/examples_ptx.ptx", *stamp = GP_T_CACHE "/examples_ptx.txt";
    const char *const deps[] = {GP_T_ROOT "/examples/ptx.cu", NULL};
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "%s -arch=%s -O3 -std=c++17 -I'%s' -ptx '%s/examples/ptx.cu' -o '%s'", GP_T_NVCC,
             GP_T_ARCH, GP_T_ROOT, GP_T_ROOT, path);
    int status = gp_t_run_cached(stamp, GP_T_ROOT, deps, cmd, out, sizeof out);
    char *ptx = status == 0 ? read_file(path) : NULL;
    if (status == 0 && !ptx) { /* the stamp outlived its PTX: compile again */
        status = gp_t_run_cached(NULL, NULL, NULL, cmd, out, sizeof out);
        ptx = status == 0 ? read_file(path) : NULL;
    }
    EXPECT(status == 0, "nvcc -ptx failed (status %d): %s\n%s", status, cmd, out);
    char *dbl_copy = ptx ? strdup(ptx) : NULL;
    EXPECT(ptx != NULL && dbl_copy != NULL, "no PTX read from %s", path);
    if (!ptx || !dbl_copy) return;

    /* 2.27 is a double: the float is widened, multiplied in double, rounded back. */
    const char *dbl = ptx_entry(dbl_copy, "scale_by_double_literal");
    EXPECT(dbl != NULL, "no entry scale_by_double_literal in the PTX");
    if (dbl) {
        EXPECT(strstr(dbl, "cvt.f64.f32") != NULL, "2.27: no cvt.f64.f32 (float widened to double)");
        EXPECT(strstr(dbl, "mul.f64") != NULL || strstr(dbl, "mul.rn.f64") != NULL, "2.27: no mul.f64");
        EXPECT(strstr(dbl, "cvt.rn.f32.f64") != NULL, "2.27: no cvt.rn.f32.f64 (rounded back to float)");
    }
    /* 2.27f: single precision only, no f64 anywhere in the kernel. */
    const char *flt = ptx_entry(ptx, "scale_by_float_literal");
    EXPECT(flt != NULL, "no entry scale_by_float_literal in the PTX");
    if (flt) {
        EXPECT(strstr(flt, "mul.f32") != NULL || strstr(flt, "mul.rn.f32") != NULL, "2.27f: no mul.f32");
        EXPECT(strstr(flt, "f64") == NULL, "2.27f: the kernel has a double-precision instruction");
    }
    free(ptx);
    free(dbl_copy);
}

/* The line of examples/errors.cu holding `marker`, or 0. */
static int source_line(const char *marker)
{
    char *src = read_file(GP_T_ROOT "/examples/errors.cu");
    if (!src) return 0;
    const char *at = strstr(src, marker);
    int line = 0;
    if (at) {
        line = 1;
        for (const char *c = src; c < at; c++) line += *c == '\n';
    }
    free(src);
    return line;
}

static void check_bug(int bug, const char *call, const char *error, const char *or_error)
{
    char marker[64], where[64], cmd[1024], what[32];
    snprintf(marker, sizeof marker, "bug %d is caught here", bug);
    int line = source_line(marker);
    EXPECT(line > 0, "examples/errors.cu: no line says \"%s\"", marker);
    snprintf(where, sizeof where, "examples/errors.cu:%d: ", line);
    snprintf(cmd, sizeof cmd, "'%s/errors' %d", GP_T_EXAMPLES, bug);
    snprintf(what, sizeof what, "errors %d", bug);
    gp_t_expect_chk_failure(what, cmd, where, call, error, or_error);
}

extern "C" void test_examples_errors(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("examples: examples/errors needs a GPU");
        return;
    }
    gp_t_section("examples: examples/errors, the clean run and the three bugs");
    EXPECT(access(GP_T_EXAMPLES "/errors", X_OK) == 0, "%s/errors is not built (make examples)", GP_T_EXAMPLES);
    char out[4096];
    int status = gp_t_run("'" GP_T_EXAMPLES "/errors'", out, sizeof out);
    EXPECT(status == 0 && strstr(out, "1000 of 1000 elements doubled correctly"), "errors (clean): status %d: %s",
           status, out);
    check_bug(1, "cudaMemcpy(d_v, in", "cudaErrorInvalidValue", NULL);
    /* CUDA 12 says cudaErrorInvalidConfiguration; the CUDA 13 runtime says
     * cudaErrorInvalidValue (see tests/test_check.cu). */
    check_bug(2, "cudaGetLastError()", "cudaErrorInvalidConfiguration", "cudaErrorInvalidValue");
    check_bug(3, "cudaDeviceSynchronize()", "cudaErrorIllegalAddress", NULL);
}
