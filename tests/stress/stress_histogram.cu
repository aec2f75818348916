/* tests/stress/stress_histogram.cu -- the histogram family under random cases (families.h):
 * gp_histogram_even_<t> and gp_histogram_range_<t> for every default instance, against a
 * sequential host histogram that bins by the documented rules: integers floor((x - lower) *
 * bins / (upper - lower)) exactly (128-bit here), floats floor(((double)x - lower) * bins /
 * (upper - lower)) with each operation rounded in double as written and clamped to bins - 1,
 * range bins [edges[i], edges[i+1]); NaN and values outside are not counted. Every case
 * comes from (seed, case number): type, even or range, bins (1 to 2^16 near the paths'
 * limits, rarely 2^20 and 2^24), bounds (float bounds and edges exactly representable), n
 * biased to the edges, values (uniform, one bin, out of range, on bin edges, specials,
 * mixed), offsets, stream. The counts are poisoned first with guard bytes before and after;
 * some cases run twice on a second stream and must give the same counts. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "families.h"
#include "family_util.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include <math.h>
#include <stdio.h>
#include <string.h>

using namespace family; /* the families' shared helpers (family_util.h) */
#define FRONT 64                      /* poisoned bytes before the counts (and their offset) */
#define MAX_OFF 16                    /* input offsets are below this many bytes */
#define CAP_BYTES ((size_t)1 << 27)   /* the input: up to 2^24 doubles, 2^27 bytes */
#define MAX_BINS ((size_t)1 << 24)    /* 128 MB of counts, 128 MB of edges */
#define HIST_OFF_MAX 3                /* counts at 0 .. 3 elements past the front guard */

template <class T>
using bound_t = typename std::conditional<std::is_floating_point<T>::value, double, int64_t>::type;

/* ---- the public names, one table per input type ------------------------------------------------ */

template <class T>
struct hist_api {
    const char *name;
    cudaError_t (*even)(uint64_t *, const T *, size_t, size_t, bound_t<T>, bound_t<T>, cudaStream_t);
    cudaError_t (*range)(uint64_t *, const T *, size_t, const bound_t<T> *, size_t, cudaStream_t);
};
#define HIST_API(t) {#t, gp_histogram_even_##t, gp_histogram_range_##t}
static const hist_api<uint8_t> api_u8 = HIST_API(u8);
static const hist_api<uint16_t> api_u16 = HIST_API(u16);
static const hist_api<int32_t> api_i32 = HIST_API(i32);
static const hist_api<uint32_t> api_u32 = HIST_API(u32);
static const hist_api<float> api_f32 = HIST_API(f32);
static const hist_api<double> api_f64 = HIST_API(f64);

/* ---- the documented bin rules, on the host ------------------------------------------------------ */

template <class T>
struct binning {
    typedef bound_t<T> L;
    int even;
    uint64_t bins;
    L lower, upper;       /* even bins; for range bins the first and the last edge */
    std::vector<L> edges; /* range bins: bins + 1, strictly ascending */

    uint64_t bin_of(T v) const
    {
        const L x = (L)v; /* exact: integers as int64_t, floats as double */
        if (!(x >= lower && x < upper)) return bins; /* also NaN */
        if (!even) return (uint64_t)(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()) - 1;
        if constexpr (std::is_floating_point<T>::value) {
            volatile double t = x - lower, a = t * (double)bins, w = upper - lower, q = a / w; /* rounded as written */
            const double f = floor(q);
            return f < (double)bins ? (uint64_t)f : bins - 1;
        } else {
            const unsigned __int128 off = (unsigned __int128)((__int128)x - lower), w = (unsigned __int128)((__int128)upper - lower);
            return (uint64_t)(off * bins / w);
        }
    }
    /* The k-th edge (k in 0 .. bins): where bin k starts. */
    L edge(uint64_t k) const
    {
        if (!even) return edges[k];
        if constexpr (std::is_floating_point<T>::value) return lower + (double)k * (upper - lower) / (double)bins;
        else { /* the first integer of bin k: ceil(k * w / bins) past lower */
            const unsigned __int128 w = (unsigned __int128)((__int128)upper - lower);
            return (L)((__int128)lower + (__int128)((k * w + bins - 1) / bins));
        }
    }
};

