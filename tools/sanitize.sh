#!/usr/bin/env bash
# tools/sanitize.sh TESTS LOGDIR -- the GPU tests under the four compute-sanitizer tools at
# once (make sanitize). memcheck (with leak check), synccheck and initcheck run the tests
# with GP_TEST_SMALL=1 (no 2^24 or 2^31 counts); racecheck, slow on shared memory, runs
# GP_TEST_SMALL=2 (fewer placements and types too). Each tool's run is split into shards,
# processes that each take every k-th test function (GP_TEST_SHARD): RACE_SHARDS,
# INIT_SHARDS, MEM_SHARDS and SYNC_SHARDS. The sanitizers are CPU-bound, so on a many-core
# host the four finish in the time of the slowest shard. The longest single test functions
# are racecheck's scan and sort tests, so GP_TEST_SMALL=2 runs their grid paths with one
# type per element size (on the 16-core H100 host, synccheck unsharded took 480 s).
# GP_TEST_ONLY (make sanitize-<family>) narrows every run to one family. Prints each run's
# closing lines, and a failing run's seed and first reports; fails if any run reports an
# error or a failed test.
set -u
tests=$1 logs=$2 many=$(( $(nproc) >= 16 ))
race_shards=${RACE_SHARDS:-$(( many ? 12 : 6 ))} init_shards=${INIT_SHARDS:-$(( many ? 4 : 2 ))}
mem_shards=${MEM_SHARDS:-$(( many ? 3 : 1 ))} sync_shards=${SYNC_SHARDS:-$(( many ? 2 : 1 ))}
mkdir -p "$logs"
san="compute-sanitizer --error-exitcode 1 --target-processes application-only"
pids=() names=()
run() { # name, env..., tool args...
    local name=$1; shift
    ( t=$(date +%s); env GP_TEST_TIMES=1 GP_TEST_HANG_S=3600 "$@" "$tests" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc"
      echo $(( $(date +%s) - t )) > "$logs/$name.s" ) &
    pids+=($!) names+=("$name")
}
start=$(date +%s)
sharded() { # tool, shards, small, tool args...
    local tool=$1 n=$2 small=$3 i; shift 3
    for ((i = 0; i < n; i++)); do run "$tool-$i" GP_TEST_SMALL="$small" GP_TEST_SHARD="$i/$n" $san --tool "$tool" "$@"; done
}
sharded memcheck "$mem_shards" 1 --leak-check full
sharded synccheck "$sync_shards" 1
sharded initcheck "$init_shards" 1
sharded racecheck "$race_shards" 2
wait "${pids[@]}"
status=0
for name in "${names[@]}"; do
    rc=$(cat "$logs/$name.rc")
    printf '%-12s rc %s, %4s s: %s; %s\n' "$name" "$rc" "$(cat "$logs/$name.s")" "$(grep -E '^[0-9]+ passed' "$logs/$name.log" | tail -1)" \
        "$(grep -E '(ERROR|RACECHECK) SUMMARY' "$logs/$name.log" | tail -1 | sed 's/^=* *//')"
    [ "$rc" = 0 ] || status=1
done
# a failing shard's seed and the start of its reports, so that the output alone names them
for name in "${names[@]}"; do
    [ "$(cat "$logs/$name.rc")" = 0 ] && continue
    echo "--- $name:"
    grep -m1 -E 'seed [0-9]+' "$logs/$name.log"
    grep -E '^=========' "$logs/$name.log" | grep -v -E 'COMPUTE-SANITIZER|SUMMARY' | head -40
done
echo "sanitize: $(( $(date +%s) - start )) s, $([ $status = 0 ] && echo clean || echo 'FAILED (logs in '"$logs"')')"
exit $status
