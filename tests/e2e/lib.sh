# shellcheck shell=bash
# lib.sh - helpers for the end-to-end tests, tests/e2e/<NN>-<behaviour>.sh.
#
# Each test checks one behaviour and starts with:
#
#     #!/usr/bin/env bash
#     set -euo pipefail
#     # shellcheck source=tests/e2e/lib.sh
#     . "$(dirname "$0")/lib.sh"
#
# Exit status, as tests/run.sh counts it: 0 pass, 77 skip (`skip`), anything
# else fail (`fail`, or any command that fails under set -e; lib.sh reports
# which line). A passing test prints at most one line; skip and fail print
# "SKIP: ..." or "FAIL: ..." on stderr.
#
# Set when sourced:
#   SFDO_ROOT        repository root, absolute
#   SFDO_BUILD       where make put the tools and plugin ($SFDO_ROOT/build
#                    unless already set)
#   TEST_NAME        this test's file name, for messages
# Set by helpers:
#   TEST_TMP         tmpdir: a fresh directory, removed at exit
#   SHARED_FIXTURES  need_shared: ../shared/fixtures, absolute
#   PERF_EVENT, PERF_PERIOD   need_perf: what to pass to perf record -e, -c
#
# Environment:
#   SFDO_KEEP_TMP=1  keep TEST_TMP of a failed test and print where it is
#   SFDO_PERF_EVENT  the only perf event need_perf accepts (default: cycles:u,
#                    or cpu-clock:u where there is no hardware PMU)
#   SFDO_GCC         the GCC the tests compile with, and whose plugin build
#                    they load (default gcc); SFDO_GXX its C++ driver
#                    (default: SFDO_GCC with gcc replaced by g++)

set -euo pipefail
set -E   # so the ERR trap below also fires inside functions

