#!/usr/bin/env python3
"""wide-report.py - the section of bench/RESULTS.md that bench/wide-bench.sh
writes, from its results directory.

Usage: wide-report.py RESULTS_DIR PROG... --command CMD --elapsed SECONDS
       wide-report.py --quick RESULTS_DIR PROG...
       wide-report.py --iterate N RESULTS_DIR PROG... --command CMD --elapsed S

RESULTS_DIR holds, per program: PROG.counts (PROG, variant, instructions,
taken jumps: one callgrind run of the ref input per variant),
PROG.decisions.json (bench/decisions.py: sfdo-timer and sfdo-emu beside
PGO), PROG.noprofile (the units PGO had no counts for), PROG.ref-cmd and
PROG.train-cmd (the runs), PROG.samples (samples in the timer and the
emulated recording).  Prints markdown: the counts as ratios to -O2, the
share of PGO's cut sfdo makes (where PGO cuts at least 5%), geometric
means over the programs, and the decisions by family.  --quick prints
the counts only, as a check.  --iterate prints the section of the
rounds (PROG.iterate: PROG, sfdo-iterK, instructions, taken jumps).
"""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys

VARIANTS = ["O2", "O2x", "pgo", "sfdo-timer", "sfdo-emu"]
NAMES = {"lua": "Lua 5.4.4", "sqlite": "SQLite 3.40.1 speedtest1", "xz": "xz 5.4.1",
         "bzip2": "bzip2 1.0.8", "zstd": "zstd 1.5.4", "gzip": "gzip 1.12",
         "jq": "jq 1.6", "xmllint": "libxml2 2.9.14 xmllint"}
MIN_CUT = 0.05          # a share of PGO's cut only where PGO cuts this much
FAMILIES = ["hotcold", "inline", "loops", "icall", "values"]


def read_counts(d, p):
    c = {}
    with open(os.path.join(d, p + ".counts")) as f:
        for line in f:
            _, v, ir, tk = line.split()
            c[v] = (int(ir), int(tk))
    return c


def read(d, name, default=""):
    try:
        with open(os.path.join(d, name)) as f:
            return f.read().strip()
    except OSError:
        return default


def share(o2, pgo, x):
    """sfdo's share of PGO's cut, or None where PGO cuts under MIN_CUT."""
    if o2 - pgo < MIN_CUT * o2:
        return None
    return (o2 - x) / (o2 - pgo)


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def head_commit():
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    if subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", ":!bench"]).returncode:
        commit += " (with uncommitted changes outside bench/)"
    return commit


