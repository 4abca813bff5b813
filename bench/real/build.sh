# shellcheck shell=bash
# bench/real/build.sh - how each real program is built, one function per
# variant.  Sourced by bench/real-bench.sh, which sets:
#   ROOT   repository root (absolute)     SRC   unpacked sources
#   WORK   this mode's work directory      BUILD $ROOT/build (the tools)
# Every variant compiles the same sources with the same flags plus its own,
# each .c to its own object (so -fprofile-generate's .gcda names match under
# -fprofile-use), through bench/real/cc-wrap.sh, which gives each object
# its own plugin dump file (@OBJ@.dump).  SFDO_BENCH_CC names another
# compiler for compiling and linking (bench/llvm-bench.sh: clang-14).

readonly O2X_FLAGS="-funroll-loops -fpeel-loops -ftracer -fipa-cp-clone -fpredictive-commoning -fsplit-loops -funswitch-loops -fgcse-after-reload -fvect-cost-model=dynamic"

# variant_flags VARIANT PROG: the compiler flags of VARIANT (on top of -O2).
variant_flags() {
    local v=$1 p=$2 prof=$WORK/prof/$2 plugin=$BUILD/samplefdo.so
    case $v in
        O2)        echo "-g -gdwarf-4" ;;
        O2x)       echo "-g $O2X_FLAGS" ;;
        pgo-gen)   echo "-g -fprofile-generate -fprofile-update=single" ;;
        pgo)       echo "-g -fprofile-use -Wno-missing-profile -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof/sfdo.prof -fplugin-arg-samplefdo-dump-only -fplugin-arg-samplefdo-dump=@OBJ@.dump" ;;
        sfdo)      echo "-g -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof/sfdo.prof -fplugin-arg-samplefdo-dump=@OBJ@.dump" ;;
        afdo-cg)   echo "-g -gdwarf-4 -fauto-profile=$prof/create_gcov.afdo -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof/sfdo.prof -fplugin-arg-samplefdo-dump-only -fplugin-arg-samplefdo-dump=@OBJ@.dump" ;;
        afdo-sfdo) echo "-g -gdwarf-4 -fauto-profile=$prof/sfdo.afdo -fplugin=$plugin -fplugin-arg-samplefdo-profile=$prof/sfdo.prof -fplugin-arg-samplefdo-dump-only -fplugin-arg-samplefdo-dump=@OBJ@.dump" ;;
        *) echo "unknown variant $v" >&2; return 1 ;;
    esac
}

# The binary each program's build produces, relative to its build directory.
prog_binary() {
    case $1 in
        lua) echo lua ;; sqlite) echo speedtest1 ;; bzip2) echo bzip2 ;;
        xz) echo tree/src/xz/xz ;;
        zstd) echo zstd ;; jq) echo jq ;; xmllint) echo xmllint ;; gzip) echo gzip ;;
    esac
}

# compile_objs DIR "CFLAGS" "LDFLAGS" OUT SRC...: compile each SRC to
# DIR/obj/BASE.o, JOBS at a time, then link DIR/OUT. The compiles run in
# DIR with a relative -o obj/BASE.o: GCC hashes the object name as written
# into the profile id of static functions, so the instrumented and the
# -fprofile-use builds must spell it the same for their counts to match.
compile_objs() {
    local dir=$1 cflags=$2 ldflags=$3 out=$4
    shift 4
    mkdir -p "$dir/obj"
    (cd "$dir" && printf '%s\n' "$@" | xargs -P "$JOBS" -I{} sh -c \
        'f={}; b=${f##*/}; exec "$0" -O2 '"$cflags"' -c "$f" -o "obj/${b%.c}.o"' \
        "$ROOT/bench/real/cc-wrap.sh") || return 1
    local gen=
    [[ $cflags == *-fprofile-generate* ]] && gen=-fprofile-generate
    # SFDO_BENCH_LINK_PREFIX: words before the link command (bench/lipo-bench.sh:
    # sfdo-link --groups FILE --); SFDO_BENCH_LDFLAGS: flags after it (-flto=auto).
    # shellcheck disable=SC2086
    ${SFDO_BENCH_LINK_PREFIX:-} "${SFDO_BENCH_CC:-gcc}" -O2 $gen -o "$dir/$out" \
        "$dir"/obj/*.o $ldflags ${SFDO_BENCH_LDFLAGS:-}
}

prepare_lua() {
    mkdir -p "$SRC/lua-inc"
    echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > "$SRC/lua-inc/lua5.4-deb-multiarch.h"
}
build_lua() {   # DIR "FLAGS"
    local s=$SRC/lua5.4-5.4.4/src f srcs=()
    for f in "$s"/*.c; do [[ $f == */luac.c ]] || srcs+=("$f"); done
    compile_objs "$1" "$2 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$SRC/lua-inc" \
        "-lm -ldl -Wl,-E" lua "${srcs[@]}"
}

