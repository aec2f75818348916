/* tests/histogram/test_histogram.cu -- gp_histogram_even_<t>, gp_histogram_range_<t>,
 * GP_DEFINE_HISTOGRAM and the block histogram.
 * Host: the bin rules against independent references (128-bit integers, the float rule as
 * written, a linear scan of the edges), the plan, argument checks (they launch nothing).
 * GPU: every default instance, even and range, against a host reference at the edge sizes,
 * aligned and misaligned, bins from 1 to past shared memory, inputs at the bin edges, at
 * lower / upper / just below upper, NaN, +-inf, -0.0, integer extremes; poisoned guard bins;
 * one value everywhere; a user instance and the block level; determinism across streams;
 * 2^32 + 5 copies of one byte (above 2^31 elements, a count above 2^32 in one bin), the
 * same for one u32 over 2^20 bins (partitioned); u32 over 2^32 - 1 bins; past shared memory,
 * the partition by bin at 2^17 + 3 to 2^24 bins. */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../hash.cuh"

#include <float.h>
#include <limits>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <algorithm>
#include <vector>

/* ---- independent references ------------------------------------------------------------------ */
static uint64_t ref_even_int(int64_t lower, int64_t upper, uint64_t bins, int64_t x)
{
    if (x < lower || x >= upper) return bins;
    const unsigned __int128 v = (unsigned __int128)((__int128)x - lower), range = (unsigned __int128)((__int128)upper - lower);
    return (uint64_t)(v * bins / range);
}
static uint64_t ref_even_float(double lower, double upper, uint64_t bins, double x)
{
    if (!(x >= lower && x < upper)) return bins;
    volatile double t = x - lower; /* each step rounded, as written */
    volatile double a = t * (double)bins;
    volatile double w = upper - lower;
    volatile double r = a / w;
    const double f = floor(r);
    return f < (double)bins ? (uint64_t)f : bins - 1;
}
template <class E>
static uint64_t ref_edges_scan(const E *e, uint64_t bins, E x)
{
    for (uint64_t i = 0; i < bins; i++)
        if (x >= e[i] && x < e[i + 1]) return i;
    return bins;
}
/* The same for ascending edges, by std::upper_bound (the GPU cases: up to 10^5 bins). */
template <class E>
static uint64_t ref_edges(const E *e, uint64_t bins, E x)
{
    if (!(x >= e[0] && x < e[bins])) return bins;
    return (uint64_t)(std::upper_bound(e, e + bins + 1, x) - e) - 1;
}

/* ---- host -------------------------------------------------------------------------------------- */
static void check_int_rule(void)
{
    gp_t_section("histogram: the integer rule against 128-bit arithmetic (host)");
    uint64_t st = gp_t_state(1);
    struct { int64_t lo, hi; uint64_t bins; } cases[] = {
        {0, 256, 256}, {0, 256, 7}, {0, 256, 1}, {INT32_MIN, (int64_t)1 << 31, 7}, {0, (int64_t)1 << 32, 0xffffffffull},
        {0, (int64_t)1 << 32, (uint64_t)1 << 32}, {-5, 1000, 1000}, {3, 65539, 65536}, {0, 65536, 300},
        {INT64_MIN, INT64_MAX, 7}, {INT64_MIN, INT64_MAX, (uint64_t)1 << 32}, {INT64_MIN, 0, 3}, {-1000000007, 999999937, 4099},
        {0, 3 * 4096, 4096}, {100, 100 + 12345 * 77, 77}};
    int bad = 0, kinds[4] = {0};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const gp__hist_even_int e = gp__hist_even_int_make(cases[c].lo, cases[c].hi, cases[c].bins);
        kinds[e.kind]++;
        for (int i = 0; i < 20000; i++) {
            const uint64_t r = gp_t_next(&st);
            int64_t x;
            switch (i % 4) {
            case 0: x = (int64_t)r; break;
            case 1: x = cases[c].lo + (int64_t)(r % 4096) - 2048; break;
            case 2: x = cases[c].hi + (int64_t)(r % 4096) - 2048; break;
            default: { /* at a bin edge: the first x of bin k, and one below */
                const uint64_t k = r % cases[c].bins;
                const unsigned __int128 range = (unsigned __int128)((__int128)cases[c].hi - cases[c].lo);
                const unsigned __int128 off = (k * range + cases[c].bins - 1) / cases[c].bins;
                x = (int64_t)((__int128)cases[c].lo + (__int128)off - (int64_t)(r >> 63));
            }
            }
            if (i % 4 == 1 && ((x > cases[c].lo) != (cases[c].lo + (int64_t)(r % 4096) - 2048 > cases[c].lo))) continue; /* wrapped */
            const uint64_t got = gp__hist_even_int_bin(e, x), want = ref_even_int(cases[c].lo, cases[c].hi, cases[c].bins, x);
            if (got != want && bad++ < 5)
                EXPECT(0, "int rule [%lld, %lld) bins %llu x %lld: %llu, want %llu (kind %d)", (long long)cases[c].lo,
                       (long long)cases[c].hi, (unsigned long long)cases[c].bins, (long long)x, (unsigned long long)got,
                       (unsigned long long)want, e.kind);
        }
    }
    EXPECT(bad == 0, "integer rule: %d mismatches", bad);
    EXPECT(kinds[0] && kinds[1] && kinds[2] && kinds[3], "every integer form was exercised (%d %d %d %d)", kinds[0], kinds[1],
           kinds[2], kinds[3]);
    const gp__hist_even_int e = gp__hist_even_int_make(INT32_MIN, (int64_t)1 << 31, 7);
    EXPECT(gp__hist_even_int_bin(e, INT32_MIN) == 0 && gp__hist_even_int_bin(e, INT32_MAX) == 6 &&
               gp__hist_even_int_bin(e, (int64_t)INT32_MIN - 1) == 7,
           "INT32_MIN .. 2^31 over 7 bins: ends at bins 0 and 6");
}

/* The 32-bit form of the shift rule (gp__hist_even_int_key32, what the kernel's fast path
 * calls) against the 128-bit reference, over every x near the ends of the type and of the
 * range and random x, for ranges inside the type, below it, past it, across it and wider
 * than 2^32; the binner must take the form exactly where it is exact, and say so otherwise. */
template <class T>
static void check_key32_type(uint64_t *st, int &bad, int &took, int &declined)
{
    const int64_t tmin = (int64_t)std::numeric_limits<T>::min(), tmax = (int64_t)std::numeric_limits<T>::max();
    const int64_t los[] = {tmin, 0, -5, 1000, tmin - 4096, tmax - (((int64_t)1 << 32) - 1), tmax - ((int64_t)1 << 32),
                           tmax - 100, tmax + 1, -((int64_t)1 << 40), (int64_t)(gp_t_next(st) % 65536) - 32768};
    for (int64_t lo : los)
        for (unsigned shift = 0; shift < 34; shift += 3)
            for (uint64_t bins : {(uint64_t)1, (uint64_t)7, (uint64_t)256, (uint64_t)65536}) {
                if (shift + (bins > 1 ? 64 - __builtin_clzll(bins - 1) : 0) > 40) continue;
                const int64_t hi = lo + (int64_t)(bins << shift);
                const gp__hist_by_even_int<T> b = gp__hist_by_even_int_make<T>(lo, hi, bins);
                if (b.e.kind != GP__HIST_SHIFT) continue;
                const int64_t end = tmax + 1, top = hi < end ? hi : end;
                const bool exact = shift < 32 && top > lo && lo >= end - ((int64_t)1 << 32);
                if (b.not32 != !exact) {
                    if (bad++ < 5) EXPECT(0, "key32 [%lld, %lld) bins %llu: not32 %u", (long long)lo, (long long)hi, (unsigned long long)bins, b.not32);
                    continue;
                }
                if (b.not32) { declined++; continue; }
                took++;
                const int64_t probes[] = {tmin, tmin + 1, tmax, tmax - 1, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, top - 1, top, 0, -1};
                for (int i = 0; i < 64 + 14; i++) {
                    const int64_t x = i < 14 ? probes[i] : tmin + (int64_t)(gp_t_next(st) % (uint64_t)(tmax - tmin + 1));
                    if (x < tmin || x > tmax) continue;
                    const uint64_t want = ref_even_int(lo, hi, bins, x), got = gp__hist_even_int_key32(b, (T)x, (uint32_t)bins);
                    if (got != (want < bins ? want : bins) && bad++ < 5)
                        EXPECT(0, "key32 %s [%lld, %lld) bins %llu x %lld: %llu, want %llu", sizeof(T) == 2 ? "u16" : "32-bit",
                               (long long)lo, (long long)hi, (unsigned long long)bins, (long long)x, (unsigned long long)got,
                               (unsigned long long)want);
                }
            }
}
static void check_key32(void)
{
    gp_t_section("histogram: the shift rule in 32 bits, against 128-bit arithmetic (host)");
    uint64_t st = gp_t_state(2);
    int bad = 0, took = 0, declined = 0;
    check_key32_type<uint16_t>(&st, bad, took, declined);
    check_key32_type<int16_t>(&st, bad, took, declined);
    check_key32_type<int32_t>(&st, bad, took, declined);
    check_key32_type<uint32_t>(&st, bad, took, declined);
    EXPECT(bad == 0 && took > 100 && declined > 10, "32-bit shift keys: %d mismatches (%d ranges by the form, %d by the rule)", bad,
           took, declined);
}

