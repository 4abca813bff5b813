#!/usr/bin/env bash
# 58-decide-loop-peel.sh - a loop that always runs 2 or 3 times is peeled
# from the trip count the profile implies, as -fprofile-use peels it;
# plain -O2 keeps the loop.  Then with AFDO-quality counts, from which
# GCC derives no trip count of its own (profile.cc records an estimate
# only from reliable counts): the loops family's estimate alone peels
# the loop, and with -fplugin-arg-samplefdo-no-loops nothing does (at the
# default quality GCC derives the same estimate itself, and this test
# could not tell the family was off).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
decide_build peel "$SFDO_ROOT/tests/e2e/data/decide/peel.c" -- -g \
  -fdump-tree-cunroll-details

peeled() { grep -Eo 'Peeled loop [0-9]+, [0-9]+ times' "$(decide_dump "$1" peel.c cunroll)" || true; }
[[ -z $(peeled o2) ]] || fail "plain -O2 peels: the test shows nothing"
[[ -n $(peeled pgo) ]] || fail "PGO did not peel"
# A clone (ipa-cp specialises sum_small for its constant n where the
# profile makes the call hot) peels its own copy of the loop: the same
# loop number, once per function.
p=$(peeled pgo | cut -d, -f1 | sort -u) s=$(peeled sfdo | cut -d, -f1 | sort -u)
[[ -n $s && $s == "$p" ]] || fail "sfdo peeled '$(peeled sfdo)', PGO '$(peeled pgo)'"

# peeled_afdo FLAG...: what a build at AFDO quality peels.
peeled_afdo() {
  (cd "$DECIDE_DIR/sfdo" && "$SFDO_GCC" -O2 -g -fplugin="$SFDO_BUILD/samplefdo.so" \
     -fplugin-arg-samplefdo-profile="$DECIDE_DIR/sfdo.prof" \
     -fplugin-arg-samplefdo-quality=afdo "$@" -fdump-tree-cunroll-details \
     -dumpbase afdo "$SFDO_ROOT/tests/e2e/data/decide/peel.c" -o afdo-prog 2> afdo.err) ||
    fail "the build at AFDO quality failed: $(head -3 "$DECIDE_DIR/sfdo/afdo.err")"
  grep -Eo 'Peeled loop [0-9]+, [0-9]+ times' "$DECIDE_DIR"/sfdo/afdo*.cunroll | cut -d, -f1 | sort -u || true
}
a=$(peeled_afdo)
[[ -n $a && $a == "$p" ]] ||
  fail "at AFDO quality sfdo peeled '${a:-nothing}', PGO '$p': the loops family's estimate did not reach GCC"
off=$(peeled_afdo -fplugin-arg-samplefdo-no-loops)
[[ -z $off ]] || fail "at AFDO quality without the loops family GCC still peeled ($off): the test shows nothing"
echo "PGO: $(peeled pgo); sfdo: $(peeled sfdo); at AFDO quality: $a, none without the loops family"
