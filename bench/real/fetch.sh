#!/usr/bin/env bash
# bench/real/fetch.sh - get the Debian source packages the real-program
# benchmark builds, unpacked under bench/work/real/src/ (git-ignored).
#
# Usage: bench/real/fetch.sh [--wide]
#
#   --wide    also zstd, gzip, jq and libxml2 (bench/wide-bench.sh), and
#             the zstd command; without it only the four every other real-
#             program bench builds, so a mirror that lacks the others
#             skips none of those.
#
#   Does nothing when the trees are already unpacked. Otherwise: installs
#   tcl (SQLite's amalgamation) and autofdo (create_gcov) when missing, adds
#   a deb-src entry mirroring the machine's Debian sources when none exists
#   (its own file, /etc/apt/sources.list.d/sfdo-deb-src.sources), runs
#   apt-get update (falling back to an explicit gpgv when the plain update
#   fails its signature checks), then apt-get source --download-only and
#   dpkg-source -x of each tree not yet unpacked.
#
# Exit status: 0 ready; 1 failed; 77 the sources cannot be had here (no
# network or no Debian apt source), said on stderr as "SKIP: ...".
set -euo pipefail
cd "$(dirname "$0")/../.."

PKGS=(lua5.4 sqlite3 xz-utils bzip2)
TREES=(lua5.4-5.4.4 sqlite3-3.40.1 xz-utils-5.4.1 bzip2-1.0.8)
TOOLS=(tcl autofdo dpkg-dev)
case ${1:-} in
    --wide) PKGS+=(libzstd jq libxml2 gzip)
            TREES+=(libzstd-1.5.4+dfsg2 jq-1.6 libxml2-2.9.14+dfsg gzip-1.12)
            TOOLS+=(zstd) ;;   # the zstd command makes zstd's compressed ref input
    '') ;;
    *) echo "usage: bench/real/fetch.sh [--wide]" >&2; exit 2 ;;
esac
readonly SRC=bench/work/real/src

have_all() {
    local t
    for t in "${TREES[@]}"; do [[ -f $SRC/$t/.sfdo-unpacked ]] || return 1; done
}
have_all && exit 0

skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
as_root() { if ((EUID == 0)); then "$@"; else sudo -n "$@"; fi; }

command -v tclsh >/dev/null && command -v create_gcov >/dev/null &&
    { [[ " ${TOOLS[*]} " != *" zstd "* ]] || command -v zstd >/dev/null; } ||
    scripts/install-deps.sh "${TOOLS[@]}" >&2 ||
    skip "cannot install ${TOOLS[*]} (no apt source or network?)"

apt_update() {
    as_root apt-get update -qq >&2 2>/dev/null ||
        as_root apt-get update -qq -o Apt::Key::gpgvcommand=/usr/bin/gpgv >&2
}

if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    src=/etc/apt/sources.list.d/debian.sources
    [[ -f $src ]] || skip "no deb-src entry and no $src to mirror"
    sed -E 's/^Types:.*/Types: deb-src/' "$src" |
        as_root tee /etc/apt/sources.list.d/sfdo-deb-src.sources >/dev/null ||
        skip "cannot write a deb-src entry (not root?)"
    apt_update || skip "apt-get update failed (no network?)"
fi

mkdir -p "$SRC"
cd "$SRC"
# get_one PKG: its source, else an older version of it the apt sources
# list: a mirror may lack the security archive's newest upload (jq and
# libzstd's +deb12u versions answered 404 on 2026-12-07), where the
# point release's is there.
get_one() {
    apt-get source -qq --download-only "$1" >&2 2>>download.err && return 0
    local v
    for v in $(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -rV); do
        apt-get source -qq --download-only "$1=$v" >&2 2>>download.err && return 0
    done
    return 1
}
get_all() {
    local p
    : > download.err
    for p in "${PKGS[@]}"; do
        compgen -G "${p}_*.dsc" >/dev/null || get_one "$p" || return 1
    done
}
if ! get_all; then
    apt_update || skip "apt-get update failed (no network?)"
    get_all || skip "apt-get source failed: $(grep -v '^W:' download.err | head -n 2 | tr '\n' ' ')"
fi
for t in "${TREES[@]}"; do
    [[ -f $t/.sfdo-unpacked ]] && continue
    rm -rf "$t"
    dpkg-source --no-check -x "$(ls "${t%%-[0-9]*}"_*.dsc | head -n 1)" "$t" >/dev/null
    : > "$t/.sfdo-unpacked"
done
