/* An indirect call whose targets cost different amounts per call: op_sum
   runs 8 iterations and takes 80 of every 100 calls, op_xor 40 (15
   calls), op_max 24 (5 calls).  Samples in the targets weigh their
   instructions (80*8 : 15*40 : 5*24, about 47/44/9%), not their calls;
   the register the call goes through, sampled just before it, sees each
   call once.  Prints the calls it made to each.  */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*op_fn) (const unsigned *, int);

__attribute__ ((noinline)) unsigned
op_sum (const unsigned *v, int n)
{
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}

__attribute__ ((noinline)) unsigned
op_xor (const unsigned *v, int n)
{
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s = (s << 1 | s >> 31) ^ v[i];
  return s;
}

__attribute__ ((noinline)) unsigned
op_max (const unsigned *v, int n)
{
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s = v[i] > s ? v[i] : s;
  return s;
}

static op_fn const table[3] = { op_sum, op_xor, op_max };
static unsigned data[64];

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 2000000;
  unsigned acc = 1, seed = 12345;
  long calls[3] = { 0, 0, 0 };
  for (int i = 0; i < 64; i++)
    data[i] = (unsigned) i * 2654435761u;
  for (long i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 16) % 100;
      int k = r < 80 ? 0 : r < 95 ? 1 : 2;
      int len = k == 0 ? 8 : k == 1 ? 40 : 24;
      calls[k]++;
      acc += table[k] (data + (acc & 15), len);
    }
  printf ("%u %ld %ld %ld\n", acc, calls[0], calls[1], calls[2]);
  return 0;
}
