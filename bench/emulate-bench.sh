#!/usr/bin/env bash
# emulate-bench.sh - what the emulated PMU costs: the slowdown of
# sfdo-record --emulate over the native run, per recording mode, on a few
# programs, beside Valgrind's own floor (nulgrind, --tool=none) and an A/A
# control; and the deterministic counts it gives (instructions and taken
# branches per run, samples per run).
#
# Usage: bench/emulate-bench.sh
#
#   Programs: examples/demo.c (-O2 -g, argument 30), tests/e2e/data/
#   inlined.c, and Debian's gzip -6 and bzip2 -9 on a tar of GCC's C++
#   headers.  Variants, run interleaved with their order rotated each
#   repetition (bench/real/measure.py, which also checks every variant
#   prints what the native run prints): native, native again (A/A),
#   nulgrind, --emulate --stat (counting only), --emulate (instructions),
#   --emulate -b (taken branches with the LBR, and instructions),
#   --emulate -b --regs.  Time is CPU time (task-clock of the whole process
#   tree, sfdo-record's merge included); figures are the median, min and
#   max over repetitions of each repetition's ratio to native.
#   Rewrites the section "## Emulated PMU" of bench/RESULTS.md.
#
# Environment: SFDO_BENCH_REPS (default 7).
#
# Exit status: 0 done; 1 failed; 77 sfdoemu is not built here.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
REPS=${SFDO_BENCH_REPS:-7}
W=$PWD/bench/work/emulate
B=$PWD/build
make -s build/sfdo-record build/sfdoemu-amd64-linux
if [[ ! -x $B/sfdoemu-amd64-linux ]]; then
    echo "SKIP: emulate-bench: sfdoemu is not built: $(cat "$B/sfdoemu.not-built" 2>/dev/null)" >&2
    exit 77
fi
rm -rf "$W" && mkdir -p "$W/tmp"
START=$(date +%s)

gcc -std=gnu11 -O2 -g examples/demo.c -o "$W/demo"
gcc -std=gnu11 -O2 -g tests/e2e/data/inlined.c -o "$W/inlined"
tar cf "$W/all.tar" --sort=name --mtime=@0 --owner=0 --group=0 -C /usr/include c++
head -c 12000000 "$W/all.tar" >"$W/input.tar"
head -c 4000000 "$W/all.tar" >"$W/input4.tar"
rm "$W/all.tar"
programs=(
    "demo|$W/demo 30"
    "inlined|$W/inlined x x x"
    "gzip|gzip -6 -c $W/input.tar"
    "bzip2|bzip2 -9 -c $W/input4.tar"
)
R="$B/sfdo-record -q --emulate -o $W/tmp/rec.data"
variants=(    # NAME|PREFIX: the command runs as PREFIX CMD
    "O2|"
    "O2-again|"
    "nulgrind|valgrind --tool=none -q --vgdb=no "
    "stat|$B/sfdo-record -q --emulate --stat -o $W/tmp/counts -- "
    "emu|$R -- "
    "emu-lbr|$R -b -- "
    "emu-lbr-regs|$R -b --regs -- "
)
SPEC=$W/spec.tsv
: >"$SPEC"
for p in "${programs[@]}"; do
    name=${p%%|*} cmd=${p#*|}
    for v in "${variants[@]}"; do
        printf '%s\t%s\t-\t%s%s\n' "$name" "${v%%|*}" "${v#*|}" "$cmd" >>"$SPEC"
    done
done
echo "== $REPS repetitions of ${#programs[@]} programs in ${#variants[@]} variants, interleaved"
python3 bench/real/measure.py "$SPEC" "$REPS" "$W/runs" "$W/results.json"

# Deterministic counts: instructions and taken branches (--stat), and the
# samples each recording mode takes.
COUNTS=$W/counts.tsv
: >"$COUNTS"
for p in "${programs[@]}"; do
    name=${p%%|*} cmd=${p#*|}
    # shellcheck disable=SC2086
    "$B/sfdo-record" -q --emulate --stat -o "$W/tmp/c" -- $cmd >/dev/null
    read -r insns taken < <(awk '$2 == "instructions:u" { i = $1 } $2 == "taken-branches:u" { t = $1 }
                                  END { print i, t }' "$W/tmp/c")
    samples=()
    for flags in "" "-b"; do
        # shellcheck disable=SC2086
        "$B/sfdo-record" --emulate $flags -o "$W/tmp/s.data" -- $cmd >/dev/null 2>"$W/tmp/s.err"
        samples+=("$(sed -n 's/.*; \([0-9]*\) samples, \([0-9.]*\) MB.*/\1 (\2 MB)/p' "$W/tmp/s.err")")
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$insns" "$taken" "${samples[0]}" "${samples[1]}" >>"$COUNTS"
done

python3 - "$W/results.json" "$COUNTS" >"$W/section.md" <<PY
import json, statistics, sys
res = json.load(open(sys.argv[1]))
counts = {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(sys.argv[2])}
cols = [("O2-again", "A/A (native again)"), ("nulgrind", "nulgrind"), ("stat", "--stat"),
        ("emu", "--emulate"), ("emu-lbr", "--emulate -b"), ("emu-lbr-regs", "--emulate -b --regs")]
def fmt(r):
    return "%.2f (%.2f-%.2f)" % (statistics.median(r), min(r), max(r))
print("## Emulated PMU\n")
print("Written by \`bench/emulate-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD); "
      "$(valgrind --version); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs), shared with other work.\n")
print("- Command: \`bench/emulate-bench.sh\` (SFDO_BENCH_REPS=%d): every variant of every program run %d times, interleaved with the order rotated each repetition (\`bench/real/measure.py\`, which checks each variant prints what the native run prints). "
      "Time: CPU time of the whole process tree (\`perf stat -e task-clock\`; sfdo-record's merge into perf.data included). Figures: median (min-max) over repetitions of each repetition's ratio to the native run." % (res["reps"], res["reps"]))
print("- Variants: nulgrind = \`valgrind --tool=none\` (Valgrind's floor, superblock chasing on); --stat = counting only; --emulate = retired instructions every 100003; -b = taken branches every 20011 with the last 32 (LBR), and instructions; --regs = the registers at every sample.")
print("- Programs: examples/demo.c 30, tests/e2e/data/inlined.c, Debian's gzip -6 on 12 MB and bzip2 -9 on 4 MB of a tar of GCC's C++ headers.\n")
print("| program | native, s | " + " | ".join(t for _, t in cols) + " |")
print("|---|---:|" + "---:|" * len(cols))
for prog, pr in res["programs"].items():
    v = pr["variants"]
    row = [prog, "%.2f" % statistics.median(v["O2"]["time_s"])]
    row += [fmt(v[k]["ratio_time"]) for k, _ in cols]
    print("| " + " | ".join(row) + " |")
print("\nDeterministic counts of one run (they do not drift with the machine's load): instructions and taken branches (calls, returns, jumps, taken conditional branches) as \`--stat\` counts them, and the samples each recording takes at the default periods.\n")
print("| program | instructions | taken branches | samples, --emulate | samples, --emulate -b |")
print("|---|---:|---:|---:|---:|")
for prog, (i, t, s1, s2) in counts.items():
    print("| %s | %s | %s | %s | %s |" % (prog, format(int(i), ","), format(int(t), ","), s1, s2))
PY
results_write_section "## Emulated PMU" "$W/section.md"
echo "wrote the section \"## Emulated PMU\" of bench/RESULTS.md ($(( $(date +%s) - START )) s)"
