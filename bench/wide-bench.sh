#!/usr/bin/env bash
# bench/wide-bench.sh - sfdo beside instrumented PGO on every real program
# of the benches (issue 36 item 1): Lua, SQLite, xz, bzip2, zstd, gzip,
# jq and xmllint, from Debian source packages, counted under callgrind.
#
# Usage: bench/wide-bench.sh [--quick | --same-recordings | --new-timer | --iterate N]
#
#   For each program (SFDO_BENCH_WIDE_PROGRAMS, default all eight) builds
#   (bench/real/build.sh) -O2, O2x (FDO's flags, no profile), instrumented
#   PGO trained on the train run, and sfdo from two recordings of the -O2
#   build's train run: sfdo-record at its defaults (this machine's timer)
#   and its emulated PMU with branch stacks and registers (--emulate -b
#   --regs).  Then, on the ref run (bench/real/inputs.sh: the small run,
#   sized for callgrind; for zstd, gzip, jq and xmllint their one ref
#   input, other data than train's):
#     - every variant's output must equal -O2's (bench/real/measure.py,
#       one repetition);
#     - instructions and taken jumps of each variant, by callgrind
#       (../shared/tools/jumps.py): deterministic, where wall time here
#       drifts by 15%;
#     - the decisions of each sfdo build beside PGO's, by family
#       (bench/decisions.py);
#   and writes the section "## Wide bench: sfdo beside PGO on eight real
#   programs" of bench/RESULTS.md (bench/wide-report.py; not with
#   --quick, whose inputs are small).  A program whose results are there
#   from a run with the same scripts and tools is not built again, so a
#   run with more programs redoes only the new ones.
#
#   --same-recordings: after a change to the plugin, rebuild and count
#   only the two sfdo variants, from the recordings of the last run
#   (which vary from one timer recording to the next), and write the
#   section again; -O2's, O2x's and PGO's counts are kept.  Each
#   program's "measured" note then names the commit of the rebuild.
#   The recordings are converted again by the sfdo-convert built now.
#
#   --new-timer: as --same-recordings, but the timer recording of each
#   program's train run is made again by the sfdo-record built now
#   (after a change to the recorder; the emulated one is kept).
#
#   --iterate N: round after round, as production records the last FDO
#   build (issue 36 item 3): round 1 is the sfdo build from the last
#   run's emulated recording (converted and built again with the tools
#   built now); round k records round k-1's build's train run the same
#   way (--emulate -b --regs) and builds from that.  Rounds 1 to N of
#   each program, outputs checked, ref runs counted; writes the section
#   "## Iteration: the wide bench's programs" of bench/RESULTS.md.
#
# Environment: SFDO_BENCH_WIDE_PROGRAMS, SFDO_BENCH_REAL_JOBS (compiles
#   and callgrind runs at a time, default 2).
#
# Exit status: 0 done; 1 a step failed (a build, a recording, an output
# mismatch); 77 sources or tools missing ("SKIP: ..." on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full
SAME_RECORDINGS=0
ITERATE=0
NEW_TIMER=0
usage() { echo "usage: bench/wide-bench.sh [--quick | --same-recordings | --new-timer | --iterate N]" >&2; exit 2; }
case ${1:-} in
    --quick) MODE=quick ;;
    --same-recordings) SAME_RECORDINGS=1 ;;
    --new-timer) SAME_RECORDINGS=1 NEW_TIMER=1 ;;
    --iterate) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
               ITERATE=$2 ;;
    '') ;;
    *) usage ;;
esac
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/wide/$MODE
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
read -r -a PROGS <<<"${SFDO_BENCH_WIDE_PROGRAMS:-lua sqlite xz bzip2 zstd gzip jq xmllint}"
VARIANTS=(O2 O2x pgo sfdo-timer sfdo-emu)
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh
say() { printf '%s\n' "$*"; }
die() { printf 'wide-bench: error: %s\n' "$*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - START )) s"; }
JUMPS=$ROOT/../shared/tools/jumps.py

