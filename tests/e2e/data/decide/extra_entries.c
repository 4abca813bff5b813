/* A function its caller enters more often than its own samples say (the
   two are sampled apart), with an error path that never runs.  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) static int
decode (int flags, int *out)
{
  int r = flags & 3;
  if (flags < 0)
    {
      fprintf (stderr, "bad flags %d\n", flags);
      return -7;
    }
  if (flags & 8)
    out[0] += r;
  else
    out[1] += r;
  if (flags & 16)
    out[2] += flags;
  return r + out[0];
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 6000;
  int seed = argc > 2 ? atoi (argv[2]) : 0;
  int out[3] = { 0, 0, 0 };
  long sum = 0;
  for (long i = 0; i < rounds; i++)
    sum += decode ((int) (i & 0x7fffffff) ^ seed, out);
  printf ("%ld %d %d %d\n", sum, out[0], out[1], out[2]);
  return 0;
}
