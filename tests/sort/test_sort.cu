/* tests/sort/test_sort.cu -- gp_sort[_desc]_<type>, gp_argsort[_desc]_<type>,
 * gp_sort_pairs[_desc]_<k>_<v> for every default instance, and a user value type.
 * Host: the key transforms against IEEE 754 totalOrder and integer order, the buffer
 * schedule of every pass count (never reads what it writes, ends in the output), the
 * scratch layout, argument checks (NULL, overlaps) that launch nothing.
 * GPU: against a host stable sort (std::stable_sort on the transformed bits) on random,
 * all-equal, sorted, reversed, few-distinct, half-one-value and small-range keys, float specials (NaN of
 * both signs, +-inf, +-0.0, denormals), the edge sizes, in place, 4-byte-offset 8-byte keys
 * and values, poisoned guards after the outputs, the one-block and grid paths at the same
 * sizes, the bucket path and the LSD passes at the same sizes, the bucket path's limit (a
 * top digit of 999, 1000 or 1001 keys under a cap of 1000), 64-bit status counts, concurrent streams, a failed scratch allocation that leaves
 * the input untouched, and a count above 2^31 (u32 keys made and checked on the device). */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <vector>

#define CK(call) EXPECT((call) == cudaSuccess, "%s", #call)

/* ---- host ---------------------------------------------------------------------------------- */

template <class K>
static typename gp__sort_key<K>::U order_bits(K k, int desc)
{
    typedef typename gp__sort_key<K>::U U;
    U b = gp__sort_key<K>::bits(k);
    return desc ? (U)~b : b;
}

extern "C" void test_sort_host(void)
{
    gp_t_section("sort: key transforms, schedule, layout, argument checks (host)");
    /* floats in totalOrder: each strictly above the one before */
    const float nan_ = nanf(""), inf = INFINITY;
    const float fl[] = {-nan_, -inf, -3.0e38f, -1.0f, -1.0e-40f /* denormal */, -0.0f, 0.0f, 1.0e-40f, 1.0f,
                        3.0e38f, inf, nan_};
    int ok = 1;
    for (size_t i = 1; i < sizeof fl / sizeof fl[0]; i++)
        ok &= gp__sort_key<float>::bits(fl[i - 1]) < gp__sort_key<float>::bits(fl[i]);
    EXPECT(ok, "f32 keys: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN");
    const double dl[] = {-(double)nan_, -(double)inf, -1.0, -4.9e-324, -0.0, 0.0, 4.9e-324, 1.0, (double)inf,
                         (double)nan_};
    ok = 1;
    for (size_t i = 1; i < sizeof dl / sizeof dl[0]; i++)
        ok &= gp__sort_key<double>::bits(dl[i - 1]) < gp__sort_key<double>::bits(dl[i]);
    EXPECT(ok, "f64 keys in totalOrder");
    const int32_t il[] = {INT32_MIN, -5, -1, 0, 1, INT32_MAX};
    ok = 1;
    for (size_t i = 1; i < 6; i++) ok &= gp__sort_key<int32_t>::bits(il[i - 1]) < gp__sort_key<int32_t>::bits(il[i]);
    EXPECT(ok, "i32 keys in integer order");
    const int64_t ll[] = {INT64_MIN, -5, -1, 0, 1, INT64_MAX};
    ok = 1;
    for (size_t i = 1; i < 6; i++) ok &= gp__sort_key<int64_t>::bits(ll[i - 1]) < gp__sort_key<int64_t>::bits(ll[i]);
    EXPECT(ok, "i64 keys in integer order");
    EXPECT(gp__sort_digit<uint32_t>(0x12345678u, 0, 0) == 0x78 && gp__sort_digit<uint32_t>(0x12345678u, 3, 0) == 0x12 &&
               gp__sort_digit<uint32_t>(0x12345678u, 3, 1) == 0xED,
           "digits: least significant first; descending inverts");

    /* the buffer schedule: every pass count and skip pattern */
    for (int argsort = 0; argsort < 2; argsort++)
        for (int in_place = 0; in_place < 2 - argsort; in_place++)
            for (int R = 1; R <= 8; R++) {
                int good = 1;
                for (int r = 0; r < R; r++) {
                    const int src = gp__sort_src(r, R, in_place, argsort), dst = gp__sort_dst(r, R, in_place, argsort);
                    good &= src != dst && dst != GP__SORT_IN;
                    good &= !(in_place && dst == GP__SORT_OUT && r == 0); /* the output is the input */
                    if (argsort) good &= dst != GP__SORT_OUT;
                    good &= r == 0 ? src == GP__SORT_IN : src == gp__sort_dst(r - 1, R, in_place, argsort);
                }
                const int last = gp__sort_dst(R - 1, R, in_place, argsort);
                if (!argsort) good &= last == GP__SORT_OUT || (in_place && R == 1 && last == GP__SORT_TMP_B);
                EXPECT(good, "schedule: argsort %d, in place %d, %d real passes", argsort, in_place, R);
            }
    EXPECT(gp__sort_real_passes(0x5u, 4) == 2 && gp__sort_rank_of(0x5u, 3) == 1 && gp__sort_rank_of(0x5u, 1) == 0,
           "real passes and ranks from the skip mask");

    /* layout: each part's pieces in order and aligned; the control part's pieces where they
     * are for every key type (status memory keeps it between calls of any type and size) */
    const gp__sort_layout l = gp__sort_make_layout(1000003, 245, 4, 8, 1, 1, 1, 1);
    const gp__sort_layout l8 = gp__sort_make_layout(77, 1, 8, 0, 2, 0, 0, 0);
    EXPECT(l.hist == 0 && l.offsets >= 8 * 256 * 8 && l.ctl >= l.offsets + 8 * 256 * 8 && l.status >= l.ctl + 10 * 8 &&
               l.control >= l.status + 245 * 256 * 8 && l.ka == 0 && l.kb >= l.ka + 1000003 * 4 &&
               l.va >= l.kb + 1000003 * 4 && l.vb >= l.va + 1000003 * 8 && l.buffers >= l.vb + 1000003 * 8 &&
               l.offsets % GP__SCRATCH_ALIGN == 0 && l.status % GP__SCRATCH_ALIGN == 0 &&
               l.control % GP__SCRATCH_ALIGN == 0 && l.va % GP__SCRATCH_ALIGN == 0,
           "scratch layout");
    EXPECT(l8.hist == l.hist && l8.offsets == l.offsets && l8.ctl == l.ctl && l8.status == l.status &&
               l8.control >= l8.status + 2 * 256 * 8 && l8.buffers >= 77 * 8,
           "the control part's layout is the same for every key type");

    /* argument checks: nothing is touched (the pointers are never dereferenced) */
    uint32_t *p = (uint32_t *)(uintptr_t)0x100000;
    uint32_t *v = (uint32_t *)(uintptr_t)0x200000;
    EXPECT(gp_sort_u32(p, NULL, 5, 0) == cudaErrorInvalidValue, "NULL input");
    EXPECT(gp_sort_u32(NULL, p, 5, 0) == cudaErrorInvalidValue, "NULL output");
    EXPECT(gp_sort_u32(NULL, NULL, 0, 0) == cudaSuccess, "n == 0 is a no-op");
    EXPECT(gp_sort_u32(p + 1, p, 5, 0) == cudaErrorInvalidValue, "partial overlap");
    EXPECT(gp_sort_pairs_u32_u32(p, v, p, NULL, 5, 0) == cudaErrorInvalidValue, "NULL values");
    EXPECT(gp_sort_pairs_u32_u32(p, p + 2, p, v, 5, 0) == cudaErrorInvalidValue, "keys out over values out");
    EXPECT(gp_sort_pairs_u32_u32(p, v, v + 2, v, 5, 0) == cudaErrorInvalidValue, "values out over keys in");
    EXPECT(gp_argsort_u32(NULL, p, 5, 0) == cudaErrorInvalidValue, "NULL indices");
    EXPECT(gp_argsort_u32((uint64_t *)(p + 1), p, 5, 0) == cudaErrorInvalidValue, "indices over keys");
    EXPECT(gp_sort_u32(p, p, (size_t)1 << 62, 0) == cudaErrorInvalidValue, "a count whose bytes overflow");
}

