/* bench/bench.cuh -- the small timing and table harness every bench program shares.
 *
 * Timing: CUDA events around each call, warm-up first, median of GP_BENCH_REPS (>= 20)
 * calls. Tables: printed as markdown on stdout and written to
 * $GP_BENCH_RESULTS/<gpu>.<bench>.md and .csv (default bench/results), headed by the GPU,
 * the date and $GP_COMMIT (the Makefile passes `git describe`). */
#ifndef GPUPRIMS_BENCH_CUH
#define GPUPRIMS_BENCH_CUH

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../gpuprims.cuh"

#define GP_BENCH_WARMUP 5
#define GP_BENCH_REPS 31

typedef void (*gp_bench_fn)(void *ctx);

static int gp__bench_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The timing loop of every bench: k functions timed in turn, `warmup` untimed calls of
 * each, then `reps` rounds of one timed batch of `batch` calls of each, bracketed by events
 * on the default stream; ms_out[f] is function f's median per call. Timed in turn, a drift
 * of the machine during a table (clocks, a neighbour) falls on every function alike, so the
 * ratios between them hold: on the H100 one reduce kernel measured 31.1 and 32.4 us at 2^24
 * in two tables of the same run when each function's batches ran together. */
static inline void gp_bench_medians(const gp_bench_fn *fns, void *const *ctxs, int k, int batch, int warmup, int reps,
                                    float *ms_out)
{
    float *ms = (float *)malloc(sizeof(float) * (size_t)k * (size_t)reps);
    cudaEvent_t a, b;
    CUDA_CHK(cudaEventCreate(&a));
    CUDA_CHK(cudaEventCreate(&b));
    for (int f = 0; f < k; f++)
        for (int i = 0; i < warmup; i++) fns[f](ctxs[f]);
    CUDA_CHK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; r++)
        for (int f = 0; f < k; f++) {
            CUDA_CHK(cudaEventRecord(a, 0));
            for (int i = 0; i < batch; i++) fns[f](ctxs[f]);
            CUDA_CHK(cudaEventRecord(b, 0));
            CUDA_CHK(cudaEventSynchronize(b));
            CUDA_CHK(cudaEventElapsedTime(&ms[f * reps + r], a, b));
        }
    CUDA_CHK(cudaGetLastError());
    for (int f = 0; f < k; f++) {
        qsort(ms + f * reps, (size_t)reps, sizeof(float), gp__bench_cmp_float);
        ms_out[f] = ms[f * reps + reps / 2] / (float)batch;
    }
    free(ms);
    CUDA_CHK(cudaEventDestroy(a));
    CUDA_CHK(cudaEventDestroy(b));
}

/* Median time in milliseconds of `reps` calls of fn(ctx), each bracketed by events on the
 * default stream, after `warmup` untimed calls. */
static inline float gp_bench_median_ms_n(gp_bench_fn fn, void *ctx, int warmup, int reps)
{
    float med;
    gp_bench_medians(&fn, &ctx, 1, 1, warmup, reps, &med);
    return med;
}

static inline float gp_bench_median_ms(gp_bench_fn fn, void *ctx)
{
    return gp_bench_median_ms_n(fn, ctx, GP_BENCH_WARMUP, GP_BENCH_REPS);
}

/* Small calls against the launch floor: k functions and an empty kernel timed in turn, 64
 * calls back to back a batch (gp_bench_medians). ms_out[f]: function f's time per call;
 * *floor_ms: the empty kernel's, from the same batches' rounds. Timed apart, the floor
 * drifts between tables: on the H100 one run's floor read 4.81 us where others read 3.4-3.6,
 * which turned a row 1.9x the floor into 1.4x. */
