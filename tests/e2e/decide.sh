# shellcheck shell=bash
# decide.sh - one test program built three ways, for the tests that check
# a decision GCC makes from a profile (tests/e2e/*-decide-*.sh): plain
# -O2, instrumented PGO (-fprofile-generate, a run, -fprofile-use), and
# sfdo (the -O2 build recorded by sfdo-record while it runs, converted,
# rebuilt with the plugin).  Each build keeps its assembly (-save-temps)
# and the GCC dumps the test asks for, in $TEST_TMP/NAME/{o2,pgo,sfdo}/,
# named as -dumpbase "" names them (SRC.c.NNNt.PASS, SRC.s).  The builds
# must print what -O2 prints.
#
# Source it after lib.sh:
#     . "$(dirname "$0")/decide.sh"
#     decide_build NAME [OPTION...] SRC... -- [GCC FLAG...]
#
# Options:
#   --args "ARGS"        the program's arguments for every run
#   --record "OPTIONS"   sfdo-record options (default: decide_recording's)
#   --profiled "FLAGS"   extra flags of the recorded -O2 build only (such as
#                        -fno-omit-frame-pointer for call chains)
#   --profile FILE       use this profile instead of recording one
#   --cxx                compile with $SFDO_GXX (g++)
#
# After it: DECIDE_DIR=$TEST_TMP/NAME; files o2/, pgo/, sfdo/; the profile
# sfdo.prof; sfdo/plugin.err holds the plugin's verbose report.
#
# Recording: this machine's only sampling event is a timer, whose samples
# weigh blocks by time (a loop's cheap instructions in the shadow of an
# expensive chain look rarely run), so where sfdo-record's emulated PMU is
# built (--emulate, exact retired-instruction samples) the tests use it;
# otherwise they fall back to the timer and say so.  SFDO_RECORDER names
# another sfdo-record.

DECIDE_RECORDER=${SFDO_RECORDER:-$SFDO_BUILD/sfdo-record}

# decide_have_emulator: whether sfdo-record can emulate a PMU here.
decide_have_emulator() {
    "$DECIDE_RECORDER" --help 2>&1 | grep -q -- '--emulate' &&
        "$DECIDE_RECORDER" --emulate --stat -o /dev/null -- true >/dev/null 2>&1
}

# decide_recording [lbr] [regs]: the sfdo-record options for a test that
# needs branch stacks (call targets) or register values (value profiles).
# The emulated PMU's period is fixed (--no-jitter): the same samples every
# run, so that a test passes or fails by the code, not by the draw.
decide_recording() {
    local lbr= regs=
    for want in "$@"; do
        case $want in lbr) lbr=1 ;; regs) regs=1 ;; esac
    done
    if decide_have_emulator; then
        echo "--emulate --no-jitter -c 49999${lbr:+ -b}${regs:+ --regs}"
    else
        echo "$TEST_NAME: note: no emulated PMU here; sampling the timer" >&2
        echo "-c 50000${lbr:+ -g}${regs:+ --regs}"
    fi
}

# decide_need_emulator: skip unless sfdo-record can emulate a PMU.
decide_need_emulator() {
    decide_have_emulator ||
        skip "needs sfdo-record --emulate (Valgrind's tool libraries): the timer's samples cannot resolve this"
}

