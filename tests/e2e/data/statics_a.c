/* statics_a.c, statics_b.c - two static functions named step, one in each
   file, for the LLVM export's handling of names that only a file tells
   apart (tests/e2e/61-llvm-export-clang.sh).  */
#include <stdio.h>
#include <stdlib.h>

unsigned run_b (unsigned x);

static __attribute__ ((noinline)) unsigned
step (unsigned x)
{
  for (int i = 0; i < 50; i++)
    x = x * 33 + (unsigned) i;
  return x;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? strtol (argv[1], NULL, 10) : 100;
  unsigned s = 1;
  for (long i = 0; i < n * 30000; i++)
    s = step (s) + run_b (s);
  printf ("%u\n", s);
  return 0;
}
