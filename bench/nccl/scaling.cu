/* bench/nccl/scaling.cu -- weak scaling of gpuprims_nccl.cuh over the GPUs of one machine
 * (one thread per GPU, ncclCommInitAll), data made on the device.
 *   reduce and inclusive scan (in place) of float sums, GP_NCCL_BENCH_GB (default 100) GB
 *   per GPU, or what fits: per GPU against the single-GPU call on the same shard in the
 *   same run, on 1 rank and on all. The scan's own bound is shown too: the distributed
 *   scan reads its shard twice (the local reduce, then the scan from the carry), so it
 *   moves 3 bytes per 2 of the single-GPU scan; "reduce + scan" is those two calls on one
 *   GPU without NCCL.
 *   transpose of a square float matrix, GP_NCCL_BENCH_TRANSPOSE_GB (default 32) GB per GPU
 *   (input, output and the exchange's staging, 3x that, must fit), against NCCL's
 *   all-to-all alone (ncclSend/ncclRecv of the same tiles, same bytes), with a ladder of
 *   what the exchange does (the first version's ways, one at a time, and piece sizes),
 *   its local steps alone, the device's copy rate and the local gp_transpose_f32 of a
 *   shard. Every transpose row's output is checked on the device against the input's
 *   closed form (outputs poisoned first).
 * Timing: per rank, CUDA events around each call on its stream, all ranks released
 * together (a barrier) each time; median of 21 calls after 3 warm-ups; the slowest rank.
 * Run: make bench-nccl (sets NCCL_NVLS_ENABLE=0); writes bench/results/<gpu>.nccl.md/.csv. */
#include "../../gpuprims_nccl.cuh"
#include "../bench.cuh"
#include "../../examples/need_gpu.h"
#include "../../tests/hash.cuh"
#include "../../tests/nccl/ranks.h"

#include <math.h>

enum { WARMUP = 3, REPS = 21 };

/* ---- timing: one thread per rank ---------------------------------------------------------- */

typedef void (*op_fn)(const group *g, int rank, void *ctx); /* enqueues one call on g->st[rank] */
typedef struct {
    const group *g;
    int rank;
    op_fn fn;
    void *ctx;
    pthread_barrier_t *bar;
    float ms;
} timer_job;

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void *timer_main(void *p)
{
    timer_job *j = (timer_job *)p;
    cudaStream_t s = j->g->st[j->rank];
    CUDA_CHK(cudaSetDevice(j->rank));
    cudaEvent_t a, b;
    CUDA_CHK(cudaEventCreate(&a));
    CUDA_CHK(cudaEventCreate(&b));
    float ms[REPS];
    for (int i = 0; i < WARMUP + REPS; i++) {
        CUDA_CHK(cudaStreamSynchronize(s));
        pthread_barrier_wait(j->bar); /* every rank starts together */
        CUDA_CHK(cudaEventRecord(a, s));
        j->fn(j->g, j->rank, j->ctx);
        CUDA_CHK(cudaEventRecord(b, s));
        CUDA_CHK(cudaEventSynchronize(b));
        if (i >= WARMUP) CUDA_CHK(cudaEventElapsedTime(&ms[i - WARMUP], a, b));
    }
    qsort(ms, REPS, sizeof(float), cmp_float);
    j->ms = ms[REPS / 2];
    CUDA_CHK(cudaEventDestroy(a));
    CUDA_CHK(cudaEventDestroy(b));
    return NULL;
}

