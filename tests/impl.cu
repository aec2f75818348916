/* tests/impl.cu -- the test program's one GPUPRIMS_IMPLEMENTATION translation unit. The
 * other .cu files include the header too, so the program also proves that several
 * translation units link cleanly, and test_c_api.c that C code links against it. */
#define GPUPRIMS_IMPLEMENTATION
#include "../gpuprims.cuh"
