/* lib/scan.cu -- the library's scan instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_SCAN
#include "../gpuprims.cuh"
