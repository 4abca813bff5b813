#!/usr/bin/env bash
# 82-convert-cpp-template-names.sh - a C++ program whose template
# instances GCC's DWARF gives no linkage name converts, and the plugin
# finds their profiles.
#
# g++ 12 leaves DW_AT_linkage_name out for template instances on types of
# an anonymous namespace (inventory.cc sorts such items with a lambda:
# std::__introsort_loop<..., (anonymous namespace)::Item*, ...>), whose
# DWARF names have spaces, which no profile name may have.  The converter
# writes them without spaces; the plugin compares GCC's DWARF name of a
# decl likewise (top-level file-local functions and inline instances).
# Checks: sfdo-convert succeeds on a default recording; the profile holds
# such a name ("<" and no space); rebuilt with the profile, the plugin
# finds a home for over half of the profile's samples (8% when those
# names did not match).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-record sfdo-convert
need_plugin
need_perf >/dev/null
tmpdir
T=$TEST_TMP
SRC=$SFDO_ROOT/tests/e2e/data/inventory.cc
"$SFDO_GXX" -O2 -g -o "$T/inv" "$SRC" || fail "g++ failed"
"$SFDO_BUILD/sfdo-record" -q -o "$T/inv.data" -- "$T/inv" 100 >/dev/null 2>"$T/record.err" ||
    fail "sfdo-record failed: $(cat "$T/record.err")"
"$SFDO_BUILD/sfdo-convert" -q -o "$T/inv.prof" "$T/inv.data" "$T/inv" 2>"$T/convert.err" ||
    fail "sfdo-convert failed: $(cat "$T/convert.err")"
grep -qE '^__introsort_loop<[^ ]*>:[0-9]+' "$T/inv.prof" ||
    fail "the profile has no __introsort_loop<...> instance by its DWARF name without spaces"
(cd "$T" && "$SFDO_GXX" -O2 -g -c "$SRC" -o inv.o -fplugin="$SFDO_BUILD/samplefdo.so" \
    -fplugin-arg-samplefdo-profile="$T/inv.prof" -fplugin-arg-samplefdo-verbose 2>plugin.err) ||
    fail "the rebuild failed: $(head -5 "$T/plugin.err")"
share=$(sed -nE 's/.* ([0-9.]+)% of the profile.s total samples found a home here/\1/p' "$T/plugin.err" | head -1)
awk -v s="${share:-0}" 'BEGIN { exit !(s > 50) }' ||
    fail "only ${share:-no}% of the profile's samples found a home: $(head -2 "$T/plugin.err")"
echo "$TEST_NAME: converted; ${share}% of the profile found a home"
