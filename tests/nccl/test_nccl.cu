/* tests/nccl/test_nccl.cu -- gpuprims_nccl.cuh: reduce, scans and transpose of sharded data,
 * one thread per GPU (ncclCommInitAll: no MPI needed), on every GPU of the machine and on a
 * one-rank communicator.
 *   - against a host reference on small shards, every rank a different size (empty ones
 *     included), for default instances and users' non-commutative ones (2x2 matrix
 *     products), in place and out of place, outputs poisoned first;
 *   - deterministic: float sums bitwise equal on every rank and every run;
 *   - large shards (2^31 + 1001 elements per rank, inputs made on the device) against
 *     closed forms, checked on the device;
 *   - transposes of several shapes and element sizes (1, 4 and 12 bytes), rows of every
 *     vector width the unpack's copy picks (16, 8, 4 and 1 bytes), at aligned and offset
 *     addresses, the exchange in one piece and in many (the user instance here uses small
 *     pieces), and the bench's ladder paths (the first version's unpack, priority and
 *     whole tile that stays);
 *   - bad input: errors, nothing launched; mismatched transpose shapes across ranks return
 *     an error on every rank instead of hanging.
 * Run: make test-nccl (NCCL_NVLS_ENABLE=0 is set there). GP_NCCL_RANKS=<k> uses k GPUs at
 * most; GP_TEST_SEED, GP_TEST_ONLY and GP_TEST_SMALL work as in tests/. */
#define GP__NCCL_PIECE_BYTES 4096 /* the user instances below: exchanges in many pieces */
#include "../../gpuprims_nccl.cuh"
#include "../harness.h"
#include "../mat2.cuh"
#include "ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_NCCL_REDUCE(mat2, mat2)
GP_DEFINE_NCCL_SCAN(mat2, mat2)

typedef struct { float r, g, b; } rgb; /* 12 bytes: no vector path */
GP_DEFINE_TRANSPOSE(rgb, rgb)
GP_DEFINE_NCCL_TRANSPOSE(rgb, rgb)

/* ---- instances: type-erased calls and host references ----------------------------------- */

typedef cudaError_t (*nccl_fn)(void *o, const void *i, size_t n, ncclComm_t c, cudaStream_t s);
#define NCCL_WRAPPERS(name, T)                                                                         \
    static cudaError_t red_##name(void *o, const void *i, size_t n, ncclComm_t c, cudaStream_t s)      \
    {                                                                                                  \
        return gp_nccl_reduce_##name((T *)o, (const T *)i, n, c, s);                                   \
    }                                                                                                  \
    static cudaError_t exs_##name(void *o, const void *i, size_t n, ncclComm_t c, cudaStream_t s)      \
    {                                                                                                  \
        return gp_nccl_exclusive_scan_##name((T *)o, (const T *)i, n, c, s);                           \
    }                                                                                                  \
    static cudaError_t ins_##name(void *o, const void *i, size_t n, ncclComm_t c, cudaStream_t s)      \
    {                                                                                                  \
        return gp_nccl_inclusive_scan_##name((T *)o, (const T *)i, n, c, s);                           \
    }
NCCL_WRAPPERS(sum_i64, int64_t)
NCCL_WRAPPERS(max_u32, uint32_t)
NCCL_WRAPPERS(sum_f32, float)
NCCL_WRAPPERS(min_f64, double)
NCCL_WRAPPERS(mat2, mat2)

static void ap_sum_i64(void *a, const void *x) { *(uint64_t *)a += *(const uint64_t *)x; }
static void ap_max_u32(void *a, const void *x) { if (*(const uint32_t *)x > *(uint32_t *)a) *(uint32_t *)a = *(const uint32_t *)x; }
static void ap_sum_f32(void *a, const void *x) { *(float *)a += *(const float *)x; }
static void ap_min_f64(void *a, const void *x) { if (*(const double *)x < *(double *)a) *(double *)a = *(const double *)x; }
static void ap_mat2(void *a, const void *x) { *(mat2 *)a = mat2_mul(*(mat2 *)a, *(const mat2 *)x); }

