#!/bin/bash
# bench/profile-bench.sh - benchmark of the profile library (profiles/).
#
#   bench/profile-bench.sh
#
# Builds build/libsfdo.a, bench/profile_gen.c and bench/profile_bench.c
# (into build/bench/), generates synthetic text profiles of 5 000 and
# 500 000 functions into bench/work/ (git-ignored; regenerated only when
# missing or older than bench/profile_gen.c), runs profile_bench on each, and
# rewrites the section "## Profile library" of bench/RESULTS.md, leaving
# every other section as it is.  Nothing is written to RESULTS.md if a
# step fails.
#
# Environment (defaults in brackets):
#   SFDO_BENCH_SIZES    function counts to run ["5000 500000"]
#   SFDO_BENCH_SEED     generator seed [1]
#   SFDO_BENCH_REPEAT   runs of parse and write; the median is kept [3]
#   SFDO_BENCH_LOOKUPS  functions looked up, present and absent each [1000]
#   CC, MAKE            [gcc, make]
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

SIZES=${SFDO_BENCH_SIZES:-5000 500000}
SEED=${SFDO_BENCH_SEED:-1}
REPEAT=${SFDO_BENCH_REPEAT:-3}
LOOKUPS=${SFDO_BENCH_LOOKUPS:-1000}
CC=${CC:-gcc}
MAKE=${MAKE:-make}
RESULTS=bench/RESULTS.md
SECTION="## Profile library"
WORK=bench/work
BIN=build/bench
CFLAGS_BENCH="-O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror"

say () { printf 'profile-bench: %s\n' "$*" >&2; }

# --- build --------------------------------------------------------------------
"$MAKE" --no-print-directory build/libsfdo.a >&2
mkdir -p "$BIN" "$WORK"
# shellcheck disable=SC2086  # CFLAGS_BENCH is a list of words
"$CC" $CFLAGS_BENCH bench/profile_gen.c -o "$BIN/profile_gen" -lm
# shellcheck disable=SC2086
"$CC" $CFLAGS_BENCH -I. bench/profile_bench.c build/libsfdo.a \
  -o "$BIN/profile_bench"

# --- generate and run ------------------------------------------------------------
declare -a CMDS=()
for n in $SIZES; do
  prof=$WORK/profile-$n-s$SEED.txt
  if [ ! -s "$prof" ] || [ bench/profile_gen.c -nt "$prof" ]; then
    say "generating $prof"
    "$BIN/profile_gen" "$n" "$SEED" "$prof.tmp"
    mv "$prof.tmp" "$prof"
  fi
  say "running profile_bench on $prof"
  cmd="$BIN/profile_bench -r $REPEAT -n $LOOKUPS $prof"
  CMDS+=("$BIN/profile_gen $n $SEED $prof" "$cmd")
  rc=0
  $cmd > "$WORK/profile-bench-$n.out" 2> "$WORK/profile-bench-$n.log" || rc=$?
  cat "$WORK/profile-bench-$n.log" >&2
  if [ "$rc" -eq 3 ]; then
    say "WARNING: the library returned wrong results on $prof"
  elif [ "$rc" -ne 0 ]; then
    say "FAILED on $prof; $RESULTS left unchanged"
    exit 1
  fi
done

