#!/usr/bin/env bash
# bench/llvm-bench.sh - sfdo's LLVM export against clang's own instrumented
# PGO, on Lua 5.4 built by clang 14 (issue #20).
#
# Usage: bench/llvm-bench.sh [--wall] [--report-only]
#
#   Builds Lua (the Debian source bench/real/fetch.sh unpacks, compiled by
#   bench/real/build.sh with SFDO_BENCH_CC=clang-14) as:
#     O2          -O2 -gdwarf-4
#     O2-dip      the same with -fdebug-info-for-profiling: the binary that
#                 is sampled (it must run the same instructions as O2)
#     pgo         clang's IR PGO: -fprofile-generate, the train run,
#                 llvm-profdata-14 merge, -fprofile-use
#     sfdo-rN     -fprofile-sample-use= sfdo-profile export --llvm of what
#                 sfdo-record sampled of O2-dip on the train run, for each
#                 of SFDO_BENCH_LLVM_RECORDINGS recordings (default 3: a
#                 sampled profile varies from one recording to the next)
#     sfdo-profi-rN the same with -mllvm -sample-profile-use-profi
#   then counts, for each variant, the instructions and taken jumps of the
#   ref runs under callgrind (../shared/tools/jumps.py; deterministic, so
#   one run each), checks that every variant prints what O2 prints, and
#   writes the section "## LLVM export: Lua 5.4 with clang 14" of
#   bench/RESULTS.md.  All builds use -gdwarf-4 (valgrind 3.19 cannot read
#   clang's DWARF 5) and fix Lua's string-hash seed (-Dluai_makeseed=0*sizeof:
#   it mixes the time and addresses in, which moves counts by up to 4%).
#
#   --wall         also time the ref runs (sfdo with the first recording),
#                  every variant interleaved with an A/A copy of O2
#                  (bench/real/measure.py,
#                  SFDO_BENCH_LLVM_REPS repetitions, default 11), and add
#                  the median ratios to the section.  Long: run it on a quiet
#                  machine.
#   --report-only  rewrite the section from the last run's results.
#
#   Everything goes under bench/work/llvm/ (git-ignored); builds and
#   profiles are redone only when the scripts or the tools change.
#
# Environment: SFDO_BENCH_LLVM_RECORDINGS, SFDO_BENCH_LLVM_REPS,
#   SFDO_BENCH_REAL_JOBS (default 2).
# Exit status: 0 done; 1 failed; 77 the sources, clang-14 or valgrind are
# not available here ("SKIP: ..." on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WALL=
REPORT_ONLY=
for a in "$@"; do
    case $a in
        --wall) WALL=1 ;;
        --report-only) REPORT_ONLY=1 ;;
        *) echo "usage: bench/llvm-bench.sh [--wall] [--report-only]" >&2; exit 2 ;;
    esac
done
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/llvm
# shellcheck disable=SC2034  # bench/real/build.sh compiles JOBS at a time
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
REPS=${SFDO_BENCH_LLVM_REPS:-11}
RECS=${SFDO_BENCH_LLVM_RECORDINGS:-3}
JUMPS=$ROOT/../shared/tools/jumps.py
START=$(date +%s)
VARIANTS=(O2 O2-dip pgo)
for r in $(seq "$RECS"); do VARIANTS+=("sfdo-r$r" "sfdo-profi-r$r"); done
# shellcheck source=bench/lib.sh
. bench/lib.sh

say() { printf '%s\n' "$*"; }
die() { printf 'llvm-bench: error: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: llvm-bench: %s\n' "$*" >&2; exit 77; }
elapsed() { echo "$(( $(date +%s) - START )) s"; }

write_section() {
    [[ -f $WORK/counts.tsv ]] || die "no counts in $WORK to report on; run bench/llvm-bench.sh"
    python3 bench/llvm-report.py "$WORK" > "$WORK/section.md"
    results_write_section "## LLVM export: Lua 5.4 with clang 14" "$WORK/section.md"
    say "wrote the section \"## LLVM export: Lua 5.4 with clang 14\" of bench/RESULTS.md"
}
if [[ -n $REPORT_ONLY ]]; then write_section; exit 0; fi

if ! command -v clang-14 >/dev/null || ! command -v llvm-profdata-14 >/dev/null; then
    skip "needs clang-14 and llvm-profdata-14 (Debian packages clang-14, llvm-14)"
