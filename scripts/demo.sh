#!/usr/bin/env bash
# demo.sh - run the sfdo pipeline on examples/demo.c; `make demo` runs it
# after `make all`.
#
#   1. build the demo with gcc -O2 -g, run it once
#   2. record it:            perf record -e cycles:u -c PERIOD -g
#   3. convert the samples:  build/sfdo-convert -> demo-out/demo.prof
#   4. show the profile:     build/sfdo-profile show
#   5. rebuild with it:      gcc -O2 -g -fplugin=build/samplefdo.so ...
#   6. check the rebuilt program prints exactly what the -O2 one prints
#   7. time both, interleaved, and compare medians
#
# Every step must run: a tool that is missing or does not work fails the
# demo loudly (exit 1), naming the step. Everything goes to demo-out/
# (git-ignored).
#
# Under pipefail, a pipe into a reader that stops early (grep -q, head)
# kills its writer with SIGPIPE and fails the pipe at random, so output
# that is searched or cut goes through a file first.
#
# Environment:
#   SFDO_BUILD       where make put the tools (default build)
#   SFDO_GCC         the GCC to build with (default gcc; make plugin
#                    GCC=... must have built the plugin for it)
#   SFDO_PERF_EVENT  the perf event to sample (default cycles:u, or
#                    cpu-clock:u on a machine without a hardware PMU)
#   SFDO_DEMO_RUNS   timed runs of each build in step 7 (default 5)
#
# Exit status: 0 every step ran; 1 a step failed or could not run (perf
# cannot sample here, a tool is missing or failed, the outputs differ).

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly BUILD=${SFDO_BUILD:-build}
readonly OUT=demo-out
readonly RUNS=${SFDO_DEMO_RUNS:-5}
readonly CFLAGS=(-std=c11 -O2 -g)
readonly CC=${SFDO_GCC:-gcc}
readonly CONVERT=$BUILD/sfdo-convert
readonly PROFILE_TOOL=$BUILD/sfdo-profile
readonly PLUGIN=$BUILD/samplefdo.so

summary=()   # one line per step, printed at the end
step_no=0
step_name=

# step NAME: start the next numbered step.
step() {
    step_no=$((step_no + 1))
    step_name=$1
    printf '\nstep %d: %s\n' "$step_no" "$step_name"
}

# done_step RESULT: record how the current step ended, for the summary.
done_step() {
    summary+=("step $step_no: $step_name: $1")
}

say() {
    printf '  %s\n' "$@"
}

# indent CMD...: run CMD with its output indented under the step.
indent() {
    "$@" 2>&1 | sed 's/^/    /'
}

print_summary() {
    printf '\nsummary:\n'
    printf '  %s\n' "${summary[@]}"
}

# fail MSG [HINT...]: the current step failed; say why and stop.
fail() {
    done_step "FAILED"
    printf 'demo: step %d (%s) failed: %s\n' "$step_no" "$step_name" "$1" >&2
    shift
    local hint
    for hint in "$@"; do
        printf 'demo: hint: %s\n' "$hint" >&2
    done
    print_summary
    exit 1
}

# Anything else that fails is a bug in this script or the tools.
trap 'fail "line $LINENO: exit $? from: $BASH_COMMAND"' ERR
set -E

# need_tool PATH WHAT: fail the step unless make built PATH.
need_tool() {
    [[ -x $1 || ( $1 == *.so && -f $1 ) ]] ||
        fail "$1 ($2) is missing" "run make all (make demo builds it first)"
}

# run_timed CMD...: run CMD with its output discarded; print its wall-clock
# time in seconds.
run_timed() {
    local start=$EPOCHREALTIME
    "$@" >/dev/null
    local end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mkdir -p "$OUT"

# --- 1 ----------------------------------------------------------------------
step "build examples/demo.c with $CC ${CFLAGS[*]}"
"$CC" "${CFLAGS[@]}" examples/demo.c -o "$OUT/demo"
say "built $OUT/demo; its output:"
"$OUT/demo" >"$OUT/demo.out"
sed 's/^/    /' "$OUT/demo.out"
done_step "built $OUT/demo"

# --- 2 ----------------------------------------------------------------------
step "record it with perf"
if ! event=$(scripts/perf-event.sh 2>"$OUT/perf-event.err"); then
    sed 's/^/  /' "$OUT/perf-event.err" >&2
    fail "perf cannot sample here (reason and fix above)"
fi
read -r perf_event perf_period <<<"$event"
sed 's/^/  /' "$OUT/perf-event.err"
rm -f "$OUT/perf.data" "$OUT/perf.data.old"
record=(perf record -q --no-bpf-event --no-buildid-cache -e "$perf_event" -c "$perf_period" -g
        -o "$OUT/perf.data" -- "$OUT/demo")
say "${record[*]}"
"${record[@]}" >/dev/null 2>"$OUT/perf-record.err" ||
    fail "perf record failed: $(head -n 3 "$OUT/perf-record.err")"
samples=$(perf script -i "$OUT/perf.data" -F ip -G 2>/dev/null | wc -l)
((samples > 0)) || fail "perf recorded no samples"
case "${perf_event%%:*}" in
    cpu-clock | task-clock) unit=ns ;;
    *) unit=${perf_event%%:*} ;;
