/* icalls.c - an indirect call reaching add1 three times in four and add2
   once: GCC can promote it to guarded direct calls
   (tests/e2e/51-plugin-value-profiles.sh).  */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static long sq (long x) { return x * x + 1; }
__attribute__((noinline)) static long add1 (long x) { x = sq (x); for (int i = 0; i < 50; i++) x = x * 3 + i; return x; }
__attribute__((noinline)) static long add2 (long x) { x = sq (x); for (int i = 0; i < 50; i++) x = x * 5 + i; return x; }
typedef long (*fn) (long);
int main (int argc, char **argv)
{
  fn table[4] = { add1, add1, add1, add2 };
  long s = 0; long n = argc > 1 ? atol (argv[1]) : 3000000;
  for (long i = 0; i < n; i++) s += table[i & 3] (i);
  printf ("%ld\n", s);
  return 0;
}
