/* An indirect call whose dominant target is defined in another file
   (xtu_ops.c): with -flto, PGO promotes it at link time (ipa-profile
   across units), as sfdo must, naming the target by its profile id.  */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*op_fn) (unsigned, unsigned);
extern op_fn ops[16];
void setup_ops (void);

__attribute__ ((noinline)) unsigned
apply_all (long n)
{
  unsigned h = 3;
  for (long i = 0; i < n; i++)
    h = ops[i & 15] (h, (unsigned) i);
  return h;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 40000000;
  setup_ops ();
  printf ("%u\n", apply_all (n));
  return 0;
}
