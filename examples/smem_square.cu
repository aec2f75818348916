/* examples/smem_square.cu -- shared-memory banks on a square 32x32 tile: the square
 * shared-memory kernels of Cheng, Grossman & McKercher, "Professional CUDA C Programming"
 * (2014), ch. 5 (setRowReadRow, setColReadCol, setRowReadCol, dynamic, padded), and a
 * classic two-values-per-thread store.
 *
 * Shared memory has 32 banks of 4 bytes; a warp's request is served in one pass
 * ("wavefront") when its 32 lanes hit 32 different banks (or the same word), and in k
 * passes when k lanes hit different words of one bank. Each kernel below stores a 32x32
 * int tile into shared memory and reads it back, one block of 32x32 threads per tile:
 *   set_row_read_row       tile[ty][tx]: a warp covers one row, 32 banks     st 1, ld 1
 *   set_col_read_col       tile[tx][ty]: a warp covers one column, one bank  st 32, ld 32
 *   set_row_read_col       writes rows, reads columns (a transpose)          st 1, ld 32
 *   set_row_read_col_dyn   the same on dynamic shared memory (1-D indices)   st 1, ld 32
 *   set_row_read_col_pad   one int of padding per row: a column spreads      st 1, ld 1
 *                          over all 32 banks
 * and, with 1-D blocks, each thread storing two values (the classic exercise):
 *   store_two_adjacent     shared[2*tid], shared[2*tid+1]: lanes 0 and 16 hit one bank  st 2
 *   store_two_strided      shared[tid], shared[tid + blockDim.x]: 32 banks              st 1
 * The numbers at the right are wavefronts per request, as the bank model predicts them.
 * An H200 (make run-examples): ncu counts exactly these; 2^14 tiles take 30 us without
 * conflicts, 85 us with 32-way loads, 144 us with 32-way stores and loads. The two-values
 * kernels take the same time (41 us): their 2-way store hides behind the global traffic.
 *
 * Run:  make build/examples/smem_square && build/examples/smem_square [--no-ncu]
 *   1. checks every kernel's output against the host, on 2^14 tiles;
 *   2. times each kernel (median of 31, CUDA events): conflicts cost time;
 *   3. where `ncu` is on the PATH (and allowed to read the counters), profiles itself --
 *      `ncu --metrics <below> smem_square --once`, one block per kernel -- and prints the
 *      shared-memory wavefronts per request beside the prediction: 1 against 32. Without
 *      ncu it says so and stops after step 2 (exit status 0 either way: ncu only reports).
 *      The metrics (nvprof's shared_{load,store}_transactions_per_request, renamed):
 *        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum  wavefronts
 *        smsp__inst_executed_op_shared_{ld,st}.sum                  requests (warp instructions) */
#include "../gpuprims.cuh"
#include "need_gpu.h"
#include "../bench/bench.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BDIMX 32
#define BDIMY 32
#define IPAD 1
#define TILE (BDIMX * BDIMY) /* ints per tile, one tile per block */
#define TWO_BLOCK 256        /* threads per block for the two-values kernels; 512 ints each */
#define TILES (1u << 14)     /* 64 MB of output: the timing is not launch overhead */

/* Each block owns TILE consecutive ints of out; its values are offset by its base so that
 * a block writing to the wrong place would be caught. extern "C": plain names in ncu. */
static __device__ unsigned tile_base(void) { return blockIdx.x * TILE; }

extern "C" __global__ void set_row_read_row(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned idx = threadIdx.y * blockDim.x + threadIdx.x, base = tile_base();
    tile[threadIdx.y][threadIdx.x] = base + idx;
    __syncthreads();
    out[base + idx] = tile[threadIdx.y][threadIdx.x];
}

