/* bench/reduce/reduce.cu -- the classic reduction ladder replayed on today's GPU, then
 * gp_reduce_sum_{f32,i32} against CUB and the device-to-device copy rate.
 *
 * Part 1, "Reduction ladder": the seven kernels of Mark Harris' "Optimizing Parallel
 * Reduction in CUDA" (2007) on 2^22 ints, block size 256, each one commented with the
 * one thing it fixes, printed beside Harris's G80 figures.
 * As in Harris, a kernel writes one partial sum per block and is launched again on the
 * partials until one value remains; every pass is inside the timed region. Then kernel 7
 * on 2^25 ints (Harris's "32M elements: 73 GB/s"), gp_reduce_sum_i32 and CUB's
 * DeviceReduce::Sum on the same 2^22 ints.
 *
 * Part 2, "gp_reduce vs CUB and copy": f32 and i32 sums, n = 2^10 .. 2^28, time and
 * throughput (bytes read, 4n) of gp and CUB, gp as a percentage of the read kernel on the
 * same bytes (a kernel that only reads: the ceiling for a reduce) and of the copy rate
 * (cudaMemcpy device to device on 1 GiB, counting bytes read plus bytes written), and
 * against an empty kernel launched back to back (the floor for small n).
 *
 * Part 3, "map-reduce vs cuBLAS": gp_dot_f32/_f64 against cublasSdot/Ddot and
 * gp_sum_squares_f32/_f64 against cublasSnrm2/Dnrm2 (pointer mode device), and against
 * the read kernel on the same bytes (a dot product reads 2n elements).
 *
 * Part 4, "other element types": min, max, 8-byte sums, counts and a 16-byte user type on
 * 1 GiB, against the read kernel.
 *
 * Part 5, "against the goals": the figures of parts 2-4 against the targets this project
 * set for the H100 (one table of ratios, each marked met or not).
 *
 * Every result is validated against a host reference before it is timed (integers
 * exactly, floats within a relative tolerance); a mismatch prints FAIL and exits 1.
 * Inputs smaller than twice the L2 are rotated among enough copies that one timed call
 * never finds its input in L2: the figures are DRAM figures.
 *
 * `reduce table` runs the floors and part 2 only (bench/variants.sh uses it).
 *
 * Build and run:  make bench
 *   or by hand:   make lib && nvcc -O3 -arch=sm_90 -std=c++17 -I. bench/reduce/reduce.cu build/lib/libgpuprims.a \
 *                   -o build/bench/reduce
 *                 ./build/bench/reduce
 * Tables go to stdout and to bench/results/<gpu>.reduce.{md,csv} ($GP_BENCH_RESULTS
 * overrides the folder). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"
#include "../read_kernel.cuh"
#include "../rng.h" /* the ladder's host inputs */

#define LADDER_BLOCK 256u              /* Harris's block size, for kernels 1-7 */
#define LADDER_N (1u << 22)            /* Harris's 4M ints */
#define LADDER_N_BIG (1u << 25)        /* Harris's "kernel 7 on 32M elements" */
#define LADDER_SEED 0x5eed2025ull      /* host RNG seed for the ladder's inputs */
#define TABLE_SEED 0x7ab1eu            /* device hash seed for part 2's inputs */
#define COPY_BYTES ((size_t)1 << 30)   /* copy-rate buffer: 1 GiB */
#define F32_RTOL 1e-4                  /* relative tolerance for float sums */

static unsigned ceil_div_u(unsigned a, unsigned b) { return (a + b - 1) / b; }

/* ======================================================================================
 * Part 1: the ladder kernels. All read int, write one int per block to g_odata, and use
 * blockDim.x * sizeof(int) bytes of dynamic shared memory. Harris assumes n is a
 * multiple of the elements a block takes; the later passes over the partials are not, so
 * each load is guarded (one compare per load, off the critical path).
 * ==================================================================================== */

/* Kernel 1: interleaved addressing with divergent branching. The baseline: tree
 * reduction in shared memory, one element per thread. Problem: `tid % (2*s)` makes
 * every warp diverge at every step, and % is slow. */
