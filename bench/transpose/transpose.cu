/* bench/transpose/transpose.cu -- the classic transpose study replayed on today's GPU, then
 * gp_transpose against cuBLAS geam and the device-to-device copy rate.
 *
 * Part 1, "Transpose ladder": the eight kernels of Ruetsch and Micikevicius' "Optimizing
 * Matrix Transpose in CUDA" (2009) on square float matrices, 2048 x 2048 as in the paper
 * and 8192 x 8192, 32 x 32 tiles and 32 x 8 thread blocks. Each kernel is timed both ways
 * the paper times it: "loop over kernel" (NUM_REPS launches of one pass each) and "loop in
 * kernel" (one launch whose kernel repeats its pass NUM_REPS times), effective bandwidth =
 * 2 * matrix bytes / time per pass, printed beside the paper's GTX 280 figures. Every
 * kernel's output is checked once, bit for bit, against a host model of what that kernel
 * computes (fine- and coarse-grained are deliberately half transposes).
 *
 * Part 2, "gp_transpose vs cuBLAS geam and copy": f32 and f64 against cublasSgeam /
 * cublasDgeam (C = 1 * A^T + 0 * B) and cudaMemcpyAsync of the same bytes, then u8 and the
 * 16-byte type against copy alone, shapes 2048^2, 8192^2, 16384^2, 1000^2, 4097 x 3001,
 * 32 x 2^22, 2^22 x 32. gp's output is compared exactly, once per row, with geam's (f32,
 * f64) or with a one-thread-per-element reference kernel (u8, v16). Shapes smaller than
 * twice the L2 are rotated through enough copies that every timed call reads and writes
 * DRAM.
 *
 * A mismatch anywhere prints FAIL and exits 1.
 *
 * Build and run:  make bench
 *   or by hand:   make build/bench/transpose && build/bench/transpose
 * Tables go to stdout and to bench/results/<gpu>.transpose.{md,csv} ($GP_BENCH_RESULTS
 * overrides the folder). GP_BENCH_ONLY="u8 4097 x 3001,f64 1000" runs only the table rows
 * whose "type rows x cols" contains one of the comma-separated texts (no ladder, no
 * steps): a partial table, so write it elsewhere with GP_BENCH_RESULTS. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "../../gpuprims.cuh"
#include "../../examples/need_gpu.h"
#include "../bench.cuh"

#define TILE_DIM 32       /* the paper's tile: 32 x 32 elements */
#define BLOCK_ROWS 8      /* the paper's block: 32 x 8 threads, 4 elements per thread */
#define NUM_REPS 100      /* passes per measurement, both columns (the paper's NUM_REPS) */
#define DATA_SEED 0x7a05e5u

#define CUBLAS_CHK(call)                                                                  \
    do {                                                                                  \
        cublasStatus_t st_ = (call);                                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call,   \
                    (int)st_);                                                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    exit(1);
}

/* ---- inputs ----------------------------------------------------------------------------- */

/* A counter-based hash of the index (the splitmix64 finalizer): inputs are generated on
 * the device, so even the 4 GiB buffers fill in milliseconds. */
__host__ __device__ static inline uint32_t bench_hash(uint64_t i, uint32_t seed)
{
    uint64_t z = i + 0x9E3779B97F4A7C15ull * ((uint64_t)seed + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Fills nwords 32-bit words with hash bits. Every `period`-th word (the float's word, or
 * a double's high word) keeps its sign and mantissa bits and gets the exponent of 1.0, so
 * f32 and f64 data are normal numbers in +-[1, 2) with random mantissas: geam's 1 * a is
 * then exact and a bitwise comparison is fair (no NaN payloads, no denormals to flush).
 * period 0: raw bits (u8, v16). */
__global__ void fill_words(uint32_t *p, size_t nwords, uint32_t seed, unsigned period,
                           uint32_t keep, uint32_t set)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nwords;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = bench_hash(i, seed);
        if (period && i % period == period - 1) h = (h & keep) | set;
        p[i] = h;
    }
}

typedef enum { FILL_RAW, FILL_F32, FILL_F64 } fill_kind;

static void fill(void *p, size_t bytes, fill_kind kind, uint32_t seed)
{
    static const unsigned period[] = {0, 1, 2};
    static const uint32_t keep[] = {~0u, 0x807FFFFFu, 0x800FFFFFu};
    static const uint32_t set[] = {0, 0x3F800000u, 0x3FF00000u};
    /* whole words only: a u8 buffer's tail (bytes % 4) is set by a memset */
    if (bytes % 4) CUDA_CHK(cudaMemset((char *)p + bytes / 4 * 4, 0x3c, bytes % 4));
    fill_words<<<(unsigned)gp__bench.sms * 8, 256>>>((uint32_t *)p, bytes / 4, seed,
                                                    period[kind], keep[kind], set[kind]);
    CUDA_CHK_LAUNCH();
}

/* ======================================================================================
 * Part 1: Ruetsch & Micikevicius' kernels. Each takes the paper's arguments: odata, idata,
 * width (the number of columns), height (rows), nreps (how often the kernel repeats its pass: 1 for
 * "loop over kernel", NUM_REPS for "loop in kernel"). As in the paper they need width and
 * height to be multiples of TILE_DIM and launch a (width/32, height/32) grid of 32 x 8
 * threads; each thread moves TILE_DIM/BLOCK_ROWS = 4 elements.
 *
 * Two changes from the paper's listings, both for correctness, neither for speed:
 *  - The kernels with a shared tile end each repetition with a __syncthreads(). Without it
 *    (as in the paper) a fast warp of repetition r+1 overwrites tile elements that a slow
 *    warp of repetition r has not read yet: a race, and wrong output for nreps > 1.
 *  - Pointers are not __restrict__ on purpose: the paper's kernels are not, and with
 *    restrict the compiler may keep idata in registers across repetitions, which would turn
 *    "loop in kernel" into a measurement of nothing.
 * The fine-grained kernel writes to index + i*width where the paper writes index +
 * i*height: the same for the square matrices the paper uses, and the right stride (the
 * tile stays where it was) for any other.
 * ==================================================================================== */
typedef void (*ladder_kfn)(float *, const float *, int, int, int);

/* Simple copy: the ceiling a transpose is compared with. Coalesced loads and stores.
 * Today it is not the ceiling: odata may alias idata, so each load is issued only after
 * the previous store, one load in flight per thread (bench/transpose/probes/transpose_order.cu:
 * 74% of cudaMemcpy as written, 99% with __restrict__, on the H200). */
__global__ void copy(float *odata, const float *idata, int width, int height, int nreps)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index = xIndex + width * yIndex;
    for (int r = 0; r < nreps; r++)
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            odata[index + i * width] = idata[index + i * width];
}

/* Naive transpose: reads rows (coalesced), writes columns: consecutive threads store
 * `height` floats apart, one memory transaction per thread. */
__global__ void transposeNaive(float *odata, const float *idata, int width, int height,
                               int nreps)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    for (int r = 0; r < nreps; r++)
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            odata[index_out + i] = idata[index_in + i * width];
}

