/* tests/user_pair.h -- a user's instance shared across translation units, the klib way:
 * this header declares (GP_DECLARE_*, C linkage, readable by C and CUDA files), and
 * tests/user_pair.cu is the one file that defines (GP_DEFINE_*_EXTERN). test_c_api.c (C)
 * and test_reduce_user.cu (another CUDA file) call it. */
#ifndef GPUPRIMS_TESTS_USER_PAIR_H
#define GPUPRIMS_TESTS_USER_PAIR_H

#include "../gpuprims.cuh"

/* argmax: the largest v, ties to the lower index */
typedef struct { float v; int32_t i; } gp_t_pair;
GP_DECLARE_REDUCE(argmax_pair, gp_t_pair)
GP_DECLARE_SCAN(argmax_pair, gp_t_pair)

/* the L1 distance of two float arrays, summed in double: a two-input map-reduce whose
 * result type is not its input type */
GP_DECLARE_MAP2_REDUCE(l1_distance_f32, float, double)

/* a 3-byte pixel, transposed element by element */
typedef struct { uint8_t r, g, b; } gp_t_rgb8;
GP_DECLARE_TRANSPOSE(rgb8, gp_t_rgb8)

#endif
