#!/usr/bin/env bash
# 62-decide-virtual-call.sh - a C++ virtual call with a dominant receiver
# class is devirtualised speculatively (ipa-profile's "Indirect call ->
# speculative call" of Square::weigh), as -fprofile-use does it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
decide_build virtual --cxx --record "$(decide_recording lbr)" \
  "$SFDO_ROOT/tests/e2e/data/decide/virtual.cc" -- -g \
  -fdump-ipa-profile_estimate

speculated() {
  grep -c 'Indirect call -> speculative call .*Square::weigh' \
    "$(decide_dump "$1" virtual.cc profile_estimate)" || true
}
(( $(speculated o2) == 0 )) || fail "plain -O2 already speculates: the test shows nothing"
(( $(speculated pgo) >= 1 )) || fail "PGO did not devirtualise the call"
(( $(speculated sfdo) >= 1 )) || fail "sfdo did not devirtualise the call to Square::weigh"
echo "the virtual call is devirtualised to Square::weigh by PGO and by sfdo"
