#!/usr/bin/env bash
# measure-overlap.sh - how close sfdo's counts come to instrumented PGO's,
# on one C program: the block-level degree of overlap (Chen et al.).
#
# Usage: scripts/measure-overlap.sh WORKDIR NAME SOURCE.c [ARG...]
#
#   Builds SOURCE.c at -O2 -g (SFDO_OPT: another level), records `./NAME ARG...` (SFDO_RECORD_MODE:
#   timer, perf record at a fixed period; emu, sfdo-record --emulate's
#   retired-instruction samples; emu-lbr, the same with the emulated LBR;
#   emu-lbr-regs, with registers too; default, sfdo-record with no
#   options: the timer here, with stack copies), converts the samples with
#   sfdo-convert, and compiles again with the plugin dumping its final
#   counts.  The reference is the same source
#   built -fprofile-generate, run with the same arguments, then compiled
#   -fprofile-use -fno-vpt with the plugin in dump-only mode: GCC's
#   instrumented counts on the same CFG (-fno-vpt keeps the value-profile
#   transforms, which add blocks, from running before the dump).  GCC's
#   static estimate (dump-only without a profile) is measured the same way.
#
#   Prints one line: "NAME GLOBAL WITHIN STATIC SAMPLES ENTRIES" - the
#   overlap over the whole program, within functions (each function's own,
#   weighted by its share; see scripts/count-overlap.py), GCC's static
#   estimate's overlap, the samples used, and the overlap of the
#   functions' entry counts ("-" when none compare).  Work files stay in
#   WORKDIR.
#
# Environment: SFDO_RECORD_MODE (default timer); PERF_EVENT, PERF_PERIOD
#   (timer; default: what scripts/perf-event.sh picks); SFDO_EMU_PERIOD
#   (emu*: instructions per sample, default 100003); SFDO_BUILD (default
#   build/), SFDO_GCC (or CC; default gcc), SFDO_PROFILED_GCC (default
#   SFDO_GCC), SFDO_OPT (default -O2).
#
# Exit status: 0 measured; 1 a step failed (its message on stderr); 2 usage.

set -euo pipefail

if (($# < 3)); then
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
work=$1 name=$2 src=$(realpath "$3")
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SFDO_BUILD:-$root/build}
cc=${SFDO_GCC:-${CC:-gcc}}
# The GCC that builds the profiled binary (default: the same): a profile
# from another GCC version, read by this one.
profiled_cc=${SFDO_PROFILED_GCC:-$cc}
opt=${SFDO_OPT:--O2}
plugin=(-fplugin="$build/samplefdo.so")
mode=${SFDO_RECORD_MODE:-timer}
emu_period=${SFDO_EMU_PERIOD:-100003}
case $mode in
    timer)
        if [[ -z ${PERF_EVENT:-} || -z ${PERF_PERIOD:-} ]]; then
            read -r PERF_EVENT PERF_PERIOD < <("$root/scripts/perf-event.sh" 2>/dev/null)
        fi ;;
    default) ;;
    emu) emu_flags=() ;;
    emu-lbr) emu_flags=(-b) ;;
    emu-lbr-regs) emu_flags=(-b --regs) ;;
    *) echo "measure-overlap: SFDO_RECORD_MODE=$mode: not timer, default, emu, emu-lbr or emu-lbr-regs" >&2
       exit 2 ;;
esac

die() {
    printf 'measure-overlap: %s: %s\n' "$name" "$*" >&2
    exit 1
}

mkdir -p "$work"
cd "$work"
rm -f ./*.gcda "$name".{ref,sfdo,static}.dump
"$profiled_cc" -std=gnu11 "$opt" -g "$src" -o "$name" || die "the $opt build failed"
case $mode in
    timer) perf record -q --no-bpf-event -e "$PERF_EVENT" -c "$PERF_PERIOD" \
               -o "$name.data" -- "./$name" "$@" >/dev/null 2>"$name.perf.err" ||
               die "perf record failed: $(head -n 3 "$name.perf.err")" ;;
    default) "$build/sfdo-record" -q -o "$name.data" -- "./$name" "$@" \
                 >/dev/null 2>"$name.perf.err" ||
                 die "sfdo-record failed: $(head -n 3 "$name.perf.err")" ;;
    emu*) "$build/sfdo-record" -q --emulate -c "$emu_period" "${emu_flags[@]}" \
              -o "$name.data" -- "./$name" "$@" >/dev/null 2>"$name.perf.err" ||
              die "sfdo-record --emulate failed: $(head -n 3 "$name.perf.err")" ;;
esac
"$build/sfdo-convert" -q --stats "$name.data" "$name" -o "$name.prof" \
    2>"$name.convert.err" || die "sfdo-convert failed: $(cat "$name.convert.err")"
samples=$(sed -n 's/^sfdo-convert: [0-9]* samples: \([0-9]*\) used.*/\1/p' "$name.convert.err")

# One output name for both instrumented builds: gcda files are named after it.
"$cc" -std=gnu11 "$opt" -g -fprofile-generate "$src" -o "$name.inst" ||
    die "the -fprofile-generate build failed"
"./$name.inst" "$@" >/dev/null
"$cc" -std=gnu11 "$opt" -g -fprofile-use -fno-vpt "${plugin[@]}" \
    -fplugin-arg-samplefdo-profile="$name.prof" -fplugin-arg-samplefdo-dump-only \
    -fplugin-arg-samplefdo-dump="$name.ref.dump" "$src" -o "$name.inst" ||
    die "the -fprofile-use dump failed"
# No inline replay: it would inline calls before the dump, which the
# reference's CFG does not have.
"$cc" -std=gnu11 "$opt" -g "${plugin[@]}" -fplugin-arg-samplefdo-profile="$name.prof" \
    -fplugin-arg-samplefdo-no-inline \
    -fplugin-arg-samplefdo-dump="$name.sfdo.dump" "$src" -o "$name.sfdo" ||
    die "the build with the plugin failed"
"$cc" -std=gnu11 "$opt" -g "${plugin[@]}" -fplugin-arg-samplefdo-profile="$name.prof" \
    -fplugin-arg-samplefdo-dump-only -fplugin-arg-samplefdo-dump="$name.static.dump" \
    "$src" -o "$name.static" || die "the static-estimate dump failed"

# overlap REF CAND: "GLOBAL WITHIN ENTRIES", percentages.
overlap() {
    "$root/scripts/count-overlap.py" "$1" "$2" |
        sed -n 's/^block overlap: \([0-9.]*\)%.*/\1/p; s/^within functions: \([0-9.]*\)%/\1/p
                s/^entry overlap: \([-0-9.]*\).*/\1/p' |
        paste -sd' '
}
read -r global within entries < <(overlap "$name.ref.dump" "$name.sfdo.dump")
read -r static _ < <(overlap "$name.ref.dump" "$name.static.dump")
echo "$name $global $within $static ${samples:-0} ${entries:--}"
