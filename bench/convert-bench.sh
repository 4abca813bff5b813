#!/bin/bash
# bench/convert-bench.sh - sfdo-convert against AutoFDO's create_gcov on the
# same large perf.data files: samples per second and peak memory.
#
#   bench/convert-bench.sh
#
# Builds build/sfdo-convert and bench/perfdata_replicate.c (into
# build/bench/), then makes its inputs in bench/work/convert/ (git-ignored;
# remade only when missing or older than what they come from):
#
#   ip-*.data   IP-only: examples/demo.c built with -O2 -gdwarf-4 (create_gcov
#               0.19 reads only DWARF 4), recorded once with
#               perf record -e cpu-clock:u -c 20000 (this machine has no
#               hardware PMU), then grown by perfdata_replicate to
#               SFDO_BENCH_CONV_BYTES, and to SFDO_BENCH_CONV_SMALL_BYTES (an
#               input small enough for create_gcov's memory here);
#   lbr-*.data  LBR-shaped: ../shared/fixtures/autofdo/propeller_sample_1.perfdata1
#               (32-entry branch stacks) grown the same way; skipped with a
#               message if ../shared is absent.
#
# Then, SFDO_BENCH_REPEAT times, for each input, runs sfdo-convert and
# create_gcov one after the other (the order alternates between
# repetitions; the input is read into the page cache before each run),
# under /usr/bin/time -v (peak RSS, exit status) and `ulimit -v` (so that a
# create_gcov that outgrows the machine fails with bad_alloc instead of
# waking the OOM killer).  Checks the outputs: sfdo's IP profile must have
# demo.c's five hot functions with crc32_update first; sfdo's LBR tallies
# (--lbr-dump, an extra untimed run) must be exactly COPIES times those of
# the original recording; create_gcov's output is listed with dump_gcov.
# A failing create_gcov is reported as it failed, not as an error of this
# script.  Rewrites the section "## Conversion" of bench/RESULTS.md, leaving
# every other section as it is; nothing is written there if a step fails.
#
# Environment (defaults in brackets):
#   SFDO_BENCH_REPEAT           runs of each tool on each input [3]
#   SFDO_BENCH_CONV_BYTES       size of the large inputs [1073741824]
#   SFDO_BENCH_CONV_SMALL_BYTES size of the extra IP input [268435456]
#   SFDO_BENCH_DEMO_SCALE       demo's scale argument for the recording [300]
#   SFDO_BENCH_VMEM_KB          ulimit -v of every run [2/3 of MemAvailable]
#   SFDO_FIXTURES               [../shared/fixtures]
#   CC, MAKE                    [gcc, make]
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

REPEAT=${SFDO_BENCH_REPEAT:-3}
BYTES=${SFDO_BENCH_CONV_BYTES:-1073741824}
SMALL=${SFDO_BENCH_CONV_SMALL_BYTES:-268435456}
SCALE=${SFDO_BENCH_DEMO_SCALE:-300}
VMEM=${SFDO_BENCH_VMEM_KB:-$(awk '/^MemAvailable/ { printf "%d", $2 * 2 / 3 }' /proc/meminfo)}
FIX=${SFDO_FIXTURES:-../shared/fixtures}
CC=${CC:-gcc}
MAKE=${MAKE:-make}
RESULTS=bench/RESULTS.md
SECTION="## Conversion"
WORK=bench/work/convert
BIN=build/bench
CFLAGS_BENCH="-O2 -std=c11 -Wall -Wextra -Werror"
PERIOD=20000

say () { printf 'convert-bench: %s\n' "$*" >&2; }
die () { say "$*; $RESULTS left unchanged"; exit 1; }

for t in perf create_gcov dump_gcov /usr/bin/time; do
  command -v "$t" > /dev/null || die "needs $t (apt-get install linux-perf autofdo time)"
done

