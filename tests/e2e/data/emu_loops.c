/* emu_loops.c - functions of known and different costs, for comparing the
   emulated PMU's instruction samples with callgrind's counts
   (tests/e2e/9*-emulate-*.sh).  Usage: emu_loops N (work grows with N).  */
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) static long
sum_squares (long n)
{
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i * i;
  return s;
}

__attribute__ ((noinline)) static long
collatz_steps (long n)
{
  long steps = 0;
  for (long k = 1; k <= n; k++)
    for (long x = k; x != 1; steps++)
      x = (x & 1) ? 3 * x + 1 : x / 2;
  return steps;
}

__attribute__ ((noinline)) static long add1 (long x) { return x + 1; }
__attribute__ ((noinline)) static long mul3 (long x) { return x * 3 % 1000003; }

__attribute__ ((noinline)) static long
apply (long (*const *fns) (long), long n)
{
  long v = 1;
  for (long i = 0; i < n; i++)
    v = fns[i % 3 == 0] (v);
  return v;
}

__attribute__ ((noinline)) static long
fib (long k)
{
  return k < 2 ? k : fib (k - 1) + fib (k - 2);
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000;
  static long (*const fns[2]) (long) = { add1, mul3 };
  long r = sum_squares (20 * n) + collatz_steps (n) + apply (fns, 10 * n)
           + fib (n < 1000 ? 12 : 24);
  printf ("%ld\n", r);
  return 0;
}
