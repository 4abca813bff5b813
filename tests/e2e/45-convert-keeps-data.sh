#!/usr/bin/env bash
# 45-convert-keeps-data.sh - sfdo-convert never loses data, and says what
# is wrong with bad input and misuse (recordings made with sfdo-record,
# so perf itself is not needed).
#
#   a recording of another program: exit 2, the binary and its build-id
#     named, the recording's build-ids and sampled files listed, -o left
#     as it was (it used to become an empty profile, exit 0);
#   -o naming PERF.DATA or the BINARY (also through a symbolic link), -o
#     "", -o a directory, --lbr-dump equal to -o: exit 1, nothing touched;
#   --lbr-dump into a missing directory: exit 2 and -o left as it was (it
#     used to be written first); a good --lbr-dump leaves no temporary;
#   --text with --binary, --format=afdo with --binary, -o given twice, one
#     event as both --count-event and --clk-event: exit 1 (they used to be
#     last-wins or 'no event recorded');
#   a torn record: exit 2 with its offset and a hint; --skip-bad-records
#     converts the rest, saying how many it skipped and where;
#   a recording whose header was never finished (a killed perf): said as
#     such; --skip-bad-records reads its records;
#   an empty file, /dev/zero, a directory as PERF.DATA or as BINARY, a
#     binary cut short: each said as such;
#   an MMAP2 record carrying an empty build-id: matched by name, not by
#     garbage (under valgrind memcheck when installed: hex() of an empty
#     build-id left its string unterminated).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert sfdo-record
tmpdir
T=$TEST_TMP
C=$SFDO_BUILD/sfdo-convert
cd "$T"
compile prog "$SFDO_ROOT/examples/demo.c"
compile other "$SFDO_ROOT/tests/e2e/data/tripcounts.c"
"$SFDO_BUILD/sfdo-record" -q -o rec.data -- ./prog 20 >/dev/null 2>rec.err ||
    skip "sfdo-record cannot sample here: $(head -n 1 rec.err)"

# run NAME STATUS PATTERN ARG...: sfdo-convert ARG... exits with STATUS and
# its stderr (NAME.err) matches PATTERN (grep -E; empty: anything).
run() {
    local name=$1 want=$2 pattern=$3 status=0
    shift 3
    "$C" "$@" >"$name.out" 2>"$name.err" || status=$?
    ((status == want)) ||
        fail "$name: exit $status, want $want: $(head -n 3 "$name.err")"
    [[ -z $pattern ]] || grep -Eq -- "$pattern" "$name.err" ||
        fail "$name: stderr does not match '$pattern': $(head -n 4 "$name.err")"
}
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p'; }
unchanged() { cmp -s "$1" "$2" || fail "$3 changed $1"; }

echo "keep me" >good.prof
cp good.prof good.orig
cp prog prog.orig
cp rec.data rec.orig

run nomatch 2 "none of its [0-9]+ samples fell in other \(build-id $(build_id other)\)" \
    -o good.prof rec.data ./other
unchanged good.prof good.orig "a conversion that matched nothing"
grep -q "$(build_id prog)" nomatch.err || fail "nomatch: the recording's build-id is not listed"
grep -Eq "its samples fell in: .*/prog \([0-9]+ samples\)" nomatch.err ||
    fail "nomatch: the sampled files are not listed: $(cat nomatch.err)"

run onto-binary 1 "-o ./prog is the input ./prog" -o ./prog rec.data ./prog
unchanged prog prog.orig "-o ./prog"
run onto-data 1 "-o rec.data is the input rec.data" -o rec.data rec.data ./prog
unchanged rec.data rec.orig "-o rec.data"
ln -s prog link
run onto-link 1 "-o link is the input" -o link rec.data ./prog
unchanged prog prog.orig "-o through a link"
run empty-o 1 "-o needs a file name" -o "" rec.data ./prog
mkdir outdir
run dir-o 1 "-o outdir is a directory" -o outdir rec.data ./prog
run dump-is-o 1 "--lbr-dump and -o name the same file" -o x.prof --lbr-dump=x.prof rec.data ./prog