/* The slowest rank's median time of fn, in ms. */
static float time_ranks(const group *g, op_fn fn, void *ctx)
{
    pthread_t t[MAX_RANKS];
    timer_job jobs[MAX_RANKS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)g->ranks);
    for (int r = 0; r < g->ranks; r++) {
        jobs[r] = (timer_job){g, r, fn, ctx, &bar, 0};
        if (pthread_create(&t[r], NULL, timer_main, &jobs[r]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    float worst = 0;
    for (int r = 0; r < g->ranks; r++) {
        pthread_join(t[r], NULL);
        if (jobs[r].ms > worst) worst = jobs[r].ms;
    }
    pthread_barrier_destroy(&bar);
    return worst;
}

/* ---- reduce and scan ------------------------------------------------------------------------ */

static __device__ __forceinline__ float unit_at(size_t i, uint32_t key)
{
    return (float)(hash32(i, key) >> 8) * (1.0f / 16777216.0f);
}
__global__ void fill_unit(float *x, size_t n, uint32_t key)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = unit_at(i, key);
}

typedef struct {
    float *x[MAX_RANKS], *out[MAX_RANKS];
    size_t n;
} shards;

static void op_reduce_single(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_reduce_sum_f32(c->out[r], c->x[r], c->n, g->st[r]));
}
static void op_reduce_nccl(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_nccl_reduce_sum_f32(c->out[r], c->x[r], c->n, g->comm[r], g->st[r]));
}
static void op_scan_single(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_inclusive_scan_sum_f32(c->x[r], c->x[r], c->n, g->st[r]));
}
static void op_scan_init(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_inclusive_scan_init_sum_f32(c->x[r], c->x[r], c->n, c->out[r], g->st[r]));
}
static void op_reduce_scan(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_reduce_sum_f32(c->out[r] + 1, c->x[r], c->n, g->st[r]));
    CUDA_CHK(gp_inclusive_scan_init_sum_f32(c->x[r], c->x[r], c->n, c->out[r], g->st[r]));
}
static void op_scan_nccl(const group *g, int r, void *p)
{
    shards *c = (shards *)p;
    CUDA_CHK(gp_nccl_inclusive_scan_sum_f32(c->x[r], c->x[r], c->n, g->comm[r], g->st[r]));
}

static size_t free_bytes(int dev)
{
    size_t fr, total;
    CUDA_CHK(cudaSetDevice(dev));
    CUDA_CHK(cudaMemGetInfo(&fr, &total));
    return fr;
}

static double env_gb(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v && *v ? atof(v) : dflt;
}