__global__ void reduce1(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* Kernel 2: interleaved addressing with bank conflicts. Fixes kernel 1's divergence: a
 * strided index lets contiguous threads do the work, so whole warps drop out together.
 * New problem: index = 2*s*tid makes threads of a warp hit the same shared-memory bank. */
__global__ void reduce2(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* Kernel 3: sequential addressing. Fixes kernel 2's bank conflicts: reversed loop,
 * thread tid adds element tid + s, so a warp reads 32 consecutive words. Problem: half
 * the threads are idle from the very first step. */
__global__ void reduce3(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* Kernel 4: first add during global load. Fixes kernel 3's idle threads: half as many
 * blocks, each thread loads two elements and adds them before the tree. Problem: now
 * instruction overhead (address arithmetic, loop, barriers) bounds it, not memory. */
__global__ void reduce4(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int v = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n) v += g_idata[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* The last warp, unrolled: sums sdata[0..63] into the return value of lane 0 (the other
 * lanes return garbage). Call with all 32 lanes of warp 0 (tid < 32); needs blockSize >= 64
 * and sdata[0..63] complete behind a __syncthreads().
 *
 * Harris's version drops the barriers and relies on the 32 lanes running in lockstep
 * (`sdata[tid] += sdata[tid + 16]; ...` on a volatile pointer). Since Volta, independent
 * thread scheduling makes no such promise: lane 0 may read sdata[16] before lane 16 has
 * written its sum of the previous step, or after it has already written the next one.
 * That is a data race and gives wrong sums. Correct form: each step reads its partner into
 * a register, __syncwarp() (every read done), writes, __syncwarp() (every write visible).
 * __syncwarp() is also a memory fence among the lanes, so `volatile` is not needed. */
template <unsigned blockSize>
__device__ __forceinline__ int last_warp_reduce(int *sdata, unsigned tid)
{
    static_assert(blockSize >= 64, "last_warp_reduce reads sdata[0..63]");
    int v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];
    return v;
}

/* Kernel 5: unroll the last warp. Fixes kernel 4's loop overhead in the last six steps:
 * once s <= 32 only one warp works, so the `if (tid < s)` test and the block barriers go;
 * the warp finishes with last_warp_reduce (made correct for Volta+, see above). */
__global__ void reduce5(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int v = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n) v += g_idata[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        int sum = last_warp_reduce<LADDER_BLOCK>(sdata, tid); /* launched with 256 threads */
        if (tid == 0) g_odata[blockIdx.x] = sum;
    }
}

/* Kernel 6: completely unrolled. Fixes the remaining loop overhead: with the block size a
 * template parameter every `if (blockSize >= ...)` and the whole tree are resolved at
 * compile time. */
template <unsigned blockSize>
__global__ void reduce6(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    int v = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n) v += g_idata[i + blockSize];
    sdata[tid] = v;
    __syncthreads();
    if (blockSize >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        int sum = last_warp_reduce<blockSize>(sdata, tid);
        if (tid == 0) g_odata[blockIdx.x] = sum;
    }
}

/* Kernel 7: multiple elements per thread. Fixes the work inefficiency of one tree per
 * 512 elements: a fixed grid (one wave of resident blocks here) walks the input with a
 * grid-stride loop, so each thread adds many elements serially (Brent's theorem: n/log n
 * threads, log n work each) and the tree runs once per block, not once per 512 elements.
 * The loop stride keeps the loads coalesced. Two fixes to the listing: as it is often
 * reproduced, its signature names g_odata twice (read g_idata), and Harris's kernel reads
 * i + blockSize unguarded (guarded here, so any n works). The running sum lives in a
 * register rather than in sdata[tid]. */
template <unsigned blockSize>
__global__ void reduce7(const int *g_idata, int *g_odata, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    unsigned gridSize = blockSize * 2 * gridDim.x;
    int sum = 0;
    while (i < n) {
        sum += g_idata[i];
        if (i + blockSize < n) sum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();
    if (blockSize >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        int s = last_warp_reduce<blockSize>(sdata, tid);
        if (tid == 0) g_odata[blockIdx.x] = s;
    }
}

/* ---- the ladder as data: one row per kernel, in Harris's order ------------------------- */
typedef void (*ladder_kfn)(const int *, int *, unsigned);

typedef struct {
    const char *name;       /* row label (no commas: the CSV does not quote) */
    ladder_kfn fn;
    unsigned per_block;     /* elements one block takes per pass (256 or 512) */
    int grid_stride;        /* 1: kernel 7, grid capped at one wave of resident blocks */
    double seed_ms, seed_gbps;  /* Harris's G80 figures for 2^22 ints */
} ladder_kernel;

static const ladder_kernel ladder[] = {
    {"kernel 1: interleaved addressing with divergent branching", reduce1, LADDER_BLOCK, 0, 8.054, 2.083},
    {"kernel 2: interleaved addressing with bank conflicts", reduce2, LADDER_BLOCK, 0, 3.456, 4.854},
    {"kernel 3: sequential addressing", reduce3, LADDER_BLOCK, 0, 1.722, 9.741},
    {"kernel 4: first add during global load", reduce4, 2 * LADDER_BLOCK, 0, 0.965, 17.377},
    {"kernel 5: unroll last warp (syncwarp-safe)", reduce5, 2 * LADDER_BLOCK, 0, 0.536, 31.289},
    {"kernel 6: completely unrolled", reduce6<LADDER_BLOCK>, 2 * LADDER_BLOCK, 0, 0.381, 43.996},
    {"kernel 7: multiple elements per thread", reduce7<LADDER_BLOCK>, 2 * LADDER_BLOCK, 1, 0.268, 62.671},
};
#define LADDER_COUNT ((int)(sizeof ladder / sizeof ladder[0]))

static unsigned g_wave_blocks; /* kernel 7's grid: SMs x resident blocks per SM */

/* Blocks of the pass that reduces m values with kernel k. */
static unsigned ladder_blocks(const ladder_kernel *k, unsigned m)
{
    unsigned b = ceil_div_u(m, k->per_block);
    if (k->grid_stride && b > g_wave_blocks) b = g_wave_blocks;
    return b;
}

/* The whole reduction of in[0..n) with kernel k: one pass, then passes over the partials
 * (ping-pong between pa and pb) until one value remains. Returns where it is. */
static const int *ladder_reduce(const ladder_kernel *k, const int *in, unsigned n, int *pa,
                                int *pb)
{
    const int *src = in;
    int *dst = pa;
    unsigned m = n;
    do {
        unsigned blocks = ladder_blocks(k, m);
        k->fn<<<blocks, LADDER_BLOCK, LADDER_BLOCK * sizeof(int)>>>(src, dst, m);
        CUDA_CHK_LAUNCH();
        src = dst;
        dst = (dst == pa) ? pb : pa;
        m = blocks;
    } while (m > 1);
    return src;
}

/* "16384 -> 64 -> 1": the grid of each pass, for the notes. */
static void ladder_passes(const ladder_kernel *k, unsigned n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    unsigned m = n;
    do {
        unsigned b = ladder_blocks(k, m);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%u", m == n ? "" : " -> ", b);
        m = b;
    } while (m > 1 && len < cap);
}

/* ======================================================================================
 * Rotated inputs: a pool of `slots` copies of an n-element input, slot k at k*n. With
 * slots*n*4 > 2 * L2, consecutive timed calls read different slots and each one finds
 * its input evicted from L2 by the calls before it.
 * ==================================================================================== */
static int rotation_slots(size_t bytes)
{
    size_t twice_l2 = 2 * (size_t)gp__bench.l2_bytes;
    return (int)(twice_l2 / bytes + 1);
}

/* Part 1's pools: n host ints uploaded into slot 0 and copied into the others. */
static int *ladder_pool(const int *h, unsigned n, int *slots)
{
    size_t bytes = (size_t)n * sizeof(int);
    *slots = rotation_slots(bytes);
    int *d = NULL;
    CUDA_CHK(cudaMalloc(&d, bytes * (size_t)*slots));
    CUDA_CHK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    for (int k = 1; k < *slots; k++)
        CUDA_CHK(cudaMemcpy(d + (size_t)k * n, d, bytes, cudaMemcpyDeviceToDevice));
    return d;
}

/* Timed call of one ladder kernel: whole reduction of the next slot. */
typedef struct {
    const ladder_kernel *k;
    const int *pool;
    unsigned n;
    int slots, next;
    int *pa, *pb;
} ladder_ctx;

static void ladder_timed(void *p)
{
    ladder_ctx *c = (ladder_ctx *)p;
    const int *in = c->pool + (size_t)c->next * c->n;
    c->next = (c->next + 1) % c->slots;
    ladder_reduce(c->k, in, c->n, c->pa, c->pb);
}

/* ======================================================================================
 * gp_reduce and CUB, timed the same way (f32 or i32, rotated over a pool).
 * ==================================================================================== */
typedef struct {
    int is_f32;
    const char *pool;       /* slot k starts at pool + k * n * 4 */
    size_t n;
    int slots, next;
    void *d_out;
    void *d_temp;           /* CUB's temp storage, allocated once per size, outside timing */
    size_t temp_bytes;
} sum_ctx;

static const void *sum_next_input(sum_ctx *c)
{
    const void *in = c->pool + (size_t)c->next * c->n * 4;
    c->next = (c->next + 1) % c->slots;
    return in;
}

static void gp_timed(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    const void *in = sum_next_input(c);
    if (c->is_f32) CUDA_CHK(gp_reduce_sum_f32((float *)c->d_out, (const float *)in, c->n, 0));
    else CUDA_CHK(gp_reduce_sum_i32((int32_t *)c->d_out, (const int32_t *)in, c->n, 0));
}

/* The same call with grid-mode scratch from the pool, cleared per call (the ladder's
 * "per-call clearing" row; the library keeps status memory instead). */
static void gp_per_call_timed(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    const void *in = sum_next_input(c);
    if (c->is_f32) CUDA_CHK((gp__reduce<gp__op_sum_f32, true>((float *)c->d_out, (const float *)in, c->n, 0)));
    else CUDA_CHK((gp__reduce<gp__op_sum_i32, true>((int32_t *)c->d_out, (const int32_t *)in, c->n, 0)));
}

/* CUB gets num_items as int (every n here is < 2^31): its 32-bit-offset path, its best. */
static void cub_call(sum_ctx *c, const void *in)
{
    if (c->is_f32)
        CUDA_CHK(cub::DeviceReduce::Sum(c->d_temp, c->temp_bytes, (const float *)in,
                                        (float *)c->d_out, (int)c->n, (cudaStream_t)0));
    else
        CUDA_CHK(cub::DeviceReduce::Sum(c->d_temp, c->temp_bytes, (const int32_t *)in,
                                        (int32_t *)c->d_out, (int)c->n, (cudaStream_t)0));
}

static void cub_timed(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    cub_call(c, sum_next_input(c));
}

/* Sizes CUB's temp storage for c->n and allocates it (outside any timed region). */
static void cub_alloc(sum_ctx *c)
{
    c->d_temp = NULL;
    c->temp_bytes = 0;
    cub_call(c, c->pool); /* d_temp == NULL: only sets temp_bytes */
    CUDA_CHK(cudaMalloc(&c->d_temp, c->temp_bytes > 0 ? c->temp_bytes : 1));
}

/* One result of `call` (gp_timed, cub_timed, ...) on slot 0, output poisoned first. */
static void sum_once(sum_ctx *c, void (*call)(void *), void *host_out)
{
    CUDA_CHK(cudaMemset(c->d_out, 0xA5, 4));
    c->next = 0;
    call(c);
    CUDA_CHK(cudaMemcpy(host_out, c->d_out, 4, cudaMemcpyDeviceToHost));
    c->next = 0;
}

/* ---- inputs ----------------------------------------------------------------------------- */

/* Device inputs for part 2: a counter-based hash of the index (the splitmix64 finalizer). */
__host__ __device__ static inline uint32_t bench_hash(uint64_t i, uint32_t seed)
{
    uint64_t z = i + 0x9E3779B97F4A7C15ull * ((uint64_t)seed + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* i32: values in [-8, 7], so no sum of up to 2^28 of them leaves int32 (|sum| <= 2^31). */
__global__ void fill_i32(int32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = (int32_t)(bench_hash(i, seed) >> 28) - 8;
}

/* f32: values k * 2^-24 in [0, 1). Any sum of up to 2^28 of them is a multiple of 2^-24
 * below 2^28, which a double holds exactly: the host reference is exact. */
__global__ void fill_f32(float *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = (float)(bench_hash(i, seed) >> 8) * (1.0f / 16777216.0f);
}

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    exit(1);
}

static int f32_close(double got, double ref)
{
    return fabs(got - ref) <= F32_RTOL * fabs(ref) + 1e-6;
}

/* ======================================================================================
 * The floors: what any reduce pays at least.
 * ==================================================================================== */


static unsigned *g_sink; /* the read kernel's never-written output */

/* The read kernel over `bytes` (a multiple of 16), rotated through a pool as gp's inputs are. */
typedef struct {
    const char *pool;
    size_t bytes;
    int slots, next;
} read_ctx;

static void read_timed(void *p)
{
    read_ctx *c = (read_ctx *)p;
    const char *in = c->pool + (size_t)c->next * c->bytes;
    c->next = (c->next + 1) % c->slots;
    const size_t n16 = c->bytes / 16, wave = (size_t)gp__bench.sms * READ_BLOCKS_PER_SM;
    const size_t blocks = (n16 + READ_BLOCK - 1) / READ_BLOCK;
    read_only<<<(unsigned)(blocks < wave ? blocks : wave), READ_BLOCK>>>((const uint4 *)in, n16, g_sink);
}

/* Milliseconds per read of `bytes`, `batch` calls back to back (as gp and CUB are timed). */
static float read_kernel_ms(const void *pool, size_t bytes, int batch)
{
    read_ctx c = {(const char *)pool, bytes, rotation_slots(bytes), 0};
    return gp_bench_median_ms_batch(read_timed, &c, batch);
}

/* ======================================================================================
 * Part 1
 * ==================================================================================== */
static void bench_ladder(double copy_gbps)
{
    /* Inputs: random ints 0..15 from a seeded host RNG; the first 2^22 for the ladder, all
     * 2^25 for kernel 7's big row. 15 * 2^25 < 2^31, so int32 sums are exact. */
    int *h = (int *)malloc(sizeof(int) * LADDER_N_BIG);
    if (!h) fail("host malloc");
    uint64_t st = LADDER_SEED;
    int64_t ref_small = 0, ref_big = 0;
    for (unsigned i = 0; i < LADDER_N_BIG; i++) {
        h[i] = (int)(gp_bench_splitmix64(&st) >> 60);
        if (i < LADDER_N) ref_small += h[i];
        ref_big += h[i];
    }

    int slots_small, slots_big;
    int *pool_small = ladder_pool(h, LADDER_N, &slots_small);
    int *pool_big = ladder_pool(h, LADDER_N_BIG, &slots_big);
    free(h);

    /* Partials: the largest first pass is 2^25 / 256 blocks (kernel 7's is smaller). */
    size_t partials = ceil_div_u(LADDER_N_BIG, LADDER_BLOCK);
    int *pa = NULL, *pb = NULL;
    CUDA_CHK(cudaMalloc(&pa, partials * sizeof(int)));
    CUDA_CHK(cudaMalloc(&pb, partials * sizeof(int)));

    int per_sm = 0;
    CUDA_CHK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, reduce7<LADDER_BLOCK>, LADDER_BLOCK, LADDER_BLOCK * sizeof(int)));
    g_wave_blocks = (unsigned)(per_sm * gp__bench.sms);
    if (g_wave_blocks == 0) g_wave_blocks = 1;

    gp_table_begin("Reduction ladder (2^22 ints)",
                   "Kernel|Time (ms)|Bandwidth (GB/s)|Step speedup|Cumulative speedup|"
                   "Harris G80 time (ms)|Harris G80 GB/s");

    const double bytes_small = 4.0 * LADDER_N, bytes_big = 4.0 * LADDER_N_BIG;
    float ms_first = 0, ms_prev = 0;
    char msg[256];
    for (int r = 0; r < LADDER_COUNT; r++) {
        const ladder_kernel *k = &ladder[r];
        /* validate: whole reduction of slot 0 (partials poisoned), exact compare */
        CUDA_CHK(cudaMemset(pa, 0xA5, partials * sizeof(int)));
        CUDA_CHK(cudaMemset(pb, 0xA5, partials * sizeof(int)));
        int got = 0;
        CUDA_CHK(cudaMemcpy(&got, ladder_reduce(k, pool_small, LADDER_N, pa, pb), sizeof(int),
                            cudaMemcpyDeviceToHost));
        if ((int64_t)got != ref_small) {
            snprintf(msg, sizeof msg, "%s: sum %d, host reference %lld", k->name, got,
                     (long long)ref_small);
            fail(msg);
        }
        ladder_ctx c = {k, pool_small, LADDER_N, slots_small, 0, pa, pb};
        float ms = gp_bench_median_ms(ladder_timed, &c);
        char step[32] = "-", cum[32] = "-";
        if (r > 0) {
            snprintf(step, sizeof step, "%.2fx", ms_prev / ms);
            snprintf(cum, sizeof cum, "%.2fx", ms_first / ms);
        } else {
            ms_first = ms;
        }
        ms_prev = ms;
        gp_table_row("%s|%.4f|%.1f|%s|%s|%.3f|%.3f", k->name, ms, gp_bench_gbps(bytes_small, ms),
                     step, cum, k->seed_ms, k->seed_gbps);
    }
    const float ms_k7 = ms_prev;
    double k7_big_gbps = 0;

    /* Kernel 7 on 2^25 ints (Harris gives only its bandwidth: 73 GB/s). */
    {
        const ladder_kernel *k = &ladder[LADDER_COUNT - 1];
        CUDA_CHK(cudaMemset(pa, 0xA5, partials * sizeof(int)));
        CUDA_CHK(cudaMemset(pb, 0xA5, partials * sizeof(int)));
        int got = 0;
        CUDA_CHK(cudaMemcpy(&got, ladder_reduce(k, pool_big, LADDER_N_BIG, pa, pb), sizeof(int),
                            cudaMemcpyDeviceToHost));
        if ((int64_t)got != ref_big) {
            snprintf(msg, sizeof msg, "kernel 7 on 2^25: sum %d, host reference %lld", got,
                     (long long)ref_big);
            fail(msg);
        }
        ladder_ctx c = {k, pool_big, LADDER_N_BIG, slots_big, 0, pa, pb};
        float ms = gp_bench_median_ms(ladder_timed, &c);
        k7_big_gbps = gp_bench_gbps(bytes_big, ms);
        gp_table_row("kernel 7 on 32M elements (2^25)|%.4f|%.1f|-|-|-|73", ms, k7_big_gbps);
    }

    /* gp_reduce_sum_i32 and CUB on the same rotated 2^22 ints. */
    int32_t *d_out = NULL;
    CUDA_CHK(cudaMalloc(&d_out, sizeof(int32_t)));
    sum_ctx sc = {0, (const char *)pool_small, LADDER_N, slots_small, 0, d_out, NULL, 0};
    cub_alloc(&sc);
    for (int use_cub = 0; use_cub < 2; use_cub++) {
        const char *who = use_cub ? "CUB DeviceReduce::Sum" : "gp_reduce_sum_i32";
        int32_t got = 0;
        sum_once(&sc, use_cub ? cub_timed : gp_timed, &got);
        if ((int64_t)got != ref_small) {
            snprintf(msg, sizeof msg, "%s on 2^22: sum %d, host reference %lld", who, got,
                     (long long)ref_small);
            fail(msg);
        }
        float ms = gp_bench_median_ms(use_cub ? cub_timed : gp_timed, &sc);
        gp_table_row("%s|%.4f|%.1f|%.2fx|%.2fx|-|-", who, ms, gp_bench_gbps(bytes_small, ms),
                     ms_k7 / ms, ms_first / ms);
    }
    CUDA_CHK(cudaFree(sc.d_temp));
    CUDA_CHK(cudaFree(d_out));

    char p13[128], p46[128], p7[128], p7big[128];
    ladder_passes(&ladder[0], LADDER_N, p13, sizeof p13);
    ladder_passes(&ladder[3], LADDER_N, p46, sizeof p46);
    ladder_passes(&ladder[6], LADDER_N, p7, sizeof p7);
    ladder_passes(&ladder[6], LADDER_N_BIG, p7big, sizeof p7big);
    gp_bench_note(
        "Inputs: random ints 0..15 (host splitmix64, seed 0x%llx); every row's sum checked "
        "exactly against a host int64 sum before it was timed. Block size 256 for kernels 1-7, "
        "as in Harris. Each ladder kernel writes one partial per block and is launched again on "
        "the partials until one value remains, every pass inside the timed region (grids per "
        "pass: kernels 1-3 %s; kernels 4-6 %s; kernel 7 %s, and %s on 2^25; kernel 7's grid is "
        "capped at one wave of resident blocks, %d SMs x %d). Kernel 5 onwards use the last-warp "
        "unroll with __syncwarp() between steps: Harris's lockstep (volatile) version is a "
        "data race under Volta+ independent thread scheduling. Step speedup of the gp and CUB "
        "rows is against kernel 7, cumulative against kernel 1.",
        (unsigned long long)LADDER_SEED, p13, p46, p7, p7big, gp__bench.sms, per_sm);
    gp_bench_note(
        "Inputs rotated so timings are DRAM, not L2: the 2^22 rows cycle through %d copies "
        "(%d MB > 2 x L2 = %d MB), the 2^25 row through %d (%d MB). Device-to-device copy in "
        "this run: %.1f GB/s (read + write, 1 GiB); kernel 7 on 2^25 ints reads at %.0f%% of "
        "it. Harris's G80: 86.4 GB/s theoretical peak (384-bit bus, 1800 MHz), kernel 7 on "
        "32M elements 73 GB/s (84%% of peak).",
        slots_small, (int)(((size_t)slots_small * LADDER_N * 4) >> 20),
        (int)((2 * (size_t)gp__bench.l2_bytes) >> 20), slots_big,
        (int)(((size_t)slots_big * LADDER_N_BIG * 4) >> 20), copy_gbps,
        100.0 * k7_big_gbps / copy_gbps);

    CUDA_CHK(cudaFree(pa));
    CUDA_CHK(cudaFree(pb));
    CUDA_CHK(cudaFree(pool_small));
    CUDA_CHK(cudaFree(pool_big));
}

/* ======================================================================================
 * Part 2
 * ==================================================================================== */
static const int table_log2n[] = {10, 16, 20, 22, 24, 26, 28};
#define TABLE_SIZES ((int)(sizeof table_log2n / sizeof table_log2n[0]))
#define TABLE_MAX_N ((size_t)1 << 28)

/* What each part measured, for the goals table at the end (Part 5). */
static struct {
    float gp_ms[2][TABLE_SIZES], cub_ms[2][TABLE_SIZES], read_ms[2][TABLE_SIZES]; /* [i32, f32][size] */
    float empty_ms;
    float blas_gp_ms[4][8], blas_ms[4][8], blas_read_ms[4][8]; /* [op][size]; 0: not run */
    float types_ms[8], types_read_ms;
} g_goals;

/* The status-memory ladder: the same kernel with its scratch cleared per call (allocation,
 * memset, kernel, free, all stream-ordered) against the stream's status memory (one
 * launch). i32 sum: the pool holds part 2's i32 inputs (filled last). */
static void bench_status(void *pool)
{
    gp_table_begin("Status memory against per-call clearing (i32 sum)",
                   "n|per-call clearing (us)|status memory = gp_reduce_sum_i32 (us)|speedup|per-call one call from idle (us)|"
                   "status memory one call from idle (us)");
    void *d_out = NULL;
    CUDA_CHK(cudaMalloc(&d_out, 4));
    const int sizes[] = {20, 24, 28};
    for (int lg : sizes) {
        const size_t n = (size_t)1 << lg;
        sum_ctx c = {0, (const char *)pool, n, rotation_slots(n * 4), 0, d_out, NULL, 0};
        int32_t a = 0, b = 1;
        sum_once(&c, gp_per_call_timed, &a);
        sum_once(&c, gp_timed, &b);
        if (a != b) fail("status ladder: per-call and status-memory sums differ");
        const int batch = gp_bench_batch_size((size_t)1 << 22, n);
        const float per_call = gp_bench_median_ms_batch(gp_per_call_timed, &c, batch);
        const float kept = gp_bench_median_ms_batch(gp_timed, &c, batch);
        const float per_call_one = gp_bench_median_ms(gp_per_call_timed, &c);
        const float kept_one = gp_bench_median_ms(gp_timed, &c);
        gp_table_row("2^%d|%.2f|%.2f|%.2fx|%.2f|%.2f", lg, per_call * 1e3, kept * 1e3, per_call / kept, per_call_one * 1e3,
                     kept_one * 1e3);
    }
    gp_bench_note("The same reduce kernel both ways, checked bitwise equal first. Per-call clearing: its scratch "
                  "(done counter and one partial a block) allocated from the pool, its counter cleared by "
                  "cudaMemsetAsync, freed after the kernel, all stream-ordered: a memset and a kernel a call. Status "
                  "memory (the library): the stream's region, left at zero by the last block, one launch a call. "
                  "Calls back to back as in part 2 (rotated inputs), and one call from an idle GPU.");
    CUDA_CHK(cudaFree(d_out));
}

static void bench_table(void *pool, size_t pool_elems, double copy_gbps, float empty_ms)
{
    gp_table_begin("gp_reduce vs CUB and copy",
                   "type|n|gp (us)|gp GB/s|% of read kernel|% of copy|CUB (us)|CUB GB/s|gp / CUB throughput|"
                   "read kernel (us)|gp / empty launch|gp one call from idle (us)|CUB one call from idle (us)");

    void *host = malloc(TABLE_MAX_N * 4);
    if (!host) fail("host malloc");
    void *d_out = NULL;
    CUDA_CHK(cudaMalloc(&d_out, 4));
    unsigned fill_blocks = (unsigned)gp__bench.sms * 8;
    char msg[256];

    for (int is_f32 = 1; is_f32 >= 0; is_f32--) {
        const char *type = is_f32 ? "f32" : "i32";
        /* Fill the whole pool (every slot of every size) with this type's values. */
        if (is_f32) fill_f32<<<fill_blocks, 256>>>((float *)pool, pool_elems, TABLE_SEED);
        else fill_i32<<<fill_blocks, 256>>>((int32_t *)pool, pool_elems, TABLE_SEED);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(host, pool, TABLE_MAX_N * 4, cudaMemcpyDeviceToHost));

        /* Host references: slot 0 of size n is pool[0..n), so one pass gives every prefix. */
        double ref_f[TABLE_SIZES];
        int64_t ref_i[TABLE_SIZES];
        {
            double sf = 0;
            int64_t si = 0;
            int s = 0;
            for (size_t i = 0; i < TABLE_MAX_N && s < TABLE_SIZES; i++) {
                if (is_f32) sf += (double)((const float *)host)[i];
                else si += ((const int32_t *)host)[i];
                if (i + 1 == ((size_t)1 << table_log2n[s])) {
                    ref_f[s] = sf;
                    ref_i[s] = si;
                    s++;
                }
            }
        }

        for (int s = 0; s < TABLE_SIZES; s++) {
            size_t n = (size_t)1 << table_log2n[s];
            sum_ctx c = {is_f32, (const char *)pool, n, rotation_slots(n * 4), 0, d_out, NULL, 0};
            cub_alloc(&c);

            /* validate gp and CUB on slot 0: against the host and against each other */
            union { float f; int32_t i; } gp_r, cub_r;
            sum_once(&c, gp_timed, &gp_r);
            sum_once(&c, cub_timed, &cub_r);
            int ok;
            if (is_f32)
                ok = f32_close(gp_r.f, ref_f[s]) && f32_close(cub_r.f, ref_f[s]) &&
                     f32_close(gp_r.f, cub_r.f);
            else
                ok = (int64_t)gp_r.i == ref_i[s] && (int64_t)cub_r.i == ref_i[s];
            if (!ok) {
                if (is_f32)
                    snprintf(msg, sizeof msg, "f32 n=2^%d: gp %.9g, CUB %.9g, host %.9g",
                             table_log2n[s], gp_r.f, cub_r.f, ref_f[s]);
                else
                    snprintf(msg, sizeof msg, "i32 n=2^%d: gp %d, CUB %d, host %lld",
                             table_log2n[s], gp_r.i, cub_r.i, (long long)ref_i[s]);
                fail(msg);
            }

            /* back to back (batch) for the throughput columns; one call from idle too */
            const int batch = gp_bench_batch_size((size_t)1 << 22, n);
            read_ctx rc = {(const char *)pool, n * 4, rotation_slots(n * 4), 0};
            const gp_bench_fn fns[3] = {gp_timed, cub_timed, read_timed};
            void *const ctxs[3] = {&c, &c, &rc};
            float ms3[3];
            gp_bench_medians(fns, ctxs, 3, batch, GP_BENCH_WARMUP, GP_BENCH_REPS, ms3); /* in turn */
            const float gp_ms = ms3[0], cub_ms = ms3[1], read_ms = ms3[2];
            float gp_one = gp_bench_median_ms(gp_timed, &c);
            float cub_one = gp_bench_median_ms(cub_timed, &c);
            double gp_gbps = gp_bench_gbps(4.0 * (double)n, gp_ms);
            double cub_gbps = gp_bench_gbps(4.0 * (double)n, cub_ms);
            g_goals.gp_ms[is_f32][s] = gp_ms;
            g_goals.cub_ms[is_f32][s] = cub_ms;
            g_goals.read_ms[is_f32][s] = read_ms;
            gp_table_row("%s|2^%d|%.2f|%.1f|%.1f%%|%.1f%%|%.2f|%.1f|%.2fx|%.2f|%.2fx|%.2f|%.2f", type, table_log2n[s],
                         gp_ms * 1e3, gp_gbps, 100.0 * read_ms / gp_ms, 100.0 * gp_gbps / copy_gbps, cub_ms * 1e3,
                         cub_gbps, cub_ms / gp_ms, read_ms * 1e3, gp_ms / empty_ms, gp_one * 1e3, cub_one * 1e3);
            CUDA_CHK(cudaFree(c.d_temp));
        }
    }

    gp_bench_note(
        "GB/s counts bytes read (4n). %% of read kernel: the read kernel's time on the same bytes "
        "(rotated the same way) over gp's: the read ceiling (part 3's note describes the kernel). "
        "gp / empty launch: gp's time per call over an empty kernel's, both back to back (%.2f us "
        "per empty launch in this run). %% of copy: gp GB/s over the device-to-device copy rate "
        "measured in this run, %.1f GB/s (cudaMemcpy of 1 GiB, read + write). gp / CUB "
        "throughput = CUB time / gp time. Inputs: a device hash of the index; i32 values in "
        "-8..7 checked exactly, f32 values k/2^24 in [0,1) checked within relative %.0e of an "
        "exact host sum, and gp against CUB, before timing. Sizes below 2 x L2 (%d MB) are "
        "rotated through a pool so every call reads DRAM. The first columns time calls "
        "back to back (min(64, 2^22/n) calls between the events, so the GPU's cost per call, "
        "launches pipelined; from 2^23 up one call per batch), gp, CUB and the read kernel timed in turn, "
        "a batch of each per round, so that a drift of the machine falls on all three alike; the last two time one call from an idle GPU (mostly host launch "
        "latency at small n). CUB gets num_items as int and its temp storage allocated outside the timed "
        "region; gp's calls include whatever scratch it allocates (stream-ordered).",
        empty_ms * 1e3, copy_gbps, F32_RTOL, (int)((2 * (size_t)gp__bench.l2_bytes) >> 20));

    free(host);
    CUDA_CHK(cudaFree(d_out));
}

