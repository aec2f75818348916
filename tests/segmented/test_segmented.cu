/* tests/segmented/test_segmented.cu -- the segments family: gp_segmented_reduce_<name>,
 * gp_reduce_rows_<name>, gp_reduce_cols_<name>, gp_{in,ex}clusive_segmented_scan_<name> for
 * every default instance, gp_reduce_by_key_<name> for every default instance, and user
 * instances of a non-commutative operator (2x2 matrix products).
 * Host: argument checks that launch nothing, the column plan, the shared-memory padding.
 * GPU: host references on fresh random inputs (values are small integers, so float sums
 * are exact in any association and compared bitwise), edge sizes, offset patterns (random
 * with empty segments at both ends, all of length 1, one segment, fixed 32, power-law
 * with one segment of half the values, all empty), offsets not starting at 0, misaligned
 * pointers, poisoned guards around every output (also with offsets that are not ascending),
 * NaN and -0.0, keys with runs across every tile boundary, in-place scans, bitwise reruns on four streams at once, and counts above
 * 2^31 made and checked on the device. gp_segmented_check_offsets: every pattern's offsets
 * ascend, the unordered ones' first descent against the host's, a descent at either end,
 * a capturing stream, and 2^31 + 1001 segments. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"
#include "../mat2.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#define CK(call) EXPECT((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorName(cudaGetLastError()))

enum { GUARD = 16 };

/* A small integer as T: float sums of them are exact whatever the association. */
template <class T> static T small_value(uint64_t *st)
{
    const int v = (int)(gp_t_next(st) % 9);
    if ((T)-1 > (T)0) return (T)v;        /* unsigned: 0..8 */
    return (T)(v - 4);                    /* signed and floats: -4..4 */
}
static mat2 small_value_mat2(uint64_t *st) { return mat2_random(st); }

/* The host's operator rows, from the same OP and IDENTITY macros as the instances. */
#define HREF_ROW(name, T, op, kind, OP, ID)                                  \
    struct href_##name {                                                     \
        typedef T type;                                                      \
        static T apply(T a, T b) { return OP(a, b); }                        \
        static T id() { return ID; }                                         \
        static T value(uint64_t *st) { return small_value<T>(st); }          \
    };
GP__OP_INSTANCES(HREF_ROW)
struct href_mat2 {
    typedef mat2 type;
    static mat2 apply(mat2 a, mat2 b) { return mat2_mul(a, b); }
    static mat2 id() { return MAT2_ID; }
    static mat2 value(uint64_t *st) { return small_value_mat2(st); }
};

/* The user instances: the 2x2 matrix product, which does not commute. */
GP_DEFINE_SEGMENTED_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_SEGMENTED_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
#define KEY_EQ_MOD(a, b) ((a) % 1000 == (b) % 1000) /* keys equal modulo 1000: EQ is the user's */
GP_DEFINE_REDUCE_BY_KEY(mat2_mod, uint32_t, KEY_EQ_MOD, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
/* 16-byte keys with the 16-byte matrices: keys and values of one size, so reduce-by-key's
 * ring takes them (VEC 1, four elements a thread). A key's number is its first word; the
 * others follow from it, so EQ compares all four. */
struct key16 {
    uint32_t v, x, y, z;
    key16() = default;
    __host__ __device__ key16(uint64_t k) : v((uint32_t)k), x((uint32_t)k * 2654435761u), y(~(uint32_t)k), z(7u) {}
};
static key16 operator+(key16 a, uint64_t d) { return key16((uint64_t)a.v + d); }
#define KEY16_EQ(a, b) ((a).v == (b).v && (a).x == (b).x && (a).y == (b).y && (a).z == (b).z)
GP_DEFINE_REDUCE_BY_KEY(mat2_k16, key16, KEY16_EQ, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))

/* 1- and 2-byte elements, sums that wrap: 64 and 32 elements a thread in the ring kernels'
 * tiles, whose head bits are one 32-bit word a thread (1-byte elements take the one-tile
 * kernel) */
#define ADD_WRAP_U8(a, b) ((uint8_t)((a) + (b)))
#define ADD_WRAP_U16(a, b) ((uint16_t)((a) + (b)))
#define KEY_EQ(a, b) ((a) == (b))
GP_DEFINE_SEGMENTED_SCAN(add_u8, uint8_t, ADD_WRAP_U8, (uint8_t)0)
GP_DEFINE_SEGMENTED_SCAN(add_u16, uint16_t, ADD_WRAP_U16, (uint16_t)0)
GP_DEFINE_REDUCE_BY_KEY(add_u8, uint8_t, KEY_EQ, uint8_t, ADD_WRAP_U8, (uint8_t)0)
GP_DEFINE_REDUCE_BY_KEY(add_u16, uint16_t, KEY_EQ, uint16_t, ADD_WRAP_U16, (uint16_t)0)
/* A 4-byte operator that does not commute, so that the ring kernels' order is tested too (the
 * 2x2 matrices are 16 bytes, with 4-byte keys: not on reduce-by-key's ring; their pair is
 * five status words: not on the segmented scan's windows): affine maps x -> a x + b mod
 * 2^16, a in the low half, b in the high half, composed in index order (f, then g). */
#define AFFINE16(f, g)                                                                                             \
    ((uint32_t)((((g) & 0xFFFFu) * ((f) & 0xFFFFu)) & 0xFFFFu) |                                                   \
     ((uint32_t)((((g) & 0xFFFFu) * ((f) >> 16) + ((g) >> 16)) & 0xFFFFu) << 16))
/* The same on 8 bytes, mod 2^32: the columns' warp steps of 8-byte elements in order too. */
#define AFFINE32(f, g)                                                                                             \
    ((uint64_t)(uint32_t)((uint32_t)(g) * (uint32_t)(f)) |                                                         \
     ((uint64_t)(uint32_t)((uint32_t)(g) * (uint32_t)((f) >> 32) + (uint32_t)((g) >> 32)) << 32))
GP_DEFINE_SEGMENTED_SCAN(affine_u32, uint32_t, AFFINE16, 1u)
GP_DEFINE_REDUCE_BY_KEY(affine_u32, uint32_t, KEY_EQ, uint32_t, AFFINE16, 1u)
GP_DEFINE_SEGMENTED_REDUCE(affine_u32, uint32_t, AFFINE16, 1u)
GP_DEFINE_SEGMENTED_REDUCE(affine_u64, uint64_t, AFFINE32, (uint64_t)1)
static uint32_t affine_then(uint32_t f, uint32_t g) { return AFFINE16(f, g); }
static uint64_t affine_then(uint64_t f, uint64_t g) { return AFFINE32(f, g); }
template <class T>
struct href_affine_of {
    typedef T type;
    static T apply(T f, T g) { return affine_then(f, g); }
    static T id() { return 1u; }
    static T value(uint64_t *st) { return (T)gp_t_next(st); }
};
typedef href_affine_of<uint32_t> href_affine;
template <class T>
struct href_add_wrap {
    typedef T type;
    static T apply(T a, T b) { return (T)(a + b); }
    static T id() { return 0; }
    static T value(uint64_t *st) { return (T)gp_t_next(st); }
};

template <class K> struct gp_t_eq {
    static bool eq(K a, K b) { return a == b; }
};
struct eq_mod {
    static bool eq(uint32_t a, uint32_t b) { return KEY_EQ_MOD(a, b); }
};
struct eq_key16 {
    static bool eq(key16 a, key16 b) { return KEY16_EQ(a, b); }
};

/* ---- host --------------------------------------------------------------------------------- */

