/* lib/histogram.cu -- the library's histogram instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_HISTOGRAM
#include "../gpuprims.cuh"
