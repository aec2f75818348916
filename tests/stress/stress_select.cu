/* tests/stress/stress_select.cu -- the compaction family under random cases (families.h):
 * gp_select_flagged_<t>, gp_partition_flagged_<t>, gp_nonzero_<t>, gp_unique_<t>,
 * gp_run_length_<t> for the six default types, and the predicate form (GP_DEFINE_SELECT:
 * gp_select_ / gp_partition_ of a user instance, x < p on int32_t). Each case comes from
 * (seed, case number): a size biased to the edges, a keep or run pattern, misaligned
 * pointers, in place or not, a stream; its outputs are poisoned with guards on both sides
 * and checked against a sequential host reference, untouched past the count, and for some
 * cases bitwise equal on a second run on another stream. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "families.h"
#include "family_util.h"

#include <limits>
#include <type_traits>
#include <vector>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The predicate form: keeps x < p. A user instance, so the stress covers the macro's path too. */
#define STRESS_BELOW(x, p) ((x) < (p))
GP_DEFINE_SELECT(stress_below_i32, int32_t, int32_t, STRESS_BELOW)

namespace {

const size_t CAP_BYTES = (size_t)1 << 28;    /* one input or output: 2^26 4-byte or 2^25 8-byte items */
const size_t CAP_N = (size_t)1 << 26;
const char *const REPLAY = "build/tests/stress --only select";

using namespace family; /* the families' shared helpers (family_util.h) */

/* ---- inputs ------------------------------------------------------------------------------ */

enum { K_SELECT, K_PARTITION, K_NONZERO, K_UNIQUE, K_RUNS, K_PRED_SELECT, K_PRED_PARTITION, K_KINDS };
const char *const KIND_NAME[] = {"gp_select_flagged", "gp_partition_flagged", "gp_nonzero", "gp_unique",
                                 "gp_run_length", "gp_select_stress_below", "gp_partition_stress_below"};
/* keep patterns (select, partition, nonzero, predicate) and run patterns (unique, run-length) */
const char *const KEEP_NAME[] = {"none kept", "all kept", "p=0.5", "p=0.1", "p=0.9", "alternating",
                                 "runs of 8", "runs of 1024", "random runs", "random p"};
const char *const RUN_NAME[] = {"all equal", "runs of 1", "runs of 8", "runs of 1024", "random runs",
                                "two values alternating", "values in 0..2", "specials"};
const int KEEP_DISTS = 10, RUN_DISTS = 8;

template <class T>
T special_value(uint64_t *st)
{
    if constexpr (std::is_floating_point<T>::value) {
        const T v[] = {(T)0, -(T)0, (T)NAN, (T)INFINITY, -(T)INFINITY, (T)1, std::numeric_limits<T>::denorm_min()};
        return v[below(st, 7)];
    } else {
        const T v[] = {(T)0, (T)1, (T)-1, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
        return v[below(st, 5)];
    }
}

/* Mostly plain values, a few specials (floats: +-0, NaN, infinities, a denormal). */
template <class T>
T random_value(uint64_t *st)
{
    const uint64_t r = gp_t_next(st);
    if ((r & 15) == 0) return special_value<T>(st);
    if constexpr (std::is_floating_point<T>::value) return (T)(int32_t)(r >> 32) * (T)0x1p-12;
    else return (T)(r >> 8);
}

/* Run lengths of the patterned distributions: 1, 8, 1024, or random (mostly short). */
size_t run_length_of(uint64_t *st, int pattern)
{
    const size_t fixed[] = {1, 8, 1024};
    return pattern < 3 ? fixed[pattern] : 1 + below(st, 1 + below(st, 5000));
}

/* keep[i] in 0/1 by a keep pattern; the flag byte is any nonzero value where kept. */
void make_keep(uint64_t *st, int dist, size_t n, std::vector<uint8_t> &flags)
{
    const double p[] = {0, 1, 0.5, 0.1, 0.9};
    const double prob = dist < 5 ? p[dist] : dist == 9 ? (double)below(st, 1001) / 1000 : 0;
    const uint64_t thr = (uint64_t)(prob * 18446744073709549568.0);
    int keep = (int)below(st, 2);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        int k;
        if (dist < 5 || dist == 9) k = dist == 1 ? 1 : r < thr;
        else if (dist == 5) k = (int)(i & 1);
        else {
            if (left == 0) left = run_length_of(st, dist == 6 ? 1 : dist == 7 ? 2 : 3), keep ^= 1;
            left--, k = keep;
        }
        flags[i] = k ? (uint8_t)(1 + (r >> 56) % 255) : 0;
    }
}

/* Values for unique and run-length by a run pattern. */
template <class T>
void make_runs(uint64_t *st, int dist, size_t n, std::vector<T> &in)
{
    const T a = random_value<T>(st), b = random_value<T>(st);
    T cur = a;
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        if (dist == 0) in[i] = a;
        else if (dist == 5) in[i] = i & 1 ? b : a;
        else if (dist == 6) in[i] = (T)below(st, 3);
        else if (dist == 7) in[i] = special_value<T>(st);
        else {
            if (left == 0) left = run_length_of(st, dist - 1), cur = random_value<T>(st);
            left--, in[i] = cur;
        }
    }
}

