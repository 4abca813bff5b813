/* The caller of wrapped.c's digest_checked, in another file.  */
#include <stdio.h>
#include <stdlib.h>

unsigned digest_checked (const unsigned *v, long n);

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 3000000;
  unsigned *v = malloc (n * sizeof *v);
  unsigned h = 0;
  if (!v)
    return 1;
  for (long i = 0; i < n; i++)
    v[i] = (unsigned) i * 2654435761u;
  for (int r = 0; r < 12; r++)
    h += digest_checked (v, n - r);
  printf ("%u\n", h);
  free (v);
  return 0;
}
