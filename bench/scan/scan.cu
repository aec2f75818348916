/* bench/scan/scan.cu -- Harris's 2007 scan table replayed on today's GPU, then the scan ladder:
 * naive Hillis-Steele, Blelloch, Blelloch with conflict-free padding, the register block
 * scan, gp_exclusive_scan, CUB DeviceScan::ExclusiveSum and the device-to-device copy.
 *
 * Part 1, "Harris 2007 scan table": exclusive float scan of n = 1024 .. 16M (the sizes of
 * Table 2 in Mark Harris, "Parallel Prefix Sum (Scan) with CUDA", NVIDIA, April 2007, the
 * report that became GPU Gems 3 ch. 39; its "8388688" is read as 8388608), one CPU core (a
 * plain loop, this machine's host CPU) against gp_exclusive_scan_sum_f32 (one call from an
 * idle GPU, as Harris timed one call), beside Harris's CPU and 8800 GTX figures.
 *
 * Part 2, "Scan ladder": f32 and i32, n = 2^10 .. 2^28 by powers of 4. The block kernels
 * of Harris, Sengupta & Owens (GPU Gems 3 ch. 39) scan one block's worth; to scan n
 * elements each is used the way the chapter does: scan blocks, scan the block totals
 * (recursively), add them back.
 *   Hillis-Steele: their naive double-buffered scan, 1024 elements per block, log2
 *     steps, O(n log n) work.
 *   Blelloch: their work-efficient prescan, 2048 elements per 1024-thread block.
 *   Blelloch padded: the same with gp_blelloch_index (bank-conflict-free).
 *   register block scan: gp_block_exclusive_scan (warp shuffles), 1024 elements per block.
 *   gp 0 .. gp 9: the device scan's redesign ladder. gp 0 is the previous design (a
 *     two-level deterministic look-back over one 2048-float tile per block, kept in
 *     scan_lookback.cuh); gp 1 .. gp 9 are the persistent look-ahead kernel under the knobs
 *     of gp__scan (plain loads, then a bulk-copy ring of 2 and 4 stages, each after a
 *     memset of its scratch; then the scratch cleared by a kernel that the scan's launch
 *     overlaps; then 6 stages; then the look-ahead's batch trees interleaved; then chained
 *     launches; then small scans spread over a cluster of 16 SMs; then the ring's first
 *     stages filled one at a time); gp 9 is the default,
 *     gp_exclusive_scan_<sum>_<type>.
 *   CUB: cub::DeviceScan::ExclusiveSum, temp storage allocated outside the timed region.
 *   copy: cudaMemcpyAsync device to device of the same n elements.
 * Time: calls back to back (min(64, 2^22/n) between the events: the GPU's cost per call,
 * launches pipelined), median of 31 batches. GB/s counts bytes read + written (8n for
 * 4-byte types). % of copy: copy time / time. vs CUB: CUB time / time (above 1: faster).
 * Every variant's output is checked against a host reference before it is timed (i32
 * exactly, f32 within a relative 1e-5); inputs below 2 x L2 are rotated through a pool, so
 * the figures are DRAM figures.
 *
 * Part 3, "against the goals": the empty-kernel launch floor, the small sizes against it,
 * 2^20..2^28 against CUB and the copy rate (from Part 2), 8-byte types at 2^27 and a
 * float4 sum at 2^26 against the copy of the same bytes (f64 also against CUB), inclusive
 * against exclusive and in place against out of place at 2^28, each with its goal.
 *
 * Build and run:  make bench   (or: make build/bench/scan && build/bench/scan)
 * Tables: stdout and bench/results/<gpu>.scan.{md,csv}. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cub/device/device_scan.cuh>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"
#include "scan_lookback.cuh"

/* the 16-byte row: a float4 sum, as a user would define it */
static inline __device__ float4 f4_add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
#define F4_ADD(a, b) f4_add((a), (b))
GP_DEFINE_SCAN(f4, float4, F4_ADD, make_float4(0, 0, 0, 0))

#define MAX_LOG2N 28
#define MAX_N ((size_t)1 << MAX_LOG2N)
#define F32_RTOL 1e-5

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    exit(1);
}

/* gp_exclusive_scan's ladder figures, for the goals table (Part 3) */
static struct { double vs_cub[2][MAX_LOG2N + 1], pct[2][MAX_LOG2N + 1], us[2][MAX_LOG2N + 1]; } g_goal;

/* ---- ladder kernels ------------------------------------------------------------------- */

/* Hillis-Steele (GPU Gems 3's naive scan): one element per thread, double-buffered in
 * shared memory (2 x 1024 elements), exclusive. Out-of-range elements read as 0. */
template <class T>
__global__ void __launch_bounds__(1024) hillis_steele_block(T *out, const T *in, T *sums, size_t n)
{
    __shared__ T temp[2][1024];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 1024 + t;
    int pout = 0;
    temp[0][t] = t > 0 && i - 1 < n ? in[i - 1] : (T)0; /* exclusive: shift right by one */
    const T last = i < n && t == 1023 ? in[i] : (T)0;
    __syncthreads();
    for (unsigned offset = 1; offset < 1024; offset <<= 1) {
        pout = 1 - pout;
        const int pin = 1 - pout;
        temp[pout][t] = t >= offset ? temp[pin][t] + temp[pin][t - offset] : temp[pin][t];
        __syncthreads();
    }
    if (i < n) out[i] = temp[pout][t];
    if (t == 1023) sums[blockIdx.x] = temp[pout][t] + last;
}

