/* base.c - the edit suite's program (tests/e2e/84-stale-profile.sh): a
   hot loop that calls out, with a branch whose arms call different
   functions, so that the profile's lines and call sites move together
   when the source is edited.  The test applies each edit with sed to
   the marked lines.  */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__ ((noinline, noclone))

static unsigned long state = 88172645463325252ul;

NOINLINE static unsigned long
next_value (void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

NOINLINE static unsigned long
fold_even (unsigned long acc, unsigned long v)
{
  return acc * 31 + (v >> 3);
}

NOINLINE static unsigned long
fold_odd (unsigned long acc, unsigned long v)
{
  return (acc ^ v) + (acc >> 11);
}

/* A leaf: no call to align its profile by, only its loop.  */
NOINLINE static unsigned long
spread (unsigned long v)
{
  unsigned long r = 0;
  /* EDIT-LEAF */
  for (int k = 0; k < 5 + (int) (v & 3); k++)
    r += (v >> (8 * k)) & 0xff;
  return r ^ (r << 17);
}

NOINLINE static void
report (const char *what, unsigned long v)
{
  printf ("%s %lu\n", what, v);
}

/* EDIT-ABOVE */
NOINLINE static unsigned long
mix_all (long n)
{
  unsigned long acc = 1, rare = 0;
  for (long i = 0; i < n; i++)
    {
      unsigned long v = next_value ();
      /* EDIT-INSIDE */
      if ((v & 7) == 0)
        acc = fold_odd (acc, v);
      else
        acc = fold_even (acc, v);
      if ((v & 0xfffff) == 0)
        {
          rare++;
          report ("rare", rare);
        }
      acc += i & 3;
      acc ^= spread (v);
    }
  return acc + rare;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 20000000;
  report ("mixed", mix_all (n));
  return 0;
}