/* The pass every shared-memory kernel below is made of (the paper writes it out in each
 * kernel; the kernels differ only in these three choices and in which tile (bx, by) a
 * block takes): load tile (bx, by) of idata by rows into shared memory, barrier, store it
 * by rows.
 *   PAD      floats of padding per tile row: 1 puts a column of the tile in 32 banks
 *   IN_TILE  read the shared tile by columns: the elements are transposed within the tile
 *   MOVE     store to tile (by, bx) of the output, whose rows are `height` long: the tiles
 *            are transposed
 * A full transpose is IN_TILE and MOVE; neither is a copy through shared memory. */
template <int PAD, bool IN_TILE, bool MOVE>
__device__ __forceinline__ void tiled_pass(float *odata, const float *idata, int bx, int by,
                                           int width, int height, int nreps)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int index_in = (bx * TILE_DIM + tx) + (by * TILE_DIM + ty) * width;
    const int index_out = MOVE ? (by * TILE_DIM + tx) + (bx * TILE_DIM + ty) * height : index_in;
    const int out_row = MOVE ? height : width;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            tile[ty + i][tx] = idata[index_in + i * width];
        __syncthreads();
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            odata[index_out + i * out_row] = IN_TILE ? tile[tx][ty + i] : tile[ty + i][tx];
        __syncthreads();
    }
}

/* Shared-memory copy: copy through a tile with a barrier, to price the tile and the
 * __syncthreads() that every tiled transpose needs. */
__global__ void copySharedMem(float *odata, const float *idata, int width, int height,
                              int nreps)
{
    tiled_pass<0, false, false>(odata, idata, blockIdx.x, blockIdx.y, width, height, nreps);
}

/* Coalesced transpose: fixes the naive stores. A tile is read by rows into shared memory
 * and written by rows of the output tile, reading the shared tile by columns. New problem:
 * a column of a 32 x 32 float tile lies in one shared-memory bank (a 32-way conflict on
 * today's 32 banks; 16-way on the GTX 280's half warps). */
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height,
                                   int nreps)
{
    tiled_pass<0, true, true>(odata, idata, blockIdx.x, blockIdx.y, width, height, nreps);
}

/* Bank-conflict-free transpose: fixes the coalesced kernel's conflicts by padding each
 * tile row by one float, so a column walks through all 32 banks. */
__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width,
                                         int height, int nreps)
{
    tiled_pass<1, true, true>(odata, idata, blockIdx.x, blockIdx.y, width, height, nreps);
}

/* Fine-grained transpose (a diagnostic, not a transpose): transposes the data within each
 * tile but writes the tile back to its own place. Prices the in-tile shuffle alone. */
__global__ void transposeFineGrained(float *odata, const float *idata, int width, int height,
                                     int nreps)
{
    tiled_pass<1, true, false>(odata, idata, blockIdx.x, blockIdx.y, width, height, nreps);
}

/* Coarse-grained transpose (a diagnostic, not a transpose): moves each tile to its
 * transposed place but does not transpose within it. Prices where the tiles go, which on
 * the paper's GTX 280 is the whole gap (partition camping). */
__global__ void transposeCoarseGrained(float *odata, const float *idata, int width,
                                       int height, int nreps)
{
    tiled_pass<1, false, true>(odata, idata, blockIdx.x, blockIdx.y, width, height, nreps);
}

/* Diagonal block reordering: fixes partition camping. Blocks that run at the same time
 * (consecutive block ids) take tiles along a diagonal, so their output tiles are spread
 * over the columns of odata instead of stacked in one column of tiles, whose rows the
 * GTX 280 mapped to the same few memory partitions (2048 bytes of stride). */
__global__ void transposeDiagonal(float *odata, const float *idata, int width, int height,
                                  int nreps)
{
    int blockIdx_x, blockIdx_y;
    if (width == height) {
        blockIdx_y = blockIdx.x;
        blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        blockIdx_y = bid % gridDim.y;
        blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
    }
    tiled_pass<1, true, true>(odata, idata, blockIdx_x, blockIdx_y, width, height, nreps);
}

/* What a kernel computes, for the host check: where output element (r, c) comes from. */
typedef enum {
    MAP_COPY,          /* (r, c) */
    MAP_TRANSPOSE,     /* (c, r) */
    MAP_TILE_INPLACE,  /* tiles stay, elements transposed within each tile */
    MAP_TILE_MOVED     /* tiles transposed, elements keep their place within the tile */
} ladder_map;

static size_t ladder_src(ladder_map m, size_t n, size_t r, size_t c)
{
    size_t tr = r / TILE_DIM * TILE_DIM, tc = c / TILE_DIM * TILE_DIM;
    size_t ir = r % TILE_DIM, ic = c % TILE_DIM;
    switch (m) {
    case MAP_COPY: return r * n + c;
    case MAP_TRANSPOSE: return c * n + r;
    case MAP_TILE_INPLACE: return (tr + ic) * n + (tc + ir);
    default: return (tc + ir) * n + (tr + ic); /* MAP_TILE_MOVED */
    }
}

typedef struct {
    const char *name;  /* row label (no commas: the CSV does not quote) */
    ladder_kfn fn;
    ladder_map map;
    double seed_over, seed_in;  /* the paper's GTX 280 GB/s, 2048 x 2048 */
} ladder_kernel;

static const ladder_kernel ladder[] = {
    {"simple copy", copy, MAP_COPY, 96.9, 81.6},
    {"shared memory copy", copySharedMem, MAP_COPY, 80.9, 81.1},
    {"naive transpose", transposeNaive, MAP_TRANSPOSE, 2.2, 2.2},
    {"coalesced transpose", transposeCoalesced, MAP_TRANSPOSE, 16.5, 17.1},
    {"bank conflict free transpose (padded)", transposeNoBankConflicts, MAP_TRANSPOSE, 16.6, 17.2},
    {"fine-grained transpose (diagnostic)", transposeFineGrained, MAP_TILE_INPLACE, 80.4, 81.5},
    {"coarse-grained transpose (diagnostic)", transposeCoarseGrained, MAP_TILE_MOVED, 16.7, 17.1},
    {"diagonal block reordering", transposeDiagonal, MAP_TRANSPOSE, 69.5, 78.3},
};
#define LADDER_COUNT ((int)(sizeof ladder / sizeof ladder[0]))

/* One timed call: NUM_REPS passes, either as NUM_REPS launches or as one launch. */
typedef struct {
    ladder_kfn fn;     /* NULL: cudaMemcpyAsync of the matrix */
    float *out;
    const float *in;
    int n;
    int in_kernel;     /* 1: "loop in kernel" */
} ladder_ctx;

