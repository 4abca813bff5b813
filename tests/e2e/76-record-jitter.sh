#!/usr/bin/env bash
# 76-record-jitter.sh - the sampling period: a dense start, randomised
# unless --no-jitter, and in every sample the period it was taken at.
#
# Records examples/demo.c (about 1.5 s) with sfdo-record's default events
# three times: at the defaults, with --no-jitter, and with -c.  At the
# defaults the first 40000 samples come at an eighth of the period (the
# dense start: a short training run gets enough samples), then at the
# period; every period is within 1/16 of its base (jitter), with many
# distinct ones.  With --no-jitter there is one period, with -c none is
# dense.  Each sample must carry the period it was taken at, for
# sfdo-convert weighs samples by it: for cpu-clock (no PMU here) the
# kernel writes the first period into every sample of the events
# sfdo-record opened, whatever it set since, and sfdo-record puts the
# right one in.  The test checks that against the time between a
# thread's samples: the median of each 16 consecutive intervals over the
# median of their periods (a median ignores the few intervals a loaded
# machine stretches) must be near 1, in the dense start and after it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP
compile "$T/demo" "$SFDO_ROOT/examples/demo.c"
DENSE=40000

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

# phases FILE BASE: "DENSE NORMAL STRAY": samples within 1/16 of BASE/8,
# of BASE, and of neither.
phases() {
    awk -v b="$2" '
        function near(p, c) { return p >= c - c / 16 - 1 && p <= c + c / 16 + 1 }
        near($3, b / 8) { d++; next } near($3, b) { n++; next } { s++ }
        END { print d + 0, n + 0, s + 0 }' "$1"
}
read -r d n s < <(phases "$T/jitter.s" "$base")
((s == 0)) || fail "$s samples at a period more than 1/16 away from $base or $base/8"
((d >= DENSE && d <= DENSE + 5000 && n > 0)) ||
    fail "the dense start: $d samples at $base/8 then $n at $base; want $DENSE then more"
awk -v b="$base" '$3 > b / 2 { normal = 1 } $3 < b / 2 && normal { bad = 1 }
                  END { exit bad + 0 }' "$T/jitter.s" ||
    fail "a sample at the dense period after the period went back to $base"
dj=$(distinct "$T/jitter.s")
((dj >= 10)) || fail "jitter: only $dj distinct periods"
read -r d _ _ < <(phases "$T/given.s" 100003)
read -r _ n s < <(phases "$T/given.s" $((100003 * 8)))
((n == 0 && s == 0)) || fail "-c 100003: $d samples at that period, $((n + s)) at others"

if [[ $event == cpu-clock* ]]; then
    # truth FILE: "DENSE-RATIO DENSE-WINDOWS RATIO WINDOWS": per phase, the
    # mean over windows of 16 consecutive intervals of a thread of their
    # median over the median of their samples' periods.
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
                      r = median(iv) / median(pv)
                      if (median(pv) < b / 2) { dr += r; dw++ } else { nr += r; nw++ }
                      n[tid] = 0
                  }
              }
              last[tid] = t }
            END { printf "%.2f %d %.2f %d\n", dw ? dr / dw : 0, dw, nw ? nr / nw : 0, nw }' "$1"
    }
    read -r dr dw nr nw < <(truth "$T/jitter.s")
    ((dw >= 20 && nw >= 5)) ||
        fail "too few samples to judge: $dw dense and $nw other windows of 16 intervals"
    awk -v a="$dr" -v b="$nr" 'BEGIN { exit !(a >= 0.8 && a <= 1.25 && b >= 0.8 && b <= 1.25) }' ||
        fail "the samples' periods are not the time between them: intervals over" \
             "periods $dr in the dense start, $nr after it; want near 1"
    echo "$TEST_NAME: $event: $DENSE samples at $base/8 ns then $base;" \
         "$dj distinct periods jittered, 1 fixed; intervals over periods $dr and $nr"
else
    echo "$TEST_NAME: $event: $DENSE samples at $base/8 then $base;" \
         "$dj distinct periods jittered, 1 fixed"
fi
