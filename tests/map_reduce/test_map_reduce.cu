/* tests/map_reduce/test_map_reduce.cu -- the fused map-reduces: the default instances (gp_dot_*,
 * gp_sum_squares_*, gp_count_nonzero_*) and GP_DEFINE_MAP_REDUCE / GP_DEFINE_MAP2_REDUCE for
 * a user's map and non-commutative operator.
 * GPU: every default instance against a host reference (long double for the float sums,
 * exact where every partial sum is exact; exact counts) at the edge sizes, with the inputs
 * in step, out of step (one element apart from a 16-byte boundary) and, for 8-byte
 * elements, at a 4-byte boundary; poisoned outputs, bad input, determinism across
 * streams, and counts above 2^31 generated on the device. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"
#include "../mat2.cuh"
#include "../user_pair.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gp_t_reduce_tree_depth(const gp__reduce_plan *p, unsigned arity, size_t elem); /* tests/reduce/test_reduce.cu */

/* ---- the default instances, as rows the test walks ------------------------------------- */

typedef cudaError_t (*map_fn)(void *d_out, const void *d_a, const void *d_b, size_t n, cudaStream_t s);
typedef struct {
    const char *name;
    size_t elem;     /* input element bytes */
    size_t out_elem; /* result bytes */
    int arity;       /* inputs: 1 or 2 */
    char kind;       /* the input's: 'i' signed, 'u' unsigned, 'f' floating */
    char what;       /* 'd' dot, 'q' sum of squares, 'c' count of non-zero elements, '?' unknown */
    map_fn fn;
} map_instance;

#define MAP_WRAPPER(name, Tin, T, MAP, OP, ID)                                                   \
    static cudaError_t call_##name(void *o, const void *a, const void *b, size_t n, cudaStream_t s) \
    {                                                                                            \
        (void)b;                                                                                 \
        return gp_##name((T *)o, (const Tin *)a, n, s);                                          \
    }
#define MAP2_WRAPPER(name, Tin, T, MAP2, OP, ID)                                                 \
    static cudaError_t call_##name(void *o, const void *a, const void *b, size_t n, cudaStream_t s) \
    {                                                                                            \
        return gp_##name((T *)o, (const Tin *)a, (const Tin *)b, n, s);                          \
    }
