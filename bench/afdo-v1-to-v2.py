#!/usr/bin/env python3
"""afdo-v1-to-v2.py - Debian 12's create_gcov output as GCC 12 to 15 read it.

Usage: afdo-v1-to-v2.py IN.afdo OUT.afdo

create_gcov 0.19 writes its string table as gcov version 1 writes strings
(a length in 4-byte words, then the bytes padded with NULs), whatever
-gcov_version says; GCC 12 to 15 read AutoFDO version 2, whose strings
are a byte length (the NUL included) and the bytes, unpadded (GCC 12
crashes in strlen on the other).  OUT is IN with its version word set to
2 and its string table rewritten so; the function profiles after it are
copied unchanged.  (GCC 16's version 3 needs more: `sfdo-profile export
--afdo=3 IN.afdo` writes it.)

Exit status 0, or 1 with a message naming the file and what is wrong.
"""
import struct
import sys

PROG = "afdo-v1-to-v2"
TAG_STRINGS = 0xaa000000  # GCOV_TAG_AFDO_FILE_NAMES


def convert(d):
    if len(d) < 24:
        raise ValueError("shorter than an AutoFDO header and string table")
    magic, version, stamp = struct.unpack_from("<III", d, 0)
    if version != 1:
        raise ValueError("version %d, not create_gcov's 1" % version)
    tag, _ = struct.unpack_from("<II", d, 12)
    if tag != TAG_STRINGS:
        raise ValueError("no string table after the header (tag 0x%08x)" % tag)
    pos = 20
    n, = struct.unpack_from("<I", d, pos)
    pos += 4
    names = []
    for i in range(n):
        words, = struct.unpack_from("<I", d, pos)
        pos += 4
        if pos + 4 * words > len(d):
            raise ValueError("string %d of %d runs past the end" % (i, n))
        names.append(d[pos:pos + 4 * words].split(b"\0")[0])
        pos += 4 * words
    body = struct.pack("<I", n) + b"".join(
        struct.pack("<I", len(s) + 1) + s + b"\0" for s in names)
    # No padding after the table: GCC reads on from its last byte.
    return (struct.pack("<III", magic, 2, stamp)
            + struct.pack("<II", tag, (len(body) + 3) // 4) + body + d[pos:])


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        d = open(argv[1], "rb").read()
    except OSError as e:
        sys.exit("%s: cannot read %s: %s" % (PROG, argv[1], e.strerror))
    try:
        out = convert(d)
    except (ValueError, struct.error) as e:
        sys.exit("%s: %s: %s" % (PROG, argv[1], e))
    try:
        with open(argv[2], "wb") as f:
            f.write(out)
    except OSError as e:
        sys.exit("%s: cannot write %s: %s" % (PROG, argv[2], e.strerror))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
