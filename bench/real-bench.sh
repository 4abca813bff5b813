#!/usr/bin/env bash
# bench/real-bench.sh - sfdo against instrumented PGO and GCC's AutoFDO on
# real programs from Debian source packages (issue #5).
#
# Usage: bench/real-bench.sh [--quick | --report-only] [--record=MODE]
#
#   Fetches lua5.4, sqlite3, xz-utils and bzip2 with apt-get source
#   (bench/real/fetch.sh), builds every variant of each from the same
#   sources (bench/real/build.sh), collects the profiles on each program's
#   train input, runs the ref inputs of all variants interleaved under perf
#   stat (bench/real/measure.py, SFDO_BENCH_REAL_REPS repetitions, default
#   19), checks that every variant prints what -O2 prints, and writes the
#   section "## Real programs" of bench/RESULTS.md (bench/real/report.py).
#
#   --quick   small inputs, one repetition, no RESULTS.md: checks that
#             every variant builds and gives -O2's output (make check).
#   --report-only  rewrite the section from the last full run's results
#             (after a change to bench/real/report.py), measuring nothing.
#   --record=MODE  how the profiles of sfdo (and of GCC's AutoFDO fed
#             sfdo's export) are recorded on train: timer (the default:
#             sfdo-record, or perf, on this machine's timer), emu
#             (sfdo-record --emulate: retired instructions, exact), emu-lbr
#             (sfdo-record --emulate -b: taken branches with the emulated
#             LBR).  Each mode has its own work directory and its own
#             section: "## Real programs", "## Real programs, profiles from
#             the emulated PMU (instructions)" or "(LBR)".
#
#   Beside the wall-time ratios, every variant's ref run is counted once
#   under sfdo-record --emulate --stat: instructions and taken branches,
#   deterministic (they do not drift with the machine's load), when the
#   emulator is built.
#
#   Everything goes under bench/work/real/ (git-ignored). Builds are cached
#   per mode: they are redone only when the scripts in bench/real/, the
#   tools in build/ or the perf event change.
#
# Environment: SFDO_BENCH_REAL_REPS, SFDO_BENCH_REAL_JOBS (default 2),
#   SFDO_BENCH_REAL_PROGRAMS (default "lua sqlite xz bzip2"), and the ref
#   sizes: SFDO_BENCH_LUA_REF (the 7 scripts' arguments, comma-separated),
#   SFDO_BENCH_SQL_SIZE, SFDO_BENCH_XZ_KB, SFDO_BENCH_BZIP2_KB.
#
# Exit status: 0 done; 1 failed (a build, a tool, or an output mismatch);
# 77 the sources cannot be fetched here ("SKIP: ..." on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full
REPORT_ONLY=
RECORD=timer
usage() { echo "usage: bench/real-bench.sh [--quick | --report-only] [--record=timer|emu|emu-lbr]" >&2; exit 2; }
for arg in "$@"; do
    case $arg in
        --quick) MODE=quick ;;
        --report-only) REPORT_ONLY=1 ;;
        --record=timer|--record=emu|--record=emu-lbr) RECORD=${arg#--record=} ;;
        *) usage ;;
    esac
done

BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/real/$MODE
SECTION="## Real programs"
case $RECORD in
    emu) WORK+=-emu; SECTION+=", profiles from the emulated PMU (instructions)" ;;
    emu-lbr) WORK+=-emu-lbr; SECTION+=", profiles from the emulated PMU (LBR)" ;;
esac
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
if [[ $MODE == quick ]]; then REPS=1; else REPS=${SFDO_BENCH_REAL_REPS:-19}; fi
read -r -a PROGS <<<"${SFDO_BENCH_REAL_PROGRAMS:-lua sqlite xz bzip2}"
VARIANTS=(O2 O2x pgo sfdo afdo-cg afdo-sfdo)
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh

