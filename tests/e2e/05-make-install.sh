#!/usr/bin/env bash
# make install honours PREFIX and DESTDIR, puts the plugin in GCC's plugin
# directory, and -fplugin=samplefdo then loads it by name.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-profile
need_plugin
tmpdir
dest=$TEST_TMP/root
make -s -C "$SFDO_ROOT" install DESTDIR="$dest" PREFIX=/opt/sfdo >"$TEST_TMP/install.log" 2>&1 ||
    fail "make install failed: $(tail -n 5 "$TEST_TMP/install.log")"
plugin_dir=$(gcc -print-file-name=plugin)
[[ -x $dest/opt/sfdo/bin/sfdo-profile ]] || fail "sfdo-profile not installed under DESTDIR/PREFIX/bin"
[[ -f $dest$plugin_dir/samplefdo.so ]] || fail "samplefdo.so not installed in DESTDIR$plugin_dir"
"$dest/opt/sfdo/bin/sfdo-profile" --version | grep -q '^sfdo-profile ' || fail "installed sfdo-profile does not run"
[[ -x $dest/opt/sfdo/bin/sfdo-record ]] || fail "sfdo-record not installed under DESTDIR/PREFIX/bin"
"$dest/opt/sfdo/bin/sfdo-record" --version | grep -q '^sfdo-record ' || fail "installed sfdo-record does not run"

# By name, as users will write it once it is installed for real.
printf 'int main (void) { return 0; }\n' > "$TEST_TMP/t.c"
printf 'main:10:1\n 0: 1\n' > "$TEST_TMP/t.prof"
gcc -O2 -iplugindir="$dest$plugin_dir" -fplugin=samplefdo \
    -fplugin-arg-samplefdo-profile="$TEST_TMP/t.prof" \
    -fplugin-arg-samplefdo-verbose -c "$TEST_TMP/t.c" -o "$TEST_TMP/t.o" 2>"$TEST_TMP/cc.err" ||
    fail "gcc -fplugin=samplefdo failed: $(cat "$TEST_TMP/cc.err")"
grep -q 'samplefdo: .*1 functions matched' "$TEST_TMP/cc.err" ||
    fail "the plugin loaded by name did not report its match: $(cat "$TEST_TMP/cc.err")"

# The spec file lets the driver take -fprofile-sample=FILE, for gcc and g++.
specs=$dest/opt/sfdo/lib/sfdo/sfdo.specs
[[ -f $specs ]] || fail "sfdo.specs not installed under DESTDIR/PREFIX/lib/sfdo"
for cc in gcc g++; do
  src=$TEST_TMP/t.c
  [[ $cc == g++ ]] && { cp "$TEST_TMP/t.c" "$TEST_TMP/t.cc"; src=$TEST_TMP/t.cc; }
  "$cc" -O2 -specs="$specs" -iplugindir="$dest$plugin_dir" \
      -fprofile-sample="$TEST_TMP/t.prof" -fplugin-arg-samplefdo-verbose \
      -c "$src" -o "$TEST_TMP/s.o" 2>"$TEST_TMP/specs.err" ||
      fail "$cc -specs=sfdo.specs -fprofile-sample= failed: $(cat "$TEST_TMP/specs.err")"
  grep -q 'samplefdo: .*functions matched' "$TEST_TMP/specs.err" ||
      fail "$cc: -fprofile-sample= did not reach the plugin: $(cat "$TEST_TMP/specs.err")"
done
rc=0
gcc -O2 -fprofile-sample="$TEST_TMP/t.prof" -c "$TEST_TMP/t.c" -o "$TEST_TMP/x.o" 2>/dev/null || rc=$?
[[ $rc -ne 0 ]] || fail "without the spec file, gcc accepted -fprofile-sample="
