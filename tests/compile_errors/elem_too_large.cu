/* An element over GP_MAX_ELEM_BYTES: a static assertion on the user's line, not ptxas. */
#include "gpuprims.cuh"
typedef struct { float v[64]; } big_t; /* 256 bytes */
#define BIG_FIRST(a, b) (a)
GP_DEFINE_REDUCE(big, big_t, BIG_FIRST, (big_t{})) /* error here: larger than GP_MAX_ELEM_BYTES */
