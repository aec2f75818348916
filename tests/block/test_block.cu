/* tests/block/test_block.cu -- the block-level primitives (detail/block/block_reduce.cuh,
 * block_scan.cuh) of users' instances and a default one: block reduce and scans over block
 * shapes of 1, 2 and 3 dimensions, back to back, and the Blelloch scan (padded and plain),
 * in thread-rank order for a non-commutative operator (mat2: 2x2 integer matrix product
 * mod 2^32, 16 bytes). */
#include "../../gpuprims.cuh"
#include "../harness.h"
#include "../mat2.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GP_DEFINE_REDUCE(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1}))
GP_DEFINE_SCAN(mat2, mat2, MAT2_MUL, ((mat2){1, 0, 0, 1})) /* beside a reduce of the same name */

/* Each thread of each block reduces its own element; every thread writes what it got. */
__global__ void block_reduce_mat2(const mat2 *x, mat2 *out)
{
    const unsigned t = gp__thread_rank(), b = blockIdx.x * gp__block_size();
    const mat2 first = gp_block_reduce_mat2(x[b + t]);
    const mat2 again = gp_block_reduce_mat2(x[b + t]); /* back to back: no barrier of ours between */
    const mat2 bad = {0, 0, 0, 0};
    const bool same = first.a == again.a && first.b == again.b && first.c == again.c && first.d == again.d;
    out[b + t] = same ? first : bad;
}
__global__ void block_reduce_sum_u32(const uint32_t *x, uint32_t *out)
{
    out[threadIdx.x] = gp_block_reduce_sum_u32(x[threadIdx.x]);
}
/* Each block scans its threads' elements (linear rank), twice back to back (no barrier
 * of ours between); out: exclusive, inclusive, aggregate per thread. */
__global__ void block_scans_mat2(const mat2 *x, mat2 *out)
{
    const unsigned t = gp__thread_rank(), bs = gp__block_size(), b = blockIdx.x * bs;
    mat2 agg1, agg2;
    const mat2 ex = gp_block_exclusive_scan_mat2(x[b + t], &agg1);
    const mat2 in = gp_block_inclusive_scan_mat2(x[b + t], &agg2);
    const mat2 bad = {0, 0, 0, 0};
    const bool same = agg1.a == agg2.a && agg1.b == agg2.b && agg1.c == agg2.c && agg1.d == agg2.d;
    out[3 * b + t] = ex;
    out[3 * b + bs + t] = in;
    out[3 * b + 2 * bs + t] = same ? agg1 : bad;
}

/* Blelloch: n elements of T from x into padded (or plain) dynamic shared memory, scanned;
 * out gets the n exclusive results and the total. */
template <class Op, bool PADDED>
__global__ void blelloch_kernel(const typename Op::type *x, typename Op::type *out, unsigned n)
{
    typedef typename Op::type T;
    extern __shared__ unsigned char smem_raw[];
    T *s = reinterpret_cast<T *>(smem_raw);
    const unsigned t = threadIdx.x, half = n / 2;
    if (t < half) { /* thread t: elements t and t + n/2 (conflict-free with the padding) */
        s[PADDED ? gp_blelloch_index(t) : t] = x[t];
        s[PADDED ? gp_blelloch_index(t + half) : t + half] = x[t + half];
    }
    /* the padded form through its public name, gp_block_scan_blelloch_<name>; the unpadded
     * one (the bank-conflict ladder row) through the template */
    const T total = PADDED ? gp_block_scan_blelloch_mat2(s, n) : gp__block_scan_blelloch<Op, PADDED>(s, n);
    if (t < half) {
        out[t] = s[PADDED ? gp_blelloch_index(t) : t];
        out[t + half] = s[PADDED ? gp_blelloch_index(t + half) : t + half];
    }
    if (t == 0) out[n] = total;
}

/* Block shapes: multiples of 32 up to 1024, in 1, 2 and 3 dimensions; 2 blocks of each. */
static const dim3 shapes[] = {dim3(32), dim3(64), dim3(96), dim3(256), dim3(544), dim3(1024), dim3(32, 8),
                              dim3(16, 4, 2), dim3(8, 4, 32)};

