#!/usr/bin/env bash
# tests/mutation-audit.sh - do the plugin's tests fail when what they test
# is switched off?
#
#   Families: for each decision family (-fplugin-arg-samplefdo-no-FAMILY),
#   runs the plugin's end-to-end tests (tests/run.sh --plugin-only) with
#   every compilation that loads the plugin given that switch, through a
#   wrapper named as SFDO_GCC, and lists the tests that fail.  A family no
#   test fails without is a family no test covers.
#
#   Rules: for each rule an e2e test is written for
#   (-fplugin-arg-samplefdo-no-rule=NAME; plugin/samplefdo.h lists them),
#   runs that test (RULE_TESTS below) with the rule alone switched off,
#   and checks that it fails.  A rule whose test passes without it is not
#   tested by it.
#
# Usage: tests/mutation-audit.sh [--write] [--families | --rules] [NAME...]
#   NAME        families (hotcold, inline, loops, icall, values) or rules
#               (default: every family and every rule)
#   --families  families only; --rules  rules only
#   --write     rewrite, in tests/e2e/MUTATION-AUDIT.md, the table of each
#               part this run ran, with the names it ran (a part not run
#               keeps its table)
#
# Environment: SFDO_GCC as for tests/run.sh (default gcc).  The families
# take about as long as five runs of tests/run.sh --plugin-only; the
# rules a few minutes.
#
# Exit status: 0 every family and rule switched off failed at least one
# test; 1 some did not (listed); 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test each rule is written for (plugin/samplefdo.h, enum sfdo_rule).
declare -A RULE_TESTS=(
    [zero-evidence]=101-decide-zero-evidence
    [statically-rare]=86-decide-rare-error-paths
    [revived-rare]=104-decide-revived-callers
    [cool-revived]=100-decide-revived-rare-paths
    [revive-callers]=104-decide-revived-callers
    [dead-calls]=88-decide-shared-line-calls
    [believed-zeros]=89-decide-extra-entries
    [above-dominator]=97-attribution-shared-code
    [zero-floor]=51-plugin-value-profiles
    [renumbered-loops]=110-decide-iteration
    [promoted-targets]=110-decide-iteration
    [tracer]=79-decide-tracer
    [values-confidence]=98-decide-values-confidence
    [vectorizer-zeros]=99-plugin-vectorizer-zeros
    [realign-instances]=84-stale-profile
    [copied-discriminators]=110-decide-iteration
)
ALL_FAMILIES=(hotcold inline loops icall values)
ALL_RULES=(zero-evidence statically-rare revived-rare cool-revived revive-callers
           dead-calls believed-zeros above-dominator zero-floor renumbered-loops
           promoted-targets tracer values-confidence vectorizer-zeros
           realign-instances copied-discriminators)

WRITE='' PART=both FAMILIES=() RULES=()
for a in "$@"; do
    case $a in
        --write) WRITE=1 ;;
        --families) PART=families ;;
        --rules) PART=rules ;;
        hotcold|inline|loops|icall|values) FAMILIES+=("$a") ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) if [[ -n ${RULE_TESTS[$a]:-} ]]; then RULES+=("$a")
           else echo "mutation-audit: unknown argument $a (see --help)" >&2; exit 2; fi ;;
    esac
