#!/usr/bin/env bash
# 43-convert-two-events.sh - a recording with a counting event and a
# cycles event beside it: the converter classifies blocks as over- or
# under-sampled and smooths them at binary level (Chen et al. 2.7-2.8).
#
# This machine may have no hardware counters, so the pair is two software
# timers named with --count-event and --clk-event (the path the automatic
# pairing of instructions with cycles takes is the same; where perf really
# records instructions:u and cycles:u, that pairing is checked too).
#
# Asserts: --stats reports classified blocks and smoothed functions; the
# profile header lists both events with their sample counts and does not
# count the cycles samples as dropped; the profile agrees with the plain
# one-event conversion at function level (>= 75%: the same time, counted
# twice, but the two-event conversion runs the binary-level smoothing,
# which moves some weight between functions: 78 to 85% measured here on a
# busy machine); --smooth=off does not smooth; an event name the file does not
# have is exit 2 naming the file, the event and the events it has.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert sfdo-profile
need_perf
cd "$TEST_TMP"
CONVERT=$SFDO_BUILD/sfdo-convert
compile demo "$SFDO_ROOT/examples/demo.c" -O2 -g
perf record -q --no-bpf-event -e cpu-clock:u,task-clock:u -c 100003 \
    -o two.data -- ./demo 20 >/dev/null 2>perf.err ||
    fail "perf record of two software events failed: $(head -n 3 perf.err)"

"$CONVERT" -q --stats --count-event=cpu-clock --clk-event=task-clock:u \
    two.data demo -o two.prof 2>two.err ||
    fail "converting with two events failed: $(head -n 3 two.err)"
classified=$(sed -n 's/.*classified \([0-9]*\) blocks.*/\1/p' two.err)
[[ ${classified:-0} -gt 0 ]] || fail "no block was classified: $(cat two.err)"
grep -q "functions' block counts smoothed" two.err ||
    fail "the binary-level prepass did not run: $(cat two.err)"
"$SFDO_BUILD/sfdo-profile" show two.prof >two.show
grep -q '^event: *cpu-clock:u period=100003 samples=[1-9]' two.show &&
    grep -q '^event: *task-clock:u period=100003 samples=[1-9]' two.show ||
    fail "the header does not list both events: $(grep event two.show)"
used=$(sed -n 's/^samples: *\([0-9]*\) used, \([0-9]*\) dropped/\1 \2/p' two.show)
read -r n_used n_dropped <<<"$used"
((n_dropped * 10 < n_used)) ||
    fail "the cycles samples were counted as dropped: $used"

"$CONVERT" -q two.data demo -o one.prof
overlap=$("$SFDO_BUILD/sfdo-profile" overlap one.prof two.prof |
          sed -n 's/function-level overlap: *\([0-9.]*\)%/\1/p')
awk -v o="$overlap" 'BEGIN {exit !(o >= 75)}' ||
    fail "two-event profile differs from the one-event one: ${overlap}% overlap"

"$CONVERT" -q --stats --smooth=off --count-event=cpu-clock \
    --clk-event=task-clock two.data demo -o off.prof 2>off.err
! grep -q "smoothed" off.err || fail "--smooth=off smoothed: $(cat off.err)"

status=0
"$CONVERT" -q --clk-event=cycles:u two.data demo -o bad.prof 2>bad.err || status=$?
((status == 2)) || fail "an event not recorded gave exit $status, not 2"
grep -q "two.data: no event 'cycles:u' was recorded (the events: cpu-clock:u, task-clock:u)" bad.err ||
    fail "unclear message for a missing event: $(cat bad.err)"
[[ ! -e bad.prof ]] || fail "a failed conversion left bad.prof"

# Where the PMU counts instructions and cycles, they pair by themselves.
hw=no
if perf record -q --no-bpf-event -e instructions:u,cycles:u -c 1000003 \
       -o hw.data -- ./demo 20 >/dev/null 2>&1 &&
   perf report -i hw.data --header-only 2>/dev/null | grep -q 'event : name = instructions:u'; then
    "$CONVERT" -q --stats hw.data demo -o hw.prof 2>hw.err
    grep -q 'classified [1-9]' hw.err || fail "instructions and cycles did not pair: $(cat hw.err)"
    hw=yes
fi
echo "two events: $classified blocks classified; function-level overlap with one event ${overlap}%; hardware pair checked: $hw"
