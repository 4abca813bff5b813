#!/usr/bin/env bash
# 76-record-jitter.sh - the sampling period is randomised unless
# --no-jitter.
#
# Records examples/demo.c with sfdo-record's default events twice, with
# and without --no-jitter. For a hardware event the kernel writes each
# sample's real period: with jitter there must be many distinct periods,
# within 1/16 of the base, and without it one. For cpu-clock (no PMU
# here) the kernel always writes the base period, so the test looks at
# the time between a thread's consecutive samples instead, through the
# median of each 16 consecutive intervals: a median ignores the few
# intervals a loaded machine stretches, so it stays at the period in
# the fixed run, and follows the round's period (re-drawn every 64
# samples) in the jittered one.  Uniform within base/16 either way, the
# medians' mean distance from the base is base/32 with jitter; the test
# wants at least base/64 there, and at most a third of that without.
# (The share of single intervals within 2 us of the period, used before,
# fell from 0.6 to 0.3 without jitter on a loaded CI host.)
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
    # spread FILE: the mean distance, in us, of the medians of each
    # thread's windows of 16 consecutive intervals from the base period,
    # then the base in us.
    spread() {
        awk -v W=16 '
            function median(tid,   i, j, x) {
                for (i = 1; i <= W; i++) s[i] = win[tid, i]
                for (i = 2; i <= W; i++) {
                    x = s[i]
                    for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]
                    s[j + 1] = x
                }
                return (s[W / 2] + s[W / 2 + 1]) / 2
            }
            { t = $2 + 0; tid = $1; base = $3 / 1000
              if (tid in last) {
                  win[tid, ++n[tid]] = (t - last[tid]) * 1e6
                  if (n[tid] == W) {
                      m = median(tid); dev += m > base ? m - base : base - m
                      windows++; n[tid] = 0
                  }
              }
              last[tid] = t }
            END { printf "%.2f %.1f %d\n", windows ? dev / windows : 0, base, windows }' "$1"
    }
    read -r j base wj < <(spread "$T/jitter.s")
    read -r f _ wf < <(spread "$T/fixed.s")
    ((wj >= 20 && wf >= 20)) ||
        fail "too few samples to judge: $wj and $wf windows of 16 intervals"
    awk -v j="$j" -v f="$f" -v b="$base" \
        'BEGIN { exit !(j >= b / 64 && f <= j / 3) }' ||
        fail "the medians of 16 intervals are $j us from the period ($base us)" \
             "on average with jitter and $f us without; want at least" \
             "1/64 of the period with it, and at most a third of that without"
    echo "$TEST_NAME: $event: medians of 16 intervals $j us from the" \
         "$base us period jittered, $f us fixed"
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
