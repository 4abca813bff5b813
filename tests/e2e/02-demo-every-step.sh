#!/usr/bin/env bash
# 02-demo-every-step.sh - `make demo` (scripts/demo.sh) runs every step or
# fails loudly.
#
#   - with an `nm` that prints plugin_init first and then goes on writing
#     (as nm of the real plugin does, hundreds of lines), the demo still
#     rebuilds with the plugin: a `nm | grep -q` under pipefail died of
#     SIGPIPE about one run in three and the demo then skipped the rebuild,
#     reporting success; the slow nm makes that happen every time;
#   - every one of its 7 steps is in the summary, none skipped;
#   - without the plugin the demo fails (exit 1), naming the step, instead
#     of stopping early with success.
# Runs the demo with one timed run per build (SFDO_DEMO_RUNS=1).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert sfdo-profile
need_plugin
need_perf
tmpdir
T=$TEST_TMP

# An nm that answers first and keeps writing after the reader has what it
# wants.
mkdir "$T/bin"
real_nm=$(type -P nm)
cat >"$T/bin/nm" <<EOT
#!/bin/sh
"$real_nm" "\$@" || exit \$?
sleep 0.3
i=0
while [ \$i -lt 2000 ]; do echo "0000000000000000 T filler_\$i"; i=\$((i + 1)); done
EOT
chmod +x "$T/bin/nm"

run_demo() {   # run_demo LOG [ENV...]: the demo's status
    local log=$1 status=0
    shift
    env PATH="$T/bin:$PATH" SFDO_DEMO_RUNS=1 "$@" \
        "$SFDO_ROOT/scripts/demo.sh" >"$log" 2>&1 || status=$?
    return $status
}

run_demo "$T/demo.log" ||
    fail "the demo failed: $(grep -m1 'failed' "$T/demo.log")"
for n in 1 2 3 4 5 6 7; do
    grep -q "^  step $n: " "$T/demo.log" ||
        fail "step $n is not in the summary: $(sed -n '/^summary:/,$p' "$T/demo.log")"
done
! grep -qiE 'not built|skipped' "$T/demo.log" ||
    fail "a step was skipped: $(grep -iE 'not built|skipped' "$T/demo.log")"
grep -q '^  step 5: rebuild with the profile: built ' "$T/demo.log" ||
    fail "the rebuild did not run: $(grep 'step 5' "$T/demo.log")"

# Without the plugin: a loud failure at step 5.
mkdir "$T/build"
for tool in sfdo-convert sfdo-profile sfdo-record; do
    ln -s "$SFDO_BUILD/$tool" "$T/build/$tool"
done
status=0
run_demo "$T/noplugin.log" SFDO_BUILD="$T/build" || status=$?
((status == 1)) ||
    fail "without the plugin the demo exited $status, not 1: $(tail -n 3 "$T/noplugin.log")"
grep -q 'demo: step 5 (rebuild with the profile) failed: .*samplefdo.so' \
    "$T/noplugin.log" ||
    fail "without the plugin the demo does not say which step failed and why:" \
         "$(grep 'demo:' "$T/noplugin.log")"
echo "$TEST_NAME: all 7 steps ran with a slow nm; without the plugin, step 5 failed loudly"
