/* tests/user_pair.cu -- the one translation unit that compiles the instances declared in
 * tests/user_pair.h, with external C linkage. */
#include "user_pair.h"

#define PAIR_ARGMAX(a, b) ((b).v > (a).v ? (b) : (a))
GP_DEFINE_REDUCE_EXTERN(argmax_pair, gp_t_pair, PAIR_ARGMAX, ((gp_t_pair){-INFINITY, -1}))
GP_DEFINE_SCAN_EXTERN(argmax_pair, gp_t_pair, PAIR_ARGMAX, ((gp_t_pair){-INFINITY, -1}))
GP_DEFINE_TRANSPOSE_EXTERN(rgb8, gp_t_rgb8)

#define ABS_DIFF(a, b) fabs((double)(a) - (double)(b))
GP_DEFINE_MAP2_REDUCE_EXTERN(l1_distance_f32, float, double, ABS_DIFF, GP_OP_SUM, 0.0)
