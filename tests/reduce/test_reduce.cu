/* tests/reduce/test_reduce.cu -- gp_reduce_<name> for every default instance.
 * Host: the plan arithmetic (how n splits into head, vectors, tail, warps and blocks).
 * GPU: every instance against a host reference at the edge sizes, aligned and offset by one
 * element, poisoned outputs, bad input, determinism, concurrent streams, and one count
 * above 2^31 with inputs generated on the device. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host: the plan ---------------------------------------------------------------- */

/* cluster: 0 none, 1 clusters of up to 8, 2 of up to 16 */
static void check_plan(uintptr_t addr, uintptr_t addr_b, size_t n, size_t elem, unsigned arity, unsigned sms,
                       int cluster)
{
    const int cluster_ok = cluster > 0;
    const size_t cluster_max = cluster == 2 ? 16 : GP__CLUSTER_MAX;
    const gp__reduce_plan p = gp__reduce_make_plan(addr, addr_b, n, elem, arity, sms, cluster_ok, cluster_max);
    const size_t tile = (size_t)GP__REDUCE_BLOCK * GP__REDUCE_ROWS(arity, elem);
    const size_t covered = (size_t)p.blocks * p.vec_per_block, tiles = (p.nvec + tile - 1) / tile;
    int ok = p.head + p.nvec * p.vec + p.tail == n          /* every element, once */
             && p.tail < p.vec && p.head < (p.vec > 1 ? p.vec : 1) && p.blocks >= 1
             && p.vec_per_block % 32 == 0 && covered >= p.nvec     /* every vector has a block */
             && (p.blocks == 1 || covered - p.vec_per_block < p.nvec) /* no idle block */
             && (p.blocks == 1 || p.vec_per_block < p.nvec / p.blocks + 64) /* runs of equal length */
             && (p.mode == GP__ONE_BLOCK) == (tiles <= 1)              /* one block for one tile */
             && (p.mode != GP__ONE_BLOCK || p.vec_per_block == tile)
             && (!p.aligned16 || p.head == n || (addr + p.head * elem) % 16 == 0)
             && (!p.aligned16 || (addr - addr_b) % 16 == 0) /* two inputs: vectors only in step */
             && (p.aligned16 || p.head == 0);
    if (p.mode == GP__CLUSTER)
        ok = ok && cluster_ok && tiles <= GP__REDUCE_CLUSTER_TILES && p.blocks <= cluster_max && p.blocks > 1;
    if (p.mode == GP__GRID)
        ok = ok && (!cluster_ok || tiles > GP__REDUCE_CLUSTER_TILES) && p.blocks <= sms * GP__REDUCE_BLOCKS_PER_SM;
    if (p.mode == GP__ONE_BLOCK) ok = ok && p.blocks == 1;
    EXPECT(ok, "plan(addr%%16=%zu, b%%16=%zu, n=%zu, elem=%zu, arity=%u, sms=%u, cluster=%d): head %zu nvec %zu "
               "tail %zu vec %u vpb %zu blocks %u mode %d",
           (size_t)(addr % 16), (size_t)(addr_b % 16), n, elem, arity, sms, cluster, p.head, p.nvec, p.tail, p.vec,
           p.vec_per_block, p.blocks, p.mode);
}

/* An element of N bytes (aligned to at most 16), for the vector width's check below. */
template <size_t N>
struct bytes_of {
    unsigned char b[N];
};
/* The kernels count a body vector's elements at compile time (gp__reduce_vec); the plan's
 * run-time vec must be the same number, or the kernels read the wrong elements. */
template <size_t N>
static int vec_agrees(void)
{
    return gp__reduce_make_plan(0x1000, 0x1000, 1000, N, 1, 132, 1).vec == (unsigned)gp__reduce_vec<bytes_of<N>>::N;
}

