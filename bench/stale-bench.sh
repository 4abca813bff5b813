#!/usr/bin/env bash
# bench/stale-bench.sh - a profile of an older release applied to the
# current one (issue #18): Lua 5.4.2's profile (Debian 11's lua5.4) on Lua
# 5.4.4 (Debian 12's), SQLite 3.34.1's (Debian 11's sqlite3) on SQLite
# 3.40.1's speedtest1, and xz 5.2.5's (Debian 11's xz-utils) on xz 5.4.1
# (bzip2 is left out: Debian 11 and 12 have the same 1.0.8 sources), with
# the plugin aligning it by call sites
# (plugin/stale.cc) and without (-fplugin-arg-samplefdo-no-realign),
# beside a fresh profile of the current release and instrumented PGO.
#
# Usage: bench/stale-bench.sh [--quick] [--record timer|emulate]
#
#   Both releases are built at -O2 -g and recorded on the same training
#   inputs (those of bench/decisions-bench.sh): by default with the
#   emulated PMU (--emulate -b --regs: branch stacks, instructions,
#   registers), or with the timer.  The current release is then built with
#   each profile, each object dumping its final block counts, and measured:
#     1. block overlap (scripts/count-overlap.py) of each build's counts
#        with the fresh profile's and with -fprofile-use's (the plugin in
#        dump-only mode under -fprofile-use);
#     2. what the plugin said: functions whose lines moved, found under
#        their old name, unmoved, with no call site to align by;
#     3. decisions (bench/decisions.py) of the stale builds against the
#        fresh profile's build and against PGO's;
#     4. instructions and taken jumps of one run of the small inputs
#        (callgrind, ../shared/tools/jumps.py): the share of PGO's
#        taken-jump cut, and of the fresh profile's cut the stale one keeps;
#     5. wall time on the ref inputs, interleaved (bench/real/measure.py,
#        SFDO_BENCH_STALE_REPS repetitions, default 7), with an A/A row.
#   Writes the section "## Stale profiles: an older release's profile" of
#   bench/RESULTS.md (not with --quick: one repetition, small inputs).
#
#   The older releases come from deb.debian.org's pool (Debian 11's orig
#   tarballs, checked by their SHA-256), the current ones from apt-get
#   source (bench/real/fetch.sh); all under bench/work/ (ignored).
#   SFDO_BENCH_STALE_PROGRAMS chooses the programs (default "lua sqlite
#   xz").  xz's inputs are made from files every machine here has (a tar
#   of Lua's sources and ld.bfd to train on, slices of cc1 and of SQLite's
#   amalgamation to measure).
#
# Exit status: 0 done; 1 a step failed; 77 sources or tools missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=full RECORD=emulate
while (($#)); do
    case $1 in
        --quick) MODE=quick ;;
        --record) RECORD=$2; shift ;;
        --record=*) RECORD=${1#--record=} ;;
        *) echo "usage: bench/stale-bench.sh [--quick] [--record timer|emulate]" >&2; exit 2 ;;
    esac
    shift
done
[[ $RECORD == timer || $RECORD == emulate ]] ||
    { echo "stale-bench: --record takes timer or emulate" >&2; exit 2; }
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/stale/$MODE-$RECORD
JOBS=${SFDO_BENCH_REAL_JOBS:-2}
REPS=${SFDO_BENCH_STALE_REPS:-7}
[[ $MODE == quick ]] && REPS=1
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh
say() { printf '%s\n' "$*"; }
die() { printf 'stale-bench: error: %s\n' "$*" >&2; exit 1; }
JUMPS=$ROOT/../shared/tools/jumps.py
read -r -a PROGS <<<"${SFDO_BENCH_STALE_PROGRAMS:-lua sqlite xz}"
OLD=$ROOT/bench/work/stale/src
POOL=http://deb.debian.org/debian/pool/main

