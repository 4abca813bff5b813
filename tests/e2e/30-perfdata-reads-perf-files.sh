#!/usr/bin/env bash
# 30-perfdata-reads-perf-files.sh - perfdata/ reads what perf 6.1 writes,
# in every recording mode, and perf 4.13/5.6 files, as perf itself does.
#
# Records examples/demo.c here (default event, -g, -z, pipe mode, user
# registers, --call-graph dwarf, many sample fields, two events), reads
# each with tests/e2e/perfdata_dump.c and compares with `perf script`: the
# same samples (tid, ip, period, event), callchain lengths, user
# registers, user stack sizes and data sources (perf script -D), cpu,
# addr, weight, phys_addr, page sizes, and mmaps. Then reads the shared
# fixtures propeller_sample_1.perfdata1 (every LBR entry's from/to against
# `perf script -F ip,brstack`) and ro_sample.perf.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_built libsfdo.a
need_perf
tmpdir
T=$TEST_TMP

"${CC:-gcc}" -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
    "$SFDO_ROOT/tests/e2e/perfdata_dump.c" "$SFDO_BUILD/libsfdo.a" -lzstd \
    -o "$T/dump" || fail "cannot build perfdata_dump.c"
compile "$T/demo" "$SFDO_ROOT/examples/demo.c"
# -g unwinds with frame pointers: without them most stacks are one frame.
compile "$T/demo-fp" "$SFDO_ROOT/examples/demo.c" -O2 -g -fno-omit-frame-pointer

# same WHAT FILE A B: fail unless the sorted lines of A and B agree.
same() {
    local what=$1 file=$2
    sort "$3" >"$3.sorted"
    sort "$4" >"$4.sorted"
    [[ -s $3.sorted ]] || fail "$file: no $what at all"
    if ! diff "$3.sorted" "$4.sorted" >"$3.diff"; then
        fail "$file: $what differ from perf script ($(wc -l <"$3") vs" \
             "$(wc -l <"$4") lines): $(head -n 6 "$3.diff" | tr '\n' ' ')"
    fi
}

# dump FILE: our reading of FILE into FILE.ours (fails on any error).
dump() {
    "$T/dump" "$1" >"$1.ours" 2>"$1.dump.err" ||
        fail "perfdata_dump $1: $(cat "$1.dump.err")"
}

# check_samples FILE: tid, ip, period and event of every sample.
check_samples() {
    local f=$1
    grep '^S ' "$f.ours" | awk '{print $2, $3, $4, $5}' >"$f.s.ours" || true
    perf script -G -F tid,ip,period,event -i "$f" 2>/dev/null |
        awk '{sub(/:$/, "", $3); print $1, $4, $2, $3}' >"$f.s.perf"
    same samples "$f" "$f.s.ours" "$f.s.perf"
}

# check_mmaps FILE: pid, start, length, pgoff and name of every mmap.
check_mmaps() {
    local f=$1
    grep '^M ' "$f.ours" | cut -d' ' -f2- >"$f.m.ours" || true
    perf script --show-mmap-events -F tid -i "$f" 2>/dev/null |
        sed -nE 's/.*PERF_RECORD_MMAP2? (-?[0-9]+)\/[0-9]+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x)?([0-9a-f]+)[^]]*\]: [-a-z]+ (.*)$/\1 \2 \3 \5 \6/p' \
        >"$f.m.perf"
    same mmaps "$f" "$f.m.ours" "$f.m.perf"
}

# check_callchains FILE: the number of frames of every sample.
check_callchains() {
    local f=$1
    grep '^S ' "$f.ours" | awk '{print $2, $6}' >"$f.c.ours"
    perf script -F tid,ip -i "$f" 2>/dev/null | awk '
        /^[^\t]/ { if (have) print tid, n; tid = $1; n = 0; have = 1; next }
        /^\t/    { n++ }
        END      { if (have) print tid, n }' >"$f.c.perf"
    same "callchain lengths" "$f" "$f.c.ours" "$f.c.perf"
    awk '$2 > 1 {k++} END {exit !(k > 0)}' "$f.c.ours" ||
        fail "$f: no sample has a callchain of more than one frame"
}

# check_regs FILE: the user registers of every sample.
check_regs() {
    local f=$1
    grep '^R ' "$f.ours" | cut -d' ' -f2- >"$f.r.ours" || true
    perf script -G -F tid,ip,uregs -i "$f" 2>/dev/null | awk '{
        line = $1 " " $2
        for (i = 3; i <= NF; i++) {
            split($i, kv, ":"); v = kv[2]; sub(/^0x/, "", v); line = line " " v
        }
        print line }' >"$f.r.perf"
    same "user registers" "$f" "$f.r.ours" "$f.r.perf"
}

