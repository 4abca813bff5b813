#!/usr/bin/env bash
# bench/iterate-bench.sh - round after round: in production the binary
# that is recorded is the last sfdo build, so its profile must lead back
# to the same build.  For each program: round 1 is the -O2 build's
# profile turned into an sfdo build; round k records round k-1's build
# and rebuilds from that profile.  Exact counts of each round's run
# (instructions and taken branches, sfdo-record --emulate --stat), as
# ratios to round 1's and to -O2's; and the functions each round's
# profile lists as never run.
#
# Usage: bench/iterate-bench.sh [--rounds N] [--quick] [PROGRAM...]
#
#   --rounds N   rounds of sfdo builds (default 4)
#   --quick      the first three programs, no RESULTS.md
#   PROGRAM      names from the list below (default: all of them)
#
#   Programs: the test programs of the decision tests (tests/e2e/data/
#   decide: an indirect call, a virtual call, hot and cold calls, loop
#   peeling, hot/cold sections, inlining replay), examples/demo.c and
#   tests/e2e/data/tripcounts.c, each with one argument list.  Every
#   recording is the emulated PMU's with branch stacks and registers
#   (--emulate -b --regs -c 20011 --no-jitter), so a round's profile is
#   the same each time the bench runs.
#   Rewrites the section "## Iteration: profiles of sfdo builds" of
#   bench/RESULTS.md (not with --quick or program names).
#
# Exit status: 0 done; 1 a step failed (the message names it); 2 usage;
# 77 the emulated PMU is not built here.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=4 QUICK='' ONLY=()
while (($#)); do
    case $1 in
        --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] ||
                      { echo "iterate-bench: --rounds wants a positive number" >&2; exit 2; }
                  ROUNDS=$2; shift 2 ;;
        --quick) QUICK=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "iterate-bench: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) ONLY+=("$1"); shift ;;
    esac
done

B=$PWD/build
W=$PWD/bench/work/iterate
make -s build/sfdo-record build/sfdo-convert build/sfdo-profile build/samplefdo.so
if [[ ! -x $B/sfdoemu-amd64-linux ]]; then
    echo "SKIP: iterate-bench: the emulated PMU is not built: $(cat "$B/sfdoemu.not-built" 2>/dev/null)" >&2
    exit 77