for t in sfdo-convert sfdo-record samplefdo.so; do
    [[ -e $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
[[ -f $JUMPS ]] || { echo "SKIP: stale-bench: $JUMPS is absent (../shared)" >&2; exit 77; }
rc=0; bench/real/fetch.sh || rc=$?
((rc == 0)) || exit "$rc"
prepare_lua
prepare_sqlite
prepare_xz

# fetch_old FILE SHA256 URL: FILE under $OLD, downloaded and checked.
fetch_old() {
    [[ -f $OLD/$1.ok ]] && return 0
    mkdir -p "$OLD"
    curl -fsS -o "$OLD/$1" "$3" ||
        { echo "SKIP: stale-bench: cannot download $3" >&2; exit 77; }
    echo "$2  $OLD/$1" | sha256sum -c --quiet - ||
        die "$1 does not have the expected SHA-256"
    case $1 in *.tar.gz) tar -C "$OLD" -xzf "$OLD/$1" ;; *) tar -C "$OLD" -xJf "$OLD/$1" ;; esac
    : > "$OLD/$1.ok"
}
# fetch_PROG: the older release's sources, ready to build.
fetch_lua() {
    fetch_old lua5.4_5.4.2.orig.tar.gz \
        11570d97e9d7303c0a59567ed1ac7c648340cd0db10d5fd594c09223ef2f524f \
        "$POOL/l/lua5.4/lua5.4_5.4.2.orig.tar.gz"
}
fetch_sqlite() {
    fetch_old sqlite3_3.34.1.orig.tar.xz \
        082f583440c662cb484ae1c124ffe285b587bbb7837e095e693026e6df50334d \
        "$POOL/s/sqlite3/sqlite3_3.34.1.orig.tar.xz"
    local a=$OLD/sqlite-3.34.1-amalgamation
    if [[ ! -f $a/.done ]]; then
        rm -rf "$a" && mkdir -p "$a"
        (cd "$a" && ../sqlite3-3.34.1/configure --disable-tcl > configure.log 2>&1 &&
            make sqlite3.c > make.log 2>&1 && cp ../sqlite3-3.34.1/test/speedtest1.c .) ||
            die "SQLite 3.34.1's amalgamation failed; see $a/*.log"
        : > "$a/.done"
    fi
}
fetch_xz() {
    fetch_old xz-utils_5.2.5.orig.tar.xz \
        3e1e518ffc912f86608a8cb35e4bd41ad1aec210df2a47aaa1f95e7f5576ef56 \
        "$POOL/x/xz-utils/xz-utils_5.2.5.orig.tar.xz"
    local c=$OLD/xz-5.2.5-configured
    if [[ ! -f $c/.done ]]; then
        rm -rf "$c" && mkdir -p "$c/tree"
        (cd "$c/tree" && "$OLD/xz-5.2.5/configure" --disable-shared --disable-nls \
            --disable-doc --disable-scripts --disable-xzdec --disable-lzmadec \
            --disable-lzmainfo --disable-lzma-links --disable-threads \
            > ../configure.log 2>&1) || die "xz 5.2.5's configure failed; see $c/configure.log"
        : > "$c/.done"
    fi
    make_xz_inputs
}
# xz's inputs (bench/real/inputs.sh makes them).
XZ_IN=$ROOT/bench/work/stale/xz-inputs-$MODE
# old_src PROG / new_src PROG: the source directory of each release (xz:
# its configured build tree).
old_src() {
    case $1 in lua) echo "$OLD/lua-5.4.2/src" ;; sqlite) echo "$OLD/sqlite-3.34.1-amalgamation" ;;
        xz) echo "$OLD/xz-5.2.5-configured/tree" ;; esac
}
new_src() {
    case $1 in lua) echo "$SRC/lua5.4-5.4.4/src" ;; sqlite) echo "$SRC/sqlite-amalgamation" ;;
        xz) echo "$SRC/xz-configured/tree" ;; esac
}
changed_lines() {   # PROG OLD-SRC NEW-SRC: lines a diff of the sources changes
    if [[ $1 == sqlite ]]; then
        { diff -u "$2/sqlite3.c" "$3/sqlite3.c"; diff -u "$2/speedtest1.c" "$3/speedtest1.c"; }
    elif [[ $1 == xz ]]; then
        diff -ru "$OLD/xz-5.2.5/src" "$SRC/xz-utils-5.4.1/src"
    else
        diff -u "$2" "$3"
    fi | grep -c '^[-+][^-+]' || true
}
release() {   # PROG old|new: its name and version
    case $1-$2 in
        lua-old) echo "Lua 5.4.2" ;; lua-new) echo "Lua 5.4.4" ;;
        sqlite-old) echo "SQLite 3.34.1" ;; sqlite-new) echo "SQLite 3.40.1" ;;
        xz-old) echo "xz 5.2.5" ;; xz-new) echo "xz 5.4.1" ;;
    esac
}