/* Inputs whose every fold is exact, so results compare as bytes: float sums of -1, 0, 1. */
static void fill_bits(void *x, size_t e, uint64_t *st)
{
    for (size_t k = 0; k < e; k += 8) {
        const uint64_t r = gp_t_next(st);
        memcpy((char *)x + k, &r, e - k < 8 ? e - k : 8);
    }
}
static void fill_f32(void *x, size_t, uint64_t *st) { *(float *)x = (float)(int)(gp_t_next(st) % 3) - 1.0f; }
static void fill_mat2(void *x, size_t, uint64_t *st) { *(mat2 *)x = mat2_random(st); }
static void fill_f64(void *x, size_t, uint64_t *st) { *(double *)x = ((double)(gp_t_next(st) >> 11) - 4.5e15) * 1e-9; }

typedef struct {
    const char *name;
    size_t elem;
    nccl_fn reduce, ex, in;
    void (*apply)(void *acc, const void *x);
    void (*fill)(void *x, size_t elem, uint64_t *st);
    unsigned char id[16];
} instance;
static instance instances[5];
static void init_instances(void)
{
    const uint32_t u0 = 0;
    const double dinf = 1.0 / 0.0;
    const float f0 = 0;
    const int64_t i0 = 0;
    instance *in = instances;
    in[0] = (instance){"sum_i64", 8, red_sum_i64, exs_sum_i64, ins_sum_i64, ap_sum_i64, fill_bits, {}};
    memcpy(in[0].id, &i0, 8);
    in[1] = (instance){"max_u32", 4, red_max_u32, exs_max_u32, ins_max_u32, ap_max_u32, fill_bits, {}};
    memcpy(in[1].id, &u0, 4);
    in[2] = (instance){"sum_f32", 4, red_sum_f32, exs_sum_f32, ins_sum_f32, ap_sum_f32, fill_f32, {}};
    memcpy(in[2].id, &f0, 4);
    in[3] = (instance){"min_f64", 8, red_min_f64, exs_min_f64, ins_min_f64, ap_min_f64, fill_f64, {}};
    memcpy(in[3].id, &dinf, 8);
    in[4] = (instance){"mat2", 16, red_mat2, exs_mat2, ins_mat2, ap_mat2, fill_mat2, {}};
    memcpy(in[4].id, &MAT2_ID, 16);
}

/* ---- reduce and scans against the host reference ---------------------------------------- */

static const unsigned char POISON = 0xA7;

typedef struct {
    const instance *in;
    int op;                 /* 0 reduce, 1 exclusive scan, 2 inclusive scan */
    int in_place;
    size_t n[MAX_RANKS];    /* shard sizes */
    unsigned char *h_x[MAX_RANKS], *h_got[MAX_RANKS];
    void *d_x[MAX_RANKS], *d_y[MAX_RANKS];
    cudaError_t err[MAX_RANKS];
} shard_case;

static void shard_call(const group *g, int r, void *p)
{
    shard_case *c = (shard_case *)p;
    const size_t e = c->in->elem, out_n = c->op == 0 ? 1 : c->n[r];
    CUDA_CHK(cudaMemsetAsync(c->d_y[r], POISON, (out_n + 1) * e, g->st[r]));
    void *out = c->d_y[r];
    const void *x = c->d_x[r];
    if (c->in_place && c->op != 0) {
        CUDA_CHK(cudaMemcpyAsync(out, x, c->n[r] * e, cudaMemcpyDeviceToDevice, g->st[r]));
        x = out;
    }
    const nccl_fn f = c->op == 0 ? c->in->reduce : c->op == 1 ? c->in->ex : c->in->in;
    c->err[r] = f(out, x, c->n[r], g->comm[r], g->st[r]);
    CUDA_CHK(cudaMemcpyAsync(c->h_got[r], c->d_y[r], (out_n + 1) * e, cudaMemcpyDeviceToHost, g->st[r]));
}

