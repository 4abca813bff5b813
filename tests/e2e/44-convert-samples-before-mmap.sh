#!/usr/bin/env bash
# 44-convert-samples-before-mmap.sh - samples that come before the mmap of
# their code in the file (perf writes each CPU's buffer in turn) count in
# full: their IPs, their callchains and their branch stacks.
#
# The test moves every MMAP and MMAP2 record of a recording to the end of
# its data section (a file-mode perf.data: the records' own times still
# say when each mapping began) and converts both files:
#   - a `perf record -g` recording of a program with indirect calls: the
#     same profile, call targets and head counts included;
#   - the LBR fixture ../shared/fixtures/autofdo/propeller_sample_1.*: the
#     same branch and straight-run tallies (--lbr-dump).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert
need_perf
cd "$TEST_TMP"
CONVERT=$SFDO_BUILD/sfdo-convert

# mmaps_last IN OUT: IN with its MMAP (1) and MMAP2 (10) records moved
# after all others in the data section.
mmaps_last() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
assert data[:8] == b'PERFILE2', 'not a file-mode perf.data'
offset, size = struct.unpack_from('<QQ', data, 40)
keep, moved, pos = [], [], offset
while pos < offset + size:
    rtype, misc, rsize = struct.unpack_from('<IHH', data, pos)
    assert rsize >= 8, 'bad record at %d' % pos
    (moved if rtype in (1, 10) else keep).append(bytes(data[pos:pos + rsize]))
    pos += rsize
assert moved, 'no mmap record'
data[offset:offset + size] = b''.join(keep + moved)
open(sys.argv[2], 'wb').write(data)
EOF
}

compile icalls "$SFDO_ROOT/tests/e2e/data/icalls.c" -O2 -g -fno-omit-frame-pointer
# Long enough (about 0.7 s) that the indirect call's own block catches
# samples: its targets are split from that block's count.
perf_record ip.data -g -- ./icalls 20000000
mmaps_last ip.data ip-late.data
"$CONVERT" -q ip.data icalls -o ip.prof
"$CONVERT" -q --stats ip-late.data icalls -o ip-late.prof 2>late.err
cmp -s ip.prof ip-late.prof ||
    fail "samples before their mmap give another profile: $( (diff ip.prof ip-late.prof || true) | head -n 5)"
grep -q ' [1-9][0-9]* used' late.err || fail "no sample used: $(cat late.err)"
grep -q " add1:[1-9]" ip.prof || fail "the -g recording gave no call targets"

need_shared
FIX=$SHARED_FIXTURES/autofdo
mmaps_last "$FIX/propeller_sample_1.perfdata1" lbr-late.data
"$CONVERT" -q --lbr-dump=lbr.tally "$FIX/propeller_sample_1.perfdata1" \
    "$FIX/propeller_sample_1.bin" -o lbr.prof
"$CONVERT" -q --lbr-dump=lbr-late.tally lbr-late.data \
    "$FIX/propeller_sample_1.bin" -o lbr-late.prof
[[ -s lbr.tally ]] || fail "no LBR tallies from the fixture"
cmp -s lbr.tally lbr-late.tally ||
    fail "branch stacks before their mmap are tallied differently: $( (diff lbr.tally lbr-late.tally || true) | head -n 5)"
cmp -s lbr.prof lbr-late.prof || fail "the LBR profiles differ"
echo "samples before their mmap: IP, callchain and LBR conversions unchanged"
