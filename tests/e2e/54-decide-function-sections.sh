#!/usr/bin/env bash
# 54-decide-function-sections.sh - a function of the profiled binary that
# never ran goes to .text.unlikely and a hot one to .text.hot, as
# -fprofile-use places them; plain -O2 leaves both in .text.  A function
# that ran stays out of .text.unlikely when the only callers that can
# have entered it caught no sample.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_built sfdo-record sfdo-convert
need_plugin
decide_build sections "$SFDO_ROOT/tests/e2e/data/decide/sections.c" -- -g

grep -q '^report_usage:0:0$' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile does not list report_usage as never run"
for v in pgo sfdo; do
  s=$(decide_section $v sections.c report_usage)
  [[ $s == .text.unlikely ]] || fail "$v: report_usage is in '$s', not .text.unlikely"
  s=$(decide_section $v sections.c mix)
  [[ $s == .text.hot ]] || fail "$v: mix is in '$s', not .text.hot"
done
[[ $(decide_section o2 sections.c report_usage) == .text ]] ||
  fail "plain -O2 already moves report_usage: the test shows nothing"
echo "report_usage in .text.unlikely and mix in .text.hot, by PGO and by sfdo"

# A function that ran, behind a wrapper that caught no sample: the
# profile (fixed, to hold the counts where it shows) calls digest_checked
# never run and gives digest 30 entries, far under the hot threshold
# that spin's count sets.  GCC's ipa-profile marks a file-local function
# unlikely when all of its callers are, so digest followed its wrapper to
# .text.unlikely.  Only digest_checked can have called digest, so it ran
# too (rarely: not hot).
W=$TEST_TMP/wrapped.prof
cat > "$W" <<'PROF'
# sfdo-profile: 1
# mode: ip
# event: instructions:u:emulated period=49999 samples=5000
# tool: sfdo-convert 0.1.0
# samples: used=5000 dropped=0
spin:1000000000:1
 2: 1000000000
digest:200000:30
 3.3: 100000
 4.3: 100000
digest_checked:0:0
PROF
D=$SFDO_ROOT/tests/e2e/data/decide
decide_build wrapped --profile "$W" "$D/wrapped.c" "$D/wrapped_main.c" -- -g
for v in pgo sfdo; do
  for f in digest digest_checked; do
    s=$(decide_section $v wrapped.c $f)
    [[ $s == .text ]] || fail "$v: $f is in '$s', not .text"
  done
done
grep -q 'functions never ran (1 more ran because a function they call did)' \
  "$DECIDE_DIR/sfdo/plugin.err" ||
  fail "the plugin does not report digest_checked as run: $(grep 'never ran' "$DECIDE_DIR/sfdo/plugin.err")"
echo "digest and its unsampled wrapper digest_checked in .text, by PGO and by sfdo"

# A public function the program called only where GCC inlined it: the
# samples of its inline copies say it ran, but its out-of-line copy, kept
# for other units, never did.  -fprofile-use counts that copy's body
# after early inlining and puts it in .text.unlikely; the profile lists
# it as never run (its out-of-line copy caught no sample), and sfdo
# places it there too.
decide_build inlined "$D/inlined_public.c" -- -g
grep -q '^fold:0:0$' "$DECIDE_DIR/sfdo.prof" ||
  fail "the profile does not list fold's out-of-line copy as never run"
for v in pgo sfdo; do
  s=$(decide_section $v inlined_public.c fold)
  [[ $s == .text.unlikely ]] || fail "$v: fold is in '$s', not .text.unlikely"
done
[[ $(decide_section o2 inlined_public.c fold) == .text ]] ||
  fail "plain -O2 already moves fold: the test shows nothing"
echo "fold, run only inlined, in .text.unlikely by PGO and by sfdo"

# A copy this build does call keeps the counts of the instances the
# profiled binary had at those calls: with -fno-inline, fold is called
# from main's loop, and stays out of .text.unlikely.
(cd "$DECIDE_DIR/sfdo" &&
  "$SFDO_GCC" -std=gnu11 -O2 -g -fno-inline -fplugin="$SFDO_BUILD/samplefdo.so" \
    -fplugin-arg-samplefdo-profile="$DECIDE_DIR/sfdo.prof" \
    -S "$D/inlined_public.c" -o noinline.s 2> noinline.err) ||
  fail "compiling inlined_public.c with -fno-inline failed: $(head -3 "$DECIDE_DIR/sfdo/noinline.err")"
s=$(awk '/^[ \t]*\.section[ \t]/ { split($2, a, ","); sec = a[1] }
         /^[ \t]*\.text[ \t]*$/ { sec = ".text" }
         $0 == "fold:" { print sec; exit }' "$DECIDE_DIR/sfdo/noinline.s")
[[ -n $s && $s != .text.unlikely ]] ||
  fail "with -fno-inline, fold, called from main's loop, is in '$s'"
echo "with -fno-inline, fold keeps its inline instances' counts (in $s)"

# Inlined into another file's code by link-time optimisation, a function
# is not listed as never run: that file, compiled without -flto, calls it
# out of line, and the plugin compiling fold's own file sees no call to
# give the instances to.
L=$TEST_TMP/lto
mkdir -p "$L"
(cd "$L" && "$SFDO_GCC" -std=gnu11 -O2 -g -flto "$D/lto_fold_a.c" "$D/lto_fold_b.c" \
    -o prog > build.err 2>&1) || fail "the -flto build failed: $(head -3 "$L/build.err")"
read -r -a rec <<<"$(decide_recording)"
(cd "$L" && "$DECIDE_RECORDER" -q -o perf.data "${rec[@]}" -- ./prog > /dev/null 2> record.err) ||
  fail "recording the -flto build failed: $(head -3 "$L/record.err")"
"$SFDO_BUILD/sfdo-convert" -q -o "$L/lto.prof" "$L/perf.data" "$L/prog" ||
  fail "converting the -flto build's recording failed"
grep -q '^main:' "$L/lto.prof" || fail "the -flto build's profile has no main"
grep -q '^fold:0:0$' "$L/lto.prof" &&
  fail "the profile lists fold, inlined across files by -flto, as never run"
echo "fold, inlined into another file by -flto, not listed as never run"
