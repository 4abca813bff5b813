/* A loop arm whose line the profile does not hold: the profiled binary
   had no code of its own there to sample (jump threading or merging
   folded it into other lines'), so its zero is no evidence that it never
   ran.  PGO, which counts it, keeps the call to weigh in the hot part.  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) long
weigh (long k)
{
  return k * k + 3;
}

__attribute__ ((noinline)) long
settle (const int *kinds, long n)
{
  long s = 0;
  for (long i = 0; i < n; i++)
    {
      int k = kinds[i];
      s -= k;
      if (k & 1)
	s += weigh (k);
    }
  return s;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  int *kinds = malloc (n * sizeof *kinds);
  if (!kinds)
    return 1;
  for (long i = 0; i < n; i++)
    kinds[i] = (int) (i * 7 % 13);
  printf ("%ld\n", settle (kinds, n));
  free (kinds);
  return 0;
}