/* ---- cases: bins, bounds, values -------------------------------------------------------------------- */

/* bins near the paths' limits: 1, byte-sized, the one-launch merge's 8192, shared memory's
 * end (about 58K 32-bit counters) and 2^16, anything between; rarely 2^20 + 3 and 2^24. */
static uint64_t pick_bins(uint64_t *st)
{
    const uint64_t r = gp_t_next(st);
    switch (r % 10) {
    case 0: return 1;
    case 1: return 2 + (r >> 8) % 15;
    case 2: return 255 + (r >> 8) % 3;
    case 3: return 8191 + (r >> 8) % 3;
    case 4: return 57000 + (r >> 8) % 8537;
    case 5: return 65536 - (r >> 8) % 2;
    default:
        if (r % 10 == 6 && (r >> 8) % 4 == 0) return (r >> 10 & 1) ? ((uint64_t)1 << 20) + 3 : MAX_BINS;
        const int k = 1 + (int)((r >> 16) % 16);
        return ((uint64_t)1 << k) + (r >> 24) % ((uint64_t)1 << k); /* 2 .. 2^17 - 1 */
    }
}

template <class T>
static void pick_bounds(binning<T> &b, uint64_t *st)
{
    typedef bound_t<T> L;
    const uint64_t r = gp_t_next(st), r2 = gp_t_next(st);
    if constexpr (std::is_floating_point<T>::value) { /* exactly representable bounds and edges */
        const double unit = ldexp(1.0, -(int)(r % 12)), a = (double)((int)(r2 % 2001) - 1000);
        const double p = ldexp(1.0, (int)((r2 >> 20) % 24) - 3);
        if (b.even) {
            const double lo[] = {0, -1, 0, -p, a, a * unit}, hi[] = {1, 1, (double)b.bins, p, a + 1 + (double)(r2 >> 40 & 1023), (a + 1) * unit};
            b.lower = lo[(r >> 8) % 6], b.upper = hi[(r >> 8) % 6];
        } else {
            b.edges.resize(b.bins + 1);
            const uint64_t gap = r >> 8 & 1 ? 8 : 1000;
            b.edges[0] = a * unit;
            for (uint64_t i = 1; i <= b.bins; i++) b.edges[i] = b.edges[i - 1] + (double)(1 + gp_t_next(st) % gap) * unit;
        }
    } else {
        const int64_t tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max(), span = tmax - tmin + 1;
        const int64_t at = tmin + (int64_t)(r2 % (uint64_t)span);
        if (b.even) {
            const int64_t w_shift = (int64_t)(b.bins << ((r >> 12) % 8)), w_div = (int64_t)b.bins * (int64_t)(1 + (r >> 16) % 1000);
            switch ((r >> 8) % 6) {
            case 0: b.lower = tmin, b.upper = tmax + 1; break;
            case 1: b.lower = at, b.upper = at + 1 + (int64_t)((r2 >> 32) % (uint64_t)span); break;
            case 2: b.lower = tmin - (int64_t)(r2 >> 32) % 1000, b.upper = tmax + 1 + (int64_t)(r2 >> 48) % 1000; break;
            case 3: b.lower = INT64_MIN, b.upper = INT64_MAX; break; /* the 128-bit division */
            case 4: b.lower = at - w_shift / 2, b.upper = b.lower + w_shift; break; /* a shift */
            default: b.lower = at - w_div / 2, b.upper = b.lower + w_div; /* a multiply by the reciprocal */
            }
        } else { /* gaps averaging about the type's span over the bins; sometimes all 1 */
            const uint64_t g = (r >> 8) % 4 == 0 ? 1 : std::max<uint64_t>(1, (uint64_t)span / b.bins);
            b.edges.resize(b.bins + 1);
            b.edges[0] = (r >> 10 & 1) ? tmin - (int64_t)(r2 % 16) : at / 2;
            for (uint64_t i = 1; i <= b.bins; i++) b.edges[i] = b.edges[i - 1] + (L)(1 + gp_t_next(st) % (2 * g - 1));
        }
    }
    if (!b.even) b.lower = b.edges.front(), b.upper = b.edges.back();
}

