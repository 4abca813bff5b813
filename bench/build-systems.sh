#!/usr/bin/env bash
# bench/build-systems.sh - sfdo used the way a project's build takes it:
# zstd 1.5.4 (Debian's source, which has a Makefile, a CMake and a meson
# build) built with the installed spec file and -fprofile-sample= through
# each of its three builds, with one GCC.
#
# Usage: bench/build-systems.sh [--gcc GCC]
#
#   Installs sfdo under bench/work/build-systems/prefix (make install
#   PREFIX=..., tools of SFDO_BUILD, default build/), builds zstd -O2 -g,
#   records it compressing a training file with sfdo-record (the default
#   recording), converts the samples, then builds it three ways with
#   -specs=PREFIX/lib/sfdo/sfdo.specs -fprofile-sample=FILE:
#     make   make -C programs CFLAGS=..., the profile path relative to
#            programs/, where the compiler runs;
#     cmake  CMAKE_C_FLAGS, an absolute path (and CMake 4's policy floor,
#            which zstd 1.5.4's cmake_minimum_required is below);
#     meson  CFLAGS in the environment of meson setup, an absolute path.
#   Each build must say (the plugin's verbose lines) that it matched
#   functions of the profile, and its zstd must round-trip a file.  Prints
#   a line per build.  For GCC 13 to 16, run it in the chroot:
#     scripts/gcc-chroot.sh run env SFDO_BUILD=$PWD/build/sid CC=gcc-16 \
#         bench/build-systems.sh --gcc gcc-16
#
# Exit status: 0 every build worked; 1 one did not; 77 zstd's source
# cannot be fetched here, or cmake or meson is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GCC=gcc
case "${1:-}" in
    --gcc) GCC=$2 ;;
    "") ;;
    *) echo "usage: bench/build-systems.sh [--gcc GCC]" >&2; exit 2 ;;
esac
BUILD=${SFDO_BUILD:-$ROOT/build}
WORK=$ROOT/bench/work/build-systems/$GCC
SRC=$ROOT/bench/work/build-systems/zstd-1.5.4
TARBALL=libzstd_1.5.4+dfsg2.orig.tar.xz
URL=http://deb.debian.org/debian/pool/main/libz/libzstd/$TARBALL

die() { echo "build-systems: $*" >&2; exit 1; }
skip() { echo "SKIP: build-systems: $*" >&2; exit 77; }
command -v cmake >/dev/null || skip "cmake is not installed (Debian: cmake)"
command -v meson >/dev/null && command -v ninja >/dev/null ||
    skip "meson or ninja is not installed (Debian: meson, ninja-build)"
if [[ ! -f $SRC/.unpacked ]]; then
    mkdir -p "$(dirname "$SRC")"
    (cd "$(dirname "$SRC")" && curl -fsSL -o "$TARBALL" "$URL" && tar xJf "$TARBALL") ||
        skip "cannot fetch $URL"
    touch "$SRC/.unpacked"
fi

rm -rf "$WORK"
mkdir -p "$WORK"
PREFIX=$WORK/prefix
make -s -C "$ROOT" install B="$BUILD" GCC="$GCC" PREFIX="$PREFIX" > "$WORK/install.log" 2>&1 ||
    die "make install failed: $(tail -n 3 "$WORK/install.log")"
SP=-specs=$PREFIX/lib/sfdo/sfdo.specs

# The profile: the plain -O2 -g build compressing a training file.
cp -r "$SRC" "$WORK/plain"
make -s -C "$WORK/plain/programs" zstd-release CC="$GCC" CFLAGS="-O2 -g" > "$WORK/plain.log" 2>&1 ||
    die "the plain build failed: $(tail -n 3 "$WORK/plain.log")"
for i in 1 2 3 4 5 6 7 8; do cat "$ROOT"/README.md "$ROOT"/plugin/*.cc; done > "$WORK/train.txt"
"$BUILD/sfdo-record" -q -o "$WORK/zstd.data" -- "$WORK/plain/programs/zstd" -q -f -9 \
    "$WORK/train.txt" -o "$WORK/train.zst" || die "sfdo-record failed"
"$BUILD/sfdo-convert" -q -o "$WORK/app.prof" "$WORK/zstd.data" "$WORK/plain/programs/zstd" ||
    die "sfdo-convert failed"
PROF=$WORK/app.prof

# check NAME LOG ZSTD: the plugin matched functions, and ZSTD round-trips.
status=0
check() {
    local name=$1 log=$2 zstd=$3 matched
    matched=$(grep -h 'functions matched' "$log" | awk '{s += $3} END {print s + 0}')
    if ((matched == 0)); then
        echo "$GCC $name: FAIL: the plugin matched nothing ($log)"; status=1; return
    fi
    "$zstd" -q -f "$WORK/train.txt" -o "$WORK/$name.zst" &&
        "$zstd" -q -d -f "$WORK/$name.zst" -o "$WORK/$name.out" &&
        cmp -s "$WORK/train.txt" "$WORK/$name.out" ||
        { echo "$GCC $name: FAIL: its zstd does not round-trip"; status=1; return; }
    echo "$GCC $name: built with -fprofile-sample, $matched functions matched, zstd round-trips"
}

cp -r "$SRC" "$WORK/make"
make -s -C "$WORK/make/programs" zstd-release CC="$GCC" \
    CFLAGS="-O2 -g $SP -fprofile-sample=../../app.prof -fplugin-arg-samplefdo-verbose" \
    > "$WORK/make.log" 2>&1 || die "make failed: $(grep -m3 'error' "$WORK/make.log")"
check make "$WORK/make.log" "$WORK/make/programs/zstd"

CC=$GCC cmake -S "$SRC/build/cmake" -B "$WORK/cmake" -DCMAKE_BUILD_TYPE=Release \
    -DZSTD_BUILD_SHARED=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_C_FLAGS="$SP -fprofile-sample=$PROF -fplugin-arg-samplefdo-verbose" \
    > "$WORK/cmake.log" 2>&1 || die "cmake failed: $(tail -n 5 "$WORK/cmake.log")"
cmake --build "$WORK/cmake" -j2 >> "$WORK/cmake.log" 2>&1 ||
    die "the cmake build failed: $(grep -m3 'error' "$WORK/cmake.log")"
check cmake "$WORK/cmake.log" "$WORK/cmake/programs/zstd"

CC=$GCC CFLAGS="$SP -fprofile-sample=$PROF -fplugin-arg-samplefdo-verbose" \
    meson setup "$WORK/meson" "$SRC/build/meson" --buildtype=release > "$WORK/meson.log" 2>&1 ||
    die "meson setup failed: $(tail -n 5 "$WORK/meson.log")"
ninja -C "$WORK/meson" >> "$WORK/meson.log" 2>&1 ||
    die "the meson build failed: $(grep -m3 'error' "$WORK/meson.log")"
check meson "$WORK/meson.log" "$WORK/meson/programs/zstd"
exit $status