prepare_sqlite() {
    local a=$SRC/sqlite-amalgamation
    [[ -f $a/.done ]] && return 0
    rm -rf "$a" && mkdir -p "$a"
    (cd "$a" && ../sqlite3-3.40.1/configure --disable-tcl >configure.log 2>&1 &&
     make sqlite3.c >make.log 2>&1 &&
     cp ../sqlite3-3.40.1/test/speedtest1.c .) || { echo "sqlite amalgamation failed; see $a/*.log" >&2; return 1; }
    : > "$a/.done"
}
build_sqlite() {
    local a=$SRC/sqlite-amalgamation
    compile_objs "$1" "$2 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$a" \
        "-lm" speedtest1 "$a/sqlite3.c" "$a/speedtest1.c"
}

build_bzip2() {
    local s=$SRC/bzip2-1.0.8 f srcs=()
    for f in blocksort huffman crctable randtable compress decompress bzlib bzip2; do
        srcs+=("$s/$f.c")
    done
    compile_objs "$1" "$2 -D_FILE_OFFSET_BITS=64" "" bzip2 "${srcs[@]}"
}

# xz: configure once (in $SRC/xz-configured, with an absolute source path),
# then each variant builds in a copy of that tree.
prepare_xz() {
    local c=$SRC/xz-configured
    [[ -f $c/.done ]] && return 0
    rm -rf "$c" && mkdir -p "$c/tree"
    (cd "$c/tree" && "$SRC/xz-utils-5.4.1/configure" --disable-shared --disable-nls \
        --disable-doc --disable-scripts --disable-xzdec --disable-lzmadec \
        --disable-lzmainfo --disable-lzma-links --disable-threads \
        >../configure.log 2>&1) || { echo "xz configure failed; see $c/configure.log" >&2; return 1; }
    : > "$c/.done"
}
build_xz() {
    local dir=$1
    mkdir -p "$dir"
    rm -rf "$dir/tree"
    cp -a "$SRC/xz-configured/tree" "$dir/tree"
    if [[ -d $dir/gcda ]]; then   # -fprofile-use: the counts next to the objects
        (cd "$dir/gcda" && find . -name '*.gcda' -exec cp --parents {} ../tree/ \;)
    fi
    make -C "$dir/tree/src/liblzma" -j"$JOBS" CC="$ROOT/bench/real/cc-wrap.sh" \
        CFLAGS="-O2 $2" liblzma.la >"$dir/make.log" 2>&1 &&
    make -C "$dir/tree/src/xz" -j"$JOBS" CC="$ROOT/bench/real/cc-wrap.sh" \
        CFLAGS="-O2 $2" xz >>"$dir/make.log" 2>&1 ||
        { tail -n 20 "$dir/make.log" >&2; return 1; }
}

