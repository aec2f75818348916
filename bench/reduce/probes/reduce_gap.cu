/* bench/reduce/probes/reduce_gap.cu -- a one-off probe, not part of `make bench`: where does the
 * device reduce's fixed cost go in GRID mode (n above 1 MB), beyond the read kernel's?
 * bench/reduce/reduce.cu measures gp_reduce about 4 us a call slower than a kernel that only
 * reads the same bytes, from 2^20 to 2^28 alike: a cost per call, not per byte.
 *
 * Rows (f32 sum, inputs rotated through pools beyond the L2 as bench/reduce/reduce.cu does):
 *   gp            the library's call (scratch from the pool, the grid, the finish kernel);
 *   prealloc      the same two kernels, chained the same way, on scratch allocated once:
 *                 what the stream-ordered allocation costs;
 *   unchained     prealloc without programmatic dependent launches;
 *   grid only     the grid kernel alone, chained (its result incomplete): what the finish
 *                 kernel costs;
 *   last block    one kernel whose last block to finish combines the partials, its ticket
 *                 allocated once and left at zero by that block (static state the library
 *                 may not keep: the bound for a one-kernel design);
 *   read          bench/reduce/reduce.cu's read kernel; CUB; an empty kernel.
 * Each row: bench = events around min(64, 2^22/n) calls from an idle GPU, as the bench
 * times them; gpu = the same batch queued behind a spin kernel that hides the host's issue;
 * host = the host's time to issue one call. Medians of 31. Results are checked first.
 *
 * Build and run (on the GPU machine, from the repository root):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/reduce/probes/reduce_gap.cu -o probe && ./probe
 *   ./probe one <log2n> <row>   (five calls of one row: for ncu / nsys)
 *
 * Results on the H100 (2026-11-23, main at 4865ac6; us per call at 2^20 / 2^22 / 2^24 / 2^26):
 *   gpu:   read 4.18 / 9.50 / 25.22 / 89.02; read runs 4.35 / 9.22 / 25.44 / 89.98;
 *          grid only 4.19 / 10.08 / 27.10 / 90.98; prealloc 5.88 / 12.16 / 28.64 / 93.12;
 *          last block 6.86 / 12.77 / 28.54 / 93.12; unchained 7.94 / 13.34 / 30.34 / 94.34;
 *          gp 6.02 / 12.45 / 29.66 / 93.57; CUB 6.77 / 12.51 / 28.10 / 92.58.
 *   bench: gp 10.75 / 16.38 / 32.83 / 97.63; prealloc 8.51 / 14.46 / 31.23 / 95.39;
 *          CUB 11.03 / 16.48 / 32.77 / 97.34; read 5.82 / 12.70 / 28.19 / 92.74 (a first run:
 *          gp 11.35 / 17.98 / 34.40 / 96.48, prealloc 10.36 / 16.03 / 30.75 / 95.04, CUB
 *          13.54 / 16.16 / 33.76 / 96.74).
 *   host:  gp 10.3-11.2, prealloc 7.6-9.0, grid only and an empty kernel 3.9-4.4, CUB
 *          10.0-11.0 (this machine's host takes about 4 us a launch).
 * What the GPU's time above the read kernel's is made of, at 2^24: the blocks' contiguous
 * runs 0.2 us (read runs), the reduction in the grid kernel 1.7 us (grid only), the finish
 * kernel 1.5 us (prealloc; 2.1 at 2^22 and 2^26), the stream-ordered scratch 1.0 us (gp).
 * Finishing in the grid's last block instead (a ticket the library would have to keep
 * zeroed between calls) costs the same as the chained finish kernel; without the chaining
 * each call pays 1-2 us more. In the bench's timing (from an idle GPU, one call at 2^24 and
 * up) the host's work before the first launch adds to that: the allocation makes gp 1.6-3.7
 * us slower than the same kernels on scratch allocated once. That is the margin between
 * 1.0x and 1.05-1.10x CUB at 2^22-2^24: CUB's bench row has its temporary storage
 * allocated outside the timing, while gpuprims asks for no caller-visible temporary
 * storage and keeps no device state between calls.
 * The grid kernel against the read runs, under Nsight Compute at 2^24 (clocks locked):
 * 28.35 against 26.05 us, DRAM 73% against 80% busy, twice the instructions issued (0.24
 * against 0.13 a cycle a scheduler), 74% of the stalls on loads in both. Tried on the grid
 * kernel (gpu us at 2^22 / 2^24 / 2^26, against 10.14 / 27.14 / 91.26 in the same run):
 * GP__REDUCE_GROUP 16: 10.14 / 28.26 / 91.10; GROUP 2: 10.11 / 26.21 / 91.26; 4 loads a
 * lane at 4 blocks of 512 per SM: 10.02 / 27.74 / 90.78; each warp issuing its next
 * step's loads before its current step's warp trees (a later run: 10.05 / 27.23 / 90.75;
 * the 8-byte sums, counts and extrema then spill): none kept. The SASS showed the loop's
 * addresses computed with a 64-bit multiply-add by the plan's vec, a run-time value that
 * is always 16 / sizeof(Tin); with it a constant (kept), the grid kernel took 4.07 / 9.98 /
 * 26.34 / 90.69-90.75 us (read runs 4.44-4.50 / 9.25-9.28 / 25.44-25.50 / 89.70-89.73,
 * two runs), the whole call 5.86-5.89 / 12.74-12.96 / 29.02-29.09 / 93.31-93.60, within
 * the noise of the figures above. Compiling the block's loop twice besides, for 16-byte
 * loads and for loads element by element (the choice made once, not per load), took the
 * grid kernel to 3.90-3.93 / 9.66-9.76 / 26.18-26.30 / 90.98-91.04 and the whole call at
 * 2^22 to 12.22-12.26, for 36% more compile time (lib/reduce.cu 10.5 -> 14.3 s): not kept.
 * GP__REDUCE_GROUP again (2026-11-23, H100, two runs each, grid only at 2^22 / 2^24 /
 * 2^26): 2: 9.89-9.98 / 26.14-26.24 / 90.72-90.88; 4: 9.92 / 26.24-26.59 / 90.88; 8 (the
 * default): 9.92 / 26.34-26.88 / 90.66-90.72; the whole call 28.45-29.22 us at 2^24 in
 * every case. The 0.9 us that GROUP 2 once gained at 2^24 is within the spread: not kept. */
