#!/usr/bin/env python3
"""decisions-report.py - the Markdown section of bench/decisions-bench.sh.

Usage: decisions-report.py WORK --programs "lua sqlite" --record MODE
                           --reps N --elapsed S --command CMD

Reads WORK/decisions-PROG.json (bench/decisions.py), WORK/jumps.tsv
(PROG, VARIANT, instructions, taken jumps of the small input) and
WORK/times.json (bench/real/measure.py) and prints the section.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

FAMILIES = ("hotcold", "inline", "loops", "icall", "values")
LADDER = ("counts", "hotcold", "inline", "loops", "icall", "sfdo")
RUNG = {"counts": "counts only", "hotcold": "+ hot/cold", "inline": "+ inlining",
        "loops": "+ loops", "icall": "+ indirect calls",
        "sfdo": "+ values (sfdo)"}
EXTRAS = ("notracer", "afdo", "precise", "dense")
AGAIN = ("again2", "again3")
EXTRA_NAMES = {"notracer": "sfdo -fno-tracer", "afdo": "sfdo, AFDO quality",
               "precise": "sfdo, PRECISE quality",
               "dense": "sfdo, dense recording (10x samples)"}
NAMES = {"lua": "Lua 5.4.4", "sqlite": "SQLite 3.40.1 speedtest1"}


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def med(xs):
    return statistics.median(xs) if xs else None


def gain_share(r, pgo):
    """Share of PGO's gain of a variant with median time ratio R."""
    if r is None or pgo is None or pgo >= 1:
        return None
    return (1 / r - 1) / (1 / pgo - 1)


def recording_spread(d, family):
    """Median and range of sfdo's agreement for FAMILY over the first
    recording and the AGAIN ones (those the run built)."""
    if family == "hotcold-sampled":
        return "-"
    xs = [d[v][family]["agree"] for v in ("sfdo",) + AGAIN
          if v in d and d[v][family]["agree"] is not None]
    if len(xs) < 2:
        return "-"
    return "%.1f%% (%.1f-%.1f%%)" % (100 * med(xs), 100 * min(xs),
                                    100 * max(xs))


def decisions_table(work, progs, out):
    out.append("### Decisions: how many of PGO's sfdo makes (agree), and how "
               "many of its own PGO does not make (extra)\n")
    out.append("| program | family | PGO's decisions | sfdo agrees | sfdo's own "
               "| sfdo extra | sfdo agrees, %d recordings: median (range) "
               "| O2x (flags only) agrees |" % (1 + len(AGAIN)))
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for p in progs:
        d = json.load(open(os.path.join(work, "decisions-%s.json" % p)))
        for f in FAMILIES + ("hotcold-sampled",):
            if f not in d["sfdo"]:
                continue
            s, x = d["sfdo"][f], d["O2x"][f]
            out.append("| %s | %s | %d | %s | %d | %s | %s | %s |" % (
                NAMES.get(p, p), f, s["ref"], pct(s["agree"]), s["own"],
                pct(s["extra"]), recording_spread(d, f), pct(x["agree"])))
    out.append("")
    out.append("Recordings: the columns before the spread are from the first "
               "recording, as is every other figure of this section; the "
               "spread column adds sfdo built from %d more recordings of "
               "the same train run (each its own sampling phase), whose "
               "decisions differ where rarely run code caught a sample in "
               "one and not in another. hotcold-sampled has none: which "
               "functions caught no sample differs by recording.\n"
               % len(AGAIN))
    out.append("hotcold-sampled: the hot/cold decisions about the functions "
               "the profile shows ran (it lists the others as never run, "
               "`bench/decisions.py --unsampled`). A function that ran a few "
               "times in training without catching a sample or a branch "
               "record is cold code to a sample profile, which cannot tell "
               "it from one that never ran: sfdo puts it in .text.unlikely "
               "whole, where PGO splits it or leaves it in .text.\n")
    out.append("Decisions per rung of the ladder (agreement with PGO):\n")
    out.append("| program | rung | " + " | ".join(FAMILIES) + " |")
    out.append("|---|---|" + "---:|" * len(FAMILIES))
    for p in progs:
        d = json.load(open(os.path.join(work, "decisions-%s.json" % p)))
        for v in LADDER + EXTRAS:
            if v not in d:
                continue
            out.append("| %s | %s | %s |" % (
                NAMES.get(p, p), RUNG.get(v, EXTRA_NAMES.get(v, v)),
                " | ".join(pct(d[v][f]["agree"]) for f in FAMILIES)))
    out.append("")


