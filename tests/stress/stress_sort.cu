/* tests/stress/stress_sort.cu -- the sort family under random cases (families.h): keys,
 * descending, pairs with u32 and u64 values, argsort, for every default key type, against
 * a host stable sort over the documented order (integers by value, floats in IEEE 754
 * totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, bits kept). Every case
 * comes from (seed, case number): key type, operation, n biased to the paths' edges (the
 * one-block path ends near 8192 keys), distribution, in place or not, buffer offsets,
 * stream. Pairs carry each key's input index as its value, so stability is checked exactly.
 * Outputs are poisoned with guard bytes before and after that must stay poisoned, inputs
 * must come back untouched, and some cases run twice on a second stream and must give the
 * same bits. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "families.h"
#include "family_util.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <math.h>
#include <stdio.h>
#include <string.h>

using namespace family; /* the families' shared helpers (family_util.h) */
#define FRONT 64                      /* poisoned bytes before a buffer's data (and its offset) */
#define MAX_OFF 16                    /* data offsets are below this many bytes */
#define CAP_BYTES ((size_t)1 << 27)   /* each buffer's data: 2^24 8-byte or 2^25 4-byte elements */

/* ---- guarded device buffers, reused by every case -------------------------------------------- */

struct gbuf { unsigned char *base; };