GP__MAP_REDUCE_INSTANCES(MAP_WRAPPER)
GP__MAP2_REDUCE_INSTANCES(MAP2_WRAPPER)
#define KIND(Tin) ((Tin)0.5 != 0 ? 'f' : (Tin)-1 < 0 ? 'i' : 'u')
/* The map and operator columns, as the codes used below ('?': a row this test cannot check). */
#define WHAT(MAP, OP)                                                                              \
    (!GP_T_STREQ(#OP, "GP_OP_SUM")        ? '?'                                                    \
     : GP_T_STREQ(#MAP, "GP_MAP2_MUL")    ? 'd'                                                    \
     : GP_T_STREQ(#MAP, "GP_MAP_SQUARE")  ? 'q'                                                    \
     : GP_T_STREQ(#MAP, "GP_MAP_NONZERO") ? 'c'                                                    \
                                          : '?')
#define MAP_ROW(name, Tin, T, MAP, OP, ID) {#name, sizeof(Tin), sizeof(T), 1, KIND(Tin), WHAT(MAP, OP), call_##name},
#define MAP2_ROW(name, Tin, T, MAP2, OP, ID) {#name, sizeof(Tin), sizeof(T), 2, KIND(Tin), WHAT(MAP2, OP), call_##name},
static const map_instance instances[] = {GP__MAP_REDUCE_INSTANCES(MAP_ROW) GP__MAP2_REDUCE_INSTANCES(MAP2_ROW)};
#define N_INSTANCES (sizeof instances / sizeof *instances)

/* Every row is one this test can check: a known map under the sum, a count into 8 bytes, a
 * float sum of a float type. A new row fails here, in CI, until the test learns it. */
extern "C" void test_map_reduce_host_rows(void)
{
    gp_t_section("map-reduce: the default instance lists' columns (host)");
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const map_instance *in = &instances[k];
        const int ok = in->what == 'c' ? in->out_elem == 8 && in->arity == 1
                                       : (in->what == 'd' || in->what == 'q') && in->kind == 'f' &&
                                             in->out_elem == in->elem && in->arity == (in->what == 'd' ? 2 : 1);
        EXPECT(ok && (in->elem == 4 || in->elem == 8), "%s: map '%c', kind '%c', %zu -> %zu bytes, arity %d: not a row "
               "this test can check", in->name, in->what, in->kind, in->elem, in->out_elem, in->arity);
    }
}

/* ---- inputs and references ------------------------------------------------------------ */

static long double get_f(size_t elem, const void *x, size_t i)
{
    if (elem == 4) { float v; memcpy(&v, (const char *)x + i * 4, 4); return v; }
    double v; memcpy(&v, (const char *)x + i * 8, 8); return v;
}
static void put_f(size_t elem, void *x, size_t i, double v)
{
    if (elem == 4) { float f = (float)v; memcpy((char *)x + i * 4, &f, 4); }
    else memcpy((char *)x + i * 8, &v, 8);
}

/* Floats for the sums: quarter-integers in [-8, 8] ('exact': every product is a multiple
 * of 1/16, so the sum is exact while the magnitudes stay within the mantissa), or any value
 * in [-1, 1). For the counts: a quarter of the elements zero, and for floats also -0.0
 * (zero), NaN and the smallest subnormal (not zero). */
static void fill(const map_instance *in, void *x, size_t n, uint64_t *st, int fractional)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        if (in->what == 'c' && in->kind != 'f') {
            const uint64_t v = (r & 3) == 0 ? 0 : r >> 2 << (r & 60); /* zero, or bits at any height */
            memcpy((char *)x + i * in->elem, &v, in->elem);
        } else if (in->what == 'c') {
            const double tiny = in->elem == 4 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
            const double v = r % 8 == 0 ? 0.0 : r % 8 == 1 ? -0.0 : r % 8 == 2 ? NAN : r % 8 == 3 ? tiny : (double)(r >> 40);
            put_f(in->elem, x, i, (r & 8) && r % 8 > 3 ? -v : v);
        } else if (fractional) {
            put_f(in->elem, x, i, (double)(r >> 11) / 4503599627370496.0 - 1.0);
        } else {
            put_f(in->elem, x, i, (double)((int64_t)(r % 65) - 32) / 4.0);
        }
    }
}

static int nonzero(const map_instance *in, const void *x, size_t i)
{
    if (in->kind == 'f') return get_f(in->elem, x, i) != 0; /* NaN != 0 */
    uint64_t v = 0;
    memcpy(&v, (const char *)x + i * in->elem, in->elem);
    return v != 0;
}

/* The sequential reference: the count, or the float sum and the sum of its terms' magnitudes. */
static void reference(const map_instance *in, const void *a, const void *b, size_t n, uint64_t *count,
                      long double *sum, long double *abs_sum)
{
    *count = 0;
    *sum = *abs_sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (in->what == 'c') { *count += nonzero(in, a, i); continue; }
        const long double x = get_f(in->elem, a, i), term = x * (in->what == 'd' ? get_f(in->elem, b, i) : x);
        *sum += term;
        *abs_sum += fabsl(term);
    }
}

typedef struct {
    unsigned char *d_a, *d_b, *d_out; /* bases; inputs copied in at an offset */
    void *h_a, *h_b;
    int sms, cluster_ok;
    size_t det_n; /* the determinism check's n */
} fixture;

static const unsigned char POISON = 0xA7;

