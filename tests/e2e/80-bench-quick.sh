#!/usr/bin/env bash
# 80-bench-quick.sh - the real-program benchmark in --quick mode: every
# variant of every program (Lua, SQLite, xz, bzip2 from Debian source
# packages) builds, its profile is collected, and each prints on its ref
# input exactly what the -O2 build prints. Skips, saying why, when the
# sources cannot be fetched (no network or no Debian apt source) or perf
# cannot sample here.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert sfdo-profile
need_plugin
need_perf
[[ $SFDO_BUILD -ef $SFDO_ROOT/build ]] ||
    skip "the quick bench runs with the tools of build/ (it builds with SFDO_BENCH_CC, default gcc); this run's tools are $SFDO_BUILD"
status=0
"$SFDO_ROOT/bench/real-bench.sh" --quick >"$TEST_TMP/bench.log" 2>&1 || status=$?
if ((status == 77)); then
    skip "$(sed -n 's/^SKIP: //p' "$TEST_TMP/bench.log" | head -n 1)"
fi
if ((status != 0)); then
    tail -n 40 "$TEST_TMP/bench.log" >&2
    fail "bench/real-bench.sh --quick failed (exit $status)"
fi
grep -q 'every variant .* built and matched' "$TEST_TMP/bench.log" ||
    fail "bench/real-bench.sh --quick did not report its check: $(tail -n 3 "$TEST_TMP/bench.log")"
tail -n 1 "$TEST_TMP/bench.log"
