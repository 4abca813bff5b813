#!/usr/bin/env bash
# 89-decide-extra-entries.sh - where the calls into a function count more
# entries than its own samples do, the extra entries follow the paths
# its samples show ran, not an error path they ruled out: decode's error
# block stays in decode.cold, as -fprofile-use places it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_plugin

# A fixed profile, in the shape of SQLite's decodeFlags in a recording
# with branch stacks: decode entered 5700 times by its own samples, 6400
# by main's, its error path never.  The plugin annotates decode again
# with main's count (GCC checks that a function only this unit calls is
# entered as often as it is called); the flow, which prices a zero at a
# few samples' worth, sent all 700 extra entries down the error path.
tmpdir
P=$TEST_TMP/extra.prof
cat > "$P" <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: lbr
# event: BR_INST_RETIRED:NEAR_TAKEN:u:emulated period=20011 samples=11000
# tool: sfdo-convert 0.1.0
# samples: used=11000 dropped=0
decode:50000:5700
 1: 5700
 2: 5700
 3: 5700
 4: 0
 5: 0
 8: 5700
 9: 2850
 11: 2850
 12: 5700
 13: 2850
 14: 5700
 15: 5700
main:20000:1
 6.3: 6400
 7.3: 6400 decode:6400
PROF
SRC=$SFDO_ROOT/tests/e2e/data/decide/extra_entries.c
decide_build extra --profile "$P" "$SRC" -- -g
# The test shows something only if decode is annotated again with
# main's 6400 entries (the plugin's block dump, the last section for
# decode: its entry, and its error block, lines 12-13).
blocks=$(decide_block_dump "$P" "$SRC")
last=$(awk '$0 == "function decode" { s = "" } { s = s $0 "\n" }
            END { printf "%s", s }' "$blocks")
grep -q '^  bb 0 lines - raw 6400 ' <<<"$last" ||
  fail "decode is not annotated again with main's 6400 entries: $(head -2 <<<"$last")"
grep -qE '^  bb [0-9]+ lines 12,13 raw 0 smoothed 0 final 0 ' <<<"$last" ||
  fail "decode's error block has a count after its second annotation: $(grep 'lines 12,13' <<<"$last")"
for v in pgo sfdo; do
  grep -q '^decode\.cold:' "$(decide_asm $v extra_entries.c)" ||
    fail "$v: decode's error path is not in decode.cold"
done
grep -q '^decode\.cold:' "$(decide_asm o2 extra_entries.c)" &&
  fail "plain -O2 already splits decode: the test shows nothing"
echo "decode's error path in decode.cold with 700 entries more than its samples, by sfdo as by PGO"
