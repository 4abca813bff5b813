/* Loops, a switch, early exits and a cold path: the shapes whose counts
   GCC's passes update as they transform them.  No pass may report an
   "Invalid sum" of counts with sfdo's profile that it does not report at
   plain -O2 or with -fprofile-use.  */
#include <stdio.h>
#include <stdlib.h>

static int data[1 << 12];

__attribute__ ((noinline)) long
scan (int n, int key)
{
  long s = 0;
  for (int i = 0; i < n; i++)
    {
      switch (data[i] & 7)
        {
        case 0: s += data[i]; break;
        case 1: s -= data[i] >> 1; break;
        case 3: s ^= data[i]; break;
        case 5: s += 3; break;
        default: s += i & 1; break;
        }
      if (data[i] == key)
        return -s;
    }
  return s;
}

__attribute__ ((noinline)) int
count_runs (int n)
{
  int runs = 0, i = 0;
  while (i < n)
    {
      int j = i;
      while (j < n && (data[j] & 1) == (data[i] & 1))
        j++;
      runs++;
      i = j;
    }
  return runs;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 60000;
  long s = 0;
  for (int i = 0; i < (1 << 12); i++)
    data[i] = (i * 2654435761u) >> 7;
  for (int r = 0; r < rounds; r++)
    {
      s += scan (1 << 12, -5 - r);
      s += count_runs (1 << 12);
    }
  printf ("%ld\n", s);
  return 0;
}
