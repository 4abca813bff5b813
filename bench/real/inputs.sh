# shellcheck shell=bash
# bench/real/inputs.sh - the training, small and reference runs of Lua,
# SQLite, bzip2 and xz as shell commands, for the benches that build these
# programs several ways and run them (bench/decisions-bench.sh,
# bench/stale-bench.sh, bench/lipo-bench.sh).  Sourced after ROOT and MODE (quick: the ref
# runs are the small ones) are set.

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
