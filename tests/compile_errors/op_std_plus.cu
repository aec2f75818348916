/* std::plus<float>() as OP (a constexpr host function): an error, not a warning. */
#include <functional>
#include "gpuprims.cuh"
#define STD_PLUS(a, b) std::plus<float>()(a, b)
GP_DEFINE_SCAN(std_plus, float, STD_PLUS, 0.0f) /* error here: calling a constexpr __host__ function("operator()") */
