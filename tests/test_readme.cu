/* tests/test_readme.cu -- the README's first example is a whole program that works as written.
 * Host (runs in CI, no GPU): the first ```c block of README.md is extracted, compiled by
 *   nvcc against the built library (build/lib/libgpuprims.a), as the README says to, and
 *   must compile and link without a warning.
 * GPU: the program runs, exits 0 and prints its result line ("sum = ...").
 * The Makefile passes GP_T_CACHE (a folder for the program, its binary and the compile's
 * status), GP_T_NVCC, GP_T_ARCH, GP_T_ROOT (the source tree) and GP_T_LIB (the
 * static library). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(GP_T_NVCC) || !defined(GP_T_ARCH) || !defined(GP_T_ROOT) || !defined(GP_T_LIB) || !defined(GP_T_CACHE)
#error "tests/test_readme.cu: build it with the Makefile (it defines GP_T_NVCC, GP_T_ARCH, GP_T_ROOT, GP_T_LIB, GP_T_CACHE)"
#endif

/* The first fenced block of `path` whose info string is `c` or `cuda`, into `out`
 * (NUL-terminated); its number of lines, or -1 when there is none (or it does not fit). */
static int first_c_block(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int inside = 0, lines = 0;
    size_t len = 0;
    if (!f) return -1;
    out[0] = 0;
    while (fgets(line, sizeof line, f)) {
        if (!inside) {
            inside = strcmp(line, "```c\n") == 0 || strcmp(line, "```cuda\n") == 0;
            continue;
        }
        if (strncmp(line, "```", 3) == 0) {
            fclose(f);
            return lines;
        }
        const size_t l = strlen(line);
        if (len + l + 1 > cap) break;
        memcpy(out + len, line, l + 1);
        len += l;
        lines++;
    }
    fclose(f);
    return -1;
}

extern "C" void test_readme(void)
{
    gp_t_section("README: the first example, compiled against the library as the README says");
    static char program[16384];
    const int lines = first_c_block(GP_T_ROOT "/README.md", program, sizeof program);
    EXPECT(lines > 0, "README.md: no ```c block found (the first example)");
    if (lines <= 0) return;
    EXPECT(lines <= 20, "README.md: the first example has %d lines (at most 20)", lines);
    EXPECT(strstr(program, "int main") != NULL, "README.md: the first example has no main(): not a whole program");

    /* the program and its binary under GP_T_CACHE; the program is rewritten only when the
     * README's example changed, so that the compile's status is kept while nothing changed
     * (gp_t_run_cached) */
    const char *src = GP_T_CACHE "/readme.cu", *exe = GP_T_CACHE "/readme", *stamp = GP_T_CACHE "/readme.txt";
    char cmd[4096], out[16384];
    static char old[16384];
    FILE *f = fopen(src, "r");
    const size_t len = strlen(program), had = f ? fread(old, 1, sizeof old - 1, f) : 0;
    if (f) fclose(f);
    int written = 1;
    if (had != len || memcmp(old, program, len) != 0) {
        mkdir(GP_T_CACHE, 0777); /* beside the test binary: its folder exists */
        f = fopen(src, "w");
        written = f != NULL && fwrite(program, 1, len, f) == len;
        if (f) fclose(f);
    }
    EXPECT(written, "could not write %s", src);

    /* README: nvcc -arch=sm_90 -I<gpuprims> app.cu <gpuprims>/build/lib/libgpuprims.a -o app */
    snprintf(cmd, sizeof cmd, "%s -arch=%s -Xcompiler -Wall,-Wextra -I'%s' '%s' '%s' -o '%s'", GP_T_NVCC, GP_T_ARCH,
             GP_T_ROOT, src, GP_T_LIB, exe);
    const char *const deps[] = {src, GP_T_LIB, exe, NULL}; /* exe: a stamp newer than a missing binary is stale */
    int status = gp_t_run_cached(stamp, GP_T_ROOT, deps, cmd, out, sizeof out);
    EXPECT(status == 0, "the README's example does not compile (status %d): %s\n%s", status, cmd, out);
    EXPECT(status != 0 || strstr(out, "warning") == NULL, "the README's example compiles with a warning:\n%s", out);
    if (status != 0) return;

    if (!gp_t_have_gpu()) {
        gp_t_skip("README: running the first example needs a GPU");
    } else {
        snprintf(cmd, sizeof cmd, "'%s'", exe);
        status = gp_t_run(cmd, out, sizeof out);
        EXPECT(status == 0 && strstr(out, "sum = ") != NULL, "the README's example: status %d, output:\n%s", status,
               out);
    }
}
