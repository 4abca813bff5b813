#!/usr/bin/env bash
# bench/run.sh - every benchmark of sfdo, run by `make bench`.  Each one
# rewrites its own section of bench/RESULTS.md.  Long: not part of make check.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
echo "== profile library (bench/profile-bench.sh)"
bench/profile-bench.sh
echo "== sfdo-convert against create_gcov (bench/convert-bench.sh)"
bench/convert-bench.sh
echo "== minimum-cost flow solver time (bench/mcf-bench.sh)"
bench/mcf-bench.sh
echo "== plugin compile time (bench/plugin-compile-bench.sh)"
bench/plugin-compile-bench.sh
echo "== profile accuracy on the test programs (bench/overlap-bench.sh)"
bench/overlap-bench.sh
echo "== the emulated PMU's cost (bench/emulate-bench.sh)"
rc=0; bench/emulate-bench.sh || rc=$?
((rc == 0 || rc == 77)) || exit "$rc"
# SFDO_BENCH_REAL_RECORD: the profiles' recording modes, each its own
# section (timer, emu, emu-lbr); the emulated ones need sfdoemu built.
for record in ${SFDO_BENCH_REAL_RECORD:-timer}; do
    echo "== real programs against PGO and AutoFDO (bench/real-bench.sh --record=$record)"
    bench/real-bench.sh --record="$record"
done
echo "== which records of the AFDO export GCC applies (bench/afdo-applied-bench.sh)"
bench/afdo-applied-bench.sh
echo "== the LLVM export against clang's PGO on Lua (bench/llvm-bench.sh)"
bench/llvm-bench.sh
echo "== GCC's tree-prof tests, -O2, PGO and sfdo (bench/treeprof-bench.sh)"
rc=0; bench/treeprof-bench.sh || rc=$?
((rc == 0 || rc == 77)) || exit "$rc"
echo "== decisions against PGO's and the transform ladder (bench/decisions-bench.sh)"
record=timer
can_emulate "$PWD/build" && record=emulate
bench/decisions-bench.sh --record "$record"
echo "== sfdo (timer and emulated recordings) beside PGO on eight real programs (bench/wide-bench.sh)"
rc=0; bench/wide-bench.sh || rc=$?
((rc == 0 || rc == 77)) || exit "$rc"
echo "== the share of PGO's gain, re-timed with 31 repetitions (bench/share-timing.sh)"
bench/share-timing.sh --record "$record" lua
echo "== module groups (LIPO) against sfdo file by file and -flto (bench/lipo-bench.sh)"
rc=0; bench/lipo-bench.sh || rc=$?   # emulated PMU where there is one
((rc == 0 || rc == 77)) || exit "$rc"
