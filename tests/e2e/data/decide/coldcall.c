/* Calls on error paths that never run, in a hot loop: plain -O2 inlines
   the small callee at both calls, PGO keeps the calls out of line because
   they never ran.  */
#include <stdio.h>
#include <stdlib.h>

static unsigned long errors, last_bad, bad_sum;

static void
note_bad_record (const unsigned *rec, int i)
{
  errors++;
  last_bad = (unsigned long) i;
  bad_sum += rec[0] ^ rec[1];
  bad_sum = bad_sum * 31 + rec[2] % 7;
  if (errors > 1000)
    bad_sum >>= 1;
}

__attribute__ ((noinline)) static unsigned
sum_records (const unsigned *v, int n)
{
  unsigned s = 0;
  for (int i = 0; i + 2 < n; i += 3)
    {
      if (v[i] > v[i + 1] + v[i + 2])
        note_bad_record (v + i, i);
      if (v[i + 2] == 0)
        note_bad_record (v + i + 1, i + 2);
      s += v[i] * 3 + v[i + 1] * 5 + v[i + 2];
    }
  return s;
}

int
main (int argc, char **argv)
{
  static unsigned data[3000];
  int rounds = argc > 1 ? atoi (argv[1]) : 150000;
  unsigned s = 0;
  for (int i = 0; i < 3000; i++)
    data[i] = (unsigned) (i % 3 ? 100 + i : i);
  for (int r = 0; r < rounds; r++)
    s += sum_records (data, 3000) + (unsigned) r;
  printf ("%u %lu %lu %lu\n", s, errors, last_bad, bad_sum);
  return 0;
}
