/* See main.c.  */
#include <stdio.h>

void
report (unsigned h, long n)
{
  printf ("%u after %ld rounds\n", h, n);
}
