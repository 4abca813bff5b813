#!/usr/bin/env bash
# cc-wrap.sh - gcc, with every "@OBJ@" in an argument replaced by the
# object file being written (the argument of -o, without .o), so that each
# translation unit gets its own plugin dump file even under make -j.  A
# link (an output, and no -c, -S, -E or -M) runs under
# SFDO_BENCH_LINK_PREFIX with SFDO_BENCH_LDFLAGS appended, as
# bench/real/build.sh's compile_objs runs its own links: make-driven
# builds (xz) link through here.
args=() obj='' link=0
prev=
for a in "$@"; do
    [[ $prev == -o ]] && obj=${a%.o} link=1
    prev=$a
done
for a in "$@"; do
    [[ $a == -c || $a == -S || $a == -E || $a == -M* ]] && link=0
done
for a in "$@"; do args+=("${a//@OBJ@/${obj:-a}}"); done
if ((link)); then
    # shellcheck disable=SC2086
    exec ${SFDO_BENCH_LINK_PREFIX:-} "${SFDO_BENCH_CC:-gcc}" "${args[@]}" ${SFDO_BENCH_LDFLAGS:-}
fi
# GCC 12's own -fauto-profile can crash in the vectorizer (a division by a
# zero count, "internal compiler error: Floating point exception" during
# the pass vect), depending on the recording: bzip2's compress.c did with
# sfdo's AFDO export of one timer recording in the quick bench, and does
# without the plugin too.  Such a unit of a -fauto-profile variant is
# compiled again with -fno-tree-vectorize, and the note says so (the bench
# reports it), rather than the peer's crash ending the whole bench.
[[ " ${args[*]}" == *" -fauto-profile="* ]] || exec "${SFDO_BENCH_CC:-gcc}" "${args[@]}"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"${SFDO_BENCH_CC:-gcc}" "${args[@]}" 2> "$err" && { cat "$err" >&2; exit 0; }
rc=$?
cat "$err" >&2
grep -q 'during GIMPLE pass: vect' "$err" && grep -q 'internal compiler error' "$err" || exit $rc
echo "cc-wrap: note: GCC's -fauto-profile crashed in the vectorizer on ${obj:-a}.o (a GCC 12 bug); compiled again with -fno-tree-vectorize" >&2
"${SFDO_BENCH_CC:-gcc}" "${args[@]}" -fno-tree-vectorize
