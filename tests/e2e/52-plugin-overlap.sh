#!/usr/bin/env bash
# 52-plugin-overlap.sh - how close the plugin's counts, from samples taken
# here, come to instrumented PGO's, on every test program
# (scripts/measure-overlap.sh: block-level degree of overlap on the same
# CFG).
#
# Where the emulated PMU is built (sfdo-record --emulate), the samples are
# its exact retired-instruction samples, and each program's overlap must
# reach 95% (issue #14's target for them; issue #4's is 90%).  Elsewhere
# they come from perf on this machine's timer, and the test asserts, for
# each program, that sfdo's counts overlap the instrumented ones more than
# GCC's static estimate does, and within functions by at least 80%: a
# timer weighs blocks by time, not executions (bench/RESULTS.md says why
# it falls short of 90% on some programs; on an AMD EPYC host even the 80%
# fails for inlined).  Prints each program's figures (global, within
# functions, static) and the recording mode.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert
need_plugin
mode=timer
if [[ -e $SFDO_BUILD/sfdoemu-amd64-linux && -x $SFDO_BUILD/sfdo-record ]] &&
   command -v valgrind >/dev/null; then
    mode=emu
else
    need_perf
    export PERF_EVENT PERF_PERIOD
fi
export SFDO_RECORD_MODE=$mode
D=$SFDO_ROOT/tests/e2e/data
line=
while read -r name src args; do
    # shellcheck disable=SC2086
    read -r _ global within static samples _ < <(
        "$SFDO_ROOT/scripts/measure-overlap.sh" "$TEST_TMP/$name" "$name" "$src" $args ||
        fail "measuring $name failed")
    awk -v g="$global" -v s="$static" -v w="$within" -v m="$mode" \
        'BEGIN {exit !(m == "emu" ? g >= 95 : g > s && w >= 80)}' ||
        fail "$name: overlap with instrumented counts ${global}% (within functions ${within}%), GCC's static estimate ${static}% ($samples $mode samples)"
    line+=" $name ${global}/${within}/${static}%"
done <<EOT
demo $SFDO_ROOT/examples/demo.c 50
tripcounts $D/tripcounts.c
icalls $D/icalls.c 20000000
divisors $D/divisors.c
memsizes $D/memsizes.c
inlined $D/inlined.c x x x
EOT
echo "block overlap from $mode samples (global/within functions/static):$line"
