/* tests/test_readme.cu -- the README's first example is a whole program that works as written.
 * Host (runs in CI, no GPU): the first ```c block of README.md is extracted, compiled by
 *   nvcc against the built library (build/lib/libgpuprims.a), as the README says to, and
 *   must compile and link without a warning.
 * GPU: the program runs, exits 0 and prints its result line ("sum = ...").
 * The Makefile passes GP_T_NVCC, GP_T_ARCH, GP_T_ROOT (the source tree) and GP_T_LIB (the
 * static library). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(GP_T_NVCC) || !defined(GP_T_ARCH) || !defined(GP_T_ROOT) || !defined(GP_T_LIB)
#error "tests/test_readme.cu: build it with the Makefile (it defines GP_T_NVCC, GP_T_ARCH, GP_T_ROOT, GP_T_LIB)"
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

    char src[] = "/tmp/gp_readme_XXXXXX.cu", exe[sizeof src + 4], cmd[4096], out[16384];
    int fd = mkstemps(src, 3);
    EXPECT(fd >= 0, "mkstemps failed");
    if (fd < 0) return;
    const size_t len = strlen(program);
    EXPECT(write(fd, program, len) == (ssize_t)len, "could not write %s", src);
    close(fd);
    snprintf(exe, sizeof exe, "%.*s", (int)(strlen(src) - 3), src);

    /* README: nvcc -arch=sm_90 -I<gpuprims> app.cu <gpuprims>/build/lib/libgpuprims.a -o app */
    snprintf(cmd, sizeof cmd, "%s -arch=%s -Xcompiler -Wall,-Wextra -I'%s' '%s' '%s' -o '%s'", GP_T_NVCC, GP_T_ARCH,
             GP_T_ROOT, src, GP_T_LIB, exe);
    int status = gp_t_run(cmd, out, sizeof out);
    EXPECT(status == 0, "the README's example does not compile (status %d): %s\n%s", status, cmd, out);
    EXPECT(status != 0 || strstr(out, "warning") == NULL, "the README's example compiles with a warning:\n%s", out);
    unlink(src);
    if (status != 0) return;

    if (!gp_t_have_gpu()) {
        gp_t_skip("README: running the first example needs a GPU");
    } else {
        snprintf(cmd, sizeof cmd, "'%s'", exe);
        status = gp_t_run(cmd, out, sizeof out);
        EXPECT(status == 0 && strstr(out, "sum = ") != NULL, "the README's example: status %d, output:\n%s", status,
               out);
    }
    unlink(exe);
}
