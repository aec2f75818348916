/* tests/stress/family_util.h -- what the families' stress files share (C++): the poison and
 * guard sizes, a bounded random draw, a clock, the edge-biased size pickers, a guarded
 * output region, a CUDA call's check and the type suffixes. */
#ifndef GPUPRIMS_TESTS_STRESS_FAMILY_UTIL_H
#define GPUPRIMS_TESTS_STRESS_FAMILY_UTIL_H

#include <chrono>
#include <initializer_list>
#include <vector>
#include <type_traits>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "../harness.h"
#include "families.h"

namespace family {

const uint8_t POISON = 0xA7; /* every output byte before the call */
const size_t GUARD = 64;     /* poisoned bytes before and after every output */

/* A draw in [0, m) (0 when m == 0). */
inline uint64_t below(uint64_t *st, uint64_t m) { return m ? gp_t_next(st) % m : 0; }

inline double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/* n biased to where the kernels change behaviour: 0-2 (1 in 10), small primes (1 in 10),
 * within 2 of a small multiple of one of `edges` (1 in 4: warps, tiles, one-block limits),
 * else log-uniform up to 2^common_lg; one case in `rare` instead from 2^common_lg up to
 * `cap`. Never above cap. */
inline size_t pick_n(uint64_t *st, const size_t *edges, size_t n_edges, int common_lg, unsigned rare, size_t cap)
{
    static const size_t primes[] = {3, 5, 7, 13, 31, 61, 127, 251, 509, 1021, 2039, 4093, 8191, 65521, 1048573};
    const uint64_t r = below(st, 100);
    size_t n;
    const size_t common = (size_t)1 << common_lg;
    if (below(st, rare) == 0) n = cap > common ? common + below(st, cap - common + 1) : cap;
    else if (r < 10) n = below(st, 3);
    else if (r < 20) n = primes[below(st, sizeof primes / sizeof *primes)];
    else if (r < 45) n = edges[below(st, n_edges)] * (1 + below(st, 8)) + below(st, 5) - 2;
    else n = below(st, (uint64_t)1 << (1 + below(st, common_lg)));
    return n < cap ? n : cap;
}

/* Sizes near the warp, the tiles (4096 4-byte items) and 2^16, up to 2^24, 1 in 33 up to
 * cap: the compaction's and the segments' cases. */
inline size_t pick_n(uint64_t *st, size_t cap)
{
    static const size_t edges[] = {32, 1024, 2048, 4096, 8192, 16384, 65536};
    return pick_n(st, edges, sizeof edges / sizeof *edges, 24, 33, cap);
}

/* A device output with guards: GUARD poison, `lead` more poison (the misalignment), `bytes`
 * of data, GUARD poison. */
struct region {
    uint8_t *base;
    size_t lead, bytes;
    uint8_t *data() const { return base + GUARD + lead; }
    size_t span() const { return 2 * GUARD + lead + bytes; }
};

/* Checks a copy of a region: guards poisoned, data[0, ref_bytes) == ref, and the rest of the
 * data equal to `tail` (the same offsets as data; NULL: still poison). Describes the first
 * wrong byte in `why`. */
inline bool region_ok(const std::vector<uint8_t> &got, const region &r, const void *ref, size_t ref_bytes,
               const void *tail, char *why, size_t cap)
{
    const uint8_t *d = got.data() + GUARD + r.lead, *w = (const uint8_t *)ref, *t = (const uint8_t *)tail;
    for (size_t i = 0; i < GUARD + r.lead; i++)
        if (got[i] != POISON) return snprintf(why, cap, "guard byte %zu before the output written", GUARD + r.lead - i), false;
    if (ref_bytes && memcmp(d, w, ref_bytes) != 0)
        for (size_t i = 0; i < ref_bytes; i++)
            if (d[i] != w[i]) return snprintf(why, cap, "result byte %zu: 0x%02x, want 0x%02x", i, d[i], w[i]), false;
    for (size_t i = ref_bytes; i < r.bytes; i++)
        if (d[i] != (t ? t[i] : POISON)) return snprintf(why, cap, "byte %zu past the count changed", i), false;
    for (size_t i = 0; i < GUARD; i++)
        if (d[r.bytes + i] != POISON) return snprintf(why, cap, "guard byte %zu after the output written", i), false;
    return true;
}

/* Appends v's bytes (a reference output built as bytes). */
template <class V>
inline void put(std::vector<uint8_t> &b, V v)
{
    const size_t at = b.size();
    b.resize(at + sizeof v);
    memcpy(b.data() + at, &v, sizeof v);
}

/* A CUDA call's error as a failed check naming the case; true when it succeeded. */
inline bool cuda_ok(cudaError_t e, const char *what, const char *desc)
{
    if (e != cudaSuccess) FEXPECT(0, "%s: %s: %s", desc, what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* The library's suffix of a 4- or 8-byte element type. */
template <class T>
const char *type_name()
{
    const bool four = sizeof(T) == 4;
    if (std::is_floating_point<T>::value) return four ? "f32" : "f64";
    return std::is_signed<T>::value ? (four ? "i32" : "i64") : (four ? "u32" : "u64");
}

/* The state of case `id` of a run: the run's seed and the case number, mixed once. */
inline uint64_t case_state(uint64_t seed, uint64_t id)
{
    uint64_t st = seed ^ (id * 0x9E3779B97F4A7C15ull);
    gp_t_next(&st);
    return st;
}

/* After calls that must write nothing (the device synced): each buffer still holds `span`
 * poison bytes. */
inline void expect_untouched(std::initializer_list<uint8_t *> bufs, size_t span, const char *what, const char *replay)
{
    std::vector<uint8_t> h(span);
    for (uint8_t *p : bufs) {
        cuda_ok(cudaMemcpy(h.data(), p, span, cudaMemcpyDeviceToHost), "copy back", what);
        size_t i = 0;
        while (i < span && h[i] == POISON) i++;
        FEXPECT(i == span, "%s: a rejected or empty call wrote byte %zu of an output; replay: %s", what, i - GUARD, replay);
    }
}

/* The section's loop, the same for every family: case 0, 1, ... by `one(id, st, &wrong)`,
 * where st is the case's random state (case_state: the run's seed and the case number), which
 * adds the case's wrong results to `wrong` and returns false only on a CUDA error (the
 * context may be broken: the section stops). Runs for ctx->seconds, at least 8 cases, and
 * stops after 10 wrong ones (one bug, not a flood); then one counted check and the line
 * "  <name>: N cases in T s, W wrong". `beat` is a string literal for the watchdog. */
template <class OneCase>
inline void run_cases(const stress_family_ctx *ctx, const char *name, const char *beat, OneCase one)
{
    const uint64_t min_cases = 8, max_wrong = 10;
    const double t0 = now_s();
    uint64_t cases = 0, wrong = 0;
    bool ok = true;
    for (; ok && wrong < max_wrong && (cases < min_cases || now_s() - t0 < ctx->seconds); cases++) {
        ctx->beat(beat);
        ok = one(cases, case_state(ctx->seed, cases), &wrong);
    }
    const double took = now_s() - t0;
    FEXPECT(ok && wrong == 0, "%s stress: %llu cases in %.1f s, %llu wrong%s; replay: GP_TEST_SEED=%llu build/tests/stress --only %s",
            name, (unsigned long long)cases, took, (unsigned long long)wrong,
            !ok ? " (stopped at a CUDA error)" : wrong >= max_wrong ? " (stopped early)" : "", (unsigned long long)ctx->seed, name);
    printf("  %s: %llu cases in %.1f s, %llu wrong\n", name, (unsigned long long)cases, took, (unsigned long long)wrong);
}

} // namespace family

#endif