# check_dump FILE: the raw callchain lengths, user stack sizes and
# DATA_SRC of every sample, as perf script -D prints them.
check_dump() {
    local f=$1
    grep '^[KUD] ' "$f.ours" >"$f.d.ours" || true
    perf script -D -i "$f" 2>/dev/null | awk '
        / PERF_RECORD_SAMPLE\(/ {
            for (i = 1; i < NF; i++)
                if ($i ~ /^[0-9]+\/[0-9]+:$/) {
                    split($i, t, "/"); tid = t[2] + 0; ip = substr($(i + 1), 3)
                }
            next
        }
        /^\.\.\. FP chain: nr:/  { n = $4; sub(/^nr:/, "", n); print "K", tid, ip, n }
        /^\.\.\. ustack: size/ { s = $4; sub(/,$/, "", s); print "U", tid, ip, s }
        /^ \. data_src: /      { v = $3; sub(/^0x/, "", v); print "D", tid, ip, v }' \
        >"$f.d.perf"
    same "raw callchains, user stacks and data sources" "$f" "$f.d.ours" \
         "$f.d.perf"
}

# check_extra FILE: cpu, addr, weight, phys_addr and page sizes.
check_extra() {
    local f=$1
    grep '^X ' "$f.ours" | cut -d' ' -f2- >"$f.x.ours" || true
    perf script -F tid,ip,cpu,addr,weight,phys_addr,data_page_size,code_page_size \
        -i "$f" 2>/dev/null | awk '
        function bytes(s) {
            if (s == "N/A") return 0
            if (s ~ /K$/) return substr(s, 1, length(s) - 1) * 1024
            if (s ~ /M$/) return substr(s, 1, length(s) - 1) * 1048576
            if (s ~ /G$/) return substr(s, 1, length(s) - 1) * 1073741824
            return s
        }
        { gsub(/[][]/, "", $2)
          print $1, $5, $2 + 0, $3, $4, $6, bytes($7), bytes($8) }' >"$f.x.perf"
    same "cpu/addr/weight/phys_addr/page sizes" "$f" "$f.x.ours" "$f.x.perf"
}

run=(-- "$T/demo" 10)
perf_record "$T/plain.data" "${run[@]}"
perf_record "$T/g.data" -g -- "$T/demo-fp" 10
perf_record "$T/z.data" -z "${run[@]}"
perf_record "$T/regs.data" --user-regs=AX,BX,SP,IP "${run[@]}"
perf_record "$T/dwarf.data" --call-graph dwarf,1024 "${run[@]}"
perf record -q --no-bpf-event -e "$PERF_EVENT" -c "$PERF_PERIOD" -o - \
    -- "$T/demo" 10 >"$T/pipe.data" 2>"$T/pipe.err" ||
    fail "perf record -o - failed: $(head -n 3 "$T/pipe.err")"

for f in plain g z regs dwarf pipe; do
    dump "$T/$f.data"
    check_samples "$T/$f.data"
    check_mmaps "$T/$f.data"
done
check_callchains "$T/g.data"
check_dump "$T/g.data"
check_regs "$T/regs.data"
check_regs "$T/dwarf.data"
check_dump "$T/dwarf.data"

# Many sample fields at once: IDENTIFIER, ADDR, CPU, DATA_SRC, PHYS_ADDR,
# WEIGHT_STRUCT, page sizes, and a read_format with every flag.
perf_record "$T/rich.data" -d --sample-cpu -W --phys-data -s -T \
    --data-page-size --code-page-size --sample-identifier "${run[@]}"
dump "$T/rich.data"
check_samples "$T/rich.data"
check_extra "$T/rich.data"
check_dump "$T/rich.data"
grep -q '^N [0-9]* [0-9]* 0 [1-9]' "$T/z.data.ours" ||
    fail "z.data: no COMPRESSED record was read"

# Pipe mode from a real pipe, not a file: the same samples.
perf record -q --no-bpf-event -e "$PERF_EVENT" -c "$PERF_PERIOD" -o - \
    -- "$T/demo" 10 2>"$T/pipe2.err" | "$T/dump" - >"$T/pipe2.ours" ||
    fail "reading perf record -o - through a pipe failed"
grep -q '^S ' "$T/pipe2.ours" || fail "no samples read through a pipe"

# Two software events at once, told apart by their sample ids.
two=
for pair in cpu-clock:u,task-clock:u "$PERF_EVENT,instructions:u"; do
    if perf record -q --no-bpf-event -e "$pair" -c "$PERF_PERIOD" \
           -o "$T/two.data" -- "$T/demo" 10 >/dev/null 2>&1; then
        two=$pair
        break
    fi
done
[[ -n $two ]] || fail "perf could not record two events at once"
dump "$T/two.data"
check_samples "$T/two.data"
for e in ${two//,/ }; do
    grep -q "^S .* $e [0-9]*$" "$T/two.data.ours" ||
        fail "two.data: no sample of $e"
done

# System-wide with kernel callchains and kernel mmaps, where allowed.
sys="system-wide: not allowed here"
if perf record -q -a -g -e "${PERF_EVENT%:u}" -c "$PERF_PERIOD" \
       -o "$T/sys.data" -- sleep 0.2 >/dev/null 2>&1; then
    dump "$T/sys.data"
    check_samples "$T/sys.data"
    check_mmaps "$T/sys.data"
    # (perf script may hide a frame it cannot place in a process that is
    # gone, so system-wide callchains are compared raw.)
    check_dump "$T/sys.data"
    sys="system-wide too"
fi

# Files from other machines and perf versions.
need_shared
F=$SHARED_FIXTURES/autofdo
for f in propeller_sample_1.perfdata1 ro_sample.perf; do
    [[ -r $F/$f ]] || skip "$F/$f is absent"
    ln -s "$F/$f" "$T/$f"
    dump "$T/$f"
    check_samples "$T/$f"
    check_mmaps "$T/$f"
done
p=$T/propeller_sample_1.perfdata1
grep '^B ' "$p.ours" | cut -d' ' -f2- >"$p.b.ours"
perf script -F ip,brstack -i "$p" 2>/dev/null | awk '{
    line = $1
    for (i = 2; i <= NF; i++) {
        split($i, e, "/"); sub(/^0x/, "", e[1]); sub(/^0x/, "", e[2])
        line = line " " e[1] "/" e[2]
    }
    print line }' >"$p.b.perf"
same "branch stacks" "$p" "$p.b.ours" "$p.b.perf"
n=$(wc -l <"$p.b.ours")
echo "$TEST_NAME: 8 recordings and 2 fixtures read as perf reads them" \
     "($n LBR stacks; $sys)"
