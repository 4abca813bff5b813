#!/usr/bin/env bash
# 59-decide-icall.sh - an indirect call with a dominant target is promoted
# to a direct call of that target, as -fprofile-use promotes it (GCC's
# "Indirect call -> direct call" in the profile pass's dump).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
decide_build icall --record "$(decide_recording lbr)" \
  --profiled -fno-omit-frame-pointer \
  "$SFDO_ROOT/tests/e2e/data/decide/icall.c" -- -g -fdump-ipa-profile-optimized

promoted() { grep -c 'Indirect call -> direct call.* => op_mix ' "$(decide_dump "$1" icall.c profile)" || true; }
(( $(promoted pgo) >= 1 )) || fail "PGO did not promote the call to op_mix"
(( $(promoted sfdo) >= 1 )) ||
  fail "sfdo did not promote the call to op_mix"
grep -q '!Values: .*icall op_mix:' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile has no indirect-call histogram led by op_mix"
echo "the indirect call is promoted to op_mix by PGO and by sfdo"
