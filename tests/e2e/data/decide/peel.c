/* An inner loop whose trip count is known only at run time, and is always
   2 or 3: PGO peels it (no loop left for those iterations), plain -O2
   keeps the loop.  */
#include <stdio.h>
#include <stdlib.h>

static unsigned counts[4096], values[4];

__attribute__ ((noinline)) unsigned
sum_small (const unsigned *cnt, int n, unsigned salt)
{
  unsigned s = salt;
  for (int i = 0; i < n; i++)
    for (unsigned j = 0; j < cnt[i]; j++)
      s = (s ^ values[j & 3]) * 31u + (unsigned) i;
  return s;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 30000;
  unsigned s = 0;
  for (int i = 0; i < 4096; i++)
    counts[i] = 2 + (unsigned) (i * 7919 % 3 == 0);
  for (int i = 0; i < 4; i++)
    values[i] = (unsigned) (i * 2654435761u);
  for (int r = 0; r < rounds; r++)
    s += sum_small (counts, 4096, (unsigned) r);
  printf ("%u\n", s);
  return 0;
}
