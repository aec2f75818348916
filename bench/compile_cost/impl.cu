/* A header-only user's implementation TU: every default instance of every primitive, what
 * `#define GPUPRIMS_IMPLEMENTATION` costs in one file (libgpuprims compiles the same
 * instances as four TUs, lib/<family>.cu, in parallel). */
#define GPUPRIMS_IMPLEMENTATION
#include "../../gpuprims.cuh"