static void check_float_rule(void)
{
    gp_t_section("histogram: the float rule, fast path against the rule as written (host)");
    uint64_t st = gp_t_state(2);
    struct { double lo, hi; uint64_t bins; } cases[] = {{0, 1, 1024}, {0, 1, 4096}, {0, 1, 65536}, {0, 1, 1u << 24}, {-1, 1, 7},
                                                       {-3.3, 1e10, 1000003}, {0.1, 0.7, 3}, {-1e300, 1e300, 5},
                                                       {0, 1, (uint64_t)1 << 32}, {1e-300, 2e-300, 10}};
    int bad = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const gp__hist_even_float e = gp__hist_even_float_make(cases[c].lo, cases[c].hi, cases[c].bins);
        const double w = cases[c].hi - cases[c].lo;
        for (int i = 0; i < 40000; i++) {
            const uint64_t r = gp_t_next(&st);
            double x;
            const double u = (double)(r >> 11) * 0x1p-53;
            switch (i % 6) {
            case 0: x = cases[c].lo + u * w; break;
            case 1: x = cases[c].lo + (double)(r % cases[c].bins) * (w / (double)cases[c].bins); break; /* edges */
            case 2: x = nextafter(cases[c].lo + (double)(r % cases[c].bins) * (w / (double)cases[c].bins), (r & 1) ? INFINITY : -INFINITY); break;
            case 3: x = (double)(float)(cases[c].lo + u * w); break; /* floats */
            case 4: { const double v[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, cases[c].lo, cases[c].hi, nextafter(cases[c].hi, -INFINITY),
                                          nextafter(cases[c].lo, -INFINITY), (double)nextafterf((float)cases[c].hi, -INFINITY)};
                      x = v[r % 10]; break; }
            default: x = cases[c].lo - w + 3 * u * w;
            }
            const uint64_t got = gp__hist_even_float_bin(e, x), want = ref_even_float(cases[c].lo, cases[c].hi, cases[c].bins, x);
            if (got != want && bad++ < 5)
                EXPECT(0, "float rule [%g, %g) bins %llu x %.17g: %llu, want %llu", cases[c].lo, cases[c].hi,
                       (unsigned long long)cases[c].bins, x, (unsigned long long)got, (unsigned long long)want);
        }
    }
    EXPECT(bad == 0, "float rule: %d mismatches", bad);
    const gp__hist_even_float e = gp__hist_even_float_make(0, 1, 10);
    EXPECT(gp__hist_even_float_bin(e, NAN) == 10 && gp__hist_even_float_bin(e, 1.0) == 10 && gp__hist_even_float_bin(e, -0.0) == 0 &&
               gp__hist_even_float_bin(e, nextafter(1.0, 0)) == 9 && gp__hist_even_float_bin(e, INFINITY) == 10,
           "float rule: NaN and upper not counted, -0.0 in bin 0, just below upper in the last bin");
}

/* The float path of float x (gp__hist_even_float_bin_f32) against the rule as written, where
 * its float bound applies and where it does not; x at and next to the bins' edges. */
static void check_float_rule_f32(void)
{
    gp_t_section("histogram: the float rule for float x, float arithmetic against the rule as written (host)");
    uint64_t st = gp_t_state(7);
    struct { double lo, hi; uint64_t bins; int fast; } cases[] = {
        {0, 1, 1024, 1},       {0, 1, 4096, 1},        {0, 1, 65536, 1},     {-1, 1, 7, 1},          {0.1, 0.7, 3, 1},
        {1000.1, 1000.2, 100, 1}, {-3.3, 1e10, 1000003, 1}, {0, 1, 1u << 24, 1}, {-1e300, 1e300, 5, 0}, {1e-300, 2e-300, 10, 0},
        {-5e-39, 5e-39, 9, 0}, {0, 255.5, 256, 1}, {0, 1, 1u << 31, 1}, {0, 0x1p40, 1024, 1}, {-0.0, 0.25, 65536, 1},
        {0, 1, 1000, 1}, {0.5, 1, 1024, 1}, {0, 1, 3u << 24, 0}, {0, 0x1p-100, 1u << 20, 1}};
    /* exact (no tolerance): lower 0, a power-of-two width and bins / width a power of two */
    const int exact[] = {1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1};
    static_assert(sizeof exact / sizeof *exact == sizeof cases / sizeof *cases, "a flag a case");
    int bad = 0, fast_ok = 1, exact_ok = 1, undecided_exact = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const gp__hist_even_float e = gp__hist_even_float_make(cases[c].lo, cases[c].hi, cases[c].bins);
        if (e.f_fast != cases[c].fast) fast_ok = 0;
        if (e.f_exact != exact[c]) exact_ok = 0;
        const double w = cases[c].hi - cases[c].lo;
        for (int i = 0; i < 60000; i++) {
            const uint64_t r = gp_t_next(&st);
            const double u = (double)(r >> 11) * 0x1p-53;
            const double edge = cases[c].lo + (double)(r % cases[c].bins) * (w / (double)cases[c].bins);
            float x;
            switch (i % 5) {
            case 0: x = (float)(cases[c].lo + u * w); break;
            case 1: x = (float)edge; break;
            case 2: x = nextafterf((float)edge, (r & 1) ? INFINITY : -INFINITY); break;
            case 3: { const float v[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, (float)cases[c].lo, (float)cases[c].hi,
                                         nextafterf((float)cases[c].hi, -INFINITY), nextafterf((float)cases[c].lo, -INFINITY),
                                         nextafterf((float)cases[c].lo, INFINITY)};
                      x = v[r % 10]; break; }
            default: x = (float)(cases[c].lo - w + 3 * u * w);
            }
            const uint64_t got = gp__hist_even_float_bin_f32(e, x), want = ref_even_float(cases[c].lo, cases[c].hi, cases[c].bins, (double)x);
            if (got != want && bad++ < 5)
                EXPECT(0, "float x rule [%g, %g) bins %llu x %.9g: %llu, want %llu", cases[c].lo, cases[c].hi,
                       (unsigned long long)cases[c].bins, (double)x, (unsigned long long)got, (unsigned long long)want);
            if (e.f_exact) { /* floor(x * S) alone, as the kernels take it, and the tolerance path agree */
                uint32_t undecided = 0;
                const uint32_t tol = gp__hist_even_float_fast_f32(e, x, undecided);
                const uint64_t alone = gp__hist_even_float_exact_f32(e, x);
                undecided_exact += undecided != 0 || tol != alone || (alone < cases[c].bins ? alone : cases[c].bins) != want;
            }
        }
    }
    EXPECT(bad == 0, "float rule for float x: %d mismatches", bad);
    EXPECT(fast_ok, "the float path applies where its bound is useful, not elsewhere");
    EXPECT(exact_ok, "the float path is exact (no tolerance) for lower 0 and power-of-two widths and scales only");
    EXPECT(undecided_exact == 0, "exact float path: %d elements left to the rule or binned unlike it", undecided_exact);
}