static unsigned char *gb_at(gbuf b, size_t off) { return b.base + FRONT + off; }
static cudaError_t gb_poison(gbuf b, size_t off, size_t bytes, cudaStream_t s)
{
    return cudaMemsetAsync(b.base, POISON, FRONT + off + bytes + GUARD, s);
}
/* Everything before the data and GUARD bytes after it still poisoned (the stream synced). */
static bool gb_guards_ok(gbuf b, size_t off, size_t bytes)
{
    unsigned char front[FRONT + MAX_OFF], back[GUARD];
    if (cudaMemcpy(front, b.base, FRONT + off, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(back, gb_at(b, off) + bytes, GUARD, cudaMemcpyDeviceToHost) != cudaSuccess)
        return false;
    for (size_t i = 0; i < FRONT + off; i++)
        if (front[i] != POISON) return false;
    for (size_t i = 0; i < GUARD; i++)
        if (back[i] != POISON) return false;
    return true;
}

/* ---- the public names, one table per key type ---------------------------------------------------- */

template <class K>
struct sort_api {
    const char *name;
    cudaError_t (*keys[2])(K *, const K *, size_t, cudaStream_t); /* [desc] */
    cudaError_t (*args[2])(uint64_t *, const K *, size_t, cudaStream_t);
    cudaError_t (*pairs32[2])(K *, uint32_t *, const K *, const uint32_t *, size_t, cudaStream_t);
    cudaError_t (*pairs64[2])(K *, uint64_t *, const K *, const uint64_t *, size_t, cudaStream_t);
};
#define SORT_API(t)                                                                                                  \
    {#t, {gp_sort_##t, gp_sort_desc_##t}, {gp_argsort_##t, gp_argsort_desc_##t},                                     \
     {gp_sort_pairs_##t##_u32, gp_sort_pairs_desc_##t##_u32}, {gp_sort_pairs_##t##_u64, gp_sort_pairs_desc_##t##_u64}}
static const sort_api<uint16_t> api_u16 = SORT_API(u16);
static const sort_api<int32_t> api_i32 = SORT_API(i32);
static const sort_api<uint32_t> api_u32 = SORT_API(u32);
static const sort_api<int64_t> api_i64 = SORT_API(i64);
static const sort_api<uint64_t> api_u64 = SORT_API(u64);
static const sort_api<float> api_f32 = SORT_API(f32);
static const sort_api<double> api_f64 = SORT_API(f64);

enum { M_KEYS, M_PAIRS, M_ARGSORT };

/* One call of the family: V is the value type for pairs, uint64_t (the indices) for argsort. */
template <class K, class V, int MODE>
static cudaError_t sort_call(const sort_api<K> &a, int desc, K *ko, V *vo, const K *ki, const V *vi, size_t n,
                             cudaStream_t s)
{
    if constexpr (MODE == M_KEYS) return a.keys[desc](ko, ki, n, s);
    else if constexpr (MODE == M_ARGSORT) return a.args[desc](vo, ki, n, s);
    else if constexpr (sizeof(V) == 4) return a.pairs32[desc](ko, vo, ki, vi, n, s);
    else return a.pairs64[desc](ko, vo, ki, vi, n, s);
}

/* ---- keys and the host reference ------------------------------------------------------------------ */

/* The documented order as unsigned bits: integers by value (signed: sign bit flipped),
 * floats in totalOrder (negative: every bit flipped, positive: the sign bit set). */
template <class K>
static uint64_t key_order(K k)
{
    uint64_t u = 0;
    memcpy(&u, &k, sizeof k);
    const uint64_t top = (uint64_t)1 << (8 * sizeof(K) - 1), all = top | (top - 1);
    if constexpr (std::is_floating_point<K>::value) return (u & top) ? ~u & all : u | top;
    else if constexpr (std::is_signed<K>::value) return u ^ top;
    else return u;
}

template <class K>
static K key_from_bits(uint64_t r)
{
    K k;
    memcpy(&k, &r, sizeof k);
    return k;
}

/* Keys the radix passes find hard or the order finds subtle: for floats NaNs of both signs
 * with several payloads (quiet and signalling), +-inf, +-0.0, denormals, the extremes; for
 * integers 0, all ones, the sign bit alone and its neighbours. */
template <class K>
static K special_key(uint64_t r)
{
    const int bits = 8 * (int)sizeof(K);
    const uint64_t top = (uint64_t)1 << (bits - 1), all = top | (top - 1);
    const uint64_t sign = (r >> 8 & 1) ? top : 0;
    if constexpr (std::is_floating_point<K>::value) {
        const int mant = sizeof(K) == 4 ? 23 : 52;
        const uint64_t expo = (all >> (mant + 1)) << mant, quiet = (uint64_t)1 << (mant - 1);
        const uint64_t pick[] = {expo | quiet, expo | 1, expo | quiet | (r >> 16 & (quiet - 1)), expo, 0, 1,
                                 quiet - 1 + quiet, quiet << 1 /* smallest normal */, expo - 1 /* largest */};
        return key_from_bits<K>(pick[(r >> 9) % 9] | sign);
    } else {
        const uint64_t pick[] = {0, all, top, top - 1, top + 1, 1};
        return key_from_bits<K>(pick[(r >> 9) % 6]);
    }
}

enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSED, D_FEW2, D_FEW8, D_FEW256, D_BYTE, D_SPECIAL, D_COUNT };
static const char *const dist_name[D_COUNT] = {"random bits", "all equal", "sorted", "reversed", "2 distinct",
                                               "8 distinct", "256 distinct", "below 2^8", "specials"};

template <class K>
static void make_keys(std::vector<K> &k, size_t n, int dist, uint64_t *st)
{
    K pool[256];
    for (int i = 0; i < 256; i++) {
        const uint64_t r = gp_t_next(st);
        pool[i] = r % 4 ? key_from_bits<K>(r) : special_key<K>(r); /* few distinct: specials among them */
    }
    const unsigned few = dist == D_FEW2 ? 2 : dist == D_FEW8 ? 8 : 256;
    k.resize(n);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        switch (dist) {
        case D_EQUAL: k[i] = pool[0]; break;
        case D_FEW2: case D_FEW8: case D_FEW256: k[i] = pool[r % few]; break;
        case D_BYTE: k[i] = (K)(r & 255); break;
        case D_SPECIAL: k[i] = r % 3 ? special_key<K>(r) : key_from_bits<K>(r); break;
        default: k[i] = key_from_bits<K>(r);
        }
    }
    if (dist == D_SORTED || dist == D_REVERSED) {
        std::stable_sort(k.begin(), k.end(), [](K a, K b) { return key_order(a) < key_order(b); });
        if (dist == D_REVERSED) std::reverse(k.begin(), k.end());
    }
}

/* The stable permutation: perm[i] is the input index of the i-th key of the output. */
template <class K>
static std::vector<uint64_t> ref_perm(const std::vector<K> &k, int desc)
{
    struct item { uint64_t order, index; };
    std::vector<item> it(k.size());
    for (size_t i = 0; i < k.size(); i++) it[i] = {key_order(k[i]), i};
    if (desc) std::stable_sort(it.begin(), it.end(), [](const item &a, const item &b) { return a.order > b.order; });
    else std::stable_sort(it.begin(), it.end(), [](const item &a, const item &b) { return a.order < b.order; });
    std::vector<uint64_t> perm(k.size());
    for (size_t i = 0; i < k.size(); i++) perm[i] = it[i].index;
    return perm;
}

/* ---- one case ------------------------------------------------------------------------------------- */

struct sort_env {
    const stress_family_ctx *ctx;
    gbuf kin, kout, vin, vout;
    cudaStream_t s1, s2; /* non-blocking: the usual stream, and the second run's */
};

struct sort_case {
    uint64_t id, st;
    size_t n, koff, voff;
    int dist, desc, twice;
    int keys_in_place, values_in_place;
    cudaStream_t s;
    char fn[64];
};

/* n near the warp, 1024, 2048 (the small block's limit), 4096, 8192 (the one-block path's)
 * and 2^16, up to 2^20, and 1 in 64 up to `cap` (the host's stable sort dominates there). */
static size_t pick_size(uint64_t *st, size_t cap)
{
    static const size_t edges[] = {32, 1024, 2048, 4096, 8192, 65536};
    return family::pick_n(st, edges, sizeof edges / sizeof *edges, 20, 64, cap);
}

static bool fail(char *why, size_t cap, const char *what, size_t at)
{
    snprintf(why, cap, "%s (first at %zu)", what, at);
    return false;
}

/* Compares the outputs of a finished call with the reference; `why` says what is wrong. */
template <class K, class V, int MODE>
static bool check_outputs(const sort_env &e, const sort_case &c, const std::vector<K> &keys,
                          const std::vector<uint64_t> &perm, std::vector<K> &got_k, std::vector<V> &got_v, char *why,
                          size_t cap)
{
    const size_t n = c.n, kb = n * sizeof(K), vb = n * sizeof(V);
    const gbuf ko = c.keys_in_place ? e.kin : e.kout, vo = c.values_in_place ? e.vin : e.vout;
    got_k.resize(MODE != M_ARGSORT ? n : 0);
    got_v.resize(MODE != M_KEYS ? n : 0);
    if (MODE != M_ARGSORT && cudaMemcpy(got_k.data(), gb_at(ko, c.koff), kb, cudaMemcpyDeviceToHost) != cudaSuccess)
        return fail(why, cap, "copying the keys back", 0);
    if (MODE != M_KEYS && cudaMemcpy(got_v.data(), gb_at(vo, c.voff), vb, cudaMemcpyDeviceToHost) != cudaSuccess)
        return fail(why, cap, "copying the values back", 0);
    for (size_t i = 0; MODE != M_ARGSORT && i < n; i++)
        if (memcmp(&got_k[i], &keys[perm[i]], sizeof(K))) return fail(why, cap, "keys differ", i);
    if constexpr (MODE != M_KEYS)
        for (size_t i = 0; i < n; i++)
            if ((uint64_t)got_v[i] != perm[i]) return fail(why, cap, MODE == M_PAIRS ? "values (input indices) differ" : "indices differ", i);
    if (MODE != M_ARGSORT && !gb_guards_ok(ko, c.koff, kb)) return fail(why, cap, "keys' guard bytes written", 0);
    if (MODE != M_KEYS && !gb_guards_ok(vo, c.voff, vb)) return fail(why, cap, "values' guard bytes written", 0);
    if (!c.keys_in_place && !gb_guards_ok(e.kin, c.koff, kb)) return fail(why, cap, "input keys' guard bytes written", 0);
    if (MODE == M_PAIRS && !c.values_in_place && !gb_guards_ok(e.vin, c.voff, vb))
        return fail(why, cap, "input values' guard bytes written", 0);
    if (!c.keys_in_place && n) { /* the input is const */
        std::vector<K> again(n);
        if (cudaMemcpy(again.data(), gb_at(e.kin, c.koff), kb, cudaMemcpyDeviceToHost) != cudaSuccess ||
            memcmp(again.data(), keys.data(), kb))
            return fail(why, cap, "input keys changed", 0);
    }
    return true;
}

/* Uploads the case's input, poisons the outputs, and calls the library on stream s. */
template <class K, class V, int MODE>
static cudaError_t upload_and_call(const sort_env &e, const sort_case &c, const sort_api<K> &a,
                                   const std::vector<K> &keys, const std::vector<V> &vals, cudaStream_t s)
{
    const size_t kb = c.n * sizeof(K), vb = c.n * sizeof(V);
    const gbuf ko = c.keys_in_place ? e.kin : e.kout, vo = c.values_in_place ? e.vin : e.vout;
    cudaError_t err = gb_poison(e.kin, c.koff, kb, s);
    if (!err && !c.keys_in_place) err = gb_poison(ko, c.koff, kb, s);
    if (!err && MODE == M_PAIRS) err = gb_poison(e.vin, c.voff, vb, s);
    if (!err && MODE != M_KEYS && !c.values_in_place) err = gb_poison(vo, c.voff, vb, s);
    if (!err && kb) err = cudaMemcpyAsync(gb_at(e.kin, c.koff), keys.data(), kb, cudaMemcpyHostToDevice, s);
    if (!err && MODE == M_PAIRS && vb) err = cudaMemcpyAsync(gb_at(e.vin, c.voff), vals.data(), vb, cudaMemcpyHostToDevice, s);
    if (err) return err;
    err = sort_call<K, V, MODE>(a, c.desc, (K *)gb_at(ko, c.koff), (V *)gb_at(vo, c.voff), (const K *)gb_at(e.kin, c.koff),
                                (const V *)gb_at(e.vin, c.voff), c.n, s);
    const cudaError_t done = cudaStreamSynchronize(s);
    return err ? err : done;
}

template <class K, class V, int MODE>
static bool run_case(const sort_env &e, sort_case &c, const sort_api<K> &a)
{
    const char *op = MODE == M_KEYS ? "sort" : MODE == M_PAIRS ? "sort_pairs" : "argsort";
    const char *vname = MODE == M_PAIRS ? (sizeof(V) == 4 ? "_u32" : "_u64") : "";
    snprintf(c.fn, sizeof c.fn, "gp_%s%s_%s%s", op, c.desc ? "_desc" : "", a.name, vname);
    if (MODE == M_ARGSORT) c.keys_in_place = c.values_in_place = 0;
    if (MODE == M_KEYS) c.values_in_place = 0;
    std::vector<K> keys;
    make_keys(keys, c.n, c.dist, &c.st);
    std::vector<V> vals(MODE == M_PAIRS ? c.n : 0);
    for (size_t i = 0; i < vals.size(); i++) vals[i] = (V)i; /* the value is the input index: stability */
    e.ctx->beat("sort: host reference");
    const std::vector<uint64_t> perm = ref_perm(keys, c.desc);
    e.ctx->beat("sort cases");

    const cudaError_t err = upload_and_call<K, V, MODE>(e, c, a, keys, vals, c.s);
    char why[160] = "";
    std::vector<K> got_k, again_k;
    std::vector<V> got_v, again_v;
    bool ok = err == cudaSuccess;
    if (!ok) snprintf(why, sizeof why, "returned %s", cudaGetErrorName(err));
    ok = ok && check_outputs<K, V, MODE>(e, c, keys, perm, got_k, got_v, why, sizeof why);
    if (ok && c.twice) { /* the same call on the second stream: the same bits */
        const cudaError_t err2 = upload_and_call<K, V, MODE>(e, c, a, keys, vals, e.s2);
        ok = err2 == cudaSuccess && check_outputs<K, V, MODE>(e, c, keys, perm, again_k, again_v, why, sizeof why) &&
             !memcmp(again_k.data(), got_k.data(), got_k.size() * sizeof(K)) &&
             !memcmp(again_v.data(), got_v.data(), got_v.size() * sizeof(V)); /* bits: NaN != NaN */
        if (!ok && !why[0]) snprintf(why, sizeof why, "second run on another stream: %s", cudaGetErrorName(err2));
        else if (!ok) snprintf(why + strlen(why), sizeof why - strlen(why), " (second run, another stream)");
    }
    FEXPECT(ok, "sort case %llu: %s, n %zu, %s, key offset %zu, value offset %zu%s%s, stream %s%s: %s; replay: "
            "GP_TEST_SEED=%llu build/tests/stress --only sort",
            (unsigned long long)c.id, c.fn, c.n, dist_name[c.dist], c.koff, c.voff, c.keys_in_place ? ", keys in place" : "",
            c.values_in_place ? ", values in place" : "", c.s ? "non-blocking" : "0", c.twice ? ", run twice" : "", why,
            (unsigned long long)e.ctx->seed);
    return ok;
}

/* Offsets any alignment the type allows: whole elements, 8-byte types at 4-byte steps. */
template <class T>
static size_t pick_offset(uint64_t r)
{
    const size_t step = sizeof(T) < 4 ? sizeof(T) : 4;
    return (size_t)(r % MAX_OFF) / step * step;
}

template <class K>
static bool run_for_key(const sort_env &e, sort_case &c, const sort_api<K> &a)
{
    const uint64_t r = gp_t_next(&c.st);
    const int mode = (int)(r % 10); /* 4 in 10 keys, 3 pairs, 3 argsort */
    c.koff = pick_offset<K>(r >> 8);
    c.voff = pick_offset<uint64_t>(r >> 16);
    const size_t widest = mode >= 4 ? 8 : sizeof(K) > 4 ? sizeof(K) : 4;
    c.n = pick_size(&c.st, CAP_BYTES / widest);
    if (mode < 4) return run_case<K, K, M_KEYS>(e, c, a);
    if (mode < 7) return mode & 1 ? run_case<K, uint32_t, M_PAIRS>(e, c, a) : run_case<K, uint64_t, M_PAIRS>(e, c, a);
    return run_case<K, uint64_t, M_ARGSORT>(e, c, a);
}

static bool run_one(const sort_env &e, uint64_t id, uint64_t st)
{
    sort_case c;
    memset(&c, 0, sizeof c);
    c.id = id;
    c.st = st;
    const uint64_t r = gp_t_next(&c.st);
    c.dist = (int)((r >> 8) % D_COUNT);
    c.desc = (int)(r >> 16 & 1);
    c.twice = (r >> 17) % 8 == 0;
    c.s = (r >> 20) % 4 == 0 ? (cudaStream_t)0 : e.s1;
    const int place = (int)((r >> 24) % 12); /* 1 in 6 fully in place, pairs sometimes half */
    c.keys_in_place = place < 2 || place == 2;
    c.values_in_place = place < 2 || place == 3;
    switch (r % 7) {
    case 0: return run_for_key(e, c, api_u16);
    case 1: return run_for_key(e, c, api_i32);
    case 2: return run_for_key(e, c, api_u32);
    case 3: return run_for_key(e, c, api_i64);
    case 4: return run_for_key(e, c, api_u64);
    case 5: return run_for_key(e, c, api_f32);
    default: return run_for_key(e, c, api_f64);
    }
}

/* ---- bad inputs: refused, nothing launched ------------------------------------------------------ */

template <class K>
static void check_bad_inputs(const sort_env &e, const sort_api<K> &a)
{
    K *k = (K *)gb_at(e.kin, 0), *k2 = (K *)gb_at(e.kout, 0);
    uint64_t *v = (uint64_t *)gb_at(e.vin, 0), *v2 = (uint64_t *)gb_at(e.vout, 0);
    for (int d = 0; d < 2; d++) {
        const cudaError_t inval = cudaErrorInvalidValue;
        FEXPECT(a.keys[d](k2, NULL, 5, e.s1) == inval && a.keys[d](NULL, k, 5, e.s1) == inval,
                "gp_sort%s_%s: NULL input or output with n 5 is refused", d ? "_desc" : "", a.name);
        FEXPECT(a.keys[d](k + 1, k, 5, e.s1) == inval, "gp_sort%s_%s: overlapping buffers are refused", d ? "_desc" : "", a.name);
        FEXPECT(a.keys[d](NULL, NULL, 0, e.s1) == cudaSuccess, "gp_sort%s_%s: n 0 with NULL pointers is a no-op",
                d ? "_desc" : "", a.name);
        FEXPECT(a.args[d](NULL, k, 5, e.s1) == inval && a.args[d](v2, NULL, 5, e.s1) == inval,
                "gp_argsort%s_%s: NULL indices or keys with n 5 are refused", d ? "_desc" : "", a.name);
        FEXPECT(a.pairs64[d](k2, v2, k, NULL, 5, e.s1) == inval && a.pairs64[d](k2, NULL, k, v, 5, e.s1) == inval &&
                    a.pairs64[d](k2, v2, NULL, v, 5, e.s1) == inval,
                "gp_sort_pairs%s_%s_u64: a NULL pointer with n 5 is refused", d ? "_desc" : "", a.name);
    }
}

/* ---- the section ------------------------------------------------------------------------------------ */

void stress_sort(const stress_family_ctx *ctx)
{
    gp_t_section("families: sort keys, pairs and argsort, random cases for %.0f s", ctx->seconds);
    sort_env e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    const size_t bytes = FRONT + MAX_OFF + CAP_BYTES + GUARD;
    bool ok = cudaMalloc((void **)&e.kin.base, bytes) == cudaSuccess && cudaMalloc((void **)&e.kout.base, bytes) == cudaSuccess &&
              cudaMalloc((void **)&e.vin.base, bytes) == cudaSuccess && cudaMalloc((void **)&e.vout.base, bytes) == cudaSuccess &&
              cudaStreamCreateWithFlags(&e.s1, cudaStreamNonBlocking) == cudaSuccess &&
              cudaStreamCreateWithFlags(&e.s2, cudaStreamNonBlocking) == cudaSuccess;
    FEXPECT(ok, "sort stress: 4 buffers of %zu MB and 2 streams", bytes >> 20);
    if (ok) {
        check_bad_inputs(e, api_u16), check_bad_inputs(e, api_i32), check_bad_inputs(e, api_u32);
        check_bad_inputs(e, api_i64), check_bad_inputs(e, api_u64), check_bad_inputs(e, api_f32);
        check_bad_inputs(e, api_f64);
        family::run_cases(ctx, "sort", "sort cases", [&](uint64_t id, uint64_t st, uint64_t *wrong) {
            *wrong += !run_one(e, id, st);
            return true;
        });
    }
    cudaFree(e.kin.base), cudaFree(e.kout.base), cudaFree(e.vin.base), cudaFree(e.vout.base);
    if (e.s1) cudaStreamDestroy(e.s1);
    if (e.s2) cudaStreamDestroy(e.s2);
}
