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
# loop cold and ran 19% more instructions.  And demo.c, three
# generations: its bit loop is fully unrolled with each conditional
# assignment turned into a cmov, whose rows carry no is_stmt, so each of
# the eight copies in the one block counts (converter/attribute.c:
# row_copies_in_block); before, the profile of generation 1 gave that
# arm one eighth of its runs, and generation 2 branched there and took
# 68% more branches, generation 3 flipped back.  And chain.c, a hash
# lookup shaped like Lua's luaH_getshortstr: its FDO build copies the
# loop's tests for the first iteration, and the profile of that build
# must still give the key test (the second operand of &&, which begins
# no statement) the runs of the first test that hit, as the -O2 build's
# profile does.  It reads 0 without the plugin giving the copy its
# discriminator back (GCC 12 starts a copied block at 0:
# plugin/discriminators.cc, rule copied-discriminators), and the chain's
# later iterations only without the converter adding up copies that hold
# the line whole (converter/attribute.c: blocks_vote); Lua's second
# round took 24% more taken jumps than its first.
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

# within NAME G COUNT FIRST PREVIOUS WHAT: generation G's COUNT within
# 0.5% of generation 1's; with CONVERGE=1, never more than 0.5% above
# generation 1's, and from generation 3 on within 0.5% of generation
# G-1's (a later profile
# may see what the first could not: demo.c's insertion sort loop, which
# the -O2 build ran as one copy, generation 1 as eight).
within() {
  local name=$1 g=$2 n=$3 first=$4 prev=$5 what=$6 ref=$4 refname=1
  if [[ -n ${CONVERGE:-} ]]; then
    ((n * 1000 <= first * 1005)) ||
      fail "$name: generation $g: $n $what, generation 1 $first"
    ((g > 2)) || return 0
    ref=$prev refname=$((g - 1))
  fi
  ((n * 1000 <= ref * 1005 && n * 1000 >= ref * 995)) ||
    fail "$name: generation $g: $n $what, generation $refname $ref"
}

# generations NAME LAST SRC COMPILER ARGS...: generations 1 to LAST, each
# checked against generation 1.  A program whose calls are all direct
# (DIRECT=1) is checked by its counts alone.
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
  [[ -n ${DIRECT:-} ]] || p1=$(promoted "$name/g1")
  [[ -n ${DIRECT:-} || -n $p1 ]] || fail "$name: generation 1 promoted no call"
  read -r i1 t1 < <(counts "$name/g1" "$@")
  local ip=$i1 tp=$t1
  for g in $(seq 2 "$last"); do
    [[ -n ${DIRECT:-} ]] || p2=$(promoted "$name/g$g")
    [[ -n ${DIRECT:-} || $p1 == "$p2" ]] ||
      fail "$name: generation 1 promoted the call to $p1, generation $g to ${p2:-nothing}"
    read -r i2 t2 < <(counts "$name/g$g" "$@")
    within "$name" "$g" "$i2" "$i1" "$ip" instructions
    within "$name" "$g" "$t2" "$t1" "$tp" "taken branches"
    ip=$i2 tp=$t2
    seen+=" $i2/$t2"
  done
  echo "$TEST_NAME: $name: generations 1 to $last${p1:+ promote to $p1}; instructions/taken branches $i1/$t1$seen"
}

generations icall 2 "$D/icall.c" "$SFDO_GCC" 4000000
generations virtual 2 "$D/virtual.cc" "$SFDO_GXX" 10000000
DIRECT=1 generations peel 3 "$D/peel.c" "$SFDO_GCC" 30000
DIRECT=1 CONVERGE=1 generations demo 3 "$SFDO_ROOT/examples/demo.c" "$SFDO_GCC" 12

# key_tests PROF: "FIRST KEY": lookup's counts of the first test of its
# line (offset 5) and of the key test (5.1) in PROF.
key_tests() {
  "$SFDO_BUILD/sfdo-profile" convert --text "$1" |
    awk '/^lookup:/ { p = 1; next } p && /^[^ ]/ { p = 0 }
         p && $1 == "5:" { f = $2 } p && $1 == "5.1:" { k = $2 }
         END { print f + 0, k + 0 }'
}
mkdir -p chain/g0 chain/g1
"$SFDO_GCC" -O2 -g "$D/chain.c" -o chain/g0/prog || fail "chain: the -O2 build failed"
record chain/g0 3000
(cd chain/g1 && "$SFDO_GCC" -O2 -g "${PLUGIN[@]}" -fplugin-arg-samplefdo-profile=../g0/prof \
   "$D/chain.c" -o prog 2> build.err) || fail "chain: the FDO build failed: $(tail -3 chain/g1/build.err)"
record chain/g1 3000
for g in g0 g1; do
  read -r first key < <(key_tests "chain/$g/prof")
  ((first > 0 && key * 10 >= first * 9)) ||
    fail "chain: the profile of the $g build gives the key test $key runs, the first test $first"
  echo "$TEST_NAME: chain: $g's profile: first test $first, key test $key"
done
