#!/usr/bin/env bash
# 88-decide-shared-line-calls.sh - a call that never ran, on the line of a
# test that ran all the time (a macro expanded there), does not take the
# test's count: its callee, which caught no sample, stays in
# .text.unlikely and the call's block goes cold, as -fprofile-use places
# them.  Plain -O2 leaves the callee in .text.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
SRC=$SFDO_ROOT/tests/e2e/data/decide/shared_line_call.c

check_sections() {   # WHAT: report_tally where PGO puts it, by sfdo too
  local v s
  for v in pgo sfdo; do
    s=$(decide_section $v shared_line_call.c report_tally)
    [[ $s == .text.unlikely ]] ||
      fail "$1: $v: report_tally is in '$s', not .text.unlikely"
  done
  [[ $(decide_section o2 shared_line_call.c report_tally) == .text ]] ||
    fail "$1: plain -O2 already moves report_tally: the test shows nothing"
}

# Recorded: GCC gave the call its own discriminator, and the profile
# counts it apart from the test.
decide_build shared "$SRC" -- -g
grep -q '^report_tally:0:0$' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile does not list report_tally as never run"
check_sections recorded
echo "recorded: report_tally in .text.unlikely by PGO and by sfdo"

# main's first block calls start_tally, which ran once and caught no
# sample: entered once, the block is no evidence that the call never
# ran, and main keeps its entry (the plugin's block dump).
if grep -q '^start_tally:0:0$' "$DECIDE_DIR/sfdo.prof"; then
  blocks=$(decide_block_dump "$DECIDE_DIR/sfdo.prof" "$SRC")
  entry=$(awk '$0 == "function main" { m = 1; next } /^function / { m = 0 }
               m && $1 == "bb" && $2 == 0 && $9 == "final" { e = $10 }
               END { print e }' "$blocks")
  [[ $entry == 1 ]] || fail "main's entry count is '$entry', not 1"
  echo "recorded: main, whose first block calls the unsampled start_tally, entered once"
else
  skip_main_entry="start_tally caught a sample in this recording: main's entry check could not run"
fi

# The profiled binary's line table may not tell the two apart (SQLite's
# checkProfileCallback in sqlite3_step: one line, one discriminator),
# and the call's block then reads the test's count.  A fixed profile
# holds the counts that way: report_tally, which caught no sample, was
# not called 30 million times.
P=$TEST_TMP/shared.prof
cat > "$P" <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=6000
# tool: sfdo-convert 0.1.0
# samples: used=6000 dropped=0
step:240000000:30000000
 1: 30000000
 2: 30000000
 3: 30000000
 4: 30000000
 5: 30000000
 6: 30000000
 7: 30000000
main:60000000:1
 4: 1
 5: 1
 6: 1
 6.3: 30000000
 7.3: 30000000 step:30000000
 8: 1
 9: 1
 10: 1
report_tally:0:0
start_tally:0:0
PROF
decide_build fixed --profile "$P" "$SRC" -- -g
check_sections "one line"
grep -q ': 1 blocks never ran, 2 functions never ran' \
  "$DECIDE_DIR/sfdo/plugin.err" ||
  fail "the call's block is not taken as never run: $(grep 'never ran' "$DECIDE_DIR/sfdo/plugin.err")"
echo "one line: report_tally in .text.unlikely and its call never run, by sfdo as by PGO"

# A body whose lines caught nothing, entered 30 million times by its
# caller's count, is shaped by GCC's estimate; the call in it is judged on
# that shape.
N=$TEST_TMP/nolines.prof
cat > "$N" <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=6000
# tool: sfdo-convert 0.1.0
# samples: used=6000 dropped=0
step:0:30000000
main:60000000:1
 7.3: 30000000 step:30000000
report_tally:0:0
start_tally:0:0
PROF
decide_build nolines --profile "$N" "$SRC" -- -g
check_sections "no lines"
echo "no lines: report_tally in .text.unlikely, by sfdo as by PGO"
[[ -z ${skip_main_entry:-} ]] || skip "the other checks passed; $skip_main_entry"
