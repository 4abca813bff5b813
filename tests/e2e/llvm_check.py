#!/usr/bin/env python3
"""llvm_check.py - checks of the LLVM export for tests/e2e/61-llvm-export-clang.sh,
written independently of profiles/profile_llvm.c.

  llvm_check.py roundtrip ORIG BACK
      ORIG is an sfdo text profile of a clang-built binary, BACK the sfdo
      text that `sfdo-profile import` made of its LLVM export. Checks that
      BACK holds, for every function (same-named ones summed), the total of
      ORIG plus what duplication factors added, and at every (inline path,
      line offset, base discriminator) the sum over ORIG's discriminators of
      that base of count x duplication factor, with call targets summed; and
      that BACK's discriminators are the ones clang writes for a base alone.
      Prints one summary line; exit 1 with the differences otherwise.

  llvm_check.py coverage STDERR
      Sums clang's "-sample-profile-check-record-coverage" and
      "-sample-profile-check-sample-coverage" warnings (given 101, every
      function prints one) and prints "records USED/TOTAL PCT samples PCT",
      then one line per function under 90% of its records.

Discriminators are decoded as LLVM's DILocation does (DebugInfoMetadata.h):
prefix-coded components, base discriminator first, then the duplication
factor.
"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import profile_text  # noqa: E402  (scripts/profile_text.py)


def component(d):
    if d & 1:
        return 0
    d >>= 1
    return (((d >> 1) & 0xfe0) | (d & 0x1f)) if d & 0x20 else d & 0x1f


def rest(d):
    return d >> 1 if d & 1 else d >> (14 if d & 0x40 else 7)


def base(d):
    return component(d)


def factor(d):
    return component(rest(d)) or 1


def encode_base(b):
    p = ((b & 0xfe0) << 1) | (b & 0x1f) | 0x20 if b > 0x1f else b
    return p << 1


def parse(path):
    """{name: [total, {key: count}, {key: {target: count}}]} with keys
    (path of (offset, disc, callee)..., offset, disc); same names summed."""
    funcs = {}
    for name, total, records in profile_text.read(path):
        f = funcs.setdefault(name, [0, defaultdict(int), defaultdict(lambda: defaultdict(int))])
        f[0] += total
        for stack, off, disc, count, targets in records:
            key = stack + (off, disc)
            f[1][key] += count
            for t, c in targets.items():
                f[2][key][t] += c
    return funcs


def fold_key(key, enc):
    """KEY with every discriminator moved to its base (ENC: as clang writes
    that base, to compare with an imported profile)."""
    m = (lambda d: encode_base(base(d))) if enc else base
    return tuple((o, m(d), c) for o, d, c in key[:-2]) + (key[-2], m(key[-1]))


def roundtrip(orig_path, back_path):
    orig, back = parse(orig_path), parse(back_path)
    want = {}
    for name, (total, lines, targets) in orig.items():
        w = want.setdefault(name, [0, defaultdict(int), defaultdict(lambda: defaultdict(int))])
        w[0] += total
        for key, count in lines.items():
            if key[-2] > 0xffff:
                continue
            k = fold_key(key, True)
            w[1][k] += count * factor(key[-1])
            w[0] += count * (factor(key[-1]) - 1)
            for t, c in targets[key].items():
                w[2][k][t] += c
    bad = []
    for name in sorted(set(want) | set(back)):
        if name not in back:
            if want[name][0]:
                bad.append(f"{name}: missing")
            continue
        if name not in want:
            bad.append(f"{name}: not in the original")
            continue
        w, b = want[name], back[name]
        if w[0] != b[0]:
            bad.append(f"{name}: total {b[0]}, expected {w[0]}")
        for k in sorted(set(w[1]) | set(b[1]), key=str):
            if w[1].get(k, 0) != b[1].get(k, 0):
                bad.append(f"{name} {k}: count {b[1].get(k, 0)}, expected {w[1].get(k, 0)}")
            if dict(w[2].get(k, {})) != dict(b[2].get(k, {})):
                bad.append(f"{name} {k}: targets {dict(b[2].get(k, {}))}, expected {dict(w[2].get(k, {}))}")
        for k in b[1]:
            for d in [x[1] for x in k[:-2]] + [k[-1]]:
                if encode_base(base(d)) != d:
                    bad.append(f"{name} {k}: discriminator {d} is not one clang writes for a base alone")
    if bad:
        print("round trip: %d differences:\n  %s" % (len(bad), "\n  ".join(bad[:30])))
        return 1
    nrec = sum(len(v[1]) for v in back.values())
    merged = sum(len(v[1]) for v in orig.values()) - nrec
    print(f"round trip: {len(back)} functions, {nrec} records kept every count "
          f"({merged} records of the original merged or of no count)")
    return 0


def coverage(path):
    used = total = s_used = s_total = 0
    low = []
    for line in open(path, errors="replace"):
        m = re.search(r"warning: (.*?):(\d+): (\d+) of (\d+) available profile (records|samples)", line)
        if not m:
            continue
        u, t = int(m.group(3)), int(m.group(4))
        if m.group(5) == "records":
            used += u
            total += t
            if t and u * 100 // t < 90:
                low.append(f"  {m.group(1).split('/')[-1]}:{m.group(2)}: {u} of {t} records")
        else:
            s_used += u
            s_total += t
    if not total:
        print("records 0/0 (clang applied no profile)")
        return 1
    print(f"records {used}/{total} {100.0 * used / total:.1f}% samples "
          f"{100.0 * s_used / max(s_total, 1):.1f}%")
    for l in low:
        print(l)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "roundtrip":
        sys.exit(roundtrip(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "coverage":
        sys.exit(coverage(sys.argv[2]))
    sys.exit(__doc__)
