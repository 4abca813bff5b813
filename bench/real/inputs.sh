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