/* ---- GPU ------------------------------------------------------------------------------------ */

/* D_HALF: half the keys one value, so one digit holds more than a quarter of every pass
 * (the pass kernel's crowded rank, __match_any_sync). D_HEAVY (not in the loops over D_COUNT):
 * random, but exactly g_heavy keys (spread over the input) have the top byte 0x5A, so one
 * top digit holds g_heavy keys and the others about n / 255 */
enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSED, D_FEW, D_SMALL, D_SPECIAL, D_MID, D_HALF, D_COUNT, D_HEAVY = D_COUNT };
static const char *dist_name[] = {"random", "all equal", "sorted", "reversed", "8 distinct", "below 256", "specials", "below 2^24",
                                  "half one value", "one top byte heavy"};
static size_t g_heavy;

template <class T>
static T from_bits(uint64_t r)
{
    T k;
    memcpy(&k, &r, sizeof k);
    return k;
}

template <class K>
static void make_keys(std::vector<K> &k, size_t n, int dist, uint64_t *st)
{
    k.resize(n);
    K few[8];
    for (int i = 0; i < 8; i++) few[i] = from_bits<K>(gp_t_next(st));
    const K one = from_bits<K>(gp_t_next(st));
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(st);
        switch (dist) {
        case D_EQUAL: k[i] = one; break;
        case D_FEW: k[i] = few[r % 8]; break;
        case D_SMALL: k[i] = (K)(r & 255); break;
        case D_MID: k[i] = (K)(r & 0xFFFFFF); break;
        case D_HALF: k[i] = r >> 63 ? one : from_bits<K>(r); break;
        case D_HEAVY: { /* (i g_heavy) mod n < g_heavy for exactly g_heavy of the i where n is prime */
            const uint64_t top = (uint64_t)0x5A << (8 * sizeof(K) - 8), mask = (uint64_t)0xFF << (8 * sizeof(K) - 8);
            const bool heavy = (i * g_heavy) % n < g_heavy;
            k[i] = from_bits<K>(heavy ? (r & ~mask) | top : (r & mask) == top ? r ^ ((uint64_t)1 << (8 * sizeof(K) - 8)) : r);
            break;
        }
        case D_SPECIAL:
            if constexpr (sizeof(K) == 4 && (K)0.5 != 0) {
                const float sp[] = {nanf(""), -nanf(""), INFINITY, -INFINITY, 0.0f, -0.0f, 1.0e-40f, -1.0e-40f, 1.0f, -1.0f};
                k[i] = r % 3 ? (K)sp[(r >> 8) % 10] : from_bits<K>(r);
            } else if constexpr (sizeof(K) == 8 && (K)0.5 != 0) {
                const double sp[] = {nan(""), -nan(""), INFINITY, -INFINITY, 0.0, -0.0, 4.9e-324, -4.9e-324, 1.0, -1.0};
                k[i] = r % 3 ? (K)sp[(r >> 8) % 10] : from_bits<K>(r);
            } else {
                k[i] = from_bits<K>(r % 5 ? r : (r & 1 ? ~0ull : 0ull)); /* extremes */
            }
            break;
        default: k[i] = from_bits<K>(r);
        }
    }
    if (dist == D_SORTED || dist == D_REVERSED) {
        std::stable_sort(k.begin(), k.end(), [](K a, K b) { return order_bits(a, 0) < order_bits(b, 0); });
        if (dist == D_REVERSED) std::reverse(k.begin(), k.end());
    }
}

/* the stable permutation, on the host */
template <class K>
static std::vector<uint64_t> ref_perm(const std::vector<K> &k, int desc)
{
    std::vector<uint64_t> perm(k.size());
    for (size_t i = 0; i < k.size(); i++) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(),
                     [&](uint64_t a, uint64_t b) { return order_bits(k[a], desc) < order_bits(k[b], desc); });
    return perm;
}

#define GUARD 64 /* poisoned bytes after every output */
#define POISON 0xA5

/* A device buffer of `bytes` at byte offset `off` from an allocation, with GUARD poisoned
 * bytes after it. */
struct dbuf {
    unsigned char *base = NULL;
    size_t off = 0, bytes = 0;
    void *p() const { return base ? base + off : NULL; }
    bool alloc(size_t b, size_t o)
    {
        bytes = b;
        off = o;
        if (cudaMalloc((void **)&base, b + o + GUARD) != cudaSuccess) return false;
        return cudaMemset(base, POISON, b + o + GUARD) == cudaSuccess;
    }
    bool guard_ok() const
    {
        unsigned char g[GUARD];
        if (cudaMemcpy(g, base + off + bytes, GUARD, cudaMemcpyDeviceToHost) != cudaSuccess) return false;
        for (int i = 0; i < GUARD; i++)
            if (g[i] != POISON) return false;
        return true;
    }
    ~dbuf() { cudaFree(base); }
};

/* user instances: values of 12 and 16 bytes (the one-cluster sort stores them to its peers as
 * 4-byte words and as one 16-byte vector), of 3 bytes (plain stores and a cluster barrier)
 * and of 4 bytes aligned to 1 (never copied as 4-byte words: tested one byte off a 4-byte
 * boundary) */
