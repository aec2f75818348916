/* tests/matmul/test_matmul.cu -- gp_matmul_f32 and gp_matmul_f64.
 * Host: the plan arithmetic (block order, tile choice, shape and overlap checks).
 * GPU: against a host reference in long double at square, odd and tiny shapes (1x1x1,
 * 1xNx1, Mx1xK, k = 0, partial tiles in m, n and k), through gp_matmul_<type> and through
 * every tile config's launcher directly (gp_matmul picks one per shape; f64 has configs on
 * the tensor cores and on the CUDA cores), unsplit, with k split into 2 slices (clusters,
 * sm_90; more slices than a config allows, and configs without a split instance, refused),
 * and with k split into 2 to 16 slices through a workspace (the configs built for it), with
 *  - small-integer inputs, where every product and partial sum is exact: the result must
 *    match the reference bit for bit, whatever the summation order;
 *  - fractional inputs, within the FMA-chain bound |c - ref| <= (k + 2) u sum|a||b|;
 * C poisoned (NaN) with poisoned guards on both sides that must stay untouched; pointers
 * off a 16-byte boundary and rows of odd length (the narrower copy and store paths); bad
 * input; determinism; gp_matmul_f64 runs on the tensor cores where its code allows. */
#include "../../gpuprims.cuh"
#include "../harness.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host: the plan ---------------------------------------------------------------- */

static constexpr gp__mm_plan_cfg f32_cfg[] = {GP__MATMUL_CONFIGS_f32(GP__MM_PLAN)};
static constexpr gp__mm_plan_cfg f64_cfg[] = {GP__MATMUL_CONFIGS_f64(GP__MM_PLAN)};
#define F32_CONFIGS ((int)(sizeof f32_cfg / sizeof *f32_cfg))
#define F64_CONFIGS ((int)(sizeof f64_cfg / sizeof *f64_cfg))
/* SMs, opt-in shared memory per block, shared memory per SM, reserved per block */
static const gp__device H100 = {0, 132, 1, 227 * 1024, 228 * 1024, 1024, 25};
static const gp__device SM86 = {0, 84, 0, 99 * 1024, 100 * 1024, 1024, 11}; /* an RTX 3090's */
static const gp__device H100_NO_CLUSTERS = {0, 132, 0, 227 * 1024, 228 * 1024, 1024, 25}; /* or code before sm_90 */

extern "C" void test_matmul_host(void)
{
    gp_t_section("matmul: plan arithmetic (host)");
    /* the block order visits every tile exactly once */
    const size_t dims[][3] = {{1, 1, 8}, {1, 7, 8}, {7, 1, 8}, {9, 13, 8}, {16, 16, 8}, {17, 5, 4}, {64, 3, 1}, {5, 64, 16}};
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        const size_t tm = dims[d][0], tn = dims[d][1], g = dims[d][2];
        unsigned char *seen = (unsigned char *)calloc(tm * tn, 1);
        int ok = 1;
        for (size_t i = 0; i < tm * tn; i++) {
            size_t bm, bn;
            gp__matmul_tile_of(i, tm, tn, g, &bm, &bn);
            if (bm >= tm || bn >= tn || seen[bm * tn + bn]++) ok = 0;
        }
        EXPECT(ok, "tile order %zu x %zu tiles, group %zu: a bijection", tm, tn, g);
        free(seen);
    }
    /* consecutive blocks walk down a group's column first */
    size_t bm, bn;
    gp__matmul_tile_of(1, 32, 32, 8, &bm, &bn);
    EXPECT(bm == 1 && bn == 0, "block 1 is (1, 0) in groups of 8 rows (got %zu, %zu)", bm, bn);
    gp__matmul_tile_of(8, 32, 32, 8, &bm, &bn);
    EXPECT(bm == 0 && bn == 1, "block 8 is (0, 1) in groups of 8 rows (got %zu, %zu)", bm, bn);

    /* tile choice on a 132-SM H100 */
/* k = 2048 unless named: deep enough to split where m x n leaves SMs idle */
#define CHOOSE32_K(m, n, k, b16, gpu, slices) \
    gp__matmul_choose(m, n, k, &(gpu), GP__MM_NEED_TC | ((b16) ? GP__MM_NEED_B16 : 0), f32_cfg, F32_CONFIGS, slices)