static void bench_reduce_scan(const group *one, const group *all)
{
    /* the shard: the asked size, or what leaves 3 GiB free on the fullest GPU */
    size_t bytes = (size_t)(env_gb("GP_NCCL_BENCH_GB", 100) * 1e9);
    for (int r = 0; r < all->ranks; r++) {
        const size_t room = free_bytes(r) - ((size_t)3 << 30);
        if (bytes > room) bytes = room;
    }
    shards c;
    c.n = bytes / sizeof(float);
    for (int r = 0; r < all->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMalloc(&c.x[r], c.n * sizeof(float)));
        CUDA_CHK(cudaMalloc(&c.out[r], 2 * sizeof(float)));
        CUDA_CHK(cudaMemset(c.out[r], 0, 2 * sizeof(float)));
        fill_unit<<<8192, 256>>>(c.x[r], c.n, 7u + (uint32_t)r);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaDeviceSynchronize());
    }
    const double gb = (double)c.n * sizeof(float) / 1e9;
    char title[256];
    snprintf(title, sizeof title, "Reduce and inclusive scan (sum_f32, in place), %.1f GB per GPU", gb);
    gp_table_begin(title, "call|ranks|ms|GB/s per GPU (shard bytes / time)|vs the single-GPU call");
    const float red1 = time_ranks(one, op_reduce_single, &c);
    gp_table_row("gp_reduce_sum_f32 (one GPU)|1|%.2f|%.0f|1.00", red1, gb / red1 * 1e3);
    const float redp1 = time_ranks(one, op_reduce_nccl, &c);
    gp_table_row("gp_nccl_reduce_sum_f32|1|%.2f|%.0f|%.2f", redp1, gb / redp1 * 1e3, red1 / redp1);
    const float redp = time_ranks(all, op_reduce_nccl, &c);
    gp_table_row("gp_nccl_reduce_sum_f32|%d|%.2f|%.0f|%.2f", all->ranks, redp, gb / redp * 1e3, red1 / redp);
    const float sc1 = time_ranks(one, op_scan_single, &c);
    gp_table_row("gp_inclusive_scan_sum_f32 (one GPU)|1|%.2f|%.0f|1.00", sc1, gb / sc1 * 1e3);
    const float sci = time_ranks(one, op_scan_init, &c);
    gp_table_row("gp_inclusive_scan_init_sum_f32 (one GPU, carry-in)|1|%.2f|%.0f|%.2f", sci, gb / sci * 1e3, sc1 / sci);
    const float rs = time_ranks(one, op_reduce_scan, &c);
    gp_table_row("reduce + scan from the carry (one GPU, no NCCL)|1|%.2f|%.0f|%.2f", rs, gb / rs * 1e3, sc1 / rs);
    const float scp1 = time_ranks(one, op_scan_nccl, &c);
    gp_table_row("gp_nccl_inclusive_scan_sum_f32|1|%.2f|%.0f|%.2f (%.2f of reduce + scan)", scp1, gb / scp1 * 1e3,
                 sc1 / scp1, rs / scp1);
    const float scp = time_ranks(all, op_scan_nccl, &c);
    gp_table_row("gp_nccl_inclusive_scan_sum_f32|%d|%.2f|%.0f|%.2f (%.2f of reduce + scan)", all->ranks, scp,
                 gb / scp * 1e3, sc1 / scp, rs / scp);
    for (int r = 0; r < all->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaFree(c.x[r]));
        CUDA_CHK(cudaFree(c.out[r]));
    }
}

/* ---- transpose -------------------------------------------------------------------------------- */

typedef struct {
    float *in[MAX_RANKS], *out[MAX_RANKS];
    size_t rows, cols;              /* global */
    gp__nccl_transpose_knobs knobs; /* op_transpose_knobs: the ladder's row */
} matrix;

static void op_transpose_nccl(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    CUDA_CHK(gp_nccl_transpose_f32(m->out[r], m->in[r], m->rows, m->cols, g->comm[r], g->st[r]));
}
static void op_transpose_knobs(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    CUDA_CHK(gp__nccl_transpose<float>(m->out[r], m->in[r], m->rows, m->cols, g->comm[r], g->st[r],
                                       gp_transpose_strided_f32, &m->knobs));
}
/* The exchange's local steps alone, on every peer tile: its transpose into contiguous
 * staging (pack), and the strided copy of a received tile into its columns (unpack), by
 * cudaMemcpy2DAsync (the first version) and by the copy kernel; and a plain copy of as
 * many bytes (the device's copy rate). */
static void op_pack(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    const size_t P = (size_t)g->ranks, rr = m->rows / P, c = m->cols / P;
    for (size_t j = 0, q = 0; j < P; j++)
        if (j != (size_t)r) CUDA_CHK(gp_transpose_strided_f32(m->out[r] + q++ * rr * c, rr, m->in[r] + j * c, m->cols, rr, c, g->st[r]));
}
static void unpack(const group *g, int r, matrix *m, int kernel)
{
    const size_t P = (size_t)g->ranks, rr = m->rows / P, c = m->cols / P, width = rr * sizeof(float);
    for (size_t i = 0, q = 0; i < P; i++) {
        if (i == (size_t)r) continue;
        float *dst = m->out[r] + i * rr;
        const float *src = m->in[r] + q++ * rr * c;
        CUDA_CHK(kernel ? gp__nccl_copy_rows(dst, m->rows * sizeof(float), src, width, width, c, g->st[r])
                        : cudaMemcpy2DAsync(dst, m->rows * sizeof(float), src, width, width, c,
                                            cudaMemcpyDeviceToDevice, g->st[r]));
    }
}
static void op_unpack_memcpy2d(const group *g, int r, void *p) { unpack(g, r, (matrix *)p, 0); }
static void op_unpack_kernel(const group *g, int r, void *p) { unpack(g, r, (matrix *)p, 1); }
static void op_copy(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    const size_t P = (size_t)g->ranks, bytes = (P - 1) * (m->rows / P) * (m->cols / P) * sizeof(float);
    CUDA_CHK(cudaMemcpyAsync(m->out[r], m->in[r], bytes, cudaMemcpyDeviceToDevice, g->st[r]));
}
/* The device's default pool (where the transpose's staging comes from) keeps its memory
 * between calls instead of returning it at every synchronisation. */