extern "C" void test_reduce_host(void)
{
    gp_t_section("reduce: plan arithmetic (host)");
    EXPECT(vec_agrees<1>() && vec_agrees<2>() && vec_agrees<4>() && vec_agrees<8>() && vec_agrees<12>() &&
               vec_agrees<16>() && vec_agrees<24>() && vec_agrees<32>(),
           "the plan's elements per vector are the kernels' (1- to 32-byte elements)");
    const size_t ns[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 65536, 65537, 1048573,
                         (1u << 24) + 7, ((size_t)1 << 31) + 1001, (size_t)1 << 33, ((size_t)1 << 34) + 3};
    const size_t elems[] = {1, 2, 4, 8, 12, 16, 32};
    /* one input (b == a), and two inputs at every pair of offsets the type allows */
    for (size_t a = 0; a < 16; a++)
        for (size_t b = 0; b < 16; b++)
            for (size_t e = 0; e < sizeof elems / sizeof *elems; e++)
                for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
                    const size_t align = elems[e] < 16 ? elems[e] : 4; /* the type's own alignment */
                    if ((0x1000 + a) % align || (0x1000 + b) % align) continue;
                    if (b % 4 && b != a && b != (a + 1) % 16) continue; /* a sample of the pairs */
                    for (int c = 0; c < 3; c++) {
                        if (b == a) check_plan(0x1000 + a, 0x1000 + a, ns[k], elems[e], 1, 132, c);
                        check_plan(0x1000 + a, 0x5000 + b, ns[k], elems[e], 2, 132, c);
                    }
                }
    /* the choices the bench relies on, on a 132-SM H100 */
    const size_t tile = (size_t)GP__REDUCE_BLOCK * GP__REDUCE_ROWS(1, 4), tile_bytes = tile * 16;
    gp__reduce_plan p = gp__reduce_make_plan(0x1000, 0x1000, 1u << 16, 4, 1, 132, 1);
    EXPECT(p.mode == GP__CLUSTER && p.blocks == GP__CLUSTER_MAX && p.vec_per_block == (1u << 14) / GP__CLUSTER_MAX &&
               (1u << 18) / tile_bytes < GP__CLUSTER_MAX,
           "2^16 ints: one cluster, spread over all its blocks though it is fewer tiles (got mode %d, %u blocks)",
           p.mode, p.blocks);
    p = gp__reduce_make_plan(0x1000, 0x1000, 1u << 16, 4, 1, 132, 1, 16);
    EXPECT(p.mode == GP__CLUSTER && p.blocks == 16 && p.vec_per_block == (1u << 14) / 16,
           "2^16 ints, clusters of 16: 16 blocks of 4 KB (got mode %d, %u blocks)", p.mode, p.blocks);
    p = gp__reduce_make_plan(0x1000, 0x1000, GP__REDUCE_CLUSTER_TILES * tile_bytes / 4, 4, 1, 132, 1);
    EXPECT(p.mode == GP__CLUSTER && p.blocks == GP__CLUSTER_MAX && p.vec_per_block * GP__CLUSTER_MAX == p.nvec,
           "the largest cluster: %d blocks of equal runs (got mode %d, %u blocks)", GP__CLUSTER_MAX, p.mode,
           p.blocks);
    p = gp__reduce_make_plan(0x1000, 0x1000, GP__REDUCE_CLUSTER_TILES * tile_bytes / 4 + 4, 4, 1, 132, 1);
    EXPECT(p.mode == GP__GRID, "one vector past the largest cluster: a grid (got mode %d)", p.mode);
    p = gp__reduce_make_plan(0x1000, 0x1000, 1u << 16, 4, 1, 132, 0);
    EXPECT(p.mode == GP__GRID, "2^16 ints without clusters: a grid (got mode %d)", p.mode);
    p = gp__reduce_make_plan(0x1000, 0x1000, 1u << 10, 4, 1, 132, 1);
    EXPECT(p.mode == GP__ONE_BLOCK, "2^10 ints: one block");
    p = gp__reduce_make_plan(0x1000, 0x1000, (size_t)1 << 28, 4, 1, 132, 1);
    EXPECT(p.mode == GP__GRID && p.blocks >= 132 * GP__REDUCE_BLOCKS_PER_SM * 99 / 100, "2^28 ints: a full grid (%u)",
           p.blocks);
    p = gp__reduce_make_plan(0x1004, 0x1004, 100, 4, 1, 132, 1);
    EXPECT(p.head == 3 && p.aligned16 && p.nvec == 24 && p.tail == 1, "offset pointer: head 3, 24 vectors, tail 1");
    p = gp__reduce_make_plan(0x1004, 0x1004, 100, 16, 1, 132, 1);
    EXPECT(!p.aligned16 && p.head == 0 && p.vec == 1 && p.nvec == 100, "16-byte type off a 16-byte boundary");
    p = gp__reduce_make_plan(0x1004, 0x2014, 100, 4, 2, 132, 1);
    EXPECT(p.aligned16 && p.head == 3 && p.nvec == 24, "two inputs at the same offset from 16: vectors");
    p = gp__reduce_make_plan(0x1004, 0x2008, 100, 4, 2, 132, 1);
    EXPECT(!p.aligned16 && p.head == 0 && p.nvec == 25 && p.tail == 0, "two inputs out of step: element by element");
    p = gp__reduce_make_plan(0x1000, 0x2000, (size_t)1 << 15, 4, 2, 132, 1);
    EXPECT(p.mode == GP__CLUSTER && p.blocks == GP__CLUSTER_MAX && p.vec_per_block == (1u << 13) / GP__CLUSTER_MAX &&
               GP__REDUCE_BLOCK * GP__REDUCE_ROWS(2, 4) == GP__REDUCE_BLOCK * GP__REDUCE_ROWS(1, 4) / 2,
           "two inputs of 2^15 ints: a tile holds half as many vectors of each (mode %d, %u blocks)", p.mode, p.blocks);
}