# decide_build NAME [OPTION...] SRC... -- [GCC FLAG...]
decide_build() {
    need_plugin
    local name=$1 args="" record="" profiled="" profile="" cc=$SFDO_GCC
    shift
    while (($#)) && [[ $1 == --* && $1 != -- ]]; do
        case $1 in
            --args) args=$2; shift 2 ;;
            --record) record=$2; shift 2 ;;
            --profiled) profiled=$2; shift 2 ;;
            --profile) profile=$2; shift 2 ;;
            --cxx) cc=$SFDO_GXX; shift ;;
            *) fail "decide_build: unknown option $1" ;;
        esac
    done
    local sources=()
    while (($#)) && [[ $1 != -- ]]; do
        sources+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
        shift
    done
    (($#)) && shift
    local flags=("$@")
    tmpdir
    DECIDE_DIR=$TEST_TMP/$name
    mkdir -p "$DECIDE_DIR"/{o2,pgo,sfdo,profiled}
    local -a run_args
    read -r -a run_args <<<"$args"

    _decide_compile "$cc" o2 "${sources[@]}" -- "${flags[@]}"
    (cd "$DECIDE_DIR/o2" && ./prog "${run_args[@]}" > ../o2.out) ||
        fail "$name: the -O2 build failed to run"

    _decide_compile "$cc" pgo "${sources[@]}" -- "${flags[@]}" -fprofile-generate
    (cd "$DECIDE_DIR/pgo" && ./prog "${run_args[@]}" > /dev/null) ||
        fail "$name: the instrumented build failed to run"
    _decide_compile "$cc" pgo "${sources[@]}" -- "${flags[@]}" -fprofile-use \
        -Wno-missing-profile

    if [[ -z $profile ]]; then
        _decide_compile "$cc" profiled "${sources[@]}" -- "${flags[@]}" -g $profiled
        [[ -n $record ]] || record=$(decide_recording)
        local -a record_opts
        read -r -a record_opts <<<"$record"
        (cd "$DECIDE_DIR/profiled" &&
            "$DECIDE_RECORDER" -q -o perf.data "${record_opts[@]}" -- \
                ./prog "${run_args[@]}" > /dev/null 2> record.err) ||
            fail "$name: sfdo-record failed: $(head -3 "$DECIDE_DIR/profiled/record.err")"
        "$SFDO_BUILD/sfdo-convert" -q -o "$DECIDE_DIR/sfdo.prof" \
            "$DECIDE_DIR/profiled/perf.data" "$DECIDE_DIR/profiled/prog" ||
            fail "$name: sfdo-convert failed"
    else
        cp "$profile" "$DECIDE_DIR/sfdo.prof"
    fi
    _decide_compile "$cc" sfdo "${sources[@]}" -- "${flags[@]}" \
        -fplugin="$SFDO_BUILD/samplefdo.so" \
        -fplugin-arg-samplefdo-profile="$DECIDE_DIR/sfdo.prof" \
        -fplugin-arg-samplefdo-verbose

    local v
    for v in pgo sfdo; do
        (cd "$DECIDE_DIR/$v" && ./prog "${run_args[@]}" > "../$v.out") ||
            fail "$name: the $v build failed to run"
        cmp -s "$DECIDE_DIR/o2.out" "$DECIDE_DIR/$v.out" ||
            fail "$name: the $v build prints something else than -O2"
    done
}

# _decide_compile CC VARIANT SRC... -- FLAG...: build VARIANT/prog.
_decide_compile() {
    local cc=$1 variant=$2
    shift 2
    local sources=()
    while (($#)) && [[ $1 != -- ]]; do
        sources+=("$1")
        shift
    done
    shift
    local dir=$DECIDE_DIR/$variant std=-std=gnu11
    [[ $cc == "$SFDO_GXX" ]] && std=-std=gnu++17
    (cd "$dir" && "$cc" "$std" -O2 -save-temps -dumpbase "" "$@" \
        "${sources[@]}" -o prog -lm > plugin.err 2>&1) ||
        fail "$variant build failed: $(head -n 8 "$dir/plugin.err")"
}

# decide_dump VARIANT SRC PASS: the path of VARIANT's dump of PASS for SRC
# (the base name of a source), failing if there is not exactly one.
decide_dump() {
    local found=("$DECIDE_DIR/$1/$2".[0-9][0-9][0-9][tir]."$3")
    [[ ${#found[@]} == 1 && -f ${found[0]} ]] ||
        fail "no single dump of pass $3 for $2 in $1 (dump flag missing?)"
    echo "${found[0]}"
}

# decide_block_dump PROFILE SRC: compile the C source SRC with the plugin
# and PROFILE (as the sfdo variant) for the plugin's dump of every
# block's counts, and print the dump's path; each annotation of a
# function is a section "function NAME".
decide_block_dump() {
    local out=$DECIDE_DIR/blocks.txt
    rm -f "$out"
    (cd "$DECIDE_DIR/sfdo" &&
        "$SFDO_GCC" -std=gnu11 -O2 -g -fplugin="$SFDO_BUILD/samplefdo.so" \
            -fplugin-arg-samplefdo-profile="$1" \
            -fplugin-arg-samplefdo-dump="$out" -c "$2" -o dump.o 2> dump.err) ||
        fail "compiling with the block dump failed: $(head -3 "$DECIDE_DIR/sfdo/dump.err")"
    echo "$out"
}

# decide_asm VARIANT SRC: VARIANT's assembly of SRC.
decide_asm() {
    local s=$DECIDE_DIR/$1/${2%.*}.s
    [[ -f $s ]] || fail "no assembly $s"
    echo "$s"
}

# decide_section VARIANT SRC FUNCTION: the section FUNCTION's entry is
# emitted in (.text, .text.hot, .text.unlikely, ...).
decide_section() {
    awk -v fn="$3" '
        /^[ \t]*\.section[ \t]/ { split($2, a, ","); sec = a[1] }
        /^[ \t]*\.text[ \t]*$/ { sec = ".text" }
        $0 == fn ":" { print sec; exit }' "$(decide_asm "$1" "$2")"
}

# decide_expect WHAT COND: fail with WHAT unless the shell test COND holds.
decide_expect() {
    local what=$1
    shift
    "$@" || fail "$what"
}

# decide_invalid_sums DUMP [EXCEPT]: how many "Invalid sum" reports DUMP
# has (0 when it is missing), leaving out those that contain EXCEPT.  A
# report of a call-graph node's caller counts is read as "NODE: report"
# (the node it follows, as "name/N"), so that EXCEPT can name nodes.
decide_invalid_sums() {
    local lines
    lines=$(awk '/^[^ \t;].*\/[0-9]+ \(/ { node = $1 }
                 /Invalid sum/ { print node ": " $0 }' "$1" 2>/dev/null) || true
    [[ -z ${2:-} ]] || lines=$(grep -vF -- "$2" <<<"$lines") || true
    grep -c . <<<"$lines" || true
}

# decide_sfdo_only_invalid_sums SRC [EXCEPT]: the dumps of SRC's sfdo
# build, as " PASS: N;" each, that report an "Invalid sum" where neither
# the -O2 nor the PGO build's dump of that pass does; empty when there is
# none.  Reports that contain the text EXCEPT are not counted, in any of
# the three builds.
decide_sfdo_only_invalid_sums() {
    local f pass n o p out= except=${2:-}
    for f in "$DECIDE_DIR"/sfdo/"$1".[0-9][0-9][0-9][it].*; do
        [[ -e $f ]] || continue
        pass=${f##*/}
        n=$(decide_invalid_sums "$f" "$except")
        (( n > 0 )) || continue
        o=$(decide_invalid_sums "$DECIDE_DIR/o2/$pass" "$except")
        p=$(decide_invalid_sums "$DECIDE_DIR/pgo/$pass" "$except")
        (( ${o:-0} > 0 || ${p:-0} > 0 )) || out+=" $pass: $n;"
    done
    printf '%s' "$out"
}
