/* tests/stress/stress.cu -- what gpuprims survives: randomized property tests, load,
 * co-running kernels, graph capture, two GPUs, memory exhaustion, sticky errors, stream
 * handles and odd alignments. `make stress` builds and runs it (GPU, about 5 minutes).
 *
 *   build/tests/stress                       every section; STRESS_SECONDS=<s> scales it (default 300)
 *   build/tests/stress --only random,load    some sections (random load corun graph streams
 *                                            gpus oom sticky align families, or one family:
 *                                            select segmented histogram sort)
 *   build/tests/stress --case 1234           replays one randomized case, verbose (with the
 *                                            run's GP_TEST_SEED: every failure prints the command)
 *   GP_TEST_SEED=<n>                         replays a whole run's cases
 *
 * The library is called through its public names only: the default instances (an explicit
 * table below), and user instances made with GP_DEFINE_REDUCE / GP_DEFINE_SCAN /
 * GP_DEFINE_TRANSPOSE. Every result is checked against a host reference; outputs are
 * poisoned first, with guard bytes around them that must stay poisoned. Sections that
 * must fault, fill the GPU or start cold run in child processes of this program
 * (`--child <name>`), each under an alarm, so that a crash or a hang is seen and counted.
 * A watchdog thread ends the run (exit status 3) if any section stops making progress.
 * Without a GPU every section is counted as skipped. Ends "N passed, N failed, N skipped". */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../mat2.cuh"
#include "families.h"

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern "C" int gp_t_passed, gp_t_failed, gp_t_skipped; /* tests/harness.c */

/* ---- user instances: non-commutative operators of 8 and 16 bytes, odd element sizes ------ */

/* f then g: x -> g.a * (f.a * x + f.b) + g.b mod 2^32. 8 bytes, aligned to 4. */
typedef struct { uint32_t a, b; } aff_t;
static __host__ __device__ aff_t aff_then(aff_t f, aff_t g)
{
    aff_t r = {g.a * f.a, g.a * f.b + g.b};
    return r;
}
#define AFF_THEN(f, g) aff_then((f), (g))
GP_DEFINE_REDUCE(aff, aff_t, AFF_THEN, ((aff_t){1, 0}))
GP_DEFINE_SCAN(aff, aff_t, AFF_THEN, ((aff_t){1, 0}))

/* mat2 (tests/mat2.cuh): 2x2 matrix product mod 2^32, 16 bytes aligned to 4 (element by
 * element). m2a: the same product on a 16-byte aligned type (16-byte vector paths). */
GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
typedef struct __align__(16) { uint32_t a, b, c, d; } m2a_t;
static __host__ __device__ m2a_t m2a_mul(m2a_t x, m2a_t y)
{
    m2a_t r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    return r;
}
#define M2A_MUL(x, y) m2a_mul((x), (y))
GP_DEFINE_REDUCE(m2a, m2a_t, M2A_MUL, ((m2a_t){1, 0, 0, 1}))
GP_DEFINE_SCAN(m2a, m2a_t, M2A_MUL, ((m2a_t){1, 0, 0, 1}))

typedef struct { float r, g, b; } rgb_t;  /* 12 bytes */
typedef struct { float re, im; } cplx_t;  /* 8 bytes, aligned to 4 */
GP_DEFINE_TRANSPOSE(rgb, rgb_t)
GP_DEFINE_TRANSPOSE(cplx, cplx_t)

/* ---- the instance tables (written out here: the suite names what it covers) ------------- */

enum { T_I32, T_U32, T_I64, T_U64, T_F32, T_F64, T_AFF, T_MAT2, T_M2A };
enum { O_SUM, O_MIN, O_MAX, O_SEQ /* the user type's own product */ };

typedef cudaError_t (*rs_fn)(void *o, const void *i, size_t n, cudaStream_t s);
typedef struct {
    const char *name;
    int type, op;
    size_t elem, align;
    rs_fn reduce, ex, in;
} rs_inst;

#define STRESS_RS_INSTANCES(X)                                                                                   \
    X(sum_i32, int32_t, T_I32, O_SUM) X(sum_u32, uint32_t, T_U32, O_SUM) X(sum_i64, int64_t, T_I64, O_SUM)       \
    X(sum_u64, uint64_t, T_U64, O_SUM) X(sum_f32, float, T_F32, O_SUM) X(sum_f64, double, T_F64, O_SUM)           \
    X(min_i32, int32_t, T_I32, O_MIN) X(min_u32, uint32_t, T_U32, O_MIN) X(min_i64, int64_t, T_I64, O_MIN)       \
    X(min_u64, uint64_t, T_U64, O_MIN) X(min_f32, float, T_F32, O_MIN) X(min_f64, double, T_F64, O_MIN)           \
    X(max_i32, int32_t, T_I32, O_MAX) X(max_u32, uint32_t, T_U32, O_MAX) X(max_i64, int64_t, T_I64, O_MAX)       \
    X(max_u64, uint64_t, T_U64, O_MAX) X(max_f32, float, T_F32, O_MAX) X(max_f64, double, T_F64, O_MAX)           \
    X(aff, aff_t, T_AFF, O_SEQ) X(mat2, mat2, T_MAT2, O_SEQ) X(m2a, m2a_t, T_M2A, O_SEQ)

#define RS_WRAP(name, T, TY, OP)                                                                                 \
    static cudaError_t r_##name(void *o, const void *i, size_t n, cudaStream_t s)                               \
    {                                                                                                            \
        return gp_reduce_##name((T *)o, (const T *)i, n, s);                                                     \
    }                                                                                                            \
    static cudaError_t e_##name(void *o, const void *i, size_t n, cudaStream_t s)                               \
    {                                                                                                            \
        return gp_exclusive_scan_##name((T *)o, (const T *)i, n, s);                                             \
    }                                                                                                            \
    static cudaError_t i_##name(void *o, const void *i, size_t n, cudaStream_t s)                               \
    {                                                                                                            \
        return gp_inclusive_scan_##name((T *)o, (const T *)i, n, s);                                             \
    }
STRESS_RS_INSTANCES(RS_WRAP)
#define RS_ROW(name, T, TY, OP) {#name, TY, OP, sizeof(T), alignof(T), r_##name, e_##name, i_##name},
static const rs_inst RS[] = {STRESS_RS_INSTANCES(RS_ROW)};
enum { N_RS = sizeof RS / sizeof *RS };

typedef cudaError_t (*tr_plain)(void *o, const void *i, size_t r, size_t c, cudaStream_t s);
typedef cudaError_t (*tr_strided)(void *o, size_t lo, const void *i, size_t li, size_t r, size_t c, cudaStream_t s);
typedef cudaError_t (*tr_batched)(void *o, size_t lo, size_t so, const void *i, size_t li, size_t si, size_t r,
                                  size_t c, size_t b, cudaStream_t s);
typedef struct {
    const char *name;
    size_t elem, align; /* align: the smallest alignment the suite places it at */
    tr_plain plain;
    tr_strided strided;
    tr_batched batched;
} tr_inst;

/* name, T, the alignment tested: a double at 4 and a gp_v16_t at 4 (standing for float4 or
 * complex float pairs) are promised to work, below the C types' own alignment. */
#define STRESS_TR_INSTANCES(X) \
    X(u8, uint8_t, 1) X(u16, uint16_t, 2) X(f32, float, 4) X(f64, double, 4) X(v16, gp_v16_t, 4) X(rgb, rgb_t, 4) X(cplx, cplx_t, 4)
#define TR_WRAP(name, T, A)                                                                                      \
    static cudaError_t tp_##name(void *o, const void *i, size_t r, size_t c, cudaStream_t s)                    \
    {                                                                                                            \
        return gp_transpose_##name((T *)o, (const T *)i, r, c, s);                                               \
    }                                                                                                            \
    static cudaError_t ts_##name(void *o, size_t lo, const void *i, size_t li, size_t r, size_t c, cudaStream_t s) \
    {                                                                                                            \
        return gp_transpose_strided_##name((T *)o, lo, (const T *)i, li, r, c, s);                               \
    }                                                                                                            \
    static cudaError_t tb_##name(void *o, size_t lo, size_t so, const void *i, size_t li, size_t si, size_t r,   \
                                 size_t c, size_t b, cudaStream_t s)                                             \
    {                                                                                                            \
        return gp_transpose_batched_##name((T *)o, lo, so, (const T *)i, li, si, r, c, b, s);                    \
    }
STRESS_TR_INSTANCES(TR_WRAP)
#define TR_ROW(name, T, A) {#name, sizeof(T), A, tp_##name, ts_##name, tb_##name},
static const tr_inst TR[] = {STRESS_TR_INSTANCES(TR_ROW)};
enum { N_TR = sizeof TR / sizeof *TR };

typedef cudaError_t (*mm_fn)(void *c, const void *a, const void *b, size_t m, size_t n, size_t k, cudaStream_t s);
static cudaError_t mm_f32(void *c, const void *a, const void *b, size_t m, size_t n, size_t k, cudaStream_t s)
{
    return gp_matmul_f32((float *)c, (const float *)a, (const float *)b, m, n, k, s);
}
static cudaError_t mm_f64(void *c, const void *a, const void *b, size_t m, size_t n, size_t k, cudaStream_t s)
{
    return gp_matmul_f64((double *)c, (const double *)a, (const double *)b, m, n, k, s);
}
typedef struct { const char *name; size_t elem; mm_fn fn; } mm_inst;
static const mm_inst MM[] = {{"f32", 4, mm_f32}, {"f64", 8, mm_f64}};
enum { N_MM = 2 };

/* ---- small tools ------------------------------------------------------------------------- */

static const unsigned char POISON = 0xA7;
#define GUARD ((size_t)256) /* poisoned bytes before and after every output, checked */

static double now_s(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static std::mutex g_lock; /* the harness counters and stderr */
#define SEXPECT(cond, ...)                                       \
    do {                                                         \
        const int ok_ = (cond) ? 1 : 0;                          \
        std::lock_guard<std::mutex> lk_(g_lock);                 \
        gp_t_check(ok_, __FILE__, __LINE__, __VA_ARGS__);        \
    } while (0)

/* CUDA_CHK for the suite's own calls (not the library's): a failure here is the harness's. */
#define SCHK(call) CUDA_CHK(call)

static uint64_t nx(uint64_t *st) { return gp_t_next(st); }
static size_t pick(uint64_t *st, size_t n) { return n ? (size_t)(nx(st) % n) : 0; }

/* ---- watchdog: every busy thread beats; silence for too long ends the run ----------------- */

enum { WD_SLOTS = 64 };
static std::atomic<double> wd_beat[WD_SLOTS];
static std::atomic<const char *> wd_what[WD_SLOTS];
static double wd_limit_s = 120;
static char wd_text[WD_SLOTS][160]; /* what a slot is doing, when it is more than a constant */

static void wd_set(int slot, const char *what)
{
    wd_what[slot].store(what);
    wd_beat[slot].store(now_s());
}
static void wd_clear(int slot) { wd_what[slot].store(NULL); }

static void watchdog_thread(void)
{
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const double t = now_s();
        for (int i = 0; i < WD_SLOTS; i++) {
            const char *what = wd_what[i].load();
            if (what && t - wd_beat[i].load() > wd_limit_s) {
                fprintf(stderr, "HANG: slot %d made no progress for %.0f s, in: %s\n", i, t - wd_beat[i].load(), what);
                for (int j = 0; j < WD_SLOTS; j++)
                    if (j != i && wd_what[j].load()) fprintf(stderr, "  slot %d was in: %s\n", j, wd_what[j].load());
                printf("%d passed, %d failed, %d skipped (ended by the watchdog: a hang)\n", gp_t_passed,
                       gp_t_failed + 1, gp_t_skipped);
                fflush(stdout);
                fflush(stderr);
                _exit(3);
            }
        }
    }
}

/* ---- a case: one call, fully described by its id (and the run's seed) --------------------- */

enum { F_REDUCE, F_EXSCAN, F_INSCAN, F_TRANSPOSE, F_MATMUL, N_FAM };
static const char *const FAM_NAME[] = {"reduce", "exclusive_scan", "inclusive_scan", "transpose", "matmul"};
enum { SZ_NORMAL, SZ_BIG, SZ_MID }; /* size classes: most cases; up to 2^28 elements; load/graph sizes */

