#!/usr/bin/env bash
# tests/run.sh - run every test of sfdo and end with "N passed, N failed".
#
# Usage: tests/run.sh [--plugin-only]
#
# Unit tests (cmocka) run twice: as built and under AddressSanitizer +
# UndefinedBehaviorSanitizer.  Each cmocka test case counts once per build.
# End-to-end scripts (tests/e2e/NN-*.sh) count one each: exit 0 passes,
# 77 skips (the script says why), anything else fails.  Fuzz targets run for
# FUZZ_SECONDS each and count one each.  Then the plugin's end-to-end tests
# (those that call need_plugin or use decide.sh) run again with each GCC in
# SFDO_CHECK_GCC (majors, default none; make check gives 16), inside the
# Debian sid chroot scripts/gcc-chroot.sh makes, with the tools and the
# plugin built there into build/sid; each counts one, named "gcc-N: TEST".
# A GCC whose chroot cannot be made or entered is one skip, saying why.
#
#   --plugin-only   only the plugin's end-to-end tests, with $SFDO_GCC (what
#                   this script runs inside the chroot)
#
# Run from the top of the tree (make check does).
set -u
cd "$(dirname "$0")/.."
plugin_only=0
case ${1:-} in
  --plugin-only) plugin_only=1 ;;
  "") ;;
  *) echo "usage: tests/run.sh [--plugin-only]" >&2; exit 2 ;;
esac
passed=0 failed=0 skipped=0
failures=()
log_dir=${SFDO_TEST_LOGS:-build/test-logs}
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

# plugin_test SCRIPT: whether SCRIPT is one of the plugin's tests.
plugin_test () {
  grep -q -E '^[[:space:]]*need_plugin|decide\.sh"' "$1"
}

# run_other_gcc MAJOR: the plugin's tests with gcc-MAJOR in the chroot.
run_other_gcc () {
  local n=$1 log="$log_dir/gcc-$1.log" rc
  echo "== the plugin's tests with GCC $n (Debian sid chroot: scripts/gcc-chroot.sh)"
  if ! scripts/gcc-chroot.sh make > "$log" 2>&1; then
    skipped=$((skipped + 1))
    printf '%-44s SKIP %s\n' "gcc-$n" "the chroot with GCC $n cannot be made here: $(grep -m1 'error:' "$log")"
    return
  fi
  if ! scripts/gcc-chroot.sh run make -s B=build/sid CC=gcc-16 GCC="gcc-$n" all \
         >> "$log" 2>&1; then
    failed=$((failed + 1)); failures+=("gcc-$n: building the tools and plugin (log: $log)")
    printf '%-44s FAIL\n' "gcc-$n: build"; tail -n 30 "$log" | sed 's/^/    /'
    return
  fi
  scripts/gcc-chroot.sh run env SFDO_BUILD="$PWD/build/sid" SFDO_GCC="gcc-$n" CC=gcc-16 \
      SFDO_TEST_LOGS="$log_dir/gcc-$n" tests/run.sh --plugin-only 2>&1 |
    tee -a "$log" | sed -n "s|^tests/|gcc-$n: tests/|p; s|^    |    |p"
  local summary p f s
  summary=$(tail -n 1 "$log")
  read -r p f s <<<"$(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/' <<<"$summary")"
  if [[ ! $p =~ ^[0-9]+$ ]]; then
    failed=$((failed + 1)); failures+=("gcc-$n: the run did not finish (log: $log)")
    return
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
  [ "$f" -ne 0 ] && failures+=("gcc-$n: $f of the plugin's tests (log: $log)")
}

if [ "$plugin_only" -eq 0 ]; then
  echo "== unit tests"
  for bin in build/tests/*/test_* build/asan/*/test_*; do
    [ -x "$bin" ] && run_unit "$bin"
  done
fi

echo "== end-to-end tests${SFDO_GCC:+ with $SFDO_GCC}"
for t in tests/e2e/[0-9]*.sh; do
  [ -f "$t" ] || continue
  [ "$plugin_only" -eq 1 ] && ! plugin_test "$t" && continue
  run_script "$t"
done

if [ "$plugin_only" -eq 0 ]; then
  echo "== fuzzing (${FUZZ_SECONDS:-30} s per target)"
  if [ -x tests/fuzz/run.sh ]; then
    fuzz_log="$log_dir/fuzz.log"
    FUZZ_SECONDS=${FUZZ_SECONDS:-30} tests/fuzz/run.sh 2>&1 | tee "$fuzz_log" | grep -E '^(PASS|FAIL)'
    p=$(grep -c '^PASS' "$fuzz_log"); f=$(grep -c '^FAIL' "$fuzz_log")
    passed=$((passed + p)); failed=$((failed + f))
    [ "$f" -ne 0 ] && failures+=("fuzzing (log: $fuzz_log)")
  fi
  for n in ${SFDO_CHECK_GCC:-}; do
    run_other_gcc "$n"
  done
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
