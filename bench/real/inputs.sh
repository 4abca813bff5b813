# shellcheck shell=bash
# bench/real/inputs.sh - the training, small and reference runs of Lua,
# SQLite, bzip2, xz, zstd, gzip, jq and xmllint as shell commands, for the
# benches that build these programs several ways and run them
# (bench/decisions-bench.sh, bench/stale-bench.sh, bench/lipo-bench.sh,
# bench/wide-bench.sh).  Sourced after ROOT and MODE (quick: the ref runs
# are the small ones) are set.  zstd, gzip, jq and xmllint have one ref
# input, sized for callgrind (well under a second natively), which is
# also their small run; quick makes every input of theirs smaller.

LUA_DIR=$ROOT/bench/real/lua
LUA_SCRIPTS=(fib binarytrees nbody spectralnorm fannkuch strings sort)
LUA_TRAIN=(25 10 20000 100 8 20000 20000)
LUA_SMALL=(22 9 6000 60 7 6000 6000)
if [[ $MODE == quick ]]; then LUA_REF=("${LUA_SMALL[@]}"); else
    LUA_REF=(32 13 100000 300 9 80000 60000); fi
SQL_TRAIN=20 SQL_SMALL=3
SQL_REF=$([[ $MODE == quick ]] && echo 3 || echo 40)

# run_cmd PROG BIN WHICH: the shell command of PROG's run (train, small,
# ref); Lua's string hash is seeded from the clock and addresses, which
# moves instruction counts: the builds fix it with -D'luai_makeseed(L)=0u'.
run_cmd() {
    local p=$1 b=$2 w=$3 i c="" sizes=()
    case $p in
        lua) case $w in train) sizes=("${LUA_TRAIN[@]}") ;; small) sizes=("${LUA_SMALL[@]}") ;;
                 *) sizes=("${LUA_REF[@]}") ;; esac
             for i in "${!LUA_SCRIPTS[@]}"; do
                 c+="$b $LUA_DIR/${LUA_SCRIPTS[i]}.lua ${sizes[i]}; "
             done
             echo "$c" ;;
        sqlite) local s=$SQL_REF
                [[ $w == train ]] && s=$SQL_TRAIN
                [[ $w == small ]] && s=$SQL_SMALL
                echo "$b --memdb --size $s --testset main --verify" ;;
        # bzip2's are in BZ_IN (bench/lipo-bench.sh makes them)
        bzip2) case $w in
                train) echo "$b -9 -c $BZ_IN/train.tar | $b -dc > /dev/null" ;;
                small) echo "$b -9 -c $BZ_IN/small.bin" ;;
                *) echo "$b -9 -c $BZ_IN/ref.bin; $b -dc $BZ_IN/ref.bz2; " ;;
            esac ;;
        # xz's inputs are in XZ_IN (bench/stale-bench.sh makes them)
        xz) case $w in
                train) echo "$b -6 -c $XZ_IN/train.tar | $b -dc > /dev/null" ;;
                small) echo "$b -6 -c $XZ_IN/small.bin" ;;
                *) echo "$b -6 -c $XZ_IN/ref.bin; $b -dc $XZ_IN/ref.xz; " ;;
            esac ;;
        # zstd's inputs are in ZSTD_IN, gzip's in GZ_IN (make_zstd_inputs,
        # make_gzip_inputs): train covers each level family (fast,
        # double-fast, greedy, lazy, lazy2, btlazy2), ref other levels of
        # them on other data
        zstd) case $w in
                train) echo "for l in 1 3 5 7 9 13; do $b -q -\$l -c $ZSTD_IN/train.tar | $b -q -dc; done > /dev/null" ;;
                *) echo "$b -q -2 -c $ZSTD_IN/ref.bin; $b -q -6 -c $ZSTD_IN/ref.bin; $b -q -12 -c $ZSTD_IN/ref-12.bin; $b -q -dc $ZSTD_IN/ref.zst; " ;;
            esac ;;
        gzip) case $w in
                train) echo "for l in 1 6 9; do $b -\$l -c $GZ_IN/train.tar | $b -dc; done > /dev/null" ;;
                *) echo "$b -3 -c $GZ_IN/ref.bin; $b -7 -c $GZ_IN/ref.bin; $b -dc $GZ_IN/ref.gz; " ;;
            esac ;;
        # jq's in JQ_IN (make_jq_inputs); the filters are bench/real/jq/
        jq) local f=$ROOT/bench/real/jq
            case $w in
                train) echo "$b -c -f $f/train-groups.jq $JQ_IN/train.json; $b -r -f $f/train-rows.jq $JQ_IN/train.json; $b -c -f $f/train-reshape.jq $JQ_IN/train.json; " ;;
                *) echo "$b -c -f $f/ref-tags.jq $JQ_IN/ref.json; $b -r -f $f/ref-lines.jq $JQ_IN/ref.json; $b -S -f $f/ref-select.jq $JQ_IN/ref.json; " ;;
            esac ;;
        # xmllint's in XML_IN (make_xmllint_inputs): DTD validation, XML
        # Schema validation (entities substituted: the schema validator
        # refuses entity references), and a serialisation (--format in
        # train, canonical XML in ref)
        xmllint) case $w in
                train) echo "$b --noout --valid $XML_IN/train.xml; $b --format $XML_IN/train.xml; $b --noout --noent --schema $XML_IN/catalog.xsd $XML_IN/train.xml; " ;;
                *) echo "$b --noout --valid $XML_IN/ref.xml; $b --c14n $XML_IN/ref.xml; $b --noout --noent --schema $XML_IN/catalog.xsd $XML_IN/ref.xml; " ;;
            esac ;;
    esac
}

