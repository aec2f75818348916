/* The same limit for a transpose. */
#include "gpuprims.cuh"
typedef struct { double v[32]; } big_t; /* 256 bytes */
GP_DEFINE_TRANSPOSE(big, big_t) /* error here: larger than GP_MAX_ELEM_BYTES */
