/* A division whose divisor is 7 nearly every time, and an unsigned modulo
   by a power of two: PGO specialises both (a compare and a division by a
   constant, which becomes a multiplication; a mask).  */
#include <stdio.h>
#include <stdlib.h>

static unsigned divisors[256], moduli[256];

/* Divisors computed in registers: sampled registers show them, where a
   divisor read straight from memory by the division would not be.  */
__attribute__ ((noinline)) unsigned long
reduce (long n, unsigned mask)
{
  unsigned long s = 0;
  for (long i = 0; i < n; i++)
    {
      unsigned v = (unsigned) i * 2654435761u;
      unsigned d = divisors[i & 255] ^ mask, m = moduli[(i >> 3) & 255] ^ mask;
      s += v / d;
      s += v % m;
    }
  return s;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 30000000;
  for (int i = 0; i < 256; i++)
    {
      divisors[i] = i == 100 ? 13 : 7;
      moduli[i] = i == 9 ? 100 : 64;
    }
  printf ("%lu\n", reduce (n, (unsigned) argc >> 8));
  return 0;
}