/* One call at byte offsets off_a, off_b, checked: returns 1 if the result matched. */
static int run_case(const fixture *f, const map_instance *in, size_t n, size_t off_a, size_t off_b, int fractional)
{
    const unsigned char *d_a = f->d_a + off_a, *d_b = in->arity == 2 ? f->d_b + off_b : d_a;
    unsigned char got[8];
    uint64_t count;
    long double sum, abs_sum;
    reference(in, f->h_a, f->h_b, n, &count, &sum, &abs_sum);
    CUDA_CHK(cudaMemset(f->d_out, POISON, 16));
    const cudaError_t err = in->fn(f->d_out, d_a, d_b, n, 0);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, f->d_out, in->out_elem, cudaMemcpyDeviceToHost));
    if (err != cudaSuccess) {
        EXPECT(0, "%s n=%zu offsets %zu,%zu: returned %s", in->name, n, off_a, off_b, cudaGetErrorName(err));
        return 0;
    }
    if (n == 0) {
        int untouched = 1;
        for (size_t i = 0; i < in->out_elem; i++) untouched &= got[i] == POISON;
        EXPECT(untouched, "%s n=0: output written", in->name);
        return untouched;
    }
    if (in->what == 'c') {
        uint64_t g;
        memcpy(&g, got, 8);
        EXPECT(g == count, "%s n=%zu offset %zu: counted %llu, want %llu", in->name, n, off_a, (unsigned long long)g,
               (unsigned long long)count);
        return g == count;
    }
    const long double g = get_f(in->elem, got, 0);
    const double eps = in->elem == 4 ? FLT_EPSILON : DBL_EPSILON;
    const int mant = in->elem == 4 ? FLT_MANT_DIG : DBL_MANT_DIG;
    if (!fractional && abs_sum * 16 < ldexpl(1, mant)) { /* multiples of 1/16: every partial sum is exact */
        EXPECT(g == sum, "%s n=%zu offsets %zu,%zu exact: got %.17Lg want %.17Lg", in->name, n, off_a, off_b, g, sum);
        return g == sum;
    }
    const gp__reduce_plan p =
        gp__reduce_make_plan((uintptr_t)d_a, (uintptr_t)d_b, n, in->elem, in->arity, f->sms, f->cluster_ok);
    const long double bound = (gp_t_reduce_tree_depth(&p, in->arity, in->elem) + 1) * eps * abs_sum + eps * fabsl(sum);
    const int ok = fabsl(g - sum) <= bound;
    EXPECT(ok, "%s n=%zu offsets %zu,%zu: got %.17Lg want %.17Lg (bound %.3Lg)", in->name, n, off_a, off_b, g, sum,
           bound);
    return ok;
}

static void check_instances(fixture *f, size_t max_n)
{
    const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 65537, 200003, 1048573, (1u << 24) + 7};
    uint64_t st = gp_t_state(20);
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const map_instance *in = &instances[k];
        const size_t e = in->elem;
        /* byte offsets of (a, b): in step at 0 and at one element; out of step; and for
         * 8-byte elements a 4-byte boundary (read element by element, word by word) */
        const size_t offsets[][2] = {{0, 0}, {e, e}, {0, e}, {e, 0}, {4, 4}, {4, 0}};
        const size_t n_offsets = (in->arity == 2 ? 4 : 2) + (e == 8 ? (in->arity == 2 ? 2 : 1) : 0);
        int fails = 0, cases = 0;
        for (int fractional = 0; fractional <= (in->what != 'c'); fractional++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                const size_t n = sizes[s];
                if (n > max_n) continue;
                fill(in, f->h_a, n, &st, fractional);
                fill(in, f->h_b, n, &st, fractional);
                for (size_t o = 0; o < n_offsets; o++) {
                    /* one input: offsets {0, e, 4} are rows 0, 1 and 4 */
                    const size_t *off = offsets[in->arity == 2 ? o : o < 2 ? o : 4];
                    CUDA_CHK(cudaMemcpy(f->d_a + off[0], f->h_a, n * e, cudaMemcpyHostToDevice));
                    CUDA_CHK(cudaMemcpy(f->d_b + off[1], f->h_b, n * e, cudaMemcpyHostToDevice));
                    fails += !run_case(f, in, n, off[0], off[1], fractional);
                    cases++;
                }
            }
        printf("  %-18s %d cases, %d failed\n", in->name, cases, fails);
    }
}

static void check_bad_input(fixture *f)
{
    unsigned char got[8];
    CUDA_CHK(cudaMemset(f->d_out, POISON, 16));
    float *out = (float *)f->d_out;
    const float *a = (const float *)f->d_a, *b = (const float *)f->d_b;
    EXPECT(gp_dot_f32(NULL, a, b, 5, 0) == cudaErrorInvalidValue, "dot: NULL d_out, n=5");
    EXPECT(gp_dot_f32(out, NULL, b, 5, 0) == cudaErrorInvalidValue, "dot: NULL d_a, n=5");
    EXPECT(gp_dot_f32(out, a, NULL, 5, 0) == cudaErrorInvalidValue, "dot: NULL d_b, n=5");
    EXPECT(gp_sum_squares_f32(out, NULL, 5, 0) == cudaErrorInvalidValue, "sum_squares: NULL d_in, n=5");
    EXPECT(gp_count_nonzero_u64((uint64_t *)out, NULL, (size_t)1 << 40, 0) == cudaErrorInvalidValue,
           "count_nonzero: NULL, huge n");
    EXPECT(gp_dot_f64(NULL, NULL, NULL, 0, 0) == cudaSuccess, "dot: n = 0 with NULL pointers, a no-op");
    EXPECT(cudaGetLastError() == cudaSuccess, "bad input leaves no launch error behind");
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, out, 8, cudaMemcpyDeviceToHost));
    EXPECT(got[0] == POISON && got[7] == POISON, "bad input wrote nothing");
}

