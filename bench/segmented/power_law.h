/* bench/segmented/power_law.h -- the segmented bench's skewed segment lengths, shared with
 * the probes that time the same case (bench/select/probes/two_trees.cu). */
#ifndef GP_BENCH_SEGMENTED_POWER_LAW_H
#define GP_BENCH_SEGMENTED_POWER_LAW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <vector>
#include "../rng.h"

/* Offsets (S + 1, from 0 to n) of power-law lengths over n values: 40% of the segments
 * empty, the others 6 / (1 - u)^1.1 values for u uniform in [0, 1), and at a quarter of
 * the values one segment of n / 2 (a mean of about 600 values a segment at 2^28, 230 at
 * 2^24). The same lengths on every run (a fixed seed). */
static std::vector<uint64_t> gp_bench_power_law_offsets(size_t n)
{
    std::vector<uint64_t> off(1, 0);
    uint64_t st = 99, at = 0;
    bool big = false;
    while (at < n) {
        if (!big && at >= n / 4) {
            at += n / 2;
            big = true;
        } else {
            const double u = (double)(gp_bench_splitmix64(&st) >> 11) / 9007199254740992.0;
            at += u < 0.4 ? 0 : (uint64_t)(6.0 / pow(1.0 - u + 1e-12, 1.1));
        }
        off.push_back(at < n ? at : n);
    }
    return off;
}

#endif /* GP_BENCH_SEGMENTED_POWER_LAW_H */
