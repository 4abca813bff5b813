#!/usr/bin/env bash
# tests/treeprof/fetch.sh - GCC 12's own profile tests (gcc.dg/tree-prof and
# g++.dg/tree-prof), from Debian's gcc-12 source package, unpacked under
# DIR (default build/treeprof-src/) as DIR/gcc/testsuite/...
#
# Usage: tests/treeprof/fetch.sh [DIR]
#
#   Does nothing when they are there.  Otherwise adds a deb-src entry when
#   the machine has none (as bench/real/fetch.sh does), downloads the
#   source package with apt-get source --download-only (87 MB) and takes
#   the two test directories out of the tarball inside it.  Nothing of it
#   is committed: the tests are GCC's.
#
# Exit status: 0 ready; 1 failed; 77 the source cannot be had here
# ("SKIP: ..." on stderr).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-build/treeprof-src}
tests=$dir/gcc/testsuite
[[ -f $tests/.sfdo-unpacked ]] && exit 0

skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
as_root() { if ((EUID == 0)); then "$@"; else sudo -n "$@"; fi; }
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
mkdir -p "$dir/download"
cd "$dir/download"
if ! ls gcc-12_*.orig.tar.* >/dev/null 2>&1; then
    apt-get source -qq --download-only gcc-12 >&2 2>download.err || {
        apt_update || skip "apt-get update failed (no network?)"
        apt-get source -qq --download-only gcc-12 >&2 2>download.err ||
            skip "apt-get source gcc-12 failed: $(grep -v '^W:' download.err | head -n 2 | tr '\n' ' ')"
    }
fi
orig=$(ls gcc-12_*.orig.tar.* | head -n 1)
# The whole listing first: grep -m1 closing a pipe would kill tar with
# SIGPIPE, which pipefail reports as a failure.
listing=$(tar tf "$orig")
inner=$(grep -E '/gcc-[0-9.]+(-dfsg)?\.tar\.(xz|gz|bz2)$' <<<"$listing" | head -n 1)
[[ -n $inner ]] || { echo "treeprof: no GCC tarball inside $orig" >&2; exit 1; }
tar xf "$orig" "$inner"
rm -rf unpacked && mkdir unpacked
tar xf "$inner" -C unpacked --wildcards '*/gcc/testsuite/gcc.dg/tree-prof/*' \
    '*/gcc/testsuite/g++.dg/tree-prof/*'
rm -f "$inner"
top=$(ls unpacked | head -n 1)
mkdir -p "../gcc/testsuite"
rm -rf ../gcc/testsuite/gcc.dg ../gcc/testsuite/g++.dg
mv "unpacked/$top/gcc/testsuite/gcc.dg" "unpacked/$top/gcc/testsuite/g++.dg" ../gcc/testsuite/
rm -rf unpacked
: > ../gcc/testsuite/.sfdo-unpacked
