#!/usr/bin/env bash
# 83-convert-groups.sh - sfdo-convert --groups joins the source files
# that the hot calls cross (converter/groups.h).
#
# data/lipo/: main.c's loop calls ops.c's mix directly and ops.c's static
# functions through a table ops.c fills (an indirect call, whose targets
# the default recording's unwound stacks give); cold.c runs once.  The
# groups file must hold one group of main.c and ops.c, without cold.c,
# covering at least 85% of the cross-file call weight, in the documented
# format; the summary on stderr says so; a bad --groups path fails
# without writing the profile.  Then the build the groups are for, without
# whole-program LTO (converter/groups.h): every file compiled -flto
# -ffat-lto-objects with the profile, each group's objects joined by one
# incremental LTO link (-r -flto -flinker-output=nolto-rel
# -fno-semantic-interposition), the program linked from them and the
# other objects with -fno-lto, which sfdo-link does from the groups file.
# There main's hot call of ops.c's mix is inlined, where the ordinary
# file-by-file build keeps the call, and main's call through ops.c's
# table is promoted to its dominant target, ops.c's static rotate (the
# plugin names file-local functions by an id both files can compute);
# the output is the same.  The same for a C++ virtual call whose
# targets another file defines (data/lipo/virt_main.cc, shapes.cc).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-record sfdo-convert sfdo-link
need_plugin
need_perf >/dev/null
tmpdir
T=$TEST_TMP
D=$SFDO_ROOT/tests/e2e/data/lipo
for f in main ops cold; do
    "$SFDO_GCC" -O2 -g -c "$D/$f.c" -o "$T/$f.o" || fail "compiling $f.c failed"
done
"$SFDO_GCC" "$T/main.o" "$T/ops.o" "$T/cold.o" -o "$T/prog"
# A fixed, short period: the table call's leading target needs enough
# supporting samples to be a likely majority (plugin/counts.cc), which a
# default-rate recording of this short run may not hold when the machine
# is loaded.  Not shorter than 100000: main's loop condition has, at the
# plugin's stage, the discriminator the profiled binary kept only on the
# argc > 1 path (a copy that never ran), so its count is a measured zero,
# and the flow solver weighs a zero by the samples the block would have
# caught; at 50000, on an AMD EPYC guest whose timer gave the loop 27
# million executions, it dropped the loop instead of raising that zero
# in about half the runs, and mix's call was cold.
# Where the emulated PMU is built, its branch stacks give the calls
# exactly, and the test does not depend on how a timer falls under load.
REC=(-e "$PERF_EVENT" -c 100000)
if [[ -e $SFDO_BUILD/sfdoemu-amd64-linux ]] && command -v valgrind >/dev/null 2>&1; then
    REC=(--emulate -b -c 20011)
else
    echo "$TEST_NAME: note: no emulated PMU here; sampling $PERF_EVENT" >&2
fi
"$SFDO_BUILD/sfdo-record" -q "${REC[@]}" -o "$T/p.data" -- "$T/prog" > /dev/null 2>"$T/record.err" ||
    fail "sfdo-record failed: $(cat "$T/record.err")"
"$SFDO_BUILD/sfdo-convert" -o "$T/p.prof" --groups="$T/groups.txt" "$T/p.data" "$T/prog" \
    2>"$T/convert.err" || fail "sfdo-convert --groups failed: $(cat "$T/convert.err")"
G=$T/groups.txt
[[ $(head -1 "$G") == "# sfdo-groups: 1" ]] || fail "groups file lacks its header: $(head -1 "$G")"
[[ $(grep -c '^group ' "$G") == 1 ]] || fail "want one group: $(cat "$G")"
members=$(sed -n 's/^  //p' "$G" | xargs -n1 basename | sort | tr '\n' ' ')
[[ $members == "main.c ops.c " ]] || fail "the group holds $members, not main.c and ops.c"
share=$(sed -nE 's/.*the groups hold ([0-9.]+)% of it.*/\1/p' "$G")
awk -v s="${share:-0}" 'BEGIN { exit !(s >= 85) }' ||
    fail "the groups hold ${share:-no}% of the cross-file call weight"