/* Blelloch (GPU Gems 3's prescan), 2048 elements per 1024-thread block, plain or padded. */
template <class Op, bool PADDED>
__global__ void __launch_bounds__(1024) blelloch_block(typename Op::type *out, const typename Op::type *in,
                                                       typename Op::type *sums, size_t n)
{
    typedef typename Op::type T;
    __shared__ T s[2048 + 66];
    const unsigned t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * 2048;
    const unsigned a = t, b = t + 1024;
    s[PADDED ? gp_blelloch_index(a) : a] = base + a < n ? in[base + a] : Op::identity();
    s[PADDED ? gp_blelloch_index(b) : b] = base + b < n ? in[base + b] : Op::identity();
    const T total = gp__block_scan_blelloch<Op, PADDED>(s, 2048);
    if (base + a < n) out[base + a] = s[PADDED ? gp_blelloch_index(a) : a];
    if (base + b < n) out[base + b] = s[PADDED ? gp_blelloch_index(b) : b];
    if (t == 0) sums[blockIdx.x] = total;
}

/* The register block scan (warp shuffles), one element per thread, 1024 per block. */
template <class Op>
__global__ void __launch_bounds__(1024) register_block(typename Op::type *out, const typename Op::type *in,
                                                       typename Op::type *sums, size_t n)
{
    typedef typename Op::type T;
    const size_t i = (size_t)blockIdx.x * 1024 + threadIdx.x;
    T total;
    const T v = gp__block_scan<Op, false>(i < n ? in[i] : Op::identity(), &total);
    if (i < n) out[i] = v;
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

/* Adds the scanned block totals back: out[i] = prefix[i / chunk] + out[i]. */
template <class T>
__global__ void add_block_prefix(T *out, const T *prefix, size_t n, unsigned chunk)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = prefix[i / chunk] + out[i];
}

/* The redesign ladder (rows GP_*): each step's predicted % of copy at 2^28 f32, written
 * before it was measured, is in the table note. */
enum { HILLIS_STEELE, BLELLOCH, BLELLOCH_PADDED, REGISTER_BLOCK, GP_LOOKBACK, GP_PLAIN, GP_RING2, GP_MEMSET, GP_CLEAR,
       GP_RING6, GP_TREES, GP_CHAIN, GP_SPREAD, GP_RAMP, GP, CUB, COPY, VARIANTS };
static const char *variant_name[VARIANTS] = {"Hillis-Steele", "Blelloch", "Blelloch padded",
                                             "register block scan", "gp 0: two-level look-back (previous)",
                                             "gp 1: persistent look-ahead + reduce warp, plain loads",
                                             "gp 2: + bulk-copy ring, 2 stages", "gp 3: 4 stages",
                                             "gp 4: + scratch cleared under the launch",
                                             "gp 5: 6 stages",
                                             "gp 6: + look-ahead's batch trees interleaved",
                                             "gp 7: + launches chained",
                                             "gp 8: + small scans spread over a cluster of 16 SMs",
                                             "gp 9: + ring filled one stage at a time",
                                             "gp 11: + status memory (no clearing launch, no allocation) = gp_exclusive_scan",
                                             "CUB ExclusiveSum", "copy (d2d)"};
/* stages, bulk copies, blocks per SM (0: what fits), scratch cleared by cudaMemsetAsync,
 * the look-ahead's batch trees one after another, launches not chained, the small plan's
 * one-block and cluster-block limits in warps and its largest cluster (32, 32 and 8: a full
 * 1024-thread block per 16K floats, in clusters of up to 8, as before gp 8), the ring's
 * first stages taken one at a time (-1: all at once, as before gp 9), one look-ahead warp
 * for every type (as before gp 10; no change for the 4-byte types of this table), scratch
 * from the pool per call, cleared before the kernel (as before gp 11: status memory) */
