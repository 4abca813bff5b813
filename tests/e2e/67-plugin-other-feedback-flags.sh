#!/usr/bin/env bash
# 67-plugin-other-feedback-flags.sh - the plugin never silently turns off
# another kind of feedback: with -fprofile-generate or --coverage it
# stands aside with a warning (the instrumented build still writes its
# .gcda / .gcno files), with -fprofile-use or -fauto-profile it stops with
# an error naming both; dump-only runs beside -fprofile-use.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_plugin
export LC_ALL=C   # plain quotes in GCC's messages
tmpdir
cd "$TEST_TMP"
cat > t.c <<'EOC'
#include <stdio.h>
int main (int argc, char **argv) { (void) argv; printf ("%d\n", argc * 3); return 0; }
EOC
printf 'main:100:1\n 1: 100\n' > t.prof
P=(-fplugin="$SFDO_BUILD/samplefdo.so" -fplugin-arg-samplefdo-profile=t.prof)

for flag in -fprofile-generate --coverage; do
  rm -f ./*.gcda ./*.gcno
  "$SFDO_GCC" -O2 "$flag" "${P[@]}" t.c -o gen 2> gen.err || fail "$flag build failed: $(cat gen.err)"
  grep -q "warning: samplefdo: '$flag' instruments this build; the sample profile 't.prof' is not used" gen.err ||
    fail "$flag: no warning: $(cat gen.err)"
  ./gen > /dev/null
  ls ./*.gcda > /dev/null 2>&1 || fail "$flag with the plugin wrote no .gcda"
done
[[ -f t.gcno || -n $(ls ./*.gcno 2>/dev/null) ]] || fail "--coverage with the plugin wrote no .gcno"

"$SFDO_GCC" -O2 -fprofile-generate t.c -o gen2 && ./gen2 > /dev/null
for flag in -fprofile-use "-fauto-profile=t.afdo"; do
  rc=0
  "$SFDO_GCC" -O2 $flag "${P[@]}" -Wno-missing-profile t.c -o use 2> use.err || rc=$?
  (( rc != 0 )) || fail "$flag with the plugin built without an error"
  grep -q "error: samplefdo: '${flag%%=*}' and the sample profile 't.prof' would both give this build its counts" use.err ||
    fail "$flag: not the expected error: $(head -3 use.err)"
done
"$SFDO_GCC" -O2 -fprofile-use "${P[@]}" -fplugin-arg-samplefdo-dump-only \
  -fplugin-arg-samplefdo-dump=ref.dump t.c -o ref 2> ref.err || fail "dump-only beside -fprofile-use failed: $(cat ref.err)"
grep -q '^function main' ref.dump || fail "dump-only beside -fprofile-use dumped nothing"
echo "instrumenting: stands aside with a warning; another profile: an error; dump-only: works"
