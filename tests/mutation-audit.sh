#!/usr/bin/env bash
# tests/mutation-audit.sh - do the plugin's tests fail when what they test
# is switched off?  For each decision family (the plugin's own switches,
# -fplugin-arg-samplefdo-no-FAMILY), runs the plugin's end-to-end tests
# (tests/run.sh --plugin-only) with every compilation that loads the
# plugin given that switch, through a wrapper named as SFDO_GCC, and
# lists the tests that fail.  A family no test fails without is a family
# no test covers.  Writes tests/e2e/MUTATION-AUDIT.md (with --write).
#
# Usage: tests/mutation-audit.sh [--write] [FAMILY...]
#   FAMILY   hotcold, inline, loops, icall, values (default: all five)
#   --write  rewrite tests/e2e/MUTATION-AUDIT.md from this run
#
# Environment: SFDO_GCC as for tests/run.sh (default gcc).  Takes about
# as long as five runs of tests/run.sh --plugin-only.
#
# Exit status: 0 every family switched off failed at least one test;
# 1 some family failed none (listed); 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."
WRITE='' FAMILIES=()
for a in "$@"; do
    case $a in
        --write) WRITE=1 ;;
        hotcold|inline|loops|icall|values) FAMILIES+=("$a") ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "mutation-audit: unknown argument $a (see --help)" >&2; exit 2 ;;
    esac
done
((${#FAMILIES[@]})) || FAMILIES=(hotcold inline loops icall values)
GCC=${SFDO_GCC:-gcc}
GXX=${SFDO_GXX:-${GCC//gcc/g++}}
W=$PWD/build/mutation-audit
rm -rf "$W" && mkdir -p "$W"
START=$(date +%s)

# wrapper DIR DRIVER FLAG: DIR/NAME runs DRIVER, adding FLAG where the
# command line loads the plugin.
wrapper() {
    local dir=$1 driver=$2 flag=$3 name
    name=$(basename "$driver")
    cat > "$dir/$name" <<EOF
#!/bin/sh
case " \$* " in
  *" -fplugin="*samplefdo*) exec $(command -v "$driver") "\$@" $flag ;;
esac
exec $(command -v "$driver") "\$@"
EOF
    chmod +x "$dir/$name"
}

declare -A failed
missing=()
for fam in "${FAMILIES[@]}"; do
    dir=$W/no-$fam
    mkdir -p "$dir/bin"
    wrapper "$dir/bin" "$GCC" "-fplugin-arg-samplefdo-no-$fam"
    wrapper "$dir/bin" "$GXX" "-fplugin-arg-samplefdo-no-$fam"
    echo "mutation-audit: $fam off" >&2
    SFDO_GCC=$dir/bin/$(basename "$GCC") SFDO_GXX=$dir/bin/$(basename "$GXX") \
        SFDO_TEST_LOGS=$dir/logs tests/run.sh --plugin-only > "$dir/run.out" 2>&1 || true
    failed[$fam]=$(sed -n 's/^ *\(tests\/e2e\/[^ ]*\.sh\) (exit.*/\1/p' "$dir/run.out" |
                   xargs -rn1 basename | sed 's/\.sh$//' | paste -sd' ' -)
    [[ -n ${failed[$fam]} ]] || missing+=("$fam")
    echo "mutation-audit: $fam off: ${failed[$fam]:-no test failed}" >&2
done

if [[ -n $WRITE ]]; then
    {
        echo "# Mutation audit: which tests fail when a decision family is off"
        echo
        echo "Written by \`tests/mutation-audit.sh --write\`, commit $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $($GCC --version | head -n 1), took $(( $(date +%s) - START )) s."
        echo "Each row: every compilation that loads the plugin gets \`-fplugin-arg-samplefdo-no-FAMILY\` (a wrapper named as SFDO_GCC), and \`tests/run.sh --plugin-only\` runs; the tests that then fail.  A family no test fails without is untested."
        echo
        echo "| family off | tests that fail |"
        echo "|---|---|"
        for fam in "${FAMILIES[@]}"; do
            echo "| $fam | ${failed[$fam]:-**none**} |"
        done
    } > tests/e2e/MUTATION-AUDIT.md
    echo "mutation-audit: wrote tests/e2e/MUTATION-AUDIT.md" >&2
fi
if ((${#missing[@]})); then
    echo "mutation-audit: no test fails with these families off: ${missing[*]}" >&2
    exit 1
fi