/* The table of cells against a linear scan: random ascending edges (float and double), edges
 * crowded into one cell, infinite edges; out of order: still a bin in range. */
template <class E>
static int check_cells_case(std::vector<E> &e, uint64_t bins, uint64_t &st, int rounds)
{
    const uint32_t ncells = gp__hist_cells_for(bins);
    if (!ncells) return 0;
    const gp__hist_cells c = gp__hist_cells_make((float)e[0], (float)e[bins], ncells);
    std::vector<uint32_t> table(ncells);
    for (uint32_t k = 0; k < ncells; k++) table[k] = gp__hist_cell_entry(e.data(), bins, c, k);
    int bad = 0;
    for (int i = 0; i < rounds; i++) {
        const uint64_t r = gp_t_next(&st);
        const E lo = e[0], hi = e[bins];
        E x;
        switch (i % 3) {
        case 0: x = e[r % (bins + 1)]; break;
        case 1: x = (E)nextafter((double)e[r % (bins + 1)], (r & 1) ? INFINITY : -INFINITY); break;
        default: x = (E)((double)lo + ((double)hi - (double)lo) * (double)(r >> 11) * 0x1p-53);
        }
        if (!(x >= lo && x < hi)) continue;
        const uint64_t got = gp__hist_cells_bin(e.data(), table.data(), c, x), want = ref_edges_scan(e.data(), bins, x);
        if (got != want && bad++ < 3)
            EXPECT(0, "cells: bins %llu x %.17g: %llu, want %llu", (unsigned long long)bins, (double)x, (unsigned long long)got,
                   (unsigned long long)want);
    }
    return bad;
}
static void check_cells(void)
{
    gp_t_section("histogram: edges through a table of cells, against a linear scan (host)");
    uint64_t st = gp_t_state(8);
    int bad = 0, out = 0;
    const uint64_t sizes[] = {2, 3, 7, 64, 1000, 1024, 4099};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        const uint64_t bins = sizes[z];
        std::vector<double> e(bins + 1);
        std::vector<float> ef(bins + 1);
        for (int shape = 0; shape < 4; shape++) {
            double v = -10;
            for (uint64_t i = 0; i <= bins; i++) {
                const double step = shape == 1 && i > 0 && i < bins ? 1e-7 : 0.01 + (double)(gp_t_next(&st) % 1000) / 100.0;
                e[i] = v += shape == 2 ? (double)(i + 1) * (double)(i + 1) : step; /* 1: crowded; 2: widening */
            }
            if (shape == 3) { e[0] = -INFINITY; e[bins] = INFINITY; }
            bad += check_cells_case(e, bins, st, 3000);
            for (uint64_t i = 0; i <= bins; i++) ef[i] = gp__float_ceil(e[i]);
            bool strict = true; /* float edges rounded up may tie: still ascending */
            for (uint64_t i = 0; i < bins; i++) strict &= ef[i] <= ef[i + 1];
            if (strict) bad += check_cells_case(ef, bins, st, 3000);
        }
        /* out of order */
        for (uint64_t i = 0; i <= bins; i++) e[i] = (double)(gp_t_next(&st) % 100);
        const uint32_t ncells = gp__hist_cells_for(bins);
        const gp__hist_cells c = gp__hist_cells_make((float)e[0], (float)e[bins], ncells);
        std::vector<uint32_t> table(ncells);
        for (uint32_t k = 0; k < ncells; k++) table[k] = gp__hist_cell_entry(e.data(), bins, c, k);
        for (int i = 0; i < 300; i++) out += gp__hist_cells_bin(e.data(), table.data(), c, (double)(gp_t_next(&st) % 100)) >= bins;
    }
    EXPECT(bad == 0, "cells: %d mismatches", bad);
    EXPECT(out == 0, "cells, edges out of order: %d bins out of range", out);
    EXPECT(gp__hist_cells_for(1) == 0 && gp__hist_cells_for(1024) == 4096 && gp__hist_cells_for(65537) == 0 &&
               gp__hist_cells_for(100000) == 0 && gp__hist_cells_for(65536) == GP__HIST_CELLS_MAX,
           "cells: about four per bin, a power of two, none past 65536 bins");
}

static void check_edges_rule(void)
{
    gp_t_section("histogram: edges, binary search against a linear scan; float edges rounded up (host)");
    uint64_t st = gp_t_state(3);
    int bad = 0;
    for (uint64_t bins = 1; bins <= 70; bins++) {
        std::vector<double> e(bins + 1);
        double v = -10;
        for (uint64_t i = 0; i <= bins; i++) e[i] = v += 0.01 + (double)(gp_t_next(&st) % 1000) / 100.0;
        for (int i = 0; i < 300; i++) {
            const double x = i % 3 == 0 ? e[gp_t_next(&st) % (bins + 1)] : -12 + (double)(gp_t_next(&st) % 100000) / 100.0;
            if (gp__hist_edges_bin(e.data(), bins, x) != ref_edges_scan(e.data(), bins, x)) bad++;
            if (ref_edges(e.data(), bins, x) != ref_edges_scan(e.data(), bins, x)) bad++;
            const float xf = (float)x; /* float x against double edges, through float edges */
            std::vector<float> ef(bins + 1);
            for (uint64_t k = 0; k <= bins; k++) ef[k] = gp__float_ceil(e[k]);
            if (gp__hist_edges_bin(ef.data(), bins, xf) != ref_edges_scan(e.data(), bins, (double)xf)) bad++;
        }
        /* out of order: still a bin in range (or not counted) */
        for (uint64_t i = 0; i <= bins; i++) e[i] = (double)(gp_t_next(&st) % 100);
        for (int i = 0; i < 100; i++) bad += gp__hist_edges_bin(e.data(), bins, (double)(gp_t_next(&st) % 100)) > bins;
    }
    EXPECT(bad == 0, "edges: %d mismatches", bad);
    EXPECT(gp__float_ceil(0.1) >= 0.1 && (double)nextafterf(gp__float_ceil(0.1), 0) < 0.1 && gp__float_ceil(1e300) == INFINITY &&
               gp__float_ceil(-1e300) == -FLT_MAX && gp__float_ceil(0.5) == 0.5f,
           "gp__float_ceil: the smallest float >= e");
}