#define CHOOSE32_ON(m, n, b16, gpu) CHOOSE32_K(m, n, 2048, b16, gpu, NULL)
#define CHOOSE32_B(m, n, b16) CHOOSE32_ON(m, n, b16, H100)
#define CHOOSE32(m, n) CHOOSE32_B(m, n, 1)
#define CHOOSE64(m, n, have_tc, gpu) \
    gp__matmul_choose(m, n, 2048, &(gpu), (have_tc) ? GP__MM_NEED_TC : 0, f64_cfg, F64_CONFIGS)
    EXPECT(CHOOSE32(4096, 4096) == 0, "4096^2: the largest tile");
    EXPECT(CHOOSE32(8192, 8192) == 0, "8192^2: the largest tile");
    {   /* rows of B that do not allow 16-byte copies: the same tile with a BK that suits one-element copies */
        const int i = CHOOSE32_B(4096, 4095, 0);
        EXPECT(i > 0 && !(f32_cfg[i].needs & GP__MM_NEED_B16) && f32_cfg[i].bm == f32_cfg[0].bm &&
                   f32_cfg[i].bn == f32_cfg[0].bn && f32_cfg[i].bk < f32_cfg[0].bk,
               "4096 x 4095 without 16-byte rows of B: the largest tile at a smaller BK (got %d)", i);
    }
    {
        unsigned sl = 0;
        const int small = CHOOSE32_K(1024, 1024, 2048, 1, H100_NO_CLUSTERS, &sl);
        EXPECT(small >= 0 && ((sl & GP__MM_WORKSPACE) || f32_cfg[small].bm * f32_cfg[small].bn < 128 * 128),
               "1024^2 without clusters: k split through a workspace, or a smaller tile than 128 x 128 (64 tiles would "
               "leave 68 SMs idle), got config %d, %#x", small, sl);
    }
    EXPECT(CHOOSE32_K(1, 1, 32, 1, H100, NULL) == F32_CONFIGS - 1, "1 x 1 x 32: the smallest tile (deeper k splits)");
    /* the one-wave config: where the SMs hold the whole grid at once, and only there */
    int one_wave = -1;
    for (int i = 0; i < F32_CONFIGS; i++)
        if (f32_cfg[i].max_waves == 1) one_wave = i;
    EXPECT(one_wave > 0 && gp__matmul_resident(&f32_cfg[one_wave], &H100) == 2,
           "f32 has a one-wave config, two blocks of it per H100 SM");
    EXPECT(CHOOSE32(2048, 2048) == one_wave, "2048^2: 256 tiles on 132 x 2 blocks, one wave: the one-wave config");
    EXPECT(CHOOSE32(2000, 2040) == one_wave, "2000 x 2040: 256 partial tiles, one wave: the one-wave config");
    EXPECT(CHOOSE32(2304, 2816) == 0, "2304 x 2816: 396 tiles, more than one wave: the largest tile");
    EXPECT(CHOOSE32_B(2048, 2047, 0) != one_wave, "2048 x 2047: no one-wave config without 16-byte rows of B");
    {   /* the rule is in the GPU's terms: fewer SMs, or room for one 66 KB block per SM */
        gp__device half = H100;
        half.sms = 66;
        EXPECT(CHOOSE32_ON(2048, 2048, 1, half) == 0 && CHOOSE32_ON(1408, 1536, 1, half) == one_wave,
               "66 SMs: 2048^2 is two waves (largest tile), 1408 x 1536 (132 tiles) one (the one-wave config)");
        EXPECT(gp__matmul_resident(&f32_cfg[one_wave], &SM86) == 1 && CHOOSE32_ON(1280, 1024, 1, SM86) == one_wave &&
                   CHOOSE32_ON(1408, 1024, 1, SM86) != one_wave,
               "100 KB per SM, 84 SMs: one block each, so 80 tiles are one wave and 88 are not");
    }
    /* blocks per SM: the registers' count (launch bounds), or fewer where shared memory runs out */
    {
        const gp__mm_plan_cfg c = {128, 128, 32, 66560, 2, 0, 1.0f, 0, 0, 1, 66560, 1};
        gp__device g = H100;
        int ok = gp__matmul_resident(&c, &g) == 2;
        g.smem_sm = 2 * (66560 + 1024) - 1;
        ok &= gp__matmul_resident(&c, &g) == 1;
        g.smem_block = 66559;
        ok &= gp__matmul_resident(&c, &g) == 0 && gp__matmul_choose(1, 1, 1, &g, 0, &c, 1) == -1;
        EXPECT(ok, "blocks per SM: min(launch bounds, what shared memory fits); none past the opt-in limit");
    }
    /* split k: the slices cover the k tiles in order, evenly */
    {
        int ok = 1;
        for (size_t kt = 0; kt <= 40; kt++)
            for (unsigned sl = 1; sl <= 8; sl++) {
                size_t prev_end = 0, lo = (size_t)-1, hi = 0;
                for (unsigned q = 0; q < sl; q++) {
                    size_t b, e;
                    gp__matmul_k_range(kt, q, sl, &b, &e);
                    ok &= b == prev_end && e >= b;
                    prev_end = e;
                    lo = e - b < lo ? e - b : lo;
                    hi = e - b > hi ? e - b : hi;
                }
                ok &= prev_end == kt && hi - lo <= 1;
            }
        EXPECT(ok, "split k: slices 1-8 of 0-40 k tiles are consecutive, cover all, and differ by one tile at most");
    }
    {   /* where m x n leaves SMs idle and k is deep: split into a cluster's slices (sm_90) */
        unsigned s1000 = 0, s4096 = 0, s2048 = 0, s_shallow = 0, s_none = 0, s_narrow = 0, s_fit = 0;
        const int c1000 = CHOOSE32_K(1000, 1000, 1000, 1, H100, &s1000);
        CHOOSE32_K(4096, 4096, 4096, 1, H100, &s4096);
        CHOOSE32_K(2048, 2048, 2048, 1, H100, &s2048);
        CHOOSE32_K(1000, 1000, 96, 1, H100, &s_shallow);
        CHOOSE32_K(1000, 1000, 1000, 1, H100_NO_CLUSTERS, &s_none);
        const int c_narrow = CHOOSE32_K(256, 256, 65536, 1, H100, &s_narrow);
        EXPECT(s1000 >= 2 && f32_cfg[c1000].bm == 128 && s4096 == 1 && s2048 == 1,
               "1000^3: 128-row tiles with k split (got %u slices of config %d); 2048^3 and 4096^3 unsplit (%u, %u)",
               s1000, c1000, s2048, s4096);
        EXPECT(s_shallow == 1 && gp__mm_split_of(s_none) != GP__MM_BY_CLUSTER,
               "no split where k is too shallow (1000 x 1000 x 96: %u), none over clusters where they cannot be "
               "launched (%#x)", s_shallow, s_none);
        int most = 1;
        for (int i = 0; i < F32_CONFIGS; i++) most = f32_cfg[i].max_slices > most ? f32_cfg[i].max_slices : most;
        EXPECT(c_narrow >= 0 && s_narrow == (GP__MM_WORKSPACE | GP__MM_WS_SLICES_MAX) && most <= GP__CLUSTER_MAX,
               "256 x 256 x 65536: k split through a workspace as far as it goes (got %#x), clusters at most portable",
               s_narrow);
        int ok = 1;
        for (int i = 0; i < F32_CONFIGS; i++)
            ok &= f32_cfg[i].split_smem >= f32_cfg[i].smem && f32_cfg[i].split_smem >= f32_cfg[i].bm * f32_cfg[i].bn * 4;
        EXPECT(ok, "f32: a split block's shared memory holds its pipeline and its partial tile of C");
        gp__device tight = H100; /* a split that no longer fits its partial is not chosen */
        const int c = CHOOSE32_K(1000, 1000, 1000, 1, tight, &s_fit);
        tight.smem_block = f32_cfg[c].split_smem - 1;
        tight.smem_sm = 2 * tight.smem_block;
        unsigned s_tight = 0;
        const int c_tight = CHOOSE32_K(1000, 1000, 1000, 1, tight, &s_tight);
        EXPECT(c_tight >= 0 && (s_tight == 1 || f32_cfg[c_tight].split_smem <= tight.smem_block),
               "a split whose partial tile does not fit is not chosen (config %d, %u slices)", c_tight, s_tight);
    }
    {   /* where even clusters of two leave SMs idle: split through a workspace, within one wave */
        unsigned s512 = 0, s1000 = 0, s_none = 0, s64 = 0;
        const int c512 = CHOOSE32_K(512, 512, 8192, 1, H100, &s512);
        CHOOSE32_K(1000, 1000, 1000, 1, H100, &s1000);
        const int c_none = CHOOSE32_K(512, 512, 8192, 1, H100_NO_CLUSTERS, &s_none);
        const int c64 = gp__matmul_choose(512, 512, 8192, &H100, GP__MM_NEED_TC, f64_cfg, F64_CONFIGS, &s64);
        /* the H100's fastest there: 16 slices of 128 x 128 tiles, two blocks per SM (40.3 TFLOP/s
         * against 37.4 for 8 slices, one per SM); 1000^3: two slices over clusters (32.2 against
         * 28.3 for 4 through a workspace); f64: 4 slices of the 64 x 64 DMMA tile (40.0 against
         * 32.6 over clusters) */
        EXPECT(c512 >= 0 && f32_cfg[c512].bm == 128 && f32_cfg[c512].bn == 128 &&
                   s512 == (GP__MM_WORKSPACE | 16) && gp__mm_split_of(s1000) == GP__MM_BY_CLUSTER,
               "f32 512 x 512 x 8192: 128 x 128 tiles, k in 16 slices through a workspace (got %#x of config %d); "
               "1000^3 over clusters (%#x)", s512, c512, s1000);
        EXPECT(c_none >= 0 && (s_none & GP__MM_WORKSPACE) && c64 >= 0 && (s64 & GP__MM_WORKSPACE),
               "512 x 512 x 8192 through a workspace without clusters too (%#x), and in f64 (%#x)", s_none, s64);
        int ok = 1;
        unsigned long long chosen = 0;
        for (size_t m = 1; m <= 4096; m = m * 3 + 1)
            for (size_t n = 1; n <= 4096; n = n * 2 + 3)
                for (size_t k = 1; k <= 65536; k *= 4) {
                    unsigned sl = 0;
                    const int c = CHOOSE32_K(m, n, k, 1, H100, &sl);
                    if (c < 0 || !(sl & GP__MM_WORKSPACE)) continue;
                    const unsigned q = sl & ~GP__MM_WORKSPACE;
                    const size_t tiles = gp__ceil_div(m, (size_t)f32_cfg[c].bm) * gp__ceil_div(n, (size_t)f32_cfg[c].bn);
                    ok &= q >= 2 && q <= GP__MM_WS_SLICES_MAX &&
                          tiles * q <= (size_t)H100.sms * gp__matmul_resident(&f32_cfg[c], &H100) &&
                          gp__ceil_div(k, (size_t)f32_cfg[c].bk) >= q * GP__MM_SPLIT_MIN_KTILES;
                    chosen++;
                }
        EXPECT(ok && chosen > 0,
               "f32: every split through a workspace (%llu shapes) is 2-16 slices of 4+ k tiles, within one wave",
               chosen);
        EXPECT(gp__mm_slab(3, 5, 4) == 16 && gp__mm_slab(4, 4, 4) == 16 && gp__mm_slab(3, 3, 8) == 10,
               "workspace slabs round m x n up to 16 bytes");
    }
    /* f64: the tensor-core configs where they run, else only the CUDA-core ones */
    for (int have_tc = 0; have_tc <= 1; have_tc++) {
        const size_t sq[] = {1, 100, 1000, 4096, 8192};
        int ok = 1;
        for (int i = 0; i < 5; i++)
            ok &= !!(f64_cfg[CHOOSE64(sq[i], sq[i], have_tc, H100)].needs & GP__MM_NEED_TC) == have_tc;
        EXPECT(ok, "f64: every square shape gets a %s config", have_tc ? "tensor-core" : "CUDA-core");
    }
    EXPECT(CHOOSE64(4096, 4096, 1, H100) == 0, "f64 4096^2: the largest tensor-core tile");
    {   /* the largest f64 tile only from three waves of it (one block an SM) */
        const int w2048 = CHOOSE64(2048, 2048, 1, H100);
        EXPECT(f64_cfg[0].min_waves == 3 && gp__matmul_resident(&f64_cfg[0], &H100) == 1,
               "f64: the largest tile, one block per H100 SM, needs three waves");
        EXPECT(w2048 > 0 && (f64_cfg[w2048].needs & GP__MM_NEED_TC) && f64_cfg[w2048].bm < f64_cfg[0].bm,
               "f64 2048^2: 256 tiles, two waves: a smaller tensor-core tile (got %d)", w2048);
        gp__device g64 = H100; /* where the model alone would take the largest tile on both sides */
        g64.sms = 64;
        EXPECT(CHOOSE64(2048, 1536, 1, g64) == 0 && CHOOSE64(1920, 1536, 1, g64) != 0,
               "64 SMs: f64 2048 x 1536 is 192 tiles, three waves (the largest tile); 1920 x 1536, 180, is not");
        EXPECT(CHOOSE64(4097, 3001, 1, H100) == 0, "f64 4097 x 3001: 792 tiles, six waves: the largest tile");
    }
    /* a GPU with less shared memory per block gets the configs that fit it */
    const int fit = CHOOSE64(4096, 4096, 1, SM86);
    EXPECT((f64_cfg[fit].needs & GP__MM_NEED_TC) && f64_cfg[fit].smem <= SM86.smem_block &&
               f64_cfg[0].smem > SM86.smem_block,
           "f64 4096^2 with 99 KB of shared memory: a tensor-core config that fits (got %d, %d bytes)", fit,
           f64_cfg[fit].smem);
    gp__device none = H100;
    none.smem_block = none.smem_sm = 0;
    EXPECT(CHOOSE64(8192, 8192, 1, none) == -1, "f64: no config fits in 0 bytes of shared memory");

    /* shapes whose sizes overflow are refused */
    EXPECT(gp__matmul_shape_ok(4096, 4096, 4096, 4, 32), "4096^3 is a valid shape");
    EXPECT(gp__matmul_shape_ok((size_t)1 << 35, 1, 1, 4, 32), "2^35 x 1 x 1 is a valid shape");
    EXPECT(!gp__matmul_shape_ok((size_t)1 << 37, 1, 1, 4, 32), "2^37 x 1 x 1: 2^32 tiles of 32 rows exceed a grid");
    EXPECT(!gp__matmul_shape_ok((size_t)1 << 32, (size_t)1 << 31, 1, 4, 32), "2^63 elements of C overflow");
    EXPECT(!gp__matmul_shape_ok(1, (size_t)1 << 62, 1, 8, 32), "2^62 doubles overflow in bytes");
    EXPECT(!gp__matmul_shape_ok((size_t)1 << 33, (size_t)1 << 33, 0, 1, 32), "2^52 tiles exceed a grid");
    EXPECT(!gp__matmul_shape_ok(3, 1, (size_t)1 << 62, 4, 32), "A of 3 x 2^62 floats overflows");

    char buf[64];
    EXPECT(gp__ranges_overlap(buf, 16, buf + 15, 16) && !gp__ranges_overlap(buf, 16, buf + 16, 16) &&
               gp__ranges_overlap(buf + 8, 4, buf, 64) && !gp__ranges_overlap(buf, 0, buf, 8),
           "byte ranges overlap");
}

