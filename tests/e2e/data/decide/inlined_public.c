/* A public function the program calls only where GCC inlines it: its
   out-of-line copy, kept for other units, never runs.  PGO puts that copy
   in .text.unlikely.  */
#include <stdio.h>
#include <stdlib.h>

unsigned
fold (unsigned x)
{
  return (x * 2654435761u) >> 7 ^ x;
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 30000000;
  unsigned h = 1;
  for (long i = 0; i < rounds; i++)
    h = fold (h + (unsigned) i);
  printf ("%u\n", h);
  return 0;
}
