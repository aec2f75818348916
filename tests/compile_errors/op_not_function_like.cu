/* `+` is not a function-like macro: OP(a, b) would be +(a, b), a comma expression. */
#include "gpuprims.cuh"
GP_DEFINE_REDUCE(plus_token, int, +, 0) /* error here: expression has no effect */