static void ladder_timed(void *p)
{
    const ladder_ctx *c = (const ladder_ctx *)p;
    dim3 grid(c->n / TILE_DIM, c->n / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
    if (!c->fn) {
        for (int r = 0; r < NUM_REPS; r++)
            CUDA_CHK(cudaMemcpyAsync(c->out, c->in, (size_t)c->n * c->n * sizeof(float),
                                     cudaMemcpyDeviceToDevice, 0));
    } else if (c->in_kernel) {
        c->fn<<<grid, threads>>>(c->out, c->in, c->n, c->n, NUM_REPS);
    } else {
        for (int r = 0; r < NUM_REPS; r++) c->fn<<<grid, threads>>>(c->out, c->in, c->n, c->n, 1);
    }
}

/* GB/s of one pass (2 * matrix bytes) when NUM_REPS passes take ms. */
static double ladder_gbps(int n, float ms)
{
    return gp_bench_gbps(2.0 * (double)n * n * sizeof(float), ms / NUM_REPS);
}

/* One pass of kernel k on the poisoned output, compared bit for bit with the host model. */
static void ladder_check(const ladder_kernel *k, float *d_out, const float *d_in,
                         const uint32_t *h_in, uint32_t *h_out, int n)
{
    size_t elems = (size_t)n * n;
    CUDA_CHK(cudaMemset(d_out, 0xFF, elems * sizeof(float))); /* a NaN the input never holds */
    dim3 grid(n / TILE_DIM, n / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
    k->fn<<<grid, threads>>>(d_out, d_in, n, n, 1);
    CUDA_CHK_LAUNCH();
    CUDA_CHK(cudaMemcpy(h_out, d_out, elems * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < (size_t)n; r++)
        for (size_t c = 0; c < (size_t)n; c++) {
            uint32_t want = h_in[ladder_src(k->map, (size_t)n, r, c)];
            if (h_out[r * n + c] != want) {
                char msg[256];
                snprintf(msg, sizeof msg, "%s, %d x %d: out[%zu][%zu] = 0x%08x, want 0x%08x",
                         k->name, n, n, r, c, h_out[r * n + c], want);
                fail(msg);
            }
        }
}

static const int ladder_sizes[] = {2048, 8192};
#define LADDER_SIZES 2

static void bench_ladder(void)
{
    double gbps[LADDER_SIZES][LADDER_COUNT + 1][2]; /* [size][kernel, then memcpy][in_kernel] */
    for (int s = 0; s < LADDER_SIZES; s++) {
        int n = ladder_sizes[s];
        size_t elems = (size_t)n * n;
        float *d_in = NULL, *d_out = NULL;
        CUDA_CHK(cudaMalloc(&d_in, elems * sizeof(float)));
        CUDA_CHK(cudaMalloc(&d_out, elems * sizeof(float)));
        fill(d_in, elems * sizeof(float), FILL_F32, DATA_SEED + (uint32_t)s);
        uint32_t *h_in = (uint32_t *)malloc(elems * 4), *h_out = (uint32_t *)malloc(elems * 4);
        if (!h_in || !h_out) fail("host malloc");
        CUDA_CHK(cudaMemcpy(h_in, d_in, elems * 4, cudaMemcpyDeviceToHost));

        for (int k = 0; k <= LADDER_COUNT; k++) {
            ladder_ctx c = {k < LADDER_COUNT ? ladder[k].fn : NULL, d_out, d_in, n, 0};
            if (k < LADDER_COUNT) ladder_check(&ladder[k], d_out, d_in, h_in, h_out, n);
            gbps[s][k][0] = ladder_gbps(n, gp_bench_median_ms(ladder_timed, &c));
            c.in_kernel = 1;
            gbps[s][k][1] = k < LADDER_COUNT ? ladder_gbps(n, gp_bench_median_ms(ladder_timed, &c)) : 0;
        }
        free(h_in);
        free(h_out);
        CUDA_CHK(cudaFree(d_in));
        CUDA_CHK(cudaFree(d_out));
    }

    gp_table_begin("Transpose ladder (Ruetsch & Micikevicius 2009), effective bandwidth GB/s",
                   "kernel|GTX 280 2048^2 loop over kernel|GTX 280 2048^2 loop in kernel|"
                   "2048^2 loop over kernel|2048^2 loop in kernel|8192^2 loop over kernel|"
                   "8192^2 loop in kernel|8192^2 loop over kernel % of memcpy");
    const double memcpy8k = gbps[1][LADDER_COUNT][0];
    for (int k = 0; k < LADDER_COUNT; k++)
        gp_table_row("%s|%.1f|%.1f|%.1f|%.1f|%.1f|%.1f|%.1f%%", ladder[k].name, ladder[k].seed_over,
                     ladder[k].seed_in, gbps[0][k][0], gbps[0][k][1], gbps[1][k][0], gbps[1][k][1],
                     100.0 * gbps[1][k][0] / memcpy8k);
    gp_table_row("cudaMemcpyAsync device to device|-|-|%.1f|-|%.1f|-|100.0%%",
                 gbps[0][LADDER_COUNT][0], memcpy8k);

    gp_bench_note(
        "Effective bandwidth = 2 x matrix bytes / time per pass, as in Ruetsch & Micikevicius. "
        "Loop over kernel: %d launches of one pass between the events; loop in kernel: one launch whose "
        "kernel repeats its pass %d times; the median of %d such measurements. Tiles 32 x 32, "
        "blocks 32 x 8, as in the paper. Every kernel's output was compared bit for bit with a "
        "host model of what it computes (random normal floats, output poisoned) at both sizes "
        "before it was timed. The paper's figures are a GTX 280 (141.7 GB/s theoretical, 8 "
        "memory partitions of 256 bytes). The paper's kernels are kept as they were except "
        "for a __syncthreads() closing each repetition (the paper's loop-in-kernel versions "
        "race on the tile without it).",
        NUM_REPS, NUM_REPS, GP_BENCH_REPS);
    gp_bench_note(
        "Caches: a 2048^2 float matrix is 16 MB, so input plus output (32 MB) stay in this "
        "GPU's %d MB L2 from one pass to the next: the 2048^2 columns are L2 figures, not "
        "DRAM. At 8192^2 (256 MB each way) \"loop over kernel\" is a DRAM figure. \"Loop in "
        "kernel\" re-reads the same 4 KB tile per block %d times, which today's L1/L2 "
        "serve: it measures the caches and the kernel's instruction and barrier overheads, "
        "not memory as on the GTX 280, which had no cache for global memory.",
        gp__bench.l2_bytes >> 20, NUM_REPS);
}

/* ======================================================================================
 * Part 2: gp_transpose vs cuBLAS geam vs copy.
 * ==================================================================================== */

/* The element types: gp's entry point through a void* wrapper, geam where cuBLAS has one. */
typedef cudaError_t (*bench_gp_fn)(void *out, const void *in, size_t rows, size_t cols);
typedef void (*bench_geam_fn)(cublasHandle_t h, void *out, const void *in, size_t rows,
                              size_t cols);

#define BENCH_GP(name, T)                                                                 \
    static cudaError_t bench_gp_##name(void *out, const void *in, size_t rows, size_t cols) \
    {                                                                                     \
        return gp_transpose_##name((T *)out, (const T *)in, rows, cols, 0);               \
    }
BENCH_GP(f32, float)
BENCH_GP(f64, double)
BENCH_GP(u8, uint8_t)
BENCH_GP(u16, uint16_t)
BENCH_GP(v16, gp_v16_t)

/* cuBLAS is column-major: the row-major rows x cols input is a column-major cols x rows
 * matrix A (lda = cols), and the row-major cols x rows output is a column-major rows x cols
 * matrix C (ldc = rows). C = 1 * A^T + 0 * B with m = rows, n = cols. B (not read when
 * beta is 0, but it must be a valid m x n operand) is A again, transposed: out of place. */
static cublasStatus_t geam_call(cublasHandle_t h, int m, int n, const float *a, float *c)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, a, n, &zero, a, n, c, m);
}
static cublasStatus_t geam_call(cublasHandle_t h, int m, int n, const double *a, double *c)
{
    const double one = 1.0, zero = 0.0;
    return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, a, n, &zero, a, n, c, m);
}
template <typename T>
static void bench_geam(cublasHandle_t h, void *out, const void *in, size_t rows, size_t cols)
{
    CUBLAS_CHK(geam_call(h, (int)rows, (int)cols, (const T *)in, (T *)out));
}

