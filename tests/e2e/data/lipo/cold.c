/* See main.c.  Called once, but its loop takes a few percent of the time
   at a count below the table call's: without it the 7 calls in 8 to
   rotate would be the program's least frequent hot code, and GCC's hot
   threshold (the least count among the blocks that hold 99% of the time)
   would fall exactly on rotate's count, where the rounding of the
   promoted call's count decides whether the promotion is kept.  */
#include <stdio.h>

void
report (unsigned h, long n)
{
  unsigned check = h;
  for (long i = 0; i < n / 8; i++)
    check = (check ^ (unsigned) i) * 2654435761u + (check >> 15);
  printf ("%u after %ld rounds (check %u)\n", h, n, check);
}