extern "C" void test_segmented_host(void)
{
    float *p = (float *)(uintptr_t)4096; /* never dereferenced: every call below fails or is a no-op first */
    const uint64_t *off = (const uint64_t *)(uintptr_t)8192;
    /* argument checks: no CUDA call is made before them */
    EXPECT(gp_segmented_reduce_sum_f32(p, p, off, 0, 0) == cudaSuccess, "segmented: num_segments 0 is a no-op");
    EXPECT(gp_segmented_reduce_sum_f32(NULL, p, off, 3, 0) == cudaErrorInvalidValue, "segmented: NULL d_out");
    EXPECT(gp_segmented_reduce_sum_f32(p, NULL, off, 3, 0) == cudaErrorInvalidValue, "segmented: NULL d_in");
    EXPECT(gp_segmented_reduce_sum_f32(p, p, NULL, 3, 0) == cudaErrorInvalidValue, "segmented: NULL d_offsets");
    size_t first_bad = 77;
    EXPECT(gp_segmented_check_offsets(&first_bad, off, 0, 0) == cudaSuccess && first_bad == 0,
           "check_offsets: num_segments 0 ascends (first_bad %zu)", first_bad);
    EXPECT(gp_segmented_check_offsets(&first_bad, NULL, 3, 0) == cudaErrorInvalidValue && first_bad == 3,
           "check_offsets: NULL d_offsets (first_bad %zu)", first_bad);
    EXPECT(gp_segmented_check_offsets(NULL, off, SIZE_MAX / 8, 0) == cudaErrorInvalidValue, "check_offsets: too many");
    EXPECT(gp_reduce_rows_sum_f32(p, p, 4, 5, 4, 0) == cudaErrorInvalidValue, "rows: ld < cols");
    EXPECT(gp_reduce_cols_sum_f32(p, p, 4, 5, 4, 0) == cudaErrorInvalidValue, "cols: ld < cols");
    EXPECT(gp_reduce_rows_sum_f32(p, p, 0, 5, 5, 0) == cudaSuccess, "rows: rows 0 is a no-op");
    EXPECT(gp_reduce_cols_sum_f32(p, p, 7, 0, 0, 0) == cudaSuccess, "cols: cols 0 is a no-op");
    EXPECT(gp_reduce_rows_sum_f32(NULL, p, 3, 5, 5, 0) == cudaErrorInvalidValue, "rows: NULL d_out");
    EXPECT(gp_reduce_rows_sum_f32(p, NULL, 3, 5, 5, 0) == cudaErrorInvalidValue, "rows: NULL d_in");
    EXPECT(gp_reduce_cols_sum_f32(NULL, p, 3, 5, 5, 0) == cudaErrorInvalidValue, "cols: NULL d_out");
    EXPECT(gp_reduce_cols_sum_f32(p, NULL, 3, 5, 5, 0) == cudaErrorInvalidValue, "cols: NULL d_in");
    EXPECT(gp_reduce_rows_sum_f32(p, p, SIZE_MAX / 2, 5, SIZE_MAX / 4, 0) == cudaErrorInvalidValue, "rows: too large");
    const uint8_t *h = (const uint8_t *)(uintptr_t)(1 << 20);
    EXPECT(gp_inclusive_segmented_scan_sum_f32(p, p, h, 0, 0) == cudaSuccess, "sscan: n 0 is a no-op");
    EXPECT(gp_inclusive_segmented_scan_sum_f32(NULL, p, h, 5, 0) == cudaErrorInvalidValue, "sscan: NULL d_out");
    EXPECT(gp_exclusive_segmented_scan_sum_f32(p, p, NULL, 5, 0) == cudaErrorInvalidValue, "sscan: NULL d_heads");
    EXPECT(gp_inclusive_segmented_scan_sum_f32(p + 1, p, h, 5, 0) == cudaErrorInvalidValue, "sscan: partial overlap");
    EXPECT(gp_inclusive_segmented_scan_sum_f32((float *)h - 2, p, h, 5, 0) == cudaErrorInvalidValue,
           "sscan: d_out over d_heads");
    int32_t *k = (int32_t *)(uintptr_t)(1 << 24);
    uint64_t *runs = (uint64_t *)(uintptr_t)(1 << 26);
    EXPECT(gp_reduce_by_key_sum_i32_f32(k, p, NULL, k, p, 0, 0) == cudaErrorInvalidValue, "rbk: NULL d_runs");
    EXPECT(gp_reduce_by_key_sum_i32_f32(NULL, p, runs, k, p, 5, 0) == cudaErrorInvalidValue, "rbk: NULL keys out");
    EXPECT(gp_reduce_by_key_sum_i32_f32(k, p, runs, k + 2, p + 1000, 5, 0) == cudaErrorInvalidValue,
           "rbk: keys out over keys in");
    EXPECT(gp_reduce_by_key_sum_i32_f32(k, (float *)(k + 3), runs, k + 100, p + 1000, 5, 0) == cudaErrorInvalidValue,
           "rbk: the two outputs overlap");
    /* the column plan covers every row once, in whole chunks */
    const size_t shapes[][2] = {{1, 1}, {16384, 16384}, {1 << 22, 64}, {64, 1 << 22}, {1000003, 3}, {65, 100000}, {7, 2}};
    for (const auto &sh : shapes) {
        const gp__cols_plan c = gp__cols_make_plan(sh[0], sh[1], gp__reduce_vec_elems(sizeof(float)), 0);
        const size_t width = (size_t)c.w * 4; /* columns a strip: w lanes of 4 floats */
        EXPECT(c.w >= 1 && c.w <= 32 && (c.w & (c.w - 1)) == 0 && c.strips * width >= sh[1] &&
                   (c.strips - 1) * width < sh[1] && (c.strips == 1 || c.w == 32),
               "cols plan %zu x %zu: strips %zu of %u lanes", sh[0], sh[1], c.strips, c.w);
        EXPECT(c.chunks * c.per >= sh[0] && (c.chunks - 1) * c.per < sh[0] && c.chunks >= 1,
               "cols plan %zu x %zu: chunks %zu x %zu rows", sh[0], sh[1], c.chunks, c.per);
    }
    /* warp steps: contiguous rows of up to 8 floats only, chunks on whole vectors of 4 */
    const size_t steps[][4] = {{1000003, 1, 1, 1}, {1000003, 2, 2, 1}, {1000003, 4, 4, 1}, {(1 << 20) + 1, 8, 8, 1},
                               {(1 << 20) + 3, 16, 16, 0}, {7, 2, 2, 1}, {5, 32, 32, 0},
                               {100, 16, 17, 0}, {100, 1, 2, 0}, {100, 12, 12, 0}, {1000003, 3, 3, 1}, {10, 3, 4, 0}, {7, 5, 5, 0}};
    EXPECT(gp__cols_steps_ok(3, 3, 2) && gp__cols_steps_ok(3, 3, 1) && !gp__cols_steps_ok(3, 3, 8) && gp__cols_steps_ok(2, 2, 2) &&
               gp__cols_steps_ok(4, 4, 2) && !gp__cols_steps_ok(4, 5, 2) && !gp__cols_steps_ok(8, 8, 2) &&
               gp__cols_steps_ok(1, 1, 1) && !gp__cols_steps_ok(2, 2, 1) && !gp__cols_steps_ok(4, 4, 1),
           "cols: warp steps for 8- and 16-byte elements (rows of 1 vector, of 3 elements, of 4 8-byte ones)");
    for (const auto &sh : steps) {
        const gp__cols_plan c = gp__cols_make_plan(sh[0], sh[1], 4, sh[2]);
        EXPECT(c.steps == (int)sh[3] && (!c.steps || (c.strips == 1 && c.per % 4 == 0)) && c.chunks * c.per >= sh[0] &&
                   (c.chunks - 1) * c.per < sh[0],
               "cols plan %zu x %zu, ld %zu: steps %d, %zu strips, chunks %zu x %zu rows", sh[0], sh[1], sh[2], c.steps,
               c.strips, c.chunks, c.per);
    }
    /* the padding keeps threads 16 items apart in distinct banks */
    unsigned banks = 0;
    for (unsigned t = 0; t < 32; t++) banks |= 1u << (gp__seg_pad(t * 16) % 32);
    EXPECT(banks == 0xffffffffu, "segmented: padded thread starts fall in 32 distinct banks (%08x)", banks);
}

/* ---- offsets ------------------------------------------------------------------------------- */

enum { PAT_RANDOM, PAT_ONES, PAT_ONE, PAT_FIXED32, PAT_POWER, PAT_EMPTY, PAT_LONG, PAT_SHORT, PAT_MID, PAT_TINY, PATS };
static const char *pat_name[] = {"random with empties", "all length 1", "one segment", "fixed 32", "power-law + n/2",
                                 "all empty", "long, random with empties", "short, one in 64 longer",
                                 "0 to 899, about the stream's limit", "0 to 3, one in 512 of 33 to 1000"};
static_assert(sizeof pat_name / sizeof pat_name[0] == PATS, "a name for every pattern");

/* A length of PAT_TINY: 0 to 3, one in 512 of 33 to 1000 (mean about 2.5): blocks walked a
 * lane a segment (GP__SEG_WALK_LANES_UPTO), and pieces too long for a lane, left to its warp. */
static uint64_t tiny_len(uint64_t *st)
{
    return gp_t_next(st) % 512 == 0 ? 33 + gp_t_next(st) % 968 : gp_t_next(st) % 4;
}