/* The input of a case; flags for the flagged kinds, zeros where not kept for nonzero, x < p
 * where kept for the predicate. */
template <class T>
void make_input(uint64_t *st, int kind, int dist, size_t n, T p, std::vector<T> &in, std::vector<uint8_t> &flags)
{
    if (kind == K_UNIQUE || kind == K_RUNS) return make_runs(st, dist, n, in);
    make_keep(st, dist, n, flags);
    for (size_t i = 0; i < n; i++) {
        T v = random_value<T>(st);
        if (kind == K_NONZERO) {
            if (!flags[i]) v = below(st, 2) ? (T)0 : (T)-(T)0;   /* -0.0 is zero too */
            else if (v == (T)0) v = (T)1;
        } else if (kind >= K_PRED_SELECT) {
            const T d = (T)below(st, 1u << 20);
            v = flags[i] ? (T)(p - 1 - d) : (T)(p + d);
        }
        in[i] = v;
    }
}

/* ---- reference --------------------------------------------------------------------------- */

/* Expected outputs as bytes: out1 (kept, indices, or run values), out2 (rejected or lengths). */
struct expected {
    std::vector<uint8_t> out1, out2;
    uint64_t count;
};

template <class T>
void reference(int kind, const std::vector<T> &in, const std::vector<uint8_t> &flags, size_t n, T p, expected *e)
{
    e->out1.clear(), e->out2.clear(), e->count = 0;
    for (size_t i = 0; i < n; i++) {
        const T x = in[i];
        const bool head = i == 0 || !(in[i - 1] == x); /* floats by ==: -0.0 joins 0.0, NaN stands alone */
        switch (kind) {
        case K_SELECT: case K_PARTITION: case K_PRED_SELECT: case K_PRED_PARTITION: {
            const bool keep = kind >= K_PRED_SELECT ? STRESS_BELOW(x, p) : flags[i] != 0;
            if (keep) put(e->out1, x), e->count++;
            else if (kind == K_PARTITION || kind == K_PRED_PARTITION) put(e->out2, x);
            break;
        }
        case K_NONZERO: if (x != (T)0) put(e->out1, (uint64_t)i), e->count++; break;
        case K_UNIQUE: if (head) put(e->out1, x), e->count++; break;
        case K_RUNS: {
            if (head) put(e->out1, x), put(e->out2, (uint64_t)0), e->count++;
            uint64_t *len = (uint64_t *)(e->out2.data() + (e->count - 1) * 8); /* the open run */
            ++*len;
            break;
        }
        }
    }
}

/* ---- the call ---------------------------------------------------------------------------- */

template <class T>
struct api {
    cudaError_t (*select)(T *, uint64_t *, const T *, const uint8_t *, size_t, cudaStream_t);
    cudaError_t (*partition)(T *, T *, uint64_t *, const T *, const uint8_t *, size_t, cudaStream_t);
    cudaError_t (*nonzero)(uint64_t *, uint64_t *, const T *, size_t, cudaStream_t);
    cudaError_t (*unique)(T *, uint64_t *, const T *, size_t, cudaStream_t);
    cudaError_t (*runs)(T *, uint64_t *, uint64_t *, const T *, size_t, cudaStream_t);
};
#define STRESS_SEL_API(t, T) \
    const api<T> api_##t = {gp_select_flagged_##t, gp_partition_flagged_##t, gp_nonzero_##t, gp_unique_##t, gp_run_length_##t};
STRESS_SEL_API(i32, int32_t) STRESS_SEL_API(u32, uint32_t) STRESS_SEL_API(i64, int64_t)
STRESS_SEL_API(u64, uint64_t) STRESS_SEL_API(f32, float) STRESS_SEL_API(f64, double)
const api<int32_t> &api_of(int32_t) { return api_i32; }
const api<uint32_t> &api_of(uint32_t) { return api_u32; }
const api<int64_t> &api_of(int64_t) { return api_i64; }
const api<uint64_t> &api_of(uint64_t) { return api_u64; }
const api<float> &api_of(float) { return api_f32; }
const api<double> &api_of(double) { return api_f64; }