SFDO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SFDO_BUILD=${SFDO_BUILD:-$SFDO_ROOT/build}
TEST_NAME=$(basename "$0")
SFDO_GCC=${SFDO_GCC:-gcc}
SFDO_GXX=${SFDO_GXX:-${SFDO_GCC//gcc/g++}}
export SFDO_GCC SFDO_GXX
TEST_TMP=
_sfdo_failed=0

# skip MSG: this test cannot run here; exit 77 so the runner counts a skip.
skip() {
    printf 'SKIP: %s: %s\n' "$TEST_NAME" "$*" >&2
    exit 77
}

# fail MSG: the behaviour under test is broken; exit 1.
fail() {
    _sfdo_failed=1
    printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2
    exit 1
}

# A command that fails under set -e would exit with its own status, which
# might be 77 and read as a skip. Report it as a failure with its line.
_sfdo_on_err() {
    local status=$1 line=$2 command=$3
    _sfdo_failed=1
    printf 'FAIL: %s:%s: exit %s from: %s\n' \
           "$TEST_NAME" "$line" "$status" "$command" >&2
    exit 1
}
trap '_sfdo_on_err "$?" "$LINENO" "$BASH_COMMAND"' ERR

_sfdo_on_exit() {
    local status=$?
    if [[ -n $TEST_TMP && -d $TEST_TMP ]]; then
        if [[ ${SFDO_KEEP_TMP:-0} == 1 ]] &&
           ((_sfdo_failed || (status != 0 && status != 77))); then
            printf '%s: kept %s\n' "$TEST_NAME" "$TEST_TMP" >&2
        else
            rm -rf "$TEST_TMP"
        fi
    fi
}
trap _sfdo_on_exit EXIT

# tmpdir: make TEST_TMP, a fresh directory removed when the test exits.
# Call it directly, not as $(tmpdir): a subshell would remove it at once.
tmpdir() {
    if ((BASH_SUBSHELL > 0)); then
        fail "tmpdir called in a subshell; call it directly and use \$TEST_TMP"
    fi
    if [[ -z $TEST_TMP ]]; then
        TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sfdo-e2e.${TEST_NAME%.sh}.XXXXXX")
    fi
}

# need_shared: skip unless ../shared/fixtures (next to the repository) is
# here; sets SHARED_FIXTURES. Those inputs are never copied into the repo.
need_shared() {
    local dir=$SFDO_ROOT/../shared/fixtures
    [[ -d $dir ]] || skip "needs $dir (the shared test inputs); it is absent"
    # shellcheck disable=SC2034  # for the test that sourced this file
    SHARED_FIXTURES=$(cd "$dir" && pwd)
}

# need_perf_command: skip unless the perf tool is installed (tests that
# read sfdo-record's files with it, whatever events this machine has).
need_perf_command() {
    command -v perf >/dev/null 2>&1 || skip "perf is not installed (Debian package linux-perf)"
}

# need_built PATH...: skip unless make has built these (relative to
# SFDO_BUILD), for tests of stages that may not exist yet.
need_built() {
    local f
    for f in "$@"; do
        [[ -e $SFDO_BUILD/$f ]] || skip "$SFDO_BUILD/$f is not built"
    done
}

# need_plugin: skip unless make has built the plugin for $SFDO_GCC: the
# loader samplefdo.so and the build samplefdo-gccN.so for its major.  The
# tests that call it (or source decide.sh) are the plugin's tests, which
# tests/run.sh --plugin-only runs again for each other GCC.
need_plugin() {
    local major
    major=$("$SFDO_GCC" -dumpversion 2>/dev/null) ||
        skip "$SFDO_GCC is not installed"
    major=${major%%.*}
    need_built samplefdo.so
    [[ -e $SFDO_BUILD/samplefdo-gcc$major.so ]] ||
        skip "the plugin is not built for $SFDO_GCC (GCC $major): make plugin GCC=$SFDO_GCC"
}

# need_emulator: skip unless sfdo-record --emulate can run here: the
# Valgrind tool sfdoemu was built (make leaves it out, saying why, where
# Valgrind's tool headers and static libraries are missing) and Valgrind
# is installed.  Callgrind, its reference, comes with Valgrind.
need_emulator() {
    need_built sfdo-record
    if [[ ! -e $SFDO_BUILD/sfdoemu-amd64-linux ]]; then
        local why="make did not build it"
        [[ -s $SFDO_BUILD/sfdoemu.not-built ]] &&
            why=$(head -n 1 "$SFDO_BUILD/sfdoemu.not-built")
        skip "the emulated PMU ($SFDO_BUILD/sfdoemu-amd64-linux) is not built: $why"
    fi
    command -v valgrind >/dev/null 2>&1 ||
        skip "valgrind is not installed (Debian package valgrind)"
}

# need_perf [EVENT]: skip unless perf can sample user-space code here; sets
# PERF_EVENT and PERF_PERIOD (see scripts/perf-event.sh). Where there is no
# hardware PMU it settles for cpu-clock:u and prints one note line, unless
# EVENT or SFDO_PERF_EVENT demands a particular event.
need_perf() {
    tmpdir
    local found
    if ! found=$("$SFDO_ROOT/scripts/perf-event.sh" "$@" \
                     2>"$TEST_TMP/perf-event.err"); then
        local why
        why=$(sed -n 's/^error: //p' "$TEST_TMP/perf-event.err" | head -n 1)
        skip "${why:-scripts/perf-event.sh found no perf event that samples here}"
    fi
    read -r PERF_EVENT PERF_PERIOD <<<"$found"
    sed -n "s/^note: /$TEST_NAME: note: /p" "$TEST_TMP/perf-event.err"
}

# perf_record DATA [PERF_OPTION...] -- CMD [ARG...]: record CMD with
# PERF_EVENT at PERF_PERIOD (a fixed period, never -F) into DATA, with any
# extra perf record options (such as -g). CMD's stdout goes to DATA.out,
# perf's messages to DATA.err. --no-bpf-event: perf 6.1 otherwise waits up
# to a second at exit for a thread that watches BPF programs.
perf_record() {
    local data=$1
    shift
    local options=()
    while (($#)) && [[ $1 != -- ]]; do
        options+=("$1")
        shift
    done
    (($# >= 2)) || fail "usage: perf_record DATA [PERF_OPTION...] -- CMD [ARG...]"
    shift
    [[ -n ${PERF_EVENT:-} ]] || fail "perf_record before need_perf"
    local status=0
    perf record -q --no-bpf-event -e "$PERF_EVENT" -c "$PERF_PERIOD" \
        ${options[@]+"${options[@]}"} -o "$data" -- "$@" \
        >"$data.out" 2>"$data.err" || status=$?
    ((status == 0)) ||
        fail "perf record of $* failed (exit $status; perf passes on the" \
             "program's status): $(head -n 3 "$data.err")"
}

# perf_sample_counts DATA: print "COUNT DSO SYMBOL" for each function
# sampled in DATA, most samples first. DSO is the file's base name. Only the
# sampled instruction counts, not its callers. GCC's clone suffixes
# (.constprop.0, .isra.0, .part.0, .cold) are dropped so that a function
# keeps its name whatever the optimizer did to it.
perf_sample_counts() {
    perf script -i "$1" -F ip,sym,dso -G 2>"$1.script.err" |
        sed -E 's/^[[:space:]]*[0-9a-f]+ (.*) \(([^()]*\/)?([^()/]*)\)$/\3 \1/
                s/\.(constprop|isra|part|cold)(\.[0-9]+)?//g' |
        sort | uniq -c | sort -k1,1nr -k2
}

# compile OUT SRC... [FLAGS...]: build OUT with $SFDO_GCC -std=c11
# and FLAGS (default -O2 -g); fail showing the compiler's messages.
compile() {
    local out=$1
    shift
    local sources=() flags=()
    while (($#)) && [[ $1 != -* ]]; do
        sources+=("$1")
        shift
    done
    flags=("$@")
    ((${#flags[@]})) || flags=(-O2 -g)
    local log
    if ! log=$("$SFDO_GCC" -std=c11 "${flags[@]}" "${sources[@]}" \
                   -o "$out" 2>&1); then
        fail "compiling ${sources[*]} failed:
$log"
    fi
}