fi
command -v valgrind >/dev/null || skip "needs valgrind (for $JUMPS)"
[[ -f $JUMPS ]] || skip "needs $JUMPS (../shared beside the repository)"
for t in sfdo-convert sfdo-profile sfdo-record; do
    [[ -x $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"

ev=$(scripts/perf-event.sh 2>/dev/null) || die "perf cannot sample here (scripts/perf-event.sh)"
read -r PERF_EVENT PERF_PERIOD <<<"$ev"
# A train run of seconds, sampled five times as often as by default, as in
# bench/real-bench.sh.
TRAIN_PERIOD=$((PERF_PERIOD / 5))

# shellcheck source=bench/real/build.sh
. bench/real/build.sh
export SFDO_BENCH_CC=clang-14
mkdir -p "$WORK"
prepare_lua

LUA_DIR=$ROOT/bench/real/lua
LUA_SCRIPTS=(fib binarytrees nbody spectralnorm fannkuch strings sort)
# train: bench/real-bench.sh's; count: other sizes, small for callgrind
LUA_TRAIN=(25 10 20000 100 8 20000 20000)
LUA_REF=(24 9 10000 70 8 10000 10000)
# wall time: bench/real-bench.sh's ref sizes, about half a second each
LUA_WALL=(35 14 200000 450 "9 3" 150000 80000)
train_cmd() {   # BIN
    local i c=""
    for i in "${!LUA_SCRIPTS[@]}"; do c+="$1 $LUA_DIR/${LUA_SCRIPTS[i]}.lua ${LUA_TRAIN[i]}; "; done
    echo "$c"
}

readonly SEED="-Dluai_makeseed=0*sizeof"
flags_of() {    # VARIANT
    local prof=$WORK/prof r=${1##*-r}
    case $1 in
        O2)         echo "-gdwarf-4 $SEED" ;;
        O2-dip)     echo "-gdwarf-4 $SEED -fdebug-info-for-profiling" ;;
        pgo-gen)    echo "-gdwarf-4 $SEED -fprofile-generate" ;;
        pgo)        echo "-gdwarf-4 $SEED -fprofile-use=$prof/pgo.profdata" ;;
        sfdo-r*)    echo "-gdwarf-4 $SEED -fdebug-info-for-profiling -fprofile-sample-use=$prof/r$r/sfdo.llvm" ;;
        sfdo-profi-r*) echo "-gdwarf-4 $SEED -fdebug-info-for-profiling -fprofile-sample-use=$prof/r$r/sfdo.llvm -mllvm -sample-profile-use-profi" ;;
    esac
}

build() {       # VARIANT
    local d=$WORK/build/$1
    rm -rf "$d" && mkdir -p "$d"
    build_lua "$d" "$(flags_of "$1")" >"$d/build.log" 2>&1 ||
        { tail -n 20 "$d/build.log" >&2; die "building Lua variant $1 failed (log: $d/build.log)"; }
    say "  built $1 ($(elapsed))"
}

KEY=$( { cat bench/llvm-bench.sh bench/real/build.sh bench/real/cc-wrap.sh;
         echo "$PERF_EVENT $TRAIN_PERIOD $RECS"; clang-14 --version;
         cat "$BUILD/sfdo-convert" "$BUILD/sfdo-profile" "$BUILD/sfdo-record"; } |
       sha1sum | cut -c1-16)
if [[ $(cat "$WORK/key" 2>/dev/null) != "$KEY" ]]; then
    rm -f "$WORK/key" "$WORK/counts.tsv" "$WORK/wall.json"
    say "== building O2, O2-dip and the instrumented build with clang-14"
    for v in O2 O2-dip pgo-gen; do build "$v"; done
    P=$WORK/prof
    rm -rf "$P" && mkdir -p "$P"
    say "== training: IR PGO's instrumented run, sfdo-record on O2-dip ($PERF_EVENT every $TRAIN_PERIOD)"
    LLVM_PROFILE_FILE=$P/pgo-%p.profraw sh -c "$(train_cmd "$WORK/build/pgo-gen/lua")" >/dev/null ||
        die "the instrumented train run failed"
    llvm-profdata-14 merge -o "$P/pgo.profdata" "$P"/pgo-*.profraw
    for r in $(seq "$RECS"); do
        R=$P/r$r
        mkdir -p "$R"
        "$BUILD/sfdo-record" -q -e "$PERF_EVENT" -c "$TRAIN_PERIOD" -o "$R/train.data" \
            -- sh -c "$(train_cmd "$WORK/build/O2-dip/lua")" >/dev/null 2>"$R/record.err" ||
            die "recording the train run failed: $(tail -n 3 "$R/record.err")"
        "$BUILD/sfdo-convert" -q -o "$R/sfdo.prof" "$R/train.data" "$WORK/build/O2-dip/lua"
        "$BUILD/sfdo-profile" export --llvm -o "$R/sfdo.llvm" "$R/sfdo.prof" 2>"$R/export.err" ||
            die "sfdo-profile export --llvm failed: $(cat "$R/export.err")"
        perf script -i "$R/train.data" -F ip 2>/dev/null | wc -l > "$R/samples"
    done
    say "== building with the profiles ($(elapsed))"
    for v in "${VARIANTS[@]:2}"; do build "$v"; done
    echo "$KEY" > "$WORK/key"
