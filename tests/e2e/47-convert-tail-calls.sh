#!/usr/bin/env bash
# 47-convert-tail-calls.sh - an indirect call in tail position (GCC's
# sibling call: "jmp *%rax", tests/e2e/data/calls/tail_icall.c, targets
# 12, 3 and 1 of every 16 calls) gets its targets in the profile and is
# promoted as -fprofile-use promotes it ("Indirect call -> speculative
# call dispatch => op_rot" in the ipa profile_estimate dump):
#   (a) from branch stacks: the taken jump from dispatch to a function's
#       entry is the call's edge (converter/build_lbr.c);
#   (b) from registers sampled in the jump's own block, with instruction
#       samples and no branch stacks (converter/values.c, build_ip.c):
#       no callchain can show it, dispatch's frame is gone.
# The shares must be within 5 points of 75/18.75/6.25.  Both need the
# emulated PMU (a timer sample's registers are not where the program
# was when the jump ran often enough, and it has no branch stacks).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_need_emulator
SRC=$SFDO_ROOT/tests/e2e/data/calls/tail_icall.c

# shares PROFILE: "NAME=SHARE" of the targets of dispatch's one indirect
# call, most first.
shares() {
    awk '/^[^ ]/ { in_dispatch = ($0 ~ /^dispatch:/) }
         in_dispatch && /!Values: .* icall / {
            for (i = 4; i <= NF; i++) { split($i, a, ":"); n[a[1]] = a[2]; t += a[2] }
         }
         END { for (k in n) printf "%s=%.1f\n", k, 100 * n[k] / t }' "$1" |
        sort -t= -k2 -nr
}

summary=()
for mode in lbr regs; do
    record="--emulate -c 10007 -b"
    # A register sample counts only when it lands in the jump's block, one
    # in seven or so: at 10007 the histogram held about 570 calls, and a
    # share's spread (1.8 points) missed the 5-point window one run in a
    # few hundred.  At 2003 it holds five times as many.
    [[ $mode == regs ]] && record="--emulate -c 2003 --regs"
    decide_build "tail-$mode" --record "$record" --args 2000000 "$SRC" -- \
        -g -fdump-ipa-profile_estimate
    got=$(shares "$DECIDE_DIR/sfdo.prof" | tr '\n' ' ')
    [[ -n $got ]] || fail "$mode: no indirect-call histogram for dispatch's tail call"
    for want in op_rot=75 op_mul=18.75 op_xor=6.25; do
        share=$(tr ' ' '\n' <<<"$got" | awk -F= -v n="${want%=*}" '$1 == n { print $2 }')
        [[ -n $share ]] || fail "$mode: ${want%=*} missing from the histogram: $got"
        awk -v s="$share" -v w="${want#*=}" 'BEGIN { exit !(s - w <= 5 && w - s <= 5) }' ||
            fail "$mode: ${want%=*} has $share% of the calls in the profile; exactly ${want#*=}%"
    done
    for v in pgo sfdo; do
        grep -q 'Indirect call -> speculative call dispatch/[0-9]* => op_rot/' \
            "$(decide_dump "$v" tail_icall.c profile_estimate)" ||
            fail "$mode: $v did not make dispatch's tail call speculative to op_rot"
    done
    summary+=("$mode: ${got% }")
done
echo "$TEST_NAME: tail call's targets and promotion as PGO's: ${summary[*]}"
