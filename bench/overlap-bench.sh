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
# bench/RESULTS.md.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
REPS=${SFDO_BENCH_REPS:-7}
W=bench/work/overlap
mkdir -p "$W"
make -s build/sfdo-convert build/samplefdo.so build/sfdo-record build/sfdoemu-amd64-linux
read -r PERF_EVENT PERF_PERIOD < <(scripts/perf-event.sh 2>/dev/null)
export PERF_EVENT PERF_PERIOD
EMU_PERIOD=${SFDO_EMU_PERIOD:-100003}
export SFDO_EMU_PERIOD=$EMU_PERIOD
default_modes="timer"
[[ -x build/sfdoemu-amd64-linux ]] && default_modes+=" emu emu-lbr"
read -r -a MODES <<<"${SFDO_BENCH_OVERLAP_MODES:-$default_modes}"
D=tests/e2e/data
programs=(
  "demo examples/demo.c 50"
  "tripcounts $D/tripcounts.c"
  "icalls $D/icalls.c 20000000"
  "divisors $D/divisors.c"
  "memsizes $D/memsizes.c"
  "inlined $D/inlined.c x x x"
)
declare -A TARGET=([timer]=90 [emu]=95 [emu-lbr]=98 [emu-lbr-regs]=98)
declare -A TITLE=([timer]="timer" [emu]="emulated instructions"
                  [emu-lbr]="emulated LBR" [emu-lbr-regs]="emulated LBR + registers")

# stats V...: "median min max" of the numbers V.
stats() {
  printf '%s\n' "$@" | sort -g |
    awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2;
                         printf "%.1f %.1f %.1f\n", m, a[1], a[NR]}'
}

header="| program | mode | overlap, median (min-max) % | within functions % | GCC's static estimate % | samples (last) | target |"
rows=
for p in "${programs[@]}"; do
  read -r name src args <<<"$p"
  for mode in "${MODES[@]}"; do
    globals=() withins=() static= samples=
    for r in $(seq "$REPS"); do
      # shellcheck disable=SC2086
      read -r _ g w static samples < <(SFDO_RECORD_MODE=$mode \
        scripts/measure-overlap.sh "$W/$name-$mode" "$name" "$src" $args)
      globals+=("$g"); withins+=("$w")
      echo "overlap-bench: $name $mode rep $r: ${g}% (within functions ${w}%), static ${static}%"
    done
    read -r gm gl gh < <(stats "${globals[@]}")
    read -r wm wl wh < <(stats "${withins[@]}")
    t=${TARGET[$mode]}
    verdict=$(awk -v g="$gm" -v t="$t" 'BEGIN {print (g >= t) ? "met" : "missed"}')
    rows+="| $name | ${TITLE[$mode]} | $gm ($gl-$gh) | $wm ($wl-$wh) | $static | $samples | $t%: $verdict |"$'\n'
  done
done

section=$(cat <<EOT
## Profile accuracy on the test programs

Written by \`bench/overlap-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD).

- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs); $(gcc --version | head -1).
- Modes: timer = \`perf record -e $PERF_EVENT -c $PERF_PERIOD\` (this machine has no hardware PMU); emulated instructions = \`sfdo-record --emulate -c $EMU_PERIOD\` (retired instructions, exact, jittered); emulated LBR = \`sfdo-record --emulate -b -c $EMU_PERIOD\` (taken branches every $EMU_PERIOD with the last 32 taken branches, beside instruction samples that sfdo-convert leaves aside in LBR mode).
- Command: \`bench/overlap-bench.sh\` (SFDO_BENCH_REPS=$REPS, modes: ${MODES[*]}): for each program and mode, REPS times \`SFDO_RECORD_MODE=MODE scripts/measure-overlap.sh\`: record at -O2 -g, \`sfdo-convert\`, build with the plugin dumping its final block counts, and compare with \`-fprofile-use -fno-vpt\` dump-only counts on the same CFG (\`scripts/count-overlap.py\`).
- Overlap: the sum over blocks of the smaller of the two normalised counts (100% = the same distribution). "Within functions": each function's own overlap weighted by its share, i.e. without the weights across functions. Targets: timer 90% (issue #4), emulated instructions 95%, emulated LBR 98% (issue #14).

$header
|---|---|---:|---:|---:|---:|---|
$rows
Why the timer falls short on some programs: a timer's samples measure time, not executions. A block's count is its samples per instruction, which is right only where instructions cost the same. They do not: the first instructions after a mispredicted branch wait for the pipeline to refill (in \`demo\`, the rare arm of \`count_rare_values\`'s unpredictable branch and the exit of \`insertion_sort\`'s inner loop collect several times their share; in \`inlined\`, the inner loop's exit does), and a whole function of cheap, independent instructions (\`matrix_multiply\`) looks executed less often than one of dependent ones. Retired-instruction samples count executions, and the LBR's ranges count them exactly: the emulated modes are the ceilings a PMU would give, on the same programs and the same converter and plugin. What remains in them is the plugin's and the converter's (discriminators, inline stacks, flow smoothing), not the samples'.
EOT
)
printf '%s\n' "$section" > "$W/section.md"
results_write_section "## Profile accuracy on the test programs" "$W/section.md"
