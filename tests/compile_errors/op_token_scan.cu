/* The same mistake in a scan, as a user first wrote it: `+` where a function-like macro belongs. */
#include "gpuprims.cuh"
GP_DEFINE_SCAN(plus_i, int, +, 0) /* error here: OP '+' is not a function-like macro or function */
