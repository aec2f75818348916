/* tests/stress/stress_segmented.cu -- the segments family under random cases (families.h):
 * gp_segmented_reduce_<op>_<t> (CSR offsets), gp_reduce_rows_ / gp_reduce_cols_<op>_<t>
 * (rows, cols, ld), gp_inclusive_ / gp_exclusive_segmented_scan_<op>_<t> (head flags) for
 * op in sum min max and the six types, and the sixteen gp_reduce_by_key_sum_<k>_<v>. Each
 * case comes from (seed, case number): shapes biased to the edges (no segments, empty
 * segments, length 1 and 32, power-law lengths, one huge segment, rows or cols 0 and 1,
 * ld > cols with trap values in the padding), misaligned pointers, in place for the scans,
 * a stream. Outputs are poisoned with guards and must equal a sequential host reference
 * bitwise: integer sums stay in range, float sums use multiples of 2^-8 small enough that
 * every partial sum of a segment is exact, so the association does not matter. */
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

namespace {

const size_t CAP_BYTES = (size_t)1 << 28; /* one input or output buffer's data */
const char *const REPLAY = "build/tests/stress --only segmented";

using namespace family; /* the families' shared helpers (family_util.h) */

/* Guards poisoned, data[0, want) as expected, the rest of the data still poison. */
bool region_ok(const std::vector<uint8_t> &got, const region &r, const std::vector<uint8_t> &want, char *why, size_t cap)
{
    return family::region_ok(got, r, want.data(), want.size(), NULL, why, cap);
}

/* ---- operators and values ------------------------------------------------------------------ */

enum { OP_SUM, OP_MIN, OP_MAX };
const char *const OP_NAME[] = {"sum", "min", "max"};

template <class T>
T identity(int op)
{
    typedef std::numeric_limits<T> lim;
    if (op == OP_SUM) return (T)0;
    if constexpr (std::is_floating_point<T>::value) return op == OP_MIN ? lim::infinity() : -lim::infinity();
    else return op == OP_MIN ? lim::max() : lim::lowest();
}

/* The library's operators (ops.cuh): ties keep the earlier element. */
template <class T>
T apply(int op, T a, T b)
{
    if (op == OP_SUM) return (T)(a + b);
    if (op == OP_MIN) return b < a ? b : a;
    return a < b ? b : a;
}

/* A value that the operator folds exactly over `longest` elements in any association: sums
 * of signed integers stay in range (unsigned ones may wrap: modular sums are exact), float
 * sums are multiples of 2^-8 whose partial sums stay below 2^24 ulps (f32; zeros past 2^24
 * elements); min and max take any finite value, with ties and +-0.0 (the first one wins). */
template <class T>
T random_value(uint64_t *st, int op, size_t longest)
{
    const uint64_t r = gp_t_next(st), len = longest ? longest : 1;
    if (op != OP_SUM) {
        if ((r & 7) == 0) return (r & 8) ? (T)0 : (T)-(T)0;
        if constexpr (std::is_floating_point<T>::value) return (T)(int32_t)(r >> 32) * (T)0x1p-12;
        else return (r & 7) == 1 ? (T)((r >> 8) & 3) : (T)(r >> 8);
    }
    if constexpr (std::is_unsigned<T>::value) return (T)(r >> 8);
    uint64_t amp = std::is_floating_point<T>::value ? 255 : 1000;
    if (sizeof(T) == 4 && std::is_integral<T>::value) amp = std::min<uint64_t>(amp, ((uint64_t)1 << 31) / len - 1);
    if (sizeof(T) == 4 && std::is_floating_point<T>::value) amp = std::min<uint64_t>(amp, ((uint64_t)1 << 24) / len);
    const int64_t k = (int64_t)((r >> 8) % (2 * amp + 1)) - (int64_t)amp;
    if constexpr (std::is_floating_point<T>::value) return (T)k * (T)0x1p-8;
    else return (T)k;
}

/* What a read of the padding between cols and ld would show: the operator's winner, or NaN. */
template <class T>
T trap_value(int op)
{
    typedef std::numeric_limits<T> lim;
    if constexpr (std::is_floating_point<T>::value) {
        if (op == OP_SUM) return lim::quiet_NaN();
        return op == OP_MIN ? -lim::infinity() : lim::infinity();
    } else {
        if (op == OP_SUM) return (T)(lim::max() / 3);
        return op == OP_MIN ? lim::lowest() : lim::max();
    }
}

/* Run lengths for segments, heads and keys: 1, 8, 1024, or random (mostly short). */
size_t run_length_of(uint64_t *st, int pattern)
{
    const size_t fixed[] = {1, 8, 1024};
    return pattern < 3 ? fixed[pattern] : 1 + below(st, 1 + below(st, 5000));
}

/* ---- the call and its checks ------------------------------------------------------------- */

struct expect_out {
    region r;
    std::vector<uint8_t> want;
    const char *what;
};

struct frame {
    char desc[200];
    expect_out outs[3];
    int nout;
    uint64_t id, seed;
};

/* Poisons the outputs, calls (the call places an in-place input itself), copies them back.
 * False when the GPU failed; the call's result goes to *e. */
template <class Call>
bool run_once(const frame &f, const Call &call, cudaStream_t s, std::vector<uint8_t> *got, cudaError_t *e)
{
    for (int k = 0; k < f.nout; k++)
        if (!cuda_ok(cudaMemsetAsync(f.outs[k].r.base, POISON, f.outs[k].r.span(), s), "poison", f.desc)) return false;
    *e = call(s);
    FEXPECT(*e == cudaSuccess, "%s: returned %s", f.desc, cudaGetErrorString(*e));
    if (!cuda_ok(cudaStreamSynchronize(s), "the call's stream", f.desc)) return false;
    for (int k = 0; k < f.nout; k++) {
        got[k].resize(f.outs[k].r.span());
        if (!cuda_ok(cudaMemcpy(got[k].data(), f.outs[k].r.base, got[k].size(), cudaMemcpyDeviceToHost), "copy back", f.desc))
            return false;
    }
    return true;
}

/* Runs a case's call, checks its outputs, and for some cases reruns it on the other stream
 * and requires the same bytes. False when the GPU failed. */
template <class Call>
bool run_checked(const frame &f, const Call &call, cudaStream_t s, cudaStream_t other, bool twice, int *wrong)
{
    std::vector<uint8_t> got[3], again[3];
    cudaError_t e, e2;
    if (!run_once(f, call, s, got, &e)) return ++*wrong, false;
    bool all = e == cudaSuccess;
    for (int k = 0; k < f.nout; k++) {
        char why[120] = "";
        const bool ok = region_ok(got[k], f.outs[k].r, f.outs[k].want, why, sizeof why);
        FEXPECT(ok, "%s: %s: %s; replay: GP_TEST_SEED=%llu %s", f.desc, f.outs[k].what, why, (unsigned long long)f.seed, REPLAY);
        all = all && ok;
    }
    if (twice) {
        if (!run_once(f, call, other, again, &e2)) return ++*wrong, false;
        bool same = true;
        for (int k = 0; k < f.nout; k++) same = same && got[k] == again[k];
        FEXPECT(same, "%s: a second run on another stream differs; replay: GP_TEST_SEED=%llu %s", f.desc,
                (unsigned long long)f.seed, REPLAY);
        all = all && same;
    }
    *wrong += !all;
    return true;
}

bool upload(const frame &f, void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    return cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "upload", f.desc);
}