/* Same input, same result bit for bit; four streams at once agree with one stream. Call k
 * takes the dot product of n floats from element k (off a 16-byte boundary for k > 0)
 * with n floats from element n: in step for some k, out of step for others. */
static void dot_k(void *ctx, int k, void *d_out, cudaStream_t s)
{
    const fixture *f = (const fixture *)ctx;
    const float *a = (const float *)f->d_a;
    CUDA_CHK(gp_dot_f32((float *)d_out, a + k, a + f->det_n, f->det_n, s));
}

static void check_determinism(fixture *f, size_t n)
{
    uint64_t st = gp_t_state(21);
    float *h = (float *)f->h_a;
    for (size_t i = 0; i < 2 * n; i++) h[i] = (float)((double)(gp_t_next(&st) >> 11) / 4503599627370496.0 - 1.0);
    CUDA_CHK(cudaMemcpy(f->d_a, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice));
    f->det_n = n;
    char what[64];
    snprintf(what, sizeof what, "dot_f32 n=%zu", n);
    gp_t_check_streams(what, sizeof(float), dot_k, f);
}

/* ---- a user's map and a non-commutative operator -----------------------------------------
 * 2x2 matrices of determinant 1 (mod 2^32), so that no long product collapses to zero and
 * every slip in the order of combination shows. */
static __host__ __device__ mat2 mat2_of(uint32_t x)
{
    const uint32_t y = x >> 3;
    const mat2 m = {1u, x, y, 1u + x * y};
    return m;
}
static __host__ __device__ mat2 mat2_of2(uint32_t a, uint32_t b)
{
    const mat2 m = {1u + a * b, a, b, 1u};
    return m;
}
#define MAT2_OF(x) mat2_of(x)
#define MAT2_OF2(a, b) mat2_of2((a), (b))
GP_DEFINE_MAP_REDUCE(mat2_chain, uint32_t, mat2, MAT2_OF, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_MAP2_REDUCE(mat2_pairs, uint32_t, mat2, MAT2_OF2, MAT2_MUL, ((mat2){1, 0, 0, 1}))

static void check_user(size_t max_n)
{
    const size_t sizes[] = {1, 2, 33, 1025, 4099, 65537, 1048573, (1u << 24) + 7};
    uint64_t st = gp_t_state(22);
    uint32_t *h = (uint32_t *)malloc(2 * (max_n + 1) * sizeof(uint32_t)), *hb = h + max_n + 1;
    unsigned char *d_a, *d_b;
    mat2 *d_out;
    CUDA_CHK(cudaMalloc(&d_a, (max_n + 4) * sizeof(uint32_t)));
    CUDA_CHK(cudaMalloc(&d_b, (max_n + 4) * sizeof(uint32_t)));
    CUDA_CHK(cudaMalloc(&d_out, sizeof(mat2)));
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        if (n > max_n) continue;
        mat2 want1 = MAT2_ID, want2 = MAT2_ID, got;
        for (size_t i = 0; i < n; i++) {
            h[i] = (uint32_t)gp_t_next(&st);
            hb[i] = (uint32_t)gp_t_next(&st);
            want1 = mat2_mul(want1, mat2_of(h[i]));
            want2 = mat2_mul(want2, mat2_of2(h[i], hb[i]));
        }
        const size_t offsets[][2] = {{0, 0}, {4, 4}, {0, 4}, {12, 8}}; /* bytes: in step, out of step */
        for (size_t o = 0; o < 4; o++) {
            const uint32_t *a = (const uint32_t *)(d_a + offsets[o][0]), *b = (const uint32_t *)(d_b + offsets[o][1]);
            CUDA_CHK(cudaMemcpy((void *)a, h, n * 4, cudaMemcpyHostToDevice));
            CUDA_CHK(cudaMemcpy((void *)b, hb, n * 4, cudaMemcpyHostToDevice));
            CUDA_CHK(cudaMemset(d_out, POISON, sizeof(mat2)));
            CUDA_CHK(gp_mat2_chain(d_out, a, n, 0));
            CUDA_CHK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            EXPECT(mat2_eq(got, want1), "GP_DEFINE_MAP_REDUCE mat2_chain n=%zu offset %zu: ordered product", n,
                   offsets[o][0]);
            CUDA_CHK(cudaMemset(d_out, POISON, sizeof(mat2)));
            CUDA_CHK(gp_mat2_pairs(d_out, a, b, n, 0));
            CUDA_CHK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            EXPECT(mat2_eq(got, want2), "GP_DEFINE_MAP2_REDUCE mat2_pairs n=%zu offsets %zu,%zu: ordered product", n,
                   offsets[o][0], offsets[o][1]);
        }
    }
    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_b));
    CUDA_CHK(cudaFree(d_out));
    free(h);
}

