#!/usr/bin/env bash
# 98-decide-values-confidence.sh - a value histogram reaches GCC where its
# samples make the leading value's majority likely (plugin/values.cc:
# Wilson's lower bound at 90% of its share is half or more), whatever the
# number of samples: GCC's own test (the divisor of half the divisions or
# more) is meant for exact counts.  A hand-written profile of one function
# with two divisions:
#   x / y   3 samples, all divisor 7          -> specialised for 7
#   z / w   8 samples, 5 divisor 5, 3 divisor 9 -> left alone (62% shown,
#           but its 90% lower bound under half); with 6 of 8, specialised
# A flat minimum of 8 samples, as before, did the opposite of both.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_plugin
tmpdir
cd "$TEST_TMP"

cat > v.c <<'EOC'
__attribute__((noinline)) unsigned f (unsigned x, unsigned y, unsigned z, unsigned w)
{
  unsigned r = x / y;
  return r + z / w;
}
int main (int argc, char **argv)
{
  unsigned s = 0;
  for (unsigned i = 0; i < 10000; i++)
    s += f (i, 7, i, (unsigned) argc + 4);
  volatile unsigned sink = s + (argv == 0);
  (void) sink;
  return 0;
}
EOC
# One sample stands for 1000 instructions (the event's period).
cat > v.prof <<'EOP'
# sfdo-profile: 1
# event: instructions:u period=1000 samples=40
f:40000:10000
 0: 10000
 2: 10000
 3: 10000
 !Values: 2 divmod 7:3000
 !Values: 3 divmod 5:5000 9:3000
EOP
"$SFDO_GCC" -O2 -g v.c -o v -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=v.prof -fopt-info-optimized 2> v.err ||
  fail "build failed: $(cat v.err)"
grep -q 'v.c:3:.*Transformation done: div/mod by constant 7' v.err ||
  fail "x / y, 3 samples all of divisor 7, was not specialised: $(grep -i transformation v.err)"
if grep -q 'v.c:4:.*Transformation done: div/mod' v.err; then
  fail "z / w was specialised on 5 samples of 8: $(grep -i transformation v.err)"
fi
# The second histogram is found: 6 divisors 5 of 8 make the majority
# likely, and the division is specialised.
sed 's/ 3 divmod 5:5000 9:3000/ 3 divmod 5:6000 9:2000/' v.prof > v6.prof
"$SFDO_GCC" -O2 -g -c v.c -o v6.o -fplugin="$SFDO_BUILD/samplefdo.so" \
  -fplugin-arg-samplefdo-profile=v6.prof -fopt-info-optimized 2> v6.err ||
  fail "build failed: $(cat v6.err)"
grep -q 'v.c:4:.*Transformation done: div/mod by constant 5' v6.err ||
  fail "z / w, 6 samples of 8 of divisor 5, was not specialised: $(grep -i transformation v6.err)"
./v || fail "the program failed"
echo "$TEST_NAME: 3 samples all alike specialise a division; 5 of 8 do not, 6 of 8 do"
