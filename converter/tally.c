/* converter/tally.c - per-binary sample tallies (tally.h).  */
#include "tally.h"

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