static __global__ void gp__bench_empty_kernel(void) {}
static inline void gp_bench_empty(void *) { gp__bench_empty_kernel<<<1, 32>>>(); } /* the floor's call */
static inline void gp_bench_small_ms(const gp_bench_fn *fns, void *const *ctxs, int k, float *ms_out, float *floor_ms)
{
    gp_bench_fn all[8];
    void *all_ctx[8];
    float ms[8];
    if (k < 1 || k > 7) {
        fprintf(stderr, "gp_bench_small_ms: %d functions (1 to 7)\n", k);
        exit(1);
    }
    for (int f = 0; f < k; f++) all[f] = fns[f], all_ctx[f] = ctxs[f];
    all[k] = gp_bench_empty;
    all_ctx[k] = NULL;
    gp_bench_medians(all, all_ctx, k + 1, 64, GP_BENCH_WARMUP * 64, GP_BENCH_REPS, ms);
    for (int f = 0; f < k; f++) ms_out[f] = ms[f];
    *floor_ms = ms[k];
}

/* How many calls a batch holds: `total` units of work (elements, bytes) between the events
 * at `per_call` each, from 1 to 64. */
static inline int gp_bench_batch_size(size_t total, size_t per_call)
{
    const size_t b = per_call ? total / per_call : 64;
    return b < 1 ? 1 : b > 64 ? 64 : (int)b;
}

/* Time per call when `batch` calls run back to back between the events (median over
 * GP_BENCH_REPS batches, after GP_BENCH_WARMUP batches' worth of untimed calls): the GPU's
 * cost of a call once launches are queued, which is what a pipeline of small calls sees. A
 * single call from an idle GPU (gp_bench_median_ms) adds the host's launch latency instead. */
static inline float gp_bench_median_ms_batch(gp_bench_fn fn, void *ctx, int batch)
{
    float med;
    gp_bench_medians(&fn, &ctx, 1, batch, GP_BENCH_WARMUP * batch, GP_BENCH_REPS, &med);
    return med;
}

/* Device-to-device copy: the bandwidth ceiling. Returns GB/s counting bytes read plus
 * bytes written (2 * bytes per copy). Use bytes well above the L2 size. */
typedef struct { void *dst; const void *src; size_t bytes; } gp__bench_copy_ctx;
static void gp__bench_copy(void *p)
{
    gp__bench_copy_ctx *c = (gp__bench_copy_ctx *)p;
    CUDA_CHK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
}
static inline float gp_bench_copy_ms(void *dst, const void *src, size_t bytes)
{
    gp__bench_copy_ctx c = {dst, src, bytes};
    return gp_bench_median_ms(gp__bench_copy, &c);
}
static inline double gp_bench_gbps(double bytes, float ms) { return bytes / (ms * 1e6); }

/* A cuBLAS call that must succeed (in benches that include cublas_v2.h first). */
#ifdef CUBLAS_V2_H_
#define CUBLAS_CHK(call)                                                                   \
    do {                                                                                   \
        cublasStatus_t st_ = (call);                                                       \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)st_); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#endif

/* ---- tables --------------------------------------------------------------------------- */
typedef struct {
    FILE *md, *csv;
    char gpu[256], slug[256], date[32], commit[64];
    int l2_bytes, sms;
} gp_bench_out;

static gp_bench_out gp__bench;

