#!/usr/bin/env bash
# 61-llvm-export-clang.sh - clang 14 applies what sfdo-profile export --llvm
# writes, as clang's own checks (-sample-profile-check-record-coverage and
# -sample-profile-check-sample-coverage) count it.
#
# The C demo (examples/demo.c) and the C++ test program
# (tests/e2e/data/inventory.cc), each built by clang 14 at -O2 four ways
# (plain -g and -fdebug-info-for-profiling, DWARF 4 and 5), are recorded by
# sfdo-record, converted, exported and compiled again with the profile:
#   - the export notes a profile without discriminators (plain -g), and the
#     build with it then takes -mllvm -no-discriminators, as README says;
#   - clang says nothing but its coverage figures, and applies at least
#     MIN_RECORDS% of the records of each translation unit (with the raw
#     discriminators the export used to write: 39 to 48% with
#     -fdebug-info-for-profiling; functions where it applies fewer than 90%
#     are listed in the log, see README "LLVM" for why some must be);
#   - the program built with the profile prints what -O2's prints;
#   - importing the export keeps every function's total and every count,
#     summed over the discriminators LLVM's encoding merges, duplication
#     factors multiplied in (tests/e2e/llvm_check.py, written apart from
#     profiles/profile_llvm.c).
# Static functions named alike in two files (data/statics_[ab].c) are
# merged with a note, and kept apart and both applied under their
# .__uniq. names with -funique-internal-linkage-names.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
need_built sfdo-convert sfdo-profile sfdo-record
need_perf
for t in clang-14 clang++-14 llvm-profdata-14; do
    command -v "$t" >/dev/null || skip "needs $t (Debian packages clang-14, llvm-14)"
done
cd "$TEST_TMP"
P=$SFDO_BUILD/sfdo-profile
CHECK=$SFDO_ROOT/tests/e2e/llvm_check.py
MIN_RECORDS=80
PERIOD=$((PERF_PERIOD / 4))

# record BIN ARG: sample BIN ARG with sfdo-record into BIN.data, its
# output into BIN.out; convert into BIN.prof.
record() {
    "$SFDO_BUILD/sfdo-record" -q -e "$PERF_EVENT" -c "$PERIOD" -o "$1.data" \
        -- "./$1" "$2" > "$1.out" 2> "$1.record.err" ||
        fail "sfdo-record of $1 failed: $(head -n 3 "$1.record.err")"
    "$SFDO_BUILD/sfdo-convert" -q "$1.data" "$1" -o "$1.prof" 2> "$1.convert.err" ||
        fail "sfdo-convert of $1 failed: $(head -n 3 "$1.convert.err")"
}