/* A user's two-input map-reduce with another result type (float in, double out), compiled
 * in tests/user_pair.cu with GP_DEFINE_MAP2_REDUCE_EXTERN, called through its declaration. */
static void check_extern(void)
{
    const size_t n = 300007;
    float *h = (float *)malloc(2 * n * sizeof(float)), *d;
    double want = 0, got = 0, *d_out;
    uint64_t st = gp_t_state(23);
    for (size_t i = 0; i < 2 * n; i++) h[i] = (float)(gp_t_next(&st) % 1025) - 512.0f; /* integers: exact in double */
    for (size_t i = 0; i < n; i++) want += fabs((double)h[i] - (double)h[n + i]);
    CUDA_CHK(cudaMalloc(&d, 2 * n * sizeof(float)));
    CUDA_CHK(cudaMalloc(&d_out, sizeof(double)));
    CUDA_CHK(cudaMemcpy(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d_out, POISON, sizeof(double)));
    CUDA_CHK(gp_l1_distance_f32(d_out, d, d + n, n, 0));
    CUDA_CHK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == want, "extern l1_distance_f32 (float in, double out): %.17g want %.17g", got, want);
    CUDA_CHK(cudaFree(d));
    CUDA_CHK(cudaFree(d_out));
    free(h);
}

/* ---- above 2^31 elements ------------------------------------------------------------------
 * Halves in [-4, 3.5] from a counter hash (zero one time in 16): products are multiples of
 * 1/4, so the host reference is exact in integers. */
static __host__ __device__ int huge_twice(size_t i, uint32_t key) { return (int)(hash32(i, key) >> 28) - 8; }
__global__ void fill_huge(float *x, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = 0.5f * (float)huge_twice(i, key);
}

