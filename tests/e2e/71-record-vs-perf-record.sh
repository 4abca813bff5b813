#!/usr/bin/env bash
# 71-record-vs-perf-record.sh - sfdo-convert makes the same profile from
# sfdo-record's file as from perf record's of the same program.
#
# Records examples/demo.c with perf record and with sfdo-record at the
# same event and period (need_perf's), and once more with sfdo-record's
# defaults; converts each with sfdo-convert and requires a function-level
# overlap (sfdo-profile overlap) of at least 0.9 with perf's, and 0.8 at
# line level: the difference left is sampling noise. The sfdo-record
# runs keep the period jitter on, as in production.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record sfdo-convert sfdo-profile
need_perf >/dev/null   # its note line: this test prints one line
tmpdir
T=$TEST_TMP

compile "$T/demo" "$SFDO_ROOT/examples/demo.c"
perf_record "$T/perf.data" -- "$T/demo" 200
"$SFDO_BUILD/sfdo-record" -q -e "$PERF_EVENT" -c "$PERF_PERIOD" \
    -o "$T/same.data" -- "$T/demo" 200 >/dev/null 2>"$T/same.err" ||
    fail "sfdo-record -e $PERF_EVENT failed: $(cat "$T/same.err")"
"$SFDO_BUILD/sfdo-record" -q -o "$T/default.data" -- "$T/demo" 200 \
    >/dev/null 2>"$T/default.err" ||
    fail "sfdo-record failed: $(cat "$T/default.err")"

for f in perf same default; do
    "$SFDO_BUILD/sfdo-convert" -o "$T/$f.prof" "$T/$f.data" "$T/demo" \
        2>"$T/$f.convert.err" ||
        fail "sfdo-convert $f.data failed: $(cat "$T/$f.convert.err")"
done

# overlap A B: "FUNCTION LINE" overlaps as fractions.
overlap() {
    "$SFDO_BUILD/sfdo-profile" overlap "$1" "$2" | awk '
        /^function-level/ { f = $NF } /^line-level/ { l = $NF }
        END { sub(/%/, "", f); sub(/%/, "", l); print f / 100, l / 100 }'
}
summary=
for f in same default; do
    read -r fn line < <(overlap "$T/perf.prof" "$T/$f.prof")
    awk -v f="$fn" -v l="$line" 'BEGIN { exit !(f >= 0.9 && l >= 0.8) }' ||
        fail "$f.data: overlap with perf record's profile is $fn (functions)," \
             "$line (lines); want >= 0.9 and 0.8"
    summary+=" $f $fn/$line"
done
echo "$TEST_NAME: overlap with perf record (function/line):$summary"
