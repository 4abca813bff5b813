/* A hot call to a function too big for -O2's inlining limits: PGO inlines
   it at the hot call (the edge is hot), plain -O2 does not.  Its size is
   inside that window on GCC 12 to 16: GCC 16's -O2 inlines it with four
   statement pairs fewer, and GCC 13 to 16's PGO does not with two more.  */
#include <stdio.h>
#include <stdlib.h>

static inline unsigned
step (unsigned x, unsigned k)
{
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  x += k * 0x9e3779b9u;
  x = (x >> 7) | (x << 25);
  x ^= (x >> 3) * 31u;
  x += (k & 7) ? x / 3 : x / 5;
  x ^= (x >> 3) * 31u;
  x += (k & 7) ? x + 3 : x ^ 5;
  x ^= (x >> 4) * 33u;
  x += (k & 8) ? x + 4 : x ^ 6;
  x ^= (x >> 5) * 35u;
  x += (k & 9) ? x + 5 : x ^ 7;
  x ^= (x >> 6) * 37u;
  x += (k & 10) ? x + 6 : x ^ 8;
  x ^= (x >> 7) * 39u;
  x += (k & 11) ? x + 7 : x ^ 9;
  x ^= (x >> 8) * 41u;
  x += (k & 12) ? x + 8 : x ^ 10;
  x ^= (x >> 9) * 43u;
  x += (k & 13) ? x + 9 : x ^ 11;
  x ^= (x >> 10) * 45u;
  x += (k & 14) ? x + 10 : x ^ 12;
  x ^= (x >> 11) * 47u;
  x += (k & 15) ? x + 11 : x ^ 13;
  x ^= (x >> 12) * 49u;
  x += (k & 16) ? x + 12 : x ^ 14;
  x ^= (x >> 13) * 51u;
  x += (k & 17) ? x + 13 : x ^ 15;
  x ^= (x >> 14) * 53u;
  x += (k & 18) ? x + 14 : x ^ 16;
  x ^= (x >> 15) * 55u;
  x += (k & 19) ? x + 15 : x ^ 17;
  x ^= (x >> 16) * 57u;
  x += (k & 20) ? x + 16 : x ^ 18;
  return x;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 40000000;
  unsigned h = step ((unsigned) argc, 2);
  for (long i = 0; i < n; i++)
    h = step (h, (unsigned) i);
  printf ("%u\n", h);
  return 0;
}