/* Segment lengths for about n values (S segments), starting at `base`. */
static std::vector<uint64_t> make_offsets(int pat, size_t n, uint64_t base, uint64_t *st)
{
    std::vector<uint64_t> off(1, base);
    uint64_t at = base;
    auto add = [&](uint64_t len) { at += len; off.push_back(at); };
    switch (pat) {
    case PAT_RANDOM:
        add(0);
        while (at - base < n) add(gp_t_next(st) % 5 == 0 ? 0 : gp_t_next(st) % 97);
        add(0);
        break;
    case PAT_ONES: for (size_t i = 0; i < n; i++) add(1); break;
    case PAT_ONE: add(n); break;
    case PAT_FIXED32: for (size_t i = 0; i < (n + 31) / 32; i++) add(32); break;
    case PAT_POWER: {
        const size_t half = n / 2;
        bool big = false;
        while (at - base < n) {
            if (!big && at - base >= n / 3) { add(half); big = true; continue; }
            const double u = (double)(gp_t_next(st) >> 11) / 9007199254740992.0;
            add(u < 0.3 ? 0 : (uint64_t)(8.0 / pow(1.0 - u + 1e-9, 0.9)) % 4096);
        }
        break;
    }
    case PAT_EMPTY: for (size_t i = 0; i < 1 + n % 1000; i++) add(0); break;
    case PAT_LONG: /* lengths 0 to 2999, a fifth empty: blocks whose warps walk their segments */
        while (at - base < n) add(gp_t_next(st) % 5 == 0 ? 0 : gp_t_next(st) % 3000);
        break;
    case PAT_SHORT: /* lengths 0 to 18 (mean 9), one in 64 of 33 to 300: tiles folded a thread a
                     * segment, and tiles with a segment too long for that */
        while (at - base < n) add(gp_t_next(st) % 64 == 0 ? 33 + gp_t_next(st) % 268 : gp_t_next(st) % 19);
        break;
    case PAT_MID: /* lengths 0 to 899 (mean about 450), a tenth empty: walking blocks on both sides of the
                   * stream's limit (GP__SEG_WALK_PIECES_ABOVE, 448 values a segment) */
        while (at - base < n) add(gp_t_next(st) % 10 == 0 ? 0 : gp_t_next(st) % 900);
        break;
    case PAT_TINY:
        while (at - base < n) add(tiny_len(st));
        break;
    }
    return off;
}

/* ---- one segmented reduce against the host ------------------------------------------------- */

template <class H>
static void check_segmented(const char *name, cudaError_t (*fn)(typename H::type *, const typename H::type *,
                                                                 const uint64_t *, size_t, cudaStream_t),
                            int pat, size_t n, unsigned mis, uint64_t *st)
{
    typedef typename H::type T;
    const uint64_t base = gp_t_next(st) % 50;
    std::vector<uint64_t> off = make_offsets(pat, n, base, st);
    const size_t S = off.size() - 1, N = off[S];
    std::vector<T> in(N + 1), ref(S), got(S + 2 * GUARD);
    for (size_t i = 0; i < N; i++) in[i] = H::value(st);
    for (size_t s = 0; s < S; s++) {
        T acc = H::id();
        for (uint64_t j = off[s]; j < off[s + 1]; j++) acc = H::apply(acc, in[j]);
        ref[s] = acc;
    }
    /* mis: the values moved by their alignment (one element, or 4 bytes into a 16-byte
     * matrix) and the offsets by 8 bytes, off 16-byte boundaries */
    T *d_in = NULL, *d_out = NULL;
    uint64_t *d_off = NULL;
    CK(cudaMalloc(&d_in, (N + 2) * sizeof(T)));
    CK(cudaMalloc(&d_out, (S + 2 * GUARD + 1) * sizeof(T)));
    CK(cudaMalloc(&d_off, (off.size() + 1) * 8));
    T *at = reinterpret_cast<T *>(reinterpret_cast<char *>(d_in) + mis * alignof(T));
    CK(cudaMemcpy(at, in.data(), N * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_off + mis, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    T *out = d_out + GUARD;
    CK(cudaMemset(d_out, 0xA5, (S + 2 * GUARD + 1) * sizeof(T)));
    const cudaError_t err = fn(out, at, d_off + mis, S, 0);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), d_out, (S + 2 * GUARD) * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0, first = 0;
    for (size_t s = 0; s < S; s++)
        if (memcmp(&got[GUARD + s], &ref[s], sizeof(T)) != 0 && bad++ == 0) first = s;
    int guards = 1;
    std::vector<unsigned char> poison(GUARD * sizeof(T), 0xA5);
    guards &= memcmp(got.data(), poison.data(), GUARD * sizeof(T)) == 0;
    guards &= memcmp(got.data() + GUARD + S, poison.data(), GUARD * sizeof(T)) == 0;
    EXPECT(err == cudaSuccess && bad == 0 && guards,
           "segmented_reduce_%s: %s, %zu segments, %zu values, base %llu, in +%u: %s, %zu wrong (first %zu), guards %s",
           name, pat_name[pat], S, N, (unsigned long long)base, mis, cudaGetErrorName(err), bad, first,
           guards ? "intact" : "written");
    /* the same offsets ascend (empty segments are equal neighbours); once a type is enough */
    if (GP_T_STREQ(name, "sum_f32") || GP_T_STREQ(name, "mat2")) {
        size_t first_bad = 0;
        const cudaError_t cerr = gp_segmented_check_offsets(&first_bad, d_off + mis, S, 0);
        EXPECT(cerr == cudaSuccess && first_bad == S, "check_offsets: %s, %zu segments, offsets +%u: %s, first_bad %zu",
               pat_name[pat], S, mis, cudaGetErrorName(cerr), first_bad);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_off);
}

/* rows and columns against the host; the outputs at GUARD + R % 2 (odd row counts: off the
 * outputs' vector boundaries) */
template <class H>
static void check_rows_cols(const char *name,
                            cudaError_t (*rows_fn)(typename H::type *, const typename H::type *, size_t, size_t, size_t,
                                                   cudaStream_t),
                            cudaError_t (*cols_fn)(typename H::type *, const typename H::type *, size_t, size_t, size_t,
                                                   cudaStream_t),
                            size_t R, size_t C, size_t ld, unsigned mis, uint64_t *st)
{
    typedef typename H::type T;
    const size_t total = R ? (R - 1) * ld + C : 0, outn = R > C ? R : C, lead = GUARD + R % 2, span = outn + lead + GUARD;
    std::vector<T> in(total + mis + 1), rref(R), cref(C), got(span);
    for (size_t i = 0; i < total; i++) in[mis + i] = H::value(st);
    for (size_t r = 0; r < R; r++) {
        T acc = H::id();
        for (size_t c = 0; c < C; c++) acc = H::apply(acc, in[mis + r * ld + c]);
        rref[r] = acc;
    }
    for (size_t c = 0; c < C; c++) {
        T acc = H::id();
        for (size_t r = 0; r < R; r++) acc = H::apply(acc, in[mis + r * ld + c]);
        cref[c] = acc;
    }
    T *d_in = NULL, *d_out = NULL;
    CK(cudaMalloc(&d_in, (total + mis + 1) * sizeof(T)));
    CK(cudaMalloc(&d_out, span * sizeof(T)));
    CK(cudaMemcpy(d_in, in.data(), (total + mis + 1) * sizeof(T), cudaMemcpyHostToDevice));
    std::vector<unsigned char> poison((GUARD + 1) * sizeof(T), 0xA5);
    for (int which = 0; which < 2; which++) {
        const size_t cnt = which ? C : R;
        const std::vector<T> &ref = which ? cref : rref;
        CK(cudaMemset(d_out, 0xA5, span * sizeof(T)));
        const cudaError_t err = (which ? cols_fn : rows_fn)(d_out + lead, d_in + mis, R, C, ld, 0);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), d_out, span * sizeof(T), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < cnt; i++) bad += memcmp(&got[lead + i], &ref[i], sizeof(T)) != 0;
        const bool guards = memcmp(got.data(), poison.data(), lead * sizeof(T)) == 0 &&
                            memcmp(got.data() + lead + cnt, poison.data(), GUARD * sizeof(T)) == 0;
        EXPECT(err == cudaSuccess && bad == 0 && guards, "reduce_%s_%s: %zu x %zu, ld %zu, in +%u, out +%zu: %s, %zu wrong, guards %s",
               which ? "cols" : "rows", name, R, C, ld, mis, lead - GUARD, cudaGetErrorName(err), bad,
               guards ? "intact" : "written");
    }
    cudaFree(d_in);
    cudaFree(d_out);
}

