/* divisors.c - a division whose divisor is 7 three times in four: the
   plugin must let GCC specialise it (tests/e2e/51-plugin-value-profiles.sh).  */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long work (unsigned long n, const unsigned *divs)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += (i * 2654435761u) % divs[i & 7];
  return s;
}
int main (int argc, char **argv)
{
  unsigned divs[8] = { 7, 7, 7, 7, 7, 7, 13, 100 };
  printf ("%lu\n", work (argc > 1 ? strtoul (argv[1], 0, 10) : 200000000ul, divs));
  return 0;
}
