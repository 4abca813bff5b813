#!/usr/bin/env bash
# 85-gcc-tree-prof.sh - GCC 12's own profile tests (gcc.dg/tree-prof and
# g++.dg/tree-prof, from Debian's gcc-12 source package, fetched at test
# time): every scan that instrumented PGO passes must pass with sfdo, but
# for those that need what a sample profile cannot hold (exact counts,
# first-run order: tests/treeprof/treeprof.py's EXEMPT, each with why) and
# the known gaps still open (KNOWN_GAPS, each with why: listed in the
# output), and no sfdo build may fail to build or run.  The tests' programs run for
# milliseconds, so they are recorded with the emulated PMU (exact
# instruction samples, branch stacks); a timer catches too few samples.
# The full table, with -O2 beside, is bench/treeprof-bench.sh's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
src=$SFDO_BUILD/treeprof-src
rc=0
"$SFDO_ROOT/tests/treeprof/fetch.sh" "$src" >&2 || rc=$?
((rc == 77)) && skip "GCC's tree-prof tests cannot be fetched here"
((rc == 0)) || fail "fetching GCC's tree-prof tests failed"
tmpdir
rc=0
python3 "$SFDO_ROOT/tests/treeprof/treeprof.py" --no-o2 --scanned-only \
  --record-mode emulate --recorder "$DECIDE_RECORDER" --tools "$SFDO_BUILD" \
  "$src/gcc/testsuite" "$TEST_TMP/work" > "$TEST_TMP/report.txt" 2>&1 || rc=$?
sed -n '/^| test/,$p' "$TEST_TMP/report.txt"
if ((rc != 0)); then
  # The recording differs run to run (the recorder's jitter): what failed
  # is kept in the log, since the temporary directory is not.
  for t in $(sed -n '/problems:/,$ s/^  \([^:]*\):.*/\1/p' "$TEST_TMP/report.txt" | sort -u); do
    for f in "$TEST_TMP/work/$t/sfdo-profiled/prog.prof" "$TEST_TMP/work/$t"/sfdo/*.optimized; do
      [[ -f $f ]] && { echo "== $t: ${f#"$TEST_TMP/work/"}"; head -n 200 "$f"; } >&2
    done
  done
  fail "GCC's tree-prof scans that PGO passes fail with sfdo: $(sed -n '/problems:/,$p' "$TEST_TMP/report.txt" | tr '\n' ' ')"
fi
echo "every tree-prof scan PGO passes, sfdo passes but the exempt ones and the known gaps (tests/treeprof/treeprof.py)"
