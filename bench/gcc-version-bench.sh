#!/usr/bin/env bash
# bench/gcc-version-bench.sh - sfdo beside a GCC's own instrumented PGO and
# its own AutoFDO (-fauto-profile), on Lua 5.4.4 and SQLite 3.40.1's
# speedtest1, with GCC 16 (in the Debian sid chroot of
# scripts/gcc-chroot.sh) or the host's GCC 12 (issue 35).
#
# Usage: bench/gcc-version-bench.sh [--gcc gcc-16|gcc] [--record timer|emulate]
#                                   [--quick] [--report-only]
#
#   --gcc GCC       the compiler: gcc-16 (the default; gcc-12 to gcc-15
#                   should do too, untried) builds and runs everything in the chroot with
#                   the tools of build/sid (scripts/gcc-chroot.sh run make
#                   B=build/sid CC=gcc-16 GCC=gcc-16 all, done first); gcc
#                   builds with the host's GCC 12 and the tools of build/.
#   --record MODE   only this recording of the train run: timer
#                   (sfdo-record -c 50000 --regs: cpu-clock, its default
#                   1 KB stack copies for the callers) or emulate
#                   (sfdo-record --emulate -c 20011 -b --regs: taken
#                   branches with a 32-entry LBR, instructions, registers);
#                   without it, both.  The timer records the same train run
#                   SFDO_BENCH_GV_TIMER_RECORDINGS times (default 3: timer,
#                   timer2, timer3), each built, for the median and spread.
#   --quick         the small input as ref, no RESULTS.md (a smoke test).
#   --report-only   rewrite the section from the results already in
#                   bench/work/gccver/, measuring nothing.
#
#   For each program (SFDO_BENCH_GV_PROGRAMS, default "lua sqlite") it
#   builds, from the same sources with -O2 -g -gdwarf-4 (DWARF 4 so that
#   Debian 12's create_gcov can read the profiled binary; the code is
#   -g's), bench/real/build.sh's way:
#     O2          plain
#     O2x         with the flags -fprofile-use adds, no profile
#     pgo         -fprofile-generate, the train input, -fprofile-use
#   then records O2 on the train input with sfdo-record (each MODE) and
#   converts it with sfdo-convert, and builds
#     sfdo-MODE       -fplugin=BUILD/samplefdo.so -fplugin-arg-samplefdo-profile=
#     afdo-sfdo-MODE  -fauto-profile= sfdo-profile export --afdo=V of it
#                     (V: 3 for GCC 16, 2 for GCC 12 to 15)
#     afdo-cg-MODE    -fauto-profile= create_gcov's profile of the same
#                     recording: create_gcov (Debian 12's autofdo, on the
#                     host) refuses samples carrying registers, so it reads
#                     the recording with them taken out
#                     (bench/perfdata-strip-regs.py: the same samples), with
#                     --use_lbr=false for the timer and true for the
#                     emulated LBR; its version-1 output rewritten for GCC
#                     16 by sfdo-profile export --afdo=3, for GCC 12 by
#                     bench/afdo-v1-to-v2.py (lengths in bytes).
#   Then: every variant's ref run must print what O2's prints (SQLite's
#   timings aside); one run of the small input of each under callgrind
#   (../shared/tools/jumps.py): instructions and taken jumps; and the
#   decisions beside PGO's (bench/decisions.py) of each profile-driven
#   variant.  Inputs: bench/real/inputs.sh (decisions-bench's).  Results go
#   to bench/work/gccver/GCCn/ (the tools copied to its tools/ first: others
#   may run make meanwhile); the section "## GCC 16 (and 12): sfdo beside
#   PGO and GCC's AutoFDO" of bench/RESULTS.md is written from every GCC's
#   results there (bench/gcc-version-report.py), followed by the
#   hand-written findings of bench/gcc-version-notes.md where it exists.
#
#   Two steps at a time, each one compile or one run (the machine's two
#   cores).  A full run takes about 9 minutes for each GCC here.
#
# Exit status: 0 done; 1 a step failed (the message names it); 2 usage;
# 77 sources or tools missing ("SKIP: ..." on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PROG=gcc-version-bench
usage() {
    echo "usage: bench/gcc-version-bench.sh [--gcc gcc-16|gcc] [--record timer|emulate] [--quick] [--report-only]" >&2
    exit 2
}
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
say() { printf '%s\n' "$*"; }

