#!/usr/bin/env python3
"""examples/python/compact_torch.py -- stream compaction of torch CUDA tensors by
libgpuprims.so through ctypes (gpuprims.py beside this file): gp_select_flagged_f32 against
torch's x[mask], and gp_unique_i32 against torch.unique_consecutive, on torch's stream.

    make lib && python3 examples/python/compact_torch.py

The counts land in device tensors: torch's x[mask] copies its count to the host (a
synchronisation) to size its result; here the output is sized n and the count read only
when the program wants it.
"""
import sys

import gpuprims

try:
    import torch
except ImportError:
    sys.exit("compact_torch.py: needs PyTorch (pip install torch)")
if not torch.cuda.is_available():
    sys.exit("compact_torch.py: no CUDA GPU found (torch.cuda.is_available() is False)")

n = 10_000_019
x = torch.rand(n, device="cuda")
mask = x < 0.5
out, count = gpuprims.select_flagged(torch.empty_like(x), x, mask)
k = int(count.item())
want = x[mask]
ok_sel = k == want.numel() and torch.equal(out[:k], want)
print("select_flagged_f32: kept %d of %d, %s" % (k, n, "same as x[x < 0.5]" if ok_sel else "DIFFERS from torch"))

r = torch.randint(0, 4, (n,), device="cuda", dtype=torch.int32)
u, ucount = gpuprims.unique(torch.empty_like(r), r)
m = int(ucount.item())
want = torch.unique_consecutive(r)
ok_uniq = m == want.numel() and torch.equal(u[:m], want)
print("unique_i32: %d runs, %s" % (m, "same as torch.unique_consecutive" if ok_uniq else "DIFFERS from torch"))
sys.exit(0 if ok_sel and ok_uniq else 1)
