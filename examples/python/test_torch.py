#!/usr/bin/env python3
"""examples/python/test_torch.py -- libgpuprims.so through ctypes (gpuprims.py) against
PyTorch on a GPU: reduces and scans of every default instance torch has a dtype for,
transposes, matrix multiplies, compaction, sorts and argsorts, in place, on torch's current stream and on a side stream,
and bad input. With CuPy installed, also a scan of a CuPy array on CuPy's stream.

    make test-python          (python3 examples/python/test_torch.py [libgpuprims.so])

Without torch or a GPU it prints why and "skipped" (exit status 0). Ends with
"N passed, N failed, N skipped"; exit status 1 on any failure.
"""
import os
import sys

if len(sys.argv) > 1:
    os.environ["GPUPRIMS_LIB"] = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuprims  # noqa: E402

passed = failed = skipped = 0


def expect(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def done():
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed else 0)


try:
    import torch
except ImportError:
    print("python test: skipped (no PyTorch)")
    skipped += 1
    done()
if not torch.cuda.is_available():
    print("python test: skipped (no CUDA GPU found: torch.cuda.is_available() is False)")
    skipped += 1
    done()

gpuprims.library()
print("python test: torch %s, %s, library %s" % (torch.__version__, torch.cuda.get_device_name(),
                                                  gpuprims.library()._name))
torch.manual_seed(1234)
torch.backends.cuda.matmul.allow_tf32 = False
dev = "cuda"
DTYPES = {"f32": torch.float32, "f64": torch.float64, "i32": torch.int32, "i64": torch.int64}
SIZES = [0, 1, 31, 1025, 65537, (1 << 20) + 3, (1 << 24) + 7]


def rand(n, dt):
    if dt.is_floating_point:
        return torch.rand(n, device=dev, dtype=dt) * 2 - 1
    return torch.randint(-1000, 1000, (n,), device=dev, dtype=dt)


def close(got, x, dt, want):
    """Integers: exact. Floats: within 64 eps of the exact (float64) prefix sums of |x|, the
    error bound of any summation tree of depth <= 64 -- both gp and torch re-associate."""
    if not dt.is_floating_point:
        return torch.equal(got, want)
    exact = torch.cumsum(x.double(), 0)[-got.numel():] if got.numel() else got.double()
    bound = 64 * torch.finfo(dt).eps * torch.cumsum(x.double().abs(), 0)[-got.numel():] + 1e-30
    return bool(((got.double() - exact).abs() <= bound).all()) if got.numel() else True


# ---- scans and reduces: gp against torch ---------------------------------------------
for name, dt in DTYPES.items():
    for n in SIZES:
        x = rand(n, dt)
        # sum: torch.cumsum (float: in a different order, so within a tolerance)
        y = gpuprims.inclusive_scan("sum", torch.empty_like(x), x)
        expect(close(y, x, dt, torch.cumsum(x, 0, dtype=dt)), "inclusive sum_%s n=%d" % (name, n))
        y = gpuprims.exclusive_scan("sum", torch.empty_like(x), x)
        want = torch.cat([torch.zeros(1, device=dev, dtype=dt), torch.cumsum(x, 0, dtype=dt)[:-1]])[:n]
        expect(torch.equal(y[:1], want[:1]) and close(y[1:], x[:-1], dt, want[1:]),
               "exclusive sum_%s n=%d" % (name, n))
        # min and max: exact
        for op, f in (("min", torch.cummin), ("max", torch.cummax)):
            if n:
                y = gpuprims.inclusive_scan(op, torch.empty_like(x), x)
                expect(torch.equal(y, f(x, 0).values), "inclusive %s_%s n=%d" % (op, name, n))
                y = gpuprims.exclusive_scan(op, torch.empty_like(x), x)
                expect(torch.equal(y[1:], f(x, 0).values[:-1]), "exclusive %s_%s n=%d" % (op, name, n))
        if n:
            out = torch.empty(1, device=dev, dtype=dt)
            gpuprims.reduce("sum", out, x)
            expect(close(out, x, dt, x.sum(dtype=dt).view(1)), "reduce sum_%s n=%d" % (name, n))
            gpuprims.reduce("min", out, x)
            expect(out[0] == x.min(), "reduce min_%s n=%d" % (name, n))
            gpuprims.reduce("max", out, x)
            expect(out[0] == x.max(), "reduce max_%s n=%d" % (name, n))

# in place, on a side stream, with torch work before and after and no synchronisation
x = rand((1 << 22) + 1, torch.int64)
ref = torch.cumsum(x * 5, 0)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    x.mul_(5)
    gpuprims.inclusive_scan("sum", x, x)   # in place, on torch's current stream: s
    x.add_(1)
torch.cuda.current_stream().wait_stream(s)
expect(torch.equal(x, ref + 1), "in-place inclusive sum_i64 on a side stream, ordered with torch's work")