/* One case on every rank; returns 1 if every rank's output (and the guard after it) is right. */
static int check_shards(const group *g, shard_case *c, uint64_t *st)
{
    const size_t e = c->in->elem;
    for (int r = 0; r < g->ranks; r++) {
        for (size_t i = 0; i < c->n[r]; i++) c->in->fill(c->h_x[r] + i * e, e, st);
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMemcpy(c->d_x[r], c->h_x[r], c->n[r] * e, cudaMemcpyHostToDevice));
    }
    on_ranks(g, shard_call, c);
    unsigned char acc[16], total[16];
    memcpy(total, c->in->id, e);
    for (int r = 0; r < g->ranks; r++)
        for (size_t i = 0; i < c->n[r]; i++) c->in->apply(total, c->h_x[r] + i * e);
    memcpy(acc, c->in->id, e);
    static const char *ops[] = {"gp_nccl_reduce", "gp_nccl_exclusive_scan", "gp_nccl_inclusive_scan"};
    int ok = 1;
    for (int r = 0; r < g->ranks; r++) {
        char what[160];
        snprintf(what, sizeof what, "%s_%s, %d ranks, rank %d of shards %zu/%zu..., %s", ops[c->op], c->in->name,
                 g->ranks, r, c->n[0], c->n[g->ranks > 1], c->in_place ? "in place" : "out of place");
        if (c->err[r] != cudaSuccess) {
            EXPECT(0, "%s: returned %s", what, cudaGetErrorName(c->err[r]));
            ok = 0;
            continue;
        }
        const size_t out_n = c->op == 0 ? 1 : c->n[r];
        size_t bad = out_n;
        if (c->op == 0) {
            if (memcmp(c->h_got[r], total, e) != 0) bad = 0;
        } else {
            for (size_t i = 0; i < c->n[r]; i++) {
                if (c->op == 2) c->in->apply(acc, c->h_x[r] + i * e);
                if (bad == out_n && memcmp(c->h_got[r] + i * e, acc, e) != 0) bad = i;
                if (c->op == 1) c->in->apply(acc, c->h_x[r] + i * e);
            }
        }
        int guard = 1;
        for (size_t k = 0; k < e; k++) guard &= c->h_got[r][out_n * e + k] == POISON;
        EXPECT(bad == out_n, "%s: first wrong element %zu", what, bad);
        EXPECT(guard, "%s: wrote past its output", what);
        ok &= bad == out_n && guard;
    }
    return ok;
}

static void check_reduce_scan(const group *g)
{
    const size_t sizes[] = {0, 1, 33, 1025, 65537, 300007, 1048573, (1u << 22) + 3};
    const size_t n_sizes = sizeof sizes / sizeof *sizes, max_n = gp_t_small() ? 300007 : (1u << 22) + 3;
    uint64_t st = gp_t_state(60);
    shard_case c;
    memset(&c, 0, sizeof c);
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        c.h_x[r] = (unsigned char *)malloc(max_n * 16);
        c.h_got[r] = (unsigned char *)malloc((max_n + 1) * 16);
        CUDA_CHK(cudaMalloc(&c.d_x[r], max_n * 16));
        CUDA_CHK(cudaMalloc(&c.d_y[r], (max_n + 1) * 16));
    }
    for (size_t k = 0; k < sizeof instances / sizeof *instances; k++) {
        c.in = &instances[k];
        int cases = 0, fails = 0;
        for (size_t s = 0; s < n_sizes; s++) { /* rank r's shard: sizes[s + r], so they differ */
            int skip = 0;
            for (int r = 0; r < g->ranks; r++) {
                c.n[r] = sizes[(s + (size_t)r * 3) % n_sizes];
                skip |= c.n[r] > max_n;
            }
            if (skip) continue;
            for (c.op = 0; c.op < 3; c.op++)
                for (c.in_place = 0; c.in_place <= (c.op != 0); c.in_place++) {
                    fails += !check_shards(g, &c, &st);
                    cases++;
                }
        }
        printf("  %-8s %d ranks: %d cases, %d failed\n", c.in->name, g->ranks, cases, fails);
    }
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        free(c.h_x[r]);
        free(c.h_got[r]);
        CUDA_CHK(cudaFree(c.d_x[r]));
        CUDA_CHK(cudaFree(c.d_y[r]));
    }
}

/* Float sums of values in [0, 1): any other association rounds differently. Three runs,
 * every rank's total and every rank's scan bitwise equal to the first run's. */
