/* bench/select/probes/two_trees.cu -- one program, built against two checkouts of gpuprims,
 * to compare their kernels in one device session: user instances (GP_DEFINE_*) of the
 * compaction, the segments and the scan, timed at 2^28 and 2^24 and checked against the
 * host. Run the two builds in turn, twice or more, and compare each job's best median: the
 * A/B figures of "The warp index as a shuffle" (docs/select.md, docs/segmented.md,
 * docs/scan.md) came from it. Not part of `make bench`.
 *
 * Build (from the root of each checkout, A and B) and run:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Ibench bench/select/probes/two_trees.cu -o /tmp/tt_A
 *   for r in 1 2; do /tmp/tt_A A [jobs]; /tmp/tt_B B [jobs]; done
 * jobs: a comma-separated list of substrings (e.g. "partition,segr-len1 "); a job runs
 * when its name, size included ("segr-len1 2^28"), holds one. Sizes 2^28, 2^24, 2^16 and
 * 2^10 (calls of 2^16 and less timed 64 back to back, as the bench's small calls, beside
 * the job "empty 2^16": an empty kernel, the floor). Each line printed:
 *   R <label> <job> <size> <median us> ok|BAD
 * Values are small integers, so every association of a float sum is exact and the
 * segmented reduce (segr-len<L>, fixed lengths 1 to 65536), segmented scan, reduce-by-key
 * and rows are checked bitwise; the scan, whose totals pass 2^24, within 1e-3, and the
 * column sums and the segmented reduce of the bench's power-law lengths (segr-pow, one
 * segment of n/2) within 1e-5. select-p<P> and partition-p<P> select by a predicate (x < P),
 * selflag-p<P> and partflag-p<P> by flags (as gp_select_flagged_f32 and gp_partition_flagged_f32; P
 * 0.0: none kept). */
#include <algorithm>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "gpuprims.cuh"
#include "probe.cuh"
#include "segmented/power_law.h"

#define TT_EQ(a, b) ((a) == (b))
#define TT_BELOW(x, p) ((x) < (p))
#define TT_ADD(a, b) ((a) + (b))
GP_DEFINE_UNIQUE(tt_i32, int32_t, TT_EQ)
GP_DEFINE_SELECT(tt_f32, float, float, TT_BELOW)
GP__DEFINE_SELECT_DEFAULT_HOST([[maybe_unused]] static, tt_f32, float) /* select by flags, as the default instances */
GP_DEFINE_SEGMENTED_REDUCE(tt_f32, float, TT_ADD, 0.0f)
GP_DEFINE_SEGMENTED_SCAN(tt_f32, float, TT_ADD, 0.0f)
GP_DEFINE_SCAN(tt_f32, float, TT_ADD, 0.0f)
GP_DEFINE_REDUCE(tt_f32, float, TT_ADD, 0.0f)
GP_DEFINE_REDUCE_BY_KEY(tt_i32_f32, int32_t, TT_EQ, float, TT_ADD, 0.0f)

static const char *g_label = "?", *g_jobs = NULL;