/* ---- the default instances --------------------------------------------------------------- */

template <class T>
struct seg_api {
    cudaError_t (*reduce[3])(T *, const T *, const uint64_t *, size_t, cudaStream_t);
    cudaError_t (*rows[3])(T *, const T *, size_t, size_t, size_t, cudaStream_t);
    cudaError_t (*cols[3])(T *, const T *, size_t, size_t, size_t, cudaStream_t);
    cudaError_t (*scan[2][3])(T *, const T *, const uint8_t *, size_t, cudaStream_t); /* exclusive, inclusive */
};
#define STRESS_OPS(what, t) {gp_##what##_sum_##t, gp_##what##_min_##t, gp_##what##_max_##t}
#define STRESS_SEG_API(t, T)                                                                                \
    const seg_api<T> seg_##t = {STRESS_OPS(segmented_reduce, t), STRESS_OPS(reduce_rows, t), STRESS_OPS(reduce_cols, t), \
                                {STRESS_OPS(exclusive_segmented_scan, t), STRESS_OPS(inclusive_segmented_scan, t)}}; \
    const seg_api<T> &api_of(T) { return seg_##t; }
STRESS_SEG_API(i32, int32_t) STRESS_SEG_API(u32, uint32_t) STRESS_SEG_API(i64, int64_t)
STRESS_SEG_API(u64, uint64_t) STRESS_SEG_API(f32, float) STRESS_SEG_API(f64, double)

/* The section's device buffers: a and c inputs, b and d outputs, count a small one. */
struct buffers {
    uint8_t *a, *b, *c, *d, *count;
};
struct streams {
    cudaStream_t s, other;
    bool twice;
};

/* Picks the case's stream (mostly a non-blocking one, sometimes stream 0) and whether it reruns. */
streams pick_streams(uint64_t *st, cudaStream_t s1, cudaStream_t s2)
{
    const bool on_default = below(st, 4) == 0;
    return {on_default ? (cudaStream_t)0 : s1, on_default ? s1 : s2, below(st, 4) == 0};
}

/* ---- segmented reduce -------------------------------------------------------------------- */

const char *const SEG_DIST[] = {"all empty", "length 1", "length 32", "constant length", "power-law, many empty",
                                "one huge segment", "uniform lengths"};

/* Segment lengths by a distribution, at most cap_n elements in all (the power law at most a
 * random budget: its lengths are long enough to fill any buffer). */
void make_segments(uint64_t *st, int dist, size_t cap_n, std::vector<uint64_t> &len)
{
    const size_t c = 1 + below(st, 5000), mean = below(st, 200), most = CAP_BYTES / 8 - 4096; /* the offsets' buffer */
    const size_t counts[] = {pick_n(st, (size_t)1 << 24), pick_n(st, cap_n), pick_n(st, cap_n / 32), pick_n(st, cap_n / c),
                             pick_n(st, (size_t)1 << 22), 1 + below(st, 64), pick_n(st, cap_n / (mean + 1))};
    if (dist == 4) cap_n = pick_n(st, cap_n);
    len.assign(std::min(counts[dist], most), 0);
    const size_t huge_at = below(st, len.size()), huge = pick_n(st, cap_n);
    size_t total = 0;
    for (size_t i = 0; i < len.size(); i++) {
        size_t l = 0;
        switch (dist) {
        case 1: l = 1; break;
        case 2: l = 32; break;
        case 3: l = c; break;
        case 4: l = below(st, 3) ? 0 : below(st, (uint64_t)1 << below(st, 17)); break;
        case 5: l = i == huge_at ? huge : below(st, 3); break;
        case 6: l = below(st, 2 * mean + 1); break;
        }
        if (total + l > cap_n) l = 0; /* the buffer is full: the rest are empty */
        len[i] = l, total += l;
    }
}

template <class T>
bool case_segmented_reduce(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    const int op = (int)below(st, 3), dist = (int)below(st, 7);
    std::vector<uint64_t> len, offsets;
    make_segments(st, dist, CAP_BYTES / sizeof(T) - 4096, len);
    const size_t S = len.size(), base = below(st, 2) ? 0 : below(st, 100);
    size_t longest = 0;
    offsets.assign(1, base);
    for (size_t l : len) offsets.push_back(offsets.back() + l), longest = std::max(longest, l);
    std::vector<T> in(offsets.back());
    for (size_t i = 0; i < in.size(); i++) /* before offsets[0]: values a read there would show */
        in[i] = i < base ? trap_value<T>(op) : random_value<T>(st, op, longest);

    expect_out &o = f.outs[0];
    for (size_t i = 0; i < S; i++) {
        T acc = identity<T>(op);
        for (uint64_t j = offsets[i]; j < offsets[i + 1]; j++) acc = apply(op, acc, in[j]);
        put(o.want, acc);
    }
    const size_t off_in = below(st, 4), off_out = below(st, 4);
    o.r = {b.b, off_out * sizeof(T), S * sizeof(T)}, o.what = "segment results", f.nout = 1;
    snprintf(f.desc, sizeof f.desc, "segmented case %llu: gp_segmented_reduce_%s_%s segments=%zu n=%zu longest=%zu %s, "
             "offsets[0]=%zu, misaligned in/out %zu/%zu%s", (unsigned long long)f.id, OP_NAME[op], type_name<T>(), S,
             in.size() - base, longest, SEG_DIST[dist], base, off_in, off_out, ss.s ? "" : ", stream 0");
    const T *d_in = (const T *)(b.a + off_in * sizeof(T));
    const uint64_t *d_off = (const uint64_t *)b.c;
    if (!upload(f, (void *)d_in, in.data(), in.size() * sizeof(T), ss.s) ||
        !upload(f, (void *)d_off, offsets.data(), offsets.size() * 8, ss.s))
        return false;
    T *d_out = (T *)o.r.data();
    auto call = [&](cudaStream_t s) { return api_of(T()).reduce[op](d_out, d_in, d_off, S, s); };
    return run_checked(f, call, ss.s, ss.other, ss.twice, wrong);
}

/* ---- rows and columns -------------------------------------------------------------------- */

template <class T>
bool case_rows_cols(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    const int op = (int)below(st, 3), by_cols = (int)below(st, 2), shape = (int)below(st, 6);
    const size_t cap = CAP_BYTES / sizeof(T) - 4096, narrow[] = {31, 32, 33, 64, 1000};
    size_t rows = pick_n(st, (size_t)1 << 14), cols = pick_n(st, (size_t)1 << 14);
    if (shape == 0) rows = 0;
    else if (shape == 1) cols = 0;
    else if (shape == 2) rows = 1, cols = pick_n(st, cap / 2);
    else if (shape == 3) cols = 1, rows = pick_n(st, cap / 2);
    else if (shape == 4) cols = narrow[below(st, 5)];
    const size_t pads[] = {0, 1, 3, below(st, 65), (32 - cols % 32) % 32}, ld = cols + pads[below(st, 5)];
    if (rows * ld > cap) rows = cap / ld;

    std::vector<T> in(rows * ld);
    const size_t longest = by_cols ? rows : cols;
    for (size_t i = 0; i < in.size(); i++) in[i] = i % ld < cols ? random_value<T>(st, op, longest) : trap_value<T>(op);
    expect_out &o = f.outs[0];
    const size_t outs = by_cols ? cols : rows;
    std::vector<T> acc(outs, identity<T>(op));
    for (size_t r = 0; r < rows; r++) /* row by row: each result still folds in index order */
        for (size_t c = 0; c < cols; c++) {
            T &a = acc[by_cols ? c : r];
            a = apply(op, a, in[r * ld + c]);
        }
    for (T a : acc) put(o.want, a);
    const size_t off_in = below(st, 4), off_out = below(st, 4);
    o.r = {b.b, off_out * sizeof(T), outs * sizeof(T)}, o.what = by_cols ? "column results" : "row results", f.nout = 1;
    snprintf(f.desc, sizeof f.desc, "segmented case %llu: gp_reduce_%s_%s_%s rows=%zu cols=%zu ld=%zu, misaligned in/out %zu/%zu%s",
             (unsigned long long)f.id, by_cols ? "cols" : "rows", OP_NAME[op], type_name<T>(), rows, cols, ld, off_in,
             off_out, ss.s ? "" : ", stream 0");
    const T *d_in = (const T *)(b.a + off_in * sizeof(T));
    if (!upload(f, (void *)d_in, in.data(), in.size() * sizeof(T), ss.s)) return false;
    T *d_out = (T *)o.r.data();
    auto call = [&](cudaStream_t s) {
        return (by_cols ? api_of(T()).cols[op] : api_of(T()).rows[op])(d_out, d_in, rows, cols, ld, s);
    };
    return run_checked(f, call, ss.s, ss.other, ss.twice, wrong);
}

/* ---- segmented scans --------------------------------------------------------------------- */

const char *const HEAD_DIST[] = {"no heads", "every element a head", "p=0.5", "p=0.1", "p=0.001",
                                 "a head every 8", "a head every 1024", "random run lengths"};

/* Head bytes (any nonzero value starts a segment; element 0 starts one whatever it holds). */
void make_heads(uint64_t *st, int dist, size_t n, std::vector<uint8_t> &heads, size_t *longest)
{
    const uint64_t thr[] = {0, ~0ull, ~0ull / 2, ~0ull / 10, ~0ull / 1000};
    size_t left = 0, run = 0;
    *longest = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        bool h;
        if (dist < 5) h = dist == 1 || r < thr[dist];
        else {
            h = left == 0;
            if (h) left = run_length_of(st, dist - 4);
            left--;
        }
        heads[i] = h ? (uint8_t)(1 + (r >> 56) % 255) : 0;
        run = (h || i == 0) ? 1 : run + 1;
        *longest = std::max(*longest, run);
    }
}

