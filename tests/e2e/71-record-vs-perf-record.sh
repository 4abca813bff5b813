#!/usr/bin/env bash
# 71-record-vs-perf-record.sh - sfdo-convert makes the same profile from
# sfdo-record's file as from perf record's of the same program.
#
# Records examples/demo.c with perf record and with sfdo-record at the
# same event and period (need_perf's), and once more with sfdo-record's
# defaults; converts each with sfdo-convert and requires a function-level
# overlap (sfdo-profile overlap) of at least 0.9 with perf's, and 0.8 at
# line level: the difference left is sampling noise. The sfdo-record
# runs keep the period jitter on, as in production. Up to 3 sets of
# recordings (timer noise under load; see below).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record sfdo-convert sfdo-profile
need_perf >/dev/null   # its note line: this test prints one line
tmpdir
T=$TEST_TMP

compile "$T/demo" "$SFDO_ROOT/examples/demo.c"

# overlap A B: "FUNCTION LINE" overlaps as fractions.
overlap() {
    "$SFDO_BUILD/sfdo-profile" overlap "$1" "$2" | awk '
        /^function-level/ { f = $NF } /^line-level/ { l = $NF }
        END { sub(/%/, "", f); sub(/%/, "", l); print f / 100, l / 100 }'
}

# record_and_compare: record with perf and twice with sfdo-record, convert
# all three and compare; prints the summary, or the first miss and fails.
record_and_compare() {
    perf_record "$T/perf.data" -- "$T/demo" 200
    "$SFDO_BUILD/sfdo-record" -q -e "$PERF_EVENT" -c "$PERF_PERIOD" \
        -o "$T/same.data" -- "$T/demo" 200 >/dev/null 2>"$T/same.err" ||
        fail "sfdo-record -e $PERF_EVENT failed: $(cat "$T/same.err")"
    "$SFDO_BUILD/sfdo-record" -q -o "$T/default.data" -- "$T/demo" 200 \
        >/dev/null 2>"$T/default.err" ||
        fail "sfdo-record failed: $(cat "$T/default.err")"
    local f fn line summary=
    for f in perf same default; do
        "$SFDO_BUILD/sfdo-convert" -o "$T/$f.prof" "$T/$f.data" "$T/demo" \
            2>"$T/$f.convert.err" ||
            fail "sfdo-convert $f.data failed: $(cat "$T/$f.convert.err")"
    done
    for f in same default; do
        read -r fn line < <(overlap "$T/perf.prof" "$T/$f.prof")
        if ! awk -v f="$fn" -v l="$line" 'BEGIN { exit !(f >= 0.9 && l >= 0.8) }'; then
            echo "$f.data: overlap with perf record's profile is $fn (functions), $line (lines); want >= 0.9 and 0.8"
            return 1
        fi
        summary+=" $f $fn/$line"
    done
    echo "$summary"
}

# Timer samples on a shared machine: under load one set of recordings in a
# few lands just under 0.9 (seen in CI: 0.889), while a recorder or
# converter that loses or misplaces samples misses every time, which still
# fails.  So up to 3 fresh sets of recordings.
for attempt in 1 2 3; do
    if result=$(record_and_compare); then
        ((attempt == 1)) || echo "$TEST_NAME: passed at attempt $attempt"
        echo "$TEST_NAME: overlap with perf record (function/line):$result"
        exit 0
    fi
    echo "$TEST_NAME: attempt $attempt: $result"
done
fail "overlap with perf record's profile too low in 3 sets of recordings"