#include <math.h>
#include <string.h>

#include <cub/device/device_reduce.cuh>

#include "gpuprims.cuh"
#include "../../read_kernel.cuh"
#include "../../probe.cuh"

typedef gp__op_sum_f32 Op;
typedef gp__map_identity<float> Map;

enum { GP, PREALLOC, UNCHAINED, GRID_ONLY, LAST_BLOCK, READ, READ_RUNS, CUB, EMPTY, NROWS };
static const char *row_names[NROWS] = {"gp", "prealloc", "unchained", "grid only", "last block", "read", "read runs",
                                       "CUB", "empty"};

__global__ void fill(float *p, size_t total)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x)
        p[k] = (float)(k * 2654435761u >> 28) * 0.25f;
}

/* The read kernel laid out as gp__reduce_kernel's GRID blocks are: a contiguous run of
 * vec_per_block vectors a block, 64 KB tiles, warp w reading its 4 KB of each (32 lanes x 8
 * rows, all loads issued first), 2 blocks of 512 per SM; no reduction. */
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, 2) read_runs(const uint4 *in, size_t n16, size_t per_block,
                                                                unsigned *sink)
{
    enum { ROWS = 8 };
    const size_t begin = gp__min_size(blockIdx.x * per_block, n16), end = gp__min_size(begin + per_block, n16);
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned acc = 0;
    for (size_t tile = begin; tile < end; tile += (size_t)GP__REDUCE_BLOCK * ROWS) {
        const size_t first = tile + warp * 32 * ROWS;
        uint4 v[ROWS];
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const size_t i = first + 32 * j + lane;
            v[j] = i < end ? __ldg(in + i) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int j = 0; j < ROWS; j++) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
    }
    if (acc == 0x9E3779B9u) *sink = acc;
}

/* gp__reduce_kernel's GRID path, then the last block to finish does the finish kernel's work. */
__global__ void __launch_bounds__(GP__REDUCE_BLOCK, GP__MIN_BLOCKS(GP__REDUCE_BLOCK, GP__REDUCE_BLOCKS_PER_SM))
    last_block_kernel(float *out, gp__reduce_src<float> src, gp__reduce_plan p, float *partials, unsigned *ticket)
{
    gp__chain_wait();
    const size_t first = (size_t)blockIdx.x * p.vec_per_block;
    const size_t begin = gp__min_size(first, p.nvec), end = gp__min_size(first + p.vec_per_block, p.nvec);
    const gp__reduce_src<float> body = {src.a + p.head, src.b + p.head};
    const float block_total = gp__reduce_block_run<Op, Map>(body, begin, end, p.aligned16 != 0);
    __shared__ int last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const size_t per = gp__ceil_div(p.blocks, blockDim.x);
    const size_t lo = gp__min_size((size_t)threadIdx.x * per, p.blocks), hi = gp__min_size(lo + per, p.blocks);
    float acc = 0.f;
    for (size_t i = lo; i < hi; i++) acc += gp__load_cg(partials + i);
    const float total = gp__block_reduce<Op>(acc);
    if (threadIdx.x == 0) {
        *out = gp__reduce_with_edges<Op, Map>(src, p, total);
        *ticket = 0;
    }
}

struct ctx {
    int row;
    size_t n;
    float *in, *out;
    int slots, next;
    void *cub_temp;
    size_t cub_bytes;
    float *partials;
    unsigned *ticket, *sink;
    gp__device dev;
};

