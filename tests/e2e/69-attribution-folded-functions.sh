#!/usr/bin/env bash
# 69-attribution-folded-functions.sh - functions the profiled binary
# folded into one body (identical code folding: sum_often and sum_rare
# have the same code, and the -O2 binary keeps one body, named sum_rare,
# for both) do not hand each other their samples: the body's samples
# come from sum_often's calls, so sum_often is hot and sum_rare, which no
# call reached, is not (PGO puts it in .text.unlikely; it must at least
# not be .text.hot), and the program still prints what -O2 prints.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
# The builds compared keep the two functions apart (-fno-ipa-icf, and no
# constant-propagation clones) so that each is placed on its own; the
# profiled build folds them, as -O2 does.
decide_build icf --profiled "-fipa-icf -fipa-cp" \
  "$SFDO_ROOT/tests/e2e/data/decide/icf.c" -- -g -fno-ipa-icf -fno-ipa-cp

addr() { nm "$DECIDE_DIR/profiled/prog" | awk -v f="$1" '$3 == f {print $1}'; }
[[ -n $(addr sum_often) && $(addr sum_often) == "$(addr sum_rare)" ]] ||
  fail "the profiled binary kept both functions apart: nothing was folded"
grep -q '^sum_rare:0:0$' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile gives sum_rare samples: $(grep '^sum_' "$DECIDE_DIR/sfdo.prof")"
section() { decide_section "$1" icf.c "$2"; }
for v in pgo sfdo; do
  [[ $(section $v sum_often) == .text.hot ]] ||
    fail "$v: sum_often is in '$(section $v sum_often)', not .text.hot"
  [[ $(section $v sum_rare) != .text.hot ]] ||
    fail "$v: sum_rare, never called, is in .text.hot"
done
echo "sum_often hot, sum_rare not (PGO: $(section pgo sum_rare); sfdo: $(section sfdo sum_rare))"