typedef struct { float *x[MAX_RANKS], *y[MAX_RANKS], *sum[MAX_RANKS]; size_t n; } det_case;
static void det_call(const group *g, int r, void *p)
{
    det_case *c = (det_case *)p;
    CUDA_CHK(gp_nccl_reduce_sum_f32(c->sum[r], c->x[r], c->n, g->comm[r], g->st[r]));
    CUDA_CHK(gp_nccl_inclusive_scan_sum_f32(c->y[r], c->x[r], c->n, g->comm[r], g->st[r]));
}
static void check_determinism(const group *g)
{
    const size_t n = gp_t_small() ? 65537 : (1u << 22) + 3;
    uint64_t st = gp_t_state(61);
    det_case c;
    c.n = n;
    float *h = (float *)malloc(n * 4), *first = (float *)malloc(n * 4 * g->ranks), *got = (float *)malloc(n * 4);
    float sums[MAX_RANKS], sum0 = 0;
    for (int r = 0; r < g->ranks; r++) {
        for (size_t i = 0; i < n; i++) h[i] = (float)((double)(gp_t_next(&st) >> 11) / 9007199254740992.0);
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMalloc(&c.x[r], n * 4));
        CUDA_CHK(cudaMalloc(&c.y[r], n * 4));
        CUDA_CHK(cudaMalloc(&c.sum[r], 4));
        CUDA_CHK(cudaMemcpy(c.x[r], h, n * 4, cudaMemcpyHostToDevice));
    }
    int same = 1;
    for (int run = 0; run < 3; run++) {
        on_ranks(g, det_call, &c);
        for (int r = 0; r < g->ranks; r++) {
            CUDA_CHK(cudaSetDevice(r));
            CUDA_CHK(cudaMemcpy(&sums[r], c.sum[r], 4, cudaMemcpyDeviceToHost));
            CUDA_CHK(cudaMemcpy(run ? got : first + r * n, c.y[r], n * 4, cudaMemcpyDeviceToHost));
            if (run == 0 && r == 0) sum0 = sums[0];
            same &= memcmp(&sums[r], &sum0, 4) == 0;
            if (run) same &= memcmp(got, first + r * n, n * 4) == 0;
        }
    }
    /* and the total is the last rank's inclusive scan's last element, to rounding */
    const float last = first[(size_t)(g->ranks - 1) * n + n - 1];
    EXPECT(same, "sum_f32, %d ranks x %zu: reduce bitwise equal on every rank, reduce and scan equal in 3 runs",
           g->ranks, n);
    EXPECT(fabsf(last - sum0) <= 1e-5f * sum0, "sum_f32: total %.9g against the scan's last element %.9g", sum0, last);
    printf("  sum_f32 %d ranks x %zu: total %.9g, %s\n", g->ranks, n, sum0, same ? "bitwise equal" : "DIFFERENT");
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaFree(c.x[r]));
        CUDA_CHK(cudaFree(c.y[r]));
        CUDA_CHK(cudaFree(c.sum[r]));
    }
    free(h);
    free(first);
    free(got);
}

/* ---- large shards, closed forms --------------------------------------------------------- */