static void call(void *arg)
{
    ctx *c = (ctx *)arg;
    const float *in = c->in + (size_t)c->next * c->n;
    c->next = (c->next + 1) % c->slots;
    const gp__reduce_src<float> src = {in, in};
    const gp__reduce_plan p = gp__reduce_make_plan((uintptr_t)in, (uintptr_t)in, c->n, 4, 1, c->dev.sms, 0);
    switch (c->row) {
    case GP: CK(gp__reduce<Op>(c->out, in, c->n, 0)); break;
    case PREALLOC:
    case UNCHAINED:
        CK(gp__chained_launch(gp__reduce_kernel<Op, Map>, p.blocks, GP__REDUCE_BLOCK, 0, c->row == PREALLOC, c->out,
                              src, p, c->partials));
        CK(gp__chained_launch(gp__reduce_finish_kernel<Op, Map>, 1, GP__REDUCE_BLOCK, 0, c->row == PREALLOC, c->out,
                              src, p, (const float *)c->partials));
        break;
    case GRID_ONLY:
        CK(gp__chained_launch(gp__reduce_kernel<Op, Map>, p.blocks, GP__REDUCE_BLOCK, 0, true, c->out, src, p,
                              c->partials));
        break;
    case LAST_BLOCK:
        CK(gp__chained_launch(last_block_kernel, p.blocks, GP__REDUCE_BLOCK, 0, true, c->out, src, p, c->partials,
                              c->ticket));
        break;
    case READ: {
        const size_t n16 = c->n / 4, wave = (size_t)c->dev.sms * READ_BLOCKS_PER_SM;
        const size_t blocks = (n16 + READ_BLOCK - 1) / READ_BLOCK;
        read_only<<<(unsigned)(blocks < wave ? blocks : wave), READ_BLOCK>>>((const uint4 *)in, n16, c->sink);
        break;
    }
    case READ_RUNS:
        read_runs<<<p.blocks, GP__REDUCE_BLOCK>>>((const uint4 *)in, c->n / 4, p.vec_per_block, c->sink);
        break;
    case CUB: CK(cub::DeviceReduce::Sum(c->cub_temp, c->cub_bytes, in, c->out, (int)c->n)); break;
    default: empty_kernel<<<1, 32>>>();
    }
}

int main(int argc, char **argv)
{
    const size_t pool = (size_t)1 << 29; /* bytes */
    float *in, *out;
    CK(cudaMalloc(&in, pool));
    CK(cudaMalloc(&out, sizeof(float)));
    fill<<<1024, 256>>>(in, pool / 4);
    ctx c = {};
    c.in = in;
    c.out = out;
    CK(gp__device_query(&c.dev, 0));
    CK(cudaMalloc(&c.partials, 4096 * sizeof(float)));
    CK(cudaMalloc(&c.ticket, sizeof(unsigned)));
    CK(cudaMemset(c.ticket, 0, sizeof(unsigned)));
    CK(cudaMalloc(&c.sink, sizeof(unsigned)));
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    std::vector<float> h(pool / 4);
    CK(cudaMemcpy(h.data(), in, pool, cudaMemcpyDeviceToHost));
    if (argc == 4 && strcmp(argv[1], "one") == 0) { /* five calls of one row: for ncu / nsys */
        c.n = (size_t)1 << atoi(argv[2]);
        c.row = atoi(argv[3]);
        c.slots = 1;
        CK(cub::DeviceReduce::Sum(NULL, c.cub_bytes, in, out, (int)c.n));
        CK(cudaMalloc(&c.cub_temp, c.cub_bytes));
        for (int i = 0; i < 5; i++) call(&c);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    printf("n|row|bench us|gpu us|host us\n");
    for (int lg = 20; lg <= 26; lg += 2) {
        const size_t n = (size_t)1 << lg;
        c.n = n;
        c.slots = (int)(2 * (size_t)l2 / (4 * n) + 1);
        if ((size_t)c.slots * n * 4 > pool) c.slots = (int)(pool / (n * 4));
        CK(cub::DeviceReduce::Sum(NULL, c.cub_bytes, in, out, (int)n));
        CK(cudaMalloc(&c.cub_temp, c.cub_bytes));
        const size_t b = ((size_t)1 << 22) / n;
        const int batch = b < 1 ? 1 : b > 64 ? 64 : (int)b;
        double ref = 0;
        for (size_t i = 0; i < n; i++) ref += h[i];
        for (int r = 0; r < NROWS; r++) {
            c.row = r;
            if (r != GRID_ONLY && r != READ && r != READ_RUNS && r != EMPTY) { /* first slot, checked */
                c.next = 0;
                CK(cudaMemset(out, 0xA7, sizeof(float)));
                call(&c);
                float got;
                CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
                if (!(fabs(got - ref) <= 1e-4 * fabs(ref))) {
                    fprintf(stderr, "FAIL %s n=2^%d: %g vs %g\n", row_names[r], lg, got, ref);
                    return 1;
                }
            }
            c.next = 0;
            const double bench = probe_time(call, &c, batch, 0, 0, NULL);
            double host;
            const double gpu = probe_time(call, &c, batch, 1, batch * 20 + 40, &host);
            printf("2^%d|%s|%.2f|%.2f|%.2f\n", lg, row_names[r], bench, gpu, host);
        }
        CK(cudaFree(c.cub_temp));
    }
    return 0;
}