extern "C" __global__ void set_col_read_col(int *out)
{
    __shared__ int tile[BDIMX][BDIMY];
    unsigned idx = threadIdx.y * blockDim.x + threadIdx.x, base = tile_base();
    tile[threadIdx.x][threadIdx.y] = base + idx; /* lanes differ in x: stride of 32 ints, one bank */
    __syncthreads();
    out[base + idx] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void set_row_read_col(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned idx = threadIdx.y * blockDim.x + threadIdx.x, base = tile_base();
    tile[threadIdx.y][threadIdx.x] = base + idx;
    __syncthreads();
    out[base + idx] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void set_row_read_col_dyn(int *out)
{
    extern __shared__ int dyn_tile[]; /* TILE ints, the launch's third argument */
    unsigned row_idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned col_idx = threadIdx.x * blockDim.y + threadIdx.y;
    unsigned base = tile_base();
    dyn_tile[row_idx] = base + row_idx;
    __syncthreads();
    out[base + row_idx] = dyn_tile[col_idx];
}

extern "C" __global__ void set_row_read_col_pad(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + IPAD]; /* column x of row y is in bank (33y + x) % 32 */
    unsigned idx = threadIdx.y * blockDim.x + threadIdx.x, base = tile_base();
    tile[threadIdx.y][threadIdx.x] = base + idx;
    __syncthreads();
    out[base + idx] = tile[threadIdx.x][threadIdx.y];
}

/* Two values per thread, global -> shared -> global; the reads back are conflict-free in
 * both, so only the stores differ. `volatile` keeps the two 4-byte stores apart: without
 * it the compiler may fuse shared[2*tid] and shared[2*tid+1] into one 8-byte store,
 * which the hardware serves in 2 wavefronts anyway (256 bytes per warp). */
extern "C" __global__ void store_two_adjacent(int *out, const int *in)
{
    __shared__ int shared[2 * TWO_BLOCK];
    volatile int *s = shared;
    const int *g = in + (size_t)blockIdx.x * 2 * TWO_BLOCK;
    unsigned tid = threadIdx.x;
    s[2 * tid] = g[2 * tid];
    s[2 * tid + 1] = g[2 * tid + 1];
    __syncthreads();
    out[(size_t)blockIdx.x * 2 * TWO_BLOCK + tid] = s[tid];
    out[(size_t)blockIdx.x * 2 * TWO_BLOCK + tid + blockDim.x] = s[tid + blockDim.x];
}

extern "C" __global__ void store_two_strided(int *out, const int *in)
{
    __shared__ int shared[2 * TWO_BLOCK];
    volatile int *s = shared;
    const int *g = in + (size_t)blockIdx.x * 2 * TWO_BLOCK;
    unsigned tid = threadIdx.x;
    s[tid] = g[tid];
    s[tid + blockDim.x] = g[tid + blockDim.x];
    __syncthreads();
    out[(size_t)blockIdx.x * 2 * TWO_BLOCK + tid] = s[tid];
    out[(size_t)blockIdx.x * 2 * TWO_BLOCK + tid + blockDim.x] = s[tid + blockDim.x];
}

enum { SQUARE, TRANSPOSED, COPY }; /* what a kernel's output should be */

typedef struct {
    const char *name;
    int expect;              /* SQUARE: out[i] = i; TRANSPOSED: each tile transposed; COPY: out = in */
    int st_wf, ld_wf;        /* predicted wavefronts per request */
    void (*tile_kernel)(int *);
    void (*two_kernel)(int *, const int *);
    size_t dyn_smem;
} kernel_t;

static const kernel_t kernels[] = {
    {"set_row_read_row", SQUARE, 1, 1, set_row_read_row, NULL, 0},
    {"set_col_read_col", SQUARE, 32, 32, set_col_read_col, NULL, 0},
    {"set_row_read_col", TRANSPOSED, 1, 32, set_row_read_col, NULL, 0},
    {"set_row_read_col_dyn", TRANSPOSED, 1, 32, set_row_read_col_dyn, NULL, TILE * sizeof(int)},
    {"set_row_read_col_pad", TRANSPOSED, 1, 1, set_row_read_col_pad, NULL, 0},
    {"store_two_adjacent", COPY, 2, 1, NULL, store_two_adjacent, 0},
    {"store_two_strided", COPY, 1, 1, NULL, store_two_strided, 0},
};
#define NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))

typedef struct {
    const kernel_t *k;
    int *out;
    const int *in;
    unsigned tiles; /* 32x32 tiles, or 2*TWO_BLOCK-int chunks: both TILE or 512 ints per block */
} launch_t;

static void launch(void *p)
{
    launch_t *a = (launch_t *)p;
    if (a->k->tile_kernel)
        a->k->tile_kernel<<<a->tiles, dim3(BDIMX, BDIMY), a->k->dyn_smem>>>(a->out);
    else
        a->k->two_kernel<<<a->tiles * (TILE / (2 * TWO_BLOCK)), TWO_BLOCK>>>(a->out, a->in);
    CUDA_CHK_LAUNCH();
}

static int expected(int kind, const int *in, size_t i)
{
    size_t base = i / TILE * TILE, r = (i % TILE) / BDIMX, c = i % BDIMX;
    if (kind == SQUARE) return (int)i;
    if (kind == TRANSPOSED) return (int)(base + c * BDIMX + r);
    return in[i];
}

/* ---- ncu: profile this program's --once run, parse the CSV ---------------------------- */
static const char *const metrics[4] = {
    "smsp__inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"};

/* Splits one CSV line in place ("a","b,c",...): returns the number of fields. Commas inside
 * quotes are part of the field (ncu writes 1,024 for 1024). */
static int csv_split(char *line, char **field, int max)
{
    int n = 0;
    char *p = line;
    while (*p && *p != '\n' && n < max) {
        int quoted = *p == '"';
        if (quoted) p++;
        field[n++] = p;
        char *w = p;
        while (*p && *p != '\n' && (quoted ? *p != '"' : *p != ',')) *w++ = *p++;
        if (quoted && *p == '"') p++;
        *w = 0;
        if (*p == ',') p++;
        else break;
    }
    return n;
}

static double parse_count(const char *s)
{
    char digits[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof digits; s++)
        if (*s != ',') digits[k++] = *s;
    digits[k] = 0;
    return atof(digits);
}

static int kernel_index(const char *name)
{
    for (int k = 0; k < NKERNELS; k++) {
        size_t len = strlen(kernels[k].name);
        if (strncmp(name, kernels[k].name, len) == 0 && (name[len] == 0 || name[len] == '(')) return k;
    }
    return -1;
}

static void ncu_table(void)
{
    if (system("command -v ncu > /dev/null 2>&1") != 0) {
        printf("ncu not found on the PATH: no wavefront table. With Nsight Compute installed, run this "
               "program again (it calls ncu itself), or by hand:\n  ncu --metrics %s,%s,%s,%s "
               "build/examples/smem_square --once\n",
               metrics[0], metrics[1], metrics[2], metrics[3]);
        return;
    }
    char self[4096], cmd[8192];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        printf("cannot find this program's path: no wavefront table\n");
        return;
    }
    self[len] = 0;
    snprintf(cmd, sizeof cmd, "ncu --csv --metrics %s,%s,%s,%s '%s' --once 2>&1", metrics[0], metrics[1],
             metrics[2], metrics[3], self);
    printf("profiling one block of each kernel: %s\n", cmd);
    fflush(stdout);
    FILE *f = popen(cmd, "r");
    if (!f) {
        printf("could not start ncu: no wavefront table\n");
        return;
    }
    double value[NKERNELS][4] = {{0}};
    int seen = 0, col_kernel = -1, col_metric = -1, col_value = -1;
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof line, f)) {
        char copy[4096], *field[32];
        snprintf(copy, sizeof copy, "%s", line);
        int nf = csv_split(copy, field, 32);
        if (nf > 3 && strcmp(field[0], "ID") == 0) { /* the header names the columns */
            for (int i = 0; i < nf; i++) {
                if (strcmp(field[i], "Kernel Name") == 0) col_kernel = i;
                if (strcmp(field[i], "Metric Name") == 0) col_metric = i;
                if (strcmp(field[i], "Metric Value") == 0) col_value = i;
            }
            continue;
        }
        if (col_value < 0 || nf <= col_value || line[0] != '"') {
            if (line[0] != '\n') snprintf(last, sizeof last, "%s", line); /* keep ncu's last word */
            continue;
        }
        int k = kernel_index(field[col_kernel]);
        for (int m = 0; m < 4 && k >= 0; m++)
            if (strcmp(field[col_metric], metrics[m]) == 0) {
                value[k][m] += parse_count(field[col_value]);
                seen++;
            }
    }
    int status = pclose(f);
    if (seen == 0) {
        printf("ncu gave no metrics (status %d; its last line: %s): no wavefront table. If it says "
               "ERR_NVGPUCTRPERM, the GPU's counters need admin rights.\n",
               status, last[0] ? last : "(none)\n");
        return;
    }
    printf("\nShared-memory wavefronts per request (ncu, one block per kernel)\n\n"
           "| kernel | st requests | st wavefronts/request (predicted) | ld requests | ld wavefronts/request "
           "(predicted) |\n|---|---|---|---|---|\n");
    for (int k = 0; k < NKERNELS; k++) {
        double *v = value[k];
        printf("| %s | %.0f | %.2f (%d) | %.0f | %.2f (%d) |\n", kernels[k].name, v[0], v[0] ? v[1] / v[0] : 0.0,
               kernels[k].st_wf, v[2], v[2] ? v[3] / v[2] : 0.0, kernels[k].ld_wf);
    }
}