template <class T>
bool case_segmented_scan(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    const int op = (int)below(st, 3), inclusive = (int)below(st, 2), dist = (int)below(st, 8);
    const size_t n = pick_n(st, CAP_BYTES / sizeof(T) - 4096);
    std::vector<uint8_t> heads(n);
    size_t longest;
    make_heads(st, dist, n, heads, &longest);
    std::vector<T> in(n);
    for (T &x : in) x = random_value<T>(st, op, longest);
    expect_out &o = f.outs[0];
    T acc = identity<T>(op);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || heads[i]) acc = identity<T>(op);
        const T next = apply(op, acc, in[i]);
        put(o.want, inclusive ? next : acc);
        acc = next;
    }
    const size_t off_in = below(st, 4), off_out = below(st, 4), off_heads = below(st, 4);
    const bool in_place = below(st, 5) == 0;
    o.r = {b.b, off_out * sizeof(T), n * sizeof(T)}, o.what = "scan", f.nout = 1;
    snprintf(f.desc, sizeof f.desc, "segmented case %llu: gp_%s_segmented_scan_%s_%s n=%zu %s (longest %zu), misaligned "
             "in/out/heads %zu/%zu/%zu%s%s", (unsigned long long)f.id, inclusive ? "inclusive" : "exclusive", OP_NAME[op],
             type_name<T>(), n, HEAD_DIST[dist], longest, off_in, off_out, off_heads, in_place ? ", in place" : "",
             ss.s ? "" : ", stream 0");
    T *d_out = (T *)o.r.data();
    const T *d_in = in_place ? d_out : (const T *)(b.a + off_in * sizeof(T));
    const uint8_t *d_heads = b.c + off_heads;
    if ((!in_place && !upload(f, (void *)d_in, in.data(), n * sizeof(T), ss.s)) || !upload(f, (void *)d_heads, heads.data(), n, ss.s))
        return false;
    auto call = [&](cudaStream_t s) {
        if (in_place) { /* the input goes where the poison just went, before each run */
            const cudaError_t e = cudaMemcpyAsync(d_out, in.data(), n * sizeof(T), cudaMemcpyHostToDevice, s);
            if (e != cudaSuccess) return e;
        }
        return api_of(T()).scan[inclusive][op](d_out, d_in, d_heads, n, s);
    };
    return run_checked(f, call, ss.s, ss.other, ss.twice, wrong);
}