GCC=gcc-16 RECORDS=(timer emulate) RECORDS_ARG='' MODE=full REPORT_ONLY='' STEP=''
while (($#)); do
    case $1 in
        --gcc) (($# >= 2)) || usage; GCC=$2; shift ;;
        --gcc=*) GCC=${1#--gcc=} ;;
        --record) (($# >= 2)) || usage; RECORDS=("$2"); RECORDS_ARG=$2; shift ;;
        --record=*) RECORDS=("${1#--record=}"); RECORDS_ARG=${1#--record=} ;;
        --quick) MODE=quick ;;
        --report-only) REPORT_ONLY=1 ;;
        --step) shift; STEP=$1; shift; break ;;   # internal: one step, in the compiler's environment
        *) usage ;;
    esac
    shift
done
for r in "${RECORDS[@]}"; do
    [[ $r == timer || $r == emulate ]] || { echo "$PROG: --record takes timer or emulate, not '$r'" >&2; usage; }
done
[[ $GCC =~ ^gcc(-1[2-9])?$ ]] || { echo "$PROG: --gcc takes gcc (the host's) or gcc-N (12 to 16, in the chroot), not '$GCC'" >&2; usage; }

SECTION="## GCC 16 (and 12): sfdo beside PGO and GCC's AutoFDO"
GVWORK=$ROOT/bench/work/gccver
. bench/lib.sh
NOTES=()
[[ -f bench/gcc-version-notes.md ]] && NOTES=(--notes bench/gcc-version-notes.md)
if [[ -n $REPORT_ONLY ]]; then
    python3 bench/gcc-version-report.py "$GVWORK" --title "$SECTION" "${NOTES[@]}" > "$GVWORK/section.md" ||
        die "the report failed"
    results_write_section "$SECTION" "$GVWORK/section.md"
    say "wrote the section \"$SECTION\" of bench/RESULTS.md"
    exit 0
fi

# Where the compiler runs: the host for gcc, the chroot for gcc-N.
if [[ $GCC == gcc ]]; then
    IN_CHROOT='' BUILD=$ROOT/build
else
    IN_CHROOT=1 BUILD=$ROOT/build/sid
fi
in_env() {   # CMD...: run CMD where the compiler and its programs run
    if [[ -n $IN_CHROOT ]]; then scripts/gcc-chroot.sh run "$@"; else "$@"; fi
}
SRC=$ROOT/bench/work/real/src
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
JUMPS=$ROOT/../shared/tools/jumps.py
read -r -a PROGS <<<"${SFDO_BENCH_GV_PROGRAMS:-lua sqlite}"
export SFDO_BENCH_CC=$GCC

