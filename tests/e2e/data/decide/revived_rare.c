/* revived_rare.c - open_table runs three times, too few to catch a
   sample, and its error path never: -fprofile-use splits the error path
   off into open_table.cold.  The sample profile lists open_table as never
   run while main, which calls it, ran; GCC revives it with its static
   estimate (handle_missing_profiles), and the plugin gives it the cold
   blocks of a function that ran rarely.  */
#include <stdio.h>
#include <stdlib.h>

struct table
{
  int n;
  int *slots;
};

static struct table tables[4];

__attribute__ ((noinline)) int
open_table (int id, int n)
{
  struct table *t = &tables[id & 3];
  t->slots = calloc (n, sizeof *t->slots);
  if (!t->slots)
    {
      fprintf (stderr, "table %d: no memory for %d slots\n", id, n);
      t->n = 0;
      return -1;
    }
  t->n = n;
  return 0;
}

__attribute__ ((noinline)) long
fill (int id, long rounds)
{
  struct table *t = &tables[id & 3];
  long sum = 0;
  for (long r = 0; r < rounds; r++)
    {
      int i = (int) ((r * 7919) % t->n);
      t->slots[i] += (int) r;
      sum += t->slots[i];
    }
  return sum;
}

int
main (void)
{
  long total = 0;
  for (int id = 0; id < 3; id++)
    {
      if (open_table (id, 1000 + id) != 0)
	return 1;
      total += fill (id, 2000000);
    }
  printf ("%ld\n", total);
  return 0;
}
