/* lib/reduce.cu -- the library's reduce instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_REDUCE
#include "../gpuprims.cuh"
