/* plugin/values.cc - division and string-operation histograms (values.h).

   The converter records, at a source position, which divisors a division
   saw and which sizes a memcpy/memset/memmove got.  Here they become the
   histograms -fprofile-use would have read from a .gcda:

     division, modulo     HIST_TYPE_TOPN_VALUES on the divisor, for
			  gimple_divmod_fixed_value_transform; an unsigned
			  modulo also HIST_TYPE_POW2 (how often the divisor
			  was a power of two), for gimple_mod_pow2_value_
			  transform, and HIST_TYPE_INTERVAL (how often the
			  quotient was 0, 1, or more), for gimple_mod_
			  subtract_transform;
     string operation     HIST_TYPE_TOPN_VALUES on the size, for
			  gimple_stringops_transform, and HIST_TYPE_AVERAGE
			  (sum and number of sizes) and HIST_TYPE_IOR (the
			  destinations' alignment), which the expander
			  reads to choose how to copy.

   GCC's layout for TOPN: total, number of pairs, then (value, count)
   pairs sorted by count.  GCC rejects a histogram whose total differs
   from its block's count ("corrupted value profile"), so every histogram
   is scaled to the block's final count.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "cgraph.h"
#include "value-prof.h"
#include "profile.h"
#include "gcov-io.h"
#include "tree-pass.h"
#include "tree-into-ssa.h"

#include "gcc-compat.h"
#include "../profiles/profile.h"
#include "samplefdo.h"
#include "counts.h"
#include "position.h"
#include "values.h"

/* GCC's value transforms test whether the leading value (a divisor, a
   size, powers of two, quotients of 0 or 1) took half the executions or
   more, a threshold meant for exact counts: from samples, two samples,
   one with each of two divisors, would pass.  So a histogram is handed to
   GCC only where its samples make that majority likely
   (sfdo_likely_majority); GCC then tests the share they show.  (Handing
   GCC the share's lower bound instead would decide the same, but a
   transformed site would then keep a fallback path the samples never saw
   run, with a count: tree-prof val-prof-10.c's copy of size 24.)  */

/* Whether a value seen with weight SEEN of a histogram's ALL likely took
   half the executions.  */

static bool
likely_majority (double seen, double all)
{
  double per_weight = sfdo_samples_in (1);

  return sfdo_likely_majority (seen * per_weight, all * per_weight);
}

/* The mean size and the destinations' alignment that the expander reads
   have no threshold of their own: they want this many samples.  */
#define SFDO_VALUE_MIN_SAMPLES 8.0

/* H, or NULL if it has fewer than SFDO_VALUE_MIN_SAMPLES samples.  */

static const struct sfdo_prof_values *
supported (const struct sfdo_prof_values *h)
{
  uint64_t weight = 0;

  if (!h)
    return NULL;
  for (size_t i = 0; i < h->nentries; i++)
    weight = sfdo_sat_add (weight, h->entries[i].count);
  return sfdo_samples_in (weight) >= SFDO_VALUE_MIN_SAMPLES ? h : NULL;
}

/* STMT's block count as a plain number, 0 if it has none.  */

static gcov_type
block_total (gimple *stmt)
{
  profile_count c = gimple_bb (stmt)->count.ipa ();
  return c.initialized_p () ? c.to_gcov_type () : 0;
}

/* A new histogram of TYPE for VALUE at STMT with N counters, zeroed.  */

static histogram_value
new_histogram (gimple *stmt, enum hist_type type, tree value, unsigned n)
{
  histogram_value h = gimple_alloc_histogram_value (cfun, type, stmt, value);
  h->n_counters = n;
  h->hvalue.counters = XCNEWVEC (gcov_type, n);
  return h;
}

bool
sfdo_attach_topn (gimple *stmt, enum hist_type type, tree value,
		  const struct sfdo_hist_entry *entries, unsigned n)
{
  gcov_type all = block_total (stmt);
  uint64_t sum = 0;
  histogram_value h;

  n = MIN (n, (unsigned) GCOV_TOPN_MAXIMUM_TRACKED_VALUES);
  for (unsigned i = 0; i < n; i++)
    sum = sfdo_sat_add (sum, entries[i].count);
  if (all <= 0 || !n || !sum)
    return false;
  h = new_histogram (stmt, type, value, 2 + 2 * n);
  h->hvalue.counters[0] = all;
  h->hvalue.counters[1] = n;
  for (unsigned i = 0; i < n; i++)
    {
      h->hvalue.counters[2 + 2 * i] = entries[i].value;
      h->hvalue.counters[3 + 2 * i]
	= (gcov_type) ((double) all * (double) entries[i].count
		       / (double) sum);
    }
  gimple_add_histogram_value (cfun, stmt, h);
  return true;
}

