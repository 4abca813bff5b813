#!/usr/bin/env bash
# 77-attribution-call-sites.sh - a call the profiled binary inlined takes
# its count from the inline instance (its own line often caught no sample:
# the callee's code did), and the instance is found by the call's own
# discriminator: two calls of one function on one line, in blocks of
# discriminators 1 and 2, get their own instances' counts.  Profiles are
# written by hand, so the counts are known; -fno-inline keeps the calls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built samplefdo.so
tmpdir
cd "$TEST_TMP"
cat > d.c <<'EOC'
__attribute__ ((noinline)) int twice (int x) { return x * 2 + 1; }
int pick (int c, int a, int b) { return c ? twice (a) : twice (b); }
int main (int argc, char **argv) { (void) argv; return pick (argc > 1, 3, 4) & 1; }
EOC
# pick's calls are on its declaration line (offset 0): discriminator 1
# for twice (a), 2 for twice (b).  The line has no count of its own.  The
# header line makes the discriminators sfdo's (without it the text is read
# as LLVM's, whose base discriminators are encoded).
cat > d.prof <<'EOP'
# sfdo-profile: 1
pick:16000:8000
 0.1: twice:6000
  0: 6000
 0.2: twice:2000
  0: 2000
EOP
gcc -O2 -g -fno-inline -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=d.prof -fplugin-arg-samplefdo-no-inline \
  -fplugin-arg-samplefdo-dump=d.dump -fplugin-arg-samplefdo-verbose \
  -fdump-tree-optimized-lineno d.c -o d 2> d.err || fail "build failed: $(cat d.err)"
grep -q ' 2 call counts from inline instances' d.err ||
  fail "the calls did not take their counts from the instances: $(cat d.err)"
# The dump lists each block's lines and raw (measured) count.
raws=$(awk '/^function pick$/ {f=1; next} /^function/ {f=0}
            f && $4 == "2" && $6 >= 0 {print $6}' d.dump | sort -n | paste -sd' ')
[[ $raws == "2000 6000" ]] ||
  fail "the two call blocks measured '$raws', not 2000 and 6000: $(cat d.dump)"
echo "each call takes its own instance's count: $raws"
