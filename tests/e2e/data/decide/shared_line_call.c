/* A call that never runs, on the line of a test that runs all the time:
   a macro puts both on the line where it is used, as SQLite's
   checkProfileCallback does.  PGO leaves the callee in .text.unlikely.  */
#include <stdio.h>
#include <stdlib.h>

struct tally
{
  long start, n;
};

__attribute__ ((noinline)) void
report_tally (struct tally *t)
{
  fprintf (stderr, "started at %ld, %ld steps\n", t->start, t->n);
  for (long i = 0; i < t->n; i += 1000)
    fputc ('.', stderr);
}

/* Run once, too short to catch a sample: a call that ran, in a block
   entered once, which the profile cannot say more of.  */
__attribute__ ((noinline)) void
start_tally (struct tally *t, long start)
{
  t->start = start;
  t->n = 0;
}

#define CHECK_TALLY(t) if ((t)->start > 0) { report_tally (t); }

__attribute__ ((noinline)) unsigned
step (struct tally *t, unsigned x)
{
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  t->n++;
  CHECK_TALLY (t);
  return x ^ (x >> 15);
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 30000000;
  struct tally t;
  start_tally (&t, argc > 2 ? atol (argv[2]) : 0);
  unsigned h = 1;
  for (long i = 0; i < rounds; i++)
    h = step (&t, h + (unsigned) i);
  printf ("%u\n", h);
  return 0;
}
