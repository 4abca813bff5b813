#!/bin/bash
# bench/mcf-bench.sh - how long the minimum-cost-flow solver (smooth/mcf.h)
# takes on random CFGs of 500, 5 000 and 20 000 blocks (bench/mcf_bench.c:
# 7 solves each, interleaved, medians, with the 500-block case run twice as
# an A/A control), and how its time grows with the size.  Rewrites the
# section "## MCF solver" of bench/RESULTS.md.  Takes a few seconds.
#
# The unit test tests/unit/smooth/test_mcf.c checks the solver's results on
# the same graphs; timing is measured here, not asserted there.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

SIZES=${SFDO_MCF_SIZES:-500 5000 20000}
BIN=build/bench
mkdir -p "$BIN"
make --no-print-directory build/libsfdo.a >&2
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror bench/mcf_bench.c \
    build/libsfdo.a -o "$BIN/mcf_bench"
# shellcheck disable=SC2086  # SIZES is a list of numbers
"$BIN/mcf_bench" $SIZES > "$BIN/mcf_bench.out"

section=$(mktemp)
trap 'rm -f "$section"' EXIT
{
    echo "## MCF solver"
    echo
    echo "\`bench/mcf-bench.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores shared with"
    echo "other work): \`build/bench/mcf_bench $SIZES\`, solve time of random"
    echo "CFGs (tests/unit/smooth/random_cfg.h), 7 runs each interleaved."
    echo
    echo "| blocks | median ms | runs (ms) | median / first size's |"
    echo "|---|---|---|---|"
    awk 'NR == 1 { base = $2 }
         { label = $1; if (NR > 1 && $1 == first) label = $1 " (A/A)"
           if (NR == 1) first = $1
           printf "| %s | %s | %s | %.2f |\n", label, $2, $3, base ? $2 / base : 0 }' \
        "$BIN/mcf_bench.out"
} > "$section"
results_write_section "## MCF solver" "$section"
cat "$section"