typedef struct { uint32_t a, b, c; } rgb12_t;
typedef struct { uint32_t a, b, c, d; } quad16_t;
typedef struct { unsigned char r, g, b; } rgb3_t;
typedef struct { unsigned char r, g, b, a; } rgba4_t;
GP_DEFINE_SORT_PAIRS(u32_rgb12, uint32_t, rgb12_t)
GP_DEFINE_SORT_PAIRS(u32_quad16, uint32_t, quad16_t)
GP_DEFINE_SORT_PAIRS(u32_rgb3, uint32_t, rgb3_t)
GP_DEFINE_SORT_PAIRS(u32_rgba4, uint32_t, rgba4_t)
template <class V>
static constexpr bool user_value = std::is_same<V, rgb12_t>::value || std::is_same<V, quad16_t>::value ||
                                   std::is_same<V, rgb3_t>::value || std::is_same<V, rgba4_t>::value;

enum { IN_KEYS = 1, IN_VALUES = 2 }; /* sort_case::run's in_place: bits */

/* One case: keys K (values V, argsort or keys only by MODE), n, distribution, descending,
 * in place (IN_KEYS and IN_VALUES: which outputs are their inputs), byte offset of every buffer, knobs. Calls the public function `fn` (NULL: the
 * internal gp__sort with knobs). Returns 1 if it passed. */
template <class K, class V, int MODE>
struct sort_case {
    typedef cudaError_t (*keys_fn)(K *, const K *, size_t, cudaStream_t);
    typedef cudaError_t (*arg_fn)(uint64_t *, const K *, size_t, cudaStream_t);
    typedef cudaError_t (*pairs_fn)(K *, V *, const K *, const V *, size_t, cudaStream_t);
    keys_fn kf = NULL;
    arg_fn af = NULL;
    pairs_fn pf = NULL;
    size_t value_off = 0; /* pairs: the values' buffers this many bytes further than the keys' */

    /* the library's own instance with the knobs (its kernels are compiled there, not here);
     * the user value type's from this file's GP_DEFINE_SORT_PAIRS */
    static cudaError_t with_knobs(K *ko, V *vo, const K *ki, const V *vi, size_t n, int desc, const gp__sort_knobs *knobs)
    {
        if constexpr (user_value<V>) return gp__sort<K, V, MODE>(ko, vo, ki, vi, n, desc, 0, knobs);
        else return gp__sort_with_knobs<K, V, MODE>(ko, vo, ki, vi, n, desc, knobs);
    }

    int run(const char *name, size_t n, int dist, int desc, int in_place, size_t off, const gp__sort_knobs *knobs,
            uint64_t seed)
    {
        uint64_t st = seed;
        std::vector<K> keys;
        make_keys(keys, n, dist, &st);
        std::vector<V> vals(n);
        if constexpr (MODE == GP__SORT_PAIRS)
            for (size_t i = 0; i < n; i++) {
                uint64_t r = gp_t_next(&st);
                unsigned char b[sizeof(V)];
                for (size_t c = 0; c < sizeof(V); c++) b[c] = (unsigned char)(r >> (8 * (c % 8)) ^ c);
                memcpy(&vals[i], b, sizeof(V));
            }
        const std::vector<uint64_t> perm = ref_perm(keys, desc);
        const size_t kbytes = n * sizeof(K), vbytes = n * sizeof(V), ibytes = n * 8;
        dbuf kin, kout, vin, vout;
        const bool keys_in_place = in_place & IN_KEYS, values_in_place = MODE == GP__SORT_PAIRS && (in_place & IN_VALUES);
        bool ok = kin.alloc(kbytes, off) && (keys_in_place || kout.alloc(kbytes, off));
        if (MODE == GP__SORT_PAIRS)
            ok = ok && vin.alloc(vbytes, off + value_off) && (values_in_place || vout.alloc(vbytes, off + value_off));
        if (MODE == GP__SORT_ARGSORT) ok = ok && vout.alloc(ibytes, off % 4 ? 4 : off); /* 64-bit indices: 4-byte steps */
        ok = ok && cudaMemcpy(kin.p(), keys.data(), kbytes, cudaMemcpyHostToDevice) == cudaSuccess;
        if (MODE == GP__SORT_PAIRS) ok = ok && cudaMemcpy(vin.p(), vals.data(), vbytes, cudaMemcpyHostToDevice) == cudaSuccess;
        K *ko = (K *)(keys_in_place ? kin.p() : kout.p());
        void *vo = values_in_place ? vin.p() : vout.p();
        cudaError_t err = cudaErrorUnknown;
        if (ok) {
            if (knobs) err = with_knobs(ko, (V *)vo, (const K *)kin.p(), (const V *)vin.p(), n, desc, knobs);
            else if (MODE == GP__SORT_KEYS) err = kf(ko, (const K *)kin.p(), n, 0);
            else if (MODE == GP__SORT_ARGSORT) err = af((uint64_t *)vout.p(), (const K *)kin.p(), n, 0);
            else err = pf(ko, (V *)vo, (const K *)kin.p(), (const V *)vin.p(), n, 0);
            if (err == cudaSuccess) err = cudaDeviceSynchronize();
        }
        bool right = ok && err == cudaSuccess;
        if (right && MODE != GP__SORT_ARGSORT) {
            std::vector<K> got(n);
            right = cudaMemcpy(got.data(), ko, kbytes, cudaMemcpyDeviceToHost) == cudaSuccess;
            for (size_t i = 0; i < n && right; i++) right = memcmp(&got[i], &keys[perm[i]], sizeof(K)) == 0;
            right = right && (keys_in_place ? kin.guard_ok() : kout.guard_ok());
        }
        if (right && MODE == GP__SORT_PAIRS) {
            std::vector<V> got(n);
            right = cudaMemcpy(got.data(), vo, vbytes, cudaMemcpyDeviceToHost) == cudaSuccess;
            for (size_t i = 0; i < n && right; i++) right = memcmp(&got[i], &vals[perm[i]], sizeof(V)) == 0;
            right = right && (values_in_place ? vin.guard_ok() : vout.guard_ok());
        }
        if (right && MODE == GP__SORT_ARGSORT) {
            std::vector<uint64_t> got(n);
            right = cudaMemcpy(got.data(), vout.p(), ibytes, cudaMemcpyDeviceToHost) == cudaSuccess;
            right = right && (n == 0 || memcmp(got.data(), perm.data(), ibytes) == 0) && vout.guard_ok();
        }
        if (right && !keys_in_place && n) { /* the input is untouched */
            std::vector<K> again(n);
            right = cudaMemcpy(again.data(), kin.p(), kbytes, cudaMemcpyDeviceToHost) == cudaSuccess &&
                    memcmp(again.data(), keys.data(), kbytes) == 0;
        }
        EXPECT(right, "%s: n %zu, %s, %s%s, offset %zu%s%s%s: %s", name, n, dist_name[dist], desc ? "descending" : "ascending",
               keys_in_place && values_in_place ? ", in place" : keys_in_place ? ", keys in place" : values_in_place ? ", values in place" : "", off,
               value_off ? " (values 1 byte further)" : "", knobs && knobs->no_small ? ", grid path" : "",
               knobs && knobs->wide ? ", 64-bit counts" : "", cudaGetErrorName(err));
        return right;
    }
};

