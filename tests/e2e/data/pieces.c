/* Two functions with a piece that never runs
   (tests/e2e/103-convert-unsampled-pieces.sh).  scale's error path calls
   a cold function: -O2 moves its block to scale.cold.  lookup's early
   return is in the header GCC's function splitting makes of it: the loop
   goes to lookup.part.0, main inlines the header, and lookup's own
   out-of-line copy is never called.  */
#include <stdio.h>
#include <stdlib.h>

int table[256];
long sum_found, sum_missed;
int found[16];

__attribute__ ((cold, noinline)) static void
fatal (const char *msg, int v)
{
  fprintf (stderr, "%s %d\n", msg, v);
  exit (3);
}

__attribute__ ((noinline)) int
scale (int v, int k)
{
  if (k == 0)
    fatal ("scale: k is zero for", v);
  return v * k + (v >> 3);
}

int
lookup (const int *t, int n, int key)
{
  if (t == 0)
    {
      sum_missed -= n;
      return -2;
    }
  for (int i = 0; i < n; i++)
    if (t[i] == key)
      {
        sum_found += t[i] * 3 + i;
        found[i & 15] = key;
        if (found[(i + 1) & 15] == key)
          sum_found ^= (long) key << 7;
        return i;
      }
  sum_missed += key;
  for (int j = 0; j < 16; j++)
    found[j] ^= key * j;
  return -1;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 20000;
  long s = 0;
  for (int i = 0; i < 256; i++)
    table[i] = i * 37 % 256;
  for (int r = 0; r < rounds; r++)
    s += scale (lookup (table, 256, r & 255), (r & 7) + argc)
         + lookup (argc > 5 ? 0 : table, 128, r & 127);
  printf ("%ld %ld %ld\n", s, sum_found, sum_missed);
  return 0;
}