summary=()
for prog in c cc; do
    if [[ $prog == c ]]; then
        cc=clang-14; src=$SFDO_ROOT/examples/demo.c; arg=50
        lang=(-Wno-unknown-attributes)  # demo.c's noclone is GCC's
    else
        cc=clang++-14; src=$SFDO_ROOT/tests/e2e/data/inventory.cc; arg=100; lang=()
    fi
    for cfg in g4 g5 p4 p5; do
        flags=(-O2 "-gdwarf-${cfg#?}" "${lang[@]}")
        [[ $cfg == p* ]] && flags+=(-fdebug-info-for-profiling)
        b=$prog-$cfg
        "$cc" "${flags[@]}" "$src" -o "$b" 2> "$b.cc.err" ||
            fail "$cc ${flags[*]} failed: $(head -n 3 "$b.cc.err")"
        record "$b" "$arg"
        "$P" export --llvm "$b.prof" -o "$b.llvm" 2> "$b.export.err" ||
            fail "export of $b failed: $(cat "$b.export.err")"
        ! grep -q 'not in clang' "$b.export.err" ||
            fail "$b: the export took clang's discriminators for GCC's: $(cat "$b.export.err")"
        use=("${flags[@]}")
        if [[ $cfg == g* ]]; then
            grep -q -- '-mllvm -no-discriminators' "$b.export.err" ||
                fail "$b: the export did not note that the profile has no discriminators"
            use+=(-mllvm -no-discriminators)
        elif grep -q 'no-discriminators' "$b.export.err"; then
            fail "$b: a -fdebug-info-for-profiling build has no discriminators?"
        fi
        "$cc" "${use[@]}" -fprofile-sample-use="$b.llvm" \
            -mllvm -sample-profile-check-record-coverage=101 \
            -mllvm -sample-profile-check-sample-coverage=101 \
            "$src" -o "$b.fdo" 2> "$b.clang" ||
            fail "$cc -fprofile-sample-use failed on $b: $(head -n 3 "$b.clang")"
        if grep -v 'available profile \(records\|samples\)' "$b.clang" |
                grep -v 'warnings\? generated\.' | grep -q 'warning\|error'; then
            fail "$b: clang said more than its coverage: $(grep -v 'available profile' "$b.clang" | head -n 3)"
        fi
        python3 "$CHECK" coverage "$b.clang" > "$b.coverage" ||
            fail "$b: $(cat "$b.coverage")"
        read -r _ frac pct _ spct < "$b.coverage"
        (( ${pct%.*} >= MIN_RECORDS )) ||
            fail "$b: clang applied $frac records ($pct), under $MIN_RECORDS%: $(tail -n +2 "$b.coverage")"
        low=$(($(wc -l < "$b.coverage") - 1))
        ((low == 0)) && low= || low=" ($low fn<90%)"
        summary+=("$b $pct/$spct$low")
        "./$b.fdo" "$arg" > "$b.fdo.out"
        cmp -s "$b.out" "$b.fdo.out" || fail "$b built with its profile prints other output"
        "$P" import "$b.llvm" -o "$b.back" 2> "$b.import.err" ||
            fail "sfdo-profile import of $b.llvm failed: $(cat "$b.import.err")"
        python3 "$CHECK" roundtrip "$b.prof" "$b.back" > "$b.roundtrip" ||
            fail "$b: $(head -n 12 "$b.roundtrip")"
        { echo "== $b: $(cat "$b.roundtrip")"; cat "$b.coverage"; } >&2
    done
done

# Two static functions named step: merged without unique names...
A=$SFDO_ROOT/tests/e2e/data/statics_a.c
B=$SFDO_ROOT/tests/e2e/data/statics_b.c
clang-14 -O2 -g -fdebug-info-for-profiling "$A" "$B" -o two
record two 20
[[ $(grep -c '^step:' two.prof) == 2 ]] || fail "sfdo-convert did not record two functions step"
"$P" export --llvm two.prof -o two.llvm 2> two.export.err
grep -q 'summed into a same-named function' two.export.err ||
    fail "the export did not say it merged the two functions step: $(cat two.export.err)"
grep -q '^# merged: step: 2 functions of that name, summed (files: .*statics_a.c, .*statics_b.c)$' two.llvm ||
    fail "the export has no '# merged:' line for step"
[[ $(grep -c '^step:' two.llvm) == 1 ]] || fail "the export has step twice (clang would keep one)"
llvm-profdata-14 show --sample --function=step two.llvm > two.show 2>&1 ||
    fail "llvm-profdata-14 cannot read the export: $(head -n 3 two.show)"
"$P" import two.llvm -o two.back
python3 "$CHECK" roundtrip two.prof two.back > two.roundtrip || fail "$(head two.roundtrip)"

# ... kept apart, and each applied, with them.
uniq=(-O2 -g -fdebug-info-for-profiling -funique-internal-linkage-names)
clang-14 "${uniq[@]}" "$A" "$B" -o uniq
record uniq 20
"$P" export --llvm uniq.prof -o uniq.llvm 2> uniq.export.err
! grep -q 'summed into' uniq.export.err || fail "the export merged functions with unique names"
[[ $(grep -c '^_ZL4stepj\.__uniq\.[0-9]*:' uniq.llvm) == 2 ]] ||
    fail "the export lacks the two .__uniq. names of step: $(grep -v '^ ' uniq.llvm | head)"
for s in "$A" "$B"; do
    clang-14 "${uniq[@]}" -fprofile-sample-use=uniq.llvm \
        -mllvm -sample-profile-check-record-coverage=101 -c "$s" -o /dev/null 2> uniq.clang
    grep -q 'statics_[ab].c:[0-9]*: [1-9][0-9]* of [0-9]* available profile records' uniq.clang ||
        fail "clang applied no record of $(basename "$s")'s step: $(head -n 3 uniq.clang)"
done

echo "clang applied (records/samples): ${summary[*]}; statics merged and kept apart"