/* ---- GPU: the default instances ------------------------------------------------------ */

typedef cudaError_t (*reduce_fn)(void *d_out, const void *d_in, size_t n, cudaStream_t s);
typedef struct {
    const char *name;
    size_t elem;
    char op;   /* 's' sum, 'n' min, 'x' max */
    char kind; /* 'i' signed, 'u' unsigned, 'f' floating */
    reduce_fn fn;
} instance;

#define TEST_WRAPPER(name, T, op, kind, OP, ID)                                            \
    static cudaError_t call_##name(void *o, const void *i, size_t n, cudaStream_t s)      \
    {                                                                                      \
        return gp_reduce_##name((T *)o, (const T *)i, n, s);                               \
    }
GP__OP_INSTANCES(TEST_WRAPPER)
/* The list's op and kind columns, as the codes used below. */
#define TEST_OP(op) (GP_T_STREQ(op, "sum") ? 's' : GP_T_STREQ(op, "min") ? 'n' : GP_T_STREQ(op, "max") ? 'x' : '?')
#define TEST_KIND(kind) (GP_T_STREQ(kind, "int") ? 'i' : GP_T_STREQ(kind, "uint") ? 'u' : GP_T_STREQ(kind, "float") ? 'f' : '?')
#define TEST_ROW(name, T, op, kind, OP, ID) {#name, sizeof(T), TEST_OP(#op), TEST_KIND(#kind), call_##name},
static const instance instances[] = {GP__OP_INSTANCES(TEST_ROW)};
#define N_INSTANCES (sizeof instances / sizeof *instances)

/* Inputs. 'exact' float inputs are quarter-integers in [-64, 64]: every partial sum the
 * GPU forms is exact, so a float sum must match the reference bit for bit. */
static void fill(const instance *in, void *x, size_t n, uint64_t *st, int fractional)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = gp_t_next(st);
        if (in->kind != 'f') {
            memcpy((char *)x + i * in->elem, &r, in->elem); /* full-range bits (little endian) */
        } else {
            double v;
            if (fractional) v = (double)(r >> 11) / 9007199254740992.0;   /* [0, 1) */
            else if (in->op == 's') v = (double)((int64_t)(r % 513) - 256) / 4.0;
            else v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 2e6; /* min/max: any value */
            if (in->elem == 4) { float f = (float)v; memcpy((char *)x + i * 4, &f, 4); }
            else memcpy((char *)x + i * 8, &v, 8);
        }
    }
}

static int64_t get_i(const instance *in, const void *x, size_t i)
{
    if (in->elem == 4) { int32_t v; memcpy(&v, (const char *)x + i * 4, 4); return v; }
    int64_t v; memcpy(&v, (const char *)x + i * 8, 8); return v;
}
static uint64_t get_u(const instance *in, const void *x, size_t i)
{
    if (in->elem == 4) { uint32_t v; memcpy(&v, (const char *)x + i * 4, 4); return v; }
    uint64_t v; memcpy(&v, (const char *)x + i * 8, 8); return v;
}
static long double get_f(const instance *in, const void *x, size_t i)
{
    if (in->elem == 4) { float v; memcpy(&v, (const char *)x + i * 4, 4); return v; }
    double v; memcpy(&v, (const char *)x + i * 8, 8); return v;
}

