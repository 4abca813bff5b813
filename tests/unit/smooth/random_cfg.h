/* tests/unit/smooth/random_cfg.h - random CFGs with known true counts
 * and noisy measurements, for smooth/mcf.h: test_mcf.c checks the
 * solver's results on them, bench/mcf_bench.c times it.  Everything is
 * static; include once.  */
#ifndef SFDO_TESTS_RANDOM_CFG_H
#define SFDO_TESTS_RANDOM_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../smooth/mcf.h"

#define U SFDO_FLOW_UNKNOWN

/* A CFG as the tests describe it: the solver's input, kept so that the
   checks can walk the edges themselves.  */
struct cfg
{
  size_t nblocks, entry, exit, nedges;
  const size_t *from, *to;
  const double *prior;          /* NULL: all unknown */
  const int64_t *count;
};

/* --- Random CFGs ------------------------------------------------------------ */

static uint64_t
rng_next (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static size_t
rng_below (uint64_t *s, size_t n)
{
  return (size_t) (rng_next (s) % n);
}

static double
rng_unit (uint64_t *s)
{
  return (double) (rng_next (s) >> 11) / (double) ((uint64_t) 1 << 53);
}

static uint64_t
isqrt (uint64_t x)
{
  uint64_t r = 0;
  while ((r + 1) * (r + 1) <= x)
    r++;
  return r;
}

/* A random CFG with its true counts.  ENTRY is 0, EXIT the last block;
   every other block has a forward successor within 8 blocks, so EXIT is
   reachable, plus up to two more anywhere (back edges, self-loops,
   duplicates); one in twenty has none (noreturn).  Some blocks end up
   unreachable.  */
struct random_cfg
{
  struct cfg cfg;
  size_t *from, *to;
  double *prior;
  int64_t *count;
  uint64_t *true_block, *true_edge;
};

static void
random_edges (struct random_cfg *r, size_t n, uint64_t *seed)
{
  size_t cap = 3 * n;
  r->from = calloc (cap, sizeof *r->from);
  r->to = calloc (cap, sizeof *r->to);
  r->prior = calloc (cap, sizeof *r->prior);
  size_t m = 0;
  for (size_t b = 0; b + 1 < n; b++)
    {
      if (b > 0 && rng_below (seed, 20) == 0)
        continue;
      size_t k = 1 + rng_below (seed, 3), first = m;
      double total = 0;
      for (size_t i = 0; i < k; i++, m++)
        {
          size_t reach = n - 1 - b < 8 ? n - 1 - b : 8;
          r->from[m] = b;
          r->to[m] = i == 0 ? b + 1 + rng_below (seed, reach)
                            : rng_below (seed, n);
          r->prior[m] = 0.05 + rng_unit (seed);
          total += r->prior[m];
        }
      for (size_t e = first; e < m; e++)
        r->prior[e] = rng_below (seed, 10) == 0 ? -1 : r->prior[e] / total;
    }
  r->cfg.nedges = m;
}

/* Walk WALKS times from ENTRY to EXIT or a successor-less block (and so to
   EXIT), choosing successors by their priors; after 4N steps a walk only
   goes forward.  */
static void
random_truth (struct random_cfg *r, size_t n, size_t walks, uint64_t *seed)
{
  r->true_block = calloc (n, sizeof *r->true_block);
  r->true_edge = calloc (r->cfg.nedges + 1, sizeof *r->true_edge);
  size_t *first = calloc (n + 1, sizeof *first);   /* edges sorted by from */
  for (size_t e = 0; e < r->cfg.nedges; e++)
    first[r->from[e] + 1]++;
  for (size_t b = 0; b < n; b++)
    first[b + 1] += first[b];
  for (size_t w = 0; w < walks; w++)
    for (size_t b = 0, steps = 0;; steps++)
      {
        r->true_block[b]++;
        if (b == n - 1)
          break;
        if (first[b] == first[b + 1])
          {
            r->true_block[n - 1]++;       /* on to EXIT, implicitly */
            break;
          }
        size_t e = first[b];
        if (steps < 4 * n)
          {
            double x = rng_unit (seed);
            size_t deg = first[b + 1] - first[b];
            for (; e + 1 < first[b + 1]; e++)
              {
                double p = r->prior[e] >= 0 ? r->prior[e] : 1.0 / deg;
                if ((x -= p) < 0)
                  break;
              }
          }
        r->true_edge[e]++;
        b = r->to[e];
      }
  free (first);
}

/* Measured counts: the truth times PERIOD, plus noise of about one
   standard deviation of a Poisson count (sum of 12 uniforms), with one
   block in seven unmeasured.  */
static void
random_measurements (struct random_cfg *r, size_t n, int64_t period,
                     uint64_t *seed)
{
  r->count = calloc (n, sizeof *r->count);
  for (size_t b = 0; b < n; b++)
    {
      double z = -6;
      for (int i = 0; i < 12; i++)
        z += rng_unit (seed);
      int64_t c = (int64_t) r->true_block[b];
      c += (int64_t) (z * (double) isqrt ((uint64_t) c));
      r->count[b] = rng_below (seed, 7) == 0 ? U : (c < 0 ? 0 : c) * period;
    }
}

static void
random_cfg_make (struct random_cfg *r, size_t n, size_t walks,
                 int64_t period, uint64_t seed)
{
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  memset (r, 0, sizeof *r);
  random_edges (r, n, &s);
  random_truth (r, n, walks, &s);
  random_measurements (r, n, period, &s);
  for (size_t e = 0; e < r->cfg.nedges; e++)
    r->true_edge[e] *= (uint64_t) period;
  for (size_t b = 0; b < n; b++)
    r->true_block[b] *= (uint64_t) period;
  r->cfg.nblocks = n;
  r->cfg.entry = 0;
  r->cfg.exit = n - 1;
  r->cfg.from = r->from;
  r->cfg.to = r->to;
  r->cfg.prior = r->prior;
  r->cfg.count = r->count;
}

static void
random_cfg_free (struct random_cfg *r)
{
  free (r->from), free (r->to), free (r->prior), free (r->count);
  free (r->true_block), free (r->true_edge);
}

#endif