int main(int argc, char **argv)
{
    need_gpu(__FILE__);
    int once = argc > 1 && strcmp(argv[1], "--once") == 0;
    int no_ncu = argc > 1 && strcmp(argv[1], "--no-ncu") == 0;
    if (argc > 2 || (argc == 2 && !once && !no_ncu)) {
        fprintf(stderr, "usage: %s [--no-ncu | --once]\n", argv[0]);
        return 2;
    }
    const unsigned tiles = once ? 1 : TILES;
    const size_t n = (size_t)tiles * TILE, bytes = n * sizeof(int);
    int *h_in = (int *)malloc(bytes), *h_out = (int *)malloc(bytes), *d_in, *d_out;
    for (size_t i = 0; i < n; i++) h_in[i] = (int)(i * 2654435761u);
    CUDA_CHK(cudaMalloc(&d_in, bytes));
    CUDA_CHK(cudaMalloc(&d_out, bytes));
    CUDA_CHK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    if (once) { /* what ncu profiles: each kernel once, on one block (or two, 512 ints each) */
        for (int k = 0; k < NKERNELS; k++) {
            launch_t a = {&kernels[k], d_out, d_in, tiles};
            launch(&a);
        }
        CUDA_CHK(cudaDeviceSynchronize());
        return 0;
    }

    int bad_kernels = 0;
    printf("%u tiles of 32x32 ints (%zu MB out)\n\n| kernel | time (us) | GB/s | predicted st/ld "
           "wavefronts per request | check |\n|---|---|---|---|---|\n",
           tiles, bytes >> 20);
    for (int k = 0; k < NKERNELS; k++) {
        launch_t a = {&kernels[k], d_out, d_in, tiles};
        CUDA_CHK(cudaMemset(d_out, 0xff, bytes)); /* poison */
        launch(&a);
        CUDA_CHK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += h_out[i] != expected(kernels[k].expect, h_in, i);
        float ms = gp_bench_median_ms(launch, &a);
        double moved = kernels[k].expect == COPY ? 2.0 * bytes : (double)bytes;
        printf("| %s | %.1f | %.0f | %d / %d | %s |\n", kernels[k].name, ms * 1e3, gp_bench_gbps(moved, ms),
               kernels[k].st_wf, kernels[k].ld_wf, bad ? "MISMATCH" : "ok");
        if (bad) fprintf(stderr, "%s: %zu of %zu ints differ from the host reference\n", kernels[k].name, bad, n);
        bad_kernels += bad != 0;
    }
    CUDA_CHK(cudaFree(d_in));
    CUDA_CHK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    if (bad_kernels) return 1;
    printf("\n");
    if (!no_ncu) ncu_table();
    return 0;
}