# --- build ----------------------------------------------------------------------
"$MAKE" --no-print-directory build/sfdo-convert >&2
mkdir -p "$BIN" "$WORK"
# shellcheck disable=SC2086  # CFLAGS_BENCH is a list of words
"$CC" $CFLAGS_BENCH bench/perfdata_replicate.c -o "$BIN/perfdata_replicate"
SFDO=build/sfdo-convert
REPL=$BIN/perfdata_replicate
declare -a GEN_CMDS=()

# --- inputs ------------------------------------------------------------------------
DEMO=$WORK/demo
BASE=$WORK/demo-base.data
DEMO_BUILD="$CC -O2 -gdwarf-4 examples/demo.c -o $DEMO"
DEMO_RECORD="perf record -q -e cpu-clock:u -c $PERIOD -o $BASE $DEMO $SCALE"
GEN_CMDS+=("$DEMO_BUILD" "$DEMO_RECORD")
if [ ! -x "$DEMO" ] || [ examples/demo.c -nt "$DEMO" ] || [ ! -s "$BASE" ] \
   || [ "$DEMO" -nt "$BASE" ]; then
  say "building and recording demo"
  $DEMO_BUILD
  $DEMO_RECORD > /dev/null
fi

# make_input OUT SOURCE BYTES: OUT and OUT.meta (perfdata_replicate's line).
make_input () {
  local out=$1 src=$2 bytes=$3
  GEN_CMDS+=("$REPL $src $out $bytes")
  if [ ! -s "$out" ] || [ ! -s "$out.meta" ] || [ "$src" -nt "$out" ] \
     || [ "$REPL" -nt "$out" ]; then
    say "generating $out"
    rm -f "$out" "$out.meta"
    "$REPL" "$src" "$out.tmp" "$bytes" > "$out.meta.tmp"
    mv "$out.tmp" "$out"
    mv "$out.meta.tmp" "$out.meta"
  fi
}
meta () { sed -n "s/.*\\<$2=\\([0-9]*\\).*/\\1/p" "$1.meta"; }

# Inputs: name, perf.data, binary, kind.
declare -a NAMES=() FILES=() BINS=() KINDS=()
add_input () { NAMES+=("$1"); FILES+=("$2"); BINS+=("$3"); KINDS+=("$4"); }
make_input "$WORK/ip-$BYTES.data" "$BASE" "$BYTES"
add_input "IP-only, demo" "$WORK/ip-$BYTES.data" "$DEMO" ip
if [ "$SMALL" -gt 0 ]; then
  make_input "$WORK/ip-$SMALL.data" "$BASE" "$SMALL"
  add_input "IP-only, demo (smaller)" "$WORK/ip-$SMALL.data" "$DEMO" ip
fi
LBR_SRC=$FIX/autofdo/propeller_sample_1.perfdata1
LBR_BIN=$FIX/autofdo/propeller_sample_1.bin
lbr_note=""
if [ -r "$LBR_SRC" ] && [ -r "$LBR_BIN" ]; then
  make_input "$WORK/lbr-$BYTES.data" "$LBR_SRC" "$BYTES"
  add_input "LBR, propeller_sample_1" "$WORK/lbr-$BYTES.data" "$LBR_BIN" lbr
else
  lbr_note="SKIPPED: $LBR_SRC is absent (../shared not here), so there is no LBR input."
  say "$lbr_note"
