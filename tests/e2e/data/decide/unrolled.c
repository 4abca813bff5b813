/* A loop the profiled build unrolls (-funroll-loops): each of the eight
   copies of its body carries the body's line, and each ran an eighth of
   the iterations.  The line's count must be the iterations, 4096 per
   round, not an eighth of them.  */
#include <stdio.h>
#include <stdlib.h>

static unsigned values[4096];

__attribute__ ((noinline)) unsigned long
weigh (const unsigned *v, int n, unsigned long salt)
{
  unsigned long s = salt;
  for (int i = 0; i < n; i++)
    s += v[i] * (unsigned long) (i | 1);
  return s;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 5000;
  unsigned long s = 0;
  for (int i = 0; i < 4096; i++)
    values[i] = (unsigned) i * 2654435761u;
  for (int r = 0; r < rounds; r++)
    s += weigh (values, 4096, (unsigned long) r);
  printf ("%lu\n", s);
  return 0;
}
