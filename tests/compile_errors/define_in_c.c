/* GP_DEFINE_* needs nvcc; a C file declares with GP_DECLARE_* instead. */
#include "gpuprims.cuh"
#define ADD(a, b) ((a) + (b))
GP_DEFINE_REDUCE(in_c, int, ADD, 0); /* error here: needs a .cu file compiled by nvcc */
