/* Two functions with identical bodies, one called all the time and one
   never: the -O2 build folds them into one body (identical code folding),
   which two symbols share.  Samples there belong to the hot one's calls;
   the cold one must not be taken for hot, nor the hot one for cold.  */
#include <stdio.h>
#include <stdlib.h>

static unsigned table[64];

static __attribute__ ((noinline)) unsigned
sum_rare (int n)
{
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += table[i & 63] * (unsigned) (i | 1);
  return s;
}

static __attribute__ ((noinline)) unsigned
sum_often (int n)
{
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += table[i & 63] * (unsigned) (i | 1);
  return s;
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 2000000;
  unsigned h = 0;
  for (int i = 0; i < 64; i++)
    table[i] = (unsigned) i * 2654435761u;
  for (long r = 0; r < rounds; r++)
    h += argc > 2 ? sum_rare (48 + (int) (r & 15)) : sum_often (48 + (int) (r & 15));
  printf ("%u\n", h);
  return 0;
}
