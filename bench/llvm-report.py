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


def family(counts, name):
    """The recordings of variant NAME ("sfdo", "sfdo-profi"): [variant]."""
    return sorted((v for v in counts if v.rsplit("-r", 1)[0] == name),
                  key=lambda v: int(v.rsplit("-r", 1)[1]))


def span(xs, fmt):
    return f"{fmt % median(xs)} ({fmt % min(xs)}–{fmt % max(xs)})" if len(xs) > 1 else fmt % xs[0]


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

    def share(v, base=base_tk):
        return (1 - tot[v][1] / base) / (1 - tot["pgo"][1] / base)

    fams = {n: family(counts, n) for n in ("sfdo", "sfdo-profi")}
    nrec = len(fams["sfdo"])
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
      f"sizes. IR PGO: the `-fprofile-generate` build, `llvm-profdata-14 merge`. sfdo: {nrec} "
      f"recordings, each `sfdo-record -e {event} -c {period}` of the `-fdebug-info-for-profiling` "
      f"build (samples: {samples.replace(',', ', ')}), `sfdo-convert`, `sfdo-profile export --llvm`, "
      "and the two sfdo builds made with each.")
    w("- Counts: `../shared/tools/jumps.py` (callgrind: instructions, and taken conditional plus "
      "unconditional jumps) of each variant on the ref run, the same scripts at other sizes: "
      + ", ".join(f"`lua {s.split()[0]}.lua {' '.join(s.split()[1:])}`" for s in scripts)
      + ". Deterministic, so one run each; every variant printed what -O2 printed. "
      f"For sfdo, the median over the {nrec} recordings (min–max).")
    w("")
    w("| variant | instructions / -O2 | taken jumps / -O2 | share of PGO's taken-jump cut |")
    w("|---|---:|---:|---:|")
    for v, name in VARIANTS.items():
        vs = fams.get(v, [v] if v in tot else [])
        if not vs:
            continue
        sh_ = "" if v == "O2" else ("100%" if v == "pgo" else span([100 * share(x) for x in vs], "%.0f%%"))
        w(f"| {name} | {span([tot[x][0] / base_ir for x in vs], '%.3f')} | "
          f"{span([tot[x][1] / base_tk for x in vs], '%.3f')} | {sh_} |")
    w("")
    w("Taken jumps per script, as a ratio to -O2 (sfdo: the median over the recordings):")
    w("")
    cols = [v for v in VARIANTS if v != "O2" and (v in counts or fams.get(v))]
    w("| script | " + " | ".join(cols) + " |")
    w("|---|" + "---:|" * len(cols))
    for s in scripts:
        w(f"| {s} | " + " | ".join(
            f"{median(counts[x][s][1] for x in fams.get(v, [v])) / counts['O2'][s][1]:.3f}"
            for v in cols) + " |")
    w("")
    med = {n: median(share(x) for x in fams[n]) for n in fams if fams[n]}
    best = max(med, key=med.get)
    w(f"- **Target (>= {100 * TARGET:.0f}% of clang PGO's taken-jump cut): "
      f"{'met' if med[best] >= TARGET else 'not met'}**: {best}, the median of {nrec} recordings, "
      f"gets {100 * med[best]:.0f}% of PGO's cut (PGO cuts {100 * pgo_cut:.1f}% of -O2's taken "
      f"jumps; each recording: {', '.join(f'{100 * share(x):.0f}%' for x in fams[best])}).")
    if "O2-dip" in tot:
        dip = tot["O2-dip"][1]
        rel = median(share(x, dip) for x in fams[best])
        w(f"- `-fdebug-info-for-profiling` alone changes clang's code (taken jumps "
          f"{tot['O2-dip'][1] / base_tk:.3f} of -O2's). Measured from that build instead, "
          f"PGO cuts {100 * (1 - tot['pgo'][1] / dip):.1f}% of its taken jumps and {best} "
          f"{100 * rel:.0f}% of that (median).")
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
            w(f"- clang's own check of recording 1's profile (each `.c` compiled again with "
              f"`-sample-profile-check-record-coverage=101` and `-sample-profile-check-sample-coverage=101`, "
              f"summed over Lua's files): {used} of {total} records applied "
              f"({100 * used / total:.1f}%), {100 * su / max(st, 1):.1f}% of the samples "
              "(clang 14's sample percentages are odd; README \"clang\" says why records stay unapplied).")
    exp = os.path.join(work, "prof", "r1", "export.err")
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
        for k in ("O2-again", "pgo", "sfdo-r1", "sfdo-profi-r1"):
            if k in v:
                r = v[k]["ratio_time"]
                name = VARIANTS.get(k.rsplit("-r", 1)[0], k) + (" (recording 1)" if "-r" in k else "")
                w(f"| {'-O2 again (A/A)' if k == 'O2-again' else name} | "
                  f"{median(r):.3f} ({min(r):.2f}–{max(r):.2f}) |")
    else:
        w("Wall time: not measured in this run (the machine is shared with other work); "
          "`bench/llvm-bench.sh --wall` measures it, interleaved with an A/A control.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