done
if ((${#FAMILIES[@]} + ${#RULES[@]})); then
    ((${#FAMILIES[@]})) || PART=rules
    ((${#RULES[@]})) || PART=families
    ((${#FAMILIES[@]} && ${#RULES[@]})) && PART=both
fi
[[ $PART == rules ]] || ((${#FAMILIES[@]})) || FAMILIES=("${ALL_FAMILIES[@]}")
[[ $PART == families ]] || ((${#RULES[@]})) || RULES=("${ALL_RULES[@]}")
[[ $PART == rules ]] && FAMILIES=()
[[ $PART == families ]] && RULES=()

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

# wrappers DIR FLAG: the C and C++ drivers under DIR/bin.
wrappers() {
    mkdir -p "$1/bin"
    wrapper "$1/bin" "$GCC" "$2"
    wrapper "$1/bin" "$GXX" "$2"
}

declare -A failed rule_result
missing=()
for fam in "${FAMILIES[@]}"; do
    dir=$W/no-$fam
    wrappers "$dir" "-fplugin-arg-samplefdo-no-$fam"
    echo "mutation-audit: $fam off" >&2
    SFDO_GCC=$dir/bin/$(basename "$GCC") SFDO_GXX=$dir/bin/$(basename "$GXX") \
        SFDO_TEST_LOGS=$dir/logs tests/run.sh --plugin-only > "$dir/run.out" 2>&1 || true
    failed[$fam]=$(sed -n 's/^ *\(tests\/e2e\/[^ ]*\.sh\) (exit.*/\1/p' "$dir/run.out" |
                   xargs -rn1 basename | sed 's/\.sh$//' | paste -sd' ' -)
    [[ -n ${failed[$fam]} ]] || missing+=("$fam")
    echo "mutation-audit: $fam off: ${failed[$fam]:-no test failed}" >&2
done

# A rule's test with the rule switched off: "fails", or "passes" (the
# rule is untested), or "skips" (this machine cannot run the test).
for rule in "${RULES[@]}"; do
    dir=$W/rule-$rule test=${RULE_TESTS[$rule]}
    wrappers "$dir" "-fplugin-arg-samplefdo-no-rule=$rule"
    rc=0
    SFDO_GCC=$dir/bin/$(basename "$GCC") SFDO_GXX=$dir/bin/$(basename "$GXX") \
        bash "tests/e2e/$test.sh" > "$dir/test.out" 2>&1 || rc=$?
    case $rc in
        0) rule_result[$rule]="**passes**"; missing+=("rule $rule") ;;
        77) rule_result[$rule]="skips: $(grep -m1 SKIP "$dir/test.out" || true)" ;;
        *) rule_result[$rule]="fails: $(grep -m1 'FAIL' "$dir/test.out" | cut -c1-160 || true)" ;;
    esac
    echo "mutation-audit: rule $rule off: $test ${rule_result[$rule]}" >&2
done

# section_of FILE TITLE: the lines of FILE's section TITLE ("## ...") up
# to the next one, for a part this run did not redo.
section_of() {
    [[ -f $1 ]] && awk -v t="$2" '/^## / { on = ($0 == t) } on' "$1"
}

if [[ -n $WRITE ]]; then
    out=tests/e2e/MUTATION-AUDIT.md
    stamp="Commit $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $($GCC --version | head -n 1), took $(( $(date +%s) - START )) s"
    {
        echo "# Mutation audit: which tests fail when a decision family or a rule is off"
        echo
        echo "Written by \`tests/mutation-audit.sh --write\` (\`--families\` or \`--rules\` rewrites its own section only)."
        echo
        if ((${#FAMILIES[@]})); then
            echo "## Families"
            echo
            echo "$stamp."
            echo "Each row: every compilation that loads the plugin gets \`-fplugin-arg-samplefdo-no-FAMILY\` (a wrapper named as SFDO_GCC), and \`tests/run.sh --plugin-only\` runs; the tests that then fail.  A family no test fails without is untested."
            echo
            echo "| family off | tests that fail |"
            echo "|---|---|"
            for fam in "${FAMILIES[@]}"; do
                echo "| $fam | ${failed[$fam]:-**none**} |"
            done
            echo
        else
            section_of "$out" "## Families"
        fi
        if ((${#RULES[@]})); then
            echo "## Rules"
            echo
            echo "$stamp."
            echo "Each row: the test written for the rule, run with \`-fplugin-arg-samplefdo-no-rule=RULE\` given to every compilation that loads the plugin; its first failure line.  A rule whose test passes without it is untested."
            echo
            echo "| rule off | test | result |"
            echo "|---|---|---|"
            for rule in "${RULES[@]}"; do
                echo "| $rule | ${RULE_TESTS[$rule]} | ${rule_result[$rule]//|/\\|} |"
            done
            echo
        else
            section_of "$out" "## Rules"
        fi
    } > "$out.tmp"
    mv "$out.tmp" "$out"
    echo "mutation-audit: wrote $out" >&2
fi
if ((${#missing[@]})); then
    echo "mutation-audit: no test fails with these off: ${missing[*]}" >&2
    exit 1
fi
