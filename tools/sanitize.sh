#!/usr/bin/env bash
# tools/sanitize.sh TESTS LOGDIR -- the GPU tests under the four compute-sanitizer tools at
# once (make sanitize). memcheck (with leak check), synccheck and initcheck run the tests
# with GP_TEST_SMALL=1 (no 2^24 or 2^31 counts); racecheck, slow on shared memory, runs
# GP_TEST_SMALL=2 (fewer placements too) in RACE_SHARDS processes, each every k-th test
# function (GP_TEST_SHARD), so that all four finish in a few minutes on a many-core host.
# GP_TEST_ONLY (make sanitize-<family>) narrows every run to one family. Prints each run's
# closing lines; fails if any run reports an error or a failed test.
set -u
tests=$1 logs=$2 shards=${RACE_SHARDS:-$(( $(nproc) >= 16 ? 16 : 8 ))}
mkdir -p "$logs"
san="compute-sanitizer --error-exitcode 1 --target-processes application-only"
pids=() names=()
run() { # name, env..., tool args...
    local name=$1; shift
    ( t=$(date +%s); env GP_TEST_TIMES=1 "$@" "$tests" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc"
      echo $(( $(date +%s) - t )) > "$logs/$name.s" ) &
    pids+=($!) names+=("$name")
}
start=$(date +%s)
run memcheck GP_TEST_SMALL=1 $san --tool memcheck --leak-check full
run synccheck GP_TEST_SMALL=1 $san --tool synccheck
run initcheck GP_TEST_SMALL=1 $san --tool initcheck
for ((i = 0; i < shards; i++)); do run "racecheck-$i" GP_TEST_SMALL=2 GP_TEST_SHARD="$i/$shards" $san --tool racecheck; done
wait "${pids[@]}"
status=0
for name in "${names[@]}"; do
    rc=$(cat "$logs/$name.rc")
    printf '%-12s rc %s, %4s s: %s; %s\n' "$name" "$rc" "$(cat "$logs/$name.s")" "$(grep -E '^[0-9]+ passed' "$logs/$name.log" | tail -1)" \
        "$(grep -E 'ERROR SUMMARY' "$logs/$name.log" | tail -1 | sed 's/^=* *//')"
    [ "$rc" = 0 ] || status=1
done
echo "sanitize: $(( $(date +%s) - start )) s, $([ $status = 0 ] && echo clean || echo 'FAILED (logs in '"$logs"')')"
exit $status