/* ======================================================================================
 * Part 3: the fused map-reduces against cuBLAS and the read kernel, up to 1 GiB of input.
 * cuBLAS runs in pointer mode device (its result stays on the GPU, as gp's does, so no
 * call waits for the host) on the default stream, like gp.
 * ==================================================================================== */

/* f64 inputs: k / 2^24 in [0, 1), as fill_f32's. */
__global__ void fill_f64(double *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (double)(bench_hash(i, seed) >> 8) * (1.0 / 16777216.0);
}

enum { DOT_F32, DOT_F64, SSQ_F32, SSQ_F64, BLAS_OPS };
static const struct {
    const char *gp, *cublas;
    size_t elem;
    int inputs;
} blas_ops[BLAS_OPS] = {{"gp_dot_f32", "cublasSdot", 4, 2},
                        {"gp_dot_f64", "cublasDdot", 8, 2},
                        {"gp_sum_squares_f32", "cublasSnrm2 (squared)", 4, 1},
                        {"gp_sum_squares_f64", "cublasDnrm2 (squared)", 8, 1}};
/* up to 1 GiB of input (the pool): 2^26 doubles or 2^27 floats a dot product reads, 2^28
 * floats a sum of squares; larger rows are left out */
static const int blas_log2n[] = {16, 20, 24, 26, 27, 28};
#define BLAS_SIZES ((int)(sizeof blas_log2n / sizeof blas_log2n[0]))
static_assert(BLAS_OPS <= 4 && BLAS_SIZES <= 8, "g_goals keeps 4 map-reduces of 8 sizes");