typedef struct {
    uint64_t id;
    int fam, inst, size_class;
    size_t n;                /* reduce / scan count */
    size_t in_off, out_off;  /* bytes past the guard where the input and output start */
    int in_place, frac;      /* scan in place; floats with fractions (tolerance) */
    int api;                 /* transpose: 0 plain, 1 strided, 2 batched */
    size_t rows, cols, batch, ld_in, ld_out, stride_in, stride_out;
    size_t m, nn, k, b_off;  /* matmul: C = A.B, m x k times k x nn; B at in + b_off */
    size_t elem, in_bytes, out_bytes; /* spans from the input and output pointers */
} scase;

static size_t span_elems(size_t rows, size_t cols, size_t ld, size_t batch, size_t stride)
{
    if (rows == 0 || cols == 0 || batch == 0) return 0;
    return (batch - 1) * stride + (rows - 1) * ld + cols;
}

/* n for reduce and scan: mostly small, and mostly on or next to the warp, vector, tile,
 * cluster and grid boundaries, counted in elements or in bytes. */
static size_t pick_count(uint64_t *st, size_t elem, int size_class)
{
    if (size_class == SZ_BIG) { /* 2^22 .. 2^28 */
        const size_t base = (size_t)1 << (22 + pick(st, 7));
        switch (pick(st, 3)) {
        case 0: return base + pick(st, 9) - 4;
        case 1: return base - pick(st, 4096);
        default: return base / 2 + pick(st, base / 2);
        }
    }
    if (size_class == SZ_MID) { /* one-block, cluster and grid sizes, up to 2^19 */
        const size_t bits = pick(st, 20);
        return ((size_t)1 << bits) + pick(st, (size_t)1 << bits);
    }
    const size_t r = pick(st, 100);
    if (r < 25) return pick(st, 70);
    if (r < 80) {
        static const size_t el[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 1 << 20};
        static const size_t by[] = {16, 64, 512, 2048, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1 << 20, 1 << 21, 1 << 22};
        size_t b;
        if (pick(st, 2)) {
            const size_t i = pick(st, 15), j = pick(st, 15);
            b = el[i < j ? i : j]; /* smaller boundaries more often */
        } else {
            const size_t i = pick(st, 14), j = pick(st, 14);
            b = by[i < j ? i : j] / elem;
            if (b == 0) b = 1;
        }
        const size_t mult = 1 + pick(st, 3) * (pick(st, 4) == 0 ? 1 + pick(st, 8) : 1);
        const long long d = (long long)pick(st, 7) - 3;
        const long long n = (long long)(b * mult) + d;
        return n < 0 ? 0 : (size_t)n;
    }
    const size_t bits = pick(st, 21);
    return ((size_t)1 << bits) + pick(st, (size_t)1 << bits);
}

/* A matrix dimension: small, on or next to 32, 64, 128... , or random. */
static size_t pick_dim(uint64_t *st, size_t max)
{
    const size_t r = pick(st, 10);
    if (r < 2) return 1 + pick(st, 4);
    if (r < 6) {
        static const size_t b[] = {8, 16, 32, 64, 96, 128, 256, 512, 1024};
        const long long v = (long long)(b[pick(st, 9)] * (1 + pick(st, 2))) + (long long)pick(st, 5) - 2;
        return v < 1 ? 1 : (size_t)v > max ? max : (size_t)v;
    }
    return 1 + pick(st, max);
}

static size_t pick_off(uint64_t *st, size_t align) { return pick(st, 64 / align) * align; }

/* The case `id`. fam / inst < 0: picked at random; size_class as above. */
static void case_make(scase *c, uint64_t id, int fam, int inst, int size_class)
{
    memset(c, 0, sizeof *c);
    uint64_t st = gp_t_state(((uint64_t)1 << 40) + id);
    c->id = id;
    c->size_class = size_class;
    if (fam < 0) {
        const size_t r = pick(&st, 100);
        fam = r < 22 ? F_REDUCE : r < 40 ? F_EXSCAN : r < 58 ? F_INSCAN : r < 88 ? F_TRANSPOSE : F_MATMUL;
        if (size_class == SZ_BIG && fam == F_MATMUL) fam = F_TRANSPOSE;
    }
    c->fam = fam;
    if (fam <= F_INSCAN) {
        c->inst = inst >= 0 ? inst : (int)pick(&st, N_RS);
        const rs_inst *ri = &RS[c->inst];
        c->elem = ri->elem;
        c->n = pick_count(&st, c->elem, size_class);
        if (size_class == SZ_BIG && c->n * c->elem > ((size_t)4 << 30)) c->n = ((size_t)4 << 30) / c->elem;
        c->in_off = pick_off(&st, ri->align);
        c->out_off = pick_off(&st, ri->align);
        c->in_place = fam != F_REDUCE && size_class != SZ_MID && pick(&st, 4) == 0;
        c->frac = (ri->type == T_F32 || ri->type == T_F64) && ri->op == O_SUM && c->n <= ((size_t)1 << 20) && pick(&st, 10) < 3;
        c->in_bytes = c->n * c->elem;
        c->out_bytes = fam == F_REDUCE ? c->elem : c->n * c->elem;
    } else if (fam == F_TRANSPOSE) {
        c->inst = inst >= 0 ? inst : (int)pick(&st, N_TR);
        const tr_inst *t = &TR[c->inst];
        c->elem = t->elem;
        const size_t maxel = size_class == SZ_BIG ? ((size_t)1 << 30) / t->elem : size_class == SZ_MID ? (size_t)1 << 18 : (size_t)1 << 21;
        c->api = (int)pick(&st, 3);
        if (size_class == SZ_BIG) {
            const size_t r = pick(&st, 3);
            if (r == 0) c->rows = pick_dim(&st, 64), c->cols = maxel / c->rows - pick(&st, 100);
            else if (r == 1) c->cols = pick_dim(&st, 64), c->rows = maxel / c->cols - pick(&st, 100);
            else c->rows = 4096 + pick(&st, 12289), c->cols = maxel / c->rows - pick(&st, 33);
        } else if (pick(&st, 7) == 0) { /* skinny */
            c->rows = 1 + pick(&st, 40), c->cols = 1 + pick(&st, (size_t)1 << 15);
            if (pick(&st, 2)) { const size_t x = c->rows; c->rows = c->cols; c->cols = x; }
        } else {
            c->rows = pick_dim(&st, 1500), c->cols = pick_dim(&st, 1500);
        }
        c->batch = c->api == 2 ? 1 + pick(&st, 6) : 1;
        c->ld_in = c->cols + (c->api && pick(&st, 3) ? pick(&st, 33) : 0);
        c->ld_out = c->rows + (c->api && pick(&st, 3) ? pick(&st, 33) : 0);
        if (span_elems(c->rows, c->cols, c->ld_in, 1, 0) > 2 * maxel) c->ld_in = c->cols; /* skinny and padded: too large */
        if (span_elems(c->cols, c->rows, c->ld_out, 1, 0) > 2 * maxel) c->ld_out = c->rows;
        const size_t in_mat = (c->rows - 1) * c->ld_in + c->cols, out_mat = (c->cols - 1) * c->ld_out + c->rows;
        const size_t r = pick(&st, 10);
        c->stride_in = c->api != 2 ? 0 : r == 0 ? 0 : r == 1 ? 1 + pick(&st, in_mat) : in_mat + (pick(&st, 2) ? pick(&st, 17) : 0);
        c->stride_out = c->api != 2 ? 0 : out_mat + (pick(&st, 2) ? pick(&st, 17) : 0);
        while (c->batch > 1 && span_elems(c->rows, c->cols, c->ld_in, c->batch, c->stride_in) +
                                       span_elems(c->cols, c->rows, c->ld_out, c->batch, c->stride_out) > 2 * maxel)
            c->batch--;
        c->in_off = pick_off(&st, t->align);
        c->out_off = pick_off(&st, t->align);
        c->in_bytes = span_elems(c->rows, c->cols, c->ld_in, c->batch, c->stride_in) * c->elem;
        c->out_bytes = span_elems(c->cols, c->rows, c->ld_out, c->batch, c->stride_out) * c->elem;
    } else {
        c->inst = inst >= 0 ? inst : (int)pick(&st, N_MM);
        c->elem = MM[c->inst].elem;
        size_t d[3];
        for (int i = 0; i < 3; i++) d[i] = pick(&st, 30) == 0 ? 0 : pick_dim(&st, size_class == SZ_MID ? 300 : 700);
        while (d[0] * d[1] * d[2] > ((size_t)1 << 25)) {
            int big = d[0] >= d[1] && d[0] >= d[2] ? 0 : d[1] >= d[2] ? 1 : 2;
            d[big] = d[big] / 2 + 1;
        }
        c->m = d[0], c->nn = d[1], c->k = d[2];
        c->in_off = pick_off(&st, c->elem);
        c->b_off = c->m * c->k * c->elem + pick_off(&st, c->elem);
        c->out_off = pick_off(&st, c->elem);
        c->in_bytes = c->b_off + c->k * c->nn * c->elem;
        c->out_bytes = c->m * c->nn * c->elem;
    }
}

static const char *case_name(const scase *c)
{
    return c->fam <= F_INSCAN ? RS[c->inst].name : c->fam == F_TRANSPOSE ? TR[c->inst].name : MM[c->inst].name;
}

static void case_describe(const scase *c, char *s, size_t cap)
{
    if (c->fam <= F_INSCAN)
        snprintf(s, cap, "%s_%s n=%zu in+%zu out+%zu%s%s", FAM_NAME[c->fam], case_name(c), c->n, c->in_off, c->out_off,
                 c->in_place ? " in place" : "", c->frac ? " fractional" : "");
    else if (c->fam == F_TRANSPOSE)
        snprintf(s, cap, "transpose_%s%s %zux%zu batch %zu ld %zu/%zu stride %zu/%zu in+%zu out+%zu", 
                 c->api == 0 ? "" : c->api == 1 ? "strided_" : "batched_", case_name(c), c->rows, c->cols, c->batch,
                 c->ld_in, c->ld_out, c->stride_in, c->stride_out, c->in_off, c->out_off);
    else
        snprintf(s, cap, "matmul_%s m=%zu n=%zu k=%zu a+%zu b+%zu c+%zu", case_name(c), c->m, c->nn, c->k, c->in_off,
                 c->in_off + c->b_off, c->out_off);
}

/* The window of the output buffer that is checked: guard, output, guard. */
static size_t case_window(const scase *c) { return 2 * GUARD + c->out_off + c->out_bytes; }
/* The input buffer's bytes (in place: the output buffer holds the input). */
static size_t case_in_need(const scase *c) { return 2 * GUARD + c->in_off + c->in_bytes; }

/* The call itself; in and out are the data pointers. */
static cudaError_t case_call(const scase *c, unsigned char *in, unsigned char *out, cudaStream_t s)
{
    switch (c->fam) {
    case F_REDUCE: return RS[c->inst].reduce(out, in, c->n, s);
    case F_EXSCAN: return RS[c->inst].ex(out, in, c->n, s);
    case F_INSCAN: return RS[c->inst].in(out, in, c->n, s);
    case F_TRANSPOSE: {
        const tr_inst *t = &TR[c->inst];
        if (c->api == 0) return t->plain(out, in, c->rows, c->cols, s);
        if (c->api == 1) return t->strided(out, c->ld_out, in, c->ld_in, c->rows, c->cols, s);
        return t->batched(out, c->ld_out, c->stride_out, in, c->ld_in, c->stride_in, c->rows, c->cols, c->batch, s);
    }
    default: return MM[c->inst].fn(out, in, in + c->b_off, c->m, c->nn, c->k, s);
    }
}

/* ---- inputs --------------------------------------------------------------------------- */

/* Integers: full range, a few small values (ties for min and max), or the extremes. */
template <class T>
static void gen_int(T *x, size_t n, uint64_t *st)
{
    const size_t mode = pick(st, 4);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = nx(st);
        T v;
        if (mode == 1) v = (T)(r % 16);
        else if (mode == 2) {
            static const int k[] = {0, 1, 2, -1, -2};
            v = (T)(r & 1 ? (r & 2 ? std::numeric_limits<T>::max() - (T)(r >> 8 & 1) : std::numeric_limits<T>::min() + (T)(r >> 8 & 1)) : (T)k[r >> 2 & 3]);
        } else v = (T)r;
        x[i] = v;
    }
}

