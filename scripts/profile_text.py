"""profile_text.py - sfdo's text profile (and LLVM's, its subset) read in
Python, for the scripts and tests that check what other tools make of
sfdo's profiles (scripts/afdo-applied.py, tests/e2e/llvm_check.py). It
reads what the writer writes (profiles/FORMAT.md, "Text encoding"); it is
not a validating reader.
"""


def read(path):
    """[(name, total, records)] in file order, one per top-level function;
    each record (stack, offset, discriminator, count, {target: count}),
    STACK being the inline path down to the record's function:
    [(offset, discriminator, callee name)]."""
    funcs = []
    stack = []
    for raw in open(path, errors="replace"):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        depth = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if depth == 0:
            name, total, _head = body.rsplit(":", 2)
            funcs.append((name, int(total), []))
            stack = []
            continue
        if body.startswith("!"):
            continue
        del stack[depth - 1:]
        site, rest = body.split(": ", 1)
        off, _, disc = site.partition(".")
        toks = rest.split()
        if toks[0][0].isdigit():
            targets = {}
            for t in toks[1:]:
                n, c = t.rsplit(":", 1)
                targets[n] = targets.get(n, 0) + int(c)
            funcs[-1][2].append((tuple(stack), int(off), int(disc or 0), int(toks[0]), targets))
        else:
            # CALLEE:TOTAL, or CALLEE:TOTAL:HEAD
            parts = toks[0].rsplit(":", 2)
            callee = parts[0] if len(parts) == 3 and parts[1].isdigit() else toks[0].rsplit(":", 1)[0]
            stack.append((int(off), int(disc or 0), callee))
    return funcs