/* Slot k of the pool holds the inputs of one call: a, then b right after it. */
typedef struct {
    int op;
    const char *pool;
    size_t n, slot_bytes;
    int slots, next;
    void *d_out;
    cublasHandle_t h;
} blas_ctx;

static void blas_call(blas_ctx *c, int use_cublas)
{
    const char *a = c->pool + (size_t)c->next * c->slot_bytes, *b = a + c->n * blas_ops[c->op].elem;
    c->next = (c->next + 1) % c->slots;
    const int n = (int)c->n; /* cuBLAS counts are int; every n here is < 2^31 */
    const float *af = (const float *)a, *bf = (const float *)b;
    const double *ad = (const double *)a, *bd = (const double *)b;
    float *of = (float *)c->d_out;
    double *od = (double *)c->d_out;
    switch (c->op) {
    case DOT_F32:
        if (use_cublas) CUBLAS_CHK(cublasSdot(c->h, n, af, 1, bf, 1, of));
        else CUDA_CHK(gp_dot_f32(of, af, bf, c->n, 0));
        break;
    case DOT_F64:
        if (use_cublas) CUBLAS_CHK(cublasDdot(c->h, n, ad, 1, bd, 1, od));
        else CUDA_CHK(gp_dot_f64(od, ad, bd, c->n, 0));
        break;
    case SSQ_F32:
        if (use_cublas) CUBLAS_CHK(cublasSnrm2(c->h, n, af, 1, of));
        else CUDA_CHK(gp_sum_squares_f32(of, af, c->n, 0));
        break;
    default:
        if (use_cublas) CUBLAS_CHK(cublasDnrm2(c->h, n, ad, 1, od));
        else CUDA_CHK(gp_sum_squares_f64(od, ad, c->n, 0));
    }
}
static void gp_blas_timed(void *p) { blas_call((blas_ctx *)p, 0); }
static void cublas_timed(void *p) { blas_call((blas_ctx *)p, 1); }

