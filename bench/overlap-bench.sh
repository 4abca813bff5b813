#!/usr/bin/env bash
# overlap-bench.sh - how close the plugin's counts come to instrumented
# PGO's, per test program and recording mode: the block-level degree of
# overlap of Chen et al. on the same CFG (scripts/measure-overlap.sh), for
# REPS recordings each (median, min, max), beside GCC's static estimate.
# Modes (SFDO_BENCH_OVERLAP_MODES, default all this machine has): timer
# (perf record on this machine's timer; target 90%, issue #4), emu
# (sfdo-record --emulate's retired-instruction samples; target 95%,
# issue #14), emu-lbr (--emulate -b: taken-branch samples with the
# emulated LBR; target 98%).  The emulated modes need sfdoemu built.
# Rewrites the "## Profile accuracy on the test programs" section of
# bench/RESULTS.md.  --report-only: rewrite it from the last run's
# results (bench/work/overlap/results.tsv), measuring nothing.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
REPS=${SFDO_BENCH_REPS:-7}
W=bench/work/overlap
REPORT_ONLY=
case ${1:-} in
  --report-only) REPORT_ONLY=1 ;;
  "") ;;
  *) echo "usage: bench/overlap-bench.sh [--report-only]" >&2; exit 2 ;;
esac
mkdir -p "$W"
[[ -n $REPORT_ONLY ]] ||
  make -s build/sfdo-convert build/samplefdo.so build/sfdo-record build/sfdoemu-amd64-linux
read -r PERF_EVENT PERF_PERIOD < <(scripts/perf-event.sh 2>/dev/null)
export PERF_EVENT PERF_PERIOD
EMU_PERIOD=${SFDO_EMU_PERIOD:-100003}
export SFDO_EMU_PERIOD=$EMU_PERIOD
default_modes="timer"
[[ -x build/sfdoemu-amd64-linux ]] && default_modes+=" emu emu-lbr"
read -r -a MODES <<<"${SFDO_BENCH_OVERLAP_MODES:-$default_modes}"
programs=("${BENCH_TEST_PROGRAMS[@]}")
declare -A TARGET=([timer]=90 [emu]=95 [emu-lbr]=98 [emu-lbr-regs]=98)
declare -A TITLE=([timer]="timer" [emu]="emulated instructions"
                  [emu-lbr]="emulated LBR" [emu-lbr-regs]="emulated LBR + registers")

# stats V...: "median min max" of the numbers V.
stats() {
  printf '%s\n' "$@" | sort -g |
    awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2;
                         printf "%.1f %.1f %.1f\n", m, a[1], a[NR]}'
}

# One line per recording: NAME MODE GLOBAL WITHIN STATIC SAMPLES.
RESULTS=$W/results.tsv
if [[ -z $REPORT_ONLY ]]; then
  : >"$RESULTS"
  for p in "${programs[@]}"; do
    read -r name src args <<<"$p"
    for mode in "${MODES[@]}"; do
      for r in $(seq "$REPS"); do
        # shellcheck disable=SC2086
        read -r _ g w static samples _ < <(SFDO_RECORD_MODE=$mode \
          scripts/measure-overlap.sh "$W/$name-$mode" "$name" "$src" $args)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$g" "$w" "$static" "$samples" >>"$RESULTS"
        echo "overlap-bench: $name $mode rep $r: ${g}% (within functions ${w}%), static ${static}%"
      done
    done
  done
  printf '%s\t%s\t%s\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(git rev-parse --short HEAD)" \
    "$REPS" "${MODES[*]}" >"$W/run.info"
fi
[[ -s $RESULTS && -s $W/run.info ]] || { echo "overlap-bench: no results in $W to report on" >&2; exit 1; }
IFS=$'\t' read -r run_date run_commit REPS modes_run <"$W/run.info"