enum { V_UNIFORM, V_OUT, V_EDGE, V_SPECIAL, V_KINDS };
enum { H_UNIFORM, H_ONE_BIN, H_OUT, H_EDGES, H_SPECIAL, H_MIXED, H_COUNT };
static const char *const dist_name[H_COUNT] = {"uniform", "all in one bin", "out of range", "on bin edges", "specials", "mixed"};

/* An integer value of T near x (saturated at T's ends). */
template <class T>
static T int_near(__int128 x)
{
    const __int128 lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    return (T)(x < lo ? lo : x > hi ? hi : x);
}

/* One value of a kind: uniform over the bins and a sixteenth beyond each end, outside them,
 * at an edge or one step from it, or special (NaN of both signs, +-inf, +-0.0, the smallest
 * denormal, the bounds; for integers T's ends and the bounds). */
template <class T>
static T make_value(const binning<T> &b, int kind, uint64_t r)
{
    const double u = (double)(r >> 11) * 0x1p-53;
    if constexpr (std::is_floating_point<T>::value) {
        const double lo = b.lower, w = b.upper - b.lower;
        const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
        const T e = (T)b.edge(r % (b.bins + 1)), ed[] = {e, nextafter(e, -inf), nextafter(e, inf)};
        const T out[] = {(T)b.upper, nextafter((T)b.upper, inf), (T)(b.upper + u * w), (T)(lo - (1 + u) * w), nextafter((T)lo, -inf), inf, -inf, nan};
        const T sp[] = {nan, -nan, inf, -inf, (T)0.0, (T)-0.0, std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                        (T)lo, (T)b.upper, nextafter((T)b.upper, -inf), std::numeric_limits<T>::max()};
        switch (kind) {
        case V_OUT: return out[(r >> 4) % 8];
        case V_EDGE: return ed[(r >> 4) % 3];
        case V_SPECIAL: return sp[(r >> 4) % 12];
        default: return (T)(lo - w / 16 + u * w * 1.125);
        }
    } else {
        const __int128 lo = b.lower, hi = b.upper, w = hi - lo;
        const __int128 tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max();
        const __int128 a = std::max(lo - w / 16, tmin), z = std::min(hi + w / 16, tmax + 1);
        const __int128 sp[] = {tmin, tmax, 0, lo, hi - 1, hi};
        switch (kind) {
        case V_OUT: return int_near<T>(r >> 4 & 1 ? lo - 1 - (__int128)(r >> 8 & 63) : hi + (__int128)(r >> 8 & 63));
        case V_EDGE: return int_near<T>((__int128)b.edge(r % (b.bins + 1)) - 1 + (__int128)((r >> 40) % 3));
        case V_SPECIAL: return int_near<T>(sp[(r >> 4) % 6]);
        default: return a < z ? (T)(a + (__int128)((r >> 8) % (uint64_t)(z - a))) : int_near<T>(lo + (__int128)(r >> 8));
        }
    }
}

template <class T>
static void make_values(std::vector<T> &x, const binning<T> &b, size_t n, int dist, uint64_t *st)
{
    static const int kind_of[H_COUNT] = {V_UNIFORM, V_UNIFORM, V_OUT, V_EDGE, V_SPECIAL, V_UNIFORM};
    const T x0 = make_value(b, V_UNIFORM, gp_t_next(st));
    const uint64_t bin0 = b.bin_of(x0);
    x.resize(n);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        if (dist == H_ONE_BIN) { /* x0, or a neighbour of it in the same bin */
            T y = x0;
            if constexpr (std::is_floating_point<T>::value) y = nextafter(x0, r & 1 ? (T)INFINITY : (T)-INFINITY);
            else y = int_near<T>((__int128)x0 + (__int128)(r % 5) - 2);
            x[i] = r >> 8 & 1 && b.bin_of(y) == bin0 ? y : x0;
        } else {
            x[i] = make_value(b, dist == H_MIXED ? (int)(r >> 60) % V_KINDS : kind_of[dist], r);
        }
    }
}

