#!/usr/bin/env bash
# 84-stale-profile.sh - a profile of an older source applied to an edited
# one (issue #18): the plugin moves the profile's lines with the call
# sites around them (plugin/stale.cc), which the converter records
# (converter/anchors.h).
#
# The program (data/stale/base.c) is recorded once.  Each edit below makes
# a new source of the same name in its own directory, which is built three
# ways with the plugin dumping its final block counts: with the old
# profile (aligned), with the old profile and -fplugin-arg-samplefdo-
# no-realign (as it was before), and with a fresh profile of the edited
# build.  The reference is the edited build's instrumented counts (its
# -fprofile-use, dumped on the same CFG), not the fresh profile: that is a
# sample too, and a line it under-counts (fold_odd's call, one in eight
# iterations, a few samples) once made the unaligned build, which put no
# count there, look closer than the aligned one.  The block overlap
# (scripts/count-overlap.py) of each stale build with the reference must
# be at least MIN_OVERLAP; within the edited function (what aligning
# moves; the program-wide figure also weighs each function's total, which
# is sampling noise of a point or two) the aligned build must not fall
# more than MAX_LOSS points below the unaligned one where the edit keeps
# the function's name, and where many lines moved far (inside, leaf) it
# must gain at least MIN_GAIN points.  (MAX_LOSS: where one line moved,
# the unaligned build, with no count at fold_odd's call, sometimes lands
# nearer the truth than the old recording's count for it; over 40
# recordings of the branch edit it did so by at most 0.36 points.)  The
# hot and cold decisions (sections, .cold parts) of the aligned build
# must be the fresh build's.  Edits:
#   above    three lines above the hot function: nothing moves;
#   inside   two statements inside its loop, between two calls;
#   delete   a comment line and the loop's rare branch (with its call) go;
#   branch   a rarely taken branch with a new call, in place of a line;
#   callee   fold_odd's call replaced by a call to a new function, defined
#            above: the lines stay where they were;
#   reorder  fold_odd moved above next_value: nothing moves;
#   rename   mix_all renamed mix_many: found by its call sites (the same
#            callees in the same order), by the plugin and offline;
#   resemble mix_all renamed mix_all2 and one of its calls changed: found by
#            its similar name and the calls it still shares;
#   leaf     two lines inside spread, a function that calls nothing:
#            aligned by its loop's line (a branch anchor);
#   inlined  (data/stale/inlined.c) two lines inside step, which the
#            profiled binary inlined into run: its instance's lines move
#            with its call of scramble; the hot and cold decisions must
#            be the fresh profile's, and the unaligned build's not.
# Where lines moved, `sfdo-profile align OLD.prof NEW-BINARY` must give a
# profile that the plugin finds fitting as it is and that overlaps the
# instrumented counts as well as the plugin's own alignment (within 1.5
# points: OFFLINE_LOSS); a profile without call sites is refused.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
tmpdir
BASE=$SFDO_ROOT/tests/e2e/data/stale/base.c
MIN_OVERLAP=95 MIN_GAIN=4 MAX_LOSS=1 OFFLINE_LOSS=1.5 ARG=4000000
read -r -a RECORD <<<"$(decide_recording)"
# decide_recording fixes the emulated PMU's period: the offline and the
# plugin's alignment differ by how the flow weighs moved lines (weak, in
# the plugin only), and a jittered recording moved that difference from
# 0 to 1.7 points.

PLUGIN=$SFDO_BUILD/samplefdo.so

# record DIR: build DIR/base.c, record it into DIR/fresh.prof.
record() {
    (cd "$1" && compile prog base.c -O2 -g &&
        "$SFDO_BUILD/sfdo-record" -q -o p.data "${RECORD[@]}" -- ./prog "$ARG" \
            > prog.out 2> record.err &&
        "$SFDO_BUILD/sfdo-convert" -q p.data prog -o fresh.prof 2> convert.err) ||
        fail "recording $1 failed: $(cat "$1"/*.err 2>/dev/null | head -n 3)"
}