header="| program | mode | overlap, median (min-max) % | within functions % | GCC's static estimate % | samples (last) | target |"
rows=
for p in "${programs[@]}"; do
  read -r name _ <<<"$p"
  for mode in timer emu emu-lbr emu-lbr-regs; do
    mapfile -t lines < <(awk -F'\t' -v n="$name" -v m="$mode" '$1 == n && $2 == m' "$RESULTS")
    ((${#lines[@]})) || continue
    globals=() withins=()
    for l in "${lines[@]}"; do
      IFS=$'\t' read -r _ _ g w static samples <<<"$l"
      globals+=("$g"); withins+=("$w")
    done
    read -r gm gl gh < <(stats "${globals[@]}")
    read -r wm wl wh < <(stats "${withins[@]}")
    t=${TARGET[$mode]}
    verdict=$(awk -v g="$gm" -v t="$t" 'BEGIN {print (g >= t) ? "met" : "missed"}')
    rows+="| $name | ${TITLE[$mode]} | $gm ($gl-$gh) | $wm ($wl-$wh) | $static | $samples | $t%: $verdict |"$'\n'
    [[ $name-$mode-$verdict == inlined-emu-lbr-missed ]] && inlined_lbr_missed=1
  done
done
notes=
if [[ -n ${inlined_lbr_missed:-} ]]; then
  notes="Why the emulated LBR misses on \`inlined\` (at any sample count: 95.8% at periods 100003 and 20011 alike): \`work\` is called once, so no sampled branch stack holds its entry, and the LBR profile gives it a head count of 0 (IP samples give it a few thousand). The plugin then sets \`work\`'s entry and exit blocks to the count of line 7, which they share with the outer loop's latch (11.5 million instead of 1): about 4% of the weight. A hardware LBR profile would do the same; the fix belongs to the head count (converter) or its use (plugin), not to the recording."
fi


section=$(cat <<EOT
## Profile accuracy on the test programs

Written by \`bench/overlap-bench.sh\` on $run_date, commit $run_commit.

- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs); $(gcc --version | head -1).
- Modes: timer = \`perf record -e $PERF_EVENT -c $PERF_PERIOD\` (this machine has no hardware PMU); emulated instructions = \`sfdo-record --emulate -c $EMU_PERIOD\` (retired instructions, exact, jittered); emulated LBR = \`sfdo-record --emulate -b -c $EMU_PERIOD\` (taken branches every $EMU_PERIOD with the last 32 taken branches, beside instruction samples that sfdo-convert leaves aside in LBR mode).
- Command: \`bench/overlap-bench.sh\` (SFDO_BENCH_REPS=$REPS, modes: $modes_run): for each program and mode, REPS times \`SFDO_RECORD_MODE=MODE scripts/measure-overlap.sh\`: record at -O2 -g, \`sfdo-convert\`, build with the plugin dumping its final block counts, and compare with \`-fprofile-use -fno-vpt\` dump-only counts on the same CFG (\`scripts/count-overlap.py\`).
- Overlap: the sum over blocks of the smaller of the two normalised counts (100% = the same distribution). "Within functions": each function's own overlap weighted by its share, i.e. without the weights across functions. Targets: timer 90% (issue #4), emulated instructions 95%, emulated LBR 98% (issue #14).

$header
|---|---|---:|---:|---:|---:|---|
$rows
Why the timer falls short on some programs: a timer's samples measure time, not executions. A block's count is its samples per instruction, which is right only where instructions cost the same. They do not: the first instructions after a mispredicted branch wait for the pipeline to refill (in \`demo\`, the rare arm of \`count_rare_values\`'s unpredictable branch and the exit of \`insertion_sort\`'s inner loop collect several times their share; in \`inlined\`, the inner loop's exit does), and a whole function of cheap, independent instructions (\`matrix_multiply\`) looks executed less often than one of dependent ones. Retired-instruction samples count executions, and the LBR's ranges count them exactly: the emulated modes are the ceilings a PMU would give, on the same programs and the same converter and plugin. What remains in them is the plugin's and the converter's (discriminators, inline stacks, flow smoothing), not the samples'.

$notes
EOT
)
printf '%s\n' "$section" > "$W/section.md"
results_write_section "## Profile accuracy on the test programs" "$W/section.md"
