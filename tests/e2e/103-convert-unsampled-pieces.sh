#!/usr/bin/env bash
# 103-convert-unsampled-pieces.sh - the lines of a sampled function's
# pieces that never ran are in its profile, at 0.
#
# tests/e2e/data/pieces.c at -O2: scale's error path goes to scale.cold,
# and GCC's function splitting leaves lookup's out-of-line copy as a
# header (the early return, and a jump to lookup.part.0, the loop) that
# no one calls: main inlines the header.  Neither piece runs.  The
# builders list the lines of the code that ran; these lines once were
# absent from the profile, which the plugin reads as code the profiled
# binary did not have (no evidence), not as code that never ran.
#   (a) the profile lists the line of lookup's early return (its store)
#       and the line of scale's cold call at 0, at their offsets from the
#       functions' declarations;
#   (b) both functions caught samples (the pieces are of sampled
#       functions), and --stats counts at least the two pieces (another
#       GCC may make more, of main or of libc's start-up code).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built sfdo-convert
need_perf_command
need_perf
T=$TEST_TMP
SRC=$SFDO_ROOT/tests/e2e/data/pieces.c
compile "$T/pieces" "$SRC" -O2 -g
syms=$(objdump -t "$T/pieces")
for piece in scale.cold lookup.part.0 lookup; do
    grep -Eq " $piece\$" <<<"$syms" ||
        skip "$SFDO_GCC -O2 made no $piece of pieces.c: the test shows nothing"
done
perf_record "$T/p.data" -- "$T/pieces" 3000000
"$SFDO_BUILD/sfdo-convert" --stats -o "$T/p.prof" "$T/p.data" "$T/pieces" \
    2> "$T/convert.err" || fail "sfdo-convert failed: $(cat "$T/convert.err")"

# line_of PATTERN: the first line of pieces.c matching PATTERN.
line_of() { grep -n -m1 -e "$1" "$SRC" | cut -d: -f1; }
# top_line FUNCTION OFFSET: the count at OFFSET of FUNCTION's own record
# (not of an inline instance), or "absent".
top_line() {
    awk -v fn="$1" -v off="$2" '
        /^[^ #]/ { split($0, h, ":"); f = (h[1] == fn); next }
        f && $1 == off ":" && /^ [0-9]/ { print $2; found = 1; exit }
        END { if (!found) print "absent" }' "$T/p.prof"
}
# total FUNCTION: the total of FUNCTION's record.
total() { awk -F: -v fn="$1" '$1 == fn { print $2; exit }' "$T/p.prof"; }

# (a)
off=$(( $(line_of 'sum_missed -= n;') - $(line_of '^lookup (') ))
got=$(top_line lookup "$off")
[[ $got == 0 ]] || fail "lookup's early return (offset $off) is $got in the profile, not 0"
off=$(( $(line_of 'fatal ("scale') - $(line_of '^scale (') ))
got=$(top_line scale "$off")
[[ $got == 0 ]] || fail "scale's cold call (offset $off) is $got in the profile, not 0"
echo "the never-run lines of lookup's header and scale.cold are listed at 0"

# (b)
for f in lookup scale; do
    (( $(total "$f") > 0 )) || fail "$f caught no sample: the test shows nothing"
done
pieces=$(sed -n 's/^sfdo-convert: \([0-9]*\) pieces of sampled functions.*/\1/p' "$T/convert.err")
(( ${pieces:-0} >= 2 )) ||
    fail "--stats counts ${pieces:-no} unsampled pieces, not 2 or more: $(cat "$T/convert.err")"
echo "both pieces belong to sampled functions; --stats counts them"
