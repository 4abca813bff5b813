#!/usr/bin/env bash
# 52-plugin-overlap.sh - how close the plugin's counts, from samples taken
# here, come to instrumented PGO's, on every test program
# (scripts/measure-overlap.sh: block-level degree of overlap on the same
# CFG).
#
# Asserts, for each program: sfdo's counts overlap the instrumented ones
# more than GCC's static estimate does, and within functions by at least
# 80%.  Prints each program's figures (global, within functions, static).
# The issue's target is 90% globally; bench/overlap-bench.sh records the
# figures and RESULTS.md says why timer samples fall short of it on some
# programs.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert samplefdo.so
need_perf
export PERF_EVENT PERF_PERIOD
D=$SFDO_ROOT/tests/e2e/data
line=
while read -r name src args; do
    # shellcheck disable=SC2086
    read -r _ global within static samples < <(
        "$SFDO_ROOT/scripts/measure-overlap.sh" "$TEST_TMP/$name" "$name" "$src" $args ||
        fail "measuring $name failed")
    awk -v g="$global" -v s="$static" -v w="$within" 'BEGIN {exit !(g > s && w >= 80)}' ||
        fail "$name: overlap with instrumented counts ${global}% (within functions ${within}%), GCC's static estimate ${static}% ($samples samples)"
    line+=" $name ${global}/${within}/${static}%"
done <<EOT
demo $SFDO_ROOT/examples/demo.c 50
tripcounts $D/tripcounts.c
icalls $D/icalls.c 20000000
divisors $D/divisors.c
memsizes $D/memsizes.c
inlined $D/inlined.c x x x
EOT
echo "block overlap (global/within functions/static):$line"