/* the segmented scans against the host; in place when `inplace` */
template <class H>
static void check_sscan(const char *name,
                        cudaError_t (*fn)(typename H::type *, const typename H::type *, const uint8_t *, size_t,
                                          cudaStream_t),
                        int inclusive, size_t n, unsigned every, unsigned mis, bool inplace, uint64_t *st)
{
    typedef typename H::type T;
    std::vector<T> in(n + mis + 1), ref(n), got(n + 2 * GUARD);
    std::vector<uint8_t> heads(n);
    for (size_t i = 0; i < n; i++) {
        in[mis + i] = H::value(st);
        heads[i] = every == 0 ? 0 : (uint8_t)(gp_t_next(st) % every == 0 ? 1 + gp_t_next(st) % 255 : 0);
    }
    T acc = H::id();
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || heads[i]) acc = H::id();
        const T next = H::apply(acc, in[mis + i]);
        ref[i] = inclusive ? next : acc;
        acc = next;
    }
    T *d_buf = NULL, *d_in = NULL;
    uint8_t *d_heads = NULL;
    CK(cudaMalloc(&d_buf, (n + 2 * GUARD + mis) * sizeof(T)));
    CK(cudaMalloc(&d_in, (n + mis + 1) * sizeof(T)));
    CK(cudaMalloc(&d_heads, n + 1));
    CK(cudaMemcpy(d_heads, heads.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_buf, 0xA5, (n + 2 * GUARD + mis) * sizeof(T)));
    T *out = d_buf + GUARD + (inplace ? mis : 0);
    const T *src = d_in + mis;
    if (inplace) {
        CK(cudaMemcpy(out, in.data() + mis, n * sizeof(T), cudaMemcpyHostToDevice));
        src = out;
    } else {
        CK(cudaMemcpy(d_in, in.data(), (n + mis) * sizeof(T), cudaMemcpyHostToDevice));
    }
    const cudaError_t err = fn(out, src, d_heads, n, 0);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), out - GUARD, (n + 2 * GUARD) * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[GUARD + i], &ref[i], sizeof(T)) != 0 && bad++ == 0) first = i;
    std::vector<unsigned char> poison(GUARD * sizeof(T), 0xA5);
    const bool guards = memcmp(got.data() + GUARD + n, poison.data(), GUARD * sizeof(T)) == 0 &&
                        (inplace ? true : memcmp(got.data(), poison.data(), GUARD * sizeof(T)) == 0);
    EXPECT(err == cudaSuccess && bad == 0 && guards, "%sclusive_segmented_scan_%s: n %zu, heads 1/%u, +%u%s: %s, %zu wrong (first %zu), guards %s",
           inclusive ? "in" : "ex", name, n, every, mis, inplace ? ", in place" : "", cudaGetErrorName(err), bad, first,
           guards ? "intact" : "written");
    cudaFree(d_buf);
    cudaFree(d_in);
    cudaFree(d_heads);
}

/* reduce-by-key against the host: runs of random lengths up to max_run (or exactly `fixed`) */
template <class H, class K, class Eq>
static void check_rbk(const char *name,
                      cudaError_t (*fn)(K *, typename H::type *, uint64_t *, const K *, const typename H::type *, size_t,
                                        cudaStream_t),
                      size_t n, size_t max_run, size_t fixed, unsigned mis, uint64_t *st)
{
    typedef typename H::type T;
    std::vector<K> keys(n + mis + 1);
    std::vector<T> vals(n + mis + 1);
    K k = (K)(gp_t_next(st) % 1000);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        if (left == 0) {
            k = (K)(k + 1 + gp_t_next(st) % 3); /* never equal to the last, under == or mod 1000 */
            left = fixed ? fixed : 1 + gp_t_next(st) % max_run;
        }
        keys[mis + i] = k;
        vals[mis + i] = H::value(st);
        left--;
    }
    std::vector<K> rk;
    std::vector<T> rv;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !Eq::eq(keys[mis + i - 1], keys[mis + i])) {
            rk.push_back(keys[mis + i]);
            rv.push_back(H::id());
        }
        rv.back() = H::apply(rv.back(), vals[mis + i]);
    }
    const size_t runs = rk.size();
    K *d_k = NULL, *d_ko = NULL;
    T *d_v = NULL, *d_vo = NULL;
    uint64_t *d_runs = NULL;
    CK(cudaMalloc(&d_k, (n + mis + 1) * sizeof(K)));
    CK(cudaMalloc(&d_v, (n + mis + 1) * sizeof(T)));
    CK(cudaMalloc(&d_ko, (n + 2 * GUARD + 1) * sizeof(K)));
    CK(cudaMalloc(&d_vo, (n + 2 * GUARD + 1) * sizeof(T)));
    CK(cudaMalloc(&d_runs, 8));
    CK(cudaMemcpy(d_k, keys.data(), (n + mis) * sizeof(K), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_v, vals.data(), (n + mis) * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_ko, 0xA5, (n + 2 * GUARD + 1) * sizeof(K)));
    CK(cudaMemset(d_vo, 0xA5, (n + 2 * GUARD + 1) * sizeof(T)));
    CK(cudaMemset(d_runs, 0xA5, 8));
    const cudaError_t err = fn(d_ko + GUARD, d_vo + GUARD, d_runs, d_k + mis, d_v + mis, n, 0);
    CK(cudaDeviceSynchronize());
    uint64_t got_runs = 0;
    std::vector<K> gk(n + 2 * GUARD);
    std::vector<T> gv(n + 2 * GUARD);
    CK(cudaMemcpy(&got_runs, d_runs, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gk.data(), d_ko, (n + 2 * GUARD) * sizeof(K), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gv.data(), d_vo, (n + 2 * GUARD) * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r = 0; r < runs && got_runs == runs; r++)
        bad += memcmp(&gk[GUARD + r], &rk[r], sizeof(K)) != 0 || memcmp(&gv[GUARD + r], &rv[r], sizeof(T)) != 0;
    /* untouched past the count and before the start */
    bool guards = true;
    for (size_t i = 0; i < GUARD + (n - runs) + GUARD; i++) {
        const size_t at = i < GUARD ? i : GUARD + runs + (i - GUARD);
        const unsigned char *pk = (const unsigned char *)&gk[at], *pv = (const unsigned char *)&gv[at];
        for (size_t b = 0; b < sizeof(K); b++) guards &= pk[b] == 0xA5;
        for (size_t b = 0; b < sizeof(T); b++) guards &= pv[b] == 0xA5;
    }
    EXPECT(err == cudaSuccess && got_runs == runs && bad == 0 && guards,
           "reduce_by_key_%s: n %zu, runs %s %zu, +%u: %s, runs %llu (want %zu), %zu wrong, past the count %s", name, n,
           fixed ? "of" : "up to", fixed ? fixed : max_run, mis, cudaGetErrorName(err), (unsigned long long)got_runs,
           runs, bad, guards ? "untouched" : "written");
    cudaFree(d_k);
    cudaFree(d_v);
    cudaFree(d_ko);
    cudaFree(d_vo);
    cudaFree(d_runs);
}

/* ---- every default instance ----------------------------------------------------------------- */

static const size_t edge_sizes[] = {1, 31, 32, 33, 1023, 1025, 4097, 65537, 1048573};

extern "C" void test_segmented_reduce_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("segmented: every default instance's segmented reduce, rows and columns on the GPU");
        return;
    }
    uint64_t st = gp_t_state(340);
    /* rows x cols, offset: contiguous narrow rows, the columns' warp steps (up to 8 elements
     * of 4 bytes, 2 or 4 of 8 bytes, 1 of 16; rows of 3) or row groups (beyond, and 6), in
     * chunks of blocks; the rows' flat kernel (rows of part of a vector, aligned input; even
     * row counts store whole vectors of results, odd ones element by element); row counts
     * that leave part of a vector, of 3 or of a unit of rows at the end; off 16-byte
     * boundaries */
    const size_t narrow_shapes[][3] = {{100003, 1, 0}, {100003, 1, 1}, {50001, 2, 0}, {25001, 4, 0}, {20001, 8, 0},
                                       {9999, 16, 0},  {70001, 16, 1}, {3, 1, 0},     {33, 2, 0},    {1, 4, 0},
                                       {100003, 3, 0}, {100001, 3, 1}, {5, 3, 0},     {70001, 6, 0}, {50003, 4, 1},
                                       {3, 4, 0},      {100002, 1, 0}, {50002, 2, 0}, {70005, 2, 0}};
    const size_t cap = gp_t_small() ? 65537 : 1048573;
#define SEG_ROW(name, T, op, kind, OP, ID)                                                                   \
    for (size_t n : edge_sizes) {                                                                           \
        if (n > cap) continue;                                                                              \
        for (int pat = 0; pat < PATS; pat++) {                                                              \
            if (n > 70000 && !GP_T_STREQ(#name, "sum_f32") && !GP_T_STREQ(#name, "max_i64") && pat != PAT_RANDOM && \
                pat != PAT_TINY)                                                                            \
                continue;                                                                                   \
            check_segmented<href_##name>(#name, gp_segmented_reduce_##name, pat, n, (unsigned)(n % 3 == 1), &st); \
        }                                                                                                   \
    }                                                                                                       \
    {                                                                                                       \
        /* 600 x 4096, ld 4097: a block a row on a GPU of up to 150 SMs, each row at its own alignment; \
         * 8 x 65539 and 3 x 100003: long rows, few, in parts of blocks; 3000 x 64 and 20000 x 40:    \
         * G lanes a row; 1000 x 200, 301 x 256 and 700 x 100: a warp two rows of two chunks (4- or   \
         * 8-byte types); 5000 x 37 at ld 40: columns element by element in 10 chunks, the last lane   \
         * of a row group with one column of its four */                                              \
        const size_t shapes[][3] = {{1, 1, 1}, {31, 33, 33}, {1023, 1, 1}, {1, 1025, 1025}, {64, 5000, 5001}, \
                                    {3000, 64, 64}, {7, 3, 9}, {5, 0, 0}, {0, 5, 5}, {20000, 40, 40},      \
                                    {600, 4096, 4097}, {8, 65539, 65541}, {3, 100003, 100003},             \
                                    {1000, 200, 203}, {301, 256, 256}, {700, 100, 100}, {5000, 37, 40}};  \
        for (const auto &sh : shapes)                                                                       \
            check_rows_cols<href_##name>(#name, gp_reduce_rows_##name, gp_reduce_cols_##name, sh[0], sh[1], sh[2], \
                                         (unsigned)(sh[0] % 2), &st);                                       \
        for (const auto &sh : narrow_shapes)                                                                \
            check_rows_cols<href_##name>(#name, gp_reduce_rows_##name, gp_reduce_cols_##name, sh[0], sh[1], sh[1], \
                                         (unsigned)sh[2], &st);                                             \
    }
    GP__OP_INSTANCES(SEG_ROW)