/* Opens <results>/<gpu-slug>.<name>.md/.csv and writes the heading. */
static inline void gp_bench_begin(const char *name, const char *title)
{
    cudaDeviceProp p;
    CUDA_CHK(cudaGetDeviceProperties(&p, 0));
    snprintf(gp__bench.gpu, sizeof gp__bench.gpu, "%s", p.name);
    gp__bench.l2_bytes = p.l2CacheSize;
    gp__bench.sms = p.multiProcessorCount;
    size_t k = 0;
    for (const char *s = p.name; *s && k + 1 < sizeof gp__bench.slug; s++)
        gp__bench.slug[k++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-';
    gp__bench.slug[k] = 0;
    time_t now = time(NULL);
    strftime(gp__bench.date, sizeof gp__bench.date, "%Y-%m-%d", gmtime(&now));
    const char *commit = getenv("GP_COMMIT");
    snprintf(gp__bench.commit, sizeof gp__bench.commit, "%s", commit && *commit ? commit : "unknown");
    const char *dir = getenv("GP_BENCH_RESULTS");
    if (!dir || !*dir) dir = "bench/results";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%s.md", dir, gp__bench.slug, name);
    gp__bench.md = fopen(path, "w");
    if (!gp__bench.md) fprintf(stderr, "bench: cannot write %s (does the directory exist?); stdout only\n", path);
    snprintf(path, sizeof path, "%s/%s.%s.csv", dir, gp__bench.slug, name);
    gp__bench.csv = fopen(path, "w");
    if (!gp__bench.csv) fprintf(stderr, "bench: cannot write %s (does the directory exist?); stdout only\n", path);
    char head[1024];
    snprintf(head, sizeof head,
             "## %s\n\nGPU: %s (%d SMs, L2 %d MB), date %s, commit %s, gpuprims %s. Median of %d "
             "timed calls after %d warm-ups, CUDA events.\n",
             title, gp__bench.gpu, p.multiProcessorCount, p.l2CacheSize >> 20, gp__bench.date,
             gp__bench.commit, GPUPRIMS_VERSION_STRING, GP_BENCH_REPS, GP_BENCH_WARMUP);
    fputs(head, stdout);
    if (gp__bench.md) fputs(head, gp__bench.md);
}

/* One line of cells separated by '|': a markdown table row, or a CSV line. */
static inline void gp__bench_put_cells(FILE *f, const char *cells, int markdown)
{
    if (markdown) fputs("| ", f);
    for (const char *c = cells;;) {
        const char *end = strchr(c, '|');
        const size_t len = end ? (size_t)(end - c) : strlen(c);
        /* a CSV cell holding a comma or a quote is quoted, its quotes doubled (RFC 4180) */
        const int quote = !markdown && (memchr(c, ',', len) || memchr(c, '"', len));
        if (quote) fputc('"', f);
        for (size_t i = 0; i < len; i++) {
            if (quote && c[i] == '"') fputc('"', f);
            fputc(c[i], f);
        }
        if (quote) fputc('"', f);
        if (!end) break;
        fputs(markdown ? " | " : ",", f);
        c = end + 1;
    }
    fputs(markdown ? " |\n" : "\n", f);
}

/* Starts a table: `cols` is the header, cells separated by '|'. */
static inline void gp_table_begin(const char *title, const char *cols)
{
    FILE *outs[2] = {stdout, gp__bench.md};
    for (int o = 0; o < 2; o++) {
        if (!outs[o]) continue;
        fprintf(outs[o], "\n### %s\n\n", title);
        gp__bench_put_cells(outs[o], cols, 1);
        int ncol = 1;
        for (const char *c = cols; *c; c++) ncol += *c == '|';
        fputc('|', outs[o]);
        for (int i = 0; i < ncol; i++) fputs("---|", outs[o]);
        fputc('\n', outs[o]);
    }
    if (gp__bench.csv) {
        fprintf(gp__bench.csv, "# %s\n", title);
        gp__bench_put_cells(gp__bench.csv, cols, 0);
    }
}

/* One row: printf-style, cells separated by '|'. */
static inline void gp_table_row(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gp__bench_put_cells(stdout, line, 1);
    if (gp__bench.md) gp__bench_put_cells(gp__bench.md, line, 1);
    if (gp__bench.csv) gp__bench_put_cells(gp__bench.csv, line, 0);
    fflush(stdout);
}

/* Free text under a table (notes, the original papers' figures), any length (a ladder's
 * note runs past 4 KB). */
static inline void gp_bench_note(const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = len >= 0 ? (char *)malloc((size_t)len + 1) : NULL;
    if (line) vsnprintf(line, (size_t)len + 1, fmt, again);
    va_end(again);
    if (!line) return;
    fprintf(stdout, "\n%s\n", line);
    if (gp__bench.md) fprintf(gp__bench.md, "\n%s\n", line);
    free(line);
}

static inline void gp_bench_end(void)
{
    if (gp__bench.md) fclose(gp__bench.md);
    if (gp__bench.csv) fclose(gp__bench.csv);
    gp__bench.md = gp__bench.csv = NULL;
}

#endif /* GPUPRIMS_BENCH_CUH */
