/* tests/scan/test_scan.cu -- gp_{exclusive,inclusive}_scan_<name> for every default instance,
 * and the arithmetic under it.
 * Host: the Blelloch padding against a 32-bank model (every tree level, both sweeps, the
 * loads), the GPU Gems 3 precedence bug, the scan plan and scratch layout.
 * GPU: every instance against a host reference at the edge sizes, exclusive and inclusive,
 * in place and out of place, aligned and offset, poisoned outputs (and guard elements on
 * both sides), bad input, determinism, concurrent streams, and a count above 2^31 with
 * inputs made on the device and checked there against a closed form; the same scans from
 * a carry-in on the device (gp_*_scan_init_<name>). */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../scan_wrap.h"

#include <float.h>
#include <limits>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

/* ---- host: Blelloch padding against a 32-bank model --------------------------------------- */

/* The GPU Gems 3 (ch. 39) macro, exactly as printed, with its NUM_BANKS of 16 (G80). */
#define GEMS_NUM_BANKS 16
#define GEMS_LOG_NUM_BANKS 4
#define GEMS_CONFLICT_FREE_OFFSET(n) ((n) >> GEMS_NUM_BANKS + (n) >> (2 * GEMS_LOG_NUM_BANKS))

typedef unsigned (*pad_fn)(unsigned i);
static unsigned pad_none(unsigned i) { return i; }
static unsigned pad_one_term(unsigned i) { return i + (i >> 5); } /* the simple variant */
static unsigned pad_gp(unsigned i) { return gp_blelloch_index(i); }

/* Conflicts of one warp-wide access: lanes' word addresses idx[0..count); distinct
 * addresses in one bank (of 32, 4-byte words) conflict, equal addresses broadcast.
 * Returns the worst number of distinct addresses in one bank (1 = conflict-free). */
static int bank_ways(const unsigned *idx, int count)
{
    int worst = count > 0;
    for (int a = 0; a < count; a++) {
        int ways = 1;
        for (int b = 0; b < a; b++) {
            if (idx[b] % 32 != idx[a] % 32 || idx[b] == idx[a]) continue;
            int seen = 0; /* count each distinct address once */
            for (int c = 0; c < b; c++) seen |= idx[c] == idx[b];
            if (!seen) ways++;
        }
        if (ways > worst) worst = ways;
    }
    return worst;
}

/* The worst bank conflict of a padded Blelloch scan of n elements with n/2 threads: the
 * two loads (t and t + n/2), and the ai and bi accesses of every level of both sweeps. */
static int blelloch_worst_ways(unsigned n, pad_fn pad, int *worst_level)
{
    int worst = 1;
    *worst_level = -1;
    unsigned idx[32];
    const unsigned threads = n / 2;
    for (unsigned w = 0; w * 32 < threads; w++) /* loads: element t, then t + n/2 */
        for (unsigned half = 0; half < 2; half++) {
            int cnt = 0;
            for (unsigned t = w * 32; t < w * 32 + 32 && t < threads; t++) idx[cnt++] = pad(t + half * threads);
            const int ways = bank_ways(idx, cnt);
            if (ways > worst) { worst = ways; *worst_level = 99; }
        }
    for (int sweep = 0; sweep < 2; sweep++) /* up-sweep, then down-sweep: the same index sets */
        for (unsigned offset = 1, d = n / 2; d > 0; offset <<= 1, d >>= 1)
            for (unsigned w = 0; w * 32 < d; w++)
                for (int which = 0; which < 2; which++) {
                    int cnt = 0;
                    for (unsigned t = w * 32; t < w * 32 + 32 && t < d; t++)
                        idx[cnt++] = pad(offset * (2 * t + 1 + which) - 1);
                    const int ways = bank_ways(idx, cnt);
                    if (ways > worst) { worst = ways; *worst_level = (int)offset; }
                }
    return worst;
}

static void check_blelloch_padding(void)
{
    gp_t_section("scan: Blelloch padding against a 32-bank model (host)");
    int level;
    for (unsigned n = 2; n <= 2048; n <<= 1) {
        const int ways = blelloch_worst_ways(n, pad_gp, &level);
        EXPECT(ways == 1, "gp_blelloch_index, n=%u: %d-way bank conflict at level offset %d", n, ways, level);
        EXPECT(gp_blelloch_smem_elems(n) == gp_blelloch_index(n - 1) + 1 && gp_blelloch_smem_elems(n) >= n,
               "smem elems for n=%u", n);
    }
    /* the model can fail: no padding conflicts (16-way at n = 2048), and the one-term
     * padding still has 2-way conflicts once 32 threads stride by 64 words */
    const int none = blelloch_worst_ways(2048, pad_none, &level);
    EXPECT(none >= 16, "model: unpadded n=2048 has %d-way conflicts (want >= 16)", none);
    const int one = blelloch_worst_ways(2048, pad_one_term, &level);
    EXPECT(one == 2 && level == 32, "model: i + i/32 has 2-way conflicts at offset 32 (got %d at %d)", one, level);
    /* the Gems 3 macro adds nothing: (n >> (16 + n)) >> 8 (64-bit n keeps the shift defined) */
    int zero = 1;
    for (uint64_t n = 0; n < 48; n++) zero &= GEMS_CONFLICT_FREE_OFFSET(n) == 0;
    EXPECT(zero, "GPU Gems 3 CONFLICT_FREE_OFFSET is 0 for n < 48 (operator precedence)");
    EXPECT(gp__blelloch_pad(1023) == 31 && gp__blelloch_pad(1024) == 33 && gp__blelloch_pad(2047) == 64,
           "gp__blelloch_pad: i/32 + i/1024");
}

