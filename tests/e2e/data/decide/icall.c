/* An indirect call that reaches one target nine times in ten: PGO
   promotes it to a direct call of that target (speculatively), and can
   then inline it.  The targets come in runs of 256, which every branch
   predictor follows: a timer's samples measure time, and a call the
   predictor misses costs its target the stall (on an AMD EPYC guest,
   op_sub's and op_xor's 2 in 16 interleaved calls took 22% of the
   samples).  */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*op_fn) (unsigned, unsigned);

__attribute__ ((noinline)) unsigned
op_mix (unsigned a, unsigned b)
{
  unsigned x = a * 2654435761u ^ b;
  return (x << 7) | (x >> 25);
}

__attribute__ ((noinline)) unsigned
op_sub (unsigned a, unsigned b)
{
  return (a - b) * 40503u;
}

__attribute__ ((noinline)) unsigned
op_xor (unsigned a, unsigned b)
{
  return (a ^ b) + 0x9e3779b9u;
}

op_fn table[16];

__attribute__ ((noinline)) unsigned
run (long n)
{
  unsigned h = 1;
  for (long i = 0; i < n; i++)
    h = table[(i >> 8) & 15] (h, (unsigned) i);
  return h;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 40000000;
  for (int i = 0; i < 16; i++)
    table[i] = i == 3 ? op_sub : i == 11 ? op_xor : op_mix;
  printf ("%u\n", run (n));
  return 0;
}
