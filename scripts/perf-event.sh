#!/usr/bin/env bash
# perf-event.sh - find a perf event that really samples user-space code here.
#
# Usage: scripts/perf-event.sh [EVENT]
#
#   Prints "EVENT PERIOD" on stdout: the event to pass to `perf record -e`
#   and a fixed sampling period for `-c` (a fixed period, not -F: the kernel
#   lowers kernel.perf_event_max_sample_rate under load, which silently
#   changes what -F means).
#
#   Without EVENT it prefers cycles:u and falls back to cpu-clock:u (a
#   software timer; its period is in nanoseconds) when the machine has no
#   hardware PMU, as in a VM without a virtual PMU; it says so on stderr in
#   one line starting with "note:". With EVENT (or SFDO_PERF_EVENT set) it
#   accepts only that event.
#
#   It decides by recording a short busy loop, not by reading settings:
#   perf 6.1 quietly records cpu-clock when asked for cycles it cannot
#   count, so the only proof is the event name written in the perf.data.
#
# Exit status: 0 found; 1 no usable event, with the reason and the fix on
# stderr ("error: ..." then "hint: ..." lines); 2 usage.
#
# demo.sh and tests/e2e/lib.sh (need_perf) both use this, so the demo and
# the tests agree on what "perf works here" means.

set -euo pipefail

readonly HW_PERIOD=1000003   # cycles: ~3000 samples/s at 3 GHz
readonly SW_PERIOD=250007    # ns: ~4000 samples/s

usage() {
    printf 'usage: scripts/perf-event.sh [EVENT]\n' >&2
    exit 2
}

# error MSG [HINT...]: print the reason and what to change, then exit 1.
error() {
    printf 'error: %s\n' "$1" >&2
    shift
    local hint
    for hint in "$@"; do
        printf 'hint: %s\n' "$hint" >&2
    done
    exit 1
}

# A period that makes sense for EVENT: software clocks count nanoseconds.
period_for() {
    case "${1%%:*}" in
        cpu-clock | task-clock) echo "$SW_PERIOD" ;;
        *) echo "$HW_PERIOD" ;;
    esac
}

(($# <= 1)) || usage
[[ ${1:-} != -* ]] || usage
wanted=${1:-${SFDO_PERF_EVENT:-}}

command -v perf >/dev/null 2>&1 ||
    error "perf is not installed" \
          "it is Debian package linux-perf; 'make deps' installs it"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if ((EUID != 0 && paranoid > 2)); then
    error "kernel.perf_event_paranoid is $paranoid, which forbids perf to users other than root" \
          "sudo sysctl kernel.perf_event_paranoid=2   (2 is enough for :u events of your own processes)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sfdo-perf-event.XXXXXX")
trap 'rm -rf "$work"' EXIT

# probe EVENT: record ~30 ms of a busy loop; succeed if perf.data holds
# samples of EVENT itself. Sets probe_got to the event perf actually used.
probe_got=
probe() {
    local event=$1
    probe_got=
    # --no-bpf-event: perf 6.1 otherwise waits up to a second at exit for
    # a side-band thread that watches BPF programs, useless for :u events.
    if ! perf record -q --no-bpf-event -e "$event" \
            -c "$(period_for "$event")" -o "$work/probe.data" -- \
            "$BASH" -c 'for ((i = 0; i < 30000; i++)); do :; done' \
            >/dev/null 2>"$work/probe.err"; then
        return 1
    fi
    probe_got=$(perf evlist -i "$work/probe.data" 2>/dev/null | sed -n 1p)
    [[ ${probe_got%%:*} == "${event%%:*}" ]] || return 1
    [[ -n $(perf script -i "$work/probe.data" -F ip 2>/dev/null | head -n 1) ]]
}

# why EVENT: turn a failed probe into an error message with a fix.
why() {
    local event=$1 perf_error
    perf_error=$(grep -v '^[[:space:]]*$' "$work/probe.err" 2>/dev/null |
                 head -n 3 | tr '\n' ' ' || true)
    if [[ -n $probe_got && ${probe_got%%:*} != "${event%%:*}" ]]; then
        error "perf cannot count $event here: asked for it, it recorded $probe_got instead" \
              "$(pmu_hint)"
    elif grep -qiE 'permission|not permitted|access to performance' \
              "$work/probe.err" 2>/dev/null; then
        error "perf is not allowed to sample here: $perf_error" \
              "check kernel.perf_event_paranoid (now $paranoid; 2 is enough for :u events)" \
              "in a container, perf_event_open needs CAP_PERFMON or a seccomp profile that allows it"
    elif grep -qi 'not supported' "$work/probe.err" 2>/dev/null; then
        error "perf cannot count $event here: $perf_error" "$(pmu_hint)"
    else
        error "perf record -e $event failed: ${perf_error:-it recorded no samples}"
    fi
}

pmu_hint() {
    if [[ ! -e /sys/bus/event_source/devices/cpu &&
          ! -e /sys/bus/event_source/devices/cpu_core ]]; then
        echo "the kernel has no hardware PMU (no cpu in /sys/bus/event_source/devices): a VM without a virtual PMU? use cpu-clock:u, or enable the vPMU"
    else
        echo "'perf list' shows the events this machine has"
    fi
}

if [[ -n $wanted ]]; then
    probe "$wanted" || why "$wanted"
    echo "$wanted $(period_for "$wanted")"
    exit 0
fi

if probe cycles:u; then
    echo "cycles:u $HW_PERIOD"
    exit 0
fi
hw_got=$probe_got
if probe cpu-clock:u; then
    printf 'note: no hardware cycles counter here (perf recorded %s for cycles:u); sampling cpu-clock:u, a timer, instead\n' \
           "${hw_got:-nothing}" >&2
    echo "cpu-clock:u $SW_PERIOD"
    exit 0
fi
why cpu-clock:u
