#!/usr/bin/env bash
# 78-plugin-positions.sh - the plugin's reports and value histograms sit
# where they belong (issue #15's review):
#   (a) a stale profile's warning (under verbose) points at the
#       function's declaration, not at the end of the unit;
#   (b) two divisions on one line, in blocks of discriminators 1 and 2,
#       each take the histogram of their own discriminator: swapping the
#       histograms in the profile swaps the constants GCC specialises;
#   (c) dump=FILE appends: two compiles leave both units' blocks;
#   (d) a block whose discriminator the profile lacks is unmeasured where
#       the function's profile has discriminators, and takes the line's
#       count where it has none;
#   (e) a block measured zero that runs as often as a block measured
#       running takes that count rather than the flow zeroing both.
# Profiles are written by hand, so every count is known.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_plugin
tmpdir
cd "$TEST_TMP"
PLUGIN=(-fplugin="$SFDO_BUILD/samplefdo.so")

# (a) f's profile names lines it does not have.
cat > stale.c <<'EOC'
int g;

int f (int x)
{
  return x + g;
}
EOC
cat > stale.prof <<'EOP'
# sfdo-profile: 1
f:100000:10
 20: 50000
 21: 50000
EOP
"$SFDO_GCC" -O2 -g -c stale.c -o stale.o "${PLUGIN[@]}" -fplugin-arg-samplefdo-verbose \
  -fplugin-arg-samplefdo-profile=stale.prof 2> stale.err ||
  fail "the stale profile failed the build: $(cat stale.err)"
grep -q "^stale.c:3:5: warning: samplefdo: the profile of .f. does not fit its body" stale.err ||
  fail "the stale-profile warning is not at f's declaration (stale.c:3:5): $(cat stale.err)"

# (b) c ? a / b : a / d on one line: the divisions are in blocks of
# discriminators 1 and 2 (the condition's block has 0, the join 4), each
# run half the time.
cat > div.c <<'EOC'
__attribute__ ((noinline)) unsigned pick (int c, unsigned a, unsigned b, unsigned d) { return c ? a / b : a / d; }
int main (int argc, char **argv) { (void) argv; return (int) pick (argc, 100, 3, 8); }
EOC
profile() {   # DISC1-DIVISOR DISC2-DIVISOR
    cat <<EOP
# sfdo-profile: 1
pick:30000:10000
 0: 10000
 0.1: 5000
 0.2: 5000
 0.4: 10000
 !Values: 0.1 divmod $1:5000
 !Values: 0.2 divmod $2:5000
EOP
}
specialised() {   # PROFILE: the constants GCC specialised, in line order
    "$SFDO_GCC" -O2 -g -c div.c -o div.o "${PLUGIN[@]}" \
      -fplugin-arg-samplefdo-profile="$1" -fplugin-arg-samplefdo-no-inline \
      -fdump-ipa-profile-optimized=div.dump 2> div.err ||
      fail "the build with $1 failed: $(cat div.err)"
    grep -o 'div/mod by constant [0-9]*' div.dump | awk '{print $4}' | paste -sd' '
}
profile 3 8 > div38.prof
profile 8 3 > div83.prof
s38=$(specialised div38.prof)
s83=$(specialised div83.prof)
[[ $(tr ' ' '\n' <<<"$s38" | sort -n | paste -sd' ') == "3 8" ]] ||
  fail "the histograms at discriminators 1 and 2 gave '$s38', not 3 and 8"
[[ $s38 != "$s83" ]] ||
  fail "swapping the histograms of discriminators 1 and 2 changed nothing ('$s38'): the discriminator is not used"

# (c)
rm -f both.dump
for unit in stale:stale div:div38; do
  "$SFDO_GCC" -O2 -g -c "${unit%%:*}.c" -o unit.o "${PLUGIN[@]}" \
    -fplugin-arg-samplefdo-profile="${unit##*:}.prof" \
    -fplugin-arg-samplefdo-dump=both.dump 2>/dev/null
