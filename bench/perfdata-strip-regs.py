#!/usr/bin/env python3
"""perfdata-strip-regs.py - a perf.data without its samples' registers and
stack copies, for readers that refuse them (Debian 12's create_gcov 0.19:
"PERF_SAMPLE_REGS_USER is not yet supported").

Usage: perfdata-strip-regs.py IN.perf.data OUT.perf.data

sfdo-record writes registers and 1 KB user stack copies with each sample
by default (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER: the callers
sfdo-convert unwinds), and registers with --regs (REGS_USER, or
REGS_INTR with precise events).  OUT is IN with those fields taken out of
every SAMPLE record and their bits cleared in every event's attr (the
attrs section and the HEADER_EVENT_DESC feature): the same samples, the
same IPs, callchains and branch stacks, so that create_gcov reads the
very recording sfdo-convert read.  The header's data size and the
feature sections' offsets are fixed up; everything else is copied as it
is.

IN must be a file-mode perf.data ("PERFILE2", little-endian) without
COMPRESSED records.  Prints "samples=N bytes_removed=B" on stdout.
Exit status 0, or 1 with a message naming the file and what is wrong.
"""
import struct
import sys

HDR = 104
REC_SAMPLE = 9
REC_COMPRESSED = (81, 83)
FEAT_EVENT_DESC = 12

S_IP, S_TID, S_TIME, S_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
S_READ, S_CALLCHAIN, S_ID, S_CPU = 1 << 4, 1 << 5, 1 << 6, 1 << 7
S_PERIOD, S_STREAM_ID, S_RAW, S_BRANCH_STACK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
S_REGS_USER, S_STACK_USER, S_WEIGHT, S_DATA_SRC = 1 << 12, 1 << 13, 1 << 14, 1 << 15
S_IDENTIFIER, S_TRANSACTION, S_REGS_INTR = 1 << 16, 1 << 17, 1 << 18
S_PHYS_ADDR, S_AUX, S_CGROUP = 1 << 19, 1 << 20, 1 << 21
S_DATA_PAGE_SIZE, S_CODE_PAGE_SIZE, S_WEIGHT_STRUCT = 1 << 22, 1 << 23, 1 << 24
STRIPPED = S_REGS_USER | S_STACK_USER | S_REGS_INTR
# read_format bits
R_TOTAL_ENABLED, R_TOTAL_RUNNING, R_ID, R_GROUP, R_LOST = 1, 2, 4, 8, 16
BRANCH_HW_INDEX = 1 << 17

PROG = "perfdata-strip-regs"


class Bad(Exception):
    pass


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


class Attr:
    """The fields of one perf_event_attr the sample layout depends on."""

    def __init__(self, b, o):
        self.size = u32(b, o + 4)
        self.sample_type = u64(b, o + 24)
        self.read_format = u64(b, o + 32)
        self.branch_sample_type = u64(b, o + 72) if self.size > 80 else 0
        self.regs_user = u64(b, o + 80) if self.size > 88 else 0
        self.regs_intr = u64(b, o + 96) if self.size > 104 else 0


def clear_bits(b, o):
    """Clear the stripped sample_type bits (and the register masks and
    stack size) of the attr at offset o of the bytearray b."""
    size = u32(b, o + 4)
    st = u64(b, o + 24)
    struct.pack_into("<Q", b, o + 24, st & ~STRIPPED)
    if size > 88:
        struct.pack_into("<Q", b, o + 80, 0)          # sample_regs_user
        struct.pack_into("<I", b, o + 88, 0)          # sample_stack_user
    if size > 104:
        struct.pack_into("<Q", b, o + 96, 0)          # sample_regs_intr


def read_size(a):
    """Bytes of a READ field."""
    one = 8 + (8 if a.read_format & R_TOTAL_ENABLED else 0) \
        + (8 if a.read_format & R_TOTAL_RUNNING else 0)
    per = 8 + (8 if a.read_format & R_ID else 0) + (8 if a.read_format & R_LOST else 0)
    return one, per


def strip_sample(rec, a, where):
    """rec: a whole SAMPLE record (header included); a: its attr.  The
    record without its register and stack fields."""
    st = a.sample_type
    o = 8
    for bit in (S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID,
                S_CPU, S_PERIOD):
        if st & bit:
            o += 8
    if st & S_READ:
        if a.read_format & R_GROUP:
            nr = u64(rec, o)
            _, per = read_size(a)
            o += 8 + (8 if a.read_format & R_TOTAL_ENABLED else 0) \
                + (8 if a.read_format & R_TOTAL_RUNNING else 0) + nr * per
        else:
            o += read_size(a)[0] + (8 if a.read_format & R_ID else 0) \
                + (8 if a.read_format & R_LOST else 0)
    if st & S_CALLCHAIN:
        o += 8 + 8 * u64(rec, o)
    if st & S_RAW:
        o += (4 + u32(rec, o) + 7) & ~7
    if st & S_BRANCH_STACK:
        nr = u64(rec, o)
        o += 8 + (8 if a.branch_sample_type & BRANCH_HW_INDEX else 0) + 24 * nr
    keep = [rec[:o]]
    if st & S_REGS_USER:
        abi = u64(rec, o)
        o += 8 + (8 * bin(a.regs_user).count("1") if abi else 0)
    if st & S_STACK_USER:
        size = u64(rec, o)
        o += 8 + (size + 8 if size else 0)
    mid = o
    for bit in (S_WEIGHT, S_DATA_SRC, S_TRANSACTION):
        if st & bit:
            o += 8
    if st & S_WEIGHT_STRUCT:
        o += 8
    keep.append(rec[mid:o])
    if st & S_REGS_INTR:
        abi = u64(rec, o)
        o += 8 + (8 * bin(a.regs_intr).count("1") if abi else 0)
    if o > len(rec):
        raise Bad("%s: a sample record is shorter than its fields (%d > %d bytes)"
                  % (where, o, len(rec)))
    keep.append(rec[o:])
    out = bytearray(b"".join(keep))
    struct.pack_into("<H", out, 6, len(out))
    return out