# write_section: the section "## Real programs" of bench/RESULTS.md from
# $WORK/results.json and what $WORK/run.info says about that run.
write_section() {
    local info=$WORK/run.info
    [[ -f $WORK/results.json && -f $info ]] ||
        { echo "real-bench: no full run in $WORK to report on" >&2; exit 1; }
    local command recorder event period elapsed
    { read -r command; read -r recorder event period elapsed; } < "$info"
    python3 bench/real/report.py "$WORK" "$WORK/costs.tsv" "$WORK/overlap.tsv" \
        --command "$command" --recorder "$recorder" --event "$event" \
        --period "$period" --elapsed "$elapsed" --title "$SECTION" \
        --record "$RECORD" --counts "$WORK/counts.tsv" > "$WORK/section.md"
    results_write_section "$SECTION" "$WORK/section.md"
    echo "wrote the section \"$SECTION\" of bench/RESULTS.md"
}
if [[ -n $REPORT_ONLY ]]; then write_section; exit 0; fi

say() { printf '%s\n' "$*"; }
die() { printf 'real-bench: error: %s\n' "$*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - START )) s"; }

for t in sfdo-convert sfdo-profile samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done

say "== fetching sources (bench/real/fetch.sh)"
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"

ev=$(scripts/perf-event.sh 2>"$ROOT/bench/work/real/perf-event.err") ||
    die "perf cannot sample here: $(cat "$ROOT/bench/work/real/perf-event.err")"
read -r PERF_EVENT PERF_PERIOD <<<"$ev"
# Training runs last seconds where production profiles span hours: they
# are sampled five times as often, for enough samples to place counts.
# The overhead rows use each recorder's normal period.
TRAIN_PERIOD=$((PERF_PERIOD / 5))
RECORDER=perf
[[ -x $BUILD/sfdo-record ]] && RECORDER=sfdo-record
EMULATOR=
[[ -x $BUILD/sfdo-record && -e $BUILD/sfdoemu-amd64-linux ]] && EMULATOR=$BUILD/sfdo-record
if [[ $RECORD != timer ]]; then
    [[ -n $EMULATOR ]] || die "--record=$RECORD needs sfdo-record and sfdoemu built (make): $(cat "$BUILD/sfdoemu.not-built" 2>/dev/null)"
    # Retired instructions (and with emu-lbr taken branches, with the
    # LBR) every EMU_PERIOD of them on train.
    RECORDER=sfdo-record
    PERF_EVENT=$([[ $RECORD == emu ]] && echo instructions:u:emulated || echo BR_INST_RETIRED:NEAR_TAKEN:u:emulated)
    TRAIN_PERIOD=${SFDO_BENCH_EMU_PERIOD:-20011}
fi

mkdir -p "$WORK"
prepare_lua
prepare_sqlite
prepare_xz

