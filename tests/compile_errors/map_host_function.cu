/* A host-only function as a map-reduce's MAP: an error on the GP_DEFINE_* line, as for an OP. */
#include "gpuprims.cuh"
static float square_on_host(float x) { return x * x; }
#define SQUARE_ON_HOST(x) square_on_host(x)
GP_DEFINE_MAP_REDUCE(host_square, float, float, SQUARE_ON_HOST, GP_OP_SUM, 0.0f) /* error here: calling a __host__ function */
