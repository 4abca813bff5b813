#!/usr/bin/env bash
# bench/lipo-bench.sh - what module groups (issue #17) are worth: sfdo's
# profile with and without the grouped link, beside -flto, on real
# programs from Debian source packages.
#
# Usage: bench/lipo-bench.sh [--quick] [--record timer|emulate]
#
#   For each program (SFDO_BENCH_LIPO_PROGRAMS, default "lua sqlite
#   bzip2 xz"): records the -O2 build's training run with sfdo-record
#   (--record emulate, the default where sfdo-record can emulate a PMU:
#   taken-branch samples with branch stacks and registers, whose call
#   edges are exact; timer: the timer, registers and its default stack
#   copies, whose profiles vary more from one recording to the next),
#   converts it with sfdo-convert --groups, and builds
#     O2        -O2
#     pgo       instrumented PGO trained on the same run
#     sfdo      the plugin with sfdo's profile, file by file
#     lipo      the same, objects compiled -flto -ffat-lto-objects
#               -fno-semantic-interposition and linked by sfdo-link with
#               the groups (each group's files joined by an incremental
#               LTO link, everything else linked as ordinary code)
#     O2-lto, pgo-lto, sfdo-lto   whole-program -flto (linked -flto=auto)
#   Then reports the groups (how many, their sizes, the share of the
#   cross-file call weight they hold), each build's wall time (compile and
#   link, SFDO_BENCH_REAL_JOBS at a time), the binary's text size and
#   direct calls, instructions and taken jumps of the small input
#   (callgrind, ../shared/tools/jumps.py, deterministic), and wall time of
#   the ref input, interleaved, SFDO_BENCH_LIPO_REPS repetitions (default
#   9) with an A/A control, as median ratios to -O2 and shares of PGO's
#   gain.  xz links its library from an archive (liblzma.a), whose
#   members sfdo-link groups too.
#   Writes the section "## Module groups (LIPO)" of bench/RESULTS.md (not
#   with --quick, which builds every variant and checks its output).
#
# Exit status: 0 done; 1 a step failed; 2 a usage error; 77 sources or
# tools missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full RECORD=
while (($#)); do
    case $1 in
        --quick) MODE=quick ;;
        --record) RECORD=${2:-}; shift ;;
        --record=*) RECORD=${1#--record=} ;;
        *) echo "usage: bench/lipo-bench.sh [--quick] [--record timer|emulate]" >&2; exit 2 ;;
    esac
    shift
done
BUILD=$ROOT/build
. bench/lib.sh
if [[ -z $RECORD ]]; then
    RECORD=timer
    can_emulate "$BUILD" && RECORD=emulate
fi
[[ $RECORD == timer || $RECORD == emulate ]] ||
    { echo "lipo-bench: --record takes timer or emulate" >&2; exit 2; }
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/lipo/$MODE
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
REPS=${SFDO_BENCH_LIPO_REPS:-9}
[[ $MODE == quick ]] && REPS=1
read -r -a PROGS <<<"${SFDO_BENCH_LIPO_PROGRAMS:-lua sqlite bzip2 xz}"
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
say() { printf '%s\n' "$*"; }
die() { printf 'lipo-bench: error: %s\n' "$*" >&2; exit 1; }
JUMPS=$ROOT/../shared/tools/jumps.py

for t in sfdo-convert sfdo-record sfdo-link samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
[[ -f $JUMPS ]] || { echo "SKIP: lipo-bench: $JUMPS is absent (../shared)" >&2; exit 77; }
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"
prepare_lua
prepare_sqlite   # xz's inputs take some of SQLite's source
[[ " ${PROGS[*]} " == *" xz "* ]] && prepare_xz
mkdir -p "$WORK"

. bench/real/inputs.sh
XZ_IN=$WORK/xz-inputs BZ_IN=$WORK/bzip2-inputs
[[ " ${PROGS[*]} " == *" bzip2 "* ]] && make_bzip2_inputs
[[ " ${PROGS[*]} " == *" xz "* ]] && make_xz_inputs

# flags_of PROG VARIANT: the compiler flags of a variant (on top of -O2).
flags_of() {
    local p=$1 v=$2 common="-g"
    local use="-fplugin=$BUILD/samplefdo.so -fplugin-arg-samplefdo-profile=$WORK/prof/$1/sfdo.prof"
    [[ $p == lua ]] && common+=" -D'luai_makeseed(L)=0u'"
    case $v in
        O2) echo "$common" ;;
        pgo-gen) echo "$common -fprofile-generate -fprofile-update=single" ;;
        pgo) echo "$common -fprofile-use -Wno-missing-profile" ;;
        sfdo) echo "$common $use" ;;
        lipo) echo "$common $use -flto -ffat-lto-objects -fno-semantic-interposition" ;;
        O2-lto) echo "$common -flto" ;;
        pgo-lto) echo "$common -fprofile-use -Wno-missing-profile -flto" ;;
        sfdo-lto) echo "$common $use -flto" ;;
    esac
}