/* One result on slot 0 (output poisoned first), as a double; nrm2 squared. */
static double blas_once(blas_ctx *c, int use_cublas)
{
    CUDA_CHK(cudaMemset(c->d_out, 0xA5, 8));
    c->next = 0;
    blas_call(c, use_cublas);
    c->next = 0;
    double r;
    if (blas_ops[c->op].elem == 4) {
        float f;
        CUDA_CHK(cudaMemcpy(&f, c->d_out, 4, cudaMemcpyDeviceToHost));
        r = f;
    } else {
        CUDA_CHK(cudaMemcpy(&r, c->d_out, 8, cudaMemcpyDeviceToHost));
    }
    return use_cublas && c->op >= SSQ_F32 ? r * r : r;
}

static void bench_blas(void *pool, size_t pool_bytes, void *host)
{
    gp_table_begin("map-reduce vs cuBLAS and the read kernel",
                   "map-reduce|n|gp (us)|gp GB/s|% of read kernel|cuBLAS|cuBLAS (us)|cuBLAS GB/s|"
                   "gp / cuBLAS (time ratio)|read kernel (us)");
    cublasHandle_t h;
    CUBLAS_CHK(cublasCreate(&h));
    CUBLAS_CHK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_CHK(cublasSetStream(h, 0));
    void *d_out = NULL;
    CUDA_CHK(cudaMalloc(&d_out, 8));
    char msg[256];
    for (int op = 0; op < BLAS_OPS; op++) {
        const size_t elem = blas_ops[op].elem;
        if (elem == 4) fill_f32<<<(unsigned)gp__bench.sms * 8, 256>>>((float *)pool, pool_bytes / 4, TABLE_SEED);
        else fill_f64<<<(unsigned)gp__bench.sms * 8, 256>>>((double *)pool, pool_bytes / 8, TABLE_SEED);
        CUDA_CHK_LAUNCH();
        for (int s = 0; s < BLAS_SIZES; s++) {
            const size_t n = (size_t)1 << blas_log2n[s], bytes = n * elem * blas_ops[op].inputs;
            if (bytes > pool_bytes) continue;
            blas_ctx c = {op, (const char *)pool, n, bytes, rotation_slots(bytes), 0, d_out, h};
            if ((size_t)c.slots * bytes > pool_bytes) fail("map-reduce table: the pool is too small");
            /* validate on slot 0: the host sum in long double, gp and cuBLAS within the
             * type's tolerance (every term is positive: no cancellation) */
            CUDA_CHK(cudaMemcpy(host, pool, bytes, cudaMemcpyDeviceToHost));
            long double want = 0;
            for (size_t i = 0; i < n; i++) {
                const long double x = elem == 4 ? ((const float *)host)[i] : ((const double *)host)[i];
                const long double y = blas_ops[op].inputs == 1 ? x
                                      : elem == 4              ? ((const float *)host)[n + i]
                                                               : ((const double *)host)[n + i];
                want += x * y;
            }
            const double rtol = elem == 4 ? F32_RTOL : 1e-10;
            const double gp_r = blas_once(&c, 0), blas_r = blas_once(&c, 1);
            if (fabs(gp_r - (double)want) > rtol * (double)want || fabs(blas_r - (double)want) > rtol * (double)want) {
                snprintf(msg, sizeof msg, "%s n=2^%d: gp %.12g, %s %.12g, host %.12Lg", blas_ops[op].gp,
                         blas_log2n[s], gp_r, blas_ops[op].cublas, blas_r, want);
                fail(msg);
            }
            const int batch = gp_bench_batch_size((size_t)1 << 22, n);
            const float gp_ms = gp_bench_median_ms_batch(gp_blas_timed, &c, batch);
            const float blas_ms = gp_bench_median_ms_batch(cublas_timed, &c, batch);
            const float read_ms = read_kernel_ms(pool, bytes, batch);
            g_goals.blas_gp_ms[op][s] = gp_ms;
            g_goals.blas_ms[op][s] = blas_ms;
            g_goals.blas_read_ms[op][s] = read_ms;
            gp_table_row("%s|2^%d|%.2f|%.1f|%.1f%%|%s|%.2f|%.1f|%.2fx|%.2f", blas_ops[op].gp, blas_log2n[s],
                         gp_ms * 1e3, gp_bench_gbps((double)bytes, gp_ms), 100.0 * read_ms / gp_ms, blas_ops[op].cublas,
                         blas_ms * 1e3, gp_bench_gbps((double)bytes, blas_ms), blas_ms / gp_ms, read_ms * 1e3);
        }
    }
    gp_bench_note(
        "GB/s counts bytes read: a dot product reads 2n elements, a sum of squares n. %% of read "
        "kernel: the time of a kernel that only reads the same bytes (16-byte loads, four in flight "
        "per thread, %d blocks of %d threads per SM, grid-stride) over gp's. cuBLAS in pointer "
        "mode device on the default stream, as gp; nrm2 computes sqrt(sum of squares) with "
        "scaling against overflow, the BLAS routine a user would otherwise call (its result is "
        "squared to check it). gp / cuBLAS = cuBLAS time / gp time. Inputs k/2^24 in [0,1) from "
        "a device hash; each result checked against a host sum in long double (relative %.0e for "
        "f32, 1e-10 for f64) before timing; batches and rotation as in the table above.",
        READ_BLOCKS_PER_SM, READ_BLOCK, F32_RTOL);
    CUDA_CHK(cudaFree(d_out));
    CUBLAS_CHK(cublasDestroy(h));
}

