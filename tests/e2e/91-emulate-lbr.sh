#!/usr/bin/env bash
# 91-emulate-lbr.sh - the emulated LBR is exact.
#
# tests/e2e/data/emu_branches.S, a program without libc whose control
# flow is known (its comment lists each branch's taken count): calls,
# returns, conditional branches taken and not, an indirect jump to the
# very next instruction, an indirect call, a REP MOVSB (its iterations
# are not branches).
#   (a) --stat counts its 5722 instructions and 1603 taken branches;
#   (b) with every instruction sampled (-e instructions -c 1 -b), consecutive samples
#       show each taken branch exactly once, where it happens: the new
#       LBR[0] is (previous IP, this IP) and LBR[1..31] are the previous
#       LBR[0..30]; an unchanged LBR only between an instruction and its
#       fall-through (objdump's lengths); and the branches counted per
#       site are the program's;
#   (c) perf script -F ip,brstack reads it without a warning;
#   (d) sampled on taken branches (-e taken-branches -c 1 -b), each sample
#       is at a branch, whose own (from, to) leads its LBR: 1603 samples,
#       the same branches per site.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_perf_command
command -v python3 >/dev/null || skip "python3 is not installed"
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
"$SFDO_GCC" -nostdlib -static -o "$T/branches" "$SFDO_ROOT/tests/e2e/data/emu_branches.S" ||
    fail "cannot build emu_branches.S"

# (a)
"$R" --emulate --stat -o "$T/stat" -- "$T/branches" 2>"$T/stat.err" ||
    fail "--stat failed: $(cat "$T/stat.err")"
read -r insns taken < <(awk '$2 == "instructions:u" { i = $1 } $2 == "taken-branches:u" { t = $1 }
                              END { print i, t }' "$T/stat")
[[ $insns == 5722 && $taken == 1603 ]] ||
    fail "--stat counts $insns instructions and $taken taken branches, not 5722 and 1603"

# (b), (c)
"$R" -q --emulate -e instructions --no-jitter -c 1 -b -o "$T/b.data" -- "$T/branches" 2>"$T/b.err" ||
    fail "sfdo-record --emulate -e instructions -c 1 -b failed: $(cat "$T/b.err")"
perf script -i "$T/b.data" -F ip,brstack >"$T/b.script" 2>"$T/b.script.err" ||
    fail "perf script -F ip,brstack failed: $(head -n 3 "$T/b.script.err")"
[[ ! -s $T/b.script.err ]] || fail "perf script warned: $(head -n 3 "$T/b.script.err")"
objdump -d "$T/branches" | sed -n 's/^ *\([0-9a-f]*\):.*/\1/p' >"$T/addrs"
nm "$T/branches" | awk '$3 ~ /^site_/ { print $1, $3 }' >"$T/sites"
python3 - "$T/b.script" "$T/addrs" "$T/sites" <<'PY' || fail "the LBR stream is not exact (above)"
import collections, sys
script, addrs, sites = sys.argv[1:]
a = [int(l, 16) for l in open(addrs)]
length = {x: y - x for x, y in zip(a, a[1:])}
site = {int(l.split()[0], 16): l.split()[1] for l in open(sites)}
samples = []
for line in open(script):
    f = line.split()
    samples.append((int(f[0], 16), [tuple(int(v, 16) for v in e.split('/')[:2]) for e in f[1:]]))
counts, bad = collections.Counter(), []
for (ip0, b0), (ip1, b1) in zip(samples, samples[1:]):
    shifted = b1[:1] == [(ip0, ip1)] and b1[1:] == b0[:len(b1) - 1]
    sequential = ip1 == ip0 + length.get(ip0, -1) or ip1 == ip0   # REP
    if shifted and (b1 != b0 or not sequential):
        counts[site.get(ip0, hex(ip0))] += 1
    elif b1 != b0 or not sequential:
        bad.append("%x -> %x" % (ip0, ip1))
want = {"site_call_kloop": 1, "site_jz": 500, "site_jnz": 999, "site_ret_kloop": 1,
        "site_jmp_ind": 1, "site_call_ind": 1, "site_ret1": 1, "site_loop": 99}
ok = len(samples) == 5722 and not bad and counts == want
if not ok:
    print("samples %d (want 5722); inconsistent transitions %d %s; taken per site %s (want %s)"
          % (len(samples), len(bad), bad[:5], dict(counts), want))
sys.exit(0 if ok else 1)
PY
# (d)
"$R" -q --emulate -e taken-branches --no-jitter -c 1 -b -o "$T/t.data" -- "$T/branches" 2>"$T/t.err" ||
    fail "sfdo-record --emulate -e taken-branches -c 1 -b failed: $(cat "$T/t.err")"
perf script -i "$T/t.data" -F ip,brstack >"$T/t.script" 2>"$T/t.script.err" ||
    fail "perf script -F ip,brstack failed: $(head -n 3 "$T/t.script.err")"
[[ ! -s $T/t.script.err ]] || fail "perf script warned: $(head -n 3 "$T/t.script.err")"
python3 - "$T/t.script" "$T/sites" <<'PY' || fail "taken-branch samples are not at their branches (above)"
import collections, sys
site = {int(l.split()[0], 16): l.split()[1] for l in open(sys.argv[2])}
counts, bad, n = collections.Counter(), 0, 0
prev = []
for line in open(sys.argv[1]):
    f = line.split()
    ip, br = int(f[0], 16), [tuple(int(v, 16) for v in e.split('/')[:2]) for e in f[1:]]
    n += 1
    if br[:1] == [] or br[0][0] != ip or br[1:] != prev[:len(br) - 1]:
        bad += 1
    counts[site.get(ip, hex(ip))] += 1
    prev = br
want = {"site_call_kloop": 1, "site_jz": 500, "site_jnz": 999, "site_ret_kloop": 1,
        "site_jmp_ind": 1, "site_call_ind": 1, "site_ret1": 1, "site_loop": 99}
if n != 1603 or bad or counts != want:
    print("samples %d (want 1603), %d not led by their own branch; per site %s" % (n, bad, dict(counts)))
    sys.exit(1)
PY
echo "$TEST_NAME: 5722 instructions, 1603 taken branches, each in the LBR exactly where it happened"