run dump-fails 2 "/nonexistent/dump" -o good.prof --lbr-dump=/nonexistent/dump rec.data ./prog
unchanged good.prof good.orig "a failing --lbr-dump"
run dump-ok 0 "" -o new.prof --lbr-dump=dump.txt rec.data ./prog
[[ -f dump.txt && -s new.prof ]] || fail "dump-ok: no dump or no profile"
! ls ./*.tmp.* >/dev/null 2>&1 || fail "a temporary file was left: $(ls ./*.tmp.*)"

run text-binary 1 "--text and --binary exclude each other" --text --binary rec.data ./prog
run two-o 1 "-o given twice \('x.prof', then 'y.prof'\)" -o x.prof -o y.prof rec.data ./prog
run format-binary 1 "--binary is an sfdo encoding" --format=afdo --binary rec.data ./prog
run same-event 1 "name the same event 'cpu-clock:u'" \
    --count-event=cpu-clock:u --clk-event=cpu-clock:u rec.data ./prog

# A torn record: the size of the 50th record of the data section set to 3.
torn_at=$(python3 - rec.data torn.data <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
pos = struct.unpack_from('<Q', d, 40)[0]
for _ in range(50):
    pos += struct.unpack_from('<H', d, pos + 6)[0]
struct.pack_into('<H', d, pos + 6, 3)
open(sys.argv[2], 'wb').write(d)
print('%x' % pos)
PY
)
run torn 2 "torn.data\+0x$torn_at: record size 3" -o torn.prof torn.data ./prog
grep -q -- "--skip-bad-records" torn.err || fail "torn: no hint of --skip-bad-records"
[[ ! -e torn.prof ]] || fail "torn: wrote a profile"
run torn-skip 0 "skipped 1 bad record .*torn.data\+0x$torn_at" \
    --skip-bad-records -o torn.prof torn.data ./prog
[[ -s torn.prof ]] || fail "torn-skip: no profile"

# A killed perf record leaves the data size at 0 with records after (here
# the feature sections and attrs follow them too, skipped as bad records).
cp rec.data killed.data
printf '\0\0\0\0\0\0\0\0' | dd of=killed.data bs=1 seek=48 conv=notrunc 2>/dev/null
run killed 2 "perf record was stopped before it finished the file" killed.data ./prog
run killed-skip 0 "skipped [0-9]+ bad records? .*killed.data\+0x30: the header lists no data" --skip-bad-records -o killed.prof killed.data ./prog
[[ -s killed.prof ]] || fail "killed-skip: no profile"

: >empty.data
run empty 2 "empty.data\+0x0: the file is empty" empty.data ./prog
run dir-data 2 "outdir: is a directory, not a perf.data" outdir ./prog
run dir-bin 2 "outdir: is a directory" rec.data outdir
head -c 3000 prog >cut
run cut-bin 2 "cut: the file is cut short" rec.data ./cut
run devzero 2 "/dev/zero\+0x0: not a perf.data" /dev/zero ./prog

# The program's MMAP2 records say they carry a build-id, of size 0; the
# binary is given under another path, so matching tries the build-id
# before the name.
python3 - rec.data emptyid.data "$PWD/prog" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
pos, size = struct.unpack_from('<QQ', d, 40)
end, n = pos + size, 0
while pos < end:
    typ, misc, sz = struct.unpack_from('<IHH', d, pos)
    name = bytes(d[pos + 72:pos + sz]).split(b'\0')[0]
    if typ == 10 and name == sys.argv[3].encode():
        struct.pack_into('<H', d, pos + 4, misc | 1 << 14)
        d[pos + 8 + 32] = 0
        n += 1
    pos += sz
assert n, 'no MMAP2 of the program'
open(sys.argv[2], 'wb').write(d)
PY
mkdir again
cp prog again/prog
memcheck=()
if command -v valgrind >/dev/null 2>&1; then
    memcheck=(valgrind -q --error-exitcode=99)
fi
status=0
${memcheck[@]+"${memcheck[@]}"} "$C" -o emptyid.prof emptyid.data again/prog \
    >emptyid.out 2>emptyid.err || status=$?
((status == 0)) || fail "emptyid: exit $status: $(head -n 5 emptyid.err)"
[[ -s emptyid.prof ]] || fail "emptyid: no profile"
echo "$TEST_NAME: no data lost, every misuse said as such"
