#!/usr/bin/env bash
# 110-decide-iteration.sh - the profile of an sfdo build leads to the same
# build: in production the binary recorded is the last FDO build.  Two
# programs whose first sfdo build promotes an indirect call: a C call
# through a table (icall.c: op_mix, not inlined, then called directly)
# and a C++ virtual call (virtual.cc: Square::weigh, inlined, its
# out-of-line copy then never runs).  Each is built -O2, recorded, built
# with the plugin (generation 1), recorded again and rebuilt (generation
# 2).  Generation 2 promotes the same call to the same target as
# generation 1, and runs the same number of instructions and taken
# branches (the emulated PMU's exact counts) within 0.5%.  Before the
# plugin read the promoted calls of the profiled binary as the call's
# targets (plugin/icall.cc: add_instance_targets, add_direct_call_targets),
# generation 2 promoted the rarest target (icall) or none (virtual), and
# generation 3 flipped back.  And a program whose loops the FDO build
# peels and unrolls (peel.c), three generations: its copies keep the loop
# nest's counts at discriminator 0, and the -O2 body's numbers read zero;
# before a loop read all zero took those lines' counts
# (plugin/annotate.cc: read_renumbered_loops), generation 3 made the
# loop cold and ran 19% more instructions.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-record sfdo-convert
need_plugin
need_emulator
tmpdir
cd "$TEST_TMP"
D=$SFDO_ROOT/tests/e2e/data/decide
PLUGIN=(-fplugin="$SFDO_BUILD/samplefdo.so")

# record DIR ARGS: DIR/prof from the emulated PMU's recording of DIR/prog.
record() {
  local dir=$1
  shift
  (cd "$dir" && "$SFDO_BUILD/sfdo-record" -q --emulate -b -c 20011 --no-jitter \
     -o perf.data -- ./prog "$@" > /dev/null 2> record.err) ||
    fail "$dir: sfdo-record failed: $(tail -2 "$dir/record.err")"
  "$SFDO_BUILD/sfdo-convert" -q -o "$dir/prof" "$dir/perf.data" "$dir/prog" ||
    fail "$dir: sfdo-convert failed"
}

# counts DIR ARGS: "instructions taken-branches" of DIR/prog's run.
counts() {
  local dir=$1
  shift
  "$SFDO_BUILD/sfdo-record" --emulate --stat -o "$dir/stat" -- "$dir/prog" "$@" \
    > /dev/null 2>&1 || fail "$dir: counting failed"
  awk '/instructions:u/ { i = $1 } /taken-branches:u/ { t = $1 } END { print i, t }' "$dir/stat"
}

# promoted DIR: the targets ipa-profile made the build's calls speculate on.
promoted() {
  grep -h 'Indirect call -> speculative call .* => ' "$1"/*.profile_estimate 2>/dev/null |
    sed 's/.* => //; s/\/[0-9]*$//' | sort -u | paste -sd, -
}

# generations NAME LAST SRC COMPILER ARGS...: generations 1 to LAST, each
# checked against generation 1.  A program whose calls are all direct
# (NAME peel) is checked by its counts alone.
generations() {
  local name=$1 last=$2 src=$3 cc=$4
  shift 4
  mkdir -p "$name/g0"
  "$cc" -O2 -g "$src" -o "$name/g0/prog" || fail "$name: the -O2 build failed"
  record "$name/g0" "$@"
  local g
  for g in $(seq 1 "$last"); do
    mkdir -p "$name/g$g"
    (cd "$name/g$g" && "$cc" -O2 -g "${PLUGIN[@]}" \
       -fplugin-arg-samplefdo-profile="../g$((g - 1))/prof" \
       -fdump-ipa-profile_estimate-details "$src" -o prog 2> build.err) ||
      fail "$name generation $g: the build failed: $(tail -3 "$name/g$g/build.err")"
    record "$name/g$g" "$@"
  done
  local p1='' p2 i1 t1 i2 t2 seen=''
  [[ $name == peel ]] || p1=$(promoted "$name/g1")
  [[ $name == peel || -n $p1 ]] || fail "$name: generation 1 promoted no call"
  read -r i1 t1 < <(counts "$name/g1" "$@")
  for g in $(seq 2 "$last"); do
    [[ $name == peel ]] || p2=$(promoted "$name/g$g")
    [[ $name == peel || $p1 == "$p2" ]] ||
      fail "$name: generation 1 promoted the call to $p1, generation $g to ${p2:-nothing}"
    read -r i2 t2 < <(counts "$name/g$g" "$@")
    ((i2 * 1000 <= i1 * 1005 && i2 * 1000 >= i1 * 995)) ||
      fail "$name: generation $g runs $i2 instructions, generation 1 $i1"
    ((t2 * 1000 <= t1 * 1005 && t2 * 1000 >= t1 * 995)) ||
      fail "$name: generation $g takes $t2 branches, generation 1 $t1"
    seen+=" $i2/$t2"
  done
  echo "$TEST_NAME: $name: generations 1 to $last${p1:+ promote to $p1}; instructions/taken branches $i1/$t1$seen"
}

generations icall 2 "$D/icall.c" "$SFDO_GCC" 4000000
generations virtual 2 "$D/virtual.cc" "$SFDO_GXX" 10000000
generations peel 3 "$D/peel.c" "$SFDO_GCC" 30000
