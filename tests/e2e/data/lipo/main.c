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
  /* A few percent of the time at a count below the table call's: without
     it the 7 calls in 8 to rotate would be the least frequent hot code of
     main.c and ops.c, and GCC's hot threshold in their group's link (the
     least count among the blocks that hold 99% of the time) would fall
     exactly on rotate's count, where the rounding of the promoted call's
     count decides whether the promotion is kept.  */
  for (long i = 0; i < n / 8; i++)
    h = (h ^ (unsigned) i) * 2654435761u + (h >> 15);
  report (h, n);
  return 0;
}