/* x[i] = global index g = first + i (as u32); inclusive scan g(g+1)/2, the total N(N-1)/2, mod 2^32. */
__global__ void fill_global_index(uint32_t *x, size_t n, size_t first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (uint32_t)(first + i);
}
__global__ void count_wrong_scan(const uint32_t *y, size_t n, size_t first, unsigned long long *wrong)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t g = first + i; /* g(g+1)/2 mod 2^32, halving the even factor first */
        if (y[i] != (uint32_t)(g % 2 == 0 ? (g / 2) * (g + 1) : g * ((g + 1) / 2))) atomicAdd(wrong, 1ull);
    }
}
typedef struct { uint32_t *x[MAX_RANKS], *sum[MAX_RANKS]; unsigned long long *wrong[MAX_RANKS]; size_t n; } big_case;
static void big_call(const group *g, int r, void *p)
{
    big_case *c = (big_case *)p;
    cudaStream_t s = g->st[r];
    fill_global_index<<<4096, 256, 0, s>>>(c->x[r], c->n, c->n * r);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(gp_nccl_reduce_sum_u32(c->sum[r], c->x[r], c->n, g->comm[r], s));
    CUDA_CHK(gp_nccl_inclusive_scan_sum_u32(c->x[r], c->x[r], c->n, g->comm[r], s)); /* in place */
    count_wrong_scan<<<4096, 256, 0, s>>>(c->x[r], c->n, c->n * r, c->wrong[r]);
    CUDA_CHK_LAUNCH();
}
static void check_large(const group *g)
{
    big_case c;
    c.n = ((size_t)1 << 31) + 1001;
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        if (cudaMalloc(&c.x[r], c.n * 4) != cudaSuccess) {
            cudaGetLastError();
            for (int q = 0; q < r; q++) {
                CUDA_CHK(cudaSetDevice(q));
                CUDA_CHK(cudaFree(c.x[q]));
                CUDA_CHK(cudaFree(c.sum[q]));
            }
            gp_t_skip("nccl: 2^31 + 1001 elements per rank need 8.6 GB per GPU");
            return;
        }
        CUDA_CHK(cudaMalloc(&c.sum[r], 16)); /* the total, then (8 bytes on) the count of wrong elements */
        c.wrong[r] = (unsigned long long *)(c.sum[r] + 2);
        CUDA_CHK(cudaMemset(c.sum[r], 0, 16));
    }
    on_ranks(g, big_call, &c);
    const uint64_t N = (uint64_t)c.n * g->ranks;
    const uint32_t want = (uint32_t)((N % 2 == 0) ? (N / 2) * (N - 1) : N * ((N - 1) / 2));
    for (int r = 0; r < g->ranks; r++) {
        uint32_t got[4];
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMemcpy(got, c.sum[r], 16, cudaMemcpyDeviceToHost));
        unsigned long long wrong;
        memcpy(&wrong, got + 2, 8);
        EXPECT(got[0] == want, "sum_u32 reduce, %d ranks x %zu, rank %d: %u, want %u", g->ranks, c.n, r, got[0], want);
        EXPECT(wrong == 0, "sum_u32 inclusive scan in place, %d ranks x %zu, rank %d: %llu wrong", g->ranks, c.n, r,
               wrong);
        CUDA_CHK(cudaFree(c.x[r]));
        CUDA_CHK(cudaFree(c.sum[r]));
    }
    printf("  %d ranks x %zu elements: reduce and in-place inclusive scan against closed forms\n", g->ranks, c.n);
}

/* ---- transpose --------------------------------------------------------------------------- */

/* The ways a test calls the transpose. */
enum { TR_U8, TR_F32, TR_RGB, TR_F32_PIECES, TR_F32_FIRST, TR_KINDS };
static const char *tr_kind_name[TR_KINDS] = {"u8", "f32", "rgb (user, 4 KiB pieces)", "f32 in 4 KiB pieces",
                                               "f32 as the first version (4 KiB pieces)"};
static const size_t tr_kind_elem[TR_KINDS] = {1, 4, 12, 4, 4};
/* The bench's ladder paths: the default ones in many pieces, and all that the first
 * version did (cudaMemcpy2DAsync unpack, default priority, the whole tile that stays). */
static const gp__nccl_transpose_knobs tr_knobs[TR_KINDS] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {4096, 0, 0, 0}, {4096, 1, 1, 1}};

typedef struct {
    int kind;
    size_t elem, rows, cols;    /* global shape */
    size_t rows_of[MAX_RANKS];  /* the rows each rank passes (a mismatch test changes one) */
    int null_rank;              /* this rank passes NULL (or -1) */
    size_t off;                 /* input and output start this many elements into their buffers */
    unsigned char *d_in[MAX_RANKS], *d_out[MAX_RANKS];
    cudaError_t err[MAX_RANKS];
} tr_case;
static void tr_call(const group *g, int r, void *p)
{
    tr_case *c = (tr_case *)p;
    void *out = r == c->null_rank ? NULL : c->d_out[r] + c->off * c->elem;
    const void *in = c->d_in[r] + c->off * c->elem;
    const size_t rows = c->rows_of[r], cols = c->cols;
    cudaStream_t s = g->st[r];
    switch (c->kind) {
    case TR_U8: c->err[r] = gp_nccl_transpose_u8((uint8_t *)out, (const uint8_t *)in, rows, cols, g->comm[r], s); break;
    case TR_RGB: c->err[r] = gp_nccl_transpose_rgb((rgb *)out, (const rgb *)in, rows, cols, g->comm[r], s); break;
    case TR_F32: c->err[r] = gp_nccl_transpose_f32((float *)out, (const float *)in, rows, cols, g->comm[r], s); break;
    default:
        c->err[r] = gp__nccl_transpose<float>((float *)out, (const float *)in, rows, cols, g->comm[r], s,
                                              gp_transpose_strided_f32, &tr_knobs[c->kind]);
    }
}

