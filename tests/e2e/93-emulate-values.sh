#!/usr/bin/env bash
# 93-emulate-values.sh - register samples from the emulated PMU give
# sfdo-convert's value histograms.
#
# tests/e2e/data/emu_values.c divides by 7 six times in eight and copies
# 100 bytes three times in four.  Recorded with --emulate --regs:
#   (a) the registers at a sample are those the sampled instruction sees:
#       at every sample on the division, the divisor register holds one of
#       the divisors;
#   (b) sfdo-convert's profile has a divisor histogram led by 7 and a
#       memcpy-size histogram led by 100, near their true shares (75%);
#   (c) the same from a recording with the LBR as well (-b --regs, the
#       recommended setup on Intel): register values and branch stacks
#       combine in one conversion.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_perf_command
need_built sfdo-convert
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
compile "$T/values" "$SFDO_ROOT/tests/e2e/data/emu_values.c" -O2 -g

# (a) the divisor register at the division.
"$R" -q --emulate --regs -c 997 -o "$T/regs.data" -- "$T/values" 400000 >/dev/null 2>"$T/regs.err" ||
    fail "sfdo-record --emulate --regs failed: $(cat "$T/regs.err")"
# The division's function and offset in it (under Valgrind the PIE loads
# elsewhere than objdump's addresses say).
read -r fn div < <(objdump -d --no-show-raw-insn "$T/values" |
    awk '/^[0-9a-f]+ <divide[.>]/ { f = $2; gsub(/[<>:]/, "", f) }
         f && /\tdiv / { print f, $0; exit }')
[[ ${div:-} =~ ^\ *([0-9a-f]+):.*div\ +%(e?[a-z0-9]+) ]] || fail "no division found in divide: ${div:-}"
at=${BASH_REMATCH[1]} reg=${BASH_REMATCH[2]}
start=$(nm "$T/values" | awk -v f="$fn" '$3 == f { print $1 }')
off=$(printf '0x%x' $((0x$at - 0x$start)))
case $reg in ecx|rcx) name=CX ;; esi|rsi) name=SI ;; edi|rdi) name=DI ;; r8d|r8) name=R8 ;;
             r9d|r9) name=R9 ;; r10d|r10) name=R10 ;; r11d|r11) name=R11 ;; *) name= ;; esac
[[ -n $name ]] || skip "the compiler divides by %$reg, which this test does not map"
perf script -i "$T/regs.data" -F ip,sym,symoff,uregs 2>/dev/null |
    awk -v at="$fn+$off" -v r="$name:" '$2 == at { for (i = 3; i <= NF; i++)
                                                      if (index($i, r) == 1) print substr($i, length(r) + 1) }' \
    >"$T/divisors"
n=$(wc -l <"$T/divisors")
((n >= 5)) || fail "only $n samples fell on the division at $fn+$off"
bad=$(grep -cvxE '0x(7|d|64)' "$T/divisors" || true)
((bad == 0)) || fail "$bad of $n samples on the division show a $name that is no divisor: $(sort -u "$T/divisors" | head -n 5 | tr '\n' ' ')"

# share VALUES KIND LEADER: the leader's share (percent) of the histogram
# of KIND ("divmod 7:300 13:50 ...") if LEADER leads it, else nothing.
share() {
    grep -o "!Values: [0-9]* $2 .*" "$1" | head -n 1 |
        awk -v lead="$3" '{ split($4, top, ":"); if (top[1] != lead) exit
                             for (i = 4; i <= NF; i++) { split($i, kv, ":"); t += kv[2] }
                             printf "%d\n", 100 * top[2] / t }'
}

# (b)
"$SFDO_BUILD/sfdo-convert" --stats "$T/regs.data" "$T/values" -o "$T/regs.prof" 2>"$T/regs.conv" ||
    fail "sfdo-convert failed: $(cat "$T/regs.conv")"
d=$(share "$T/regs.prof" divmod 7) m=$(share "$T/regs.prof" memsize 100)
[[ -n $d && -n $m ]] || fail "no divisor histogram led by 7 or size histogram led by 100: $(grep Values "$T/regs.prof")"
((d >= 60 && d <= 90 && m >= 60 && m <= 90)) ||
    fail "divisor 7 has ${d}% and size 100 ${m}% of their histograms, expected about 75%"

# (c) with the LBR too.
"$R" -q --emulate -b --regs -c 997 -o "$T/lbr.data" -- "$T/values" 400000 >/dev/null 2>"$T/lbr.err" ||
    fail "sfdo-record --emulate -b --regs failed: $(cat "$T/lbr.err")"
"$SFDO_BUILD/sfdo-convert" --stats "$T/lbr.data" "$T/values" -o "$T/lbr.prof" 2>"$T/lbr.conv" ||
    fail "sfdo-convert of the LBR recording failed: $(cat "$T/lbr.conv")"
! grep -q ' 0 gave a value' "$T/lbr.conv" ||
    fail "with -b: no sample with a branch stack gave a register value: $(cat "$T/lbr.conv")"
d2=$(share "$T/lbr.prof" divmod 7) m2=$(share "$T/lbr.prof" memsize 100)
[[ -n $d2 && -n $m2 ]] || fail "with -b: no divisor histogram led by 7 or size histogram led by 100: $(grep Values "$T/lbr.prof")"
((d2 >= 60 && d2 <= 90 && m2 >= 60 && m2 <= 90)) ||
    fail "with -b: divisor 7 has ${d2}% and size 100 ${m2}% of their histograms, expected about 75%"
echo "$TEST_NAME: registers exact at the division; divisor 7 (${d}%, ${d2}% with LBR) and size 100 (${m}%, ${m2}% with LBR) lead"
