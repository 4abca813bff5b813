#!/usr/bin/env bash
# install-deps.sh - install the Debian 12 packages sfdo needs to build and test.
#
# Usage: scripts/install-deps.sh [--dry-run] [PACKAGE...]
#
#   `make deps` (and so `make check` and `make demo`) runs this every time, so
#   when everything is installed it prints nothing and returns at once: one
#   dpkg-query call, no apt, no network.
#
#   Otherwise it names the missing packages, then runs `apt-get update` and
#   `apt-get install -y --no-install-recommends` for them: directly as root,
#   else through sudo. It never reads stdin, so it runs unattended in CI;
#   sudo may ask for a password only when there is a terminal to ask on.
#
#   --dry-run   say what would be installed and how; change nothing.
#   PACKAGE...  check these instead of the list below (to test this script).
#
# Exit status: 0 all present or installed, 1 could not install, 2 usage.

set -euo pipefail

readonly PROG=install-deps

# Debian 12 package names (checked with apt-cache policy), and why each.
readonly DEFAULT_PACKAGES=(
    gcc g++ make              # the tools, and the plugin (C++)
    debootstrap               # the Debian sid chroot with GCC 13 to 16 (tests)
    gcc-12-plugin-dev         # GCC's plugin headers, for plugin/
    libelf-dev libdw-dev      # ELF and DWARF (libdwfl) for the converter
    libpfm4-dev               # event names for the recorder
    libcapstone-dev           # instruction decoding for the converter
    libzstd-dev               # compressed perf.data records
    libcmocka-dev             # unit tests
    clang clang-14            # fuzz targets: the Makefile's FUZZ_CC=clang
    libclang-rt-14-dev        # libFuzzer and sanitizer runtimes for clang
    linux-perf                # perf itself (Debian's name for it)
    autofdo                   # create_gcov, dump_gcov: a reference to compare with
    python3                   # scripts/count-overlap.py and e2e checks
    tcl dpkg-dev              # bench/real: the SQLite amalgamation, dpkg-source
    valgrind pkg-config       # sfdoemu, the emulated PMU (tool headers, static
                              # core libraries); callgrind for its tests;
                              # memcheck runs readers of bad input
)

die() {
    printf '%s: error: %s\n' "$PROG" "$1" >&2
    shift
    local hint
    for hint in "$@"; do
        printf '%s: hint: %s\n' "$PROG" "$hint" >&2
    done
    exit 1
}

usage() {
    printf 'usage: scripts/install-deps.sh [--dry-run] [PACKAGE...]\n' >&2
    exit 2
}

dry_run=0
packages=()
for arg in "$@"; do
    case "$arg" in
        --dry-run) dry_run=1 ;;
        -h | --help) usage ;;
        -*) printf '%s: unknown option %s\n' "$PROG" "$arg" >&2; usage ;;
        *) packages+=("$arg") ;;
    esac
done
if ((${#packages[@]} == 0)); then
    packages=("${DEFAULT_PACKAGES[@]}")
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    die "dpkg-query not found: this script knows Debian (12) only" \
        "install the equivalents of: ${packages[*]}"
fi

# Print the packages that are not fully installed. dpkg-query prints one
# line per package it knows ("ii " = installed and configured); it says
# nothing on stdout about packages it never heard of and exits 1 for them,
# so anything without an "ii" line counts as missing.
missing_packages() {
    local -A installed=()
    local status name
    while read -r status name; do
        [[ $status == ii ]] && installed[$name]=1
    done < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
                 "$@" 2>/dev/null || true)
    for name in "$@"; do
        [[ -n ${installed[$name]:-} ]] || printf '%s\n' "$name"
    done
}

mapfile -t missing < <(missing_packages "${packages[@]}")
if ((${#missing[@]} == 0)); then
    exit 0
fi

printf '%s: missing Debian packages: %s\n' "$PROG" "${missing[*]}"

# How to become root: nothing, sudo without a password, or sudo that asks
# (only with a terminal, so CI fails with a message instead of hanging).
as_root=()
if ((EUID != 0)); then
    if ! command -v sudo >/dev/null 2>&1; then
        die "not root, and sudo is not installed" \
            "as root, run: apt-get install ${missing[*]}"
    elif sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    elif [[ -t 0 && -t 2 ]]; then
        as_root=(sudo)
    else
        die "not root, and sudo needs a password but there is no terminal" \
            "run as root, or allow passwordless sudo for apt-get, or run:" \
            "sudo apt-get install --no-install-recommends ${missing[*]}"
    fi
fi

# env passes the variable through sudo, which otherwise resets the
# environment. The lock timeout waits for another apt (unattended-upgrades,
# a parallel CI job) instead of failing at once.
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q
     -o DPkg::Lock::Timeout=300)
update_cmd=("${apt[@]}" update)
install_cmd=("${apt[@]}" install -y --no-install-recommends "${missing[@]}")

if ((dry_run)); then
    printf '%s: would run: %s\n' "$PROG" "${update_cmd[*]}"
    printf '%s: would run: %s\n' "$PROG" "${install_cmd[*]}"
    exit 0
fi

if [[ ${as_root[0]:-} == sudo && ${#as_root[@]} == 1 ]]; then
    # Ask for the password once, on the terminal, before apt's output.
    sudo -v || die "sudo refused" \
        "as root, run: apt-get install --no-install-recommends ${missing[*]}"
fi

printf '%s: running: %s\n' "$PROG" "${update_cmd[*]}"
"${update_cmd[@]}" </dev/null ||
    die "apt-get update failed (see above)" \
        "check the network and /etc/apt/sources.list"

printf '%s: running: %s\n' "$PROG" "${install_cmd[*]}"
"${install_cmd[@]}" </dev/null ||
    die "apt-get install failed (see above)" \
        "apt-cache policy PACKAGE shows whether a package is available"

mapfile -t still_missing < <(missing_packages "${missing[@]}")
if ((${#still_missing[@]} != 0)); then
    die "still not installed after apt-get: ${still_missing[*]}"
fi
printf '%s: installed: %s\n' "$PROG" "${missing[*]}"
