/* converter/tally.c - per-binary sample tallies (tally.h).  */
#include "tally.h"

#include <stdlib.h>

#include "../common/xalloc.h"

void
sfdo_tally_release (struct sfdo_tally *t)
{
  sfdo_u64map_release (&t->weights);
  sfdo_u64map_release (&t->clk_weights);
  sfdo_u64map_release (&t->stall_weights);
  sfdo_pairmap_release (&t->ranges);
  sfdo_pairmap_release (&t->branches);
  sfdo_pairmap_release (&t->calls);
  sfdo_pairmap_release (&t->call_values);
  for (int k = 0; k < SFDO_VALUE_NKINDS; k++)
    sfdo_pairmap_release (&t->values[k]);
}

int
sfdo_tally_has_lbr (const struct sfdo_tally *t)
{
  return t->ranges.n || t->branches.n;
}

int
sfdo_tally_has_samples (const struct sfdo_tally *t)
{
  int values = 0;
  for (int k = 0; k < SFDO_VALUE_NKINDS; k++)
    values |= t->values[k].n != 0;
  return t->weights.n || sfdo_tally_has_lbr (t) || values;
}

void
sfdo_tally_pair (struct sfdo_pairmap *m, uint64_t a, uint64_t b, uint64_t w)
{
  struct sfdo_pairval *v = sfdo_pairmap_get (m, a, b);
  v->count++;
  v->weight = sfdo_sat_add (v->weight, w);
}

uint64_t *
sfdo_tally_addresses (const struct sfdo_tally *t, size_t *n)
{
  const struct sfdo_u64map *ips[]
    = { &t->weights, &t->clk_weights, &t->stall_weights };
  size_t cap = 2 * t->ranges.n + t->branches.n + 2 * t->calls.n
               + t->call_values.n + 1, k = 0;
  for (size_t m = 0; m < sizeof ips / sizeof *ips; m++)
    cap += ips[m]->n;
  uint64_t *a = (uint64_t *) sfdo_xmalloc (cap * sizeof *a);
  for (size_t m = 0; m < sizeof ips / sizeof *ips; m++)
    for (size_t i = 0; i < ips[m]->cap; i++)
      if (ips[m]->keys[i] != UINT64_MAX)
        a[k++] = ips[m]->keys[i];
  for (size_t i = 0; i < t->ranges.cap; i++)
    if (t->ranges.a[i] != UINT64_MAX)
      {
        a[k++] = t->ranges.a[i];
        a[k++] = t->ranges.b[i];
      }
  for (size_t i = 0; i < t->branches.cap; i++)
    if (t->branches.a[i] != UINT64_MAX)
      a[k++] = t->branches.b[i];
  for (size_t i = 0; i < t->calls.cap; i++)
    if (t->calls.a[i] != UINT64_MAX)
      {
        a[k++] = t->calls.a[i] - 1;
        a[k++] = t->calls.b[i];
      }
  for (size_t i = 0; i < t->call_values.cap; i++)
    if (t->call_values.a[i] != UINT64_MAX)
      a[k++] = t->call_values.a[i];
  sfdo_sort_u64 (a, k);
  *n = k;
  return a;
}

int
sfdo_addresses_within (const uint64_t *a, size_t n, uint64_t lo, uint64_t hi)
{
  size_t l = 0, h = n;
  while (l < h)
    {
      size_t mid = l + (h - l) / 2;
      if (a[mid] < lo)
        l = mid + 1;
      else
        h = mid;
    }
  return l < n && a[l] < hi;
}
