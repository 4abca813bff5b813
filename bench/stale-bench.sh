#!/usr/bin/env bash
# bench/stale-bench.sh - a profile of an older release applied to the
# current one (issue #18): Lua 5.4.2's profile (Debian 11's lua5.4) on Lua
# 5.4.4 (Debian 12's), with the plugin aligning it by call sites
# (plugin/stale.cc) and without (-fplugin-arg-samplefdo-no-realign),
# beside a fresh profile of 5.4.4 and instrumented PGO.
#
# Usage: bench/stale-bench.sh [--quick] [--record timer|emulate]
#
#   Both releases are built at -O2 -g and recorded on the same training
#   scripts (bench/real/lua, the train sizes of bench/decisions-bench.sh):
#   by default with the emulated PMU (--emulate -b --regs: branch stacks,
#   instructions, registers), or with the timer.  Lua 5.4.4 is then built
#   with each profile, each object dumping its final block counts, and
#   measured:
#     1. block overlap (scripts/count-overlap.py) of each build's counts
#        with the fresh profile's and with -fprofile-use's (the plugin in
#        dump-only mode under -fprofile-use);
#     2. what the plugin said: functions whose lines moved, and the weight
#        moved strongly, weakly and left out;
#     3. instructions and taken jumps of one run of the small inputs
#        (callgrind, ../shared/tools/jumps.py): the share of PGO's
#        taken-jump cut, and of the fresh profile's cut the stale one keeps;
#     4. wall time on the ref inputs, interleaved (bench/real/measure.py,
#        SFDO_BENCH_STALE_REPS repetitions, default 7), with an A/A row.
#   Writes the section "## Stale profiles: an older release's profile" of
#   bench/RESULTS.md (not with --quick: one repetition, small inputs).
#
#   Lua 5.4.2's sources come from deb.debian.org's pool (Debian 11's
#   lua5.4_5.4.2.orig.tar.gz, checked by its SHA-256), Lua 5.4.4's from
#   apt-get source (bench/real/fetch.sh); both under bench/work/ (ignored).
#
# Exit status: 0 done; 1 a step failed; 77 sources or tools missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full RECORD=emulate
while (($#)); do
    case $1 in
        --quick) MODE=quick ;;
        --record) RECORD=$2; shift ;;
        --record=*) RECORD=${1#--record=} ;;
        *) echo "usage: bench/stale-bench.sh [--quick] [--record timer|emulate]" >&2; exit 2 ;;
    esac
    shift
done
[[ $RECORD == timer || $RECORD == emulate ]] ||
    { echo "stale-bench: --record takes timer or emulate" >&2; exit 2; }
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/stale/$MODE-$RECORD
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
REPS=${SFDO_BENCH_STALE_REPS:-7}
[[ $MODE == quick ]] && REPS=1
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh
say() { printf '%s\n' "$*"; }
die() { printf 'stale-bench: error: %s\n' "$*" >&2; exit 1; }
JUMPS=$ROOT/../shared/tools/jumps.py
OLD_TAR=lua5.4_5.4.2.orig.tar.gz
OLD_SHA=11570d97e9d7303c0a59567ed1ac7c648340cd0db10d5fd594c09223ef2f524f
OLD_URL=http://deb.debian.org/debian/pool/main/l/lua5.4/$OLD_TAR
OLD_SRC=$ROOT/bench/work/stale/src/lua-5.4.2/src
NEW_SRC=$SRC/lua5.4-5.4.4/src

for t in sfdo-convert sfdo-record samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
[[ -f $JUMPS ]] || { echo "SKIP: stale-bench: $JUMPS is absent (../shared)" >&2; exit 77; }
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"
prepare_lua

fetch_old() {
    local d=$ROOT/bench/work/stale/src
    [[ -f $OLD_SRC/lvm.c ]] && return 0
    mkdir -p "$d"
    curl -fsS -o "$d/$OLD_TAR" "$OLD_URL" ||
        { echo "SKIP: stale-bench: cannot download $OLD_URL" >&2; exit 77; }
    echo "$OLD_SHA  $d/$OLD_TAR" | sha256sum -c --quiet - ||
        die "$OLD_TAR does not have the expected SHA-256"
    tar -C "$d" -xzf "$d/$OLD_TAR"
}
fetch_old

LUA_DIR=$ROOT/bench/real/lua
LUA_SCRIPTS=(fib binarytrees nbody spectralnorm fannkuch strings sort)
LUA_TRAIN=(25 10 20000 100 8 20000 20000)
LUA_SMALL=(22 9 6000 60 7 6000 6000)
if [[ $MODE == quick ]]; then LUA_REF=("${LUA_SMALL[@]}"); else
    LUA_REF=(32 13 100000 300 9 80000 60000); fi

# run_cmd BIN WHICH: the shell command of a run (train, small, ref).
run_cmd() {
    local b=$1 i c="" sizes=()
    case $2 in train) sizes=("${LUA_TRAIN[@]}") ;; small) sizes=("${LUA_SMALL[@]}") ;;
        *) sizes=("${LUA_REF[@]}") ;; esac
    for i in "${!LUA_SCRIPTS[@]}"; do
        c+="$b $LUA_DIR/${LUA_SCRIPTS[i]}.lua ${sizes[i]}; "
    done
    echo "$c"
}