/* The sequential reference. Integers: the exact bytes (sums wrap, as on the GPU).
 * Floats: min/max exact bytes; sums in long double, with the sum of magnitudes. */
static void reference(const instance *in, const void *x, size_t n, unsigned char *bytes, long double *fsum,
                      long double *fabs_sum)
{
    *fsum = 0;
    *fabs_sum = 0;
    if (in->kind == 'f' && in->op == 's') {
        for (size_t i = 0; i < n; i++) { long double v = get_f(in, x, i); *fsum += v; *fabs_sum += fabsl(v); }
        return;
    }
    if (in->kind == 'f') {
        size_t best = 0;
        for (size_t i = 1; i < n; i++) {
            long double v = get_f(in, x, i), b = get_f(in, x, best);
            if (in->op == 'n' ? v < b : b < v) best = i;
        }
        memcpy(bytes, (const char *)x + best * in->elem, in->elem);
        return;
    }
    uint64_t acc_u = 0;
    int64_t acc_i = 0;
    for (size_t i = 0; i < n; i++) {
        if (in->op == 's') acc_u += get_u(in, x, i);
        else if (in->kind == 'u') {
            uint64_t v = get_u(in, x, i);
            if (i == 0 || (in->op == 'n' ? v < acc_u : acc_u < v)) acc_u = v;
        } else {
            int64_t v = get_i(in, x, i);
            if (i == 0 || (in->op == 'n' ? v < acc_i : acc_i < v)) acc_i = v;
        }
    }
    if (in->op != 's' && in->kind == 'i') acc_u = (uint64_t)acc_i;
    memcpy(bytes, &acc_u, in->elem); /* the low bytes: the wrapped value */
}

/* How many operations deep any element can sit in the GPU's combining tree, from the plan
 * (shared with test_map_reduce.cu):
 * its vector, the warp tree, the unrolled rows, the fold of one group's slots, the warp
 * tree again, the block's run of groups, the combine across blocks, head and tail. */
double gp_t_reduce_tree_depth(const gp__reduce_plan *p, unsigned arity, size_t elem)
{
    const double rows = GP__REDUCE_ROWS(arity, elem), tile = (double)GP__REDUCE_BLOCK * rows;
    return (double)p->head + p->tail + p->vec + 5 + rows + 32 + 5 + (double)p->vec_per_block / (GP__REDUCE_GROUP * tile) +
           1 + (double)p->blocks / GP__REDUCE_BLOCK + 10 + GP__CLUSTER_MAX + 2;
}

typedef struct {
    unsigned char *d_base, *d_out;
    void *h_x;
    int sms, cluster_ok;
    size_t det_n; /* the determinism check's n */
} fixture;

static const unsigned char POISON = 0xA7;

/* One call, checked: returns 1 if the result matched. */
static int run_case(const fixture *f, const instance *in, size_t n, size_t offset, int fractional)
{
    unsigned char *d_in = f->d_base + offset * in->elem;
    unsigned char want[8], got[8];
    long double fsum, fabs_sum;
    reference(in, f->h_x, n, want, &fsum, &fabs_sum);
    CUDA_CHK(cudaMemset(f->d_out, POISON, 16));
    cudaError_t err = in->fn(f->d_out, d_in, n, 0);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, f->d_out, in->elem, cudaMemcpyDeviceToHost));
    if (err != cudaSuccess) {
        EXPECT(0, "%s n=%zu offset=%zu: returned %s", in->name, n, offset, cudaGetErrorName(err));
        return 0;
    }
    if (n == 0) {
        int untouched = 1;
        for (size_t i = 0; i < in->elem; i++) untouched &= got[i] == POISON;
        EXPECT(untouched, "%s n=0: output written", in->name);
        return untouched;
    }
    if (in->kind == 'f' && in->op == 's') {
        long double g = in->elem == 4 ? (long double)*(float *)got : (long double)*(double *)got;
        if (!fractional) {
            const long double w = in->elem == 4 ? (long double)(float)fsum : (long double)(double)fsum;
            EXPECT(g == w, "%s n=%zu offset=%zu exact: got %.17Lg want %.17Lg", in->name, n, offset, g, w);
            return g == w;
        }
        gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)d_in, (uintptr_t)d_in, n, in->elem, 1, f->sms, f->cluster_ok);
        const double eps = in->elem == 4 ? FLT_EPSILON : DBL_EPSILON;
        const long double bound = gp_t_reduce_tree_depth(&p, 1, in->elem) * eps * fabs_sum + eps * fabsl(fsum);
        const int ok = fabsl(g - fsum) <= bound;
        EXPECT(ok, "%s n=%zu offset=%zu: got %.17Lg want %.17Lg (bound %.3Lg)", in->name, n, offset, g, fsum, bound);
        return ok;
    }
    const int ok = memcmp(got, want, in->elem) == 0;
    EXPECT(ok, "%s n=%zu offset=%zu: result differs from the host reference", in->name, n, offset);
    return ok;
}

