#!/usr/bin/env bash
# 106-afdo-gcc16.sh - GCC 16's own -fauto-profile is a consumer of
# sfdo-profile's AutoFDO version 3: of sfdo's export, and of Debian's
# create_gcov profile (a layout GCC 16 refuses) converted by
# `sfdo-profile export --afdo=3`.  gcc-16 reads both without a word, takes
# its hot-block threshold from the summary computed from the counts (the
# smallest of the hottest counts that make 99% of the total, its
# hot-bb-count-ws-permille; not the largest count, which makes almost no
# block hot), and applies the counts: its afdo pass lists crc32_update
# with the profile's total and head count and annotates its statements
# with the profile's counts.  The profiles are made on the host (create_gcov is
# Debian 12's); only gcc-16 runs, in the Debian sid chroot of
# scripts/gcc-chroot.sh.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
need_built sfdo-convert sfdo-profile
command -v create_gcov >/dev/null && command -v dump_gcov >/dev/null ||
  skip "needs create_gcov and dump_gcov (Debian package autofdo)"
((EUID == 0)) ||
  skip "entering the GCC 16 chroot (scripts/gcc-chroot.sh) needs root; this is uid $EUID"
# The chroot sees this repository at its own path, and not /tmp.
mkdir -p "$SFDO_ROOT/build/e2e-tmp"
TMPDIR=$SFDO_ROOT/build/e2e-tmp tmpdir
need_perf
CHROOT=$SFDO_ROOT/scripts/gcc-chroot.sh
"$CHROOT" make > "$TEST_TMP/chroot.log" 2>&1 ||
  skip "the GCC 16 chroot cannot be made here: $(grep -m1 'error:' "$TEST_TMP/chroot.log")"
cd "$TEST_TMP"
version=$("$CHROOT" run gcc-16 --print-autofdo-gcov-version 2>&1) ||
  skip "the chroot has no gcc-16: $version"
[[ $version == 3 ]] || fail "gcc-16 reads AutoFDO version '$version', not 3"
P=$SFDO_BUILD/sfdo-profile
cp "$SFDO_ROOT/examples/demo.c" .

# create_gcov reads DWARF 4 only.
compile demo demo.c -O2 -gdwarf-4
perf_record perf.data -- ./demo 40
"$SFDO_BUILD/sfdo-convert" -q perf.data demo -o demo.prof
"$P" export --afdo=3 demo.prof -o sfdo.afdo 2> export.err
create_gcov --binary=demo --profile=perf.data --gcov=cg.afdo --use_lbr=false > cg.log 2>&1 ||
  fail "create_gcov failed: $(tail -3 cg.log)"
"$P" export --afdo=3 cg.afdo -o cg3.afdo 2> cg-export.err
[[ ! -s cg-export.err ]] || fail "converting create_gcov's profile lost something: $(head -3 cg-export.err)"

# threshold PROFILE: the count at 99% of the total, as the summary should
# hold it: the hottest counts (every inline instance's too, and only
# positions AFDO holds) summed until they reach 99%, equal counts together.
threshold() {
  "$P" convert --text "$1" |
    awk '/^ +[0-9]+(\.[0-9]+)?: [0-9]+( |$)/ {
           split($1, a, /[.:]/)
           if (a[1] <= 65535 && (a[2] == "" || a[2] <= 65535)) print $2
         }' | sort -nr |
    awk '{ c[NR] = $1; t += $1 }
         END { want = int(t / 1000000) * 990000 + int((t % 1000000) * 990000 / 1000000)
               for (i = 1; s < want && i <= NR;)
                 for (m = c[i]; i <= NR && c[i] == m; i++) s += c[i]
               print m + 0 }'
}

# use NAME PROFILE LINE: gcc-16 builds the demo with PROFILE quietly,
# reads the summary's 99% count as its threshold, lists crc32_update as
# LINE ("crc32_update total:T head:H") and annotates its statements.
use() {
  local name=$1 profile=$2 line=$3 want max got
  "$CHROOT" run gcc-16 -std=c11 -O2 -g -fauto-profile="$profile" \
      -fdump-ipa-afdo_offline -fdump-ipa-afdo demo.c -o "$name" \
      > "$name.err" 2>&1 ||
    fail "gcc-16 -fauto-profile=$profile failed: $(head -3 "$name.err")"
  [[ ! -s $name.err ]] || fail "gcc-16 said something about $profile: $(head -3 "$name.err")"
  want=$(threshold "$profile")
  max=$(sed -n 's/^Max count in profile //p' "$name"-demo.c.*.afdo_offline)
  got=$(sed -n 's/^Unscaled hot count threshold //p' "$name"-demo.c.*.afdo_offline)
  [[ $got == "$want" ]] ||
    fail "gcc-16 took $got as the hot count of $profile, not the 99% count $want"
  ((got < max)) || fail "gcc-16's hot count for $profile is its largest count $max"
  grep -qxF "$line" "$name"-demo.c.*i.afdo ||
    fail "gcc-16 read other counts from $profile than '$line'"
  awk '/^[A-Za-z_][A-Za-z0-9_.]* total:/ { f = $1 == "crc32_update" }
       f && /^ +count [1-9][0-9]* in stmt/ { n++ } END { exit !n }' \
      "$name"-demo.c.*i.afdo ||
    fail "gcc-16 annotated no statement of crc32_update with $profile's counts"
  echo "$profile: threshold $got, max $max" >> summary.log
}

line=$(awk -F: '/^crc32_update:/ {print "crc32_update total:" $2 " head:" $3}' demo.prof)
[[ -n $line ]] || fail "sfdo's profile has no crc32_update"
use sfdo sfdo.afdo "$line"
dump_gcov cg.afdo > cg.dump 2>&1
line=$(grep -m1 '^crc32_update total:' cg.dump) || fail "create_gcov's profile has no crc32_update"
use cg cg3.afdo "$line"
echo "$TEST_NAME: gcc-16 applies both ($(paste -sd ';' summary.log))"
