#!/usr/bin/env bash
# 73-record-pid-and-all.sh - sfdo-record -p on a running process and -a
# for a fixed duration.
#
# A program spins in spin() for a few seconds. While it runs:
#   -p PID --duration 1  samples it, in spin (so the mappings synthesized
#                        from /proc let perf place the samples), quietly
#                        for perf script, and stops after about a second;
#   -a --duration 1      samples it too, among every other process;
#   -p PID               with no duration stops when the process exits.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf_command
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record

cat >"$T/spin.c" <<'SRC'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__ ((noinline)) static void spin (double seconds)
{
  struct timespec a, b;
  clock_gettime (CLOCK_MONOTONIC, &a);
  do
    {
      for (int i = 0; i < 100000; i++)
        sink += (unsigned long) i * i;
      clock_gettime (CLOCK_MONOTONIC, &b);
    }
  while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}
int main (int argc, char **argv) { spin (argc > 1 ? atof (argv[1]) : 1); return 0; }
SRC
compile "$T/spin" "$T/spin.c" -O1 -g -D_GNU_SOURCE

# in_spin FILE PID: how many samples of PID perf script places in spin.
in_spin() {
    perf script -F pid,ip,sym -i "$1" >"$1.samples" 2>"$1.err" ||
        fail "perf script -i $1 failed: $(head -n 3 "$1.err")"
    [[ ! -s $1.err ]] || fail "perf script warned on $1: $(head -n 3 "$1.err")"
    awk -v p="$2" '$1 == p && $3 == "spin"' "$1.samples" | wc -l
}

"$T/spin" 6 &
pid=$!
sleep 0.3
start=$(date +%s.%N)
"$R" -q -p "$pid" --duration 1 -o "$T/p.data" 2>"$T/p.err" ||
    fail "sfdo-record -p $pid failed: $(cat "$T/p.err")"
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
n_p=$(in_spin "$T/p.data" "$pid")
((n_p > 100)) || fail "-p $pid: only $n_p samples in spin"
awk -v t="$took" 'BEGIN { exit !(t >= 0.9 && t < 3) }' ||
    fail "-p --duration 1 took $took s"

"$R" -q -a --duration 1 -o "$T/a.data" 2>"$T/a.err" ||
    fail "sfdo-record -a failed: $(cat "$T/a.err")"
n_a=$(in_spin "$T/a.data" "$pid")
((n_a > 100)) || fail "-a: only $n_a samples of $pid in spin"
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true

# Without --duration, -p ends with the process.
"$T/spin" 1 &
pid=$!
sleep 0.2
timeout 10 "$R" -q -p "$pid" -o "$T/end.data" 2>"$T/end.err" ||
    fail "sfdo-record -p $pid did not end with the process: $(cat "$T/end.err")"
wait "$pid" || true
n_e=$(in_spin "$T/end.data" "$pid")
((n_e > 50)) || fail "-p until exit: only $n_e samples in spin"
echo "$TEST_NAME: -p $n_p, -a $n_a, -p until exit $n_e samples in spin"