grep -qE '^  [^ ]*ops.c$' "$G" || fail "units are not listed one a line"
grep -q "1 module groups (of 2 to 2 of 3 source files)" "$T/convert.err" ||
    fail "no summary on stderr: $(cat "$T/convert.err")"
grep -q ' icall rotate:' "$T/p.prof" ||
    fail "the profile has no indirect-call targets for the table call"
# The profile records each function's unit: sfdo-profile group makes the
# same groups from it alone, and from a merge of two profiles.
"$SFDO_BUILD/sfdo-profile" group "$T/p.prof" -o "$T/groups2.txt" 2>"$T/group.err" ||
    fail "sfdo-profile group failed: $(cat "$T/group.err")"
cmp -s "$G" "$T/groups2.txt" || fail "sfdo-profile group differs from sfdo-convert --groups"
"$SFDO_BUILD/sfdo-profile" merge "$T/p.prof" "$T/p.prof" -o "$T/merged.prof"
# Misuse: a share or a cap out of range is a usage error; a profile
# without units (an older one) says what to do.
for args in "--cutoff 0" "--cutoff 120" "--max-units 1"; do
    status=0
    # shellcheck disable=SC2086
    "$SFDO_BUILD/sfdo-profile" group $args "$T/p.prof" > /dev/null 2>"$T/misuse.err" || status=$?
    ((status == 1)) || fail "sfdo-profile group $args: exit $status, $(head -1 "$T/misuse.err")"
done
"$SFDO_BUILD/sfdo-profile" convert --text "$T/p.prof" | grep -v ' unit ' > "$T/old.prof"
status=0
"$SFDO_BUILD/sfdo-profile" group "$T/old.prof" > "$T/old.groups" 2>"$T/old.err" || status=$?
((status == 2)) && grep -q 'records no compile units.*convert its perf.data again' "$T/old.err" ||
    fail "sfdo-profile group of a profile without units: exit $status, $(cat "$T/old.err")"
# (a merge adds the counts up: the same groups, twice the weight)
"$SFDO_BUILD/sfdo-profile" group "$T/merged.prof" 2>/dev/null | grep -v weight |
    cmp -s <(grep -v weight "$G") - || fail "the groups of a merged profile differ"
rm -f "$T/bad.prof"
if "$SFDO_BUILD/sfdo-convert" -q -o "$T/bad.prof" --groups="$T/no/such/dir/g.txt" \
       "$T/p.data" "$T/prog" 2>"$T/bad.err"; then
    fail "--groups into a missing directory succeeded"
fi
grep -q "no/such/dir" "$T/bad.err" || fail "the error does not name the groups file: $(cat "$T/bad.err")"
[[ ! -e $T/bad.prof ]] || fail "a failed --groups left a profile"
# The grouped build.
PL=(-fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile="$T/p.prof")
mkdir -p "$T/g"
for f in main ops cold; do
    "$SFDO_GCC" -O2 -g -flto -ffat-lto-objects -fno-semantic-interposition "${PL[@]}" \
        -c "$D/$f.c" -o "$T/g/$f.o" 2>"$T/g/$f.err" || fail "compiling $f.c -flto failed: $(head -3 "$T/g/$f.err")"
done
"$SFDO_BUILD/sfdo-link" --groups "$G" -- "$SFDO_GCC" -O2 "${PL[@]}" "$T/g/main.o" "$T/g/ops.o" \
    "$T/g/cold.o" -o "$T/g/prog" 2>"$T/g/link.err" ||
    fail "sfdo-link failed: $(head -3 "$T/g/link.err")"
grep -q "group 1: $T/g/main.o $T/g/ops.o joined by an incremental LTO link" "$T/g/link.err" ||
    fail "sfdo-link did not say what it joined: $(cat "$T/g/link.err")"