# build_tree DIR SRCDIR "FLAGS": Lua from SRCDIR into DIR/lua.
build_tree() {
    local f srcs=()
    for f in "$2"/*.c; do [[ $f == */luac.c ]] || srcs+=("$f"); done
    # objects only: the instrumented build's .gcda files stay beside them
    # for the -fprofile-use build
    find "$1" -name '*.o' -delete
    compile_objs "$1" "$3 -D'luai_makeseed(L)=0u' -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$SRC/lua-inc" \
        "-lm -ldl -Wl,-E" lua "${srcs[@]}" > "$1/build.log" 2>&1 ||
        { tail -20 "$1/build.log" >&2; die "building $1 failed"; }
}

# record DIR: DIR/lua's train runs into DIR/sfdo.prof.
record() {
    local opts=(-c 50000 --regs)
    [[ $RECORD == emulate ]] && opts=(--emulate -c 20011 -b --regs)
    (cd "$1" && "$BUILD/sfdo-record" -q -o train.data "${opts[@]}" -- \
        sh -c "$(run_cmd ./lua train)" > /dev/null 2> record.err) ||
        die "recording $1 failed: $(head -3 "$1/record.err")"
    "$BUILD/sfdo-convert" -q -o "$1/sfdo.prof" "$1/train.data" "$1/lua" ||
        die "converting $1 failed"
}

PLUGIN=$BUILD/samplefdo.so
DUMP="-fplugin-arg-samplefdo-dump=@OBJ@.dump"
flags_of() {   # VARIANT: its flags on top of -O2
    case $1 in
        O2) echo "-g" ;;
        pgo-gen) echo "-g -fprofile-generate -fprofile-update=single" ;;
        pgo) echo "-g -fprofile-use -Wno-missing-profile -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$WORK/new/sfdo.prof -fplugin-arg-samplefdo-dump-only $DUMP" ;;
        fresh) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$WORK/new/sfdo.prof $DUMP" ;;
        stale) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$WORK/old/sfdo.prof -fplugin-arg-samplefdo-verbose $DUMP" ;;
        unaligned) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$WORK/old/sfdo.prof -fplugin-arg-samplefdo-no-realign $DUMP" ;;
    esac
}

say "== builds and profiles"
rm -rf "$WORK"
mkdir -p "$WORK"/{old,new,pgo,fresh,stale,unaligned}
build_tree "$WORK/old" "$OLD_SRC" "-g"
record "$WORK/old"
build_tree "$WORK/new" "$NEW_SRC" "-g"
record "$WORK/new"
build_tree "$WORK/pgo" "$NEW_SRC" "$(flags_of pgo-gen)"
(cd "$WORK/pgo" && sh -c "$(run_cmd ./lua train)" > /dev/null)
build_tree "$WORK/pgo" "$NEW_SRC" "$(flags_of pgo)"
for v in fresh stale unaligned; do build_tree "$WORK/$v" "$NEW_SRC" "$(flags_of "$v")"; done
say "  built ($(( $(date +%s) - START )) s)"

# 1. overlap, 2. what the plugin said
: > "$WORK/overlap.tsv"
for v in pgo fresh stale unaligned; do
    collect_dump "$WORK/$v"
    python3 bench/real/dump-global.py "$WORK/$v/dump" "$WORK/$v/dump.global" > /dev/null
done
for v in fresh stale unaligned; do
    for ref in fresh pgo; do
        [[ $v == "$ref" ]] && continue
        o=$(python3 scripts/count-overlap.py "$WORK/$ref/dump.global" "$WORK/$v/dump.global" | paste -sd' ')
        printf '%s\t%s\t%s\n' "$v" "$ref" "$o" >> "$WORK/overlap.tsv"
    done
done
grep -h 'samplefdo: .*: stale profile: \|lines moved with' "$WORK/stale/build.log" > "$WORK/stale.notes" || true

# 3. deterministic counts of the small inputs
: > "$WORK/jumps.tsv"
for v in new pgo fresh stale unaligned; do
    ir=0 tk=0
    while IFS= read -r cmd; do
        [[ -n $cmd ]] || continue
        read -r -a words <<<"$cmd"
        read -r _ a _ b < <(python3 "$JUMPS" -- "${words[@]}")
        ir=$((ir + a)) tk=$((tk + b))
    done < <(run_cmd "$WORK/$v/lua" small | tr ';' '\n' | sed 's/^ *//')
    printf '%s\t%s\t%s\n' "$v" "$ir" "$tk" >> "$WORK/jumps.tsv"
done
say "  counted ($(( $(date +%s) - START )) s)"

# 4. wall time
SPEC=$WORK/spec.tsv
: > "$SPEC"
for v in O2 O2again pgo fresh stale unaligned; do
    b=$WORK/$v/lua
    [[ $v == O2 || $v == O2again ]] && b=$WORK/new/lua
    run_cmd "$b" ref | tr ';' '\n' | sed 's/^ *//' | while IFS= read -r cmd; do
        if [[ -n $cmd ]]; then printf 'lua\t%s\t-\t%s\n' "$v" "$cmd"; fi
    done >> "$SPEC"
done
python3 bench/real/measure.py "$SPEC" "$REPS" "$WORK/runs" "$WORK/times.json" ||
    die "timing failed (outputs differ?)"
[[ $MODE == quick ]] && { say "stale-bench --quick: every variant built and printed what -O2 prints"; exit 0; }

python3 bench/stale-report.py "$WORK" --record "$RECORD" --reps "$REPS" \
    --elapsed "$(( $(date +%s) - START ))" \
    --command "bench/stale-bench.sh --record $RECORD" \
    --diff "$(diff -u "$OLD_SRC" "$NEW_SRC" | grep -c '^[-+][^-+]' || true)" > "$WORK/section.md"
results_write_section "## Stale profiles: an older release's profile" "$WORK/section.md"
say "wrote the section \"## Stale profiles: an older release's profile\" of bench/RESULTS.md"
