#!/usr/bin/env bash
# gcc-chroot.sh - a Debian sid chroot with GCC 12 (12.5), 13, 14, 15 and 16 and their
# plugin headers, made once and cached, for building and testing sfdo with
# the compilers current distributions ship.
#
# Usage: scripts/gcc-chroot.sh make
#        scripts/gcc-chroot.sh run [--] CMD [ARG...]
#        scripts/gcc-chroot.sh path
#
#   make   make the chroot if it is not there yet (debootstrap of sid, then
#          apt-get of the packages below: about two minutes and 700 MB, the
#          only step that needs the network), or add packages this script
#          lists and the chroot lacks.  Prints the chroot's path.
#   run    run CMD in the chroot, in the current directory, with this
#          repository and ../shared beside it mounted at the same paths, and
#          /proc, /sys and /dev; the mounts live in a mount namespace of
#          their own and vanish with CMD.  Makes the chroot first if needed.
#   path   print where the chroot is (or will be).
#
#   SFDO_CHROOT names the chroot's directory (default
#   ${XDG_CACHE_HOME:-$HOME/.cache}/sfdo/chroot-sid).  Making and entering
#   it needs root (debootstrap, chroot, mount).
#
# Exit status: CMD's for run; 0 done; 1 could not make or enter the chroot
# (the message says why); 2 usage.

set -euo pipefail

readonly PROG=gcc-chroot
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
readonly CHROOT=${SFDO_CHROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/sfdo/chroot-sid}
readonly MIRROR=${SFDO_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# What the tools, the plugin for each GCC and the plugin's tests need.
readonly PACKAGES=(
    make binutils
    gcc-12 g++-12 gcc-12-plugin-dev
    gcc-13 g++-13 gcc-13-plugin-dev
    gcc-14 g++-14 gcc-14-plugin-dev
    gcc-15 g++-15 gcc-15-plugin-dev
    gcc-16 g++-16 gcc-16-plugin-dev
    libelf-dev libdw-dev libcapstone-dev libzstd-dev libpfm4-dev libcmocka-dev
    python3 valgrind pkg-config linux-perf
    diffutils file procps
    cmake meson ninja-build curl xz-utils ca-certificates
)
readonly STAMP=.sfdo-packages

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
    printf 'usage: scripts/gcc-chroot.sh make | path | run [--] CMD [ARG...]\n' >&2
    exit 2
}

need_root() {
    ((EUID == 0)) || die "making or entering the chroot needs root (chroot, mount); this is uid $EUID" \
        "run as root, or set SFDO_CHROOT to a chroot root has made"
}

# install_packages DIR: the packages DIR lacks, through apt-get in DIR
# (sid's Release file can be past its Valid-Until), with /proc mounted in a
# namespace of its own for the maintainer scripts.
install_packages() {
    local dir=$1
    cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    unshare --mount --propagation private -- bash -c '
        set -e
        dir=$1
        shift
        mount -t proc proc "$dir/proc"
        apt() {
            chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
                DEBIAN_FRONTEND=noninteractive apt-get -q \
                -o Acquire::Check-Valid-Until=false -o DPkg::Lock::Timeout=300 "$@"
        }
        apt update
        apt install -y --no-install-recommends "$@"' _ "$dir" "${PACKAGES[@]}" ||
        die "apt-get in the chroot $dir failed (see above)" \
            "the network is needed the first time; $MIRROR must be reachable"
    printf '%s\n' "${PACKAGES[@]}" > "$dir/$STAMP"
}

make_chroot() {
    if [[ -f $CHROOT/$STAMP ]] &&
       diff -q <(printf '%s\n' "${PACKAGES[@]}") "$CHROOT/$STAMP" >/dev/null; then
        echo "$CHROOT"
        return
    fi
    need_root
    if [[ ! -x $CHROOT/usr/bin/apt-get ]]; then
        command -v debootstrap >/dev/null 2>&1 ||
            "$ROOT/scripts/install-deps.sh" debootstrap >&2 ||
            die "debootstrap is not installed and could not be" "apt-get install debootstrap"
        local tmp=$CHROOT.tmp
        rm -rf "$tmp"
        mkdir -p "$(dirname "$CHROOT")"
        printf '%s: debootstrap of Debian sid into %s (once; about a minute)\n' "$PROG" "$tmp" >&2
        debootstrap --variant=minbase sid "$tmp" "$MIRROR" > "$tmp.log" 2>&1 ||
            die "debootstrap failed: $(tail -n 3 "$tmp.log")" "the full log is $tmp.log"
        printf '%s: installing GCC 13 to 16 and what sfdo needs in the chroot\n' "$PROG" >&2
        install_packages "$tmp" >&2
        rm -rf "$CHROOT"
        mv "$tmp" "$CHROOT"
        rm -f "$tmp.log"
    else
        printf '%s: adding packages to %s\n' "$PROG" "$CHROOT" >&2
        install_packages "$CHROOT" >&2
    fi
    echo "$CHROOT"
}

# run_in_chroot CMD...: see the usage above.
run_in_chroot() {
    make_chroot >/dev/null
    need_root
    local shared
    shared=$(cd "$ROOT/.." && pwd)/shared
    unshare --mount --propagation private -- bash -c '
        set -e
        c=$1 root=$2 shared=$3 cwd=$4
        shift 4
        mount -t proc proc "$c/proc"
        mount --rbind /sys "$c/sys"
        mount --rbind /dev "$c/dev"
        mkdir -p "$c$root"
        mount --bind "$root" "$c$root"
        if [ -d "$shared" ]; then
            mkdir -p "$c$shared"
            mount --bind "$shared" "$c$shared"
        fi
        exec chroot "$c" /usr/bin/env \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root TMPDIR=/tmp \
            /bin/bash -c '\''cd "$1" && shift && exec "$@"'\'' _ "$cwd" "$@"
    ' _ "$CHROOT" "$ROOT" "$shared" "$PWD" "$@"
}

(($# >= 1)) || usage
case $1 in
    make) make_chroot ;;
    path) echo "$CHROOT" ;;
    run)
        shift
        [[ ${1:-} == -- ]] && shift
        (($# >= 1)) || usage
        run_in_chroot "$@" ;;
    -h | --help) usage ;;
    *) printf '%s: unknown command %s\n' "$PROG" "$1" >&2; usage ;;
esac
