#!/usr/bin/env bash
# 63-decide-icall-cross-file.sh - an indirect call whose dominant target
# is defined in another file is promoted at link time under -flto (the
# histogram names it by the profile id GCC gives it in its own unit), as
# -fprofile-use promotes it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
D=$SFDO_ROOT/tests/e2e/data/decide
decide_build xtu --record "$(decide_recording lbr)" \
  "$D/xtu_main.c" "$D/xtu_ops.c" -- -g -flto -fdump-ipa-profile_estimate

speculated() {
  local d=("$DECIDE_DIR/$1"/prog.wpa.[0-9][0-9][0-9]i.profile_estimate)
  [[ -f ${d[0]} ]] || fail "$1: no link-time profile_estimate dump"
  grep -c 'Indirect call -> speculative call .*rotate_add' "${d[0]}" || true
}
(( $(speculated o2) == 0 )) || fail "plain -O2 -flto already speculates: the test shows nothing"
(( $(speculated pgo) >= 1 )) || fail "PGO did not promote the call to rotate_add"
(( $(speculated sfdo) >= 1 )) || fail "sfdo did not promote the call to rotate_add across files"
echo "the cross-file indirect call is promoted to rotate_add by PGO and by sfdo (-flto)"
