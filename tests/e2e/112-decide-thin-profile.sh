#!/usr/bin/env bash
# 112-decide-thin-profile.sh - what a thin profile (a short training run
# under a timer: a thousand samples) did not sample is not taken for code
# that never ran where other evidence says it ran.  A fixed profile,
# shaped like SQLite's timer recordings, of
# tests/e2e/data/decide/thin_profile.c.
#  (a) run's prologue calls enter, a few instructions that caught no
#      sample; the prologue dominates run's sampled loop, so it ran, and
#      run keeps its entries (held at zero, the whole function became
#      "unlikely executed", SQLite's sqlite3VdbeExec with a quarter of
#      the samples).
#  (b) digest, called through a pointer, caught no sample of its own, but
#      a sampled stack showed it calling checksum: it ran, and stays in
#      .text with GCC's estimate, where PGO has it too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/decide.sh"
need_plugin
SRC=$SFDO_ROOT/tests/e2e/data/decide/thin_profile.c

header() {
  cat <<'PROF'
# sfdo-profile: 1
# mode: ip
# mode: time
# event: cpu-clock:u period=250007 samples=1200
# tool: sfdo-convert 0.1.0
# samples: used=1200 dropped=0
PROF
}

# run's loop (offset 5, discriminator 2) and switch (6) with three of
# its sixteen cases sampled; HEAD entries.
run_profile() {
  local head=$1 loop=$2 l
  echo "run:$((loop * 3)):$head"
  for l in 1 2 3 4 5; do echo " $l: 0"; done
  echo " 5.2: $loop"
  echo " 6: $loop"
  for l in $(seq 8 23); do
    case $l in 8|14|20) echo " $l: $((loop / 5))" ;; *) echo " $l: 0" ;; esac
  done
  echo " 25: 0"
  echo " 26: 0"
  echo " !Values: 3 callsites enter:1"
}

P=$TEST_TMP/thin.prof
tmpdir
{ header
  run_profile 300000 60000000
  cat <<'PROF'
enter:0:0
digest:0:0
 2: 0
 !Values: 2 callsamples checksum:3
checksum:4000000:300000
 3.3: 2000000
 4.3: 2000000
main:1000:1
 10: 1000 run:300000
PROF
} > "$P"
decide_build thin --args 3000 --profile "$P" "$SRC" -- -g

# (a)
s=$(decide_section sfdo thin_profile.c run)
[[ $s == .text* && $s != .text.unlikely ]] ||
  fail "(a) run, a tenth of the profile, is in '$s'"
blocks=$(decide_block_dump "$P" "$SRC")
entry=$(awk '$0 == "function run" { m = 1; next } /^function / { m = 0 }
             m && $1 == "bb" && $2 == 0 { for (i = 1; i < NF; i++)
               if ($i == "final") e = $(i + 1) } END { print e }' "$blocks")
[[ -n $entry && $entry -gt 0 ]] ||
  fail "(a) run's entry count is '$entry': its prologue, which calls the unsampled enter, was held at zero"
echo "(a) run keeps its entries ($entry) and its section ($s)"

# (b)
for v in pgo sfdo; do
  s=$(decide_section $v thin_profile.c digest)
  [[ $s == .text* && $s != .text.unlikely ]] ||
    fail "(b) $v: digest, seen calling checksum, is in '$s'"
done
echo "(b) digest in .text, by PGO and by sfdo"
