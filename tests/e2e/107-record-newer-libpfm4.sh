#!/usr/bin/env bash
# 107-record-newer-libpfm4.sh - sfdo-record built against Debian sid's
# libpfm4 (4.13.0+git106 when written, newer than the host's 4.13.0)
# samples perf's software events whatever that libpfm4 can encode (issue
# 35).  Since 4.13.0, libpfm4 encodes nothing for perf_event unless it
# finds a PMU under /sys/bus/event_source/devices (chroots and containers
# without sysfs), and cpu-clock, the fallback where there is no hardware
# PMU, then failed as "unknown event (libpfm4: not supported)".
#
# In the sid chroot of scripts/gcc-chroot.sh (root only: skipped where it
# cannot be made or entered), builds sfdo-record and sfdo-convert into
# build/sid and a small program, then, with sysfs as it is and with its
# PMU directory hidden under an empty tmpfs (in the chroot's own mount
# namespace):
#   (a) -e cpu-clock, -e task-clock:u and the default events record,
#       exit 0, and their files have samples in the program (sfdo-convert
#       --stats) under the event's name (perf evlist, in the chroot);
#   (b) with the PMU directory hidden, libpfm4 indeed cannot encode
#       (--list-events says why, still listing the software events), and
#       a hardware name fails with exit 2, saying why and leaving no file.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

[[ ! -e /.sfdo-packages ]] || skip "already inside the sid chroot"
((EUID == 0)) ||
    skip "the Debian sid chroot needs root (chroot, mount); this is uid $EUID"
CHROOT_SH=$SFDO_ROOT/scripts/gcc-chroot.sh
SID=$SFDO_ROOT/build/sid
# The chroot sees this repository at the same path, but not the host's /tmp.
mkdir -p "$SID"
TMPDIR=$SID tmpdir
T=$TEST_TMP
"$CHROOT_SH" make >"$T/chroot.log" 2>&1 ||
    skip "the sid chroot cannot be made here: $(grep -m 1 'error:' "$T/chroot.log" ||
                                                tail -n 1 "$T/chroot.log")"

# in_chroot [show|hide] CMD...: CMD in the chroot, from the repository;
# with "hide", /sys/bus/event_source/devices is an empty tmpfs for it.
in_chroot() {
    local hide=no
    case $1 in
        hide) hide=yes; shift ;;
        show) shift ;;
    esac
    # shellcheck disable=SC2016  # the chroot's bash expands them
    (cd "$SFDO_ROOT" && "$CHROOT_SH" run bash -c '
        if [ "$1" = yes ]; then
            mount -t tmpfs sfdo-e2e /sys/bus/event_source/devices ||
                { echo "cannot hide the sysfs PMUs" >&2; exit 99; }
        fi
        shift
        exec "$@"' _ "$hide" "$@")
}

in_chroot make -s B=build/sid CC=gcc-16 GCC=gcc-16 \
    build/sid/sfdo-record build/sid/sfdo-convert >"$T/build.log" 2>&1 ||
    fail "building sfdo-record in the sid chroot failed: $(tail -n 5 "$T/build.log")"
# shellcheck disable=SC2016  # dpkg-query's field, not the shell's
version=$(in_chroot dpkg-query -W -f '${Version}' libpfm4)
in_chroot gcc-16 -std=c11 -O2 -g "$SFDO_ROOT/examples/demo.c" -o "$T/demo" \
    >"$T/cc.log" 2>&1 || fail "gcc-16 in the chroot failed: $(head -n 5 "$T/cc.log")"
R=$SID/sfdo-record

# recorded NAME EVENT: NAME.data has samples in demo, of EVENT (perf's
# name for it, as the file says).
recorded() {
    local data=$T/$1.data event=$2 stats used
    in_chroot "$SID/sfdo-convert" --stats -o "$T/$1.prof" "$data" "$T/demo" \
        2>"$T/$1.stats" >/dev/null ||
        fail "sfdo-convert cannot read $1.data: $(head -n 3 "$T/$1.stats")"
    stats=$(head -n 1 "$T/$1.stats")
    used=$(sed -n 's/^sfdo-convert: [0-9]* samples: \([0-9]*\) used.*/\1/p' <<<"$stats")
    if [[ -z $used ]] || ((used == 0)); then
        fail "$1.data has no sample in demo: $stats"
    fi
    in_chroot perf evlist -i "$data" >"$T/$1.evlist" 2>&1 ||
        fail "perf evlist cannot read $1.data: $(head -n 3 "$T/$1.evlist")"
    grep -qx "$event" "$T/$1.evlist" ||
        fail "$1.data's event is not $event: $(head -n 3 "$T/$1.evlist")"
    samples+=" $used"
}

# record HIDE NAME EVENT [OPTION...]: sfdo-record OPTIONS -- demo works.
record() {
    local hide=$1 name=$2 event=$3 status=0
    shift 3
    in_chroot "$hide" "$R" -o "$T/$name.data" "$@" -- "$T/demo" 30 \
        >/dev/null 2>"$T/$name.err" || status=$?
    ((status == 0)) ||
        fail "sid-built sfdo-record $* (sysfs PMUs $hide) exited $status: $(head -n 3 "$T/$name.err")"
    recorded "$name" "$event"
}

samples=
for hide in show hide; do
    record "$hide" "cpu-clock-$hide" cpu-clock:u -e cpu-clock
    record "$hide" "task-clock-$hide" task-clock:u -e task-clock:u
done
# Without -e: cpu-clock where no hardware counter opens (this VM), and
# where libpfm4 cannot encode the hardware events the PMU would get.
record hide default-hide cpu-clock:u
if [[ ! -e /sys/bus/event_source/devices/cpu && ! -e /sys/bus/event_source/devices/cpu_core ]]; then
    record show default-show cpu-clock:u
fi

# (b) libpfm4 really could not encode with the PMU directory hidden.
in_chroot hide "$R" --list-events >"$T/list" 2>&1 || fail "--list-events failed: $(head -n 3 "$T/list")"
grep -q 'libpfm4 cannot look up event names here: no PMU under /sys/bus/event_source/devices' "$T/list" ||
    fail "with no PMU under sysfs, sid's libpfm4 $version still encodes events, so this test no longer" \
         "shows issue 35's case: --list-events says: $(tail -n 1 "$T/list")"
grep -q 'cpu-clock .*PERF_COUNT_SW_CPU_CLOCK' "$T/list" ||
    fail "--list-events does not list cpu-clock without libpfm4: $(head -n 3 "$T/list")"
status=0
in_chroot hide "$R" -q -o "$T/cycles.data" -e cycles -- true 2>"$T/cycles.err" || status=$?
((status == 2)) || fail "-e cycles with no sysfs PMUs exited $status, not 2: $(head -n 3 "$T/cycles.err")"
grep -q '^sfdo-record: cycles: libpfm4 cannot look up event names here: no PMU under /sys/bus/event_source/devices (is /sys mounted?)' "$T/cycles.err" ||
    fail "-e cycles with no sysfs PMUs does not say why: $(head -n 3 "$T/cycles.err")"
! ls "$T"/cycles.data* >/dev/null 2>&1 || fail "-e cycles with no sysfs PMUs left a file"

echo "$TEST_NAME: sid's libpfm4 $version: cpu-clock, task-clock:u and the default events sampled demo, with and without sysfs PMUs (samples:$samples)"
