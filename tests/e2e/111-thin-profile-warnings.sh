#!/usr/bin/env bash
# 111-thin-profile-warnings.sh - a profile with too few samples for GCC's
# decisions to rest on (common/evidence.h: about 5000 instruction
# samples, or 312 with branch stacks) is said to be thin at every stage:
# sfdo-record names the period that would have given enough from the same
# run, sfdo-convert how many samples fell in the binaries, the plugin
# how many the profile holds.  A recording with enough says nothing.
# The emulated PMU's periods make the sample counts exact.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-record sfdo-convert
need_plugin
need_emulator
tmpdir
cd "$TEST_TMP"
compile prog "$SFDO_ROOT/tests/e2e/data/icalls.c" -O2 -g
R=$SFDO_BUILD/sfdo-record

# About 20 million instructions: 200 samples at one per 100003.
"$R" --emulate --no-jitter -c 100003 -o thin.data -- ./prog 100000 > /dev/null 2> thin.rec ||
  fail "sfdo-record failed: $(cat thin.rec)"
grep -q 'warning: [0-9]* samples are too few .*about 5000 are needed.*-c [0-9]' thin.rec ||
  fail "sfdo-record did not call 200 samples too few, naming a period: $(cat thin.rec)"
period=$(sed -n 's/.*with -c \([0-9]*\),.*/\1/p' thin.rec)
((period > 1000 && period < 10000)) ||
  fail "sfdo-record suggests -c $period for 25 times the samples of -c 100003"
"$SFDO_BUILD/sfdo-convert" thin.data prog -o thin.prof 2> thin.conv ||
  fail "sfdo-convert failed: $(cat thin.conv)"
grep -q 'warning: thin.data: only [0-9]* samples fell in the binaries' thin.conv ||
  fail "sfdo-convert did not warn of the thin profile: $(cat thin.conv)"
"$SFDO_BUILD/sfdo-convert" -q thin.data prog -o /dev/null 2> quiet.conv
[[ ! -s quiet.conv ]] || fail "sfdo-convert -q still warned: $(cat quiet.conv)"
"$SFDO_GCC" -O2 -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile=thin.prof \
  "$SFDO_ROOT/tests/e2e/data/icalls.c" -o thin-fdo 2> thin.gcc ||
  fail "the build with the thin profile failed: $(cat thin.gcc)"
grep -q 'samplefdo: .*the profile holds only [0-9]* samples, where one .* has about 5000' thin.gcc ||
  fail "the plugin did not warn of the thin profile: $(cat thin.gcc)"

# The same run at the suggested period: enough, and no warning anywhere.
"$R" --emulate --no-jitter -c "$period" -o enough.data -- ./prog 100000 > /dev/null 2> enough.rec ||
  fail "sfdo-record -c $period failed: $(cat enough.rec)"
! grep -q warning enough.rec || fail "sfdo-record -c $period still warned: $(cat enough.rec)"
"$SFDO_BUILD/sfdo-convert" enough.data prog -o enough.prof 2> enough.conv
! grep -q warning enough.conv || fail "sfdo-convert still warned: $(cat enough.conv)"
"$SFDO_GCC" -O2 -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile=enough.prof \
  "$SFDO_ROOT/tests/e2e/data/icalls.c" -o enough-fdo 2> enough.gcc
! grep -q 'holds only' enough.gcc || fail "the plugin still warned: $(cat enough.gcc)"

# Branch stacks count for more: some 500 are enough, 50 not.
for p in 100003 10007; do
  "$R" --emulate --no-jitter -b -e taken-branches -c $p -o lbr$p.data -- ./prog 100000 \
    > /dev/null 2> lbr$p.rec || fail "sfdo-record -b -c $p failed: $(cat lbr$p.rec)"
  "$SFDO_BUILD/sfdo-convert" lbr$p.data prog -o lbr$p.prof 2> lbr$p.conv ||
    fail "sfdo-convert of lbr$p.data failed: $(cat lbr$p.conv)"
done
grep -q 'warning: .* too few .*about 312 are needed with branch stacks' lbr100003.rec ||
  fail "sfdo-record -b -c 100003 did not warn: $(cat lbr100003.rec)"
grep -q 'warning: .*only [0-9]* samples fell' lbr100003.conv ||
  fail "sfdo-convert of 50 branch stacks did not warn: $(cat lbr100003.conv)"
! grep -q warning lbr10007.rec lbr10007.conv ||
  fail "about 500 branch stacks were called thin: $(cat lbr10007.rec lbr10007.conv)"
echo "$TEST_NAME: thin at 200 samples (suggested -c $period) and 50 branch stacks; quiet at $period and 500"
