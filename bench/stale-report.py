#!/usr/bin/env python3
"""stale-report.py - the section of bench/RESULTS.md that
bench/stale-bench.sh measures: an older release's profile on the current
release, aligned by call sites and not, beside a fresh profile and PGO.

Usage: stale-report.py WORK --record MODE --reps N --elapsed S
                       --command CMD --diff LINES
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import time

VARIANTS = (("fresh", "sfdo, fresh profile of 5.4.4"),
            ("stale", "sfdo, 5.4.2's profile, aligned"),
            ("unaligned", "sfdo, 5.4.2's profile, not aligned (no-realign)"))


def overlaps(work):
    """{(variant, reference): (block %, within functions %)}."""
    out = {}
    for line in open(os.path.join(work, "overlap.tsv")):
        v, ref, text = line.rstrip("\n").split("\t")
        block = re.search(r"block overlap: ([0-9.]+)%", text)
        within = re.search(r"within functions: ([0-9.]+)%", text)
        out[(v, ref)] = (block.group(1) if block else "-",
                         within.group(1) if within else "-")
    return out


def plugin_notes(work):
    """Totals of the plugin's per-unit stale lines."""
    moved = renamed = exact = unanchored = units = 0
    for line in open(os.path.join(work, "stale.notes")):
        m = re.search(r"stale profile: (\d+) functions' lines moved.*"
                      r"; (\d+) functions found under their old name.*"
                      r"; (\d+) matched as they were, (\d+) had no", line)
        if m:
            units += 1
            moved += int(m.group(1))
            renamed += int(m.group(2))
            exact += int(m.group(3))
            unanchored += int(m.group(4))
    return units, moved, renamed, exact, unanchored


def jumps(work):
    out = {}
    for line in open(os.path.join(work, "jumps.tsv")):
        v, ir, tk = line.split()
        out[v] = (int(ir), int(tk))
    return out


def times(work):
    d = json.load(open(os.path.join(work, "times.json")))
    return d["programs"]["lua"]["variants"]


def share(x, ref):
    return "-" if ref == 0 else "%.0f%%" % (100 * x / ref)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    for k in ("record", "reps", "elapsed", "command", "diff"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    ov, notes, jp, tm = overlaps(a.work), plugin_notes(a.work), \
        jumps(a.work), times(a.work)
    mode = ("the emulated PMU (`sfdo-record --emulate -c 20011 -b --regs`)"
            if a.record == "emulate" else
            "the timer (`sfdo-record -c 50000 --regs`)")
    out = ["## Stale profiles: an older release's profile", ""]
    out.append("Written by `bench/stale-bench.sh` on %s (the run took %d "
               "min), commit %s." % (time.strftime("%Y-%m-%d %H:%M UTC",
                                                   time.gmtime()),
                                     int(a.elapsed) // 60, commit))
    out.append("")
    out.append("- Command: `%s`. Lua 5.4.2 (Debian 11's lua5.4, from "
               "deb.debian.org's pool) and Lua 5.4.4 (Debian 12's) built "
               "at -O2 -g and recorded on the same training scripts with %s; "
               "%s changed lines between their `src/` directories. Lua 5.4.4 "
               "built with 5.4.2's profile (aligned by call sites, and with "
               "`-fplugin-arg-samplefdo-no-realign`), with its own fresh "
               "profile, and with instrumented PGO." % (a.command, mode,
                                                        a.diff))
    units, moved, renamed, exact, unanchored = notes
    out.append("- What the plugin said of 5.4.2's profile: in %d of Lua's "
               "files, %d functions' lines moved with their call sites; %d "
               "functions found under their old name by their call sites; "
               "%d functions' call sites were where they had been; %d "
               "functions had no call site to align by (kept as they were)."
               % (units, moved, renamed, exact, unanchored))
    out.append("")
    out.append("| Lua 5.4.4 built with | block overlap with the fresh "
               "profile's counts | within functions | block overlap with "
               "-fprofile-use's counts | within functions |")
    out.append("|---|---:|---:|---:|---:|")
    for v, label in VARIANTS:
        f = ov.get((v, "fresh"), ("100", "100") if v == "fresh" else ("-", "-"))
        p = ov.get((v, "pgo"), ("-", "-"))
        out.append("| %s | %s%% | %s%% | %s%% | %s%% |"
                   % (label, f[0], f[1], p[0], p[1]))
    out.append("")
    o2 = jp["new"]
    pgo_cut = 1 - jp["pgo"][1] / o2[1]
    fresh_cut = 1 - jp["fresh"][1] / o2[1]
    o2t = tm["O2"]["time_s"]
    ratio = {v: statistics.median(tm[v]["ratio_time"]) for v in tm}
    rng = {v: (min(tm[v]["ratio_time"]), max(tm[v]["ratio_time"]))
           for v in tm}
    pgo_gain = 1 / ratio["pgo"] - 1
    fresh_gain = 1 / ratio["fresh"] - 1
    out.append("Instructions and taken jumps: one run of the small inputs "
               "under callgrind, ratio to -O2 (deterministic). Wall time: "
               "%s interleaved repetitions of the ref inputs, median "
               "per-repetition ratio to -O2 (min-max); -O2 takes %.2f s."
               % (a.reps, statistics.median(o2t)))
    out.append("")
    out.append("| variant | instructions | taken jumps | share of PGO's "
               "taken-jump cut | share of the fresh profile's cut kept | "
               "time ratio | share of PGO's gain | share of the fresh "
               "profile's gain kept |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = [("O2again", "-O2 again (A/A)"), ("pgo", "instrumented PGO")] + \
        list(VARIANTS)
    for v, label in rows:
        j = jp.get(v if v != "O2again" else "new")
        cut = 1 - j[1] / o2[1]
        gain = 1 / ratio[v] - 1
        out.append("| %s | %.3f | %.3f | %s | %s | %.3f (%.2f-%.2f) | %s | %s |"
                   % (label, j[0] / o2[0], j[1] / o2[1],
                      "-" if v == "pgo" else share(cut, pgo_cut),
                      share(cut, fresh_cut) if v in ("stale", "unaligned")
                      else "-",
                      ratio[v], rng[v][0], rng[v][1],
                      "(%+.1f%%)" % (100 * pgo_gain) if v == "pgo"
                      else share(gain, pgo_gain),
                      share(gain, fresh_gain) if v in ("stale", "unaligned")
                      else "-"))
    out.append("")
    out.append("BMAT's anchor: 98-99% of the fresh profile's gain kept across "
               "builds months apart (at binary level, with LBR).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