#undef SEG_ROW
    /* the largest placements for one type */
    if (!gp_t_small()) {
        for (int pat = 0; pat < PATS; pat++)
            check_segmented<href_sum_f32>("sum_f32", gp_segmented_reduce_sum_f32, pat, (1u << 24) + 7, 1, &st);
        check_rows_cols<href_sum_f32>("sum_f32", gp_reduce_rows_sum_f32, gp_reduce_cols_sum_f32, 4097, 4099, 4100, 1, &st);
        check_rows_cols<href_sum_f32>("sum_f32", gp_reduce_rows_sum_f32, gp_reduce_cols_sum_f32, 1 << 17, 64, 64, 0, &st);
        check_rows_cols<href_sum_f32>("sum_f32", gp_reduce_rows_sum_f32, gp_reduce_cols_sum_f32, (1 << 24) + 7, 1, 1, 0, &st);
        check_rows_cols<href_sum_f32>("sum_f32", gp_reduce_rows_sum_f32, gp_reduce_cols_sum_f32, (1 << 22) + 3, 4, 4, 0, &st);
        check_rows_cols<href_sum_f32>("sum_f32", gp_reduce_rows_sum_f32, gp_reduce_cols_sum_f32, (1 << 22) + 1, 3, 3, 0, &st);
    } else {
        gp_t_skip("segmented: 2^24 + 7 values (small sizes)");
    }
    /* the user's non-commutative operator; 530 rows of 1100 (17.6 KB): a block a row on an H100 */
    check_rows_cols<href_mat2>("mat2", gp_reduce_rows_mat2, gp_reduce_cols_mat2, 530, 1100, 1101, 1, &st);
    /* 999 rows of 50 (800 bytes): a warp two rows of two chunks */
    check_rows_cols<href_mat2>("mat2", gp_reduce_rows_mat2, gp_reduce_cols_mat2, 999, 50, 51, 1, &st);
    /* contiguous rows of 1, 2, 3 and 4 16-byte elements: the warp steps at 1 (a lane a row)
     * and 3 (a row a unit, handed out to three lanes), row groups at 2 and 4 */
    const size_t mat2_narrow[][3] = {{20001, 1, 0}, {20001, 2, 0}, {10001, 4, 0}, {5001, 4, 1}, {20001, 3, 0}, {7, 3, 1}};
    for (const auto &sh : mat2_narrow)
        check_rows_cols<href_mat2>("mat2", gp_reduce_rows_mat2, gp_reduce_cols_mat2, sh[0], sh[1], sh[1], (unsigned)sh[2], &st);
    /* the same order on 4- and 8-byte elements (affine maps): warp steps for rows of 1 to 8 (4
     * bytes) and 1 to 4 (8 bytes), row groups beyond; a tail of part of a vector or of a unit
     * of rows; off 16-byte boundaries */
    const size_t aff_narrow[][3] = {{20001, 1, 0}, {20001, 2, 0}, {20001, 3, 0}, {20001, 4, 0},
                                    {20001, 8, 0}, {20001, 16, 0}, {9999, 3, 1}, {9999, 1, 1}, {9999, 4, 1}};
    for (const auto &sh : aff_narrow) {
        check_rows_cols<href_affine>("affine_u32", gp_reduce_rows_affine_u32, gp_reduce_cols_affine_u32, sh[0], sh[1], sh[1],
                                     (unsigned)sh[2], &st);
        check_rows_cols<href_affine_of<uint64_t>>("affine_u64", gp_reduce_rows_affine_u64, gp_reduce_cols_affine_u64, sh[0],
                                                  sh[1], sh[1], (unsigned)sh[2], &st);
    }
    /* 5 rows of 40000 (640 KB): parts of rows, folded in order */
    check_rows_cols<href_mat2>("mat2", gp_reduce_rows_mat2, gp_reduce_cols_mat2, 5, 40000, 40001, 1, &st);
    for (size_t n : edge_sizes) {
        if (n > cap) continue;
        for (int pat = 0; pat < PATS; pat++)
            check_segmented<href_mat2>("mat2", gp_segmented_reduce_mat2, pat, n, (unsigned)(n % 2), &st);
        check_rows_cols<href_mat2>("mat2", gp_reduce_rows_mat2, gp_reduce_cols_mat2, n % 1000 + 1, n / 1000 + 3,
                                   n / 1000 + 4, 0, &st);
    }
    /* offsets that are not ascending break the caller's contract: the results are unspecified,
     * but nothing outside d_out[0 .. S) is written (first and last offsets 0 and n, so every
     * offset lies inside the values; racecheck checks that no value is read before its copy
     * into shared memory was waited for, the other sanitizers the reads' bounds) */
    const auto check_unordered = [&](const std::vector<uint64_t> &off, const char *layout) {
        const size_t S = off.size() - 1, n = off[S];
        float *d_v, *d_o;
        uint64_t *d_off;
        CK(cudaMalloc(&d_v, n * sizeof(float)));
        CK(cudaMalloc(&d_o, (S + 2 * GUARD) * sizeof(float)));
        CK(cudaMalloc(&d_off, (S + 1) * 8));
        CK(cudaMemset(d_v, 0, n * sizeof(float)));
        CK(cudaMemset(d_o, 0xA5, (S + 2 * GUARD) * sizeof(float)));
        CK(cudaMemcpy(d_off, off.data(), (S + 1) * 8, cudaMemcpyHostToDevice));
        const cudaError_t err = gp_segmented_reduce_sum_f32(d_o + GUARD, d_v, d_off, S, 0);
        CK(cudaDeviceSynchronize());
        std::vector<unsigned char> got((S + 2 * GUARD) * sizeof(float)), poison(GUARD * sizeof(float), 0xA5);
        CK(cudaMemcpy(got.data(), d_o, got.size(), cudaMemcpyDeviceToHost));
        const bool guards = memcmp(got.data(), poison.data(), poison.size()) == 0 &&
                            memcmp(got.data() + (GUARD + S) * sizeof(float), poison.data(), poison.size()) == 0;
        EXPECT(err == cudaSuccess && guards, "segmented_reduce_sum_f32: %zu offsets not ascending (%s) over %zu values: %s, guards %s",
               S + 1, layout, n, cudaGetErrorName(err), guards ? "intact" : "written");
        size_t want = S, first_bad = 0;
        for (size_t i = 0; i < S && want == S; i++)
            if (off[i + 1] < off[i]) want = i;
        const cudaError_t cerr = gp_segmented_check_offsets(&first_bad, d_off, S, 0);
        EXPECT(cerr == (want < S ? cudaErrorInvalidValue : cudaSuccess) && first_bad == want,
               "check_offsets: %zu offsets (%s): %s, first_bad %zu (want %zu)", S + 1, layout, cudaGetErrorName(cerr),
               first_bad, want);
        cudaFree(d_v);
        cudaFree(d_o);
        cudaFree(d_off);
    };
    /* random offsets; 3 << 20: about 2000 values a segment (the walk by pieces); 5 << 19: about
     * 2 (the walk a lane a segment) */
    for (size_t n : {(size_t)100, (size_t)5000, (size_t)1 << 20, (size_t)3 << 20, (size_t)5 << 19}) {
        const size_t S = n == (size_t)3 << 20 ? n / 2000 + 1 : n == (size_t)5 << 19 ? n / 2 + 1 : n / 16 + 1;
        std::vector<uint64_t> off(S + 1);
        off[0] = 0;
        off[S] = n;
        for (size_t i = 1; i < S; i++) off[i] = gp_t_next(&st) % (n + 1);
        check_unordered(off, "random");
    }
    /* segments of 8 (the ring kernel's tiles) with ends out of order in every tile: one end
     * 200 late every 16, one 200 early every 16, every end moved by up to +-50. A fold that
     * reads past its tile's values is seen by racecheck only when the read crosses into a
     * chunk not yet waited for, which neither these layouts nor the random ones force: such
     * a report can come in some seeds only (docs/testing.md) */
    for (int kind = 0; kind < 3; kind++) {
        const size_t n = (size_t)3 << 20, S = n / 8;
        std::vector<uint64_t> off(S + 1);
        for (size_t i = 0; i <= S; i++) {
            long long e = (long long)(8 * i);
            if (kind == 0 && i % 16 == 5) e += 200;
            if (kind == 1 && i % 16 == 5) e -= 200;
            if (kind == 2) e += (long long)(gp_t_next(&st) % 101) - 50;
            off[i] = i == 0 ? 0 : i == S ? n : e < 0 ? 0 : e > (long long)n ? n : (uint64_t)e;
        }
        check_unordered(off, kind == 0 ? "one late every 16" : kind == 1 ? "one early every 16" : "jittered");
    }
    /* the offsets' check at its edges: one descent at a random place (the first pair, the last
     * and in between), equal offsets, a stream of the caller's, a capturing stream */
    {
        const size_t S = 100000 + gp_t_next(&st) % 1000;
        std::vector<uint64_t> off(S + 1);
        for (size_t i = 0; i <= S; i++) off[i] = 1000 + i / 3;
        uint64_t *d_off;
        CK(cudaMalloc(&d_off, (S + 1) * 8));
        cudaStream_t s1;
        CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
        for (size_t at : {(size_t)0, S - 1, (size_t)(gp_t_next(&st) % S), S}) {
            std::vector<uint64_t> o = off;
            if (at < S) o[at + 1] = o[at] - 1 - gp_t_next(&st) % 5; /* at == S: none */
            size_t want = S;
            for (size_t i = 0; i < S && want == S; i++)
                if (o[i + 1] < o[i]) want = i;
            /* on s1, in its order: a plain cudaMemcpy from pageable memory may return before its
             * last bytes land, and s1 does not wait for the legacy stream */
            CK(cudaMemcpyAsync(d_off, o.data(), (S + 1) * 8, cudaMemcpyHostToDevice, s1));
            size_t first_bad = 0;
            const cudaError_t cerr = gp_segmented_check_offsets(&first_bad, d_off, S, s1);
            EXPECT(cerr == (want < S ? cudaErrorInvalidValue : cudaSuccess) && first_bad == want,
                   "check_offsets: %zu segments, descent at %zu: %s, first_bad %zu (want %zu)", S, at,
                   cudaGetErrorName(cerr), first_bad, want);
        }
        CK(cudaMemcpy(d_off, off.data(), (S + 1) * 8, cudaMemcpyHostToDevice));
        CK(cudaMemset(d_off + S / 2, 0, 8)); /* a descent the capture must not look for */
        cudaGraph_t g = NULL;
        CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
        const cudaError_t cerr = gp_segmented_check_offsets(NULL, d_off, S, s1);
        const cudaError_t ended = cudaStreamEndCapture(s1, &g);
        EXPECT(cerr == cudaErrorStreamCaptureUnsupported && ended == cudaSuccess,
               "check_offsets under capture: %s, the capture ended with %s", cudaGetErrorName(cerr),
               cudaGetErrorName(ended));
        if (g) cudaGraphDestroy(g);
        CK(cudaStreamDestroy(s1));
        cudaFree(d_off);
    }
    /* NaN and -0.0: the same bits as the sequential fold (sum: NaN spreads; -0.0 + identity) */
    {
        const float v[] = {NAN, 1.0f, -0.0f, -0.0f, 2.0f, -0.0f};
        const uint64_t off[] = {0, 2, 4, 4, 5, 6};
        float *d_v, *d_o;
        uint64_t *d_off;
        CK(cudaMalloc(&d_v, sizeof v));
        CK(cudaMalloc(&d_o, 5 * sizeof(float)));
        CK(cudaMalloc(&d_off, sizeof off));
        CK(cudaMemcpy(d_v, v, sizeof v, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
        CK(gp_segmented_reduce_sum_f32(d_o, d_v, d_off, 5, 0));
        float o[5];
        CK(cudaMemcpy(o, d_o, sizeof o, cudaMemcpyDeviceToHost));
        const float want[5] = {NAN, 0.0f + -0.0f + -0.0f, 0.0f, 0.0f + 2.0f, 0.0f + -0.0f};
        EXPECT(isnan(o[0]) && memcmp(o + 1, want + 1, 4 * sizeof(float)) == 0, "segmented f32: NaN and -0.0 bits");
        cudaFree(d_v);
        cudaFree(d_o);
        cudaFree(d_off);
    }
}

extern "C" void test_segmented_scan_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("segmented: every default instance's segmented scans and reduce-by-key on the GPU");
        return;
    }
    uint64_t st = gp_t_state(341);
    const size_t cap = gp_t_small() ? 65537 : 1048573;
    static const unsigned every[] = {0, 1, 8, 1024};
    /* and even sizes of whole tiles (aligned: the ring kernels; odd sizes run misaligned, or in place) */
    static const size_t sscan_sizes[] = {1, 31, 32, 33, 1023, 1025, 4097, 8192, 12290, 65537, 1048572, 1048573};