# an explicit stream argument, and a raw cudaStream_t
x = rand(100000, torch.float32)
y = torch.empty_like(x)
gpuprims.inclusive_scan("max", y, x, stream=s)
s.synchronize()
expect(torch.equal(y, torch.cummax(x, 0).values), "stream=torch.cuda.Stream")
gpuprims.inclusive_scan("min", y, x, stream=torch.cuda.current_stream().cuda_stream)
expect(torch.equal(y, torch.cummin(x, 0).values), "stream=<int cudaStream_t>")

# ---- transpose and matmul ------------------------------------------------------------
for dt in (torch.uint8, torch.float32, torch.float64):
    for rows, cols in ((1, 1), (33, 65), (1000, 777), (32, 4097)):
        a = (torch.rand(rows, cols, device=dev) * 100).to(dt)
        t = gpuprims.transpose(torch.empty(cols, rows, device=dev, dtype=dt), a)
        expect(torch.equal(t, a.t().contiguous()), "transpose %s %dx%d" % (dt, rows, cols))
for dt in (torch.float32, torch.float64):
    for m, n, k in ((1, 1, 1), (128, 128, 128), (1000, 777, 333), (64, 2049, 5)):
        a, b = rand(m * k, dt).view(m, k), rand(k * n, dt).view(k, n)
        c = gpuprims.matmul(torch.empty(m, n, device=dev, dtype=dt), a, b)
        want = a @ b
        tol = (1e-4 if dt == torch.float32 else 1e-12) * k
        expect(torch.allclose(c, want, rtol=tol, atol=tol), "matmul %s %dx%dx%d" % (dt, m, n, k))

# ---- bad input is refused, not run ------------------------------------------------------
x = rand(1000, torch.float32)
try:
    gpuprims.inclusive_scan("sum", x[1:], x[:-1])  # partial overlap
    expect(False, "partial overlap must raise")
except RuntimeError as e:
    expect("cudaErrorInvalidValue" in str(e), "partial overlap: %s" % e)
try:
    gpuprims.inclusive_scan("sum", torch.empty(1000, device=dev, dtype=torch.float64), x)
    expect(False, "mixed types must raise")
except TypeError:
    expect(True, "")
try:
    gpuprims.transpose(torch.empty(10, 10, device=dev), torch.rand(10, 20, device=dev)[:, ::2])
    expect(False, "a strided view must raise")
except ValueError:
    expect(True, "")
torch.cuda.synchronize()

# ---- stream compaction: gp against torch ------------------------------------------------
for n in (1, 33, 4097, 1_000_003):
    x = torch.rand(n, device=dev)
    x[::7] = float("nan")
    mask = x < 0.5
    out, count = gpuprims.select_flagged(torch.empty_like(x), x, mask)
    k = int(count.item())
    expect(k == int(mask.sum()) and torch.equal(out[:k], x[mask]), "select_flagged_f32 n=%d against x[mask]" % n)
    r = torch.randint(-2, 2, (n,), device=dev, dtype=torch.int32)
    u, c = gpuprims.unique(torch.empty_like(r), r)
    m = int(c.item())
    want = torch.unique_consecutive(r)
    expect(m == want.numel() and torch.equal(u[:m], want), "unique_i32 n=%d against unique_consecutive" % n)

# ---- radix sort: gp against torch.sort(stable=True) ---------------------------------------
for n in (1, 33, 4097, 70_001, 1_000_003):
    for dt in (torch.float32, torch.int32, torch.int64, torch.float64):
        if dt.is_floating_point:
            # in [0, 1), no NaN and no -0.0 (where the orders differ); 512 values: repeated
            # keys, so stability shows
            x = torch.floor(torch.rand(n, device=dev, dtype=dt) * 512) / 512
        else:
            x = torch.randint(-1000, 1000, (n,), device=dev, dtype=dt)
        for desc in (False, True):
            want = torch.sort(x, descending=desc, stable=True)
            out = gpuprims.sort(torch.empty_like(x), x, descending=desc)
            idx = gpuprims.argsort(torch.empty(n, dtype=torch.int64, device=dev), x, descending=desc)
            what = "%s n=%d%s" % (str(dt).split(".")[-1], n, " desc" if desc else "")
            expect(torch.equal(out, want.values), "sort %s against torch.sort" % what)
            expect(torch.equal(idx, want.indices), "argsort %s against torch.sort's indices" % what)
x = torch.rand(4097, device=dev)
y = x.clone()
gpuprims.sort(y, y)  # in place
expect(torch.equal(y, torch.sort(x).values), "sort f32 in place")

# ---- CuPy, when installed -------------------------------------------------------------
try:
    import cupy
except ImportError:
    cupy = None
    print("  skip: CuPy not installed")
    skipped += 1
if cupy is not None:
    a = cupy.arange(1, 100001, dtype=cupy.float64)
    b = cupy.empty_like(a)
    gpuprims.inclusive_scan("sum", b, a)  # on cupy's current stream
    expect(bool(cupy.all(b == cupy.cumsum(a))), "CuPy: inclusive sum_f64")

done()