# --- inputs: generated from files every machine here has -----------------
IN=$WORK/inputs
make_inputs() {
    [[ -f $IN/.done ]] && return 0
    rm -rf "$IN" && mkdir -p "$IN"
    local cc1 sq=$SRC/sqlite-amalgamation/sqlite3.c
    cc1=$(gcc -print-prog-name=cc1)
    # train: a tar of source trees and a linker binary (text + x86 code)
    (cd "$SRC" && tar cf - --mtime=@0 --sort=name --owner=0 --group=0 \
        lua5.4-5.4.4/src bzip2-1.0.8/*.c xz-utils-5.4.1/src/liblzma \
        -C /usr/bin ld.bfd) > "$IN/train.tar"
    # ref: other bytes of cc1 (x86 code) and of the SQLite amalgamation
    local kc kd kb
    if [[ $MODE == quick ]]; then
        dd if="$IN/train.tar" of="$IN/train.tmp" bs=300000 count=1 status=none
        mv "$IN/train.tmp" "$IN/train.tar"
        kc=64; kd=1024; kb=256
    else
        kc=${SFDO_BENCH_XZ_KB:-512}; kd=16384; kb=${SFDO_BENCH_BZIP2_KB:-3072}
    fi
    # slice FILE OFFSET KIB: KIB KiB of FILE from byte OFFSET
    slice() { dd if="$1" bs=64K iflag=skip_bytes,count_bytes skip="$2" count=$(($3 * 1024)) status=none; }
    # xz compresses 2*kc KiB and decompresses 2*kd KiB; bzip2 compresses 2*kb KiB
    { slice "$cc1" 8000000 "$kc"; slice "$sq" 2000000 "$kc"; } > "$IN/xz-ref.bin"
    { slice "$cc1" 0 "$kd"; slice "$sq" 0 "$kd"; } | xz -1 -T2 -c > "$IN/xz-ref.xz"
    { slice "$cc1" 12000000 "$kb"; slice "$sq" 0 "$kb"; } > "$IN/bzip2-ref.bin"
    { slice "$cc1" 4000000 "$kb"; slice "$sq" 4000000 "$kb"; } | bzip2 -9 -c > "$IN/bzip2-ref.bz2"
    : > "$IN/.done"
}
make_inputs

LUA_DIR=$ROOT/bench/real/lua
LUA_SCRIPTS=(fib binarytrees nbody spectralnorm fannkuch strings sort)
if [[ $MODE == quick ]]; then
    LUA_TRAIN=(20 6 2000 30 6 2000 2000)
    LUA_REF=(22 7 5000 50 7 5000 5000)
    SQL_TRAIN=3; SQL_REF=5
else
    LUA_TRAIN=(25 10 20000 100 8 20000 20000)
    # each about 0.4-0.7 s at -O2 here; fannkuch 9 three times
    IFS=, read -r -a LUA_REF <<<"${SFDO_BENCH_LUA_REF:-35,14,200000,450,9 3,150000,80000}"
    SQL_TRAIN=20; SQL_REF=${SFDO_BENCH_SQL_SIZE:-60}
fi

# train_cmd PROG BIN: the shell command of PROG's train run.
train_cmd() {
    local p=$1 b=$2 i c=""
    case $p in
        lua) for i in "${!LUA_SCRIPTS[@]}"; do
                 c+="$b $LUA_DIR/${LUA_SCRIPTS[i]}.lua ${LUA_TRAIN[i]}; "
             done
             echo "$c" ;;
        sqlite) echo "$b --memdb --size $SQL_TRAIN --testset main --verify" ;;
        xz) echo "$b -6 -c $IN/train.tar | $b -dc" ;;
        bzip2) echo "$b -9 -c $IN/train.tar | $b -dc" ;;
    esac
}
# ref_cmds PROG BIN: PROG's ref runs, one process a line: NORM<TAB>CMD.
ref_cmds() {
    local p=$1 b=$2 i
    case $p in
        lua) for i in "${!LUA_SCRIPTS[@]}"; do
                 printf -- '-\t%s %s %s\n' "$b" "$LUA_DIR/${LUA_SCRIPTS[i]}.lua" "${LUA_REF[i]}"
             done ;;
        sqlite) printf 'strip-times\t%s --memdb --size %s --testset main --verify\n' "$b" "$SQL_REF" ;;
        xz) printf -- '-\t%s -6 -c %s\n-\t%s -dc %s\n' "$b" "$IN/xz-ref.bin" "$b" "$IN/xz-ref.xz" ;;
        bzip2) printf -- '-\t%s -9 -c %s\n-\t%s -dc %s\n' "$b" "$IN/bzip2-ref.bin" "$b" "$IN/bzip2-ref.bz2" ;;
    esac
}

# --- builds ---------------------------------------------------------------
# The cache key: what the builds and profiles depend on.
KEY=$( { cat bench/real/*.sh bench/real-bench.sh; echo "$PERF_EVENT $PERF_PERIOD $RECORDER $RECORD $TRAIN_PERIOD";
         cat "$BUILD/samplefdo.so" "$BUILD/sfdo-convert" "$BUILD/sfdo-profile";
         [[ -x $BUILD/sfdo-record ]] && cat "$BUILD/sfdo-record"; true; } | sha1sum | cut -c1-16)
COSTS=$WORK/costs.tsv   # PROG<TAB>WHAT<TAB>VALUE

# build_variant PROG VARIANT: build into $WORK/build/PROG/VARIANT; record
# the compile's CPU time (user + sys of every child) in costs.
build_variant() {
    local p=$1 v=$2 d=$WORK/build/$1/$2 flags
    flags=$(variant_flags "$v" "$p")
    local keep=
    [[ -d $d/gcda || -n $(compgen -G "$d/obj/*.gcda") ]] && keep=1
    if [[ -z $keep ]]; then rm -rf "$d"; else find "$d" -name '*.o' -delete; rm -f "$d/dump"; find "$d" -name '*.dump' -delete; fi
    mkdir -p "$d"
    local cpu
    ( "build_$p" "$d" "$flags" >"$d/build.log" 2>&1; s=$?; times >"$d/times"; exit $s ) ||
        { tail -n 30 "$d/build.log" >&2; die "building $p variant $v failed (log: $d/build.log)"; }
    # the second line of `times` is the children's user and system time
    cpu=$(sed -n 2p "$d/times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
    printf '%s\tcompile_cpu_%s\t%s\n' "$p" "$v" "$cpu" > "$d/cost"
    [[ -x $d/$(prog_binary "$p") ]] || die "$p variant $v: no binary $d/$(prog_binary "$p")"
    say "  built $p $v ($cpu s CPU, $(elapsed))"
    # units the compiler wrapper had to build again (bench/real/cc-wrap.sh)
    grep -h '^cc-wrap: note: ' "$d/build.log" | sed "s|^cc-wrap: note: |  note: $p $v: |" || true
}

# build_many "PROG VARIANT"...: build each, JOBS builds at a time.
build_many() {
    local pv pids=()
    for pv in "$@"; do
        # shellcheck disable=SC2086
        build_variant $pv &
        pids+=($!)
        while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || die "a build failed"; done
    done
    local pid
    for pid in "${pids[@]}"; do wait "$pid" || die "a build failed"; done
}

# measure_cost CMD...: run CMD with its output discarded; print "SECONDS
# PEAK_RSS_KB" (GNU time).
measure_cost() {
    /usr/bin/time -f '%e %M' -o "$WORK/time.tmp" "$@" >/dev/null 2>"$WORK/cost.err" ||
        { cat "$WORK/cost.err" >&2; return 1; }
    cat "$WORK/time.tmp"
}

# create_gcov 0.19 writes version-1 string tables (lengths in 4-byte words);
# GCC 12 reads version 2 (length in bytes, including the NUL, no padding).
afdo_v1_to_v2() {
    python3 bench/afdo-v1-to-v2.py "$1" "$2"
}

# record_cmd DATA CMD: the recorder's command line around the shell CMD.
record_cmd() {
    local data=$1 cmd=$2
    if [[ $RECORD != timer ]]; then
        printf '%q ' "$EMULATOR" -q --emulate $([[ $RECORD == emu-lbr ]] && echo -b) \
            -c "$TRAIN_PERIOD" -o "$data" -- sh -c "$cmd"
    elif [[ $RECORDER == sfdo-record ]]; then
        # Its default stack copies give the call edges (-g would give
        # nothing: the -O2 builds keep no frame pointers).
        printf '%q ' "$BUILD/sfdo-record" -q -e "$PERF_EVENT" -c "$TRAIN_PERIOD" -o "$data" -- sh -c "$cmd"
    else
        printf '%q ' perf record -q --no-bpf-event -e "$PERF_EVENT" -c "$TRAIN_PERIOD" -g -o "$data" -- sh -c "$cmd"
    fi
}

# profile PROG: train the instrumented build; record the -O2 build on
# train; convert with sfdo-convert and with create_gcov; costs of each.
profile_prog() {
    local p=$1 pd=$WORK/prof/$1 o2 gen
    rm -rf "$pd" && mkdir -p "$pd"
    o2=$WORK/build/$p/O2/$(prog_binary "$p")
    gen=$WORK/build/$p/pgo-gen/$(prog_binary "$p")
    find "$WORK/build/$p/pgo-gen" -name '*.gcda' -delete
    sh -c "$(train_cmd "$p" "$gen")" >/dev/null 2>"$pd/train.err" ||
        die "$p: the instrumented train run failed: $(tail -n 3 "$pd/train.err")"
    gcda_copy "$p" "$WORK/build/$p/pgo-gen" "$WORK/build/$p/pgo"
    eval "$(record_cmd "$pd/train.data" "$(train_cmd "$p" "$o2")")" >/dev/null 2>"$pd/record.err" ||
        die "$p: recording the train run failed: $(tail -n 3 "$pd/record.err")"
    local c
    c=$(measure_cost "$BUILD/sfdo-convert" -q -o "$pd/sfdo.prof" "$pd/train.data" "$o2") ||
        die "$p: sfdo-convert failed"
    printf '%s\tconvert_sfdo\t%s\n' "$p" "$c" >> "$pd/cost"
    "$BUILD/sfdo-profile" export --afdo -o "$pd/sfdo.afdo" "$pd/sfdo.prof" 2>"$pd/export.err" ||
        die "$p: sfdo-profile export --afdo failed: $(cat "$pd/export.err")"
    local cg_data=$pd/train.data
    if ! c=$(measure_cost create_gcov --binary="$o2" --profile="$cg_data" \
             --gcov="$pd/create_gcov.v1.afdo" -gcov_version=1 --use_lbr=false 2>/dev/null); then
        [[ $RECORDER == sfdo-record* ]] || die "$p: create_gcov failed"
        # create_gcov cannot read what sfdo-record wrote: give it perf's
        say "  $p: create_gcov cannot read sfdo-record's file; recording again with perf for it"
        RECORD=timer RECORDER=perf eval "$(RECORD=timer RECORDER=perf record_cmd "$pd/train.perf.data" "$(train_cmd "$p" "$o2")")" \
            >/dev/null 2>>"$pd/record.err" || die "$p: perf record failed"
        cg_data=$pd/train.perf.data
        c=$(measure_cost create_gcov --binary="$o2" --profile="$cg_data" \
            --gcov="$pd/create_gcov.v1.afdo" -gcov_version=1 --use_lbr=false) ||
            die "$p: create_gcov failed"
        printf '%s\tcreate_gcov_input\tperf\n' "$p" >> "$pd/cost"
    fi
    printf '%s\tconvert_create_gcov\t%s\n' "$p" "$c" >> "$pd/cost"
    afdo_v1_to_v2 "$pd/create_gcov.v1.afdo" "$pd/create_gcov.afdo"
    local n
    n=$(perf script -i "$pd/train.data" -F ip -G 2>/dev/null | wc -l)
    [[ $RECORD == emu-lbr ]] &&
        n="$(perf script -i "$pd/train.data" -F event -G 2>/dev/null | grep -c NEAR_TAKEN) with LBR, $n in all"
    printf '%s\tsamples\t%s\n' "$p" "$n" >> "$pd/cost"
    say "  profiled $p ($n samples, $(elapsed))"
}

if [[ $(cat "$WORK/key" 2>/dev/null) != "$KEY" ]]; then
    rm -f "$WORK/key"
    say "== building O2, O2x and the instrumented build of: ${PROGS[*]}"
    list=()
    for p in "${PROGS[@]}"; do list+=("$p pgo-gen" "$p O2" "$p O2x"); done
    build_many "${list[@]}"
    say "== training and recording (recorder: $RECORDER, $PERF_EVENT every $TRAIN_PERIOD)"
    for p in "${PROGS[@]}"; do profile_prog "$p"; done
    say "== building with the profiles"
    list=()
    for p in "${PROGS[@]}"; do list+=("$p pgo" "$p sfdo" "$p afdo-cg" "$p afdo-sfdo"); done
    build_many "${list[@]}"
    echo "$KEY" > "$WORK/key"
else
    say "== builds and profiles are up to date ($WORK/key)"
fi

# --- profile accuracy: block overlap against the instrumented counts -------
# GCC's guessed counts (functions PGO saw never run, or AFDO has no samples
# of) are zeroed first (bench/real/dump-global.py), then
# scripts/count-overlap.py compares each variant with the PGO counts.
OVERLAP=$WORK/overlap.tsv
: > "$OVERLAP"
for p in "${PROGS[@]}"; do
    for v in pgo sfdo afdo-cg afdo-sfdo; do
        d=$WORK/build/$p/$v
        collect_dump "$d"
        python3 bench/real/dump-global.py "$d/dump" "$d/dump.global" > "$d/dump.global.log"
    done
    for v in sfdo afdo-cg afdo-sfdo; do
        o=$(python3 scripts/count-overlap.py "$WORK/build/$p/pgo/dump.global" \
            "$WORK/build/$p/$v/dump.global" 2>&1 | paste -sd' ')
        printf '%s\t%s\t%s\n' "$p" "$v" "$o" >> "$OVERLAP"
    done
done

# --- measurement ----------------------------------------------------------
SPEC=$WORK/spec.tsv
: > "$SPEC"
mkdir -p "$WORK/tmp"
for p in "${PROGS[@]}"; do
    recs=(O2+perf)
    [[ $RECORDER == sfdo-record ]] && recs+=(O2+sfdo-record)
    # the emulator's overhead is bench/emulate-bench.sh's; here it would
    # only lengthen every repetition
    [[ $RECORD != timer ]] && recs=()
    for v in O2 O2-again "${VARIANTS[@]:1}" ${recs[@]+"${recs[@]}"}; do
        case $v in
            O2-again) b=$WORK/build/$p/O2/$(prog_binary "$p").again
                      cp "$WORK/build/$p/O2/$(prog_binary "$p")" "$b" ;;
            O2+*) b=$WORK/build/$p/O2/$(prog_binary "$p") ;;
            *) b=$WORK/build/$p/$v/$(prog_binary "$p") ;;
        esac
        ref_cmds "$p" "$b" | while IFS=$'\t' read -r norm cmd; do
            case $v in
                # sfdo-record at its defaults; perf at the same event
                # and period (sfdo-record's default here is PERF_EVENT
                # at PERF_PERIOD, as scripts/perf-event.sh picks).
                O2+sfdo-record) cmd="$BUILD/sfdo-record -q -o $WORK/tmp/rec.data -- $cmd" ;;
                O2+perf) cmd="perf record -q --no-bpf-event -e $PERF_EVENT -c $PERF_PERIOD -o $WORK/tmp/rec.data -- $cmd" ;;
            esac
            printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$norm" "$cmd" >> "$SPEC"
        done
    done
done
say "== measuring: $REPS repetitions, variants interleaved, order rotated ($(elapsed))"
python3 bench/real/measure.py "$SPEC" "$REPS" "$WORK/runs" "$WORK/results.json" ||
    die "the measurement failed (see above)"
say "== every variant's output on ref equals -O2's ($(elapsed))"

cat "$WORK"/build/*/*/cost "$WORK"/prof/*/cost > "$COSTS" 2>/dev/null || true

# --- deterministic counts: instructions and taken branches per ref run -----
COUNTS=$WORK/counts.tsv   # PROG<TAB>VARIANT<TAB>INSTRUCTIONS<TAB>TAKEN
: > "$COUNTS"
if [[ -n $EMULATOR ]]; then
    say "== counting instructions and taken branches of each variant's ref run (sfdo-record --emulate --stat, $(elapsed))"
    counted=("${VARIANTS[@]}")
    [[ $MODE == quick ]] && counted=(O2 sfdo)   # enough to show it works
    for p in "${PROGS[@]}"; do
        for v in "${counted[@]}"; do
            b=$WORK/build/$p/$v/$(prog_binary "$p")
            ins=0 tak=0
            while IFS=$'\t' read -r _ cmd; do
                # shellcheck disable=SC2086
                "$EMULATOR" -q --emulate --stat -o "$WORK/tmp/counts" -- $cmd >/dev/null ||
                    die "$p $v: counting $cmd under the emulator failed"
                read -r i t < <(awk '$2 == "instructions:u" { i = $1 } $2 == "taken-branches:u" { t = $1 }
                                     END { print i, t }' "$WORK/tmp/counts")
                ins=$((ins + i)) tak=$((tak + t))
            done < <(ref_cmds "$p" "$b")
            printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$ins" "$tak" >> "$COUNTS"
        done
    done
else
    say "== no deterministic counts: sfdoemu is not built ($(cat "$BUILD/sfdoemu.not-built" 2>/dev/null))"
fi

if [[ $MODE == quick ]]; then
    python3 bench/real/report.py --quick "$WORK" "$COSTS" "$OVERLAP" --counts "$COUNTS"
    say "real-bench --quick: every variant of ${PROGS[*]} built and matched -O2's output (profiles: $RECORD; $(elapsed))"
    exit 0
fi
{ echo "bench/real-bench.sh$([[ $RECORD != timer ]] && echo " --record=$RECORD")${SFDO_BENCH_REAL_REPS:+ (SFDO_BENCH_REAL_REPS=$SFDO_BENCH_REAL_REPS)}"
  echo "$RECORDER $PERF_EVENT $TRAIN_PERIOD $(( $(date +%s) - START ))"; } > "$WORK/run.info"
write_section
say "done ($(elapsed))"
