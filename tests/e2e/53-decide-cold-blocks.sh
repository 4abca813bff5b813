#!/usr/bin/env bash
# 53-decide-cold-blocks.sh - blocks that never ran go to the cold partition
# (checksum.cold in .text.unlikely), as -fprofile-use puts them, and a
# block that ran never does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert samplefdo.so
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