/* ---- GPU ------------------------------------------------------------------------------- */

/* Every config's launcher, to test each one directly (gp_matmul picks only one per shape):
 * the library's, compiled once in lib/matmul.cu. */
static const gp__mm_launch_fn<float> *const f32_launch = gp__matmul_launchers((const float *)NULL);
static const gp__mm_launch_fn<double> *const f64_launch = gp__matmul_launchers((const double *)NULL);

/* What a type's tests read from its config table (D::cfg, D::N). */
template <class D>
struct mm_table {
    static int configs() { return D::N; }
    static int bm(int i) { return D::cfg[i].bm; }
    static int bn(int i) { return D::cfg[i].bn; }
    static int tc(int i) { return !!(D::cfg[i].needs & GP__MM_NEED_TC); }
    static int one_wave(int i) { return D::cfg[i].max_waves == 1; }
    static unsigned max_slices(int i) { return (unsigned)D::cfg[i].max_slices; }
    static unsigned max_ws_slices(int i) { return (unsigned)D::cfg[i].max_ws_slices; }
    static int choose(size_t m, size_t n, size_t k, const gp__device *g, int have, unsigned *slices)
    {
        return gp__matmul_choose(m, n, k, g, have, D::cfg, D::N, slices);
    }
};
template <class T> struct mm_traits;
template <> struct mm_traits<float> : mm_table<mm_traits<float>> {
    static constexpr const gp__mm_plan_cfg *cfg = f32_cfg;
    enum { N = F32_CONFIGS };
    static const char *name() { return "f32"; }
    static cudaError_t config(int i, float *c, const float *a, const float *b, size_t m, size_t n, size_t k,
                              unsigned slices)
    {
        return f32_launch[i](c, a, b, m, n, k, slices, 0);
    }
    static double unit() { return FLT_EPSILON / 2; }
    static cudaError_t call(float *c, const float *a, const float *b, size_t m, size_t n, size_t k, cudaStream_t s)
    {
        return gp_matmul_f32(c, a, b, m, n, k, s);
    }
};
template <> struct mm_traits<double> : mm_table<mm_traits<double>> {
    static constexpr const gp__mm_plan_cfg *cfg = f64_cfg;
    enum { N = F64_CONFIGS };
    static const char *name() { return "f64"; }
    static cudaError_t config(int i, double *c, const double *a, const double *b, size_t m, size_t n, size_t k,
                              unsigned slices)
    {
        return f64_launch[i](c, a, b, m, n, k, slices, 0);
    }
    static double unit() { return DBL_EPSILON / 2; }
    static cudaError_t call(double *c, const double *a, const double *b, size_t m, size_t n, size_t k,
                            cudaStream_t s)
    {
        return gp_matmul_f64(c, a, b, m, n, k, s);
    }
};

