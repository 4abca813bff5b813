#!/usr/bin/env bash
# 76-record-jitter.sh - the sampling period: randomised unless
# --no-jitter, and in every sample the period it was taken at.
#
# Records examples/demo.c (about 1.5 s) with sfdo-record's default events
# three times: at the defaults, with --no-jitter, and with -c.  At the
# defaults every period is within 1/16 of the base, with many distinct
# ones; with --no-jitter there is one; with -c all are within 1/16 of
# it.  Each sample must carry the period it was taken at, for
# sfdo-convert weighs samples by it: for cpu-clock (no PMU here) the
# kernel writes the first period into every sample of the events
# sfdo-record opened, whatever it set since, and sfdo-record puts the
# one in force in.  The test checks that against the time between a
# thread's samples: the median of each 16 consecutive intervals over the
# median of their periods (a median ignores the few intervals a loaded
# machine stretches) must be near 1, and the medians of the jittered
# periods must spread (at least base/64 from the base on average,
# uniform within base/16 gives base/32).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP
compile "$T/demo" "$SFDO_ROOT/examples/demo.c"

for mode in jitter fixed given; do
    opt=()
    [[ $mode == fixed ]] && opt=(--no-jitter)
    [[ $mode == given ]] && opt=(-c 100003)
    "$SFDO_BUILD/sfdo-record" -q ${opt[@]+"${opt[@]}"} -o "$T/$mode.data" \
        -- "$T/demo" 150 >/dev/null 2>"$T/$mode.err" ||
        fail "sfdo-record ${opt[*]} failed: $(cat "$T/$mode.err")"
    perf script -F tid,time,period,event -i "$T/$mode.data" >"$T/$mode.s" 2>/dev/null
done
event=$(awk '{ sub(/:$/, "", $4); print $4; exit }' "$T/fixed.s")
# One event only: the default set may have several, each its period.
for mode in jitter fixed given; do
    awk -v e="$event:" '$4 == e' "$T/$mode.s" >"$T/$mode.ev"
    mv "$T/$mode.ev" "$T/$mode.s"
done
base=$(awk '{ print $3; exit }' "$T/fixed.s")

distinct() { awk '{ print $3 }' "$1" | sort -u | wc -l; }
df=$(distinct "$T/fixed.s")
((df == 1)) || fail "--no-jitter: $df distinct periods, want 1"

# outside FILE BASE: how many samples have a period more than 1/16 from BASE.
outside() {
    awk -v b="$2" '$3 < b - b / 16 - 1 || $3 > b + b / 16 + 1 { n++ } END { print n + 0 }' "$1"
}
s=$(outside "$T/jitter.s" "$base")
((s == 0)) || fail "$s jittered samples at a period more than 1/16 away from $base"
dj=$(distinct "$T/jitter.s")
((dj >= 10)) || fail "jitter: only $dj distinct periods"
s=$(outside "$T/given.s" 100003)
((s == 0)) || fail "-c 100003: $s samples at a period more than 1/16 away from it"

if [[ $event == cpu-clock* ]]; then
    # truth FILE: "RATIO SPREAD WINDOWS": over windows of 16 consecutive
    # intervals of a thread, the mean of their median over the median of
    # their samples' periods, and the mean distance of the latter from
    # the base period, in ns.
    truth() {
        awk -v W=16 -v b="$base" '
            function median(a,   i, j, x, s) {
                for (i = 1; i <= W; i++) s[i] = a[i]
                for (i = 2; i <= W; i++) {
                    x = s[i]
                    for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]
                    s[j + 1] = x
                }
                return (s[W / 2] + s[W / 2 + 1]) / 2
            }
            { t = $2 + 0; tid = $1
              if (tid in last) {
                  k = ++n[tid]; iv[k] = (t - last[tid]) * 1e9; pv[k] = $3
                  if (k == W) {
                      m = median(pv); r += median(iv) / m; w++
                      spread += m > b ? m - b : b - m
                      n[tid] = 0
                  }
              }
              last[tid] = t }
            END { printf "%.2f %.0f %d\n", w ? r / w : 0, w ? spread / w : 0, w }' "$1"
    }
    read -r ratio spread windows < <(truth "$T/jitter.s")
    ((windows >= 20)) || fail "too few samples to judge: $windows windows of 16 intervals"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8 && r <= 1.25) }' ||
        fail "the samples' periods are not the time between them: intervals over periods $ratio; want near 1"
    ((spread * 64 >= base)) ||
        fail "the jittered periods' medians are $spread ns from $base on average; want at least 1/64 of it"
    echo "$TEST_NAME: $event: $dj distinct periods jittered (medians $spread ns from $base), 1 fixed;" \
         "intervals over periods $ratio"
else
    echo "$TEST_NAME: $event: $dj distinct periods jittered, 1 fixed"
fi
