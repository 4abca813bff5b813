/* bench/mcf_bench.c - how long smooth/mcf.h takes on random CFGs (the
 * generator of tests/unit/smooth/random_cfg.h, counts like a period of
 * 10007 events, ENTRY run 200 times).  For each size on the command line:
 * REPS solves of fresh graphs, interleaved across sizes, then the median
 * and every time; the first size is run twice, interleaved, for an A/A
 * control.  Prints "SIZE MEDIAN_MS TIME,TIME,..." per line.  */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/unit/smooth/random_cfg.h"

#define REPS 7
#define MAX_SIZES 8

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Build and solve a CFG of N blocks from SEED; the milliseconds solving
   took.  */
static double
solve_once (size_t n, uint64_t seed)
{
  struct random_cfg r;
  random_cfg_make (&r, n, 200, 10007, seed);
  double start = now_ms ();
  struct sfdo_flow *g = sfdo_flow_new (n, r.cfg.entry, r.cfg.exit);
  for (size_t b = 0; b < n; b++)
    sfdo_flow_set_count (g, b, r.cfg.count[b]);
  for (size_t e = 0; e < r.cfg.nedges; e++)
    sfdo_flow_add_edge (g, r.cfg.from[e], r.cfg.to[e], r.cfg.prior[e]);
  sfdo_flow_solve (g);
  double ms = now_ms () - start;
  sfdo_flow_free (g);
  random_cfg_free (&r);
  return ms;
}

static int
cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  size_t sizes[MAX_SIZES + 1];
  int n = 0;
  for (int i = 1; i < argc && n < MAX_SIZES; i++)
    sizes[n++] = (size_t) strtoull (argv[i], NULL, 10);
  if (!n)
    {
      fprintf (stderr, "usage: mcf_bench SIZE...\n");
      return 1;
    }
  sizes[n] = sizes[0];          /* the A/A control */
  double t[MAX_SIZES + 1][REPS];
  for (int rep = 0; rep < REPS; rep++)
    for (int k = 0; k <= n; k++)
      t[k][rep] = solve_once (sizes[k], 12345 + (uint64_t) rep);
  for (int k = 0; k <= n; k++)
    {
      double sorted[REPS];
      for (int rep = 0; rep < REPS; rep++)
        sorted[rep] = t[k][rep];
      qsort (sorted, REPS, sizeof *sorted, cmp);
      printf ("%zu %.1f ", sizes[k], sorted[REPS / 2]);
      for (int rep = 0; rep < REPS; rep++)
        printf ("%s%.1f", rep ? "," : "", t[k][rep]);
      printf ("\n");
    }
  return 0;
}