/* ---- host: plan and scratch layout --------------------------------------------------------- */

/* cluster: 0 none, 1 clusters of up to 8, 2 of up to 16 */
static void check_plan(uintptr_t in, uintptr_t out, size_t n, size_t elem, int cluster)
{
    const int cluster_ok = cluster > 0;
    const size_t cluster_max = cluster == 2 ? 16 : GP__CLUSTER_MAX;
    const gp__scan_plan p = gp__scan_make_plan(in, out, n, elem, cluster_ok, GP__SCAN_ONE_BLOCK_WARPS,
                                               GP__SCAN_CLUSTER_MIN_WARPS, cluster_max);
    const size_t vec = gp__scan_vec(elem), big = (size_t)GP__SCAN_BLOCK_BIG * gp__scan_items(elem);
    int ok = p.tile == (size_t)p.block * gp__scan_items(elem) && p.tiles * p.tile >= n + p.pad &&
             (p.tiles - 1) * p.tile < n + p.pad && p.pad < vec && gp__scan_items(elem) * elem >= GP__SCAN_THREAD_BYTES / 2;
    if (p.in_vec) ok = ok && vec * elem == 16 && (in - p.pad * elem) % 16 == 0;
    else ok = ok && p.pad == 0 && !p.vec_ok;
    if (p.vec_ok) ok = ok && p.in_vec && in % 16 == out % 16;
    else ok = ok && (!p.in_vec || in % 16 != out % 16);
    const size_t per_warp = 32 * (size_t)gp__scan_items(elem), warps = (n + p.pad + per_warp - 1) / per_warp;
    if (p.mode == GP__ONE_BLOCK)
        ok = ok && p.tiles == 1 && p.block == warps * 32 && (warps <= GP__SCAN_ONE_BLOCK_WARPS || !cluster_ok) &&
             p.block <= GP__SCAN_BLOCK_BIG;
    if (p.mode == GP__CLUSTER) /* spread: blocks as small as 8 of them allow, but not below min warps */
        ok = ok && cluster_ok && p.tiles > 1 && p.tiles <= cluster_max && p.block <= GP__SCAN_BLOCK_BIG &&
             warps > GP__SCAN_ONE_BLOCK_WARPS &&
             p.block / 32 <= gp__max_size(GP__SCAN_CLUSTER_MIN_WARPS, (warps + cluster_max - 1) / cluster_max);
    if (p.mode == GP__GRID)
        ok = ok && p.block == GP__SCAN_BLOCK && n + p.pad > big && (!cluster_ok || n + p.pad > cluster_max * big);
    /* scratch: the counter, then one 64-bit status word per 32 bits of each tile's total */
    ok = ok && gp__scan_status_offset() >= 8 && gp__scan_status_offset() % 8 == 0 &&
         gp__scan_scratch_bytes(p.tiles, elem) == gp__scan_status_offset() + p.tiles * 8 * ((elem + 3) / 4) &&
         gp__scan_words(elem) * 4 >= elem && gp__scan_words(elem) * 4 < elem + 4;
    EXPECT(ok, "scan plan(in%%16=%zu out%%16=%zu n=%zu elem=%zu cluster=%d): pad %zu tile %zu tiles %zu vec_ok %d mode %d",
           (size_t)(in % 16), (size_t)(out % 16), n, elem, cluster, p.pad, p.tile, p.tiles, p.vec_ok, p.mode);
}

