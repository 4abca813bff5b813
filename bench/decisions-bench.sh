#!/usr/bin/env bash
# bench/decisions-bench.sh - what the profile makes GCC decide, family by
# family, beside instrumented PGO, and what each family is worth (the
# transform ladder), on real programs from Debian source packages.
#
# Usage: bench/decisions-bench.sh [--quick] [--record timer|emulate]
#
#   For each program (SFDO_BENCH_DECIDE_PROGRAMS, default "lua sqlite"):
#   builds -O2, -O2 with FDO's flags and no profile (O2x), instrumented PGO
#   trained on the train input, and sfdo from a recording of the -O2 build
#   on the same train input (sfdo-record on the timer, with its default
#   stack copies for the call edges, and registers; --record emulate uses
#   its emulated PMU: taken-branch samples with branch stacks and
#   registers, where the timer weighs blocks by time), climbing the
#   ladder:
#     counts   the profile's counts only (every family off)
#     +hotcold cold blocks and never-run functions
#     +inline  call counts, inline replay
#     +loops   trip-count estimates
#     +icall   indirect and virtual call promotion
#     +values  division and string-operation specialisation (= sfdo)
#   and sfdo without -ftracer, with its counts given AFDO or PRECISE
#   quality instead of ADJUSTED, and from a recording at a tenth of the
#   period (dense: what ten runs merged would hold); and sfdo from two
#   more recordings of the same run, for the spread of its decisions
#   between recordings.  Then:
#     1. decisions (bench/decisions.py): per family, how many PGO made and
#        the share sfdo makes too, and the share of sfdo's it does not;
#     2. instructions and taken jumps of one run of a small ref input, by
#        callgrind (../shared/tools/jumps.py): deterministic, where wall
#        time here drifts by 15%;
#     3. wall time on the ref input, interleaved, SFDO_BENCH_DECIDE_REPS
#        repetitions (default 9), median ratios to -O2 with an A/A row
#        (bench/real/measure.py), and the share of PGO's gain.
#   Writes the section "## Decisions and the transform ladder" of
#   bench/RESULTS.md (not with --quick, which builds and checks outputs).
#
# Exit status: 0 done; 1 a step failed; 77 sources or tools missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full RECORD=timer
while (($#)); do
    case $1 in
        --quick) MODE=quick ;;
        --record) RECORD=$2; shift ;;
        --record=*) RECORD=${1#--record=} ;;
        *) echo "usage: bench/decisions-bench.sh [--quick] [--record timer|emulate]" >&2; exit 2 ;;
    esac
    shift
done
[[ $RECORD == timer || $RECORD == emulate ]] ||
    { echo "decisions-bench: --record takes timer or emulate" >&2; exit 2; }
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/decisions/$MODE-$RECORD
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
REPS=${SFDO_BENCH_DECIDE_REPS:-9}
[[ $MODE == quick ]] && REPS=1
read -r -a PROGS <<<"${SFDO_BENCH_DECIDE_PROGRAMS:-lua sqlite}"
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh
say() { printf '%s\n' "$*"; }
die() { printf 'decisions-bench: error: %s\n' "$*" >&2; exit 1; }
JUMPS=$ROOT/../shared/tools/jumps.py

for t in sfdo-convert sfdo-record samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
[[ -f $JUMPS ]] || { echo "SKIP: decisions-bench: $JUMPS is absent (../shared)" >&2; exit 77; }
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"
prepare_lua
[[ " ${PROGS[*]} " == *" sqlite "* ]] && prepare_sqlite

. bench/real/inputs.sh

# The ladder: each rung turns one more family on.
LADDER=(counts hotcold inline loops icall sfdo)
ladder_args() {
    local off=""
    case $1 in
        counts) off="hotcold inline loops icall values" ;;
        hotcold) off="inline loops icall values" ;;
        inline) off="loops icall values" ;;
        loops) off="icall values" ;;
        icall) off="values" ;;
    esac
    local f a=""
    for f in $off; do a+=" -fplugin-arg-samplefdo-no-$f"; done
    echo "$a"
}

# flags_of PROG VARIANT: the compiler flags of a variant (on top of -O2).
flags_of() {
    local p=$1 v=$2 prof=$WORK/prof/$1/sfdo.prof plugin=$BUILD/samplefdo.so
    local common="-g -fopt-info-optimized=@OBJ@.opt -fdump-ipa-profile_estimate=@OBJ@.pe"
    [[ $p == lua ]] && common+=" -D'luai_makeseed(L)=0u'"
    case $v in
        O2) echo "$common" ;;
        O2x) echo "$common $O2X_FLAGS" ;;
        pgo-gen) echo "-g -fprofile-generate -fprofile-update=single -D'luai_makeseed(L)=0u'" ;;
        pgo) echo "$common -fprofile-use -Wno-missing-profile" ;;
        notracer) echo "$common -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof -fno-tracer" ;;
        afdo|precise) echo "$common -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof -fplugin-arg-samplefdo-quality=$v" ;;
        dense|again*) echo "$common -fplugin=$plugin -fplugin-arg-samplefdo-profile=$WORK/prof/$p/$v.prof" ;;
        *) echo "$common -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof $(ladder_args "$v")" ;;
    esac
}

