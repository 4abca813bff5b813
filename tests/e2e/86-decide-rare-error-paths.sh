#!/usr/bin/env bash
# 86-decide-rare-error-paths.sh - in a function that ran too few times
# for sampling to show which of its blocks never ran, the paths GCC's own
# estimate makes rare (calls of a noreturn function) go to the cold
# partition (settle.cold), as -fprofile-use puts them (plugin/hotcold.cc).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
cd "$TEST_TMP" 2>/dev/null || tmpdir
decide_build rare "$SFDO_ROOT/tests/e2e/data/decide/rare_errors.c" -- -g

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
