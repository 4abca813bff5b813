#!/usr/bin/env python3
"""gcc-version-report.py - the RESULTS.md section of bench/gcc-version-bench.sh.

Usage: gcc-version-report.py GVWORK [--title TITLE] [--notes FILE]

GVWORK is bench/work/gccver: one directory per GCC measured (gcc16,
gcc12, ...; not the -quick ones), each with what the bench wrote:
info.tsv (KEY<TAB>VALUE), counts.tsv (PROG VARIANT INSTRUCTIONS TAKEN),
profiles.tsv (PROG RECORDING KEY VALUE), decisions-PROG-RECORDING.json
(bench/decisions.py --json), flags.tsv (PROG<TAB>the compile command),
prof/PROG/RECORDING.commands, notes.  Prints the section on stdout: the
acceptance targets of issue 35, the taken-jump table with every GCC side
by side (newest first), the decisions beside PGO's, and the commands.
--notes FILE appends FILE (hand-written findings) under its own heading.
"""

import argparse
import glob
import json
import os
import statistics
import sys

PROGRAMS = {"lua": "Lua 5.4.4", "sqlite": "SQLite 3.40.1 speedtest1"}
FAMILIES = ("hotcold", "hotcold-sampled", "inline", "loops", "icall", "values")
PROG = "gcc-version-report"


def die(msg):
    sys.exit("%s: error: %s" % (PROG, msg))


def read_tsv(path, ncols):
    rows = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) != ncols:
                    die("%s:%d: %d columns, expected %d" % (path, n, len(cols), ncols))
                rows.append(cols)
    except OSError as e:
        die("cannot read %s: %s" % (path, e.strerror))
    return rows


class Run:
    """One GCC's results."""

    def __init__(self, d):
        self.dir = d
        self.info = dict(read_tsv(os.path.join(d, "info.tsv"), 2))
        self.major = int(self.info["version"].split()[-1].split(".")[0]) \
            if self.info.get("version") else 0
        self.counts = {}
        for p, v, ir, tk in read_tsv(os.path.join(d, "counts.tsv"), 4):
            self.counts[(p, v)] = (int(ir), int(tk))
        self.profiles = {}
        for p, r, k, val in read_tsv(os.path.join(d, "profiles.tsv"), 4):
            self.profiles[(p, r, k)] = val
        self.records = self.info.get("records", "").split()
        self.programs = self.info.get("programs", "").split()
        self.decisions = {}
        for p in self.programs:
            for r in self.records:
                path = os.path.join(d, "decisions-%s-%s.json" % (p, r))
                if os.path.exists(path):
                    with open(path) as f:
                        self.decisions[(p, r)] = json.load(f)
        self.flags = read_tsv(os.path.join(d, "flags.tsv"), 2) \
            if os.path.exists(os.path.join(d, "flags.tsv")) else []
        notes = os.path.join(d, "notes")
        self.notes = open(notes).read().split("\n") if os.path.exists(notes) else []
        self.notes = [n for n in self.notes if n.strip()]

    def name(self):
        return "GCC %d" % self.major

    def timer_recs(self):
        return [r for r in self.records if r.startswith("timer")]

    def emulate_recs(self):
        return [r for r in self.records if r.startswith("emulate")]

    def ratio(self, p, v):
        """(instructions ratio, taken ratio) to O2, or None."""
        if (p, v) not in self.counts or (p, "O2") not in self.counts:
            return None
        ir, tk = self.counts[(p, v)]
        ir0, tk0 = self.counts[(p, "O2")]
        return ir / ir0, tk / tk0

    def share(self, p, v):
        """The share of PGO's taken-jump cut: (1 - x) / (1 - pgo)."""
        r, g = self.ratio(p, v), self.ratio(p, "pgo")
        if r is None or g is None or g[1] >= 1:
            return None
        return (1 - r[1]) / (1 - g[1])

    def family(self, p, kind, recs):
        """The variant names of one kind (sfdo, afdo-sfdo, afdo-cg) over
        recordings recs."""
        return ["%s-%s" % (kind, r) for r in recs if (p, "%s-%s" % (kind, r)) in self.counts]