static const gp__scan_knobs ladder_knobs[VARIANTS] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},      {4, 0, 0, 1, 1, 1, 32, 32, 8, -1, 1, 1},
    {2, 1, 0, 1, 1, 1, 32, 32, 8, -1, 1, 1},   {4, 1, 0, 1, 1, 1, 32, 32, 8, -1, 1, 1},
    {4, 1, 0, 0, 1, 1, 32, 32, 8, -1, 1, 1},   {6, 1, 0, 0, 1, 1, 32, 32, 8, -1, 1, 1},
    {4, 1, 0, 0, 0, 1, 32, 32, 8, -1, 1, 1},   {4, 1, 0, 0, 0, 0, 32, 32, 8, -1, 1, 1},
    {0, 1, 0, 0, 0, 0, 0, 0, 0, -1, 1, 1},     {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

/* Per-level scratch for the recursive ladder scans: block totals and their scan. */
typedef struct { void *sums[4], *scanned[4]; } ladder_levels;

template <class T, class Op>
static void ladder_scan(int v, T *out, const T *in, size_t n, const ladder_levels *lv, int level)
{
    const unsigned chunk = v == BLELLOCH || v == BLELLOCH_PADDED ? 2048 : 1024;
    const size_t blocks = (n + chunk - 1) / chunk;
    T *sums = (T *)lv->sums[level], *scanned = (T *)lv->scanned[level];
    if (v == HILLIS_STEELE) hillis_steele_block<T><<<(unsigned)blocks, 1024>>>(out, in, sums, n);
    else if (v == BLELLOCH) blelloch_block<Op, false><<<(unsigned)blocks, 1024>>>(out, in, sums, n);
    else if (v == BLELLOCH_PADDED) blelloch_block<Op, true><<<(unsigned)blocks, 1024>>>(out, in, sums, n);
    else register_block<Op><<<(unsigned)blocks, 1024>>>(out, in, sums, n);
    CUDA_CHK_LAUNCH();
    if (blocks > 1) {
        ladder_scan<T, Op>(v, scanned, sums, blocks, lv, level + 1);
        add_block_prefix<T><<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256>>>(out, scanned, n, chunk);
        CUDA_CHK_LAUNCH();
    }
}

/* ---- one timed call --------------------------------------------------------------------- */

typedef struct {
    int variant, is_f32;
    char *in_pool, *out_pool; /* slots of n elements, rotated */
    size_t n;
    int slots, next;
    const ladder_levels *lv;
    void *cub_temp;
    size_t cub_bytes;
} call_ctx;

static void call_once(call_ctx *c, int slot)
{
    const size_t bytes = c->n * 4;
    const void *in = c->in_pool + (size_t)slot * bytes;
    void *out = c->out_pool + (size_t)slot * bytes;
    switch (c->variant) {
    case GP:
        if (c->is_f32) CUDA_CHK(gp_exclusive_scan_sum_f32((float *)out, (const float *)in, c->n, 0));
        else CUDA_CHK(gp_exclusive_scan_sum_i32((int32_t *)out, (const int32_t *)in, c->n, 0));
        break;
    case GP_LOOKBACK:
        if (c->is_f32) CUDA_CHK(gp_lookback::gp__lb_scan<gp__op_sum_f32>((float *)out, (const float *)in, c->n, 0, 0));
        else CUDA_CHK(gp_lookback::gp__lb_scan<gp__op_sum_i32>((int32_t *)out, (const int32_t *)in, c->n, 0, 0));
        break;
    case GP_PLAIN:
    case GP_RING2:
    case GP_MEMSET:
    case GP_CLEAR:
    case GP_RING6:
    case GP_TREES:
    case GP_CHAIN:
    case GP_SPREAD:
    case GP_RAMP:
        if (c->is_f32)
            CUDA_CHK(gp__scan<gp__op_sum_f32>((float *)out, (const float *)in, c->n, 0, 0, NULL, &ladder_knobs[c->variant]));
        else
            CUDA_CHK(gp__scan<gp__op_sum_i32>((int32_t *)out, (const int32_t *)in, c->n, 0, 0, NULL,
                                              &ladder_knobs[c->variant]));
        break;
    case CUB:
        if (c->is_f32) CUDA_CHK(cub::DeviceScan::ExclusiveSum(c->cub_temp, c->cub_bytes, (const float *)in, (float *)out, (int)c->n));
        else CUDA_CHK(cub::DeviceScan::ExclusiveSum(c->cub_temp, c->cub_bytes, (const int32_t *)in, (int32_t *)out, (int)c->n));
        break;
    case COPY: CUDA_CHK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, 0)); break;
    default:
        if (c->is_f32) ladder_scan<float, gp__op_sum_f32>(c->variant, (float *)out, (const float *)in, c->n, c->lv, 0);
        else ladder_scan<int32_t, gp__op_sum_i32>(c->variant, (int32_t *)out, (const int32_t *)in, c->n, c->lv, 0);
    }
}
static void call_timed(void *p)
{
    call_ctx *c = (call_ctx *)p;
    call_once(c, c->next);
    c->next = (c->next + 1) % c->slots;
}

/* ---- inputs and references -------------------------------------------------------------- */

__host__ __device__ static inline uint32_t bench_hash(uint64_t i)
{
    uint64_t z = i + 0x9E3779B97F4A7C15ull * 0x5ca1ab1eull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}
/* i32: -8..7 (no prefix of 2^28 of them leaves int32). f32: 0, 0.25, .., 3.75. Slot s of
 * size n holds the same values as slot 0, so one reference serves every slot. */
__global__ void fill_pool(char *pool, size_t n, int slots, int is_f32)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n * (size_t)slots; k += (size_t)gridDim.x * blockDim.x) {
        const uint32_t h = bench_hash(k % n);
        if (is_f32) ((float *)pool)[k] = (float)(h >> 28) * 0.25f;
        else ((int32_t *)pool)[k] = (int32_t)(h >> 28) - 8;
    }
}

static int rotation_slots(size_t bytes_per_call) /* in + out bytes of one call */
{
    return (int)(2 * (size_t)gp__bench.l2_bytes / bytes_per_call + 1);
}

