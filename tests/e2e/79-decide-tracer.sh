#!/usr/bin/env bash
# 79-decide-tracer.sh - -ftracer stays off where the profiled binary had
# turned a hot branch into a conditional move: examples/demo.c's CRC loop
# branches on the low bit of the CRC, half the time each way; -O2 makes
# it a cmov, and the tracer's tail duplication (which -fprofile-use turns
# on) copies the loop's blocks into each arm, after which it cannot: the
# PGO build is about twice as slow as -O2 for it.  sfdo turns the tracer
# off in that function alone (the plugin says so under verbose), and
# keeps it in the others.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build tracer --args "8" "$SFDO_ROOT/examples/demo.c" -- -g \
  -fdump-tree-tracer-details

# traced FUNCTION VARIANT: how many blocks the tracer duplicated in it.
traced() {
    awk -v fn="$1" '/^;; Function/ {f = $3} f == fn && /^Duplicated/ {n++}
                    END {print n + 0}' "$(decide_dump "$2" demo.c tracer)"
}
(( $(traced crc32_update pgo) > 0 )) ||
  fail "PGO's tracer left crc32_update alone: the test shows nothing"
(( $(traced crc32_update sfdo) == 0 )) ||
  fail "sfdo's tracer duplicated $(traced crc32_update sfdo) blocks of crc32_update"
grep -q -- '-ftracer off in [1-9]' "$DECIDE_DIR/sfdo/plugin.err" ||
  fail "the plugin did not say it turned the tracer off: $(cat "$DECIDE_DIR/sfdo/plugin.err")"
others=$(awk '/^;; Function/ {f = $3} f != "crc32_update" && /^Duplicated/ {n++}
              END {print n + 0}' "$(decide_dump sfdo demo.c tracer)")
((others > 0)) ||
  fail "sfdo's tracer duplicated nothing outside crc32_update: it is off everywhere"
echo "$TEST_NAME: PGO's tracer duplicated $(traced crc32_update pgo) blocks of crc32_update, sfdo's none; $others elsewhere"