def median_range(values, fmt):
    """'median (min-max)' of values, or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    if len(values) == 1:
        return fmt(values[0])
    return "%s (%s to %s)" % (fmt(statistics.median(values)), fmt(min(values)),
                              fmt(max(values)))


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def ratio3(x):
    return "%.3f" % x


def counts_cells(run, p, variants, with_share=True):
    """The instructions, taken jumps and share cells of the variants (one,
    or several recordings: median and range)."""
    rs = [run.ratio(p, v) for v in variants]
    rs = [r for r in rs if r is not None]
    if not rs:
        return ["-", "-", "-"] if with_share else ["-", "-"]
    cells = [median_range([r[0] for r in rs], ratio3),
             median_range([r[1] for r in rs], ratio3)]
    if with_share:
        cells.append(median_range([run.share(p, v) for v in variants], pct))
    return cells


def variant_rows(run):
    """(label, kind, recordings) of the table's rows."""
    t, e = run.timer_recs(), run.emulate_recs()
    nt = len(t)
    tl = "timer" + (", median of %d recordings (range)" % nt if nt > 1 else "")
    rows = [("O2x: FDO's flags, no profile", "O2x", None),
            ("instrumented PGO", "pgo", None)]
    for kind, what in (("sfdo", "sfdo's plugin"),
                       ("afdo-sfdo", "-fauto-profile, sfdo's AFDO export"),
                       ("afdo-cg", "-fauto-profile, create_gcov's profile")):
        if t:
            rows.append(("%s, %s" % (what, tl), kind, t))
        if e:
            rows.append(("%s, emulated PMU" % what, kind, e))
    return rows


def cells_of(run, p, kind, recs):
    if recs is None:
        c = counts_cells(run, p, [kind])
        if kind == "pgo":
            c[2] = "(100%)"
        return c
    return counts_cells(run, p, run.family(p, kind, recs))


