#!/usr/bin/env bash
# bench/unwind-bench.sh - call edges without LBR (issue #16): how much user
# stack sfdo-record must copy with each sample for sfdo-convert to find
# the callers, and what the copies cost.
#
# Usage: bench/unwind-bench.sh
#
#   Programs, all built -O2 -g without frame pointers: the test programs
#   of the call-edge test (tests/e2e/data/decide/icall.c, virtual.cc,
#   tests/e2e/data/calls/qsort_cb.c), examples/demo.c, and Lua 5.4 and
#   SQLite's speedtest1 from Debian's sources (bench/real/fetch.sh; left
#   out, saying so, where the sources cannot be had).
#
#   Coverage: each program is recorded by sfdo-record with --call-graph
#   dwarf,SIZE for SIZE 256, 512, 1024 (the default) and 8192 bytes, and
#   converted with --stats: the share of samples whose caller was
#   recovered, and of walks that reached the outermost frame (main's
#   callers) instead of the end of the copy.
#
#   Targets: the indirect-call shares the 1024-byte profiles of icall,
#   virtual and costly_targets give, and those of a recording by the
#   emulated PMU with registers (sfdo-record --emulate --regs: exact
#   instruction samples, the register each call goes through), beside
#   the exact shares (14/16, 1/16, 1/16 and 15/16, 1/16 by construction;
#   costly_targets prints the calls it made).
#
#   Entry counts: the overlap of the functions' entry counts with
#   -fprofile-use's (scripts/measure-overlap.sh, the C programs, 3
#   recordings each), IP-only (perf record on the timer) beside sfdo-record's
#   default (stack copies: heads from the calls into each function).
#
#   Cost: the wall time of each program under sfdo-record with
#   --call-graph none (IP only), twice (an A/A control), and with 1024 and
#   8192 bytes, interleaved in a rotated order, SFDO_BENCH_UNWIND_REPS
#   repetitions (default 7); the median of the per-repetition ratios to
#   the first IP-only run, with the recordings' bytes per second.
#
#   Writes the section "## Call edges without LBR" of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build
SRC=$ROOT/bench/work/real/src
WORK=$ROOT/bench/work/unwind
REPS=${SFDO_BENCH_UNWIND_REPS:-7}
SIZES=(256 512 1024 8192)
START=$(date +%s)
# shellcheck source=bench/real/build.sh
. bench/real/build.sh
. bench/lib.sh
say() { printf 'unwind-bench: %s\n' "$*" >&2; }
die() { printf 'unwind-bench: error: %s\n' "$*" >&2; exit 1; }
for t in sfdo-record sfdo-convert; do
    [[ -x $BUILD/$t ]] || die "$BUILD/$t is missing; run make first"
done
rm -rf "$WORK" && mkdir -p "$WORK/bin"

# --- the programs: NAME<TAB>BINARY<TAB>shell command ------------------------
PROGS=$WORK/programs.tsv
: > "$PROGS"
build_test_program() {   # NAME SOURCE "ARGS"
    local cc=gcc
    [[ $2 == *.cc ]] && cc=g++
    "$cc" -O2 -g -o "$WORK/bin/$1" "$2" || die "cannot build $2"
    printf '%s\t%s\t%s\n' "$1" "$WORK/bin/$1" "$WORK/bin/$1 $3" >> "$PROGS"
}
build_test_program icall tests/e2e/data/decide/icall.c 200000000
build_test_program virtual tests/e2e/data/decide/virtual.cc 200000000
build_test_program qsort_cb tests/e2e/data/calls/qsort_cb.c 1500
build_test_program costly_targets tests/e2e/data/calls/costly_targets.c 20000000
build_test_program demo examples/demo.c 100
REAL_NOTE=
rc=0; bench/real/fetch.sh >"$WORK/fetch.log" 2>&1 || rc=$?
if ((rc == 0)); then
    prepare_lua
    prepare_sqlite
    JOBS=2
    build_lua "$WORK/lua" "-g" >"$WORK/lua.log" 2>&1 || die "building Lua failed ($WORK/lua.log)"
    build_sqlite "$WORK/sqlite" "-g" >"$WORK/sqlite.log" 2>&1 || die "building SQLite failed ($WORK/sqlite.log)"
    lua_cmd=""
    for s in "fib 27" "binarytrees 12" "nbody 60000" "spectralnorm 160" "fannkuch 8" "strings 40000" "sort 30000"; do
        read -r name arg <<<"$s"
        lua_cmd+="$WORK/lua/lua $ROOT/bench/real/lua/$name.lua $arg; "
    done
    printf 'lua\t%s\t%s\n' "$WORK/lua/lua" "$lua_cmd" >> "$PROGS"
    printf 'sqlite\t%s\t%s\n' "$WORK/sqlite/speedtest1" \
        "$WORK/sqlite/speedtest1 --memdb --size 25 --testset main" >> "$PROGS"