esac
say "$samples samples of $perf_event, one every $perf_period $unit" \
    "top functions (share of samples, self only):"
perf report -i "$OUT/perf.data" --stdio --no-children --sort sym -g none \
        --percent-limit 1 >"$OUT/perf-report.txt" 2>/dev/null ||
    fail "perf report cannot read $OUT/perf.data"
grep -v -e '^#' -e '^[[:space:]]*$' "$OUT/perf-report.txt" >"$OUT/perf-top.txt" ||
    true   # no line above the limit is no error
head -n 8 "$OUT/perf-top.txt" | sed 's/^/    /'
lost=$(perf report -i "$OUT/perf.data" --stats 2>/dev/null |
       awk '/LOST(_SAMPLES)? events:/ { n += $3 } END { print n + 0 }')
((lost == 0)) || say "warning: perf lost $lost records; use a larger period"
done_step "$samples samples of $perf_event in $OUT/perf.data"

# --- 3 ----------------------------------------------------------------------
step "convert the samples to a source-line profile"
need_tool "$CONVERT" "sfdo-convert"
convert=("$CONVERT" "$OUT/perf.data" "$OUT/demo" -o "$OUT/demo.prof")
say "${convert[*]}"
indent "${convert[@]}" ||
    fail "sfdo-convert failed"
[[ -s $OUT/demo.prof ]] || fail "sfdo-convert wrote no $OUT/demo.prof"
done_step "wrote $OUT/demo.prof ($(wc -c <"$OUT/demo.prof") bytes)"

# --- 4 ----------------------------------------------------------------------
step "show the profile"
need_tool "$PROFILE_TOOL" "sfdo-profile"
say "$PROFILE_TOOL show $OUT/demo.prof (first 40 lines)"
"$PROFILE_TOOL" show "$OUT/demo.prof" >"$OUT/demo.prof.txt" ||
    fail "sfdo-profile show failed"
head -n 40 "$OUT/demo.prof.txt" | sed 's/^/    /'
lines=$(wc -l <"$OUT/demo.prof.txt")
((lines <= 40)) || say "... $((lines - 40)) more lines in $OUT/demo.prof.txt"
done_step "shown; full text in $OUT/demo.prof.txt"

# --- 5 ----------------------------------------------------------------------
step "rebuild with the profile"
need_tool "$PLUGIN" "the GCC plugin"
# A shared object that is no GCC plugin would make gcc fail obscurely.
nm -D --defined-only "$PLUGIN" >"$OUT/plugin-symbols.txt" 2>&1 ||
    fail "nm cannot read $PLUGIN: $(head -n 1 "$OUT/plugin-symbols.txt")"
grep -qw plugin_init "$OUT/plugin-symbols.txt" ||
    fail "$PLUGIN defines no plugin_init: it is not a GCC plugin" \
         "rebuild it: make all"
rebuild=("$CC" "${CFLAGS[@]}" "-fplugin=$PLUGIN"
         "-fplugin-arg-samplefdo-profile=$OUT/demo.prof"
         examples/demo.c -o "$OUT/demo-fdo")
say "${rebuild[*]}"
indent "${rebuild[@]}" || fail "the build with the plugin failed"
done_step "built $OUT/demo-fdo"

# --- 6 ----------------------------------------------------------------------
step "check the rebuilt program prints the same"
"$OUT/demo-fdo" >"$OUT/demo-fdo.out"
if ! diff -u "$OUT/demo.out" "$OUT/demo-fdo.out" >"$OUT/output.diff"; then
    sed 's/^/    /' "$OUT/output.diff"
    fail "the output differs from the -O2 build: the plugin miscompiled it"
fi
say "identical ($(wc -l <"$OUT/demo.out") lines)"
done_step "output identical to the -O2 build"

# --- 7 ----------------------------------------------------------------------
step "time both builds: $RUNS runs each, interleaved"
# Alternate which build goes first, so neither always gets the warmer or the
# cooler machine.
base_times=()
fdo_times=()
for ((run = 1; run <= RUNS; run++)); do
    if ((run % 2)); then
        base_times+=("$(run_timed "$OUT/demo")")
        fdo_times+=("$(run_timed "$OUT/demo-fdo")")
    else
        fdo_times+=("$(run_timed "$OUT/demo-fdo")")
        base_times+=("$(run_timed "$OUT/demo")")
    fi
done
base=$(median "${base_times[@]}")
fdo=$(median "${fdo_times[@]}")
change=$(awk -v b="$base" -v f="$fdo" 'BEGIN { printf "%+.1f", (f - b) / b * 100 }')
say "-O2:          ${base_times[*]}  median ${base} s" \
    "-O2 + sfdo:   ${fdo_times[*]}  median ${fdo} s" \
    "change in median time: ${change}% (negative is faster)" \
    "(a shared VM is noisy; make bench measures properly)"
done_step "median ${base} s at -O2, ${fdo} s with the profile (${change}%)"

print_summary
