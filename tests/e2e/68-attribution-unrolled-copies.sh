#!/usr/bin/env bash
# 68-attribution-unrolled-copies.sh - copies of a line add up (Chen et al.
# 6.2.2): the profiled binary is built with -funroll-loops, so the loop
# body of weigh() exists eight times over (in one block, and in the
# remainder's copies), each running an eighth of the iterations.  The
# body line's count must be the iterations (5000 rounds of 4096), as
# exact instruction samples measure them; taking the largest copy (the
# old rule, --line-vote=max) gives an eighth.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
decide_need_emulator
tmpdir
cd "$TEST_TMP"
src=$SFDO_ROOT/tests/e2e/data/decide/unrolled.c
"$SFDO_GCC" -O2 -g -funroll-loops -fno-tree-vectorize "$src" -o unrolled
"$DECIDE_RECORDER" -q --emulate -c 49999 -o perf.data -- ./unrolled > /dev/null
body=$(( $(grep -n 's += v\[i\]' "$src" | cut -d: -f1) - $(grep -n '^weigh ' "$src" | cut -d: -f1) ))
want=$((5000 * 4096))
# line_count PROFILE: the largest count of the body line in weigh's
# profile, over its discriminators.
line_count() {
  awk -v off="$body" '/^weigh:/ {f=1; next} /^[^ ]/ {f=0}
       f && $1 ~ "^" off "(\\.[0-9]+)?:$" && $2 > n {n = $2}
       END {print n + 0}' "$1"
}
for vote in blocks max; do
  "$SFDO_BUILD/sfdo-convert" -q --line-vote=$vote -o $vote.prof perf.data unrolled
done
got=$(line_count blocks.prof) old=$(line_count max.prof)
[[ -n $got && -n $old ]] || fail "no count for the loop body (line offset $body): $(cat blocks.prof)"
awk -v g="$got" -v w="$want" 'BEGIN {exit !(g > 0.8 * w && g < 1.2 * w)}' ||
  fail "the unrolled body counts $got, not about $want"
awk -v o="$old" -v w="$want" 'BEGIN {exit !(o < 0.4 * w)}' ||
  fail "the largest copy alone counts $old: the test shows nothing"
echo "unrolled body: $got (iterations $want; largest copy alone $old)"
