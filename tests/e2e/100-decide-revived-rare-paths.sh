#!/usr/bin/env bash
# 100-decide-revived-rare-paths.sh - a function that ran a few times and
# caught no sample, called from a block that has a count: GCC revives it
# (handle_missing_profiles) with its static estimate, and the plugin gives
# it the cold blocks of a function that ran rarely, so its error path is
# split off (open_table.cold) as -fprofile-use splits it.  Plain -O2 and
# the plugin before this rule leave open_table whole, in .text.  The
# counts still add up: no dump reports an "Invalid sum" that -O2 or
# -fprofile-use does not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-convert
need_plugin
SRC=$SFDO_ROOT/tests/e2e/data/decide/revived_rare.c

has_cold_part() {   # VARIANT: whether open_table has a .cold part
  grep -q '^open_table\.cold:' "$(decide_asm "$1" revived_rare.c)"
}

# A recording seldom catches the case: it needs open_table's caller to
# have a count where open_table caught nothing (SQLite: 59 such functions
# split by PGO, on calls counted from a shared line or sent there by the
# flow).  A fixed profile holds it: main ran its loop three times, and
# open_table, which it calls there, caught no sample.
P=$TEST_TMP/revived.prof
cat > "$P" <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=1561
# tool: sfdo-convert 0.1.0
# samples: used=1561 dropped=0
fill:24008740:3
 2: 3
 4: 3
 4.3: 6002185
 6.3: 6002185
 7.3: 6002185
 8.3: 6002185
 10: 3
main:30:1
 2: 1
 3: 4
 5: 3
 7: 3 fill:3
 9: 1
 10: 1
open_table:0:0
PROF
dumps=(-fdump-ipa-all-blocks-details -fdump-tree-optimized-blocks-details)
decide_build revived --profile "$P" "$SRC" -- -g "${dumps[@]}"

has_cold_part pgo ||
  fail "-fprofile-use does not split open_table: the test shows nothing"
! has_cold_part o2 ||
  fail "plain -O2 already splits open_table: the test shows nothing"
has_cold_part sfdo ||
  fail "sfdo leaves open_table whole (section $(decide_section sfdo revived_rare.c open_table)): $(grep 'never ran' "$DECIDE_DIR/sfdo/plugin.err")"
s=$(decide_section sfdo revived_rare.c open_table)
[[ $s == .text ]] || fail "sfdo puts open_table's hot part in '$s', not .text"
echo "open_table's error path split off into open_table.cold, by sfdo as by PGO"

# Its callee fill, which ran, keeps its place: only the rare paths go.
s=$(decide_section sfdo revived_rare.c fill)
[[ $s == .text.hot ]] || fail "sfdo puts fill in '$s', not .text.hot"

bad=$(decide_sfdo_only_invalid_sums revived_rare.c)
[[ -z $bad ]] || fail "Invalid sums only with sfdo:$bad"
echo "no Invalid sum in sfdo's dumps that -O2 and PGO do not have"

# With the hot/cold family off the plugin neither marks open_table never
# run nor splits it.
"$SFDO_GCC" -std=gnu11 -O2 -g -S -o "$TEST_TMP/off.s" "$SRC" \
  -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile="$P" \
  -fplugin-arg-samplefdo-no-hotcold 2> "$TEST_TMP/off.err" ||
  fail "the no-hotcold build failed: $(head -3 "$TEST_TMP/off.err")"
! grep -q '^open_table\.cold:' "$TEST_TMP/off.s" ||
  fail "-fplugin-arg-samplefdo-no-hotcold still splits open_table"
echo "no-hotcold: open_table whole"