/* ======================================================================================
 * Part 4: other element types and operators on 1 GiB, against the read kernel.
 * ==================================================================================== */

/* A 16-byte user type: the first maximum of v (its i rides along). */
typedef struct {
    double v;
    int64_t i;
} bench_arg16;
#define ARG16_MAX(a, b) ((b).v > (a).v ? (b) : (a))
GP_DEFINE_REDUCE(bench_argmax16, bench_arg16, ARG16_MAX, ((bench_arg16){-INFINITY, -1}))

/* Each row's call on 1 GiB, and its sequential host reference (exact, except the f64 sum). */
typedef cudaError_t (*types_fn)(void *out, const void *in, size_t n);
#define TYPES_ROW(fn, T, R)                                                              \
    static cudaError_t types_##fn(void *out, const void *in, size_t n)                  \
    {                                                                                    \
        return gp_##fn((R *)out, (const T *)in, n, 0);                                   \
    }
TYPES_ROW(reduce_min_f32, float, float)
TYPES_ROW(reduce_max_i32, int32_t, int32_t)
TYPES_ROW(reduce_sum_f64, double, double)
TYPES_ROW(reduce_sum_i64, int64_t, int64_t)
TYPES_ROW(reduce_max_u64, uint64_t, uint64_t)
TYPES_ROW(count_nonzero_f32, float, uint64_t)
TYPES_ROW(count_nonzero_f64, double, uint64_t)
TYPES_ROW(reduce_bench_argmax16, bench_arg16, bench_arg16)

