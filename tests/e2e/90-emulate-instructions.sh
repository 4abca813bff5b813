#!/usr/bin/env bash
# 90-emulate-instructions.sh - sfdo-record --emulate samples retired
# instructions as callgrind counts them.
#
# On tests/e2e/data/emu_loops.c (PIE, -O2 -g), against callgrind's
# per-function instruction counts (Ir) of the same run:
#   (a) every instruction sampled (-c 1 --no-jitter): each hot function's
#       sample count equals its Ir exactly, and the samples are the
#       instructions --stat counts;
#   (b) at a jittered period of 10007: each function's samples are its Ir
#       divided by the period, within sampling error (4 sigma of a Poisson
#       count), and the periods vary around 10007 as the hardware path's
#       jitter does (within 1/16).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_perf_command
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
compile "$T/loops" "$SFDO_ROOT/tests/e2e/data/emu_loops.c" -O2 -g

# callgrind_counts N: "FUNCTION IR" for each function of loops run with
# N, recursion levels (fib'2) and GCC's clone suffixes folded.
callgrind_counts() {
    valgrind --tool=callgrind --skip-plt=no --callgrind-out-file="$T/cg.$1" \
        "$T/loops" "$1" >/dev/null 2>"$T/cg.$1.err" ||
        fail "callgrind failed: $(tail -n 3 "$T/cg.$1.err")"
    callgrind_annotate --threshold=100 --auto=no "$T/cg.$1" 2>/dev/null |
        awk -v obj="[$T/loops]" '$NF == obj {
                 gsub(/,/, "", $1); f = $(NF - 1); sub(/^.*:/, "", f)
                 sub(/'"'"'[0-9]+$/, "", f); sub(/\.(constprop|isra|part)\.[0-9]+$/, "", f)
                 n[f] += $1 }
             END { for (f in n) print f, n[f] }' | sort
}

# sample_counts DATA: "FUNCTION SAMPLES" for loops' functions.
sample_counts() {
    perf_sample_counts "$1" >"$1.counts"
    [[ ! -s $1.script.err ]] || fail "perf script warned: $(head -n 3 "$1.script.err")"
    awk '$2 == "loops" { print $3, $1 }' "$1.counts" | sort
}

# (a) every instruction.  TMPDIR: --stat makes its directory there, and
# -c 1 beside its output; the client sees VALGRIND_LIB, whose length
# changes what ld.so executes a little, so both are in $T; and both
# print into a file (stdio does more for /dev/null, a character device).
export TMPDIR=$T
"$R" --emulate --no-jitter -c 1 -o "$T/p1.data" -- "$T/loops" 200 >"$T/p1.out" 2>"$T/p1.err" ||
    fail "sfdo-record --emulate -c 1 failed: $(cat "$T/p1.err")"
callgrind_counts 200 >"$T/cg200"
sample_counts "$T/p1.data" >"$T/s200"
for f in sum_squares collatz_steps apply add1 mul3 fib; do
    want=$(awk -v f="$f" '$1 == f { print $2 }' "$T/cg200")
    got=$(awk -v f="$f" '$1 == f { print $2 }' "$T/s200")
    [[ -n $want && $want == "${got:-0}" ]] ||
        fail "-c 1: $f has ${got:-no} samples, callgrind counts ${want:-nothing}"
done
samples=$(perf script -i "$T/p1.data" -F ip 2>/dev/null | wc -l)
said=$(sed -n 's/.*emulated \([0-9]*\) instructions.*/\1/p' "$T/p1.err")
[[ $said == "$samples" ]] ||
    fail "sfdo-record said it emulated ${said:-no} instructions, -c 1 took $samples samples"
"$R" --emulate --stat -o "$T/stat" -- "$T/loops" 200 >"$T/stat.out" 2>"$T/stat.err" ||
    fail "--stat failed: $(cat "$T/stat.err")"
insns=$(awk '$2 == "instructions:u" { print $1 }' "$T/stat")
[[ $insns == "$samples" ]] ||
    fail "--stat counts $insns instructions, -c 1 took $samples samples"

# (b) a jittered period.
P=10007
"$R" -q --emulate -c $P -o "$T/p.data" -- "$T/loops" 20000 >"$T/p.out" 2>"$T/p.err" ||
    fail "sfdo-record --emulate -c $P failed: $(cat "$T/p.err")"
callgrind_counts 20000 >"$T/cg20000"
sample_counts "$T/p.data" >"$T/s20000"
checked=$(join -a 1 -e 0 -o 0,1.2,2.2 "$T/cg20000" "$T/s20000" |
    awk -v p=$P '{ e = $2 / p; if (e < 20) next
                   d = $3 - e; if (d < 0) d = -d
                   if (d > 4 * sqrt(e) + 2) { bad = bad sprintf(" %s: %d samples, %.0f expected;", $1, $3, e) }
                   n++ }
                 END { if (bad) { print "BAD" bad } else print n }')
[[ $checked != BAD* ]] || fail "samples outside sampling error of callgrind's counts:${checked#BAD}"
((checked >= 4)) || fail "only $checked functions had enough instructions to compare"
perf script -i "$T/p.data" -F period 2>/dev/null | sort -n | uniq >"$T/periods"
awk -v p=$P 'NR == 1 { lo = $1 } { hi = $1; n++ }
             END { exit !(n > 50 && lo >= p - p / 16 && hi <= p + p / 16) }' "$T/periods" ||
    fail "periods not jittered within 1/16 of $P: $(head -n 1 "$T/periods")..$(tail -n 1 "$T/periods"), $(wc -l <"$T/periods") distinct"
echo "$TEST_NAME: -c 1 matches callgrind exactly; at $P, $checked functions within sampling error"