/* Output slot 0 against the host's exclusive prefix ref (double for f32, int64 for i32). */
static void validate(const call_ctx *c, const void *ref, void *host, const char *type)
{
    CUDA_CHK(cudaMemset(c->out_pool, 0xA7, c->n * 4));
    call_once((call_ctx *)c, 0);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(host, c->out_pool, c->n * 4, cudaMemcpyDeviceToHost));
    if (c->variant == COPY) return;
    for (size_t i = 0; i < c->n; i++) {
        int ok;
        if (c->is_f32) {
            const double r = ((const double *)ref)[i], g = ((const float *)host)[i];
            ok = fabs(g - r) <= F32_RTOL * (fabs(r) + 1);
        } else {
            ok = ((const int32_t *)host)[i] == (int32_t)((const int64_t *)ref)[i];
        }
        if (!ok) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s %s n=%zu: element %zu wrong", variant_name[c->variant], type, c->n, i);
            fail(msg);
        }
    }
}

/* ======================================================================================
 * Part 1: Harris's 2007 table
 * ==================================================================================== */
static const struct { size_t n; double cpu_ms, gpu_ms; } seed_rows[] = {
    {1024, 0.002231, 0.079492},       {32768, 0.072663, 0.106159},     {65536, 0.146326, 0.137006},
    {131072, 0.726429, 0.200257},     {262144, 1.454742, 0.326900},    {524288, 2.911067, 0.624104},
    {1048576, 5.900097, 1.118091},    {2097152, 11.848376, 2.099666},  {4194304, 23.835931, 4.062923},
    {8388608, 47.390906, 7.987311},   {16777216, 94.794598, 15.854781}};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void bench_seed_table(char *d_in, char *d_out)
{
    gp_table_begin("Harris 2007 scan table: one CPU core vs the GPU (exclusive float scan)",
                   "# elements|CPU scan (ms)|GPU scan (ms)|speedup|2007 CPU (ms)|2007 8800 GTX (ms)|2007 speedup");
    const size_t maxn = 16777216;
    float *x = (float *)malloc(maxn * 4), *y = (float *)malloc(maxn * 4);
    CUDA_CHK(cudaMemcpy(x, d_in, maxn * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < sizeof seed_rows / sizeof *seed_rows; r++) {
        const size_t n = seed_rows[r].n;
        /* CPU: Harris's sequential loop, median of 7 */
        double t[7];
        for (int k = 0; k < 7; k++) {
            const double t0 = now_ms();
            y[0] = 0;
            for (size_t i = 1; i < n; i++) y[i] = y[i - 1] + x[i - 1];
            t[k] = now_ms() - t0;
            if (y[n - 1] < 0) fail("cpu scan"); /* keeps the loop */
        }
        for (int a = 0; a < 7; a++)
            for (int b = a + 1; b < 7; b++)
                if (t[b] < t[a]) { double s = t[a]; t[a] = t[b]; t[b] = s; }
        call_ctx c = {GP, 1, d_in, d_out, n, 1, 0, NULL, NULL, 0};
        const float gpu_ms = gp_bench_median_ms(call_timed, &c);
        gp_table_row("%zu|%.6f|%.6f|%.1f|%.6f|%.6f|%.2f", n, t[3], gpu_ms, t[3] / gpu_ms, seed_rows[r].cpu_ms,
                     seed_rows[r].gpu_ms, seed_rows[r].cpu_ms / seed_rows[r].gpu_ms);
    }
    gp_bench_note("CPU: a plain sequential loop on one core of this machine's host, median of 7. GPU: "
                  "gp_exclusive_scan_sum_f32, one call from an idle GPU (host launch latency included, as one "
                  "call in Harris's table), median of %d, same input in L2 for the small sizes. 2007: "
                  "GeForce 8800 GTX against one core of an Intel Core Duo Extreme 2.93 GHz, as Harris "
                  "names it (his 8388688 row read as 8388608).",
                  GP_BENCH_REPS);
    free(x);
    free(y);
}

/* ======================================================================================
 * Part 2: the ladder
 * ==================================================================================== */
static void bench_ladder(char *in_pool, char *out_pool, size_t pool_bytes)
{
    gp_table_begin("Scan ladder (exclusive sum)",
                   "type|n|variant|time (us)|GB/s|% of copy|vs CUB");
    void *host = malloc(MAX_N * 8), *ref = malloc(MAX_N * 8);
    if (!host || !ref) fail("host malloc");
    ladder_levels lv;
    for (int l = 0; l < 4; l++) {
        CUDA_CHK(cudaMalloc(&lv.sums[l], (MAX_N >> (10 * l)) / 1024 * 4 + 64));
        CUDA_CHK(cudaMalloc(&lv.scanned[l], (MAX_N >> (10 * l)) / 1024 * 4 + 64));
    }
    double gp_vs_cub[2][MAX_LOG2N + 1] = {{0}}, gp_pct[2][MAX_LOG2N + 1] = {{0}};
    double gp_us[2][MAX_LOG2N + 1] = {{0}};
    for (int is_f32 = 1; is_f32 >= 0; is_f32--) {
        const char *type = is_f32 ? "f32" : "i32";
        /* reference: slot 0's values are the first MAX_N of the hash sequence */
        fill_pool<<<2048, 256>>>(in_pool, MAX_N, 1, is_f32);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(host, in_pool, MAX_N * 4, cudaMemcpyDeviceToHost));
        double accf = 0;
        int64_t acci = 0;
        for (size_t i = 0; i < MAX_N; i++) {
            if (is_f32) { ((double *)ref)[i] = accf; accf += ((float *)host)[i]; }
            else { ((int64_t *)ref)[i] = acci; acci += ((int32_t *)host)[i]; }
        }
        for (int lg = 10; lg <= MAX_LOG2N; lg += 2) {
            const size_t n = (size_t)1 << lg;
            int slots = rotation_slots(2 * n * 4);
            if ((size_t)slots * n * 4 > pool_bytes) slots = (int)(pool_bytes / (n * 4));
            fill_pool<<<2048, 256>>>(in_pool, n, slots, is_f32);
            CUDA_CHK_LAUNCH();
            call_ctx c = {0, is_f32, in_pool, out_pool, n, slots, 0, &lv, NULL, 0};
            CUDA_CHK(is_f32 ? cub::DeviceScan::ExclusiveSum(NULL, c.cub_bytes, (const float *)in_pool, (float *)out_pool, (int)n)
                            : cub::DeviceScan::ExclusiveSum(NULL, c.cub_bytes, (const int32_t *)in_pool, (int32_t *)out_pool, (int)n));
            CUDA_CHK(cudaMalloc(&c.cub_temp, c.cub_bytes));
            float ms[VARIANTS];
            const int batch = gp_bench_batch_size((size_t)1 << 22, n);
            for (int v = 0; v < VARIANTS; v++) {
                c.variant = v;
                c.next = 0;
                validate(&c, ref, host, type);
                ms[v] = gp_bench_median_ms_batch(call_timed, &c, batch);
            }
            for (int v = 0; v < VARIANTS; v++) {
                const double gbps = gp_bench_gbps(8.0 * (double)n, ms[v]);
                gp_table_row("%s|2^%d|%s|%.2f|%.1f|%.1f%%|%.2fx", type, lg, variant_name[v], ms[v] * 1e3, gbps,
                             100.0 * ms[COPY] / ms[v], ms[CUB] / ms[v]);
            }
            gp_vs_cub[is_f32][lg] = ms[CUB] / ms[GP];
            gp_pct[is_f32][lg] = 100.0 * ms[COPY] / ms[GP];
            gp_us[is_f32][lg] = ms[GP] * 1e3;
            CUDA_CHK(cudaFree(c.cub_temp));
        }
    }
    gp_bench_note("GB/s: bytes read + written (8n). %% of copy: the same-size device-to-device copy's time over "
                  "the variant's. vs CUB: CUB's time over the variant's (above 1x: faster than CUB). Calls back to "
                  "back, min(64, 2^22/n) per timed batch; inputs and outputs rotated through %d MB pools below "
                  "2 x L2. Ladder rows (Hillis-Steele, Blelloch, register block scan) scan blocks, scan the block "
                  "totals recursively and add them back: 2-4 launches, and about 4n bytes moved instead of 2n. "
                  "Redesign ladder (predicted %% of copy at 2^28 f32, written before measuring): gp 0 the previous "
                  "two-level look-back (measured 53%%). A first persistent version, in which the scanning warps "
                  "published each tile's total only after their previous tile's prefix, was predicted at 90%% and "
                  "measured 18%% (every block advanced in lock step); it is not kept. gp 1 persistent look-ahead "
                  "with a reduce warp that publishes totals on arrival, tiles from an atomic counter, every warp "
                  "loading from global memory itself (predicted 55%%: no ring, the tile is read twice); gp 2 the "
                  "bulk-copy ring, 2 stages (predicted 80%%); gp 3 4 stages (predicted 88%%); gp 1 to gp 3 clear "
                  "their scratch with cudaMemsetAsync before the launch. gp 4 (the default until gp 6): a small kernel clears the "
                  "tile counter and status words and the scan is launched as its programmatic dependent, so its "
                  "launch overlaps the clearing (predicted: 2-3 us less per call from 2^18 to 2^26, the memset's "
                  "launch and completion; no change at 2^28). gp 5 6 stages (predicted 90%% at 2^28). gp 6, the "
                  "default since: the look-ahead warp reduces the batches of a polling round as interleaved trees "
                  "(the same trees, so the same sums) instead of one after another; a %%globaltimer trace of every "
                  "tile had shown each tile's prefix coming 1.3-6 us after the last total it needs was published, "
                  "and the ends of the scan, where those latencies are not hidden by the ring, costing about 16 us "
                  "above the copy from 2^22 up (predicted: 0.5 us less at 2^20, 2.5 us at 2^22, 3.5 us at 2^24, "
                  "5 us at 2^26 and 2^28). From gp 6 on, every gp row's reduce warp also issues its stage loads in "
                  "groups of 8 units (the trace: a tile's total 1.1-1.3 us from landing to publication, then 0.9-1.2). "
                  "gp 7: every call chained: its first kernel (the small scan, or the kernel that clears the scratch) "
                  "is a programmatic dependent of the stream's earlier work and waits for it at its first "
                  "instruction, and the look-ahead kernel lets the next call in as soon as it starts (predicted: "
                  "0.5-1 us less per call up to 2^16, about 1 us from 2^18 to 2^22, within noise above). gp 8, the default until gp 9: "
                  "scans of up to 2^18 floats are spread over the blocks of one cluster of up to 16 "
                  "(the H100 takes 16 where the device allows it, at least 4 warps of elements each), where gp 0 to "
                  "gp 7 used full 1024-thread blocks, one per 16K floats, in clusters of up to 8 (predicted from a "
                  "probe, bench/scan/probes/scan_small.cu: an SM moving 16 KB in and out takes about 1 us less than one "
                  "moving 32 KB, and 3 us less than one moving 64 KB: 2-2.5 us less at 2^14 and 2^16, and 2^18 "
                  "leaves the grid for a cluster, nothing elsewhere). Every gp row's host side keeps its occupancy "
                  "answer per configuration, as the default always did: before, rows gp 1 to gp 7 asked on "
                  "every call and paid about 1 us of host time for it from 2^18 to 2^22. gp 9, the default since (with gp 10, which changes only wider types): "
                  "each block's producer takes the ring's first stages one at a time, each once the one before has "
                  "landed, so that the grid's first tiles land, and the chain of prefixes starts, before the rest "
                  "of the ring is in flight (a trace had shown only loads running for the first 11 us at 2^24; "
                  "predicted from bench/scan/probes/scan_gap.cu, GPU time alone: 1-1.5 us less at 2^22 and 2^24, "
                  "within noise elsewhere). gp 10 (the default since; the type rows of the goals table, not "
                  "this one, where it changes nothing): from 8 bytes up, a second look-ahead warp polls the next "
                  "batches of each round, so that a round covers twice the tiles (a float4 sum had taken three "
                  "round trips a tile, and run at 1080 us at 2^26 on the H100 and the H200 alike; predicted: "
                  "float4 from 67%% to over 80%% of copy on the H100, f64 on the H200 from 78%% to over 90%%). "
                  "gp 11, the default since: status memory. Every row before it allocates its scratch from the pool "
                  "and clears it before the kernel on each call; gp 11 keeps one region per stream, zeroed once, "
                  "whose tile words carry the call's epoch and whose counters the last block resets, so a call is "
                  "one launch with no allocation (predicted: 1-2 us less per call from 2^20 to 2^24, the clearing "
                  "kernel and the pool traffic; within noise at 2^28).",
                  (int)(pool_bytes >> 20));
    for (int is_f32 = 1; is_f32 >= 0; is_f32--)
        for (int lg = 10; lg <= MAX_LOG2N; lg++) {
            g_goal.vs_cub[is_f32][lg] = gp_vs_cub[is_f32][lg];
            g_goal.pct[is_f32][lg] = gp_pct[is_f32][lg];
            g_goal.us[is_f32][lg] = gp_us[is_f32][lg];
        }
    for (int l = 0; l < 4; l++) {
        CUDA_CHK(cudaFree(lv.sums[l]));
        CUDA_CHK(cudaFree(lv.scanned[l]));
    }
    free(host);
    free(ref);
}


