/* settle runs 30 times: too rarely for sampling to show which of its
   blocks never ran (its paths to die, had each run on every entry, would
   have caught a few thousandths of a sample at sfdo-record --emulate's
   period of 49999; at 3000 entries, a fifth, and the evidence rule
   alone split settle), but its paths to exit never do, and GCC's own
   estimate makes them rare (a noreturn call).
   -fprofile-use moves them to the cold partition (settle.cold); sfdo
   does too, from the estimate, since the profile shows settle ran.  */
#include <stdio.h>
#include <stdlib.h>

/* Not a function of its own: the profile would list it as never run,
   and the calls of a function that never ran hold their blocks at zero
   by another rule (e2e 88).  */
#define DIE(what, v) \
  do { fprintf (stderr, "bad %s: %u\n", what, v); exit (2); } while (0)

__attribute__ ((noinline)) unsigned
settle (unsigned v, unsigned rounds)
{
  if (v > 100000000u)
    DIE ("value", v);
  unsigned h = v;
  for (unsigned i = 0; i < rounds; i++)
    h = h * 2654435761u + (i ^ (h >> 11));
  if (h == 0 && v != 0)
    DIE ("hash", v);
  return h;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 60000000;
  unsigned h = 0;
  for (unsigned k = 0; k < 30; k++)
    h ^= settle (k, 30000);
  for (long i = 0; i < n; i++)
    h = (h ^ (unsigned) i) * 40503u + (h >> 7);
  printf ("%u\n", h);
  return 0;
}
