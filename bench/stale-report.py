#!/usr/bin/env python3
"""stale-report.py - the section of bench/RESULTS.md that
bench/stale-bench.sh measures: an older release's profile on the current
release, aligned by call sites and not, beside a fresh profile and PGO.

Usage: stale-report.py WORK --record MODE --reps N --elapsed S --command CMD

WORK holds programs.tsv (program, older release, current release, changed
lines), times.json (bench/real/measure.py) and, per program, WORK/PROG/
overlap.tsv, stale.notes, jumps.tsv, decisions-fresh.json and
decisions-pgo.json.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import time

VARIANTS = (("fresh", "sfdo, fresh profile"),
            ("stale", "sfdo, the older release's profile, aligned"),
            ("unaligned", "sfdo, the older release's profile, not aligned "
                          "(no-realign)"))
FAMILIES = ("hotcold", "inline", "loops", "icall", "values")


def overlaps(d):
    """{(variant, reference): (block %, within functions %)}."""
    out = {}
    for line in open(os.path.join(d, "overlap.tsv")):
        v, ref, text = line.rstrip("\n").split("\t")
        block = re.search(r"block overlap: ([0-9.]+)%", text)
        within = re.search(r"within functions: ([0-9.]+)%", text)
        out[(v, ref)] = (block.group(1) if block else "-",
                         within.group(1) if within else "-")
    return out


def plugin_notes(d):
    """Totals of the plugin's per-unit stale lines: units, moved, renamed,
    unmoved, unanchored."""
    tot = [0, 0, 0, 0, 0]
    for line in open(os.path.join(d, "stale.notes")):
        m = re.search(r"stale profile: (\d+) functions' lines moved.*"
                      r"; (\d+) functions found under their old name.*"
                      r"; (\d+) matched as they were, (\d+) had no", line)
        if m:
            tot[0] += 1
            for k in range(4):
                tot[k + 1] += int(m.group(k + 1))
    return tot


def jumps(d):
    out = {}
    for line in open(os.path.join(d, "jumps.tsv")):
        v, ir, tk = line.split()
        out[v] = (int(ir), int(tk))
    return out


def share(x, ref):
    return "-" if ref == 0 else "%.0f%%" % (100 * x / ref)


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def accuracy_table(out, progs, work):
    out.append("| program | built with | block overlap with the fresh "
               "profile's counts (within functions) | with -fprofile-use's "
               "(within functions) |")
    out.append("|---|---|---:|---:|")
    for p, old, new, _ in progs:
        ov = overlaps(os.path.join(work, p))
        for v, label in VARIANTS:
            f = ov.get((v, "fresh"), ("100", "100"))
            g = ov.get((v, "pgo"), ("-", "-"))
            out.append("| %s | %s | %s%% (%s%%) | %s%% (%s%%) |"
                       % (new, label.replace("the older release", old),
                          f[0], f[1], g[0], g[1]))
    out.append("")


def decisions_table(out, progs, work):
    out.append("Decisions (`bench/decisions.py`): the share of the fresh "
               "profile's build's decisions each stale build makes too "
               "(and of PGO's, in brackets).")
    out.append("")
    out.append("| program | built with | " + " | ".join(FAMILIES) + " |")
    out.append("|---|---|" + "---:|" * len(FAMILIES))
    for p, old, new, _ in progs:
        d = os.path.join(work, p)
        vs_fresh = json.load(open(os.path.join(d, "decisions-fresh.json")))
        vs_pgo = json.load(open(os.path.join(d, "decisions-pgo.json")))
        for v, label in VARIANTS:
            cells = []
            for f in FAMILIES:
                a = vs_fresh.get(v, {}).get(f, {}).get("agree") \
                    if v != "fresh" else 1.0
                b = vs_pgo.get(v, {}).get(f, {}).get("agree")
                cells.append("%s (%s)" % (pct(a), pct(b)))
            out.append("| %s | %s | %s |" % (new, label.replace(
                "the older release", old), " | ".join(cells)))
    out.append("")


def cost_table(out, progs, work, times):
    out.append("| program | variant | instructions | taken jumps | share of "
               "PGO's taken-jump cut | share of the fresh profile's cut kept "
               "| time ratio | share of PGO's gain | share of the fresh "
               "profile's gain kept |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for p, old, new, _ in progs:
        jp = jumps(os.path.join(work, p))
        tm = times["programs"][p]["variants"]
        o2 = jp["new"]
        pgo_cut = 1 - jp["pgo"][1] / o2[1]
        fresh_cut = 1 - jp["fresh"][1] / o2[1]
        ratio = {v: statistics.median(tm[v]["ratio_time"]) for v in tm}
        rng = {v: (min(tm[v]["ratio_time"]), max(tm[v]["ratio_time"]))
               for v in tm}
        pgo_gain = 1 / ratio["pgo"] - 1
        fresh_gain = 1 / ratio["fresh"] - 1
        rows = [("O2again", "-O2 again (A/A)"),
                ("pgo", "instrumented PGO")] + list(VARIANTS)
        for v, label in rows:
            j = jp["new" if v == "O2again" else v]
            cut = 1 - j[1] / o2[1]
            gain = 1 / ratio[v] - 1
            kept = v in ("stale", "unaligned")
            # A share of a gain the run did not resolve means nothing:
            # under 3%, the speed change itself.
            if v == "pgo":
                of_pgo = "(%+.1f%%)" % (100 * pgo_gain)
            elif abs(pgo_gain) < 0.03:
                of_pgo = "%+.1f%% speed" % (100 * gain)
            else:
                of_pgo = share(gain, pgo_gain)
            of_fresh = share(gain, fresh_gain) \
                if kept and abs(fresh_gain) >= 0.03 else "-"
            out.append("| %s | %s | %.3f | %.3f | %s | %s | %.3f (%.2f-%.2f) "
                       "| %s | %s |"
                       % (new, label.replace("the older release", old),
                          j[0] / o2[0], j[1] / o2[1],
                          "-" if v == "pgo" else share(cut, pgo_cut),
                          share(cut, fresh_cut) if kept else "-",
                          ratio[v], rng[v][0], rng[v][1], of_pgo, of_fresh))
    out.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    for k in ("record", "reps", "elapsed", "command"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    progs = [line.rstrip("\n").split("\t")
             for line in open(os.path.join(a.work, "programs.tsv"))]
    times = json.load(open(os.path.join(a.work, "times.json")))
    mode = ("the emulated PMU (`sfdo-record --emulate -c 20011 -b --regs`)"
            if a.record == "emulate" else
            "the timer (`sfdo-record -c 50000 --regs`)")
    out = ["## Stale profiles: an older release's profile", ""]
    out.append("Written by `bench/stale-bench.sh` on %s (the run took %d "
               "min), commit %s." % (time.strftime("%Y-%m-%d %H:%M UTC",
                                                   time.gmtime()),
                                     int(a.elapsed) // 60, commit))
    out.append("")
    out.append("- Command: `%s`. Each program's older release (Debian 11's, "
               "from deb.debian.org's pool) and current one (Debian 12's) "
               "built at -O2 -g and recorded on the same training inputs "
               "with %s. The current release built with the older one's "
               "profile (aligned by call sites, and with "
               "`-fplugin-arg-samplefdo-no-realign`), with its own fresh "
               "profile, and with instrumented PGO." % (a.command, mode))
    for p, old, new, diff in progs:
        units, moved, renamed, unmoved, unanchored = plugin_notes(
            os.path.join(a.work, p))
        out.append("- %s's profile on %s (%s changed lines): the plugin "
                   "moved %d functions' lines with their call sites (in %d "
                   "files), found %d under their old name, left %d whose "
                   "call sites had not moved, and %d with no call site to "
                   "align by as they were."
                   % (old, new, diff, moved, units, renamed, unmoved,
                      unanchored))
    out.append("")
    accuracy_table(out, progs, a.work)
    decisions_table(out, progs, a.work)
    out.append("Instructions and taken jumps: one run of the small inputs "
               "under callgrind, ratio to -O2 (deterministic). Wall time: "
               "%s interleaved repetitions of the ref inputs, median "
               "per-repetition ratio to -O2 (min-max)." % a.reps)
    out.append("")
    cost_table(out, progs, a.work, times)
    out.append("Where PGO's or the fresh profile's wall-time gain is under 3% "
               "(not resolved on this host), the speed change is shown "
               "instead of a share; read the taken jumps, which do not "
               "drift. BMAT's anchor: 98-99% of the fresh profile's gain "
               "kept across builds months apart (at binary level, with "
               "LBR).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
