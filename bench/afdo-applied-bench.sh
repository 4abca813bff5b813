#!/usr/bin/env bash
# afdo-applied-bench.sh - which records of sfdo's AFDO export GCC 12's
# -fauto-profile applies, on the test programs (issue #20): each program is
# built -O2 -g, recorded, converted, exported with sfdo-profile export
# --afdo, built again with -fauto-profile and -fdump-ipa-afdo-lineno, and
# scripts/afdo-applied.py matches the export's records against the
# statements of the afdo pass's dump.  Writes the section "## AFDO export:
# records GCC 12 applies" of bench/RESULTS.md.  About a minute.
#
# Exit status: 0 written; 1 a step failed; 77 perf cannot sample here, or
# no llvm-dwarfdump-14 (the script reads declaration lines with it).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
W=bench/work/afdo-applied
rm -rf "$W" && mkdir -p "$W"
command -v llvm-dwarfdump-14 >/dev/null ||
    { echo "SKIP: afdo-applied-bench: needs llvm-dwarfdump-14 (Debian package llvm-14)" >&2; exit 77; }
ev=$(scripts/perf-event.sh 2>/dev/null) ||
    { echo "SKIP: afdo-applied-bench: perf cannot sample here" >&2; exit 77; }
read -r PERF_EVENT PERF_PERIOD <<<"$ev"
PERIOD=$((PERF_PERIOD / 4))
programs=("${BENCH_TEST_PROGRAMS[@]}")
rows=
details=
for p in "${programs[@]}"; do
    read -r name src args <<<"$p"
    d=$W/$name
    mkdir -p "$d"
    gcc -std=gnu11 -O2 -g "$src" -o "$d/$name"
    # shellcheck disable=SC2086
    build/sfdo-record -q -e "$PERF_EVENT" -c "$PERIOD" -o "$d/$name.data" -- "$d/$name" $args >/dev/null
    build/sfdo-convert -q "$d/$name.data" "$d/$name" -o "$d/$name.prof"
    build/sfdo-profile export --afdo "$d/$name.prof" -o "$d/$name.afdo" 2>"$d/export.err"
    build/sfdo-profile import "$d/$name.afdo" -o "$d/$name.afdo.prof"
    (cd "$d" && gcc -std=gnu11 -O2 -g -fauto-profile="$name.afdo" -fdump-ipa-afdo-lineno \
        "$(realpath "$OLDPWD/$src")" -o "$name.fdo")
    dump=$(ls "$d/$name.fdo-"*.afdo)
    python3 scripts/afdo-applied.py "$d/$name.afdo.prof" "$d/$name" "$dump" > "$d/applied.txt"
    read -r _ frac pct _ cpct _ < "$d/applied.txt"
    rows+="| $name | $frac | $pct | $cpct |"$'\n'
    details+="$name: $(head -n 1 "$d/applied.txt")"$'\n'"$(tail -n +2 "$d/applied.txt")"$'\n'
    echo "afdo-applied-bench: $name: $(head -n 1 "$d/applied.txt")"
done

cat > "$W/section.md" <<EOT
## AFDO export: records GCC 12 applies

Written by \`bench/afdo-applied-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD).

- $(gcc --version | head -n 1); recorded with \`sfdo-record -e $PERF_EVENT -c $PERIOD\`; the test programs and arguments of \`bench/overlap-bench.sh\`, each built \`-O2 -g\`, recorded, converted, exported with \`sfdo-profile export --afdo\` (version 2), built again with \`-fauto-profile=\` the export and \`-fdump-ipa-afdo-lineno\`.
- A record counts as applied when a statement of its function in the afdo pass's dump (after the pass's own early inlining) sits on its line (\`scripts/afdo-applied.py\`): GCC annotates a block with the largest count of its statements' records (auto-profile.cc, \`afdo_set_bb_count\`). GCC 12's dumps print no discriminators, so records are matched by line, and a record whose line has a statement but whose discriminator GCC would not find counts as applied: an upper bound. "counts" is the applied records' share of all the records' counts.
- The C++ test program (\`tests/e2e/data/inventory.cc\`) is not here: this script builds the C programs (\`gcc -std=gnu11\`). (sfdo-convert reads it: GCC's DWARF gives its template instances on anonymous-namespace types no linkage name, and their DWARF names, with spaces, are written without them; e2e 82.)

| program | records applied | share | share of counts |
|---|---:|---:|---:|
$rows
Where records go unapplied (each program's functions with records not applied, as \`+OFFSET[.DISCRIMINATOR]=COUNT\`; a callee's name before the \`+\` for a record of an inline instance):

\`\`\`
$details\`\`\`

What GCC leaves unapplied falls in three kinds: records on lines that hold no GIMPLE statement at all (a function's opening brace, where its prologue is, and its closing brace, where its \`ret\` is; in a small leaf function such as demo's \`mix64\` or tripcounts' \`leaf\` the closing brace's record carries a large count, which GCC still gets from the other lines of the same block; a declaration whose initialiser became a PHI argument), records of inline instances that the profiled binary inlined and GCC's afdo pass does not inline again (it inlines only hot callsites: the demo's \`parse_scale\` and \`run_*_phase\`), and records of no count. None of these is a matter of the export's encoding: the share of counts shows that what GCC misses is where no statement can take it.
EOT
results_write_section "## AFDO export: records GCC 12 applies" "$W/section.md"
echo "afdo-applied-bench: wrote the section \"## AFDO export: records GCC 12 applies\" of bench/RESULTS.md"
