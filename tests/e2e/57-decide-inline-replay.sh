#!/usr/bin/env bash
# 57-decide-inline-replay.sh - calls the profiled binary inlined with hot
# instances are inlined again before annotation (AutoFDO's early-inline
# replay), so each inlined copy gets the profile of its own call site:
# classify() sees only odd values at one call and only even values at the
# other, and in each copy the arm that call never takes goes cold.
# Without replay (no-inline), both copies get classify's merged profile
# and neither arm is cold.  An instance that calls its own function (a
# head left by function splitting) is not replayed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
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
(cd "$DECIDE_DIR/noreplay" && "$SFDO_GCC" -std=gnu11 -O2 -g -save-temps -dumpbase "" \
   -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile=../sfdo.prof \
   -fplugin-arg-samplefdo-no-inline "$src" -o prog) || fail "no-inline build failed"
[[ $(cold_calls "$DECIDE_DIR/noreplay") != "on_even on_odd" ]] ||
  fail "without replay both arms still went cold: the test shows nothing"
# An instance that calls its own function is what function splitting
# leaves of an inlined call (the head inlined, the body F.part.N called,
# which the profile names F): replaying it would inline the whole body
# where the profiled binary inlined a test (Lua's luaV_concat into
# luaV_execute).  The same profile with such a call in each instance of
# classify replays neither.
awk '/^ [0-9.]+: classify:/ { inst = 1; print; next }
     inst && /^  [0-9.]+: [0-9]+$/ { print $0 " classify:1"; inst = 0; next }
     { print }' "$DECIDE_DIR/sfdo.prof" > "$DECIDE_DIR/split.prof"
[[ $(grep -c '^  [0-9.]*: [0-9]* classify:1$' "$DECIDE_DIR/split.prof") == 2 ]] ||
  fail "could not make the split-head profile: $(grep -n classify "$DECIDE_DIR/split.prof")"
"$SFDO_GCC" -std=gnu11 -O2 -g -fplugin="$SFDO_BUILD/samplefdo.so" \
    -fplugin-arg-samplefdo-profile="$DECIDE_DIR/split.prof" \
    -fplugin-arg-samplefdo-verbose -c "$src" -o "$DECIDE_DIR/split.o" \
    2> "$DECIDE_DIR/split.err" || fail "build with split.prof failed"
grep -q ' 0 calls inlined as the profiled binary did' "$DECIDE_DIR/split.err" ||
  fail "instances that call their own function were replayed: $(grep 'inlined as' "$DECIDE_DIR/split.err")"
echo "replayed inlining gives each copy of classify its own cold arm; a split head is not replayed"
