#!/usr/bin/env bash
# 56-decide-inline-hot-call.sh - a hot call to a function over -O2's
# inlining limit is inlined, as -fprofile-use inlines it (a hot edge
# doubles the limit); plain -O2 keeps the calls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build hotcall "$SFDO_ROOT/tests/e2e/data/decide/hotcall.c" -- -g

calls() { grep -Ec 'call[[:space:]]+step' "$(decide_asm "$1" hotcall.c)" || true; }
(( $(calls o2) > 0 )) || fail "plain -O2 inlines step: the test shows nothing"
(( $(calls pgo) == 0 )) || fail "PGO did not inline step ($(calls pgo) calls)"
# The hot call in main's loop is inlined; the call before the loop ran
# once, and may stay a call.
(( $(calls sfdo) <= 1 )) || fail "sfdo kept $(calls sfdo) calls to step"
awk '/^main:/ {f=1} /^[a-z_.0-9]+:/ && !/^main:/ {f=0}
     f && /call[ \t]+step/ {n++} END {exit n > 1}' "$(decide_asm sfdo hotcall.c)" ||
  fail "sfdo: main still calls step in its loop"
echo "the hot call to step is inlined by PGO and by sfdo"