/* Attach H to STMT as the TOPN histogram of VALUE if its leading value
   likely took half the executions.  */

static bool
attach_likely_topn (gimple *stmt, tree value, const struct sfdo_prof_values *h)
{
  struct sfdo_hist_entry entries[GCOV_TOPN_MAXIMUM_TRACKED_VALUES];
  unsigned n = 0;

  if (!sfdo_leader_likely (h, sfdo_samples_in (1)))
    return false;
  for (size_t i = 0; i < h->nentries && n < GCOV_TOPN_MAXIMUM_TRACKED_VALUES;
       i++)
    entries[n++] = { (gcov_type) h->entries[i].value, h->entries[i].count };
  return sfdo_attach_topn (stmt, HIST_TYPE_TOPN_VALUES, value, entries, n);
}

/* Attach to the unsigned modulo STMT by DIVISOR how often the divisors of
   H were powers of two, scaled to the block's count.  */

static bool
attach_pow2 (gimple *stmt, tree divisor, const struct sfdo_prof_values *h)
{
  gcov_type all = block_total (stmt);
  double pow2 = 0, other = 0;
  histogram_value hist;

  for (size_t i = 0; i < h->nentries; i++)
    if (h->entries[i].value && !(h->entries[i].value
				 & (h->entries[i].value - 1)))
      pow2 += (double) h->entries[i].count;
    else
      other += (double) h->entries[i].count;
  if (all <= 0 || !likely_majority (pow2, pow2 + other))
    return false;
  hist = new_histogram (stmt, HIST_TYPE_POW2, divisor, 2);
  hist->hvalue.counters[1] = (gcov_type) ((double) all * pow2
					  / (pow2 + other));
  hist->hvalue.counters[0] = all - hist->hvalue.counters[1];
  gimple_add_histogram_value (cfun, stmt, hist);
  return true;
}

/* Attach to the unsigned modulo STMT (DIVIDEND % DIVISOR) how often the
   quotient, per H, was 0, 1, or 2 and more, as the interval histogram of
   DIVIDEND / DIVISOR over [0, 2) that gimple_mod_subtract_transform reads
   (counters: 0, 1, above, below), scaled to the block's count.  */

static bool
attach_quotients (gimple *stmt, const struct sfdo_prof_values *h)
{
  gcov_type all = block_total (stmt);
  double by_class[3] = { 0, 0, 0 }, n = 0;
  histogram_value hist;
  tree type = TREE_TYPE (gimple_assign_lhs (stmt));

  for (size_t i = 0; i < h->nentries; i++)
    {
      by_class[MIN (h->entries[i].value, (uint64_t) 2)]
	+= (double) h->entries[i].count;
      n += (double) h->entries[i].count;
    }
  /* The transform asks that quotients 0 and 1 together take half.  */
  if (all <= 0 || !likely_majority (by_class[0] + by_class[1], n))
    return false;
  hist = new_histogram (stmt, HIST_TYPE_INTERVAL,
			build2 (TRUNC_DIV_EXPR, type, gimple_assign_rhs1 (stmt),
				gimple_assign_rhs2 (stmt)), 4);
  hist->hdata.intvl.int_start = 0;
  hist->hdata.intvl.steps = 2;
  hist->hvalue.counters[0] = (gcov_type) ((double) all * by_class[0] / n);
  hist->hvalue.counters[1] = (gcov_type) ((double) all * by_class[1] / n);
  hist->hvalue.counters[2] = all - hist->hvalue.counters[0]
			     - hist->hvalue.counters[1];
  gimple_add_histogram_value (cfun, stmt, hist);
  return true;
}

/* Attach to the string operation STMT the alignments of its destination
   in H, as HIST_TYPE_IOR: the OR of the destinations, of which the
   expander uses only the lowest set bit (the alignment it can assume), so
   the OR of their lowest set bits says the same.  */

static bool
attach_alignment (gimple *stmt, const struct sfdo_prof_values *h)
{
  gcov_type all_bits = 0;
  histogram_value hist;

  for (size_t i = 0; i < h->nentries; i++)
    all_bits |= (gcov_type) h->entries[i].value;
  if (!all_bits)
    return false;
  hist = new_histogram (stmt, HIST_TYPE_IOR, gimple_call_arg (stmt, 0), 1);
  hist->hvalue.counters[0] = all_bits;
  gimple_add_histogram_value (cfun, stmt, hist);
  return true;
}