. bench/real/inputs.sh

# build_tree PROG DIR SRCDIR "FLAGS": PROG from SRCDIR into DIR.  Objects
# only are removed first: the instrumented build's .gcda files stay
# beside them for the -fprofile-use build.
build_tree() {
    local p=$1 d=$2 s=$3 f srcs=()
    find "$d" -name '*.o' -delete
    case $p in
        lua) for f in "$s"/*.c; do [[ $f == */luac.c ]] || srcs+=("$f"); done
             compile_objs "$d" "$4 -D'luai_makeseed(L)=0u' -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$SRC/lua-inc" \
                 "-lm -ldl -Wl,-E" lua "${srcs[@]}" ;;
        sqlite) compile_objs "$d" "$4 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$s" \
                 "-lm" speedtest1 "$s/sqlite3.c" "$s/speedtest1.c" ;;
        xz) rm -rf "$d/tree" && cp -a "$s" "$d/tree" &&
            if [[ -d $d/gcda ]]; then
                (cd "$d/gcda" && find . -name '*.gcda' -exec cp --parents {} ../tree/ \;)
            fi &&
            make -C "$d/tree/src/liblzma" -j"$JOBS" CC="$ROOT/bench/real/cc-wrap.sh" \
                CFLAGS="-O2 $4" liblzma.la &&
            make -C "$d/tree/src/xz" -j"$JOBS" CC="$ROOT/bench/real/cc-wrap.sh" \
                CFLAGS="-O2 $4" xz ;;
    esac > "$d/build.log" 2>&1 || { tail -20 "$d/build.log" >&2; die "building $d failed"; }
}

# record PROG DIR: DIR's build run on train into DIR/sfdo.prof.
record() {
    local bin=$2/$(prog_binary "$1") opts=(-c 50000 --regs)
    [[ $RECORD == emulate ]] && opts=(--emulate -c 20011 -b --regs)
    (cd "$2" && "$BUILD/sfdo-record" -q -o train.data "${opts[@]}" -- \
        sh -c "$(run_cmd "$1" "$bin" train)" > /dev/null 2> record.err) ||
        die "recording $2 failed: $(head -3 "$2/record.err")"
    "$BUILD/sfdo-convert" -q -o "$2/sfdo.prof" "$2/train.data" "$bin" ||
        die "converting $2 failed"
}

PLUGIN=$BUILD/samplefdo.so
REPORTS="-fopt-info-optimized=@OBJ@.opt -fdump-ipa-profile_estimate=@OBJ@.pe"
DUMP="-fplugin-arg-samplefdo-dump=@OBJ@.dump $REPORTS"
flags_of() {   # PROG VARIANT: its flags on top of -O2
    local w=$WORK/$1
    case $2 in
        O2) echo "-g" ;;
        pgo-gen) echo "-g -fprofile-generate -fprofile-update=single" ;;
        pgo) echo "-g -fprofile-use -Wno-missing-profile -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$w/new/sfdo.prof -fplugin-arg-samplefdo-dump-only $DUMP" ;;
        fresh) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$w/new/sfdo.prof $DUMP" ;;
        stale) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$w/old/sfdo.prof -fplugin-arg-samplefdo-verbose $DUMP" ;;
        unaligned) echo "-g -fplugin=$PLUGIN -fplugin-arg-samplefdo-profile=$w/old/sfdo.prof -fplugin-arg-samplefdo-no-realign $DUMP" ;;
    esac
}

