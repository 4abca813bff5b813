#!/usr/bin/env python3
"""lipo-report.py - the "Module groups (LIPO)" section of bench/RESULTS.md
from what bench/lipo-bench.sh left in WORK: build.tsv (build seconds),
jumps.tsv (instructions and taken jumps of the small input, text bytes and
direct calls of the binary), times.json (bench/real/measure.py) and each
program's groups file (prof/PROG/groups, converter/groups.h's format).

Usage: lipo-report.py WORK --programs "lua ..." --reps N --elapsed S --command CMD
"""
import argparse, json, os, platform, re, statistics, subprocess

NAMES = {"lua": "Lua 5.4.4", "sqlite": "SQLite 3.40.1", "bzip2": "bzip2 1.0.8",
         "xz": "xz 5.4.1"}
VARIANTS = [
    ("O2again", "-O2 again (A/A)"),
    ("pgo", "instrumented PGO"),
    ("sfdo", "sfdo, file by file"),
    ("lipo", "**sfdo with groups** (sfdo-link)"),
    ("O2-lto", "-O2 -flto"),
    ("pgo-lto", "PGO -flto"),
    ("sfdo-lto", "sfdo -flto"),
]


def med(xs):
    return statistics.median(xs) if xs else None


def share(x, pgo):
    """Share of PGO's gain of a time ratio X (both ratios to -O2)."""
    if x is None or pgo is None or pgo >= 1:
        return None
    return (1 / x - 1) / (1 / pgo - 1)


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def groups_summary(path):
    """(cover line, [units per group], units in groups)."""
    head, sizes = "", []
    for line in open(path):
        if line.startswith("# cross-unit"):
            head = line[2:].strip()
        elif line.startswith("group "):
            sizes.append(0)
        elif line.startswith("  ") and sizes:
            sizes[-1] += 1
    return head, sizes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--programs", required=True)
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--record", default="timer")
    ap.add_argument("--elapsed", type=int, required=True)
    ap.add_argument("--command", required=True)
    a = ap.parse_args()
    progs = a.programs.split()
    build = {}
    for line in open(os.path.join(a.work, "build.tsv")):
        p, v, s = line.split("\t")
        build[(p, v)] = float(s)
    counts = {}
    for line in open(os.path.join(a.work, "jumps.tsv")):
        p, v, ir, tk, text, calls = line.split("\t")
        counts[(p, v)] = (int(ir), int(tk), int(text), int(calls))
    times = json.load(open(os.path.join(a.work, "times.json")))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    out = ["## Module groups (LIPO)", ""]
    out.append("Written by `%s` on %s (the run took %d min), commit %s; %s, %d CPUs, shared with other work."
               % (a.command, subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True,
                                           text=True).stdout.strip(),
                  a.elapsed // 60, commit, platform.processor() or platform.machine(), os.cpu_count()))
    out.append("")
    if a.record == "emulate":
        how = ("`sfdo-record --emulate -c 20011 -b --regs` recording (the emulated PMU: taken-branch "
               "samples with the last 32 branches, exact call edges)")
    else:
        how = ("`sfdo-record -c 50000 --regs` recording (the timer, with its default 1 KB stack "
               "copies for the call edges)")
    out.append("- Profiles: one %s of the -O2 build's training run, converted by "
               "`sfdo-convert --groups`; PGO trained on the same run." % how)
    out.append("- Variants: **sfdo with groups** compiles every file `-flto -ffat-lto-objects "
               "-fno-semantic-interposition` with the plugin and links with `sfdo-link --groups` (one "
               "incremental LTO link per group, the rest linked as ordinary code); the `-flto` "
               "variants compile `-flto` and link `-flto=auto` (whole program).")
    out.append("- Build: wall time of compiling and linking the whole program, %s jobs at a time, "
               "one build each (noisy; the ratio to the file-by-file sfdo build is what to read)."
               % os.environ.get("SFDO_BENCH_REAL_JOBS", "2"))
    out.append("- Wall time: the ref input, %d repetitions interleaved (bench/real/measure.py); the "
               "median of the per-repetition ratios to -O2 (min-max), and the share of PGO's gain "
               "(PGO without -flto). Instructions and taken jumps: one run of the small input under "
               "callgrind (`../shared/tools/jumps.py`), ratio to -O2, deterministic." % a.reps)
    out.append("")
    out.append("### The groups\n")
    out.append("| program | groups (files each) | cross-file call weight held |")
    out.append("|---|---|---|")
    for p in progs:
        head, sizes = groups_summary(os.path.join(a.work, "prof", p, "groups"))
        m = re.search(r"hold ([0-9.]+%)", head)
        out.append("| %s | %d (%s) | %s |" % (NAMES.get(p, p), len(sizes),
                                             ", ".join(map(str, sizes)) or "-",
                                             m.group(1) if m else head))
    out.append("")
    out.append("### Speed, size and build time\n")
    out.append("| program | variant | time ratio | share of PGO's gain | instructions | taken jumps "
               "| share of PGO's taken-jump cut | text bytes | direct calls | build s (/ sfdo's) |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in progs:
        tv = times["programs"][p]["variants"]
        pgo = med(tv["pgo"]["ratio_time"])
        base = counts[(p, "O2")]
        pj = counts[(p, "pgo")]
        for v, label in VARIANTS:
            rt = tv[v]["ratio_time"]
            c = counts.get((p, "O2" if v == "O2again" else v))
            cut = None
            if v not in ("O2again", "pgo") and pj[1] < base[1]:
                cut = (1 - c[1] / base[1]) / (1 - pj[1] / base[1])
            b = build.get((p, v)) if v != "O2again" else None
            bs = build.get((p, "sfdo"))
            out.append("| %s | %s | %.3f (%.2f-%.2f) | %s | %.3f | %.3f | %s | %d | %d | %s |" % (
                NAMES.get(p, p), label, med(rt), min(rt), max(rt),
                "(%+.1f%%)" % (100 * (1 / med(rt) - 1)) if v == "pgo" else pct(share(med(rt), pgo)),
                c[0] / base[0], c[1] / base[1], pct(cut), c[2], c[3],
                "%.1f (%.2f)" % (b, b / bs) if b and bs else "-"))
    out.append("")
    for p in progs:
        tv = times["programs"][p]["variants"]
        aa = tv["O2again"]["ratio_time"]
        pgo = med(tv["pgo"]["ratio_time"])
        if pgo is None or pgo >= min(aa):
            out.append("- %s: wall time did not resolve PGO's own gain in this run (PGO's median "
                       "ratio %.3f, the A/A control's %.3f, %.2f-%.2f): read the taken jumps."
                       % (NAMES.get(p, p), pgo, med(aa), min(aa), max(aa)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
