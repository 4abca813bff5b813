#!/usr/bin/env bash
# 66-decide-consistency.sh - the plugin's counts add up: the plugin's own
# check (in-edges and out-edges of every block against its count, with
# GCC's tolerance) finds nothing, and no dump where GCC looks for it
# reports an "Invalid sum" (of a block's in-edges or out-edges, of a
# function's callers) with sfdo's profile where it reports none at plain
# -O2 and none with -fprofile-use: every IPA dump, which shows the counts
# as the plugin left them (and cross-function ones: a function's entry
# against the calls into it), and the dumps GCC's own profile tests scan
# (dom2, switchlower1, tailc, optimized).  The loop optimizers' dumps in
# between are left out: their count updates (header copying, unswitching)
# leave sums of their own on counts that add up, when trip counts are low
# and entry counts were sampled rather than counted.
# Needs exact instruction samples (the emulated PMU): a timer's trip
# counts are off by factors.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert samplefdo.so
decide_need_emulator
D=$SFDO_ROOT/tests/e2e/data/decide
dumps=(-fdump-ipa-all-blocks-details -fdump-tree-dom2-blocks-details
       -fdump-tree-switchlower1-blocks-details -fdump-tree-tailc-blocks-details
       -fdump-tree-optimized-blocks-details)
bad=
for prog in consistency coldpath peel; do
  decide_build "$prog" "$D/$prog.c" -- -g "${dumps[@]}"
  grep -q 'blocks whose edge counts do not add up' "$DECIDE_DIR/sfdo/plugin.err" &&
    bad+=" $prog: the plugin's own check: $(grep 'do not add up' "$DECIDE_DIR/sfdo/plugin.err");"
  for f in "$DECIDE_DIR"/sfdo/"$prog".c.[0-9][0-9][0-9][it].*; do
    pass=${f##*/}
    n=$(grep -c 'Invalid sum' "$f" || true)
    (( n > 0 )) || continue
    o=$(grep -c 'Invalid sum' "$DECIDE_DIR/o2/$pass" 2>/dev/null || true)
    p=$(grep -c 'Invalid sum' "$DECIDE_DIR/pgo/$pass" 2>/dev/null || true)
    (( ${o:-0} > 0 || ${p:-0} > 0 )) || bad+=" $pass: $n;"
  done
done
[[ -z $bad ]] || fail "passes report invalid sums that -O2 and PGO do not:$bad"
echo "no pass reports an invalid sum of counts that -O2 or PGO does not"