static void check_huge(int sms)
{
    const size_t n = ((size_t)1 << 31) + 1001;
    float *d = NULL;
    if (cudaMalloc(&d, (n + 8) * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        gp_t_skip("map-reduce: n = 2^31 + 1001 needs 8.6 GB of device memory");
        return;
    }
    const uint32_t key = (uint32_t)gp_t_seed ^ 0x5a5a5a5au;
    fill_huge<<<1024, 256>>>(d, n + 8, key);
    CUDA_CHK_LAUNCH();
    uint64_t *d_out;
    CUDA_CHK(cudaMalloc(&d_out, 4 * sizeof(uint64_t)));
    CUDA_CHK(cudaMemset(d_out, POISON, 4 * sizeof(uint64_t)));
    float *f_out = (float *)(d_out + 1);
    CUDA_CHK(gp_count_nonzero_f32(d_out, d, n, 0));                  /* aligned */
    CUDA_CHK(gp_dot_f32(f_out, d, d + 4, n, 0));                     /* in step: vectors */
    CUDA_CHK(gp_dot_f32(f_out + 1, d + 1, d, n, 0));                 /* out of step: elements */
    CUDA_CHK(gp_sum_squares_f32(f_out + 2, d + 3, n, 0));            /* a head of one element */
    uint64_t count = 0;
    float got[3];
    CUDA_CHK(cudaMemcpy(&count, d_out, 8, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(got, f_out, sizeof got, cudaMemcpyDeviceToHost));
    /* the reference, in quarter units: x[i] = t[i] / 2 */
    uint64_t want_count = 0;
    int64_t dot4 = 0, dot1 = 0, sq3 = 0, abs4 = 0, abs1 = 0;
    int t[8];
    for (int k = 0; k < 8; k++) t[k] = huge_twice((size_t)k, key);
    for (size_t i = 0; i < n; i++) { /* t[k] holds twice x[i + k] */
        want_count += t[0] != 0;
        dot4 += t[0] * t[4];
        abs4 += abs(t[0] * t[4]);
        dot1 += t[1] * t[0];
        abs1 += abs(t[1] * t[0]);
        sq3 += t[3] * t[3];
        for (int k = 0; k < 7; k++) t[k] = t[k + 1];
        t[7] = huge_twice(i + 8, key);
    }
    EXPECT(count == want_count, "count_nonzero_f32 n=2^31+1001: %llu want %llu", (unsigned long long)count,
           (unsigned long long)want_count);
    const double want[3] = {dot4 / 4.0, dot1 / 4.0, sq3 / 4.0}, mag[3] = {abs4 / 4.0, abs1 / 4.0, sq3 / 4.0};
    const float *ptr[3][2] = {{d, d + 4}, {d + 1, d}, {d + 3, d + 3}};
    const char *what[3] = {"dot_f32 (d, d+4)", "dot_f32 (d+1, d)", "sum_squares_f32 (d+3)"};
    for (int c = 0; c < 3; c++) {
        const unsigned arity = c < 2 ? 2 : 1;
        const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)ptr[c][0], (uintptr_t)ptr[c][1], n, 4, arity, sms, 1);
        const double bound =
            (gp_t_reduce_tree_depth(&p, arity, 4) + 1) * FLT_EPSILON * mag[c] + FLT_EPSILON * fabs(want[c]);
        EXPECT(fabs(got[c] - want[c]) <= bound, "%s n=2^31+1001: %.9g want %.17g (bound %.3g)", what[c], got[c], want[c],
               bound);
    }
    CUDA_CHK(cudaFree(d));
    CUDA_CHK(cudaFree(d_out));
    printf("  n = 2^31 + 1001: count_nonzero_f32, dot_f32 in and out of step, sum_squares_f32 checked\n");
}

extern "C" void test_map_reduce_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("map-reduce: every default instance on the GPU (dot, sum_squares, count_nonzero)");
        gp_t_skip("map-reduce: bad input, determinism, concurrent streams");
        gp_t_skip("map-reduce: GP_DEFINE_MAP_REDUCE and GP_DEFINE_MAP2_REDUCE, non-commutative; _EXTERN");
        gp_t_skip("map-reduce: n = 2^31 + 1001");
        return;
    }
    gp_t_section("map-reduce: default instances against the host reference");
    fixture f;
    /* GP_TEST_SMALL=2 (racecheck): up to 65537, one block and clusters (test_reduce's sizes
     * take the grid and the grouped fold under racecheck) */
    const size_t max_n = gp_t_small() > 1 ? 65537 : gp_t_small() ? 1048573 : (1u << 24) + 7;
    CUDA_CHK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHK(cudaDeviceGetAttribute(&f.cluster_ok, cudaDevAttrClusterLaunch, 0));
    CUDA_CHK(cudaMalloc(&f.d_a, (max_n + 4) * 8));
    CUDA_CHK(cudaMalloc(&f.d_b, (max_n + 4) * 8));
    CUDA_CHK(cudaMalloc(&f.d_out, 16));
    f.h_a = malloc((max_n + 4) * 8);
    f.h_b = malloc((max_n + 4) * 8);
    check_instances(&f, max_n);
    gp_t_section("map-reduce: bad input, determinism, concurrent streams");
    check_bad_input(&f);
    check_determinism(&f, gp_t_small() > 1 ? 65537 : gp_t_small() ? 100003 : (1u << 22) + 3);
    free(f.h_a);
    free(f.h_b);
    CUDA_CHK(cudaFree(f.d_a));
    CUDA_CHK(cudaFree(f.d_b));
    CUDA_CHK(cudaFree(f.d_out));
    gp_t_section("map-reduce: a user's map and non-commutative operator; _EXTERN with another result type");
    check_user(max_n);
    check_extern();
    if (gp_t_small()) gp_t_skip("map-reduce: n = 2^31 + 1001 (small sizes)");
    else {
        gp_t_section("map-reduce: counts above 2^31");
        check_huge(f.sms);
    }
}