static void keep_pool_memory(int ranks)
{
    for (int r = 0; r < ranks; r++) {
        cudaMemPool_t pool;
        uint64_t keep = UINT64_MAX;
        CUDA_CHK(cudaDeviceGetDefaultMemPool(&pool, r));
        CUDA_CHK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
}
/* NCCL's all-to-all alone: the same (P-1) tiles of rows/P x cols/P floats out and in. */
static void op_alltoall(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    const size_t P = (size_t)g->ranks, tile = (m->rows / P) * (m->cols / P) * sizeof(float);
    if (ncclGroupStart() != ncclSuccess) exit(1);
    for (size_t j = 0; j < P; j++) {
        if (j == (size_t)r) continue;
        if (ncclSend((char *)m->in[r] + j * tile, tile, ncclUint8, (int)j, g->comm[r], g->st[r]) != ncclSuccess ||
            ncclRecv((char *)m->out[r] + j * tile, tile, ncclUint8, (int)j, g->comm[r], g->st[r]) != ncclSuccess)
            exit(1);
    }
    if (ncclGroupEnd() != ncclSuccess) exit(1);
}
static void op_transpose_local(const group *g, int r, void *p)
{
    matrix *m = (matrix *)p;
    CUDA_CHK(gp_transpose_f32(m->out[r], m->in[r], m->rows / g->ranks, m->cols, g->st[r]));
}

/* Elements of rank `rank`'s output (c = cols/P rows of `rows`) that are not the input's
 * closed form: input rank k holds unit_at(local index, 11 + k). */
__global__ void count_wrong_transpose(const float *out, size_t rows, size_t cols, int ranks, int rank,
                                      unsigned long long *wrong)
{
    const size_t r = rows / ranks, c = cols / ranks;
    unsigned long long mine = 0;
    for (size_t x = blockIdx.x; x < c; x += gridDim.x)
        for (size_t y = threadIdx.x; y < rows; y += blockDim.x)
            mine += out[x * rows + y] != unit_at(y % r * cols + (size_t)rank * c + x, 11u + (uint32_t)(y / r));
    if (mine) atomicAdd(wrong, mine);
}

/* time_ranks of a transpose, its outputs poisoned (NaN) first and checked after; a wrong
 * output ends the bench. */
static float time_checked(const group *all, op_fn fn, matrix *m, const char *what)
{
    const size_t shard = m->rows / all->ranks * m->cols;
    for (int r = 0; r < all->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMemset(m->out[r], 0xff, shard * sizeof(float)));
    }
    const float ms = time_ranks(all, fn, m);
    for (int r = 0; r < all->ranks; r++) {
        unsigned long long *d_wrong, wrong = 0;
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMalloc(&d_wrong, sizeof *d_wrong));
        CUDA_CHK(cudaMemset(d_wrong, 0, sizeof *d_wrong));
        count_wrong_transpose<<<4096, 256>>>(m->out[r], m->rows, m->cols, all->ranks, r, d_wrong);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaMemcpy(&wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
        CUDA_CHK(cudaFree(d_wrong));
        if (wrong) {
            fprintf(stderr, "%s: rank %d: %llu wrong elements\n", what, r, wrong);
            exit(1);
        }
    }
    return ms;
}

