"""examples/python/gpuprims.py -- libgpuprims.so from Python through ctypes.

The library's host API is plain C (cudaError_t gp_inclusive_scan_sum_f32(float *d_out,
const float *d_in, size_t n, cudaStream_t s), ...), so ctypes can call it on any device
array that exposes __cuda_array_interface__: PyTorch CUDA tensors, CuPy arrays, Numba
device arrays. Each call is asynchronous on the stream given, by default the current
stream of the array's framework (torch.cuda.current_stream(), cupy's current stream), so
it is ordered with the framework's own work like any of its operations.

    import torch, gpuprims
    x = torch.rand(1 << 20, device="cuda")
    y = torch.empty_like(x)
    gpuprims.inclusive_scan("sum", y, x)     # y = torch.cumsum(x, 0), on torch's stream

Finding the library: $GPUPRIMS_LIB; else, installed (`make install` copies this module to
<libdir>/gpuprims/python/ and writes the library's path into INSTALLED_LIB below), that
libgpuprims.so; else build/lib/libgpuprims.so of this source tree (`make lib`); else the
loader's search path. libgpuprims.so carries its own CUDA runtime (static, private), so it
loads beside any framework's. Importing this module needs no GPU, torch or CuPy.
"""
import ctypes
import ctypes.util
import os

# __cuda_array_interface__ typestr -> the library's type suffix
TYPES = {"<f4": "f32", "<f8": "f64", "<i4": "i32", "<u4": "u32", "<i8": "i64", "<u8": "u64",
         "|u1": "u8", "<u2": "u16"}
TYPE_SIZE = {"<f4": 4, "<f8": 8, "<i4": 4, "<u4": 4, "<i8": 8, "<u8": 8, "|u1": 1, "<u2": 2}
ERRORS = {1: "cudaErrorInvalidValue", 2: "cudaErrorMemoryAllocation", 35: "cudaErrorInsufficientDriver",
          100: "cudaErrorNoDevice", 400: "cudaErrorInvalidResourceHandle"}

# The installed library's path, written here by `make install`; None in the source tree.
INSTALLED_LIB = None

_lib = None


def library():
    """The loaded libgpuprims.so (loaded once)."""
    global _lib
    if _lib is None:
        here = os.path.dirname(os.path.abspath(__file__))
        tree = os.path.join(here, "..", "..", "build", "lib", "libgpuprims.so")
        path = os.environ.get("GPUPRIMS_LIB")
        for candidate in (INSTALLED_LIB, tree):
            if not path and candidate and os.path.exists(candidate):
                path = candidate
        path = path or ctypes.util.find_library("gpuprims")
        if not path:
            raise OSError("libgpuprims.so not found: `make lib`, install it, or set GPUPRIMS_LIB")
        _lib = ctypes.CDLL(path)
    return _lib


def _fn(name, nargs):
    f = getattr(library(), name)  # AttributeError names a missing instance
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_size_t] * (nargs - 3) + [ctypes.c_void_p]
    return f


def _iface(a, contiguous=True):
    i = a.__cuda_array_interface__
    if contiguous and i.get("strides") is not None:
        size, want = TYPE_SIZE[i["typestr"]], []
        for d in reversed(i["shape"]):
            want.insert(0, size)
            size *= d
        if list(i["strides"]) != want:
            raise ValueError("gpuprims: arrays must be C-contiguous")
    return i


def _stream(a, stream):
    if stream is not None:  # a torch/cupy stream object, or a raw cudaStream_t as an int
        return int(getattr(stream, "cuda_stream", getattr(stream, "ptr", stream)))
    mod = type(a).__module__.split(".")[0]
    if mod == "torch":
        import torch
        return torch.cuda.current_stream(a.device).cuda_stream
    if mod == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0  # the legacy default stream


def _check(err, what):
    if err != 0:
        raise RuntimeError("gpuprims: %s returned %s" % (what, ERRORS.get(err, "CUDA error %d" % err)))


def _device_of(a):
    """A context manager that makes a's device current (torch only; others: a no-op)."""
    if type(a).__module__.split(".")[0] == "torch":
        import torch
        return torch.cuda.device(a.device)
    import contextlib
    return contextlib.nullcontext()


def _out_x(kind, out, x, out_types, stream):
    """gp_<kind>_<x's type>(out, x, n, stream), n the elements of x: the call of the reduces,
    scans and sorts. out_types: the typestrs out may have (None: x's)."""
    ix, io = _iface(x), _iface(out)
    out_types = out_types or (ix["typestr"],)
    if io["typestr"] not in out_types:
        raise TypeError("gpuprims: out is %s, gp_%s of %s writes %s" % (io["typestr"], kind, ix["typestr"],
                                                                        " or ".join(out_types)))
    n = 1
    for d in ix["shape"]:
        n *= d
    name = "gp_%s_%s" % (kind, TYPES[ix["typestr"]])
    with _device_of(x):
        _check(_fn(name, 4)(io["data"][0], ix["data"][0], n, _stream(x, stream)), name)
    return out


