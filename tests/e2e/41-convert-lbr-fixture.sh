#!/usr/bin/env bash
# 41-convert-lbr-fixture.sh - sfdo-convert tallies the branch stacks of a
# real LBR recording (../shared/fixtures/autofdo/propeller_sample_1.*,
# perf 4.13, Skylake-SP) exactly as perf itself reads them.
#
# sfdo-convert --lbr-dump writes "BINARY range BEGIN END COUNT" and
# "BINARY branch FROM TO COUNT" lines (convert.h). The same tallies are
# computed here from `perf script -F ip,brstack`: perf lists the newest
# branch first; every entry is a branch FROM/TO, and entry[i].to ..
# entry[i-1].from a straight run; each is counted every time it appears
# (twice in one stack is two executions). Addresses become the binary's virtual addresses through the
# binary's MMAP2 (perf script --show-mmap-events) and its PT_LOAD headers
# (readelf -lW). Entries outside the binary (other files, the kernel), runs
# that end before they begin or span 1 MiB or more, and samples taken in
# the kernel (sfdo-convert uses user-mode samples only) are left out. The
# two lists must agree line for line. The binary's profile itself is not
# checked: there is no ground truth for it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_shared
need_built sfdo-convert
command -v perf >/dev/null || skip "needs perf (perf script is the oracle)"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
tmpdir
T=$TEST_TMP
DATA=$SHARED_FIXTURES/autofdo/propeller_sample_1.perfdata1
BIN=$SHARED_FIXTURES/autofdo/propeller_sample_1.bin

"$SFDO_BUILD/sfdo-convert" --stats --lbr-dump="$T/dump.txt" -o "$T/profile.txt" \
    "$DATA" "$BIN" 2>"$T/convert.err" ||
    fail "sfdo-convert failed: $(cat "$T/convert.err")"
[[ -s $T/dump.txt ]] || fail "--lbr-dump wrote nothing"

perf script --show-mmap-events -F ip,brstack -i "$DATA" \
    >"$T/script.txt" 2>"$T/script.err" ||
    fail "perf script failed: $(head -n 3 "$T/script.err")"
readelf -lW "$BIN" >"$T/phdrs.txt"

python3 - "$T/script.txt" "$T/phdrs.txt" "$(basename "$BIN")" \
    "$T/every.txt" >"$T/expected.txt" <<'EOF' || fail "cannot compute the expected tallies"
import re
import sys
from collections import Counter

script, phdrs, base, every_path = sys.argv[1:5]
MAX_RANGE = 1 << 20
KERNEL = 1 << 63

loads = []
for line in open(phdrs):
    f = line.split()
    if f and f[0] == "LOAD":
        off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        loads.append((off, filesz, vaddr))

maps = []       # (start, end, pgoff) of the binary
stacks = []     # [(from, to), ...] newest first, of user-mode samples
mmap_re = re.compile(r"PERF_RECORD_MMAP2? \d+/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\)"
                     r" @ (0x[0-9a-f]+|0)[ \]].*\]: \S+ (\S+)$")
for line in open(script):
    if "PERF_RECORD_MMAP" in line:
        m = mmap_re.search(line.rstrip("\n"))
        if m and "propeller_sample_1.bin" in m.group(4).rsplit("/", 1)[-1]:
            start, size = int(m.group(1), 16), int(m.group(2), 16)
            maps.append((start, start + size, int(m.group(3), 16)))
        continue
    f = line.split()
    if not f:
        continue
    ip = int(f[0], 16)
    entries = []
    for e in f[1:]:
        parts = e.split("/")
        entries.append((int(parts[0], 16), int(parts[1], 16)))
    if ip >= KERNEL:
        continue
    stacks.append(entries)

if not maps:
    sys.exit("no MMAP2 of the binary in perf script's output")


def vaddr(a):
    for start, end, pgoff in maps:
        if start <= a < end:
            off = a - start + pgoff
            for o, n, v in loads:
                if o <= off < o + n:
                    return v + off - o
    return None


# Every appearance (what convert.h documents), and, for the diagnosis of a
# difference, once per stack.
ranges, branches = Counter(), Counter()
every_r, every_b = Counter(), Counter()
for st in stacks:
    seen_r, seen_b = [], []
    for fr, to in st:
        a, b = vaddr(fr), vaddr(to)
        if a is not None and b is not None:
            seen_b.append((a, b))
    for i in range(1, len(st)):
        a, b = vaddr(st[i][1]), vaddr(st[i - 1][0])
        if a is not None and b is not None and a <= b and b - a < MAX_RANGE:
            seen_r.append((a, b))
    ranges.update(seen_r)
    branches.update(seen_b)
    every_r.update(set(seen_r))
    every_b.update(set(seen_b))


def write(out, r, b):
    for kind, c in (("range", r), ("branch", b)):
        for (x, y), n in sorted(c.items()):
            print(f"{base} {kind} {x:x} {y:x} {n}", file=out)


write(sys.stdout, ranges, branches)
with open(every_path, "w") as out:
    write(out, every_r, every_b)
EOF

[[ -s $T/expected.txt ]] || fail "perf script shows no branch in the binary"
if ! diff "$T/expected.txt" "$T/dump.txt" >"$T/diff.txt"; then
    why=
    if cmp -s "$T/every.txt" "$T/dump.txt"; then
        why="; it matches exactly if each range and branch is counted once"
        why+=" per stack, not every time it appears"
    fi
    fail "--lbr-dump differs from perf script's branch stacks$why" \
         "($(wc -l <"$T/dump.txt") vs $(wc -l <"$T/expected.txt") lines;" \
         "< perf script, > sfdo-convert): $(head -n 8 "$T/diff.txt" | tr '\n' ' ')"
fi