def strip(data):
    if data[:8] != b"PERFILE2":
        raise Bad("not a file-mode little-endian perf.data (magic %r)" % data[:8])
    hsize, attr_size = u64(data, 8), u64(data, 16)
    if hsize != HDR:
        raise Bad("header of %d bytes, not %d" % (hsize, HDR))
    a_off, a_size = u64(data, 24), u64(data, 32)
    d_off, d_size = u64(data, 40), u64(data, 48)
    t_off = u64(data, 56)
    feats = int.from_bytes(data[72:HDR], "little")
    end = d_off + d_size
    if end > len(data) or a_off + a_size > len(data):
        raise Bad("sections run past the file's end (%d bytes)" % len(data))
    if a_off < end and a_off + a_size > d_off:
        raise Bad("the attrs section overlaps the data section")
    # attrs, and the ids each one's samples carry
    attrs, by_id = [], {}
    for o in range(a_off, a_off + a_size, attr_size):
        a = Attr(data, o)
        attrs.append(a)
        ids_off, ids_size = u64(data, o + attr_size - 16), u64(data, o + attr_size - 8)
        for i in range(ids_off, ids_off + ids_size, 8):
            by_id[u64(data, i)] = a
    if not attrs:
        raise Bad("no event attrs")
    if len({a.sample_type for a in attrs}) > 1 and \
            not all(a.sample_type & S_IDENTIFIER for a in attrs):
        raise Bad("events with different sample layouts and no IDENTIFIER to tell them apart")
    # records
    body = bytearray()
    samples = 0
    o = d_off
    while o < end:
        typ, size = u32(data, o), struct.unpack_from("<H", data, o + 6)[0]
        if size < 8 or o + size > end:
            raise Bad("record at offset %d: size %d runs past the data section" % (o, size))
        rec = data[o:o + size]
        if typ in REC_COMPRESSED:
            raise Bad("record at offset %d is COMPRESSED: not supported" % o)
        if typ == REC_SAMPLE:
            a = attrs[0]
            if len(attrs) > 1:
                key = u64(rec, 8)   # IDENTIFIER comes first
                if key not in by_id:
                    raise Bad("sample at offset %d: id %d of no event" % (o, key))
                a = by_id[key]
            rec = strip_sample(rec, a, "sample at offset %d" % o)
            samples += 1
        body += rec
        o += size
    delta = d_size - len(body)
    out = bytearray(data[:d_off]) + body + bytearray(data[end:])

    def moved(off):
        """Where a section that started at off in IN starts in OUT."""
        return off - delta if off >= end else off
    struct.pack_into("<Q", out, 48, len(body))
    struct.pack_into("<Q", out, 24, moved(a_off))
    if u64(data, 64):
        struct.pack_into("<Q", out, 56, moved(t_off))
    for o in range(moved(a_off), moved(a_off) + a_size, attr_size):
        clear_bits(out, o)
        struct.pack_into("<Q", out, o + attr_size - 16, moved(u64(out, o + attr_size - 16)))
    # the feature table right after the data
    t = end - delta
    for k, bit in enumerate(i for i in range(256) if feats >> i & 1):
        if t + 16 * k + 16 > len(out):
            raise Bad("truncated feature table")
        fo = moved(u64(out, t + 16 * k))
        struct.pack_into("<Q", out, t + 16 * k, fo)
        if bit == FEAT_EVENT_DESC:
            # u32 nr, u32 attr size, then per event: attr, u32 nr_ids,
            # string (u32 len + bytes), ids
            nr, asz = u32(out, fo), u32(out, fo + 4)
            p = fo + 8
            for _ in range(nr):
                clear_bits(out, p)
                p += asz
                nids = u32(out, p)
                p += 4
                p += 4 + u32(out, p)
                p += 8 * nids
    return bytes(out), samples, delta


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        data = open(argv[1], "rb").read()
    except OSError as e:
        sys.exit("%s: cannot read %s: %s" % (PROG, argv[1], e.strerror))
    try:
        out, n, removed = strip(data)
    except (Bad, struct.error, IndexError) as e:
        sys.exit("%s: %s: %s" % (PROG, argv[1], e))
    try:
        with open(argv[2], "wb") as f:
            f.write(out)
    except OSError as e:
        sys.exit("%s: cannot write %s: %s" % (PROG, argv[2], e.strerror))
    print("samples=%d bytes_removed=%d" % (n, removed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