/* ---- reduce-by-key ----------------------------------------------------------------------- */

const char *const KEY_DIST[] = {"all equal", "runs of 1", "runs of 8", "runs of 1024", "random runs",
                                "two keys alternating", "keys in 0..2"};

template <class K, class V, cudaError_t (*RBK)(K *, V *, uint64_t *, const K *, const V *, size_t, cudaStream_t)>
bool case_reduce_by_key(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    const int dist = (int)below(st, 7);
    const size_t n = pick_n(st, CAP_BYTES / 8 - 4096);
    const K k0 = (K)gp_t_next(st), k1 = (K)((uint64_t)k0 + 1); /* no signed overflow */
    std::vector<K> keys(n);
    size_t left = 0, run = 0, longest = 0;
    K cur = k0;
    for (size_t i = 0; i < n; i++) {
        if (dist == 0) keys[i] = k0;
        else if (dist == 5) keys[i] = i & 1 ? k1 : k0;
        else if (dist == 6) keys[i] = (K)below(st, 3);
        else {
            if (left == 0) left = run_length_of(st, dist - 1), cur = (K)gp_t_next(st);
            left--, keys[i] = cur;
        }
        run = i > 0 && keys[i] == keys[i - 1] ? run + 1 : 1;
        longest = std::max(longest, run);
    }
    std::vector<V> vals(n);
    for (V &x : vals) x = random_value<V>(st, OP_SUM, longest);

    std::vector<uint8_t> &wk = f.outs[0].want, &wv = f.outs[1].want;
    uint64_t runs = 0;
    V acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && keys[i] == keys[i - 1]) { acc = (V)(acc + vals[i]); continue; }
        if (i > 0) put(wv, acc);
        put(wk, keys[i]), acc = vals[i], runs++;
    }
    if (n) put(wv, acc);
    const size_t off_k = below(st, 4), off_v = below(st, 4), off_ko = below(st, 4), off_vo = below(st, 4);
    f.outs[0].r = {b.b, off_ko * sizeof(K), n * sizeof(K)}, f.outs[0].what = "keys out";
    f.outs[1].r = {b.d, off_vo * sizeof(V), n * sizeof(V)}, f.outs[1].what = "values out";
    f.outs[2].r = {b.count, 0, 8}, f.outs[2].what = "*d_runs", f.nout = 3;
    put(f.outs[2].want, runs);
    snprintf(f.desc, sizeof f.desc, "segmented case %llu: gp_reduce_by_key_sum_%s_%s n=%zu %s (longest %zu), misaligned "
             "keys/values/outputs %zu/%zu/%zu/%zu%s", (unsigned long long)f.id, type_name<K>(), type_name<V>(), n,
             KEY_DIST[dist], longest, off_k, off_v, off_ko, off_vo, ss.s ? "" : ", stream 0");
    const K *d_keys = (const K *)(b.a + off_k * sizeof(K));
    const V *d_vals = (const V *)(b.c + off_v * sizeof(V));
    if (!upload(f, (void *)d_keys, keys.data(), n * sizeof(K), ss.s) || !upload(f, (void *)d_vals, vals.data(), n * sizeof(V), ss.s))
        return false;
    K *d_keys_out = (K *)f.outs[0].r.data();
    V *d_vals_out = (V *)f.outs[1].r.data();
    uint64_t *d_runs = (uint64_t *)f.outs[2].r.data();
    auto call = [&](cudaStream_t s) { return RBK(d_keys_out, d_vals_out, d_runs, d_keys, d_vals, n, s); };
    return run_checked(f, call, ss.s, ss.other, ss.twice, wrong);
}

