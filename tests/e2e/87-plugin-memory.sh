#!/usr/bin/env bash
# 87-plugin-memory.sh - the plugin reads and writes only memory it owns:
# cc1 runs it under valgrind's memcheck.  A read past the end of one of
# its arrays made the code it gave depend on what lay beyond (sqlite3.c
# compiled twice gave two different objects): GCC's estimate of a
# function's blocks was taken before the annotation added loop
# preheaders, and a function annotated again (a wrapper revived by its
# callee) read the preheader's rate past the estimate's end.
# Memcheck's undefined-value errors are off: GCC's own sparse sets read
# uninitialised memory by design.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_plugin
command -v valgrind > /dev/null ||
  skip "valgrind is not installed (Debian: valgrind): the plugin's memory is not checked"
tmpdir
cd "$TEST_TMP"

cat > revived.prof <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=5000
# tool: sfdo-convert 0.1.0
# samples: used=5000 dropped=0
spin:1000000000:1
 2: 1000000000
digest:200000:30
 3.3: 100000
 4.3: 100000
digest_rounds:0:0
PROF

memcheck_compile() {
    local src=$1 prof=$2
    local name
    name=$(basename "$src" .c)
    if ! "$SFDO_GCC" -O2 -g -c "$src" -o "$name.o" \
         -wrapper valgrind,-q,--undef-value-errors=no,--error-exitcode=99,--log-file="$name.vg.%p" \
         -fplugin="$SFDO_BUILD/samplefdo.so" \
         -fplugin-arg-samplefdo-profile="$prof" \
         -fplugin-arg-samplefdo-verbose > "$name.err" 2>&1; then
        fail "$name: the plugin under memcheck: $(grep -m 3 -A 3 'Invalid\|definitely' "$name".vg* 2>/dev/null || head -n 8 "$name.err")"
    fi
}

D=$SFDO_ROOT/tests/e2e/data/decide
memcheck_compile "$D/revived_loop.c" revived.prof
grep -q '1 more ran because a function they call did' revived_loop.err ||
  fail "the plugin did not revive digest_rounds, so the test shows nothing: $(grep 'never ran' revived_loop.err)"
echo "the plugin under memcheck: no invalid read or write, a revived wrapper with a loop included"