template <class T>
cudaError_t call(int kind, T *out1, void *out2, uint64_t *count, const T *in, const uint8_t *flags, size_t n, T p,
                 cudaStream_t s)
{
    const api<T> &a = api_of(T());
    switch (kind) {
    case K_SELECT: return a.select(out1, count, in, flags, n, s);
    case K_PARTITION: return a.partition(out1, (T *)out2, count, in, flags, n, s);
    case K_NONZERO: return a.nonzero((uint64_t *)out1, count, in, n, s);
    case K_UNIQUE: return a.unique(out1, count, in, n, s);
    case K_RUNS: return a.runs(out1, (uint64_t *)out2, count, in, n, s);
    }
    if constexpr (std::is_same<T, int32_t>::value) {
        if (kind == K_PRED_SELECT) return gp_select_stress_below_i32(out1, count, in, n, p, s);
        return gp_partition_stress_below_i32(out1, (T *)out2, count, in, n, p, s);
    }
    return cudaErrorInvalidValue;
}

/* The section's device buffers, allocated once. */
struct buffers {
    uint8_t *in, *flags, *out1, *out2, *count;
};

/* What one run copies back: both outputs and the count, guards included. */
struct got {
    std::vector<uint8_t> out1, out2, count;
};

struct plan {
    uint64_t id;
    int kind, dist;
    size_t n;
    region r1, r2, rc;
    const uint8_t *d_in, *d_flags;
    bool in_place;
    char desc[200];
};

/* Poisons the outputs, places an in-place input, calls, copies everything back. False when
 * the GPU failed; the call's own result goes to *e. */
template <class T>
bool run_once(const plan &c, const std::vector<T> &in, T p, cudaStream_t s, got *g, cudaError_t *e)
{
    const region *rs[] = {&c.r1, &c.r2, &c.rc};
    std::vector<uint8_t> *gs[] = {&g->out1, &g->out2, &g->count};
    for (const region *r : rs)
        if (!cuda_ok(cudaMemsetAsync(r->base, POISON, r->span(), s), "poison", c.desc)) return false;
    if (c.in_place && !cuda_ok(cudaMemcpyAsync(c.r1.data(), in.data(), c.n * sizeof(T), cudaMemcpyHostToDevice, s), "upload", c.desc))
        return false;
    *e = call<T>(c.kind, (T *)c.r1.data(), c.r2.data(), (uint64_t *)c.rc.data(),
                 c.in_place ? (const T *)c.r1.data() : (const T *)c.d_in, c.d_flags, c.n, p, s);
    FEXPECT(*e == cudaSuccess, "%s: returned %s", c.desc, cudaGetErrorString(*e));
    if (!cuda_ok(cudaStreamSynchronize(s), "the call's stream", c.desc)) return false;
    for (int k = 0; k < 3; k++) {
        gs[k]->resize(rs[k]->span());
        if (!cuda_ok(cudaMemcpy(gs[k]->data(), rs[k]->base, rs[k]->span(), cudaMemcpyDeviceToHost), "copy back", c.desc))
            return false;
    }
    return true;
}