/* ======================================================================================
 * Part 3: the goals -- other types, inclusive, in place, the launch floor
 * ==================================================================================== */


enum { X_F64, X_I64, X_U64, X_F4, X_F32 };
typedef struct {
    int kind, inclusive, in_place, copy, cub;
    char *in_pool, *out_pool;
    size_t n, elem;
    int slots, next;
    void *cub_temp;
    size_t cub_bytes;
    const gp__scan_knobs *knobs; /* NULL: the library's defaults */
} xctx;

static void x_call(void *p)
{
    xctx *c = (xctx *)p;
    const size_t bytes = c->n * c->elem;
    char *in = c->in_pool + (size_t)c->next * bytes, *out = c->in_place ? in : c->out_pool + (size_t)c->next * bytes;
    c->next = (c->next + 1) % c->slots;
    if (c->copy) {
        CUDA_CHK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, 0));
        return;
    }
    if (c->cub) {
        CUDA_CHK(cub::DeviceScan::ExclusiveSum(c->cub_temp, c->cub_bytes, (const double *)in, (double *)out, (int64_t)c->n));
        return;
    }
    const int incl = c->inclusive;
    switch (c->kind) {
    case X_F64: CUDA_CHK(gp__scan<gp__op_sum_f64>((double *)out, (const double *)in, c->n, 0, incl, NULL, c->knobs)); break;
    case X_I64: CUDA_CHK(gp__scan<gp__op_sum_i64>((int64_t *)out, (const int64_t *)in, c->n, 0, incl, NULL, c->knobs)); break;
    case X_U64: CUDA_CHK(gp__scan<gp__op_sum_u64>((uint64_t *)out, (const uint64_t *)in, c->n, 0, incl, NULL, c->knobs)); break;
    case X_F4: CUDA_CHK(gp__scan<gp__op_scan_f4>((float4 *)out, (const float4 *)in, c->n, 0, incl, NULL, c->knobs)); break;
    default: CUDA_CHK(gp__scan<gp__op_sum_f32>((float *)out, (const float *)in, c->n, 0, incl, NULL, c->knobs)); break;
    }
}