static void check_plan_and_args(void)
{
    gp_t_section("histogram: plan and argument checks (host; nothing launched)");
    const size_t smem = 227 * 1024 - 1024;
    gp__hist_plan p = gp__hist_make_plan(0x1003, 1000, 1, 256, 0, smem);
    EXPECT(p.head == 13 && p.nvec * 16 + p.head + p.tail == 1000 && p.values && p.keys == 256 && p.lanes == 32 &&
               p.copies == 1 && p.smem_bytes == 32768 && p.merge == GP__HIST_ONE,
           "u8 at +3: head 13, values, a counter per lane, one copy, one block");
    p = gp__hist_make_plan(0x1000, (size_t)1 << 28, 1, 7, 0, smem);
    EXPECT(p.values && p.lanes == 32 && p.copies == GP__HIST_VALUE_COPIES && p.merge == GP__HIST_LAST, "u8 2^28, 7 bins: values, lane counters");
    p = gp__hist_make_plan(0x1000, (size_t)1 << 28, 1, 7, 0, 40 * 1024);
    EXPECT(p.values && p.copies == 1 && p.smem_bytes == 32768, "u8 in 40 KB of shared memory: one copy");
    p = gp__hist_make_plan(0x1004, (size_t)1 << 28, 4, 1024, 0, smem);
    EXPECT(p.head == 3 && p.keys == 1024 && p.lanes == 1 && p.copies == 8 && p.merge == GP__HIST_LAST,
           "f32 1024 bins: 8 copies, last-block merge");
    p = gp__hist_make_plan(0x1004, 1000, 8, 10, 0, smem);
    EXPECT(p.head == 1000 && p.nvec == 0, "f64 at a 4-byte boundary: element by element");
    p = gp__hist_make_plan(0x1000, 1 << 20, 2, 65536, 0, smem);
    EXPECT(p.keys == 65536 && p.half && p.copies == 1 && p.smem_bytes == 32769 * 4 && p.merge == GP__HIST_ZEROED,
           "u16 65536 bins: 16-bit counters, into a cleared output");
    p = gp__hist_make_plan(0x1000, 1 << 20, 4, 1 << 24, 0, smem);
    EXPECT(p.keys == 0 && !p.half && p.merge == GP__HIST_ZEROED, "f32 2^24 bins: global counting into a cleared output");
    {
        const gp__hsplit_plan q = gp__hsplit_make_plan((size_t)1 << 28, 1u << 24, 396);
        EXPECT(q.tiles == 16384 && q.buckets == 1024 && q.chunk == ((size_t)1 << 28) / 396 + 1 && q.max_items == 1024 + 395 + 1 &&
                   q.table_at == ((size_t)1 << 29) && q.ctl_at == q.table_at + gp__round_up(16384 * 1025 * 2, 256) &&
                   q.bytes == q.items_at + (size_t)q.max_items * 8,
               "partition plan, 2^28 values over 2^24 bins: 16384 tiles, 1024 buckets, a chunk per count block, 2 bytes a value");
        const gp__hsplit_plan r = gp__hsplit_make_plan(((size_t)1 << 40) + 3, (1u << 17) + 3, 396);
        EXPECT(r.buckets == 9 && r.chunk == GP__HSPLIT_CHUNK_MAX && r.tiles == ((size_t)1 << 26) + 1 && r.max_items == 9 + 1024 + 1,
               "partition plan, 2^40 + 3 values: a count block's share capped at 2^30 values (32-bit counters), 9 buckets for 2^17 + 3 bins");
        const gp__hsplit_plan t = gp__hsplit_make_plan(70000, 1u << 20, 396);
        EXPECT(t.tiles == 5 && t.chunk == GP__HSPLIT_TILE && t.max_items == 64 + 70000 / GP__HSPLIT_TILE + 1,
               "partition plan, few values: a chunk is at least a tile");
    }
    p = gp__hist_make_plan(0x1000, 1 << 20, 4, 40000, 40001 * 4, smem);
    EXPECT(p.keys == 40000 && p.smem_bytes == 40001 * 4, "40000 range bins: counters (and the one that takes the rest) stay, edges move to global memory");
    gp__hist_set_blocks(p, (size_t)1 << 36, 264, 132);
    EXPECT(p.blocks > ((size_t)1 << 36) >> 31, "a block counts fewer than 2^31 elements");
    {   /* bytes: 32 KB chunks; 528 resident blocks on 132 SMs */
        gp__hist_plan b = gp__hist_make_plan(0x1000, (size_t)1 << 24, 1, 256, 0, smem);
        gp__hist_set_blocks(b, (size_t)1 << 24, 528, 132, 4);
        EXPECT(b.blocks == 132, "u8, 2^24 (512 chunks): one block an SM, 4 chunks each");
        gp__hist_set_blocks(b, (size_t)1 << 24, 528, 132, 1);
        EXPECT(b.blocks == 512, "u8, 2^24, a chunk a block at the least: 512 blocks");
        b = gp__hist_make_plan(0x1000, (size_t)1 << 26, 1, 256, 0, smem);
        gp__hist_set_blocks(b, (size_t)1 << 26, 528, 132, 4);
        EXPECT(b.blocks == 512, "u8, 2^26 (2048 chunks): 512 blocks of 4 chunks");
        b = gp__hist_make_plan(0x1000, (size_t)1 << 28, 1, 256, 0, smem);
        gp__hist_set_blocks(b, (size_t)1 << 28, 528, 132, 4);
        EXPECT(b.blocks == 528, "u8, 2^28: every resident block");
        b = gp__hist_make_plan(0x1000, (size_t)1 << 20, 1, 256, 0, smem);
        gp__hist_set_blocks(b, (size_t)1 << 20, 528, 132, 4);
        EXPECT(b.blocks == 32, "u8, 2^20 (32 chunks): a block a chunk, below one an SM");
    }

    const float *x = (const float *)0x1000;
    uint64_t *h = (uint64_t *)0x100000;
    const double *ed = (const double *)0x2000;
    EXPECT(gp_histogram_even_f32(h, x, 10, 0, 0.0, 1.0, 0) == cudaErrorInvalidValue, "bins == 0");
    EXPECT(gp_histogram_even_f32(h, x, 10, ((size_t)1 << 32) + 1, 0.0, 1.0, 0) == cudaErrorInvalidValue, "bins > 2^32");
    EXPECT(gp_histogram_even_f32(h, x, 10, 4, 1.0, 1.0, 0) == cudaErrorInvalidValue, "lower == upper");
    EXPECT(gp_histogram_even_f32(h, x, 10, 4, 2.0, 1.0, 0) == cudaErrorInvalidValue, "lower > upper");
    EXPECT(gp_histogram_even_f32(h, x, 10, 4, NAN, 1.0, 0) == cudaErrorInvalidValue, "NaN lower");
    EXPECT(gp_histogram_even_f64(h, (const double *)x, 10, 4, 0.0, INFINITY, 0) == cudaErrorInvalidValue, "infinite upper");
    EXPECT(gp_histogram_even_f32(h, x, 10, 4, -INFINITY, 1.0, 0) == cudaErrorInvalidValue, "infinite lower");
    EXPECT(gp_histogram_even_u8(NULL, (const uint8_t *)x, 10, 4, 0, 256, 0) == cudaErrorInvalidValue, "NULL d_hist");
    EXPECT(gp_histogram_even_u8(NULL, NULL, 0, 4, 0, 256, 0) == cudaErrorInvalidValue, "NULL d_hist, n == 0");
    EXPECT(gp_histogram_even_i32(h, NULL, 10, 4, 0, 256, 0) == cudaErrorInvalidValue, "NULL d_in, n > 0");
    EXPECT(gp_histogram_even_i32(h, (const int32_t *)x, 10, 4, 5, -5, 0) == cudaErrorInvalidValue, "integer lower > upper");
    EXPECT(gp_histogram_range_f32(h, x, 10, NULL, 4, 0) == cudaErrorInvalidValue, "NULL d_edges, n > 0");
    EXPECT(gp_histogram_range_f32(h, x, 10, ed, 0, 0) == cudaErrorInvalidValue, "range bins == 0");
    EXPECT(gp_histogram_range_u16(NULL, (const uint16_t *)x, 10, (const int64_t *)ed, 4, 0) == cudaErrorInvalidValue,
           "range NULL d_hist");
    EXPECT(gp_histogram_even_u32(h, (const uint32_t *)(h + 1), 4, 4, 0, 4, 0) == cudaErrorInvalidValue, "d_hist overlaps d_in");
}

extern "C" void test_histogram_host(void)
{
    check_int_rule();
    check_key32();
    check_float_rule();
    check_edges_rule();
    check_float_rule_f32();
    check_cells();
    check_plan_and_args();
}

/* ---- GPU ---------------------------------------------------------------------------------------- */
#define POISON 0xA5
#define GUARD 16 /* poisoned bins after the output that must stay poisoned */

/* A user instance: i32 by residue mod 13, minus 1 (residue 0 and negatives are not counted). */
#define RES13(x) ((int64_t)(x) % 13 - 1)
GP_DEFINE_HISTOGRAM(res13, int32_t, RES13)

template <class T> struct tinfo;
template <> struct tinfo<uint8_t> { typedef int64_t L; static const char *name() { return "u8"; } };
template <> struct tinfo<uint16_t> { typedef int64_t L; static const char *name() { return "u16"; } };
template <> struct tinfo<int32_t> { typedef int64_t L; static const char *name() { return "i32"; } };
template <> struct tinfo<uint32_t> { typedef int64_t L; static const char *name() { return "u32"; } };
template <> struct tinfo<float> { typedef double L; static const char *name() { return "f32"; } };
template <> struct tinfo<double> { typedef double L; static const char *name() { return "f64"; } };