fi
D=tests/e2e/data/decide
# name|source|compiler|arguments
PROGRAMS=(
    "icall|$D/icall.c|gcc|4000000"
    "virtual|$D/virtual.cc|g++|10000000"
    "hotcall|$D/hotcall.c|gcc|4000000"
    "coldcall|$D/coldcall.c|gcc|150000"
    "peel|$D/peel.c|gcc|30000"
    "sections|$D/sections.c|gcc|6000000"
    "replay|$D/replay.c|gcc|3000000"
    "demo|examples/demo.c|gcc|30"
    "tripcounts|tests/e2e/data/tripcounts.c|gcc|"
)
[[ -n $QUICK ]] && PROGRAMS=("${PROGRAMS[@]:0:3}")
if ((${#ONLY[@]})); then
    picked=()
    for want in "${ONLY[@]}"; do
        found=''
        for p in "${PROGRAMS[@]}"; do [[ ${p%%|*} == "$want" ]] && picked+=("$p") found=1; done
        [[ -n $found ]] || { echo "iterate-bench: no program named $want" >&2; exit 2; }
    done
    PROGRAMS=("${picked[@]}")
fi
# The tools are copied for the run: build/ is shared with whoever runs
# make meanwhile.
rm -rf "$W" && mkdir -p "$W/tools"
cp -p "$B"/sfdo-record "$B"/sfdo-convert "$B"/sfdo-profile "$B"/samplefdo.so \
    "$B"/samplefdo-gcc*.so "$B"/sfdoemu-amd64-linux "$W/tools/"
B=$W/tools
RECORD=(--emulate -b --regs -c 20011 --no-jitter)
FLAGS=(-O2 -g)
START=$(date +%s)

die() { echo "iterate-bench: $*" >&2; exit 1; }
say() { echo "iterate-bench: $*" >&2; }

# count DIR ARGS: instructions and taken branches of DIR/prog's run.
count() {
    local dir=$1 args=$2
    # shellcheck disable=SC2086
    "$B/sfdo-record" --emulate --stat -o "$dir/stat.txt" -- "$dir/prog" $args \
        > "$dir/stat.out" 2> "$dir/stat.err" || die "$dir: counting failed: $(tail -2 "$dir/stat.err")"
    awk '/instructions:u/ { i = $1 } /taken-branches:u/ { t = $1 } END { print i, t }' "$dir/stat.txt"
}

# record DIR ARGS: DIR/prof from a recording of DIR/prog's run.
record() {
    local dir=$1 args=$2
    # shellcheck disable=SC2086
    (cd "$dir" && "$B/sfdo-record" -q "${RECORD[@]}" -o perf.data -- ./prog $args \
        > /dev/null 2> record.err) || die "$dir: recording failed: $(tail -2 "$dir/record.err")"
    "$B/sfdo-convert" -q -o "$dir/prof" "$dir/perf.data" "$dir/prog" 2> "$dir/convert.err" ||
        die "$dir: converting failed: $(tail -2 "$dir/convert.err")"
    "$B/sfdo-profile" convert --text "$dir/prof" | sed -n 's/^\([^ #][^ ]*\):0:0$/\1/p' |
        sort > "$dir/never-run"
    rm -f "$dir/perf.data"
}

printf 'program\tround\tinstructions\ttaken\tnever_run\n' > "$W/counts.tsv"
for entry in "${PROGRAMS[@]}"; do
    IFS='|' read -r name src cc args <<<"$entry"
    say "$name: -O2, then $ROUNDS rounds"
    prev=$W/$name/r0
    mkdir -p "$prev"
    "$cc" "${FLAGS[@]}" "$src" -o "$prev/prog" || die "$name: the -O2 build failed"
    read -r ir tk < <(count "$prev" "$args")
    # shellcheck disable=SC2086
    "$prev/prog" $args > "$W/$name/expected.out"
    record "$prev" "$args"
    printf '%s\t0\t%s\t%s\t%s\n' "$name" "$ir" "$tk" "$(paste -sd, "$prev/never-run")" >> "$W/counts.tsv"
    for ((k = 1; k <= ROUNDS; k++)); do
        dir=$W/$name/r$k
        mkdir -p "$dir"
        "$cc" "${FLAGS[@]}" -fplugin="$B/samplefdo.so" -fplugin-arg-samplefdo-profile="$prev/prof" \
            "$src" -o "$dir/prog" 2> "$dir/build.err" || die "$name round $k: the build failed: $(tail -3 "$dir/build.err")"
        # shellcheck disable=SC2086
        "$dir/prog" $args > "$dir/out"
        cmp -s "$dir/out" "$W/$name/expected.out" || die "$name round $k: the build prints something else"
        read -r ir tk < <(count "$dir" "$args")
        record "$dir" "$args"
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$k" "$ir" "$tk" "$(paste -sd, "$dir/never-run")" >> "$W/counts.tsv"
        prev=$dir
    done
done

python3 - "$W/counts.tsv" "$ROUNDS" > "$W/section.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
rounds = int(sys.argv[2])
progs = []
for r in rows:
    if r['program'] not in progs:
        progs.append(r['program'])
print('| program | measure | -O2 | ' + ' | '.join(f'round {k}' for k in range(1, rounds + 1))
      + ' | worst of rounds 2+ vs round 1 |')
print('|---|---|---:|' + '---:|' * rounds + '---:|')
worst_all = 0.0
for p in progs:
    by = {int(r['round']): r for r in rows if r['program'] == p}
    for key, label in (('instructions', 'instructions'), ('taken', 'taken branches')):
        o2 = int(by[0][key])
        r1 = int(by[1][key])
        cells = [f'{int(by[k][key]) / o2:.4f}' for k in range(1, rounds + 1)]
        worst = max((int(by[k][key]) / r1 - 1) * 100 for k in range(2, rounds + 1)) if rounds > 1 else 0
        worst_all = max(worst_all, worst)
        print(f'| {p} | {label} | {o2:,} | ' + ' | '.join(cells) + f' | {worst:+.2f}% |')
print()
print('Never-run functions listed by each profile (round 0: the -O2 build\'s):')
print()
print('| program | ' + ' | '.join(f'round {k}' for k in range(0, rounds + 1)) + ' |')
print('|---|' + '---|' * (rounds + 1))
for p in progs:
    by = {int(r['round']): r for r in rows if r['program'] == p}
    print(f'| {p} | ' + ' | '.join(by[k]['never_run'].replace(',', ', ') or '-' for k in range(0, rounds + 1)) + ' |')
print()
print(f'Largest excess of a later round over round 1: {worst_all:+.2f}%.')
EOF
cat "$W/section.md"
if [[ -z $QUICK ]] && ((${#ONLY[@]} == 0)); then
    {
        echo "## Iteration: profiles of sfdo builds"
        echo
        echo "Written by \`bench/iterate-bench.sh\` (issue 36), commit $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), took $(( $(date +%s) - START )) s."
        echo "Each program built \`${FLAGS[*]}\`; round 1 from the -O2 build's profile, round k from round k-1's build's; every recording \`sfdo-record ${RECORD[*]}\`, converted by sfdo-convert; counts of one run each, \`sfdo-record --emulate --stat\` (exact); ratios to -O2's count."
        echo
        cat "$W/section.md"
    } > "$W/results.md"
    results_write_section "## Iteration: profiles of sfdo builds" "$W/results.md"
    say "wrote the section \"Iteration: profiles of sfdo builds\" of bench/RESULTS.md"
fi