static void bench_transpose(const group *all)
{
    const size_t P = (size_t)all->ranks;
    size_t bytes = (size_t)(env_gb("GP_NCCL_BENCH_TRANSPOSE_GB", 32) * 1e9);
    for (int r = 0; r < all->ranks; r++) { /* input, output, staging (2 (P-1)/P): 4 shards at most */
        const size_t room = (free_bytes(r) - ((size_t)3 << 30)) / 4;
        if (bytes > room) bytes = room;
    }
    /* square, a side that P (and 32) divides */
    const size_t unit = 32 * P;
    const size_t side = (size_t)sqrt((double)bytes * P / sizeof(float)) / unit * unit;
    matrix m;
    memset(&m, 0, sizeof m);
    m.rows = m.cols = side;
    const size_t shard = side / P * side;
    for (int r = 0; r < all->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaMalloc(&m.in[r], shard * sizeof(float)));
        CUDA_CHK(cudaMalloc(&m.out[r], shard * sizeof(float)));
        fill_unit<<<8192, 256>>>(m.in[r], shard, 11u + (uint32_t)r);
        CUDA_CHK_LAUNCH();
        CUDA_CHK(cudaDeviceSynchronize());
    }
    const double gb = (double)shard * sizeof(float) / 1e9, moved = gb * (double)(P - 1) / (double)P;
    char title[256];
    snprintf(title, sizeof title,
             "Transpose of a %zu x %zu float matrix by row blocks, %.1f GB per GPU (%.1f GB of it to other GPUs)", side,
             side, gb, moved);
    gp_table_begin(title, "call|ranks|ms|GB/s per GPU exchanged|vs the all-to-all alone");
    const float a2a = time_ranks(all, op_alltoall, &m);
    gp_table_row("ncclSend/ncclRecv all-to-all alone (same tiles)|%d|%.2f|%.0f|1.00", all->ranks, a2a, moved / a2a * 1e3);
    const float tr = time_checked(all, op_transpose_nccl, &m, "gp_nccl_transpose_f32");
    gp_table_row("gp_nccl_transpose_f32 (default pool returns the staging at each sync)|%d|%.2f|%.0f|%.2f",
                 all->ranks, tr, moved / tr * 1e3, a2a / tr);
    keep_pool_memory(all->ranks);
    const float trk = time_checked(all, op_transpose_nccl, &m, "gp_nccl_transpose_f32");
    gp_table_row("gp_nccl_transpose_f32 (default pool keeps its memory)|%d|%.2f|%.0f|%.2f", all->ranks, trk,
                 moved / trk * 1e3, a2a / trk);
    /* the ladder: knobs {piece bytes, default priority, cudaMemcpy2DAsync unpack, whole tile that stays} */
    static const struct {
        const char *what;
        gp__nccl_transpose_knobs knobs;
    } ladder[] = {
        {"the first version: exchange at the default priority, cudaMemcpy2DAsync unpack, the tile that stays "
         "whole at piece 0", {0, 1, 1, 1}},
        {"the first version + the exchange at the greatest priority", {0, 0, 1, 1}},
        {"the first version + the unpack by the copy kernel", {0, 1, 0, 1}},
        {"the first version + the tile that stays in pieces", {0, 1, 1, 0}},
        {"all but the exchange at the greatest priority", {0, 1, 0, 0}},
        {"all but the unpack by the copy kernel", {0, 0, 1, 0}},
        {"all but the tile that stays in pieces", {0, 0, 0, 1}},
        {"pieces of 16 MiB", {(size_t)16 << 20, 0, 0, 0}},
        {"pieces of 64 MiB", {(size_t)64 << 20, 0, 0, 0}},
        {"pieces of 256 MiB", {(size_t)256 << 20, 0, 0, 0}},
        {"pieces of 4 GiB", {(size_t)4 << 30, 0, 0, 0}},
        {"one piece: no overlap", {SIZE_MAX / 2, 0, 0, 0}},
    };
    for (size_t k = 0; k < sizeof ladder / sizeof *ladder; k++) {
        m.knobs = ladder[k].knobs;
        const float t = time_checked(all, op_transpose_knobs, &m, ladder[k].what);
        gp_table_row("the same, %s|%d|%.2f|%.0f|%.2f", ladder[k].what, all->ranks, t, moved / t * 1e3, a2a / t);
    }
    const float cp = time_ranks(all, op_copy, &m);
    gp_table_row("copy alone: cudaMemcpyAsync of as many bytes (the device's copy rate)|%d|%.2f|%.0f (read + write: "
                 "%.0f)|-", all->ranks, cp, moved / cp * 1e3, 2 * moved / cp * 1e3);
    const struct {
        const char *what;
        op_fn fn;
    } local[] = {
        {"pack alone: gp_transpose_strided_f32 of the peer tiles into staging", op_pack},
        {"unpack alone: cudaMemcpy2DAsync of the received tiles into their columns (the first version)",
         op_unpack_memcpy2d},
        {"unpack alone: the copy kernel (gp__nccl_copy_rows)", op_unpack_kernel},
    };
    for (size_t k = 0; k < sizeof local / sizeof *local; k++) {
        const float t = time_ranks(all, local[k].fn, &m);
        gp_table_row("%s|%d|%.2f|%.0f (read + write: %.0f, %.2f of the copy)|-", local[k].what, all->ranks, t,
                     moved / t * 1e3, 2 * moved / t * 1e3, cp / t);
    }
    const float loc = time_ranks(all, op_transpose_local, &m);
    gp_table_row("gp_transpose_f32 of each shard (local, no exchange)|%d|%.2f|%.0f (read + write: %.0f)|-", all->ranks,
                 loc, moved / loc * 1e3, 2 * gb / loc * 1e3);
    gp_bench_note("Every gp_nccl_transpose row's output was checked against the input. The ladder starts from the "
                  "first version and adds, then leaves out, one change at a time; the piece sizes are tried with "
                  "every change in.");
    for (int r = 0; r < all->ranks; r++) {
        CUDA_CHK(cudaSetDevice(r));
        CUDA_CHK(cudaFree(m.in[r]));
        CUDA_CHK(cudaFree(m.out[r]));
    }
}