# --- the section ------------------------------------------------------------------
val () { sed -n "s/^$2=//p" "$WORK/profile-bench-$1.out"; }
fmt () { awk -v x="$1" -v d="$2" 'BEGIN { printf "%.*f", d, x }'; }
mb () { awk -v x="$1" 'BEGIN { printf "%.1f", x / 1e6 }'; }
kb2mb () { awk -v x="$1" 'BEGIN { printf "%.0f", x / 1024 }'; }
lt () { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
thousands () { printf '%s' "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\| \)/\1 \2\3/; ta'; }

row () {  # row LABEL FORMAT-FUNCTION...: one table row, a cell per size
  local label=$1; shift
  local line="| $label |"
  for n in $SIZES; do line="$line $("$@" "$n") |"; done
  printf '%s\n' "$line"
}
c_funcs () { thousands "$(val "$1" funcs)"; }
c_text () { mb "$(val "$1" text_bytes)"; }
c_parse_s () { printf '%s (runs: %s)' "$(val "$1" parse_s)" \
                 "$(val "$1" parse_s_all | sed 's/,/, /g')"; }
c_parse_mbs () { printf '**%s**' "$(val "$1" parse_mb_s)"; }
c_rss_parse () { kb2mb "$(val "$1" parse_peak_rss_kb)"; }
c_write () { printf '**%s** (runs: %s)' "$(val "$1" write_binary_s)" \
               "$(val "$1" write_binary_s_all | sed 's/,/, /g')"; }
c_binsize () { mb "$(val "$1" binary_bytes)"; }
c_wtext () { val "$1" write_text_s; }
c_rbin () { val "$1" read_binary_s; }
c_open () { printf '%s (first: %s)' "$(val "$1" open_us)" \
              "$(val "$1" open_first_us)"; }
c_hit () { printf '**%s** / %s / %s' "$(fmt "$(val "$1" lookup_hit_median_us)" 2)" \
             "$(fmt "$(val "$1" lookup_hit_p99_us)" 2)" \
             "$(fmt "$(val "$1" lookup_hit_max_us)" 1)"; }
c_miss () { printf '%s / %s / %s' "$(fmt "$(val "$1" lookup_miss_median_us)" 2)" \
              "$(fmt "$(val "$1" lookup_miss_p99_us)" 2)" \
              "$(fmt "$(val "$1" lookup_miss_max_us)" 1)"; }
c_again () { fmt "$(val "$1" lookup_again_median_us)" 2; }
c_cold () { printf '%s / %s' "$(val "$1" cold_open_find_median_us)" \
              "$(val "$1" cold_open_find_max_us)"; }
c_rssgrow () { printf '%s / %s' "$(val "$1" lookup_rss_anon_growth_kb)" \
                 "$(val "$1" lookup_rss_file_growth_kb)"; }
c_shared () { printf '%s (%s%%); largest group %s' \
                "$(thousands "$(val "$1" funcs_sharing_a_name)")" \
                "$(awk -v a="$(val "$1" funcs_sharing_a_name)" -v b="$(val "$1" funcs)" \
                   'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }')" \
                "$(val "$1" max_funcs_per_name)"; }
c_uniq () { printf '%s / %s / %s (%s)' "$(fmt "$(val "$1" lookup_unique_median_us)" 2)" \
              "$(fmt "$(val "$1" lookup_unique_p99_us)" 2)" \
              "$(fmt "$(val "$1" lookup_unique_max_us)" 1)" \
              "$(val "$1" lookup_unique_n)"; }
c_sharedl () { printf '%s / %s / %s (%s)' "$(fmt "$(val "$1" lookup_shared_median_us)" 2)" \
                 "$(fmt "$(val "$1" lookup_shared_p99_us)" 2)" \
                 "$(fmt "$(val "$1" lookup_shared_max_us)" 1)" \
                 "$(val "$1" lookup_shared_n)"; }
c_peak () { kb2mb "$(val "$1" peak_rss_kb)"; }
c_err () { val "$1" errors; }

# Verdicts.
lookup_ok=yes
for n in $SIZES; do
  for k in lookup_hit_p99_us lookup_miss_p99_us; do
    lt "$(val "$n" $k)" 1000 || lookup_ok=no
  done
done
max_hit_all=$(for n in $SIZES; do val "$n" lookup_hit_max_us; val "$n" lookup_miss_max_us; done \
              | sort -g | tail -1)
first=${SIZES%% *}; last=${SIZES##* }
ratio=$(awk -v a="$(val "$first" lookup_hit_median_us)" \
            -v b="$(val "$last" lookup_hit_median_us)" \
            'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }')
fratio=$(awk -v a="$(val "$first" funcs)" -v b="$(val "$last" funcs)" \
            'BEGIN { printf "%.0f", (a > 0 ? b / a : 0) }')
big_funcs=$(val "$last" funcs); big_bytes=$(val "$last" text_bytes)
if [ "$big_funcs" -ge 500000 ] && [ "$big_bytes" -ge 200000000 ]; then
  size_ok="met"
else
  size_ok="**not met**"
fi
errors=0
for n in $SIZES; do errors=$((errors + $(val "$n" errors))); done

header=$(printf '| |'; for n in $SIZES; do printf ' %s functions |' "$(thousands "$n")"; done)
align=$(printf '|---|'; for _ in $SIZES; do printf -- '---:|'; done)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ncpu=$(nproc)
mem=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "none")
dirty=$(git status --porcelain -- profiles common 2>/dev/null | head -1)

section=$(mktemp)
trap 'rm -f "$section" "$RESULTS.tmp"' EXIT
{
  echo "$SECTION"
  echo
  echo "Written by \`bench/profile-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "- CPU: $cpu ($ncpu CPUs), $mem RAM; $("$CC" --version | head -1)"
  echo "- Library: commit $commit${dirty:+, with uncommitted changes in profiles/ or common/}; built with \`make build/libsfdo.a\` (default CFLAGS \`-O2 -g\`)"
  echo "- Command: \`bench/profile-bench.sh\` (SFDO_BENCH_SIZES=\"$SIZES\" SFDO_BENCH_SEED=$SEED SFDO_BENCH_REPEAT=$REPEAT SFDO_BENCH_LOOKUPS=$LOOKUPS), which ran:"
  echo
  echo '  ```'
  for c in "${CMDS[@]}"; do echo "  $c"; done
  echo '  ```'
  echo
  echo "Synthetic profiles (\`bench/profile_gen.c\`: mangled C++ and C names, 5-60 body lines, call targets, inlinees 1-3 deep, value histograms, static functions with \`!File\`; not in canonical order). MB = 10^6 bytes; times are wall clock with the files in the page cache; parse and write are medians of $REPEAT runs (this machine varies by about 15%). Lookups are \`sfdo_profile_find\` on a binary profile opened with \`sfdo_profile_open\` (mmap'd, decoded on demand), each call timed alone, for $LOOKUPS distinct random functions present and $LOOKUPS keys absent (half an unknown name, half a known name with a wrong file); every function found is checked against the text profile."
  echo
  echo "$header"
  echo "$align"
  row "functions" c_funcs
  row "functions whose name another (static) function shares" c_shared
  row "text size (MB)" c_text
  row "text parse, \`sfdo_profile_read\` (s)" c_parse_s
  row "**text parse throughput (MB/s)**" c_parse_mbs
  row "peak RSS after parse (MB)" c_rss_parse
  row "**binary write**, \`sfdo_profile_save\` (s)" c_write
  row "binary size (MB)" c_binsize
  row "text write to /dev/null (s)" c_wtext
  row "binary read, all functions decoded (s)" c_rbin
  row "\`sfdo_profile_open\` of the binary (µs)" c_open
  row "**lookup, present**: median / p99 / max (µs)" c_hit
  row "lookup, present, name unique: median / p99 / max (µs) (count)" c_uniq
  row "lookup, present, name shared: median / p99 / max (µs) (count)" c_sharedl
  row "lookup, absent: median / p99 / max (µs)" c_miss
  row "lookup again, already decoded: median (µs)" c_again
  row "cold open + lookup, page cache dropped: median / max (µs)" c_cold
  row "RSS growth from open + all lookups: heap / mapped file (kB)" c_rssgrow
  row "peak RSS of the whole run (MB)" c_peak
  row "wrong lookup results" c_err
  echo
  echo "- Profile size (at least 500 000 functions and 200 MB of text): $size_ok ($(thousands "$big_funcs") functions, $(mb "$big_bytes") MB)."
  if [ "$lookup_ok" = yes ]; then
    echo "- **Lookup under 1 ms: met** at every size (99th percentile; the largest single lookup seen was $(fmt "$max_hit_all" 1) µs)."
  else
    echo "- **Lookup under 1 ms: MISSED** (99th percentile above 1000 µs at some size; see the table)."
  fi
  echo "- By name: at $(thousands "$last") functions, the 99th percentile is $(fmt "$(val "$last" lookup_unique_p99_us)" 1) µs for functions whose name is unique and $(fmt "$(val "$last" lookup_shared_p99_us)" 1) µs for static functions whose name up to $(val "$last" lookup_shared_max_same_name) functions share (\`sfdo_profile_find\` compares the name and file of each record under that name's hash and decodes only the match)."
  echo "- Size dependence: the median lookup of a present function is ${ratio}× as long with ${fratio}× as many functions (O(log n) binary search over the index)."
  if [ "$errors" -ne 0 ]; then
    echo "- **The library returned $errors wrong lookup results** (see bench/work/profile-bench-*.log)."
  fi
} > "$section"

# --- splice into RESULTS.md ------------------------------------------------
results_write_section "$SECTION" "$section"
say "wrote the section \"$SECTION\" of $RESULTS"
if [ "$errors" -ne 0 ]; then
  say "the library returned $errors wrong results"
  exit 1
fi