static cudaError_t even(uint64_t *h, const uint8_t *x, size_t n, size_t b, int64_t lo, int64_t hi, cudaStream_t s) { return gp_histogram_even_u8(h, x, n, b, lo, hi, s); }
static cudaError_t even(uint64_t *h, const uint16_t *x, size_t n, size_t b, int64_t lo, int64_t hi, cudaStream_t s) { return gp_histogram_even_u16(h, x, n, b, lo, hi, s); }
static cudaError_t even(uint64_t *h, const int32_t *x, size_t n, size_t b, int64_t lo, int64_t hi, cudaStream_t s) { return gp_histogram_even_i32(h, x, n, b, lo, hi, s); }
static cudaError_t even(uint64_t *h, const uint32_t *x, size_t n, size_t b, int64_t lo, int64_t hi, cudaStream_t s) { return gp_histogram_even_u32(h, x, n, b, lo, hi, s); }
static cudaError_t even(uint64_t *h, const float *x, size_t n, size_t b, double lo, double hi, cudaStream_t s) { return gp_histogram_even_f32(h, x, n, b, lo, hi, s); }
static cudaError_t even(uint64_t *h, const double *x, size_t n, size_t b, double lo, double hi, cudaStream_t s) { return gp_histogram_even_f64(h, x, n, b, lo, hi, s); }
static cudaError_t range(uint64_t *h, const uint8_t *x, size_t n, const int64_t *e, size_t b, cudaStream_t s) { return gp_histogram_range_u8(h, x, n, e, b, s); }
static cudaError_t range(uint64_t *h, const uint16_t *x, size_t n, const int64_t *e, size_t b, cudaStream_t s) { return gp_histogram_range_u16(h, x, n, e, b, s); }
static cudaError_t range(uint64_t *h, const int32_t *x, size_t n, const int64_t *e, size_t b, cudaStream_t s) { return gp_histogram_range_i32(h, x, n, e, b, s); }
static cudaError_t range(uint64_t *h, const uint32_t *x, size_t n, const int64_t *e, size_t b, cudaStream_t s) { return gp_histogram_range_u32(h, x, n, e, b, s); }
static cudaError_t range(uint64_t *h, const float *x, size_t n, const double *e, size_t b, cudaStream_t s) { return gp_histogram_range_f32(h, x, n, e, b, s); }
static cudaError_t range(uint64_t *h, const double *x, size_t n, const double *e, size_t b, cudaStream_t s) { return gp_histogram_range_f64(h, x, n, e, b, s); }

/* The even range of a type for a bins count: bytes [0, 256), u16 [0, 65536), i32 a wide signed
 * range, u32 [0, 2^32), floats [-1, 1) (+ 0.25, so -0.0 and 0 are not on an edge). */
template <class T> static void bounds(typename tinfo<T>::L &lo, typename tinfo<T>::L &hi)
{
    if (std::is_same<T, uint8_t>::value) { lo = 0; hi = 256; }
    else if (std::is_same<T, uint16_t>::value) { lo = 0; hi = 65536; }
    else if (std::is_same<T, int32_t>::value) { lo = (typename tinfo<T>::L)INT32_MIN; hi = (typename tinfo<T>::L)((int64_t)1 << 31); }
    else if (std::is_same<T, uint32_t>::value) { lo = 0; hi = (typename tinfo<T>::L)((int64_t)1 << 32); }
    else { lo = (typename tinfo<T>::L)-1.25; hi = (typename tinfo<T>::L)1.0; }
}

/* Random x: mostly inside the range, some at bin edges, some outside; floats add NaN, +-inf,
 * -0.0, lower, upper and just below upper. `one`: every element the same. */
template <class T> static T draw(uint64_t *st, double lo, double hi, size_t bins, int one)
{
    const uint64_t r = one ? 0x12345 : gp_t_next(st);
    const double w = hi - lo;
    if (std::is_floating_point<T>::value) {
        switch (r % 16) {
        case 0: { const double v[] = {NAN, INFINITY, -INFINITY, -0.0, lo, hi, nextafter(hi, -INFINITY), (double)nextafterf((float)hi, -INFINITY)};
                  return (T)v[(r >> 8) % 8]; }
        case 1: return (T)(lo + (double)((r >> 8) % bins) * (w / (double)bins)); /* at an edge */
        case 2: return (T)(lo - w + 3 * w * (double)(r >> 11) * 0x1p-53);
        default: return (T)(lo + w * (double)(r >> 11) * 0x1p-53);
        }
    }
    if (r % 16 == 0) return (T)(r >> 16); /* anything */
    if (r % 16 == 1) { /* the first value of a bin */
        const unsigned __int128 k = (r >> 8) % bins, range = (unsigned __int128)((__int128)hi - (__int128)lo);
        return (T)((__int128)lo + (__int128)((k * range + bins - 1) / bins));
    }
    const double u = (double)(r >> 11) * 0x1p-53;
    return (T)(int64_t)floor(lo + u * w);
}

struct gpu_fix {
    unsigned char *d_in;  /* input, room for max_n + 1 elements of 8 bytes */
    uint64_t *d_hist;     /* room for max_bins + GUARD */
    void *d_edges;
    size_t max_n, max_bins;
};

template <class T>
static int run_one(gpu_fix &f, const std::vector<T> &x, size_t offset, size_t bins, int use_range, const std::vector<typename tinfo<T>::L> &edges,
                   typename tinfo<T>::L lo, typename tinfo<T>::L hi)
{
    typedef typename tinfo<T>::L L;
    const size_t n = x.size();
    T *d_x = (T *)f.d_in + offset;
    if (n) CUDA_CHK(cudaMemcpy(d_x, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(f.d_hist, POISON, (bins + GUARD) * 8));
    if (use_range) CUDA_CHK(cudaMemcpy(f.d_edges, edges.data(), (bins + 1) * sizeof(L), cudaMemcpyHostToDevice));
    const cudaError_t err = use_range ? range(f.d_hist, d_x, n, (const L *)f.d_edges, bins, 0) : even(f.d_hist, d_x, n, bins, lo, hi, 0);
    std::vector<uint64_t> want(bins + GUARD, 0), got(bins + GUARD);
    memset(&want[bins], POISON, GUARD * 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t b;
        if (use_range) b = ref_edges<L>(edges.data(), bins, (L)x[i]);
        else if (std::is_floating_point<T>::value) b = ref_even_float((double)lo, (double)hi, bins, (double)x[i]);
        else b = ref_even_int((int64_t)lo, (int64_t)hi, bins, (int64_t)x[i]);
        if (b < bins) want[b]++;
    }
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(got.data(), f.d_hist, (bins + GUARD) * 8, cudaMemcpyDeviceToHost));
    const int ok = err == cudaSuccess && memcmp(got.data(), want.data(), (bins + GUARD) * 8) == 0;
    if (!ok) {
        size_t k = 0;
        while (k < bins + GUARD && got[k] == want[k]) k++;
        EXPECT(0, "%s %s n=%zu offset=%zu bins=%zu: %s; first difference at bin %zu: %llu, want %llu", tinfo<T>::name(),
               use_range ? "range" : "even", n, offset, bins, cudaGetErrorName(err), k,
               (unsigned long long)(k < bins + GUARD ? got[k] : 0), (unsigned long long)(k < bins + GUARD ? want[k] : 0));
    }
    return ok;
}

template <class T>
static void check_type(gpu_fix &f)
{
    typedef typename tinfo<T>::L L;
    uint64_t st = gp_t_state(10 + sizeof(T) * 3 + std::is_floating_point<T>::value);
    const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 70001, 1048573, (1u << 24) + 7};
    const size_t bin_counts[] = {1, 7, 256, 1024, 4096, 8193, 65536, 100003};
    int cases = 0, fails = 0;
    L lo, hi;
    bounds<T>(lo, hi);
    for (size_t bi = 0; bi < sizeof bin_counts / sizeof *bin_counts; bi++) {
        const size_t bins = bin_counts[bi];
        if (bins > f.max_bins) continue;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            const size_t n = sizes[si];
            if (n > f.max_n) continue;
            if (n > 70001 && bins != 256 && bins != 1024 && bins != 65536) continue; /* the big sizes at a few bins */
            for (int use_range = 0; use_range <= 1; use_range++) {
                std::vector<L> edges(bins + 1);
                L elo = lo, ehi = hi;
                if (use_range) { /* ascending edges over the range, uneven widths */
                    const double w = (double)hi - (double)lo;
                    double pos = (double)lo;
                    for (size_t k = 0; k <= bins; k++) {
                        edges[k] = (L)pos;
                        if (k && !(edges[k] > edges[k - 1])) edges[k] = edges[k - 1] + (std::is_floating_point<L>::value ? (L)1e-9 : (L)1);
                        pos += w / (double)bins * (0.5 + (double)(gp_t_next(&st) % 1000) / 1000.0);
                    }
                    elo = edges[0];
                    ehi = edges[bins];
                }
                const int one = si == 7 && bi == 2; /* one value everywhere */
                std::vector<T> x(n);
                for (size_t i = 0; i < n; i++) x[i] = draw<T>(&st, (double)elo, (double)ehi, bins, one);
                for (size_t offset = 0; offset <= 1; offset++) {
                    if (n > 70001 && offset) continue;
                    fails += !run_one<T>(f, x, offset, bins, use_range, edges, lo, hi);
                    cases++;
                }
            }
        }
    }
    printf("  %-4s %d cases, %d failed\n", tinfo<T>::name(), cases, fails);
}