# ---------------------------------------------------------------------------
# Steps run in the compiler's environment (the script calls itself with
# --step, through scripts/gcc-chroot.sh run for gcc-N).  WORK, MODE and
# AFDO_VERSION come from the environment.
if [[ -n $STEP ]]; then
    JOBS=${SFDO_GV_JOBS:-1}
    BUILD=${GV_TOOLS:?the steps run with GV_TOOLS set}
    . bench/real/inputs.sh
    bin_of() { echo "$WORK/build/$1/$2/$(prog_binary "$1")"; }
    flags_of() {   # PROG VARIANT: the flags on top of -O2
        local p=$1 v=$2 prof=$WORK/prof/$1 seed=
        [[ $p == lua ]] && seed="-D'luai_makeseed(L)=0u'"
        local common="-g -gdwarf-4 -fopt-info-optimized=@OBJ@.opt -fdump-ipa-profile_estimate=@OBJ@.pe $seed"
        case $v in
            O2) echo "$common" ;;
            O2x) echo "$common $O2X_FLAGS" ;;
            pgo-gen) echo "-g -gdwarf-4 -fprofile-generate -fprofile-update=single $seed" ;;
            pgo) echo "$common -fprofile-use -Wno-missing-profile" ;;
            sfdo-*) echo "$common -fplugin=$BUILD/samplefdo.so -fplugin-arg-samplefdo-profile=$prof/${v#sfdo-}.prof" ;;
            afdo-sfdo-*) echo "$common -fauto-profile=$prof/${v#afdo-sfdo-}.sfdo.afdo" ;;
            afdo-cg-*) echo "$common -fauto-profile=$prof/${v#afdo-cg-}.cg.afdo" ;;
            *) echo "unknown variant $v" >&2; return 1 ;;
        esac
    }
    case $STEP in
        version) "$GCC" --version | head -n 1 ;;
        prepare) prepare_lua; prepare_sqlite ;;
        build)   # PROG VARIANT; the instrumented build goes to pgo/, where
                 # -fprofile-use finds the .gcda files beside the objects
            p=$1 v=$2 d=$WORK/build/$1/${2/pgo-gen/pgo}
            if [[ $v == pgo ]]; then find "$d" -name '*.o' -delete; else rm -rf "$d"; fi
            mkdir -p "$d"
            flags=$(flags_of "$p" "$v")
            printf '%s\n' "$GCC -O2 $flags" > "$d/flags.$v"
            "build_$p" "$d" "$flags" > "$d/build.$v.log" 2>&1 ||
                { tail -n 20 "$d/build.$v.log" >&2; exit 1; }
            [[ -x $(bin_of "$p" "${v/pgo-gen/pgo}") ]] || { echo "no binary in $d" >&2; exit 1; } ;;
        train)   # PROG: the instrumented build's train run
            d=$WORK/build/$1/pgo
            find "$d" -name '*.gcda' -delete
            sh -c "$(run_cmd "$1" "$(bin_of "$1" pgo)" train)" > /dev/null ;;
        record)  # PROG MODE: O2's train run recorded, converted, exported
            p=$1 r=$2 d=$WORK/prof/$1
            mkdir -p "$d"
            opts=(-c 50000 --regs)
            [[ $r == emulate* ]] && opts=(--emulate -c 20011 -b --regs)
            cmd=$(run_cmd "$p" "$(bin_of "$p" O2)" train)
            printf '%s\n' "$BUILD/sfdo-record -o $r.data ${opts[*]} -- sh -c '$cmd'" > "$d/$r.commands"
            (cd "$d" && "$BUILD/sfdo-record" -o "$r.data" "${opts[@]}" -- sh -c "$cmd" \
                > /dev/null 2> "$r.record.err") ||
                { head -n 5 "$d/$r.record.err" >&2; exit 1; }
            printf '%s\n' "$BUILD/sfdo-convert -o $r.prof $r.data $(bin_of "$p" O2)" \
                "$BUILD/sfdo-profile export --afdo=$AFDO_VERSION -o $r.sfdo.afdo $r.prof" >> "$d/$r.commands"
            "$BUILD/sfdo-convert" -q -o "$d/$r.prof" "$d/$r.data" "$(bin_of "$p" O2)"
            "$BUILD/sfdo-profile" export --afdo="$AFDO_VERSION" -o "$d/$r.sfdo.afdo" "$d/$r.prof" \
                2> "$d/$r.export.err" || { cat "$d/$r.export.err" >&2; exit 1; }
            # the functions the profile lists as never run (decisions.py --unsampled)
            "$BUILD/sfdo-profile" convert --text "$d/$r.prof" |
                sed -n 's/^\([^ #][^ ]*\):0:0$/\1/p' > "$d/$r.unsampled" ;;
        cg-v3)   # PROG MODE: create_gcov's output for GCC 16
            d=$WORK/prof/$1
            "$BUILD/sfdo-profile" export --afdo=3 -o "$d/$2.cg.afdo" "$d/$2.cg.v1.afdo" \
                2> "$d/$2.cg-export.err" || { cat "$d/$2.cg-export.err" >&2; exit 1; } ;;
        check)   # PROG VARIANT: the ref run's output, timings taken out
            mkdir -p "$WORK/out/$1"
            sh -c "$(run_cmd "$1" "$(bin_of "$1" "$2")" ref)" 2>&1 |
                sed -E 's/[[:space:]]*[0-9]+\.[0-9]{3}s$//' > "$WORK/out/$1/$2.txt" ;;
        count)   # PROG VARIANT: instructions and taken jumps of the small input
            mkdir -p "$WORK/counts/$1"
            read -r ir tk < <(count_small "$JUMPS" "$1" "$(bin_of "$1" "$2")")
            [[ -n $tk ]] || { echo "counting $1 $2 under callgrind failed" >&2; exit 1; }
            printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$ir" "$tk" > "$WORK/counts/$1/$2.tsv" ;;
        decisions)   # PROG MODE: bench/decisions.py, PGO beside this recording's variants
            p=$1 r=$2 b=$WORK/build/$1
            python3 bench/decisions.py --json "$WORK/decisions-$p-$r.json" \
                --unsampled "$WORK/prof/$p/$r.unsampled" "$b/pgo" \
                "$b/O2x" "$b/sfdo-$r" "$b/afdo-sfdo-$r" "$b/afdo-cg-$r" \
                > "$WORK/decisions-$p-$r.txt" ;;
        *) echo "unknown step $STEP" >&2; exit 2 ;;
    esac
    exit 0