extern "C" void test_scan_host(void)
{
    check_blelloch_padding();
    gp_t_section("scan: plan and scratch layout (host)");
    const size_t ns[] = {1, 2, 3, 31, 32, 33, 1023, 1025, 8191, 8192, 8193, 65536, 65537, 1048573, (1u << 24) + 7,
                         ((size_t)1 << 31) + 1001, ((size_t)1 << 34) + 3};
    const size_t elems[] = {1, 2, 4, 8, 12, 16, 32};
    for (size_t e = 0; e < sizeof elems / sizeof *elems; e++)
        for (size_t a = 0; a < 16; a += elems[e] < 16 ? elems[e] : 4)
            for (size_t b = 0; b < 16; b += elems[e] < 16 ? elems[e] : 4)
                for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
                    for (int c = 0; c < 3; c++) check_plan(0x1000 + a, 0x9000 + b, ns[k], elems[e], c);
    gp__scan_plan p = gp__scan_make_plan(0x1000, 0x2000, 1u << 16, 4, 1);
    EXPECT(p.mode == GP__CLUSTER && p.tiles == GP__CLUSTER_MAX && p.block == 512 && p.vec_ok,
           "2^16 floats: one cluster of 8 blocks of 512 (mode %d, %zu tiles of %u)", p.mode, p.tiles, p.block);
    p = gp__scan_make_plan(0x1000, 0x2000, 1u << 16, 4, 1, 32, 32);
    EXPECT(p.mode == GP__CLUSTER && p.tiles == 4 && p.block == 1024,
           "2^16 floats, full blocks (the ladder's earlier steps): a cluster of 4 (mode %d, %zu tiles)", p.mode, p.tiles);
    p = gp__scan_make_plan(0x1000, 0x2000, 1u << 17, 4, 1);
    EXPECT(p.mode == GP__CLUSTER && p.tiles == GP__CLUSTER_MAX && p.block == GP__SCAN_BLOCK_BIG, "2^17 floats: 8 full blocks");
    /* where the device takes clusters of 16 */
    p = gp__scan_make_plan(0x1000, 0x2000, 1u << 16, 4, 1, GP__SCAN_ONE_BLOCK_WARPS, GP__SCAN_CLUSTER_MIN_WARPS, 16);
    EXPECT(p.mode == GP__CLUSTER && p.tiles == 16 && p.block == 256, "2^16 floats, clusters of 16: 16 blocks of 256");
    p = gp__scan_make_plan(0x1000, 0x2000, 1u << 18, 4, 1, GP__SCAN_ONE_BLOCK_WARPS, GP__SCAN_CLUSTER_MIN_WARPS, 16);
    EXPECT(p.mode == GP__CLUSTER && p.tiles == 16 && p.block == 1024, "2^18 floats, clusters of 16: 16 full blocks");
    p = gp__scan_make_plan(0x1000, 0x2000, (1u << 18) + 1, 4, 1, GP__SCAN_ONE_BLOCK_WARPS, GP__SCAN_CLUSTER_MIN_WARPS, 16);
    EXPECT(p.mode == GP__GRID, "2^18 + 1 floats, clusters of 16: the grid");
    p = gp__scan_make_plan(0x1000, 0x2000, 1u << 16, 4, 0);
    EXPECT(p.mode == GP__GRID && p.tiles == 16, "2^16 floats without clusters: 16 grid tiles");
    p = gp__scan_make_plan(0x1000, 0x2000, 16384, 4, 0);
    EXPECT(p.mode == GP__ONE_BLOCK && p.block == 1024, "16384 floats without clusters: one block");
    p = gp__scan_make_plan(0x1000, 0x2000, 4096, 4, 1);
    EXPECT(p.mode == GP__ONE_BLOCK && p.block == 256, "4096 floats: one block of 8 warps");
    p = gp__scan_make_plan(0x1004, 0x2004, 100, 4, 1);
    EXPECT(p.vec_ok && p.pad == 1, "equally offset pointers: vectors, pad 1");
    p = gp__scan_make_plan(0x1004, 0x2000, 100, 4, 1);
    EXPECT(p.in_vec && !p.vec_ok && p.pad == 1, "differently offset pointers: vector loads, element stores");
    p = gp__scan_make_plan(0x1004, 0x2000, 100, 8, 1);
    EXPECT(!p.in_vec && !p.vec_ok && p.pad == 0, "8-byte elements at a 4-byte boundary: element by element");
    p = gp__scan_make_plan(0x1000, 0x2000, (size_t)1 << 28, 4, 1);
    EXPECT(p.mode == GP__GRID && p.tiles == ((size_t)1 << 28) / (GP__SCAN_BLOCK * 16), "2^28 floats: 2^16 tiles");
}

/* ---- GPU: the default instances ------------------------------------------------------------ */

typedef cudaError_t (*scan_fn)(void *d_out, const void *d_in, size_t n, cudaStream_t s);
typedef cudaError_t (*scan_init_fn)(void *d_out, const void *d_in, size_t n, const void *d_init, cudaStream_t s);
typedef struct instance instance;
/* init: the carry-in (host copy), or NULL for the identity */
typedef int (*check_fn)(const instance *in, const void *x, const void *got, size_t n, int inclusive, int exact,
                        const void *init);
struct instance {
    const char *name;
    size_t elem;
    char op;   /* 's' sum, 'n' min, 'x' max */
    char kind; /* 'i' signed, 'u' unsigned, 'f' floating */
    scan_fn ex, in;
    scan_init_fn exi, ini;
    check_fn check;
};

template <class T> static T ref_apply(char op, T a, T b)
{
    if (op == 's') {
        if constexpr (std::is_integral<T>::value) {
            typedef typename std::make_unsigned<T>::type U;
            return (T)(U)((U)a + (U)b); /* wraps, as on the GPU */
        } else {
            return a + b;
        }
    }
    if (op == 'n') return b < a ? b : a;
    return a < b ? b : a;
}
template <class T> static T ref_identity(char op)
{
    if (op == 's') return (T)0;
    if constexpr (std::is_integral<T>::value) return op == 'n' ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    else return op == 'n' ? (T)INFINITY : (T)-INFINITY;
}

/* How many operations deep an output can sit in the GPU's combining tree, for a float
 * sum tolerance: the thread's items, the warp scan, the warps, the look-ahead's batch
 * butterflies, one per batch before it (the running prefix is a left fold of batches),
 * and a few combines of the prefixes. */
static double scan_depth(size_t n, size_t elem)
{
    const double tiles = (double)n / ((double)GP__SCAN_BLOCK * gp__scan_items(elem)) + 1;
    return gp__scan_items(elem) + 5 + GP__SCAN_WARPS + 5 + 5 + tiles / GP__SCAN_BATCH + 8;
}

/* Compares got[0..n) with the sequential scan of x. Integers and min/max: exact bytes.
 * Float sums: exact when the inputs make every partial sum exact, else within
 * depth * eps * (sum of |x| so far) + eps * |prefix|, with the reference in long double. */
