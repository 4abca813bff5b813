/* A callback through a library function: qsort calls by_key, a function
   of this program, from inside libc.  Its samples' callers are libc's
   frames, then sort_records and main here: an unwinder must pass through
   libc (by its CFI) to find them.  Prints the comparisons it counted.  */
#include <stdio.h>
#include <stdlib.h>

struct record {
  unsigned key, weight;
};

static unsigned long comparisons;

__attribute__ ((noinline)) static int
by_key (const void *a, const void *b)
{
  const struct record *x = a, *y = b;
  comparisons++;
  unsigned kx = x->key * 2654435761u ^ x->weight;
  unsigned ky = y->key * 2654435761u ^ y->weight;
  return (kx > ky) - (kx < ky);
}

__attribute__ ((noinline)) static unsigned
sort_records (struct record *r, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      r[i].key = seed >> 8;
      r[i].weight = (unsigned) i;
    }
  qsort (r, n, sizeof *r, by_key);
  return r[0].key ^ r[n - 1].key;
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 400;
  static struct record r[4096];
  unsigned h = 0;
  for (long i = 0; i < rounds; i++)
    h += sort_records (r, 4096, (unsigned) i);
  printf ("%u %lu\n", h, comparisons);
  return 0;
}
