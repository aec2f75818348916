/* lib/segmented.cu -- the library's segmented instances: segmented reduce, rows, columns,
 * segmented scan, reduce-by-key (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_SEGMENTED
#include "../gpuprims.cuh"