# in_main PROGRAM ERE: how many lines of PROGRAM's main (disassembled,
# with relocations) match ERE.  (grep -c reads to the end: grep -q would
# leave objdump to die of SIGPIPE, which pipefail takes for a failure.)
in_main() { objdump -dr "$1" | sed -n '/<main>:/,/^$/p' | grep -cE "$2" || true; }
calls_to_mix() { in_main "$1" 'call.*<mix>|R_X86_64_PLT32[[:space:]]+mix-'; }
(( $(calls_to_mix "$T/prog") >= 1 )) || fail "the ordinary build already inlines mix: the test shows nothing"
(( $(calls_to_mix "$T/g/prog") == 0 )) || fail "the grouped build still calls mix from main"
# The call through ops.c's table of its static functions is promoted to
# rotate (its dominant target, 7 calls in 8) and inlined with the groups
# (main compares the pointer with rotate's address); file by file
# (the same objects linked with -fno-lto) main cannot name rotate.
names_rotate() { in_main "$1" '<rotate>'; }
"$SFDO_GCC" -O2 -fno-lto "$T/g/main.o" "$T/g/ops.o" "$T/g/cold.o" -o "$T/g/plain"
(( $(names_rotate "$T/g/plain") == 0 )) || fail "the file-by-file build already names rotate in main"
(( $(names_rotate "$T/g/prog") >= 1 )) ||
    fail "the grouped build did not promote the table call to rotate (file-local, in ops.c); the profile's targets: $(grep -E ' (icall|callsamples) ' "$T/p.prof" | tr '\n' ';')"
cmp -s <("$T/prog") <("$T/g/plain") || fail "the file-by-file build prints something else"
# cold.c is in no group: its report stays an ordinary call (linking the
# fat objects without -fno-lto would run whole-program LTO, which inlines
# it into main).
(( $(in_main "$T/g/prog" 'call.*<report>') >= 1 )) ||
    fail "main no longer calls report: the link ran LTO beyond the group"
# The same from an archive and a response file: ops.o in libops.a, the
# objects named in @objs.rsp.
ar rcs "$T/g/libops.a" "$T/g/ops.o"
printf '%s\n' "$T/g/main.o" "$T/g/libops.a" "$T/g/cold.o" > "$T/g/objs.rsp"
"$SFDO_BUILD/sfdo-link" --groups "$G" -- "$SFDO_GCC" -O2 "@$T/g/objs.rsp" -o "$T/g/prog-ar" \
    2>"$T/g/link-ar.err" || fail "sfdo-link with an archive failed: $(head -3 "$T/g/link-ar.err")"
grep -q "group 1: $T/g/main.o $T/g/libops.a(ops.o) joined" "$T/g/link-ar.err" ||
    fail "sfdo-link did not join libops.a's ops.o: $(cat "$T/g/link-ar.err")"
(( $(calls_to_mix "$T/g/prog-ar") == 0 )) || fail "the build from the archive still calls mix from main"
cmp -s <("$T/prog") <("$T/g/prog-ar") || fail "the build from the archive prints something else"
# A thin archive (members by path) is left to the linker, and said so.
ar rcsT "$T/g/libthin.a" "$T/g/ops.o"
"$SFDO_BUILD/sfdo-link" --groups "$G" -- "$SFDO_GCC" -O2 "$T/g/main.o" "$T/g/libthin.a" \
    "$T/g/cold.o" -o "$T/g/prog-thin" 2>"$T/g/link-thin.err" ||
    fail "sfdo-link with a thin archive failed: $(head -3 "$T/g/link-thin.err")"
grep -q "libthin.a: not an archive sfdo-link can read" "$T/g/link-thin.err" ||
    fail "sfdo-link did not say it left the thin archive alone: $(cat "$T/g/link-thin.err")"
cmp -s <("$T/prog") <("$T/g/prog-thin") || fail "the build with a thin archive prints something else"
# An object compiled without -flto is linked as it is, and said so.
"$SFDO_BUILD/sfdo-link" --groups "$G" -- "$SFDO_GCC" -O2 "$T/main.o" "$T/g/ops.o" "$T/g/cold.o" \
    -o "$T/g/prog2" 2>"$T/g/link2.err" || fail "sfdo-link with a plain object failed"
grep -q "$T/main.o has no LTO IR" "$T/g/link2.err" ||
    fail "sfdo-link did not say main.o has no LTO IR: $(cat "$T/g/link2.err")"
