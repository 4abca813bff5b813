#!/usr/bin/env python3
"""gen_big_tu.py N OUT.c - a large translation unit for compile-time figures.

N functions with loops, branches, switches and calls between them (so the
inliner has work), plus a main that runs each a little, deterministically.
"""
import random
import sys

n, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(1)
with open(out, "w") as f:
    f.write("#include <stdio.h>\n#include <stdlib.h>\n\n")
    f.write("static unsigned long table[256];\n\n")
    for i in range(n):
        f.write(f"static unsigned long f{i} (unsigned long x);\n")
    for i in range(n):
        callee = rnd.randrange(i + 1, n) if i + 1 < n else None
        k = rnd.randrange(3, 40)
        f.write(f"""
static unsigned long
f{i} (unsigned long x)
{{
  unsigned long s = x ^ {rnd.randrange(1 << 30)}u;
  for (int i = 0; i < {k}; i++)
    {{
      if ((s + i) % {rnd.randrange(2, 9)} == 0)
        s += table[(s + i) & 255] * {rnd.randrange(1, 99)};
      else
        s ^= s >> {rnd.randrange(1, 13)};
      switch (s & 3)
        {{
        case 0: s += {rnd.randrange(100)}; break;
        case 1: s *= 3; break;
        case 2: s -= i; break;
        default: s |= 1; break;
        }}
    }}
""")
        if callee is not None:
            f.write(f"  if ((x & 15) == 0)\n    s += f{callee} (s >> 3);\n")
        f.write("  return s;\n}\n")
    f.write("\nint\nmain (int argc, char **argv)\n{\n  unsigned long s = 0;\n")
    f.write("  int reps = argc > 1 ? atoi (argv[1]) : 1;\n")
    f.write("  for (int i = 0; i < 256; i++)\n    table[i] = i * 2654435761u;\n")
    f.write("  for (int r = 0; r < reps; r++)\n    {\n")
    for i in range(0, n, max(1, n // 400)):
        f.write(f"      s += f{i} (s + r);\n")
    f.write("    }\n  printf (\"%lu\\n\", s);\n  return 0;\n}\n")
