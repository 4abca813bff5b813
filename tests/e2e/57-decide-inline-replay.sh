#!/usr/bin/env bash
# 57-decide-inline-replay.sh - calls the profiled binary inlined with hot
# instances are inlined again before annotation (AutoFDO's early-inline
# replay), so each inlined copy gets the profile of its own call site:
# classify() sees only odd values at one call and only even values at the
# other, and in each copy the arm that call never takes goes cold.
# Without replay (no-inline), both copies get classify's merged profile
# and neither arm is cold.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert samplefdo.so
src=$SFDO_ROOT/tests/e2e/data/decide/replay.c
decide_build replay "$src" -- -g

grep -q '^ *[0-9.]*: classify:' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile has no inline instance of classify"
grep -q ' 2 calls inlined as the profiled binary did' "$DECIDE_DIR/sfdo/plugin.err" ||
  fail "the two calls were not replayed: $(cat "$DECIDE_DIR/sfdo/plugin.err")"
# cold_calls VARIANT-DIR: the functions main.cold calls.
cold_calls() {
  sed -n '/^main\.cold:/,/\.cfi_endproc/p' "$1/replay.s" |
    sed -n 's/.*call[[:space:]]*\(on_[a-z]*\).*/\1/p' | sort -u | paste -sd' '
}
[[ $(cold_calls "$DECIDE_DIR/sfdo") == "on_even on_odd" ]] ||
  fail "sfdo: main.cold calls '$(cold_calls "$DECIDE_DIR/sfdo")', not both arms"

mkdir -p "$DECIDE_DIR/noreplay"
(cd "$DECIDE_DIR/noreplay" && gcc -std=gnu11 -O2 -g -save-temps -dumpbase "" \
   -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile=../sfdo.prof \
   -fplugin-arg-samplefdo-no-inline "$src" -o prog) || fail "no-inline build failed"
[[ $(cold_calls "$DECIDE_DIR/noreplay") != "on_even on_odd" ]] ||
  fail "without replay both arms still went cold: the test shows nothing"
echo "replayed inlining gives each copy of classify its own cold arm"