done
grep -q '^function f$' both.dump && grep -q '^function pick$' both.dump ||
  fail "dump=FILE did not keep both units: $(grep '^function' both.dump | paste -sd' ')"

# (d) A block whose discriminator the profile lacks: where the
# function's profile has discriminators (the profiled binary told blocks
# apart), it had no code of its own there, and the block is unmeasured
# (raw -1), not given the line's largest count; where the profile holds
# none for the function (a line table that kept no discriminators), every
# block of the line takes the line's count.
raw_by_disc() {   # PROFILE: "disc:raw" of pick's blocks on line 1
    rm -f disc.dump
    "$SFDO_GCC" -O2 -g -c div.c -o div.o "${PLUGIN[@]}" -fplugin-arg-samplefdo-profile="$1" \
      -fplugin-arg-samplefdo-dump=disc.dump 2> div.err ||
      fail "the build with $1 failed: $(cat div.err)"
    awk '/^function pick$/ {f=1; next} /^function/ {f=0}
         f && $4 == "1" {print $NF ":" $6}' disc.dump | sort -n | paste -sd' '
}
printf '# sfdo-profile: 1\npick:30000:10000\n 0: 10000\n 0.1: 90000\n 0.4: 10000\n' > lost.prof
printf '# sfdo-profile: 1\npick:30000:10000\n 0: 10000\n' > one.prof
printf '# sfdo-profile: 1\npick:30000:10000\n 0: 10000\n 1.1: 500\n' > kept.prof
lost=$(raw_by_disc lost.prof)
one=$(raw_by_disc one.prof)
kept=$(raw_by_disc kept.prof)
[[ " $lost " == *" 2:-1 "* && " $lost " == *" 1:90000 "* ]] ||
  fail "discriminator 2, absent where the line has three, is not unmeasured: $lost"
[[ " $one " == *" 2:10000 "* && " $one " == *" 1:10000 "* ]] ||
  fail "a line with one count did not give it to its other discriminators: $one"
[[ " $kept " == *" 2:-1 "* && " $kept " == *" 0:10000 "* ]] ||
  fail "where the function's profile has a discriminator elsewhere, discriminator 2 took line 0's one count: $kept"

# (e) A block measured zero that runs exactly as often as a block
# measured a billion times (it post-dominates it and is dominated by it,
# in the same loop): the zero is code the profiled binary merged away,
# and the loop keeps its count.  The plugin before took the whole loop
# to zero rather than raise that one block.
cat > chain.c <<'EOC'
__attribute__ ((noinline)) long
chain (const long *v, long n)
{
  long s = 0;
  for (long i = 0; i < n; i++)
    {
      s += v[i];
      if (s & 1024)
        s ^= 3;
      s += v[i] >> 3;
      if (s & 2048)
        s ^= 5;
    }
  return s;
}
EOC
cat > chain.prof <<'EOP'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=5000
chain:9000000000:10
 2: 10
 3: 1000000001
 3.1: 1000000002
 3.2: 1000000003
 5: 1000000004
 6: 1000000005
 7: 500000000
 8: 0
 9: 0
 10: 500000000
 12: 10
EOP
rm -f chain.dump
"$SFDO_GCC" -O2 -g -c chain.c -o chain.o "${PLUGIN[@]}" -fplugin-arg-samplefdo-profile=chain.prof \
  -fplugin-arg-samplefdo-dump=chain.dump 2> chain.err ||
  fail "the build with chain.prof failed: $(cat chain.err)"
body=$(awk '$4 == "7,8" {print $10}' chain.dump)
merged=$(awk '$4 == "10,11" {print $10}' chain.dump)
[[ -n $body && -n $merged ]] || fail "no block of lines 7,8 or 10,11 in: $(cat chain.dump)"
(( body >= 1000000000 && merged >= 1000000000 )) ||
  fail "the loop body lost its count to a block measured zero: lines 7,8 $body, lines 10,11 $merged"
echo "$TEST_NAME: stale warning at the declaration; divisions by discriminator ($s38, swapped $s83); dump appends; a discriminator the profile lacks ($lost; one count: $one); a merged zero in a loop's class ($merged)"
