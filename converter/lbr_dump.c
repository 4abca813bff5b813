/* converter/lbr_dump.c - raw LBR tallies as text (lbr_dump.h).  */
#include "lbr_dump.h"

#include <stdlib.h>

#include "../common/xalloc.h"

struct tally_line {
  uint64_t a, b, count;
};

static int
line_cmp (const void *x, const void *y)
{
  const struct tally_line *p = x, *q = y;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

static void
dump_pairs (const struct sfdo_pairmap *m, const char *name, const char *what,
            FILE *f)
{
  struct tally_line *t = sfdo_xmalloc ((m->n + 1) * sizeof *t);
  size_t n = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->a[i] != UINT64_MAX)
      t[n++] = (struct tally_line) { m->a[i], m->b[i], m->vals[i].count };
  qsort (t, n, sizeof *t, line_cmp);
  for (size_t i = 0; i < n; i++)
    fprintf (f, "%s %s %llx %llx %llu\n", name, what,
             (unsigned long long) t[i].a, (unsigned long long) t[i].b,
             (unsigned long long) t[i].count);
  free (t);
}

void
sfdo_lbr_dump (const struct sfdo_tally *t, const char *name, FILE *f)
{
  dump_pairs (&t->ranges, name, "range", f);
  dump_pairs (&t->branches, name, "branch", f);
}