/* rows x cols global, random bytes, input and output `off` elements into their buffers;
 * every rank's output block against the host transpose, and the bytes around it intact. */
static int check_transpose_shape(const group *g, int kind, size_t rows, size_t cols, size_t off, uint64_t *st)
{
    const int P = g->ranks;
    const size_t e = tr_kind_elem[kind], r = rows / P, c = cols / P, lead = off * e;
    const size_t out_bytes = lead + c * rows * e + e;
    unsigned char *a = (unsigned char *)malloc(rows * cols * e + 1), *got = (unsigned char *)malloc(out_bytes);
    for (size_t i = 0; i < rows * cols * e; i++) a[i] = (unsigned char)gp_t_next(st);
    tr_case tc;
    memset(&tc, 0, sizeof tc);
    tc.kind = kind, tc.elem = e, tc.rows = rows, tc.cols = cols, tc.null_rank = -1, tc.off = off;
    for (int k = 0; k < P; k++) {
        tc.rows_of[k] = rows;
        CUDA_CHK(cudaSetDevice(k));
        CUDA_CHK(cudaMalloc(&tc.d_in[k], lead + r * cols * e + 1));
        CUDA_CHK(cudaMalloc(&tc.d_out[k], out_bytes));
        CUDA_CHK(cudaMemcpy(tc.d_in[k] + lead, a + k * r * cols * e, r * cols * e, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(tc.d_out[k], POISON, out_bytes));
    }
    on_ranks(g, tr_call, &tc);
    int ok = 1;
    for (int k = 0; k < P; k++) {
        CUDA_CHK(cudaSetDevice(k));
        CUDA_CHK(cudaMemcpy(got, tc.d_out[k], out_bytes, cudaMemcpyDeviceToHost));
        const unsigned char *mat = got + lead;
        size_t bad = SIZE_MAX;
        for (size_t x = 0; x < c && bad == SIZE_MAX; x++) /* output row x of rank k: global row k*c + x */
            for (size_t y = 0; y < rows; y++)
                if (memcmp(mat + (x * rows + y) * e, a + (y * cols + k * c + x) * e, e) != 0) {
                    bad = x * rows + y;
                    break;
                }
        int guard = 1; /* the bytes before the output and the element after it */
        for (size_t q = 0; q < lead; q++) guard &= got[q] == POISON;
        for (size_t q = 0; q < e; q++) guard &= mat[c * rows * e + q] == POISON;
        EXPECT(tc.err[k] == cudaSuccess && bad == SIZE_MAX && guard,
               "gp_nccl_transpose, %s, %zu x %zu at element offset %zu, %d ranks, rank %d: %s, first wrong element "
               "%lld%s",
               tr_kind_name[kind], rows, cols, off, P, k, cudaGetErrorName(tc.err[k]),
               bad == SIZE_MAX ? -1ll : (long long)bad, guard ? "" : ", wrote outside its output");
        ok &= tc.err[k] == cudaSuccess && bad == SIZE_MAX && guard;
        CUDA_CHK(cudaFree(tc.d_in[k]));
        CUDA_CHK(cudaFree(tc.d_out[k]));
    }
    free(a);
    free(got);
    return ok;
}

static void check_transpose(const group *g)
{
    const size_t P = (size_t)g->ranks;
    /* rows / P of 1, 3, 37 (f32: 4-byte vectors in the unpack; u8: bytes), 6 (f32: 8-byte),
     * 4, 256, 2048 (16-byte), 1000 (u8: 8-byte); at offset 1 every f32 row is 4-byte */
    const size_t shapes[][2] = {{0, 0},     {1, 1},     {3, 5},       {6, 10},   {4, 7},
                                {37, 64},   {256, 300}, {1000, 1500}, {2048, 33}};
    uint64_t st = gp_t_state(62);
    for (int kind = 0; kind < TR_KINDS; kind++) {
        int cases = 0, fails = 0;
        /* small sizes (the sanitizers): no 1000 x 1500 tiles in 4 KiB pieces, thousands of launches */
        const int many_pieces = kind == TR_RGB || tr_knobs[kind].piece_bytes != 0;
        for (size_t off = 0; off < 2; off++)
            for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
                if (gp_t_small() && many_pieces && shapes[k][0] * shapes[k][1] > (1u << 20)) continue;
                fails += !check_transpose_shape(g, kind, shapes[k][0] * P, shapes[k][1] * P, off, &st);
                cases++;
            }
        printf("  transposes, %s, %d ranks: %d shapes, %d failed\n", tr_kind_name[kind], g->ranks, cases, fails);
    }
}