/* One case of type T: returns false when the GPU failed (the section stops). */
template <class T>
bool run_case(uint64_t *st, plan &c, const buffers &b, cudaStream_t s1, cudaStream_t s2, uint64_t seed, int *wrong)
{
    std::vector<T> in;
    std::vector<uint8_t> flags;
    expected e;
    const size_t sz = sizeof(T), out1_size = c.kind == K_NONZERO ? 8 : sz;
    const size_t out2_size = c.kind == K_RUNS ? 8 : (c.kind == K_PARTITION || c.kind == K_PRED_PARTITION) ? sz : 0;
    c.n = pick_n(st, CAP_N / (sz / 4));
    c.dist = (int)below(st, c.kind == K_UNIQUE || c.kind == K_RUNS ? RUN_DISTS : KEEP_DISTS);
    const T p = (T)(int32_t)(below(st, 2001) - 1000);
    in.resize(c.n), flags.resize(c.n);
    make_input<T>(st, c.kind, c.dist, c.n, p, in, flags);
    reference<T>(c.kind, in, flags, c.n, p, &e);

    /* misaligned by 0..3 elements (flags by 0..3 bytes); in place for select and unique */
    const unsigned off_in = (unsigned)below(st, 4), off_out = (unsigned)below(st, 4), off_flags = (unsigned)below(st, 4);
    c.in_place = (c.kind == K_SELECT || c.kind == K_UNIQUE || c.kind == K_PRED_SELECT) && below(st, 5) == 0;
    c.r1 = {b.out1, off_out * out1_size, c.n * out1_size};
    c.r2 = {b.out2, (size_t)below(st, 4) * out2_size, c.n * out2_size};
    c.rc = {b.count, 0, 8};
    c.d_in = b.in + GUARD + off_in * sz, c.d_flags = c.kind <= K_PARTITION ? b.flags + GUARD + off_flags : NULL;
    const bool on_default = below(st, 4) == 0, twice = below(st, 4) == 0;
    cudaStream_t s = on_default ? (cudaStream_t)0 : s1;
    snprintf(c.desc, sizeof c.desc, "select case %llu: %s_%s n=%zu %s, offsets in/out/flags %u/%u/%u%s%s",
             (unsigned long long)c.id, KIND_NAME[c.kind], type_name<T>(), c.n, (c.kind == K_UNIQUE || c.kind == K_RUNS ? RUN_NAME : KEEP_NAME)[c.dist], off_in, off_out, off_flags,
             c.in_place ? ", in place" : "", on_default ? ", stream 0" : "");

    if (!c.in_place && !cuda_ok(cudaMemcpyAsync((void *)c.d_in, in.data(), c.n * sz, cudaMemcpyHostToDevice, s), "upload", c.desc))
        return false;
    if (c.d_flags && !cuda_ok(cudaMemcpyAsync((void *)c.d_flags, flags.data(), c.n, cudaMemcpyHostToDevice, s), "upload", c.desc))
        return false;
    got g1, g2;
    cudaError_t e1, e2;
    if (!run_once<T>(c, in, p, s, &g1, &e1)) return ++*wrong, false;

    char why[160] = "";
    uint64_t count;
    memcpy(&count, g1.count.data() + GUARD, 8);
    const bool count_ok = region_ok(g1.count, c.rc, &e.count, 8, NULL, why, sizeof why);
    FEXPECT(count_ok, "%s: count %llu, want %llu (%s); replay: GP_TEST_SEED=%llu %s", c.desc, (unsigned long long)count,
            (unsigned long long)e.count, why, (unsigned long long)seed, REPLAY);
    const bool ok1 = region_ok(g1.out1, c.r1, e.out1.data(), e.out1.size(), c.in_place ? (const void *)in.data() : NULL, why, sizeof why);
    FEXPECT(ok1, "%s: first output: %s; replay: GP_TEST_SEED=%llu %s", c.desc, why, (unsigned long long)seed, REPLAY);
    const bool ok2 = region_ok(g1.out2, c.r2, e.out2.data(), e.out2.size(), NULL, why, sizeof why);
    FEXPECT(ok2, "%s: %s: %s; replay: GP_TEST_SEED=%llu %s", c.desc, c.kind == K_RUNS ? "lengths" : "rejected", why,
            (unsigned long long)seed, REPLAY);
    bool same = true;
    if (twice) { /* deterministic: bitwise the same again, on the other stream */
        if (!run_once<T>(c, in, p, s == s1 ? s2 : s1, &g2, &e2)) return ++*wrong, false;
        same = g1.out1 == g2.out1 && g1.out2 == g2.out2 && g1.count == g2.count;
        FEXPECT(same, "%s: a second run on another stream differs; replay: GP_TEST_SEED=%llu %s", c.desc,
                (unsigned long long)seed, REPLAY);
    }
    *wrong += !(e1 == cudaSuccess && count_ok && ok1 && ok2 && same);
    return true;
}

/* ---- bad input: cudaErrorInvalidValue, nothing written --------------------------------------- */

