/* settle runs a few thousand times: too rarely for sampling to show
   which of its blocks never ran, but its paths to the noreturn die never
   do, and GCC's own estimate makes them rare (a noreturn call).
   -fprofile-use moves them to the cold partition (settle.cold); sfdo
   does too, from the estimate, since the profile shows settle ran.  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noreturn, noinline)) static void
die (const char *what, unsigned v)
{
  fprintf (stderr, "bad %s: %u\n", what, v);
  exit (2);
}

__attribute__ ((noinline)) unsigned
settle (unsigned v, unsigned rounds)
{
  if (v > 100000000u)
    die ("value", v);
  unsigned h = v;
  for (unsigned i = 0; i < rounds; i++)
    h = h * 2654435761u + (i ^ (h >> 11));
  if (h == 0 && v != 0)
    die ("hash", v);
  return h;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 60000000;
  unsigned h = 0;
  for (unsigned k = 0; k < 3000; k++)
    h ^= settle (k, 300);
  for (long i = 0; i < n; i++)
    h = (h ^ (unsigned) i) * 40503u + (h >> 7);
  printf ("%u\n", h);
  return 0;
}
