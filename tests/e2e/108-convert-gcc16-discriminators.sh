#!/usr/bin/env bash
# 108-convert-gcc16-discriminators.sh - GCC 16's hierarchical
# discriminators (issue 35) reach the profile as base discriminators, with
# the counts they stand for.  GCC 16 numbers a discriminator's bits 8-14
# with a multiplicity (the vectorization factor: one vector iteration runs
# that many of the source's) and bits 15-25 with a copy id (unrolled,
# peeled and epilogue copies, each running part of the iterations).
# Programs built with gcc-16 -O3 -g, recorded with the emulated PMU and
# converted: no discriminator above 255 is in any profile, the header
# names GCC 16, and the body line of
#   - test 68's loop unrolled by -funroll-loops,
#   - the same loop vectorized (-fno-vect-cost-model: by 4, epilogue
#     copies),
#   - a loop vectorized with an epilogue that runs (4099 iterations),
#   - a loop of 8 iterations unrolled completely (copy ids 0 to 7)
# counts its source iterations within 5%.
#
# Needs GCC 16 as $SFDO_GCC (tests/run.sh runs it in the Debian sid chroot
# with SFDO_GCC=gcc-16).  Run by hand on a host without GCC 16, it runs
# itself in that chroot (scripts/gcc-chroot.sh; root), unless make check's
# GCC 16 pass will (SFDO_CHECK_GCC).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"

major=$("$SFDO_GCC" -dumpversion 2>/dev/null) || major=0
major=${major%%.*}
if ((major < 16)); then
  later_pass=
  for n in ${SFDO_CHECK_GCC:-}; do
    ((n >= 16)) && later_pass=$n
  done
  [[ $SFDO_GCC == gcc && -z $later_pass ]] ||
    skip "needs GCC 16 or newer; $SFDO_GCC is GCC $major${later_pass:+ (make check runs it with gcc-$later_pass)}"
  ((EUID == 0)) ||
    skip "needs GCC 16: $SFDO_GCC is GCC $major, and entering the sid chroot with gcc-16 (scripts/gcc-chroot.sh) needs root"
  cd "$SFDO_ROOT"
  log=$(scripts/gcc-chroot.sh make 2>&1) ||
    skip "needs GCC 16: the sid chroot cannot be made here: $(grep -m1 'error:' <<<"$log")"
  scripts/gcc-chroot.sh run make -s B=build/sid CC=gcc-16 GCC=gcc-16 \
      build/sid/sfdo-record build/sid/sfdo-convert build/sid/sfdoemu-amd64-linux ||
    fail "building the tools in the chroot (make B=build/sid CC=gcc-16)"
  exec scripts/gcc-chroot.sh run env SFDO_GCC=gcc-16 \
       SFDO_BUILD="$SFDO_ROOT/build/sid" bash "tests/e2e/$TEST_NAME"
fi

need_built sfdo-record sfdo-convert
decide_need_emulator
tmpdir
cd "$TEST_TMP"

cat > vect.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

#define N 4099
static int dst[N], src[N];

__attribute__ ((noinline)) void
scale (int *restrict d, const int *restrict s, int n, int k)
{
  for (int i = 0; i < n; i++)
    d[i] = (s[i] << 1) + k;
}

__attribute__ ((noinline)) unsigned
hash8 (const unsigned char *p, unsigned h)
{
  for (int j = 0; j < 8; j++)
    h = (h ^ p[j]) * 16777619u;
  return h;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 2000;
  unsigned h = 0;
  for (int i = 0; i < N; i++)
    src[i] = i * 7;
  for (int r = 0; r < rounds; r++)
    {
      scale (dst, src, N, r);
      for (int i = 0; i + 8 <= N; i += 8)
        h = hash8 ((const unsigned char *) &dst[i], h);
    }
  printf ("%u\n", h);
  return 0;
}
EOF
unrolled=$SFDO_ROOT/tests/e2e/data/decide/unrolled.c