/* Floats for sum: integers in [-2, 2] (sums exact while they stay small), or multiples of
 * 2^-20 in [-1, 1) (exact in a float) for `frac`. For min and max: wide magnitudes, small
 * values with ties and both zeros, or special values (infinities, zeros, denormals). */
template <class T>
static void gen_float(T *x, size_t n, int op, int frac, uint64_t *st)
{
    const size_t mode = pick(st, 3);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = nx(st);
        double v;
        if (op == O_SUM) v = frac ? (double)((int64_t)(r % (2u << 20)) - (1 << 20)) / (1 << 20) : (double)((int)(r % 5) - 2);
        else if (mode == 0) v = ldexp((double)(r >> 11 & 0xffffff) / (1 << 24), (int)((r >> 40) % 61) - 30) * (r & 1 ? -1 : 1);
        else if (mode == 1) v = (double)((int)(r % 7) - 3), v = v == 0 && (r & 8) ? -0.0 : v;
        else {
            const T sp[] = {(T)INFINITY, -(T)INFINITY, (T)0, -(T)0, std::numeric_limits<T>::max(),
                            std::numeric_limits<T>::lowest(), std::numeric_limits<T>::denorm_min(), (T)1};
            x[i] = r % 4 ? sp[r >> 8 & 7] : (T)((int)(r >> 16 & 7) - 3);
            continue;
        }
        x[i] = (T)v;
    }
}

static void gen_rs_input(const scase *c, void *x, uint64_t *st)
{
    const rs_inst *ri = &RS[c->inst];
    const size_t n = c->n;
    switch (ri->type) {
    case T_I32: gen_int((int32_t *)x, n, st); break;
    case T_U32: gen_int((uint32_t *)x, n, st); break;
    case T_I64: gen_int((int64_t *)x, n, st); break;
    case T_U64: gen_int((uint64_t *)x, n, st); break;
    case T_F32: gen_float((float *)x, n, ri->op, c->frac, st); break;
    case T_F64: gen_float((double *)x, n, ri->op, c->frac, st); break;
    case T_AFF:
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = nx(st);
            ((aff_t *)x)[i] = aff_t{(uint32_t)r | 1u, (uint32_t)(r >> 32)};
        }
        break;
    case T_MAT2:
        for (size_t i = 0; i < n; i++) ((mat2 *)x)[i] = mat2_random(st);
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            const mat2 m = mat2_random(st);
            ((m2a_t *)x)[i] = m2a_t{m.a, m.b, m.c, m.d};
        }
    }
}

static void gen_input(const scase *c, unsigned char *h_in, uint64_t seed_stream)
{
    uint64_t st = gp_t_state(seed_stream);
    if (c->fam <= F_INSCAN) {
        gen_rs_input(c, h_in, &st);
    } else if (c->fam == F_TRANSPOSE) {
        for (size_t i = 0; i < c->in_bytes; i += 8) {
            const uint64_t r = nx(&st);
            memcpy(h_in + i, &r, c->in_bytes - i < 8 ? c->in_bytes - i : 8);
        }
    } else { /* small integers: every product and sum exact, so the result is exact */
        memset(h_in, 0x5a, c->in_bytes);
        const size_t na = c->m * c->k, nb = c->k * c->nn;
        for (size_t i = 0; i < na + nb; i++) {
            const double v = (double)((int)pick(&st, 7) - 3);
            unsigned char *p = h_in + (i < na ? i * c->elem : c->b_off + (i - na) * c->elem);
            if (c->elem == 4) { const float f = (float)v; memcpy(p, &f, 4); }
            else memcpy(p, &v, 8);
        }
    }
}

/* ---- host references and checks ---------------------------------------------------------- */

template <class T>
static T wrap_add(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        typedef typename std::make_unsigned<T>::type U;
        return (T)(U)((U)a + (U)b);
    } else {
        return a + b;
    }
}
template <class T, int OP> struct HOp;
template <class T> struct HOp<T, O_SUM> {
    static T id() { return T(0); }
    static T ap(T a, T b) { return wrap_add(a, b); }
};
template <class T> struct HOp<T, O_MIN> {
    static T id() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
    static T ap(T a, T b) { return GP_OP_MIN(a, b); }
};
template <class T> struct HOp<T, O_MAX> {
    static T id() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }
    static T ap(T a, T b) { return GP_OP_MAX(a, b); }
};
template <> struct HOp<aff_t, O_SEQ> {
    static aff_t id() { return aff_t{1, 0}; }
    static aff_t ap(aff_t a, aff_t b) { return aff_then(a, b); }
};
template <> struct HOp<mat2, O_SEQ> {
    static mat2 id() { return mat2{1, 0, 0, 1}; }
    static mat2 ap(mat2 a, mat2 b) { return mat2_mul(a, b); }
};
template <> struct HOp<m2a_t, O_SEQ> {
    static m2a_t id() { return m2a_t{1, 0, 0, 1}; }
    static m2a_t ap(m2a_t a, m2a_t b) { return m2a_mul(a, b); }
};

/* Exact check of a reduce or scan, streaming the sequential reference. Returns the first
 * wrong output index, or SIZE_MAX when all are right. */
template <class T, int OP>
static size_t check_exact(int fam, const T *x, const unsigned char *got, size_t n)
{
    typedef HOp<T, OP> H;
    T acc = H::id();
    for (size_t i = 0; i < n; i++) {
        const T next = H::ap(acc, x[i]);
        if (fam != F_REDUCE && memcmp(fam == F_INSCAN ? &next : &acc, got + i * sizeof(T), sizeof(T)) != 0) return i;
        acc = next;
    }
    if (fam == F_REDUCE && memcmp(&acc, got, sizeof(T)) != 0) return 0;
    return SIZE_MAX;
}

/* Float sums: the reference in long double. When every value is an integer and twice the
 * largest prefix fits the mantissa, every partial sum in any order is exact: the result must
 * be exact. Otherwise the bound for any order of summation of `terms` values:
 * 1.1 * terms * u * sum|x| + u * |result|. */
template <class T>
static size_t check_fsum(int fam, const T *x, const unsigned char *got, size_t n, char *why, size_t cap)
{
    const long double u = sizeof(T) == 4 ? ldexpl(1, -24) : ldexpl(1, -53);
    long double p = 0, pmax = 0;
    int integral = 1;
    for (size_t i = 0; i < n; i++) {
        p += x[i];
        pmax = fabsl(p) > pmax ? fabsl(p) : pmax;
        integral &= x[i] == floor((double)x[i]);
    }
    const int exact = integral && 2 * pmax < (sizeof(T) == 4 ? ldexpl(1, 24) : ldexpl(1, 53));
    long double acc = 0, abs_acc = 0;
    for (size_t i = 0; i <= n; i++) {
        const int is_out = fam == F_REDUCE ? i == n : fam == F_EXSCAN ? i < n : i > 0;
        if (is_out) {
            const size_t o = fam == F_REDUCE ? 0 : fam == F_EXSCAN ? i : i - 1;
            T g;
            memcpy(&g, got + o * sizeof(T), sizeof(T));
            const long double terms = (long double)i;
            const long double bound = exact ? 0 : 1.1L * terms * u * abs_acc + u * fabsl(acc);
            if (!(fabsl((long double)g - acc) <= bound)) {
                snprintf(why, cap, "element %zu: got %.17Lg want %.17Lg (bound %.3Lg%s)", o, (long double)g, acc, bound,
                         exact ? ", exact" : "");
                return o;
            }
        }
        if (i < n) acc += x[i], abs_acc += fabsl((long double)x[i]);
    }
    return SIZE_MAX;
}

template <class T, int OP>
static size_t check_rs_t(const scase *c, const unsigned char *x, const unsigned char *got, char *why, size_t cap)
{
    if constexpr (OP == O_SUM && !std::is_integral<T>::value) return check_fsum<T>(c->fam, (const T *)x, got, c->n, why, cap);
    const size_t bad = check_exact<T, OP>(c->fam, (const T *)x, got, c->n);
    if (bad != SIZE_MAX) snprintf(why, cap, "output element %zu differs from the sequential reference", bad);
    return bad;
}

template <class T>
static size_t check_rs_op(const scase *c, const unsigned char *x, const unsigned char *got, char *why, size_t cap)
{
    switch (RS[c->inst].op) {
    case O_SUM: return check_rs_t<T, O_SUM>(c, x, got, why, cap);
    case O_MIN: return check_rs_t<T, O_MIN>(c, x, got, why, cap);
    default: return check_rs_t<T, O_MAX>(c, x, got, why, cap);
    }
}

static size_t check_rs(const scase *c, const unsigned char *x, const unsigned char *got, char *why, size_t cap)
{
    switch (RS[c->inst].type) {
    case T_I32: return check_rs_op<int32_t>(c, x, got, why, cap);
    case T_U32: return check_rs_op<uint32_t>(c, x, got, why, cap);
    case T_I64: return check_rs_op<int64_t>(c, x, got, why, cap);
    case T_U64: return check_rs_op<uint64_t>(c, x, got, why, cap);
    case T_F32: return check_rs_op<float>(c, x, got, why, cap);
    case T_F64: return check_rs_op<double>(c, x, got, why, cap);
    case T_AFF: return check_rs_t<aff_t, O_SEQ>(c, x, got, why, cap);
    case T_MAT2: return check_rs_t<mat2, O_SEQ>(c, x, got, why, cap);
    default: return check_rs_t<m2a_t, O_SEQ>(c, x, got, why, cap);
    }
}

/* Host scratch for the references (grown on demand; one per thread). */
typedef struct {
    std::vector<unsigned char> want; /* transpose: the whole expected window */
    std::vector<double> c;           /* matmul: C in double */
} hscratch;

