/* inlined.c - e2e 84's program for an edit inside a function the
   profiled binary inlined: run's profile holds step only as an inline
   instance, whose lines count from step's declaration, with its call of
   scramble for an anchor.  Its rare branch runs a few times and goes to
   the cold partition; the test inserts lines at the marked place, after
   which the instance's old lines put the next test's count there.  */
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
scramble (unsigned long acc, unsigned long v)
{
  return (acc ^ v) * 0x9e3779b97f4a7c15ul;
}

static inline unsigned long
step (unsigned long acc, unsigned long v)
{
  /* EDIT-INLINED */
  acc = scramble (acc, v);
  for (int k = 0; k < 3 + (int) (v & 1); k++)
    acc = acc * 31 + ((v >> (8 * k)) & 0xff);
  if ((v & 0xfffff) == 0)
    {
      acc ^= acc >> 7;
      acc += 12345;
    }
  if ((v & 7) == 0)
    acc ^= acc >> 11;
  return acc;
}

NOINLINE static unsigned long
run (long n)
{
  unsigned long acc = 1;
  for (long i = 0; i < n; i++)
    acc = step (acc, next_value ());
  return acc;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 20000000;
  printf ("%lu\n", run (n));
  return 0;
}
