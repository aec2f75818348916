/* `+` is not a function-like macro: OP(a, b) would be +(a, b), a comma expression. */
#include "gpuprims.cuh"
GP_DEFINE_REDUCE(plus_token, int, +, 0) /* error here: OP '+' is not a function-like macro or function && #define ADD(a, b) */