fi
N=${#NAMES[@]}

# --- runs ------------------------------------------------------------------------------
sfdo_cmd () { echo "$SFDO --stats -q -o $WORK/out-$1.sfdo ${FILES[$1]} ${BINS[$1]}"; }
cg_cmd () {
  local lbr=""
  [ "${KINDS[$1]}" = ip ] && lbr=" --use_lbr=false"
  echo "create_gcov --binary=${BINS[$1]} --profile=${FILES[$1]} --gcov=$WORK/out-$1.afdo$lbr"
}

# run TOOL I REP: one timed run; appends "wall user sys rss_kb status" to
# $WORK/runs-TOOL-I.txt, keeps the tool's stderr in $WORK/TOOL-I-REP.err.
run () {
  local tool=$1 i=$2 r=$3 cmd t0 t1 tf=$WORK/time.txt
  if [ "$tool" = sfdo ]; then cmd=$(sfdo_cmd "$i"); else cmd=$(cg_cmd "$i"); fi
  cat "${FILES[$i]}" > /dev/null
  say "rep $r: $cmd"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # cmd is a list of words
  (ulimit -v "$VMEM"; exec /usr/bin/time -v -o "$tf" $cmd) \
    > /dev/null 2> "$WORK/$tool-$i-$r.err" || true
  t1=$(date +%s%N)
  local status
  if grep -q 'Command terminated by signal' "$tf"; then
    status="signal $(sed -n 's/.*Command terminated by signal \([0-9]*\).*/\1/p' "$tf")"
  else
    status="exit $(sed -n 's/^[[:space:]]*Exit status: //p' "$tf")"
  fi
  printf '%s %s %s %s %s\n' \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
    "$(sed -n 's/^[[:space:]]*User time (seconds): //p' "$tf")" \
    "$(sed -n 's/^[[:space:]]*System time (seconds): //p' "$tf")" \
    "$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tf")" \
    "${status// /_}" >> "$WORK/runs-$tool-$i.txt"
}

for i in $(seq 0 $((N - 1))); do rm -f "$WORK/runs-sfdo-$i.txt" "$WORK/runs-cg-$i.txt"; done
for r in $(seq 1 "$REPEAT"); do
  for i in $(seq 0 $((N - 1))); do
    if [ $((r % 2)) -eq 1 ]; then run sfdo "$i" "$r"; run cg "$i" "$r"
    else run cg "$i" "$r"; run sfdo "$i" "$r"; fi
  done
done

# --- checks ------------------------------------------------------------------------------
# Per input: sfdo_ok (yes/no) and a note; cg_ok and a note.
declare -a SFDO_OK=() SFDO_NOTE=() CG_OK=() CG_NOTE=()
problems=0
HOT="crc32_update insertion_sort matrix_multiply mix64 count_rare_values"
top_sfdo () {  # top_sfdo PROFILE: "name total" of its functions, largest first
  { grep -E '^[^ #][^:]*:[0-9]+:[0-9]+$' "$1" || true; } | awk -F: '{ print $1, $2 }' | sort -k2,2nr
}
top_cg () {  # top_cg AFDO: the same from dump_gcov
  { dump_gcov "$1" 2> /dev/null || true; } | sed -n 's/^\([^ ][^ ]*\) total:\([0-9]*\) .*/\1 \2/p' \
    | sort -k2,2nr
}
for i in $(seq 0 $((N - 1))); do
  samples=$(meta "${FILES[$i]}" samples)
  copies=$(meta "${FILES[$i]}" copies)
  # sfdo: every run exits 0, counts every sample.
  ok=yes; note=""
  if grep -qv ' exit_0$' "$WORK/runs-sfdo-$i.txt"; then
    ok=no; note="failed: $(tail -1 "$WORK/sfdo-$i-1.err")"
  else
    seen=$(sed -n 's/^sfdo-convert: \([0-9]*\) samples: .*/\1/p' "$WORK/sfdo-$i-1.err")
    used=$(sed -n 's/^sfdo-convert: [0-9]* samples: \([0-9]*\) used.*/\1/p' "$WORK/sfdo-$i-1.err")
    [ "$seen" = "$samples" ] || { ok=no; note="read $seen samples of $samples; "; }
    top_sfdo "$WORK/out-$i.sfdo" > "$WORK/top-sfdo-$i.txt"
    nf=$(wc -l < "$WORK/top-sfdo-$i.txt")
    if [ "${KINDS[$i]}" = ip ]; then
      first=$(awk 'NR == 1 { print $1 }' "$WORK/top-sfdo-$i.txt")
      missing=""
      for f in $HOT; do
        awk -v f="$f" 'NR <= 8 && $1 == f { found = 1 } END { exit !found }' \
          "$WORK/top-sfdo-$i.txt" || missing="$missing $f"
      done
      if [ "$first" != crc32_update ] || [ -n "$missing" ]; then
        ok=no; note="${note}wrong profile (first $first; missing:$missing); "
      fi
      note="${note}$used of $samples samples used; $nf functions, hottest: $(awk 'NR <= 5 { printf "%s%s", sep, $1; sep = ", " }' "$WORK/top-sfdo-$i.txt")"
    else
      # LBR: the tallies of the grown file are COPIES times the original's.
      dump_cmd="$SFDO -q --lbr-dump=$WORK/lbr-orig.dump -o /dev/null $LBR_SRC $LBR_BIN"
      dump_cmd2="$SFDO -q --lbr-dump=$WORK/lbr-big.dump -o /dev/null ${FILES[$i]} ${BINS[$i]}"
      $dump_cmd; $dump_cmd2
      bad=$(awk -v k="$copies" 'NR == FNR { a[$1" "$2" "$3" "$4] = $5 * k; n++; next }
                                { m++; if (a[$1" "$2" "$3" "$4] != $5) bad++ }
                                END { print (n != m || n == 0) ? "all" : bad + 0 }' \
              "$WORK/lbr-orig.dump" "$WORK/lbr-big.dump")
      nt=$(wc -l < "$WORK/lbr-big.dump")
      lbrline=$(sed -n 's/^sfdo-convert: \([0-9]*\) branch stacks: \(.*\)/\1 branch stacks/p' "$WORK/sfdo-$i-1.err")
      if [ "$bad" != 0 ]; then
        ok=no; note="${note}LBR tallies not $copies times the original's ($bad differ); "
      fi
      note="${note}$used of $samples samples used, $lbrline; \`--lbr-dump\`: $nt range and branch tallies, each exactly $copies× the original recording's; $nf functions in the profile (the fixture binary has no line table for the sampled functions \`main\`, \`compute_flag\`: \`addr2line\` gives ??:?)"
    fi
  fi
  [ "$ok" = yes ] || problems=$((problems + 1))
  SFDO_OK+=("$ok"); SFDO_NOTE+=("$note")
  # create_gcov: reported as it is.
  if grep -qv ' exit_0$' "$WORK/runs-cg-$i.txt"; then
    st=$(awk '{ print $5 }' "$WORK/runs-cg-$i.txt" | sort | uniq -c | awk '{ printf "%s%s×%s", sep, $2, $1; sep = ", " }' | tr _ ' ')
    msg=$(grep -v '^E.*Unknown event type' "$WORK/cg-$i-1.err" | grep -v '^[[:space:]]*$' | tail -2 | paste -sd' ' | sed -e 's/  */ /g' -e 's/|/\\|/g' -e 's/`/'"'"'/g')
    CG_OK+=(no); CG_NOTE+=("**FAILED** ($st): \`$msg\`")
  else
    top_cg "$WORK/out-$i.afdo" > "$WORK/top-cg-$i.txt"
    nf=$(wc -l < "$WORK/top-cg-$i.txt")
    if [ "$nf" -gt 0 ]; then
      note="$nf functions, hottest: $(awk 'NR <= 5 { printf "%s%s", sep, $1; sep = ", " }' "$WORK/top-cg-$i.txt")"
    else
      note="ran, but its profile ($(stat -c %s "$WORK/out-$i.afdo") bytes) has no function per \`dump_gcov\`"
    fi
    CG_OK+=(yes); CG_NOTE+=("$note")
  fi
done

# --- figures -------------------------------------------------------------------------------
median () { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col () { awk -v c="$2" '{ print $c }' "$WORK/runs-$1.txt"; }
fmt () { awk -v x="$1" -v d="$2" 'BEGIN { printf "%.*f", d, x }'; }
thousands () { printf '%s' "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\| \)/\1 \2\3/; ta'; }
mbytes () { awk -v x="$1" 'BEGIN { printf "%.0f", x / 1048576 }'; }
kb2mb () { awk -v x="$1" 'BEGIN { printf "%.0f", x / 1024 }'; }
runs () { col "$1" 1 | paste -sd, | sed 's/,/, /g'; }

declare -a VERDICT=()
met_all=yes
table=$(mktemp)
section=$(mktemp)
trap 'rm -f "$section" "$table" "$RESULTS.tmp"' EXIT
{
  echo "| input | tool | samples | wall s, median (runs) | user + sys s, median | **samples/s** | peak RSS MiB, median (runs) | ratio sfdo / create_gcov | output check |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
  for i in $(seq 0 $((N - 1))); do
    samples=$(meta "${FILES[$i]}" samples)
    size=$(stat -c %s "${FILES[$i]}")
    label="${NAMES[$i]}, $(mbytes "$size") MiB"
    s_wall=$(col "sfdo-$i" 1 | median)
    s_cpu=$(awk '{ print $2 + $3 }' "$WORK/runs-sfdo-$i.txt" | median)
    s_rss=$(col "sfdo-$i" 4 | median)
    s_tp=$(awk -v n="$samples" -v t="$s_wall" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
    c_wall=$(col "cg-$i" 1 | median)
    c_cpu=$(awk '{ print $2 + $3 }' "$WORK/runs-cg-$i.txt" | median)
    c_rss=$(col "cg-$i" 4 | median)
    if [ "${CG_OK[$i]}" = yes ]; then
      c_tp=$(awk -v n="$samples" -v t="$c_wall" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
      ratio=$(awk -v a="$s_tp" -v b="$c_tp" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
      if awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }'; then v="met (${ratio}×)"
      else v="**missed** (${ratio}×)"; met_all=no; fi
      c_tp_cell="$(thousands "$c_tp")"; ratio_cell="**${ratio}×**"
      c_wall_cell="$(fmt "$c_wall" 2) ($(runs "cg-$i"))"
    else
      c_tp_cell="— (failed)"; ratio_cell="— (create_gcov failed)"
      c_wall_cell="failed after $(fmt "$c_wall" 2) ($(runs "cg-$i"))"
      v="no ratio: create_gcov failed"
    fi
    VERDICT+=("$v")
    echo "| $label | sfdo-convert | $(thousands "$samples") | $(fmt "$s_wall" 3) ($(runs "sfdo-$i")) | $(fmt "$s_cpu" 2) | **$(thousands "$s_tp")** | $(kb2mb "$s_rss") ($(col "sfdo-$i" 4 | while read -r k; do kb2mb "$k"; echo; done | paste -sd, | sed 's/,/, /g')) | $ratio_cell | ${SFDO_NOTE[$i]} |"
    echo "| | create_gcov | $(thousands "$samples") | $c_wall_cell | $(fmt "$c_cpu" 2) | $c_tp_cell | $(kb2mb "$c_rss") ($(col "cg-$i" 4 | while read -r k; do kb2mb "$k"; echo; done | paste -sd, | sed 's/,/, /g')) | | ${CG_NOTE[$i]} |"
  done
} > "$table"

[ "$problems" -eq 0 ] || die "$problems sfdo-convert output check(s) failed (see $WORK/)"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ncpu=$(nproc)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "none")
dirty=$(git status --porcelain -- converter perfdata profiles common 2>/dev/null | head -1)
cgver=$(dpkg-query -W -f '${Version}' autofdo 2>/dev/null || echo "?")
perfver=$(perf --version 2>/dev/null)

{
  echo "$SECTION"
  echo
  echo "Written by \`bench/convert-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "- CPU: $cpu ($ncpu CPUs), $mem RAM; $("$CC" --version | head -1); $perfver; create_gcov from Debian autofdo $cgver"
  echo "- sfdo-convert: commit $commit${dirty:+, with uncommitted changes in converter/, perfdata/, profiles/ or common/}; built with \`make build/sfdo-convert\` (default CFLAGS \`-O2 -g\`)"
  echo "- Command: \`bench/convert-bench.sh\` (SFDO_BENCH_REPEAT=$REPEAT SFDO_BENCH_CONV_BYTES=$BYTES SFDO_BENCH_CONV_SMALL_BYTES=$SMALL SFDO_BENCH_DEMO_SCALE=$SCALE SFDO_BENCH_VMEM_KB=$VMEM), which made its inputs with"
  echo
  echo '  ```'
  for c in "${GEN_CMDS[@]}"; do echo "  $c"; done
  echo '  ```'
  echo
  echo "  and ran, $REPEAT times each, interleaved (sfdo-convert first in odd repetitions, create_gcov first in even ones; each under \`ulimit -v $VMEM\` and \`/usr/bin/time -v\`, the input read into the page cache just before):"
  echo
  echo '  ```'
  for i in $(seq 0 $((N - 1))); do sfdo_cmd "$i" | sed 's/^/  /'; cg_cmd "$i" | sed 's/^/  /'; done
  echo '  ```'
  echo
  echo "Inputs (\`bench/perfdata_replicate.c\`): a real recording whose SAMPLE records (and FINISHED_ROUND marks) are repeated, with times moved on by the recording's span per copy, after its MMAP/COMM records and before its EXIT; header data size and feature-section offsets fixed up, build-ids kept. The IP recording is $(thousands "$(( $(meta "${FILES[0]}" samples) / $(meta "${FILES[0]}" copies) ))") samples of \`demo $SCALE\` (sample_type IP|TID|TIME, 32 bytes a sample), repeated $(meta "${FILES[0]}" copies) times for the large input; the LBR one is the fixture's 3 740 samples of 32-entry branch stacks (IP|TID|TIME|PERIOD|BRANCH_STACK, 816 bytes a sample)${lbr_note:+ — $lbr_note}. Samples/s = SAMPLE records in the file / median wall time (start to exit, files in the page cache). MiB = 2^20 bytes; peak RSS is \`Maximum resident set size\`. This machine's speed varies by about 15% over minutes."
  echo
  cat "$table"
  echo
  for i in $(seq 0 $((N - 1))); do
    echo "- ${NAMES[$i]}: target (sfdo-convert at least 10× create_gcov's samples/s): ${VERDICT[$i]}."
    [ "${CG_OK[$i]}" = no ] || continue
    # How much memory create_gcov would have needed, from an input of the
    # same kind it converted.
    for j in $(seq 0 $((N - 1))); do
      if [ "${CG_OK[$j]}" != yes ] || [ "${KINDS[$j]}" != "${KINDS[$i]}" ]; then
        continue
      fi
      awk -v rss="$(col "cg-$j" 4 | median)" -v sj="$(stat -c %s "${FILES[$j]}")" \
          -v si="$(stat -c %s "${FILES[$i]}")" -v lim="$VMEM" -v nj="${NAMES[$j]}" '
        BEGIN { per = rss * 1024 / sj
                printf "  create_gcov held %.1f bytes of RSS per input byte on the %s input (%.0f MiB for %.0f MiB), so this one would need about %.0f GiB; runs here are limited to %.1f GiB of address space (`ulimit -v`), and the machine has %.0f GiB of RAM and no swap.\n",
                       per, nj, rss / 1024, sj / 1048576, per * si / 2^30, lim / 2^20,
                       '"$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"' / 2^20 }'
      break
    done
  done
  if [ "$met_all" = yes ]; then
    echo "- **Target met** on every input where create_gcov produced a profile."
  else
    echo "- **Target MISSED** on at least one input (see above)."
  fi
} > "$section"

# --- splice into RESULTS.md ------------------------------------------------
results_write_section "$SECTION" "$section"
say "wrote the section \"$SECTION\" of $RESULTS"
