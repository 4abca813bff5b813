#!/usr/bin/env bash
# sfdo-profile from the command line: round trips, merge laws, overlap,
# error reporting with FILE:LINE and exit status 2, atomic output.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-profile
tmpdir
P=$SFDO_BUILD/sfdo-profile
cd "$TEST_TMP"

cat > a.txt <<'PROF'
# sfdo-profile: 1
# build-id: 00aa11bb
# mode: ip
# event: cycles:u period=100003 samples=4512
# tool: sfdo-convert 0.1.0
# samples: used=4490 dropped=22
main:1830000:1
 0: 1
 3: 100000
 4.2: 90000 compute:80000 helper:10000
 5: sum_array:1640000:20
  1: 820000
  2: 800000
  2.1: 20000
  4: leaf:1000
   0: 1000
   !Values: 0 memsize 64:900 128:100
 !CFGChecksum: 3141592653
 !Values: 4.2 divmod 8:70000 -3:20000
 !Values: 6 icall compute:500 helper:7
helper:30000:10000
 1: 10000
 !File: lib.c
helper:20000:5000
 1: 5000
 !File: other.c
PROF
cat > b.txt <<'PROF'
compute:500000:80000
 1: 80000
 2: 420000
main:1000:1
 3: 1000
PROF
: > empty.txt

# text -> binary -> text is byte-identical, and the writer is canonical
"$P" convert --text a.txt -o canon.txt
cmp -s canon.txt a.txt || fail "the canonical form of a.txt differs from a.txt: $(diff a.txt canon.txt | head)"
"$P" convert --binary a.txt -o a.bin
[[ $(head -c 5 a.bin | od -An -tx1 | tr -d ' ') == 895346444f ]] || fail "a.bin lacks the binary magic"
"$P" convert --text a.bin -o back.txt
cmp -s back.txt a.txt || fail "text -> binary -> text changed the profile: $(diff a.txt back.txt | head)"

# merge laws
"$P" merge a.txt empty.txt -o ae.txt
cmp -s ae.txt a.txt || fail "merge(A, empty) != A: $(diff a.txt ae.txt | head)"
"$P" merge a.txt b.txt -o ab.txt
"$P" merge b.txt a.bin -o ba.txt
cmp -s ab.txt ba.txt || fail "merge(A,B) != merge(B,A): $(diff ab.txt ba.txt | head)"
grep -qx 'main:1831000:2' ab.txt || fail "merge did not sum main: $(grep ^main ab.txt)"
"$P" merge -w 3,b.txt -o b3.txt
grep -qx 'compute:1500000:240000' b3.txt || fail "weight 3 did not triple compute: $(grep ^compute b3.txt)"
printf 'f:18446744073709551615:0\n' > big.txt
"$P" merge big.txt big.txt -o sat.txt
grep -qx 'f:18446744073709551615:0' sat.txt || fail "merge overflowed instead of saturating: $(grep ^f sat.txt)"

# overlap
"$P" overlap a.txt a.bin > self.out
grep -q 'function-level overlap: 100.00%' self.out || fail "overlap A A is not 100%: $(cat self.out)"
grep -q 'line-level overlap:     100.00%' self.out || fail "line overlap A A is not 100%: $(cat self.out)"
"$P" overlap a.txt b.txt > ab.out
grep -q 'function-level overlap: 100.00%' ab.out && fail "different profiles overlap fully: $(cat ab.out)"

# show: the two static helpers stay apart, found through the binary index
"$P" show --function helper --file other.c a.bin | grep -q 'total 20000' || fail "show did not find helper of other.c"
"$P" show --function helper --file lib.c a.bin | grep -q 'total 30000' || fail "show did not find helper of lib.c"
"$P" show --top 2 a.bin | grep -q 'main' || fail "show --top does not list main"

# errors: FILE:LINE:COL, exit 2, no partial output
printf 'main:10:1\n 3: 1x\n' > bad.txt
rc=0; "$P" convert --binary bad.txt -o out.bin 2> err.txt || rc=$?
[[ $rc -eq 2 ]] || fail "a malformed profile exited $rc, not 2"
grep -q 'bad.txt:2:6: ' err.txt || fail "the error does not say bad.txt:2:6: $(cat err.txt)"
[[ ! -e out.bin ]] || fail "a failed convert left out.bin behind"
ls out.bin.tmp.* >/dev/null 2>&1 && fail "a failed convert left a temporary file"
head -c 100 a.bin > trunc.bin
rc=0; "$P" show trunc.bin 2> err.txt || rc=$?
[[ $rc -eq 2 ]] || fail "a truncated binary profile exited $rc, not 2"
grep -q 'trunc.bin+0x' err.txt || fail "the error gives no byte offset: $(cat err.txt)"
rc=0; "$P" show missing.prof 2> err.txt || rc=$?
urc=0; "$P" frobnicate 2>/dev/null || urc=$?
[[ $rc -eq 2 ]] && grep -q 'missing.prof' err.txt || fail "a missing profile: exit $rc, $(cat err.txt)"
[[ $urc -eq 1 ]] || fail "an unknown command exited $urc, not 1"
"$P" --help | grep -q 'overlap A B' || fail "--help does not describe overlap"
"$P" export --help | grep -q "export --afdo" || fail "export --help does not print the usage"