template <class T>
static int check_scan(const instance *in, const void *xv, const void *gv, size_t n, int inclusive, int exact,
                      const void *init)
{
    const T *x = (const T *)xv, *got = (const T *)gv;
    const char op = in->op;
    T acc = ref_identity<T>(op);
    if (init) memcpy(&acc, init, sizeof(T));
    long double facc = init ? (long double)acc : 0, fabs_acc = init ? fabsl((long double)acc) : 0;
    const double eps = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON, depth = scan_depth(n, sizeof(T));
    for (size_t i = 0; i < n; i++) {
        if (inclusive) { acc = ref_apply<T>(op, acc, x[i]); facc += x[i]; fabs_acc += fabsl((long double)x[i]); }
        int ok;
        if (std::is_floating_point<T>::value && op == 's' && !exact) {
            const long double g = got[i];
            ok = fabsl(g - facc) <= depth * eps * fabs_acc + eps * fabsl(facc);
        } else {
            ok = memcmp(&got[i], &acc, sizeof(T)) == 0;
        }
        if (!ok) {
            EXPECT(0, "%s %s%s n=%zu: element %zu differs (got %.17g, want %.17g)", in->name,
                   inclusive ? "inclusive" : "exclusive", init ? " from a carry-in" : "", n, i, (double)got[i],
                   (double)(std::is_floating_point<T>::value && op == 's' ? (T)facc : acc));
            return 0;
        }
        if (!inclusive) { acc = ref_apply<T>(op, acc, x[i]); facc += x[i]; fabs_acc += fabsl((long double)x[i]); }
    }
    return 1;
}

#define TEST_WRAPPER(name, T, op, kind, OP, ID) SCAN_WRAPPERS(name, T)
GP__OP_INSTANCES(TEST_WRAPPER)
/* The list's op and kind columns, as the codes used below. */
#define TEST_OP(op) (GP_T_STREQ(op, "sum") ? 's' : GP_T_STREQ(op, "min") ? 'n' : GP_T_STREQ(op, "max") ? 'x' : '?')
#define TEST_KIND(kind) (GP_T_STREQ(kind, "int") ? 'i' : GP_T_STREQ(kind, "uint") ? 'u' : GP_T_STREQ(kind, "float") ? 'f' : '?')
#define TEST_ROW(name, T, op, kind, OP, ID) \
    {#name, sizeof(T), TEST_OP(#op), TEST_KIND(#kind), ex_##name, in_##name, exi_##name, ini_##name, check_scan<T>},
static const instance instances[] = {GP__OP_INSTANCES(TEST_ROW)};
#define N_INSTANCES (sizeof instances / sizeof *instances)

/* Inputs. Integers: full-range bits. Floats: 'exact' inputs are small integers (-1, 0, 1
 * for sums: every prefix stays an integer far below 2^24, so exact in f32) or any value
 * (min/max); otherwise uniform in [0, 1). */
static void fill(const instance *in, void *x, size_t n, uint64_t *st, int exact)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        if (in->kind != 'f') {
            memcpy((char *)x + i * in->elem, &r, in->elem);
            continue;
        }
        double v;
        if (in->op != 's') v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 2e6;
        else if (exact) v = (double)(int)(r % 3) - 1.0;
        else v = (double)(r >> 11) / 9007199254740992.0;
        if (in->elem == 4) { const float f = (float)v; memcpy((char *)x + i * 4, &f, 4); }
        else memcpy((char *)x + i * 8, &v, 8);
    }
}

static const unsigned char POISON = 0xA7;
enum { GUARD = 16 }; /* poisoned elements on each side of every output */

typedef struct {
    unsigned char *d_in, *d_out; /* GUARD + max_n + GUARD + 1 elements of 8 bytes each */
    unsigned char *d_init;       /* one element: the carry-in */
    unsigned char *h_x, *h_got;
} fixture;

static int guards_intact(const unsigned char *g, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != POISON) return 0;
    return 1;
}

/* One call, checked. in_off/out_off: element offsets from the guard; in place when
 * in_place (the input is copied to the output buffer, which is also the input). h_init:
 * the carry-in (the _init scans), or NULL (the plain ones). */
static int run_case(fixture *f, const instance *in, size_t n, int inclusive, int in_place, size_t in_off,
                    size_t out_off, int exact, const void *h_init = NULL)
{
    const size_t e = in->elem, span = (2 * GUARD + n + 1) * e;
    unsigned char *d_out = f->d_out + (GUARD + out_off) * e;
    const unsigned char *d_in = in_place ? d_out : f->d_in + (GUARD + in_off) * e;
    CUDA_CHK(cudaMemset(f->d_out, POISON, span));
    CUDA_CHK(cudaMemcpy(in_place ? d_out : (unsigned char *)d_in, f->h_x, n * e, cudaMemcpyHostToDevice));
    cudaError_t err;
    if (h_init) {
        CUDA_CHK(cudaMemcpy(f->d_init, h_init, e, cudaMemcpyHostToDevice));
        err = (inclusive ? in->ini : in->exi)(d_out, d_in, n, f->d_init, 0);
    } else {
        err = (inclusive ? in->in : in->ex)(d_out, d_in, n, 0);
    }
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(f->h_got, f->d_out, span, cudaMemcpyDeviceToHost));
    const char *how = in_place ? (h_init ? "in place, carry-in" : "in place") : (h_init ? "out of place, carry-in" : "out of place");
    if (err != cudaSuccess) {
        EXPECT(0, "%s n=%zu %s: returned %s", in->name, n, how, cudaGetErrorName(err));
        return 0;
    }
    const unsigned char *got = f->h_got + (GUARD + out_off) * e;
    const int guards = guards_intact(f->h_got, (GUARD + out_off) * e) &&
                       guards_intact(got + n * e, span - (GUARD + out_off + n) * e);
    EXPECT(guards, "%s n=%zu %s offsets %zu/%zu: wrote outside [0, n)", in->name, n, how, in_off, out_off);
    if (n == 0) return guards;
    const int ok = in->check(in, f->h_x, got, n, inclusive, exact, h_init);
    if (!ok) fprintf(stderr, "  (%s, %s, offsets in %zu out %zu)\n", how, inclusive ? "inclusive" : "exclusive", in_off, out_off);
    return ok && guards;
}