static void check_instances(fixture *f, size_t max_n)
{
    /* 100003 and 200003: 400 and 800 KB of 4-byte elements, 800 KB and 1.6 MB of 8-byte ones,
     * so each width takes a cluster of blocks with a run of several tiles each (the grouped
     * fold) and the grid, also at the sanitizers' sizes */
    const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 100003, 200003, 1048573, (1u << 24) + 7};
    uint64_t st = gp_t_state(1);
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const instance *in = &instances[k];
        int fails = 0, cases = 0;
        for (int fractional = 0; fractional <= (in->kind == 'f' && in->op == 's'); fractional++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                const size_t n = sizes[s];
                if (n > max_n) continue;
                fill(in, f->h_x, n, &st, fractional);
                for (size_t offset = 0; offset <= 1; offset++) {
                    CUDA_CHK(cudaMemcpy(f->d_base + offset * in->elem, f->h_x, n * in->elem, cudaMemcpyHostToDevice));
                    fails += !run_case(f, in, n, offset, fractional);
                    cases++;
                }
            }
        printf("  %-8s %d cases, %d failed\n", in->name, cases, fails);
    }
}

static void check_bad_input(fixture *f)
{
    unsigned char got[4];
    CUDA_CHK(cudaMemset(f->d_out, POISON, 16));
    float *out = (float *)f->d_out;
    const float *x = (const float *)f->d_base;
    EXPECT(gp_reduce_sum_f32(NULL, x, 5, 0) == cudaErrorInvalidValue, "NULL d_out, n=5");
    EXPECT(gp_reduce_sum_f32(out, NULL, 5, 0) == cudaErrorInvalidValue, "NULL d_in, n=5");
    EXPECT(gp_reduce_max_u64(NULL, NULL, (size_t)1 << 40, 0) == cudaErrorInvalidValue, "NULL, huge n");
    EXPECT(gp_reduce_sum_f32(NULL, NULL, 0, 0) == cudaSuccess, "n = 0 with NULL pointers: a no-op");
    EXPECT(cudaGetLastError() == cudaSuccess, "bad input leaves no launch error behind");
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got, out, 4, cudaMemcpyDeviceToHost));
    EXPECT(got[0] == POISON && got[3] == POISON, "bad input wrote nothing");
}

/* Same input, same result bit for bit; and four streams at once agree with one stream:
 * call k sums its own input, the k-th n floats of the fixture's buffer. */
static void sum_k(void *ctx, int k, void *d_out, cudaStream_t s)
{
    const fixture *f = (const fixture *)ctx;
    CUDA_CHK(gp_reduce_sum_f32((float *)d_out, (const float *)f->d_base + (size_t)k * f->det_n, f->det_n, s));
}

static void check_determinism_and_streams(fixture *f, size_t n)
{
    const instance *in = NULL;
    for (size_t k = 0; k < N_INSTANCES; k++)
        if (strcmp(instances[k].name, "sum_f32") == 0) in = &instances[k];
    uint64_t st = gp_t_state(2);
    for (int k = 0; k < 4; k++) {
        fill(in, f->h_x, n, &st, 1);
        CUDA_CHK(cudaMemcpy(f->d_base + (size_t)k * n * 4, f->h_x, n * 4, cudaMemcpyHostToDevice));
    }
    f->det_n = n;
    char what[64];
    snprintf(what, sizeof what, "sum_f32 n=%zu", n);
    gp_t_check_streams(what, sizeof(float), sum_k, f);
}