/* Whether the job named by the format is asked for. */
static bool wanted(const char *fmt, ...)
{
    char name[128], list[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (!g_jobs || !*g_jobs) return true;
    snprintf(list, sizeof list, "%s", g_jobs);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
        if (strstr(name, t)) return true;
    return false;
}

static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* The buffers every job shares (sized for 2^28 4-byte elements), and one call's arguments. */
struct tt_call {
    enum { UNIQUE, RUN_LENGTH, SELECT, SELECT_FLAGGED, PARTITION, PARTITION_FLAGGED, SEGR, SSCAN, SCAN, RBK, ROWS, COLS, REDUCE, EMPTY } kind;
    size_t n, segs, cols;
    float p;
    void *in, *out, *out2, *keys;
    uint64_t *count, *offsets;
    const uint8_t *heads;
};

/* the launch floor: a kernel of one warp that does nothing */
__global__ void tt_empty(void) {}

static void tt_run(void *arg)
{
    const tt_call *c = (const tt_call *)arg;
    float *in = (float *)c->in, *out = (float *)c->out;
    switch (c->kind) {
    case tt_call::UNIQUE: CK(gp_unique_tt_i32((int32_t *)c->out, c->count, (const int32_t *)c->in, c->n, 0)); break;
    case tt_call::RUN_LENGTH:
        CK(gp_run_length_tt_i32((int32_t *)c->out, (uint64_t *)c->out2, c->count, (const int32_t *)c->in, c->n, 0));
        break;
    case tt_call::SELECT: CK(gp_select_tt_f32(out, c->count, in, c->n, c->p, 0)); break;
    case tt_call::SELECT_FLAGGED: CK(gp_select_flagged_tt_f32(out, c->count, in, c->heads, c->n, 0)); break;
    case tt_call::PARTITION: CK(gp_partition_tt_f32(out, (float *)c->out2, c->count, in, c->n, c->p, 0)); break;
    case tt_call::PARTITION_FLAGGED:
        CK(gp_partition_flagged_tt_f32(out, (float *)c->out2, c->count, in, c->heads, c->n, 0));
        break;
    case tt_call::SEGR: CK(gp_segmented_reduce_tt_f32(out, in, c->offsets, c->segs, 0)); break;
    case tt_call::SSCAN: CK(gp_exclusive_segmented_scan_tt_f32(out, in, c->heads, c->n, 0)); break;
    case tt_call::SCAN: CK(gp_inclusive_scan_tt_f32(out, in, c->n, 0)); break;
    case tt_call::RBK:
        CK(gp_reduce_by_key_tt_i32_f32((int32_t *)c->out2, out, c->count, (const int32_t *)c->keys, in, c->n, 0));
        break;
    case tt_call::ROWS: CK(gp_reduce_rows_tt_f32(out, in, c->segs, c->cols, c->cols, 0)); break;
    case tt_call::COLS: CK(gp_reduce_cols_tt_f32(out, in, c->segs, c->cols, c->cols, 0)); break;
    case tt_call::REDUCE: CK(gp_reduce_tt_f32(out, in, c->n, 0)); break;
    case tt_call::EMPTY: tt_empty<<<1, 32>>>(); break;
    }
}

static void report(const char *job, int lg, tt_call *c, bool (*check)(const tt_call *, int), int arg)
{
    CK(cudaMemset(c->out, 0xff, c->n * 4)); /* poisoned: every output checked must be written */
    const double us = probe_time(tt_run, c, lg <= 16 ? 64 : 10, 0, 0, NULL); /* small: 64 back to back */
    printf("R %s %s 2^%d %.2f %s\n", g_label, job, lg, us, check(c, arg) ? "ok" : "BAD");
    fflush(stdout);
}

/* host copies of the inputs, and of the outputs read back */
static std::vector<int32_t> h_i, h_io;
static std::vector<float> h_f, h_fo;
static std::vector<uint64_t> h_u;
static std::vector<uint8_t> h_h;

static uint64_t device_count(const tt_call *c)
{
    uint64_t k;
    CK(cudaMemcpy(&k, c->count, 8, cudaMemcpyDeviceToHost));
    return k;
}

/* unique and run-length: the firsts of the runs, in order, and each run's length */
static bool check_runs(const tt_call *c, int)
{
    const uint64_t k = device_count(c);
    size_t runs = 0;
    for (size_t i = 0; i < c->n; i++) runs += i == 0 || h_i[i] != h_i[i - 1];
    if (k != runs) return false;
    CK(cudaMemcpy(h_io.data(), c->out, k * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0, r = 0; i < c->n; i++)
        if ((i == 0 || h_i[i] != h_i[i - 1]) && h_io[r++] != h_i[i]) return false;
    if (c->kind != tt_call::RUN_LENGTH) return true;
    CK(cudaMemcpy(h_u.data(), c->out2, k * 8, cudaMemcpyDeviceToHost));
    for (size_t i = 0, r = 0, len = 1; i < c->n; i++, len++) /* each length */
        if (i + 1 == c->n || h_i[i + 1] != h_i[i]) {
            if (h_u[r++] != len) return false;
            len = 0;
        }
    return true;
}

/* One side of a select or partition: the `count` items of `got` (device) are the inputs
 * with (x < p) == kept, in order. */
static bool check_side(const float *got, uint64_t count, const tt_call *c, bool kept)
{
    CK(cudaMemcpy(h_fo.data(), got, count * 4, cudaMemcpyDeviceToHost));
    size_t r = 0;
    for (size_t i = 0; i < c->n; i++)
        if ((h_f[i] < c->p) == kept && (r >= count || h_fo[r++] != h_f[i])) return false;
    return r == count;
}

/* select: the kept items, in order */
static bool check_kept(const tt_call *c, int)
{
    return check_side((const float *)c->out, device_count(c), c, true);
}

/* partition: the kept items in order, then the rejected ones in order in out2 */
static bool check_parted(const tt_call *c, int)
{
    const uint64_t k = device_count(c);
    return check_side((const float *)c->out, k, c, true) && check_side((const float *)c->out2, c->n - k, c, false);
}

/* segmented reduce of fixed lengths L, exact */
static bool check_segments(const tt_call *c, int L)
{
    CK(cudaMemcpy(h_fo.data(), c->out, c->segs * 4, cudaMemcpyDeviceToHost));
    for (size_t s = 0; s < c->segs; s++) {
        float t = 0;
        for (int j = 0; j < L; j++) t += h_f[s * L + j];
        if (t != h_fo[s]) return false;
    }
    return true;
}

/* segments of any lengths (h_u, the offsets): within 1e-5 (a segment of n/2 passes 2^24) */
static bool check_offsets(const tt_call *c, int)
{
    CK(cudaMemcpy(h_fo.data(), c->out, c->segs * 4, cudaMemcpyDeviceToHost));
    for (size_t s = 0; s < c->segs; s++) {
        double t = 0;
        for (uint64_t j = h_u[s]; j < h_u[s + 1]; j++) t += h_f[j];
        if (fabs(h_fo[s] - t) > 1e-5 * t + 1e-3) return false;
    }
    return true;
}

/* exclusive segmented scan (exact) and inclusive scan (within 1e-3: its totals pass 2^24) */
static bool check_scans(const tt_call *c, int)
{
    CK(cudaMemcpy(h_fo.data(), c->out, c->n * 4, cudaMemcpyDeviceToHost));
    double acc = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind == tt_call::SSCAN) {
            if (i == 0 || h_h[i]) acc = 0;
            if (h_fo[i] != (float)acc) return false;
            acc += h_f[i];
        } else {
            acc += h_f[i];
            if (fabs(h_fo[i] - acc) > 1e-3 * acc + 1) return false;
        }
    }
    return true;
}

