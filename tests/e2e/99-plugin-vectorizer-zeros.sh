#!/usr/bin/env bash
# 99-plugin-vectorizer-zeros.sh - GCC 12's vectorizer must not divide by
# a zero count.  vect_do_peeling scales each block of a loop's scalar
# epilogue by its count over its count times 0.9; for a zero that is not
# PRECISE (the plugin's AFDO zero: "low, but not never executed") the two
# differ in quality and profile_count::apply_scale divides by zero: cc1
# died of SIGFPE on bzip2's huffman.c with a timer recording (e2e 80).
# The plugin's pass before "vect" makes such zeros GUESSED
# (plugin/counts.cc).
#
# A loop into a local array (no alias check, so the vectorizer may skip
# to the epilogue) whose one arm a hand-written profile says never ran,
# with too few samples for the zero to be believed.  The build must
# succeed and the loop be vectorized, with every GCC.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_plugin
tmpdir
cd "$TEST_TMP"

cat > t.c <<'EOC'
void consume (const int *w, int n);

void
scale_counts (const int *in, int n)
{
  int w[600];
  for (int i = 0; i < n; i++)
    w[i + 1] = (in[i] == 0 ? 1 : in[i]) << 8;
  consume (w, n);
}
EOC
cat > t.prof <<'EOP'
# sfdo-profile: 1
# mode: ip
# mode: shape
# event: cpu-clock:u period=50001 samples=3
scale_counts:100000:20
 0: 20
 3: 1111
 4: 1111
 4.1: 0
 5: 20
 6: 20
EOP
rc=0
"$SFDO_GCC" -O2 -g -c t.c -o t.o -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=t.prof -fplugin-arg-samplefdo-dump=t.dump \
  -fplugin-arg-samplefdo-verbose -fopt-info-vec-optimized 2> t.err || rc=$?
if grep -q 'internal compiler error' t.err; then
  fail "cc1 crashed: $(grep -m1 'internal compiler error' t.err)"
fi
((rc == 0)) || fail "the build failed: $(head -5 t.err)"
grep -Eq '^ *bb [0-9]+ lines 8 raw 0 smoothed 0 final 0' t.dump ||
  fail "the profile did not give the loop's arm a zero count: $(cat t.dump)"
grep -q 't.c:7:.*loop vectorized' t.err ||
  fail "the loop was not vectorized, so the test shows nothing: $(cat t.err)"
# The guard is GCC 12's: from GCC 13 on the vectorizer scales without
# dividing by such a zero, and the plugin registers no pass for it.
if [[ $("$SFDO_GCC" -dumpversion) == 12* ]]; then
  grep -Eq '[1-9][0-9]* zero counts of blocks made GUESSED before the vectorizer' t.err ||
    fail "the plugin changed no zero count before the vectorizer: $(cat t.err)"
else
  ! grep -q 'made GUESSED before the vectorizer' t.err ||
    fail "the plugin guarded the vectorizer of $SFDO_GCC, which needs no guard"
fi
echo "$TEST_NAME: a loop with a zero-count arm vectorized without a crash"
