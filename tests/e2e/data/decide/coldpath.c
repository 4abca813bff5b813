/* Hot loop with an error path that never runs: PGO moves the error path
   of checksum() into checksum.cold (the cold partition).  */
#include <stdio.h>
#include <stdlib.h>

static unsigned table[4096];

__attribute__ ((noinline)) static unsigned
checksum (const unsigned *v, int n, unsigned seed)
{
  unsigned h = seed;
  for (int i = 0; i < n; i++)
    {
      if (v[i] == 0xdeadbeefu)
        {
          /* Never happens with the data below.  */
          fprintf (stderr, "poisoned value at %d (seed %u)\n", i, seed);
          for (int j = 0; j < n; j++)
            h ^= v[j] * 2654435761u + (unsigned) j;
          abort ();
        }
      h = (h ^ v[i]) * 16777619u;
    }
  return h;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 50000;
  unsigned h = 0;
  for (int i = 0; i < 4096; i++)
    table[i] = (unsigned) i * 7919u + 1;
  for (int r = 0; r < rounds; r++)
    h += checksum (table, 4096, (unsigned) r);
  printf ("%u\n", h);
  return 0;
}