/* reduce-by-key, runs of L keys (the last one shorter where L does not divide n): each run's
 * key and sum, exact */
static bool check_rbk(const tt_call *c, int L)
{
    const uint64_t k = device_count(c);
    if (k != (c->n + L - 1) / L) return false;
    CK(cudaMemcpy(h_fo.data(), c->out, k * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_io.data(), c->out2, k * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < k; r++) {
        float t = 0;
        for (size_t j = r * L; j < (r + 1) * L && j < c->n; j++) t += h_f[j];
        if (t != h_fo[r] || h_io[r] != h_i[r * L]) return false;
    }
    return true;
}

/* the plain reduce, within 1e-5 of the double sum */
static bool check_reduce(const tt_call *c, int)
{
    float r;
    CK(cudaMemcpy(&r, c->out, 4, cudaMemcpyDeviceToHost));
    double t = 0;
    for (size_t i = 0; i < c->n; i++) t += h_f[i];
    return fabs(r - t) <= 1e-5 * t + 1;
}

/* rows (exact) and columns (within 1e-5) of a segs x cols matrix */
static bool check_axis(const tt_call *c, int)
{
    const size_t R = c->segs, C = c->cols, outs = c->kind == tt_call::ROWS ? R : C;
    CK(cudaMemcpy(h_fo.data(), c->out, outs * 4, cudaMemcpyDeviceToHost));
    std::vector<double> t(outs, 0.0);
    for (size_t r = 0; r < R; r++)
        for (size_t j = 0; j < C; j++) t[c->kind == tt_call::ROWS ? r : j] += h_f[r * C + j];
    for (size_t o = 0; o < outs; o++)
        if (fabs(h_fo[o] - t[o]) > (c->kind == tt_call::ROWS ? 0.0 : 1e-5 * t[o] + 1)) return false;
    return true;
}

static void to_device(void *d, const void *h, size_t bytes)
{
    CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
}

int main(int argc, char **argv)
{
    if (argc > 1) g_label = argv[1];
    if (argc > 2) g_jobs = argv[2];
    const size_t NMAX = (size_t)1 << 28;
    tt_call c = {};
    uint8_t *d_heads;
    CK(cudaMalloc(&c.in, NMAX * 4));
    CK(cudaMalloc(&c.out, NMAX * 4));
    CK(cudaMalloc(&c.out2, NMAX * 8));
    CK(cudaMalloc(&c.keys, NMAX * 4));
    CK(cudaMalloc(&c.count, 8));
    CK(cudaMalloc(&c.offsets, (NMAX + 1) * 8));
    CK(cudaMalloc(&d_heads, NMAX));
    c.heads = d_heads;
    h_i.resize(NMAX), h_io.resize(NMAX), h_f.resize(NMAX), h_fo.resize(NMAX), h_u.resize(NMAX + 1), h_h.resize(NMAX);
    char job[64];
    if (wanted("empty 2^16")) { /* the floor of the small calls, timed as they are */
        c.kind = tt_call::EMPTY;
        report("empty", 16, &c, [](const tt_call *, int) { return true; }, 0);
    }
    for (int lg : {28, 24, 16, 10}) {
        const size_t n = (size_t)1 << lg;
        c.n = n;
        for (int runs : {1, 8, 1024}) { /* i32 runs of equal values */
            if (!wanted("unique-runs%d 2^%d", runs, lg) && !wanted("rle-runs%d 2^%d", runs, lg)) continue;
            for (size_t i = 0; i < n; i++) h_i[i] = (int32_t)(mix(i / runs) & 0x7fffffff);
            to_device(c.in, h_i.data(), n * 4);
            for (int rle = 0; rle < 2; rle++) {
                snprintf(job, sizeof job, "%s-runs%d", rle ? "rle" : "unique", runs);
                if (!wanted("%s 2^%d", job, lg)) continue;
                c.kind = rle ? tt_call::RUN_LENGTH : tt_call::UNIQUE;
                report(job, lg, &c, check_runs, 0);
            }
        }
        for (size_t i = 0; i < n; i++) h_f[i] = (mix(i + 77) >> 8) * (1.0f / 16777216.0f); /* [0, 1) */
        to_device(c.in, h_f.data(), n * 4);
        for (float p : {0.5f, 0.1f})
            for (int part = 0; part < 2; part++) {
                snprintf(job, sizeof job, "%s-p%.1f", part ? "partition" : "select", p);
                if (!wanted("%s 2^%d", job, lg)) continue;
                c.kind = part ? tt_call::PARTITION : tt_call::SELECT;
                c.p = p;
                report(job, lg, &c, part ? check_parted : check_kept, 0);
            }
        for (float p : {0.5f, 0.1f, 0.0f}) /* by flags (the heads' buffer), kept where x < p */
            for (int part = 0; part < 2; part++) {
                snprintf(job, sizeof job, "%s-p%.1f", part ? "partflag" : "selflag", p);
                if (!wanted("%s 2^%d", job, lg)) continue;
                for (size_t i = 0; i < n; i++) h_h[i] = h_f[i] < p ? (uint8_t)(1 + i % 255) : 0; /* any nonzero keeps */
                to_device(d_heads, h_h.data(), n);
                c.kind = part ? tt_call::PARTITION_FLAGGED : tt_call::SELECT_FLAGGED;
                c.p = p;
                report(job, lg, &c, part ? check_parted : check_kept, 0);
            }
        for (size_t i = 0; i < n; i++) h_f[i] = (float)(mix(i) % 16); /* small integers: exact sums */
        to_device(c.in, h_f.data(), n * 4);
        for (int L : {1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 65536}) {
            snprintf(job, sizeof job, "segr-len%d", L);
            if (!wanted("%s 2^%d", job, lg)) continue;
            c.kind = tt_call::SEGR;
            c.segs = n / L;
            for (size_t s = 0; s <= c.segs; s++) h_u[s] = s * L;
            to_device(c.offsets, h_u.data(), (c.segs + 1) * 8);
            report(job, lg, &c, check_segments, L);
        }
        for (int mix_kind = 0; mix_kind < 4; mix_kind++) { /* random lengths: 0 to 4, 0 to 16, 0 to 64; a tenth of 100 */
            static const char *const names[] = {"segr-rand2", "segr-rand8", "segr-rand32", "segr-tenth100"};
            if (!wanted("%s 2^%d", names[mix_kind], lg)) continue;
            size_t s = 0, at = 0;
            for (h_u[0] = 0; at < n; s++) {
                const uint32_t r = mix(5 * s + (uint64_t)mix_kind * 1000003u);
                size_t len = mix_kind < 3 ? r % (4u << (2 * mix_kind) | 1u) : (r % 10 == 0 ? 100 : 1);
                len = len < n - at ? len : n - at;
                at += len;
                h_u[s + 1] = at;
            }
            c.segs = s;
            to_device(c.offsets, h_u.data(), (c.segs + 1) * 8);
            c.kind = tt_call::SEGR;
            report(names[mix_kind], lg, &c, check_offsets, 0);
        }
        if (wanted("segr-pow 2^%d", lg)) { /* the bench's power-law lengths, the same draws */
            const std::vector<uint64_t> off = gp_bench_power_law_offsets(n);
            c.segs = off.size() - 1;
            std::copy(off.begin(), off.end(), h_u.begin());
            to_device(c.offsets, h_u.data(), (c.segs + 1) * 8);
            c.kind = tt_call::SEGR;
            report("segr-pow", lg, &c, check_offsets, 0);
        }
        for (int every : {8, 1024, 65536}) { /* a head one element in 8 (1024, 65536), at random */
            snprintf(job, sizeof job, "sscan-heads%d", every);
            if (!wanted("%s 2^%d", job, lg)) continue;
            for (size_t i = 0; i < n; i++) h_h[i] = mix(3 * i + 1) % every == 0;
            to_device(d_heads, h_h.data(), n);
            c.kind = tt_call::SSCAN;
            report(job, lg, &c, check_scans, 0);
        }
        if (wanted("scan 2^%d", lg)) {
            c.kind = tt_call::SCAN;
            report("scan", lg, &c, check_scans, 0);
        }
        for (int L : {1, 8, 1024, 65536}) { /* runs of L keys, each key unlike its neighbours' */
            snprintf(job, sizeof job, "rbk-runs%d", L);
            if (!wanted("%s 2^%d", job, lg)) continue;
            for (size_t i = 0; i < n; i++) h_i[i] = (int32_t)(mix(i / L) & 0x7ffffffe) + (int32_t)(i / L % 2);
            to_device(c.keys, h_i.data(), n * 4);
            c.kind = tt_call::RBK;
            report(job, lg, &c, check_rbk, L);
        }
        const size_t shapes[][2] = {{4194304, 64}, {16777216, 16}, {1048576, 256}, {16384, 16384}};
        for (const auto &sh : shapes)
            for (int cols = 0; cols < 2; cols++) {
                c.segs = sh[0] >> (28 - lg);
                c.cols = sh[1];
                snprintf(job, sizeof job, "%s-%zux%zu", cols ? "cols" : "rows", c.segs, c.cols);
                if (c.segs == 0 || !wanted("%s 2^%d", job, lg)) continue;
                c.kind = cols ? tt_call::COLS : tt_call::ROWS;
                report(job, lg, &c, check_axis, 0);
            }
    }
    /* the plain reduce, also at the sizes where a call is a few waves of blocks */
    for (size_t i = 0; i < NMAX; i++) h_f[i] = (float)(mix(i) % 16);
    to_device(c.in, h_f.data(), NMAX * 4);
    for (int lg : {28, 24, 22, 20, 16}) {
        c.n = (size_t)1 << lg;
        c.kind = tt_call::REDUCE;
        if (wanted("reduce 2^%d", lg)) report("reduce", lg, &c, check_reduce, 0);
    }
    return 0;
}