cmp -s <("$T/prog") <("$T/g/prog2") || fail "the build with a plain object prints something else"
cmp -s <("$T/prog") <("$T/g/prog") || fail "the grouped build prints something else"
# C++: virt_main.cc's hot virtual call reaches Square::weigh, defined in
# shapes.cc, 15 times in 16.  Grouped, main compares the vtable slot with
# its address (speculative devirtualisation, the call inlined); file by
# file main cannot name it.
V=$T/virt
mkdir -p "$V"
for f in virt_main shapes; do
    "$SFDO_GXX" -O2 -g -c "$D/$f.cc" -o "$V/$f.o" || fail "compiling $f.cc failed"
done
"$SFDO_GXX" "$V/virt_main.o" "$V/shapes.o" -o "$V/prog"
"$SFDO_BUILD/sfdo-record" -q "${REC[@]}" -o "$V/p.data" -- "$V/prog" > "$V/out" 2>"$V/record.err" ||
    fail "sfdo-record of the C++ program failed: $(cat "$V/record.err")"
"$SFDO_BUILD/sfdo-convert" -q -o "$V/p.prof" --groups="$V/groups.txt" "$V/p.data" "$V/prog" ||
    fail "sfdo-convert --groups of the C++ program failed"
[[ $(sed -n 's/^  //p' "$V/groups.txt" | xargs -n1 basename | sort | tr '\n' ' ') == "shapes.cc virt_main.cc " ]] ||
    fail "the C++ program's group is not shapes.cc and virt_main.cc: $(cat "$V/groups.txt")"
for f in virt_main shapes; do
    "$SFDO_GXX" -O2 -g -flto -ffat-lto-objects -fno-semantic-interposition \
        -fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile="$V/p.prof" \
        -c "$D/$f.cc" -o "$V/g-$f.o" || fail "compiling $f.cc -flto failed"
done
"$SFDO_BUILD/sfdo-link" -q --groups "$V/groups.txt" -- "$SFDO_GXX" -O2 "$V/g-virt_main.o" "$V/g-shapes.o" \
    -o "$V/gprog" || fail "sfdo-link of the C++ program failed"
"$SFDO_GXX" -O2 -fno-lto "$V/g-virt_main.o" "$V/g-shapes.o" -o "$V/plain"
names_weigh() { in_main "$1" '<_ZNK6Square5weighEj>'; }
(( $(names_weigh "$V/plain") == 0 )) || fail "the file-by-file C++ build already names Square::weigh in main"
(( $(names_weigh "$V/gprog") >= 1 )) ||
    fail "the grouped C++ build did not devirtualise the call to Square::weigh (in shapes.cc)"
cmp -s "$V/out" <("$V/gprog") || fail "the grouped C++ build prints something else"
cmp -s "$V/out" <("$V/plain") || fail "the file-by-file C++ build prints something else"
# No directory for the groups' objects: exit 2, saying where it looked.
status=0
TMPDIR=$T/none "$SFDO_BUILD/sfdo-link" --groups "$G" -- "$SFDO_GCC" "$T/g/main.o" "$T/g/ops.o" \
    "$T/g/cold.o" -o "$T/g/prog3" 2>"$T/tmpdir.err" || status=$?
((status == 2)) && grep -q "$T/none/sfdo-link.* (set TMPDIR)" "$T/tmpdir.err" ||
    fail "sfdo-link with a missing TMPDIR: exit $status, $(cat "$T/tmpdir.err")"
# Usage errors: exit 1, saying what is missing.
for args in "-- gcc" "--groups $G"; do
    status=0
    # shellcheck disable=SC2086
    "$SFDO_BUILD/sfdo-link" $args 2>"$T/usage.err" || status=$?
    ((status == 1)) && grep -q "Try 'sfdo-link --help'" "$T/usage.err" ||
        fail "sfdo-link $args: exit $status, $(head -1 "$T/usage.err")"
done
echo "$TEST_NAME: main.c and ops.c grouped, ${share}% of the cross-file call weight; mix inlined, the table call promoted to ops.c's static rotate and the C++ virtual call to shapes.cc's Square::weigh, without whole-program LTO"
