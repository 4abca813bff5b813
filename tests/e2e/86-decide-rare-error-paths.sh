#!/usr/bin/env bash
# 86-decide-rare-error-paths.sh - in a function that ran too few times
# for sampling to show which of its blocks never ran, the paths GCC's own
# estimate makes rare (calls of a noreturn function) go to the cold
# partition (settle.cold), as -fprofile-use puts them (plugin/hotcold.cc,
# rule statically-rare).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-convert
need_plugin
cd "$TEST_TMP" 2>/dev/null || tmpdir
# A fixed profile, as sfdo-convert wrote it from an emulated recording
# (sfdo-record --emulate -c 49999) of the -O2 build, but for settle's
# head: 30, its entries, where the converter, no sample having fallen in
# settle's entry block, estimated half a sample's worth (8333).  At that
# many entries each path to exit would have been evidence enough by
# itself (plugin/hotcold.cc: SFDO_ZERO_EVIDENCE) and the rule this test
# is for would decide nothing.
P=$TEST_TMP/rare.prof
cat > "$P" <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: shape
# event: instructions:u:emulated period=49999 samples=9726
# tool: sfdo-convert 0.1.0
# samples: used=9726 dropped=2
main:119997600:1
 1: 0
 2: 0
 3.4: 0
 4.3: 0
 4.4: 0
 5.3: 0
 6: 0
 6.3: 59998800
 7.3: 59998800
 8: 0
 9: 0
 10: 0
 !Values: 5.3 callsites settle:1
settle:1799964:30
 1: 0
 2: 0
 3: 0
 5: 0
 5.3: 899982
 6.3: 899982
 7: 0
 8: 0
 10: 0
 !Values: 3 callsites exit:1 fprintf:1
 !Values: 8 callsites exit:1 fprintf:1
PROF
decide_build rare --profile "$P" "$SFDO_ROOT/tests/e2e/data/decide/rare_errors.c" -- -g

cold='^settle(\.[a-z]+\.[0-9]+)*\.cold:'
grep -Eq '^settle:' "$DECIDE_DIR/sfdo.prof" || fail "the profile does not show settle ran"
for v in pgo sfdo; do
  grep -Eq "$cold" "$(decide_asm $v rare_errors.c)" ||
    fail "$v: settle has no cold part (settle.cold)"
done
! grep -Eq "$cold" "$(decide_asm o2 rare_errors.c)" ||
  fail "plain -O2 already splits settle: the test shows nothing"
# settle ran: it stays in .text, its loop in the hot part.
grep -q '^settle:.*:0:0$' "$DECIDE_DIR/sfdo.prof" && fail "settle caught no sample"
awk '/^settle[.a-z0-9]*:/ && !/cold:/ {f=1} /\.cold:/ {f=0} f && /imul/ {found=1}
     END {exit !found}' \
  "$(decide_asm sfdo rare_errors.c)" || fail "sfdo: settle's loop left the hot part"
echo "settle.cold made by PGO and by sfdo, settle's loop kept hot"
