/* main.c, ops.c, cold.c - a hot path that crosses files: main's loop calls
   ops.c's mix directly and ops.c's functions through a table ops.c fills;
   cold.c's report runs once.  For module groups (LIPO): main.c and ops.c
   belong together, cold.c alone (tests/e2e/83-convert-groups.sh).  */
#include <stdio.h>
#include <stdlib.h>

unsigned mix (unsigned x);
extern unsigned (*const ops_table[4]) (unsigned);
void report (unsigned h, long n);

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 50000000;
  unsigned h = 1;
  for (long i = 0; i < n; i++)
    {
      h = mix (h) + (unsigned) i;
      h = ops_table[(i & 7) == 0 ? 1 : 0] (h);
    }
  report (h, n);
  return 0;
}
