#!/usr/bin/env bash
# 65-decide-memsize.sh - memcpy and memset of a frequent size are
# specialised for it ("Transformation done: single value 24 stringop"),
# as -fprofile-use specialises them, from size histograms the converter
# reads off the registers sampled before the call.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build memsize --record "$(decide_recording regs)" \
  "$SFDO_ROOT/tests/e2e/data/decide/memsize.c" -- -g -fdump-ipa-profile-optimized

done_for() {
  grep -c "Transformation done: single value 24 stringop for BUILT_IN_$2" \
    "$(decide_dump "$1" memsize.c profile)" || true
}
for op in MEMCPY MEMSET; do
  (( $(done_for pgo $op) == 1 )) || fail "PGO did not specialise $op for size 24"
  (( $(done_for sfdo $op) == 1 )) ||
    fail "sfdo did not specialise $op for size 24: $(grep '!Values' "$DECIDE_DIR/sfdo.prof" | cut -c1-200)"
done
echo "memcpy and memset specialised for size 24 by PGO and by sfdo"
