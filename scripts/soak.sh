#!/bin/sh
# make test N times while two busy loops load the CPUs (issue 21: the suite
# must pass every time on a loaded 2-core machine). The loops are ended on
# any exit, an interrupt included. Each failing run's output is kept.
n=${1:-10}
case $n in '' | *[!0-9]*) echo "soak: SOAK must be a number of runs, got '$n'" >&2; exit 2 ;; esac
logs=$(mktemp -d "${TMPDIR:-/tmp}/tabwright-soak.XXXXXX")
sh -c 'while :; do :; done' & busy1=$!
sh -c 'while :; do :; done' & busy2=$!
run=
# On any exit: end the busy loops, and a run in progress with its whole
# process group (make, go test and the test binaries it started).
trap 'kill $busy1 $busy2 2>/dev/null; [ -n "$run" ] && kill -TERM -"$run" 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
passed=0 failed=0 i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  start=$(date +%s)
  # In the background, in a process group of its own, so that a signal
  # reaches the traps at once rather than after the run.
  setsid make --no-print-directory test >"$logs/run$i.log" 2>&1 &
  run=$!
  if wait "$run"; then
    passed=$((passed + 1)) verdict=ok
    rm -f "$logs/run$i.log"
  else
    failed=$((failed + 1)) verdict="FAILED (log: $logs/run$i.log)"
    grep -E '^(--- FAIL|FAIL|panic:)' "$logs/run$i.log" | head -20
  fi
  run=
  echo "soak: run $i of $n $verdict in $(($(date +%s) - start)) s"
done
echo "soak: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