static void types_reference(int row, const void *x, size_t n, void *want)
{
    const float *f = (const float *)x;
    const int32_t *i32 = (const int32_t *)x;
    const double *d = (const double *)x;
    const int64_t *i64 = (const int64_t *)x;
    const uint64_t *u64 = (const uint64_t *)x;
    const bench_arg16 *a16 = (const bench_arg16 *)x;
    float mf = INFINITY;
    int32_t mi = INT32_MIN;
    long double sd = 0;
    uint64_t si = 0, mu = 0, cnt = 0;
    bench_arg16 best = {-INFINITY, -1};
    for (size_t k = 0; k < n; k++) switch (row) {
        case 0: mf = f[k] < mf ? f[k] : mf; break;
        case 1: mi = mi < i32[k] ? i32[k] : mi; break;
        case 2: sd += d[k]; break;
        case 3: si += (uint64_t)i64[k]; break;
        case 4: mu = mu < u64[k] ? u64[k] : mu; break;
        case 5: cnt += f[k] != 0; break;
        case 6: cnt += d[k] != 0; break;
        default: best = ARG16_MAX(best, a16[k]);
        }
    switch (row) {
    case 0: memcpy(want, &mf, 4); break;
    case 1: memcpy(want, &mi, 4); break;
    case 2: { const double v = (double)sd; memcpy(want, &v, 8); } break;
    case 3: memcpy(want, &si, 8); break;
    case 4: memcpy(want, &mu, 8); break;
    case 5: case 6: memcpy(want, &cnt, 8); break;
    default: memcpy(want, &best, 16);
    }
}

static void bench_types(void *pool, void *host)
{
    static const struct {
        const char *name;
        size_t elem, out;
        types_fn fn;
    } rows[] = {{"gp_reduce_min_f32", 4, 4, types_reduce_min_f32},
                {"gp_reduce_max_i32", 4, 4, types_reduce_max_i32},
                {"gp_reduce_sum_f64", 8, 8, types_reduce_sum_f64},
                {"gp_reduce_sum_i64", 8, 8, types_reduce_sum_i64},
                {"gp_reduce_max_u64", 8, 8, types_reduce_max_u64},
                {"gp_count_nonzero_f32", 4, 8, types_count_nonzero_f32},
                {"gp_count_nonzero_f64", 8, 8, types_count_nonzero_f64},
                {"GP_DEFINE_REDUCE argmax, 16-byte {double, int64}", 16, 16, types_reduce_bench_argmax16}};
    const size_t bytes = (size_t)1 << 30;
    gp_table_begin("other element types and operators (1 GiB)",
                   "call|element bytes|n|gp (us)|gp GB/s|% of read kernel|read kernel (us)");
    fill_f32<<<(unsigned)gp__bench.sms * 8, 256>>>((float *)pool, bytes / 4, TABLE_SEED);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(host, pool, bytes, cudaMemcpyDeviceToHost));
    const float read_ms = read_kernel_ms(pool, bytes, 1);
    void *d_out = NULL;
    CUDA_CHK(cudaMalloc(&d_out, 16));
    char msg[256];
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const size_t n = bytes / rows[r].elem;
        unsigned char want[16], got[16];
        types_reference((int)r, host, n, want);
        CUDA_CHK(cudaMemset(d_out, 0xA5, 16));
        CUDA_CHK(rows[r].fn(d_out, pool, n));
        CUDA_CHK(cudaMemcpy(got, d_out, rows[r].out, cudaMemcpyDeviceToHost));
        double g, w;
        memcpy(&g, got, 8);
        memcpy(&w, want, 8);
        const int ok = r == 2 ? fabs(g - w) <= 1e-12 * fabs(w) : memcmp(got, want, rows[r].out) == 0;
        if (!ok) {
            snprintf(msg, sizeof msg, "%s on 1 GiB: result differs from the host reference", rows[r].name);
            fail(msg);
        }
        struct types_ctx {
            types_fn fn;
            void *out;
            const void *in;
            size_t n;
        } c = {rows[r].fn, d_out, pool, n};
        const float ms = gp_bench_median_ms(
            [](void *p) {
                types_ctx *t = (types_ctx *)p;
                CUDA_CHK(t->fn(t->out, t->in, t->n));
            },
            &c);
        g_goals.types_ms[r] = ms;
        g_goals.types_read_ms = read_ms;
        gp_table_row("%s|%zu|2^%d|%.2f|%.1f|%.1f%%|%.2f", rows[r].name, rows[r].elem, (int)log2((double)n), ms * 1e3,
                     gp_bench_gbps((double)bytes, ms), 100.0 * read_ms / ms, read_ms * 1e3);
    }
    gp_bench_note("Every call reads the same 1 GiB (f32 values k/2^24 in [0,1), read as each type), "
                  "checked against a sequential host reference (exact; the f64 sum within 1e-12 relative "
                  "of a long double sum) before timing. %% of read kernel: the read kernel's time on the "
                  "same GiB over gp's. One call per timing (1 GiB is far above the L2).");
    CUDA_CHK(cudaFree(d_out));
}

/* ======================================================================================
 * Part 5: the goals, from the figures above (all from this run).
 * ==================================================================================== */
