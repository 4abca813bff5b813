#!/usr/bin/env bash
# 60-interop-afdo-llvm.sh - sfdo profiles go to and come from the formats
# other tools read, checked through those tools themselves:
#   GCC 12 -fauto-profile loads the AFDO version 2 export (its inliner
#   shows the head counts as auto FDO counts); Debian's dump_gcov prints
#   the version 1 export, and prints create_gcov's own output and sfdo's
#   re-export of it (through version 3 too) identically, and the version 3
#   export says which kinds of value histograms it left out; clang-14
#   takes the LLVM export without a word about the profile, and
#   llvm-profdata-14 shows the same totals as sfdo-profile; round trips
#   through AFDO and LLVM keep every count those formats can hold, and
#   what they cannot hold is reported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_built sfdo-convert sfdo-profile
need_perf
command -v create_gcov >/dev/null && command -v dump_gcov >/dev/null ||
  skip "needs create_gcov and dump_gcov (Debian package autofdo)"
command -v clang-14 >/dev/null && command -v llvm-profdata-14 >/dev/null ||
  skip "needs clang-14 and llvm-profdata-14"
cd "$TEST_TMP"
P=$SFDO_BUILD/sfdo-profile
SRC=$SFDO_ROOT/examples/demo.c

# create_gcov reads DWARF 4 only.
compile demo "$SRC" -O2 -gdwarf-4
perf_record perf.data -- ./demo 40
"$SFDO_BUILD/sfdo-convert" -q perf.data demo -o demo.prof

# GCC 12 reads the version 2 export.
"$P" export --afdo demo.prof -o demo.afdo 2> export.err
grep -q 'cannot hold .* files of static functions' export.err ||
  fail "the export did not report the static functions' files it left out"
"$SFDO_GCC" -std=c11 -O2 -g -fauto-profile=demo.afdo -fdump-ipa-inline "$SRC" -o afdo 2> gcc.err ||
  fail "gcc -fauto-profile rejected the export: $(head -3 gcc.err)"
head=$(awk -F: '/^crc32_update:/ {print $3}' demo.prof)
grep -q "count:$head (auto FDO)" afdo-demo.c.*inline ||
  fail "GCC's inliner does not show crc32_update's head count $head as auto FDO"

# dump_gcov prints the version 1 export, with sfdo's counts.
"$P" export --afdo=1 demo.prof -o demo1.afdo 2>/dev/null
dump_gcov --gcov_version=1 demo1.afdo > demo1.dump 2>&1 || fail "dump_gcov failed: $(head -3 demo1.dump)"
total=$(awk -F: '/^crc32_update:/ {print $2}' demo.prof)
grep -q "^crc32_update total:$total head:$head" demo1.dump ||
  fail "dump_gcov shows other counts for crc32_update: $(grep crc32 demo1.dump)"

# create_gcov's output, imported and re-exported, dumps the same.
create_gcov --binary=demo --profile=perf.data --gcov=cg.afdo --use_lbr=false > cg.log 2>&1 ||
  fail "create_gcov failed: $(tail -3 cg.log)"
dump_gcov cg.afdo > cg.dump 2>&1
grep -q '^crc32_update total:' cg.dump || fail "create_gcov's profile has no crc32_update"
"$P" import cg.afdo -o cg.prof
"$P" export --afdo=1 cg.prof -o re.afdo 2>/dev/null
dump_gcov --gcov_version=1 re.afdo > re.dump 2>&1
diff cg.dump re.dump > re.diff || fail "re-exported create_gcov profile dumps differently: $(head re.diff)"
# Through version 3 (what GCC 16 reads, e2e 106) it keeps every count too.
"$P" export --afdo=3 cg.afdo -o cg3.afdo
"$P" export --afdo=1 cg3.afdo -o re3.afdo 2>/dev/null
dump_gcov --gcov_version=1 re3.afdo > re3.dump 2>&1
diff cg.dump re3.dump > re3.diff || fail "create_gcov's profile through version 3 dumps differently: $(head re3.diff)"

# Version 3 says which kinds of value histograms it leaves out.
"$P" export --afdo=3 demo.prof -o demo3.afdo 2> export3.err
grep -q '^sfdo-profile: value histograms left out, by kind: .*[0-9] callsites' export3.err ||
  fail "the version 3 export did not say which value histograms it left out: $(cat export3.err)"

# clang-14 takes the LLVM export quietly; llvm-profdata agrees on totals.
"$P" export --llvm demo.prof -o demo.llvm 2> llvm.err
clang-14 -O2 -g -Wno-unknown-attributes -fprofile-sample-use=demo.llvm "$SRC" -o clang 2> clang.err ||
  fail "clang-14 failed: $(head -3 clang.err)"
[[ ! -s clang.err ]] || fail "clang-14 said something: $(head -3 clang.err)"
llvm-profdata-14 show --sample demo.llvm > llvm.show 2>&1 || fail "llvm-profdata failed: $(head -3 llvm.show)"
"$P" show --top 1000 demo.prof | awk 'f && NF >= 4 {print $4, $2, $3} /share/ {f=1}' | sort > ours.totals
awk '/^Function: / {sub(/:$/, "", $2); gsub(/,/, "", $3); gsub(/,/, "", $4); print $2, $3, $4}' llvm.show |
  sort > llvm.totals
diff ours.totals llvm.totals > totals.diff || fail "llvm-profdata shows other totals: $(head totals.diff)"

# Round trips keep what the formats hold: compare through the LLVM export,
# which leaves out the same things AFDO does for this profile.
"$P" import demo.afdo -o back-afdo.prof
"$P" import demo.llvm -o back-llvm.prof
for f in back-afdo back-llvm; do
  "$P" export --llvm "$f.prof" 2>/dev/null | grep -v '^#' > "$f.cmp"
done
grep -v '^#' demo.llvm > orig.cmp
cmp -s orig.cmp back-afdo.cmp || fail "sfdo -> AFDO -> sfdo changed counts: $(diff orig.cmp back-afdo.cmp | head)"
cmp -s orig.cmp back-llvm.cmp || fail "sfdo -> LLVM -> sfdo changed counts: $(diff orig.cmp back-llvm.cmp | head)"

# sfdo-convert writes both formats directly.
"$SFDO_BUILD/sfdo-convert" -q --format=afdo1 perf.data demo -o direct.afdo 2>/dev/null
# (into files first: grep -q closing a pipe early kills its writer with
# SIGPIPE, which pipefail reports as a failure)
dump_gcov --gcov_version=1 direct.afdo > direct.afdo.dump 2>&1
grep -q "^crc32_update total:$total head:$head" direct.afdo.dump ||
  fail "sfdo-convert --format=afdo1 wrote other counts"
"$SFDO_BUILD/sfdo-convert" -q --format=llvm perf.data demo -o direct.llvm 2>/dev/null
llvm-profdata-14 show --sample direct.llvm > direct.llvm.show 2>&1
grep -q "^Function: crc32_update: $total, $head," direct.llvm.show ||
  fail "sfdo-convert --format=llvm wrote other counts"
