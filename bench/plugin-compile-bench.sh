#!/usr/bin/env bash
# plugin-compile-bench.sh - what the samplefdo plugin costs at compile time.
#
# A large generated translation unit (bench/gen_big_tu.py, 3000 functions,
# ~72 000 lines) is built -O2 -g, run under perf, and converted, and built
# instrumented and run for -fprofile-use; then, for REPS interleaved
# repetitions, it is compiled (a) plain -O2 -g, (b) with the plugin and
# that profile and (c) with -fprofile-use, under -ftime-report.  The
# plugin's own cost is the CPU time it reports under verbose (reading the
# profile, and its pass: annotating, smoothing, GCC's dominators and loops
# it asks for) over the plain compile's total.  -ftime-report's "plugin
# execution" is not it: GCC times its dispatch of every plugin event
# there, the same 0.13 s with the pass gated off.  The whole compiles
# with a profile are also shown, since
# the optimisations a profile turns on (unrolling, inlining, tracer, ...)
# take time of their own.  Target (issue #13): the plugin's cost under 2%
# of a plain -O2 compile.
# Rewrites the "## Plugin compile time" section of bench/RESULTS.md.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
REPS=${SFDO_BENCH_REPS:-7}
die() { printf 'plugin-compile-bench: error: %s\n' "$*" >&2; exit 1; }
W=bench/work/plugin
mkdir -p "$W"
make -s build/sfdo-convert build/samplefdo.so
python3 bench/gen_big_tu.py 3000 "$W/big.c"
gcc -O2 -g "$W/big.c" -o "$W/big"
event=$(scripts/perf-event.sh | cut -d' ' -f1)
perf record -q --no-bpf-event -e "$event" -c 100003 -o "$W/big.data" "$W/big" 3000 > /dev/null 2>&1
build/sfdo-convert -q "$W/big.data" "$W/big" -o "$W/big.prof"
# The instrumented object writes its counts next to itself: $W/pgo.gcda,
# which -fprofile-use finds for the same object name.
rm -f "$W/pgo.gcda"
gcc -O2 -g -fprofile-generate -c "$W/big.c" -o "$W/pgo.o"
gcc -fprofile-generate "$W/pgo.o" -o "$W/big-gen"
"$W/big-gen" 3000 > /dev/null

total_of () { awk '/^ TOTAL/ {print $(NF-1)}' "$1"; }
plain=() fdo=() plugin=() pgo=()
for r in $(seq "$REPS"); do
  order=(plain fdo pgo)
  case $((r % 3)) in 1) order=(fdo pgo plain) ;; 2) order=(pgo plain fdo) ;; esac
  for v in "${order[@]}"; do
    case $v in
      plain)
        gcc -O2 -g -ftime-report -c "$W/big.c" -o "$W/plain.o" 2> "$W/plain.tr"
        plain+=("$(total_of "$W/plain.tr")") ;;
      fdo)
        gcc -O2 -g -ftime-report -fplugin=build/samplefdo.so -fplugin-arg-samplefdo-verbose \
          -fplugin-arg-samplefdo-profile="$W/big.prof" -c "$W/big.c" -o "$W/fdo.o" 2> "$W/fdo.tr"
        fdo+=("$(total_of "$W/fdo.tr")")
        plugin+=("$(awk '/CPU time: .* reading the profile, .* in the pass/ {print $(NF-9) + $(NF-4)}' "$W/fdo.tr")")
        [[ -n ${plugin[-1]} ]] || die "the plugin reported no CPU time: $(grep -m1 samplefdo "$W/fdo.tr")" ;;
      pgo)
        gcc -O2 -g -ftime-report -fprofile-use -c "$W/big.c" -o "$W/pgo.o" 2> "$W/pgo.tr"
        ! grep -q 'warning' "$W/pgo.tr" || die "-fprofile-use did not match its counts: $(grep -m1 warning "$W/pgo.tr")"
        pgo+=("$(total_of "$W/pgo.tr")") ;;
    esac
  done
  echo "plugin-compile-bench: rep $r: plain ${plain[-1]} s, with plugin ${fdo[-1]} s (plugin ${plugin[-1]} s), -fprofile-use ${pgo[-1]} s"
done
median () { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mp=$(median "${plain[@]}"); mf=$(median "${fdo[@]}"); mg=$(median "${plugin[@]}")
mu=$(median "${pgo[@]}")
share=$(awk -v g="$mg" -v p="$mp" 'BEGIN {printf "%.2f", 100 * g / p}')
ratio=$(awk -v f="$mf" -v p="$mp" 'BEGIN {printf "%.2f", f / p}')
pgo_ratio=$(awk -v f="$mu" -v p="$mp" 'BEGIN {printf "%.2f", f / p}')
verdict=$(awk -v s="$share" 'BEGIN {print (s < 2) ? "met" : "missed"}')
size_of () { size "$1" | awk 'NR == 2 {print $1}'; }

section=$(cat <<EOT
## Plugin compile time

Written by \`bench/plugin-compile-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD).

- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs); $(gcc --version | head -1)
- Command: \`bench/plugin-compile-bench.sh\` (SFDO_BENCH_REPS=$REPS): a generated translation unit of $(wc -l < "$W/big.c") lines and 3000 functions (\`bench/gen_big_tu.py 3000\`), profiled with \`$event\`, compiled $REPS times each way, interleaved, order alternating.

| | median wall time (s) |
|---|---:|
| \`gcc -O2 -g -c\` | $mp |
| with the plugin and the profile | $mf ($ratio x) |
| of which the plugin (CPU time it reports: reading the profile, its pass) | $mg |
| \`-fprofile-use\`, the same run's instrumented counts | $mu ($pgo_ratio x) |

- **Plugin cost: ${share}% of a plain -O2 compile (target under 2%, issue #13): $verdict.**
- The rest of the difference is GCC optimising with a profile: the plugin turns on what \`-fprofile-use\` turns on (unrolling, peeling, tracer, value-profile transformations, ...) and GCC acts on the counts (inlining, unrolling).  Text of the objects: plain $(size_of "$W/plain.o") bytes, plugin $(size_of "$W/fdo.o"), -fprofile-use $(size_of "$W/pgo.o").
EOT
)
printf '%s\n' "$section" > "$W/section.md"
results_write_section "## Plugin compile time" "$W/section.md"
echo "plugin-compile-bench: plugin cost ${share}% of -O2 ($verdict); wrote bench/RESULTS.md"