/* Values: small integers (exact in every type, so integer rows check exactly), scaled by
 * 0.25 for the float types. */
__global__ void fill_kind(char *pool, size_t n, int slots, int kind)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n * (size_t)slots; k += (size_t)gridDim.x * blockDim.x) {
        const uint32_t h = bench_hash(k % n);
        const int v = (int)(h >> 28) - (kind == X_U64 ? 0 : 8);
        if (kind == X_F64) ((double *)pool)[k] = v * 0.25;
        else if (kind == X_I64) ((int64_t *)pool)[k] = v;
        else if (kind == X_U64) ((uint64_t *)pool)[k] = (uint64_t)v;
        else if (kind == X_F4) ((float4 *)pool)[k] = make_float4(v * 0.25f, (float)(h & 15), -1.0f * (h >> 4 & 7), 0.5f);
        else ((float *)pool)[k] = (float)(h >> 28) * 0.25f;
    }
}

/* Slot 0 of one call against a host sequential scan (double accumulators; exact for the
 * integer kinds, relative 1e-5 for the float kinds). */
static void x_validate(xctx *c, char *host_in, char *host_out)
{
    const size_t bytes = c->n * c->elem;
    CUDA_CHK(cudaMemcpy(host_in, c->in_pool, bytes, cudaMemcpyDeviceToHost));
    xctx one = *c;
    one.next = 0;
    x_call(&one);
    CUDA_CHK(cudaDeviceSynchronize());
    CUDA_CHK(cudaMemcpy(host_out, c->in_place ? c->in_pool : c->out_pool, bytes, cudaMemcpyDeviceToHost));
    if (c->copy) return;
    const int lanes = c->kind == X_F4 ? 4 : 1;
    double acc[4] = {0, 0, 0, 0};
    uint64_t iacc = 0;
    for (size_t i = 0; i < c->n; i++)
        for (int l = 0; l < lanes; l++) {
            double x, g;
            int ok;
            if (c->kind == X_I64 || c->kind == X_U64) {
                const uint64_t xi = ((const uint64_t *)host_in)[i], gi = ((const uint64_t *)host_out)[i];
                const uint64_t want = c->inclusive ? iacc + xi : iacc;
                ok = gi == want;
                iacc += xi;
            } else {
                if (c->kind == X_F64) { x = ((const double *)host_in)[i]; g = ((const double *)host_out)[i]; }
                else if (c->kind == X_F4) { x = ((const float *)host_in)[4 * i + l]; g = ((const float *)host_out)[4 * i + l]; }
                else { x = ((const float *)host_in)[i]; g = ((const float *)host_out)[i]; }
                const double want = c->inclusive ? acc[l] + x : acc[l];
                ok = fabs(g - want) <= F32_RTOL * (fabs(want) + 1);
                acc[l] += x;
            }
            if (!ok) {
                char msg[160];
                snprintf(msg, sizeof msg, "goal row kind %d n=%zu: element %zu wrong", c->kind, c->n, i);
                fail(msg);
            }
        }
}