/* ---- one case ------------------------------------------------------------------------------------- */

struct hist_env {
    const stress_family_ctx *ctx;
    unsigned char *in, *hist, *edges; /* hist: FRONT + counts at an offset + GUARD */
    cudaStream_t s1, s2;              /* non-blocking: the usual stream, and the second run's */
};

struct hist_case {
    uint64_t id, st;
    size_t n, in_off, hist_off; /* in bytes, in counts */
    int dist, twice;
    cudaStream_t s;
};

/* n near the warp, 1024 .. 2^16, the small path's 64 KB and a block's 32 KB chunk, up to
 * 2^20, and 1 in 64 up to `cap`. */
static size_t pick_size(uint64_t *st, size_t elem, size_t cap)
{
    const size_t edges[] = {32, 1024, 2048, 4096, 8192, 65536, 32768 / elem, 65536 / elem};
    return family::pick_n(st, edges, sizeof edges / sizeof *edges, 20, 64, cap);
}

static uint64_t *hist_at(const hist_env &e, size_t off) { return (uint64_t *)(e.hist + FRONT) + off; }

/* Poisons the counts, calls the library on stream s, waits, and reads the counts back. */
template <class T>
static cudaError_t call_and_read(const hist_env &e, const hist_case &c, const hist_api<T> &a, const binning<T> &b,
                                 std::vector<uint64_t> &got, cudaStream_t s)
{
    const size_t hb = b.bins * sizeof(uint64_t);
    cudaError_t err = cudaMemsetAsync(e.hist, POISON, FRONT + c.hist_off * 8 + hb + GUARD, s);
    if (err) return err;
    const T *in = (const T *)(e.in + c.in_off);
    err = b.even ? a.even(hist_at(e, c.hist_off), in, c.n, b.bins, b.lower, b.upper, s)
                 : a.range(hist_at(e, c.hist_off), in, c.n, (const bound_t<T> *)e.edges, b.bins, s);
    const cudaError_t done = cudaStreamSynchronize(s);
    got.resize(b.bins);
    if (!err && !done) err = cudaMemcpy(got.data(), hist_at(e, c.hist_off), hb, cudaMemcpyDeviceToHost);
    return err ? err : done;
}

/* The counts' guards: everything before them and GUARD bytes after still poisoned. */
static bool guards_ok(const hist_env &e, size_t hist_off, size_t bins)
{
    unsigned char front[FRONT + 8 * HIST_OFF_MAX], back[GUARD];
    const size_t fb = FRONT + 8 * hist_off;
    if (cudaMemcpy(front, e.hist, fb, cudaMemcpyDeviceToHost) || cudaMemcpy(back, hist_at(e, hist_off) + bins, GUARD, cudaMemcpyDeviceToHost))
        return false;
    return std::count(front, front + fb, (unsigned char)POISON) == (long)fb && std::count(back, back + GUARD, (unsigned char)POISON) == GUARD;
}

template <class T>
static void bounds_text(char *out, size_t cap, const binning<T> &b)
{
    if constexpr (std::is_floating_point<T>::value)
        snprintf(out, cap, b.even ? "even [%.17g, %.17g)" : "range edges %.17g .. %.17g", b.lower, b.upper);
    else snprintf(out, cap, b.even ? "even [%lld, %lld)" : "range edges %lld .. %lld", (long long)b.lower, (long long)b.upper);
}