static void check_block_reduce(void)
{
    mat2 *h, *got, *d_x, *d_out;
    mat2_alloc(10, 4 * 1024, &h, &got, &d_x, &d_out);
    uint64_t st = gp_t_state(11);
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const unsigned bs = shapes[k].x * shapes[k].y * shapes[k].z;
        CUDA_CHK(cudaMemset(d_out, 0xA7, 2 * bs * sizeof(mat2)));
        block_reduce_mat2<<<2, shapes[k]>>>(d_x, d_out);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(got, d_out, 2 * bs * sizeof(mat2), cudaMemcpyDeviceToHost));
        int ok = 1;
        for (unsigned b = 0; b < 2; b++) {
            const mat2 want = mat2_ref(h + b * bs, bs);
            for (unsigned t = 0; t < bs; t++) ok &= mat2_eq(got[b * bs + t], want);
        }
        EXPECT(ok, "gp_block_reduce_mat2, block (%u,%u,%u): every thread holds the ordered product", shapes[k].x,
               shapes[k].y, shapes[k].z);
    }
    int ok;
    uint32_t hu[1024], gu[1024], want = 0;
    for (int i = 0; i < 1024; i++) want += hu[i] = (uint32_t)gp_t_next(&st);
    uint32_t *d_u;
    CUDA_CHK(cudaMalloc(&d_u, 2 * sizeof hu));
    CUDA_CHK(cudaMemcpy(d_u, hu, sizeof hu, cudaMemcpyHostToDevice));
    block_reduce_sum_u32<<<1, 1024>>>(d_u, d_u + 1024);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(gu, d_u + 1024, sizeof gu, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int i = 0; i < 1024; i++) ok &= gu[i] == want;
    EXPECT(ok, "gp_block_reduce_sum_u32 (a default instance), 1024 threads");
    CUDA_CHK(cudaFree(d_u));
    mat2_free(h, got, d_x, d_out);
}

static void check_block_scan(void)
{
    mat2 *h, *got, *d_x, *d_out;
    mat2_alloc(30, 3 * 2 * 1024 + 64, &h, &got, &d_x, &d_out);
    int ok;
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const unsigned bs = shapes[k].x * shapes[k].y * shapes[k].z;
        CUDA_CHK(cudaMemset(d_out, 0xA7, 6 * bs * sizeof(mat2)));
        block_scans_mat2<<<2, shapes[k]>>>(d_x, d_out);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(got, d_out, 6 * bs * sizeof(mat2), cudaMemcpyDeviceToHost));
        ok = 1;
        for (unsigned b = 0; b < 2; b++) {
            const mat2 *x = h + b * bs, *g = got + 3 * b * bs;
            ok &= first_wrong(x, g, bs, 0, MAT2_ID, mat2_mul) == bs;
            ok &= first_wrong(x, g + bs, bs, 1, MAT2_ID, mat2_mul) == bs;
            for (unsigned t = 0; t < bs; t++) ok &= memcmp(&g[2 * bs + t], &g[2 * bs - 1], sizeof(mat2)) == 0;
        }
        EXPECT(ok, "gp_block_{ex,in}clusive_scan_mat2, block (%u,%u,%u): ordered prefixes and the aggregate everywhere",
               shapes[k].x, shapes[k].y, shapes[k].z);
    }

    /* Blelloch, padded (the public one) and plain: n = 2 .. 2048, n/2 threads, and n = 64
     * with more threads than it needs */
    for (int padded = 1; padded >= 0; padded--)
        for (unsigned n = 2; n <= 2048; n <<= 1)
            for (unsigned extra = 0; extra <= (n == 64 ? 224u : 0u); extra += 224) {
                const unsigned threads = n / 2 + extra;
                const size_t smem = (padded ? gp_blelloch_smem_elems(n) : n) * sizeof(mat2);
                CUDA_CHK(cudaMemset(d_out, 0xA7, (n + 1) * sizeof(mat2)));
                if (padded) {
                    CUDA_CHK(cudaFuncSetAttribute(blelloch_kernel<gp__op_scan_mat2, true>,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
                    blelloch_kernel<gp__op_scan_mat2, true><<<1, threads, smem>>>(d_x, d_out, n);
                } else {
                    CUDA_CHK(cudaFuncSetAttribute(blelloch_kernel<gp__op_scan_mat2, false>,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
                    blelloch_kernel<gp__op_scan_mat2, false><<<1, threads, smem>>>(d_x, d_out, n);
                }
                CUDA_CHK_LAUNCH();
                CUDA_CHK(cudaMemcpy(got, d_out, (n + 1) * sizeof(mat2), cudaMemcpyDeviceToHost));
                mat2 tot = MAT2_ID;
                for (unsigned i = 0; i < n; i++) tot = mat2_mul(tot, h[i]);
                EXPECT(first_wrong(h, got, n, 0, MAT2_ID, mat2_mul) == n && memcmp(&got[n], &tot, sizeof tot) == 0,
                       "Blelloch (%s) mat2 n=%u, %u threads: ordered exclusive prefixes and total",
                       padded ? "padded" : "plain", n, threads);
            }
    mat2_free(h, got, d_x, d_out);
}

extern "C" void test_block_reduce(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("block reduce: mat2 over block shapes, sum_u32");
        return;
    }
    gp_t_section("block reduce: a user's instance (mat2) over block shapes, a default one");
    check_block_reduce();
}

extern "C" void test_block_scan(void)
{
    if (!gp_t_have_gpu()) {
        gp_t_skip("block and Blelloch scans of 2x2 matrix products");
        return;
    }
    gp_t_section("block and Blelloch scans (2x2 matrix product)");
    check_block_scan();
}
