/* classify() is inlined at both of its calls in the -O2 binary, and each
   call sees one kind of value only: the profile's two inline instances of
   it differ (odd values at the first call, even at the second).  A new
   build that inlines classify() before annotating, as the profiled binary
   did, gives each copy its own counts: in each, the arm the call never
   takes is cold.  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) unsigned
on_odd (unsigned x)
{
  return x * 3 + 1;
}

__attribute__ ((noinline)) unsigned
on_even (unsigned x)
{
  return x >> 1;
}

static unsigned
classify (unsigned x, unsigned salt)
{
  unsigned r = x ^ salt;
  if (x & 1)
    r += on_odd (x) * 7 + salt;
  else
    r -= on_even (x) ^ salt;
  r = (r << 3) | (r >> 29);
  return r + (x & 0xff);
}

static unsigned odds[1024], evens[1024];

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 30000000;
  unsigned h = 0;
  /* Values the compiler cannot see through.  */
  for (unsigned i = 0; i < 1024; i++)
    {
      odds[i] = (i * 2654435761u) | 1;
      evens[i] = (i * 40503u) & ~1u;
    }
  for (long i = 0; i < n; i++)
    {
      h += classify (odds[i & 1023], 0x1234);
      h ^= classify (evens[(i * 7) & 1023], 0x4321);
    }
  printf ("%u\n", h);
  return 0;
}
