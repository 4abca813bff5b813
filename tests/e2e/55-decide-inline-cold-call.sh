#!/usr/bin/env bash
# 55-decide-inline-cold-call.sh - a call on a path that never ran is not
# inlined (-fprofile-use keeps it out of line; plain -O2 inlines the
# callee, a static function called once).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build coldcall "$SFDO_ROOT/tests/e2e/data/decide/coldcall.c" -- -g

calls() { grep -Ec 'call[[:space:]]+note_bad_record' "$(decide_asm "$1" coldcall.c)" || true; }
(( $(calls o2) == 0 )) || fail "plain -O2 does not inline note_bad_record: the test shows nothing"
(( $(calls pgo) > 0 )) || fail "PGO inlined note_bad_record"
(( $(calls sfdo) > 0 )) || fail "sfdo inlined the cold call to note_bad_record"
echo "the cold call stays out of line with PGO and with sfdo"
