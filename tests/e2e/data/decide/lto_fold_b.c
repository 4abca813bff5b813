#include <stdio.h>
#include <stdlib.h>

unsigned fold (unsigned);
unsigned (*volatile fold_pointer) (unsigned) = fold;

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 30000000;
  unsigned h = 1;
  for (long i = 0; i < rounds; i++)
    h = fold (h + (unsigned) i);
  if (argc > 5)
    h = fold_pointer (h);
  printf ("%u\n", h);
  return 0;
}