def iterate_report(a, counts):
    """The rounds of --iterate: each round's counts over -O2's, and the
    largest move of a later round from round 1."""
    n = a.iterate
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = ["## Iteration: the wide bench's programs\n",
           "Written by `%s` on %s, commit %s (the run took %d min).  Round 1 is the sfdo build from "
           "the -O2 build's train run recorded by `sfdo-record --emulate -b --regs` (the wide bench's "
           "emu recording, converted and built again); round k records round k-1's build's train run "
           "the same way and builds from it: what production does when it records the last FDO build.  "
           "Counts of the ref run by callgrind (`../shared/tools/jumps.py`), ratios to -O2's; every "
           "round's output equals -O2's.  Each round's recording has its periods jittered, as in "
           "production, so rounds differ by sampling noise too (bench/iterate-bench.sh's fixed periods "
           "do not).\n" % (a.command, now, head_commit(), round(a.elapsed / 60)),
           "| program | measure | " + " | ".join("round %d" % k for k in range(1, n + 1))
           + " | rounds 2+ vs round 1: worst, best |",
           "|---|---|" + "---:|" * n + "---:|"]
    worst_all = []
    for p in a.progs:
        it = {}
        with open(os.path.join(a.dir, p + ".iterate")) as f:
            for line in f:
                _, v, ir, tk = line.split()
                it[int(v[len("sfdo-iter"):])] = (int(ir), int(tk))
        o2 = counts[p]["O2"]
        for m, label in ((0, "instructions"), (1, "taken jumps")):
            cells = ["%.4f" % (it[k][m] / o2[m]) for k in range(1, n + 1)]
            moves = [it[k][m] / it[1][m] - 1 for k in range(2, n + 1)] or [0.0]
            worst_all.append((max(moves), NAMES.get(p, p), label))
            out.append("| %s | %s | %s | %+.2f%%, %+.2f%% |" % (NAMES.get(p, p), label, " | ".join(cells),
                                                             100 * max(moves), 100 * min(moves)))
    w = max(worst_all)
    out.append("\nLargest excess of a later round over round 1: %+.2f%% (%s, %s).\n" % (100 * w[0], w[1], w[2]))
    print("\n".join(out))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("progs", nargs="+")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--command", default="bench/wide-bench.sh")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--reused", default="")
    ap.add_argument("--same-recordings", action="store_true")
    ap.add_argument("--iterate", type=int, default=0)
    ap.add_argument("--new-timer", action="store_true")
    a = ap.parse_args()
    counts = {p: read_counts(a.dir, p) for p in a.progs}
    if a.iterate:
        return iterate_report(a, counts)

    if a.quick:
        for p in a.progs:
            c = counts[p]
            print("%-8s " % p + "  ".join("%s %.3f/%.3f" % (v, c[v][0] / c["O2"][0], c[v][1] / c["O2"][1])
                                           for v in VARIANTS[1:]))
        return 0

    out = []
    w = out.append
    commit = head_commit()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    w("## Wide bench: sfdo beside PGO on eight real programs\n")
    reused = a.reused.split()
    if reused:
        # a program's results are reused from an earlier run with the same
        # scripts, flags and tools: say when it was measured, and how long
        # that took
        when = {p: read(a.dir, p + ".when").split(" ", 1) for p in reused}
        when = {p: [v[0], v[1].rsplit(" ", 1)[0] + " at commit " + v[1].rsplit(" ", 1)[1]]
                if len(v) == 2 else v for p, v in when.items()}
        if a.same_recordings:
            w("Written by `bench/wide-bench.sh %s` on %s, commit %s (this run took %d min): "
              "the two sfdo builds of every program converted and rebuilt with this commit's tools from the "
              "recordings of an earlier run%s, whose -O2, O2x and PGO counts are kept: %s.\n"
              % ("--new-timer" if a.new_timer else "--same-recordings", now, commit, round(a.elapsed / 60),
                 " (the timer recordings made again now)" if a.new_timer else "", "; ".join(
                  "%s (recorded %s)" % (NAMES.get(p, p), when[p][1]) if len(when[p]) == 2
                  else NAMES.get(p, p) for p in reused)))
        else:
            w("Written by `bench/wide-bench.sh` on %s, commit %s (this run took %d min).  Reused from "
              "earlier runs with the same build scripts, flags, recording options and tools: %s.\n"
              % (now, commit, round(a.elapsed / 60), "; ".join(
                  "%s (measured %s, in %d min)" % (NAMES.get(p, p), when[p][1],
                                                   round(int(when[p][0]) / 60))
                  if len(when[p]) == 2 else NAMES.get(p, p) for p in reused)))
    else:
        w("Written by `bench/wide-bench.sh` on %s (the run took %d min), commit %s.\n"
          % (now, round(a.elapsed / 60), commit))
    w("- Command: `%s`; counts by callgrind (`../shared/tools/jumps.py`), one run of each variant on the ref "
      "input: deterministic, where wall time on this machine drifts by 15%%." % a.command)
    w("- Variants: -O2 -g; O2x (-O2 with the flags -fprofile-use adds, no profile); instrumented PGO "
      "(`-fprofile-generate`, the train run, `-fprofile-use`); sfdo from the -O2 build's train run "
      "recorded by `sfdo-record` at its defaults (this machine's timer; **timer**) and by "
      "`sfdo-record --emulate -b --regs` (emulated PMU: taken branches with branch stacks, registers; "
      "**emu**), each converted by `sfdo-convert` and given to the plugin.  Every variant's output on "
      "the ref input equals -O2's (bench/real/measure.py).")
    w("- Each program's library code and tool are one binary built from its Debian source package "
      "(bench/real/build.sh); train and ref are different inputs (bench/real/inputs.sh; JSON and XML "
      "generated by bench/real/gen-input.py, jq filters in bench/real/jq/; `inputs/` below is `bench/work/wide/full/inputs/`).  Lua, SQLite, xz and bzip2 "
      "count their small runs (the ref runs of bench/real-bench.sh take minutes under callgrind).")
    w("- Ratios: the variant's count over -O2's, summed over the program's ref processes.  Share of "
      "PGO's cut: (O2 - sfdo) / (O2 - PGO), only where PGO cuts at least %d%% (else -).  Geometric "
      "mean: over the programs; its share is that of the geometric-mean ratios.\n" % (100 * MIN_CUT))

    w("### Instructions and taken jumps, ratio to -O2\n")
    w("| program | -O2 instructions | O2x | PGO | sfdo timer | sfdo emu | -O2 taken jumps | O2x | PGO | sfdo timer | sfdo emu |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {}
    for p in a.progs:
        c = counts[p]
        r = {v: (c[v][0] / c["O2"][0], c[v][1] / c["O2"][1]) for v in VARIANTS}
        ratios[p] = r
        w("| %s | %.3g | %s | %s |" % (
            NAMES.get(p, p), c["O2"][0],
            " | ".join("%.3f" % r[v][0] for v in VARIANTS[1:]),
            "%.3g | " % c["O2"][1] + " | ".join("%.3f" % r[v][1] for v in VARIANTS[1:])))
    g = {v: (geomean([ratios[p][v][0] for p in a.progs]), geomean([ratios[p][v][1] for p in a.progs]))
         for v in VARIANTS}
    w("| **geometric mean** | | %s | | %s |" % (
        " | ".join("**%.3f**" % g[v][0] for v in VARIANTS[1:]),
        " | ".join("**%.3f**" % g[v][1] for v in VARIANTS[1:])))
    w("")

    w("### sfdo's share of PGO's cut\n")
    w("| program | PGO's instruction cut | timer | emu | PGO's taken-jump cut | timer | emu |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    rows = [(NAMES.get(p, p), ratios[p]) for p in a.progs] + [("**geometric mean**", g)]
    for name, r in rows:
        cells = []
        for k in (0, 1):
            cut = 1 - r["pgo"][k]
            cells.append("%.1f%%" % (100 * cut))
            for v in ("sfdo-timer", "sfdo-emu"):
                cells.append(pct(share(1.0, r["pgo"][k], r[v][k])))
        w("| %s | %s |" % (name, " | ".join(cells)))
    w("")
    for v, label in (("sfdo-timer", "timer"), ("sfdo-emu", "emu")):
        sh = [(share(1.0, ratios[p]["pgo"][1], ratios[p][v][1]), p) for p in a.progs]
        sh = sorted((x, p) for x, p in sh if x is not None)
        if sh:
            w("- %s: the least of PGO's taken-jump cut on %s (%s), the most on %s (%s)."
              % (label, NAMES.get(sh[0][1], sh[0][1]), pct(sh[0][0]), NAMES.get(sh[-1][1], sh[-1][1]),
                 pct(sh[-1][0])))

    thin = [NAMES.get(p, p) for p in a.progs
            if read(a.dir, p + ".samples").split()[:1] and int(read(a.dir, p + ".samples").split()[0]) < 5000]
    w("- The timer here is cpu-clock:u every 250 us (sfdo-record's default on this VM, which has no PMU; "
      "1 KB user stack copies for the call edges, no registers, so no value profiles): a train run of "
      "0.2-2 s gives it a few thousand samples.  Under the 5000 sfdo-record asks for (it warns): %s.  "
      "The emulated recordings hold 10 to 40 times as many (Runs, below)." % (", ".join(thin) or "none"))
    w("- Taken jumps are callgrind's count, which takes each iteration of a rep-prefixed string "
      "instruction for one (see the section \"Decisions and the transform ladder\"): a build that "
      "expands a memcpy or memset inline as `rep movsb`/`rep stosb` where another calls libc's "
      "vector loop counts thousands of jumps where the CPU takes none.\n")

    w("### Decisions: the share of PGO's that each sfdo build makes too (bench/decisions.py)\n")
    w("| program | recording | " + " | ".join(FAMILIES) + " |")
    w("|---|---|" + "---:|" * len(FAMILIES))
    for p in a.progs:
        try:
            with open(os.path.join(a.dir, p + ".decisions.json")) as f:
                dec = json.load(f)
        except OSError:
            continue
        for v, label in (("sfdo-timer", "timer"), ("sfdo-emu", "emu")):
            rr = dec.get(v, {})
            w("| %s | %s | %s |" % (NAMES.get(p, p), label, " | ".join(
                "%s of %d" % (pct(rr[f]["agree"]), rr[f]["ref"]) if f in rr and rr[f]["ref"] else "-"
                for f in FAMILIES)))
    w("")

    w("### Runs\n")
    w("| program | train | ref (counted) | samples: timer, emu | units PGO had no counts for |")
    w("|---|---|---|---|---|")
    for p in a.progs:
        def cmd(name):
            return "`%s`" % read(a.dir, p + "." + name).replace("|", "\\|").replace("`", "'")
        w("| %s | %s | %s | %s | %s |" % (NAMES.get(p, p), cmd("train-cmd"), cmd("ref-cmd"),
                                         read(a.dir, p + ".samples").replace(" ", ", "),
                                         read(a.dir, p + ".noprofile") or "none"))
    w("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
