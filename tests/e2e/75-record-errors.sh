#!/usr/bin/env bash
# 75-record-errors.sh - sfdo-record's failures are clear and leave no file.
#
#   an unknown -e event         exit 2, the message names the event
#   an event the PMU lacks      exit 2, names it (where there is no PMU)
#   -b without branch sampling  exit 2, says why (where there is none)
#   a command that is not found exit 127; one that cannot run 126
#   the command's own status    passed on (3)
#   -p of no process            exit 2
#   an output directory missing exit 2, the command never runs
#   usage errors                exit 1 (no target, -c with -F, bad -m),
#                               each saying what was wrong: -o "", -o a
#                               directory, -o the program to run (left
#                               intact), an option given twice with
#                               different values, -e "" and -e a,,b,
#                               -F 1e8 and -F over the kernel's limit,
#                               -p 1,abc (naming abc), -p 1, (an empty
#                               id), --no-jitter with -F, --call-graph
#                               of an unknown mode or a size not a
#                               multiple of 8 up to 65528, with -g
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
expect 127 "/nonexistent/cmd: cannot run.*not found" "$R" -q -o out.data -- /nonexistent/cmd
printf 'not a program\n' >notexec
expect 126 "notexec: cannot run: Permission denied" "$R" -q -o out.data -- ./notexec
expect 3 "" "$R" -q -o out.data -- sh -c 'exit 3'
expect 2 "no such process" "$R" -q -o out.data -p 999999999
expect 2 "/nonexistent/dir/out.data" "$R" -q -o /nonexistent/dir/out.data -- touch ran
[[ ! -e ran ]] || fail "the command ran though the output could not be created"
expect 1 "nothing to record" "$R" -o out.data
expect 1 "exclude" "$R" -o out.data -c 1000 -F 100 -- true
expect 1 "power of two" "$R" -o out.data -m 3 -- true
expect 1 "-o needs a file name" "$R" -o "" -- true
mkdir outdir
expect 1 "-o outdir is a directory" "$R" -o outdir -- true
cp "$(type -P true)" ./prog
cp prog prog.orig
expect 1 "-o prog is the program to run" "$R" -o prog -- ./prog
cmp -s prog prog.orig || fail "-o prog -- ./prog changed the program"
expect 1 "-o given twice \('out.data', then 'x.data'\)" "$R" -o out.data -o x.data -- true
expect 1 "-e needs event names" "$R" -o out.data -e "" -- true
expect 1 "-e needs event names.*'cpu-clock,,task-clock'" "$R" -o out.data -e cpu-clock,,task-clock -- true
expect 1 "-F takes a whole number.*'1e8'" "$R" -o out.data -F 1e8 -- true
if [[ -r /proc/sys/kernel/perf_event_max_sample_rate ]]; then
    max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
    expect 1 "-F $((max + 1)) is above this machine's limit of $max" \
        "$R" -o out.data -F $((max + 1)) -- true
fi
expect 1 "-p: 'abc' is not a process id \(in '1,abc'\)" "$R" -o out.data -p 1,abc
expect 1 "-p: an empty process id in '1,'" "$R" -o out.data -p 1,
expect 1 "--no-jitter is for a fixed period" "$R" -o out.data -F 100 --no-jitter -- true
expect 1 "--call-graph takes fp, dwarf\[,SIZE\] or none, not 'lbr'" "$R" -o out.data --call-graph lbr -- true
for size in 0 12 65536 1k; do
    expect 1 "SIZE is the bytes of stack per sample, a multiple of 8 up to 65528, not '$size'" \
        "$R" -o out.data --call-graph "dwarf,$size" -- true
done
expect 1 "--call-graph \(or -g\) given twice \('none', then 'fp'\)" "$R" -o out.data --call-graph none -g -- true
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
