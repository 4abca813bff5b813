#!/usr/bin/env bash
# 74-record-sigint.sh - SIGINT or SIGTERM mid-run leaves a complete file.
#
# sfdo-record -- demo (a run of minutes) is interrupted after a second,
# once with SIGINT and once with SIGTERM, sent to sfdo-record alone. It
# must pass the signal on to the command, exit with 128 + the signal as
# the command did, leave an output file that perf script reads without a
# warning and with samples, leave no temporary file, and say it stopped.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP
compile "$T/demo" "$SFDO_ROOT/examples/demo.c"

summary=
for sig in INT TERM; do
    out=$T/$sig.data
    "$SFDO_BUILD/sfdo-record" -o "$out" -- "$T/demo" 10000 >/dev/null 2>"$out.err" &
    rec=$!
    sleep 1
    kill -s "$sig" "$rec"
    status=0
    wait "$rec" || status=$?
    want=$((128 + $(kill -l "$sig")))
    ((status == want)) ||
        fail "SIG$sig: sfdo-record exited with $status, not $want: $(cat "$out.err")"
    ! pgrep -f "$T/demo" >/dev/null || fail "SIG$sig: demo still runs"
    [[ -s $out ]] || fail "SIG$sig: no output file"
    ! ls "$out".tmp.* >/dev/null 2>&1 || fail "SIG$sig: a temporary file is left"
    grep -q 'stopped by a signal' "$out.err" ||
        fail "SIG$sig: sfdo-record did not say it stopped: $(cat "$out.err")"
    perf script -i "$out" >"$out.script" 2>"$out.script.err" ||
        fail "SIG$sig: perf script failed: $(head -n 3 "$out.script.err")"
    [[ ! -s $out.script.err ]] ||
        fail "SIG$sig: perf script warned: $(head -n 3 "$out.script.err")"
    n=$(grep -c 'crc32_update' "$out.script" || true)
    ((n > 100)) || fail "SIG$sig: only $n samples in crc32_update"
    summary+=" SIG$sig $n"
done
echo "$TEST_NAME: interrupted recordings read by perf script (samples in crc32_update:$summary)"