#define SSCAN_ROW(name, T, op, kind, OP, ID)                                                                \
    for (size_t n : sscan_sizes) {                                                                          \
        if (n > cap) continue;                                                                              \
        for (unsigned e : every) {                                                                          \
            if (n > 70000 && e != 8) continue;                                                              \
            check_sscan<href_##name>(#name, gp_inclusive_segmented_scan_##name, 1, n, e, (unsigned)(n % 2), false, &st); \
            check_sscan<href_##name>(#name, gp_exclusive_segmented_scan_##name, 0, n, e, 0, (n % 2) == 1, &st); \
        }                                                                                                   \
    }
    GP__OP_INSTANCES(SSCAN_ROW)
#undef SSCAN_ROW
#define RBK_ROW(name, K, T, op)                                                                             \
    for (size_t n : sscan_sizes) {                                                                          \
        if (n > cap) continue;                                                                              \
        check_rbk<href_##op, K, gp_t_eq<K>>(#name, gp_reduce_by_key_##name, n, 8, 0, (unsigned)(n % 2), &st); \
        if (n <= 70000) {                                                                                   \
            check_rbk<href_##op, K, gp_t_eq<K>>(#name, gp_reduce_by_key_##name, n, 1, 0, 0, &st);           \
            check_rbk<href_##op, K, gp_t_eq<K>>(#name, gp_reduce_by_key_##name, n, 3000, 0, 1, &st);        \
        }                                                                                                   \
    }
    GP__REDUCE_BY_KEY_INSTANCES(RBK_ROW)
