/* lib/sort.cu -- the library's radix sort instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_SORT
#include "../gpuprims.cuh"