# build DIR NAME PROFILE [FLAG...]: compile DIR/base.c with the plugin into
# DIR/NAME.o, its dump DIR/NAME.dump and stderr DIR/NAME.err.
build() {
    local dir=$1 name=$2 prof=$3
    shift 3
    (cd "$dir" && "$SFDO_GCC" -std=gnu11 -O2 -g -fplugin="$PLUGIN" \
        -fplugin-arg-samplefdo-profile="$prof" \
        -fplugin-arg-samplefdo-dump="$name.dump" "$@" -c base.c \
        -o "$name.o" 2> "$name.err") ||
        fail "$dir: the $name build failed: $(head -n 5 "$dir/$name.err")"
}

# reference DIR: DIR/truth.dump, the instrumented counts of DIR/base.c run
# as the recordings run it, on the CFG the plugin's builds dump.
reference() {
    (cd "$1" && "$SFDO_GCC" -std=gnu11 -O2 -g -fprofile-generate base.c -o inst 2> truth.err &&
        ./inst "$ARG" > /dev/null &&
        "$SFDO_GCC" -std=gnu11 -O2 -g -fprofile-use -fno-vpt -fplugin="$PLUGIN" \
            -fplugin-arg-samplefdo-profile=fresh.prof -fplugin-arg-samplefdo-dump-only \
            -fplugin-arg-samplefdo-dump=truth.dump base.c -o inst 2> truth.err) ||
        fail "$1: the instrumented reference failed: $(head -n 5 "$1/truth.err")"
}

# overlap DIR NAME [FUNCTION]: block overlap (%) of DIR/NAME.dump with
# DIR/truth.dump, over the program or within FUNCTION.
overlap() {
    python3 "$SFDO_ROOT/scripts/count-overlap.py" "$1/truth.dump" "$1/$2.dump" \
        --per-function |
        awk -v f="${3-}" 'f == "" && /^block overlap: / { sub(/%.*/, "", $3); print $3 }
                          f != "" && $2 == f { sub(/%/, "", $1); print $1 }'
}

# sections OBJ: the hot/cold decisions of an object: function, section
# (the field after the flags: a hidden function has one more before its
# name).
sections() {
    objdump -t "$1" |
        awk '{ for (i = 2; i <= 3; i++) if ($i == "F") { print $NF, $(i + 1); next } }' |
        grep -E '\.text' | sort
}

# apply_edit NAME IN OUT: OUT is IN with edit NAME made.
apply_edit() {
    python3 - "$@" <<'PY'
import sys
name, src, dst = sys.argv[1:]
s = open(src).read()
above = "/* EDIT-ABOVE */\n"
inside = "      /* EDIT-INSIDE */\n"
fold_odd = s[s.index("NOINLINE static unsigned long\nfold_odd"):]
fold_odd = fold_odd[:fold_odd.index("}\n") + 3]
edits = {
    "above": lambda: s.replace(above, above + "static const int unused_a = 1;\n"
                               "static const int unused_b = 2;\n/* three lines */\n"),
    "inside": lambda: s.replace(inside, inside + "      v += i & 1;\n"
                                "      v ^= v >> 29;\n"),
    "delete": lambda: s.replace(inside, "").replace(
        "      if ((v & 0xfffff) == 0)\n        {\n          rare++;\n"
        "          report (\"rare\", rare);\n        }\n", ""),
    "branch": lambda: s.replace(inside, "      if (v == 42)\n"
                                "        report (\"answer\", v);\n"),
    "callee": lambda: s.replace(above, "NOINLINE static unsigned long\n"
                                "fold_mixed (unsigned long acc, unsigned long v)\n"
                                "{\n  return (acc ^ v) + (acc >> 13);\n}\n\n" + above)
                       .replace("acc = fold_odd (acc, v);", "acc = fold_mixed (acc, v);"),
    "reorder": lambda: s.replace(fold_odd, "").replace(
        "NOINLINE static unsigned long\nnext_value",
        fold_odd + "NOINLINE static unsigned long\nnext_value"),
    "rename": lambda: s.replace("mix_all", "mix_many"),
    "resemble": lambda: s.replace("mix_all", "mix_all2").replace(
        "acc = fold_odd (acc, v);", "acc = fold_even (acc, v >> 1);"),
    "leaf": lambda: s.replace("  /* EDIT-LEAF */\n", "  /* EDIT-LEAF */\n"
                              "  v ^= v >> 3;\n  v += 7;\n"),
}
out = edits[name]()
if out == s:
    sys.exit("edit %s changed nothing" % name)
open(dst, "w").write(out)
PY
}