/* ---- bad input ------------------------------------------------------------------------------ */

typedef struct { int which; float *x[MAX_RANKS]; cudaStream_t other[MAX_RANKS]; cudaError_t err[MAX_RANKS]; } bad_case;
static void bad_call(const group *g, int r, void *p)
{
    bad_case *c = (bad_case *)p;
    float *x = c->x[r];
    cudaError_t e = cudaSuccess;
    switch (c->which) {
    case 0: e = gp_nccl_reduce_sum_f32(NULL, x, 5, g->comm[r], g->st[r]); break;
    case 1: e = gp_nccl_reduce_sum_f32(x, NULL, 5, g->comm[r], g->st[r]); break;
    case 2: e = gp_nccl_inclusive_scan_sum_f32(x + 1, x, 20, g->comm[r], g->st[r]); break;
    case 3: e = gp_nccl_exclusive_scan_sum_f32(NULL, x, 20, g->comm[r], g->st[r]); break;
    case 4: e = gp_nccl_reduce_sum_f32(x, x, 5, NULL, g->st[r]); break;
    case 5: e = gp_nccl_reduce_sum_f32(x, x, 5, g->comm[r], c->other[r]); break; /* stream on another GPU */
    case 6: e = gp_nccl_transpose_f32(x + 1, x, 2 * g->ranks, 2 * g->ranks, g->comm[r], g->st[r]); break; /* overlap */
    case 7: e = gp_nccl_transpose_f32(x + 64, x, 2 * g->ranks + 1, 2 * g->ranks, g->comm[r], g->st[r]); break;
    }
    c->err[r] = e;
}
static void check_bad_input(const group *g)
{
    bad_case c;
    const int ndev = g->ranks;
    for (int r = 0; r < g->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMalloc(&c.x[r], 4096));
        CUDA_CHK(cudaMemset(c.x[r], POISON, 4096));
        CUDA_CHK(cudaSetDevice((r + 1) % ndev));
        CUDA_CHK(cudaStreamCreate(&c.other[r]));
    }
    static const char *what[] = {"reduce, NULL d_out", "reduce, NULL d_in", "scan, partial overlap", "scan, NULL d_out",
                                 "reduce, NULL comm", "reduce, stream on another GPU",
                                 "transpose, overlap", "transpose, rows not divisible by the ranks"};
    for (c.which = 0; c.which < 8; c.which++) {
        if (c.which == 5 && g->ranks == 1) continue; /* one GPU: no other */
        if (c.which == 7 && g->ranks == 1) continue; /* everything divides by 1 */
        on_ranks(g, bad_call, &c);
        for (int r = 0; r < g->ranks; r++) {
            const cudaError_t want = c.which == 5 ? cudaErrorInvalidDevice : cudaErrorInvalidValue;
            EXPECT(c.err[r] == want, "%s, %d ranks, rank %d: %s, want %s", what[c.which], g->ranks, r,
                   cudaGetErrorName(c.err[r]), cudaGetErrorName(want));
        }
    }
    for (int r = 0; r < g->ranks; r++) {
        unsigned char h[4096];
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaDeviceSynchronize());
        CUDA_CHK(cudaMemcpy(h, c.x[r], 4096, cudaMemcpyDeviceToHost));
        int intact = 1;
        for (int i = 0; i < 4096; i++) intact &= h[i] == POISON;
        EXPECT(intact, "bad input, rank %d: nothing written", r);
        EXPECT(cudaGetLastError() == cudaSuccess, "bad input, rank %d: no launch error left behind", r);
        CUDA_CHK(cudaFree(c.x[r]));
        CUDA_CHK(cudaStreamDestroy(c.other[r]));
    }
}