build_one() {   # PROG VARIANT [DIR]: the instrumented build goes to pgo/,
                # where its .gcda files are named after the objects
    local d=$WORK/build/$1/${3:-$2}
    [[ $2 == pgo ]] || rm -rf "$d"
    [[ $2 == pgo ]] && find "$d" -name '*.o' -delete
    mkdir -p "$d"
    "build_$1" "$d" "$(flags_of "$1" "$2")" > "$d/build.log" 2>&1 ||
        { tail -20 "$d/build.log" >&2; die "building $1 $2 failed"; }
}

record_train() {   # PROG NAME PERIOD: PROG's train run into NAME.prof
    local p=$1 name=$2 period=$3 d=$WORK/prof/$1 bin
    mkdir -p "$d"
    bin=$WORK/build/$p/O2/$(prog_binary "$p")
    # The timer: sfdo-record's default stack copies give the call edges
    # (the -O2 build keeps no frame pointers for -g).
    local opts=(-c "$period" --regs)
    [[ $RECORD == emulate ]] && opts=(--emulate -c "$period" -b --regs)
    (cd "$d" && "$BUILD/sfdo-record" -q -o "$name.data" "${opts[@]}" -- \
        sh -c "$(run_cmd "$p" "$bin" train)" > /dev/null 2> "$name.err") ||
        die "recording $p failed: $(head -3 "$d/$name.err")"
    "$BUILD/sfdo-convert" -q -o "$d/$name.prof" "$d/$name.data" "$bin" ||
        die "converting $p failed"
}
# The recording's period, and a tenth of it for "dense": ten times the
# samples, what ten such runs merged (or a fleet's profile) would hold.
PERIOD=50000
[[ $RECORD == emulate ]] && PERIOD=20011
DENSE_PERIOD=5000
[[ $RECORD == emulate ]] && DENSE_PERIOD=2003

# Besides the ladder: sfdo without the tracer, with the counts given
# another quality (counts.cc explains the default, adjusted), and from
# the dense recording.
EXTRA=(notracer afdo precise dense)
VARIANTS=(O2 O2x pgo "${LADDER[@]}" "${EXTRA[@]}")
# Two more recordings of the same train run, each built as sfdo: a
# sample profile's decisions vary from one recording to the next, and a
# figure from one recording alone cannot say by how much.  Decisions
# only; not timed.
AGAIN=(again2 again3)
for p in "${PROGS[@]}"; do
    say "== $p: builds"
    build_one "$p" O2
    build_one "$p" pgo-gen pgo
    (cd "$WORK/build/$p/pgo" && sh -c "$(run_cmd "$p" "./$(prog_binary "$p")" train)" > /dev/null)
    build_one "$p" pgo
    record_train "$p" sfdo "$PERIOD"
    record_train "$p" dense "$DENSE_PERIOD"
    for v in "${AGAIN[@]}"; do record_train "$p" "$v" "$PERIOD"; done
    for v in O2x "${LADDER[@]}" "${EXTRA[@]}" "${AGAIN[@]}"; do build_one "$p" "$v"; done
    say "  built $p: ${VARIANTS[*]} ${AGAIN[*]} ($(( $(date +%s) - START )) s)"
done

# 1. decisions
for p in "${PROGS[@]}"; do
    dirs=()
    for v in O2 O2x "${LADDER[@]}" "${EXTRA[@]}" "${AGAIN[@]}"; do
        dirs+=("$WORK/build/$p/$v")
    done
    "$BUILD/sfdo-profile" convert --text "$WORK/prof/$p/sfdo.prof" |
        sed -n 's/^\([^ #][^ ]*\):0:0$/\1/p' > "$WORK/unsampled-$p.txt"
    python3 bench/decisions.py --json "$WORK/decisions-$p.json" \
        --unsampled "$WORK/unsampled-$p.txt" \
        "$WORK/build/$p/pgo" "${dirs[@]}" > "$WORK/decisions-$p.txt"
done

# 2. deterministic counts of the small input
: > "$WORK/jumps.tsv"
for p in "${PROGS[@]}"; do
    for v in "${VARIANTS[@]}"; do
        read -r ir tk < <(count_small "$JUMPS" "$p" "$WORK/build/$p/$v/$(prog_binary "$p")")
        printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$ir" "$tk" >> "$WORK/jumps.tsv"
    done
    say "  counted $p ($(( $(date +%s) - START )) s)"
done

# 3. wall time
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
[[ $MODE == quick ]] && { say "decisions-bench --quick: every variant built and printed what -O2 prints"; exit 0; }

python3 bench/decisions-report.py "$WORK" --programs "${PROGS[*]}" \
    --record "$RECORD" --reps "$REPS" --elapsed "$(( $(date +%s) - START ))" \
    --command "bench/decisions-bench.sh --record $RECORD" > "$WORK/section.md"
results_write_section "## Decisions and the transform ladder" "$WORK/section.md"
say "wrote the section \"## Decisions and the transform ladder\" of bench/RESULTS.md"
