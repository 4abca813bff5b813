#!/usr/bin/env bash
# 05-make-install.sh - installed and used the way users do, with the GCC
# under test ($SFDO_GCC): `make install PREFIX=~/sfdo` by a user without
# root writes everything under PREFIX and nothing into GCC's own plugin
# directory; `gcc -specs=PREFIX/lib/sfdo/sfdo.specs -fprofile-sample=FILE`
# with nothing else (no -iplugindir, no -fplugin) then builds the same
# code as the -fplugin route, for gcc and g++; without the spec file the
# option is refused.  `make install-gcc-plugin` (DESTDIR here) puts the
# plugin into GCC's directory, where -fplugin=samplefdo finds it by name.
# A directory without a build for the running GCC is refused with a
# message that names the running GCC and the builds there are.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-profile sfdo-record
need_plugin
tmpdir
chmod 755 "$TEST_TMP"

# as_user CMD...: CMD as a user without root (nobody) when this is root.
as_user() {
    if ((EUID == 0)); then
        setpriv --reuid=65534 --regid=65534 --clear-groups \
            env HOME="$TEST_TMP/home" "$@"
    else
        "$@"
    fi
}
mkdir -p "$TEST_TMP/home"
((EUID != 0)) || chown 65534:65534 "$TEST_TMP/home"

# The build is this user's: bring it up to date first, so that the
# install as another user only copies.
make -s -C "$SFDO_ROOT" all B="$SFDO_BUILD" GCC="$SFDO_GCC" >"$TEST_TMP/build.log" 2>&1 ||
    fail "make all failed: $(tail -n 5 "$TEST_TMP/build.log")"
plugin_dir=$("$SFDO_GCC" -print-file-name=plugin)
before=$(ls -l --time-style=+%s "$plugin_dir" 2>/dev/null | grep samplefdo || true)
prefix=$TEST_TMP/home/sfdo
as_user make -s -C "$SFDO_ROOT" install B="$SFDO_BUILD" GCC="$SFDO_GCC" \
    PREFIX="$prefix" >"$TEST_TMP/install.log" 2>&1 ||
    fail "make install PREFIX=$prefix as a user without root failed: $(tail -n 5 "$TEST_TMP/install.log")"
after=$(ls -l --time-style=+%s "$plugin_dir" 2>/dev/null | grep samplefdo || true)
[[ $before == "$after" ]] || fail "make install touched GCC's plugin directory $plugin_dir"
for tool in sfdo-profile sfdo-record sfdo-convert sfdo-link; do
    "$prefix/bin/$tool" --version | grep -q "^$tool " || fail "installed $tool does not run"
done
major=$("$SFDO_GCC" -dumpversion)
major=${major%%.*}
for f in samplefdo.so "samplefdo-gcc$major.so" sfdo.specs; do
    [[ -f $prefix/lib/sfdo/$f ]] || fail "$f not installed under PREFIX/lib/sfdo"
done

# A program with a hot loop and a cold function, and a profile of it.
cat > "$TEST_TMP/t.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static __attribute__ ((noinline)) int cold (int x) { printf ("odd %d\n", x); return x * 3; }
int main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 100000, s = 0;
  for (long i = 0; i < n; i++)
    s += (i % 1000 == 999) ? cold ((int) i) : (int) (i ^ (i >> 3));
  printf ("%ld\n", s);
  return 0;
}
EOF
cat > "$TEST_TMP/t.prof" <<'EOF'
main:4000000:1
 2: 1
 3: 100000
 4: 100000
 4.1: 100
 4.2: 99900
 6: 1
cold:300:100
 0: 100
EOF
cp "$TEST_TMP/t.c" "$TEST_TMP/t.cc"
chmod -R a+rwX "$TEST_TMP"
specs=$prefix/lib/sfdo/sfdo.specs
for cc in "$SFDO_GCC" "$SFDO_GXX"; do
    src=t.c
    [[ $cc == "$SFDO_GXX" ]] && src=t.cc
    (cd "$TEST_TMP" &&
        as_user "$cc" -O2 -specs="$specs" -fprofile-sample=t.prof \
            -fplugin-arg-samplefdo-verbose -S "$src" -o specs.s 2>specs.err) ||
        fail "$cc -specs=sfdo.specs -fprofile-sample=t.prof failed: $(head -n 3 "$TEST_TMP/specs.err")"
    grep -q 'samplefdo: .*[1-9] functions matched' "$TEST_TMP/specs.err" ||
        fail "$cc: -fprofile-sample= did not reach the plugin: $(head -n 3 "$TEST_TMP/specs.err")"
    (cd "$TEST_TMP" &&
        as_user "$cc" -O2 -fplugin="$prefix/lib/sfdo/samplefdo.so" \
            -fplugin-arg-samplefdo-profile=t.prof -S "$src" -o plugin.s) ||
        fail "$cc -fplugin=PREFIX/lib/sfdo/samplefdo.so failed"
    cmp -s "$TEST_TMP/specs.s" "$TEST_TMP/plugin.s" ||
        fail "$cc: the spec file's build differs from the -fplugin build"
done
rc=0
(cd "$TEST_TMP" && "$SFDO_GCC" -O2 -fprofile-sample=t.prof -c t.c -o x.o 2>/dev/null) || rc=$?
[[ $rc -ne 0 ]] || fail "without the spec file, $SFDO_GCC accepted -fprofile-sample="

# Into GCC's own directory (under DESTDIR here), found by name.
dest=$TEST_TMP/root
make -s -C "$SFDO_ROOT" install-gcc-plugin B="$SFDO_BUILD" GCC="$SFDO_GCC" \
    DESTDIR="$dest" >"$TEST_TMP/gccdir.log" 2>&1 ||
    fail "make install-gcc-plugin failed: $(tail -n 5 "$TEST_TMP/gccdir.log")"
(cd "$TEST_TMP" && "$SFDO_GCC" -O2 -iplugindir="$dest$plugin_dir" -fplugin=samplefdo \
    -fplugin-arg-samplefdo-profile=t.prof -S t.c -o byname.s) ||
    fail "$SFDO_GCC -fplugin=samplefdo from GCC's plugin directory failed"
(cd "$TEST_TMP" && "$SFDO_GCC" -O2 -fplugin="$prefix/lib/sfdo/samplefdo.so" \
    -fplugin-arg-samplefdo-profile=t.prof -S t.c -o plugin.s)
cmp -s "$TEST_TMP/byname.s" "$TEST_TMP/plugin.s" ||
    fail "the plugin found by name builds other code than the one under PREFIX"

# No build for the running GCC: refused, naming it and what is there.
lone=$TEST_TMP/lone
mkdir -p "$lone"
cp "$prefix/lib/sfdo/samplefdo.so" "$lone/"
: > "$lone/samplefdo-gcc11.so"
rc=0
"$SFDO_GCC" -O2 -fplugin="$lone/samplefdo.so" -fplugin-arg-samplefdo-profile="$TEST_TMP/t.prof" \
    -c "$TEST_TMP/t.c" -o "$TEST_TMP/x.o" 2>"$TEST_TMP/lone.err" || rc=$?
version=$("$SFDO_GCC" -dumpfullversion)
((rc != 0)) || fail "a plugin directory without a build for GCC $major was accepted"
grep -q "this is GCC $version, and .* has no build of the plugin for GCC $major (it has builds for GCC: 11)" \
    "$TEST_TMP/lone.err" ||
    fail "the refusal does not name both versions: $(head -n 2 "$TEST_TMP/lone.err")"
echo "installed under PREFIX by a user without root; -specs route = -fplugin route ($SFDO_GCC, $SFDO_GXX)"
