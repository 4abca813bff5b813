#!/usr/bin/env bash
# 42-convert-errors.sh - sfdo-convert's exit status and messages on bad
# input (0 success, 1 usage error, 2 bad input), and no crash.
#
#   - an unknown option: exit 1; --help: exit 0 and the usage text;
#   - a stripped binary: exit 2, an error naming it and saying it has no
#     debug (DWARF line) information;
#   - the AArch64 fixture ../shared/fixtures/autofdo/dwarf2_dwarf5.bin as
#     BINARY with a recording of an x86-64 program made here: none of the
#     samples is in it, so exit 2, an error saying so, and no profile
#     written (45-convert-keeps-data.sh checks the rest); and when the
#     samples do map to it (a
#     copy named like the recorded program, recorded without build-ids):
#     exit 2, an error naming it and machine 183 that cannot be decoded;
#   - a truncated perf.data (head -c of a real one): exit 2, an error with
#     a file offset (FILE+0x...), and no output file with -o;
#   - a build-id mismatch (the recorded program rebuilt differently under
#     the same name): exit 2 naming both build-ids, and no -o file;
#     --force converts it, taking the samples of the recorded program for
#     it (more than none used).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert
need_perf
tmpdir
T=$TEST_TMP
CONVERT=$SFDO_BUILD/sfdo-convert
SRC=$SFDO_ROOT/tests/e2e/data/tripcounts.c

# run NAME ARG...: run sfdo-convert; its status in $status, stdout in
# $T/NAME.out, stderr in $T/NAME.err.
run() {
    local name=$1
    shift
    status=0
    "$CONVERT" "$@" >"$T/$name.out" 2>"$T/$name.err" || status=$?
    ((status < 128)) ||
        fail "$name: sfdo-convert crashed (status $status): $(head -n 5 "$T/$name.err")"
}

# expect NAME STATUS: fail unless the last run exited with STATUS.
expect() {
    ((status == $2)) ||
        fail "$1: exit $status, want $2: $(head -n 3 "$T/$1.err")"
}

# says NAME PATTERN WHAT: fail unless stderr of NAME matches PATTERN (ERE).
says() {
    grep -Eq -- "$2" "$T/$1.err" ||
        fail "$1: stderr does not $3: $(head -n 3 "$T/$1.err")"
}

build_id() {
    readelf -n "$1" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p'
}

mkdir "$T/a" "$T/b" "$T/aarch64"
compile "$T/a/prog" "$SRC" -O2 -g
compile "$T/b/prog" "$SRC" -O1 -g -DREBUILT
cp "$T/a/prog" "$T/stripped"
strip "$T/stripped"
perf_record "$T/a.data" -- "$T/a/prog"

# Usage.
run bogus --no-such-option "$T/a.data" "$T/a/prog"
expect bogus 1
run help --help
expect help 0
grep -q '^Usage: sfdo-convert' "$T/help.out" || fail "--help prints no usage"
run good -o "$T/good.txt" "$T/a.data" "$T/a/prog"
expect good 0

# A stripped binary.
run stripped "$T/a.data" "$T/stripped"
expect stripped 2
says stripped "$T/stripped" "name the binary"
says stripped "no DWARF|debug info" "say there is no debug information"

# The AArch64 fixture.
if [[ -d $SFDO_ROOT/../shared/fixtures ]]; then
    need_shared
    A64=$SHARED_FIXTURES/autofdo/dwarf2_dwarf5.bin
    run a64 -o "$T/a64.txt" "$T/a.data" "$A64"
    expect a64 2
    says a64 "none of its [0-9]+ samples fell in dwarf2_dwarf5.bin" \
         "say that no sample fell in the binary"
    [[ ! -e $T/a64.txt ]] || fail "a64: wrote a profile"
    # Samples in it: a copy named like the recorded program, and no
    # build-ids in the recording, so that the name alone matches.
    cp "$A64" "$T/aarch64/prog"
    perf_record "$T/nobuildid.data" -B -- "$T/a/prog"
    run a64-mapped -o "$T/a64-mapped.txt" "$T/nobuildid.data" "$T/aarch64/prog"
    expect a64-mapped 2
    says a64-mapped "$T/aarch64/prog" "name the binary"
    says a64-mapped "machine 183" "name machine 183"
    [[ ! -e $T/a64-mapped.txt ]] || fail "a64-mapped: wrote a profile"
else
    printf '%s: note: no ../shared/fixtures: AArch64 binary not checked\n' \
           "$TEST_NAME"
fi

# A truncated perf.data.
size=$(stat -c %s "$T/a.data")
for n in 64 4096 $((size / 2)) $((size - 1)); do
    head -c "$n" "$T/a.data" >"$T/cut.data"
    rm -f "$T/cut.txt"
    run cut-$n -o "$T/cut.txt" "$T/cut.data" "$T/a/prog"
    expect cut-$n 2
    says cut-$n "cut\.data\+0x[0-9a-f]+" "give the file offset (cut.data+0x...)"
    [[ ! -e $T/cut.txt ]] || fail "cut-$n: wrote $T/cut.txt"
done

# A build-id mismatch, then --force.
want=$(build_id "$T/b/prog")
got=$(build_id "$T/a/prog")
[[ -n $want && -n $got && $want != "$got" ]] ||
    fail "the rebuilt program has the same build-id ($want, $got)"
run mismatch -o "$T/mismatch.txt" "$T/a.data" "$T/b/prog"
expect mismatch 2
says mismatch "$want" "name the binary's build-id $want"
says mismatch "$got" "name the recorded build-id $got"
[[ ! -e $T/mismatch.txt ]] || fail "mismatch: wrote a profile"
run force --force --stats -o "$T/force.txt" "$T/a.data" "$T/b/prog"
expect force 0
grep -q "^# build-id: $want\$" "$T/force.txt" ||
    fail "--force: the profile does not carry the binary's build-id $want"
used=$(sed -n 's/^# samples: used=\([0-9]*\) .*/\1/p' "$T/force.txt")
good_used=$(sed -n 's/^# samples: used=\([0-9]*\) .*/\1/p' "$T/good.txt")
[[ $used =~ ^[1-9][0-9]*$ ]] ||
    fail "--force: ${used:-no} samples used, but $good_used with the recorded" \
         "program: the samples of $T/a/prog were not taken for $T/b/prog" \
         "($(head -n 1 "$T/force.err"))"
