#!/usr/bin/env bash
# 75-record-errors.sh - sfdo-record's failures are clear and leave no file.
#
#   an unknown -e event         exit 2, the message names the event
#   an event the PMU lacks      exit 2, names it (where there is no PMU)
#   -b without branch sampling  exit 2, says why (where there is none)
#   a command that cannot run   exit 127
#   the command's own status    passed on (3)
#   -p of no process            exit 2
#   an output directory missing exit 2, the command never runs
#   usage errors                exit 1 (no target, -c with -F, bad -m)
#   --help, --list-events       exit 0; the list names cpu-clock's event
# and no failure leaves an output or temporary file.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
cd "$T"

# expect STATUS PATTERN CMD...: CMD exits with STATUS, its stderr matches
# PATTERN (grep -E), and it leaves no out.data nor temporary file.
expect() {
    local want=$1 pattern=$2 status=0
    shift 2
    "$@" >"$T/out" 2>"$T/err" || status=$?
    ((status == want)) || fail "$* exited with $status, not $want: $(head -n 3 "$T/err")"
    [[ -z $pattern ]] || grep -qE -- "$pattern" "$T/err" ||
        fail "$*: stderr does not match '$pattern': $(head -n 3 "$T/err")"
    if ((want != 0 && want != 3)); then
        [[ ! -e out.data ]] || fail "$*: left out.data"
    fi
    ! ls out.data.tmp.* >/dev/null 2>&1 || fail "$*: left a temporary file"
    rm -f out.data
}

expect 2 "NO_SUCH_EVENT.*unknown event" "$R" -o out.data -e NO_SUCH_EVENT -- true
expect 127 "cannot run /nonexistent/cmd" "$R" -q -o out.data -- /nonexistent/cmd
expect 3 "" "$R" -q -o out.data -- sh -c 'exit 3'
expect 2 "no such process" "$R" -q -o out.data -p 999999999
expect 2 "/nonexistent/dir/out.data" "$R" -q -o /nonexistent/dir/out.data -- touch ran
[[ ! -e ran ]] || fail "the command ran though the output could not be created"
expect 1 "nothing to record" "$R" -o out.data
expect 1 "exclude" "$R" -o out.data -c 1000 -F 100 -- true
expect 1 "power of two" "$R" -o out.data -m 3 -- true
expect 0 "" "$R" --help
grep -q -- '--list-events' "$T/out" || fail "--help does not mention --list-events"
expect 0 "" "$R" --list-events
grep -q 'PERF_COUNT_SW_CPU_CLOCK' "$T/out" || fail "--list-events does not list cpu-clock"

if [[ ! -e /sys/bus/event_source/devices/cpu && ! -e /sys/bus/event_source/devices/cpu_core ]]; then
    expect 2 "cycles.*(does not have|not supported|No such)" "$R" -q -o out.data -e cycles -- true
    expect 2 "branch stacks.*no hardware PMU" "$R" -q -o out.data -b -- true
    note="no hardware PMU: cycles and -b refused"
else
    note="hardware PMU present: cycles and -b not checked for refusal"
fi
echo "$TEST_NAME: every failure exits as documented, leaving no file ($note)"
