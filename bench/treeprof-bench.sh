#!/usr/bin/env bash
# bench/treeprof-bench.sh - GCC 12's own profile tests (gcc.dg/tree-prof,
# g++.dg/tree-prof from Debian's gcc-12 source package), each built three
# ways: plain -O2, instrumented PGO, and sfdo from a recording of the
# -O2 -g build under the emulated PMU (tests/treeprof/treeprof.py).  Every
# test's own dump and assembly scans are applied to each build.
#
# Writes the section "## GCC's tree-prof tests" of bench/RESULTS.md: scans
# passed by each build, per test the scans PGO passes and sfdo misses
# (exempt ones marked, with the reasons from treeprof.py's EXEMPT), and
# the known gaps (KNOWN_GAPS).  e2e 85 runs the same harness without
# -O2 and fails on any miss that is neither exempt nor a known gap.
#
# Usage: bench/treeprof-bench.sh [--jobs N]
# Exit status: 0 done; 1 a step failed; 77 the tests or the emulator are
# not available here.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
JOBS=2
while (($#)); do
    case $1 in
        --jobs) JOBS=$2; shift ;;
        *) echo "usage: bench/treeprof-bench.sh [--jobs N]" >&2; exit 2 ;;
    esac
    shift
done
BUILD=$PWD/build
for t in sfdo-record sfdo-convert samplefdo.so; do
    [[ -e $BUILD/$t ]] || { echo "treeprof-bench: $BUILD/$t is missing; run make first" >&2; exit 1; }
done
can_emulate "$BUILD" ||
    { echo "SKIP: treeprof-bench: sfdo-record --emulate does not run here" >&2; exit 77; }
SRC=$BUILD/treeprof-src
rc=0
tests/treeprof/fetch.sh "$SRC" >&2 || rc=$?
((rc == 0)) || exit "$rc"
WORK=$PWD/bench/work/treeprof
rm -rf "$WORK"
mkdir -p "$WORK"
start=$(date +%s)
rc=0
python3 tests/treeprof/treeprof.py --record-mode emulate --tools "$BUILD" \
    --jobs "$JOBS" --markdown "$WORK/table.md" "$SRC/gcc/testsuite" \
    "$WORK/run" > "$WORK/report.txt" 2>&1 || rc=$?
((rc == 0 || rc == 1)) || { tail -20 "$WORK/report.txt" >&2; exit 1; }
elapsed=$(( $(date +%s) - start ))
section=$WORK/section.md
{
    echo "## GCC's tree-prof tests"
    echo
    echo "Written by \`bench/treeprof-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD) (the run took $((elapsed / 60)) min)."
    echo
    echo "- $(gcc --version | head -1); the tests of Debian's gcc-12 source package (\`tests/treeprof/fetch.sh\`), each with its own \`dg-options\`. -O2: the test's options. PGO: \`-fprofile-generate\`, one run, \`-fprofile-use\`. sfdo: the options plus \`-g\`, one run under \`sfdo-record --emulate -b --regs\` at a period giving about 20000 samples (taken branches with the LBR, and registers), \`sfdo-convert\`, then the options with the plugin."
    echo "- A scan counts where it applies to that build (\`dg-final-use\` to both, \`-not-autofdo\` too: the plugin is not GCC's AutoFDO). Exempt misses need what a sample profile cannot hold (exact counts, first-run order, shares exactly at GCC's 50% threshold, callers folded into one body); known gaps are the open ones (\`tests/treeprof/treeprof.py\` says why for each)."
    echo
    cat "$WORK/table.md"
    echo
    exempt=$(grep -o '`exempt: ' "$WORK/table.md" | wc -l || true)
    gaps=$(grep -o '`known gap: ' "$WORK/table.md" | wc -l || true)
    other=$(grep -c '^  ' <(sed -n '/^treeprof: [0-9]* problems/,$p' "$WORK/report.txt") || true)
    echo "Scans PGO passes and sfdo misses: $exempt exempt, $gaps known gaps, $other others (e2e 85 fails on any other)."
    echo
    echo "Summary (from \`treeprof.py\`):"
    echo
    echo '```'
    sed -n '/^treeprof: [0-9]* problems/,$p; /^treeprof: known gaps/,/^$/p' "$WORK/report.txt"
    echo '```'
} > "$section"
results_write_section "## GCC's tree-prof tests" "$section"
echo "treeprof-bench: section written to bench/RESULTS.md ($elapsed s)"
