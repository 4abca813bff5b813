#!/usr/bin/env bash
# 92-emulate-perf-convert.sh - perf and sfdo-convert read what
# sfdo-record --emulate writes, as they read a hardware recording.
#
# examples/demo.c (PIE: under Valgrind it loads elsewhere than natively,
# so its samples map only through the emulator's own MMAP2 records),
# recorded with -b --regs (taken-branch samples with the LBR, instruction
# samples, both with registers):
#   (a) perf script (-F ip,brstack and -F ip,uregs), perf report and perf
#       buildid-list read it without a warning; samples carry 32-entry
#       branch stacks and the registers; demo's build-id is listed;
#   (b) the header says the PMU was emulated: the command line, the CPU
#       description, the events BR_INST_RETIRED:NEAR_TAKEN:u:emulated and
#       instructions:u:emulated with real attrs (raw 0x20c4 with
#       BRANCH_STACK; hardware instructions; IP, TID, TIME, PERIOD,
#       REGS_USER, IDENTIFIER);
#   (c) sfdo-convert turns it into an LBR profile, and a recording
#       without -b into an IP profile, every sample in demo mapped, demo's
#       hot functions in both.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_perf_command
need_built sfdo-convert
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
compile "$T/demo" "$SFDO_ROOT/examples/demo.c" -O2 -g

"$R" --emulate -b --regs -c 20011 -o "$T/lbr.data" -- "$T/demo" 3 >"$T/lbr.out" 2>"$T/lbr.err" ||
    fail "sfdo-record --emulate -b --regs failed: $(cat "$T/lbr.err")"
grep -q 'emulated [0-9]* instructions and [0-9]* taken branches in 1 process' "$T/lbr.err" ||
    fail "no summary of what was emulated: $(cat "$T/lbr.err")"
"$T/demo" 3 | cmp -s - "$T/lbr.out" || fail "demo printed something else under the emulator"

# (a) perf reads it quietly.
quiet() {   # quiet NAME CMD...: run CMD, its stdout into $T/NAME; no stderr
    local name=$1
    shift
    "$@" >"$T/$name" 2>"$T/$name.err" || fail "$* failed: $(head -n 3 "$T/$name.err")"
    [[ ! -s $T/$name.err ]] || fail "$* warned: $(head -n 3 "$T/$name.err")"
}
quiet brstack perf script -i "$T/lbr.data" -F event,ip,brstack
quiet uregs perf script -i "$T/lbr.data" -F ip,uregs
quiet report perf report --stdio -i "$T/lbr.data"
quiet bids perf buildid-list -i "$T/lbr.data"
awk '$1 == "BR_INST_RETIRED:NEAR_TAKEN:u:emulated:" { n++; if (NF != 34) bad++ }
     END { exit !(n > 100 && !bad) }' <(tail -n +5 "$T/brstack") ||
    fail "too few taken-branch samples, or some without a full 32-entry branch stack"
grep -q 'AX:0x.*R15:0x' "$T/uregs" || fail "no registers in the samples"
want=$(readelf -n "$T/demo" | sed -n 's/.*Build ID: //p')
grep -q "^$want .*/demo\$" "$T/bids" || fail "perf buildid-list lacks demo's build-id $want"
grep -q 'crc32_update' "$T/report" || fail "perf report places no sample in crc32_update"

# (b) marked as emulated, with the real attr (perf leaves out "type = 0",
# PERF_TYPE_HARDWARE).
quiet header perf report --header-only -i "$T/lbr.data"
grep -q '^# cmdline : .*sfdo-record --emulate' "$T/header" || fail "the command line is not in the header"
grep -q '^# cpudesc : PMU emulated by sfdoemu (Valgrind' "$T/header" || fail "the CPU description does not say the PMU was emulated"
# has EVENT FIELD...: the header's EVENT has each attr FIELD.
has() {
    local event=$1 f
    shift
    grep "^# event : name = $event," "$T/header" >"$T/event" ||
        fail "no event $event: $(grep '^# event' "$T/header")"
    for f in "$@"; do
        grep -qF "$f" "$T/event" || fail "$event's attr lacks '$f': $(cat "$T/event")"
    done
}
has BR_INST_RETIRED:NEAR_TAKEN:u:emulated ', type = 4,' 'config = 0x20c4' \
    'sample_type = IP|TID|TIME|PERIOD|BRANCH_STACK|REGS_USER|IDENTIFIER' \
    'branch_sample_type = USER|ANY' 'sample_regs_user = 0xff01ff' 'exclude_kernel = 1'
has instructions:u:emulated 'config = 0x1' 'sample_type = IP|TID|TIME|PERIOD|REGS_USER|IDENTIFIER' \
    'sample_regs_user = 0xff01ff' 'exclude_kernel = 1'
! grep '^# event : name = instructions' "$T/header" | grep -q ', type = ' ||
    fail "the instructions event is not of type 0 (PERF_TYPE_HARDWARE)"

# (c) sfdo-convert, LBR and IP.
"$R" -q --emulate -c 20011 -o "$T/ip.data" -- "$T/demo" 3 >/dev/null 2>"$T/ip.err" ||
    fail "sfdo-record --emulate failed: $(cat "$T/ip.err")"
for mode in lbr ip; do
    "$SFDO_BUILD/sfdo-convert" --stats "$T/$mode.data" "$T/demo" -o "$T/$mode.prof" 2>"$T/$mode.conv" ||
        fail "sfdo-convert of the $mode recording failed: $(cat "$T/$mode.conv")"
    grep -q "^# mode: $mode\$" "$T/$mode.prof" || fail "the profile is not in $mode mode: $(head -n 4 "$T/$mode.prof")"
    grep -q ' 0 unmapped' "$T/$mode.conv" || fail "samples did not map to files: $(cat "$T/$mode.conv")"
    for f in crc32_update insertion_sort; do
        grep -q "^$f:[1-9]" "$T/$mode.prof" || fail "the $mode profile has no count for $f"
    done
done
echo "$TEST_NAME: perf and sfdo-convert (LBR and IP) read the emulated recordings"