# build_one PROG VARIANT [DIR]: build, and note the seconds it took.  The
# instrumented build goes to pgo/, where its .gcda files are named after
# the objects; the -flto PGO build takes a copy.  The link goes through
# SFDO_BENCH_LINK_PREFIX and SFDO_BENCH_LDFLAGS (bench/real/build.sh's
# compile_objs, and bench/real/cc-wrap.sh for make's links).
build_one() {
    local p=$1 v=$2 d=$WORK/build/$1/${3:-$2} t0 link="" ld=""
    case $v in
        pgo) [[ $p == xz ]] && gcda_copy xz "$d" "$d"
             find "$d" -name '*.o' -delete ;;
        pgo-lto) rm -rf "$d"; gcda_copy "$p" "$WORK/build/$p/pgo" "$d" ;;
        *) rm -rf "$d" ;;
    esac
    mkdir -p "$d"
    [[ $v == lipo ]] && link="$BUILD/sfdo-link -q --groups $WORK/prof/$p/groups --"
    [[ $v == *-lto ]] && ld=-flto=auto
    t0=$(date +%s.%N)
    SFDO_BENCH_LINK_PREFIX=$link SFDO_BENCH_LDFLAGS=$ld \
        "build_$p" "$d" "$(flags_of "$p" "$v")" > "$d/build.log" 2>&1 ||
        { tail -20 "$d/build.log" >&2; die "building $p $v failed"; }
    [[ $v == pgo-gen ]] && return 0
    printf '%s\t%s\t%.2f\n' "$p" "$v" "$(echo "$(date +%s.%N) - $t0" | bc)" >> "$WORK/build.tsv"
}

record_train() {   # PROG
    local p=$1 d=$WORK/prof/$1 bin
    mkdir -p "$d"
    bin=$WORK/build/$p/O2/$(prog_binary "$p")
    local opts=(-c 50000 --regs)
    [[ $RECORD == emulate ]] && opts=(--emulate -c 20011 -b --regs)
    (cd "$d" && "$BUILD/sfdo-record" -q -o train.data "${opts[@]}" -- \
        sh -c "$(run_cmd "$p" "$bin" train)" > /dev/null 2> record.err) ||
        die "recording $p failed: $(head -3 "$d/record.err")"
    "$BUILD/sfdo-convert" -q -o "$d/sfdo.prof" --groups="$d/groups" \
        "$d/train.data" "$bin" || die "converting $p failed"
}

# static_counts BIN: "TEXT-BYTES DIRECT-CALLS" of BIN.
static_counts() {
    local text calls
    text=$(size -A "$1" | awk '$1 ~ /^\.text/ {s += $2} END {print s}')
    calls=$(objdump -d --no-show-raw-insn "$1" | grep -c $'\tcall *[0-9a-f]* <' || true)
    echo "$text $calls"
}

VARIANTS=(O2 pgo sfdo lipo O2-lto pgo-lto sfdo-lto)
: > "$WORK/build.tsv"
for p in "${PROGS[@]}"; do
    say "== $p: builds"
    build_one "$p" O2
    build_one "$p" pgo-gen pgo
    (cd "$WORK/build/$p/pgo" && sh -c "$(run_cmd "$p" "./$(prog_binary "$p")" train)" > /dev/null)
    build_one "$p" pgo
    record_train "$p"
    for v in "${VARIANTS[@]:2}"; do build_one "$p" "$v"; done
    say "  built $p: ${VARIANTS[*]} ($(( $(date +%s) - START )) s)"
done

# Deterministic counts: the small input under callgrind, and the binary.
: > "$WORK/jumps.tsv"
for p in "${PROGS[@]}"; do
    for v in "${VARIANTS[@]}"; do
        bin=$WORK/build/$p/$v/$(prog_binary "$p")
        read -r ir tk < <(count_small "$JUMPS" "$p" "$bin")
        read -r text calls < <(static_counts "$bin")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$v" "$ir" "$tk" "$text" "$calls" >> "$WORK/jumps.tsv"
    done
    say "  counted $p ($(( $(date +%s) - START )) s)"
done

# Wall time of the ref input, interleaved.
SPEC=$WORK/spec.tsv
: > "$SPEC"
for p in "${PROGS[@]}"; do
    for v in O2 O2again "${VARIANTS[@]:1}"; do
        bv=$v; [[ $v == O2again ]] && bv=O2
        bin=$WORK/build/$p/$bv/$(prog_binary "$p")
        norm=-; [[ $p == sqlite ]] && norm=strip-times
        run_cmd "$p" "$bin" ref | tr ';' '\n' | sed 's/^ *//' | while IFS= read -r cmd; do
            if [[ -n $cmd ]]; then printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$norm" "$cmd"; fi
        done >> "$SPEC"
    done
done
python3 bench/real/measure.py "$SPEC" "$REPS" "$WORK/runs" "$WORK/times.json" ||
    die "timing failed (outputs differ?)"
[[ $MODE == quick ]] && { say "lipo-bench --quick: every variant built and printed what -O2 prints"; exit 0; }

python3 bench/lipo-report.py "$WORK" --programs "${PROGS[*]}" --reps "$REPS" \
    --record "$RECORD" --elapsed "$(( $(date +%s) - START ))" \
    --command "bench/lipo-bench.sh --record $RECORD" > "$WORK/section.md"
results_write_section "## Module groups (LIPO)" "$WORK/section.md"
say "wrote the section \"## Module groups (LIPO)\" of bench/RESULTS.md"