# count_small JUMPS PROG BIN: "INSTRUCTIONS TAKEN-JUMPS" of PROG's small
# runs of BIN, each counted by JUMPS (../shared/tools/jumps.py, callgrind).
count_small() {
    local ir=0 tk=0 cmd a b words
    while IFS= read -r cmd; do
        [[ -n $cmd ]] || continue
        read -r -a words <<<"$cmd"
        read -r _ a _ b < <(python3 "$1" -- "${words[@]}")
        ir=$((ir + a)) tk=$((tk + b))
    done < <(run_cmd "$2" "$3" small | tr ';' '\n' | sed 's/^ *//')
    echo "$ir $tk"
}

# make_xz_inputs: xz's training, small and reference inputs in XZ_IN (the
# bench sets it), made once; smaller under --quick.
make_xz_inputs() {
    [[ -f $XZ_IN/.done ]] && return 0
    rm -rf "$XZ_IN" && mkdir -p "$XZ_IN"
    local cc1 sq=$SRC/sqlite-amalgamation/sqlite3.c k=512
    cc1=$(gcc -print-prog-name=cc1)
    [[ $MODE == quick ]] && k=64
    (cd "$SRC" && tar chf - --mtime=@0 --sort=name --owner=0 --group=0 \
        lua5.4-5.4.4/src -C /usr/bin ld.bfd) > "$XZ_IN/train.tar"
    truncate -s $((k * 4096)) "$XZ_IN/train.tar"   # 2 MB, 256 KB quick
    dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes skip=6000000 count=$((k * 256)) \
        status=none > "$XZ_IN/small.bin"
    { dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes skip=8000000 count=$((k * 1024)) status=none
      dd if="$sq" bs=64K iflag=skip_bytes,count_bytes skip=2000000 count=$((k * 1024)) status=none
    } > "$XZ_IN/ref.bin"
    dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes count=$((k * 8192)) status=none |
        xz -1 -T2 -c > "$XZ_IN/ref.xz"
    : > "$XZ_IN/.done"
}

# make_bzip2_inputs: bzip2's, in BZ_IN, the same way.
make_bzip2_inputs() {
    [[ -f $BZ_IN/.done ]] && return 0
    rm -rf "$BZ_IN" && mkdir -p "$BZ_IN"
    local cc1 k=256
    cc1=$(gcc -print-prog-name=cc1)
    [[ $MODE == quick ]] && k=32
    (cd "$SRC" && tar chf - --mtime=@0 --sort=name --owner=0 --group=0 \
        lua5.4-5.4.4/src -C /usr/bin ld.bfd) > "$BZ_IN/train.tar"
    truncate -s $((k * 4096)) "$BZ_IN/train.tar"
    dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes skip=6000000 count=$((k * 256)) \
        status=none > "$BZ_IN/small.bin"
    { dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes skip=8000000 count=$((k * 16384)) status=none
      dd if="$SRC/sqlite3-3.40.1/src/where.c" bs=64K status=none
    } > "$BZ_IN/ref.bin"
    dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes count=$((k * 16384)) status=none |
        bzip2 -9 -c > "$BZ_IN/ref.bz2"
    : > "$BZ_IN/.done"
}