/* Attach to the string operation STMT of SIZE the average size of H, as
   HIST_TYPE_AVERAGE's sum and number of calls.  */

static bool
attach_average (gimple *stmt, tree size, const struct sfdo_prof_values *h)
{
  gcov_type all = block_total (stmt);
  double sum = 0, n = 0;
  histogram_value hist;

  for (size_t i = 0; i < h->nentries; i++)
    {
      sum += (double) h->entries[i].value * (double) h->entries[i].count;
      n += (double) h->entries[i].count;
    }
  if (all <= 0 || n <= 0)
    return false;
  hist = new_histogram (stmt, HIST_TYPE_AVERAGE, size, 2);
  hist->hvalue.counters[0] = (gcov_type) (sum / n * (double) all);
  hist->hvalue.counters[1] = all;
  gimple_add_histogram_value (cfun, stmt, hist);
  return true;
}

/* Whether STMT is a call of a string operation whose size GCC can
   specialise (memcpy, mempcpy, memset, memmove), and its size argument
   in *SIZE.  */

static bool
string_operation (gimple *stmt, tree *size)
{
  tree fn = is_gimple_call (stmt) ? gimple_call_fndecl (stmt) : NULL_TREE;

  if (!fn || !fndecl_built_in_p (fn, BUILT_IN_NORMAL))
    return false;
  switch (DECL_FUNCTION_CODE (fn))
    {
    case BUILT_IN_MEMCPY:
    case BUILT_IN_MEMPCPY:
    case BUILT_IN_MEMMOVE:
    case BUILT_IN_MEMSET:
      *size = gimple_call_arg (stmt, 2);
      return TREE_CODE (*size) == SSA_NAME;
    default:
      return false;
    }
}

/* Whether STMT divides by a non-constant it could specialise, and the
   divisor in *DIVISOR.  */

static bool
division (gimple *stmt, tree *divisor)
{
  if (!is_gimple_assign (stmt))
    return false;
  switch (gimple_assign_rhs_code (stmt))
    {
    case TRUNC_DIV_EXPR:
    case TRUNC_MOD_EXPR:
      *divisor = gimple_assign_rhs2 (stmt);
      return TREE_CODE (*divisor) == SSA_NAME
	     && INTEGRAL_TYPE_P (TREE_TYPE (*divisor));
    default:
      return false;
    }
}

unsigned
sfdo_attach_value_histograms (const struct sfdo_prof_func *f)
{
  basic_block bb;
  unsigned attached = 0;

  if (!sfdo_family_on (SFDO_FAMILY_VALUES))
    return 0;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gimple *stmt = gsi_stmt (gsi);
	const struct sfdo_prof_values *h;
	tree operand;
	unsigned disc = sfdo_stmt_discriminator (stmt);

	if (division (stmt, &operand)
	    && (h = sfdo_histogram_at (f, stmt, disc, SFDO_VALUE_DIVMOD)))
	  {
	    attached += attach_likely_topn (stmt, operand, h);
	    if (gimple_assign_rhs_code (stmt) == TRUNC_MOD_EXPR
		&& TYPE_UNSIGNED (TREE_TYPE (operand)))
	      {
		attached += attach_pow2 (stmt, operand, h);
		if ((h = sfdo_histogram_at (f, stmt, disc,
					    SFDO_VALUE_QUOTIENT)))
		  attached += attach_quotients (stmt, h);
	      }
	  }
	else if (string_operation (stmt, &operand)
		 && (h = sfdo_histogram_at (f, stmt, disc,
					    SFDO_VALUE_MEMSIZE)))
	  {
	    attached += attach_likely_topn (stmt, operand, h);
	    if (!supported (h))
	      continue;
	    attached += attach_average (stmt, operand, h);
	    if ((h = supported (sfdo_histogram_at (f, stmt, disc,
						   SFDO_VALUE_ALIGN))))
	      attached += attach_alignment (stmt, h);
	  }
      }
  return attached;
}

void
sfdo_apply_value_transforms (void)
{
  if (!flag_value_profile_transformations
      || !gimple_value_profile_transformations ())
    return;
  /* The transformations split blocks, as in tree_profiling.  */
  free_dominance_info (CDI_DOMINATORS);
  free_dominance_info (CDI_POST_DOMINATORS);
  update_ssa (TODO_update_ssa);
  cgraph_edge::rebuild_edges ();
}