/* Mismatched transpose arguments across ranks: an error on every rank, no hang. */
static void check_mismatch(const group *g)
{
    const int P = g->ranks;
    for (int which = 0; which < 2; which++) {
        if (which == 0 && P == 1) continue; /* one rank: nobody to disagree with */
        tr_case tc;
        memset(&tc, 0, sizeof tc);
        tc.kind = TR_F32, tc.elem = 4, tc.rows = 4 * P, tc.cols = 2 * P, tc.null_rank = which == 1 ? P - 1 : -1;
        for (int k = 0; k < P; k++) {
            tc.rows_of[k] = tc.rows + (which == 0 && k == P - 1 ? (size_t)P : 0); /* the last rank: more rows */
            CUDA_CHK(cudaSetDevice(k));
            CUDA_CHK(cudaMalloc(&tc.d_in[k], 4096));
            CUDA_CHK(cudaMalloc(&tc.d_out[k], 4096));
            CUDA_CHK(cudaMemset(tc.d_out[k], POISON, 4096));
        }
        on_ranks(g, tr_call, &tc);
        for (int k = 0; k < P; k++) {
            unsigned char h[4096];
            CUDA_CHK(cudaSetDevice(k));
            CUDA_CHK(cudaMemcpy(h, tc.d_out[k], 4096, cudaMemcpyDeviceToHost));
            int intact = 1;
            for (int i = 0; i < 4096; i++) intact &= h[i] == POISON;
            EXPECT(tc.err[k] == cudaErrorInvalidValue && intact, "transpose, %s on one rank of %d, rank %d: %s%s",
                   which == 0 ? "other rows" : "NULL d_out", P, k, cudaGetErrorName(tc.err[k]),
                   intact ? "" : ", wrote output");
            CUDA_CHK(cudaFree(tc.d_in[k]));
            CUDA_CHK(cudaFree(tc.d_out[k]));
        }
    }
}

/* ---- main --------------------------------------------------------------------------------- */

static int wanted(const char *name)
{
    const char *only = getenv("GP_TEST_ONLY");
    return !only || !*only || strstr(name, only);
}

static void run_group(int ranks)
{
    group g;
    make_group(&g, ranks);
    gp_t_section("nccl, %d rank%s: reduce and scans against the host reference", ranks, ranks > 1 ? "s" : "");
    if (wanted("reduce_scan")) check_reduce_scan(&g);
    if (wanted("determinism")) check_determinism(&g);
    gp_t_section("nccl, %d rank%s: transposes", ranks, ranks > 1 ? "s" : "");
    if (wanted("transpose")) check_transpose(&g);
    gp_t_section("nccl, %d rank%s: bad input and mismatched shapes", ranks, ranks > 1 ? "s" : "");
    if (wanted("bad_input")) check_bad_input(&g);
    if (wanted("mismatch")) check_mismatch(&g);
    if (gp_t_small()) gp_t_skip("nccl: 2^31 + 1001 elements per rank (small sizes)");
    else if (wanted("large")) {
        gp_t_section("nccl, %d rank%s: large shards against closed forms", ranks, ranks > 1 ? "s" : "");
        check_large(&g);
    }
    free_group(&g);
}

extern int gp_t_passed, gp_t_failed, gp_t_skipped;

int main(int argc, char **argv)
{
    (void)argc;
    gp_t_argv0 = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *seed = getenv("GP_TEST_SEED");
    gp_t_seed = seed && *seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
    cudaGetLastError();
    const char *lim = getenv("GP_NCCL_RANKS");
    if (lim && *lim && atoi(lim) < gpus) gpus = atoi(lim);
    if (gpus > MAX_RANKS) gpus = MAX_RANKS;
    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    printf("gpuprims NCCL tests: seed %llu (replay with GP_TEST_SEED=%llu)%s; NCCL %d; %d GPU%s\n",
           (unsigned long long)gp_t_seed, (unsigned long long)gp_t_seed, gp_t_small() ? ", small sizes" : "",
           nccl_version, gpus, gpus == 1 ? "" : "s");
    init_instances();
    if (gpus == 0) {
        gp_t_skip("nccl: every test (no GPU)");
    } else {
        run_group(gpus);
        if (gpus > 1) run_group(1);
    }
    printf("%d passed, %d failed, %d skipped\n", gp_t_passed, gp_t_failed, gp_t_skipped);
    return gp_t_failed ? 1 : 0;
}