typedef bool (*rbk_case)(uint64_t *, frame &, const buffers &, streams, int *);
#define STRESS_RBK(k, K, v, V) case_reduce_by_key<K, V, gp_reduce_by_key_sum_##k##_##v>
#define STRESS_RBK_VALUES(k, K) \
    STRESS_RBK(k, K, i32, int32_t), STRESS_RBK(k, K, i64, int64_t), STRESS_RBK(k, K, f32, float), STRESS_RBK(k, K, f64, double)
const rbk_case RBK_CASES[16] = {STRESS_RBK_VALUES(i32, int32_t), STRESS_RBK_VALUES(u32, uint32_t),
                                STRESS_RBK_VALUES(i64, int64_t), STRESS_RBK_VALUES(u64, uint64_t)};

/* ---- one case of any kind and type ------------------------------------------------------- */

template <class T>
bool case_of_type(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    const uint64_t r = below(st, 10);
    if (r < 4) return case_segmented_reduce<T>(st, f, b, ss, wrong);
    if (r < 7) return case_rows_cols<T>(st, f, b, ss, wrong);
    return case_segmented_scan<T>(st, f, b, ss, wrong);
}

bool one_case(uint64_t *st, frame &f, const buffers &b, streams ss, int *wrong)
{
    switch (below(st, 8)) {
    case 0: return case_of_type<int32_t>(st, f, b, ss, wrong);
    case 1: return case_of_type<uint32_t>(st, f, b, ss, wrong);
    case 2: return case_of_type<int64_t>(st, f, b, ss, wrong);
    case 3: return case_of_type<uint64_t>(st, f, b, ss, wrong);
    case 4: return case_of_type<float>(st, f, b, ss, wrong);
    case 5: return case_of_type<double>(st, f, b, ss, wrong);
    default: return RBK_CASES[below(st, 16)](st, f, b, ss, wrong);
    }
}