else
    REAL_NOTE="Lua and SQLite left out: bench/real/fetch.sh could not get their sources here (exit $rc)."
    say "$REAL_NOTE"
fi

# --- coverage ----------------------------------------------------------------
# record NAME MODE CMD: record CMD with --call-graph MODE into
# $WORK/NAME.MODE.data.
record() {
    "$BUILD/sfdo-record" -q --call-graph "$2" -o "$WORK/$1.$2.data" -- sh -c "$3" \
        >/dev/null 2>"$WORK/$1.$2.err" || die "sfdo-record $2 of $1 failed: $(head -3 "$WORK/$1.$2.err")"
}
COVER=$WORK/coverage.tsv   # NAME SIZE SAMPLES RECOVERED OUTERMOST
: > "$COVER"
while IFS=$'\t' read -r name bin cmd; do
    for size in "${SIZES[@]}"; do
        record "$name" "dwarf,$size" "$cmd"
        "$BUILD/sfdo-convert" --stats -o "$WORK/$name.$size.prof" \
            "$WORK/$name.dwarf,$size.data" "$bin" 2>"$WORK/$name.$size.stats" >/dev/null ||
            die "sfdo-convert of $name ($size) failed: $(head -3 "$WORK/$name.$size.stats")"
        sed -nE "s/.*: ([0-9]+) samples unwound.*recovered in ([0-9]+) .*/\1 \2/p" \
            "$WORK/$name.$size.stats" | {
            read -r samples recovered || die "no unwinding figures for $name ($size)"
            outer=$(sed -nE 's/.*outermost frame ([0-9]+).*/\1/p' "$WORK/$name.$size.stats")
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$samples" "$recovered" "${outer:-0}" >> "$COVER"
        }
    done
    say "coverage of $name done ($(( $(date +%s) - START )) s)"
done < "$PROGS"

# --- targets under the emulated PMU -----------------------------------------
if [[ -e $BUILD/sfdoemu-amd64-linux ]]; then
    for p in "icall 20000000" "virtual 20000000" "costly_targets 2000000"; do
        read -r name arg <<<"$p"
        "$BUILD/sfdo-record" -q --emulate --regs -c 10007 -o "$WORK/$name.emu.data" \
            -- "$WORK/bin/$name" "$arg" > "$WORK/$name.emu.out" 2>"$WORK/$name.emu.err" ||
            die "sfdo-record --emulate of $name failed: $(head -3 "$WORK/$name.emu.err")"
        "$BUILD/sfdo-convert" -q -o "$WORK/$name.emu.prof" "$WORK/$name.emu.data" \
            "$WORK/bin/$name" || die "sfdo-convert of $name (emulated) failed"
    done
fi
"$WORK/bin/costly_targets" 100000 > "$WORK/costly_targets.counts"

# --- entry counts --------------------------------------------------------------
ENTRIES=$WORK/entries.tsv   # NAME MODE REP ENTRY-OVERLAP BLOCK-OVERLAP
: > "$ENTRIES"
while read -r name src args; do
    for mode in timer default; do
        for rep in 1 2 3; do
            # shellcheck disable=SC2086
            read -r _ global _ _ _ entry < <(SFDO_RECORD_MODE=$mode SFDO_BUILD=$BUILD \
                scripts/measure-overlap.sh "$WORK/overlap-$name-$mode" "$name" "$src" $args) ||
                die "measure-overlap of $name ($mode) failed"
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$rep" "$entry" "$global" >> "$ENTRIES"
        done
    done
    say "entry counts of $name done ($(( $(date +%s) - START )) s)"
