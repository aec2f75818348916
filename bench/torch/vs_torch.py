#!/usr/bin/env python3
"""bench/torch/vs_torch.py -- gpuprims against PyTorch on the same GPU, in one run.

    make bench-torch          (python3 bench/torch/vs_torch.py [libgpuprims.so])

Each job runs PyTorch's call and gpuprims' on the same tensors, on torch's current stream.
Before timing, gpuprims' result (through the Python module, examples/python/gpuprims.py) is
checked against torch's. The timed gpuprims calls go to libgpuprims.so's C functions
through ctypes directly, so that the module's own Python work (a few tens of microseconds a
call: array interfaces, the device guard) is not counted as the library's. Times: CUDA
events around a batch of BATCH calls back to back, per call, the median of REPS batches
after warm-ups: the GPU's cost per call with launches pipelined, as in the C benches. Each
side pays its own host cost per call (torch's dispatcher, one ctypes call); where that
exceeds the GPU work, it is what the batch measures. PyTorch calls that copy a count to the
host (masked_select, unique_consecutive) synchronise inside the batch, as a program sees
them; gpuprims leaves its count on the device. The copy rate (torch's device-to-device copy of 1 GiB,
read + write) is measured in the same run; "% of copy" is a job's bytes (read + written)
at that rate over its time.

Writes bench/results/<gpu>.torch.md and .csv. Without torch or a GPU it says why and exits 0.
"""
import ctypes
import datetime
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1:
    os.environ["GPUPRIMS_LIB"] = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
import gpuprims  # noqa: E402

try:
    import torch
except ImportError:
    print("bench-torch: skipped (no PyTorch)")
    sys.exit(0)
if not torch.cuda.is_available():
    print("bench-torch: skipped (no GPU)")
    sys.exit(0)

DEV = "cuda"
REPS, BATCH, WARM = 11, 10, 5