static int table_index(int log2n)
{
    for (int s = 0; s < TABLE_SIZES; s++)
        if (table_log2n[s] == log2n) return s;
    fail("goals: a size the table did not run");
    return -1;
}

static void bench_goals(int have_all)
{
    gp_table_begin("gp_reduce against the goals (this run)", "row|n|measured|goal|met");
    for (int f = 1; f >= 0; f--) {
        const char *type = f ? "f32" : "i32";
        for (int lg = 10; lg <= 16; lg += 6) {
            const int s = table_index(lg);
            const double r = g_goals.gp_ms[f][s] / g_goals.empty_ms;
            gp_table_row("%s time / empty launch|2^%d|%.2fx (%.2f us)|<= 1.10x|%s", type, lg, r,
                         g_goals.gp_ms[f][s] * 1e3, r <= 1.10 ? "yes" : "no");
        }
        for (int lg = 20; lg <= 24; lg += 2) {
            const int s = table_index(lg);
            const double r = g_goals.cub_ms[f][s] / g_goals.gp_ms[f][s];
            gp_table_row("%s vs CUB|2^%d|%.2fx|>= 1.05x|%s", type, lg, r, r >= 1.05 ? "yes" : "no");
        }
        for (int lg = 26; lg <= 28; lg += 2) {
            const int s = table_index(lg);
            const double r = g_goals.cub_ms[f][s] / g_goals.gp_ms[f][s],
                         pct = 100.0 * g_goals.read_ms[f][s] / g_goals.gp_ms[f][s];
            gp_table_row("%s vs CUB, %% of read kernel|2^%d|%.2fx, %.1f%%|>= 1.02x, >= 98%%|%s", type, lg, r, pct,
                         r >= 1.02 && pct >= 98.0 ? "yes" : "no");
        }
    }
    if (have_all) {
        static const struct {
            int row;
            const char *name;
            int log2n;
            double goal;
        } wide[] = {{2, "f64 sum", 27, 97.0}, {3, "i64 sum", 27, 97.0}, {4, "u64 max", 27, 97.0},
                    {7, "16-byte argmax (GP_DEFINE_REDUCE)", 26, 90.0}};
        for (const auto &w : wide) {
            const double pct = 100.0 * g_goals.types_read_ms / g_goals.types_ms[w.row];
            gp_table_row("%s, %% of read kernel|2^%d|%.1f%%|>= %.0f%%|%s", w.name, w.log2n, pct, w.goal,
                         pct >= w.goal ? "yes" : "no");
        }
        const int s28 = table_index(28);
        const double min_r = g_goals.types_ms[0] / g_goals.gp_ms[1][s28], max_r = g_goals.types_ms[1] / g_goals.gp_ms[0][s28];
        gp_table_row("f32 min time / f32 sum time|2^28|%.3f|<= 1.02 (the speed of sum)|%s", min_r,
                     min_r <= 1.02 ? "yes" : "no");
        gp_table_row("i32 max time / i32 sum time|2^28|%.3f|<= 1.02 (the speed of sum)|%s", max_r,
                     max_r <= 1.02 ? "yes" : "no");
        for (int op = 0; op < BLAS_OPS; op++) {
            int s = BLAS_SIZES - 1;
            while (s > 0 && g_goals.blas_gp_ms[op][s] == 0) s--;
            const double r = g_goals.blas_ms[op][s] / g_goals.blas_gp_ms[op][s],
                         pct = 100.0 * g_goals.blas_read_ms[op][s] / g_goals.blas_gp_ms[op][s];
            gp_table_row("%s vs %s, %% of read kernel|2^%d|%.2fx, %.1f%%|>= 1.00x, >= 97%%|%s", blas_ops[op].gp,
                         blas_ops[op].cublas, blas_log2n[s], r, pct, r >= 1.0 && pct >= 97.0 ? "yes" : "no");
        }
    }
    gp_bench_note("Ratios from the tables above, this run. Time / empty launch: calls back to back against "
                  "an empty kernel's (%.2f us). vs CUB and vs cuBLAS: their time over gp's (above 1x: gp "
                  "faster). %% of read kernel: the read kernel's time on the same bytes over gp's. The "
                  "wider types, the extrema and the map-reduces on 1 GiB of input (the map-reduce rows "
                  "of their largest size). Within 2%% counts as the speed of sum (run-to-run noise is "
                  "about 1%%).",
                  g_goals.empty_ms * 1e3);
}

int main(int argc, char **argv)
{
    /* `reduce table`: the floors and part 2 only (a quick look at a tuning variant) */
    const int table_only = argc > 1 && strcmp(argv[1], "table") == 0;
    need_gpu(__FILE__);
    gp_bench_begin("reduce", "Reduction");

    /* One pool for part 2, large enough for 2^28 floats, for the rotation of every smaller
     * size, and as the copy-rate source (1 GiB). */
    size_t pool_elems = TABLE_MAX_N;
    for (int s = 0; s < TABLE_SIZES; s++) {
        size_t n = (size_t)1 << table_log2n[s];
        size_t need = n * (size_t)rotation_slots(n * 4);
        if (need > pool_elems) pool_elems = need;
    }
    if (pool_elems * 4 < COPY_BYTES) pool_elems = COPY_BYTES / 4;
    void *pool = NULL, *copy_dst = NULL;
    CUDA_CHK(cudaMalloc(&pool, pool_elems * 4));
    fill_i32<<<(unsigned)gp__bench.sms * 8, 256>>>((int32_t *)pool, pool_elems, TABLE_SEED);
    CUDA_CHK_LAUNCH();

    /* The bandwidth ceiling, measured once in this run. */
    CUDA_CHK(cudaMalloc(&copy_dst, COPY_BYTES));
    float copy_ms = gp_bench_copy_ms(copy_dst, pool, COPY_BYTES);
    double copy_gbps = gp_bench_gbps(2.0 * (double)COPY_BYTES, copy_ms);
    CUDA_CHK(cudaFree(copy_dst));

    /* The floors: an empty kernel back to back, the read kernel on 1 GiB. */
    CUDA_CHK(cudaMalloc(&g_sink, sizeof(unsigned)));
    const float empty_ms = gp_bench_median_ms_batch(gp_bench_empty, NULL, 64);
    g_goals.empty_ms = empty_ms;
    const float read_ms = read_kernel_ms(pool, COPY_BYTES, 1);
    gp_table_begin("floors", "what|time (us)|GB/s read");
    gp_table_row("empty kernel, back to back|%.2f|-", empty_ms * 1e3);
    gp_table_row("read kernel, 1 GiB|%.2f|%.1f", read_ms * 1e3, gp_bench_gbps((double)COPY_BYTES, read_ms));
    gp_table_row("device-to-device copy, 1 GiB|%.2f|%.1f (read + write: %.1f)", copy_ms * 1e3,
                 gp_bench_gbps((double)COPY_BYTES, copy_ms), copy_gbps);

    if (!table_only) bench_ladder(copy_gbps);
    bench_table(pool, pool_elems, copy_gbps, empty_ms);
    if (!table_only) bench_status(pool);
    if (!table_only) {
        void *host = malloc(pool_elems * 4);
        if (!host) fail("host malloc");
        bench_blas(pool, pool_elems * 4, host);
        bench_types(pool, host);
        free(host);
    }
    bench_goals(!table_only);

    CUDA_CHK(cudaFree(g_sink));
    CUDA_CHK(cudaFree(pool));
    gp_bench_end();
    return 0;
}
