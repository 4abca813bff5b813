#!/usr/bin/env bash
# 11-profile-misuse.sh - sfdo-profile on bad input and misuse: each gets
# an error that says what was wrong, and nothing is lost.
#
#   merge -w 3,,             exit 1, the whole argument quoted (was '3' and
#                            then 'cannot open profile ,')
#   show --function of a static function without --file: exit 2, naming
#                            its file and --file
#   -o "", -o a directory    exit 1
#   --text with --binary, --afdo with --llvm, -o twice: exit 1 (were
#                            last-wins)
#   merge -o a.prof a.prof b.prof: allowed and right (a + b, as into
#                            another file), as --help says
#   /dev/zero as a profile   exit 2 at once, 'not a profile' (used to read
#                            until memory ran out)
#   -o under umask 027       a file of mode 640 (was 0644 whatever the umask)
#   header junk: a bad build-id or mode value, junk after one: exit 2 with
#                            its line; under valgrind memcheck (when
#                            installed) no uninitialised value is used
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-profile
tmpdir
T=$TEST_TMP
P=$SFDO_BUILD/sfdo-profile
cd "$T"

run() {   # run NAME STATUS PATTERN ARG...
    local name=$1 want=$2 pattern=$3 status=0
    shift 3
    timeout 20 "$P" "$@" >"$name.out" 2>"$name.err" || status=$?
    ((status == want)) ||
        fail "$name: exit $status, want $want: $(head -n 3 "$name.err")"
    [[ -z $pattern ]] || grep -Eq -- "$pattern" "$name.err" ||
        fail "$name: stderr does not match '$pattern': $(head -n 3 "$name.err")"
}

cat >a.prof <<'PROF'
# sfdo-profile: 1
main:100:1
 1: 100
helper:40:4
 !File: util.c
 1: 40
PROF
cat >b.prof <<'PROF'
# sfdo-profile: 1
main:50:2
 1: 50
PROF

run weighted 1 "--weighted-input needs W,PROFILE.*not '3,,'" merge -w 3,, a.prof
run static 2 "util.c has a static function 'helper'.*--file" show --function helper a.prof
run static-ok 0 "" show --function helper --file util.c a.prof
run empty-o 1 "-o needs a file name" merge -o "" a.prof
mkdir outdir
run dir-o 1 "-o outdir is a directory" merge -o outdir a.prof
run text-binary 1 "--text and --binary exclude each other" merge --text --binary a.prof
run afdo-llvm 1 "exclude each other" export --afdo --llvm a.prof
run two-o 1 "-o given twice \('x.prof', then 'y.prof'\)" convert --text -o x.prof -o y.prof a.prof

run merge-other 0 "" merge -o c.prof a.prof b.prof
cp a.prof a.orig
run merge-onto-input 0 "" merge -o a.prof a.prof b.prof
cmp -s a.prof c.prof || fail "merge -o a.prof a.prof b.prof differs from merging into c.prof"

run devzero 2 "/dev/zero: not a profile" show /dev/zero

# An output gets the mode of a new file under the umask (was always 0644).
(umask 027 && "$P" convert --text -o masked.prof a.prof)
[[ $(stat -c %a masked.prof) == 640 ]] ||
    fail "-o under umask 027 made a file of mode $(stat -c %a masked.prof), not 640"

# Header values a profile cannot hold, and junk after them.
memcheck=()
if command -v valgrind >/dev/null 2>&1; then
    memcheck=(valgrind -q --error-exitcode=99)
else
    printf '%s: note: valgrind is not installed: no memcheck run\n' "$TEST_NAME"
fi
printf '# sfdo-profile: 1\n# mode: \001\nmain:1:1\n 1: 1\n' >ctl.prof
printf '# sfdo-profile: 1\n# build-id: \001\001\nmain:1:1\n 1: 1\n' >ctl2.prof
printf '# sfdo-profile: 1\n# mode: ip junk\nmain:1:1\n 1: 1\n' >junk.prof
for f in ctl ctl2 junk; do
    status=0
    ${memcheck[@]+"${memcheck[@]}"} "$P" show "$f.prof" >"$f.out" 2>"$f.err" || status=$?
    ((status == 2)) || fail "$f.prof: exit $status, want 2: $(head -n 8 "$f.err")"
    grep -Eq "$f.prof:2:[0-9]+: " "$f.err" || fail "$f.prof: no line in: $(cat "$f.err")"
done
echo "$TEST_NAME: every misuse said as such${memcheck[*]:+, memcheck clean}"