void bad_inputs(const buffers &b, cudaStream_t s)
{
    const size_t n = 100;
    float *in = (float *)(b.in + GUARD), *out = (float *)(b.out1 + GUARD);
    const uint8_t *fl = b.flags + GUARD;
    uint64_t *cnt = (uint64_t *)(b.count + GUARD);
    int32_t *iin = (int32_t *)in, *iout = (int32_t *)out;
    struct { const char *what; cudaError_t e; } calls[] = {
        {"select, NULL input", gp_select_flagged_f32(out, cnt, NULL, fl, n, s)},
        {"select, NULL flags", gp_select_flagged_f32(out, cnt, in, NULL, n, s)},
        {"select, NULL output", gp_select_flagged_f32(NULL, cnt, in, fl, n, s)},
        {"select, NULL count with n == 0", gp_select_flagged_f32(out, NULL, in, fl, 0, s)},
        {"select, output one element into the input", gp_select_flagged_f32(in + 1, cnt, in, fl, n, s)},
        {"select, count inside the output", gp_select_flagged_f32(out, (uint64_t *)(out + 8), in, fl, n, s)},
        {"partition, NULL rejected", gp_partition_flagged_f32(out, NULL, cnt, in, fl, n, s)},
        {"partition, rejected == selected", gp_partition_flagged_f32(out, out, cnt, in, fl, n, s)},
        {"nonzero, NULL indices", gp_nonzero_f32(NULL, cnt, in, n, s)},
        {"nonzero, indices over the input", gp_nonzero_f32((uint64_t *)in, cnt, in, n, s)},
        {"unique, NULL input", gp_unique_f32(out, cnt, NULL, n, s)},
        {"run-length, NULL lengths", gp_run_length_f32(out, NULL, cnt, in, n, s)},
        {"run-length, lengths over the values", gp_run_length_f32(out, (uint64_t *)out, cnt, in, n, s)},
        {"predicate select, NULL input", gp_select_stress_below_i32(iout, cnt, NULL, n, 0, s)},
        {"predicate partition, NULL rejected", gp_partition_stress_below_i32(iout, NULL, cnt, iin, n, 0, s)},
    };
    for (const auto &c : calls)
        FEXPECT(c.e == cudaErrorInvalidValue, "select bad input: %s gave %s, want cudaErrorInvalidValue; replay: %s",
                c.what, cudaGetErrorString(c.e), REPLAY);
}

/* Poison, run the bad calls, and check nothing was written. */
void bad_input_checks(const buffers &b, cudaStream_t s)
{
    const size_t span = 2 * GUARD + 100 * 8;
    for (uint8_t *p : {b.out1, b.out2, b.count}) cuda_ok(cudaMemset(p, POISON, span), "poison", "select bad input");
    bad_inputs(b, s);
    cuda_ok(cudaDeviceSynchronize(), "sync", "select bad input");
    family::expect_untouched({b.out1, b.out2, b.count}, span, "select bad input", REPLAY);
}

} // namespace

void stress_select(const stress_family_ctx *ctx)
{
    gp_t_section("families: select, partition, nonzero, unique, run-length, random cases for %.0f s", ctx->seconds);
    buffers b = {};
    const size_t big = CAP_BYTES + 2 * GUARD + 64;
    cudaStream_t s1 = NULL, s2 = NULL;
    bool ok = cuda_ok(cudaMalloc(&b.in, big), "cudaMalloc", "select") && cuda_ok(cudaMalloc(&b.flags, CAP_N + 2 * GUARD + 64), "cudaMalloc", "select") &&
              cuda_ok(cudaMalloc(&b.out1, 2 * big), "cudaMalloc", "select") && cuda_ok(cudaMalloc(&b.out2, 2 * big), "cudaMalloc", "select") &&
              cuda_ok(cudaMalloc(&b.count, 2 * GUARD + 100 * 8), "cudaMalloc", "select") &&
              cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream", "select") &&
              cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream", "select");
    if (ok) bad_input_checks(b, s1);

    if (ok)
        family::run_cases(ctx, "select", "select cases", [&](uint64_t id, uint64_t st, uint64_t *wrong) {
            plan c = {};
            c.id = id;
            c.kind = (int)below(&st, K_KINDS);
            int w = 0;
            bool fine;
            switch (c.kind >= K_PRED_SELECT ? 0 : below(&st, 6)) {
            case 0: fine = run_case<int32_t>(&st, c, b, s1, s2, ctx->seed, &w); break;
            case 1: fine = run_case<uint32_t>(&st, c, b, s1, s2, ctx->seed, &w); break;
            case 2: fine = run_case<int64_t>(&st, c, b, s1, s2, ctx->seed, &w); break;
            case 3: fine = run_case<uint64_t>(&st, c, b, s1, s2, ctx->seed, &w); break;
            case 4: fine = run_case<float>(&st, c, b, s1, s2, ctx->seed, &w); break;
            default: fine = run_case<double>(&st, c, b, s1, s2, ctx->seed, &w); break;
            }
            *wrong += (uint64_t)w;
            return fine;
        });
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    for (uint8_t *p : {b.in, b.flags, b.out1, b.out2, b.count}) cudaFree(p);
}
