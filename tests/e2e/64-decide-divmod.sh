#!/usr/bin/env bash
# 64-decide-divmod.sh - divisions by a frequent value are specialised
# (GCC's "Transformation done: div/mod by constant N"), as -fprofile-use
# specialises them, from divisor histograms the converter reads off the
# registers sampled at the division.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build divmod --record "$(decide_recording regs)" \
  "$SFDO_ROOT/tests/e2e/data/decide/divmod.c" -- -g -fdump-ipa-profile-optimized

done_for() { grep -c "Transformation done: div/mod by constant $2\$" "$(decide_dump "$1" divmod.c profile)" || true; }
for c in 7 64; do
  (( $(done_for pgo $c) == 1 )) || fail "PGO did not specialise the division by $c"
  (( $(done_for sfdo $c) == 1 )) ||
    fail "sfdo did not specialise the division by $c: $(grep '!Values' "$DECIDE_DIR/sfdo.prof")"
done
echo "divisions by 7 and by 64 specialised by PGO and by sfdo"
