#!/usr/bin/env python3
"""examples/python/scan_torch.py -- a scan of a torch CUDA tensor by libgpuprims.so, called
through ctypes (gpuprims.py beside this file), on torch's current stream.

    make lib && python3 examples/python/scan_torch.py

Needs PyTorch with a CUDA GPU. The scan is queued on torch.cuda.current_stream() like a
torch operation: the fill before it and the comparison after it need no synchronisation.
"""
import sys

import gpuprims

try:
    import torch
except ImportError:
    sys.exit("scan_torch.py: needs PyTorch (pip install torch)")
if not torch.cuda.is_available():
    sys.exit("scan_torch.py: no CUDA GPU found (torch.cuda.is_available() is False)")

n = 10_000_019
x = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda")
y = torch.empty_like(x)
s = torch.cuda.Stream()
with torch.cuda.stream(s):                    # any current stream: gpuprims follows it
    x.mul_(3)                                 # torch work, queued on s
    gpuprims.inclusive_scan("sum", y, x)      # gp_inclusive_scan_sum_i32(y, x, n, s)
    want = torch.cumsum(x, 0, dtype=torch.int32)  # torch's own scan, also on s
    same = torch.equal(y, want)
print("gp_inclusive_scan_sum_i32 on %d ints, torch stream %#x: %s (last %d)"
      % (n, s.cuda_stream, "equal to torch.cumsum" if same else "DIFFERENT from torch.cumsum", y[-1].item()))

f = torch.rand(1 << 20, device="cuda", dtype=torch.float64)
g = gpuprims.exclusive_scan("max", torch.empty_like(f), f)   # on the current (default) stream
same_max = torch.equal(g[1:], torch.cummax(f, 0).values[:-1])
print("gp_exclusive_scan_max_f64 on 2^20 doubles: %s"
      % ("equal to torch.cummax, shifted by one" if same_max else "DIFFERENT from torch.cummax"))
sys.exit(0 if same and same_max else 1)
