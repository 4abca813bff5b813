#!/usr/bin/env bash
# 78-plugin-positions.sh - the plugin's reports and value histograms sit
# where they belong (issue #15's review):
#   (a) a stale profile's warning (under verbose) points at the
#       function's declaration, not at the end of the unit;
#   (b) two divisions on one line, in blocks of discriminators 1 and 2,
#       each take the histogram of their own discriminator: swapping the
#       histograms in the profile swaps the constants GCC specialises;
#   (c) dump=FILE appends: two compiles leave both units' blocks.
# Profiles are written by hand, so every count is known.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built samplefdo.so
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
gcc -O2 -g -c stale.c -o stale.o "${PLUGIN[@]}" -fplugin-arg-samplefdo-verbose \
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
    gcc -O2 -g -c div.c -o div.o "${PLUGIN[@]}" \
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
  gcc -O2 -g -c "${unit%%:*}.c" -o unit.o "${PLUGIN[@]}" \
    -fplugin-arg-samplefdo-profile="${unit##*:}.prof" \
    -fplugin-arg-samplefdo-dump=both.dump 2>/dev/null
done
grep -q '^function f$' both.dump && grep -q '^function pick$' both.dump ||
  fail "dump=FILE did not keep both units: $(grep '^function' both.dump | paste -sd' ')"
echo "$TEST_NAME: stale warning at the declaration; divisions by discriminator ($s38, swapped $s83); dump appends"
