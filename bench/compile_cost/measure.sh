#!/usr/bin/env bash
# bench/compile_cost/measure.sh "NVCC FLAGS" -- compile time of one TU with a device reduce and a
# device scan:
# gpuprims (its own instance; a call to a default instance) against CUB. Best of 3, -c only.
# No GPU needed. Run by `make compile-cost`, which writes bench/results/compile_cost.md.
# Also the IMPLEMENTATION TU of every default instance (tests/impl.cu), for scale.
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
cub=$(best "$dir/cub.cu"); def=$(best "$dir/gp_define.cu"); call=$(best "$dir/gp_call.cu")
impl=$(best "$dir/../../tests/impl.cu")
echo "## Compile cost: one TU with one device reduce and one device scan"
echo
echo "$(nvcc --version | tail -1), host: $(nproc) cores, $(date -u +%Y-%m-%d), commit $(git -C "$dir" describe --always --dirty 2>/dev/null || echo unknown)."
echo "Command: \`$nvcc_cmd -c\`, best of 3 wall-clock runs."
echo
echo "| TU | seconds | vs CUB |"
echo "|---|---|---|"
echo "| CUB \`cub::DeviceReduce::Sum\` + \`cub::DeviceScan::ExclusiveSum\` (bench/compile_cost/cub.cu) | $cub | 1.00 |"
echo "| gpuprims \`GP_DEFINE_REDUCE\` + \`GP_DEFINE_SCAN\` and their calls (gp_define.cu) | $def | $(awk "BEGIN{printf \"%.2f\", $def / $cub}") |"
echo "| gpuprims, calling default \`gp_reduce_sum_f32\` + \`gp_exclusive_scan_sum_f32\` (gp_call.cu) | $call | $(awk "BEGIN{printf \"%.2f\", $call / $cub}") |"
echo "| (for scale) the GPUPRIMS_IMPLEMENTATION TU: every default instance of every primitive (tests/impl.cu) | $impl | $(awk "BEGIN{printf \"%.2f\", $impl / $cub}") |"
rm -rf "$tmp"