/* ---- bad input: cudaErrorInvalidValue, or a no-op, and nothing written ---------------------- */

void bad_input_checks(const buffers &b, cudaStream_t s)
{
    const size_t span = 2 * GUARD + 800;
    for (uint8_t *p : {b.b, b.d, b.count}) cuda_ok(cudaMemset(p, POISON, span), "poison", "segmented bad input");
    float *in = (float *)b.a, *out = (float *)(b.b + GUARD), *vout = (float *)(b.d + GUARD);
    const uint64_t *off = (const uint64_t *)b.c;
    const uint8_t *heads = b.c;
    int32_t *kout = (int32_t *)(b.count + GUARD + 16);
    uint64_t *runs = (uint64_t *)(b.count + GUARD);
    const cudaError_t bad = cudaErrorInvalidValue, none = cudaSuccess;
    struct { const char *what; cudaError_t e, want; } calls[] = {
        {"segmented reduce, NULL input", gp_segmented_reduce_sum_f32(out, NULL, off, 10, s), bad},
        {"segmented reduce, NULL offsets", gp_segmented_reduce_sum_f32(out, in, NULL, 10, s), bad},
        {"segmented reduce, NULL output", gp_segmented_reduce_sum_f32(NULL, in, off, 10, s), bad},
        {"segmented reduce, no segments, NULLs", gp_segmented_reduce_min_f32(NULL, NULL, NULL, 0, s), none},
        {"rows, ld < cols", gp_reduce_rows_sum_f32(out, in, 4, 8, 7, s), bad},
        {"rows, NULL output", gp_reduce_rows_max_f32(NULL, in, 4, 8, 8, s), bad},
        {"rows, rows == 0", gp_reduce_rows_sum_f32(out, in, 0, 8, 8, s), none},
        {"cols, ld < cols", gp_reduce_cols_sum_f32(out, in, 4, 8, 7, s), bad},
        {"cols, NULL input", gp_reduce_cols_min_f32(out, NULL, 4, 8, 8, s), bad},
        {"cols, cols == 0", gp_reduce_cols_sum_f32(out, in, 4, 0, 0, s), none},
        {"scan, NULL heads", gp_inclusive_segmented_scan_sum_f32(out, in, NULL, 100, s), bad},
        {"scan, output one element into the input", gp_inclusive_segmented_scan_sum_f32(in + 1, in, heads + 4096, 100, s), bad},
        {"scan, heads inside the output", gp_exclusive_segmented_scan_sum_f32(out, in, (const uint8_t *)out + 8, 100, s), bad},
        {"scan, n == 0, NULLs", gp_exclusive_segmented_scan_max_f32(NULL, NULL, NULL, 0, s), none},
        {"reduce-by-key, NULL runs, n == 0", gp_reduce_by_key_sum_i32_f32(kout, vout, NULL, (const int32_t *)in, in, 0, s), bad},
        {"reduce-by-key, NULL keys", gp_reduce_by_key_sum_i32_f32(kout, vout, runs, NULL, in, 100, s), bad},
        {"reduce-by-key, values out over the keys out", gp_reduce_by_key_sum_i32_i32(kout, kout + 1, runs, (const int32_t *)in, (const int32_t *)in + 4096, 100, s), bad},
        {"reduce-by-key, keys out over the values in", gp_reduce_by_key_sum_i32_f32((int32_t *)in, vout, runs, (const int32_t *)in + 50, in + 4096, 100, s), bad},
    };
    for (const auto &c : calls)
        FEXPECT(c.e == c.want, "segmented bad input: %s gave %s, want %s; replay: %s", c.what, cudaGetErrorString(c.e),
                cudaGetErrorString(c.want), REPLAY);
    cuda_ok(cudaDeviceSynchronize(), "sync", "segmented bad input");
    family::expect_untouched({b.b, b.d, b.count}, span, "segmented bad input", REPLAY);
}

} // namespace