/* Above 2^31 elements: inputs from a counter hash on the device, reference on the host. */
__global__ void fill_hash(uint32_t *x, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = hash32(i, key) >> 1; /* non-negative as an int32 */
}

static void check_huge(void)
{
    const size_t n = ((size_t)1 << 31) + 1001;
    uint32_t *d = NULL;
    if (cudaMalloc(&d, (n + 4) * sizeof(uint32_t)) != cudaSuccess) {
        cudaGetLastError();
        gp_t_skip("reduce: n = 2^31 + 1001 needs 8.6 GB of device memory");
        return;
    }
    const uint32_t key = (uint32_t)gp_t_seed;
    fill_hash<<<1024, 256>>>(d, n + 4, key);
    CUDA_CHK_LAUNCH();
    uint32_t *d_out;
    CUDA_CHK(cudaMalloc(&d_out, 16));
    CUDA_CHK(cudaMemset(d_out, POISON, 16));
    /* sum over [0, n), aligned */
    uint32_t want = 0, got = 0;
    for (size_t i = 0; i < n; i++) want += hash32(i, key) >> 1;
    CUDA_CHK(gp_reduce_sum_u32(d_out, d, n, 0));
    CUDA_CHK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
    EXPECT(got == want, "sum_u32 n=2^31+1001: got %u want %u", got, want);
    /* min over [1, n+1), offset by one, with the minimum planted past 2^31 */
    const int32_t planted = INT32_MIN + 5;
    CUDA_CHK(cudaMemcpy(d + n - 7, &planted, 4, cudaMemcpyHostToDevice));
    int32_t got_min = 0;
    CUDA_CHK(gp_reduce_min_i32((int32_t *)d_out, (const int32_t *)d + 1, n, 0));
    CUDA_CHK(cudaMemcpy(&got_min, d_out, 4, cudaMemcpyDeviceToHost));
    EXPECT(got_min == planted, "min_i32 n=2^31+1001, offset 1, planted at 2^31+994: got %d", got_min);
    CUDA_CHK(cudaFree(d));
    CUDA_CHK(cudaFree(d_out));
    printf("  n = 2^31 + 1001: sum_u32 and min_i32 checked\n");
}

extern "C" void test_reduce_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("reduce: every default instance on the GPU (18 instances x 11 sizes x 2 offsets)");
        gp_t_skip("reduce: bad input, determinism, concurrent streams");
        gp_t_skip("reduce: n = 2^31 + 1001");
        return;
    }
    gp_t_section("reduce: default instances against the host reference");
    fixture f;
    const size_t max_n = gp_t_small() ? 1048573 : (1u << 24) + 7;
    CUDA_CHK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHK(cudaDeviceGetAttribute(&f.cluster_ok, cudaDevAttrClusterLaunch, 0));
    CUDA_CHK(cudaMalloc(&f.d_base, (max_n + 2) * 8 * 4));
    CUDA_CHK(cudaMalloc(&f.d_out, 16));
    f.h_x = malloc((max_n + 2) * 8 * 4);
    check_instances(&f, max_n);
    gp_t_section("reduce: bad input, determinism, concurrent streams");
    check_bad_input(&f);
    check_determinism_and_streams(&f, gp_t_small() ? 100003 : (1u << 22) + 3);
    free(f.h_x);
    CUDA_CHK(cudaFree(f.d_base));
    CUDA_CHK(cudaFree(f.d_out));
    if (gp_t_small()) gp_t_skip("reduce: n = 2^31 + 1001 (small sizes)");
    else {
        gp_t_section("reduce: a count above 2^31");
        check_huge();
    }
}

/* Every row of the instance list is one the GPU test can read: its op and kind columns
 * name an operator and element kind it knows, and the element is 4 or 8 bytes. A new row
 * (a prod_* or *_f16 instance, say) fails here, in CI, until the test learns it. */
extern "C" void test_reduce_host_rows(void)
{
    gp_t_section("reduce: the default instance list's columns (host)");
    for (size_t k = 0; k < N_INSTANCES; k++) {
        const instance *in = &instances[k];
        EXPECT(in->op != '?' && in->kind != '?' && (in->elem == 4 || in->elem == 8),
               "%s: op '%c', kind '%c', %zu-byte elements: not a row this test can check", in->name, in->op,
               in->kind, in->elem);
    }
}