/* Every instance at the edge sizes, exclusive and inclusive, in every placement. carry:
 * the _init scans from a random carry-in (a fresh one per size), else the plain ones. */
static void check_instances(fixture *f, size_t max_n, int carry)
{
    /* 4097, 16385, 131072, 262144: clusters of 3 blocks, then 8 or 16, of floats (the small plan) */
    const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 4097, 16385, 65536, 65537, 131072, 262144, 300007, 1048573,
                            (1u << 24) + 7};
    /* (in offset, out offset, in place): aligned; both one element in (vectors, pad 1);
     * in one element off out (element by element); in place at offset 1 */
    const size_t placements[][3] = {{0, 0, 0}, {1, 1, 0}, {1, 0, 0}, {0, 0, 1}, {1, 1, 1}};
    uint64_t st = gp_t_state(carry ? 24 : 21);
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const instance *in = &instances[k];
        int fails = 0, cases = 0;
        for (int exact = 0; exact <= (in->kind == 'f' && in->op == 's'); exact++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                const size_t n = sizes[s];
                if (n > max_n) continue;
                /* racecheck: the cluster plan (n above 4097) and the grid kernels (above 65537)
                 * once for each element size, by the float sums; the other instances differ
                 * from them only in the operator and type, in registers */
                if (gp_t_small() >= 2 && n > 4097 && (in->op != 's' || in->kind != 'f' || exact)) continue;
                unsigned char init[8];
                fill(in, init, 1, &st, exact);
                fill(in, f->h_x, n, &st, exact);
                for (int inclusive = 0; inclusive <= 1; inclusive++)
                    for (size_t pl = 0; pl < 5; pl++) {
                        if (gp_t_small() >= 2 && pl != 0 && pl != 2) continue; /* racecheck: vectors, elements */
                        /* the largest size of the run (2^24+7, or 300007 under GP_TEST_SMALL): two cases */
                        if (n > (gp_t_small() ? 65537u : 1048573u) && pl != (size_t)(inclusive ? 4 : 0)) continue;
                        fails += !run_case(f, in, n, inclusive, (int)placements[pl][2], placements[pl][0],
                                           placements[pl][1], exact, carry ? init : NULL);
                        cases++;
                    }
            }
        printf("  %-8s %s%d cases, %d failed\n", in->name, carry ? "from a carry-in: " : "", cases, fails);
    }
}