enum { GUARD = 64 };                    /* poisoned elements on each side of C */
static const unsigned char POISON = 0xFF; /* NaN in either type */

/* Inputs: integers in [-8, 8] (exact) or uniform in [-1, 1). */
template <class T>
static void fill(T *x, size_t count, uint64_t *st, int exact)
{
    for (size_t i = 0; i < count; i++) {
        const uint64_t r = gp_t_next(st);
        x[i] = exact ? (T)((int)(r % 17) - 8) : (T)((double)(r >> 11) / 4503599627370496.0 - 1.0);
    }
}

/* One product on the GPU, checked. offset: elements by which A, B and C sit off their
 * allocation (1: off every 16-byte boundary). cfg < 0: through gp_matmul_<type>; else that
 * config's launcher directly, k split into `slices`. Returns 1 if it passed. */
template <class T>
static int run_case(size_t m, size_t n, size_t k, int exact, size_t offset, uint64_t *st, T *result_out = NULL,
                    int cfg = -1, unsigned slices = 1)
{
    typedef mm_traits<T> tr;
    T *a = (T *)malloc(sizeof(T) * (m * k + 1)), *b = (T *)malloc(sizeof(T) * (k * n + 1));
    T *c = (T *)malloc(sizeof(T) * (m * n + 2 * GUARD));
    /* the reference in long double (64-bit significand on x86), exact for products of doubles */
    long double *ref = (long double *)calloc(m * n + 1, sizeof(long double)),
                *mag = (long double *)calloc(m * n + 1, sizeof(long double));
    fill(a, m * k, st, exact);
    fill(b, k * n, st, exact);
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++) {
            const long double x = a[i * k + p];
            for (size_t j = 0; j < n; j++) {
                const long double xy = x * (long double)b[p * n + j];
                ref[i * n + j] += xy;
                mag[i * n + j] += fabsl(xy);
            }
        }

    T *d_a, *d_b, *d_c;
    CUDA_CHK(cudaMalloc(&d_a, sizeof(T) * (m * k + 1)));
    CUDA_CHK(cudaMalloc(&d_b, sizeof(T) * (k * n + 1)));
    CUDA_CHK(cudaMalloc(&d_c, sizeof(T) * (m * n + 2 * GUARD)));
    CUDA_CHK(cudaMemcpy(d_a + offset, a, sizeof(T) * m * k, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_b + offset, b, sizeof(T) * k * n, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d_c, POISON, sizeof(T) * (m * n + 2 * GUARD)));
    const cudaError_t err = cfg < 0 ? tr::call(d_c + GUARD + offset, d_a + offset, d_b + offset, m, n, k, 0)
                                    : tr::config(cfg, d_c + GUARD + offset, d_a + offset, d_b + offset, m, n, k, slices);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(c, d_c, sizeof(T) * (m * n + 2 * GUARD), cudaMemcpyDeviceToHost));

    int ok = err == cudaSuccess;
    char what[64] = "gp_matmul";
    if (cfg >= 0)
        snprintf(what, sizeof what, "config %dx%d%s, k in %u%s", tr::bm(cfg), tr::bn(cfg), tr::tc(cfg) ? " (DMMA)" : "",
                 slices & ~GP__MM_WORKSPACE, slices & GP__MM_WORKSPACE ? " (workspace)" : "");
    if (!ok) printf("  %s %s %zux%zux%zu: returned %s\n", tr::name(), what, m, n, k, cudaGetErrorName(err));
    /* the guards: GUARD + offset elements before C, GUARD - offset after */
    const unsigned char *bytes = (const unsigned char *)c;
    size_t bad_guard = 0;
    for (size_t i = 0; i < sizeof(T) * (GUARD + offset); i++) bad_guard += bytes[i] != POISON;
    for (size_t i = sizeof(T) * (GUARD + offset + m * n); i < sizeof(T) * (m * n + 2 * GUARD); i++)
        bad_guard += bytes[i] != POISON;
    if (ok && bad_guard) {
        printf("  %s %s %zux%zux%zu: %zu guard bytes around C were written\n", tr::name(), what, m, n, k, bad_guard);
        ok = 0;
    }
    const T *got = c + GUARD + offset;
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; ok && i < m * n; i++) {
        /* the bound of any order of k FMAs (Higham's gamma_k, with room for the last store) */
        const long double tol = exact ? 0.0L : (long double)(k + 2) * tr::unit() * mag[i] + 1e-300L;
        const long double e = fabsl((long double)got[i] - ref[i]);
        if (!(e <= tol)) { /* NaN (poison left) fails too */
            if (!bad) first = i;
            bad++;
        }
        if (e == e && tol > 0 && e / tol > worst) worst = e / tol;
    }
    /* one check per case: it passes only when the call succeeded, the guards are intact
     * and every element is within its bound */
    EXPECT(ok && bad == 0, "%s %s %zux%zux%zu %s offset %zu: %s; %zu of %zu wrong, first at (%zu, %zu): got %.17g want %.17g",
           tr::name(), what, m, n, k, exact ? "exact" : "fractional", offset, ok ? "ran" : "call or guards failed", bad,
           m * n, n ? first / n : 0, n ? first % n : 0, (double)got[first], (double)ref[first]);
    ok = ok && bad == 0;
    if (ok && result_out) memcpy(result_out, got, sizeof(T) * m * n);
    CUDA_CHK(cudaFree(d_a));
    CUDA_CHK(cudaFree(d_b));
    CUDA_CHK(cudaFree(d_c));
    free(a);
    free(b);
    free(c);
    free(ref);
    free(mag);
    return ok;
}

