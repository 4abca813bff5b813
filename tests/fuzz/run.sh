#!/bin/sh
# tests/fuzz/run.sh - run every built fuzz target, build/fuzz/fuzz_NAME, for
# $FUZZ_SECONDS seconds (default 30) on a temporary copy of its seed corpus
# tests/fuzz/corpus/NAME, so nothing is written into the repository.
# Prints `PASS fuzz_NAME (N runs)` or `FAIL fuzz_NAME CRASH-FILE` per target
# (a failing run's directory, with its log, is kept) and exits non-zero if
# any target found something or none is built.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${FUZZ_SECONDS:-30}
status=0
ran=0
for bin in "$root"/build/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  ran=$((ran + 1))
  name=$(basename "$bin")
  work=$(mktemp -d "${TMPDIR:-/tmp}/sfdo-$name.XXXXXX")
  mkdir "$work/corpus"
  seeds=$root/tests/fuzz/corpus/${name#fuzz_}
  if [ -d "$seeds" ]; then
    cp "$seeds"/* "$work/corpus/" 2>/dev/null || true
  fi
  if "$bin" -max_len=65536 -max_total_time="$seconds" -timeout=25 \
       -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" \
       >"$work/log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" \
           | tail -n 1)
    echo "PASS $name (${runs:-?} runs)"
    rm -rf "$work"
  else
    found=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
               "$work"/oom-* "$work"/slow-unit-* 2>/dev/null | head -n 1)
    echo "FAIL $name ${found:-"(no reproducer; see $work/log)"}"
    status=1
  fi
done
if [ "$ran" -eq 0 ]; then
  echo "run.sh: no fuzz targets in $root/build/fuzz; run make fuzz-build" >&2
  exit 1
fi
exit $status
