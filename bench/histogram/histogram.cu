/* bench/histogram/histogram.cu -- gp_histogram_even/range against CUB's DeviceHistogram and
 * the read rate, on the reference rows, plus the ladder of the design's steps.
 *   make bench-histogram     (or: build/bench/histogram/histogram)
 * Every row: the median of 31 timed calls after 5 warm-ups (CUDA events), buffers of 64 MB
 * and more (beyond the 50 MB L2) or, for small n, calls back to back (the launch floor).
 * % of read: the time of a kernel that only reads the same bytes (bench/read_kernel.cuh)
 * over the row's time. CUB: cub::DeviceHistogram::HistogramEven / HistogramRange, temp
 * storage allocated outside the timed region, in the same run. Each gp row's counts are
 * checked (their total) before it is timed. */
#define GP__HIST_LADDER /* the ladder's bytes counted by bin (gp__hist_knobs.no_values) */
#include "../bench.cuh"
#include "../read_kernel.cuh"
#include "../../tests/hash.cuh"
#include <cub/cub.cuh>

#include <vector>

static void need_gpu(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("histogram bench: no GPU, nothing to measure\n");
        exit(0);
    }
}

/* Inputs: kind 0 uniform, 1 every element the same */
__global__ void fill_u8(uint8_t *x, size_t n, int same)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = same ? 77 : (uint8_t)hash32(i, 1);
}
__global__ void fill_u16(uint16_t *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (uint16_t)hash32(i, 2);
}
template <class T>
__global__ void fill_unit(T *x, size_t n, int same = 0) /* [0, 1); same: every element 0.3 */
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = same ? (T)0.3 : (T)((double)(hash32(i, 3) >> 8) * 0x1p-24); /* exact in float: never rounds up to 1 */
}

struct call {
    int what;          /* see run() */
    const void *in;
    size_t n, bins;
    uint64_t *hist;
    int *cub_hist;
    void *temp;
    size_t temp_bytes;
    const double *edges;
    const float *fedges;
    gp__hist_knobs knobs;
    int use_knobs;
};
enum { W_EVEN_U8, W_EVEN_U16, W_EVEN_F32, W_EVEN_F64, W_RANGE_F32, W_CUB_U8, W_CUB_U16, W_CUB_F32, W_CUB_RANGE_F32, W_READ };

static unsigned *g_sink;
static void run(void *p)
{
    call *c = (call *)p;
    const gp__hist_knobs *k = c->use_knobs ? &c->knobs : NULL;
    switch (c->what) {
    case W_EVEN_U8: CUDA_CHK(gp__histogram_even<uint8_t>(c->hist, (const uint8_t *)c->in, c->n, c->bins, (int64_t)0, (int64_t)256, 0, k)); break;
    case W_EVEN_U16: CUDA_CHK(gp__histogram_even<uint16_t>(c->hist, (const uint16_t *)c->in, c->n, c->bins, (int64_t)0, (int64_t)65536, 0, k)); break;
    case W_EVEN_F32: CUDA_CHK(gp__histogram_even<float>(c->hist, (const float *)c->in, c->n, c->bins, 0.0, 1.0, 0, k)); break;
    case W_EVEN_F64: CUDA_CHK(gp__histogram_even<double>(c->hist, (const double *)c->in, c->n, c->bins, 0.0, 1.0, 0, k)); break;
    case W_RANGE_F32: CUDA_CHK((gp__histogram_range<float, double>(c->hist, (const float *)c->in, c->n, c->edges, c->bins, 0, k))); break;
    case W_CUB_U8:
        CUDA_CHK(cub::DeviceHistogram::HistogramEven(c->temp, c->temp_bytes, (const uint8_t *)c->in, c->cub_hist, (int)c->bins + 1, 0, 256, (int64_t)c->n));
        break;
    case W_CUB_U16:
        CUDA_CHK(cub::DeviceHistogram::HistogramEven(c->temp, c->temp_bytes, (const uint16_t *)c->in, c->cub_hist, (int)c->bins + 1, 0, 65536, (int64_t)c->n));
        break;
    case W_CUB_F32:
        CUDA_CHK(cub::DeviceHistogram::HistogramEven(c->temp, c->temp_bytes, (const float *)c->in, c->cub_hist, (int)c->bins + 1, 0.0f, 1.0f, (int64_t)c->n));
        break;
    case W_CUB_RANGE_F32:
        CUDA_CHK(cub::DeviceHistogram::HistogramRange(c->temp, c->temp_bytes, (const float *)c->in, c->cub_hist, (int)c->bins + 1, c->fedges, (int64_t)c->n));
        break;
    case W_READ: read_only<<<264 * 4, READ_BLOCK>>>((const uint4 *)c->in, c->n / 16, g_sink); break;
    }
}

