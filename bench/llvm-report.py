#!/usr/bin/env python3
"""llvm-report.py - the "## LLVM export: Lua 5.4 with clang 14" section of
bench/RESULTS.md, from what bench/llvm-bench.sh left in WORK.

Usage: llvm-report.py WORK    (prints Markdown on standard output)

Reads WORK/counts.tsv (VARIANT<TAB>SCRIPT ARGS<TAB>"Ir N taken N" from
../shared/tools/jumps.py), WORK/coverage.txt (clang's coverage warnings per
source file), WORK/run.info, WORK/prof/export.err and, when --wall ran,
WORK/wall.json (bench/real/measure.py).
"""
import json
import os
import subprocess
import sys
import time
from collections import OrderedDict, defaultdict
from statistics import median

VARIANTS = OrderedDict([
    ("O2", "`-O2`"),
    ("O2-dip", "`-O2 -fdebug-info-for-profiling` (the sampled binary)"),
    ("pgo", "clang IR PGO (`-fprofile-generate`, `-fprofile-use`)"),
    ("sfdo", "**sfdo**: `-fprofile-sample-use=` the export"),
    ("sfdo-profi", "**sfdo** + `-mllvm -sample-profile-use-profi`"),
])
TARGET = 0.60


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def main():
    work = sys.argv[1]
    counts = defaultdict(dict)          # variant -> script -> (ir, taken)
    scripts = []
    for line in open(os.path.join(work, "counts.tsv")):
        v, s, r = line.rstrip("\n").split("\t")
        f = r.split()
        counts[v][s] = (int(f[1]), int(f[3]))
        if s not in scripts:
            scripts.append(s)
    tot = {v: (sum(x[0] for x in c.values()), sum(x[1] for x in c.values()))
           for v, c in counts.items()}
    base_ir, base_tk = tot["O2"]
    pgo_cut = 1 - tot["pgo"][1] / base_tk
    command, rest = open(os.path.join(work, "run.info")).read().splitlines()[:2]
    event, period, samples, elapsed = rest.split()
    when = time.strftime("%Y-%m-%d %H:%M UTC",
                         time.gmtime(os.path.getmtime(os.path.join(work, "counts.tsv"))))
    out = []
    w = out.append
    w("## LLVM export: Lua 5.4 with clang 14")
    w("")
    w(f"Written by `bench/llvm-bench.sh` on {when} (the run took {int(elapsed) // 60} min).")
    w("")
    cpu = sh("sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1")
    w(f"- Machine: {cpu} "
      f"({sh('nproc')} CPUs), no hardware PMU; {sh('clang-14 --version | head -n 1')}; "
      f"{sh('valgrind --version')}; sfdo commit {sh('git rev-parse --short HEAD')}.")
    w(f"- Command: `{command}` (`make bench` runs it without `--wall`).")
    w("- Builds: Lua 5.4.4 from `apt-get source lua5.4`, each `.c` compiled by clang-14 "
      "(`bench/real/build.sh` with `SFDO_BENCH_CC=clang-14`), every variant with "
      "`-O2 -gdwarf-4 -Dluai_makeseed=0*sizeof` plus its own flags (DWARF 4: valgrind 3.19 cannot "
      "read DWARF 5; the fixed string-hash seed: Lua mixes the time and addresses into it, which "
      "moves instruction counts by up to 4%).")
    w(f"- Profiles: train run = the 7 scripts of `bench/real/lua/` at bench/real-bench.sh's train "
      f"sizes. IR PGO: the `-fprofile-generate` build, `llvm-profdata-14 merge`. sfdo: "
      f"`sfdo-record -e {event} -c {period}` of the `-fdebug-info-for-profiling` build "
      f"({samples} samples), `sfdo-convert`, `sfdo-profile export --llvm`.")
    w("- Counts: `../shared/tools/jumps.py` (callgrind: instructions, and taken conditional plus "
      "unconditional jumps) of each variant on the ref run, the same scripts at other sizes: "
      + ", ".join(f"`lua {s.split()[0]}.lua {' '.join(s.split()[1:])}`" for s in scripts)
      + ". Deterministic, so one run each; every variant printed what -O2 printed.")
    w("")
    w("| variant | instructions / -O2 | taken jumps / -O2 | share of PGO's taken-jump cut |")
    w("|---|---:|---:|---:|")
    for v, name in VARIANTS.items():
        if v not in tot:
            continue
        ir, tk = tot[v]
        share = (1 - tk / base_tk) / pgo_cut if pgo_cut > 0 else float("nan")
        w(f"| {name} | {ir / base_ir:.3f} | {tk / base_tk:.3f} | "
          f"{'' if v in ('O2', 'pgo') else f'{100 * share:.0f}%'}{'100%' if v == 'pgo' else ''} |")
    w("")
    w("Taken jumps per script, as a ratio to -O2:")
    w("")
    w("| script | " + " | ".join(v for v in VARIANTS if v != "O2" and v in counts) + " |")
    w("|---|" + "---:|" * (len([v for v in VARIANTS if v in counts]) - 1))
    for s in scripts:
        w(f"| {s} | " + " | ".join(f"{counts[v][s][1] / counts['O2'][s][1]:.3f}"
                                   for v in VARIANTS if v != "O2" and v in counts) + " |")
    w("")
    best = max(("sfdo", "sfdo-profi"), key=lambda v: 1 - tot[v][1] / base_tk)
    share = (1 - tot[best][1] / base_tk) / pgo_cut
    w(f"- **Target (>= {100 * TARGET:.0f}% of clang PGO's taken-jump cut): "
      f"{'met' if share >= TARGET else 'not met'}**: {best} cuts {100 * (1 - tot[best][1] / base_tk):.1f}% "
      f"of -O2's taken jumps, PGO {100 * pgo_cut:.1f}%: {100 * share:.0f}% of PGO's cut.")
    if "O2-dip" in tot:
        dip = tot["O2-dip"][1]
        rel = (1 - tot[best][1] / dip) / (1 - tot["pgo"][1] / dip)
        w(f"- `-fdebug-info-for-profiling` alone changes clang's code (taken jumps "
          f"{tot['O2-dip'][1] / base_tk:.3f} of -O2's). Measured from that build instead, "
          f"{best} cuts {100 * (1 - tot[best][1] / dip):.1f}% of its taken jumps and PGO "
          f"{100 * (1 - tot['pgo'][1] / dip):.1f}%: {100 * rel:.0f}% of PGO's cut.")
    w("- One recording: the profile is a sample, and another recording of the same train run "
      "moves these shares by a few points.")
    cov = os.path.join(work, "coverage.txt")
    if os.path.exists(cov):
        used = total = su = st = 0
        for line in open(cov):
            f = line.rstrip("\n").split("\t")[1].split()
            if f[5] == "records":
                used += int(f[0]); total += int(f[2])
            else:
                su += int(f[0]); st += int(f[2])
        if total:
            w(f"- clang's own check of the profile (each `.c` compiled again with "
              f"`-sample-profile-check-record-coverage=101` and `-sample-profile-check-sample-coverage=101`, "
              f"summed over Lua's files): {used} of {total} records applied "
              f"({100 * used / total:.1f}%), {100 * su / max(st, 1):.1f}% of the samples "
              "(clang 14's sample percentages are odd; README \"clang\" says why records stay unapplied).")
    exp = os.path.join(work, "prof", "export.err")
    if os.path.exists(exp) and os.path.getsize(exp):
        w("- The export said: " + "; ".join("`" + l.strip() + "`" for l in open(exp) if l.strip()))
    wall = os.path.join(work, "wall.json")
    w("")
    if os.path.exists(wall):
        res = json.load(open(wall))
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(wall)))
        v = res["programs"]["lua"]["variants"]
        w(f"Wall time ({when}; `bench/llvm-bench.sh --wall`): the 7 scripts at bench/real-bench.sh's "
          f"ref sizes, {res['reps']} repetitions, variants interleaved in a rotated order, each "
          "process under `perf stat -e task-clock`; median of the per-repetition ratios of the "
          "summed task-clock to -O2's (min–max). The A/A row is a copy of the -O2 binary: its "
          "spread is this machine's noise.")
        w("")
        w("| variant | time / -O2 |")
        w("|---|---:|")
        for k in ("O2-again", "pgo", "sfdo", "sfdo-profi"):
            if k in v:
                r = v[k]["ratio_time"]
                w(f"| {'-O2 again (A/A)' if k == 'O2-again' else VARIANTS.get(k, k)} | "
                  f"{median(r):.3f} ({min(r):.2f}–{max(r):.2f}) |")
    else:
        w("Wall time: not measured in this run (the machine is shared with other work); "
          "`bench/llvm-bench.sh --wall` measures it, interleaved with an A/A control.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
