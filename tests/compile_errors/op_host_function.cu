/* A host-only function as OP: an error on the GP_DEFINE_* line, not a kernel with no arithmetic. */
#include "gpuprims.cuh"
static float add_on_host(float a, float b) { return a + b; }
#define ADD_ON_HOST(a, b) add_on_host(a, b)
GP_DEFINE_REDUCE(host_add, float, ADD_ON_HOST, 0.0f) /* error here: calling a __host__ function && OP_must_run_on_the_device */
