#!/usr/bin/env bash
# bench/compile_cost/measure.sh "NVCC FLAGS" -- compile time of one TU with a device reduce and a
# device scan:
# gpuprims (its own instance; a call to a default instance) against CUB. Best of 3, -c only.
# No GPU needed. Run by `make compile-cost`, which writes the table to build/compile_cost.md
# (bench/results/compile_cost.md is a copy of one run). For scale, also the TUs of every
# default instance: lib/<family>.cu, the library's four, and impl.cu, all of them in one
# file (a header-only user's GPUPRIMS_IMPLEMENTATION).
set -eu
nvcc_cmd=${1:-nvcc -O3 -std=c++17 -arch=sm_90}
dir=$(dirname "$0")
tmp=$(mktemp -d)
best() { # best wall time of 3 compiles, in seconds
  local b=999
  for _ in 1 2 3; do
    local t0=$(date +%s.%N)
    $nvcc_cmd -I"$dir/../.." -c "$1" -o "$tmp/x.o"
    local t=$(echo "$(date +%s.%N) - $t0" | bc)
    b=$(echo "if ($t < $b) $t else $b" | bc)
  done
  printf '%.2f' "$b"
}
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
cub=$(best "$dir/cub.cu"); def=$(best "$dir/gp_define.cu"); call=$(best "$dir/gp_call.cu")
impl=$(best "$dir/impl.cu")
lib=""
for f in "$dir"/../../lib/*.cu; do lib="$lib lib/$(basename "$f") $(best "$f") s,"; done
echo "## Compile cost: one TU with one device reduce and one device scan"
echo
echo "$(nvcc --version | tail -1), host: $(nproc) cores, $(date -u +%Y-%m-%d), commit $(git -C "$dir" describe --always --dirty 2>/dev/null || echo unknown)."
echo "Command: \`$nvcc_cmd -c\`, best of 3 wall-clock runs."
echo
echo "| TU | seconds | vs CUB |"
echo "|---|---|---|"
echo "| CUB \`cub::DeviceReduce::Sum\` + \`cub::DeviceScan::ExclusiveSum\` (bench/compile_cost/cub.cu) | $cub | 1.00 |"
echo "| gpuprims \`GP_DEFINE_REDUCE\` + \`GP_DEFINE_SCAN\` and their calls (gp_define.cu) | $def | $(ratio $def $cub) |"
echo "| gpuprims, calling default \`gp_reduce_sum_f32\` + \`gp_exclusive_scan_sum_f32\` from libgpuprims (gp_call.cu) | $call | $(ratio $call $cub) |"
echo "| (for scale) every default instance of every primitive in one TU, \`GPUPRIMS_IMPLEMENTATION\` (impl.cu) | $impl | $(ratio $impl $cub) |"
echo
echo "libgpuprims compiles the same default instances as one TU per family, in parallel:${lib%,}."
rm -rf "$tmp"