for t in sfdo-convert sfdo-record samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
[[ -f $JUMPS ]] || { echo "SKIP: wide-bench: $JUMPS is absent (../shared)" >&2; exit 77; }
can_emulate "$BUILD" ||
    { echo "SKIP: wide-bench: sfdo-record --emulate does not run here: $(cat "$BUILD/sfdoemu.not-built" 2>/dev/null)" >&2; exit 77; }
rc=0; bench/real/fetch.sh --wide || rc=$?
((rc == 0)) || exit "$rc"

. bench/real/inputs.sh
IN=$WORK/inputs
XZ_IN=$IN/xz BZ_IN=$IN/bzip2 ZSTD_IN=$IN/zstd GZ_IN=$IN/gzip JQ_IN=$IN/jq XML_IN=$IN/xmllint
mkdir -p "$WORK/results"
for p in "${PROGS[@]}"; do
    case $p in
        lua) prepare_lua ;;
        sqlite) prepare_sqlite ;;
        # xz's ref input holds bytes of the SQLite amalgamation
        xz) prepare_sqlite; prepare_xz; make_xz_inputs ;;
        bzip2) make_bzip2_inputs ;;
        zstd) make_zstd_inputs ;;
        gzip) prepare_gzip; make_gzip_inputs ;;
        jq) prepare_jq; make_jq_inputs ;;
        xmllint) prepare_xmllint; make_xmllint_inputs ;;
        *) die "unknown program $p" ;;
    esac
done

# How each recording is made (sfdo-record's options beyond -q -o).
TIMER_OPTS=()
EMU_OPTS=(--emulate -b --regs)

# flags_of PROG VARIANT: the compiler flags of a variant (on top of -O2).
# Lua's string hash is seeded from the clock and addresses: fixed, so
# its counts do not move between runs.  PGO keeps -Wmissing-profile on:
# its build log names the units the training run never reached.
flags_of() {
    local p=$1 v=$2 plugin=$BUILD/samplefdo.so seed=""
    [[ $p == lua ]] && seed="-D'luai_makeseed(L)=0u'"
    local common="-g -fopt-info-optimized=@OBJ@.opt -fdump-ipa-profile_estimate=@OBJ@.pe $seed"
    case $v in
        O2) echo "$common" ;;
        O2x) echo "$common $O2X_FLAGS" ;;
        pgo-gen) echo "-g -fprofile-generate -fprofile-update=single $seed" ;;
        pgo) echo "$common -fprofile-use" ;;
        sfdo-*) echo "$common -fplugin=$plugin -fplugin-arg-samplefdo-profile=$WORK/prof/$p/${v#sfdo-}.prof" ;;
    esac
}

