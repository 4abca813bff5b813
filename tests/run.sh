#!/usr/bin/env bash
# tests/run.sh - run every test of sfdo and end with "N passed, N failed".
#
# Unit tests (cmocka) run twice: as built and under AddressSanitizer +
# UndefinedBehaviorSanitizer.  Each cmocka test case counts once per build.
# End-to-end scripts (tests/e2e/NN-*.sh) count one each: exit 0 passes,
# 77 skips (the script says why), anything else fails.  Fuzz targets run for
# FUZZ_SECONDS each and count one each.  Run from the top of the tree
# (make check does).
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0
failures=()
log_dir=build/test-logs
mkdir -p "$log_dir"

run_unit () {   # $1 = test binary
  local bin=$1 log="$log_dir/$(echo "$1" | tr / _).log" p f
  ASAN_OPTIONS=detect_leaks=1 "$bin" >"$log" 2>&1
  local rc=$?
  # A binary may run several cmocka groups: add up their summaries.
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or sanitizer report
  passed=$((passed + p)); failed=$((failed + f))
  printf '%-44s %3d passed, %d failed\n' "$bin" "$p" "$f"
  if [ "$f" -ne 0 ]; then failures+=("$bin (log: $log)"); sed 's/^/    /' "$log" | tail -n 40; fi
}

run_script () {   # $1 = e2e script
  local t=$1 log="$log_dir/$(basename "$1").log" rc
  timeout 900 bash "$t" >"$log" 2>&1
  rc=$?
  case $rc in
    0)  passed=$((passed + 1)); printf '%-44s PASS\n' "$t" ;;
    77) skipped=$((skipped + 1)); printf '%-44s SKIP %s\n' "$t" "$(grep -m1 '^SKIP' "$log")" ;;
    *)  failed=$((failed + 1)); failures+=("$t (exit $rc, log: $log)")
        printf '%-44s FAIL (exit %d)\n' "$t" "$rc"; sed 's/^/    /' "$log" | tail -n 30 ;;
  esac
}

echo "== unit tests"
for bin in build/tests/*/test_* build/asan/*/test_*; do
  [ -x "$bin" ] && run_unit "$bin"
done

echo "== end-to-end tests"
for t in tests/e2e/[0-9]*.sh; do
  [ -f "$t" ] && run_script "$t"
done

echo "== fuzzing (${FUZZ_SECONDS:-30} s per target)"
if [ -x tests/fuzz/run.sh ]; then
  fuzz_log="$log_dir/fuzz.log"
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} tests/fuzz/run.sh 2>&1 | tee "$fuzz_log" | grep -E '^(PASS|FAIL)'
  p=$(grep -c '^PASS' "$fuzz_log"); f=$(grep -c '^FAIL' "$fuzz_log")
  passed=$((passed + p)); failed=$((failed + f))
  [ "$f" -ne 0 ] && failures+=("fuzzing (log: $fuzz_log)")
fi

if [ ${#failures[@]} -ne 0 ]; then
  echo; echo "Failed:"; printf '  %s\n' "${failures[@]}"
fi
echo
if [ "$skipped" -ne 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