typedef struct {
    const char *name;
    size_t size;
    fill_kind fill;
    bench_gp_fn gp;
    bench_geam_fn geam;  /* NULL: cuBLAS has no geam for this type */
} bench_type;

static const bench_type bench_types[] = {
    {"f32", 4, FILL_F32, bench_gp_f32, bench_geam<float>},
    {"f64", 8, FILL_F64, bench_gp_f64, bench_geam<double>},
    {"u8", 1, FILL_RAW, bench_gp_u8, NULL},
    {"u16", 2, FILL_RAW, bench_gp_u16, NULL},
    {"v16", 16, FILL_RAW, bench_gp_v16, NULL},
};
#define BENCH_TYPES ((int)(sizeof bench_types / sizeof bench_types[0]))

typedef struct { size_t rows, cols; const char *label; } bench_shape;
static const bench_shape bench_shapes[] = {
    {2048, 2048, "2048 x 2048"},
    {8192, 8192, "8192 x 8192"},
    {16384, 16384, "16384 x 16384"},
    {1000, 1000, "1000 x 1000"},
    {4097, 3001, "4097 x 3001"},
    {32, (size_t)1 << 22, "32 x 2^22"},
    {(size_t)1 << 22, 32, "2^22 x 32"},
};
#define BENCH_SHAPES ((int)(sizeof bench_shapes / sizeof bench_shapes[0]))

/* What the table measured, for the goals table after it: % of copy and gp / geam (0: not
 * run, or no geam for the type). */
static double g_pct[BENCH_TYPES][BENCH_SHAPES], g_vs_geam[BENCH_TYPES][BENCH_SHAPES];

