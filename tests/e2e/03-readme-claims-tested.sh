#!/usr/bin/env bash
# 03-readme-claims-tested.sh - the README's status table says, for every
# stage, which tests show what it claims, and those tests exist: each row
# has a third column, and every test it names (unit test_*.c, e2e NN-*,
# fuzz_*, bench/*.sh) is a file of this tree.  So the list of what works
# cannot drift from the tests that show it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

R=$SFDO_ROOT/README.md
rows=$(awk '/^\| stage \| state \|/ { t = 1; next } t && /^\|---/ { next }
            t && /^\| `/ { print; next } t { exit }' "$R")
[[ -n $rows ]] || fail "no status table in README.md"
n=0
while IFS= read -r row; do
    n=$((n + 1))
    stage=$(awk -F'|' '{ print $2 }' <<<"$row")
    shown=$(awk -F'|' '{ print $4 }' <<<"$row")
    [[ $shown =~ [a-z] ]] || fail "README: the row of$stage names no test"
    for t in $(grep -oE 'test_[a-z_]+\.c' <<<"$shown" || true); do
        [[ -n $(find "$SFDO_ROOT/tests/unit" -name "$t") ]] ||
            fail "README: $t (row of$stage) is not in tests/unit"
    done
    for t in $(grep -oE '\b[0-9]{2,3}-[a-z0-9-]+' <<<"$shown" || true); do
        [[ -f $SFDO_ROOT/tests/e2e/$t.sh ]] ||
            fail "README: e2e $t (row of$stage) is not tests/e2e/$t.sh"
    done
    for t in $(grep -oE 'fuzz_[a-z_]+' <<<"$shown" || true); do
        [[ -f $SFDO_ROOT/tests/fuzz/$t.c ]] ||
            fail "README: $t (row of$stage) is not in tests/fuzz"
    done
    for t in $(grep -oE 'bench/[a-z-]+\.sh' <<<"$shown" || true); do
        [[ -f $SFDO_ROOT/$t ]] || fail "README: $t (row of$stage) is missing"
    done
done <<<"$rows"
echo "$TEST_NAME: $n stages, each with the tests that show it"
