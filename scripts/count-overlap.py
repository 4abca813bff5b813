#!/usr/bin/env python3
"""count-overlap.py - block-level degree of overlap of two samplefdo dumps.

Usage: count-overlap.py REFERENCE.dump CANDIDATE.dump [--per-function]

Each dump is what -fplugin-arg-samplefdo-dump=FILE writes: "function NAME"
lines, then "  bb INDEX lines L raw R smoothed S final F" lines.  The final
counts of both are normalised to sum to 1 over the blocks of functions
present in both dumps (ENTRY and EXIT left out), and the degree of overlap
of Chen et al. is the sum over blocks of the smaller of the two shares:
100% means the same distribution of execution over the CFG.  The
reference is typically a dump-only compile under -fprofile-use -fno-vpt
(the instrumented counts on the same CFG: -fno-vpt keeps GCC from
specialising divisions and calls, which adds blocks, before the dump).

A third line gives the overlap of the functions' entry counts (the final
count of each function's ENTRY block), normalised the same way over the
functions in both: how well the candidate says which functions are
called how often.

A second line gives the overlap within functions: each function's overlap
on its own, weighted by its share of the reference.  The gap between the
two is how far the candidate's weights across functions are off, which
is where samples of time (cycles, a timer) differ from counts of
executions: a function of slow instructions looks executed more often.
"""
import sys
from collections import defaultdict


def read_dump(path, entries=None):
    counts = defaultdict(dict)
    func = None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "function" and len(parts) == 2:
                func = parts[1]
            elif parts[0] == "bb" and func is not None and len(parts) in (10, 12):
                index, final = int(parts[1]), int(parts[9])
                if index == 0 and entries is not None:
                    entries[func] = max(final, 0)
                if index >= 2:
                    counts[func][index] = max(final, 0)
            else:
                sys.exit(f"{path}:{lineno}: not a samplefdo dump line: {line.strip()}")
    return counts


def overlap(ref, cand, funcs):
    keys = [(f, b) for f in funcs for b in ref[f] if b in cand[f]]
    ta = sum(ref[f][b] for f, b in keys)
    tb = sum(cand[f][b] for f, b in keys)
    if ta == 0 or tb == 0:
        return None
    return sum(min(ref[f][b] / ta, cand[f][b] / tb) for f, b in keys)


def within_functions(ref, cand, funcs):
    weights = {f: sum(n for b, n in ref[f].items() if b in cand[f]) for f in funcs}
    total = sum(weights.values())
    mean = 0.0
    for f in funcs:
        o = overlap(ref, cand, [f])
        if o is not None and total:
            mean += o * weights[f] / total
    return mean


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    ref_entries, cand_entries = {}, {}
    ref, cand = read_dump(args[0], ref_entries), read_dump(args[1], cand_entries)
    common = sorted(set(ref) & set(cand))
    total = overlap(ref, cand, common)
    if total is None:
        sys.exit("no counts to compare (no common function with counts)")
    if "--per-function" in sys.argv:
        for f in common:
            o = overlap(ref, cand, [f])
            if o is not None:
                print(f"{100 * o:6.2f}%  {f}")
    print(f"block overlap: {100 * total:.2f}% over {len(common)} functions")
    print(f"within functions: {100 * within_functions(ref, cand, common):.2f}%")
    both = sorted(set(ref_entries) & set(cand_entries))
    ta = sum(ref_entries[f] for f in both)
    tb = sum(cand_entries[f] for f in both)
    if ta and tb:
        entry = sum(min(ref_entries[f] / ta, cand_entries[f] / tb) for f in both)
        print(f"entry overlap: {100 * entry:.2f}% over {len(both)} functions")
    else:
        print("entry overlap: - (no entry counts to compare)")


if __name__ == "__main__":
    main()