/* Whether GP_BENCH_ONLY is unset, or names "<type> <shape label>" in part. */
static int bench_selected(const char *type, const char *label)
{
    const char *only = getenv("GP_BENCH_ONLY");
    if (only == NULL || *only == '\0') return 1;
    char row[64], want[64];
    snprintf(row, sizeof row, "%s %s", type, label);
    for (const char *p = only; *p;) {
        const size_t n = strcspn(p, ",");
        snprintf(want, sizeof want, "%.*s", (int)(n < sizeof want - 1 ? n : sizeof want - 1), p);
        if (n > 0 && strstr(row, want)) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Reference for the types without geam: one thread per element, 64-bit indices; too
 * simple to be wrong. E is an unsigned type of the element's size. */
template <typename E>
__global__ void ref_transpose(E *out, const E *in, size_t rows, size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / cols, c = i % cols;
        out[c * rows + r] = in[i];
    }
}

static void ref_launch(size_t size, void *out, const void *in, size_t rows, size_t cols)
{
    unsigned blocks = (unsigned)gp__bench.sms * 8;
    switch (size) {
    case 1: ref_transpose<<<blocks, 256>>>((uint8_t *)out, (const uint8_t *)in, rows, cols); break;
    case 2: ref_transpose<<<blocks, 256>>>((uint16_t *)out, (const uint16_t *)in, rows, cols); break;
    case 16: ref_transpose<<<blocks, 256>>>((uint4 *)out, (const uint4 *)in, rows, cols); break;
    case 4: ref_transpose<<<blocks, 256>>>((uint32_t *)out, (const uint32_t *)in, rows, cols); break;
    default: fail("ref_transpose: no reference for this element size");
    }
    CUDA_CHK_LAUNCH();
}

/* Counts the bytes where a and b differ (words first, then the tail). */
__global__ void count_diff(const uint8_t *a, const uint8_t *b, size_t bytes,
                           unsigned long long *diff)
{
    unsigned long long d = 0;
    size_t words = bytes / 4;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = ((const uint32_t *)a)[i] ^ ((const uint32_t *)b)[i];
        d += (x & 0xFFu) != 0;
        d += (x & 0xFF00u) != 0;
        d += (x & 0xFF0000u) != 0;
        d += (x & 0xFF000000u) != 0;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (size_t i = words * 4; i < bytes; i++) d += a[i] != b[i];
    if (d) atomicAdd(diff, d);
}

/* One timed call of gp, geam or copy on the next slot of the rotation. */
typedef enum { WHO_GP, WHO_GEAM, WHO_COPY } bench_who;

typedef struct {
    const bench_type *t;
    bench_who who;
    cublasHandle_t cublas;
    char *in, *out;     /* pools: slot k at k * bytes */
    size_t rows, cols, bytes;
    int slots, next;
} bench_ctx;

static void bench_timed(void *p)
{
    bench_ctx *c = (bench_ctx *)p;
    const char *in = c->in + (size_t)c->next * c->bytes;
    char *out = c->out + (size_t)c->next * c->bytes;
    c->next = (c->next + 1) % c->slots;
    switch (c->who) {
    case WHO_GP: CUDA_CHK(c->t->gp(out, in, c->rows, c->cols)); break;
    case WHO_GEAM: c->t->geam(c->cublas, out, in, c->rows, c->cols); break;
    default: CUDA_CHK(cudaMemcpyAsync(out, in, c->bytes, cudaMemcpyDeviceToDevice, 0)); break;
    }
}

static int rotation_slots(size_t bytes)
{
    return (int)(2 * (size_t)gp__bench.l2_bytes / bytes + 1);
}

/* gp's output on slot 0 against geam's (or the reference kernel's), both poisoned with
 * different bytes first, so an element neither writes is a mismatch too. */
static void bench_check(bench_ctx *c, char *ref, unsigned long long *d_diff, const char *shape)
{
    CUDA_CHK(cudaMemset(c->out, 0xA5, c->bytes));
    CUDA_CHK(cudaMemset(ref, 0x5A, c->bytes));
    CUDA_CHK(c->t->gp(c->out, c->in, c->rows, c->cols));
    if (c->t->geam) c->t->geam(c->cublas, ref, c->in, c->rows, c->cols);
    else ref_launch(c->t->size, ref, c->in, c->rows, c->cols);
    CUDA_CHK(cudaMemset(d_diff, 0, sizeof *d_diff));
    count_diff<<<(unsigned)gp__bench.sms * 8, 256>>>((const uint8_t *)c->out,
                                                    (const uint8_t *)ref, c->bytes, d_diff);
    CUDA_CHK_LAUNCH();
    unsigned long long diff = 0;
    CUDA_CHK(cudaMemcpy(&diff, d_diff, sizeof diff, cudaMemcpyDeviceToHost));
    if (diff) {
        char msg[256];
        snprintf(msg, sizeof msg, "gp_transpose_%s %s: %llu bytes differ from %s", c->t->name,
                 shape, diff, c->t->geam ? "cuBLAS geam" : "the reference kernel");
        fail(msg);
    }
}

static void bench_table(void)
{
    gp_table_begin("gp_transpose vs cuBLAS geam and copy",
                   "type|rows x cols|gp (us)|gp GB/s|gp % of copy|geam (us)|geam GB/s|"
                   "geam % of copy|gp / geam|copy (us)|copy GB/s");
    cublasHandle_t cublas;
    CUBLAS_CHK(cublasCreate(&cublas));
    unsigned long long *d_diff = NULL;
    CUDA_CHK(cudaMalloc(&d_diff, sizeof *d_diff));
    char skipped[512] = "";

    /* One set of buffers for every row, as large as the largest row that fits needs.
     * Allocating and freeing gigabytes between rows disturbed the rows after them: on the
     * H100, f64 1000^2 measured 9.1-9.2 us right after 16384^2's buffers were freed, and
     * then 30-35 us for gp and geam alike in a second pass, against 8.2-8.4 us alone. */
    size_t free_b = 0, total_b = 0, max_pool = 0, max_bytes = 0;
    CUDA_CHK(cudaMemGetInfo(&free_b, &total_b));
    auto fits = [&](size_t bytes, size_t pool) { /* in, out, ref, 1 GiB spare */
        return 2 * pool + bytes + ((size_t)1 << 30) <= free_b;
    };
    for (int ti = 0; ti < BENCH_TYPES; ti++)
        for (int si = 0; si < BENCH_SHAPES; si++) {
            const size_t bytes = bench_shapes[si].rows * bench_shapes[si].cols * bench_types[ti].size,
                         pool = bytes * (size_t)rotation_slots(bytes);
            if (!bench_selected(bench_types[ti].name, bench_shapes[si].label)) continue;
            if (!fits(bytes, pool)) continue;
            if (pool > max_pool) max_pool = pool;
            if (bytes > max_bytes) max_bytes = bytes;
        }
    char *pool_in = NULL, *pool_out = NULL, *ref = NULL;
    if (max_pool) {
        CUDA_CHK(cudaMalloc(&pool_in, max_pool));
        CUDA_CHK(cudaMalloc(&pool_out, max_pool));
        CUDA_CHK(cudaMalloc(&ref, max_bytes));
    }

    for (int ti = 0; ti < BENCH_TYPES; ti++) {
        const bench_type *t = &bench_types[ti];
        for (int si = 0; si < BENCH_SHAPES; si++) {
            const bench_shape *sh = &bench_shapes[si];
            if (!bench_selected(t->name, sh->label)) continue;
            bench_ctx c = {t, WHO_GP, cublas, NULL, NULL, sh->rows, sh->cols,
                           sh->rows * sh->cols * t->size, 0, 0};
            c.slots = rotation_slots(c.bytes);
            size_t pool = c.bytes * (size_t)c.slots;
            if (!fits(c.bytes, pool)) {
                size_t len = strlen(skipped);
                snprintf(skipped + len, sizeof skipped - len, "%s%s %s", len ? ", " : "", t->name,
                         sh->label);
                continue;
            }
            c.in = pool_in;
            c.out = pool_out;
            fill(c.in, pool, t->fill, DATA_SEED + (uint32_t)(ti * 16 + si));
            bench_check(&c, ref, d_diff, sh->label);

            /* Calls back to back, so small shapes are priced by the GPU's time per call, not
             * by host launch latency: about 256 MB moved between the events. */
            int batch = gp_bench_batch_size((size_t)256 << 20, 2 * c.bytes);
            double moved = 2.0 * (double)c.bytes;
            c.who = WHO_COPY;
            float copy_ms = gp_bench_median_ms_batch(bench_timed, &c, batch);
            c.who = WHO_GP;
            float gp_ms = gp_bench_median_ms_batch(bench_timed, &c, batch);
            double copy_gbps = gp_bench_gbps(moved, copy_ms), gp_gbps = gp_bench_gbps(moved, gp_ms);
            g_pct[ti][si] = 100.0 * gp_gbps / copy_gbps;
            if (t->geam) {
                c.who = WHO_GEAM;
                float geam_ms = gp_bench_median_ms_batch(bench_timed, &c, batch);
                double geam_gbps = gp_bench_gbps(moved, geam_ms);
                g_vs_geam[ti][si] = geam_ms / gp_ms;
                gp_table_row("%s|%s|%.1f|%.0f|%.1f%%|%.1f|%.0f|%.1f%%|%.2fx|%.1f|%.0f", t->name,
                             sh->label, gp_ms * 1e3, gp_gbps, 100.0 * gp_gbps / copy_gbps,
                             geam_ms * 1e3, geam_gbps, 100.0 * geam_gbps / copy_gbps,
                             geam_ms / gp_ms, copy_ms * 1e3, copy_gbps);
            } else {
                gp_table_row("%s|%s|%.1f|%.0f|%.1f%%|-|-|-|-|%.1f|%.0f", t->name, sh->label,
                             gp_ms * 1e3, gp_gbps, 100.0 * gp_gbps / copy_gbps, copy_ms * 1e3,
                             copy_gbps);
            }
        }
    }
    if (max_pool) {
        CUDA_CHK(cudaFree(pool_in));
        CUDA_CHK(cudaFree(pool_out));
        CUDA_CHK(cudaFree(ref));
    }

    gp_bench_note(
        "GB/s counts bytes read plus bytes written (2 x matrix bytes). Copy: cudaMemcpyAsync "
        "device to device of the same bytes, same rotation, same run; %% of copy = GB/s over "
        "copy GB/s. gp / geam = geam time / gp time (> 1: gp is faster). geam: "
        "cublasSgeam/cublasDgeam, transa = CUBLAS_OP_T, alpha 1, beta 0, on the row-major "
        "input seen as a column-major cols x rows matrix (cuBLAS has no geam for u8, u16 or "
        "16-byte elements: copy alone there). Before timing, each row's gp output was compared "
        "byte for byte with geam's (f32, f64: inputs are normal numbers, so 1 * a is exact) or "
        "with a one-thread-per-element reference kernel (u8, u16, v16), both outputs poisoned with "
        "different bytes. Calls run back to back, min(64, 256 MB / bytes moved) of them between "
        "the events; shapes below 2 x L2 (%d MB) rotate through enough input and output copies "
        "that each call reads and writes DRAM.%s%s",
        (int)((2 * (size_t)gp__bench.l2_bytes) >> 20), skipped[0] ? " Skipped for lack of memory: " : "",
        skipped);
    gp_bench_note(
        "Targets (set for an H100): f32 and f64 large squares >= 1.02x geam and >= 96%% of copy; "
        "1000^2 and 4097 x 3001 >= 1.05x geam; 32 x 2^22 and 2^22 x 32 >= 1.5x geam; u8 and u16 "
        ">= 90%% of copy where both dimensions are >= 256, >= 60%% elsewhere.");

    CUDA_CHK(cudaFree(d_diff));
    CUBLAS_CHK(cublasDestroy(cublas));
}

/* The table's rows against the targets of its note, each marked met or not. */
static void bench_goals(void)
{
    gp_table_begin("gp_transpose against the goals (this run)", "type|rows x cols|measured|goal|met");
    for (int ti = 0; ti < BENCH_TYPES; ti++) {
        const bench_type *t = &bench_types[ti];
        for (int si = 0; si < BENCH_SHAPES; si++) {
            const bench_shape *sh = &bench_shapes[si];
            const double pct = g_pct[ti][si], r = g_vs_geam[ti][si];
            if (pct == 0) continue; /* not run */
            const int square = sh->rows == sh->cols && sh->rows >= 2048, skinny = sh->rows < 256 || sh->cols < 256;
            if (t->size == 1 || t->size == 2) {
                const double goal = skinny ? 60.0 : 90.0;
                gp_table_row("%s|%s|%.1f%% of copy|>= %.0f%% of copy|%s", t->name, sh->label, pct, goal,
                             pct >= goal ? "yes" : "no");
            } else if (t->geam && square) {
                gp_table_row("%s|%s|%.2fx geam, %.1f%% of copy|>= 1.02x geam, >= 96%% of copy|%s", t->name, sh->label,
                             r, pct, r >= 1.02 && pct >= 96.0 ? "yes" : "no");
            } else if (t->geam) {
                const double goal = skinny ? 1.5 : 1.05;
                gp_table_row("%s|%s|%.2fx geam|>= %.2fx geam|%s", t->name, sh->label, r, goal, r >= goal ? "yes" : "no");
            }
        }
    }
    gp_bench_note("From the table above, this run: the targets of its note (set for an H100). 16-byte "
                  "elements have no target.");
}

/* ======================================================================================
 * Part 3: the steps from the first gp_transpose kernel to today's, each a row: the same
 * library kernels, configured as they were at that step (detail/device/transpose.cuh): steps 0-5
 * without the L2 prefetch of step 6.
 *   0  tiles 256 input bytes wide, 16 KB (32 KB for u8), or 128 bytes wide for skinny
 *      matrices; u8 matrices off the 4-byte grid (an odd column count) one element at a time
 *   1  + the ragged-byte kernel: such matrices still move as aligned 4-byte words
 *   2  + tile shapes by matrix: 8- to 32-word output rows for few rows (with 8, a warp
 *      writes four of them), 32- to 128-byte input rows for few columns, 4 KB tiles for
 *      matrices of fewer square tiles than SMs
 *   3  + matrices off the word grid go through the word kernel's tiles and cells, each row
 *      segment realigned by funnel shifts at both ends
 *   4  + the square tile of 4- and 8-byte words moves 16-byte chunks (unpadded, swizzled)
 *      when the input rows start on 16 bytes, and floats on rows off 16 bytes get tiles of
 *      128-byte rows
 *   5  + tiles by device: on a GPU with more DRAM bandwidth an SM (transpose.cuh, "the
 *      choice by device"), floats on rows off 16 bytes keep the square tile and ragged
 *      matrices of two waves or more take full-width tiles; the short and narrow tiles of
 *      floats on rows on 16 bytes move 16-byte chunks. On a GPU below the threshold (the
 *      H100) only the chunks differ from step 4.
 *   6  + the L2 fetches 256-byte blocks for the tiles copied in 4- and 8-byte pieces (rows
 *      off 16 bytes, ragged rows) of matrices whose rows lie close together (transpose.cuh,
 *      "prefetch"): the library today.
 * Blocks an SM are a compile-time property of a kernel, so every row runs the ragged
 * kernels at today's 5 (u8) or 6 (u16) blocks an SM (4 before 0.4.7; measured apart in
 * transpose.cuh, gp__transpose_tile).
 * ==================================================================================== */
#define STEPS 7
static const char *const step_names[STEPS] = {
    "0 square or 128-byte-wide tiles; odd u8 shapes element by element",
    "1 + ragged-byte kernel (aligned words at any alignment)",
    "2 + tile shapes by matrix: short, narrow, small",
    "3 + ragged rows realigned by funnel shifts into the word kernel's cells",
    "4 + square tiles: 16-byte chunks for rows on 16 bytes, 128-byte rows for floats off 16 bytes",
    "5 + tiles by device (deep tiles where an SM has more DRAM bandwidth); short and narrow float tiles in 16-byte chunks",
    "6 + 256-byte L2 fetches for tiles copied in 4- and 8-byte pieces (the library)",
};

/* Steps 1 and 2 on u8 matrices off the word grid: the first ragged-byte kernel, as the
 * library had it then. Each tile row segment (64 bytes) is copied as the aligned words it
 * touches, at its own offset within a word; each aligned word of an output row segment
 * (128 bytes) is gathered element by element from its K tile rows and stored whole, the
 * words at the segment's ends element by element. The library now runs such matrices
 * through the word kernel's cells, realigning rows with funnel shifts (step 3). */
template <class T>
struct step1_ragged_tile {
    static constexpr int E = (int)sizeof(T), K = 4 / E, NT = GP__TRANSPOSE_THREADS;
    static constexpr int TC = 64 / E, TR = 128 / E;
    static constexpr int ROW_WORDS = TC * E / 4 + 1; /* aligned words a row segment can touch */
    static constexpr int OUT_WORDS = TR * E / 4 + 1; /* and an output row segment */
    static constexpr int PITCH = ROW_WORDS | 1;      /* odd: consecutive rows in distinct banks */
    static constexpr size_t SMEM = (size_t)TR * PITCH * 4;
    static_assert(E == 1 || E == 2, "the ragged kernel moves 1- and 2-byte elements");
    static_assert(TR % K == 0 && SMEM <= GP__STATIC_SMEM_MAX, "ragged tile shape");
};

template <class T>
__global__ void __launch_bounds__(GP__TRANSPOSE_THREADS)
    step1_ragged_kernel(gp__transpose_words a) /* in elements: cols_w is cols */
{
    typedef step1_ragged_tile<T> Tile;
    constexpr int E = Tile::E, K = Tile::K, NT = Tile::NT, TR = Tile::TR, TC = Tile::TC, P4 = Tile::PITCH * 4;
    __shared__ __align__(16) uint32_t s[Tile::SMEM / 4];
    unsigned char *const sb = reinterpret_cast<unsigned char *>(s);
    const gp__rows_interleaved<K, TR / K> row_map;

    const size_t tiles_y = gp__ceil_div(a.rows, TR), per_matrix = gp__ceil_div(a.cols_w, TC) * tiles_y;
    for (size_t t = blockIdx.x; t < per_matrix * a.batch; t += gridDim.x) {
        const gp__tile_at at = gp__tile_locate(t, tiles_y, per_matrix, TR, TC);
        const T *in = static_cast<const T *>(a.in) + at.b * a.stride_in + at.row0 * a.ld_in + at.col0;
        T *out = static_cast<T *>(a.out) + at.b * a.stride_out + at.col0 * a.ld_out + at.row0;
        const int rows = gp__tile_clip(a.rows - at.row0, TR), cols = gp__tile_clip(a.cols_w - at.col0, TC);
        const size_t ld_in_b = a.ld_in * E, ld_out_b = a.ld_out * E;

        /* Load: slot i is aligned word i % ROW_WORDS of row i / ROW_WORDS. */
        for (int i = threadIdx.x; i < rows * Tile::ROW_WORDS; i += NT) {
            const int r = i / Tile::ROW_WORDS, w = i % Tile::ROW_WORDS;
            const uintptr_t g = (uintptr_t)in + r * ld_in_b, end = g + (size_t)cols * E;
            const uintptr_t word = (g & ~(uintptr_t)3) + 4 * w;
            if (word >= end) continue;
            unsigned char *dst = sb + row_map(r) * P4 + 4 * w;
            if (word >= g && word + 4 <= end) {
                gp__cp_async<4>(dst, (const void *)word, true);
            } else {
                for (int j = 0; j < 4; j++)
                    if (word + j >= g && word + j < end) dst[j] = *(const unsigned char *)(word + j);
            }
        }
        gp__tile_load_wait();
        __syncthreads();

        /* Where tile row r, column 0 sits in shared memory: rows of one class m = r % K are
         * consecutive shared rows from m * (TR / K), shifted by the class's shift. */
        int base[K];
#pragma unroll
        for (int m = 0; m < K; m++) base[m] = m * (TR / K) * P4 + (int)(((uintptr_t)in + m * ld_in_b) & 3);

        /* Write: slot i is aligned word i % OUT_WORDS of output row c = i / OUT_WORDS; its
         * element j is tile row r0 + j, with r0 = (word - segment start) / E (negative
         * rows, before the segment, are not ours). */
        for (int i = threadIdx.x; i < cols * Tile::OUT_WORDS; i += NT) {
            const int c = i / Tile::OUT_WORDS, w = i % Tile::OUT_WORDS;
            const uintptr_t o = (uintptr_t)out + c * ld_out_b;
            const int d = 4 * w - (int)(o & 3), r0 = d / E; /* exact: o is E-aligned */
            if (d >= rows * E) continue;
            T v[K];
#pragma unroll
            for (int j = 0; j < K; j++) {
                const int r = r0 + j, m = r & (K - 1); /* r % K, also for r < 0 */
                int at_m = base[0];
#pragma unroll
                for (int n = 1; n < K; n++) at_m = m == n ? base[n] : at_m; /* base[m] in registers */
                v[j] = r >= 0 && r < rows ? *reinterpret_cast<const T *>(sb + at_m + (int)((unsigned)r / K) * P4 + c * E) : T();
            }
            T *dst = reinterpret_cast<T *>((o & ~(uintptr_t)3) + 4 * w);
            if (d >= 0 && d + 4 <= rows * E) {
                uint32_t x = 0;
#pragma unroll
                for (int j = 0; j < K; j++) x |= (uint32_t)v[j] << (8 * E * j);
                *reinterpret_cast<uint32_t *>(dst) = x;
            } else {
#pragma unroll
                for (int j = 0; j < K; j++)
                    if (r0 + j >= 0 && r0 + j < rows) dst[j] = v[j];
            }
        }
        __syncthreads(); /* the next tile overwrites s */
    }
}

template <class T>
static cudaError_t step1_ragged(const gp__transpose_desc *d, cudaStream_t s)
{
    typedef step1_ragged_tile<T> Tile;
    const gp__transpose_words a = gp__transpose_in_units(d, 1);
    const size_t tiles = gp__ceil_div(a.cols_w, Tile::TC) * gp__ceil_div(a.rows, Tile::TR) * a.batch;
    step1_ragged_kernel<T><<<(unsigned)gp__min_size(tiles, GP__GRID_MAX), GP__TRANSPOSE_THREADS, 0, s>>>(a);
    return cudaGetLastError();
}

/* The tile shapes of step 0 (before shapes followed the matrix): square, or for skinny
 * matrices a tile 128 bytes wide (few columns) or 32 * K rows tall (few rows). */
template <class W, int K>
static cudaError_t step0_words(const gp__transpose_desc *d)
{
    const gp__transpose_words a = gp__transpose_in_words<W, K>(d);
    const bool few_rows = a.rows <= (size_t)32 * K && a.cols_w * sizeof(W) > 128;
    const bool few_cols = a.cols_w * sizeof(W) <= 128 && a.rows > (size_t)32 * K;
    constexpr int SHORT_COLS = 16384 / (K * 32) / (int)sizeof(W), NARROW_COLS = 128 / (int)sizeof(W);
    constexpr int NARROW_Q = (16384 / (K * 128) < 32 ? 32 : 16384 / (K * 128));
    constexpr int SQUARE_COLS = 256 / (int)sizeof(W), SQUARE_Q = (16384 / (K * 256) < 32 ? 32 : 16384 / (K * 256));
    if (few_rows) return gp__transpose_run<W, K, SHORT_COLS, 32>(a, 0);
    if (few_cols) return gp__transpose_run<W, K, NARROW_COLS, NARROW_Q>(a, 0);
    return gp__transpose_run<W, K, SQUARE_COLS, SQUARE_Q>(a, 0);
}

/* This GPU as it is (shallow: false), or described as one below the deep-tile threshold:
 * the choices before step 5. */
static const gp__device &this_device(bool shallow)
{
    static gp__device dev[2];
    static int known = 0;
    if (!known) {
        int id;
        CUDA_CHK(cudaGetDevice(&id));
        CUDA_CHK(gp__device_query(&dev[0], id));
        dev[1] = dev[0];
        dev[1].mem_gbs_sm = 0;
        known = 1;
    }
    return dev[shallow];
}

static cudaError_t step_call(int step, int elem, void *out, const void *in, size_t rows, size_t cols)
{
    const gp__transpose_desc d = {(uintptr_t)out, (uintptr_t)in, rows, 0, cols, 0, rows, cols, 1, (size_t)elem};
    const bool ragged = elem == 1 && !gp__transpose_word_bytes(&d);
    if (step == 6)
        return elem == 4 ? gp_transpose_f32((float *)out, (const float *)in, rows, cols, 0)
                         : gp_transpose_u8((uint8_t *)out, (const uint8_t *)in, rows, cols, 0);
    if (step == 5) /* the library without the L2 prefetch */
        return elem == 4 ? gp__transpose_on<float>(d, this_device(false), 0, false)
                         : gp__transpose_on<uint8_t>(d, this_device(false), 0, false);
    const gp__device &dev = this_device(true);
    if (step >= 2 && !ragged) {
        /* steps 2 and 3: the square tile was the padded one, 256 bytes wide for floats;
         * before step 5, the short and narrow float tiles were padded too */
        const int k = elem == 4 ? 1 : 4;
        const gp__transpose_words a = gp__transpose_in_units(&d, (size_t)k);
        const int shape = gp__transpose_shape(rows / k, cols / k, 1, 4, k, (unsigned)gp__bench.sms);
        if (step < 4 && shape == GP__TILE_SQUARE)
            return elem == 4 ? gp__transpose_run_shape<uint32_t, 1, GP__TILE_SQUARE>(a, 0)
                             : gp__transpose_run_shape<uint32_t, 4, GP__TILE_SQUARE>(a, 0);
        if (elem == 4 && shape == GP__TILE_SHORT32) return gp__transpose_run_shape<uint32_t, 1, GP__TILE_SHORT32>(a, 0, dev.cluster_ok);
        if (elem == 4 && shape == GP__TILE_NARROW128) return gp__transpose_run_shape<uint32_t, 1, GP__TILE_NARROW128>(a, 0, dev.cluster_ok);
        return elem == 4 ? gp__transpose_on<float>(d, dev, 0, false) : gp__transpose_on<uint8_t>(d, dev, 0, false);
    }
    if (ragged && step >= 3) return gp__transpose_on<uint8_t>(d, dev, 0, false);
    if (ragged) {
        if (step == 0) return gp__transpose_run<uint8_t, 1, 256, 64>(gp__transpose_in_words<uint8_t, 1>(&d), 0);
        return step1_ragged<uint8_t>(&d, 0);
    }
    return elem == 4 ? step0_words<uint32_t, 1>(&d) : step0_words<uint32_t, 4>(&d);
}

typedef struct {
    int step, elem;
    char *in, *out;
    size_t rows, cols, bytes;
    int slots, next;
    int copy; /* 1: cudaMemcpyAsync instead */
} step_ctx;

static void step_timed(void *p)
{
    step_ctx *c = (step_ctx *)p;
    const char *in = c->in + (size_t)c->next * c->bytes;
    char *out = c->out + (size_t)c->next * c->bytes;
    c->next = (c->next + 1) % c->slots;
    if (c->copy) CUDA_CHK(cudaMemcpyAsync(out, in, c->bytes, cudaMemcpyDeviceToDevice, 0));
    else CUDA_CHK(step_call(c->step, c->elem, out, in, c->rows, c->cols));
}

static void bench_steps(void)
{
    static const struct { int elem; size_t rows, cols; const char *label; } shapes[] = {
        {4, 8192, 8192, "f32 8192^2"},      {4, 1000, 1000, "f32 1000^2"},
        {4, 4097, 3001, "f32 4097x3001"},   {1, 8192, 8192, "u8 8192^2"},
        {1, 4097, 3001, "u8 4097x3001"},    {1, 32, (size_t)1 << 22, "u8 32x2^22"},
        {1, (size_t)1 << 22, 32, "u8 2^22x32"},  {4, 32, (size_t)1 << 22, "f32 32x2^22"},
        {4, (size_t)1 << 22, 32, "f32 2^22x32"}, {1, 8191, 8191, "u8 8191^2"},
    };
    constexpr int NS = (int)(sizeof shapes / sizeof shapes[0]);
    double pct[STEPS][NS];
    unsigned long long *d_diff = NULL;
    CUDA_CHK(cudaMalloc(&d_diff, sizeof *d_diff));
    for (int si = 0; si < NS; si++) {
        step_ctx c = {0, shapes[si].elem, NULL, NULL, shapes[si].rows, shapes[si].cols, 0, 0, 0, 0};
        c.bytes = c.rows * c.cols * (size_t)c.elem;
        c.slots = rotation_slots(c.bytes);
        char *ref = NULL;
        CUDA_CHK(cudaMalloc(&c.in, c.bytes * c.slots));
        CUDA_CHK(cudaMalloc(&c.out, c.bytes * c.slots));
        CUDA_CHK(cudaMalloc(&ref, c.bytes));
        fill(c.in, c.bytes * c.slots, FILL_RAW, DATA_SEED + 100 + (uint32_t)si);
        ref_launch((size_t)c.elem, ref, c.in, c.rows, c.cols);
        const int batch = gp_bench_batch_size((size_t)256 << 20, 2 * c.bytes);
        for (int st = 0; st < STEPS; st++) {
            c.step = st;
            CUDA_CHK(cudaMemset(c.out, 0xA5, c.bytes));
            CUDA_CHK(step_call(st, c.elem, c.out, c.in, c.rows, c.cols));
            CUDA_CHK(cudaMemset(d_diff, 0, sizeof *d_diff));
            count_diff<<<(unsigned)gp__bench.sms * 8, 256>>>((const uint8_t *)c.out, (const uint8_t *)ref, c.bytes, d_diff);
            CUDA_CHK_LAUNCH();
            unsigned long long diff = 0;
            CUDA_CHK(cudaMemcpy(&diff, d_diff, sizeof diff, cudaMemcpyDeviceToHost));
            if (diff) {
                char msg[160];
                snprintf(msg, sizeof msg, "step %d, %s: %llu bytes differ from the reference kernel", st, shapes[si].label, diff);
                fail(msg);
            }
            /* the copy right before each step, so both see the same GPU state */
            c.next = 0, c.copy = 1;
            const double copy_ms = gp_bench_median_ms_batch(step_timed, &c, batch);
            c.next = 0, c.copy = 0;
            pct[st][si] = 100.0 * copy_ms / gp_bench_median_ms_batch(step_timed, &c, batch);
        }
        CUDA_CHK(cudaFree(c.in));
        CUDA_CHK(cudaFree(c.out));
        CUDA_CHK(cudaFree(ref));
    }
    CUDA_CHK(cudaFree(d_diff));
    char head[512] = "step";
    for (int si = 0; si < NS; si++) snprintf(head + strlen(head), sizeof head - strlen(head), "|%s", shapes[si].label);
    gp_table_begin("gp_transpose, step by step: % of copy", head);
    for (int st = 0; st < STEPS; st++) {
        char row[512];
        snprintf(row, sizeof row, "%s", step_names[st]);
        for (int si = 0; si < NS; si++) snprintf(row + strlen(row), sizeof row - strlen(row), "|%.1f%%", pct[st][si]);
        gp_table_row("%s", row);
    }
    gp_bench_note(
        "Each step keeps the ones above it; every row runs the ragged kernels at today's blocks per SM (5 for "
        "u8, 6 for u16), a compile-time choice. %% of copy: cudaMemcpyAsync time of the same bytes, measured "
        "right before the step, over the step's time, same rotation through copies beyond the L2. Each "
        "step's output was compared byte for byte with the one-thread-per-element reference kernel "
        "first. Tried and not taken (H100, same table, the copy measured once per column): two "
        "shared-memory stages, each block looping over tiles with the next tile's loads in flight "
        "while it writes the current one, lost 6-10%% of copy on every square (f32 8192^2 110.8%% -> "
        "100.5%%, u8 8192^2 94.4%% -> 85.3%%, f32 4097 x 3001 86.1%% -> 80.2%%) and 3-6%% on the "
        "skinny u8 shapes; square f32 tiles of 128 by 512 bytes instead of 256 by 256 lost 1-2%% more. "
        "Later (bench/transpose/probes/transpose_tiles.cu, %% of copy): as many blocks as fit on the GPU at once, "
        "each looping over tiles, lost 6-11%% on f32 and f64 squares; 4 KB tiles lost 5-25%% everywhere; "
        "ragged tiles of 64 input bytes or of 32 KB lost 2-20%% (u8 4097 x 3001: 61%% and 43%% against 64%%). "
        "Later again (H100, this table with a further step that was not kept): square ragged tiles in two "
        "stages, 4 blocks per SM, as many as the GPU holds, each issuing its next tile's copies "
        "before it writes the current one out (64 registers, no spills), lost 18-19 points: u8 "
        "4097 x 3001 81.6%% -> 63.2%%, u8 8191^2 71.8%% -> 53.2%%; two consecutive tiles a block, "
        "both tiles' copies issued first and the first written out while the second's land, "
        "81.3%% -> 62.5%% (799 blocks of pairs are 1.5 waves of 528) and 72.0%% -> 69.3%%.");
}

int main(void)
{
    need_gpu(__FILE__);
    gp_bench_begin("transpose", "Transpose");
    const char *only = getenv("GP_BENCH_ONLY");
    const int all = only == NULL || *only == '\0';
    if (all) bench_ladder();
    bench_table();
    bench_goals();
    if (all) bench_steps();
    gp_bench_end();
    return 0;
}
