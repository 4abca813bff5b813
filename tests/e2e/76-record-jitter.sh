#!/usr/bin/env bash
# 76-record-jitter.sh - the sampling period is randomised unless
# --no-jitter.
#
# Records examples/demo.c with sfdo-record's default events twice, with
# and without --no-jitter. For a hardware event the kernel writes each
# sample's real period: with jitter there must be many distinct periods,
# within 1/16 of the base, and without it one. For cpu-clock (no PMU
# here) the kernel always writes the base period, so the test looks at
# the time between a thread's consecutive samples instead: without
# jitter at least twice as many (and 10 points more) are within 2 us of
# the period as with it, and with it at most half. (The share without jitter falls when the machine is
# loaded, as timer interrupts come late; so the two are compared with
# each other rather than the fixed one with a threshold.)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP
compile "$T/demo" "$SFDO_ROOT/examples/demo.c"

for mode in jitter fixed; do
    opt=()
    [[ $mode == fixed ]] && opt=(--no-jitter)
    "$SFDO_BUILD/sfdo-record" -q ${opt[@]+"${opt[@]}"} -o "$T/$mode.data" \
        -- "$T/demo" 50 >/dev/null 2>"$T/$mode.err" ||
        fail "sfdo-record ${opt[*]} failed: $(cat "$T/$mode.err")"
    perf script -F tid,time,period,event -i "$T/$mode.data" >"$T/$mode.s" 2>/dev/null
done
event=$(awk '{ sub(/:$/, "", $4); print $4; exit }' "$T/fixed.s")

if [[ $event == cpu-clock* ]]; then
    # near FILE: the share of intervals within 2 us of the base period.
    near() {
        awk '{ t = $2 + 0; if (p && $1 == pt) { d = (t - p) * 1e6; n++
                   if (d > base - 2 && d < base + 2) k++ }
               p = t; pt = $1; base = $3 / 1000 }
             END { printf "%.2f", n ? k / n : 0 }' "$1"
    }
    j=$(near "$T/jitter.s")
    f=$(near "$T/fixed.s")
    awk -v j="$j" -v f="$f" 'BEGIN { exit !(f >= 2 * j + 0.1 && j <= 0.5) }' ||
        fail "intervals within 2 us of the period: $j with jitter, $f" \
             "without; want at most 0.5, and at most half as many (less 0.1) as without"
    echo "$TEST_NAME: $event intervals at the period: $j jittered, $f fixed"
else
    # (One event only: the default set may have several, each its period.)
    for mode in jitter fixed; do
        awk -v e="$event:" '$4 == e' "$T/$mode.s" >"$T/$mode.ev"
        mv "$T/$mode.ev" "$T/$mode.s"
    done
    distinct() { awk '{ print $3 }' "$1" | sort -u | wc -l; }
    dj=$(distinct "$T/jitter.s")
    df=$(distinct "$T/fixed.s")
    ((df == 1)) || fail "--no-jitter: $df distinct periods, want 1"
    ((dj >= 10)) || fail "jitter: only $dj distinct periods"
    base=$(awk '{ print $3; exit }' "$T/fixed.s")
    awk -v b="$base" '$3 < b - b / 16 - 1 || $3 > b + b / 16 + 1 { bad++ }
                      END { exit bad > 0 }' "$T/jitter.s" ||
        fail "a jittered period is more than 1/16 away from $base"
    echo "$TEST_NAME: $event: $dj distinct periods jittered, 1 fixed"
fi