static void check_bad_input(fixture *f)
{
    float *out = (float *)(f->d_out + GUARD * 4);
    const float *x = (const float *)(f->d_in + GUARD * 4);
    CUDA_CHK(cudaMemset(f->d_out, POISON, 64 * 4));
    EXPECT(gp_exclusive_scan_sum_f32(NULL, x, 5, 0) == cudaErrorInvalidValue, "NULL d_out, n=5");
    EXPECT(gp_inclusive_scan_sum_f32(out, NULL, 5, 0) == cudaErrorInvalidValue, "NULL d_in, n=5");
    EXPECT(gp_exclusive_scan_max_u64(NULL, NULL, (size_t)1 << 40, 0) == cudaErrorInvalidValue, "NULL, huge n");
    EXPECT(gp_inclusive_scan_sum_i32((int32_t *)out, (const int32_t *)out, SIZE_MAX / 2, 0) == cudaErrorInvalidValue,
           "n beyond the address space");
    EXPECT(gp_exclusive_scan_sum_f32(out + 1, out, 20, 0) == cudaErrorInvalidValue, "partial overlap (out = in + 1)");
    EXPECT(gp_inclusive_scan_sum_f32(out, out + 3, 20, 0) == cudaErrorInvalidValue, "partial overlap (in = out + 3)");
    EXPECT(gp_exclusive_scan_sum_f32(NULL, NULL, 0, 0) == cudaSuccess, "n = 0 with NULL pointers: a no-op");
    const float *init = (const float *)f->d_init;
    EXPECT(gp_exclusive_scan_init_sum_f32(out, x, 5, NULL, 0) == cudaErrorInvalidValue, "carry-in: NULL d_init, n=5");
    EXPECT(gp_inclusive_scan_init_sum_f32(out, x, 5, NULL, 0) == cudaErrorInvalidValue, "carry-in: NULL d_init (inclusive)");
    EXPECT(gp_inclusive_scan_init_sum_f32(out, x, 20, out + 19, 0) == cudaErrorInvalidValue,
           "carry-in: d_init inside the output");
    EXPECT(gp_exclusive_scan_init_sum_f32(out, out, 20, out, 0) == cudaErrorInvalidValue,
           "carry-in: d_init inside the output (in place)");
    EXPECT(gp_exclusive_scan_init_sum_f32(NULL, x, 5, init, 0) == cudaErrorInvalidValue, "carry-in: NULL d_out");
    EXPECT(gp_exclusive_scan_init_sum_f32(out + 1, out, 20, init, 0) == cudaErrorInvalidValue,
           "carry-in: partial overlap");
    EXPECT(gp_inclusive_scan_init_max_u64(NULL, NULL, (size_t)1 << 40, (const uint64_t *)init, 0) == cudaErrorInvalidValue,
           "carry-in: NULL pointers, huge n");
    EXPECT(gp_exclusive_scan_init_sum_f32(NULL, NULL, 0, NULL, 0) == cudaSuccess, "carry-in: n = 0, all NULL: a no-op");
    EXPECT(cudaGetLastError() == cudaSuccess, "bad input leaves no launch error behind");
    CUDA_CHK(cudaDeviceSynchronize());
    unsigned char got[64 * 4];
    CUDA_CHK(cudaMemcpy(got, f->d_out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(guards_intact(got, sizeof got), "bad input wrote nothing");
}

/* Same input, same output bit for bit: run after run, and four streams at once. Float
 * sums in [0, 1) round differently under any other association, so a look-back that
 * combined whatever tiles happened to be done would fail this. */
static void check_determinism_and_streams(fixture *f, size_t n)
{
    enum { STREAMS = 4 };
    const instance *in = NULL;
    for (size_t k = 0; k < N_INSTANCES; k++)
        if (strcmp(instances[k].name, "sum_f32") == 0) in = &instances[k];
    uint64_t st = gp_t_state(22);
    fill(in, f->h_x, n, &st, 0);
    float *d_x, *d_outs;
    CUDA_CHK(cudaMalloc(&d_x, n * 4));
    CUDA_CHK(cudaMalloc(&d_outs, STREAMS * n * 4));
    CUDA_CHK(cudaMemcpy(d_x, f->h_x, n * 4, cudaMemcpyHostToDevice));
    float *want = (float *)malloc(n * 4), *got = (float *)malloc(n * 4);
    CUDA_CHK(gp_inclusive_scan_sum_f32(d_outs, d_x, n, 0));
    CUDA_CHK(cudaMemcpy(want, d_outs, n * 4, cudaMemcpyDeviceToHost));
    EXPECT(check_scan<float>(in, f->h_x, want, n, 1, 0, NULL), "sum_f32 n=%zu: the run determinism is checked against", n);
    int same = 1;
    for (int rep = 0; rep < 3; rep++) {
        cudaStream_t streams[STREAMS];
        CUDA_CHK(cudaMemset(d_outs, POISON, STREAMS * n * 4));
        /* cudaMemset is asynchronous and non-blocking streams do not wait for the legacy
         * default stream: without this the poison could land on top of the results. */
        CUDA_CHK(cudaDeviceSynchronize());
        for (int s = 0; s < STREAMS; s++) CUDA_CHK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        for (int s = 0; s < STREAMS; s++) CUDA_CHK(gp_inclusive_scan_sum_f32(d_outs + s * n, d_x, n, streams[s]));
        for (int s = 0; s < STREAMS; s++) CUDA_CHK(cudaStreamSynchronize(streams[s]));
        for (int s = 0; s < STREAMS; s++) {
            CUDA_CHK(cudaMemcpy(got, d_outs + s * n, n * 4, cudaMemcpyDeviceToHost));
            same &= memcmp(got, want, n * 4) == 0;
        }
        for (int s = 0; s < STREAMS; s++) CUDA_CHK(cudaStreamDestroy(streams[s]));
    }
    EXPECT(same, "sum_f32 n=%zu: 3 x 4 concurrent streams, bitwise equal to the first run", n);
    free(want);
    free(got);
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_outs));
}

/* Above 2^31 elements. x[i] = i (as u32), made on the device; the scans have closed forms,
 * inclusive i(i+1)/2 and exclusive i(i-1)/2 mod 2^32, checked on the device. */
__global__ void fill_index(uint32_t *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (uint32_t)i;
}
__global__ void count_wrong(const uint32_t *y, size_t n, int inclusive, unsigned long long *wrong, unsigned long long *first,
                            uint32_t init = 0)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t want = inclusive ? (uint64_t)i * (i + 1) / 2 : (uint64_t)i * (i - (i > 0)) / 2;
        if (y[i] != (uint32_t)want + init) {
            atomicAdd(wrong, 1ull);
            atomicMin(first, (unsigned long long)i);
        }
    }
}

