#!/usr/bin/env bash
# 54-decide-function-sections.sh - a function of the profiled binary that
# never ran goes to .text.unlikely and a hot one to .text.hot, as
# -fprofile-use places them; plain -O2 leaves both in .text.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert samplefdo.so
decide_build sections "$SFDO_ROOT/tests/e2e/data/decide/sections.c" -- -g

grep -q '^report_usage:0:0$' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile does not list report_usage as never run"
for v in pgo sfdo; do
  s=$(decide_section $v sections.c report_usage)
  [[ $s == .text.unlikely ]] || fail "$v: report_usage is in '$s', not .text.unlikely"
  s=$(decide_section $v sections.c mix)
  [[ $s == .text.hot ]] || fail "$v: mix is in '$s', not .text.hot"
done
[[ $(decide_section o2 sections.c report_usage) == .text ]] ||
  fail "plain -O2 already moves report_usage: the test shows nothing"
echo "report_usage in .text.unlikely and mix in .text.hot, by PGO and by sfdo"
