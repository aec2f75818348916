#!/usr/bin/env bash
# bench/variants.sh -- rebuild the reduce bench with other tuning constants and print each
# variant's "gp_reduce vs CUB" table, to choose the defaults in detail/device/reduce_plan.cuh.
#   bash bench/variants.sh "-DGP__REDUCE_UNROLL=2" "-DGP__REDUCE_BLOCK=256 -DGP__REDUCE_BLOCKS_PER_SM=8"
# The tuning macros act where the kernels are compiled, so each variant compiles the reduce
# instances into the bench itself (GPUPRIMS_IMPLEMENTATION_REDUCE) instead of taking them
# from libgpuprims.a; the bench calls no other family, so it needs no library.
set -u
ARCH=${ARCH:-sm_90}
for flags in "$@"; do
  dir=$(mktemp -d)
  nvcc -O3 -std=c++17 -arch=$ARCH -I. -DGPUPRIMS_IMPLEMENTATION_REDUCE $flags bench/reduce/reduce.cu -o "$dir/reduce" -lcublas || exit 1
  echo "=== variant: $flags"
  GP_BENCH_RESULTS=$dir "$dir/reduce" table | sed -n '/gp_reduce vs CUB/,$p' | grep '^|'
done
