#!/usr/bin/env bash
# perf, at a fixed period, records the demo with the profile it was designed
# to have (see the opening comment of examples/demo.c): crc32_update has the
# most samples, and every function that loops many times has a share.
# Fails if the recording, perf's symbolization of the binary or the demo's
# workload is broken.

set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_perf
tmpdir

compile "$TEST_TMP/demo" "$SFDO_ROOT/examples/demo.c" -O2 -g

# 30% of the default work: about 0.3 s, which is about a thousand samples.
# -g as in scripts/demo.sh, so this guards the recording the demo makes.
perf_record "$TEST_TMP/perf.data" -g -- "$TEST_TMP/demo" 30
grep -q '^crc32 ' "$TEST_TMP/perf.data.out" ||
    fail "the demo under perf printed no result: $(head -c 300 "$TEST_TMP/perf.data.out")"

counts=$TEST_TMP/counts
perf_sample_counts "$TEST_TMP/perf.data" >"$counts"
summary=$(awk 'NR <= 6 { printf "%s%s %s", sep, $3, $1; sep = ", " }' "$counts")

total=$(awk '{ n += $1 } END { print n + 0 }' "$counts")
((total >= 300)) ||
    fail "only $total samples of $PERF_EVENT every $PERF_PERIOD in 0.3 s of work"

# Nearly all the time is in the demo's own code. If not, perf mapped or
# symbolized the binary wrongly (or the demo spends its time elsewhere).
in_demo=$(awk '$2 == "demo" { n += $1 } END { print n + 0 }' "$counts")
((in_demo * 100 >= total * 90)) ||
    fail "only $in_demo of $total samples are in the demo binary: $summary"

samples_of() {
    awk -v fn="$1" '$2 == "demo" && $3 == fn { n += $1 } END { print n + 0 }' \
        "$counts"
}

# The hottest function by design: first, and far ahead (about half).
read -r _ top_dso top_fn < <(head -n 1 "$counts")
[[ "$top_dso $top_fn" == "demo crc32_update" ]] ||
    fail "hottest is $top_fn in $top_dso, not crc32_update: $summary"
crc=$(samples_of crc32_update)
((crc * 100 >= total * 30)) ||
    fail "crc32_update has $crc of $total samples, expected about half: $summary"

# Every function that runs many iterations shows up. The smallest share by
# design is count_rare_values at about 6%; 2% leaves room for noise.
for fn in insertion_sort matrix_multiply mix64 count_rare_values; do
    n=$(samples_of "$fn")
    ((n * 100 >= total * 2)) ||
        fail "$fn has $n of $total samples, expected at least 2%: $summary"
done
