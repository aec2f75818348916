/* lib/matmul.cu -- the library's matmul instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_MATMUL
#include "../gpuprims.cuh"
