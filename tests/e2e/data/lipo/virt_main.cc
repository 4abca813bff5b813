/* virt_main.cc, shapes.cc - a hot C++ virtual call whose targets are
   defined in another file: 15 calls in 16 reach Square::weigh.  For
   module groups (LIPO): the two files belong together
   (tests/e2e/83-convert-groups.sh).  */
#include <cstdio>
#include <cstdlib>
#include "shapes.h"

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 40000000;
  Shape *shapes[16];
  for (unsigned i = 0; i < 16; i++)
    shapes[i] = make_shape (i);
  unsigned h = 1;
  for (long i = 0; i < n; i++)
    h = shapes[i & 15]->weigh (h) + (unsigned) i;
  /* A few percent of the time at a lower count (see cold.c).  */
  unsigned check = h;
  for (long i = 0; i < n / 8; i++)
    check = (check ^ (unsigned) i) * 2654435761u + (check >> 15);
  std::printf ("%u after %ld calls (check %u)\n", h, n, check);
  for (unsigned i = 0; i < 16; i++)
    delete shapes[i];
  return 0;
}