static float x_time(xctx *c, char *host_in, char *host_out)
{
    x_validate(c, host_in, host_out);
    c->next = 0;
    return gp_bench_median_ms_batch(x_call, c, 1);
}

static void bench_goals(char *in_pool, char *out_pool, size_t pool_bytes)
{
    char *host_in = (char *)malloc(pool_bytes), *host_out = (char *)malloc(pool_bytes);
    if (!host_in || !host_out) fail("host malloc");
    const float floor_ms = gp_bench_median_ms_batch(gp_bench_empty, NULL, 64);
    gp_table_begin("gp_exclusive_scan against the goals (this run)", "row|n|measured|goal|met");
    gp_table_row("empty kernel, back to back|-|%.2f us|(the floor)|-", floor_ms * 1e3);
    for (int is_f32 = 1; is_f32 >= 0; is_f32--) {
        const char *t = is_f32 ? "f32" : "i32";
        for (int lg = 10; lg <= 16; lg += 6) {
            const double r = g_goal.us[is_f32][lg] / (floor_ms * 1e3);
            gp_table_row("%s time / empty launch|2^%d|%.2fx (%.2f us)|<= 1.20x|%s", t, lg, r, g_goal.us[is_f32][lg],
                         r <= 1.2 ? "yes" : "no");
        }
        gp_table_row("%s vs CUB|2^20|%.2fx|>= 1.00x|%s", t, g_goal.vs_cub[is_f32][20], g_goal.vs_cub[is_f32][20] >= 1.0 ? "yes" : "no");
        for (int lg = 24; lg <= 28; lg += 2)
            gp_table_row("%s vs CUB, %% of copy|2^%d|%.2fx, %.1f%%|>= 1.10x, >= 90%%|%s", t, lg, g_goal.vs_cub[is_f32][lg],
                         g_goal.pct[is_f32][lg], g_goal.vs_cub[is_f32][lg] >= 1.1 && g_goal.pct[is_f32][lg] >= 90 ? "yes" : "no");
    }
    /* other types, inclusive, in place: each against the copy of the same bytes */
    static const struct { int kind; size_t elem; int lg; const char *name; double goal; } rows[] = {
        {X_F64, 8, 27, "f64", 85}, {X_I64, 8, 27, "i64", 85}, {X_U64, 8, 27, "u64", 85}, {X_F4, 16, 26, "float4 sum (16 bytes)", 75}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const size_t n = (size_t)1 << rows[r].lg;
        fill_kind<<<2048, 256>>>(in_pool, n, 1, rows[r].kind);
        CUDA_CHK_LAUNCH();
        xctx c = {rows[r].kind, 0, 0, 0, 0, in_pool, out_pool, n, rows[r].elem, 1, 0, NULL, 0, NULL};
        const float gp_ms = x_time(&c, host_in, host_out);
        /* gp 9 for these types: one look-ahead warp (the ladder's step gp 10 changes only
         * types of 8 bytes and more) */
        static const gp__scan_knobs one_ahead = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        c.knobs = &one_ahead;
        const float one_ms = x_time(&c, host_in, host_out);
        c.knobs = NULL;
        c.copy = 1;
        const float copy_ms = x_time(&c, host_in, host_out);
        c.copy = 0;
        float cub_ms = 0;
        if (rows[r].kind == X_F64) {
            c.cub = 1;
            CUDA_CHK(cub::DeviceScan::ExclusiveSum(NULL, c.cub_bytes, (const double *)in_pool, (double *)out_pool, (int64_t)n));
            CUDA_CHK(cudaMalloc(&c.cub_temp, c.cub_bytes));
            cub_ms = x_time(&c, host_in, host_out);
            CUDA_CHK(cudaFree(c.cub_temp));
        }
        const double pct = 100.0 * copy_ms / gp_ms;
        char cub[96] = "";
        if (cub_ms > 0) snprintf(cub, sizeof cub, "; CUB %.1f us, %.2fx", cub_ms * 1e3, cub_ms / gp_ms);
        gp_table_row("%s %% of copy|2^%d|%.1f%% (%.1f us%s; gp 9, one look-ahead warp: %.1f%%)|>= %.0f%%|%s", rows[r].name,
                     rows[r].lg, pct, gp_ms * 1e3, cub, 100.0 * copy_ms / one_ms, rows[r].goal,
                     pct >= rows[r].goal ? "yes" : "no");
    }
    {
        const size_t n = MAX_N;
        fill_kind<<<2048, 256>>>(in_pool, n, 1, X_F32);
        CUDA_CHK_LAUNCH();
        xctx c = {X_F32, 0, 0, 0, 0, in_pool, out_pool, n, 4, 1, 0, NULL, 0, NULL};
        const float ex_ms = x_time(&c, host_in, host_out);
        c.inclusive = 1;
        const float in_ms = x_time(&c, host_in, host_out);
        c.inclusive = 0;
        c.in_place = 1;
        const float ip_ms = x_time(&c, host_in, host_out);
        gp_table_row("f32 inclusive / exclusive time|2^28|%.3f (%.1f / %.1f us)|<= 1.02|%s", in_ms / ex_ms, in_ms * 1e3,
                     ex_ms * 1e3, in_ms / ex_ms <= 1.02 ? "yes" : "no");
        gp_table_row("f32 in place / out of place time|2^28|%.3f (%.1f / %.1f us)|<= 1.02|%s", ip_ms / ex_ms,
                     ip_ms * 1e3, ex_ms * 1e3, ip_ms / ex_ms <= 1.02 ? "yes" : "no");
    }
    gp_bench_note("Ratios from this run. Floor: an empty <<<1, 32>>> kernel, 64 back to back per timed batch, as the "
                  "small scans are timed. Type rows: one call per timed batch, input %s, the same-size device-to-device "
                  "copy measured beside it; every row's output checked on the host before timing; gp 9: the same call "
                  "with one look-ahead warp, as before the ladder's gp 10. Inclusive and in "
                  "place: within 2%% counts as the same speed (run-to-run noise is about 1%%).",
                  "not rotated (above 2 x L2 at these sizes)");
    free(host_in);
    free(host_out);
}

int main(void)
{
    need_gpu(__FILE__);
    gp_bench_begin("scan", "Scan");
    const size_t pool_bytes = MAX_N * 4; /* 1 GiB in, 1 GiB out: 2^28 4-byte elements, or rotated slots */
    char *in_pool, *out_pool;
    CUDA_CHK(cudaMalloc(&in_pool, pool_bytes));
    CUDA_CHK(cudaMalloc(&out_pool, pool_bytes));
    fill_pool<<<2048, 256>>>(in_pool, (size_t)1 << 24, 1, 1);
    CUDA_CHK_LAUNCH();
    bench_seed_table(in_pool, out_pool);
    bench_ladder(in_pool, out_pool, pool_bytes);
    bench_goals(in_pool, out_pool, pool_bytes);
    CUDA_CHK(cudaFree(in_pool));
    CUDA_CHK(cudaFree(out_pool));
    gp_bench_end();
    return 0;
}
