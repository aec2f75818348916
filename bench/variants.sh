#!/usr/bin/env bash
# bench/variants.sh -- rebuild the reduce bench with other tuning constants and print each
# variant's "gp_reduce vs CUB" table, to choose the defaults in detail/reduce.cuh.
#   bash bench/variants.sh "-DGP__REDUCE_UNROLL=2" "-DGP__REDUCE_BLOCK=256 -DGP__REDUCE_BLOCKS_PER_SM=8"
set -u
ARCH=${ARCH:-sm_90}
for flags in "$@"; do
  dir=$(mktemp -d)
  nvcc -O3 -std=c++17 -arch=$ARCH -I. $flags bench/reduce.cu -o "$dir/reduce" || exit 1
  echo "=== variant: $flags"
  GP_BENCH_RESULTS=$dir "$dir/reduce" | sed -n '/gp_reduce vs CUB/,$p' | grep '^|'
done
