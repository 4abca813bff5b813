/* A function the run never calls and one it calls all the time: PGO puts
   the first in .text.unlikely and the second in .text.hot.  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) void
report_usage (const char *prog, int code)
{
  fprintf (stderr, "usage: %s [ROUNDS]\n", prog);
  for (int i = 0; i < code; i++)
    fputc ('!', stderr);
  exit (code);
}

__attribute__ ((noinline)) unsigned
mix (unsigned x)
{
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

int
main (int argc, char **argv)
{
  if (argc > 2)
    report_usage (argv[0], 2);
  long rounds = argc > 1 ? atol (argv[1]) : 60000000;
  unsigned h = 1;
  for (long i = 0; i < rounds; i++)
    h = mix (h + (unsigned) i);
  printf ("%u\n", h);
  return 0;
}