/* 1 when the window `got` (guard, output, guard; as read back) is right for input x. */
static int case_check(const scase *c, const unsigned char *x, const unsigned char *got, hscratch *hs, char *why,
                      size_t cap)
{
    const size_t win = case_window(c), o0 = GUARD + c->out_off;
    why[0] = 0;
    if (c->fam == F_TRANSPOSE) {
        hs->want.resize(win);
        unsigned char *w = hs->want.data();
        memset(w, POISON, win);
        const size_t e = c->elem;
        for (size_t b = 0; b < c->batch; b++)
            for (size_t r = 0; r < c->rows; r++) {
                const unsigned char *src = x + (b * c->stride_in + r * c->ld_in) * e;
                unsigned char *dst = w + o0 + (b * c->stride_out + r) * e;
                for (size_t k = 0; k < c->cols; k++) memcpy(dst + k * c->ld_out * e, src + k * e, e);
            }
        if (memcmp(w, got, win) == 0) return 1;
        size_t i = 0;
        while (w[i] == got[i]) i++;
        if (i < o0 || i >= o0 + c->out_bytes) snprintf(why, cap, "wrote the guard at byte %lld of the output", (long long)i - (long long)o0);
        else {
            const size_t el = (i - o0) / e, b = c->batch > 1 ? el / c->stride_out : 0, in_mat = el - b * c->stride_out;
            snprintf(why, cap, "output element %zu (matrix %zu, row %zu, column %zu) is wrong%s", el, b,
                     in_mat / c->ld_out, in_mat % c->ld_out, in_mat % c->ld_out >= c->rows ? " (a gap: must stay untouched)" : "");
        }
        return 0;
    }
    for (size_t i = 0; i < win; i++) /* guards (and gaps, none here) untouched */
        if ((i < o0 || i >= o0 + c->out_bytes) && got[i] != POISON) {
            snprintf(why, cap, "wrote the guard at byte %lld of the output", (long long)i - (long long)o0);
            return 0;
        }
    if (c->fam <= F_INSCAN) {
        if (c->n == 0) { /* a no-op: the output slot stays poisoned */
            for (size_t i = o0; i < o0 + c->out_bytes; i++)
                if (got[i] != POISON) return snprintf(why, cap, "n = 0 wrote the output"), 0;
            return 1;
        }
        return check_rs(c, x, got + o0, why, cap) == SIZE_MAX;
    }
    /* matmul */
    const size_t m = c->m, n = c->nn, k = c->k, e = c->elem;
    hs->c.assign(m * n, 0.0);
    double *C = hs->c.data();
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++) {
            double a;
            if (e == 4) { float f; memcpy(&f, x + (i * k + p) * 4, 4); a = f; }
            else memcpy(&a, x + (i * k + p) * 8, 8);
            if (a == 0) continue;
            const unsigned char *brow = x + c->b_off + p * n * e;
            for (size_t j = 0; j < n; j++) {
                double b;
                if (e == 4) { float f; memcpy(&f, brow + j * 4, 4); b = f; }
                else memcpy(&b, brow + j * 8, 8);
                C[i * n + j] += a * b;
            }
        }
    for (size_t i = 0; i < m * n; i++) {
        double g;
        if (e == 4) { float f; memcpy(&f, got + o0 + i * 4, 4); g = f; }
        else memcpy(&g, got + o0 + i * 8, 8);
        if (g != C[i]) {
            snprintf(why, cap, "C[%zu][%zu] = %.17g, want %.17g", i / n, i % n, g, C[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- running cases ---------------------------------------------------------------------- */

/* Device buffers (input and output, each with room for guard + offset + data + guard) and
 * pinned host buffers of the same size. */
typedef struct {
    unsigned char *d_in, *d_out, *h_in, *h_got;
    size_t cap;
} sbuf;

static int sbuf_alloc(sbuf *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    if (cudaMalloc(&b->d_in, cap) != cudaSuccess || cudaMalloc(&b->d_out, cap) != cudaSuccess ||
        cudaMallocHost(&b->h_in, cap) != cudaSuccess || cudaMallocHost(&b->h_got, cap) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(b->d_in), cudaFree(b->d_out), cudaFreeHost(b->h_in), cudaFreeHost(b->h_got);
        memset(b, 0, sizeof *b);
        return 0;
    }
    b->cap = cap;
    return 1;
}
static void sbuf_free(sbuf *b)
{
    SCHK(cudaFree(b->d_in));
    SCHK(cudaFree(b->d_out));
    SCHK(cudaFreeHost(b->h_in));
    SCHK(cudaFreeHost(b->h_got));
    memset(b, 0, sizeof *b);
}

static const size_t MEDIUM_CAP = ((size_t)64 << 20) + 4 * GUARD;
static const size_t BIG_CAP = ((size_t)4 << 30) + 4 * GUARD;
static std::mutex g_big_lock; /* the big buffers: one big case at a time */
static sbuf g_big;
static int g_big_failed;

static std::atomic<int> g_sticky; /* a CUDA error that poisons the context: stop everything */
static std::atomic<int> g_printed;

static void print_failure(const scase *c, const char *what)
{
    char d[256];
    case_describe(c, d, sizeof d);
    std::lock_guard<std::mutex> lk(g_lock);
    if (g_printed.fetch_add(1) >= 25) return;
    if (c->id < ((uint64_t)1 << 40)) /* a random case: its id alone makes it again */
        fprintf(stderr, "FAIL case %llu: %s: %s\n  replay: GP_TEST_SEED=%llu %s --case %llu\n", (unsigned long long)c->id, d,
                what, (unsigned long long)gp_t_seed, gp_t_argv0, (unsigned long long)c->id);
    else
        fprintf(stderr, "FAIL %s: %s\n", d, what);
}

/* Runs the case on stream s with buffers b: input uploaded, output window poisoned, call,
 * window read back, checked. Returns 1 when right. `verbose` prints what it did. */
static int run_case_on(const scase *c, sbuf *b, cudaStream_t s, hscratch *hs, int verbose)
{
    const size_t win = case_window(c);
    gen_input(c, b->h_in, ((uint64_t)2 << 40) + c->id);
    unsigned char *out = b->d_out + GUARD + c->out_off;
    unsigned char *in = c->in_place ? out : b->d_in + GUARD + c->in_off;
    SCHK(cudaMemsetAsync(b->d_out, POISON, win, s));
    SCHK(cudaMemcpyAsync(in, b->h_in, c->in_bytes, cudaMemcpyHostToDevice, s));
    const cudaError_t err = case_call(c, in, out, s);
    const cudaError_t cerr = cudaMemcpyAsync(b->h_got, b->d_out, win, cudaMemcpyDeviceToHost, s);
    const cudaError_t serr = cudaStreamSynchronize(s);
    char why[300];
    int ok = 0;
    if (err != cudaSuccess) snprintf(why, sizeof why, "returned %s", cudaGetErrorName(err));
    else if (cerr != cudaSuccess || serr != cudaSuccess) {
        snprintf(why, sizeof why, "the stream failed after the call: %s", cudaGetErrorName(serr ? serr : cerr));
        g_sticky.store(1);
    } else ok = case_check(c, b->h_in, b->h_got, hs, why, sizeof why);
    if (verbose) {
        char d[256];
        case_describe(c, d, sizeof d);
        printf("  case %llu: %s: %s%s\n", (unsigned long long)c->id, d, ok ? "ok" : "FAILED: ", ok ? "" : why);
    }
    if (!ok) print_failure(c, why);
    return ok;
}

/* Picks the buffers the case needs (the shared big ones under their lock). -1: no room. */
static int run_case(const scase *c, sbuf *mine, cudaStream_t s, hscratch *hs, int verbose)
{
    const size_t need = std::max(case_window(c), case_in_need(c));
    if (need <= mine->cap) return run_case_on(c, mine, s, hs, verbose);
    std::lock_guard<std::mutex> lk(g_big_lock);
    if (!g_big.cap && !g_big_failed) g_big_failed = !sbuf_alloc(&g_big, BIG_CAP);
    if (need > g_big.cap) return -1;
    return run_case_on(c, &g_big, s, hs, verbose);
}

/* ---- section: randomized property tests --------------------------------------------------- */

enum { BIG_EVERY = 8192 }; /* case ids = -1 mod this: 2^22 .. 2^28 elements */

static void make_random_case(scase *c, uint64_t id)
{
    case_make(c, id, -1, -1, id % BIG_EVERY == BIG_EVERY - 1 ? SZ_BIG : SZ_NORMAL);
}

static void section_random(double seconds, int threads)
{
    gp_t_section("random: every default instance and 3 user reduce/scan types, 7 transpose types, matmul; "
                 "%d threads, %.0f s", threads, seconds);
    std::atomic<uint64_t> next_id(0), cases(0), fails(0), no_room(0);
    uint64_t fam_cases[N_FAM] = {}, big_cases = 0;
    std::mutex fam_lock;
    const double t0 = now_s(), deadline = t0 + seconds;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            cudaStream_t s;
            SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            sbuf b;
            if (!sbuf_alloc(&b, MEDIUM_CAP)) {
                fprintf(stderr, "random: thread %d could not allocate its buffers\n", t);
                return;
            }
            hscratch hs;
            uint64_t mine[N_FAM] = {}, mine_big = 0;
            while (now_s() < deadline && !g_sticky.load()) {
                const uint64_t id = next_id.fetch_add(1);
                scase c;
                make_random_case(&c, id);
                wd_set(1 + t, "random cases");
                const int r = run_case(&c, &b, s, &hs, 0);
                if (r < 0) { no_room++; continue; }
                cases++, mine[c.fam]++, mine_big += c.size_class == SZ_BIG;
                if (!r) fails++;
            }
            wd_clear(1 + t);
            sbuf_free(&b);
            SCHK(cudaStreamDestroy(s));
            std::lock_guard<std::mutex> lk(fam_lock);
            for (int f = 0; f < N_FAM; f++) fam_cases[f] += mine[f];
            big_cases += mine_big;
        });
    for (auto &th : pool) th.join();
    if (g_big.cap) {
        sbuf_free(&g_big);
        g_big.cap = 0;
    }
    const double dt = now_s() - t0;
    printf("  random: %llu cases in %.1f s (%.0f per second), ids 0..%llu: reduce %llu, exclusive scan %llu, "
           "inclusive scan %llu, transpose %llu, matmul %llu; %llu of 2^22..2^28 elements; %llu failed\n",
           (unsigned long long)cases.load(), dt, cases.load() / dt, (unsigned long long)next_id.load() - 1,
           (unsigned long long)fam_cases[0], (unsigned long long)fam_cases[1], (unsigned long long)fam_cases[2],
           (unsigned long long)fam_cases[3], (unsigned long long)fam_cases[4], (unsigned long long)big_cases,
           (unsigned long long)fails.load());
    if (no_room) gp_t_skip("random: %llu large cases (no room for the 4 GB buffers)", (unsigned long long)no_room.load());
    if (g_sticky.load()) SEXPECT(0, "random: a call left the CUDA context broken; the section stopped");
    {
        std::lock_guard<std::mutex> lk(g_lock);
        gp_t_passed += (int)(cases.load() - fails.load()); /* one check per case */
        gp_t_failed += (int)fails.load();
    }
}

static int replay_cases(const char *list)
{
    SCHK(cudaSetDevice(0));
    sbuf b;
    if (!sbuf_alloc(&b, MEDIUM_CAP)) return 2;
    hscratch hs;
    int bad = 0;
    for (const char *p = list; *p;) {
        char *end;
        const uint64_t id = strtoull(p, &end, 0);
        if (end == p) break;
        scase c;
        make_random_case(&c, id);
        const int r = run_case(&c, &b, 0, &hs, 1);
        bad += r != 1;
        p = *end == ',' ? end + 1 : end;
    }
    printf("%d passed, %d failed, 0 skipped\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}

/* ---- prepared calls: a case with buffers of its own, input uploaded once ---------------- */

typedef struct {
    scase c;
    unsigned char *d_in, *d_out;
    std::vector<unsigned char> h_in, got, first; /* first: the first checked result */
} prepared;

/* Every primitive once: reduce, both scans (21 instances each), 7 transposes, 2 matmuls. */
enum { N_PRIMS = 3 * N_RS + N_TR + N_MM };
static void prim_of(int j, int *fam, int *inst)
{
    if (j < 3 * N_RS) *fam = j / N_RS, *inst = j % N_RS;
    else if (j < 3 * N_RS + N_TR) *fam = F_TRANSPOSE, *inst = j - 3 * N_RS;
    else *fam = F_MATMUL, *inst = j - 3 * N_RS - N_TR;
}

/* n: 0 keeps the case's own count; nonempty: no no-op shapes (the fault sections need calls
 * that do something). Returns 0 when the device memory is not there. */
static int prepare(prepared *p, int j, uint64_t id, size_t n, int nonempty, cudaStream_t s)
{
    int fam, inst;
    prim_of(j, &fam, &inst);
    case_make(&p->c, id, fam, inst, SZ_MID);
    scase *c = &p->c;
    if (fam <= F_INSCAN && n) c->n = n, c->in_bytes = n * c->elem, c->out_bytes = fam == F_REDUCE ? c->elem : n * c->elem;
    if (fam <= F_INSCAN && nonempty && c->n == 0) c->n = 1, c->in_bytes = c->elem, c->out_bytes = c->elem;
    if (fam == F_MATMUL && nonempty && (c->m == 0 || c->nn == 0 || c->k == 0)) {
        c->m = c->nn = c->k = 33;
        c->b_off = c->m * c->k * c->elem;
        c->in_bytes = c->b_off + c->k * c->nn * c->elem;
        c->out_bytes = c->m * c->nn * c->elem;
    }
    c->in_place = 0;
    p->d_in = p->d_out = NULL;
    if (cudaMalloc(&p->d_in, case_in_need(c)) != cudaSuccess || cudaMalloc(&p->d_out, case_window(c)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(p->d_in);
        p->d_in = NULL;
        return 0;
    }
    p->h_in.resize(c->in_bytes + 1);
    p->got.resize(case_window(c));
    p->first.clear();
    gen_input(c, p->h_in.data(), ((uint64_t)2 << 40) + id);
    SCHK(cudaMemcpyAsync(p->d_in + GUARD + c->in_off, p->h_in.data(), c->in_bytes, cudaMemcpyHostToDevice, s));
    SCHK(cudaStreamSynchronize(s));
    return 1;
}
static void unprepare(prepared *p)
{
    SCHK(cudaFree(p->d_in));
    SCHK(cudaFree(p->d_out));
    p->d_in = p->d_out = NULL;
}
static unsigned char *p_in(prepared *p) { return p->d_in + GUARD + p->c.in_off; }
static unsigned char *p_out(prepared *p) { return p->d_out + GUARD + p->c.out_off; }

/* Poison, call, read back: all on stream s, not waited for. Returns the call's status. */
static cudaError_t prepared_issue(prepared *p, cudaStream_t s)
{
    SCHK(cudaMemsetAsync(p->d_out, POISON, case_window(&p->c), s));
    return case_call(&p->c, p_in(p), p_out(p), s);
}

/* After the stream is done: the first result is checked against the host reference, later
 * ones must equal it bitwise (same input, same address: deterministic). */
static int prepared_check(prepared *p, hscratch *hs, char *why, size_t cap)
{
    if (p->first.empty() || p->c.frac == 0) { /* exact results: the reference is as cheap as the copy */
        if (!p->first.empty() && memcmp(p->got.data(), p->first.data(), p->got.size()) == 0) return 1;
        if (!case_check(&p->c, p->h_in.data(), p->got.data(), hs, why, cap)) return 0;
        if (!p->first.empty()) return snprintf(why, cap, "right, but not bitwise the earlier result"), 0;
        p->first = p->got;
        return 1;
    }
    if (memcmp(p->got.data(), p->first.data(), p->got.size()) == 0) return 1;
    snprintf(why, cap, "differs from the first result on the same input (not deterministic)");
    return 0;
}

static int prepared_run(prepared *p, cudaStream_t s, hscratch *hs, char *why, size_t cap)
{
    const cudaError_t err = prepared_issue(p, s);
    SCHK(cudaMemcpyAsync(p->got.data(), p->d_out, p->got.size(), cudaMemcpyDeviceToHost, s));
    const cudaError_t serr = cudaStreamSynchronize(s);
    if (err != cudaSuccess || serr != cudaSuccess) {
        snprintf(why, cap, "%s %s", err ? "returned" : "stream failed:", cudaGetErrorName(err ? err : serr));
        if (serr) g_sticky.store(1);
        return 0;
    }
    return prepared_check(p, hs, why, cap);
}

static void prepared_fail(const prepared *p, const char *section, const char *why)
{
    char d[256];
    case_describe(&p->c, d, sizeof d);
    std::lock_guard<std::mutex> lk(g_lock);
    if (g_printed.fetch_add(1) >= 25) return;
    fprintf(stderr, "FAIL %s: %s: %s\n", section, d, why);
}

/* ---- section: load ------------------------------------------------------------------------ */

static void section_load(double seconds, int threads, int nstreams)
{
    gp_t_section("load: %d host threads x %d streams, every primitive (%d), %.0f s", threads, nstreams, N_PRIMS, seconds);
    std::vector<cudaStream_t> streams(nstreams);
    for (auto &s : streams) SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::atomic<uint64_t> calls(0), fails(0), unprepared(0);
    std::atomic<int> ready(0);
    std::vector<uint64_t> per_thread(threads);
    double t_start = 0;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            std::vector<prepared> ps(N_PRIMS);
            std::vector<int> have(N_PRIMS);
            wd_set(1 + t, "load: preparing inputs");
            for (int j = 0; j < N_PRIMS; j++) {
                have[j] = prepare(&ps[j], j, ((uint64_t)3 << 40) + (uint64_t)t * 1000 + j, 0, 0, streams[t % nstreams]);
                if (!have[j]) unprepared++;
            }
            ready++;
            while (ready.load() < threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            const double deadline = now_s() + seconds;
            uint64_t st = gp_t_state(((uint64_t)4 << 40) + t), mine = 0;
            hscratch hs;
            while (now_s() < deadline && !g_sticky.load()) {
                const int j = (int)pick(&st, N_PRIMS);
                if (!have[j]) continue;
                const int k = (int)pick(&st, nstreams);
                snprintf(wd_text[1 + t], sizeof wd_text[0], "load: %s_%s on stream %d", FAM_NAME[ps[j].c.fam],
                         case_name(&ps[j].c), k);
                wd_set(1 + t, wd_text[1 + t]);
                char why[300];
                if (!prepared_run(&ps[j], streams[k], &hs, why, sizeof why)) {
                    fails++;
                    char w2[340];
                    snprintf(w2, sizeof w2, "%s (thread %d, stream %d)", why, t, k);
                    prepared_fail(&ps[j], "load", w2);
                }
                mine++;
            }
            wd_clear(1 + t);
            calls += mine;
            per_thread[t] = mine;
            for (int j = 0; j < N_PRIMS; j++)
                if (have[j]) unprepare(&ps[j]);
        });
    t_start = now_s();
    for (auto &th : pool) th.join();
    const double dt = now_s() - t_start;
    for (auto &s : streams) SCHK(cudaStreamDestroy(s));
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t c : per_thread) lo = c < lo ? c : lo, hi = c > hi ? c : hi;
    printf("  load: %d threads x %d streams, %.1f s (with setup): %llu calls (%llu..%llu per thread), %llu failed, no hang\n",
           threads, nstreams, dt, (unsigned long long)calls.load(), (unsigned long long)lo, (unsigned long long)hi,
           (unsigned long long)fails.load());
    if (unprepared) gp_t_skip("load: %llu calls not prepared (device memory)", (unsigned long long)unprepared.load());
    SEXPECT(fails.load() == 0 && calls.load() > 0, "load: %llu of %llu calls wrong or failed", (unsigned long long)fails.load(),
            (unsigned long long)calls.load());
}

/* ---- section: co-running ------------------------------------------------------------------ */

/* Holds one whole SM per block (all its shared memory, 1024 threads) until *stop or max_ns. */
__global__ void __launch_bounds__(1024) spin_kernel(const volatile int *stop, volatile int *started, unsigned long long max_ns)
{
    extern __shared__ unsigned char hog[];
    __shared__ int quit;
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    if (threadIdx.x == 0) {
        hog[0] = 1;
        started[blockIdx.x] = 1;
        quit = 0;
    }
    __syncthreads();
    for (;;) {
        if (threadIdx.x == 0) {
            __nanosleep(20000);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
            quit = *stop || t - t0 > max_ns;
        }
        __syncthreads();
        if (quit) break;
        __syncthreads();
    }
}

static void section_corun(double wait_s)
{
    int dev, sms, smem;
    SCHK(cudaGetDevice(&dev));
    SCHK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SCHK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    gp_t_section("co-running: kernels holding most of the %d SMs on another stream while every primitive runs", sms);
    SCHK(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem - 1024));
    int *h_flags, *d_flags; /* [0]: stop; [1 + b]: block b started */
    SCHK(cudaHostAlloc(&h_flags, (1 + sms) * sizeof(int), cudaHostAllocMapped));
    SCHK(cudaHostGetDevicePointer(&d_flags, h_flags, 0));
    cudaStream_t sa, sb;
    SCHK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
    SCHK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
    /* reduce and scans by turns at one-block (1000), cluster (160 KB: 2 to 8 blocks of one
     * thread-block cluster, for every element size) and grid sizes (2^20 + 5). Calls are
     * issued cluster sizes last: a call that waits can hold up later ones that share its
     * hardware queue (8 by default), whatever their stream. */
    std::vector<prepared> ps(N_PRIMS);
    std::vector<int> order, cluster_sized;
    for (int j = 0; j < N_PRIMS; j++) {
        const int is_rs = j < 3 * N_RS, turn = j % 3;
        const size_t n = !is_rs ? 0 : turn == 0 ? 1000 : turn == 1 ? 163840 / RS[j % N_RS].elem - 3 : (1 << 20) + 5;
        (is_rs && turn == 1 ? cluster_sized : order).push_back(j);
        if (!prepare(&ps[j], j, ((uint64_t)5 << 40) + j, n, 1, sb)) {
            SEXPECT(0, "co-running: no device memory for the inputs");
            return;
        }
    }
    order.insert(order.end(), cluster_sized.begin(), cluster_sized.end());
    std::vector<cudaEvent_t> ev(N_PRIMS);
    for (auto &e : ev) SCHK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    std::vector<cudaStream_t> sc(N_PRIMS); /* a stream per call: one that waits does not hold up the others */
    for (auto &x : sc) SCHK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    hscratch hs;
    const int frees[] = {sms / 8, 2};
    for (int f : frees) {
        const int busy = sms - f;
        for (int i = 0; i <= sms; i++) ((volatile int *)h_flags)[i] = 0;
        spin_kernel<<<busy, 1024, smem - 1024, sa>>>(d_flags, d_flags + 1, (unsigned long long)(3 * wait_s + 30) * 1000000000ull);
        SCHK(cudaGetLastError());
        const double t0 = now_s();
        int started = 0;
        while (now_s() - t0 < 10) {
            started = 0;
            for (int i = 0; i < busy; i++) started += ((volatile int *)h_flags)[1 + i];
            if (started == busy) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        wd_set(0, "co-running: calls beside the spinning kernels");
        std::vector<cudaError_t> errs(N_PRIMS);
        for (int j : order) {
            errs[j] = prepared_issue(&ps[j], sc[j]);
            SCHK(cudaEventRecord(ev[j], sc[j]));
        }
        const double t1 = now_s();
        int done = 0;
        std::vector<int> finished(N_PRIMS);
        while (now_s() - t1 < wait_s) {
            done = 0;
            for (int j = 0; j < N_PRIMS; j++) done += finished[j] = finished[j] || cudaEventQuery(ev[j]) == cudaSuccess;
            if (done == N_PRIMS) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        const double beside_s = now_s() - t1;
        ((volatile int *)h_flags)[0] = 1; /* release the spinners */
        cudaError_t e1 = cudaSuccess;
        for (auto &x : sc) e1 = e1 ? e1 : cudaStreamSynchronize(x);
        const cudaError_t e2 = cudaStreamSynchronize(sa);
        wd_clear(0);
        int wrong = 0;
        for (int j = 0; j < N_PRIMS; j++) {
            SCHK(cudaMemcpy(ps[j].got.data(), ps[j].d_out, ps[j].got.size(), cudaMemcpyDeviceToHost));
            char why[300];
            const int ok = errs[j] == cudaSuccess && case_check(&ps[j].c, ps[j].h_in.data(), ps[j].got.data(), &hs, why, sizeof why);
            if (!ok) {
                if (errs[j]) snprintf(why, sizeof why, "returned %s", cudaGetErrorName(errs[j]));
                prepared_fail(&ps[j], "co-running", why);
                wrong++;
            }
        }
        std::string waited;
        for (int j : order)
            if (!finished[j]) {
                char d[200];
                case_describe(&ps[j].c, d, sizeof d);
                waited += std::string("\n      waited: ") + d;
            }
        printf("  %d of %d SMs held (%d spinning blocks resident): %d of %d calls (each on its own stream, cluster sizes "
               "last) done beside them in %.2f s; the rest ran once the SMs were released; %d wrong%s\n",
               busy, sms, started, done, N_PRIMS, beside_s, wrong, waited.c_str());
        SEXPECT(e1 == cudaSuccess && e2 == cudaSuccess && wrong == 0, "co-running with %d SMs free: %d wrong, streams %s / %s", f,
                wrong, cudaGetErrorName(e1), cudaGetErrorName(e2));
    }
    for (auto &e : ev) SCHK(cudaEventDestroy(e));
    for (auto &x : sc) SCHK(cudaStreamDestroy(x));
    for (auto &p : ps) unprepare(&p);
    SCHK(cudaStreamDestroy(sa));
    SCHK(cudaStreamDestroy(sb));
    SCHK(cudaFreeHost(h_flags));
}

/* ---- section: graph capture ----------------------------------------------------------------- */

static void section_graph(int reps)
{
    gp_t_section("graph capture: every device-level function (%d) captured once, replayed %d times on new inputs", N_PRIMS, reps);
    cudaStream_t s;
    SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    hscratch hs;
    int replays = 0, wrong = 0, capture_failed = 0;
    for (int j = 0; j < N_PRIMS; j++) {
        prepared p;
        /* reduce and scans at grid sizes (scratch allocated inside the graph); odd
         * instances of the scans in place */
        if (!prepare(&p, j, ((uint64_t)6 << 40) + j, j < 3 * N_RS ? 200003 + (size_t)j * 1001 : 0, 0, s)) {
            SEXPECT(0, "graph: no device memory");
            break;
        }
        if (p.c.fam == F_EXSCAN || p.c.fam == F_INSCAN) p.c.in_place = p.c.inst % 2;
        unsigned char *out = p_out(&p), *in = p.c.in_place ? out : p_in(&p);
        snprintf(wd_text[0], sizeof wd_text[0], "graph: %s_%s", FAM_NAME[p.c.fam], case_name(&p.c));
        wd_set(0, wd_text[0]);
        cudaGraph_t g = NULL;
        cudaGraphExec_t ge = NULL;
        SCHK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        const cudaError_t err = case_call(&p.c, in, out, s);
        const cudaError_t end = cudaStreamEndCapture(s, &g);
        const cudaError_t inst = end == cudaSuccess ? cudaGraphInstantiate(&ge, g, 0) : end;
        if (err != cudaSuccess || inst != cudaSuccess) {
            char d[256];
            case_describe(&p.c, d, sizeof d);
            SEXPECT(0, "graph: capturing %s: call %s, capture/instantiate %s", d, cudaGetErrorName(err), cudaGetErrorName(inst));
            cudaGetLastError();
            capture_failed++;
            if (g) cudaGraphDestroy(g);
            unprepare(&p);
            continue;
        }
        for (int r = 0; r < reps; r++) {
            gen_input(&p.c, p.h_in.data(), ((uint64_t)7 << 40) + (uint64_t)j * 100000 + r);
            SCHK(cudaMemsetAsync(p.d_out, POISON, case_window(&p.c), s));
            SCHK(cudaMemcpyAsync(in, p.h_in.data(), p.c.in_bytes, cudaMemcpyHostToDevice, s));
            const cudaError_t lerr = cudaGraphLaunch(ge, s);
            SCHK(cudaMemcpyAsync(p.got.data(), p.d_out, p.got.size(), cudaMemcpyDeviceToHost, s));
            const cudaError_t serr = cudaStreamSynchronize(s);
            char why[300] = "";
            const int ok = lerr == cudaSuccess && serr == cudaSuccess && case_check(&p.c, p.h_in.data(), p.got.data(), &hs, why, sizeof why);
            replays++;
            if (!ok) {
                char w2[360];
                snprintf(w2, sizeof w2, "replay %d: %s%s%s", r, lerr ? cudaGetErrorName(lerr) : "", serr ? cudaGetErrorName(serr) : "", why);
                prepared_fail(&p, "graph", w2);
                wrong++;
                if (serr) break;
            }
            wd_set(0, wd_text[0]);
        }
        SCHK(cudaGraphExecDestroy(ge));
        SCHK(cudaGraphDestroy(g));
        unprepare(&p);
    }
    wd_clear(0);
    SCHK(cudaStreamDestroy(s));
    printf("  graph: %d functions captured, %d replays, %d wrong, %d captures failed\n", N_PRIMS - capture_failed, replays, wrong,
           capture_failed);
    SEXPECT(wrong == 0, "graph: %d of %d replays wrong", wrong, replays);
}

/* ---- section: stream handles ----------------------------------------------------------------- */

static void section_streams(void)
{
    gp_t_section("stream handles: every primitive on 0, cudaStreamLegacy, cudaStreamPerThread (also from 4 threads at "
                 "once), blocking, non-blocking and high-priority streams");
    cudaStream_t nb, bl, hp;
    int lo, hi;
    SCHK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    SCHK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    SCHK(cudaStreamCreateWithFlags(&bl, cudaStreamDefault));
    SCHK(cudaStreamCreateWithPriority(&hp, cudaStreamNonBlocking, hi));
    const struct { const char *name; cudaStream_t s; } handles[] = {
        {"0", 0}, {"cudaStreamLegacy", cudaStreamLegacy}, {"cudaStreamPerThread", cudaStreamPerThread},
        {"blocking", bl}, {"non-blocking", nb}, {"high priority", hp}};
    sbuf b;
    if (!sbuf_alloc(&b, MEDIUM_CAP)) {
        SEXPECT(0, "streams: no device memory");
        return;
    }
    hscratch hs;
    int calls = 0, wrong = 0;
    for (size_t h = 0; h < sizeof handles / sizeof *handles; h++)
        for (int j = 0; j < N_PRIMS; j++) {
            int fam, inst;
            prim_of(j, &fam, &inst);
            scase c;
            case_make(&c, ((uint64_t)8 << 40) + h * 1000 + j, fam, inst, SZ_MID);
            wd_set(0, "streams");
            const int ok = run_case_on(&c, &b, handles[h].s, &hs, 0);
            calls++, wrong += !ok;
            if (!ok) fprintf(stderr, "  (stream handle: %s)\n", handles[h].name);
        }
    sbuf_free(&b);
    std::atomic<int> t_calls(0), t_wrong(0);
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; t++)
        pool.emplace_back([&, t] {
            sbuf tb;
            if (!sbuf_alloc(&tb, MEDIUM_CAP)) return;
            hscratch ths;
            for (int j = 0; j < N_PRIMS; j++) {
                int fam, inst;
                prim_of(j, &fam, &inst);
                scase c;
                case_make(&c, ((uint64_t)9 << 40) + t * 1000 + j, fam, inst, SZ_MID);
                wd_set(1 + t, "streams: cudaStreamPerThread from 4 threads");
                const int ok = run_case_on(&c, &tb, cudaStreamPerThread, &ths, 0);
                t_calls++, t_wrong += !ok;
            }
            wd_clear(1 + t);
            sbuf_free(&tb);
        });
    for (auto &th : pool) th.join();
    wd_clear(0);
    SCHK(cudaStreamDestroy(nb));
    SCHK(cudaStreamDestroy(bl));
    SCHK(cudaStreamDestroy(hp));
    printf("  streams: %d calls on 6 handles, %d wrong; cudaStreamPerThread from 4 threads: %d calls, %d wrong\n", calls, wrong,
           t_calls.load(), t_wrong.load());
    SEXPECT(wrong == 0 && t_wrong.load() == 0, "streams: %d + %d wrong", wrong, t_wrong.load());
}

/* ---- section: two GPUs ------------------------------------------------------------------------ */

static void section_gpus(double seconds)
{
    int count = 0;
    SCHK(cudaGetDeviceCount(&count));
    if (count < 2) {
        gp_t_skip("two GPUs: %d device here; run on a machine with two to check calls on two devices at once and a "
                  "call on device 1's stream while device 0 is current", count);
        return;
    }
    gp_t_section("two GPUs: random cases on devices 0 and 1 from two threads at once (%.0f s); every primitive on a "
                 "stream of device 1 while device 0 is current", seconds);
    std::atomic<uint64_t> calls[2], wrong[2];
    std::vector<std::thread> pool;
    for (int d = 0; d < 2; d++) {
        calls[d] = 0, wrong[d] = 0;
        pool.emplace_back([&, d] {
            SCHK(cudaSetDevice(d));
            cudaStream_t s;
            SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            sbuf b;
            if (!sbuf_alloc(&b, MEDIUM_CAP)) return;
            hscratch hs;
            const double deadline = now_s() + seconds;
            for (uint64_t i = 0; now_s() < deadline && !g_sticky.load(); i++) {
                scase c;
                /* ids of normal random cases: `--case` replays them (on device 0) */
                const uint64_t id = ((uint64_t)1 << 32) + (uint64_t)d * ((uint64_t)1 << 31) + i * BIG_EVERY;
                case_make(&c, id, -1, -1, SZ_NORMAL);
                wd_set(1 + d, d ? "two GPUs: device 1" : "two GPUs: device 0");
                const int r = run_case(&c, &b, s, &hs, 0);
                calls[d]++, wrong[d] += r == 0;
                int cur = -1;
                SCHK(cudaGetDevice(&cur));
                if (cur != d) wrong[d]++, fprintf(stderr, "FAIL two GPUs: the current device changed from %d to %d\n", d, cur);
            }
            wd_clear(1 + d);
            sbuf_free(&b);
            SCHK(cudaStreamDestroy(s));
        });
    }
    for (auto &th : pool) th.join();
    printf("  two GPUs at once: device 0 %llu cases (%llu wrong), device 1 %llu cases (%llu wrong)\n",
           (unsigned long long)calls[0].load(), (unsigned long long)wrong[0].load(), (unsigned long long)calls[1].load(),
           (unsigned long long)wrong[1].load());
    SEXPECT(wrong[0].load() + wrong[1].load() == 0 && calls[0].load() && calls[1].load(), "two GPUs at once: %llu wrong",
            (unsigned long long)(wrong[0].load() + wrong[1].load()));

    /* device 1's buffers and stream, device 0 current */
    SCHK(cudaSetDevice(1));
    cudaStream_t s1;
    SCHK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    sbuf b1;
    const int have = sbuf_alloc(&b1, MEDIUM_CAP);
    SCHK(cudaSetDevice(0));
    if (!have) {
        SEXPECT(0, "two GPUs: no memory on device 1");
        return;
    }
    hscratch hs;
    int n_ok = 0, n_bad = 0, moved = 0;
    for (int j = 0; j < N_PRIMS; j++) {
        int fam, inst;
        prim_of(j, &fam, &inst);
        scase c;
        case_make(&c, ((uint64_t)10 << 40) + j, fam, inst, SZ_MID);
        wd_set(0, "two GPUs: device 1's stream, device 0 current");
        const int ok = run_case_on(&c, &b1, s1, &hs, 0);
        n_ok += ok, n_bad += !ok;
        int cur = -1;
        SCHK(cudaGetDevice(&cur));
        if (cur != 0) {
            moved++;
            SCHK(cudaSetDevice(0));
        }
        if (g_sticky.load()) break;
    }
    wd_clear(0);
    printf("  device 1's stream while device 0 is current: %d right, %d wrong or refused; current device changed by %d calls\n",
           n_ok, n_bad, moved);
    SEXPECT(n_bad == 0 && moved == 0, "two GPUs: a call on device 1's stream, device 0 current: %d wrong, %d moved the current device",
            n_bad, moved);
    SCHK(cudaSetDevice(1));
    sbuf_free(&b1);
    SCHK(cudaStreamDestroy(s1));
    SCHK(cudaSetDevice(0));
}

/* ---- child processes ------------------------------------------------------------------------------ */

/* Runs `<this program> --child <name>`; its output (indented) is echoed. Returns its exit
 * status, or -1 when it did not exit (a crash, or killed by its alarm: a hang). */
static int run_child(const char *name, char *out, size_t cap)
{
    char self[4096];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return -2;
    self[len] = 0;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "GP_TEST_SEED=%llu '%s' --child %s", (unsigned long long)gp_t_seed, self, name);
    const int status = gp_t_run(cmd, out, cap);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) printf("    %s\n", line);
    return status;
}

/* Memory exhaustion: before any gpuprims call in this process (the library's scratch pool
 * is empty), the GPU is filled; each primitive must then succeed with the right answer or
 * return an error that leaves the context usable (cudaErrorMemoryAllocation expected where
 * scratch is needed); after freeing, all must work. Three cycles; free memory must not
 * shrink from one cycle to the next. */
static int child_oom(void)
{
    SCHK(cudaSetDevice(0));
    cudaStream_t s;
    SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<prepared> ps(N_PRIMS);
    for (int j = 0; j < N_PRIMS; j++)
        if (!prepare(&ps[j], j, ((uint64_t)11 << 40) + j, j < 3 * N_RS ? (1 << 20) + 3 : 0, 1, s)) return 2;
    hscratch hs;
    size_t free0, total;
    SCHK(cudaMemGetInfo(&free0, &total));
    int bad = 0;
    size_t free_after[3];
    for (int cycle = 0; cycle < 3; cycle++) {
        std::vector<void *> hold;
        for (size_t chunk = (size_t)1 << 30; chunk >= ((size_t)1 << 16);) {
            void *p;
            if (cudaMalloc(&p, chunk) == cudaSuccess) hold.push_back(p);
            else cudaGetLastError(), chunk /= 2;
        }
        size_t free_full;
        SCHK(cudaMemGetInfo(&free_full, &total));
        int refused = 0, right = 0, other = 0;
        char other_names[512] = "";
        for (int j = 0; j < N_PRIMS; j++) {
            const cudaError_t err = prepared_issue(&ps[j], s);
            cudaGetLastError();
            SCHK(cudaMemcpyAsync(ps[j].got.data(), ps[j].d_out, ps[j].got.size(), cudaMemcpyDeviceToHost, s));
            const cudaError_t serr = cudaStreamSynchronize(s);
            char why[300];
            if (serr != cudaSuccess) {
                printf("FAIL: %s_%s: the stream failed after the call: %s\n", FAM_NAME[ps[j].c.fam], case_name(&ps[j].c), cudaGetErrorName(serr));
                return 1;
            }
            if (err == cudaErrorMemoryAllocation) refused++;
            else if (err != cudaSuccess) {
                other++;
                if (strlen(other_names) < 400)
                    snprintf(other_names + strlen(other_names), 100, " %s_%s:%s", FAM_NAME[ps[j].c.fam], case_name(&ps[j].c), cudaGetErrorName(err));
            } else if (case_check(&ps[j].c, ps[j].h_in.data(), ps[j].got.data(), &hs, why, sizeof why)) right++;
            else {
                printf("FAIL: %s_%s with the GPU full: success, but %s\n", FAM_NAME[ps[j].c.fam], case_name(&ps[j].c), why);
                bad++;
            }
        }
        for (void *p : hold) SCHK(cudaFree(p));
        int after_right = 0;
        for (int j = 0; j < N_PRIMS; j++) {
            char why[300];
            if (prepared_run(&ps[j], s, &hs, why, sizeof why)) after_right++;
            else printf("FAIL: %s_%s after freeing: %s\n", FAM_NAME[ps[j].c.fam], case_name(&ps[j].c), why), bad++;
        }
        SCHK(cudaDeviceSynchronize());
        SCHK(cudaMemGetInfo(&free_after[cycle], &total));
        printf("cycle %d: filled to %.1f MB free (%zu allocations); %d calls right, %d cudaErrorMemoryAllocation, %d other "
               "errors%s; after freeing %d of %d right; free %.1f MB (%.1f MB below the start)\n",
               cycle, free_full / 1e6, hold.size(), right, refused, other, other_names, after_right, N_PRIMS,
               free_after[cycle] / 1e6, ((double)free0 - (double)free_after[cycle]) / 1e6);
        if (refused + right + other != N_PRIMS) bad++;
    }
    const double leak = (double)free_after[1] - (double)free_after[2];
    printf("free memory, cycle 2 to 3: %.1f MB lost\n", leak > 0 ? leak / 1e6 : 0.0);
    if (leak > 4e6) printf("FAIL: device memory lost between cycles\n"), bad++;
    for (auto &p : ps) unprepare(&p);
    return bad ? 1 : 0;
}

__global__ void fault_kernel(int *p) { *(volatile int *)p = 1; }

/* Sticky errors: a user kernel faults; gpuprims calls after it must return an error (not
 * success, no hang, no crash). sync = 1: the fault is seen (synchronised) first; 0: the
 * calls follow the faulting kernel on its stream at once, then the stream is synchronised,
 * then they are called again. */
static int child_sticky(int sync)
{
    SCHK(cudaSetDevice(0));
    cudaStream_t s;
    SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<prepared> ps(N_PRIMS);
    for (int j = 0; j < N_PRIMS; j++)
        if (!prepare(&ps[j], j, ((uint64_t)12 << 40) + j, 0, 1, s)) return 2;
    /* one round that works first: the library's pool and kernels are loaded */
    hscratch hs;
    for (int j = 0; j < N_PRIMS; j++) {
        char why[300];
        if (!prepared_run(&ps[j], s, &hs, why, sizeof why)) return printf("FAIL before the fault: %s\n", why), 1;
    }
    fault_kernel<<<1, 1, 0, s>>>((int *)16);
    int bad = 0, errors = 0;
    if (sync) {
        const cudaError_t e = cudaStreamSynchronize(s);
        printf("the user's kernel faulted: %s\n", cudaGetErrorName(e));
    } else {
        int ok = 0;
        for (int j = 0; j < N_PRIMS; j++) ok += case_call(&ps[j].c, p_in(&ps[j]), p_out(&ps[j]), s) == cudaSuccess;
        const cudaError_t e = cudaStreamSynchronize(s);
        printf("queued behind the fault: %d of %d calls returned success before it was known; the stream then: %s\n", ok,
               N_PRIMS, cudaGetErrorName(e));
        if (e == cudaSuccess) bad++;
    }
    char names[256] = "";
    for (int j = 0; j < N_PRIMS; j++) {
        const cudaError_t e = case_call(&ps[j].c, p_in(&ps[j]), p_out(&ps[j]), s); /* the library only: the context is gone */
        if (e == cudaSuccess) {
            printf("FAIL: %s_%s returned cudaSuccess after the fault\n", FAM_NAME[ps[j].c.fam], case_name(&ps[j].c));
            bad++;
        } else {
            errors++;
            if (!strstr(names, cudaGetErrorName(e)) && strlen(names) < 200) strcat(names, " "), strcat(names, cudaGetErrorName(e));
        }
    }
    printf("after the fault: %d of %d calls returned an error (%s), %d returned success\n", errors, N_PRIMS, names, bad);
    return bad ? 1 : 0;
}

/* The first gpuprims calls of a process, inside a stream capture (global mode): the
 * library's first-use setup must not break the capture. */
static int child_capture_first(void)
{
    SCHK(cudaSetDevice(0));
    cudaStream_t s;
    SCHK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int first[] = {0 /* reduce sum_i32 */, N_RS + 4 /* exclusive scan sum_f32 */, 3 * N_RS + 2 /* transpose f32 */,
                         3 * N_RS + N_TR /* matmul f32 */};
    hscratch hs;
    int bad = 0;
    for (int j : first) {
        prepared p;
        if (!prepare(&p, j, ((uint64_t)13 << 40) + j, j < 3 * N_RS ? 300007 : 0, 1, s)) return 2;
        cudaGraph_t g = NULL;
        cudaGraphExec_t ge = NULL;
        SCHK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        const cudaError_t err = case_call(&p.c, p_in(&p), p_out(&p), s);
        const cudaError_t end = cudaStreamEndCapture(s, &g);
        const cudaError_t inst = end == cudaSuccess ? cudaGraphInstantiate(&ge, g, 0) : end;
        char why[300] = "";
        int ok = err == cudaSuccess && inst == cudaSuccess;
        if (ok) {
            SCHK(cudaMemsetAsync(p.d_out, POISON, case_window(&p.c), s));
            SCHK(cudaGraphLaunch(ge, s));
            SCHK(cudaMemcpyAsync(p.got.data(), p.d_out, p.got.size(), cudaMemcpyDeviceToHost, s));
            SCHK(cudaStreamSynchronize(s));
            ok = case_check(&p.c, p.h_in.data(), p.got.data(), &hs, why, sizeof why);
        }
        printf("%s_%s captured first: call %s, capture %s, replay %s %s\n", FAM_NAME[p.c.fam], case_name(&p.c),
               cudaGetErrorName(err), cudaGetErrorName(inst), ok ? "right" : "FAILED", why);
        bad += !ok;
        cudaGetLastError();
        if (ge) cudaGraphExecDestroy(ge);
        if (g) cudaGraphDestroy(g);
        unprepare(&p);
    }
    return bad ? 1 : 0;
}

/* Alignment below the C type's own but on 4 bytes, which the contract promises ("any
 * alignment the element type allows works, a double at a 4-byte-aligned address
 * included"). One probe per child: a misaligned access faults the context. */
static const struct { const char *what; int fam; const char *inst; size_t in_off, out_off, b_extra; } ALIGN_PROBES[] = {
    {"reduce sum_f64, input at 4 mod 8", F_REDUCE, "sum_f64", 4, 0, 0},
    {"reduce max_i64, input at 12 mod 16", F_REDUCE, "max_i64", 12, 0, 0},
    {"exclusive scan sum_f64, in and out at 4 mod 8", F_EXSCAN, "sum_f64", 4, 4, 0},
    {"inclusive scan min_u64, in at 4, out at 8", F_INSCAN, "min_u64", 4, 8, 0},
    {"matmul f64, A, B and C at 4 mod 8", F_MATMUL, "f64", 4, 4, 0},
    {"transpose f64, in and out at 4 mod 8", F_TRANSPOSE, "f64", 4, 12, 0},
    {"transpose v16, in at 8, out at 4 mod 16", F_TRANSPOSE, "v16", 8, 4, 0},
};
enum { N_ALIGN = sizeof ALIGN_PROBES / sizeof *ALIGN_PROBES };

static int child_align(int k)
{
    SCHK(cudaSetDevice(0));
    const auto &pr = ALIGN_PROBES[k];
    int inst = -1;
    for (int i = 0; i < (pr.fam <= F_INSCAN ? (int)N_RS : pr.fam == F_TRANSPOSE ? (int)N_TR : (int)N_MM); i++)
        if (!strcmp(pr.inst, pr.fam <= F_INSCAN ? RS[i].name : pr.fam == F_TRANSPOSE ? TR[i].name : MM[i].name)) inst = i;
    sbuf b;
    if (inst < 0 || !sbuf_alloc(&b, MEDIUM_CAP)) return 2;
    hscratch hs;
    int bad = 0, n = 0;
    static const size_t counts[] = {1, 33, 1000, 3000, 100003, (1 << 20) + 5};
    for (int r = 0; r < 12; r++) {
        scase c;
        case_make(&c, ((uint64_t)14 << 40) + (uint64_t)k * 100 + r, pr.fam, inst, SZ_MID);
        if (pr.fam <= F_INSCAN) {
            c.n = counts[r % 6];
            c.in_bytes = c.n * c.elem, c.out_bytes = pr.fam == F_REDUCE ? c.elem : c.in_bytes;
        }
        c.in_off = pr.in_off + 16 * (r % 2), c.out_off = pr.out_off;
        if (pr.fam == F_MATMUL) {
            if (c.m * c.nn * c.k == 0) c.m = c.nn = c.k = 65;
            c.b_off = c.m * c.k * c.elem + 8, c.in_bytes = c.b_off + c.k * c.nn * c.elem, c.out_bytes = c.m * c.nn * c.elem;
        }
        c.in_place = 0;
        const int ok = run_case_on(&c, &b, 0, &hs, 1);
        bad += !ok, n++;
        if (!ok && g_sticky.load()) break;
    }
    printf("%s: %d of %d cases right\n", pr.what, n - bad, n);
    return bad ? 1 : 0;
}

static void section_children(const char *only)
{
    char out[16384];
    if (!only || strstr(only, "oom")) {
        gp_t_section("memory exhaustion (child process): the GPU filled before the first call, each primitive, three cycles");
        wd_set(0, "memory exhaustion child");
        const int st = run_child("oom", out, sizeof out);
        SEXPECT(st == 0, "memory exhaustion: child exit status %d (-1: crashed or hung)", st);
    }
    if (!only || strstr(only, "sticky")) {
        gp_t_section("sticky errors (child processes): a user kernel faults, then every primitive is called");
        wd_set(0, "sticky error children");
        int st = run_child("sticky-sync", out, sizeof out);
        SEXPECT(st == 0, "sticky error, fault seen first: child exit status %d (-1: crashed or hung)", st);
        st = run_child("sticky-queued", out, sizeof out);
        SEXPECT(st == 0, "sticky error, calls queued behind the fault: child exit status %d (-1: crashed or hung)", st);
    }
    if (!only || strstr(only, "graph")) {
        gp_t_section("graph capture of the first calls in a process (child process)");
        wd_set(0, "capture-first child");
        const int st = run_child("capture-first", out, sizeof out);
        SEXPECT(st == 0, "graph capture as the first calls of a process: child exit status %d", st);
    }
    if (!only || strstr(only, "align")) {
        gp_t_section("alignment below the C type's own (8- and 16-byte elements on 4 or 8 bytes; child processes)");
        for (int k = 0; k < N_ALIGN; k++) {
            char name[32];
            snprintf(name, sizeof name, "align-%d", k);
            wd_set(0, "alignment children");
            const int st = run_child(name, out, sizeof out);
            SEXPECT(st == 0, "%s: child exit status %d%s; replay: GP_TEST_SEED=%llu %s --child %s", ALIGN_PROBES[k].what, st,
                    st < 0 ? " (crashed)" : "", (unsigned long long)gp_t_seed, gp_t_argv0, name);
        }
    }
    wd_clear(0);
}

static int run_child_main(const char *name)
{
    alarm(120); /* a hang ends the child; the parent sees it did not exit */
    if (!strcmp(name, "oom")) return child_oom();
    if (!strcmp(name, "sticky-sync")) return child_sticky(1);
    if (!strcmp(name, "sticky-queued")) return child_sticky(0);
    if (!strcmp(name, "capture-first")) return child_capture_first();
    if (!strncmp(name, "align-", 6) && atoi(name + 6) >= 0 && atoi(name + 6) < N_ALIGN) return child_align(atoi(name + 6));
    fprintf(stderr, "unknown child %s\n", name);
    return 2;
}

/* ---- the suite's own references, on the host (no GPU: run by CI) ----------------------------- */

/* Float sums in another order than the reference's (blocks of 1000, then the blocks), in T. */
template <class T>
static void emulate_fsum(int fam, const T *x, size_t n, T *out)
{
    std::vector<T> block_total;
    for (size_t b = 0; b < n; b += 1000) {
        T t = 0;
        for (size_t i = b; i < n && i < b + 1000; i++) t += x[i];
        block_total.push_back(t);
    }
    T carry = 0;
    for (size_t b = 0; b < n; b += 1000) {
        T run = carry;
        for (size_t i = b; i < n && i < b + 1000; i++) {
            if (fam == F_EXSCAN) out[i] = run;
            run += x[i];
            if (fam == F_INSCAN) out[i] = run;
        }
        carry += block_total[b / 1000];
    }
    if (fam == F_REDUCE) out[0] = carry;
}

template <class T, int OP>
static void emulate_rs_t(const scase *c, const unsigned char *x, unsigned char *out)
{
    if constexpr (OP == O_SUM && !std::is_integral<T>::value) return emulate_fsum<T>(c->fam, (const T *)x, c->n, (T *)out);
    typedef HOp<T, OP> H;
    T acc = H::id();
    for (size_t i = 0; i < c->n; i++) {
        const T next = H::ap(acc, ((const T *)x)[i]);
        if (c->fam != F_REDUCE) memcpy(out + i * sizeof(T), c->fam == F_INSCAN ? &next : &acc, sizeof(T));
        acc = next;
    }
    if (c->fam == F_REDUCE) memcpy(out, &acc, sizeof(T));
}
template <class T>
static void emulate_rs_op(const scase *c, const unsigned char *x, unsigned char *out)
{
    switch (RS[c->inst].op) {
    case O_SUM: return emulate_rs_t<T, O_SUM>(c, x, out);
    case O_MIN: return emulate_rs_t<T, O_MIN>(c, x, out);
    default: return emulate_rs_t<T, O_MAX>(c, x, out);
    }
}

/* What a right call writes into the window (guards poisoned). */
static void emulate(const scase *c, const unsigned char *x, unsigned char *win)
{
    memset(win, POISON, case_window(c));
    unsigned char *out = win + GUARD + c->out_off;
    if (c->fam <= F_INSCAN) {
        if (c->n == 0) return;
        switch (RS[c->inst].type) {
        case T_I32: return emulate_rs_op<int32_t>(c, x, out);
        case T_U32: return emulate_rs_op<uint32_t>(c, x, out);
        case T_I64: return emulate_rs_op<int64_t>(c, x, out);
        case T_U64: return emulate_rs_op<uint64_t>(c, x, out);
        case T_F32: return emulate_rs_op<float>(c, x, out);
        case T_F64: return emulate_rs_op<double>(c, x, out);
        case T_AFF: return emulate_rs_t<aff_t, O_SEQ>(c, x, out);
        case T_MAT2: return emulate_rs_t<mat2, O_SEQ>(c, x, out);
        default: return emulate_rs_t<m2a_t, O_SEQ>(c, x, out);
        }
    }
    const size_t e = c->elem;
    if (c->fam == F_TRANSPOSE) {
        for (size_t b = 0; b < c->batch; b++)
            for (size_t r = 0; r < c->rows; r++)
                for (size_t k = 0; k < c->cols; k++)
                    memcpy(out + (b * c->stride_out + k * c->ld_out + r) * e, x + (b * c->stride_in + r * c->ld_in + k) * e, e);
        return;
    }
    for (size_t i = 0; i < c->m; i++)
        for (size_t j = 0; j < c->nn; j++) {
            double acc = 0;
            for (size_t p = 0; p < c->k; p++) {
                double a, b;
                if (e == 4) {
                    float fa, fb;
                    memcpy(&fa, x + (i * c->k + p) * 4, 4), memcpy(&fb, x + c->b_off + (p * c->nn + j) * 4, 4);
                    a = fa, b = fb;
                } else memcpy(&a, x + (i * c->k + p) * 8, 8), memcpy(&b, x + c->b_off + (p * c->nn + j) * 8, 8);
                acc += a * b;
            }
            if (e == 4) { const float f = (float)acc; memcpy(out + (i * c->nn + j) * 4, &f, 4); }
            else memcpy(out + (i * c->nn + j) * 8, &acc, 8);
        }
}

/* Checks the references against an emulated right answer (they must accept it) and a
 * corrupted one (they must reject it), over the first `count` random cases that fit in
 * MEDIUM_CAP; also that every case fits the buffers it is given. */
static void selftest(uint64_t count)
{
    gp_t_section("the suite's references on the host: %llu random cases, right and corrupted answers", (unsigned long long)count);
    std::vector<unsigned char> x(MEDIUM_CAP), win(MEDIUM_CAP);
    hscratch hs;
    uint64_t accepted = 0, rejected = 0, fitted = 0, tried = 0, made = 0;
    int shown = 0;
    for (uint64_t id = 0; tried < count; id++) {
        scase c;
        make_random_case(&c, id);
        const size_t need = std::max(case_window(&c), case_in_need(&c));
        if (need > BIG_CAP && shown++ < 5)
            fprintf(stderr, "FAIL selftest: case %llu needs %zu bytes\n", (unsigned long long)id, need);
        fitted += need <= BIG_CAP, made++;
        if (need > MEDIUM_CAP / 4 || c.size_class == SZ_BIG) continue;
        tried++;
        gen_input(&c, x.data(), ((uint64_t)2 << 40) + id);
        emulate(&c, x.data(), win.data());
        char why[300];
        const int ok = case_check(&c, x.data(), win.data(), &hs, why, sizeof why);
        accepted += ok;
        if (!ok && shown++ < 5) {
            char d[256];
            case_describe(&c, d, sizeof d);
            fprintf(stderr, "FAIL selftest: case %llu: %s: a right answer rejected: %s\n", (unsigned long long)id, d, why);
        }
        /* corrupt one byte of the window: an output byte (not a transpose gap) or a guard */
        uint64_t st = gp_t_state(((uint64_t)15 << 40) + id);
        const size_t w = case_window(&c);
        size_t at = c.out_bytes && pick(&st, 4) ? GUARD + c.out_off + pick(&st, c.out_bytes) : pick(&st, 2) ? pick(&st, GUARD) : w - 1 - pick(&st, GUARD);
        if (c.fam <= F_INSCAN && c.n == 0) at = pick(&st, w);
        const unsigned char keep = win[at];
        win[at] ^= (unsigned char)(1u << pick(&st, c.fam == F_MATMUL ? 7 : 8)) | (c.fam <= F_INSCAN && RS[c.inst].type >= T_F32 && RS[c.inst].type <= T_F64 ? 0x40 : 0);
        const int caught = !case_check(&c, x.data(), win.data(), &hs, why, sizeof why);
        const int gap = c.fam == F_TRANSPOSE && keep == POISON; /* maybe a gap: any change is caught too */
        rejected += caught || (!caught && !gap && c.fam <= F_INSCAN && RS[c.inst].op == O_SUM && RS[c.inst].type >= T_F32 && c.frac);
        if (!caught && !(c.fam <= F_INSCAN && RS[c.inst].type >= T_F32 && RS[c.inst].type <= T_F64 && c.frac) && shown++ < 5) {
            char d[256];
            case_describe(&c, d, sizeof d);
            fprintf(stderr, "FAIL selftest: case %llu: %s: a corrupted byte at %zu of the window was accepted\n",
                    (unsigned long long)id, d, at);
        }
    }
    printf("  selftest: %llu of %llu right answers accepted, %llu of %llu corrupted ones rejected (fractional float sums "
           "may accept a low bit); %llu of %llu cases made fit their buffers\n",
           (unsigned long long)accepted, (unsigned long long)tried, (unsigned long long)rejected, (unsigned long long)tried,
           (unsigned long long)fitted, (unsigned long long)made);
    SEXPECT(accepted == tried && shown == 0, "selftest: the suite's references (%d problems shown)", shown);
}

/* ---- main ------------------------------------------------------------------------------------------ */

static int wanted(const char *only, const char *name) { return !only || strstr(only, name) != NULL; }

/* families.h: a check from a family's file, and its heartbeat (watchdog slot 0) */
void stress_check(int ok, const char *file, int line, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> lk(g_lock);
    gp_t_check(ok, file, line, "%s", text);
}
static void family_beat(const char *what) { wd_set(0, what); }

/* The families on the single-pass engine, each a share of `seconds`. */
static void section_families(const char *only, double seconds)
{
    const struct { const char *name; void (*run)(const stress_family_ctx *); } fams[] = {
        {"select", stress_select}, {"segmented", stress_segmented}, {"histogram", stress_histogram}, {"sort", stress_sort}};
    int n = 0;
    for (const auto &f : fams) n += wanted(only, "families") || wanted(only, f.name);
    for (const auto &f : fams)
        if (wanted(only, "families") || wanted(only, f.name)) {
            const stress_family_ctx ctx = {seconds / n, gp_t_seed, family_beat};
            f.run(&ctx);
            wd_clear(0);
        }
}

int main(int argc, char **argv)
{
    gp_t_argv0 = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *seed = getenv("GP_TEST_SEED");
    gp_t_seed = seed && *seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32) ^ ((uint64_t)getpid() << 16);
    const char *only = NULL, *cases = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--child")) return run_child_main(argv[i + 1]);
        else if (!strcmp(argv[i], "--only")) only = argv[i + 1];
        else if (!strcmp(argv[i], "--case")) cases = argv[i + 1];
        else return fprintf(stderr, "usage: %s [--only sections] [--case id[,id...]]\n", argv[0]), 2;
    }
    const char *sec = getenv("STRESS_SECONDS");
    const double seconds = sec && *sec ? atof(sec) : 300;
    const char *hang = getenv("STRESS_HANG_S");
    wd_limit_s = hang && *hang ? atof(hang) : 120;
    printf("gpuprims stress: seed %llu (replay with GP_TEST_SEED=%llu); STRESS_SECONDS=%.0f%s; %s\n",
           (unsigned long long)gp_t_seed, (unsigned long long)gp_t_seed, seconds, only ? ", some sections" : "",
           gp_t_have_gpu() ? "GPU present" : "no GPU: every section is skipped");
    if (!gp_t_have_gpu() || (only && strstr(only, "selftest"))) {
        selftest(only && strstr(only, "selftest") ? 20000 : 1000);
        if (gp_t_have_gpu()) return printf("%d passed, %d failed, %d skipped\n", gp_t_passed, gp_t_failed, gp_t_skipped), gp_t_failed != 0;
        static const char *const all[] = {"random", "load", "families", "co-running", "graph", "streams", "two GPUs",
                                          "memory exhaustion", "sticky errors", "alignment"};
        for (const char *s : all) gp_t_skip("stress: %s (no GPU)", s);
        printf("%d passed, %d failed, %d skipped\n", gp_t_passed, gp_t_failed, gp_t_skipped);
        return gp_t_failed != 0;
    }
    std::thread(watchdog_thread).detach();
    if (cases) return replay_cases(cases);

    cudaDeviceProp prop;
    SCHK(cudaGetDeviceProperties(&prop, 0));
    printf("device 0: %s, %d SMs, %.1f GB\n", prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1e9);
    const double t0 = now_s();
    /* Children first: they fill and fault the GPU, best done before this process holds memory. */
    section_children(only);
    SCHK(cudaSetDevice(0));
    if (wanted(only, "streams")) section_streams();
    if (wanted(only, "graph")) section_graph(seconds >= 150 ? 100 : 10);
    if (wanted(only, "corun")) section_corun(seconds >= 150 ? 20 : 5);
    if (wanted(only, "gpus")) section_gpus(seconds >= 150 ? 15 : 3);
    if (wanted(only, "load")) section_load(std::min(60.0, std::max(5.0, 0.2 * seconds)), 16, 16);
    if (wanted(only, "families") || wanted(only, "select") || wanted(only, "segmented") || wanted(only, "histogram") ||
        wanted(only, "sort"))
        section_families(only, std::max(4.0, 0.25 * seconds));
    if (wanted(only, "random")) {
        /* the rest of the budget */
        const double left = seconds - (now_s() - t0);
        section_random(std::max(left, 0.3 * seconds), 8);
    }
    printf("stress: %.0f s in all\n", now_s() - t0);
    printf("%d passed, %d failed, %d skipped\n", gp_t_passed, gp_t_failed, gp_t_skipped);
    fflush(stdout);
    return gp_t_failed ? 1 : 0;
}
