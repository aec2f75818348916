/* GP_DEFINE_* belongs at file scope. */
#include "gpuprims.cuh"
#define ADD(a, b) ((a) + (b))
void f(void)
{
    GP_DEFINE_REDUCE(inner, int, ADD, 0) /* error here: namespace definition is not allowed */
}
