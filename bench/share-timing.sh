#!/usr/bin/env bash
# bench/share-timing.sh - re-time the builds bench/decisions-bench.sh left
# behind, only the variants the share of PGO's gain is read from (-O2,
# -O2 again as the A/A control, O2x, PGO, sfdo), with more repetitions
# than the ladder can afford (its 14 variants a program).  On this host
# one wall-time median of 9 repetitions moves by several points of the
# share from run to run; this narrows it for the same builds.
#
# Usage: bench/share-timing.sh [--reps N] [--record timer|emulate] [PROG...]
#   --reps N     repetitions, interleaved (default 31)
#   --record R   which decisions-bench work directory (default emulate)
#   PROG         lua (default), sqlite
#
# Writes the section "## Share of PGO's gain, re-timed" of
# bench/RESULTS.md.  Exit status: 0 done; 1 a run failed or outputs
# differ; 2 usage; 77 no decisions-bench builds to time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=31 RECORD=emulate PROGS=()
while (($#)); do
    case $1 in
        --reps) REPS=$2; shift ;;
        --record) RECORD=$2; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "usage: bench/share-timing.sh [--reps N] [--record timer|emulate] [PROG...]" >&2; exit 2 ;;
        *) PROGS+=("$1") ;;
    esac
    shift
done
((${#PROGS[@]})) || PROGS=(lua)
[[ $REPS =~ ^[0-9]+$ && $REPS -ge 7 ]] ||
    { echo "share-timing: --reps takes a number, 7 or more" >&2; exit 2; }
WORK=bench/work/decisions/full-$RECORD
[[ -f $WORK/spec.tsv ]] || {
    echo "SKIP: share-timing: no $WORK/spec.tsv; run bench/decisions-bench.sh --record $RECORD first" >&2
    exit 77
}
. bench/lib.sh
OUT=bench/work/share-timing
rm -rf "$OUT" && mkdir -p "$OUT"
START=$(date +%s)
awk -F'\t' -v progs=" ${PROGS[*]} " \
    'index(progs, " " $1 " ") && $2 ~ /^(O2|O2again|O2x|pgo|sfdo)$/' \
    "$WORK/spec.tsv" > "$OUT/spec.tsv"
[[ -s $OUT/spec.tsv ]] || { echo "share-timing: none of ${PROGS[*]} in $WORK/spec.tsv" >&2; exit 1; }
commit=$(git log -1 --format=%h 2>/dev/null || echo unknown)
built=$(sed -n 's/^Written by .* commit \([0-9a-f]*\)\.$/\1/p' "$WORK/section.md" 2>/dev/null | head -1)
python3 bench/real/measure.py "$OUT/spec.tsv" "$REPS" "$OUT/runs" "$OUT/times.json"
python3 - "$OUT/times.json" "$REPS" "$RECORD" "${built:-$commit}" \
    "$(( $(date +%s) - START ))" "${PROGS[@]}" > "$OUT/section.md" <<'PY'
import importlib.util, json, statistics, sys, time
# The names and the share of PGO's gain as the decisions bench's report
# computes them.
spec = importlib.util.spec_from_file_location("report", "bench/decisions-report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
times, reps, record, built, elapsed = sys.argv[1:6]
progs = sys.argv[6:]
t = json.load(open(times))["programs"]
med = report.med
out = ["## Share of PGO's gain, re-timed", "",
       "Written by `bench/share-timing.sh` on %s UTC (the run took %d min), "
       "timing the builds of `bench/decisions-bench.sh --record %s` (commit %s)."
       % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), round(int(elapsed) / 60),
          record, built), "",
       "- Command: `bench/share-timing.sh --reps %s %s`: -O2, -O2 again (A/A), "
       "O2x (FDO's flags, no profile), instrumented PGO and sfdo only, %s "
       "repetitions of the ref runs, interleaved (bench/real/measure.py); "
       "median per-repetition ratio to -O2 (min-max, and the interquartile "
       "range)." % (reps, " ".join(progs), reps), "",
       "| program | variant | time ratio | IQR | share of PGO's gain |",
       "|---|---|---:|---:|---:|"]
for p in progs:
    v = t[p]["variants"]
    pgo = med(v["pgo"]["ratio_time"])
    for k, label in (("O2again", "-O2 again (A/A)"), ("O2x", "O2x: FDO's flags, no profile"),
                     ("pgo", "instrumented PGO"), ("sfdo", "sfdo")):
        r = v[k]["ratio_time"]
        q = statistics.quantiles(r, n=4)
        share = ("(%+.1f%%)" % (100 * (1 / pgo - 1)) if k == "pgo"
                 else report.pct(report.gain_share(med(r), pgo)))
        out.append("| %s | %s | %.3f (%.2f-%.2f) | %.3f-%.3f | %s |"
                   % (report.NAMES.get(p, p), label, med(r), min(r), max(r), q[0], q[2], share))
print("\n".join(out))
PY
results_write_section "## Share of PGO's gain, re-timed" "$OUT/section.md"
cat "$OUT/section.md"
