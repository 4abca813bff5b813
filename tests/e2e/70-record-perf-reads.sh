#!/usr/bin/env bash
# 70-record-perf-reads.sh - Debian's perf reads what sfdo-record writes,
# without a warning.
#
# Records examples/demo.c with sfdo-record's default events (the timer
# here, with stack copies), then with -g and --regs, and checks that:
#   (a) perf script and perf report --stdio read each file with an empty
#       stderr, and perf script places samples in demo's hot functions;
#   (b) perf report --header-only shows the header features (hostname, os
#       release, cpu description, cmdline, the event by name);
#   (c) perf buildid-list gives demo's build-id as its ELF note says, and
#       libc's (stack copies: every mapped file's, for the unwinder);
#   (d) -g samples have callchains, --regs samples have user registers;
#   (e) sfdo-record said on stderr what it chose, and the file's record
#       count matches its summary;
#   (f) with a one-page ring buffer and a short period, the samples it
#       reports lost are those perf finds in the file's LOST records.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-record
need_perf >/dev/null   # its note line: this test prints one line
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record

compile "$T/demo" "$SFDO_ROOT/examples/demo.c" -O2 -g -fno-omit-frame-pointer

# quiet_read FILE: perf script and perf report read FILE with empty stderr.
quiet_read() {
    local f=$1
    perf script -i "$f" >"$f.script" 2>"$f.script.err" ||
        fail "perf script -i $f failed: $(head -n 3 "$f.script.err")"
    [[ ! -s $f.script.err ]] ||
        fail "perf script warned on $f: $(head -n 3 "$f.script.err")"
    perf report --stdio -i "$f" >"$f.report" 2>"$f.report.err" ||
        fail "perf report -i $f failed: $(head -n 3 "$f.report.err")"
    [[ ! -s $f.report.err ]] ||
        fail "perf report warned on $f: $(head -n 3 "$f.report.err")"
    grep -q 'crc32_update' "$f.script" ||
        fail "$f: perf script places no sample in crc32_update"
}

"$R" -o "$T/plain.data" -- "$T/demo" 30 >/dev/null 2>"$T/plain.err" ||
    fail "sfdo-record failed: $(cat "$T/plain.err")"
"$R" -g --regs -o "$T/g.data" -- "$T/demo" 30 >/dev/null 2>"$T/g.err" ||
    fail "sfdo-record -g --regs failed: $(cat "$T/g.err")"
quiet_read "$T/plain.data"
quiet_read "$T/g.data"

# (b) header features.
perf report --header-only -i "$T/plain.data" >"$T/header" 2>"$T/header.err"
[[ ! -s $T/header.err ]] || fail "perf report --header-only warned: $(head -n 3 "$T/header.err")"
for what in "hostname : $(uname -n)" "os release : $(uname -r)" "arch : $(uname -m)" \
            "nrcpus online" "cpudesc" "total memory" "cmdline : .*sfdo-record" \
            "event : name = "; do
    grep -q "^# $what" "$T/header" || fail "perf report --header-only lacks '# $what'"
done

# (c) build-ids, as the ELF note says.
want=$(readelf -n "$T/demo" | sed -n 's/.*Build ID: //p')
[[ -n $want ]] || fail "demo has no build-id note"
perf buildid-list -i "$T/plain.data" >"$T/bids" 2>/dev/null
grep -q "^$want .*/demo\$" "$T/bids" ||
    fail "perf buildid-list lacks demo's build-id $want: $(tr '\n' ' ' <"$T/bids")"
grep -q 'libc.so' "$T/bids" || fail "perf buildid-list lacks libc: $(tr '\n' ' ' <"$T/bids")"

# (d) callchains and registers.
# (Into files first: grep -q would stop perf script with SIGPIPE.)
perf script -F ip,sym -i "$T/g.data" >"$T/g.chains" 2>/dev/null
grep -qE '[[:space:]](main|__libc_start_call_main)[[:space:]]*$' "$T/g.chains" ||
    fail "-g: no callchain reaches main"
perf script -F ip,uregs -i "$T/g.data" >"$T/g.regs" 2>/dev/null
grep -q 'AX:0x' "$T/g.regs" || fail "--regs: perf script shows no user registers"

# (e) what it chose, and its summary.
grep -qE 'sampling|instructions' "$T/plain.err" ||
    fail "sfdo-record did not say what it chose: $(cat "$T/plain.err")"
said=$(sed -nE 's/.*: ([0-9]+) samples, ([0-9]+) lost.*/\1/p' "$T/plain.err")
got=$(wc -l <"$T/plain.data.script")
[[ $said == "$got" ]] || fail "sfdo-record said $said samples, perf script read $got"
# (f) lost samples, counted as perf counts them.
"$R" -m 1 -c 20000 -o "$T/lost.data" -- "$T/demo" 30 >/dev/null 2>"$T/lost.err" ||
    fail "sfdo-record -m 1 failed: $(cat "$T/lost.err")"
said=$(sed -nE 's/.*: ([0-9]+) samples, ([0-9]+) lost.*/\2/p' "$T/lost.err")
perf script --show-lost-events -F tid -i "$T/lost.data" >"$T/lost.script" 2>/dev/null
lost=$(awk '$2 == "PERF_RECORD_LOST" { n += $4 } END { print n + 0 }' "$T/lost.script")
[[ -n $said && $said == "$lost" ]] ||
    fail "sfdo-record reported ${said:-no count of} lost samples, perf finds $lost"
if ((lost > 0)); then
    grep -q 'samples were lost' "$T/lost.err" || fail "no advice about lost samples"
fi
echo "$TEST_NAME: perf script, report and buildid-list read $got samples quietly" \
     "($lost lost with -m 1, as reported)"
