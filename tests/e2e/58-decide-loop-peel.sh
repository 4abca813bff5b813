#!/usr/bin/env bash
# 58-decide-loop-peel.sh - a loop that always runs 2 or 3 times is peeled
# from the trip count the profile implies, as -fprofile-use peels it;
# plain -O2 keeps the loop.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
decide_build peel "$SFDO_ROOT/tests/e2e/data/decide/peel.c" -- -g \
  -fdump-tree-cunroll-details

peeled() { grep -Eo 'Peeled loop [0-9]+, [0-9]+ times' "$(decide_dump "$1" peel.c cunroll)" || true; }
[[ -z $(peeled o2) ]] || fail "plain -O2 peels: the test shows nothing"
[[ -n $(peeled pgo) ]] || fail "PGO did not peel"
# A clone (ipa-cp specialises sum_small for its constant n where the
# profile makes the call hot) peels its own copy of the loop: the same
# loop number, once per function.
p=$(peeled pgo | cut -d, -f1 | sort -u) s=$(peeled sfdo | cut -d, -f1 | sort -u)
[[ -n $s && $s == "$p" ]] || fail "sfdo peeled '$(peeled sfdo)', PGO '$(peeled pgo)'"
echo "PGO: $(peeled pgo); sfdo: $(peeled sfdo)"