done <<EOT
icall tests/e2e/data/decide/icall.c 100000000
qsort_cb tests/e2e/data/calls/qsort_cb.c 800
demo examples/demo.c 50
icalls tests/e2e/data/icalls.c 20000000
tripcounts tests/e2e/data/tripcounts.c
EOT

# --- cost --------------------------------------------------------------------
COST=$WORK/cost.tsv   # NAME REP MODE SECONDS BYTES
: > "$COST"
MODES=(none none-again dwarf,1024 dwarf,8192)
for ((rep = 0; rep < REPS; rep++)); do
    while IFS=$'\t' read -r name bin cmd; do
        for ((k = 0; k < ${#MODES[@]}; k++)); do
            mode=${MODES[(k + rep) % ${#MODES[@]}]}
            t0=$(date +%s%N)
            record "$name" "${mode%-again}" "$cmd"
            t1=$(date +%s%N)
            bytes=$(stat -c %s "$WORK/$name.${mode%-again}.data")
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rep" "$mode" \
                "$(( (t1 - t0) / 1000000 ))" "$bytes" >> "$COST"
        done
    done < "$PROGS"
    say "cost repetition $((rep + 1)) of $REPS done ($(( $(date +%s) - START )) s)"
done

# --- the section -------------------------------------------------------------
python3 - "$COVER" "$COST" "$REPS" "$(git rev-parse --short HEAD)" \
    "$(( ($(date +%s) - START) / 60 ))" "$REAL_NOTE" "$ENTRIES" "$WORK" > "$WORK/section.md" <<'PY'
import statistics, sys, datetime, collections
cover, cost, reps, commit, minutes, note, entries, work = sys.argv[1:9]
rows = [l.split("\t") for l in open(cover).read().splitlines()]
names = list(dict.fromkeys(r[0] for r in rows))
sizes = list(dict.fromkeys(r[1] for r in rows))
by = {(r[0], r[1]): r for r in rows}
now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
print("## Call edges without LBR\n")
print(f"Written by `bench/unwind-bench.sh` on {now} (sfdo commit {commit}; the run took {minutes} min). "
      "Programs built `-O2 -g` (no frame pointers), recorded by `sfdo-record --call-graph dwarf,SIZE` "
      "on this machine's timer (cpu-clock, no LBR), converted by `sfdo-convert --stats`.")
if note:
    print(f"\n{note}")
print("\n### Samples whose caller was recovered (and whose walk reached main's callers), by stack copy size\n")
print("| program | samples | " + " | ".join(f"{s} B" for s in sizes) + " |")
print("|---|---:|" + "---:|" * len(sizes))
for n in names:
    cells = []
    for s in sizes:
        r = by.get((n, s))
        if not r:
            cells.append("-"); continue
        samples, rec, outer = int(r[2]), int(r[3]), int(r[4])
        cells.append(f"{100 * rec / samples:.1f}% ({100 * outer / samples:.0f}%)" if samples else "no samples")
    print(f"| {n} | {by[(n, sizes[-1])][2]} | " + " | ".join(cells) + " |")
print("\nThe first figure is the share of samples with their caller recovered (what call edges, "
      "indirect-call targets and entry counts need); in brackets, the share whose walk went on to the "
      "outermost frame: a deep stack (qsort's recursion in libc, Lua's interpreter) needs a larger copy "
      "to reach the program's own frames above a library.")
print("\n### Indirect-call targets: shares in the profile beside the exact shares\n")
print("| program | target | timer, 1024 B copies % | emulated PMU, registers % | exact % |")
print("|---|---|---:|---:|---:|")
_, c0, c1, c2 = open(f"{work}/costly_targets.counts").read().split()
ct = int(c0) + int(c1) + int(c2)
exact = {"icall": {"op_mix": 87.5, "op_sub": 6.25, "op_xor": 6.25},
         "virtual": {"_ZNK6Square5weighEj": 93.75, "_ZNK8Triangle5weighEj": 6.25},
         "costly_targets": {"op_sum": 100 * int(c0) / ct, "op_xor": 100 * int(c1) / ct,
                            "op_max": 100 * int(c2) / ct}}
def shares(path):
    try:
        text = open(path).read().splitlines()
    except OSError:
        return None
    got = {}
    for l in text:
        f = l.split()
        if len(f) > 3 and f[0] == "!Values:" and f[2] == "icall":
            for e in f[3:]:
                k, _, v = e.rpartition(":")
                got[k] = int(v)
    total = sum(got.values())
    return {k: 100 * v / total for k, v in got.items()} if total else None
for prog, want in exact.items():
    timer, emu = shares(f"{work}/{prog}.1024.prof"), shares(f"{work}/{prog}.emu.prof")
    for k, w in want.items():
        t = f"{timer.get(k, 0):.1f}" if timer is not None else "none"
        e = f"{emu.get(k, 0):.1f}" if emu is not None else "none"
        print(f"| {prog} | {k} | {t} | {e} | {w:.2f} |")
print("\nOn the timer an indirect call's count is split by the samples in each target, which weigh the "
      "time per call (costly_targets' targets run 8, 40 and 24 iterations per call); with samples that "
      "count instructions, by the register the call goes through (or the vtable slot it reads), sampled "
      "in the call's block, which sees each call once. icall's call reads its target from a table "
      "the program fills at run time (`call *(%r12,%rax,8)`), which neither the registers nor the "
      "binary hold: the emulated PMU, which copies no stack, gives it none (\"none\").")
print("\n### Entry counts: overlap of the functions' entry counts with -fprofile-use's, median of 3 recordings\n")
print("| program | IP-only (perf record, timer) % | sfdo-record default (stack copies) % | block overlap, default % |")
print("|---|---:|---:|---:|")
ent = collections.defaultdict(list)
blk = collections.defaultdict(list)
for l in open(entries).read().splitlines():
    n, mode, rep, e, g = l.split("\t")
    if e != "-":
        ent[(n, mode)].append(float(e))
    blk[(n, mode)].append(float(g))
for n in dict.fromkeys(k[0] for k in blk):
    def m(d, mode):
        v = d.get((n, mode))
        return f"{statistics.median(v):.1f}" if v else "-"
    print(f"| {n} | {m(ent, 'timer')} | {m(ent, 'default')} | {m(blk, 'default')} |")
runs = collections.defaultdict(dict)
size = collections.defaultdict(dict)
for l in open(cost).read().splitlines():
    n, rep, mode, ms, b = l.split("\t")
    runs[(n, rep)][mode] = int(ms)
    size[(n, rep)][mode] = int(b)
print(f"\n### Cost: wall time under sfdo-record, ratio to IP-only (--call-graph none), median of {reps} interleaved repetitions\n")
print("| program | IP-only, A/A control | 1024 B (default) | 8192 B | IP-only s | file MB/s: IP-only, 1024 B, 8192 B |")
print("|---|---:|---:|---:|---:|---|")
for n in names:
    reps_n = [runs[k] for k in runs if k[0] == n]
    def med(mode):
        return statistics.median(r[mode] / r["none"] for r in reps_n if r.get("none"))
    base = statistics.median(r["none"] for r in reps_n) / 1000
    mbps = []
    for mode in ("none", "dwarf,1024", "dwarf,8192"):
        vals = [size[k][mode if mode != "none" else "none"] / (runs[k][mode] / 1000) / 1e6
                for k in runs if k[0] == n and runs[k].get(mode)]
        mbps.append(f"{statistics.median(vals):.1f}")
    print(f"| {n} | {med('none-again'):.3f} | {med('dwarf,1024'):.3f} | {med('dwarf,8192'):.3f} | {base:.2f} | {', '.join(mbps)} |")
print("\nWall time includes sfdo-record's start and its writing of the file. "
      "Command: `bench/unwind-bench.sh` (SFDO_BENCH_UNWIND_REPS repetitions).")
PY
results_write_section "## Call edges without LBR" "$WORK/section.md"
say "wrote the section \"## Call edges without LBR\" of bench/RESULTS.md"