def ladder_table(work, progs, out):
    jumps = {}
    for line in open(os.path.join(work, "jumps.tsv")):
        p, v, ir, tk = line.split("\t")
        jumps[(p, v)] = (int(ir), int(tk))
    times = json.load(open(os.path.join(work, "times.json")))
    out.append("### The ladder: cost of each rung\n")
    out.append("Wall time: median of the per-repetition ratios to -O2 "
               "(min-max), and the share of PGO's gain.  Instructions and "
               "taken jumps: one run of the small input under callgrind, "
               "ratio to -O2 (deterministic).\n")
    out.append("| program | variant | time ratio | share of PGO's gain "
               "| instructions | taken jumps | share of PGO's taken-jump cut |")
    out.append("|---|---|---:|---:|---:|---:|---:|")
    for p in progs:
        tv = times["programs"][p]["variants"]
        pgo = med(tv["pgo"]["ratio_time"])
        base = jumps[(p, "O2")]
        for v in ("O2again", "O2x", "pgo") + LADDER + EXTRAS:
            if v not in tv:
                continue
            rt = tv[v]["ratio_time"]
            j = jumps.get((p, "O2" if v == "O2again" else v))
            label = {"O2again": "-O2 again (A/A)", "O2x": "O2x: FDO's flags, no profile",
                     "pgo": "instrumented PGO"}.get(v, RUNG.get(v, EXTRA_NAMES.get(v, v)))
            share = gain_share(med(rt), pgo) if v != "pgo" else None
            pj = jumps[(p, "pgo")]
            cut = ((1 - j[1] / base[1]) / (1 - pj[1] / base[1])
                   if j and pj[1] < base[1] and v not in ("O2again", "pgo")
                   else None)
            out.append("| %s | %s | %.3f (%.2f-%.2f) | %s | %s | %s | %s |" % (
                NAMES.get(p, p), label, med(rt), min(rt), max(rt),
                pct(share) if v != "pgo" else "(%+.1f%%)" % (100 * (1 / med(rt) - 1)),
                "%.3f" % (j[0] / base[0]) if j else "-",
                "%.3f" % (j[1] / base[1]) if j else "-",
                pct(cut) if cut is not None else "-"))
    out.append("")
    out.append("- Taken jumps are callgrind's count (`../shared/tools/jumps.py`), "
               "which takes each iteration of a rep-prefixed string "
               "instruction for one: libc's memset of 4096 bytes (`rep "
               "stosb`) counts 4096, where the CPU takes no branch.  On "
               "SQLite's small input, 1.8 of the 2.8 million taken jumps "
               "sfdo's build had beyond PGO's on 2026-11-27 were of that "
               "kind: getPageNormal's `memset(pPg->pData, 0, pageSize)`, "
               "439 calls, which PGO expands inline (`rep stosq`) from its "
               "average-size histogram; neither recording here (nor one with "
               "ten times the samples) caught the size register at that call "
               "(callgrind `--separate-callers=2`).")
    for p in progs:
        tv = times["programs"][p]["variants"]
        aa = tv.get("O2again", {}).get("ratio_time")
        pgo = med(tv["pgo"]["ratio_time"])
        if aa and pgo >= min(aa):
            out.append("- %s: wall time did not resolve PGO's own gain in this "
                       "run (PGO's median ratio %.3f, the A/A control's %.3f, "
                       "%.2f-%.2f): read the taken jumps, which do not drift."
                       % (NAMES.get(p, p), pgo, med(aa), min(aa), max(aa)))
    out.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--programs", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--reps", required=True)
    ap.add_argument("--elapsed", required=True)
    ap.add_argument("--command", required=True)
    a = ap.parse_args()
    progs = a.programs.split()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    out = ["## Decisions and the transform ladder", ""]
    out.append("Written by `bench/decisions-bench.sh` on %s (the run took %d min), "
               "commit %s." % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                               int(a.elapsed) // 60, commit))
    out.append("")
    out.append("- Command: `%s`; %s repetitions of the ref runs, interleaved "
               "(bench/real/measure.py); profiles of the train runs recorded by "
               "sfdo-record %s." % (a.command, a.reps,
                                    "with its emulated PMU (`--emulate -c 20011 -b "
                                    "--regs`: taken branches with branch stacks, "
                                    "instructions, registers)" if a.record == "emulate"
                                    else "on the cpu-clock timer"))
    out.append("- Dense: the same train run recorded at a tenth of the period "
               "(%s), ten times the samples: what ten such recordings merged "
               "(`sfdo-profile merge`), or a fleet's profile, would hold.  Its "
               "decisions show how much of the gap to PGO is the sparse "
               "sampling of rarely run code rather than the method."
               % ("`-c 2003`" if a.record == "emulate" else "`-c 5000`"))
    out.append("- Variants: -O2; O2x (-O2 with the flags -fprofile-use adds, no "
               "profile); instrumented PGO; sfdo climbing the ladder, each rung "
               "turning one family of decisions on "
               "(`-fplugin-arg-samplefdo-no-FAMILY` for the others); sfdo "
               "without -ftracer.")
    out.append("- Decisions (bench/decisions.py): functions in .text.unlikely, "
               "in .text.hot, split into a .cold part; calls inlined (caller, "
               "callee, position); loops peeled or unrolled; indirect calls "
               "made speculative (ipa-profile's speculations from its dump, "
               "not the profile pass's list of every histogram target; "
               "counted by target, the k-th call made speculative to it, "
               "since the dump gives no position and names callers after "
               "early inlining, which differs between the builds); values "
               "specialised; from the objects, -fopt-info-optimized and "
               "-fdump-ipa-profile_estimate.")
    out.append("")
    decisions_table(a.work, progs, out)
    ladder_table(a.work, progs, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
