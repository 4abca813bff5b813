#!/usr/bin/env bash
# 104-decide-revived-callers.sh - functions without a sample whose callees
# say one of them ran (pass.cc, revive_callers; rules revive-callers and
# revived-rare).  load_batch ran three times and caught no sample; nor
# did load_all, its only caller, so GCC's own revival leaves both never
# run.  load_batch calls checksum and scale, which caught many.  recover, never run, calls scale too.  -fprofile-use puts recover
# in .text.unlikely and splits load_batch's rare paths off
# (load_batch.cold), among them a message GCC's static estimate prints on
# a third of the calls.  sfdo must do the same:
#   - checksum's only caller is load_batch, so load_batch surely ran, and
#     its count explains scale's entries: recover, the smaller of scale's
#     two unsampled callers, is not revived in its place;
#   - a function revived so ran rarely: the blocks GCC's estimate enters
#     on fewer than half of its entries never ran.
# Before, recover was revived (.text) and load_batch kept the message hot.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-convert
need_plugin
SRC=$SFDO_ROOT/tests/e2e/data/decide/revived_callers.c

# A fixed profile, as sfdo-convert wrote it from an emulated recording
# (sfdo-record --emulate -c 49999) of the -O2 build: the case does not
# depend on how a recording falls.
P=$TEST_TMP/revived.prof
cat > "$P" <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: shape
# event: instructions:u:emulated period=49999 samples=3240
# tool: sfdo-convert 0.1.0
# samples: used=3240 dropped=2
checksum:18005636:5859
 0: 0
 2: 0
 3: 9002818
 4: 9002818
 5: 0
 6: 0
scale:18001940:11719
 1: 0
 2: 0
 3: 0
 3.3: 9000970
 4: 0
 4.3: 9000970
 5: 0
 6: 0
load_all:0:0
load_batch:0:0
main:0:1
recover:0:0
PROF
dumps=(-fdump-ipa-all-blocks-details -fdump-tree-optimized-blocks-details)
decide_build revived_callers --profile "$P" "$SRC" -- -g "${dumps[@]}"

replay_is_cold() {  # VARIANT: whether load_batch's puts call is in its .cold part
    awk '/^load_batch[.a-z0-9]*\.cold:/ { cold = 1; next }
         /^[A-Za-z_][A-Za-z0-9_.]*:/ { cold = 0 }
         cold && /call[ \t]+puts/ { found = 1 }
         END { exit !found }' "$(decide_asm "$1" revived_callers.c)"
}
section_of() {      # VARIANT FUNCTION: its section, clones included
    local fn
    fn=$(grep -o "^$2\(\.[a-z]*\.[0-9]*\)\?:" \
         "$(decide_asm "$1" revived_callers.c)" | head -1)
    [[ -n $fn ]] || fail "$1 has no function $2"
    decide_section "$1" revived_callers.c "${fn%:}"
}

[[ $(section_of pgo recover) == .text.unlikely ]] ||
    fail "-fprofile-use does not put recover in .text.unlikely: the test shows nothing"
replay_is_cold pgo ||
    fail "-fprofile-use does not split load_batch's replay off: the test shows nothing"
! replay_is_cold o2 ||
    fail "plain -O2 already splits load_batch's replay off: the test shows nothing"

s=$(section_of sfdo recover)
[[ $s == .text.unlikely ]] ||
    fail "sfdo puts recover in '$s', not .text.unlikely: $(grep -h 'function only callers' "$DECIDE_DIR"/sfdo/*.profile 2>/dev/null | head -3 | paste -sd';' -)"
echo "recover, which never ran, stays in .text.unlikely, by sfdo as by PGO"

s=$(section_of sfdo load_batch)
[[ $s == .text ]] || fail "sfdo puts load_batch's hot part in '$s', not .text"
replay_is_cold sfdo ||
    fail "sfdo keeps load_batch's replay message in its hot part (section $s)"
echo "load_batch's replay message split off into load_batch.cold, by sfdo as by PGO"

# The blocks add up.  The call graph does not: load_batch is revived with
# the entries it could have run without a sample (27), fewer than its
# callees' entry counts (5859, 11719), and GCC's call-graph dumps report
# "Invalid sum of caller counts" for them; so did the plugin before.
bad=$(decide_sfdo_only_invalid_sums revived_callers.c "of caller counts")
[[ -z $bad ]] || fail "Invalid sums only with sfdo:$bad"
echo "no Invalid sum of block counts in sfdo's dumps that -O2 and PGO do not have"