template <class T>
static bool run_case(const hist_env &e, hist_case &c, const hist_api<T> &a)
{
    binning<T> b;
    const uint64_t r = gp_t_next(&c.st);
    b.even = (int)(r & 1);
    b.bins = pick_bins(&c.st);
    const size_t step = sizeof(T) < 4 ? sizeof(T) : 4; /* any alignment T allows; 8-byte T at 4-byte steps */
    c.in_off = (size_t)((r >> 8) % MAX_OFF) / step * step;
    /* past 2^16 bins the host's reference misses its cache at every element: at most 2^21 */
    c.n = pick_size(&c.st, sizeof(T), b.bins > 65536 ? (size_t)1 << 21 : CAP_BYTES / sizeof(T));
    pick_bounds(b, &c.st);
    std::vector<T> x;
    make_values(x, b, c.n, c.dist, &c.st);
    e.ctx->beat("histogram: host reference");
    std::vector<uint64_t> want(b.bins, 0), got, again;
    for (size_t i = 0; i < c.n; i++) {
        const uint64_t k = b.bin_of(x[i]);
        if (k < b.bins) want[k]++;
    }
    e.ctx->beat("histogram cases");

    cudaError_t err = cudaMemcpyAsync(e.in + c.in_off, x.data(), c.n * sizeof(T), cudaMemcpyHostToDevice, c.s);
    if (!err && !b.even) err = cudaMemcpyAsync(e.edges, b.edges.data(), b.edges.size() * sizeof(b.edges[0]), cudaMemcpyHostToDevice, c.s);
    if (!err) err = call_and_read(e, c, a, b, got, c.s);
    char why[160] = "";
    bool ok = err == cudaSuccess;
    if (!ok) snprintf(why, sizeof why, "returned %s", cudaGetErrorName(err));
    for (uint64_t k = 0; ok && k < b.bins; k++)
        if (got[k] != want[k]) {
            snprintf(why, sizeof why, "bin %llu: %llu, want %llu", (unsigned long long)k, (unsigned long long)got[k],
                     (unsigned long long)want[k]);
            ok = false;
        }
    if (ok && !guards_ok(e, c.hist_off, b.bins)) ok = false, snprintf(why, sizeof why, "guard bytes written");
    if (ok && c.twice) { /* the same call on the second stream: the same counts */
        err = call_and_read(e, c, a, b, again, e.s2);
        ok = err == cudaSuccess && again == got && guards_ok(e, c.hist_off, b.bins);
        if (!ok) snprintf(why, sizeof why, "second run on another stream differs (%s)", cudaGetErrorName(err));
    }
    char bounds[96];
    bounds_text(bounds, sizeof bounds, b);
    FEXPECT(ok, "histogram case %llu: gp_histogram_%s_%s, n %zu, bins %llu, %s, %s, input offset %zu B, counts offset %zu, "
            "stream %s%s: %s; replay: GP_TEST_SEED=%llu build/tests/stress --only histogram",
            (unsigned long long)c.id, b.even ? "even" : "range", a.name, c.n, (unsigned long long)b.bins, bounds,
            dist_name[c.dist], c.in_off, c.hist_off, c.s ? "non-blocking" : "0", c.twice ? ", run twice" : "", why,
            (unsigned long long)e.ctx->seed);
    return ok;
}

static bool run_one(const hist_env &e, uint64_t id, uint64_t st)
{
    hist_case c;
    memset(&c, 0, sizeof c);
    c.id = id;
    c.st = st;
    const uint64_t r = gp_t_next(&c.st);
    c.dist = (int)((r >> 8) % H_COUNT);
    c.twice = (r >> 16) % 8 == 0;
    c.s = (r >> 20) % 4 == 0 ? (cudaStream_t)0 : e.s1;
    c.hist_off = (size_t)((r >> 24) % (HIST_OFF_MAX + 1));
    switch (r % 6) {
    case 0: return run_case(e, c, api_u8);
    case 1: return run_case(e, c, api_u16);
    case 2: return run_case(e, c, api_i32);
    case 3: return run_case(e, c, api_u32);
    case 4: return run_case(e, c, api_f32);
    default: return run_case(e, c, api_f64);
    }
}

/* ---- bad inputs: refused, nothing launched; n 0 zeroes the counts ----------------------------- */