/* init != 0: the _init scan from a carry-in of init (the closed forms plus init). */
static void check_huge_case(uint32_t *y, const uint32_t *x, size_t n, int inclusive, const char *what, uint32_t init = 0)
{
    unsigned long long *d_c, c[2] = {0, ~0ull};
    uint32_t *d_init;
    CUDA_CHK(cudaMalloc(&d_c, sizeof c));
    CUDA_CHK(cudaMalloc(&d_init, sizeof init));
    CUDA_CHK(cudaMemcpy(d_c, c, sizeof c, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(d_init, &init, sizeof init, cudaMemcpyHostToDevice));
    fill_index<<<2048, 256>>>((uint32_t *)x, n);
    CUDA_CHK_LAUNCH();
    if (init) CUDA_CHK(inclusive ? gp_inclusive_scan_init_sum_u32(y, x, n, d_init, 0)
                                 : gp_exclusive_scan_init_sum_u32(y, x, n, d_init, 0));
    else CUDA_CHK(inclusive ? gp_inclusive_scan_sum_u32(y, x, n, 0) : gp_exclusive_scan_sum_u32(y, x, n, 0));
    count_wrong<<<2048, 256>>>(y, n, inclusive, d_c, d_c + 1, init);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT(c[0] == 0, "sum_u32 %s%s n=%zu (%s): %llu wrong, first at %llu", inclusive ? "inclusive" : "exclusive",
           init ? " from a carry-in" : "", n, what, c[0], c[1]);
    CUDA_CHK(cudaFree(d_c));
    CUDA_CHK(cudaFree(d_init));
}

static void check_huge(void)
{
    const size_t n = ((size_t)1 << 31) + 1001;
    uint32_t *a = NULL, *b = NULL;
    if (cudaMalloc(&a, (n + 4) * 4) != cudaSuccess || cudaMalloc(&b, (n + 4) * 4) != cudaSuccess) {
        cudaGetLastError();
        if (a) CUDA_CHK(cudaFree(a));
        gp_t_skip("scan: n = 2^31 + 1001 needs 17 GB of device memory");
        return;
    }
    check_huge_case(a, a, n, 1, "in place, aligned");
    check_huge_case(b + 1, a + 1, n, 0, "out of place, both one element past a 16-byte boundary");
    check_huge_case(b, a, n, 1, "out of place", 0x9E3779B9u);
    check_huge_case(a + 1, a + 1, n, 0, "in place, one element past a 16-byte boundary", 12345u);
    CUDA_CHK(cudaFree(a));
    CUDA_CHK(cudaFree(b));
    printf("  n = 2^31 + 1001: sum_u32 inclusive in place and exclusive offset checked, plain and from a carry-in\n");
}

/* Every knob of the GRID kernel (ring depth, bulk copies or plain loads, blocks per SM,
 * the look-ahead's trees apart or interleaved, the ring filled at once or one stage at a
 * time, one look-ahead warp or two) must give bitwise the same float sums: the
 * association depends on tile indices alone. */
template <class T, class Op>
static void check_knobs(size_t n, cudaError_t (*by_default)(T *, const T *, size_t, cudaStream_t), const char *name)
{
    uint64_t st = gp_t_state(23);
    const size_t bytes = n * sizeof(T);
    T *h = (T *)malloc(bytes), *want = (T *)malloc(bytes), *got = (T *)malloc(bytes);
    for (size_t i = 0; i < n; i++) h[i] = (T)((double)(gp_t_next(&st) >> 11) / 9007199254740992.0);
    T *d_x, *d_y;
    CUDA_CHK(cudaMalloc(&d_x, bytes));
    CUDA_CHK(cudaMalloc(&d_y, bytes));
    CUDA_CHK(cudaMemcpy(d_x, h, bytes, cudaMemcpyHostToDevice));
    CUDA_CHK(by_default(d_y, d_x, n, 0));
    CUDA_CHK(cudaMemcpy(want, d_y, bytes, cudaMemcpyDeviceToHost));
    const gp__scan_knobs knobs[] = {{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                    {8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                    {3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
                                    {3, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, {4, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
                                    {4, 1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0}, {8, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0},
                                    {2, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0}, {4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
                                    {2, 1, 1, 0, 1, 0, 0, 0, 0, -1, 1, 0}, {4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0},
                                    {4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {2, 1, 1, 0, 1, 0, 0, 0, 0, -1, 1, 1}};
    int same = 1;
    for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++) {
        CUDA_CHK(cudaMemset(d_y, POISON, bytes));
        CUDA_CHK(gp__scan<Op>(d_y, d_x, n, 0, 0, (const T *)NULL, &knobs[k]));
        CUDA_CHK(cudaMemcpy(got, d_y, bytes, cudaMemcpyDeviceToHost));
        const int eq = memcmp(got, want, bytes) == 0;
        EXPECT(eq, "%s n=%zu, stages %u bulk %d blocks/SM %d memset %d trees apart %d ramp %d one look-ahead warp %d: "
               "bitwise equal to the default", name, n, knobs[k].stages, knobs[k].bulk, knobs[k].blocks_per_sm,
               knobs[k].memset_clear, knobs[k].trees_apart, knobs[k].ramp, knobs[k].one_ahead);
        same &= eq;
    }
    /* and the default again, after the knobs (they must not disturb what it keeps) */
    CUDA_CHK(cudaMemset(d_y, POISON, bytes));
    CUDA_CHK(by_default(d_y, d_x, n, 0));
    CUDA_CHK(cudaMemcpy(got, d_y, bytes, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(got, want, bytes) == 0, "%s n=%zu: the default after the other configurations", name, n);
    printf("  %s n = %zu: %zu kernel configurations, %s\n", name, n, sizeof knobs / sizeof *knobs,
           same ? "bitwise equal" : "DIFFERENT");
    free(h);
    free(want);
    free(got);
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_y));
}

/* Holds one SM for `ns` nanoseconds of wall time: its shared memory (all a block may
 * have) keeps every other block off that SM meanwhile. */
__global__ void hold_sm(unsigned long long ns)
{
    extern __shared__ unsigned char held[];
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
    if (t == 0) held[threadIdx.x] = 0; /* never: keeps the allocation */
}

/* The persistent grid must rely only on blocks that are running: with long kernels on
 * two other streams holding all SMs but two, the scan must finish with the right result
 * (its blocks that cannot start take no tiles, so no running block waits on them). */
static void check_busy_gpu(void)
{
    int dev, sms, smem;
    CUDA_CHK(cudaGetDevice(&dev));
    CUDA_CHK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CUDA_CHK(cudaFuncSetAttribute(hold_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const size_t n = gp_t_small() ? 300007 : (1u << 22) + 3;
    uint32_t *x, *y;
    unsigned long long *d_c, c[2] = {0, ~0ull};
    CUDA_CHK(cudaMalloc(&x, n * 4));
    CUDA_CHK(cudaMalloc(&y, n * 4));
    CUDA_CHK(cudaMalloc(&d_c, sizeof c));
    CUDA_CHK(cudaMemcpy(d_c, c, sizeof c, cudaMemcpyHostToDevice));
    fill_index<<<2048, 256>>>(x, n);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemset(y, POISON, n * 4));
    CUDA_CHK(cudaDeviceSynchronize());
    cudaStream_t busy[2], mine;
    for (int k = 0; k < 2; k++) CUDA_CHK(cudaStreamCreateWithFlags(&busy[k], cudaStreamNonBlocking));
    CUDA_CHK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
    const int held = sms > 2 ? sms - 2 : 1;
    hold_sm<<<held / 2, 32, smem, busy[0]>>>(200000000ull); /* 0.2 s */
    hold_sm<<<held - held / 2, 32, smem, busy[1]>>>(300000000ull);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(gp_inclusive_scan_sum_u32(y, x, n, mine));
    count_wrong<<<2048, 256, 0, mine>>>(y, n, 1, d_c, d_c + 1);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaStreamSynchronize(mine));
    CUDA_CHK(cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT(c[0] == 0, "sum_u32 inclusive n=%zu beside kernels holding %d of %d SMs: %llu wrong, first at %llu", n, held,
           sms, c[0], c[1]);
    CUDA_CHK(cudaDeviceSynchronize());
    for (int k = 0; k < 2; k++) CUDA_CHK(cudaStreamDestroy(busy[k]));
    CUDA_CHK(cudaStreamDestroy(mine));
    CUDA_CHK(cudaFree(x));
    CUDA_CHK(cudaFree(y));
    CUDA_CHK(cudaFree(d_c));
    printf("  n = %zu beside kernels holding %d of %d SMs: finished, checked\n", n, held, sms);
}

extern "C" void test_scan_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("scan: every default instance on the GPU (18 instances x sizes x exclusive/inclusive x placements)");
        gp_t_skip("scan: every default instance from a carry-in on the device");
        gp_t_skip("scan: bad input, determinism, concurrent streams, kernel configurations");
        gp_t_skip("scan: the persistent grid beside kernels that hold most SMs");
        gp_t_skip("scan: n = 2^31 + 1001");
        return;
    }
    gp_t_section("scan: default instances against the host reference");
    fixture f;
    const size_t max_n = gp_t_small() ? 300007 : (1u << 24) + 7, cap = (2 * GUARD + max_n + 1) * 8;
    CUDA_CHK(cudaMalloc(&f.d_in, cap));
    CUDA_CHK(cudaMalloc(&f.d_out, cap));
    CUDA_CHK(cudaMalloc(&f.d_init, 16));
    f.h_x = (unsigned char *)malloc(cap);
    f.h_got = (unsigned char *)malloc(cap);
    check_instances(&f, max_n, 0);
    gp_t_section("scan: default instances from a carry-in (gp_*_scan_init_<name>)");
    check_instances(&f, max_n, 1);
    gp_t_section("scan: bad input, determinism, concurrent streams");
    check_bad_input(&f);
    check_determinism_and_streams(&f, gp_t_small() ? 65537 : (1u << 22) + 3);
    check_knobs<float, gp__op_sum_f32>(gp_t_small() ? 300007 : (1u << 22) + 3, gp_exclusive_scan_sum_f32, "sum_f32");
    /* doubles: two look-ahead warps by default, one with the knob; 2^21 doubles are about
     * four tiles a block, so that rounds span both warps under the sanitizers too */
    check_knobs<double, gp__op_sum_f64>(gp_t_small() ? (1u << 21) + 3 : (1u << 22) + 3, gp_exclusive_scan_sum_f64,
                                        "sum_f64");
    gp_t_section("scan: the persistent grid beside kernels that hold most SMs");
    check_busy_gpu();
    free(f.h_x);
    free(f.h_got);
    CUDA_CHK(cudaFree(f.d_in));
    CUDA_CHK(cudaFree(f.d_out));
    CUDA_CHK(cudaFree(f.d_init));
    if (gp_t_small()) gp_t_skip("scan: n = 2^31 + 1001 (small sizes)");
    else {
        gp_t_section("scan: a count above 2^31");
        check_huge();
    }
}

/* Every row of the instance list is one the GPU test can read: its op and kind columns
 * name an operator and element kind it knows, and the element is 4 or 8 bytes. A new row
 * (a prod_* or *_f16 instance, say) fails here, in CI, until the test learns it. */
extern "C" void test_scan_host_rows(void)
{
    gp_t_section("scan: the default instance list's columns (host)");
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const instance *in = &instances[k];
        EXPECT(in->op != '?' && in->kind != '?' && (in->elem == 4 || in->elem == 8),
               "%s: op '%c', kind '%c', %zu-byte elements: not a row this test can check", in->name, in->op,
               in->kind, in->elem);
    }
}