/* Even integer bins over ranges that are not the type's own (the kernel's 32-bit keys, and
 * the exact rule where those are not exact): inside the type, below it, past it, wider than
 * 2^32, outside it; x over the whole type and at the range's ends. */
template <class T>
static void check_int_ranges(gpu_fix &f)
{
    typedef typename tinfo<T>::L L;
    uint64_t st = gp_t_state(40 + sizeof(T));
    const int64_t tmin = (int64_t)std::numeric_limits<T>::min(), tmax = (int64_t)std::numeric_limits<T>::max();
    struct { int64_t lo, hi; size_t bins; } cases[] = {
        {1000, 1000 + 4096, 256},                      /* inside: x below lower not counted */
        {-65536, 65536, 65536},                        /* starts below (u16: 16-bit counters) */
        {tmin - 4096, tmin - 4096 + 16 * 4096, 16},    /* starts below the type's minimum */
        {tmax - 4095, tmax - 4095 + (1 << 20), 256},   /* ends past the type's maximum */
        {-((int64_t)1 << 40), (int64_t)1 << 40, 1024}, /* wider than 2^32: the exact rule */
        {tmax + 1, tmax + 1 + 64, 64},                 /* above every x: nothing counted */
        {-5, 3, 8}};
    const size_t n = 70001;
    int fails = 0, cases_run = 0;
    for (const auto &c : cases) {
        if (c.bins > f.max_bins) continue;
        std::vector<T> x(n);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = gp_t_next(&st);
            const int64_t near[] = {c.lo - 1, c.lo, c.hi - 1, c.hi, tmin, tmax};
            int64_t v = r % 4 == 0 ? near[(r >> 8) % 6] : r % 4 == 1 ? c.lo + (int64_t)((r >> 8) % 8192) - 4096
                                                                      : tmin + (int64_t)((r >> 8) % (uint64_t)(tmax - tmin + 1));
            if (v < tmin || v > tmax) v = tmin + (int64_t)((r >> 20) % (uint64_t)(tmax - tmin + 1));
            x[i] = (T)v;
        }
        fails += !run_one<T>(f, x, 0, c.bins, 0, std::vector<L>(), (L)c.lo, (L)c.hi);
        fails += !run_one<T>(f, x, 1, c.bins, 0, std::vector<L>(), (L)c.lo, (L)c.hi);
        cases_run += 2;
    }
    EXPECT(fails == 0, "%s even bins over 7 ranges not the type's own (%d calls), against the host", tinfo<T>::name(), cases_run);
}

/* The user instance, and the block level in a kernel of ours. */
__global__ void block_res13(uint64_t *d_hist, const int32_t *x, size_t n)
{
    __shared__ uint32_t s[13];
    gp_block_histogram_zero(s, 13);
    int32_t items[4];
    int count = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x * 4; count < 4 && i + count < n; ) { items[count] = x[i + count]; count++; }
    gp_block_histogram_res13(s, 13, items, count);
    __syncthreads();
    gp_block_histogram_flush(d_hist, s, 13);
}

