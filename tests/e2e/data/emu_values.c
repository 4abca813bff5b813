/* emu_values.c - a division whose divisor is 7 six times in eight and a
   memcpy whose size is 100 three times in four, as divisors.c and
   memsizes.c, but sized by argv[1] (default 1000000), for the emulated
   PMU's register samples (tests/e2e/9*-emulate-*.sh).  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dst[4096], src[4096];

__attribute__ ((noinline)) static unsigned long
divide (unsigned long n, const unsigned *divs)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += (i * 2654435761u) % divs[i & 7];
  return s;
}

__attribute__ ((noinline)) static unsigned long
copy (unsigned long n, const size_t *sizes)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    {
      memcpy (dst + (i & 15), src, sizes[i & 3]);
      s += dst[i & 63];
    }
  return s;
}

int
main (int argc, char **argv)
{
  unsigned divs[8] = { 7, 7, 7, 7, 7, 7, 13, 100 };
  size_t sizes[4] = { 100, 100, 100, 2000 };
  unsigned long n = argc > 1 ? strtoul (argv[1], NULL, 10) : 1000000;
  printf ("%lu\n", divide (n, divs) + copy (n / 4, sizes));
  return 0;
}