# What a program's counts depend on: the build and input scripts, the
# inputs' makers, the variants' flags, the recordings' options and the
# tools; not this script's reporting, so a change there keeps the
# programs already measured.
KEY=$( { cat bench/real/build.sh bench/real/inputs.sh bench/real/cc-wrap.sh bench/real/gen-input.py bench/real/jq/*.jq bench/real/lua/*.lua \
             "$BUILD/samplefdo.so" "$BUILD/sfdo-convert" "$BUILD/sfdo-record"
         for v in "${VARIANTS[@]}" pgo-gen; do flags_of lua "$v"; done
         echo "${TIMER_OPTS[*]} / ${EMU_OPTS[*]}"; } | sha1sum | cut -c1-16)

build_one() {   # PROG VARIANT
    local p=$1 v=$2 d=$WORK/build/$1/$2
    rm -rf "$d" && mkdir -p "$d"
    # -fprofile-use reads the counts next to its own objects
    [[ $v == pgo ]] && gcda_copy "$p" "$WORK/build/$p/pgo-gen" "$d"
    "build_$p" "$d" "$(flags_of "$p" "$v")" > "$d/build.log" 2>&1 ||
        { tail -n 20 "$d/build.log" >&2; die "building $p $v failed (log: $d/build.log)"; }
    [[ -x $d/$(prog_binary "$p") ]] || die "$p $v: no binary $d/$(prog_binary "$p")"
}

# record_train PROG NAME OPTION...: the train run of the -O2 build (of
# the build $FROM names, if set) recorded by sfdo-record with OPTIONs,
# converted to $WORK/prof/PROG/NAME.prof.
record_train() {
    local p=$1 name=$2 d=$WORK/prof/$1 bin
    shift 2
    mkdir -p "$d"
    bin=$WORK/build/$p/${FROM:-O2}/$(prog_binary "$p")
    (cd "$d" && "$BUILD/sfdo-record" -q -o "$name.data" "$@" -- \
        sh -c "$(run_cmd "$p" "$bin" train)" > /dev/null 2> "$name.err") ||
        die "recording $p ($name) failed: $(head -n 3 "$d/$name.err")"
    convert_train "$p" "$name" "$bin"
}

# convert_train PROG NAME BINARY: $WORK/prof/PROG/NAME.data converted.
convert_train() {
    local d=$WORK/prof/$1 name=$2
    "$BUILD/sfdo-convert" -q -o "$d/$name.prof" "$d/$name.data" "$3" 2> "$d/$name.convert.err" ||
        die "converting $1 ($name) failed: $(head -n 3 "$d/$name.convert.err")"
}

# count_variants PROG VARIANT...: instructions and taken jumps of each
# VARIANT's ref run, JOBS callgrind runs at a time, into $WORK/PROG.counts.
count_variants() {
    local p=$1 v
    shift
    for v in "$@"; do
        (count_small "$JUMPS" "$p" "$WORK/build/$p/$v/$(prog_binary "$p")" \
            > "$WORK/count.$p.$v" 2> "$WORK/count.$p.$v.err") &
        while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || die "counting $p failed: $(cat "$WORK"/count."$p".*.err)"; done
    done
    wait || die "counting $p failed"
    for v in "$@"; do
        [[ -s $WORK/count.$p.$v ]] || die "counting $p $v failed: $(cat "$WORK/count.$p.$v.err")"
        printf '%s\t%s\t%s\n' "$p" "$v" "$(tr ' ' '\t' < "$WORK/count.$p.$v")"
    done > "$WORK/$p.counts"
}

# check_outputs PROG VARIANT...: each VARIANT's ref output equals -O2's
# (one run each; -O2 must be among the VARIANTs).
check_outputs() {
    local p=$1 v spec=$WORK/$1.spec norm=-
    shift
    [[ $p == sqlite ]] && norm=strip-times
    : > "$spec"
    for v in "$@"; do
        run_cmd "$p" "$WORK/build/$p/$v/$(prog_binary "$p")" small | tr ';' '\n' | sed 's/^ *//' |
            while IFS= read -r cmd; do
                if [[ -n $cmd ]]; then printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$norm" "$cmd"; fi
            done >> "$spec"
    done
    python3 bench/real/measure.py "$spec" 1 "$WORK/runs-$p" "$WORK/$p.outputs.json" > "$WORK/$p.measure.log" ||
        { cat "$WORK/$p.measure.log" >&2; die "$p: a variant's ref output differs from -O2's"; }
}

# count_samples PROG: the samples of its timer and emulated recordings,
# for the report's Runs table, into $WORK/results/PROG.samples.
count_samples() {
    local f
    for f in timer emu; do
        perf script -i "$WORK/prof/$1/$f.data" -F ip 2>/dev/null | wc -l
    done | paste -sd' ' > "$WORK/results/$1.samples"
}

# rebuild_sfdo PROG: the sfdo variants again from the recordings in
# $WORK/prof/PROG, their outputs checked against -O2's, their counts in
# place of the old ones in $WORK/results/PROG.counts (--same-recordings).
rebuild_sfdo() {
    local p=$1 v p_start
    p_start=$(date +%s)
    need_earlier_run "$p"
    if ((NEW_TIMER)); then
        record_train "$p" timer ${TIMER_OPTS[@]+"${TIMER_OPTS[@]}"}
        count_samples "$p"
    fi
    for v in timer emu; do convert_train "$p" "$v" "$WORK/build/$p/O2/$(prog_binary "$p")"; done
    for v in sfdo-timer sfdo-emu; do build_one "$p" "$v"; done
    check_outputs "$p" O2 sfdo-timer sfdo-emu
    count_variants "$p" sfdo-timer sfdo-emu
    grep -v -P '\tsfdo-(timer|emu)\t' "$WORK/results/$p.counts" > "$WORK/$p.counts.kept" || true
    cat "$WORK/$p.counts.kept" "$WORK/$p.counts" > "$WORK/results/$p.counts"
    rm -f "$WORK/$p.counts" "$WORK/$p.counts.kept"
    python3 bench/decisions.py --json "$WORK/results/$p.decisions.json" "$WORK/build/$p/pgo" \
        "$WORK/build/$p/sfdo-timer" "$WORK/build/$p/sfdo-emu" > "$WORK/$p.decisions.txt"
    say "  $p: sfdo rebuilt and counted ($(elapsed))"
}

need_earlier_run() {   # PROG
    [[ -s $WORK/results/$1.counts && -s $WORK/prof/$1/timer.data && -s $WORK/prof/$1/emu.data ]] ||
        die "$1: no earlier run's counts and recordings in $WORK: run bench/wide-bench.sh first"
}

# iterate PROG: rounds 1 to ITERATE (variants sfdo-iter1, ...), each from
# the emulated recording of the one before (round 1: of -O2), their ref
# runs counted into $WORK/results/PROG.iterate.
iterate() {
    local p=$1 k v rounds=()
    need_earlier_run "$p"
    for ((k = 1; k <= ITERATE; k++)); do
        if ((k == 1)); then
            cp "$WORK/prof/$p/emu.data" "$WORK/prof/$p/iter1.data"
            convert_train "$p" iter1 "$WORK/build/$p/O2/$(prog_binary "$p")"
        else
            FROM=sfdo-iter$((k - 1)) record_train "$p" "iter$k" "${EMU_OPTS[@]}"
        fi
        build_one "$p" "sfdo-iter$k"
        rounds+=("sfdo-iter$k")
        say "  $p: round $k built ($(elapsed))"
    done
    check_outputs "$p" O2 "${rounds[@]}"
    count_variants "$p" "${rounds[@]}"
    mv "$WORK/$p.counts" "$WORK/results/$p.iterate"
    say "  $p: $ITERATE rounds counted ($(elapsed))"
}

if ((ITERATE)); then
    for p in "${PROGS[@]}"; do iterate "$p"; done
    python3 bench/wide-report.py --iterate "$ITERATE" "$WORK/results" "${PROGS[@]}" \
        --command "${SFDO_BENCH_WIDE_PROGRAMS:+SFDO_BENCH_WIDE_PROGRAMS=\"$SFDO_BENCH_WIDE_PROGRAMS\" }bench/wide-bench.sh --iterate $ITERATE" \
        --elapsed "$(( $(date +%s) - START ))" > "$WORK/iterate.md"
    cat "$WORK/iterate.md"
    results_write_section "## Iteration: the wide bench's programs" "$WORK/iterate.md"
    say "wrote the section \"## Iteration: the wide bench's programs\" of bench/RESULTS.md ($(elapsed))"
    exit 0
fi

REUSED=()
if ((SAME_RECORDINGS)); then
    for p in "${PROGS[@]}"; do rebuild_sfdo "$p"; done
fi
for p in "${PROGS[@]}"; do
    ((SAME_RECORDINGS)) && break
    if [[ $(cat "$WORK/results/$p.key" 2>/dev/null) == "$KEY" ]]; then
        say "== $p: results of a run with the same scripts and tools are in $WORK/results"
        REUSED+=("$p")
        continue
    fi
    rm -f "$WORK/results/$p".*
    p_start=$(date +%s)
    say "== $p: builds, training and recordings ($(elapsed))"
    build_one "$p" O2
    build_one "$p" pgo-gen
    g=$WORK/build/$p/pgo-gen
    (cd "$g" && sh -c "$(run_cmd "$p" "$g/$(prog_binary "$p")" train)" > /dev/null 2> "$g/train.err") ||
        die "$p: the instrumented train run failed: $(tail -n 3 "$g/train.err")"
    build_one "$p" pgo
    record_train "$p" timer ${TIMER_OPTS[@]+"${TIMER_OPTS[@]}"}
    record_train "$p" emu "${EMU_OPTS[@]}"
    for v in O2x sfdo-timer sfdo-emu; do build_one "$p" "$v"; done
    # Units PGO compiled without counts: the training never ran them
    # (a hot unit here would mean the .gcda names do not match).
    grep -o "'[^']*' profile count data file not found" "$WORK/build/$p/pgo/build.log" |
        sed "s|^'.*/||; s|\.gcda'.*||" | sort -u | paste -sd' ' > "$WORK/results/$p.noprofile" || true
    say "  built $p: ${VARIANTS[*]} ($(elapsed)); PGO without counts: $(cat "$WORK/results/$p.noprofile")"

    # every variant's ref output equals -O2's (one run each)
    check_outputs "$p" "${VARIANTS[@]}"

    say "  $p: outputs equal -O2's; counting the ref run under callgrind ($(elapsed))"
    count_variants "$p" "${VARIANTS[@]}"

    python3 bench/decisions.py --json "$WORK/results/$p.decisions.json" "$WORK/build/$p/pgo" \
        "$WORK/build/$p/sfdo-timer" "$WORK/build/$p/sfdo-emu" > "$WORK/$p.decisions.txt"
    # the runs as the report shows them: inputs/ is $WORK/inputs/
    run_cmd "$p" "<bin>" small | sed "s|$WORK/||g; s|$ROOT/||g" > "$WORK/results/$p.ref-cmd"
    run_cmd "$p" "<bin>" train | sed "s|$WORK/||g; s|$ROOT/||g" > "$WORK/results/$p.train-cmd"
    count_samples "$p"
    mv "$WORK/$p.counts" "$WORK/results/$p.counts"
    # when and how long: a later run that reuses these results says so
    echo "$(( $(date +%s) - p_start )) $(date -u '+%Y-%m-%d %H:%M UTC') $(git rev-parse --short HEAD)" \
        > "$WORK/results/$p.when"
    echo "$KEY" > "$WORK/results/$p.key"
    say "  $p done ($(elapsed))"
done

if [[ $MODE == quick ]]; then
    python3 bench/wide-report.py --quick "$WORK/results" "${PROGS[@]}"
    say "wide-bench --quick: every variant of ${PROGS[*]} built and printed what -O2 prints ($(elapsed))"
    exit 0
fi
REPORT_OPTS=()
if ((SAME_RECORDINGS)); then REUSED=("${PROGS[@]}"); REPORT_OPTS=(--same-recordings); fi
((NEW_TIMER)) && REPORT_OPTS+=(--new-timer)
python3 bench/wide-report.py "$WORK/results" "${PROGS[@]}" \
    --command "${SFDO_BENCH_WIDE_PROGRAMS:+SFDO_BENCH_WIDE_PROGRAMS=\"$SFDO_BENCH_WIDE_PROGRAMS\" }bench/wide-bench.sh" \
    --elapsed "$(( $(date +%s) - START ))" --reused "${REUSED[*]}" \
    ${REPORT_OPTS[@]+"${REPORT_OPTS[@]}"} > "$WORK/section.md"
results_write_section "## Wide bench: sfdo beside PGO on eight real programs" "$WORK/section.md"
say "wrote the section \"## Wide bench: sfdo beside PGO on eight real programs\" of bench/RESULTS.md ($(elapsed))"