def section(runs, title, notes):
    out = [title, ""]
    w = out.append
    w("Written by `bench/gcc-version-bench.sh` (issue 35): each program built "
      "from the same sources by one GCC in every way below, its ref run "
      "checked against -O2's output, one run of its small input counted "
      "under callgrind, and its decisions set beside instrumented PGO's.")
    w("")
    for run in runs:
        i = run.info
        where = ("in the Debian sid chroot (`scripts/gcc-chroot.sh run`), tools "
                 "of `build/sid`" if i.get("gcc", "gcc") != "gcc"
                 else "on the host (Debian 12), tools of `build/`")
        w("- %s: `%s`, %s; run %s, commit %s, took %d min: `%s`."
          % (run.name(), i.get("version", "?"), where, i.get("date", "?"),
             i.get("commit", "?"), int(i.get("elapsed", 0)) // 60,
             i.get("command", "?")))
    w("")
    # --- targets -----------------------------------------------------------
    new = [r for r in runs if r.major >= 16]
    if new:
        g = new[0]
        w("### Issue 35's targets (%s, timer recordings)" % g.name())
        w("")
        w("| target | measured | met |")
        w("|---|---|---|")
        t = g.timer_recs()
        if "lua" in g.programs and t:
            s = [g.share("lua", v) for v in g.family("lua", "sfdo", t)]
            m = statistics.median(s)
            w("| Lua: sfdo's plugin makes >= 80%% of PGO's taken-jump cut | %s | %s |"
              % (median_range(s, pct), "yes" if m >= 0.8 else "no"))
            s = [g.share("lua", v) for v in g.family("lua", "afdo-sfdo", t)]
            m = statistics.median(s)
            w("| Lua: -fauto-profile fed sfdo's v3 export makes >= 0.55 of it | %s | %s |"
              % (median_range(s, lambda x: "%.2f" % x), "yes" if m >= 0.55 else "no"))
        for p in g.programs:
            if not t:
                break
            a = [g.share(p, v) for v in g.family(p, "afdo-sfdo", t)]
            c = [g.share(p, v) for v in g.family(p, "afdo-cg", t)]
            pair = ["%s %.2f vs %.2f" % (r, x, y) for r, x, y in zip(t, a, c)]
            ok = all(x >= y for x, y in zip(a, c))
            med = statistics.median(a) >= statistics.median(c)
            w("| %s: -fauto-profile fed sfdo's export at least as good as fed create_gcov's "
              "(share of PGO's cut, per recording) | %s | %s |"
              % (PROGRAMS.get(p, p), "; ".join(pair),
                 "yes" if ok else ("at the median, not on every recording" if med else "no")))
        w("")
    # --- taken jumps ---------------------------------------------------------
    w("### Instructions and taken jumps: one run of the small input under "
      "callgrind, ratio to -O2")
    w("")
    w("Share: of PGO's taken-jump cut, (1 - x) / (1 - PGO's x).  Deterministic "
      "counts of each build (`../shared/tools/jumps.py`); the spread over the "
      "timer's recordings is the profile's, not the measurement's.")
    w("")
    head = "| program | variant |"
    rule = "|---|---|"
    for run in runs:
        head += " %s instructions | %s taken jumps | %s share |" % ((run.name(),) * 3)
        rule += "---:|---:|---:|"
    w(head)
    w(rule)
    programs = [p for p in PROGRAMS if any(p in r.programs for r in runs)]
    for p in programs:
        line = "| %s | -O2: instructions, taken jumps |" % PROGRAMS[p]
        for run in runs:
            c = run.counts.get((p, "O2"))
            line += (" %s | %s | - |" % ("{:,}".format(c[0]), "{:,}".format(c[1]))
                     if c else " - | - | - |")
        w(line)
        labels = []
        for run in runs:
            for row in variant_rows(run):
                if row[0] not in [l[0] for l in labels]:
                    labels.append(row)
        for label, kind, _ in labels:
            line = "| %s | %s |" % (PROGRAMS[p], label)
            for run in runs:
                recs = None
                for l2, k2, r2 in variant_rows(run):
                    if l2 == label:
                        recs = r2
                        break
                else:
                    line += " - | - | - |"
                    continue
                line += " %s |" % " | ".join(cells_of(run, p, kind, recs))
            w(line)
    w("")
    # each timer recording
    for run in runs:
        t = run.timer_recs()
        if len(t) < 2:
            continue
        w("%s, each timer recording (taken jumps: ratio to -O2, share of PGO's cut):"
          % run.name())
        w("")
        w("| program | recording | samples | sfdo's plugin | -fauto-profile, sfdo's export | "
          "-fauto-profile, create_gcov's |")
        w("|---|---|---:|---:|---:|---:|")
        for p in run.programs:
            for r in t + run.emulate_recs():
                cells = []
                for kind in ("sfdo", "afdo-sfdo", "afdo-cg"):
                    v = "%s-%s" % (kind, r)
                    x = run.ratio(p, v)
                    cells.append("-" if x is None else "%.3f (%s)" % (x[1], pct(run.share(p, v))))
                w("| %s | %s | %s | %s |" % (PROGRAMS[p], r,
                                             run.profiles.get((p, r, "samples"), "?"),
                                             " | ".join(cells)))
        w("")
    # --- decisions -----------------------------------------------------------
    for run in runs:
        if not run.decisions:
            continue
        t, e = run.timer_recs(), run.emulate_recs()
        w("### Decisions beside PGO's, %s: how many of PGO's each build makes too "
          "(agree), and how many of its own PGO does not make (extra)" % run.name())
        w("")
        cols = []
        if t:
            cols += [("sfdo", t, "sfdo timer"), ("afdo-sfdo", t, "AFDO sfdo timer"),
                     ("afdo-cg", t, "AFDO create_gcov timer")]
        if e:
            cols += [("sfdo", e, "sfdo emulated"), ("afdo-sfdo", e, "AFDO sfdo emulated"),
                     ("afdo-cg", e, "AFDO create_gcov emulated")]
        h = "| program | family | PGO's decisions |"
        rl = "|---|---|---:|"
        for _, _, name in cols:
            h += " %s agree | extra |" % name
            rl += "---:|---:|"
        h += " O2x agrees |"
        rl += "---:|"
        w(h)
        w(rl)
        for p in run.programs:
            for f in FAMILIES:
                ref = None
                line = ""
                for kind, recs, _ in cols:
                    ag, ex = [], []
                    for r in recs:
                        d = run.decisions.get((p, r), {}).get("%s-%s" % (kind, r), {}).get(f)
                        if d:
                            ref = d["ref"]
                            ag.append(d["agree"])
                            ex.append(d["extra"])
                    line += " %s | %s |" % (median_range(ag, pct), median_range(ex, pct))
                o2x = None
                for r in t + e:
                    d = run.decisions.get((p, r), {}).get("O2x", {}).get(f)
                    if d:
                        o2x = d["agree"]
                        ref = d["ref"]
                        break
                w("| %s | %s | %s |%s %s |" % (PROGRAMS[p], f, "-" if ref is None else ref,
                                               line, pct(o2x)))
        w("")
        if len(t) > 1:
            w("Timer columns: median of the %d recordings (range)." % len(t))
        w("hotcold-sampled: the hot/cold decisions about the functions the sfdo "
          "profile of that recording shows ran (`bench/decisions.py --unsampled`); "
          "for the AFDO columns too, with sfdo's list.")
        w("")
    # --- profiles ------------------------------------------------------------
    w("### The recordings")
    w("")
    w("| GCC | program | recording | samples | functions in sfdo's AFDO export | "
      "functions in create_gcov's profile |")
    w("|---|---|---|---:|---:|---:|")
    for run in runs:
        for p in run.programs:
            for r in run.records:
                g = run.profiles.get
                w("| %s | %s | %s | %s | %s | %s |" % (run.name(), PROGRAMS[p], r,
                                                       g((p, r, "samples"), "?"),
                                                       g((p, r, "sfdo_functions"), "?"),
                                                       g((p, r, "cg_functions"), "?")))
    w("")
    # --- commands ------------------------------------------------------------
    w("### How each figure was made")
    w("")
    w("Inputs are bench/real/inputs.sh's (bench/decisions-bench.sh's): train "
      "Lua `fib 25, binarytrees 10, nbody 20000, spectralnorm 100, fannkuch 8, "
      "strings 20000, sort 20000`, SQLite `--size 20`; ref (output checked) "
      "Lua `32 13 100000 300 9 80000 60000`, SQLite `--size 40`; small (callgrind) "
      "Lua `22 9 6000 60 7 6000 6000`, SQLite `--size 3`; SQLite always "
      "`--memdb --testset main --verify`.  Every file is compiled on its own "
      "(bench/real/build.sh) with `-O2` and the flags below, and linked with `-O2`; "
      "`-gdwarf-4` so that create_gcov 0.19 can read the profiled -O2 binary "
      "(it reads no DWARF 5); `-fopt-info-optimized`/`-fdump-ipa-profile_estimate` "
      "are for bench/decisions.py and change no code; Lua's string hash seed is "
      "fixed (`luai_makeseed`), so its counts repeat.")
    w("")
    for run in runs:
        w("%s (`%s`; what the run made is under `bench/work/gccver/gcc%d/`, "
          "`bench/` and `../shared/` are the repository's; %s):" % (
              run.name(), run.info.get("gcc", "?"), run.major,
              "create_gcov on the host, everything else in the chroot"
              if run.info.get("gcc", "gcc") != "gcc" else "all on the host"))
        w("")
        w("```")
        base = os.path.abspath(os.path.join(run.dir, "..", "..", "..", ".."))
        first = run.flags[0][0] if run.flags else None
        seen = set()
        for p, cmd in run.flags:
            if p != first:
                continue
            cmd = cmd.replace(run.dir + "/", "").replace(base + "/", "")
            cmd = cmd.replace("prof/%s/" % p, "prof/PROG/")
            for r in run.records:
                cmd = cmd.replace("prof/PROG/%s." % r, "prof/PROG/REC.")
            if cmd not in seen:
                seen.add(cmd)
                w(cmd)
        w("(REC: each recording, %s; @OBJ@: the object's name, put in by "
          "bench/real/cc-wrap.sh)" % ", ".join(run.records))
        w("(SQLite's are the same without -D'luai_makeseed(L)=0u'; the "
          "instrumented build is -O2 -g -gdwarf-4 -fprofile-generate "
          "-fprofile-update=single, run on train, then built again as the "
          "-fprofile-use line says, in the same directory; tools/ is a copy "
          "of the tools made at the run's start)")
        w("")
        for r in (run.timer_recs()[:1] + run.emulate_recs()[:1]):
            path = os.path.join(run.dir, "prof", run.programs[0], r + ".commands")
            if os.path.exists(path):
                for line in open(path):
                    line = line.rstrip("\n").replace(run.dir + "/", "").replace(base + "/", "")
                    w("(in prof/%s) %s" % (run.programs[0], line))
        w("python3 ../shared/tools/jumps.py -- BUILD/PROG SMALL-ARGS   # each run of the small input, summed")
        w("python3 bench/decisions.py --unsampled prof/PROG/REC.unsampled build/PROG/pgo "
          "build/PROG/O2x build/PROG/sfdo-REC build/PROG/afdo-sfdo-REC build/PROG/afdo-cg-REC")
        w("```")
        w("")
        if run.notes:
            w("Notes of the %s builds:" % run.name())
            w("")
            for n in run.notes:
                w("- %s" % n)
            w("")
    if notes:
        try:
            text = open(notes).read().strip()
        except OSError as e:
            die("cannot read %s: %s" % (notes, e.strerror))
        w(text)
        w("")
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gvwork")
    ap.add_argument("--title", default="## GCC 16 (and 12): sfdo beside PGO and GCC's AutoFDO")
    ap.add_argument("--notes")
    a = ap.parse_args()
    runs = []
    for d in sorted(glob.glob(os.path.join(a.gvwork, "gcc*"))):
        if d.endswith("-quick") or not os.path.exists(os.path.join(d, "info.tsv")) \
                or not os.path.exists(os.path.join(d, "counts.tsv")):
            continue
        runs.append(Run(d))
    if not runs:
        die("no finished run in %s: run bench/gcc-version-bench.sh first" % a.gvwork)
    runs.sort(key=lambda r: -r.major)
    sys.stdout.write(section(runs, a.title, a.notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
