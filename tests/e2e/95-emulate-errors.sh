#!/usr/bin/env bash
# 95-emulate-errors.sh - sfdo-record --emulate refuses what it cannot do,
# saying why, and fails cleanly.
#
#   (a) usage errors (exit 1, a message naming the option): -p, -a, -g, --call-graph dwarf,
#       -F, --duration, an event other than instructions, no command,
#       --stat with -b, --stat without --emulate, --regs with a period
#       shorter than the emulator's straight runs;
#   (b) exit 2 and no file: the tool missing, or built for another
#       Valgrind version; an output directory that cannot be written;
#   (c) exit 127: a command that does not exist;
#   (d) no file and no leftover directory after any of these.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_emulator
tmpdir
T=$TEST_TMP
R=$SFDO_BUILD/sfdo-record
cd "$T"

# expect STATUS PATTERN ARG...: sfdo-record ARG... exits STATUS with
# PATTERN (grep -E) on stderr, and writes no perf.data.
expect() {
    local want=$1 pattern=$2 status=0
    shift 2
    "$R" "$@" >"$T/out" 2>"$T/err" || status=$?
    ((status == want)) || fail "sfdo-record $* exited $status, not $want: $(cat "$T/err")"
    grep -qE -e "$pattern" "$T/err" || fail "sfdo-record $*: no '$pattern' in: $(cat "$T/err")"
    [[ ! -e $T/perf.data ]] || fail "sfdo-record $* left a perf.data"
}

# (a)
expect 1 '-p does not apply to --emulate' --emulate -p 1
expect 1 '-a does not apply to --emulate' --emulate -a -- true
expect 1 '-g is not emulated' --emulate -g -- true
expect 1 '--call-graph dwarf is not emulated' --emulate --call-graph dwarf -- true
expect 1 '-F does not apply to --emulate' --emulate -F 1000 -- true
expect 1 '--duration does not apply' --emulate --duration 1 -- true
expect 1 'emulates retired instructions .* and taken branches' --emulate -e cycles -- true
expect 1 '--emulate needs a command' --emulate
expect 1 '--stat counts .* -e, -c, -b and --regs do not apply' --emulate --stat -b -- true
expect 1 '--stat needs --emulate' --stat -- true
expect 1 '--regs needs -c 64 or more' --emulate --regs -c 63 -- true
"$R" -q --emulate -e instructions:u,BR_INST_RETIRED:NEAR_TAKEN -c 100003 -- true ||
    fail "-e instructions:u,BR_INST_RETIRED:NEAR_TAKEN was refused"
rm -f "$T/perf.data"

# (b)
SFDO_EMU_TOOL=$T/nothing expect 2 'SFDO_EMU_TOOL=.*nothing' --emulate -- true
printf 'sfdoemu-valgrind-version=1.2.3\0' >"$T/old-tool"
SFDO_EMU_TOOL=$T/old-tool expect 2 'built for Valgrind 1\.2\.3, but .* is Valgrind [0-9.]+: rebuild' \
    --emulate -- true
mkdir "$T/ro"
chmod 555 "$T/ro"
if [[ ! -w $T/ro ]]; then   # root writes anyway
    expect 2 'cannot make a directory .*ro' --emulate -o "$T/ro/perf.data" -- true
fi

# (c)
expect 127 'cannot run no-such-command' --emulate -- no-such-command
expect 127 'cannot run ./missing' --emulate -- ./missing

# (d)
leftover=$(find "$T" /tmp -maxdepth 1 -name '.sfdo-emulate.*' -newer "$T/old-tool" 2>/dev/null | head -n 1)
[[ -z $leftover ]] || fail "a working directory was left behind: $leftover"
echo "$TEST_NAME: refusals and failures say why, exit 1, 2 or 127, and leave nothing"
