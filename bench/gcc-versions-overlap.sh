#!/usr/bin/env bash
# bench/gcc-versions-overlap.sh - how close the plugin's counts come to
# -fprofile-use's on each GCC, and with a profile of another GCC's build:
# block overlap (scripts/measure-overlap.sh, emulated instruction samples)
# on the e2e programs, for each pair (GCC that built the profiled binary,
# GCC that reads the profile) of 12, 13 and 16 at -O2, and for 12 and 16
# with their own profiles at -O3.  Runs in the Debian sid chroot
# (scripts/gcc-chroot.sh), which has GCC 12.5 to 16.2, with the tools and
# plugins of build/sid, and writes the section "## Profiles across GCC
# versions" of bench/RESULTS.md.
#
# Usage: bench/gcc-versions-overlap.sh
#
# Exit status: 0 done; 1 a step failed; 77 the chroot cannot be entered.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/bench/work/gcc-versions
if [[ ! -f /etc/debian_version || $(cat /etc/debian_version) != *sid* ]]; then
    # On the host: build in the chroot, run this script there, write RESULTS.
    scripts/gcc-chroot.sh make >/dev/null || { echo "SKIP: no chroot" >&2; exit 77; }
    for n in 12 13 16; do
        scripts/gcc-chroot.sh run make -s B=build/sid CC=gcc-16 GCC="gcc-$n" all
    done
    start=$(date +%s)
    scripts/gcc-chroot.sh run bench/gcc-versions-overlap.sh
    python3 - "$WORK/table.md" "$(git rev-parse --short HEAD)" "$(( $(date +%s) - start ))" <<'PY'
import re, sys, datetime
table, commit, secs = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
head = ("## Profiles across GCC versions\n\n"
        "Written by `bench/gcc-versions-overlap.sh` on %s UTC (the run took %d min), commit %s.\n\n"
        "Block overlap with the reading GCC's own `-fprofile-use` counts, on the same CFG "
        "(scripts/measure-overlap.sh: global / within functions, %%), from one emulated-PMU "
        "recording (`sfdo-record --emulate -c 100003`, exact instruction samples) of each program "
        "built by the profiling GCC; the plugin reads it in a build by the reading GCC "
        "(-fplugin-arg-samplefdo-no-inline, as the reference has no replayed inlining).  GCC 12 is "
        "Debian sid's 12.5 here, 13 is 13.5, 16 is 16.2.  Same-version rows are the diagonal.  "
        "`inlined.c` is a worst case: each function is one line, so every block is on a line of "
        "several blocks, which GCC 12, 13-15 and 16 number differently.\n\n"
        % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), secs // 60, commit))
text = open("bench/RESULTS.md").read()
section = head + table
m = re.search(r"^## Profiles across GCC versions\n.*?(?=^## |\Z)", text, re.S | re.M)
text = text[:m.start()] + section + "\n" + text[m.end():] if m else text.rstrip("\n") + "\n\n" + section
open("bench/RESULTS.md", "w").write(text)
PY
    echo "gcc-versions-overlap: bench/RESULTS.md updated"
    exit 0
fi

# In the chroot.
export SFDO_BUILD=$ROOT/build/sid SFDO_RECORD_MODE=emu
D=tests/e2e/data
PROGS="demo:examples/demo.c:50 tripcounts:$D/tripcounts.c icalls:$D/icalls.c:20000000 divisors:$D/divisors.c memsizes:$D/memsizes.c inlined:$D/inlined.c:x_x_x"
mkdir -p "$WORK"
row() {   # PRODUCER CONSUMER OPT: one table row
    local p=$1 c=$2 opt=$3 line r g w
    line="| $opt | $p | $c |"
    for pr in $PROGS; do
        IFS=: read -r name src args <<<"$pr"
        args=${args//_/ }
        # shellcheck disable=SC2086
        r=$(SFDO_OPT=$opt SFDO_GCC=gcc-$c SFDO_PROFILED_GCC=gcc-$p \
            scripts/measure-overlap.sh "$WORK/$opt-$p-$c/$name" "$name" "$src" $args \
            2> "$WORK/$opt-$p-$c-$name.err") ||
            { echo "gcc-versions-overlap: $name ($p -> $c $opt) failed: $(tail -n 2 "$WORK/$opt-$p-$c-$name.err")" >&2; exit 1; }
        read -r _ g w _ <<<"$r"
        line+=" $g / $w |"
    done
    echo "$line"
}
{
    printf '| level | profiled by GCC | read by GCC |'
    for pr in $PROGS; do printf ' %s |' "${pr%%:*}"; done
    printf '\n|---|---|---|'
    for _ in $PROGS; do printf -- '---:|'; done
    printf '\n'
    for p in 12 13 16; do for c in 12 13 16; do row "$p" "$c" -O2; done; done
    for g in 12 16; do row "$g" "$g" -O3; done
} | tee "$WORK/table.md"
