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
exec "${SFDO_BENCH_CC:-gcc}" "${args[@]}"
