#!/usr/bin/env python3
"""examples/python/sort_torch.py -- radix sort of torch CUDA tensors by libgpuprims.so
through ctypes (gpuprims.py beside this file): gp_sort_f32 and gp_argsort_f32 against
torch.sort(stable=True), on torch's stream.

    make lib && python3 examples/python/sort_torch.py

Both sorts are stable, so on the same keys the values and the permutation are the same.
The keys here are in [0, 1): no NaN and no -0.0, where the two orders differ (gpuprims
sorts floats in IEEE 754 totalOrder, -0.0 before +0.0 and -NaN first; torch puts every
NaN last and keeps the zeros in input order).
"""
import sys

import gpuprims

try:
    import torch
except ImportError:
    sys.exit("sort_torch.py: needs PyTorch (pip install torch)")
if not torch.cuda.is_available():
    sys.exit("sort_torch.py: no CUDA GPU found (torch.cuda.is_available() is False)")

n = 10_000_019
x = torch.rand(n, device="cuda")  # many repeated keys: stability matters
want = torch.sort(x, stable=True)

out = gpuprims.sort(torch.empty_like(x), x)
ok_sort = torch.equal(out, want.values)
print("sort_f32: %d keys, %s" % (n, "same as torch.sort(stable=True)" if ok_sort else "DIFFERS from torch"))

idx = gpuprims.argsort(torch.empty(n, dtype=torch.int64, device="cuda"), x)
ok_arg = torch.equal(idx, want.indices)
print("argsort_f32: %s" % ("same permutation as torch.sort(stable=True)" if ok_arg else "DIFFERS from torch"))
sys.exit(0 if ok_sort and ok_arg else 1)
