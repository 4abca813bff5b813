#!/usr/bin/env bash
# 81-plugin-statics-other-dir.sh - a profile's static functions reach a
# build in another directory that names its sources otherwise.
#
# The profiled build compiles src/statics_a.c and src/statics_b.c (each
# with its own static step) by relative names; the profile keys each step
# by that name.  The rebuild, in another directory, names them by
# absolute paths: the plugin must still give each TU's step the profile
# of its own file's step (by the longest path tail, profiles/profile.h:
# sfdo_profile_find_static) and match every function of both units: each
# unit's share of the profile (the plugin's verbose report) is its own
# step's and global function's, so swapped steps would show.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-record sfdo-convert
need_plugin
need_perf >/dev/null
tmpdir
T=$TEST_TMP
mkdir -p "$T/old/src" "$T/new/tree/src"
cp "$SFDO_ROOT"/tests/e2e/data/statics_[ab].c "$T/old/src/"
cp "$SFDO_ROOT"/tests/e2e/data/statics_[ab].c "$T/new/tree/src/"
(cd "$T/old" && "$SFDO_GCC" -O2 -g src/statics_a.c src/statics_b.c -o prog) ||
    fail "the profiled build failed"
(cd "$T/old" && "$SFDO_BUILD/sfdo-record" -q -o perf.data -- ./prog 20 >/dev/null 2>record.err) ||
    fail "sfdo-record failed: $(cat "$T/old/record.err")"
"$SFDO_BUILD/sfdo-convert" -q -o "$T/p.prof" "$T/old/perf.data" "$T/old/prog" ||
    fail "sfdo-convert failed"

# share FILE GLOBAL: the percent of the profile's total in FILE's step and
# in the global function GLOBAL that FILE defines.
share_of() {
    awk -v f="$1" -v g="$2" '
        /^[^ !#]/ { split($0, a, ":"); name = a[1]; tot = a[2]; all += tot
                    if (name == g) mine += tot }
        /^ !File: / && $2 == f && name == "step" { mine += tot }
        END { printf "%.1f", 100 * mine / all }' "$T/p.prof"
}
grep -q '^ !File: src/statics_a.c$' "$T/p.prof" && grep -q '^ !File: src/statics_b.c$' "$T/p.prof" ||
    fail "the profile does not key the two steps by src/statics_a.c and src/statics_b.c"

shares=
for f in statics_a statics_b; do
    (cd "$T/new/tree" && "$SFDO_GCC" -O2 -g -c "$PWD/src/$f.c" -o "$f.o" \
        -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile="$T/p.prof" \
        -fplugin-arg-samplefdo-verbose 2>"$T/$f.err") ||
        fail "the rebuild of $f failed: $(head -5 "$T/$f.err")"
    grep -q "src/$f.c: 2 functions matched, 0 unmatched" "$T/$f.err" ||
        fail "$f: not every function matched: $(head -1 "$T/$f.err")"
    got=$(sed -nE 's/.* ([0-9.]+)% of the profile.s total samples found a home here/\1/p' "$T/$f.err" | head -1)
    want=$(share_of "src/$f.c" "$([[ $f == statics_a ]] && echo main || echo run_b)")
    awk -v g="$got" -v w="$want" 'BEGIN { exit !(g - w < 0.15 && w - g < 0.15) }' ||
        fail "$f: ${got:-no}% of the profile found a home, but its step and its global function hold $want%"
    shares+=" $f $got%"
done
echo "$TEST_NAME: both statics matched from another directory (profile shares:$shares)"
