/* tests/select/test_select.cu -- stream compaction: gp_select_flagged_<t>,
 * gp_partition_flagged_<t>, gp_nonzero_<t>, gp_unique_<t>, gp_run_length_<t> for every
 * default instance, GP_DEFINE_SELECT / GP_DEFINE_UNIQUE for a user predicate with a
 * parameter, a 16-byte user type and 1- and 2-byte elements, and the block select.
 * Host: the argument checks (NULL, overlaps, in place) and the plan.
 * GPU: against a host reference on fresh random inputs (flags kept at 0%, 0.1%, 50%, 100%;
 * runs of random lengths; zeros, -0.0 and NaN for floats), at the edge sizes (whole tiles
 * only at 2^20), with aligned pointers (select, partition and nonzero on the ring kernel on
 * sm_90) and misaligned ones (the one-tile kernel), outputs poisoned first and checked untouched past the count, in
 * place, n == 0, determinism over reruns and streams, and a count above 2^31 made and
 * checked on the device. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define POISON 0x5a

/* ---- host: argument checks and plan ----------------------------------------------------------- */

extern "C" void test_select_host(void)
{
    gp_t_section("select: argument checks and plan (host)");
    float *a = (float *)(uintptr_t)0x100000, *b = (float *)(uintptr_t)0x200000, *c = (float *)(uintptr_t)0x300000;
    uint64_t *cnt = (uint64_t *)(uintptr_t)0x400000;
    const uint8_t *fl = (const uint8_t *)(uintptr_t)0x500000;
    const size_t n = 1000;
    /* each refused before anything touches the GPU */
    EXPECT(gp_select_flagged_f32(NULL, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "select: NULL out");
    EXPECT(gp_select_flagged_f32(b, NULL, a, fl, n, 0) == cudaErrorInvalidValue, "select: NULL count");
    EXPECT(gp_select_flagged_f32(b, cnt, NULL, fl, n, 0) == cudaErrorInvalidValue, "select: NULL in");
    EXPECT(gp_select_flagged_f32(b, cnt, a, NULL, n, 0) == cudaErrorInvalidValue, "select: NULL flags");
    EXPECT(gp_select_flagged_f32(a + 1, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "select: partial overlap");
    EXPECT(gp_select_flagged_f32(b, cnt, a, (const uint8_t *)b, n, 0) == cudaErrorInvalidValue, "select: flags in out");
    EXPECT(gp_select_flagged_f32(b, (uint64_t *)(b + 10), a, fl, n, 0) == cudaErrorInvalidValue, "select: count in out");
    EXPECT(gp_partition_flagged_f32(b, b, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "partition: selected == rejected");
    EXPECT(gp_partition_flagged_f32(b, b + 500, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "partition: outputs overlap");
    EXPECT(gp_partition_flagged_f32(a, b, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "partition: in place");
    EXPECT(gp_partition_flagged_f32(b, NULL, cnt, a, fl, n, 0) == cudaErrorInvalidValue, "partition: NULL rejected");
    EXPECT(gp_nonzero_f32((uint64_t *)a, cnt, a, n, 0) == cudaErrorInvalidValue, "nonzero: idx over in");
    EXPECT(gp_unique_f32(a + 3, cnt, a, n, 0) == cudaErrorInvalidValue, "unique: partial overlap");
    EXPECT(gp_run_length_f32(a, (uint64_t *)c, cnt, a, n, 0) == cudaErrorInvalidValue, "run_length: values over in");
    EXPECT(gp_run_length_f32(b, (uint64_t *)(b + 8), cnt, a, n, 0) == cudaErrorInvalidValue, "run_length: lengths over values");
    EXPECT(gp_run_length_f32(b, (uint64_t *)c, NULL, a, n, 0) == cudaErrorInvalidValue, "run_length: NULL runs");
    EXPECT(gp_select_flagged_f32(b, NULL, a, fl, 0, 0) == cudaErrorInvalidValue, "select: n = 0, NULL count");
    /* the checker itself */
    const void *p[3] = {a, a, cnt};
    size_t by[3] = {400, 400, 8};
    EXPECT(gp__select_args_ok(p, by, 3, 1) == 1, "in place allowed");
    EXPECT(gp__select_args_ok(p, by, 3, 0) == 0, "in place refused");
    /* plan: tiles of 256 x 64 bytes; vectors only from 16-byte boundaries */
    gp__select_plan pl = gp__select_make_plan(0x1000, 0x2001, 5000, 4);
    EXPECT(pl.tile == 4096 && pl.tiles == 2 && pl.in_vec && !pl.flags_vec, "plan f32: tile %zu tiles %zu vec %d flags %d",
           pl.tile, pl.tiles, pl.in_vec, pl.flags_vec);
    pl = gp__select_make_plan(0x1008, 0x2000, 5000, 8);
    EXPECT(pl.tile == 2048 && pl.tiles == 3 && !pl.in_vec && pl.flags_vec, "plan f64 off 16");
    pl = gp__select_make_plan(0x1000, 0, 100, 16);
    EXPECT(pl.tile == 1024 && pl.in_vec, "plan 16-byte");
    EXPECT(gp__select_smem(GP__SEL_RUNS, 4) == 4096 * 8 &&
               gp__select_smem(GP__SEL_NONZERO, 8) == 2048 * 4,
           "shared memory sizes");
    /* the ring's depth on an H100 or H200 (228 KB an SM, 227 KB a block, 1 KB kept by the
     * system), from the kernel's static shared memory (640 bytes, run-length's 768: ptxas,
     * sm_90); unique's and run-length's as deep as two blocks an SM allow */
    gp__device h = {};
    h.smem_sm = 228 * 1024;
    h.smem_block = 227 * 1024;
    h.smem_reserved = 1024;
    EXPECT(gp__select_ring_depth(GP__SEL_FLAGGED, 4, h, 640) == 4 && gp__select_ring_depth(GP__SEL_NONZERO, 8, h, 640) == 4,
           "ring depth: select, nonzero");
    EXPECT(gp__select_ring_depth(GP__SEL_UNIQUE, 4, h, 640) == 6 && gp__select_ring_depth(GP__SEL_UNIQUE, 8, h, 640) == 6,
           "ring depth: unique");
    EXPECT(gp__select_ring_depth(GP__SEL_RUNS, 4, h, 768) == 6 && gp__select_ring_depth(GP__SEL_RUNS, 8, h, 768) == 6,
           "ring depth: run-length");
    /* run-length on 4-byte types: six stages (17456 bytes each: 16 bytes before the tile,
     * 16384 of values, 16 after, 1024 of heads, 16 for the last tail) and the 16-bit places
     * (8192) fill half an SM to the byte with 2784 bytes of static shared memory */
    EXPECT(gp__select_ring_stage(GP__SEL_RUNS, 4) == 17456 && gp__select_ring_extra(GP__SEL_RUNS, 4) == 8192 &&
               gp__select_ring_stage(GP__SEL_RUNS, 2) == 16 + 16384 + 16 && gp__select_ring_extra(GP__SEL_RUNS, 2) == 16384,
           "ring stage: run-length's heads from 4-byte elements");
    /* one byte more: five stages fit, but three count warps take the tiles in turn, so three */
    EXPECT(gp__select_ring_depth(GP__SEL_RUNS, 4, h, 2784) == 6 && gp__select_ring_depth(GP__SEL_RUNS, 4, h, 2785) == 3,
           "ring depth: two blocks an SM, to the byte; a multiple of the count warps");
    /* unique's two count warps: room for five stages of 17424 bytes gives four */
    gp__device small = h;
    small.smem_sm = 2 * (1024 + 640 + 5 * 17424 + 100);
    EXPECT(gp__select_ring_stage(GP__SEL_UNIQUE, 4) == 17424 && gp__select_ring_depth(GP__SEL_UNIQUE, 4, small, 640) == 4,
           "ring depth: unique, a multiple of its two count warps");
}

/* ---- GPU: default instances ---------------------------------------------------------------- */

template <class T> struct tinfo;
#define TI(T, suf, flt)                                                                                         \
    template <> struct tinfo<T> {                                                                               \
        static constexpr bool is_float = flt;                                                                   \
        static const char *name() { return #suf; }                                                              \
        static cudaError_t sel(T *o, uint64_t *c, const T *i, const uint8_t *f, size_t n, cudaStream_t s)       \
        {                                                                                                       \
            return gp_select_flagged_##suf(o, c, i, f, n, s);                                                   \
        }                                                                                                       \
        static cudaError_t part(T *o, T *r, uint64_t *c, const T *i, const uint8_t *f, size_t n, cudaStream_t s) \
        {                                                                                                       \
            return gp_partition_flagged_##suf(o, r, c, i, f, n, s);                                             \
        }                                                                                                       \
        static cudaError_t nz(uint64_t *o, uint64_t *c, const T *i, size_t n, cudaStream_t s)                   \
        {                                                                                                       \
            return gp_nonzero_##suf(o, c, i, n, s);                                                             \
        }                                                                                                       \
        static cudaError_t uniq(T *o, uint64_t *c, const T *i, size_t n, cudaStream_t s)                        \
        {                                                                                                       \
            return gp_unique_##suf(o, c, i, n, s);                                                              \
        }                                                                                                       \
        static cudaError_t rle(T *v, uint64_t *l, uint64_t *r, const T *i, size_t n, cudaStream_t s)            \
        {                                                                                                       \
            return gp_run_length_##suf(v, l, r, i, n, s);                                                       \
        }                                                                                                       \
    };
TI(int32_t, i32, false)
TI(uint32_t, u32, false)
TI(int64_t, i64, false)
TI(uint64_t, u64, false)
TI(float, f32, true)
TI(double, f64, true)

/* Random values: for run tests runs of random lengths (1 .. maxrun), each run's value
 * drawn from a small set (neighbouring runs may then be equal: they merge, as they must);
 * floats also get 0, -0.0 and NaN. */
template <class T>
static T rand_val(uint64_t *st, int small)
{
    const uint64_t r = gp_t_next(st);
    if constexpr (tinfo<T>::is_float) {
        const unsigned k = (unsigned)(r % 16);
        if (k == 0) return (T)0.0;
        if (k == 1) return (T)-0.0;
        if (k == 2) return (T)NAN;
        return (T)((double)(int64_t)(r >> 20 & (small ? 7 : 0xffff)) - 3.0);
    } else
    return (T)(small ? (r >> 20) % 8 : r >> 7);
}

static bool bits_eq(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }
static bool all_poison(const unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != POISON) return false;
    return true;
}

struct bufs {
    unsigned char *in, *flags, *out, *rej, *lens, *cnt;
    size_t cap;
};

/* One size, one keep rate, one placement (offset elements from the allocation's start). */
template <class T>
static void check_one(bufs &b, size_t n, double rate, int off, int maxrun)
{
    const char *nm = tinfo<T>::name();
    uint64_t st = gp_t_state(n * 131 + (uint64_t)(rate * 1000) + off);
    std::vector<T> x(n);
    std::vector<uint8_t> f(n);
    if (maxrun > 0) {
        for (size_t i = 0; i < n;) {
            const T v = rand_val<T>(&st, 1);
            size_t len = 1 + gp_t_next(&st) % (uint64_t)maxrun;
            for (; len-- && i < n; i++) x[i] = v;
        }
    } else {
        for (size_t i = 0; i < n; i++) x[i] = rand_val<T>(&st, 0);
    }
    const uint64_t thr = (uint64_t)(rate * 1e6);
    for (size_t i = 0; i < n; i++) f[i] = gp_t_next(&st) % 1000000 < thr ? (uint8_t)(1 + gp_t_next(&st) % 255) : 0;
    T *d_in = (T *)b.in + off, *d_out = (T *)b.out + off, *d_rej = (T *)b.rej + off;
    const uint8_t *d_fl = b.flags + off;
    uint64_t *d_cnt = (uint64_t *)b.cnt, *d_len = (uint64_t *)b.lens + off, *d_idx = (uint64_t *)b.lens + off;
    CUDA_CHK(cudaMemcpy(d_in, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy((void *)d_fl, f.data(), n, cudaMemcpyHostToDevice));
    const size_t ob = (n + 64) * 8 + 64; /* bytes checked: the outputs and past them */
    std::vector<unsigned char> got(ob), got2(ob);
    uint64_t count = 0;

    /* reference: select and partition */
    std::vector<T> sel, rej;
    for (size_t i = 0; i < n; i++) (f[i] ? sel : rej).push_back(x[i]);
    auto poison = [&]() {
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.rej, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.lens, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.cnt, POISON, 64));
    };
    auto fetch = [&](const void *d, size_t elems, size_t esz, std::vector<unsigned char> &h) {
        CUDA_CHK(cudaMemcpy(h.data(), d, (elems + 16) * esz, cudaMemcpyDeviceToHost));
    };
    auto get_count = [&]() {
        CUDA_CHK(cudaMemcpy(&count, d_cnt, 8, cudaMemcpyDeviceToHost));
        return count;
    };
    poison();
    CUDA_CHK(tinfo<T>::sel(d_out, d_cnt, d_in, d_fl, n, 0));
    CUDA_CHK(cudaDeviceSynchronize());
    fetch(d_out, n, sizeof(T), got);
    EXPECT(get_count() == sel.size() && bits_eq(got.data(), sel.data(), sel.size() * sizeof(T)) &&
               all_poison(got.data() + sel.size() * sizeof(T), 16 * sizeof(T)),
           "select_flagged_%s n=%zu rate=%g off=%d: count %llu (want %zu), values or tail wrong", nm, n, rate, off,
           (unsigned long long)count, sel.size());
    poison();
    CUDA_CHK(tinfo<T>::part(d_out, d_rej, d_cnt, d_in, d_fl, n, 0));
    CUDA_CHK(cudaDeviceSynchronize());
    fetch(d_out, n, sizeof(T), got);
    fetch(d_rej, n, sizeof(T), got2);
    EXPECT(get_count() == sel.size() && bits_eq(got.data(), sel.data(), sel.size() * sizeof(T)) &&
               bits_eq(got2.data(), rej.data(), rej.size() * sizeof(T)) &&
               all_poison(got.data() + sel.size() * sizeof(T), 16 * sizeof(T)) &&
               all_poison(got2.data() + rej.size() * sizeof(T), 16 * sizeof(T)),
           "partition_flagged_%s n=%zu rate=%g off=%d: wrong", nm, n, rate, off);

    /* nonzero */
    std::vector<uint64_t> nz;
    for (size_t i = 0; i < n; i++)
        if (x[i] != (T)0) nz.push_back(i);
    poison();
    CUDA_CHK(tinfo<T>::nz(d_idx, d_cnt, d_in, n, 0));
    CUDA_CHK(cudaDeviceSynchronize());
    fetch(d_idx, n, 8, got);
    EXPECT(get_count() == nz.size() && bits_eq(got.data(), nz.data(), nz.size() * 8) &&
               all_poison(got.data() + nz.size() * 8, 16 * 8),
           "nonzero_%s n=%zu off=%d: count %llu want %zu", nm, n, off, (unsigned long long)count, nz.size());

    /* unique and run-length (== : -0.0 equals 0.0, NaN equals nothing) */
    std::vector<T> uv;
    std::vector<uint64_t> ul;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !(x[i - 1] == x[i])) {
            uv.push_back(x[i]);
            ul.push_back(0);
        }
        ul.back()++;
    }
    poison();
    CUDA_CHK(tinfo<T>::uniq(d_out, d_cnt, d_in, n, 0));
    CUDA_CHK(cudaDeviceSynchronize());
    fetch(d_out, n, sizeof(T), got);
    EXPECT(get_count() == uv.size() && bits_eq(got.data(), uv.data(), uv.size() * sizeof(T)) &&
               all_poison(got.data() + uv.size() * sizeof(T), 16 * sizeof(T)),
           "unique_%s n=%zu maxrun=%d off=%d: count %llu want %zu", nm, n, maxrun, off, (unsigned long long)count,
           uv.size());
    poison();
    CUDA_CHK(tinfo<T>::rle(d_out, d_len, d_cnt, d_in, n, 0));
    CUDA_CHK(cudaDeviceSynchronize());
    fetch(d_out, n, sizeof(T), got);
    fetch(d_len, n, 8, got2);
    EXPECT(get_count() == uv.size() && bits_eq(got.data(), uv.data(), uv.size() * sizeof(T)) &&
               bits_eq(got2.data(), ul.data(), ul.size() * 8) && all_poison(got.data() + uv.size() * sizeof(T), 16 * sizeof(T)) &&
               all_poison(got2.data() + ul.size() * 8, 16 * 8),
           "run_length_%s n=%zu maxrun=%d off=%d: runs %llu want %zu", nm, n, maxrun, off, (unsigned long long)count,
           uv.size());

    /* in place: select and unique */
    if (off == 0 && rate == 0.5) {
        CUDA_CHK(cudaMemcpy(d_out, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        CUDA_CHK(tinfo<T>::sel(d_out, d_cnt, d_out, d_fl, n, 0));
        CUDA_CHK(cudaDeviceSynchronize());
        fetch(d_out, n, sizeof(T), got);
        EXPECT(get_count() == sel.size() && bits_eq(got.data(), sel.data(), sel.size() * sizeof(T)),
               "select_flagged_%s in place n=%zu: wrong", nm, n);
        CUDA_CHK(cudaMemcpy(d_out, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        CUDA_CHK(tinfo<T>::uniq(d_out, d_cnt, d_out, n, 0));
        CUDA_CHK(cudaDeviceSynchronize());
        fetch(d_out, n, sizeof(T), got);
        EXPECT(get_count() == uv.size() && bits_eq(got.data(), uv.data(), uv.size() * sizeof(T)),
               "unique_%s in place n=%zu: wrong", nm, n);
    }
}

template <class T>
static void check_type(bufs &b, size_t max_n)
{
    /* 4097 .. 4099, 8194, 12289: a whole tile of 4-byte elements (8-byte ones: 2048) followed
     * by fewer than 16 bytes, which run-length's ring reads from global memory */
    const size_t sizes[] = {1,    31,   32,   33,    1023,  1025,    4096,    4097,
                            4098, 4099, 8191, 8194,  12289, 65537, 1048573, 1u << 20, (1u << 24) + 7};
    /* the last: runs of up to 20000, so that runs cross whole tiles with no head in them */
    const double rates[] = {0.0, 0.001, 0.5, 1.0, 0.5};
    const int small = gp_t_small();
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const size_t n = sizes[si];
        if (n > max_n) continue;
        const bool big = n > 70000;
        for (int ri = 0; ri < 5; ri++) {
            if (big && ri != 2 && ri != 4) continue;
            if (small >= 2 && ri != 2) continue;
            const int maxrun = ri == 0 ? 1 : ri == 1 ? 8 : ri == 2 ? 3 : ri == 3 ? 1500 : 20000;
            for (int off = 0; off < 2; off++) {
                if (big && off) continue;
                check_one<T>(b, n, rates[ri], off, maxrun);
            }
        }
    }
}

/* n == 0 writes a zero count (stream-ordered) and nothing else. */
static void check_zero(bufs &b)
{
    CUDA_CHK(cudaMemset(b.cnt, POISON, 64));
    CUDA_CHK(cudaMemset(b.out, POISON, 64));
    CUDA_CHK(gp_select_flagged_f32((float *)b.out, (uint64_t *)b.cnt, (float *)b.in, b.flags, 0, 0));
    CUDA_CHK(gp_run_length_i64((int64_t *)b.out, (uint64_t *)b.lens, (uint64_t *)b.cnt + 1, (int64_t *)b.in, 0, 0));
    uint64_t c[2];
    unsigned char o[64];
    CUDA_CHK(cudaMemcpy(c, b.cnt, 16, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(o, b.out, 64, cudaMemcpyDeviceToHost));
    EXPECT(c[0] == 0 && c[1] == 0 && all_poison(o, 64), "n = 0: counts %llu %llu, output untouched",
           (unsigned long long)c[0], (unsigned long long)c[1]);
}

/* ---- user instances ------------------------------------------------------------------------ */

#define GT_PARAM(x, p) ((x) > (p))
GP_DEFINE_SELECT(gt_f32, float, float, GT_PARAM)

typedef struct { int32_t key; int32_t pad; double w; } rec16_t; /* 16 bytes */
typedef struct { int32_t lo, hi; } range_t;
#define IN_RANGE(r, p) ((r).key >= (p).lo && (r).key < (p).hi)
#define SAME_KEY(a, b) ((a).key == (b).key)
GP_DEFINE_SELECT(rec_range, rec16_t, range_t, IN_RANGE)
GP_DEFINE_UNIQUE(rec_key, rec16_t, SAME_KEY)

/* 1- and 2-byte elements: unique runs on select_one there, run-length on the ring */
#define EQ_BITS(a, b) ((a) == (b))
GP_DEFINE_UNIQUE(u16, uint16_t, EQ_BITS)
GP_DEFINE_UNIQUE(u8, uint8_t, EQ_BITS)

template <class T>
static void check_narrow(bufs &b, size_t n, cudaError_t (*uniq)(T *, uint64_t *, const T *, size_t, cudaStream_t),
                         cudaError_t (*rle)(T *, uint64_t *, uint64_t *, const T *, size_t, cudaStream_t),
                         const char *nm)
{
    uint64_t st = gp_t_state(n * 3 + sizeof(T));
    std::vector<T> x(n), want;
    std::vector<uint64_t> wl;
    for (size_t i = 0; i < n;) { /* runs of 1 to 40 of a few values, so that neighbours repeat */
        const T v = (T)(gp_t_next(&st) % 5);
        for (size_t len = 1 + gp_t_next(&st) % 40; len-- && i < n; i++) x[i] = v;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || x[i - 1] != x[i]) {
            want.push_back(x[i]);
            wl.push_back(0);
        }
        wl.back()++;
    }
    /* 16-byte aligned (the ring's placement) and one element off it */
    for (int off = 0; off < 2; off++) {
        T *d_in = (T *)b.in + off, *d_o = (T *)b.out + off;
        CUDA_CHK(cudaMemcpy(d_in, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        std::vector<T> got(n + 16);
        std::vector<uint64_t> gl(n + 4);
        uint64_t c = 0;
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.cnt, POISON, 64));
        CUDA_CHK(uniq(d_o, (uint64_t *)b.cnt, d_in, n, 0));
        CUDA_CHK(cudaMemcpy(got.data(), d_o, (n + 16) * sizeof(T), cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == want.size() && bits_eq(got.data(), want.data(), want.size() * sizeof(T)) &&
                   all_poison((unsigned char *)(got.data() + c), 16 * sizeof(T)),
               "gp_unique_%s n=%zu off=%d: count %llu want %zu", nm, n, off, (unsigned long long)c, want.size());
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.lens, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.cnt, POISON, 64));
        CUDA_CHK(rle(d_o, (uint64_t *)b.lens, (uint64_t *)b.cnt, d_in, n, 0));
        CUDA_CHK(cudaMemcpy(got.data(), d_o, (n + 16) * sizeof(T), cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(gl.data(), b.lens, (n + 4) * 8, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == want.size() && bits_eq(got.data(), want.data(), want.size() * sizeof(T)) &&
                   bits_eq(gl.data(), wl.data(), wl.size() * 8) && all_poison((unsigned char *)(gl.data() + c), 32) &&
                   all_poison((unsigned char *)(got.data() + c), 16 * sizeof(T)),
               "gp_run_length_%s n=%zu off=%d: runs %llu want %zu", nm, n, off, (unsigned long long)c, want.size());
    }
}

__global__ void block_select_kernel(float *out, unsigned *count, const float *in, float thr)
{
    __shared__ float kept[256];
    const float v = in[blockIdx.x * 256 + threadIdx.x];
    const unsigned c = gp_block_select_gt_f32(kept, v, thr, NULL);
    const unsigned c2 = gp_block_select_flagged_f32(out + blockIdx.x * 256, v, v > thr, NULL);
    __syncthreads();
    if (threadIdx.x < c && kept[threadIdx.x] != out[blockIdx.x * 256 + threadIdx.x]) atomicAdd(count + 1, 1u);
    if (threadIdx.x == 0) atomicAdd(count, c + (c2 != c ? 1000000u : 0u));
}

static void check_user(bufs &b)
{
    /* 1- and 2-byte elements: beside the sizes below, a ring tile's edges (8192 u16, 16384
     * u8 a tile) and, at full size, windows of more than 384 tiles */
    const size_t narrow[] = {3 * 16384 - 1, 3 * 16384 + 1, gp_t_small() ? (size_t)40000 : ((size_t)1 << 23) + 5};
    for (size_t n : narrow) {
        check_narrow<uint16_t>(b, n, gp_unique_u16, gp_run_length_u16, "u16 (user)");
        check_narrow<uint8_t>(b, n, gp_unique_u8, gp_run_length_u8, "u8 (user)");
    }
    const size_t sizes[] = {33, 4097, 300007};
    for (size_t si = 0; si < 3; si++) {
        const size_t n = sizes[si];
        check_narrow<uint16_t>(b, n, gp_unique_u16, gp_run_length_u16, "u16 (user)");
        check_narrow<uint8_t>(b, n, gp_unique_u8, gp_run_length_u8, "u8 (user)");
        uint64_t st = gp_t_state(n + 7);
        /* a predicate with a parameter */
        std::vector<float> x(n), want;
        const float thr = 0.25f;
        for (size_t i = 0; i < n; i++) x[i] = (float)(gp_t_next(&st) % 1000) / 1000.0f;
        for (size_t i = 0; i < n; i++)
            if (x[i] > thr) want.push_back(x[i]);
        CUDA_CHK(cudaMemcpy(b.in, x.data(), n * 4, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(gp_select_gt_f32((float *)b.out, (uint64_t *)b.cnt, (float *)b.in, n, thr, 0));
        std::vector<float> got(n + 8);
        uint64_t c = 0;
        CUDA_CHK(cudaMemcpy(got.data(), b.out, (n + 8) * 4, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == want.size() && bits_eq(got.data(), want.data(), want.size() * 4) &&
                   all_poison((unsigned char *)(got.data() + c), 32),
               "gp_select_gt_f32 (x > p) n=%zu: count %llu want %zu", n, (unsigned long long)c, want.size());
        /* a 16-byte user type: select and partition by a range, unique by key */
        std::vector<rec16_t> r(n), rs, rr, ru;
        std::vector<uint64_t> rl;
        for (size_t i = 0; i < n;) {
            const int32_t key = (int32_t)(gp_t_next(&st) % 100);
            size_t len = 1 + gp_t_next(&st) % 5;
            for (; len-- && i < n; i++) r[i] = {key, 0, (double)i};
        }
        const range_t p = {20, 70};
        for (size_t i = 0; i < n; i++) (IN_RANGE(r[i], p) ? rs : rr).push_back(r[i]);
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || r[i - 1].key != r[i].key) {
                ru.push_back(r[i]);
                rl.push_back(0);
            }
            rl.back()++;
        }
        std::vector<rec16_t> g1(n + 4), g2(n + 4);
        std::vector<uint64_t> gl(n + 4);
        rec16_t *d_in = (rec16_t *)b.in, *d_o = (rec16_t *)b.out, *d_r = (rec16_t *)b.rej;
        CUDA_CHK(cudaMemcpy(d_in, r.data(), n * 16, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(cudaMemset(b.rej, POISON, b.cap));
        CUDA_CHK(gp_partition_rec_range(d_o, d_r, (uint64_t *)b.cnt, d_in, n, p, 0));
        CUDA_CHK(cudaMemcpy(g1.data(), d_o, (n + 4) * 16, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(g2.data(), d_r, (n + 4) * 16, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == rs.size() && bits_eq(g1.data(), rs.data(), rs.size() * 16) &&
                   bits_eq(g2.data(), rr.data(), rr.size() * 16) && all_poison((unsigned char *)(g1.data() + c), 64),
               "gp_partition_rec_range (16-byte type) n=%zu: count %llu want %zu", n, (unsigned long long)c, rs.size());
        CUDA_CHK(gp_select_rec_range(d_o, (uint64_t *)b.cnt, d_in, n, p, 0));
        CUDA_CHK(cudaMemcpy(g1.data(), d_o, (n + 4) * 16, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == rs.size() && bits_eq(g1.data(), rs.data(), rs.size() * 16), "gp_select_rec_range n=%zu", n);
        CUDA_CHK(cudaMemset(b.out, POISON, b.cap));
        CUDA_CHK(gp_run_length_rec_key(d_o, (uint64_t *)b.lens, (uint64_t *)b.cnt, d_in, n, 0));
        CUDA_CHK(cudaMemcpy(g1.data(), d_o, (n + 4) * 16, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(gl.data(), b.lens, (n + 4) * 8, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == ru.size() && bits_eq(g1.data(), ru.data(), ru.size() * 16) && bits_eq(gl.data(), rl.data(), rl.size() * 8),
               "gp_run_length_rec_key (16-byte type, equal by key) n=%zu: runs %llu want %zu", n, (unsigned long long)c,
               ru.size());
        CUDA_CHK(gp_unique_rec_key(d_o, (uint64_t *)b.cnt, d_in, n, 0));
        CUDA_CHK(cudaMemcpy(g1.data(), d_o, (n + 4) * 16, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(&c, b.cnt, 8, cudaMemcpyDeviceToHost));
        EXPECT(c == ru.size() && bits_eq(g1.data(), ru.data(), ru.size() * 16), "gp_unique_rec_key n=%zu", n);
    }
    /* the block select: 64 blocks of 256 */
    {
        const size_t n = 64 * 256;
        uint64_t st = gp_t_state(99);
        std::vector<float> x(n);
        size_t want = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = (float)(gp_t_next(&st) % 1000) / 1000.0f;
            want += x[i] > 0.3f;
        }
        CUDA_CHK(cudaMemcpy(b.in, x.data(), n * 4, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(b.cnt, 0, 8));
        block_select_kernel<<<64, 256>>>((float *)b.out, (unsigned *)b.cnt, (float *)b.in, 0.3f);
        CUDA_CHK_LAUNCH();
        unsigned c[2];
        std::vector<float> got(n);
        CUDA_CHK(cudaMemcpy(c, b.cnt, 8, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaMemcpy(got.data(), b.out, n * 4, cudaMemcpyDeviceToHost));
        bool ok = c[0] == want && c[1] == 0;
        for (size_t k = 0; k < 64 && ok; k++) {
            size_t q = 0;
            for (size_t i = k * 256; i < k * 256 + 256; i++)
                if (x[i] > 0.3f) ok &= got[k * 256 + q++] == x[i];
        }
        EXPECT(ok, "gp_block_select_flagged_f32 / gp_block_select_gt_f32: kept %u want %zu, %u differ", c[0], want, c[1]);
    }
}

/* ---- determinism over streams ---------------------------------------------------------------- */

/* gp_t_check_streams compares 16 bytes a call: each call's outputs are folded into a
 * position-weighted digest (two sums of hash(i, word i): any change of a word or its place
 * changes them), on the call's stream. */
__global__ void digest(const uint32_t *w, size_t words, unsigned long long *out)
{
    unsigned long long a = 0, b = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        a += hash32(i, w[i]);
        b += (unsigned long long)hash32(i ^ 0x9e37u, w[i]) * (i + 1);
    }
    atomicAdd(out, a);
    atomicAdd(out + 1, b);
}
struct stream_ctx {
    const float *in;
    const uint8_t *flags;
    size_t n, N;
    float *work[4]; /* per call: selected, rejected, count, run values, run lengths, runs */
};
static void launch_part(void *p, int k, void *d_out, cudaStream_t s)
{
    const stream_ctx *c = (const stream_ctx *)p;
    float *o = c->work[k];
    const size_t N = c->N; /* 8-byte outputs on 8-byte boundaries */
    CUDA_CHK(cudaMemsetAsync(o, POISON, (5 * N + 8) * 4, s));
    CUDA_CHK(gp_partition_flagged_f32(o, o + N, (uint64_t *)(o + 2 * N), c->in, c->flags, c->n, s));
    CUDA_CHK(gp_run_length_f32(o + 2 * N + 4, (uint64_t *)(o + 3 * N + 4), (uint64_t *)(o + 5 * N + 4), c->in, c->n, s));
    CUDA_CHK(cudaMemsetAsync(d_out, 0, 16, s));
    digest<<<256, 256, 0, s>>>((const uint32_t *)o, 5 * N + 8, (unsigned long long *)d_out);
    CUDA_CHK_LAUNCH();
}
static void check_streams(bufs &b, size_t n)
{
    uint64_t st = gp_t_state(5);
    std::vector<float> x(n);
    std::vector<uint8_t> f(n);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(gp_t_next(&st) % 4);
        f[i] = gp_t_next(&st) & 1;
    }
    CUDA_CHK(cudaMemcpy(b.in, x.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemcpy(b.flags, f.data(), n, cudaMemcpyHostToDevice));
    stream_ctx c = {(const float *)b.in, b.flags, n, (n + 3) / 4 * 4, {}};
    for (int k = 0; k < 4; k++) CUDA_CHK(cudaMalloc(&c.work[k], (5 * c.N + 8) * 4));
    gp_t_check_streams("partition_flagged_f32 + run_length_f32 (digests)", 16, launch_part, &c);
    for (int k = 0; k < 4; k++) CUDA_CHK(cudaFree(c.work[k]));
}

/* ---- above 2^31: made and checked on the device ------------------------------------------- */

__global__ void fill_huge(uint32_t *x, uint8_t *f, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        x[i] = (uint32_t)(i / 3); /* runs of 3 */
        f[i] = hash32(i, 0x5e1ec7u) & 1;
    }
}
__global__ void count_flags(const uint8_t *f, size_t n, unsigned long long *c)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) mine += f[i];
    atomicAdd(c, mine);
}
__global__ void check_huge_unique(const uint32_t *u, size_t count, unsigned long long *bad)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count; j += (size_t)gridDim.x * blockDim.x)
        if (u[j] != (uint32_t)j) atomicAdd(bad, 1ull);
}
/* run-length of x = i / 3 over n elements: run j is value j, length 3 (the last: what is left) */
__global__ void check_huge_runs(const uint32_t *u, const uint64_t *len, size_t count, size_t n, unsigned long long *bad)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count; j += (size_t)gridDim.x * blockDim.x)
        if (u[j] != (uint32_t)j || len[j] != (j + 1 < count ? 3u : n - 3 * j)) atomicAdd(bad, 1ull);
}

static void check_huge(void)
{
    const size_t n = (1ull << 31) + 1001;
    size_t free_b, total_b;
    CUDA_CHK(cudaMemGetInfo(&free_b, &total_b));
    const size_t runs_want = (n + 2) / 3;
    /* x, y, flags, and run-length's lengths: room for n of them, as the overlap check wants */
    if (free_b < n * 18 + (1u << 30)) {
        gp_t_skip("select: n = 2^31 + 1001 (needs %zu GB)", (n * 18) >> 30);
        return;
    }
    uint32_t *x, *y;
    uint8_t *f;
    unsigned long long *c;
    CUDA_CHK(cudaMalloc(&x, n * 4));
    CUDA_CHK(cudaMalloc(&y, n * 4));
    CUDA_CHK(cudaMalloc(&f, n));
    CUDA_CHK(cudaMalloc(&c, 64));
    CUDA_CHK(cudaMemset(c, 0, 64));
    fill_huge<<<4096, 256>>>(x, f, n);
    CUDA_CHK_LAUNCH();
    uint64_t *d_cnt = (uint64_t *)(c + 4);
    /* unique of x = i / 3: the runs are 0, 1, 2, ..., checked on the device */
    CUDA_CHK(gp_unique_u32(y, d_cnt, x, n, 0));
    uint64_t runs = 0;
    CUDA_CHK(cudaMemcpy(&runs, d_cnt, 8, cudaMemcpyDeviceToHost));
    check_huge_unique<<<4096, 256>>>(y, runs, c + 1);
    CUDA_CHK_LAUNCH();
    unsigned long long bad = 0;
    CUDA_CHK(cudaMemcpy(&bad, c + 1, 8, cudaMemcpyDeviceToHost));
    EXPECT(runs == runs_want && bad == 0, "unique_u32 n=2^31+1001: runs %llu want %zu, %llu wrong",
           (unsigned long long)runs, runs_want, bad);
    /* run-length of the same: values and lengths, on the device */
    uint64_t *lens;
    CUDA_CHK(cudaMalloc(&lens, n * 8));
    CUDA_CHK(cudaMemset(y, 0xff, runs_want * 4));
    CUDA_CHK(gp_run_length_u32(y, lens, d_cnt, x, n, 0));
    CUDA_CHK(cudaMemcpy(&runs, d_cnt, 8, cudaMemcpyDeviceToHost));
    check_huge_runs<<<4096, 256>>>(y, lens, runs < runs_want ? runs : runs_want, n, c + 3);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(&bad, c + 3, 8, cudaMemcpyDeviceToHost));
    EXPECT(runs == runs_want && bad == 0, "run_length_u32 n=2^31+1001: runs %llu want %zu, %llu wrong",
           (unsigned long long)runs, runs_want, bad);
    CUDA_CHK(cudaFree(lens));
    /* select by hashed flags: as many kept as flags set (counted on the device), and the
     * first and last kept items those the host finds */
    CUDA_CHK(gp_select_flagged_u32(y, d_cnt, x, f, n, 0));
    count_flags<<<4096, 256>>>(f, n, c + 2);
    CUDA_CHK_LAUNCH();
    uint64_t kept = 0;
    unsigned long long want = 0;
    CUDA_CHK(cudaMemcpy(&kept, d_cnt, 8, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(&want, c + 2, 8, cudaMemcpyDeviceToHost));
    uint32_t first = 0, last = 0;
    CUDA_CHK(cudaMemcpy(&first, y, 4, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaMemcpy(&last, y + kept - 1, 4, cudaMemcpyDeviceToHost));
    size_t i0 = 0, i1 = n - 1;
    while (!(hash32(i0, 0x5e1ec7u) & 1)) i0++;
    while (!(hash32(i1, 0x5e1ec7u) & 1)) i1--;
    EXPECT(kept == want && first == (uint32_t)(i0 / 3) && last == (uint32_t)(i1 / 3),
           "select_flagged_u32 n=2^31+1001: kept %llu want %llu, first %u (%zu) last %u (%zu)", (unsigned long long)kept,
           want, first, i0 / 3, last, i1 / 3);
    CUDA_CHK(cudaFree(x));
    CUDA_CHK(cudaFree(y));
    CUDA_CHK(cudaFree(f));
    CUDA_CHK(cudaFree(c));
}

extern "C" void test_select_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("select: every default instance on the GPU (select, partition, nonzero, unique, run_length)");
        gp_t_skip("select: user predicate, 16-byte user type, block select");
        gp_t_skip("select: determinism over streams");
        gp_t_skip("select: n = 2^31 + 1001");
        return;
    }
    const size_t max_n = gp_t_small() ? 300007 : (1u << 24) + 7;
    bufs b;
    b.cap = (max_n + 1024) * 16;
    CUDA_CHK(cudaMalloc(&b.in, b.cap));
    CUDA_CHK(cudaMalloc(&b.flags, b.cap));
    CUDA_CHK(cudaMalloc(&b.out, b.cap));
    CUDA_CHK(cudaMalloc(&b.rej, b.cap));
    CUDA_CHK(cudaMalloc(&b.lens, b.cap));
    CUDA_CHK(cudaMalloc(&b.cnt, 64));
    gp_t_section("select: default instances against the host reference");
    check_type<int32_t>(b, max_n);
    check_type<uint32_t>(b, max_n);
    check_type<int64_t>(b, max_n);
    check_type<uint64_t>(b, max_n);
    check_type<float>(b, max_n);
    check_type<double>(b, max_n);
    check_zero(b);
    gp_t_section("select: user instances and the block select");
    check_user(b);
    gp_t_section("select: determinism over streams");
    check_streams(b, gp_t_small() ? 65537 : (1u << 22) + 3);
    CUDA_CHK(cudaFree(b.in));
    CUDA_CHK(cudaFree(b.flags));
    CUDA_CHK(cudaFree(b.out));
    CUDA_CHK(cudaFree(b.rej));
    CUDA_CHK(cudaFree(b.lens));
    CUDA_CHK(cudaFree(b.cnt));
    if (gp_t_small()) gp_t_skip("select: n = 2^31 + 1001 (small sizes)");
    else {
        gp_t_section("select: a count above 2^31");
        check_huge();
    }
}
