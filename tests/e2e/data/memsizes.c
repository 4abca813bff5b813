/* memsizes.c - memcpy sizes mostly 100: GCC can specialise the call
   (tests/e2e/51-plugin-value-profiles.sh).  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char dst[4096], src[4096];
__attribute__((noinline)) static unsigned long work (unsigned long n, const size_t *sizes)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    {
      memcpy (dst + (i & 15), src, sizes[i & 3]);
      s += dst[i & 63];
    }
  return s;
}
int main (int argc, char **argv)
{
  size_t sizes[4] = { 100, 100, 100, 2000 };
  printf ("%lu\n", work (argc > 1 ? strtoul (argv[1], 0, 10) : 60000000ul, sizes));
  return 0;
}