#undef RBK_ROW
    /* runs across every tile boundary: run lengths of a tile and one either side */
    const size_t tile = GP__SSCAN_THREADS * 8;
    for (size_t fixed : {tile - 1, tile, tile + 1, (size_t)7})
        check_rbk<href_sum_f32, int32_t, gp_t_eq<int32_t>>("sum_i32_f32", gp_reduce_by_key_sum_i32_f32, tile * 37 + 5,
                                                           0, fixed, 0, &st);
    /* the ring kernels with an operator that does not commute: runs and segments of a few
     * elements, and of several ring tiles (tiles with no head, whose total is all their
     * values; prefixes that fold many tiles' totals), on 16-byte boundaries; one run of
     * everything */
    const size_t long_run = 3 * gp__ssr_tile(4) + 5;
    for (size_t n : {(size_t)65537, (size_t)1048573}) {
        if (n > cap) continue;
        check_rbk<href_affine, uint32_t, gp_t_eq<uint32_t>>("affine_u32", gp_reduce_by_key_affine_u32, n, 8, 0, 0, &st);
        check_rbk<href_affine, uint32_t, gp_t_eq<uint32_t>>("affine_u32", gp_reduce_by_key_affine_u32, n, 3000, 0, 0, &st);
        check_rbk<href_affine, uint32_t, gp_t_eq<uint32_t>>("affine_u32", gp_reduce_by_key_affine_u32, n, 0, long_run, 0,
                                                            &st);
        check_rbk<href_affine, uint32_t, gp_t_eq<uint32_t>>("affine_u32", gp_reduce_by_key_affine_u32, n, 0, n, 0, &st);
        check_rbk<href_sum_f32, int32_t, gp_t_eq<int32_t>>("sum_i32_f32", gp_reduce_by_key_sum_i32_f32, n, 0,
                                                           long_run, 0, &st);
        check_sscan<href_affine>("affine_u32", gp_inclusive_segmented_scan_affine_u32, 1, n, 8, 0, false, &st);
        check_sscan<href_affine>("affine_u32", gp_exclusive_segmented_scan_affine_u32, 0, n, 30000, 0, false, &st);
        check_sscan<href_affine>("affine_u32", gp_inclusive_segmented_scan_affine_u32, 1, n, 0, 0, false, &st);
    }
    if (!gp_t_small()) {
        check_sscan<href_sum_f32>("sum_f32", gp_inclusive_segmented_scan_sum_f32, 1, (1u << 24) + 7, 1024, 1, false, &st);
        check_sscan<href_sum_f32>("sum_f32", gp_exclusive_segmented_scan_sum_f32, 0, (1u << 24) + 7, 8, 0, true, &st);
        check_rbk<href_sum_f32, int32_t, gp_t_eq<int32_t>>("sum_i32_f32", gp_reduce_by_key_sum_i32_f32, (1u << 24) + 7, 8,
                                                           0, 1, &st);
    } else {
        gp_t_skip("segmented scans: 2^24 + 7 values (small sizes)");
    }
    /* the user's non-commutative operator, and a key comparison of the user's */
    for (size_t n : edge_sizes) {
        if (n > cap) continue;
        check_sscan<href_mat2>("mat2", gp_inclusive_segmented_scan_mat2, 1, n, 8, 0, false, &st);
        check_sscan<href_mat2>("mat2", gp_exclusive_segmented_scan_mat2, 0, n, 1024, 0, true, &st);
        check_rbk<href_mat2, uint32_t, eq_mod>("mat2_mod", gp_reduce_by_key_mat2_mod, n, 8, 0, 0, &st);
        check_rbk<href_mat2, key16, eq_key16>("mat2_k16", gp_reduce_by_key_mat2_k16, n, 8, 0, 0, &st);
        check_rbk<href_mat2, key16, eq_key16>("mat2_k16", gp_reduce_by_key_mat2_k16, n, 1, 0, 0, &st);
        check_rbk<href_mat2, key16, eq_key16>("mat2_k16", gp_reduce_by_key_mat2_k16, n, 3000, 0, 0, &st);
    }
    /* 1- and 2-byte elements, tiles whole and partial, misaligned (the one-tile kernel) too */
    for (size_t n : sscan_sizes) {
        if (n > cap) continue;
        check_sscan<href_add_wrap<uint8_t>>("add_u8", gp_inclusive_segmented_scan_add_u8, 1, n, 8, 0, false, &st);
        check_sscan<href_add_wrap<uint16_t>>("add_u16", gp_inclusive_segmented_scan_add_u16, 1, n, 8, 0, false, &st);
        check_sscan<href_add_wrap<uint16_t>>("add_u16", gp_exclusive_segmented_scan_add_u16, 0, n, 1024, 1, false, &st);
        check_rbk<href_add_wrap<uint8_t>, uint8_t, gp_t_eq<uint8_t>>("add_u8", gp_reduce_by_key_add_u8, n, 8, 0, 0, &st);
        check_rbk<href_add_wrap<uint16_t>, uint16_t, gp_t_eq<uint16_t>>("add_u16", gp_reduce_by_key_add_u16, n, 8, 0,
                                                                        (unsigned)(n % 2), &st);
        check_rbk<href_add_wrap<uint16_t>, uint16_t, gp_t_eq<uint16_t>>("add_u16", gp_reduce_by_key_add_u16, n, 1, 0, 0,
                                                                        &st);
    }
    /* n == 0 writes 0 runs */
    uint64_t *d_runs;
    CK(cudaMalloc(&d_runs, 8));
    CK(cudaMemset(d_runs, 0xA5, 8));
    CK(gp_reduce_by_key_sum_i32_f32(NULL, NULL, d_runs, NULL, NULL, 0, 0));
    uint64_t runs = 1;
    CK(cudaMemcpy(&runs, d_runs, 8, cudaMemcpyDeviceToHost));
    EXPECT(runs == 0, "reduce_by_key: n == 0 writes 0 (got %llu)", (unsigned long long)runs);
    cudaFree(d_runs);
}

/* ---- bitwise reruns on four streams at once ------------------------------------------------ */

/* launch(k, stream) writes `bytes` at out[k]: first all on the default stream, then three
 * rounds on four non-blocking streams at once, each bitwise the same as the first. */
template <class Launch>
static void check_streams_big(const char *what, size_t bytes, Launch launch)
{
    enum { K = 4 };
    unsigned char *out[K];
    std::vector<unsigned char> want(bytes * K), got(bytes * K);
    for (int k = 0; k < K; k++) {
        CK(cudaMalloc(&out[k], bytes));
        CK(cudaMemset(out[k], 0xA7, bytes)); /* outputs past a count stay as poisoned */
    }
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < K; k++) launch(k, out[k], (cudaStream_t)0);
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < K; k++) CK(cudaMemcpy(want.data() + k * bytes, out[k], bytes, cudaMemcpyDeviceToHost));
    for (int rep = 0; rep < 3; rep++) {
        cudaStream_t s[K];
        for (int k = 0; k < K; k++) {
            CK(cudaMemset(out[k], 0xA7, bytes));
            CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        }
        CK(cudaDeviceSynchronize());
        for (int k = 0; k < K; k++) launch(k, out[k], s[k]);
        CK(cudaDeviceSynchronize());
        for (int k = 0; k < K; k++) CK(cudaMemcpy(got.data() + k * bytes, out[k], bytes, cudaMemcpyDeviceToHost));
        EXPECT(memcmp(got.data(), want.data(), bytes * K) == 0, "%s: four concurrent streams, repeat %d: bitwise equal", what,
               rep);
        for (int k = 0; k < K; k++) cudaStreamDestroy(s[k]);
    }
    for (int k = 0; k < K; k++) cudaFree(out[k]);
}

extern "C" void test_segmented_streams_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("segmented: bitwise reruns on four streams (reduce, rows, columns, scan, reduce-by-key)");
        return;
    }
    uint64_t st = gp_t_state(342);
    const size_t n = gp_t_small() ? 65537 : (1u << 22) + 3;
    std::vector<uint64_t> off = make_offsets(PAT_POWER, n, 3, &st);
    const size_t S = off.size() - 1, N = off[S];
    std::vector<float> v(N + 8);
    std::vector<int32_t> keys(N);
    std::vector<uint8_t> heads(N);
    for (size_t i = 0; i < N + 8; i++) v[i] = (float)((double)(gp_t_next(&st) >> 11) / 9007199254740992.0 - 0.3);
    int32_t key = 0;
    for (size_t i = 0; i < N; i++) {
        if (gp_t_next(&st) % 8 == 0) key++;
        keys[i] = key;
        heads[i] = gp_t_next(&st) % 8 == 0;
    }
    float *d_v;
    int32_t *d_k;
    uint8_t *d_h;
    uint64_t *d_off;
    CK(cudaMalloc(&d_v, (N + 8) * sizeof(float)));
    CK(cudaMalloc(&d_k, N * 4));
    CK(cudaMalloc(&d_h, N));
    CK(cudaMalloc(&d_off, off.size() * 8));
    CK(cudaMemcpy(d_v, v.data(), (N + 8) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_k, keys.data(), N * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_h, heads.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    /* random floats: the association shows in the bits */
    check_streams_big("segmented_reduce_sum_f32", S * 4, [&](int, unsigned char *o, cudaStream_t s) {
        CK(gp_segmented_reduce_sum_f32((float *)o, d_v, d_off, S, s));
    });
    const size_t rows = N / 64;
    check_streams_big("reduce_rows_sum_f32", rows * 4, [&](int, unsigned char *o, cudaStream_t s) {
        CK(gp_reduce_rows_sum_f32((float *)o, d_v + 1, rows, 64, 64, s));
    });
    check_streams_big("reduce_cols_sum_f32", 64 * 4, [&](int, unsigned char *o, cudaStream_t s) {
        CK(gp_reduce_cols_sum_f32((float *)o, d_v + 1, rows, 64, 64, s));
    });
    check_streams_big("inclusive_segmented_scan_sum_f32", N * 4, [&](int, unsigned char *o, cudaStream_t s) {
        CK(gp_inclusive_segmented_scan_sum_f32((float *)o, d_v, d_h, N, s));
    });
    check_streams_big("reduce_by_key_sum_i32_f32", N * 8 + 8, [&](int, unsigned char *o, cudaStream_t s) {
        CK(gp_reduce_by_key_sum_i32_f32((int32_t *)o, (float *)(o + N * 4), (uint64_t *)(o + N * 8), d_k, d_v, N, s));
    });
    cudaFree(d_v);
    cudaFree(d_k);
    cudaFree(d_h);
    cudaFree(d_off);
}

/* ---- above 2^31 ------------------------------------------------------------------------------ */

__global__ void t_seg_fill(int32_t *v, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = (int32_t)(hash32(i, key) % 7) - 3;
}
__global__ void t_seg_ref(int64_t *out, const int32_t *v, const uint64_t *off, size_t S)
{
    const size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (s >= S) return;
    int64_t acc = 0;
    for (uint64_t j = off[s]; j < off[s + 1]; j++) acc += v[j];
    out[s] = acc;
}
__global__ void t_ones_heads(int32_t *v, uint8_t *h, size_t n, size_t every)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        v[i] = 1;
        h[i] = i % every == 0;
    }
}
/* v[i] == i % every + first: the scan of ones restarted every `every` elements (first: 1
 * inclusive, 0 exclusive) */
__global__ void t_check_ramp(const int32_t *v, size_t n, size_t every, int32_t first, unsigned long long *bad)
{
    unsigned long long b = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        b += v[i] != (int32_t)(i % every) + first;
    if (b) atomicAdd(bad, b);
}

/* gp_segmented_reduce_sum_i32 of d_v's segments `off` (outputs poisoned first) against
 * t_seg_ref's 64-bit sums: how many are wrong */
