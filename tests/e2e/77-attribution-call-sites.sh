#!/usr/bin/env bash
# 77-attribution-call-sites.sh - a call the profiled binary inlined takes
# its count from the inline instance (its own line often caught no sample:
# the callee's code did), and the instance is found by the call's own
# discriminator: two calls of one function on one line, in blocks of
# discriminators 1 and 2, get their own instances' counts.  Where the
# profile kept no discriminators for the function, the line's count may
# be another block's (the test before the call): an instance that caught
# nothing makes the call block 0, not the line's count.  And an instance
# of another function on the line is not the instance of a call the line
# records as made out of line: replay leaves that call alone, while it
# still takes that instance where the line records no such call (what
# identical-code folding leaves: the inlined twin under another name).  Profiles
# are written by hand, so the counts are known; -fno-inline keeps the
# calls of the first two.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_plugin
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
"$SFDO_GCC" -O2 -g -fno-inline -fplugin="$SFDO_BUILD/samplefdo.so" \
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

# 'if (v < 0) fail_out (p)': the line's 10000 is the test's; the inlined
# fail_out caught nothing.
cat > e.c <<'EOC'
void fail_out (int *p);
int get (int *p) {
  int v = *p;
  if (v < 0) fail_out (p);
  return v + 1;
}
EOC
cat > e.prof <<'EOP'
# sfdo-profile: 1
get:30000:10000
 1: 10000
 2: 10000
 2: fail_out:0
  0: 0
 3: 10000
EOP
"$SFDO_GCC" -O2 -g -fno-inline -c e.c -o e.o -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=e.prof -fplugin-arg-samplefdo-dump=e.dump \
  2> e.err || fail "build failed: $(cat e.err)"
call_raw=$(awk '/^function get$/ {f=1; next} /^function/ {f=0}
                f && $4 == "4" && $NF == "1" {print $6}' e.dump)
[[ $call_raw == 0 ]] ||
  fail "fail_out's call block measured '$call_raw', not its instance's 0: $(cat e.dump)"

# 'return mix (triple (x))': triple's instance is the line's only one, and
# the line records mix called out of line.  run3 has the same line
# without that record: there the lone instance stands for mix, and replay
# inlines it (which also shows replay ran at all).
cat > f.c <<'EOC'
void sink (int);
static int triple (int x) { return x * 3; }
static int mix (int x) {
  int h = x;
  for (int i = 0; i < 8; i++)
    {
      h = h * 31 + (h >> 7) + i;
      if (h & 1) sink (h); else sink (h + 3);
      if (h & 2) sink (h ^ 5); else sink (h - 9);
      if (h & 4) sink (h * 7); else sink (h / 3);
      if (h & 8) sink (h % 11); else sink (h << 2);
    }
  return h;
}
int run (int x) { return mix (triple (x)); }
int run2 (int x) { return mix (x + 1) ^ mix (x + 2); }
int run3 (int x) { return mix (triple (x + 5)); }
EOC
cat > f.prof <<'EOP'
# sfdo-profile: 1
run:15000:5000
 0: 5000 mix:5000
 0: triple:5000
  0: 5000
run3:15000:5000
 0: 5000
 0: triple:5000
  0: 5000
EOP
"$SFDO_GCC" -O2 -g -c f.c -o f.o -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=f.prof -fopt-info-optimized 2> f.err ||
  fail "build failed: $(cat f.err)"
if grep -q 'samplefdo: inlining mix[^ ]* into run/' f.err; then
  fail "replay inlined mix, which the profile records called out of line: $(grep samplefdo f.err)"
fi
grep -q 'samplefdo: inlining mix[^ ]* into run3/' f.err ||
  fail "replay did not inline mix into run3 from the line's lone instance: $(cat f.err)"
echo "an instance that caught nothing makes its call 0 where the line's count is all the profile has;" \
     "another function's instance on the line is not replayed for mix, unless the line records no call of mix"