static void cub_prepare(call *c)
{
    c->temp = NULL;
    c->temp_bytes = 0;
    run(c); /* the size query */
    CUDA_CHK(cudaMalloc(&c->temp, c->temp_bytes));
}

static float time_call(call *c, int batch)
{
    return batch > 1 ? gp_bench_median_ms_batch(run, c, batch) : gp_bench_median_ms(run, c);
}

/* total of the gp output == expect, else exit */
static void validate(call *c, uint64_t expect, const char *what)
{
    run(c);
    std::vector<uint64_t> h(c->bins);
    CUDA_CHK(cudaMemcpy(h.data(), c->hist, c->bins * 8, cudaMemcpyDeviceToHost));
    uint64_t s = 0;
    for (size_t i = 0; i < c->bins; i++) s += h[i];
    if (s != expect) {
        fprintf(stderr, "%s: counted %llu, want %llu\n", what, (unsigned long long)s, (unsigned long long)expect);
        exit(1);
    }
}

int main(void)
{
    need_gpu();
    gp_bench_begin("histogram", "Histogram");
    const size_t pool = (size_t)1 << 30; /* 1 GiB: 2^28 floats */
    void *in;
    uint64_t *hist;
    int *cub_hist;
    double *edges;
    float *fedges;
    CUDA_CHK(cudaMalloc(&in, pool));
    CUDA_CHK(cudaMalloc(&hist, ((size_t)1 << 24) * 8));
    CUDA_CHK(cudaMalloc(&cub_hist, ((size_t)1 << 24) * 4));
    CUDA_CHK(cudaMalloc(&edges, 4097 * 8));
    CUDA_CHK(cudaMalloc(&fedges, 4097 * 4));
    CUDA_CHK(cudaMalloc(&g_sink, 4));
    {
        std::vector<double> e(1025);
        std::vector<float> ef(1025);
        for (int i = 0; i <= 1024; i++) e[i] = ef[i] = (float)i / 1024.0f;
        CUDA_CHK(cudaMemcpy(edges, e.data(), e.size() * 8, cudaMemcpyHostToDevice));
        CUDA_CHK(cudaMemcpy(fedges, ef.data(), ef.size() * 4, cudaMemcpyHostToDevice));
    }
    call c = {};
    c.in = in;
    c.hist = hist;
    c.cub_hist = cub_hist;
    c.edges = edges;
    c.fedges = fedges;

    struct row { const char *name; int gp, cub, lg, elem, same, batch; size_t bins; double goal_read, goal_cub; };
    const row rows[] = {
        {"u8, 256 bins, uniform", W_EVEN_U8, W_CUB_U8, 28, 1, 0, 1, 256, 90, 1.4},
        {"u8, 256 bins, one value", W_EVEN_U8, W_CUB_U8, 28, 1, 1, 1, 256, 90, 0},
        {"u8, 256 bins, uniform", W_EVEN_U8, W_CUB_U8, 24, 1, 0, 1, 256, 60, 0},
        {"u16, 65536 bins", W_EVEN_U16, W_CUB_U16, 28, 2, 0, 1, 65536, 70, 0},
        {"f32 [0,1), 1024 bins", W_EVEN_F32, W_CUB_F32, 28, 4, 0, 1, 1024, 85, 8},
        {"f32 [0,1), 4096 bins", W_EVEN_F32, W_CUB_F32, 28, 4, 0, 1, 4096, 85, 0},
        {"f32 [0,1), 65536 bins", W_EVEN_F32, W_CUB_F32, 28, 4, 0, 1, 65536, 60, 0},
        {"f32 [0,1), 2^24 bins", W_EVEN_F32, -1, 28, 4, 0, 1, 1u << 24, 30, 0},
        {"f64 [0,1), 1024 bins", W_EVEN_F64, -1, 27, 8, 0, 1, 1024, 85, 0},
        {"f64 [0,1), 4096 bins", W_EVEN_F64, -1, 27, 8, 0, 1, 4096, 85, 0},
        {"f32 range, 1024 bins (1025 edges)", W_RANGE_F32, W_CUB_RANGE_F32, 28, 4, 0, 1, 1024, 70, 0},
    };
    gp_table_begin("gp_histogram against the read rate and CUB (this run)",
                   "row|n|gp us|% of read|CUB us|CUB % of read|gp / CUB speed|goal|met");
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const row &w = rows[r];
        c.n = (size_t)1 << w.lg;
        c.bins = w.bins;
        c.use_knobs = 0;
        if (w.elem == 1) fill_u8<<<2048, 256>>>((uint8_t *)in, c.n, w.same);
        else if (w.elem == 2) fill_u16<<<2048, 256>>>((uint16_t *)in, c.n);
        else if (w.elem == 4) fill_unit<float><<<2048, 256>>>((float *)in, c.n);
        else fill_unit<double><<<2048, 256>>>((double *)in, c.n);
        CUDA_CHK_LAUNCH();
        const size_t bytes = c.n * w.elem;
        call rd = c;
        rd.what = W_READ;
        rd.n = bytes;
        const float read_ms = time_call(&rd, 1);
        c.what = w.gp;
        validate(&c, c.n, w.name);
        const float gp_ms = time_call(&c, 1);
        float cub_ms = 0;
        if (w.cub >= 0) {
            call cc = c;
            cc.what = w.cub;
            cub_prepare(&cc);
            cub_ms = time_call(&cc, 1);
            CUDA_CHK(cudaFree(cc.temp));
        }
        const double pct = 100.0 * read_ms / gp_ms, ratio = cub_ms > 0 ? cub_ms / gp_ms : 0;
        char goal[64], cubs[64] = "-", cubp[32] = "-", rat[32] = "-";
        if (w.goal_cub > 0) snprintf(goal, sizeof goal, ">= %.0f%%, >= %.1fx CUB", w.goal_read, w.goal_cub);
        else snprintf(goal, sizeof goal, ">= %.0f%%", w.goal_read);
        if (cub_ms > 0) {
            snprintf(cubs, sizeof cubs, "%.1f", cub_ms * 1e3);
            snprintf(cubp, sizeof cubp, "%.1f%%", 100.0 * read_ms / cub_ms);
            snprintf(rat, sizeof rat, "%.2fx", ratio);
        }
        const int met = pct >= w.goal_read && (w.goal_cub <= 0 || ratio >= w.goal_cub);
        gp_table_row("%s|2^%d|%.1f|%.1f%%|%s|%s|%s|%s|%s", w.name, w.lg, gp_ms * 1e3, pct, cubs, cubp, rat, goal, met ? "yes" : "no");
    }
    /* rate against the bin count: f32 in [0, 1), 2^28 values (the plot's lower panel) */
    std::vector<size_t> sweep_bins;
    for (int lg = 0; lg <= 24; lg += 2) sweep_bins.push_back((size_t)1 << lg);
    struct sweep_row { size_t bins; float gp_ms, cub_ms, read_ms; };
    std::vector<sweep_row> sweep;
    c.n = (size_t)1 << 28;
    c.use_knobs = 0;
    fill_unit<float><<<2048, 256>>>((float *)in, c.n);
    CUDA_CHK_LAUNCH();
    for (size_t bins : sweep_bins) {
        c.bins = bins;
        call rd = c;
        rd.what = W_READ;
        rd.n = c.n * 4;
        sweep_row r = {bins, 0, 0, time_call(&rd, 1)};
        c.what = W_EVEN_F32;
        validate(&c, c.n, "sweep");
        r.gp_ms = time_call(&c, 1);
        if (bins <= 65536) { /* CUB past that: tens of ms a call */
            call cc = c;
            cc.what = W_CUB_F32;
            cub_prepare(&cc);
            r.cub_ms = time_call(&cc, 1);
            CUDA_CHK(cudaFree(cc.temp));
        }
        sweep.push_back(r);
    }
    /* small sizes: calls back to back, against the empty launch */
    for (int lg = 10; lg <= 16; lg += 6) {
        c.n = (size_t)1 << lg;
        c.bins = 256;
        c.what = W_EVEN_U8;
        fill_u8<<<64, 256>>>((uint8_t *)in, c.n, 0);
        CUDA_CHK_LAUNCH();
        validate(&c, c.n, "small u8");
        call cc = c;
        cc.what = W_CUB_U8;
        cub_prepare(&cc);
        const gp_bench_fn fns[2] = {run, run};
        void *const ctxs[2] = {&c, &cc};
        float t[2], floor_ms;
        gp_bench_small_ms(fns, ctxs, 2, t, &floor_ms); /* the floor timed in turn with both */
        const float ms = t[0], cub_ms = t[1];
        CUDA_CHK(cudaFree(cc.temp));
        gp_table_row("u8, 256 bins, back to back: time / empty launch (%.2f us)|2^%d|%.2f|%.2fx floor|%.2f|%.2fx floor|%.2fx|<= 1.5x floor|%s",
                     floor_ms * 1e3, lg, ms * 1e3, ms / floor_ms, cub_ms * 1e3, cub_ms / floor_ms, cub_ms / ms,
                     ms / floor_ms <= 1.5 ? "yes" : "no");
    }
    gp_table_row("PyTorch 2.11 bincount (int64 input), u8 256 bins|2^28|3804 (reference figure, not this run)|-|-|-|-|-|-");
    gp_table_row("PyTorch 2.11 histc, f32 1024 bins|2^28|1053 (reference figure, not this run)|33%%|-|-|-|-|-");
    gp_bench_note("%% of read: a kernel that only reads the same bytes (16-byte loads, 4 in flight a thread) over the row's "
                  "time, measured beside it. Small sizes: 64 calls back to back per timed batch, gp, CUB and an empty <<<1, 32>>> "
                  "kernel (the floor) timed in turn. The bench runs no PyTorch (a CUDA program): its rows are reference figures for PyTorch 2.11 on an H100 80GB HBM3, not measured in this run.");

    gp_table_begin("Rate against the bin count: f32 in [0, 1), 2^28 values (this run)",
                   "bins|gp us|% of read|CUB us|CUB % of read|gp / CUB speed");
    for (const sweep_row &r : sweep) {
        if (r.cub_ms > 0)
            gp_table_row("2^%d|%.1f|%.1f%%|%.1f|%.1f%%|%.2fx", (int)log2((double)r.bins), r.gp_ms * 1e3, 100.0 * r.read_ms / r.gp_ms,
                         r.cub_ms * 1e3, 100.0 * r.read_ms / r.cub_ms, r.cub_ms / r.gp_ms);
        else
            gp_table_row("2^%d|%.1f|%.1f%%|-|-|-", (int)log2((double)r.bins), r.gp_ms * 1e3, 100.0 * r.read_ms / r.gp_ms);
    }
    gp_bench_note("Bins of equal width over [0, 1): 1024 to 4096 bins take 32-bit shared counters in copies, 65536 bins "
                  "16-bit counters; past about 115K bins the values are partitioned by their bins' high bits (16384 bins "
                  "a part), and each part counted in shared memory.");

    /* the ladder: each step of the design on u8 2^28 and f32 1024 bins 2^28 */
    gp_table_begin("Ladder (this run): each design step", "step|row|gp us|% of read");
    struct step { const char *name; int what, lg, elem, same; size_t bins; gp__hist_knobs k; };
    /* knobs: force_zeroed, copies, no_values, lanes, double_rule, no_cells, no_split, all_blocks, no_exact */
    const step steps[] = {
        {"1. bins by the rule, one shared copy per block", W_EVEN_U8, 28, 1, 0, 256, {0, 1, 1, 0, 0, 0, 0, 0, 0}},
        {"1. bins by the rule, one shared copy per block", W_EVEN_U8, 28, 1, 1, 256, {0, 1, 1, 0, 0, 0, 0, 0, 0}},
        {"2. + a copy per warp (16 copies)", W_EVEN_U8, 28, 1, 0, 256, {0, 16, 1, 0, 0, 0, 0, 0, 0}},
        {"2. + a copy per warp (16 copies)", W_EVEN_U8, 28, 1, 1, 256, {0, 16, 1, 0, 0, 0, 0, 0, 0}},
        {"3. + bytes counted by value (256 counters a copy)", W_EVEN_U8, 28, 1, 0, 256, {0, 16, 0, 1, 0, 0, 0, 0, 0}},
        {"3. + bytes counted by value (256 counters a copy)", W_EVEN_U8, 28, 1, 1, 256, {0, 16, 0, 1, 0, 0, 0, 0, 0}},
        {"4. + a counter per lane in its own bank, one copy (the library)", W_EVEN_U8, 28, 1, 0, 256, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"4. + a counter per lane in its own bank, one copy (the library)", W_EVEN_U8, 28, 1, 1, 256, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"4b. the same with two copies (not kept)", W_EVEN_U8, 28, 1, 0, 256, {0, 2, 0, 0, 0, 0, 0, 0, 0}},
        {"4b. the same with two copies (not kept)", W_EVEN_U8, 28, 1, 1, 256, {0, 2, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 1024: the rule in double per element", W_EVEN_F32, 28, 4, 0, 1024, {0, 0, 0, 0, 1, 0, 0, 0, 0}},
        {"f32 1024: float arithmetic, the rule near edges", W_EVEN_F32, 28, 4, 0, 1024, {0, 0, 0, 0, 0, 0, 0, 0, 1}},
        {"f32 1024: 2^k bins over [0, x): floor(x * S), exact in float (the library)", W_EVEN_F32, 28, 4, 0, 1024, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 65536: float arithmetic, the rule near edges (16-bit counters)", W_EVEN_F32, 28, 4, 0, 65536, {0, 0, 0, 0, 0, 0, 0, 0, 1}},
        {"f32 65536: floor(x * S), exact in float (the library)", W_EVEN_F32, 28, 4, 0, 65536, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 1024: one copy per block", W_EVEN_F32, 28, 4, 0, 1024, {0, 1, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 1024: merge into a cleared output (memset + kernel)", W_EVEN_F32, 28, 4, 0, 1024, {1, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 range 1024: bisection over the edges in shared memory", W_RANGE_F32, 28, 4, 0, 1024, {0, 0, 0, 0, 0, 1, 0, 0, 0}},
        {"f32 range 1024: a table of 4096 cells (the library)", W_RANGE_F32, 28, 4, 0, 1024, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"u8 2^24: every resident block (4 an SM, a chunk each)", W_EVEN_U8, 24, 1, 0, 256, {0, 0, 0, 0, 0, 0, 0, 1, 0}},
        {"u8 2^24: at least 4 chunks a block (the library: one block an SM)", W_EVEN_U8, 24, 1, 0, 256, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"u8 2^16 back to back: memset + kernel", W_EVEN_U8, 16, 1, 0, 8000, {1, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"u8 2^16 back to back: one launch (the library, 8000 bins: last block)", W_EVEN_U8, 16, 1, 0, 8000, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 2^18 bins: a global atomic per element", W_EVEN_F32, 28, 4, 0, 1u << 18, {0, 0, 0, 0, 0, 0, 1, 0, 0}},
        {"f32 2^18 bins: partitioned, parts counted in shared memory (the library)", W_EVEN_F32, 28, 4, 0, 1u << 18, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 2^24 bins: a global atomic per element", W_EVEN_F32, 28, 4, 0, 1u << 24, {0, 0, 0, 0, 0, 0, 1, 0, 0}},
        {"f32 2^24 bins: partitioned, parts counted in shared memory, bins by the rule in double", W_EVEN_F32, 28, 4, 0, 1u << 24, {0, 0, 0, 0, 0, 0, 0, 0, 1}},
        {"f32 2^24 bins: partitioned, bins by floor(x * S) in float (the library)", W_EVEN_F32, 28, 4, 0, 1u << 24, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"f32 2^24 bins: a global atomic per element", W_EVEN_F32, 28, 4, 1, 1u << 24, {0, 0, 0, 0, 0, 0, 1, 0, 0}},
        {"f32 2^24 bins: partitioned (the library)", W_EVEN_F32, 28, 4, 1, 1u << 24, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
    };
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        const step &w = steps[s];
        c.n = (size_t)1 << w.lg;
        c.bins = w.bins;
        c.what = w.what;
        c.knobs = w.k;
        c.use_knobs = 1;
        if (w.elem == 1) fill_u8<<<2048, 256>>>((uint8_t *)in, c.n, w.same);
        else fill_unit<float><<<2048, 256>>>((float *)in, c.n, w.same);
        CUDA_CHK_LAUNCH();
        validate(&c, c.n, w.name);
        call rd = c;
        rd.what = W_READ;
        rd.n = c.n * w.elem;
        const int batch = w.lg < 20 ? 64 : 1;
        const float read_ms = time_call(&rd, batch), ms = time_call(&c, batch);
        gp_table_row("%s|%s 2^%d%s|%.1f|%.1f%%", w.name, w.elem == 1 ? "u8" : w.what == W_RANGE_F32 ? "f32 range" : "f32", w.lg,
                     w.same ? " one value" : "", ms * 1e3,
                     100.0 * read_ms / ms);
    }
    gp_bench_note("Knobs of the library's internal launcher (gp__hist_knobs); every step's counts checked first.");
    CUDA_CHK(cudaFree(in));
    CUDA_CHK(cudaFree(hist));
    CUDA_CHK(cudaFree(cub_hist));
    CUDA_CHK(cudaFree(edges));
    CUDA_CHK(cudaFree(fedges));
    gp_bench_end();
    return 0;
}