static size_t big_wrong(const int32_t *d_v, const std::vector<uint64_t> &off)
{
    const size_t S = off.size() - 1;
    uint64_t *d_off;
    int64_t *d_ref;
    int32_t *d_out;
    CK(cudaMalloc(&d_off, off.size() * 8));
    CK(cudaMalloc(&d_ref, S * 8));
    CK(cudaMalloc(&d_out, S * 4));
    CK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0xA5, S * 4));
    t_seg_ref<<<(unsigned)((S + 127) / 128), 128>>>(d_ref, d_v, d_off, S);
    CK(gp_segmented_reduce_sum_i32(d_out, d_v, d_off, S, 0));
    CK(cudaDeviceSynchronize());
    std::vector<int64_t> ref(S);
    std::vector<int32_t> got(S);
    CK(cudaMemcpy(ref.data(), d_ref, S * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got.data(), d_out, S * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t s = 0; s < S; s++) bad += got[s] != (int32_t)ref[s];
    cudaFree(d_off);
    cudaFree(d_ref);
    cudaFree(d_out);
    return bad;
}

/* reduce-by-key above 2^31: key i / run, value 1, so run r has key r and sum min(run, n - r run) */
__global__ void t_rbk_fill(uint32_t *k, int32_t *v, size_t n, size_t run)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        k[i] = (uint32_t)(i / run);
        v[i] = 1;
    }
}
__global__ void t_rbk_check(const uint32_t *k, const int32_t *v, size_t runs, size_t n, size_t run,
                            unsigned long long *bad)
{
    unsigned long long b = 0;
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < runs; r += (size_t)gridDim.x * blockDim.x)
        b += k[r] != (uint32_t)r || v[r] != (int32_t)(n - r * run < run ? n - r * run : run);
    if (b) atomicAdd(bad, b);
}

/* off[i] = i / 2: ascending, each offset twice */
static __global__ void t_half_ramp(uint64_t *off, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        off[i] = i / 2;
}

extern "C" void test_segmented_big_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("segmented: 2^31 + 1001 values (reduce with a segment across 2^31, segmented scans, reduce-by-key)");
        return;
    }
    if (gp_t_small()) {
        gp_t_skip("segmented: 2^31 + 1001 values (small sizes)");
        return;
    }
    const size_t n = ((size_t)1 << 31) + 1001;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < n * 5 + ((size_t)1 << 30)) {
        gp_t_skip("segmented: 2^31 + 1001 values need 11 GB of device memory");
        return;
    }
    uint64_t st = gp_t_state(343);
    int32_t *d_v;
    uint8_t *d_h;
    CK(cudaMalloc(&d_v, n * 4));
    CK(cudaMalloc(&d_h, n));
    /* the reduce: 4096 segments at random cuts, none between 2^31 - 5000 and 2^31 + 5000 */
    std::vector<uint64_t> cuts;
    for (int i = 0; i < 4094; i++) {
        uint64_t c = gp_t_next(&st) % n;
        if (c > ((uint64_t)1 << 31) - 5000 && c < ((uint64_t)1 << 31) + 5000) c = ((uint64_t)1 << 31) - 5000;
        cuts.push_back(c);
    }
    cuts.push_back(0);
    cuts.push_back(n);
    std::sort(cuts.begin(), cuts.end());
    const uint32_t key = (uint32_t)gp_t_next(&st);
    t_seg_fill<<<4096, 256>>>(d_v, n, key);
    const size_t S = cuts.size() - 1, bad = big_wrong(d_v, cuts);
    EXPECT(bad == 0, "segmented_reduce_sum_i32: 2^31 + 1001 values, %zu segments (one across 2^31): %zu wrong", S, bad);
    /* short segments across 2^31, from 2^31 - 2^23 to the end of the values: blocks walked
     * a lane a segment, at positions above 2^31 */
    std::vector<uint64_t> off2(1, ((uint64_t)1 << 31) - ((uint64_t)1 << 23));
    for (;;) {
        const uint64_t len = tiny_len(&st);
        if (off2.back() + len > n) break;
        off2.push_back(off2.back() + len);
    }
    const size_t bad2 = big_wrong(d_v, off2);
    EXPECT(bad2 == 0, "segmented_reduce_sum_i32: %zu short segments from 2^31 - 2^23 to 2^31 + 1001: %zu wrong",
           off2.size() - 1, bad2);
    /* the segmented scans in place: ones, a head every 1000003 (a segment across 2^31), so
     * out[i] = i % 1000003 + 1 (inclusive) or i % 1000003 (exclusive) */
    const size_t every = 1000003;
    unsigned long long *d_bad, h_bad = 1;
    CK(cudaMalloc(&d_bad, 8));
    for (int inclusive = 1; inclusive >= 0; inclusive--) {
        CK(cudaMemset(d_bad, 0, 8));
        t_ones_heads<<<4096, 256>>>(d_v, d_h, n, every);
        if (inclusive) CK(gp_inclusive_segmented_scan_sum_i32(d_v, d_v, d_h, n, 0));
        else CK(gp_exclusive_segmented_scan_sum_i32(d_v, d_v, d_h, n, 0));
        t_check_ramp<<<4096, 256>>>(d_v, n, every, inclusive, d_bad);
        CK(cudaMemcpy(&h_bad, d_bad, 8, cudaMemcpyDeviceToHost));
        EXPECT(h_bad == 0, "%s_segmented_scan_sum_i32: 2^31 + 1001 values in place: %llu wrong",
               inclusive ? "inclusive" : "exclusive", h_bad);
    }
    cudaFree(d_v);
    cudaFree(d_h);
    /* reduce-by-key: runs of 1 (more than 2^31 runs) and of 7 (a run across 2^31) */
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < n * 16 + ((size_t)1 << 30)) {
        gp_t_skip("reduce_by_key: 2^31 + 1001 values need 35 GB of device memory");
    } else {
        uint32_t *d_k, *d_ko;
        int32_t *d_1, *d_vo;
        uint64_t *d_runs, runs = 0;
        CK(cudaMalloc(&d_k, n * 4));
        CK(cudaMalloc(&d_1, n * 4));
        CK(cudaMalloc(&d_ko, n * 4));
        CK(cudaMalloc(&d_vo, n * 4));
        CK(cudaMalloc(&d_runs, 8));
        for (size_t run : {(size_t)1, (size_t)7}) {
            t_rbk_fill<<<4096, 256>>>(d_k, d_1, n, run);
            CK(gp_reduce_by_key_sum_u32_i32(d_ko, d_vo, d_runs, d_k, d_1, n, 0));
            CK(cudaMemset(d_bad, 0, 8));
            CK(cudaMemcpy(&runs, d_runs, 8, cudaMemcpyDeviceToHost));
            const size_t want = (n + run - 1) / run;
            t_rbk_check<<<4096, 256>>>(d_ko, d_vo, runs < want ? runs : want, n, run, d_bad);
            CK(cudaMemcpy(&h_bad, d_bad, 8, cudaMemcpyDeviceToHost));
            EXPECT(runs == want && h_bad == 0,
                   "reduce_by_key_sum_u32_i32: 2^31 + 1001 values, runs of %zu: %llu runs (want %zu), %llu wrong", run,
                   (unsigned long long)runs, want, h_bad);
        }
        cudaFree(d_k);
        cudaFree(d_1);
        cudaFree(d_ko);
        cudaFree(d_vo);
        cudaFree(d_runs);
    }
    cudaFree(d_bad);
    /* the offsets' check over 2^31 + 1001 segments: ascending, then with two descents past
     * 2^31 (the least is reported) */
    const size_t segs = n;
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < (segs + 1) * 8 + ((size_t)1 << 30)) {
        gp_t_skip("check_offsets: 2^31 + 1001 segments need 18 GB of device memory");
        return;
    }
    uint64_t *d_off;
    CK(cudaMalloc(&d_off, (segs + 1) * 8));
    t_half_ramp<<<4096, 256>>>(d_off, segs + 1);
    size_t first_bad = 0;
    cudaError_t cerr = gp_segmented_check_offsets(&first_bad, d_off, segs, 0);
    EXPECT(cerr == cudaSuccess && first_bad == segs, "check_offsets: 2^31 + 1001 segments, ascending: %s, first_bad %zu",
           cudaGetErrorName(cerr), first_bad);
    const size_t j = ((size_t)1 << 31) + 17 + gp_t_next(&st) % 500;
    for (size_t at : {j + 700, j}) {
        const uint64_t lower = at / 2 - 1; /* off[at + 1] below off[at] = at / 2 */
        CK(cudaMemcpy(d_off + at + 1, &lower, 8, cudaMemcpyHostToDevice));
    }
    cerr = gp_segmented_check_offsets(&first_bad, d_off, segs, 0);
    EXPECT(cerr == cudaErrorInvalidValue && first_bad == j,
           "check_offsets: 2^31 + 1001 segments, descents at %zu and %zu: %s, first_bad %zu", j, j + 700,
           cudaGetErrorName(cerr), first_bad);
    cudaFree(d_off);
}