template <class T>
static void test_type(uint64_t *st)
{
    typedef mm_traits<T> tr;
    gp_t_section("matmul %s: shapes against a host reference in long double", tr::name());
    /* tiny (1x1x1, 1xNx1, Mx1xK), k = 0, each config, partial tiles in every dimension */
    static const size_t shapes[][3] = {
        {1, 1, 1},     {1, 257, 1},   {1, 1000, 1},  {97, 1, 1},    {300, 1, 77},  {1, 1, 300},   {64, 64, 0},
        {5, 7, 0},     {128, 128, 8}, {128, 128, 9}, {129, 131, 17}, {33, 65, 17},  {64, 64, 64},  {63, 65, 7},
        {255, 257, 263}, {256, 256, 256}, {200, 8, 1000}, {8, 200, 1000}, {64, 64, 4099}, {1000, 1000, 24},
        {1030, 1030, 33},
    };
    int pass = 0, total = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int exact = 1; exact >= 0; exact--) {
            if (gp_t_small() && shapes[s][0] * shapes[s][1] > 300 * 300) continue; /* sanitizer run */
            /* racecheck (slow on shared memory): small products, one rounding mode */
            if (gp_t_small() >= 2 && (exact == 0 || shapes[s][0] * shapes[s][1] * shapes[s][2] > 130 * 130 * 20)) continue;
            pass += run_case<T>(shapes[s][0], shapes[s][1], shapes[s][2], exact, 0, st);
            total++;
        }
    /* off every 16-byte boundary: element-wise copies of B and stores of C */
    static const size_t offset_shapes[][3] = {{128, 128, 16}, {129, 260, 33}, {1, 64, 1}, {256, 132, 40}};
    for (size_t s = 0; s < sizeof offset_shapes / sizeof *offset_shapes; s++) {
        pass += run_case<T>(offset_shapes[s][0], offset_shapes[s][1], offset_shapes[s][2], 1, 1, st);
        total++;
    }
    /* each config directly (gp_matmul picks one per shape): tiny, odd, partial and whole
     * tiles, several k tiles, and off a 16-byte boundary */
    static const size_t config_shapes[][4] = {{1, 1, 1, 0},     {1, 1000, 1, 0},  {300, 1, 77, 0},   {129, 131, 17, 0},
                                              {255, 257, 263, 0}, {256, 256, 64, 0}, {5, 7, 0, 0},     {129, 260, 33, 1},
                                              {200, 131, 64, 0},  {200, 128, 63, 0}, {130, 136, 48, 1}};
    int built = 0, dev = 0; /* the tensor-core configs run only where built for sm_80+ */
    CUDA_CHK(gp__mm_tc_built(&built));
    gp__device gpu; /* clusters (split k): where the device launches them and this code is built for sm_90 */
    CUDA_CHK(cudaGetDevice(&dev));
    CUDA_CHK(gp__device_query(&gpu, dev));
    for (int cfg = 0; cfg < tr::configs(); cfg++) {
        if (tr::tc(cfg) && !built) {
            EXPECT(tr::config(cfg, NULL, NULL, NULL, 1, 1, 1, 1) == cudaErrorInvalidDeviceFunction,
                   "%s config %dx%d (DMMA): refused where built for a target before sm_80", tr::name(), tr::bm(cfg),
                   tr::bn(cfg));
            continue;
        }
        for (size_t s = 0; s < sizeof config_shapes / sizeof *config_shapes; s++)
            for (int exact = 1; exact >= 0; exact--) {
                const size_t *sh = config_shapes[s];
                pass += run_case<T>(sh[0], sh[1], sh[2], exact, sh[3], st, NULL, cfg);
                total++;
            }
        /* k split into 2, 3, 4 and 8 slices, as clusters, where the config has a split
         * instance for that many and the device and this code allow clusters (else refused):
         * partial tiles, more slices than k tiles (empty slices), k = 0, off a 16-byte
         * boundary */
        static const size_t split_shapes[][4] = {{129, 131, 200, 0}, {64, 64, 4099, 0}, {1, 1000, 77, 0},
                                                 {300, 1, 1000, 0},  {255, 257, 263, 1}, {5, 7, 0, 0}};
        static const unsigned split_slices[] = {2, 3, 4, 8};
        /* and through a workspace: 2, 3, 5 and 16 slices, the same shapes, where the config
         * has an instance for it; 1 and 17 slices, and any on the others, refused */
        for (unsigned sl : {1u, 2u, GP__MM_WS_SLICES_MAX + 1u})
            if (sl != 2 || tr::max_ws_slices(cfg) < 2)
                EXPECT(tr::config(cfg, NULL, NULL, NULL, 1, 1, 1, sl | GP__MM_WORKSPACE) == cudaErrorInvalidValue,
                       "%s config %dx%d: k in %u slices through a workspace refused (up to %u)", tr::name(),
                       tr::bm(cfg), tr::bn(cfg), sl, tr::max_ws_slices(cfg));
        for (unsigned sl : {2u, 3u, 5u, (unsigned)GP__MM_WS_SLICES_MAX})
            for (size_t s = 0; s < sizeof split_shapes / sizeof *split_shapes && sl <= tr::max_ws_slices(cfg); s++)
                for (int exact = 1; exact >= 0; exact--) {
                    const size_t *sh = split_shapes[s];
                    if (gp_t_small() && (sl == 3 || sl == 5 || sh[0] * sh[1] * sh[2] > 300 * 300 * 300)) continue;
                    if (gp_t_small() >= 2 && (s > 0 || exact == 0 || sl != 2)) continue; /* racecheck: one case */
                    pass += run_case<T>(sh[0], sh[1], sh[2], exact, sh[3], st, NULL, cfg, sl | GP__MM_WORKSPACE);
                    total++;
                }
        for (int q = 0; q < 4; q++) {
            const unsigned sl = split_slices[q];
            if (!gpu.cluster_ok || sl > tr::max_slices(cfg)) {
                EXPECT(tr::config(cfg, NULL, NULL, NULL, 1, 1, 1, sl) == cudaErrorInvalidValue,
                       "%s config %dx%d: k in %u slices refused (clusters %s, up to %u slices)", tr::name(),
                       tr::bm(cfg), tr::bn(cfg), sl, gpu.cluster_ok ? "run" : "do not run", tr::max_slices(cfg));
                continue;
            }
            for (size_t s = 0; s < sizeof split_shapes / sizeof *split_shapes; s++)
                for (int exact = 1; exact >= 0; exact--) {
                    const size_t *sh = split_shapes[s];
                    if (gp_t_small() && sh[0] * sh[1] * sh[2] > 300 * 300 * 300) continue; /* sanitizer run */
                    if (gp_t_small() >= 2 && (s > 0 || exact == 0 || q > 0)) continue; /* racecheck: one case */
                    pass += run_case<T>(sh[0], sh[1], sh[2], exact, sh[3], st, NULL, cfg, sl);
                    total++;
                }
        }
    }
    if (!gp_t_small()) { /* a full-size tile grid with every edge partial, and a big square */
        pass += run_case<T>(1031, 1029, 515, 0, 0, st);
        pass += run_case<T>(768, 768, 768, 1, 0, st);
        total += 2;
    }
    printf("  %s: %d of %d products matched\n", tr::name(), pass, total);

    gp_t_section("matmul %s: determinism, bad input", tr::name());
    {
        const size_t m = 257, n = 300, k = 511;
        T *r1 = (T *)malloc(sizeof(T) * m * n), *r2 = (T *)malloc(sizeof(T) * m * n);
        uint64_t s1 = gp_t_state(77), s2 = s1;
        if (run_case<T>(m, n, k, 0, 0, &s1, r1) && run_case<T>(m, n, k, 0, 0, &s2, r2))
            EXPECT(memcmp(r1, r2, sizeof(T) * m * n) == 0, "%s: the same input gives bitwise the same output",
                   tr::name());
        free(r1);
        free(r2);
    }
    {   /* gp_matmul runs the config gp__matmul_choose names, split as it says: for f64, a
         * tensor-core one where the code was built for sm_80 and later; for f32 at
         * 2000 x 2040 on an H100, the one-wave config (256 tiles of 128 x 128 on 132 SMs x 2),
         * and at 300 x 320 x 2048 (9 tiles of 128 x 128) k split where clusters run */
        static const size_t chosen_shapes[][3] = {{300, 520, 200}, {2000, 2040, 40}, {300, 320, 2048}, {192, 200, 4096}};
        for (int c = 0; c < 4; c++) {
            const size_t m = chosen_shapes[c][0], n = chosen_shapes[c][1], k = chosen_shapes[c][2];
            if (gp_t_small() && m * n > 300 * 600) continue; /* sanitizer run */
            /* rows of 520, 2040 and 320 elements from cudaMalloc: 16-byte aligned */
            unsigned slices = 1;
            const int cfg = tr::choose(m, n, k, &gpu, (built ? GP__MM_NEED_TC : 0) | GP__MM_NEED_B16, &slices);
            T *r1 = (T *)malloc(sizeof(T) * m * n), *r2 = (T *)malloc(sizeof(T) * m * n);
            uint64_t s1 = gp_t_state(78), s2 = s1;
            if (run_case<T>(m, n, k, 0, 0, &s1, r1) && run_case<T>(m, n, k, 0, 0, &s2, r2, cfg, slices))
                EXPECT(memcmp(r1, r2, sizeof(T) * m * n) == 0,
                       "%s %zux%zux%zu: gp_matmul ran config %dx%d%s%s, k in %u%s, bit for bit", tr::name(), m, n, k,
                       tr::bm(cfg), tr::bn(cfg), tr::tc(cfg) ? " (DMMA)" : "", tr::one_wave(cfg) ? " (one wave)" : "",
                       slices & ~GP__MM_WORKSPACE, slices & GP__MM_WORKSPACE ? " through a workspace" : "");
            if (c == 2 && sizeof(T) == 4 && gpu.cluster_ok)
                EXPECT(slices > 1, "%s 300x320x2048: k split where clusters run (got %u slices)", tr::name(), slices);
            if (c == 3 && (built || sizeof(T) == 4))
                EXPECT(slices & GP__MM_WORKSPACE, "%s 192x200x4096: k split through a workspace (got %#x)", tr::name(),
                       slices);
            free(r1);
            free(r2);
        }
    }
    if (!gp_t_small() && sizeof(T) == 8) { /* the scratch pool keeps up to its threshold; gp_release_device_state gives it back */
        const size_t m = 2048, bytes = m * m * sizeof(T);
        char *buf;
        CUDA_CHK(cudaMalloc(&buf, 3 * bytes + 16));
        CUDA_CHK(cudaMemset(buf, 0, 3 * bytes + 16));
        /* 4 bytes off the doubles' alignment: staged through aligned copies of A, B and C (96 MB) */
        T *a = (T *)(buf + 4), *b = (T *)(buf + 4 + bytes), *c = (T *)(buf + 4 + 2 * bytes);
        int dev = 0;
        cudaMemPool_t pool = NULL;
        uint64_t held = 0, peak = 0, keep = 0, after = 1;
        CUDA_CHK(cudaGetDevice(&dev));
        const cudaError_t err = tr::call(c, a, b, m, m, m, 0);
        CUDA_CHK(cudaDeviceSynchronize());
        CUDA_CHK(gp__scratch_pool(dev, &pool));
        CUDA_CHK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &held));
        CUDA_CHK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &peak));
        CUDA_CHK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        const cudaError_t rel = gp_release_device_state(dev);
        CUDA_CHK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &after));
        EXPECT(err == cudaSuccess && peak >= 3 * bytes && held <= keep && rel == cudaSuccess && after == 0,
               "%s 2048^3 at 4 bytes off alignment: %s; the scratch pool held %.1f MB at its peak, %.1f MB after a "
               "synchronisation (at most %.0f kept), %.1f MB after gp_release_device_state (%s)", tr::name(),
               cudaGetErrorName(err), peak / 1e6, held / 1e6, keep / 1e6, after / 1e6, cudaGetErrorName(rel));
        CUDA_CHK(cudaFree(buf));
    }
    T *d;
    const size_t cnt = 4096;
    CUDA_CHK(cudaMalloc(&d, sizeof(T) * cnt));
    CUDA_CHK(cudaMemset(d, POISON, sizeof(T) * cnt));
    T *a = d, *b = d + 1024, *c = d + 2048;
    EXPECT(tr::call(NULL, a, b, 4, 4, 4, 0) == cudaErrorInvalidValue, "%s: NULL C", tr::name());
    EXPECT(tr::call(c, NULL, b, 4, 4, 4, 0) == cudaErrorInvalidValue, "%s: NULL A with k > 0", tr::name());
    EXPECT(tr::call(c, a, NULL, 4, 4, 4, 0) == cudaErrorInvalidValue, "%s: NULL B with k > 0", tr::name());
    EXPECT(tr::call(a, a, b, 4, 4, 4, 0) == cudaErrorInvalidValue, "%s: C == A", tr::name());
    EXPECT(tr::call(b + 3, a, b, 4, 4, 4, 0) == cudaErrorInvalidValue, "%s: C overlaps B", tr::name());
    EXPECT(tr::call(c, a, b, (size_t)1 << 40, (size_t)1 << 40, 4, 0) == cudaErrorInvalidValue,
           "%s: a shape whose sizes overflow", tr::name());
    EXPECT(tr::call(c, a, b, 0, 4, 4, 0) == cudaSuccess && tr::call(c, a, b, 4, 0, 4, 0) == cudaSuccess &&
               tr::call(NULL, NULL, NULL, 0, 0, 5, 0) == cudaSuccess,
           "%s: m == 0 or n == 0 is a no-op", tr::name());
    CUDA_CHK(cudaDeviceSynchronize());
    unsigned char *h = (unsigned char *)malloc(sizeof(T) * cnt);
    CUDA_CHK(cudaMemcpy(h, d, sizeof(T) * cnt, cudaMemcpyDeviceToHost));
    size_t touched = 0;
    for (size_t i = 0; i < sizeof(T) * cnt; i++) touched += h[i] != POISON;
    EXPECT(touched == 0, "%s: refused and empty calls write nothing (%zu bytes written)", tr::name(), touched);
    /* k == 0: C = 0, A and B may be NULL (they have no elements) */
    EXPECT(tr::call(c, NULL, NULL, 5, 7, 0, 0) == cudaSuccess, "%s: k == 0 with NULL A and B", tr::name());
    CUDA_CHK(cudaMemcpy(h, c, sizeof(T) * 35, cudaMemcpyDeviceToHost));
    int zeros = 1;
    for (int i = 0; i < 35; i++) zeros &= ((const T *)h)[i] == T(0);
    EXPECT(zeros, "%s: k == 0 gives zeros", tr::name());
    EXPECT(cudaGetLastError() == cudaSuccess, "%s: no error left behind", tr::name());
    free(h);
    CUDA_CHK(cudaFree(d));
}

/* The __CUDA_ARCH__ this test's device code was compiled with, for the current device. */
__global__ void arch_of_code(int *out)
{
#ifdef __CUDA_ARCH__
    *out = __CUDA_ARCH__;
#endif
}

extern "C" void test_matmul_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("matmul: GPU tests (no GPU)");
        return;
    }
    gp_t_section("matmul: where the tensor-core kernel runs");
    {
        int *d_arch, arch = 0, built = -1;
        CUDA_CHK(cudaMalloc(&d_arch, sizeof(int)));
        arch_of_code<<<1, 1>>>(d_arch);
        CUDA_CHK(cudaMemcpy(&arch, d_arch, sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaFree(d_arch));
        CUDA_CHK(gp__mm_tc_built(&built));
        EXPECT(built == (arch >= 800), "gp__mm_tc_built says %d for code compiled for sm_%d", built, arch / 10);
    }
    uint64_t st = gp_t_state(0x6d6d);
    test_type<float>(&st);
    test_type<double>(&st);
}