int main(void)
{
    need_gpu(__FILE__);
    int gpus = 0;
    CUDA_CHK(cudaGetDeviceCount(&gpus));
    if (gpus > MAX_RANKS) gpus = MAX_RANKS;
    int v = 0;
    ncclGetVersion(&v);
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    gp_bench_begin("nccl", "gpuprims over NCCL: weak scaling (one thread per GPU)");
    gp_bench_note("%d GPUs, NCCL %d.%d.%d, NCCL_NVLS_ENABLE=%s. Per rank: CUDA events on its stream, all ranks released "
                  "together; median of %d calls after %d warm-ups; the slowest rank.",
                  gpus, v / 10000, v / 100 % 100, v % 100, nvls ? nvls : "(unset)", REPS, WARMUP);
    group one, all;
    make_group(&one, 1);
    make_group(&all, gpus);
    bench_reduce_scan(&one, &all);
    gp_bench_note("The distributed scan reads its shard twice (the local reduce that gives the carries, then the scan "
                  "from the carry) and writes it once: 3 bytes moved per 2 of the single-GPU scan, so 0.67 of its "
                  "throughput is the bound for any scan whose ranks work at once; the reduce + scan row is that "
                  "bound measured.");
    if (gpus > 1) bench_transpose(&all);
    else gp_bench_note("One GPU: no exchange to measure the transpose against.");
    free_group(&one);
    free_group(&all);
    gp_bench_end();
    return 0;
}