# compress_corpus DIR TRAIN_KB REF_KB: DIR/train.tar (source trees of the
# unpacked packages and the linker binary: C text and x86 code) and
# DIR/ref.bin (other bytes: cc1's code and SQLite's sources), for zstd
# and gzip; the same bytes on every machine with these package versions.
compress_corpus() {
    local d=$1 kt=$2 kr=$3 cc1
    cc1=$(gcc -print-prog-name=cc1)
    # whole tars, then cut: head on a pipe would stop tar with SIGPIPE
    (cd "$SRC" && tar chf - --mtime=@0 --sort=name --owner=0 --group=0 \
        lua5.4-5.4.4/src xz-utils-5.4.1/src bzip2-1.0.8 jq-1.6/src \
        libxml2-2.9.14+dfsg/*.c -C /usr/bin ld.bfd) > "$d/train.tar"
    truncate -s $((kt * 1024)) "$d/train.tar"
    (cd "$SRC" && tar cf - --mtime=@0 --sort=name --owner=0 --group=0 sqlite3-3.40.1/src) > "$d/sq.tar"
    truncate -s $((kr * 512)) "$d/sq.tar"
    { dd if="$cc1" bs=64K iflag=skip_bytes,count_bytes skip=16000000 count=$((kr * 512)) status=none
      cat "$d/sq.tar"; } > "$d/ref.bin"
    rm "$d/sq.tar"
}

# make_zstd_inputs: zstd's, in ZSTD_IN (the bench sets it), made once;
# ref.zst is the system zstd's output, so every variant decompresses the
# same frames.
make_zstd_inputs() {
    [[ -f $ZSTD_IN/.done ]] && return 0
    rm -rf "$ZSTD_IN" && mkdir -p "$ZSTD_IN"
    local kt=8192 kr=8192
    [[ $MODE == quick ]] && kt=512 kr=512
    compress_corpus "$ZSTD_IN" "$kt" "$kr"
    head -c $((kr * 256)) "$ZSTD_IN/ref.bin" > "$ZSTD_IN/ref-12.bin"
    { tail -c $((kr * 512)) "$ZSTD_IN/ref.bin"; head -c $((kr * 256)) "$ZSTD_IN/train.tar"; } |
        zstd -q -4 -c > "$ZSTD_IN/ref.zst"
    : > "$ZSTD_IN/.done"
}

# make_gzip_inputs: gzip's, in GZ_IN, the same way (ref.gz by the
# system gzip).
make_gzip_inputs() {
    [[ -f $GZ_IN/.done ]] && return 0
    rm -rf "$GZ_IN" && mkdir -p "$GZ_IN"
    local kt=8192 kr=6144
    [[ $MODE == quick ]] && kt=512 kr=512
    compress_corpus "$GZ_IN" "$kt" "$kr"
    { tail -c $((kr * 512)) "$GZ_IN/ref.bin"; head -c $((kr * 512)) "$GZ_IN/train.tar"; } |
        gzip -n -5 -c > "$GZ_IN/ref.gz"
    : > "$GZ_IN/.done"
}

# make_jq_inputs: jq's, in JQ_IN: JSON arrays of generated records
# (bench/real/gen-input.py), another seed and size for ref.
make_jq_inputs() {
    [[ -f $JQ_IN/.done ]] && return 0
    rm -rf "$JQ_IN" && mkdir -p "$JQ_IN"
    local nt=20000 nr=8000
    [[ $MODE == quick ]] && nt=2000 nr=800
    python3 "$ROOT/bench/real/gen-input.py" json 2 "$nt" > "$JQ_IN/train.json"
    python3 "$ROOT/bench/real/gen-input.py" json 3 "$nr" > "$JQ_IN/ref.json"
    : > "$JQ_IN/.done"
}

# make_xmllint_inputs: xmllint's, in XML_IN: generated catalogs valid by
# their DTD and by catalog.xsd.
make_xmllint_inputs() {
    [[ -f $XML_IN/.done ]] && return 0
    rm -rf "$XML_IN" && mkdir -p "$XML_IN"
    local nt=20000 nr=8000
    [[ $MODE == quick ]] && nt=2000 nr=800
    python3 "$ROOT/bench/real/gen-input.py" xml 2 "$nt" > "$XML_IN/train.xml"
    python3 "$ROOT/bench/real/gen-input.py" xml 3 "$nr" > "$XML_IN/ref.xml"
    python3 "$ROOT/bench/real/gen-input.py" xsd > "$XML_IN/catalog.xsd"
    : > "$XML_IN/.done"
}