template <class T>
static void check_bad_inputs(const hist_env &e, const hist_api<T> &a)
{
    typedef bound_t<T> L;
    const cudaError_t inval = cudaErrorInvalidValue;
    uint64_t *h = hist_at(e, 0);
    const T *in = (const T *)e.in;
    const L *ed = (const L *)e.edges, lo = 0, hi = 200;
    FEXPECT(a.even(h, in, 5, 0, lo, hi, e.s1) == inval && a.range(h, in, 5, ed, 0, e.s1) == inval &&
                a.even(h, in, 5, ((size_t)1 << 32) + 1, lo, hi, e.s1) == inval,
            "gp_histogram_*_%s: bins 0 or above 2^32 are refused", a.name);
    FEXPECT(a.even(h, in, 5, 4, hi, lo, e.s1) == inval && a.even(h, in, 5, 4, lo, lo, e.s1) == inval,
            "gp_histogram_even_%s: lower >= upper is refused", a.name);
    if constexpr (std::is_floating_point<T>::value)
        FEXPECT(a.even(h, in, 5, 4, NAN, hi, e.s1) == inval && a.even(h, in, 5, 4, lo, INFINITY, e.s1) == inval &&
                    a.even(h, in, 5, 4, -INFINITY, hi, e.s1) == inval,
                "gp_histogram_even_%s: NaN or infinite bounds are refused", a.name);
    FEXPECT(a.even(NULL, in, 5, 4, lo, hi, e.s1) == inval && a.even(h, NULL, 5, 4, lo, hi, e.s1) == inval &&
                a.range(NULL, in, 5, ed, 4, e.s1) == inval && a.range(h, NULL, 5, ed, 4, e.s1) == inval &&
                a.range(h, in, 5, NULL, 4, e.s1) == inval,
            "gp_histogram_*_%s: a NULL pointer with n 5 is refused", a.name);
    FEXPECT(a.even(h, (const T *)h, 5, 4, lo, hi, e.s1) == inval, "gp_histogram_even_%s: counts over the input are refused", a.name);
    /* n 0: the counts are zeroed, NULL input allowed */
    std::vector<uint64_t> got(7, 1);
    bool ok = cudaMemsetAsync(e.hist, POISON, FRONT + 7 * 8 + GUARD, e.s1) == cudaSuccess &&
              a.even(h, NULL, 0, 7, lo, hi, e.s1) == cudaSuccess && cudaStreamSynchronize(e.s1) == cudaSuccess &&
              cudaMemcpy(got.data(), h, 7 * 8, cudaMemcpyDeviceToHost) == cudaSuccess;
    FEXPECT(ok && std::count(got.begin(), got.end(), 0ull) == 7 && guards_ok(e, 0, 7),
            "gp_histogram_even_%s: n 0 with a NULL input zeroes the 7 counts, nothing past them", a.name);
}

/* ---- the section ------------------------------------------------------------------------------------ */

void stress_histogram(const stress_family_ctx *ctx)
{
    gp_t_section("families: histogram even and range bins, random cases for %.0f s", ctx->seconds);
    hist_env e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    bool ok = cudaMalloc((void **)&e.in, CAP_BYTES + MAX_OFF) == cudaSuccess &&
              cudaMalloc((void **)&e.hist, FRONT + 8 * (HIST_OFF_MAX + MAX_BINS) + GUARD) == cudaSuccess &&
              cudaMalloc((void **)&e.edges, 8 * (MAX_BINS + 1)) == cudaSuccess &&
              cudaStreamCreateWithFlags(&e.s1, cudaStreamNonBlocking) == cudaSuccess &&
              cudaStreamCreateWithFlags(&e.s2, cudaStreamNonBlocking) == cudaSuccess;
    FEXPECT(ok, "histogram stress: input, counts and edges buffers (about 400 MB) and 2 streams");
    if (ok) {
        check_bad_inputs(e, api_u8), check_bad_inputs(e, api_u16), check_bad_inputs(e, api_i32);
        check_bad_inputs(e, api_u32), check_bad_inputs(e, api_f32), check_bad_inputs(e, api_f64);
        family::run_cases(ctx, "histogram", "histogram cases", [&](uint64_t id, uint64_t st, uint64_t *wrong) {
            *wrong += !run_one(e, id, st);
            return true;
        });
    }
    cudaFree(e.in), cudaFree(e.hist), cudaFree(e.edges);
    if (e.s1) cudaStreamDestroy(e.s1);
    if (e.s2) cudaStreamDestroy(e.s2);
}