# zstd: the library (common, compress, decompress, dictBuilder) and the
# command-line tool in one binary, as the upstream Makefile's zstd-release
# does, but each .c to its own object: that Makefile names its object
# directory after a hash of the flags, which would break the .gcda names.
# Single-threaded (no ZSTD_MULTITHREAD), so runs are deterministic; the
# Huffman decoder's assembly is the same object in every variant.
build_zstd() {
    local s=$SRC/libzstd-1.5.4+dfsg2 f srcs=()
    for f in "$s"/lib/{common,compress,decompress,dictBuilder}/*.c "$s"/programs/*.c; do
        srcs+=("$f")
    done
    srcs+=("$s/lib/decompress/huf_decompress_amd64.S")
    compile_objs "$1" "$2 -DZSTD_LEGACY_SUPPORT=0 -I$s/lib -I$s/lib/common -I$s/programs" \
        "" zstd "${srcs[@]}"
}

# jq 1.6: Debian's source has no configure script (its rules run
# autoreconf), so the build is by hand: the two generated headers here,
# and on the command line the HAVE_ macros configure would find on
# glibc 2.36 (every libm function jq's libm.h knows but pow10, which
# glibc no longer exports).  Without oniguruma: test/match/sub are errors
# at run time, which no workload here calls.
readonly JQ_LIBM="acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh drem erf erfc exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp gamma hypot j0 j1 jn ldexp lgamma lgamma_r log log10 log1p log2 logb modf nearbyint nextafter nexttoward pow remainder rint round scalb scalbln significand sin sinh sqrt tan tanh tgamma trunc y0 y1 yn"
prepare_jq() {
    local g=$SRC/jq-gen
    mkdir -p "$g/src"
    echo '#define JQ_VERSION "1.6"' > "$g/src/version.h"
    # what jq's Makefile.am does to embed its builtins written in jq
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' \
        "$SRC/jq-1.6/src/builtin.jq" > "$g/src/builtin.inc"
}
build_jq() {
    local s=$SRC/jq-1.6/src f d="-DIEEE_8087 -D_GNU_SOURCE" srcs=()
    for f in $JQ_LIBM alloca_h timegm tm_tm_gmt_off strptime gmtime_r gmtime \
             localtime_r strftime gettimeofday mkstemp isatty memmem \
             pthread_key_create pthread_once __thread atexit; do
        d+=" -DHAVE_${f^^}"
    done
    for f in builtin bytecode compile execute jq_test jv jv_alloc jv_aux jv_dtoa \
             jv_file jv_parse jv_print jv_unicode linker locfile util lexer parser main; do
        srcs+=("$s/$f.c")
    done
    compile_objs "$1" "$2 $d -DUSE_ISATTY -I$SRC/jq-gen -I$SRC/jq-gen/src" "-lm" jq "${srcs[@]}"
}

# libxml2 2.9.14's xmllint, linked with the library's own objects (not
# the system's libxml2): configured once, for config.h and xmlversion.h,
# without Python, zlib, lzma, ICU, threads or the network code.
prepare_xmllint() {
    local c=$SRC/xmllint-configured
    [[ -f $c/.done ]] && return 0
    rm -rf "$c" && mkdir -p "$c"
    (cd "$c" && "$SRC/libxml2-2.9.14+dfsg/configure" --disable-shared --without-python \
        --without-zlib --without-lzma --without-icu --without-threads --without-http \
        --without-ftp --without-modules --without-readline --without-history \
        --without-debug > configure.log 2>&1) ||
        { echo "libxml2 configure failed; see $c/configure.log" >&2; return 1; }
    : > "$c/.done"
}
build_xmllint() {
    local s=$SRC/libxml2-2.9.14+dfsg c=$SRC/xmllint-configured f srcs=()
    # libxml2_la_SOURCES of its Makefile.am as configured above, and xmllint
    for f in SAX entities encoding error parserInternals parser tree hash list xmlIO \
             xmlmemory uri valid xlink HTMLparser HTMLtree debugXML xpath xpointer \
             xinclude nanohttp nanoftp catalog globals threads c14n xmlstring buf \
             xmlregexp xmlschemas xmlschemastypes xmlunicode xmlreader relaxng dict \
             SAX2 xmlwriter legacy chvalid pattern xmlsave xmlmodule schematron xzlib \
             xmllint; do
        srcs+=("$s/$f.c")
    done
    compile_objs "$1" "$2 -DHAVE_CONFIG_H -I$c -I$c/include -I$s/include -I$s" "-lm" \
        xmllint "${srcs[@]}"
}

# gzip 1.12: configured once; gnulib's replacement library (lib/libgzip.a)
# and the version string are built there once, at -O2 -g, and linked into
# every variant: portability glue, not where gzip spends its time, and the
# same code in each.  gzip's own sources go through compile_objs.  The
# autotools stay unrun: Debian's patches leave configure.ac newer than
# configure, which would make make want aclocal-1.16.
prepare_gzip() {
    local c=$SRC/gzip-configured
    [[ -f $c/.done ]] && return 0
    rm -rf "$c" && mkdir -p "$c"
    local no_auto=(ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true MAKEINFO=true)
    (cd "$c" && "$SRC/gzip-1.12/configure" --disable-dependency-tracking > configure.log 2>&1 &&
     make -C lib -j"$JOBS" "${no_auto[@]}" CFLAGS="-O2 -g" > make.log 2>&1 &&
     make "${no_auto[@]}" CFLAGS="-O2 -g" libver.a version.h >> make.log 2>&1) ||
        { echo "gzip configure or lib failed; see $c/*.log" >&2; return 1; }
    : > "$c/.done"
}
build_gzip() {
    local s=$SRC/gzip-1.12 c=$SRC/gzip-configured f srcs=()
    for f in bits deflate gzip inflate trees unlzh unlzw unpack unzip util zip; do
        srcs+=("$s/$f.c")
    done
    compile_objs "$1" "$2 -DHAVE_CONFIG_H -I$c -I$c/lib -I$s/lib -I$s" \
        "$c/libver.a $c/lib/libgzip.a" gzip "${srcs[@]}"
}

# gcda_copy PROG FROM TO: put the .gcda files of FROM's training run where
# -fprofile-use looks for them in TO (next to TO's objects).
gcda_copy() {
    local p=$1 from=$2 to=$3
    if [[ $p == xz ]]; then
        rm -rf "$to/gcda" && mkdir -p "$to/gcda"
        (cd "$from/tree" && find . -name '*.gcda' -exec cp --parents {} "$to/gcda/" \;)
    else
        mkdir -p "$to/obj"
        cp "$from"/obj/*.gcda "$to/obj/"
    fi
}

# collect_dump DIR: every object's plugin dump of DIR, in one file DIR/dump.
collect_dump() {
    find "$1" -name '*.dump' ! -path "$1/dump" -print0 | sort -z |
        xargs -0 -r cat > "$1/dump.tmp"
    mv "$1/dump.tmp" "$1/dump"
}
