#!/usr/bin/env bash
# 102-bench-decisions-symbols.sh - bench/decisions.py reads a function's
# hot/cold decision from the symbol table whatever its visibility: a
# hidden or internal function (Lua's LUAI_FUNC ones are internal) has one
# more column in objdump -t, and the decisions table of the bench once
# missed all of theirs (Lua: 112 of PGO's 735).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

tmpdir
cd "$TEST_TMP"
cat > t.c <<'C'
#include <stdlib.h>
__attribute__ ((visibility ("internal"), cold, noinline)) void
rare_internal (void) { abort (); }
__attribute__ ((visibility ("hidden"), hot, noinline)) int
busy_hidden (int x) { return x * 3 + 1; }
__attribute__ ((cold, noinline)) static void
rare_local (void) { abort (); }
__attribute__ ((noinline)) int
checked (int x)
{
  if (__builtin_expect (x < 0, 0))
    rare_local ();
  return busy_hidden (x) + 2;
}
C
"$SFDO_GCC" -O2 -c t.c -o t.o || fail "compiling t.c failed"
objdump -t t.o | grep -q '\.internal rare_internal$' ||
  fail "objdump shows no internal visibility for rare_internal: $(objdump -t t.o)"
got=$(python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import decisions
for kind, name in sorted(decisions.symbol_decisions(sys.argv[2])):
    print(kind, name)' "$SFDO_ROOT/bench" t.o)
want="hot busy_hidden
split checked
unlikely rare_internal
unlikely rare_local"
[[ $got == "$want" ]] ||
  fail "decisions.py read $(echo "$got" | tr '\n' ';') from t.o, not $(echo "$want" | tr '\n' ';')"
echo "hidden, internal and local functions' sections and cold parts read"