/* Under racecheck (GP_TEST_SMALL=2, minutes a family otherwise): signed and float keys only
 * at the one-block sizes. The grid path's kernels differ from the unsigned keys' of the same
 * width only in the key transform, done in registers; its barriers and shared memory are the
 * same, and the unsigned keys run it at every size. */
template <class K>
static bool race_small_only_keys()
{
    return gp_t_small() == 2 && !std::is_unsigned<K>::value;
}

static std::vector<size_t> test_sizes(int big)
{
    /* 4097 .. 65536: one cluster (2, 3 and 16 blocks, and 10 with a partial last tile) */
    /* up to 512 (and 8-byte keys): the bitonic network a thread a key; 513 .. 1024: 8 a thread */
    /* 1025 .. 2048 and 2049 .. 4096: one block, one tile in registers (full at 2048 and 4096) */
    std::vector<size_t> s = {0,    1,    31,   32,   33,   512,  513,   1023,  1024, 1025,
                             2048, 2049, 4095, 4096, 4097, 8192, 8193, 40001, 65536, 65537};
    if (gp_t_small() == 2) s = {0, 1, 33, 1000, 1025, 2049, 4097, 8193, 65537}; /* racecheck: each path and tail once */
    if (!gp_t_small()) {
        s.push_back(1048573); /* a prime near 2^20 */
        if (big) s.push_back(((size_t)1 << 24) + 7);
    }
    return s;
}

/* every size and distribution for one key type: sort, descending, argsort both ways */
template <class K>
static void keys_suite(const char *name, typename sort_case<K, K, 0>::keys_fn asc,
                       typename sort_case<K, K, 0>::keys_fn desc, typename sort_case<K, uint64_t, 2>::arg_fn aasc,
                       typename sort_case<K, uint64_t, 2>::arg_fn adesc, int big)
{
    sort_case<K, K, GP__SORT_KEYS> kc;
    sort_case<K, uint64_t, GP__SORT_ARGSORT> ac;
    char what[64];
    const bool race_small_only = race_small_only_keys<K>();
    for (size_t n : test_sizes(big))
        for (int d = 0; d < D_COUNT; d++) {
            if (race_small_only && n > 4097) continue;
            if (n > 70000 && d != D_RANDOM && d != D_FEW && d != D_SPECIAL && d != D_HALF) continue;
            if (n > ((size_t)1 << 21) && d != D_RANDOM) continue;
            /* the sanitizers (minutes per family otherwise): every distribution at small n only */
            if (gp_t_small() && n > 1025 && d != D_RANDOM && d != D_SPECIAL) continue;
            if (gp_t_small() == 2 && n > 33 && d != D_RANDOM) continue;
            const uint64_t seed = gp_t_state(n * 16 + d);
            for (int dir = 0; dir < 2; dir++) {
                kc.kf = dir ? desc : asc;
                snprintf(what, sizeof what, "gp_sort%s_%s", dir ? "_desc" : "", name);
                kc.run(what, n, d, dir, 0, 0, NULL, seed);
                if (n > ((size_t)1 << 21)) continue;
                ac.af = dir ? adesc : aasc;
                snprintf(what, sizeof what, "gp_argsort%s_%s", dir ? "_desc" : "", name);
                ac.run(what, n, d, dir, 0, 0, NULL, seed);
            }
        }
    /* in place, offsets, both paths, 64-bit counts */
    const size_t off = sizeof(K) == 8 ? 4 : sizeof(K);
    const size_t some[] = {1, 33, 4097, 8193, 65537, 300007};
    for (size_t n : some) {
        if (gp_t_small() && (n == 1 || n == 4097 || n > 70000)) continue;
        if (race_small_only && n > 4097) continue;
        const uint64_t seed = gp_t_state(n * 7 + 3);
        kc.kf = asc;
        snprintf(what, sizeof what, "gp_sort_%s", name);
        kc.run(what, n, D_RANDOM, 0, 1, 0, NULL, seed);
        kc.run(what, n, D_RANDOM, 0, 0, off, NULL, seed);
        ac.af = aasc;
        snprintf(what, sizeof what, "gp_argsort_%s", name);
        ac.run(what, n, D_RANDOM, 0, 0, off, NULL, seed);
        gp__sort_knobs grid = {}, wide = {}, lsd = {}; /* the grid path; with 64-bit counts; without buckets */
        grid.no_small = wide.no_small = lsd.no_small = 1;
        wide.wide = 1;
        lsd.no_buckets = 1;
        kc.run("gp__sort (grid path)", n, D_FEW, 1, 0, 0, &grid, seed);
        /* random keys take the bucket path where it is offered (up to 2^20 keys); here the LSD passes */
        kc.run("gp__sort (grid path, no buckets)", n, D_RANDOM, 1, 0, off, &lsd, seed);
        ac.run("gp__sort argsort (grid path, no buckets)", n, D_RANDOM, 0, 0, 0, &lsd, seed);
        kc.run("gp__sort (grid path)", n, D_RANDOM, 0, 1, 0, &grid, seed);
        kc.run("gp__sort (wide)", n, D_RANDOM, 1, 0, off, &wide, seed);
        kc.run("gp__sort (wide)", n, D_SMALL, 0, 1, 0, &wide, seed); /* in place, one real pass */
        kc.run("gp__sort (grid path)", n, D_MID, 0, 1, 0, &grid, seed); /* in place, three real passes */
        ac.run("gp__sort argsort (grid path)", n, D_EQUAL, 0, 0, 0, &grid, seed);
        /* argsort's 32-bit indices, one and three real passes (the first writes them into the
         * caller's array), and its 64-bit indices (the path above 2^32 keys); under racecheck
         * at 33 keys only (its pass kernel runs there at 65537 keys above) */
        if (gp_t_small() != 2 || n <= 33) {
            ac.run("gp__sort argsort (grid path)", n, D_SMALL, 1, 0, off, &grid, seed);
            ac.run("gp__sort argsort (grid path)", n, D_MID, 0, 0, 0, &grid, seed);
            ac.run("gp__sort argsort (wide)", n, D_RANDOM, 1, 0, off, &wide, seed);
        }
        { /* where the small or mid tiles run (up to about 2^20 keys), the default ones too; and
           * the mid tiles (4-byte keys alone) at every size, so that the sanitizers, which stop
           * below 70000 keys, run their kernel */
            gp__sort_knobs big_tiles = {}, mid_tiles = {};
            big_tiles.no_small = big_tiles.no_small_tiles = 1;
            mid_tiles.no_small = mid_tiles.mid_tiles = 1;
            kc.run("gp__sort (grid path, default tiles)", n, D_RANDOM, 1, 1, 0, &big_tiles, seed);
            ac.run("gp__sort argsort (grid path, default tiles)", n, D_FEW, 0, 0, 0, &big_tiles, seed);
            kc.run("gp__sort (grid path, mid tiles)", n, D_RANDOM, 0, 0, off, &mid_tiles, seed);
            kc.run("gp__sort (grid path, mid tiles)", n, D_HALF, 1, 1, 0, &mid_tiles, seed); /* crowded: four passes */
        }
        if (n > (size_t)GP__SORT_CLUSTER_BLOCK * GP__SORT_CLUSTER_ITEMS && n <= GP__SORT_SMALL_MAX) {
            /* where a cluster runs, the one-block radix sort too (a GPU without clusters) */
            gp__sort_knobs one_block = {};
            one_block.no_cluster = 1;
            kc.run("gp__sort (one-block radix, no cluster)", n, D_RANDOM, 1, 1, off, &one_block, seed);
            ac.run("gp__sort argsort (one-block radix, no cluster)", n, D_FEW, 0, 0, 0, &one_block, seed);
            /* and the cluster's LSD passes on keys its split would take */
            gp__sort_knobs lsd_cluster = {};
            lsd_cluster.no_cluster_split = 1;
            kc.run("gp__sort (one cluster, LSD passes)", n, D_RANDOM, 1, 1, off, &lsd_cluster, seed);
            ac.run("gp__sort argsort (one cluster, LSD passes)", n, D_RANDOM, 0, 0, 0, &lsd_cluster, seed);
        }
        if (n <= GP__SORT_BITONIC_MAX) { /* where the bitonic network runs, the one-block radix sort too */
            gp__sort_knobs radix = {};
            radix.no_bitonic = 1;
            kc.run("gp__sort (one-block radix)", n, D_FEW, 1, 0, 0, &radix, seed);
            kc.run("gp__sort (one-block radix)", n, D_RANDOM, 0, 1, off, &radix, seed);
            ac.run("gp__sort argsort (one-block radix)", n, D_SPECIAL, 1, 0, 0, &radix, seed);
        }
    }
}