# build NAME SRC FLAG...: NAME, and its assembly NAME.s, from SRC.
build() {
  local name=$1 src=$2
  shift 2
  "$SFDO_GCC" -O3 -g "$@" "$src" -o "$name"
  "$SFDO_GCC" -O3 -g "$@" -S "$src" -o "$name.s"
}
build unrolled "$unrolled" -funroll-loops -fno-tree-vectorize
build unrolled-vect "$unrolled" -fno-vect-cost-model
build vect vect.c

# discs NAME FUNCTION: the discriminators GCC wrote in FUNCTION's lines.
discs() {
  sed -n "/^$2:/,/\.cfi_endproc/s/.*\.loc .* discriminator \([0-9]*\).*/\1/p" "$1.s"
}
# The builds must have what the test is about: a vectorized copy
# (multiplicity above 1) and unrolled copies (copy ids).
discs unrolled-vect weigh | awk '{m = int($1 / 256) % 128} m > 1 {f = 1}
    END {exit !f}' || fail "gcc $major did not vectorize weigh: the test shows nothing"
discs vect scale | awk 'int($1 / 256) % 128 > 1 {f = 1} END {exit !f}' ||
  fail "gcc $major did not vectorize scale: the test shows nothing"
discs vect hash8 | awk 'int($1 / 32768) > 1 {f = 1} END {exit !f}' ||
  fail "gcc $major did not unroll hash8 into copies: the test shows nothing"

# vect's rounds: enough samples in its short functions for 5%.
rounds=20000
for prog in unrolled unrolled-vect vect; do
  args=()
  [[ $prog == vect ]] && args=("$rounds")
  "$DECIDE_RECORDER" -q --emulate -c 49999 -o "$prog.data" -- "./$prog" \
      ${args[@]+"${args[@]}"} > /dev/null
  "$SFDO_BUILD/sfdo-convert" -q -o "$prog.prof" "$prog.data" "$prog"
  grep -q "^# producer: GCC $major\." "$prog.prof" ||
    fail "$prog.prof names no GCC $major producer: $(grep '^#' "$prog.prof")"
  # Body and callsite lines (OFFSET.DISC:) and value positions.
  bad=$(awk '{k = $1} /^ *!Values: / {k = $2}
             k ~ /^[0-9]+\.[0-9]+:?$/ {split(k, a, /[.:]/); if (a[2] > 255) print}' \
          "$prog.prof" | head -n 3)
  [[ -z $bad ]] || fail "$prog.prof keeps raw GCC 16 discriminators: $bad"
done

# line_count PROFILE FUNCTION LINE-TEXT SOURCE: the largest count of the
# line holding LINE-TEXT in FUNCTION's profile, over its discriminators.
line_count() {
  local off=$(( $(grep -n -F -- "$3" "$4" | head -n 1 | cut -d: -f1) -
                $(grep -n "^$2 " "$4" | cut -d: -f1) ))
  awk -v fn="$2" -v off="$off" '$0 ~ "^" fn ":" {f = 1; next} /^[^ ]/ {f = 0}
       f && $1 ~ "^" off "(\\.[0-9]+)?:$" && $2 > n {n = $2}
       END {print n + 0}' "$1"
}
# expect PROFILE FUNCTION LINE-TEXT SOURCE WANT WHAT: the line counts
# WANT, within 5%; noted in SUMMARY.
summary=
expect() {
  local got
  got=$(line_count "$1" "$2" "$3" "$4")
  awk -v g="$got" -v w="$5" 'BEGIN {exit !(g > 0.95 * w && g < 1.05 * w)}' ||
    fail "$6: $2's body counts $got, not about $5 (profile: $(grep -A12 "^$2:" "$1"))"
  summary+="${summary:+; }$6 $got/$5"
}
expect unrolled.prof weigh 's += v[i]' "$unrolled" $((5000 * 4096)) unrolled
expect unrolled-vect.prof weigh 's += v[i]' "$unrolled" $((5000 * 4096)) vectorized
expect vect.prof scale 'd[i] = ' vect.c $((rounds * 4099)) 'vectorized, epilogue'
expect vect.prof hash8 'h = (h ^' vect.c $((rounds * 512 * 8)) 'unrolled whole'
echo "GCC $major, body counts/iterations: $summary"
