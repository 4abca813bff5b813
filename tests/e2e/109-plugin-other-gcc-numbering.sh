#!/usr/bin/env bash
# 109-plugin-other-gcc-numbering.sh - a profile of a build by a GCC that
# numbers the blocks of a line otherwise (12 / 13 to 15 / 16, position.h)
# still places its counts: the profile below is GCC 16's (a recording of
# divisors.c built by gcc-16 -O2, as bench/gcc-versions-overlap.sh made
# it).  GCC 16 gave the for line of work (offset 3) three blocks, 0 and 1
# at zero and 2 hot, and numbers blocks no other GCC numbers alike:
#   - read by GCC 12 to 15, the lines with discriminators are not taken
#     for branch anchors of a function that has no call (they would have
#     "realigned" work's lines away: block overlap 20%), a zero read off
#     another block of a line of several is not believed (GCC 16's loop
#     guard took GCC 12's loop test, and held the hot loop at zero), and
#     the unit says once that the numbering differs;
#   - read by GCC 16, none of that: the numbers are its own.
# Either way work's division (line 9) runs 200 million times.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_plugin
tmpdir
SRC=$SFDO_ROOT/tests/e2e/data/divisors.c
sed "s|@SRC@|$SRC|" > "$TEST_TMP/gcc16.prof" <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: shape
# event: instructions:u:emulated period=100003 samples=22002
# tool: sfdo-convert 0.1.0
# producer: GCC 16.2.0
# samples: used=22002 dropped=1
work:400002100:15625
 0: 0
 2: 0
 3: 0
 3.1: 0
 3.2: 200001050
 4: 200001050
 5.1: 0
 6: 0
 !File: @SRC@
 !Values: 0 unit @SRC@:1
main:0:1
 !Values: 0 unit @SRC@:1
PROF
(cd "$TEST_TMP" && "$SFDO_GCC" -O2 -g -c "$SRC" -o d.o -fplugin="$SFDO_BUILD/samplefdo.so" \
    -fplugin-arg-samplefdo-profile=gcc16.prof -fplugin-arg-samplefdo-no-inline \
    -fplugin-arg-samplefdo-dump=blocks.txt 2> plugin.err) ||
    fail "the build failed: $(head -n 3 "$TEST_TMP/plugin.err")"
major=$("$SFDO_GCC" -dumpversion)
major=${major%%.*}
if ((major < 16)); then
    grep -q "the profile's code was built by GCC 16, which numbers the blocks of a source line otherwise than GCC $major" \
        "$TEST_TMP/plugin.err" ||
        fail "GCC $major did not say the profile numbers blocks otherwise: $(head -n 3 "$TEST_TMP/plugin.err")"
else
    ! grep -q 'numbers the blocks of a source line otherwise' "$TEST_TMP/plugin.err" ||
        fail "GCC $major took GCC 16's numbering for another's"
fi
! grep -q 'stale profile: ' "$TEST_TMP/plugin.err" ||
    fail "work's lines were moved as if the profile were stale: $(grep -m1 'stale profile' "$TEST_TMP/plugin.err")"
# The last annotation of work: its block of line 9 runs 200 million times.
final=$(awk '$0 == "function work" { n = 0 } /^function / { f = ($2 == "work") }
             f && $4 ~ /(^|,)9(,|$)/ { n = $10 } END { print n + 0 }' "$TEST_TMP/blocks.txt")
((final >= 100000000)) ||
    fail "work's division runs $final times by the plugin's counts, not 200 million: $(sed -n '/function work/,$p' "$TEST_TMP/blocks.txt" | head -n 8)"
echo "$TEST_NAME: GCC $major: GCC 16's profile puts work's division at $final"