#define KEYS_SUITE(name, K) \
    keys_suite<K>(#name, gp_sort_##name, gp_sort_desc_##name, gp_argsort_##name, gp_argsort_desc_##name, BIG_##name);
#define BIG_u16 0
#define BIG_i32 0
#define BIG_u32 1
#define BIG_i64 0
#define BIG_u64 0
#define BIG_f32 1
#define BIG_f64 0

/* D_HEAVY inputs of n keys with one top digit of g_heavy keys: u32 keys, argsort and u32
 * pairs, both directions (descending in place). */
static void heavy_cases(const char *what, size_t n, const gp__sort_knobs *knobs, uint64_t seed)
{
    sort_case<uint32_t, uint32_t, GP__SORT_KEYS> kc;
    sort_case<uint32_t, uint64_t, GP__SORT_ARGSORT> ac;
    sort_case<uint32_t, uint32_t, GP__SORT_PAIRS> pc;
    for (int dir = 0; dir < 2; dir++) {
        kc.run(what, n, D_HEAVY, dir, dir ? IN_KEYS : 0, 0, knobs, seed);
        ac.run(what, n, D_HEAVY, dir, 0, 0, knobs, seed);
        pc.run(what, n, D_HEAVY, dir, dir ? IN_KEYS | IN_VALUES : 0, 0, knobs, seed);
    }
}

/* The bucket path's limit, set to 1000 keys by knob: one top digit holding 999 or exactly
 * 1000 keys (the bucket kernel, its shared memory full), or 1001 (the LSD passes). Then, at
 * the library's own limit (8192 4-byte keys where shared memory allows), buckets of more
 * than one bucket tile (GP__SORT_BUCKET_BLOCK x _ITEMS keys): one key more than a tile, and
 * the limit itself. */
static void bucket_limit_suite(void)
{
    const size_t n = 70001; /* prime: D_HEAVY's count is exact */
    const size_t bucket_tile = (size_t)GP__SORT_BUCKET_BLOCK * GP__SORT_BUCKET_ITEMS;
    const size_t heavies[] = {999, 1000, 1001, bucket_tile + 1, GP__SORT_BUCKET_CAP};
    for (size_t heavy : heavies) {
        if (gp_t_small() == 2 && heavy != 1000 && heavy != GP__SORT_BUCKET_CAP) continue;
        g_heavy = heavy;
        const unsigned knob_cap = heavy <= 1001 ? 1000u : 0u; /* 0: the library's own */
        gp__sort_knobs cap = {};
        cap.no_small = 1;
        cap.bucket_cap = knob_cap;
        const uint64_t seed = gp_t_state(heavy);
        char what[64];
        snprintf(what, sizeof what, "gp__sort (buckets of %u, one of %zu)", knob_cap ? knob_cap : GP__SORT_BUCKET_CAP,
                 heavy);
        heavy_cases(what, n, &cap, seed);
    }
}

/* The one-cluster sort's split: a block sorts the top digits whose first place falls in its
 * tile, which holds where no top digit has more than GP__SORT_CLUSTER_BLOCK x
 * (GP__SORT_CLUSTER_SPLIT_ITEMS - GP__SORT_CLUSTER_ITEMS) keys (512). D_HEAVY's heavy keys
 * and the sample's keys are both fixed places, so each case takes a known way: one top digit
 * of 512 keys takes the split at 8191 keys (two blocks) and 65521 (16 blocks, the largest
 * cluster), each sampling one heavy key; one of 513 takes the LSD passes, at 8191 from the
 * sample (31 heavy keys of 512), at 65521 from the exact test after the top digit's
 * exchange (5 heavy keys sampled, too few to call it crowded). */
static void cluster_split_suite(void)
{
    sort_case<uint32_t, rgb3_t, GP__SORT_PAIRS> p3; /* plain stores to the peers and a cluster barrier */
    const gp__sort_knobs defaults = {};
    const size_t most = (size_t)GP__SORT_CLUSTER_BLOCK * (GP__SORT_CLUSTER_SPLIT_ITEMS - GP__SORT_CLUSTER_ITEMS);
    for (size_t n : {(size_t)8191, (size_t)65521}) /* primes: D_HEAVY's count is exact */
        for (size_t heavy : {most, most + 1}) {
            if (gp_t_small() == 2 && n > 8191) continue;
            g_heavy = heavy;
            const uint64_t seed = gp_t_state(n + heavy);
            char what[80];
            snprintf(what, sizeof what, "gp__sort (one cluster, one top digit of %zu keys)", heavy);
            heavy_cases(what, n, &defaults, seed);
            for (int dir = 0; dir < 2; dir++) p3.run(what, n, D_HEAVY, dir, 0, 0, &defaults, seed);
        }
}

extern "C" void test_sort_keys(void)
{
    gp_t_section("sort: keys and argsort, every key type, against a host stable sort");
    if (!gp_t_have_gpu()) {
        gp_t_skip("sort keys: no GPU");
        return;
    }
    GP__SORT_INSTANCES(KEYS_SUITE)
    bucket_limit_suite();
    cluster_split_suite();
}

template <class K, class V>
static void pairs_suite(const char *name, typename sort_case<K, V, 1>::pairs_fn asc, typename sort_case<K, V, 1>::pairs_fn desc,
                        int big)
{
    sort_case<K, V, GP__SORT_PAIRS> pc;
    char what[64];
    const size_t sizes[] = {1, 32, 1000, 1025, 8193, 40001, 65537, 1048573, ((size_t)1 << 24) + 7};
    const bool race_small_only = race_small_only_keys<K>();
    for (size_t n : sizes) {
        if ((gp_t_small() && n > 70000) || (n > ((size_t)1 << 21) && !big)) continue;
        if (race_small_only && n > 4097) continue;
        if (gp_t_small() == 2 && n == 40001) continue; /* racecheck: 8193 runs the cluster (40001: 11 s a call) */
        const uint64_t seed = gp_t_state(n * 5 + 11);
        /* random, few and half one value (every distribution below 2^17, except under racecheck) */
        for (int d = 0; d < D_COUNT; d += (n > 70000 || gp_t_small() == 2 ? 4 : 1))
            for (int dir = 0; dir < 2; dir++) {
                pc.pf = dir ? desc : asc;
                snprintf(what, sizeof what, "gp_sort_pairs%s_%s", dir ? "_desc" : "", name);
                pc.run(what, n, d, dir, 0, 0, NULL, seed);
            }
        if (n > 70000) continue;
        pc.pf = asc;
        snprintf(what, sizeof what, "gp_sort_pairs_%s", name);
        pc.run(what, n, D_RANDOM, 0, IN_KEYS | IN_VALUES, 0, NULL, seed);
        pc.run(what, n, D_RANDOM, 0, 0, sizeof(K) == 8 || sizeof(V) == 8 ? 4 : 0, NULL, seed);
        gp__sort_knobs grid = {}, big_tiles = {}, lsd = {}; /* the grid path; default tiles; without buckets */
        grid.no_small = big_tiles.no_small = lsd.no_small = 1;
        big_tiles.no_small_tiles = 1;
        lsd.no_buckets = 1;
        pc.run("gp__sort pairs (grid path, in place)", n, D_SMALL, 1, IN_KEYS | IN_VALUES, 0, &grid, seed);
        pc.run("gp__sort pairs (grid path, in place)", n, D_RANDOM, 0, IN_KEYS | IN_VALUES, 0, &grid, seed);
        pc.run("gp__sort pairs (grid path, no buckets)", n, D_RANDOM, 1, 0, 0, &lsd, seed);
        pc.run("gp__sort pairs (grid path, default tiles)", n, D_RANDOM, 0, IN_KEYS, 0, &big_tiles, seed);
        if (alignof(V) == 1) { /* values one byte off a 4-byte boundary, keys on it */
            pc.value_off = 1;
            pc.run(what, n, D_RANDOM, 0, 0, 0, NULL, seed);
            pc.run("gp__sort pairs (grid path, default tiles)", n, D_RANDOM, 1, 0, 0, &big_tiles, seed);
            pc.value_off = 0;
        }
        if (n <= GP__SORT_BITONIC_MAX) {
            gp__sort_knobs radix = {};
            radix.no_bitonic = 1;
            pc.run("gp__sort pairs (one-block radix, in place)", n, D_FEW, 1, IN_KEYS | IN_VALUES, 0, &radix, seed);
        }
        /* one side in place: every pass skipped (equal keys) must still copy the other side,
         * and a real pass must still land in it (racecheck: at the smaller sizes) */
        for (int side = IN_KEYS; side <= IN_VALUES && (gp_t_small() != 2 || n <= 1025); side++) {
            pc.run("gp__sort pairs (grid path, one side in place)", n, D_EQUAL, 0, side, 0, &grid, seed);
            pc.run("gp__sort pairs (grid path, one side in place)", n, D_SMALL, 1, side, 0, &grid, seed);
            pc.run(what, n, D_EQUAL, 1, side, 0, NULL, seed);
        }
    }
}
#define PAIRS_SUITE(name, K, V) pairs_suite<K, V>(#name, gp_sort_pairs_##name, gp_sort_pairs_desc_##name, GP_T_STREQ(#name, "u32_u32"));

extern "C" void test_sort_pairs(void)
{
    gp_t_section("sort: pairs, every instance and user values of 12, 16 and 3 bytes");
    if (!gp_t_have_gpu()) {
        gp_t_skip("sort pairs: no GPU");
        return;
    }
    GP__SORT_PAIRS_INSTANCES(PAIRS_SUITE)
    pairs_suite<uint32_t, rgb12_t>("u32_rgb12 (GP_DEFINE_SORT_PAIRS)", gp_sort_pairs_u32_rgb12,
                                   gp_sort_pairs_desc_u32_rgb12, 0);
    pairs_suite<uint32_t, quad16_t>("u32_quad16 (GP_DEFINE_SORT_PAIRS)", gp_sort_pairs_u32_quad16,
                                    gp_sort_pairs_desc_u32_quad16, 0);
    pairs_suite<uint32_t, rgb3_t>("u32_rgb3 (GP_DEFINE_SORT_PAIRS)", gp_sort_pairs_u32_rgb3, gp_sort_pairs_desc_u32_rgb3, 0);
    pairs_suite<uint32_t, rgba4_t>("u32_rgba4 (GP_DEFINE_SORT_PAIRS)", gp_sort_pairs_u32_rgba4, gp_sort_pairs_desc_u32_rgba4, 0);
}

/* Status memory (the control part kept per stream): calls back to back on one stream with
 * no synchronisation between them, of mixed key types, sizes and paths (bucket path, small,
 * mid and default tiles, crowded and skipped passes, 64-bit status words), so each finds the
 * stale counts and words of the ones before; then the public calls captured in a graph
 * (per-call scratch), replayed, with eager calls between. Each output against the host's
 * stable sort. */
struct status_call {
    virtual ~status_call() {}
    virtual cudaError_t launch(cudaStream_t s) = 0; /* wide (64-bit counts): on stream 0 */
    virtual void poison(cudaStream_t s) = 0;
    virtual int check() = 0;
    int wide = 0;
};
template <class K>
struct status_call_of : status_call {
    std::vector<K> keys, want;
    std::vector<uint64_t> perm;
    K *d_in = NULL, *d_out = NULL;
    uint64_t *d_idx = NULL;
    cudaError_t (*kf)(K *, const K *, size_t, cudaStream_t) = NULL; /* else argsort */
    cudaError_t (*af)(uint64_t *, const K *, size_t, cudaStream_t) = NULL;
    status_call_of(size_t n, int dist, int w, uint64_t *st)
    {
        wide = w;
        make_keys(keys, n, dist, st);
        perm = ref_perm(keys, 0);
        want.resize(n);
        for (size_t i = 0; i < n; i++) want[i] = keys[perm[i]];
        CK(cudaMalloc((void **)&d_in, n * sizeof(K)));
        CK(cudaMalloc((void **)&d_out, n * sizeof(K)));
        CK(cudaMalloc((void **)&d_idx, n * 8));
        CK(cudaMemcpy(d_in, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    }
    ~status_call_of()
    {
        cudaFree(d_in);
        cudaFree(d_out);
        cudaFree(d_idx);
    }
    cudaError_t launch(cudaStream_t s)
    {
        const size_t n = keys.size();
        gp__sort_knobs knobs = {};
        knobs.wide = 1;
        if (wide) return kf ? gp__sort_with_knobs<K, K, GP__SORT_KEYS>(d_out, NULL, d_in, NULL, n, 0, &knobs)
                            : gp__sort_with_knobs<K, uint64_t, GP__SORT_ARGSORT>(NULL, d_idx, d_in, NULL, n, 0, &knobs);
        return kf ? kf(d_out, d_in, n, s) : af(d_idx, d_in, n, s);
    }
    void poison(cudaStream_t s)
    {
        CK(cudaMemsetAsync(d_out, 0xA5, keys.size() * sizeof(K), s));
        CK(cudaMemsetAsync(d_idx, 0xA5, keys.size() * 8, s));
    }
    int check()
    {
        const size_t n = keys.size();
        if (!kf) {
            std::vector<uint64_t> got(n);
            CK(cudaMemcpy(got.data(), d_idx, n * 8, cudaMemcpyDeviceToHost));
            return got == perm;
        }
        std::vector<K> got(n);
        CK(cudaMemcpy(got.data(), d_out, n * sizeof(K), cudaMemcpyDeviceToHost));
        return memcmp(got.data(), want.data(), n * sizeof(K)) == 0;
    }
};
template <class K>
static status_call *status_keys(cudaError_t (*kf)(K *, const K *, size_t, cudaStream_t), size_t n, int dist, int wide,
                                uint64_t *st)
{
    status_call_of<K> *c = new status_call_of<K>(n, dist, wide, st);
    c->kf = kf;
    return c;
}
template <class K>
static status_call *status_argsort(cudaError_t (*af)(uint64_t *, const K *, size_t, cudaStream_t), size_t n, int dist,
                                   uint64_t *st)
{
    status_call_of<K> *c = new status_call_of<K>(n, dist, 0, st);
    c->af = af;
    return c;
}

extern "C" void test_sort_status(void)
{
    gp_t_section("sort: status memory, calls back to back of mixed types and sizes, and under capture");
    if (!gp_t_have_gpu()) {
        gp_t_skip("sort status memory: no GPU");
        return;
    }
    const int small = gp_t_small();
    uint64_t st = gp_t_state(0x5057);
    std::vector<status_call *> calls = {
        status_keys<uint32_t>(gp_sort_u32, small ? 200003 : 3000017, D_RANDOM, 0, &st), /* default tiles */
        status_keys<uint32_t>(gp_sort_u32, small ? 100000 : (size_t)1 << 20, D_RANDOM, 0, &st), /* bucket path */
        status_argsort<float>(gp_argsort_f32, small ? 300000 : 1500007, D_SPECIAL, &st), /* mid tiles, crowded */
        status_keys<uint64_t>(gp_sort_u64, small ? 70001 : (size_t)1 << 19, D_RANDOM, 0, &st),
        status_keys<uint32_t>(gp_sort_u32, small ? 90000 : 777777, D_RANDOM, 1, &st), /* 64-bit status words */
        status_keys<int32_t>(gp_sort_i32, small ? 80000 : (size_t)1 << 20 | 3, D_EQUAL, 0, &st), /* every pass skipped */
        status_keys<uint32_t>(gp_sort_u32, small ? 66000 : 200000, D_FEW, 0, &st), /* small tiles, crowded */
    };
    /* eager, on stream 0 (the knobs' calls run there), every call twice without a synchronisation */
    int ok = 1;
    for (int r = 0; r < 2; r++)
        for (status_call *c : calls) {
            c->poison(0);
            ok &= c->launch(0) == cudaSuccess;
        }
    ok &= cudaDeviceSynchronize() == cudaSuccess;
    for (status_call *c : calls) ok &= c->check();
    EXPECT(ok, "sort: %zu calls of mixed types and sizes, twice, back to back on one stream", calls.size());

    /* captured: the public calls in one graph, replayed twice with the eager calls between */
    cudaStream_t t;
    CK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ok = 1;
    CK(cudaStreamBeginCapture(t, cudaStreamCaptureModeThreadLocal));
    for (status_call *c : calls)
        if (!c->wide) {
            c->poison(t);
            ok &= c->launch(t) == cudaSuccess;
        }
    CK(cudaStreamEndCapture(t, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < 2; r++) {
        CK(cudaGraphLaunch(exec, t));
        ok &= cudaStreamSynchronize(t) == cudaSuccess;
        for (status_call *c : calls) ok &= c->wide || c->check();
        for (status_call *c : calls) {
            c->poison(0);
            ok &= c->launch(0) == cudaSuccess;
        }
        ok &= cudaDeviceSynchronize() == cudaSuccess;
        for (status_call *c : calls) ok &= c->check();
    }
    EXPECT(ok, "sort: the calls captured in a graph, replayed twice, eager calls between");
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaStreamDestroy(t));
    for (status_call *c : calls) delete c;
}

/* concurrent streams: four sorts at once on four streams, each against the reference */
extern "C" void test_sort_streams(void)
{
    gp_t_section("sort: concurrent streams, a failed allocation");
    if (!gp_t_have_gpu()) {
        gp_t_skip("sort streams: no GPU");
        return;
    }
    const size_t n = gp_t_small() ? 20000 : 3000017;
    uint64_t st = gp_t_state(99);
    std::vector<float> keys;
    make_keys(keys, n, D_SPECIAL, &st);
    const std::vector<uint64_t> perm = ref_perm(keys, 0);
    float *d_in = NULL;
    uint64_t *d_idx = NULL;
    CK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CK(cudaMalloc((void **)&d_idx, 4 * n * 8));
    CK(cudaMemcpy(d_in, keys.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 3; rep++) {
        cudaStream_t s[4];
        CK(cudaMemset(d_idx, 0xA7, 4 * n * 8));
        CK(cudaDeviceSynchronize());
        for (int k = 0; k < 4; k++) CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        for (int k = 0; k < 4; k++) CK(gp_argsort_f32(d_idx + k * n, d_in, n, s[k]));
        for (int k = 0; k < 4; k++) CK(cudaStreamSynchronize(s[k]));
        std::vector<uint64_t> got(4 * n);
        CK(cudaMemcpy(got.data(), d_idx, 4 * n * 8, cudaMemcpyDeviceToHost));
        int same = 1;
        for (int k = 0; k < 4; k++) same &= memcmp(got.data() + k * n, perm.data(), n * 8) == 0;
        EXPECT(same, "gp_argsort_f32 on four streams at once, repeat %d: each the stable permutation", rep);
        for (int k = 0; k < 4; k++) cudaStreamDestroy(s[k]);
    }
    /* scratch that cannot be had: cudaErrorMemoryAllocation, nothing launched (the count is
     * far beyond the buffer: a launch would fault) */
    if (gp_t_small()) { /* the sanitizers report the refused allocation itself */
        cudaFree(d_in);
        cudaFree(d_idx);
        return;
    }
    const uintptr_t far_in = (uintptr_t)1 << 44, far_out = far_in + ((uintptr_t)1 << 42) + 4096; /* never touched */
    const cudaError_t e = gp_sort_u32((uint32_t *)far_out, (const uint32_t *)far_in, (size_t)1 << 40, 0);
    cudaGetLastError();
    EXPECT(e == cudaErrorMemoryAllocation, "2^40 keys: cudaErrorMemoryAllocation (%s)", cudaGetErrorName(e));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess, "... and nothing was launched (the context is healthy)");
    cudaFree(d_in);
    cudaFree(d_idx);
}

/* ---- above 2^31 keys: made and checked on the device ------------------------------------------ */
__global__ void big_fill(uint32_t *k, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        k[i] = hash32(i, key);
}
/* a permutation check (a sum of a mix of every key, equal for equal multisets) and order */
__global__ void big_check(const uint32_t *k, size_t n, unsigned long long *mix, unsigned long long *bad, int sorted)
{
    unsigned long long m = 0, b = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        m += (unsigned long long)hash32(k[i], 0x1234567u) * 0x9E3779B97F4A7C15ull + k[i];
        if (i + 1 < n && ((sorted == 1 && k[i] > k[i + 1]) || (sorted == 2 && k[i] < k[i + 1]))) b++;
    }
    atomicAdd(mix, m);
    atomicAdd(bad, b);
}

/* argsort above 2^31: the keys u16 (many equal, so the order of the indices among them is
 * tested); each index in range, keys in order, equal keys by index, and the indices a
 * permutation (a sum of a mix of each, against the same over 0 .. n-1) */
__global__ void big_fill_u16(uint16_t *k, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        k[i] = (uint16_t)hash32(i, key);
}
__global__ void big_check_argsort(const uint16_t *k, const uint64_t *idx, size_t n, unsigned long long *acc)
{
    unsigned long long want = 0, got = 0, bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        want += (unsigned long long)hash32(i, 0x51ED27u) * 0x9E3779B97F4A7C15ull + i;
        const uint64_t a = idx[i];
        got += (unsigned long long)hash32(a, 0x51ED27u) * 0x9E3779B97F4A7C15ull + a;
        if (a >= n) { bad++; continue; }
        if (i + 1 < n) {
            const uint64_t b = idx[i + 1];
            if (b < n && (k[a] > k[b] || (k[a] == k[b] && a >= b))) bad++;
        }
    }
    atomicAdd(&acc[0], want);
    atomicAdd(&acc[1], got);
    atomicAdd(&acc[2], bad);
}

static void test_argsort_large(size_t n)
{
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < n * (2 + 8 + 4 + 4) + ((size_t)1 << 30)) { /* keys, indices; scratch: 2 key copies, 32-bit indices */
        gp_t_skip("argsort above 2^31: %zu MB free", free_b >> 20);
        return;
    }
    uint16_t *d_k = NULL;
    uint64_t *d_idx = NULL;
    unsigned long long *d_acc = NULL, acc[3];
    CK(cudaMalloc((void **)&d_k, n * 2));
    CK(cudaMalloc((void **)&d_idx, n * 8));
    CK(cudaMalloc((void **)&d_acc, 24));
    CK(cudaMemset(d_acc, 0, 24));
    const uint32_t key = (uint32_t)gp_t_state(11);
    big_fill_u16<<<1024, 256>>>(d_k, n, key);
    CK(cudaMemset(d_idx, 0xA5, n * 8)); /* poisoned */
    CK(gp_argsort_u16(d_idx, d_k, n, 0));
    big_check_argsort<<<1024, 256>>>(d_k, d_idx, n, d_acc);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(acc, d_acc, 24, cudaMemcpyDeviceToHost));
    EXPECT(acc[0] == acc[1] && acc[2] == 0,
           "gp_argsort_u16, n = %zu: a permutation (%llx %llx), stable order (%llu out of order)", n, acc[0], acc[1], acc[2]);
    cudaFree(d_k);
    cudaFree(d_idx);
    cudaFree(d_acc);
}

