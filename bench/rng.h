/* bench/rng.h -- the benches' host random numbers: splitmix64 (Steele, Lea & Flood, 2014),
 * a fixed seed so that every run draws the same inputs. */
#ifndef GP_BENCH_RNG_H
#define GP_BENCH_RNG_H

#include <stdint.h>

static inline uint64_t gp_bench_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif /* GP_BENCH_RNG_H */
