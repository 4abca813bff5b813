#!/usr/bin/env python3
"""afdo-applied.py - which records of an AutoFDO profile GCC 12's
-fauto-profile applies, from its `afdo` IPA dump.

Usage: scripts/afdo-applied.py PROFILE BINARY DUMP [--list]

  PROFILE  the AFDO profile as an sfdo text profile (`sfdo-profile import
           x.afdo`), so that exactly what GCC read is counted
  BINARY   the profiled binary (its DWARF gives each function's
           declaration line and file: record offsets are relative to it)
  DUMP     GCC's dump of the build with the profile:
           -fauto-profile=x.afdo -fdump-ipa-afdo-lineno

GCC annotates a block with the largest count it finds for its statements
(auto-profile.cc, afdo_set_bb_count): every statement but debug statements
and clobbers, looked up by the (line - declaration line of its function,
discriminator) of its location, through its inline stack. A record counts
as applied when a statement of the function it belongs to (after the afdo
pass's own early inlining, as the dump shows it) sits on its line with its
discriminator. GCC 12 prints no discriminators in its dumps (later GCCs
print "discrim N"): then records are matched by line alone, and a record
whose line has statements counts as applied. Records of inline instances
are matched by the callee's file and line, not by the inline path: a
callee inlined twice into one function counts as applied for both
instances when either is. Prints one summary line, "records A/T P% counts
C%" (counts: the share of the records' counts), then each top-level
function with the records not applied and why (with --list, every one).
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

import profile_text

LOC = re.compile(r"\[([^\[\]:]+):(\d+):(\d+)(?: discrim (\d+))?\]")


def decl_lines(binary):
    """{name or linkage name: (file base name, line)} from the binary's DWARF."""
    out = subprocess.run(["llvm-dwarfdump-14", "--debug-info", binary],
                         capture_output=True, text=True).stdout
    decl = {}
    for die in re.split(r"\n(?=0x[0-9a-f]+: +DW_TAG)", out):
        if "DW_TAG_subprogram" not in die.split("\n", 1)[0]:
            continue
        f = re.search(r'DW_AT_decl_file\s+\("([^"]+)"\)', die)
        l = re.search(r"DW_AT_decl_line\s+\((\d+)\)", die)
        if not (f and l):
            continue
        for k in ("DW_AT_linkage_name", "DW_AT_name"):
            m = re.search(k + r'\s+\("([^"]+)"\)', die)
            if m:
                decl.setdefault(m.group(1), (os.path.basename(f.group(1)), int(l.group(1))))
    return decl


def dump_statements(dump):
    """{function name: set of (file base name, line, discriminator)} of the
    statements GCC annotates, per function body of the dump, and whether
    the dump shows discriminators at all."""
    funcs = {}
    discrims = False
    name = None
    lines = open(dump, errors="replace").read().splitlines()
    for i, line in enumerate(lines):
        if name is None:
            if i + 1 < len(lines) and lines[i + 1] == "{" and re.match(r"^\S.*\(.*\)$", line):
                m = re.search(r"([\w.$:~<>]+) \(", line)
                name = m.group(1).split("::")[-1] if m else line
                funcs[name] = set()
            continue
        if line == "}":
            name = None
            continue
        m = LOC.match(line.strip())
        if not m:
            continue
        stmt = line.strip()[m.end():].strip()
        if stmt.startswith(("#", "goto ")) or "{CLOBBER" in stmt or not stmt:
            continue
        discrims |= m.group(4) is not None
        funcs[name].add((os.path.basename(m.group(1)), int(m.group(2)), int(m.group(4) or 0)))
    return funcs, discrims


def profile_records(path):
    """{top-level name: [(leaf name, offset, discriminator, count)]}."""
    recs = defaultdict(list)
    for name, _total, records in profile_text.read(path):
        for stack, off, disc, count, _targets in records:
            recs[name].append((stack[-1][2] if stack else name, off, disc, count))
    return recs


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    if len(args) != 3:
        sys.exit(__doc__)
    prof, binary, dump = args
    decl = decl_lines(binary)
    stmts, discrims = dump_statements(dump)
    recs = profile_records(prof)
    applied = total = c_applied = c_total = 0
    report = []
    for fn, rs in sorted(recs.items(), key=lambda kv: -sum(r[3] for r in kv[1])):
        if fn not in stmts:
            n = len(rs)
            total += n
            c_total += sum(r[3] for r in rs)
            report.append(f"  {fn}: 0/{n} (no body in the dump: not in this translation unit, or not emitted)")
            continue
        have = stmts[fn]
        lines_seen = {(f, l) for f, l, _ in have}
        miss = []
        for leaf, off, disc, count in rs:
            total += 1
            c_total += count
            f, d = decl.get(leaf, (None, None))
            if d is None:
                miss.append(f"{leaf}+{off}.{disc}={count} (no declaration line in the DWARF)")
                continue
            if (f, d + off, disc) in have or (not discrims and (f, d + off) in lines_seen):
                applied += 1
                c_applied += count
                continue
            why = ("statements on the line have other discriminators" if (f, d + off) in lines_seen
                   else "no statement on the line")
            miss.append(f"{leaf if leaf != fn else ''}+{off}{'.%d' % disc if disc else ''}={count} ({why})")
        if miss or "--list" in sys.argv:
            report.append(f"  {fn}: {len(rs) - len(miss)}/{len(rs)}" + "".join("\n      " + m for m in miss))
    print(f"records {applied}/{total} {100.0 * applied / max(total, 1):.1f}% "
          f"counts {100.0 * c_applied / max(c_total, 1):.1f}%"
          + ("" if discrims else " (by line: the dump shows no discriminators)"))
    print("\n".join(report))


if __name__ == "__main__":
    main()
