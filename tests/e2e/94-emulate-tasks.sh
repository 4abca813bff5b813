#!/usr/bin/env bash
# 94-emulate-tasks.sh - the emulated PMU follows threads, forks and execs
# as a per-task hardware counter with inherit does, and ends cleanly.
#
# tests/e2e/data/emu_tasks.c runs a second thread, forks a child, which
# execs the program again under another name:
#   (a) sfdo-record exits with the command's status (5) and counts 2
#       processes and 3 threads;
#   (b) each function's samples are in its own task: thread_work in the
#       second thread, parent_work in the main one, child_work in the
#       child before its exec, exec_work after it under the new name;
#       perf script shows the FORK and exec COMM records; sfdo-convert
#       reads it;
#   (c) SIGINT to sfdo-record stops the command and still writes a
#       complete file; SIGKILL of the emulated process leaves what it had
#       written, used with a warning;
#   (d) a child the command leaves running when it exits is waited for:
#       its stream is complete and its samples are in the file.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
need_perf_command
need_built sfdo-convert
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
compile "$T/tasks" "$SFDO_ROOT/tests/e2e/data/emu_tasks.c" -O2 -g -pthread
ln -s tasks "$T/renamed"

# (a)
status=0
"$R" --emulate -c 10007 -o "$T/t.data" -- "$T/tasks" 1000000 "$T/renamed" >"$T/t.out" 2>"$T/t.err" ||
    status=$?
((status == 5)) || fail "sfdo-record exited $status, not the command's 5: $(cat "$T/t.err")"
grep -q 'in 2 processes (3 threads)' "$T/t.err" || fail "not 2 processes and 3 threads: $(tail -n 1 "$T/t.err")"
grep -q 'child status 3' "$T/t.out" || fail "the child's exec did not run: $(cat "$T/t.out")"

# (b)
perf script -i "$T/t.data" -F comm,pid,tid,ip,sym >"$T/t.script" 2>"$T/t.script.err" ||
    fail "perf script failed: $(head -n 3 "$T/t.script.err")"
[[ ! -s $T/t.script.err ]] || fail "perf script warned: $(head -n 3 "$T/t.script.err")"
# where FUNCTION: "COMM MAIN|THREAD" of its samples, one line per kind.
where() {
    awk -v f="$1" '$4 == f { split($2, p, "/"); print $1, (p[1] == p[2] ? "main" : "thread") }' \
        "$T/t.script" | sort -u | paste -sd' '
}
child_pid=$(awk '$4 == "child_work" { split($2, p, "/"); print p[1]; exit }' "$T/t.script")
parent_pid=$(awk '$4 == "parent_work" { split($2, p, "/"); print p[1]; exit }' "$T/t.script")
[[ -n $child_pid && -n $parent_pid && $child_pid != "$parent_pid" ]] ||
    fail "no samples of child_work in a process of its own"
[[ $(where thread_work) == "tasks thread" ]] || fail "thread_work's samples are in: $(where thread_work)"
[[ $(where parent_work) == "tasks main" ]] || fail "parent_work's samples are in: $(where parent_work)"
[[ $(where child_work) == "tasks main" ]] || fail "child_work's samples are in: $(where child_work)"
[[ $(where exec_work) == "renamed main" ]] || fail "exec_work's samples are in: $(where exec_work)"
awk -v c="$child_pid" '$4 == "exec_work" { split($2, p, "/"); if (p[1] != c) bad++ } END { exit bad > 0 }' \
    "$T/t.script" || fail "exec_work ran in another process than child_work"
perf script -i "$T/t.data" --show-task-events -F comm,pid,tid >"$T/t.tasks" 2>/dev/null
grep -q "PERF_RECORD_FORK($parent_pid:" "$T/t.tasks" || fail "no FORK record of the thread"
grep -q "PERF_RECORD_FORK($child_pid:$child_pid):($parent_pid:$parent_pid)" "$T/t.tasks" ||
    fail "no FORK record of the child"
grep -q "PERF_RECORD_COMM exec: renamed:$child_pid/$child_pid" "$T/t.tasks" || fail "no COMM record of the exec"
"$SFDO_BUILD/sfdo-convert" -q "$T/t.data" "$T/tasks" -o "$T/t.prof" 2>"$T/t.conv" ||
    fail "sfdo-convert failed: $(cat "$T/t.conv")"
for f in thread_work parent_work child_work exec_work; do
    grep -q "^$f:[1-9]" "$T/t.prof" || fail "the profile has no count for $f"
done

# (c) SIGINT, then SIGKILL of the emulated process.
# finish PID: wait at most 60 s for PID; its exit status into $status.
finish() {
    for _ in $(seq 600); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2>/dev/null; then
        pkill -KILL -P "$1" || true
        kill -KILL "$1" || true
        fail "sfdo-record did not end within 60 s of the signal"
    fi
    status=0
    wait "$1" || status=$?
}
"$R" --emulate -c 10007 -o "$T/int.data" -- "$T/tasks" spin 2>"$T/int.err" &
rec=$!
sleep 2
kill -INT "$rec"
finish "$rec"
((status == 130)) || fail "after SIGINT sfdo-record exited $status, not 130: $(cat "$T/int.err")"
grep -q 'stopped by a signal' "$T/int.err" || fail "no summary after SIGINT: $(cat "$T/int.err")"
n=$(perf script -i "$T/int.data" -F ip,sym 2>/dev/null | grep -c main || true)
((n > 0)) || fail "the file written after SIGINT has no samples in main"

"$R" --emulate -c 1009 -o "$T/kill.data" -- "$T/tasks" spin 2>"$T/kill.err" &
rec=$!
sleep 2
pkill -KILL -P "$rec" || fail "no process to kill under sfdo-record"
finish "$rec"
((status == 137)) || fail "after SIGKILL of its command sfdo-record exited $status, not 137: $(cat "$T/kill.err")"
grep -q 'counts incomplete' "$T/kill.err" || fail "no word of incomplete counts: $(cat "$T/kill.err")"
n=$(perf script -i "$T/kill.data" -F ip,sym 2>/dev/null | grep -c main || true)
((n > 0)) || fail "the file written after SIGKILL has no samples in main"

# (d)
cat > "$T/orphan.c" <<'EOC'
#include <unistd.h>
__attribute__ ((noinline)) unsigned orphan_work (unsigned n)
{ unsigned s = 0; for (unsigned i = 0; i < n; i++) s = s * 31 + i; return s; }
int main (void)
{
  if (fork () == 0)
    { usleep (300000); return (int) (orphan_work (20000000) & 1); }
  return 0;
}
EOC
compile "$T/orphan" "$T/orphan.c" -O2 -g
"$R" -q --emulate -c 10007 -o "$T/orphan.data" -- "$T/orphan" 2>"$T/orphan.err" ||
    fail "a child outliving its parent failed the recording: $(cat "$T/orphan.err")"
n=$(perf script -i "$T/orphan.data" -F ip,sym 2>/dev/null | grep -c orphan_work || true)
((n > 1000)) || fail "the child left running has $n samples in orphan_work, not about 2000"
echo "$TEST_NAME: threads, fork and exec each in their own task; SIGINT and SIGKILL leave a file; a child left running is waited for ($n samples)"