def time_ms(fn):
    """Milliseconds per call: the median over REPS batches of BATCH calls back to back."""
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(BATCH):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / BATCH)
    times.sort()
    return times[len(times) // 2]


def c_fn(name, *argtypes):
    f = getattr(gpuprims.library(), name)
    f.restype = ctypes.c_int
    f.argtypes = list(argtypes)
    return f


def stream():
    return torch.cuda.current_stream().cuda_stream


def call(f, *args):
    err = f(*args, stream())
    if err:
        raise RuntimeError("%s returned %d" % (f.__name__, err))


P, Z, D = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_double


def ptr(t):
    return t.data_ptr()


def expect(ok, what):
    if not ok:
        raise SystemExit("bench-torch: gpuprims and torch disagree: " + what)


# ---- the jobs: (job, n, bytes moved, torch call, gpuprims call), each checked first -------------

def sort_job(label, typ, keys):
    """gp_sort_<typ> against torch.sort (which also returns the indices); 36 bytes a 4-byte key."""
    n, out_keys = keys.numel(), torch.empty_like(keys)
    f = c_fn("gp_sort_" + typ, P, P, Z, P)
    call(f, ptr(out_keys), ptr(keys), n)
    expect(torch.equal(out_keys, torch.sort(keys)[0]), "sort " + typ)
    return (label + " (torch.sort: values and indices)", n, 36 * n, lambda: torch.sort(keys),
            lambda: call(f, ptr(out_keys), ptr(keys), n))


def jobs():
    out = []
    g = torch.Generator(device=DEV).manual_seed(1)
    for n in (1 << 24, 1 << 28):
        x = torch.rand(n, device=DEV, generator=g)
        o = torch.empty(1, device=DEV)
        gpuprims.reduce("sum", o, x)
        expect(torch.allclose(o[0].double(), x.double().sum(), rtol=1e-4), "sum")
        f = c_fn("gp_reduce_sum_f32", P, P, Z, P)
        out.append(("sum f32 (torch.sum)", n, 4 * n, lambda x=x: torch.sum(x),
                    lambda f=f, x=x, o=o, n=n: call(f, ptr(o), ptr(x), n)))
        y = torch.empty_like(x)
        gpuprims.inclusive_scan("sum", y, x)
        expect(torch.allclose(y[-1].double(), x.double().sum(), rtol=1e-4), "cumsum")
        f = c_fn("gp_inclusive_scan_sum_f32", P, P, Z, P)
        out.append(("inclusive sum f32 (torch.cumsum)", n, 8 * n, lambda x=x, y=y: torch.cumsum(x, 0, out=y),
                    lambda f=f, x=x, y=y, n=n: call(f, ptr(y), ptr(x), n)))
        m = x < 0.5
        kept = torch.empty_like(x)
        _, cnt = gpuprims.select_flagged(kept, x, m.view(torch.uint8))
        want = torch.masked_select(x, m)
        expect(int(cnt.item()) == want.numel() and torch.equal(kept[:want.numel()], want), "masked_select")
        out.append(("select f32, 50% kept (torch.masked_select)", n, 5 * n + 4 * want.numel(),
                    lambda x=x, m=m: torch.masked_select(x, m),
                    lambda f=c_fn("gp_select_flagged_f32", P, P, P, P, Z, P), x=x, m=m, k=kept, c=cnt, n=n:
                    call(f, ptr(k), ptr(c), ptr(x), ptr(m), n)))
        keys = (torch.arange(n, device=DEV, dtype=torch.int32) // 8) * 7
        uk = torch.empty_like(keys)
        _, cnt = gpuprims.unique(uk, keys)
        want = torch.unique_consecutive(keys)
        expect(int(cnt.item()) == want.numel() and torch.equal(uk[:want.numel()], want), "unique_consecutive")
        out.append(("unique i32, runs of 8 (torch.unique_consecutive)", n, 4 * n + 4 * (n // 8),
                    lambda k=keys: torch.unique_consecutive(k),
                    lambda f=c_fn("gp_unique_i32", P, P, P, Z, P), k=keys, u=uk, c=cnt, n=n:
                    call(f, ptr(u), ptr(c), ptr(k), n)))
        hist = torch.empty(1024, device=DEV, dtype=torch.int64)  # the library's uint64 counts
        f = c_fn("gp_histogram_even_f32", P, P, Z, Z, D, D, P)
        call(f, ptr(hist), ptr(x), n, 1024, 0.0, 1.0)
        expect(torch.equal(hist.float(), torch.histc(x, 1024, 0, 1)), "histc")
        out.append(("histogram f32, 1024 bins (torch.histc)", n, 4 * n, lambda x=x: torch.histc(x, 1024, 0, 1),
                    lambda f=f, h=hist, x=x, n=n: call(f, ptr(h), ptr(x), n, 1024, 0.0, 1.0)))
        segs = n // 32
        offs = torch.arange(0, n + 1, 32, device=DEV, dtype=torch.int64)  # read as uint64
        sums = torch.empty(segs, device=DEV)
        f = c_fn("gp_segmented_reduce_sum_f32", P, P, P, Z, P)
        call(f, ptr(sums), ptr(x), ptr(offs), segs)
        want = torch.segment_reduce(x, "sum", offsets=offs)
        expect(torch.allclose(sums, want, rtol=1e-5, atol=1e-5), "segment_reduce")
        out.append(("segmented sum f32, segments of 32 (torch.segment_reduce)", n, 4 * n + 12 * segs,
                    lambda x=x, o=offs: torch.segment_reduce(x, "sum", offsets=o),
                    lambda f=f, s=sums, x=x, o=offs, k=segs: call(f, ptr(s), ptr(x), ptr(o), k)))
        ki = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), device=DEV, dtype=torch.int32, generator=g)
        out.append(sort_job("sort i32 keys", "i32", ki))
        idx = torch.empty(n, device=DEV, dtype=torch.int64)
        f = c_fn("gp_argsort_i32", P, P, Z, P)
        call(f, ptr(idx), ptr(ki), n)
        expect(torch.equal(idx, torch.argsort(ki, stable=True)), "argsort")
        out.append(("argsort i32, stable (torch.argsort)", n, 0, lambda k=ki: torch.argsort(k, stable=True),
                    lambda f=f, i=idx, k=ki, n=n: call(f, ptr(i), ptr(k), n)))
        vals, lens = torch.empty_like(keys), torch.empty(n, device=DEV, dtype=torch.int64)
        runs = torch.empty(1, device=DEV, dtype=torch.int64)
        f = c_fn("gp_run_length_i32", P, P, P, P, Z, P)
        call(f, ptr(vals), ptr(lens), ptr(runs), ptr(keys), n)
        wv, wc = torch.unique_consecutive(keys, return_counts=True)
        r = int(runs.item())
        expect(r == wv.numel() and torch.equal(vals[:r], wv) and torch.equal(lens[:r], wc), "run length")
        out.append(("run-length i32, runs of 8 (torch.unique_consecutive, counts)", n, 4 * n + 12 * (n // 8),
                    lambda k=keys: torch.unique_consecutive(k, return_counts=True),
                    lambda f=f, v=vals, l=lens, r=runs, k=keys, n=n: call(f, ptr(v), ptr(l), ptr(r), ptr(k), n)))
        b8 = torch.randint(0, 256, (n,), device=DEV, dtype=torch.uint8, generator=g)
        b64 = b8.long()  # torch.bincount takes int64 only
        h8 = torch.empty(256, device=DEV, dtype=torch.int64)
        f = c_fn("gp_histogram_even_u8", P, P, Z, Z, ctypes.c_int64, ctypes.c_int64, P)
        call(f, ptr(h8), ptr(b8), n, 256, 0, 256)
        expect(torch.equal(h8, torch.bincount(b64, minlength=256)), "bincount")
        out.append(("histogram u8, 256 bins (torch.bincount of the same values as int64)", n, n,
                    lambda b=b64: torch.bincount(b, minlength=256),
                    lambda f=f, h=h8, b=b8, n=n: call(f, ptr(h), ptr(b), n, 256, 0, 256)))
        out.append(sort_job("sort f32 keys in [0, 1)", "f32", torch.rand(n, device=DEV, generator=g)))
        del x, y, kept, keys, uk, ki, idx, vals, lens, b8, b64
    a = torch.rand(8192, 8192, device=DEV, generator=g)
    t = torch.empty(8192, 8192, device=DEV)
    gpuprims.transpose(t, a)
    expect(torch.equal(t, a.t()), "transpose")
    out.append(("transpose f32 8192^2 (x.t().contiguous())", a.numel(), 8 * a.numel(),
                lambda a=a, t=t: t.copy_(a.t()),
                lambda f=c_fn("gp_transpose_f32", P, P, Z, Z, P), a=a, t=t: call(f, ptr(t), ptr(a), 8192, 8192)))
    # the segments issue's shapes for x.sum(dim), beside 8192^2
    for rows, cols, label in ((8192, 8192, "8192^2"), (16384, 16384, "16384^2"), (1 << 22, 64, "2^22 x 64"),
                              (64, 1 << 22, "64 x 2^22")):
        m = a if rows == 8192 else torch.rand(rows, cols, device=DEV, generator=g)
        for dim, fname in ((1, "gp_reduce_rows_sum_f32"), (0, "gp_reduce_cols_sum_f32")):
            red = torch.empty(rows if dim == 1 else cols, device=DEV)
            f = c_fn(fname, P, P, Z, Z, Z, P)
            call(f, ptr(red), ptr(m), rows, cols, cols)
            expect(torch.allclose(red, m.sum(dim=dim), rtol=1e-4), "%s %s" % (fname, label))
            out.append(("sum along dim %d, f32 %s (x.sum(dim=%d))" % (dim, label, dim), m.numel(), 4 * m.numel(),
                        lambda m=m, d=dim: m.sum(dim=d),
                        lambda f=f, r=red, m=m, rc=(rows, cols): call(f, ptr(r), ptr(m), rc[0], rc[1], rc[1])))
        del m
    torch.backends.cuda.matmul.allow_tf32 = False
    ma, mb = torch.rand(4096, 4096, device=DEV, generator=g), torch.rand(4096, 4096, device=DEV, generator=g)
    mc = torch.empty(4096, 4096, device=DEV)
    gpuprims.matmul(mc, ma, mb)
    expect(torch.allclose(mc, ma @ mb, rtol=1e-4, atol=1e-3), "matmul")
    out.append(("matmul f32 4096^3, TF32 off (torch.matmul)", 4096, -2 * 4096 ** 3,
                lambda: torch.matmul(ma, mb, out=mc),
                lambda f=c_fn("gp_matmul_f32", P, P, P, Z, Z, Z, P): call(f, ptr(mc), ptr(ma), ptr(mb), 4096, 4096, 4096)))
    return out


def main():
    name = torch.cuda.get_device_name()
    slug = re.sub(r"[^a-z0-9]", "-", name.lower())
    results = os.path.join(HERE, "..", "results")
    src = torch.rand(1 << 28, device=DEV)
    dst = torch.empty_like(src)
    copy_ms = time_ms(lambda: dst.copy_(src))
    copy_gbs = 2 * src.numel() * 4 / copy_ms / 1e6
    del src, dst
    rows = []
    for job, n, nbytes, t_fn, g_fn in jobs():
        t_ms, g_ms = time_ms(t_fn), time_ms(g_fn)
        if nbytes < 0:  # flops
            rate = "%.1f TFLOP/s" % (-nbytes / g_ms / 1e9)
            pct = "-"
        elif nbytes == 0:
            rate, pct = "-", "-"
        else:
            rate = "%.0f GB/s" % (nbytes / g_ms / 1e6)
            pct = "%.1f%%" % (100 * nbytes / g_ms / 1e6 / copy_gbs)
        size = "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 and "8192" not in job and "4096" not in job else ""
        rows.append((job, size, "%.3f" % t_ms, "%.3f" % g_ms, rate, pct, "%.2fx" % (t_ms / g_ms)))
        print("%-60s %5s torch %9.3f ms  gp %9.3f ms  %s" % (job, size, t_ms, g_ms, rows[-1][-1]), flush=True)

    head = ("job", "n", "torch ms", "gp ms", "gp rate", "gp % of copy", "torch / gp")
    commit = os.environ.get("GP_COMMIT", "unknown")
    with open(os.path.join(results, slug + ".torch.csv"), "w") as fh:
        fh.write("# gpuprims against PyTorch (this run)\n" + ",".join(head) + "\n")
        for r in rows:
            fh.write(",".join('"%s"' % v if "," in v else v for v in r) + "\n")
    with open(os.path.join(results, slug + ".torch.md"), "w") as fh:
        fh.write("## gpuprims against PyTorch\n\nGPU: %s, date %s, commit %s, gpuprims %s, torch %s. "
                 "Per call: CUDA events around %d calls back to back, the median of %d such batches "
                 "after %d warm-ups; gpuprims through its C functions (ctypes), torch through its Python API.\n\n"
                 % (name, datetime.date.today().isoformat(), commit, gpuprims_version(), torch.__version__,
                    BATCH, REPS, WARM))
        fh.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for r in rows:
            fh.write("| " + " | ".join(r) + " |\n")
        fh.write("\nCopy: %.0f GB/s (torch's device-to-device copy of 1 GiB, read + write). torch / gp: torch's time "
                 "over gpuprims' (above 1: gpuprims faster). Bytes: what each call must read and write (the sort: "
                 "36 a key, an 8-bit LSD sort's); torch.sort also returns the indices, torch.masked_select and "
                 "torch.unique_consecutive copy their count to the host (timed as a program sees them); every "
                 "gpuprims result was checked against torch's before timing.\n" % copy_gbs)
    print("wrote bench/results/%s.torch.md" % slug)


def gpuprims_version():
    with open(os.path.join(HERE, "..", "..", "gpuprims.cuh")) as fh:
        m = re.search(r'#define GPUPRIMS_VERSION_STRING "([^"]+)"', fh.read())
    return m.group(1) if m else "?"


if __name__ == "__main__":
    main()