mkdir -p "$TEST_TMP/old"
cp "$BASE" "$TEST_TMP/old/base.c"
record "$TEST_TMP/old"
OLD=$TEST_TMP/old/fresh.prof
grep -q '!Values: [0-9.]* callsites ' "$OLD" ||
    fail "the profile records no call sites (converter/anchors.h)"

table=()
for e in above inside delete branch callee reorder rename resemble leaf; do
    d=$TEST_TMP/$e
    mkdir -p "$d"
    apply_edit "$e" "$BASE" "$d/base.c" || fail "$e: the edit failed"
    record "$d"
    case $e in above|reorder|rename)
        cmp -s "$TEST_TMP/old/prog.out" "$d/prog.out" ||
            fail "$e: the edited program prints something else" ;;
    esac
    build "$d" fresh fresh.prof
    build "$d" aligned "$OLD" -fplugin-arg-samplefdo-verbose
    build "$d" unaligned "$OLD" -fplugin-arg-samplefdo-no-realign
    reference "$d"
    edited=mix_all; [[ $e == leaf ]] && edited=spread
    a=$(overlap "$d" aligned) u=$(overlap "$d" unaligned)
    fa=$(overlap "$d" aligned $edited) fu=$(overlap "$d" unaligned $edited)
    [[ -n $a && -n $u ]] || fail "$e: no overlap figure"
    moved=$(grep -c "stale profile: [0-9]* functions' lines moved" "$d/aligned.err" || true)
    note=; ((moved == 0)) || note=' (moved)'
    table+=("$e: aligned $a% unaligned $u% ($edited: ${fa:-none}%, ${fu:-none}%)$note")
    if [[ $e == rename || $e == resemble ]]; then
        new=mix_many; [[ $e == resemble ]] && new=mix_all2
        grep -q "^function $new\$" "$d/aligned.dump" ||
            fail "$e: $new found no profile under its old name"
        ! grep -q "^function $new\$" "$d/unaligned.dump" ||
            fail "$e: $new found a profile with matching turned off?"
        grep -q 'stale profile: .* 1 functions found under their old name' "$d/aligned.err" ||
            fail "$e: the plugin did not say it found mix_all's profile: $(grep samplefdo "$d/aligned.err" | head -n 3)"
    fi
    awk -v a="$a" -v m="$MIN_OVERLAP" 'BEGIN { exit !(a >= m) }' ||
        fail "$e: the aligned profile overlaps the instrumented counts by $a% < $MIN_OVERLAP% (unaligned $u%): $(grep samplefdo "$d/aligned.err" | head -n 3)"
    # (renamed: the unaligned build has no profile for mix_many)
    [[ $e == rename || $e == resemble ]] ||
        awk -v a="$fa" -v u="$fu" -v l="$MAX_LOSS" 'BEGIN { exit !(a != "" && a >= u - l) }' ||
        fail "$e: aligning lost overlap in $edited: $fa% against $fu% unaligned"
    case $e in
        above|reorder|callee)
            ((moved == 0)) || fail "$e: the plugin moved lines where nothing moved: $(grep 'stale' "$d/aligned.err")" ;;
        rename|resemble) ;;
        *)
            ((moved == 1)) || fail "$e: the plugin did not say the profile was stale"
            # lines placed by guess reach the flow solver as weak counts
            [[ $e != inside ]] ||
                grep -q " [1-9][0-9]* blocks' counts weak for the flow solver" "$d/aligned.err" ||
                fail "inside: no block's count was weak for the flow solver: $(grep 'stale profile' "$d/aligned.err" | tail -n 1)"
            # where many lines moved far, the unaligned profile is far off
            [[ $e != inside && $e != leaf ]] ||
                awk -v a="$fa" -v u="$fu" -v g="$MIN_GAIN" 'BEGIN { exit !(a >= u + g) }' ||
                fail "$e: aligning gained less than $MIN_GAIN points in $edited ($fa% against $fu%)" ;;
    esac
    if ((moved)); then
        "$SFDO_BUILD/sfdo-profile" align "$OLD" "$d/prog" -o "$d/offline.prof" \
            2> "$d/offline.err" ||
            fail "$e: sfdo-profile align failed: $(cat "$d/offline.err")"
        want="^sfdo-profile: 1 functions' lines moved"
        [[ $e == rename || $e == resemble ]] && want="^sfdo-profile: .* 1 renamed"
        grep -q "$want" "$d/offline.err" ||
            fail "$e: sfdo-profile align did not carry mix_all over: $(cat "$d/offline.err")"
        build "$d" offline "$d/offline.prof" -fplugin-arg-samplefdo-verbose
        ! grep -q 'stale profile: ' "$d/offline.err" ||
            fail "$e: the plugin found the offline-aligned profile stale"
        o=$(overlap "$d" offline)
        # OFFLINE_LOSS: offline, a line that lands where the new binary has
        # no code of its own is left out, where the plugin keeps it for a
        # statement the body still has; GCC 16 merges more lines' code, and
        # once in about 13 runs such a line's count was worth a point
        # (inside: 98.60% against 99.61%).
        awk -v o="$o" -v a="$a" -v l="$OFFLINE_LOSS" 'BEGIN { exit !(o >= a - l) }' ||
            fail "$e: the offline-aligned profile overlaps the instrumented counts by $o%, the plugin's alignment by $a%"
        table[${#table[@]}-1]+=", offline $o%"
    fi
    [[ "$(sections "$d/aligned.o")" == "$(sections "$d/fresh.o")" ]] ||
        fail "$e: hot and cold decisions differ from the fresh profile's: $(diff <(sections "$d/aligned.o") <(sections "$d/fresh.o") | head -n 6 | tr '\n' ' ')"
done
# An edit inside a function the profiled binary inlined
# (data/stale/inlined.c: step, inlined into run): the instance's lines
# count from step's declaration, and move with step's calls, in the
# plugin and offline.  Unaligned, the rare branch's lines read the next
# test's count and run keeps its rare path hot.
d=$TEST_TMP/inlined
mkdir -p "$d/old" "$d/new"
cp "$SFDO_ROOT/tests/e2e/data/stale/inlined.c" "$d/old/inlined.c"
python3 - "$d/old/inlined.c" "$d/new/inlined.c" <<'PY'
import sys
s = open(sys.argv[1]).read()
mark = "  /* EDIT-INLINED */\n"
assert mark in s
open(sys.argv[2], "w").write(s.replace(mark, mark + "  v ^= v >> 3;\n  v += 7;\n"))
PY
for v in old new; do
    (cd "$d/$v" && compile prog inlined.c -O2 -g &&
        "$SFDO_BUILD/sfdo-record" -q -o p.data "${RECORD[@]}" -- ./prog "$ARG" \
            > prog.out 2> record.err &&
        "$SFDO_BUILD/sfdo-convert" -q p.data prog -o fresh.prof 2> convert.err) ||
        fail "inlined: recording $v failed: $(cat "$d/$v"/*.err 2>/dev/null | head -n 3)"
done
grep -q '^  !Values: [0-9.]* callsites scramble:' "$d/old/fresh.prof" ||
    fail "inlined: step's instance records no call site (converter/attribute.c: attr_call_site)"
inlined_build() {   # NAME PROFILE [FLAG...]: $d/new/NAME.o and NAME.err
    local name=$1 prof=$2
    shift 2
    (cd "$d/new" && "$SFDO_GCC" -std=gnu11 -O2 -g -fplugin="$PLUGIN" \
        -fplugin-arg-samplefdo-profile="$prof" -fplugin-arg-samplefdo-verbose \
        "$@" -c inlined.c -o "$name.o" 2> "$name.err") ||
        fail "inlined: the $name build failed: $(head -n 5 "$d/new/$name.err")"
}
inlined_build fresh fresh.prof
inlined_build aligned ../old/fresh.prof
inlined_build unaligned ../old/fresh.prof -fplugin-arg-samplefdo-no-realign
! grep -q 'stale profile' "$d/new/fresh.err" ||
    fail "inlined: the fresh profile was taken for stale: $(grep 'instance of' "$d/new/fresh.err" || true)"
grep -q '1 inline instances. lines moved' "$d/new/aligned.err" ||
    fail "inlined: the plugin did not move step's instance: $(grep -m1 'stale profile' "$d/new/aligned.err" || echo 'it says nothing of a stale profile')"
[[ "$(sections "$d/new/unaligned.o")" != "$(sections "$d/new/fresh.o")" ]] ||
    fail "inlined: the unaligned build decides as the fresh one: the edit shows nothing"
[[ "$(sections "$d/new/aligned.o")" == "$(sections "$d/new/fresh.o")" ]] ||
    fail "inlined: hot and cold decisions differ from the fresh profile's: $(diff <(sections "$d/new/aligned.o") <(sections "$d/new/fresh.o") | tr '\n' ' ')"
"$SFDO_BUILD/sfdo-profile" align "$d/old/fresh.prof" "$d/new/prog" -o "$d/new/offline.prof" \
    2> "$d/new/offline-align.err" ||
    fail "inlined: sfdo-profile align failed: $(cat "$d/new/offline-align.err")"
grep -q '1 inline instances. lines moved' "$d/new/offline-align.err" ||
    fail "inlined: sfdo-profile align did not move step's instance: $(cat "$d/new/offline-align.err")"
inlined_build offline offline.prof
! grep -q 'stale profile' "$d/new/offline.err" ||
    fail "inlined: the plugin found the offline-aligned profile stale"
[[ "$(sections "$d/new/offline.o")" == "$(sections "$d/new/fresh.o")" ]] ||
    fail "inlined: the offline-aligned build's hot and cold decisions differ from the fresh profile's"
table+=("inlined: step's instance moved, plugin and offline; decisions as the fresh profile's (unaligned: not)")

# A profile without its functions' shapes (header mode "shape"): the
# plugin leaves it as it is, rather than align it by branches alone.
grep -v -e 'callsites' -e '^# mode: shape$' "$OLD" > "$TEST_TMP/bare.prof"
build "$TEST_TMP/inside" bare "$TEST_TMP/bare.prof" -fplugin-arg-samplefdo-verbose
! grep -q 'stale profile: ' "$TEST_TMP/inside/bare.err" ||
    fail "the plugin aligned a profile that recorded no shapes"
! "$SFDO_BUILD/sfdo-profile" align "$TEST_TMP/bare.prof" "$TEST_TMP/old/prog" \
    -o "$TEST_TMP/bare.out" 2> "$TEST_TMP/bare.err" ||
    fail "sfdo-profile align took a profile without call sites"
grep -q 'records no call sites' "$TEST_TMP/bare.err" ||
    fail "sfdo-profile align did not say why: $(cat "$TEST_TMP/bare.err")"
[[ ! -e $TEST_TMP/bare.out ]] || fail "sfdo-profile align left an output after an error"
printf '%s\n' "${table[@]}" >&2
echo "$TEST_NAME: $(IFS=';'; echo "${table[*]}")"
