/* tests/harness.c -- counters, seed, skips, child processes; see harness.h. */
#define _POSIX_C_SOURCE 200809L /* popen, pclose, stat's st_mtim, opendir */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* The watchdog: the current section's start (ms on the monotonic clock) and its name. */
static atomic_llong section_start_ms;
static char section_name[512];

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *watchdog(void *arg)
{
    const long long limit_ms = *(const long long *)arg;
    for (;;) {
        sleep(5);
        const long long start = atomic_load(&section_start_ms);
        if (start && now_ms() - start > limit_ms) {
            fprintf(stderr, "HANG: the section \"%s\" ran over %lld s (GP_TEST_HANG_S); stopping. Replay with GP_TEST_SEED=%llu\n",
                    section_name, limit_ms / 1000, (unsigned long long)gp_t_seed);
            fflush(stdout);
            fflush(stderr);
            _exit(3);
        }
    }
    return NULL;
}

void gp_t_watchdog_start(void)
{
    static long long limit_ms;
    const char *e = getenv("GP_TEST_HANG_S");
    limit_ms = (e && *e ? atoll(e) : 900) * 1000;
    pthread_t t;
    if (limit_ms > 0 && pthread_create(&t, NULL, watchdog, &limit_ms) == 0) pthread_detach(t);
}

/* GP_TEST_TIMES=1 (make sanitize): each section line starts with the seconds since the
 * first section, so a log shows where a slow tool spends its time. */
void gp_t_section(const char *fmt, ...)
{
    static int times = -1;
    static struct timespec t0;
    if (times < 0) {
        const char *e = getenv("GP_TEST_TIMES");
        times = e && *e && *e != '0';
        clock_gettime(CLOCK_MONOTONIC, &t0);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(section_name, sizeof section_name, fmt, ap);
    va_end(ap);
    atomic_store(&section_start_ms, now_ms());
    if (times) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        printf("[%7.1f s] ", (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec));
    }
    printf("-- %s\n", section_name);
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

/* A file's modification time in nanoseconds, or -1 when it cannot be read. */
static long long mtime_ns(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* The newest modification time of root/gpuprims.cuh and the .cuh files of root/detail and
 * its folders (one level down), or -1 when root/gpuprims.cuh cannot be read. */
static long long newest_header(const char *root)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/gpuprims.cuh", root);
    long long newest = mtime_ns(path);
    if (newest < 0) return -1;
    for (int level = 0; level < 2; level++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/detail", root);
        DIR *d = opendir(dir);
        if (!d) return -1;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            const size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.') continue;
            if (level == 0 && len > 4 && strcmp(e->d_name + len - 4, ".cuh") == 0) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                const long long t = mtime_ns(path);
                if (t > newest) newest = t;
            } else if (level == 1 && strchr(e->d_name, '.') == NULL) { /* a folder: its headers */
                char sub[1536];
                snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
                DIR *sd = opendir(sub);
                if (!sd) continue;
                for (struct dirent *f; (f = readdir(sd)) != NULL;) {
                    const size_t fl = strlen(f->d_name);
                    if (fl <= 4 || strcmp(f->d_name + fl - 4, ".cuh") != 0) continue;
                    snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
                    const long long t = mtime_ns(path);
                    if (t > newest) newest = t;
                }
                closedir(sd);
            }
        }
        closedir(d);
    }
    return newest;
}

int gp_t_run_cached(const char *stamp, const char *root, const char *const *deps, const char *cmd, char *out,
                    size_t cap)
{
    /* the stamp holds "cmd: <cmd>\nstatus: <n>\n" and then the output */
    const long long made = stamp ? mtime_ns(stamp) : -1;
    long long newest = root ? newest_header(root) : 0;
    for (const char *const *d = deps; d && *d && newest >= 0; d++) {
        const long long t = mtime_ns(*d);
        newest = t < 0 ? -1 : t > newest ? t : newest;
    }
    if (made >= 0 && newest >= 0 && made > newest) {
        FILE *f = fopen(stamp, "r");
        char line[2048], want[2048];
        int status = -1;
        snprintf(want, sizeof want, "cmd: %s\n", cmd);
        if (f && fgets(line, sizeof line, f) && strcmp(line, want) == 0 && fscanf(f, "status: %d\n", &status) == 1) {
            const size_t got = cap ? fread(out, 1, cap - 1, f) : 0;
            if (cap) out[got] = 0;
            fclose(f);
            return status;
        }
        if (f) fclose(f);
    }
    if (stamp) { /* its folders (mkdir -p), before the command: it may write its output there */
        char dir[2048];
        snprintf(dir, sizeof dir, "%s", stamp);
        for (char *c = dir + 1; *c; c++)
            if (*c == '/') {
                *c = 0;
                mkdir(dir, 0777);
                *c = '/';
            }
    }
    const int status = gp_t_run(cmd, out, cap);
    FILE *f = stamp && status != -1 ? fopen(stamp, "w") : NULL;
    if (f) {
        fprintf(f, "cmd: %s\nstatus: %d\n%s", cmd, status, cap ? out : "");
        fclose(f);
    }
    return status;
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
