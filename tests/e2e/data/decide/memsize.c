/* memcpy and memset whose size is 24 nearly every time: PGO specialises
   both calls for that size (an inline copy of 24 bytes under a test).  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char src[4096], dst[4096];
static size_t sizes[64];

__attribute__ ((noinline)) unsigned long
shuffle (long n)
{
  unsigned long s = 0;
  for (long i = 0; i < n; i++)
    {
      size_t len = sizes[i & 63];
      memcpy (dst + (i & 1023), src + ((i * 7) & 1023), len);
      memset (dst + 2048 + (i & 511), (int) i, len);
      s += dst[(i * 13) & 4095];
    }
  return s;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 20000000;
  for (int i = 0; i < 4096; i++)
    src[i] = (unsigned char) (i * 31);
  for (int i = 0; i < 64; i++)
    sizes[i] = i == 17 ? 300 : 24;
  printf ("%lu\n", shuffle (n));
  return 0;
}