fi

# ---------------------------------------------------------------------------
START=$(date +%s)
elapsed() { echo "$(( $(date +%s) - START )) s"; }

[[ -f $JUMPS ]] || { echo "SKIP: $PROG: $JUMPS is absent (../shared)" >&2; exit 77; }
command -v create_gcov > /dev/null ||
    { echo "SKIP: $PROG: create_gcov is not installed on the host (apt-get install autofdo)" >&2; exit 77; }
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"

say "== tools for $GCC: make in $( [[ -n $IN_CHROOT ]] && echo "the chroot, B=build/sid" || echo "build/")"
if [[ -n $IN_CHROOT ]]; then
    in_env make -s B=build/sid CC="$GCC" GCC="$GCC" all || die "building the tools in the chroot failed"
else
    make -s all || die "building the tools failed"
fi
for t in sfdo-record sfdo-convert sfdo-profile samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing after make"
done
GCC_VERSION=$(in_env "$GCC" -dumpfullversion) || die "$GCC does not run$( [[ -n $IN_CHROOT ]] && echo " in the chroot")"
MAJOR=${GCC_VERSION%%.*}
AFDO_VERSION=2
((MAJOR >= 16)) && AFDO_VERSION=3
WORK=$GVWORK/gcc$MAJOR
[[ $MODE == quick ]] && WORK+=-quick
# The timer's recordings of one train run differ (where its few thousand
# samples fall): SFDO_BENCH_GV_TIMER_RECORDINGS of them (default 3; timer,
# timer2, ...), each built, for the median and the spread.
TIMER_RECS=${SFDO_BENCH_GV_TIMER_RECORDINGS:-3}
[[ $TIMER_RECS =~ ^[1-9]$ ]] || die "SFDO_BENCH_GV_TIMER_RECORDINGS must be 1 to 9, not '$TIMER_RECS'"
recs=()
for r in "${RECORDS[@]}"; do
    recs+=("$r")
    if [[ $r == timer ]]; then for ((k = 2; k <= TIMER_RECS; k++)); do recs+=("timer$k"); done; fi
done
RECORDS=("${recs[@]}")
# The tools are copied for the run: build/ and build/sid are shared with
# whoever runs make meanwhile.
COMMIT=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':!bench' 2>/dev/null || COMMIT+=" (with uncommitted changes outside bench/)"
mkdir -p "$WORK"
rm -rf "$WORK/tools" && mkdir -p "$WORK/tools"
cp -p "$BUILD"/sfdo-record "$BUILD"/sfdo-convert "$BUILD"/sfdo-profile "$BUILD"/samplefdo.so \
    "$BUILD"/samplefdo-gcc"$MAJOR".so "$WORK/tools/" ||
    die "copying the tools of $BUILD for GCC $MAJOR failed"
