/* lib/transpose.cu -- the library's transpose instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_TRANSPOSE
#include "../gpuprims.cuh"