static void check_user(gpu_fix &f)
{
    uint64_t st = gp_t_state(30);
    const size_t n = gp_t_small() ? 100003 : 3000017;
    std::vector<int32_t> x(n);
    for (size_t i = 0; i < n; i++) x[i] = (int32_t)gp_t_next(&st);
    std::vector<uint64_t> want(13 + GUARD, 0), got(13 + GUARD);
    memset(&want[13], POISON, GUARD * 8);
    for (size_t i = 0; i < n; i++) {
        const int64_t b = (int64_t)x[i] % 13 - 1;
        if (b >= 0 && b < 13) want[b]++;
    }
    for (size_t offset = 0; offset <= 1; offset++) {
        CUDA_CHK(cudaMemcpy((int32_t *)f.d_in + offset, x.data(), n * 4, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemset(f.d_hist, POISON, (13 + GUARD) * 8));
        EXPECT(gp_histogram_res13(f.d_hist, (const int32_t *)f.d_in + offset, n, 13, 0) == cudaSuccess, "user instance call");
        CUDA_CHK(cudaMemcpy(got.data(), f.d_hist, (13 + GUARD) * 8, cudaMemcpyDeviceToHost));
        EXPECT(memcmp(got.data(), want.data(), (13 + GUARD) * 8) == 0, "GP_DEFINE_HISTOGRAM(res13): n=%zu offset %zu", n, offset);
    }
    CUDA_CHK(cudaMemcpy(f.d_in, x.data(), n * 4, cudaMemcpyHostToDevice)); /* at offset 0 again */
    CUDA_CHK(cudaMemset(f.d_hist, 0, 13 * 8));
    block_res13<<<(unsigned)((n + 1023) / 1024), 256>>>(f.d_hist, (const int32_t *)f.d_in, n);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(got.data(), f.d_hist, 13 * 8, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(got.data(), want.data(), 13 * 8) == 0, "gp_block_histogram_res13 + zero + flush in a kernel of ours");
    /* n == 0 zeroes the output */
    CUDA_CHK(cudaMemset(f.d_hist, POISON, (13 + GUARD) * 8));
    EXPECT(gp_histogram_res13(f.d_hist, NULL, 0, 13, 0) == cudaSuccess, "n == 0, NULL d_in");
    CUDA_CHK(cudaMemcpy(got.data(), f.d_hist, (13 + GUARD) * 8, cudaMemcpyDeviceToHost));
    int zero = 1;
    for (int k = 0; k < 13; k++) zero &= got[k] == 0;
    EXPECT(zero && got[13] == want[13], "n == 0: d_hist zeroed, nothing past it");
}

/* Past shared memory (the partition, histogram_split.cuh): bins from 2^17 + 3 (a last
 * bucket that is partial) to 2^24, even and range, against the host reference; n at the
 * threshold, a partial last tile, misaligned; one value everywhere (one bucket shared by the
 * whole GPU), two hot values in different buckets; a user instance. */
#define MOD300007(x) ((int64_t)(x) % 300011 - 3)
GP_DEFINE_HISTOGRAM(mod300007, int32_t, MOD300007)

template <class T>
static void check_split_type(gpu_fix &f, size_t bins, size_t n, int use_range, int hot, uint64_t *st, int pow2 = 0)
{
    typedef typename tinfo<T>::L L;
    L lo, hi;
    bounds<T>(lo, hi);
    if (pow2) { /* floats over [-1, 1): a width of 2, the rule without a division */
        lo = (L)-1;
        hi = (L)1;
    }
    std::vector<L> edges(use_range ? bins + 1 : 0);
    if (use_range) {
        const double w = (double)hi - (double)lo;
        for (size_t k = 0; k <= bins; k++) edges[k] = (L)((double)lo + w * (double)k / (double)bins);
        lo = edges[0];
        hi = edges[bins];
    }
    std::vector<T> x(n);
    for (size_t i = 0; i < n; i++) x[i] = draw<T>(st, (double)lo, (double)hi, bins, hot == 1);
    if (hot == 2) /* two values take 3/4 of the elements, in buckets far apart */
        for (size_t i = 0; i < n; i++)
            if (i % 4) x[i] = i % 4 == 1 ? x[0] : x[1];
    int fails = 0;
    for (size_t offset = 0; offset <= (n % 2); offset++) fails += !run_one<T>(f, x, offset, bins, use_range, edges, lo, hi);
    EXPECT(fails == 0, "%s %s [%g, %g), %zu bins, n=%zu%s: partitioned, against the host", tinfo<T>::name(),
           use_range ? "range" : "even", (double)lo, (double)hi, bins, n, hot == 1 ? ", one value" : hot == 2 ? ", two hot values" : "");
}

static void check_split(void)
{
    const int small = gp_t_small();
    const size_t max_bins = small ? (1u << 20) : (1u << 24), max_n = small ? 1048573 : (1u << 24) + 7;
    gpu_fix f;
    f.max_n = max_n;
    f.max_bins = max_bins;
    CUDA_CHK(cudaMalloc(&f.d_in, (max_n + 4) * 8));
    CUDA_CHK(cudaMalloc(&f.d_hist, (max_bins + GUARD) * 8));
    CUDA_CHK(cudaMalloc(&f.d_edges, ((1u << 18) + 1) * 8));
    uint64_t st = gp_t_state(70);
    check_split_type<float>(f, (1u << 17) + 3, GP__HSPLIT_MIN_N, 0, 0, &st);
    check_split_type<float>(f, (1u << 17) + 3, 1048573, 0, 0, &st);
    check_split_type<float>(f, 1u << 20, 1048573, 0, 1, &st);
    check_split_type<float>(f, 1u << 20, 1048573, 0, 2, &st);
    check_split_type<uint32_t>(f, 1u << 20, 1048573, 0, 0, &st);
    check_split_type<int32_t>(f, 1000003, 1048573, 0, 0, &st);
    check_split_type<uint16_t>(f, 1u << 17, 1048573, 0, 2, &st);
    check_split_type<double>(f, (1u << 18), 1048573, 1, 0, &st);
    check_split_type<float>(f, 1u << 20, 1048573, 0, 0, &st, 1);
    check_split_type<float>(f, (1u << 19) + 5, 1048573, 0, 1, &st, 1);
    check_split_type<double>(f, 1u << 20, 1048573, 0, 0, &st, 1);
    if (!small) {
        check_split_type<float>(f, 1u << 24, (1u << 24) + 7, 0, 0, &st);
        check_split_type<float>(f, 1u << 24, (1u << 24) + 7, 0, 0, &st, 1);
        check_split_type<float>(f, 1u << 24, (1u << 24) + 7, 0, 1, &st);
        check_split_type<double>(f, 3u << 22, (1u << 24) + 7, 0, 2, &st);
    }
    /* a user instance: residues mod 300011, minus 3 (some negative, some at or past bins) */
    const size_t n = 1048573, bins = 300007;
    std::vector<int32_t> x(n);
    for (size_t i = 0; i < n; i++) x[i] = (int32_t)gp_t_next(&st);
    std::vector<uint64_t> want(bins + GUARD, 0), got(bins + GUARD);
    memset(&want[bins], POISON, GUARD * 8);
    for (size_t i = 0; i < n; i++) {
        const int64_t b = (int64_t)x[i] % 300011 - 3;
        if (b >= 0 && b < (int64_t)bins) want[b]++;
    }
    CUDA_CHK(cudaMemcpy(f.d_in, x.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(f.d_hist, POISON, (bins + GUARD) * 8));
    EXPECT(gp_histogram_mod300007(f.d_hist, (const int32_t *)f.d_in, n, bins, 0) == cudaSuccess, "user instance, 300007 bins: call");
    CUDA_CHK(cudaMemcpy(got.data(), f.d_hist, (bins + GUARD) * 8, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(got.data(), want.data(), (bins + GUARD) * 8) == 0, "GP_DEFINE_HISTOGRAM(mod300007), 300007 bins, n=%zu: partitioned", n);
    CUDA_CHK(cudaFree(f.d_in));
    CUDA_CHK(cudaFree(f.d_hist));
    CUDA_CHK(cudaFree(f.d_edges));
}

struct det_ctx { const float *x; size_t n; };
static void det_k(void *ctx, int k, void *d_out, cudaStream_t s)
{
    const det_ctx *c = (const det_ctx *)ctx;
    CUDA_CHK(gp_histogram_even_f32((uint64_t *)d_out, c->x + (size_t)k * c->n, c->n, 2, -1.0, 1.0, s));
}

__global__ void fill_byte_hash(uint8_t *x, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x[i] = (uint8_t)hash32(i, key);
}

__global__ void fill_u32_const(uint32_t *x, size_t n, uint32_t v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x[i] = v;
}

static void check_large(void)
{
    /* 2^32 + 5 copies of one byte: above 2^31 elements, a count above 2^32 in one bin */
    const size_t n = ((size_t)1 << 32) + 5;
    uint8_t *d_x;
    uint64_t *d_h;
    if (cudaMalloc(&d_x, n + 64) != cudaSuccess) {
        cudaGetLastError();
        gp_t_skip("histogram: 2^32 + 5 bytes need 4.3 GB of device memory");
        return;
    }
    CUDA_CHK(cudaMalloc(&d_h, (256 + GUARD) * 8));
    CUDA_CHK(cudaMemset(d_x, 77, n + 64));
    CUDA_CHK(cudaMemset(d_h, POISON, (256 + GUARD) * 8));
    EXPECT(gp_histogram_even_u8(d_h, d_x + 1, n, 256, 0, 256, 0) == cudaSuccess, "2^32 + 5 bytes: call");
    std::vector<uint64_t> got(256 + GUARD);
    CUDA_CHK(cudaMemcpy(got.data(), d_h, (256 + GUARD) * 8, cudaMemcpyDeviceToHost));
    int ok = got[77] == n;
    for (int k = 0; k < 256; k++) ok &= k == 77 || got[k] == 0;
    unsigned char poison[8];
    memset(poison, POISON, 8);
    ok &= memcmp(&got[256], poison, 8) == 0;
    EXPECT(ok, "2^32 + 5 copies of byte 77 (misaligned): bin 77 = %llu, want %zu", (unsigned long long)got[77], n);
    /* the same count over 7 bins of a hashed input: every element counted once */
    fill_byte_hash<<<4096, 256>>>(d_x, n, 99);
    CUDA_CHK_LAUNCH();
    EXPECT(gp_histogram_even_u8(d_h, d_x, n, 7, 0, 256, 0) == cudaSuccess, "2^32 + 5 hashed bytes, 7 bins: call");
    CUDA_CHK(cudaMemcpy(got.data(), d_h, 7 * 8, cudaMemcpyDeviceToHost));
    uint64_t sum = 0;
    ok = 1;
    for (int k = 0; k < 7; k++) { sum += got[k]; ok &= got[k] > n / 8 && got[k] < n / 6; }
    uint64_t spot = 0; /* bin 0 of the first 2^20 elements, against the host */
    std::vector<uint8_t> h(1 << 20);
    for (size_t i = 0; i < h.size(); i++) spot += ref_even_int(0, 256, 7, (uint8_t)hash32(i, 99)) == 0;
    EXPECT(gp_histogram_even_u8(d_h + 8, d_x, 1 << 20, 7, 0, 256, 0) == cudaSuccess, "spot call");
    uint64_t got0;
    CUDA_CHK(cudaMemcpy(&got0, d_h + 8, 8, cudaMemcpyDeviceToHost));
    EXPECT(ok && sum == n && got0 == spot, "2^32 + 5 hashed bytes over 7 bins: total %llu (want %zu), spot %llu/%llu", (unsigned long long)sum,
           n, (unsigned long long)got0, (unsigned long long)spot);
    CUDA_CHK(cudaFree(d_x));
    CUDA_CHK(cudaFree(d_h));

    /* partitioned: 2^32 + 5 copies of one u32 over 2^20 bins, a count above 2^32 in one bin,
     * its bucket shared by the whole GPU */
    {
        const size_t m = ((size_t)1 << 32) + 5, hb = (size_t)1 << 20;
        uint32_t *d_u;
        uint64_t *d_hh;
        if (cudaMalloc(&d_u, m * 4) != cudaSuccess) {
            cudaGetLastError();
            gp_t_skip("histogram: 2^32 + 5 u32 values need 17 GB of device memory");
        } else {
            CUDA_CHK(cudaMalloc(&d_hh, (hb + GUARD) * 8));
            CUDA_CHK(cudaMemset(d_hh, POISON, (hb + GUARD) * 8));
            fill_u32_const<<<4096, 256>>>(d_u, m, 123457u);
            CUDA_CHK_LAUNCH();
            const cudaError_t e = gp_histogram_even_u32(d_hh, d_u, m, hb, 0, (int64_t)hb, 0);
            std::vector<uint64_t> g(hb + GUARD);
            CUDA_CHK(cudaMemcpy(g.data(), d_hh, (hb + GUARD) * 8, cudaMemcpyDeviceToHost));
            int good = e == cudaSuccess && g[123457] == m;
            for (size_t k = 0; k < hb; k++) good &= k == 123457 || g[k] == 0;
            unsigned char p8[8];
            memset(p8, POISON, 8);
            good &= memcmp(&g[hb], p8, 8) == 0;
            EXPECT(good, "2^32 + 5 copies of one u32 over 2^20 bins (partitioned): %s, bin 123457 = %llu, want %zu",
                   cudaGetErrorName(e), (unsigned long long)g[123457], m);
            CUDA_CHK(cudaFree(d_hh));
            CUDA_CHK(cudaFree(d_u));
        }
    }

    /* u32 over 2^32 - 1 bins of [0, 2^32): a 32 GiB histogram, global counting */
    const size_t bins = 0xffffffffull, m = 100003;
    uint64_t *d_big;
    uint32_t *d_u;
    if (cudaMalloc(&d_big, bins * 8) != cudaSuccess) {
        cudaGetLastError();
        gp_t_skip("histogram: u32 over 2^32 - 1 bins needs 34 GB of device memory");
        return;
    }
    CUDA_CHK(cudaMalloc(&d_u, m * 4));
    uint64_t st = gp_t_state(40);
    std::vector<uint32_t> x(m);
    static const uint32_t ends[6] = {0, 1, 0xffffffffu, 0xfffffffeu, 0x80000000u, 0x7fffffffu};
    for (size_t i = 0; i < m; i++) x[i] = i < 6 ? ends[i] : (uint32_t)gp_t_next(&st);
    CUDA_CHK(cudaMemcpy(d_u, x.data(), m * 4, cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d_big, POISON, bins * 8));
    EXPECT(gp_histogram_even_u32(d_big, d_u, m, bins, 0, (int64_t)1 << 32, 0) == cudaSuccess, "u32, 2^32 - 1 bins: call");
    uint64_t *d_sum;
    CUDA_CHK(cudaMalloc(&d_sum, 8));
    CUDA_CHK(gp_reduce_sum_u64(d_sum, d_big, bins, 0));
    uint64_t total;
    CUDA_CHK(cudaMemcpy(&total, d_sum, 8, cudaMemcpyDeviceToHost));
    ok = total == m;
    for (size_t i = 0; i < 64; i++) {
        const uint64_t b = ref_even_int(0, (int64_t)1 << 32, bins, x[i]);
        uint64_t c, want = 0;
        for (size_t j = 0; j < m; j++) want += ref_even_int(0, (int64_t)1 << 32, bins, x[j]) == b;
        CUDA_CHK(cudaMemcpy(&c, d_big + b, 8, cudaMemcpyDeviceToHost));
        ok &= c == want;
    }
    EXPECT(ok, "u32 over 2^32 - 1 bins: total %llu (want %zu), the bins of 64 elements (0, 2^32 - 1, ...) exact",
           (unsigned long long)total, m);
    CUDA_CHK(cudaFree(d_sum));
    CUDA_CHK(cudaFree(d_u));
    CUDA_CHK(cudaFree(d_big));
}

/* 16-bit counters (65536 bins): three elements in four the same value, so that counters
 * pass 2^15 and flush many times per block, the rest random; u16 and f32. */
template <class T>
static void check_half(gpu_fix &f)
{
    const size_t n = f.max_n, bins = 65536;
    uint64_t st = gp_t_state(60 + sizeof(T));
    std::vector<T> x(n);
    std::vector<uint64_t> want(bins + GUARD, 0), got(bins + GUARD);
    memset(&want[bins], POISON, GUARD * 8);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = gp_t_next(&st);
        if (std::is_same<T, float>::value) x[i] = (T)((r & 3) ? 0.3125 : (double)(r >> 40) * 0x1p-24);
        else x[i] = (T)((r & 3) ? 4242 : r >> 48);
        const uint64_t b = std::is_same<T, float>::value ? ref_even_float(0, 1, bins, (double)x[i]) : ref_even_int(0, 65536, bins, (int64_t)x[i]);
        if (b < bins) want[b]++;
    }
    uint64_t *d_hist; /* f.d_hist is smaller under the sanitizers */
    CUDA_CHK(cudaMalloc(&d_hist, (bins + GUARD) * 8));
    CUDA_CHK(cudaMemcpy(f.d_in, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHK(cudaMemset(d_hist, POISON, (bins + GUARD) * 8));
    const cudaError_t err = std::is_same<T, float>::value
                                ? gp_histogram_even_f32(d_hist, (const float *)f.d_in, n, bins, 0.0, 1.0, 0)
                                : gp_histogram_even_u16(d_hist, (const uint16_t *)f.d_in, n, bins, 0, 65536, 0);
    CUDA_CHK(cudaMemcpy(got.data(), d_hist, (bins + GUARD) * 8, cudaMemcpyDeviceToHost));
    CUDA_CHK(cudaFree(d_hist));
    EXPECT(err == cudaSuccess && memcmp(got.data(), want.data(), (bins + GUARD) * 8) == 0,
           "%s, 65536 bins (16-bit counters), n=%zu, 3/4 one value: %s", tinfo<T>::name(), n, cudaGetErrorName(err));
}

extern "C" void test_histogram_gpu(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("histogram: every default instance, even and range, on the GPU");
        gp_t_skip("histogram: even integer bins over ranges not the type's own");
        gp_t_skip("histogram: user instance, block level, determinism, streams");
        gp_t_skip("histogram: past shared memory, partitioned by bin");
        gp_t_skip("histogram: 2^32 + 5 bytes, u32 over 2^32 - 1 bins");
        return;
    }
    gpu_fix f;
    f.max_n = gp_t_small() ? 1048573 : (1u << 24) + 7;
    f.max_bins = gp_t_small() ? 8193 : 100003;
    CUDA_CHK(cudaMalloc(&f.d_in, (f.max_n + 4) * 8));
    CUDA_CHK(cudaMalloc(&f.d_hist, (f.max_bins + GUARD) * 8));
    CUDA_CHK(cudaMalloc(&f.d_edges, (f.max_bins + 1) * 8));
    gp_t_section("histogram: default instances against the host reference");
    check_type<uint8_t>(f);
    check_type<uint16_t>(f);
    check_type<int32_t>(f);
    check_type<uint32_t>(f);
    check_type<float>(f);
    check_type<double>(f);
    gp_t_section("histogram: even integer bins over ranges not the type's own");
    check_int_ranges<uint16_t>(f);
    check_int_ranges<int32_t>(f);
    check_int_ranges<uint32_t>(f);
    gp_t_section("histogram: 16-bit counters flushed as they fill");
    check_half<uint16_t>(f);
    check_half<float>(f);
    gp_t_section("histogram: user instance, block level, determinism, streams");
    check_user(f);
    gp_t_section("histogram: past shared memory, partitioned by bin");
    check_split();
    {
        const size_t n = gp_t_small() ? 100003 : (1u << 22) + 3;
        uint64_t st = gp_t_state(50);
        std::vector<float> x(4 * n);
        for (size_t i = 0; i < x.size(); i++) x[i] = (float)((double)(gp_t_next(&st) >> 11) * 0x1p-52 - 1.0);
        CUDA_CHK(cudaMemcpy(f.d_in, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        det_ctx c = {(const float *)f.d_in, n};
        gp_t_check_streams("histogram even f32, 2 bins", 16, det_k, &c);
    }
    CUDA_CHK(cudaFree(f.d_in));
    CUDA_CHK(cudaFree(f.d_hist));
    CUDA_CHK(cudaFree(f.d_edges));
    if (gp_t_small()) {
        gp_t_skip("histogram: 2^32 + 5 bytes, u32 over 2^32 - 1 bins (small sizes)");
        return;
    }
    gp_t_section("histogram: above 2^31 elements, above 2^32 in a bin, 2^32 - 1 bins");
    check_large();
}