[[ -e $BUILD/sfdoemu-amd64-linux ]] && cp -p "$BUILD/sfdoemu-amd64-linux" "$WORK/tools/"
BUILD=$WORK/tools
export WORK MODE AFDO_VERSION SFDO_GV_JOBS=1 GV_TOOLS=$BUILD
step() { in_env bench/gcc-version-bench.sh --gcc "$GCC" --step "$@"; }
mkdir -p "$WORK"
rm -f "$WORK"/counts/*/*.tsv "$WORK"/decisions-* "$WORK/notes"

# run_two DESC "ARGS"...: the steps, two at a time; stops at the first failure.
run_two() {
    local desc=$1 a pids=() names=() i
    shift
    for a in "$@"; do
        # shellcheck disable=SC2086
        step $a > "$WORK/step.$$.${#pids[@]}.log" 2>&1 &
        pids+=($!) names+=("$a")
        if ((${#pids[@]} == 2)); then
            for i in 0 1; do
                wait "${pids[i]}" || { cat "$WORK/step.$$.$i.log" >&2; die "$desc ${names[i]} failed"; }
            done
            pids=() names=()
        fi
    done
    for i in "${!pids[@]}"; do
        wait "${pids[i]}" || { cat "$WORK/step.$$.$i.log" >&2; die "$desc ${names[i]} failed"; }
    done
    rm -f "$WORK"/step.$$.*.log
}

step prepare || die "preparing the sources failed"
say "== $GCC ($GCC_VERSION): O2, O2x and the instrumented builds of ${PROGS[*]} ($(elapsed))"
list=()
for p in "${PROGS[@]}"; do list+=("build $p O2" "build $p O2x" "build $p pgo-gen"); done
run_two build "${list[@]}"
say "== training the instrumented builds, recording O2: ${RECORDS[*]} ($(elapsed))"
list=()
for p in "${PROGS[@]}"; do list+=("train $p"); for r in "${RECORDS[@]}"; do list+=("record $p $r"); done; done
run_two "" "${list[@]}"

# create_gcov, on the host, on the same recordings without their registers
for p in "${PROGS[@]}"; do
    d=$WORK/prof/$p
    o2=$WORK/build/$p/O2/$(prog_binary "$p")
    for r in "${RECORDS[@]}"; do
        python3 bench/perfdata-strip-regs.py "$d/$r.data" "$d/$r.cg.data" > "$d/$r.strip.log" ||
            die "$p $r: taking the registers out of the recording failed"
        lbr=false
        [[ $r == emulate* ]] && lbr=true
        printf '%s\n' "python3 bench/perfdata-strip-regs.py $r.data $r.cg.data" \
            "create_gcov --binary=$o2 --profile=$r.cg.data --gcov=$r.cg.v1.afdo -gcov_version=1 --use_lbr=$lbr" >> "$d/$r.commands"
        create_gcov --binary="$o2" --profile="$d/$r.cg.data" --gcov="$d/$r.cg.v1.afdo" \
            -gcov_version=1 --use_lbr=$lbr > "$d/$r.cg.log" 2>&1 ||
            { tail -n 5 "$d/$r.cg.log" >&2; die "$p $r: create_gcov failed (log: $d/$r.cg.log)"; }
        if ((AFDO_VERSION == 3)); then
            echo "$BUILD/sfdo-profile export --afdo=3 -o $r.cg.afdo $r.cg.v1.afdo" >> "$d/$r.commands"
            step cg-v3 "$p" "$r" || die "$p $r: sfdo-profile export --afdo=3 of create_gcov's profile failed"
        else
            echo "python3 bench/afdo-v1-to-v2.py $r.cg.v1.afdo $r.cg.afdo" >> "$d/$r.commands"
            python3 bench/afdo-v1-to-v2.py "$d/$r.cg.v1.afdo" "$d/$r.cg.afdo" ||
                die "$p $r: rewriting create_gcov's profile for GCC $MAJOR failed"
        fi
    done
done

say "== profile-driven builds ($(elapsed))"
VARIANTS=(O2 O2x pgo)
for r in "${RECORDS[@]}"; do VARIANTS+=("sfdo-$r" "afdo-sfdo-$r" "afdo-cg-$r"); done
list=()
for p in "${PROGS[@]}"; do
    list+=("build $p pgo")
    for v in "${VARIANTS[@]:3}"; do list+=("build $p $v"); done
done
run_two build "${list[@]}"
for p in "${PROGS[@]}"; do
    for v in "${VARIANTS[@]}"; do
        grep -h '^cc-wrap: note: ' "$WORK/build/$p/$v"/build.*.log 2>/dev/null |
            sed "s|^cc-wrap: note: |$p $v: |" >> "$WORK/notes" || true
    done
done

say "== each variant's ref run against O2's ($(elapsed))"
list=()
for p in "${PROGS[@]}"; do for v in "${VARIANTS[@]}"; do list+=("check $p $v"); done; done
run_two check "${list[@]}"
for p in "${PROGS[@]}"; do
    [[ -s $WORK/out/$p/O2.txt ]] || die "$p O2 printed nothing on ref"
    for v in "${VARIANTS[@]:1}"; do
        cmp -s "$WORK/out/$p/O2.txt" "$WORK/out/$p/$v.txt" ||
            die "$p $v prints something else than O2 on ref: diff $WORK/out/$p/O2.txt $WORK/out/$p/$v.txt"
    done
done

say "== instructions and taken jumps under callgrind ($(elapsed))"
list=()
for p in "${PROGS[@]}"; do for v in "${VARIANTS[@]}"; do list+=("count $p $v"); done; done
run_two callgrind "${list[@]}"
cat "$WORK"/counts/*/*.tsv > "$WORK/counts.tsv"