else
    say "== builds and profiles are up to date ($WORK/key)"
fi

# clang's own view of the sample profile: record and sample coverage of
# lvm.c (the interpreter loop) and the whole build, from a recompile.
coverage() {
    local out=$WORK/coverage.txt f flags
    read -r -a flags <<<"$(flags_of sfdo-r1)"
    : > "$out"
    for f in "$SRC"/lua5.4-5.4.4/src/*.c; do
        [[ $f == */luac.c ]] && continue
        clang-14 -O2 "${flags[@]}" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I"$SRC/lua-inc" \
            -mllvm -sample-profile-check-record-coverage=101 \
            -mllvm -sample-profile-check-sample-coverage=101 -c "$f" -o /dev/null 2>&1 |
            sed -n "s|^.*warning: .*:[0-9]*: \(.*\) were applied.*|$(basename "$f")\t\1|p" >> "$out"
    done
}
say "== clang's coverage of the profile ($(elapsed))"
coverage

say "== outputs on ref, and counts under callgrind ($(elapsed))"
COUNTS=$WORK/counts.tsv.tmp
: > "$COUNTS"
for v in "${VARIANTS[@]}"; do
    b=$WORK/build/$v/lua
    for i in "${!LUA_SCRIPTS[@]}"; do
        s=${LUA_SCRIPTS[i]}
        "$b" "$LUA_DIR/$s.lua" "${LUA_REF[i]}" > "$WORK/out.$v.$s" ||
            die "$v: lua $s.lua failed"
        cmp -s "$WORK/out.O2.$s" "$WORK/out.$v.$s" ||
            die "$v: lua $s.lua ${LUA_REF[i]} prints other output than O2"
        r=$(python3 "$JUMPS" -- "$b" "$LUA_DIR/$s.lua" "${LUA_REF[i]}") ||
            die "$JUMPS failed on $v $s"
        printf '%s\t%s %s\t%s\n' "$v" "$s" "${LUA_REF[i]}" "$r" >> "$COUNTS"
    done
    say "  counted $v ($(elapsed))"
done
mv "$COUNTS" "$WORK/counts.tsv"

if [[ -n $WALL ]]; then
    SPEC=$WORK/spec.tsv
    : > "$SPEC"
    for v in O2 O2-again pgo sfdo-r1 sfdo-profi-r1; do
        b=$WORK/build/$v/lua
        if [[ $v == O2-again ]]; then b=$WORK/build/O2/lua.again; cp "$WORK/build/O2/lua" "$b"; fi
        for i in "${!LUA_SCRIPTS[@]}"; do
            printf 'lua\t%s\t-\t%s %s %s\n' "$v" "$b" "$LUA_DIR/${LUA_SCRIPTS[i]}.lua" \
                "${LUA_WALL[i]}" >> "$SPEC"
        done
    done
    say "== wall time: $REPS repetitions, interleaved ($(elapsed))"
    python3 bench/real/measure.py "$SPEC" "$REPS" "$WORK/runs" "$WORK/wall.json" ||
        die "the measurement failed"
fi
{ echo "bench/llvm-bench.sh${WALL:+ --wall}${WALL:+ (SFDO_BENCH_LLVM_REPS=$REPS)}"
  echo "$PERF_EVENT $TRAIN_PERIOD $(cat "$WORK"/prof/r*/samples | paste -sd,) $(( $(date +%s) - START ))"; } > "$WORK/run.info"
write_section
say "done ($(elapsed))"
