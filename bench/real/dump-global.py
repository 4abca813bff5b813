#!/usr/bin/env python3
"""dump-global.py - drop GCC's guessed counts from a samplefdo dump.

Usage: dump-global.py IN.dump OUT.dump

In a dump-only dump under -fprofile-use, a function the train run never
executed keeps GCC's static estimate (quality "guessed, global count 0"),
and under -fauto-profile a function absent from the profile keeps its
guessed counts; either way its "final" counts are frequencies scaled so
that the hottest block is about 2^30, not counts. Such a function's real
count is zero (PGO: never executed; AFDO: no samples), so this writes its
blocks with final 0, leaving every other line as it is, and prints how
many functions it zeroed. A measured function whose hottest block is
within 1% of 2^30 would be zeroed too; train runs here never come close.
"""
import sys

GUESS_MAX = 1 << 30


def final_of(fields):
    """The index and value of the count after "final" in a block line
    (bb N lines L raw R smoothed S final F [discriminator D]), or
    (None, 0)."""
    for i in range(len(fields) - 1):
        if fields[i] == "final" and fields[i + 1].isdigit():
            return i + 1, int(fields[i + 1])
    return None, 0


def main():
    src, dst = sys.argv[1], sys.argv[2]
    funcs, cur = [], None
    for line in open(src):
        if line.startswith("function "):
            cur = [line, []]
            funcs.append(cur)
        elif cur is not None and line.strip():
            cur[1].append(line)
    zeroed = 0
    with open(dst, "w") as out:
        for head, blocks in funcs:
            top = max((final_of(b.split())[1] for b in blocks), default=0)
            guessed = 0.99 * GUESS_MAX <= top <= GUESS_MAX
            zeroed += guessed
            out.write(head)
            for b in blocks:
                p = b.split()
                at, _ = final_of(p)
                if guessed and at is not None:
                    p[at] = "0"
                    b = "  " + " ".join(p) + "\n"
                out.write(b)
    print(f"{zeroed} of {len(funcs)} functions had guessed counts")


if __name__ == "__main__":
    main()
