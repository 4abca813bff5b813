#!/usr/bin/env bash
# 51-plugin-value-profiles.sh - value histograms recorded here reach GCC's
# value-profile transformations: a division specialised for its common
# divisor, a memcpy for its common size, an indirect call promoted to
# speculative direct calls.  Each rebuilt program prints what -O2 prints.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-convert
need_plugin
need_perf
cd "$TEST_TMP"
DATA=$SFDO_ROOT/tests/e2e/data
PLUGIN=(-fplugin="$SFDO_BUILD/samplefdo.so")
REGS=--user-regs=ax,bx,cx,dx,si,di,r8,r9,r10,r11,r12,r13,r14,r15

# profile NAME FLAGS...: build DATA/NAME.c, record it, convert, rebuild with
# the plugin (extra gcc FLAGS), check the output is unchanged.
profile () {
  local name=$1
  shift
  compile "$name" "$DATA/$name.c" -O2 -g -fno-omit-frame-pointer
  ./"$name" > "$name.out"
  # A fifth of the usual period: only samples in the few instructions
  # before a division or a call reveal its operand.
  perf_record "$name.data" -c $((PERF_PERIOD / 5)) "$REGS" -g -- ./"$name"
  "$SFDO_BUILD/sfdo-convert" -q "$name.data" "$name" -o "$name.prof"
  "$SFDO_GCC" -std=c11 -O2 -g -fno-omit-frame-pointer -fchecking=2 "${PLUGIN[@]}" \
    -fplugin-arg-samplefdo-profile="$name.prof" -fplugin-arg-samplefdo-verbose \
    "$@" "$DATA/$name.c" -o "$name-fdo" 2> "$name.err" ||
    fail "$name: build with the plugin failed: $(head -5 "$name.err")"
  ./"$name-fdo" > "$name-fdo.out"
  cmp -s "$name.out" "$name-fdo.out" || fail "$name: the rebuilt program prints something else"
  grep -Eq '[1-9][0-9]* indirect-call and|[1-9][0-9]* value histograms' "$name.err" ||
    fail "$name: no value histogram reached GCC: $(tail -2 "$name.err")"
}

profile divisors -fdump-tree-optimized
grep -q '!= 7)\|== 7)' divisors-fdo-divisors.c.*optimized ||
  fail "the division was not specialised for divisor 7"
grep -q '^!Values: .* divmod 7:\|^ *!Values: .* divmod 7:' divisors.prof ||
  fail "the profile has no divisor histogram led by 7: $(grep Values divisors.prof)"

profile memsizes -fdump-tree-optimized
grep -q '== 100)' memsizes-fdo-memsizes.c.*optimized ||
  fail "memcpy was not specialised for size 100"

profile icalls -fdump-ipa-profile_estimate-details
grep -q 'speculative call main/[0-9]* => add1' icalls-fdo-icalls.c.*profile_estimate ||
  fail "the indirect call was not promoted to add1: $(grep -i specul icalls-fdo-icalls.c.*profile_estimate | head -3)"

# With callchains, a head count is the calls into the function: add1's head
# is what main's indirect call sent it.
head=$(awk -F: '/^add1:/ {print $3}' icalls.prof)
calls=$(grep -o ' add1:[0-9]*' icalls.prof | head -1 | cut -d: -f2)
[[ -n $head && $head == "$calls" ]] ||
  fail "add1's head count ($head) is not the calls main made to it ($calls)"
