#!/bin/sh
# valgrind-probe.sh - can sfdoemu be built here, and against what?
#
# Usage: emulator/valgrind-probe.sh
#
#   The Makefile runs this at every make.  It prints one line:
#     ok VERSION INCLUDE_DIR LIB_DIR LOAD_ADDRESS
#   when Valgrind's tool headers (pub_tool_*.h), static core libraries
#   (libcoregrind-amd64-linux.a, libvex-amd64-linux.a) and launcher are
#   installed (Debian: the valgrind package) and are all one version; else
#     missing WHAT IS MISSING AND WHAT TO DO
#     mismatch WHICH VERSIONS DIFFER AND WHAT TO DO
#   A tool links Valgrind's core statically, and the launcher and the
#   preloaded vgpreload_core of the installed Valgrind must be the same
#   version as that core: a tool built against other headers or libraries
#   than the installed launcher's would fail in odd ways at run time.
#
# Exit status: 0 (the answer is on stdout).
set -u

missing() { echo "missing $*"; exit 0; }

[ "$(uname -m)" = x86_64 ] || missing "sfdoemu is for x86-64 (this is $(uname -m))"
command -v pkg-config >/dev/null 2>&1 ||
    missing "pkg-config is not installed (Debian: pkg-config)"
pkg-config --exists valgrind 2>/dev/null ||
    missing "Valgrind's pkg-config file is not installed (Debian: valgrind)"
inc=$(pkg-config --variable=includedir valgrind)
lib=$(pkg-config --variable=libdir valgrind)/valgrind
load=$(pkg-config --variable=valt_load_address valgrind)
pc_version=$(pkg-config --modversion valgrind)
for f in "$inc/pub_tool_tooliface.h" "$inc/config.h" "$inc/libvex_guest_amd64.h" \
         "$lib/libcoregrind-amd64-linux.a" "$lib/libvex-amd64-linux.a"; do
    [ -f "$f" ] || missing "$f is not installed (Debian: valgrind)"
done
[ -n "$load" ] || missing "pkg-config gives no valt_load_address for valgrind"
command -v valgrind >/dev/null 2>&1 || missing "the valgrind launcher is not on PATH"

header_version=$(sed -n 's/^#define VERSION "\(.*\)"$/\1/p' "$inc/config.h")
core_version=$(strings -a "$lib/libcoregrind-amd64-linux.a" 2>/dev/null |
               sed -n 's/^valgrind-\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)$/\1/p' | head -n 1)
run_version=$(valgrind --version 2>/dev/null | sed -n 's/^valgrind-//p')
if [ -z "$core_version" ] || [ "$header_version" != "$core_version" ] ||
   [ "$header_version" != "$run_version" ] || [ "$header_version" != "$pc_version" ]; then
    echo "mismatch Valgrind headers ${header_version:-?}, core library ${core_version:-?}," \
         "pkg-config ${pc_version:-?} and launcher ${run_version:-?} differ:" \
         "reinstall one Valgrind (Debian: apt-get install --reinstall valgrind)"
    exit 0
fi
echo "ok $header_version $inc $lib $load"
