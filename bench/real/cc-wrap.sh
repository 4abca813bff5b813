#!/usr/bin/env bash
# cc-wrap.sh - gcc, with every "@OBJ@" in an argument replaced by the
# object file being written (the argument of -o, without .o), so that each
# translation unit gets its own plugin dump file even under make -j.
args=() obj=
prev=
for a in "$@"; do
    [[ $prev == -o ]] && obj=${a%.o}
    prev=$a
done
for a in "$@"; do args+=("${a//@OBJ@/${obj:-a}}"); done
exec "${SFDO_BENCH_CC:-gcc}" "${args[@]}"
