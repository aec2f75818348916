/* lib/select.cu -- the library's stream-compaction instances (one family per TU: they compile in parallel). */
#define GPUPRIMS_IMPLEMENTATION_SELECT
#include "../gpuprims.cuh"
