#!/usr/bin/env python3
"""decisions.py - the decisions GCC made from a profile, per build, and
how many of instrumented PGO's a sample-profile build makes too.

Usage: decisions.py [--json OUT] REF_DIR DIR...

Each DIR is one build of a program: its objects (DIR/obj/*.o) and, beside
each, the optimisation report GCC wrote with -fopt-info-optimized=OBJ.opt.
REF_DIR is the -fprofile-use build.  Decisions, by family:

  hotcold  a function in .text.unlikely, a function in .text.hot, a function
           split into a hot and a cold part (FN.cold): from the objects'
           symbol tables (objdump -t);
  inline   a call inlined: (caller, callee, source position) from
           "Inlining/Inlined CALLEE into CALLER" (early and IPA inliner, and
           sfdo's replay of the profiled binary's inlining);
  loops    a loop peeled, unrolled or completely unrolled, by position;
  icall    an indirect or virtual call made speculative to a target, from
           the ipa profile_estimate dump (-fdump-ipa-profile_estimate=
           OBJ.pe, "Indirect call -> speculative call") and type-based
           speculative devirtualisation from the report.  The profile
           pass's "Indirect call -> direct call ... (will resolve by
           ipa-profile)" lists every target of a histogram, at any share,
           and decides nothing: ipa-profile speculates only on a target
           of 50% or more at a hot call.  The dump gives no position, and
           names the caller as it is after early inlining, which differs
           between builds (sfdo replays the profiled binary's inlining),
           so these decisions are counted by target: (target, k) for the
           k-th call a build made speculative to it;
  values   a division or string operation specialised for a value.

For each family and DIR it prints: how many decisions REF_DIR made, the
share of them DIR made too ("agree"), and the share of DIR's own that
REF_DIR did not make ("extra").  With --unsampled FILE (the names of the
functions the sample profile lists as never run, one a line) it also
prints "hotcold-sampled": the hotcold decisions about the other
functions, those the profile shows ran; a function that ran a few times
in training without catching a sample is cold code to a sample profile,
which cannot tell it from one that never ran.  The positions keep file, line and column,
so the same decision at another call or loop counts as another.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

FAMILIES = ("hotcold", "inline", "loops", "icall", "values")

# GCC's inliners write "Inlining"/"Inlined", sfdo's replay "samplefdo:
# inlining".
INLINE = re.compile(r"[Ii]nlin(?:ed|ing) ([^ /]+)/\d+ into ([^ /]+)/\d+")
LOOP = re.compile(r"(loop with \d+ iterations completely unrolled|"
                  r"loop unrolled|loop peeled|Peeled loop|"
                  r"loop turned into non-loop|completely unrolled)")
ICALL = re.compile(r"speculatively devirtualizing call in ([^ /]+)(?:/\d+)?"
                   r" to ([^ /\n]+)")
SPECULATED = re.compile(r"^Indirect call -> speculative call ([^ /]+)/\d+"
                        r" => ([^ /]+)/\d+")
VALUE = re.compile(r"Transformation done: (.*)")


def strip_clone(name):
    """A function's name without GCC's clone suffixes."""
    return re.sub(r"(\.(constprop|isra|part|cold|lto_priv)\.\d+|\.cold)+$",
                  "", name)


# A line of objdump -t: address, the seven flag characters, section,
# size, and the name, after a visibility other than the default (Lua's
# LUAI_FUNC functions are .internal, a column the plain split of the line
# took for the size, and the section, read in its place, dropped them).
SYMBOL = re.compile(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+"
                    r"(?: \.(?:hidden|internal|protected))? (\S+)$")


def symbol_decisions(obj):
    """The hotcold decisions of one object file."""
    out = set()
    try:
        text = subprocess.run(["objdump", "-t", obj], capture_output=True,
                              text=True).stdout
    except OSError:
        return out
    for line in text.splitlines():
        m = SYMBOL.match(line)
        if not m or m.group(1)[6] != "F":
            continue
        section, name = m.group(2), m.group(3)
        if name.endswith(".cold"):
            out.add(("split", strip_clone(name)))
        elif section.startswith(".text.unlikely"):
            out.add(("unlikely", strip_clone(name)))
        elif section.startswith(".text.hot"):
            out.add(("hot", strip_clone(name)))
    return out


def report_decisions(opt):
    """The other families' decisions from one -fopt-info report."""
    out = {f: set() for f in FAMILIES if f != "hotcold"}
    out["icall_targets"] = []
    try:
        lines = open(opt, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        where = line.split(": ", 1)[0]
        where = os.path.basename(where)
        m = INLINE.search(line)
        if m:
            out["inline"].add((where, strip_clone(m.group(2)),
                               strip_clone(m.group(1))))
            continue
        m = LOOP.search(line)
        if m:
            kind = re.sub(r"\d+", "N", m.group(1)).replace("Peeled loop",
                                                           "loop peeled")
            out["loops"].add((where, kind))
            continue
        m = ICALL.search(line)
        if m:
            out["icall_targets"].append(strip_clone(m.group(2)))
            continue
        m = VALUE.search(line)
        if m:
            out["values"].add((where, m.group(1).strip()))
    return out


def speculated_calls(dump):
    """The targets of the calls one ipa profile_estimate dump made
    speculative, a target once per call."""
    out = []
    try:
        lines = open(dump, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        m = SPECULATED.match(line)
        if m:
            out.append(strip_clone(m.group(2)))
    return out


def build_decisions(d):
    """Every decision of the build in directory D, by family."""
    fam = {f: set() for f in FAMILIES}
    targets = []
    objs = glob.glob(os.path.join(d, "obj", "*.o")) + \
        glob.glob(os.path.join(d, "tree", "**", "*.o"), recursive=True)
    for obj in sorted(objs):
        fam["hotcold"] |= symbol_decisions(obj)
        report = report_decisions(obj[:-2] + ".opt")
        targets += report.pop("icall_targets")
        for f, s in report.items():
            fam[f] |= s
        targets += speculated_calls(obj[:-2] + ".pe")
    seen = {}
    for t in targets:
        seen[t] = seen.get(t, 0) + 1
        fam["icall"].add((t, seen[t]))
    return fam


def compare(ref, other, unsampled=None):
    rows = {}
    families = FAMILIES
    if unsampled is not None:
        def sampled(decisions):
            return {d for d in decisions["hotcold"] if d[1] not in unsampled}
        ref = dict(ref, **{"hotcold-sampled": sampled(ref)})
        other = dict(other, **{"hotcold-sampled": sampled(other)})
        families = FAMILIES + ("hotcold-sampled",)
    for f in families:
        r, o = ref[f], other[f]
        rows[f] = {
            "ref": len(r), "own": len(o), "common": len(r & o),
            "agree": len(r & o) / len(r) if r else None,
            "extra": len(o - r) / len(o) if o else None,
        }
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--json")
    ap.add_argument("--unsampled")
    args = ap.parse_args()
    ref = build_decisions(args.ref)
    unsampled = None
    if args.unsampled:
        with open(args.unsampled) as f:
            unsampled = {l.strip() for l in f if l.strip()}
    result = {}
    for d in args.dirs:
        rows = compare(ref, build_decisions(d), unsampled)
        result[os.path.basename(d.rstrip("/"))] = rows
        for f in rows:
            r = rows[f]
            pct = lambda x: "-" if x is None else "%.0f%%" % (100 * x)
            print("%-14s %-15s PGO %4d  own %4d  agree %5s  extra %5s"
                  % (os.path.basename(d.rstrip("/")), f, r["ref"], r["own"],
                     pct(r["agree"]), pct(r["extra"])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
