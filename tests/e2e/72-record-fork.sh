#!/usr/bin/env bash
# 72-record-fork.sh - sfdo-record -- CMD follows CMD's children and
# returns CMD's exit status.
#
# A program forks; the child spins in child_work, the parent in
# parent_work, and the parent exits with status 5. Both processes must
# have samples in their own function, perf must see the FORK, and
# sfdo-record must exit with 5.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP

cat >"$T/fork.c" <<'SRC'
#include <sys/wait.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__ ((noinline)) static void child_work (void)
{ for (unsigned long i = 0; i < 150000000ul; i++) sink += i * i; }
__attribute__ ((noinline)) static void parent_work (void)
{ for (unsigned long i = 0; i < 100000000ul; i++) sink ^= i; }
int main (void)
{
  pid_t p = fork ();
  if (p == 0) { child_work (); _exit (0); }
  parent_work ();
  int st;
  waitpid (p, &st, 0);
  return 5;
}
SRC
compile "$T/fork" "$T/fork.c" -O1 -g

status=0
"$SFDO_BUILD/sfdo-record" -q -o "$T/fork.data" -- "$T/fork" 2>"$T/rec.err" || status=$?
((status == 5)) || fail "sfdo-record returned $status, the command 5: $(cat "$T/rec.err")"

perf script -F pid,ip,sym -i "$T/fork.data" >"$T/samples" 2>"$T/script.err"
[[ ! -s $T/script.err ]] || fail "perf script warned: $(head -n 3 "$T/script.err")"
parent=$(awk '$3 == "parent_work" { print $1; exit }' "$T/samples")
child=$(awk '$3 == "child_work" { print $1; exit }' "$T/samples")
[[ -n $parent ]] || fail "no sample in the parent's parent_work"
[[ -n $child ]] || fail "no sample in the child's child_work (children are not followed)"
[[ $parent != "$child" ]] || fail "parent_work and child_work sampled in one process $parent"
perf script --show-task-events -i "$T/fork.data" 2>/dev/null >"$T/tasks"
grep -q "PERF_RECORD_FORK($child:$child):($parent:$parent)" "$T/tasks" ||
    fail "no FORK record of $child from $parent"
n=$(awk -v c="$child" '$1 == c' "$T/samples" | wc -l)
echo "$TEST_NAME: parent $parent and child $child sampled ($n child samples), exit status 5"
