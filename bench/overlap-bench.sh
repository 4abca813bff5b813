#!/usr/bin/env bash
# overlap-bench.sh - how close the plugin's counts come to instrumented
# PGO's, per test program: the block-level degree of overlap of Chen et
# al. on the same CFG (scripts/measure-overlap.sh), for REPS recordings
# each (median, min, max), beside GCC's static estimate.  Target (issue
# #4): at least 90% on each program.
# Rewrites the "## Profile accuracy on the test programs" section of
# bench/RESULTS.md.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
REPS=${SFDO_BENCH_REPS:-7}
W=bench/work/overlap
mkdir -p "$W"
make -s build/sfdo-convert build/samplefdo.so
read -r PERF_EVENT PERF_PERIOD < <(scripts/perf-event.sh 2>/dev/null)
export PERF_EVENT PERF_PERIOD
programs=("${BENCH_TEST_PROGRAMS[@]}")

# stats V...: "median min max" of the numbers V.
stats() {
  printf '%s\n' "$@" | sort -g |
    awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2;
                         printf "%.1f %.1f %.1f\n", m, a[1], a[NR]}'
}

rows=
for p in "${programs[@]}"; do
  read -r name src args <<<"$p"
  globals=() withins=() static= samples=
  for r in $(seq "$REPS"); do
    # shellcheck disable=SC2086
    read -r _ g w static samples < <(scripts/measure-overlap.sh "$W/$name" "$name" "$src" $args)
    globals+=("$g"); withins+=("$w")
    echo "overlap-bench: $name rep $r: ${g}% (within functions ${w}%), static ${static}%"
  done
  read -r gm gl gh < <(stats "${globals[@]}")
  read -r wm wl wh < <(stats "${withins[@]}")
  verdict=$(awk -v g="$gm" 'BEGIN {print (g >= 90) ? "met" : "missed"}')
  rows+="| $name | $gm ($gl-$gh) | $wm ($wl-$wh) | $static | $samples | $verdict |"$'\n'
done

section=$(cat <<EOT
## Profile accuracy on the test programs

Written by \`bench/overlap-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD).

- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs); $(gcc --version | head -1); recorded with \`$PERF_EVENT\` at a period of $PERF_PERIOD.
- Command: \`bench/overlap-bench.sh\` (SFDO_BENCH_REPS=$REPS): for each program, REPS times \`scripts/measure-overlap.sh\`: record at -O2 -g, \`sfdo-convert\`, build with the plugin dumping its final block counts, and compare with \`-fprofile-use -fno-vpt\` dump-only counts on the same CFG (\`scripts/count-overlap.py\`).
- Overlap: the sum over blocks of the smaller of the two normalised counts (100% = the same distribution). "Within functions": each function's own overlap weighted by its share, i.e. without the weights across functions.

| program | overlap, median (min-max) % | within functions % | GCC's static estimate % | samples (last) | target 90% |
|---|---:|---:|---:|---:|---|
$rows
Why some programs fall short here: this machine has no hardware PMU, so the samples come from a timer, and a timer's samples measure time, not executions. A block's count is its samples per instruction, which is right only where instructions cost the same. They do not: the first instructions after a mispredicted branch wait for the pipeline to refill (in \`demo\`, the rare arm of \`count_rare_values\`'s unpredictable branch and the exit of \`insertion_sort\`'s inner loop collect several times their share; in \`inlined\`, the inner loop's exit does), and a whole function of cheap, independent instructions (\`matrix_multiply\`) looks executed less often than one of dependent ones. The within-functions column shows the flow smoothing recovers most of the shape inside each function; the global figure loses the rest in the weights across functions. Retired-instruction samples (\`instructions:u\`, with \`cycles:u\` beside them for sfdo-convert's over/under-sampling classification) or LBR would remove this bias; neither can be recorded in this VM.
EOT
)
printf '%s\n' "$section" > "$W/section.md"
results_write_section "## Profile accuracy on the test programs" "$W/section.md"
