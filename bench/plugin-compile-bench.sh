#!/usr/bin/env bash
# plugin-compile-bench.sh - what the samplefdo plugin costs at compile time.
#
# A large generated translation unit (bench/gen_big_tu.py, 3000 functions,
# ~72 000 lines) is built -O2 -g, run under perf, and converted; then, for
# REPS interleaved repetitions, it is compiled (a) plain -O2 -g and (b) with
# the plugin and that profile, under -ftime-report.  The plugin's own cost
# is GCC's "plugin execution" time (its pass runs under TV_PLUGIN_RUN:
# reading counts, annotating, smoothing) over the plain compile's total;
# the whole compile with the plugin is also shown, since the optimisations
# the profile turns on (unrolling, tracer, ...) take time of their own.
# Target: the plugin's cost under 3% of a plain -O2 compile.
# Rewrites the "## Plugin compile time" section of bench/RESULTS.md.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
REPS=${SFDO_BENCH_REPS:-7}
W=bench/work/plugin
mkdir -p "$W"
make -s build/sfdo-convert build/samplefdo.so
python3 bench/gen_big_tu.py 3000 "$W/big.c"
gcc -O2 -g "$W/big.c" -o "$W/big"
event=$(scripts/perf-event.sh | cut -d' ' -f1)
perf record -q --no-bpf-event -e "$event" -c 100003 -o "$W/big.data" "$W/big" 3000 > /dev/null 2>&1
build/sfdo-convert -q "$W/big.data" "$W/big" -o "$W/big.prof"

plain=() fdo=() plugin=()
for r in $(seq "$REPS"); do
  order=(plain fdo); [[ $((r % 2)) -eq 0 ]] && order=(fdo plain)
  for v in "${order[@]}"; do
    if [[ $v == plain ]]; then
      gcc -O2 -g -ftime-report -c "$W/big.c" -o "$W/plain.o" 2> "$W/plain.tr"
      plain+=("$(awk '/^ TOTAL/ {print $(NF-1)}' "$W/plain.tr")")
    else
      gcc -O2 -g -ftime-report -fplugin=build/samplefdo.so \
        -fplugin-arg-samplefdo-profile="$W/big.prof" -c "$W/big.c" -o "$W/fdo.o" 2> "$W/fdo.tr"
      fdo+=("$(awk '/^ TOTAL/ {print $(NF-1)}' "$W/fdo.tr")")
      plugin+=("$(awk -F: '/plugin execution/ {split($2, t, "[()]"); n = split(t[5], w, " "); print w[1]}' "$W/fdo.tr")")
    fi
  done
  echo "plugin-compile-bench: rep $r: plain ${plain[-1]} s, with plugin ${fdo[-1]} s (plugin ${plugin[-1]} s)"
done
median () { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mp=$(median "${plain[@]}"); mf=$(median "${fdo[@]}"); mg=$(median "${plugin[@]}")
share=$(awk -v g="$mg" -v p="$mp" 'BEGIN {printf "%.2f", 100 * g / p}')
ratio=$(awk -v f="$mf" -v p="$mp" 'BEGIN {printf "%.2f", f / p}')
verdict=$(awk -v s="$share" 'BEGIN {print (s < 3) ? "met" : "missed"}')

section=$(cat <<EOT
## Plugin compile time

Written by \`bench/plugin-compile-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD).

- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs); $(gcc --version | head -1)
- Command: \`bench/plugin-compile-bench.sh\` (SFDO_BENCH_REPS=$REPS): a generated translation unit of $(wc -l < "$W/big.c") lines and 3000 functions (\`bench/gen_big_tu.py 3000\`), profiled with \`$event\`, compiled $REPS times each way, interleaved, order alternating.

| | median wall time (s) |
|---|---:|
| \`gcc -O2 -g -c\` | $mp |
| with the plugin and the profile | $mf ($ratio x) |
| of which the plugin's pass (\`-ftime-report\` "plugin execution") | $mg |

- **Plugin cost: ${share}% of a plain -O2 compile (target under 3%): $verdict.**
- The rest of the difference is GCC optimising with a profile: the plugin turns on what \`-fprofile-use\` turns on (unrolling, peeling, tracer, value-profile transformations, ...), which \`-fprofile-use\` costs as well.
EOT
)
printf '%s\n' "$section" > "$W/section.md"
results_write_section "## Plugin compile time" "$W/section.md"
echo "plugin-compile-bench: plugin cost ${share}% of -O2 ($verdict); wrote bench/RESULTS.md"
