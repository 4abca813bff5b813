#!/usr/bin/env bash
# 96-emulate-undescribed.sh - functions with code and no DWARF function
# of their own are listed as never run when no branch record reached
# them, a static one with its file, so that the plugin marks them
# unlikely as -fprofile-use does.  GCC's identical-code folding keeps a
# copy of an address-taken static function it merged and describes only
# the twin (SQLite's nolockUnlock, memdbSync, unixShmBarrier: 9 of its
# functions that PGO puts in .text.unlikely kept GCC's estimate).
# tests/e2e/data/undescribed.c: copy_b (folded, never called) is listed
# with its file; copy_d (folded, called) is not; asm_never (assembly,
# global) is listed without a file; crt files' local functions, outside
# every compile unit, are not listed.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_built sfdo-convert
command -v python3 >/dev/null || skip "python3 is not installed"
tmpdir
T=$TEST_TMP
cd "$T"
cp "$SFDO_ROOT/tests/e2e/data/undescribed.c" .
"$SFDO_GCC" -O2 -g undescribed.c -o undescribed || fail "cannot build undescribed.c"

# Which functions have a concrete DWARF function (code ranges).
readelf --debug-dump=info undescribed > info 2>/dev/null
python3 - info > described <<'PY'
import re, sys
names, origin, code, tag, die = {}, {}, set(), {}, None
for line in open(sys.argv[1]):
    m = re.match(r'\s*<\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)', line)
    if m:
        die = int(m.group(1), 16)
        tag[die] = m.group(2)
        continue
    if die is None:
        continue
    m = re.search(r'DW_AT_name\s*:.*?(\w+)\s*$', line)
    if m and 'DW_AT_name' in line:
        names[die] = m.group(1)
    m = re.search(r'DW_AT_abstract_origin: <0x([0-9a-f]+)>', line)
    if m:
        origin[die] = int(m.group(1), 16)
    if 'DW_AT_low_pc' in line and tag.get(die) == 'DW_TAG_subprogram':
        code.add(die)
for d in code:
    print(names.get(d) or names.get(origin.get(d), '?'))
PY
for f in twin_a twin_c; do
  grep -qx "$f" described || fail "DWARF does not describe $f: the test's premise is wrong"
done
for f in copy_b copy_d; do
  grep -qx "$f" described &&
    skip "GCC $("$SFDO_GCC" -dumpversion) gave $f a DWARF function of its own: nothing to test"
done

"$SFDO_BUILD/sfdo-record" -q --emulate -c 2003 -b -o run.data -- ./undescribed 300000 \
  > run.out 2> run.err || fail "recording failed: $(head -n 3 run.err)"
"$SFDO_BUILD/sfdo-convert" -o run.prof run.data undescribed 2> convert.err ||
  fail "sfdo-convert failed: $(head -n 3 convert.err)"

# listed NAME FILE: NAME is a top-level function of total 0 and head 0,
# with FILE ("" for none) on its !File line.
listed() {
  awk -v n="$1" -v f="$2" '
    found && /^ !File: / { file = substr($0, 9) }
    found && /^[^ ]/ { exit }
    $0 == n ":0:0" { found = 1 }
    END { exit !(found && file == f) }' run.prof
}
listed copy_b undescribed.c ||
  fail "copy_b (folded, never called) is not listed as never run in undescribed.c: $(grep -A1 '^copy_b' run.prof || echo absent)"
listed asm_never "" ||
  fail "asm_never (assembly, never called) is not listed as never run: $(grep -A1 '^asm_never' run.prof || echo absent)"
grep -q '^copy_d:' run.prof && fail "copy_d ran, and the profile lists it: $(grep -A1 '^copy_d' run.prof)"
grep -q ' copy_d:[0-9]' run.prof ||
  fail "the profile has no call into copy_d, so the test shows nothing"
for f in frame_dummy register_tm_clones deregister_tm_clones __do_global_dtors_aux; do
  grep -q "^$f:" run.prof && fail "$f (crt, outside every compile unit) is listed"
done
echo "copy_b (folded, never run) listed in undescribed.c, asm_never without a file; copy_d (ran) and crt functions not"