extern "C" void test_sort_large(void)
{
    gp_t_section("sort: u32 keys and u16 argsort above 2^31");
    if (!gp_t_have_gpu() || gp_t_small()) {
        gp_t_skip("sort above 2^31: no GPU or small sizes");
        return;
    }
    const size_t n = ((size_t)1 << 31) + 4099;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < n * 4 * 3 + ((size_t)1 << 30)) {
        gp_t_skip("sort above 2^31: %zu MB free", free_b >> 20);
        return;
    }
    uint32_t *d_in = NULL, *d_out = NULL;
    unsigned long long *d_acc = NULL, acc[4];
    CK(cudaMalloc((void **)&d_in, n * 4));
    CK(cudaMalloc((void **)&d_out, n * 4));
    CK(cudaMalloc((void **)&d_acc, 32));
    CK(cudaMemset(d_acc, 0, 32));
    const uint32_t key = (uint32_t)gp_t_state(7);
    big_fill<<<1024, 256>>>(d_in, n, key);
    big_check<<<1024, 256>>>(d_in, n, d_acc, d_acc + 1, 0);
    CK(gp_sort_u32(d_out, d_in, n, 0));
    big_check<<<1024, 256>>>(d_out, n, d_acc + 2, d_acc + 3, 1);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(acc, d_acc, 32, cudaMemcpyDeviceToHost));
    EXPECT(acc[0] == acc[2] && acc[3] == 0, "gp_sort_u32, n = 2^31 + 4099: a permutation (%llx %llx), in order (%llu out of order)",
           acc[0], acc[2], acc[3]);
    /* in place, descending, on the same keys */
    CK(gp_sort_desc_u32(d_out, d_out, n, 0));
    CK(cudaMemset(d_acc + 2, 0, 16));
    big_check<<<1024, 256>>>(d_out, n, d_acc + 2, d_acc + 3, 2);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(acc, d_acc, 32, cudaMemcpyDeviceToHost));
    EXPECT(acc[0] == acc[2] && acc[3] == 0, "gp_sort_desc_u32 in place, n = 2^31 + 4099: a permutation, descending (%llu out of order)", acc[3]);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_acc);
    test_argsort_large(((size_t)1 << 31) + 4099);
}