void stress_segmented(const stress_family_ctx *ctx)
{
    gp_t_section("families: segmented reduce, rows, columns, segmented scans, reduce-by-key, random cases for %.0f s",
                 ctx->seconds);
    buffers b = {};
    const size_t big = CAP_BYTES + 2 * GUARD + 64;
    cudaStream_t s1 = NULL, s2 = NULL;
    bool ok = true;
    for (uint8_t **p : {&b.a, &b.b, &b.c, &b.d}) ok = ok && cuda_ok(cudaMalloc(p, big), "cudaMalloc", "segmented");
    ok = ok && cuda_ok(cudaMalloc(&b.count, 2 * GUARD + 800), "cudaMalloc", "segmented") &&
         cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream", "segmented") &&
         cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream", "segmented");
    if (ok) bad_input_checks(b, s1);

    if (ok)
        family::run_cases(ctx, "segmented", "segmented cases", [&](uint64_t id, uint64_t st, uint64_t *wrong) {
            frame f = {};
            f.seed = ctx->seed;
            f.id = id;
            snprintf(f.desc, sizeof f.desc, "segmented case %llu", (unsigned long long)id);
            int w = 0;
            const bool fine = one_case(&st, f, b, pick_streams(&st, s1, s2), &w);
            *wrong += (uint64_t)w;
            return fine;
        });
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    for (uint8_t *p : {b.a, b.b, b.c, b.d, b.count}) cudaFree(p);
}