say "== decisions beside PGO's ($(elapsed))"
list=()
for p in "${PROGS[@]}"; do for r in "${RECORDS[@]}"; do list+=("decisions $p $r"); done; done
run_two decisions "${list[@]}"

# what the report says about this run
for p in "${PROGS[@]}"; do
    for r in "${RECORDS[@]}"; do
        n=$(sed -n 's/^sfdo-record: \([0-9]*\) samples.*/\1/p' "$WORK/prof/$p/$r.record.err" | tail -n 1)
        [[ -n $n ]] || n=$(grep -o '[0-9]* samples' "$WORK/prof/$p/$r.record.err" | tail -n 1 | cut -d' ' -f1)
        printf '%s\t%s\tsamples\t%s\n' "$p" "$r" "${n:-?}"
        for f in sfdo.afdo cg.afdo; do
            printf '%s\t%s\t%s_functions\t%s\n' "$p" "$r" "${f%.afdo}" \
                "$(in_env "$BUILD/sfdo-profile" show --top 1 "$WORK/prof/$p/$r.$f" 2>/dev/null |
                   sed -n 's/^functions: *\([0-9]*\).*/\1/p')"
        done
    done
done > "$WORK/profiles.tsv"
{
    printf 'gcc\t%s\n' "$GCC"
    printf 'version\t%s\n' "$(in_env "$GCC" --version | head -n 1)"
    printf 'commit\t%s\n' "$COMMIT"
    printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
    printf 'elapsed\t%s\n' "$(( $(date +%s) - START ))"
    printf 'records\t%s\n' "${RECORDS[*]}"
    printf 'timer_recordings\t%s\n' "$TIMER_RECS"
    printf 'programs\t%s\n' "${PROGS[*]}"
    printf 'afdo_version\t%s\n' "$AFDO_VERSION"
    printf 'command\t%s\n' "bench/gcc-version-bench.sh --gcc $GCC$([[ $RECORDS_ARG ]] && echo " --record $RECORDS_ARG")"
    printf 'create_gcov\t%s\n' "$(dpkg-query -W -f '${Package} ${Version}' autofdo 2>/dev/null || echo unknown)"
} > "$WORK/info.tsv"
for p in "${PROGS[@]}"; do
    for v in "${VARIANTS[@]}"; do cat "$WORK/build/$p/$v/flags.$v"; done | sed "s|^|$p\t|"
done > "$WORK/flags.tsv"

if [[ $MODE == quick ]]; then
    say "$PROG --quick: every variant built with $GCC and printed what O2 prints ($(elapsed))"
    cat "$WORK/counts.tsv"
    exit 0
fi
python3 bench/gcc-version-report.py "$GVWORK" --title "$SECTION" "${NOTES[@]}" > "$GVWORK/section.md" ||
    die "the report failed"
results_write_section "$SECTION" "$GVWORK/section.md"
say "wrote the section \"$SECTION\" of bench/RESULTS.md ($(elapsed))"
