#!/usr/bin/env bash
# 101-decide-zero-evidence.sh - how much evidence makes an unsampled arm
# never run (plugin/hotcold.cc, SFDO_ZERO_EVIDENCE: a tenth of a sample).
#
# Two loops, each with an arm that caught no sample and that GCC's own
# estimate does not make rare (an even test), from a hand-written
# profile of retired instructions at a period of 100000.  The arm's block
# has 5 statements; entered as often as its loop ran, it would have
# caught 3000 * 5 / 100000 = 0.15 samples in count_odd, and 1000 * 5 /
# 100000 = 0.05 in count_neg.  The first is evidence enough that the arm
# never ran: count_odd gets a cold part (count_odd.cold), as
# -fprofile-use gives a loop whose arm never ran.  The second is not:
# count_neg stays whole.  At a quarter of a sample (the bound before),
# count_odd stayed whole too.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_plugin
tmpdir
cd "$TEST_TMP"

cat > t.c <<'EOC'
void report (int);

int
count_odd (const int *v, int n)
{
  int odd = 0;
  for (int i = 0; i < n; i++)
    if (v[i] & 1)
      {
        report (v[i]);
        report (v[i] * 3);
        odd++;
      }
  return odd;
}

int
count_neg (const int *v, int n)
{
  int neg = 0;
  for (int i = 0; i < n; i++)
    if (v[i] < 0)
      {
        report (v[i]);
        report (v[i] * 3);
        neg++;
      }
  return neg;
}
EOC
cat > t.prof <<'EOP'
# sfdo-profile: 1
# mode: ip
# event: instructions:u period=100000 samples=20
count_odd:20000:1000
 0: 1000
 2: 1000
 3: 3000
 4: 3000
 5: 0
 6: 0
 7: 0
 10: 1000
count_neg:8000:1000
 0: 1000
 2: 1000
 3: 1000
 4: 1000
 5: 0
 6: 0
 7: 0
 10: 1000
EOP
"$SFDO_GCC" -O2 -g -c t.c -o t.o -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=t.prof -fplugin-arg-samplefdo-dump=t.dump \
  2> t.err || fail "the build failed: $(cat t.err)"
# The arms' blocks (lines 10-12 and 24-26) measured 0 and got no flow, or
# the test is about something else.
for line in 10 24; do
  grep -Eq "^ *bb [0-9]+ lines $line,[0-9,]+ raw 0 smoothed 0 " t.dump ||
    fail "the arm at line $line is not an unsampled block without flow: $(cat t.dump)"
done
objdump -t t.o > t.sym
grep -q ' count_odd\.cold$' t.sym ||
  fail "count_odd's arm (0.15 samples of evidence) did not go cold: $(grep count_ t.sym)"
if grep -q ' count_neg\.cold$' t.sym; then
  fail "count_neg's arm (0.05 samples of evidence) went cold: $(grep count_ t.sym)"
fi
echo "$TEST_NAME: an arm that would have caught 0.15 samples went cold, one of 0.05 did not"