def _unary(kind, op, out, x, stream):
    return _out_x("%s_%s" % (kind, op), out, x, None, stream)


def reduce(op, out, x, stream=None):
    """out[0] = x[0] op x[1] op ... (op: 'sum', 'min', 'max'); out has one element."""
    return _unary("reduce", op, out, x, stream)


def inclusive_scan(op, out, x, stream=None):
    """out[i] = x[0] op ... op x[i], over x flattened; out may be x (in place)."""
    return _unary("inclusive_scan", op, out, x, stream)


def exclusive_scan(op, out, x, stream=None):
    """out[0] = identity, out[i] = x[0] op ... op x[i-1]; out may be x (in place)."""
    return _unary("exclusive_scan", op, out, x, stream)


def transpose(out, x, stream=None):
    """out (cols x rows) = x (rows x cols) transposed; 1, 2, 4, 8-byte elements."""
    ix, io = _iface(x), _iface(out)
    rows, cols = ix["shape"]
    name = "gp_transpose_" + TYPES[ix["typestr"]]
    with _device_of(x):
        _check(_fn(name, 5)(io["data"][0], ix["data"][0], rows, cols, _stream(x, stream)), name)
    return out


def matmul(c, a, b, stream=None):
    """c (m x n) = a (m x k) . b (k x n), float32 or float64, row-major."""
    ia, ib, ic = _iface(a), _iface(b), _iface(c)
    (m, k), (_, n) = ia["shape"], ib["shape"]
    name = "gp_matmul_" + TYPES[ia["typestr"]]
    f = getattr(library(), name)
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_size_t] * 3 + [ctypes.c_void_p]
    with _device_of(a):
        _check(f(ic["data"][0], ia["data"][0], ib["data"][0], m, n, k, _stream(a, stream)), name)
    return c


def _count_arg(x, count):
    """A device uint64 for the count: `count` (a one-element tensor/array) or a new one."""
    if count is None:
        import torch
        count = torch.zeros(1, dtype=torch.int64, device=x.device)  # read as uint64
    return count, _iface(count)["data"][0]


def _compact(kind, out, x, extra, count, stream):
    """gp_<kind>_<type>(out, count, x, [extra,] n, stream): the shared call of the compactions."""
    ix, io = _iface(x), _iface(out)
    if ix["typestr"] != io["typestr"]:
        raise TypeError("gpuprims: out and x differ in type (%s, %s)" % (io["typestr"], ix["typestr"]))
    n = 1
    for d in ix["shape"]:
        n *= d
    count, pc = _count_arg(x, count)
    name = "gp_%s_%s" % (kind, TYPES[ix["typestr"]])
    f = getattr(library(), name)
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p] * (3 + len(extra)) + [ctypes.c_size_t, ctypes.c_void_p]
    with _device_of(x):
        _check(f(io["data"][0], pc, ix["data"][0], *extra, n, _stream(x, stream)), name)
    return out, count


def select_flagged(out, x, flags, count=None, stream=None):
    """Keeps x[i] where flags[i] != 0 (flags: uint8/bool, as many as x), in order, into
    out[0 .. count). Returns (out, count): count is a one-element device tensor (int64 view
    of the library's uint64), filled on the stream: nothing waits for the host."""
    iff = _iface(flags)
    if iff["typestr"] not in ("|u1", "|b1"):
        raise TypeError("gpuprims: select_flagged wants uint8/bool flags")
    return _compact("select_flagged", out, x, [iff["data"][0]], count, stream)


def unique(out, x, count=None, stream=None):
    """The first of each run of equal consecutive elements of x (torch.unique_consecutive),
    into out[0 .. count). Returns (out, count) as select_flagged does. out may be x."""
    return _compact("unique", out, x, [], count, stream)


def sort(out, x, descending=False, stream=None):
    """out = x flattened, sorted, stable (u16, i32, u32, i64, u64, f32, f64). Floats sort in
    IEEE 754 totalOrder (-NaN first, +NaN last, -0.0 before +0.0) and keep their bits;
    torch.sort puts every NaN last and keeps -0.0 and +0.0 in input order. out may be x."""
    return _out_x("sort_desc" if descending else "sort", out, x, None, stream)


def argsort(idx, x, descending=False, stream=None):
    """idx = the stable permutation that sorts x flattened (torch.argsort(x, stable=True)):
    idx an int64 (or uint64) array of as many elements as x; the library writes uint64."""
    return _out_x("argsort_desc" if descending else "argsort", idx, x, ("<i8", "<u8"), stream)
