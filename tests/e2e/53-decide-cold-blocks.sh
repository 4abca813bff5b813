#!/usr/bin/env bash
# 53-decide-cold-blocks.sh - blocks that never ran go to the cold partition
# (checksum.cold in .text.unlikely), as -fprofile-use puts them, and a
# block that ran, or that the profile cannot see, never does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
cd "$TEST_TMP" 2>/dev/null || tmpdir
decide_build coldpath "$SFDO_ROOT/tests/e2e/data/decide/coldpath.c" -- -g

# checksum or its clone (checksum.constprop.0) has a cold part.
cold='^checksum(\.[a-z]+\.[0-9]+)*\.cold:'
for v in pgo sfdo; do
  grep -Eq "$cold" "$(decide_asm $v coldpath.c)" ||
    fail "$v: checksum has no cold part (checksum.cold)"
done
! grep -Eq "$cold" "$(decide_asm o2 coldpath.c)" ||
  fail "plain -O2 already splits checksum: the test shows nothing"
grep -q '[1-9][0-9]* blocks never ran' "$DECIDE_DIR/sfdo/plugin.err" ||
  fail "the plugin reports no block that never ran: $(cat "$DECIDE_DIR/sfdo/plugin.err")"
# The loop body ran: it stays in the hot part, before checksum.cold.
awk '/^checksum[.a-z0-9]*:/ && !/cold:/ {f=1} /\.cold:/ {f=0} f && /imul/ {found=1}
     END {exit !found}' \
  "$(decide_asm sfdo coldpath.c)" || fail "sfdo: the hot loop left the hot part"
echo "checksum.cold made by PGO and by sfdo"

# A block whose line the profile does not hold at all had no code of its
# own in the profiled binary: its zero is no evidence.  The profile
# (fixed: settle's lines as a recording gives them, but for the call to
# weigh, as if the profiled binary had merged it away) leaves the flow
# free to send nothing through the call; taking that for a block that
# never ran put the call in settle.cold, where Lua's propagatemark lost
# the case blocks of its inlined getgclist.  PGO runs it on half of the
# iterations and keeps it hot.
U=$TEST_TMP/unmeasured.prof
cat > "$U" <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=5000
# tool: sfdo-convert 0.1.0
# samples: used=5000 dropped=0
settle:9000004:1
 2: 1
 3: 1000000
 3.1: 1000000
 3.2: 1000000
 5: 1000000
 6: 1000000
 7: 1000000
 10: 1
weigh:1000000:500000
 2: 500000
PROF
decide_build unmeasured --profile "$U" \
  "$SFDO_ROOT/tests/e2e/data/decide/unmeasured.c" -- -g
for v in pgo sfdo; do
  awk '/^settle[.a-z0-9]*:/ && !/cold:/ {f=1} /\.cold:/ {f=0}
       f && /call[ \t]+weigh/ {found=1} END {exit !found}' \
    "$(decide_asm $v unmeasured.c)" ||
    fail "$v: the call to weigh, which ran, is not in settle's hot part"
done
echo "a block the profile does not measure stays out of settle.cold, as with PGO"

# A recording (kept from a run where this test failed) whose head count
# for checksum, from two samples, is above what main's calls make, and
# whose loop test caught two samples more than the loop body.  The flow
# sent that excess out through the abort () (measured at zero, like the
# return): the error path ran by the first annotation, and the block,
# given flow, was not found never run.  Every annotation must leave it
# at zero.
X=$TEST_TMP/excess.prof
cat > "$X" <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: shape
# event: instructions:u:emulated period=49999 samples=32782
# tool: sfdo-convert 0.1.0
# samples: used=32782 dropped=2
checksum:614492319:86857
 0: 0
 2: 86857
 3: 204786568
 5: 204832326
 8: 0
 9: 0
 11: 0
 13: 204786568
 15: 0
 16: 0
main:67074:1
 1: 0
 2: 0
 3: 0
 6: 0
 6.3: 33537
 7.3: 33537 checksum:33537
 8: 0
 9: 0
 10: 0
PROF
dump=$(decide_block_dump "$X" "$SFDO_ROOT/tests/e2e/data/decide/coldpath.c")
grep -q '^function checksum' "$dump" || fail "no annotation of checksum in $dump"
# The abort () is line 20 of coldpath.c; its block must be there to be
# judged, or the check would pass on nothing.
seen=$(awk '/^function / {f = ($2 == "checksum")}
            f && / lines ([0-9]+,)*20(,[0-9]+)* / {n++} END {print n + 0}' "$dump")
((seen >= 1)) || fail "no block of checksum holds line 20 (the abort ()): $(grep -A9 '^function checksum' "$dump")"
awk '/^function / {f = ($2 == "checksum")}
     f && / lines ([0-9]+,)*20(,[0-9]+)* / && !/ final 0 / {bad = 1}
     END {exit bad}' "$dump" ||
  fail "the abort () path of checksum has flow: $(grep -A9 '^function checksum' "$dump")"
echo "a head count above the calls' does not leave through the abort () path"