rm -rf "$WORK"
for p in "${PROGS[@]}"; do
    say "== $p: builds and profiles"
    "fetch_$p"
    w=$WORK/$p os=$(old_src "$p") ns=$(new_src "$p")
    mkdir -p "$w"/{old,new,pgo,fresh,stale,unaligned}
    build_tree "$p" "$w/old" "$os" "-g"
    record "$p" "$w/old"
    build_tree "$p" "$w/new" "$ns" "-g"
    record "$p" "$w/new"
    build_tree "$p" "$w/pgo" "$ns" "$(flags_of "$p" pgo-gen)"
    (cd "$w/pgo" && sh -c "$(run_cmd "$p" "./$(prog_binary "$p")" train)" > /dev/null)
    if [[ $p == xz ]]; then   # the counts leave with the tree: keep them
        rm -rf "$w/pgo/gcda" && mkdir -p "$w/pgo/gcda"
        (cd "$w/pgo/tree" && find . -name '*.gcda' -exec cp --parents {} ../gcda/ \;)
    fi
    build_tree "$p" "$w/pgo" "$ns" "$(flags_of "$p" pgo)"
    for v in fresh stale unaligned; do build_tree "$p" "$w/$v" "$ns" "$(flags_of "$p" "$v")"; done
    printf '%s\t%s\t%s\t%s\n' "$p" "$(release "$p" old)" "$(release "$p" new)" \
        "$(changed_lines "$p" "$os" "$ns")" >> "$WORK/programs.tsv"
    say "  built ($(( $(date +%s) - START )) s)"

    # 1. overlap, 2. what the plugin said, 3. decisions
    for v in pgo fresh stale unaligned; do
        collect_dump "$w/$v"
        python3 bench/real/dump-global.py "$w/$v/dump" "$w/$v/dump.global" > /dev/null
    done
    : > "$w/overlap.tsv"
    for v in fresh stale unaligned; do
        for ref in fresh pgo; do
            [[ $v == "$ref" ]] && continue
            o=$(python3 scripts/count-overlap.py "$w/$ref/dump.global" "$w/$v/dump.global" | paste -sd' ')
            printf '%s\t%s\t%s\n' "$v" "$ref" "$o" >> "$w/overlap.tsv"
        done
    done
    grep -h 'samplefdo: .*: stale profile: \|lines moved with' "$w/stale/build.log" > "$w/stale.notes" || true
    python3 bench/decisions.py --json "$w/decisions-fresh.json" "$w/fresh" "$w/stale" "$w/unaligned" > /dev/null
    python3 bench/decisions.py --json "$w/decisions-pgo.json" "$w/pgo" "$w/fresh" "$w/stale" "$w/unaligned" > /dev/null

    # 4. deterministic counts of the small inputs
    : > "$w/jumps.tsv"
    for v in new pgo fresh stale unaligned; do
        read -r ir tk < <(count_small "$JUMPS" "$p" "$w/$v/$(prog_binary "$p")")
        printf '%s\t%s\t%s\n' "$v" "$ir" "$tk" >> "$w/jumps.tsv"
    done
    say "  counted ($(( $(date +%s) - START )) s)"
done

# 5. wall time
SPEC=$WORK/spec.tsv
: > "$SPEC"
for p in "${PROGS[@]}"; do
    norm=-; [[ $p == sqlite ]] && norm=strip-times
    for v in O2 O2again pgo fresh stale unaligned; do
        b=$WORK/$p/$v/$(prog_binary "$p")
        [[ $v == O2 || $v == O2again ]] && b=$WORK/$p/new/$(prog_binary "$p")
        run_cmd "$p" "$b" ref | tr ';' '\n' | sed 's/^ *//' | while IFS= read -r cmd; do
            if [[ -n $cmd ]]; then printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$norm" "$cmd"; fi
        done >> "$SPEC"
    done
done
python3 bench/real/measure.py "$SPEC" "$REPS" "$WORK/runs" "$WORK/times.json" ||
    die "timing failed (outputs differ?)"
[[ $MODE == quick ]] && { say "stale-bench --quick: every variant built and printed what -O2 prints"; exit 0; }

python3 bench/stale-report.py "$WORK" --record "$RECORD" --reps "$REPS" \
    --elapsed "$(( $(date +%s) - START ))" \
    --command "bench/stale-bench.sh --record $RECORD" > "$WORK/section.md"
results_write_section "## Stale profiles: an older release's profile" "$WORK/section.md"
say "wrote the section \"## Stale profiles: an older release's profile\" of bench/RESULTS.md"
