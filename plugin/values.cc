/* plugin/values.cc - the profile's value histograms as GCC value profiles.

   The converter records, at a source position, which functions an
   indirect call reached, which divisors a division saw and which sizes a
   memcpy/memset/memmove got.  Here they become the histograms that
   -fprofile-use would have read from a .gcda, attached to the matching
   statements:

     indirect call       HIST_TYPE_INDIR_CALL, values are the targets'
			 profile ids (init_node_map); ipa-profile then makes
			 the hot targets speculative direct calls, which the
			 inliner can inline;
     division, modulo    HIST_TYPE_TOPN_VALUES on the divisor, for
			 gimple_divmod_fixed_value_transform;
     string operation    HIST_TYPE_TOPN_VALUES on the size, for
			 gimple_stringops_transform.

   GCC's counter layout for both: total, number of pairs, then (value,
   count) pairs.  GCC rejects a histogram whose total differs from its
   block's count ("corrupted value profile"), so the total is the block's
   annotated count and the pairs are scaled to it.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "stringpool.h"
#include "cgraph.h"
#include "value-prof.h"
#include "profile.h"
#include "gcov-io.h"

#include "../profiles/profile.h"
#include "annotate.h"

/* The histogram of KIND at STMT's position in F (the current function's
   profile), or NULL.  */

static const struct sfdo_prof_values *
histogram_at (const struct sfdo_profile *p, const struct sfdo_prof_func *f,
	      gimple *stmt, uint32_t kind)
{
  uint32_t off;
  const struct sfdo_prof_func *g = sfdo_innermost_profile (p, f, stmt, &off);

  for (size_t i = 0; g && i < g->nvalues; i++)
    if (g->values[i].offset == off && g->values[i].kind == kind)
      return &g->values[i];
  return NULL;
}

/* The profile id of the function named NAME in this unit, or 0.  */

static gcov_type
profile_id_of (const char *name)
{
  symtab_node *sym = symtab_node::get_for_asmname (get_identifier (name));
  cgraph_node *node = sym ? dyn_cast <cgraph_node *> (sym) : NULL;

  return node && node->profile_id ? node->profile_id : 0;
}

/* Attach a histogram of TYPE for VALUE at STMT from the (value, count)
   entries of H, scaled to total STMT's block count; with NAMES the values
   are function names, which become profile ids (names not defined in
   this unit are left out).  Return whether one was attached.  */

static bool
attach (const struct sfdo_profile *p, gimple *stmt, enum hist_type type,
	tree value, const struct sfdo_prof_values *h, bool names)
{
  gcov_type all = gimple_bb (stmt)->count.ipa ().initialized_p ()
		  ? gimple_bb (stmt)->count.ipa ().to_gcov_type () : 0;
  uint64_t sum = 0;
  unsigned n = 0;

  if (all <= 0 || !h->nentries)
    return false;
  for (size_t i = 0; i < h->nentries; i++)
    sum = sfdo_sat_add (sum, h->entries[i].count);
  if (!sum)
    return false;
  histogram_value hist = gimple_alloc_histogram_value (cfun, type, stmt,
						       value);
  hist->n_counters = 2 + 2 * GCOV_TOPN_MAXIMUM_TRACKED_VALUES;
  hist->hvalue.counters = XNEWVEC (gcov_type, hist->n_counters);
  for (size_t i = 0; i < h->nentries && n < GCOV_TOPN_MAXIMUM_TRACKED_VALUES;
       i++)
    {
      gcov_type v = names
		    ? profile_id_of (sfdo_profile_str (p, (uint32_t)
							  h->entries[i].value))
		    : (gcov_type) h->entries[i].value;
      if (names && !v)
	continue;
      hist->hvalue.counters[2 + 2 * n] = v;
      hist->hvalue.counters[3 + 2 * n]
	= (gcov_type) ((double) all * (double) h->entries[i].count
		       / (double) sum);
      n++;
    }
  hist->hvalue.counters[0] = all;
  hist->hvalue.counters[1] = n;
  hist->n_counters = 2 + 2 * n;
  if (!n)
    {
      XDELETEVEC (hist->hvalue.counters);
      free (hist);
      return false;
    }
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
sfdo_attach_value_profiles (const struct sfdo_profile *p,
			    const struct sfdo_prof_func *f)
{
  basic_block bb;
  unsigned attached = 0;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gimple *stmt = gsi_stmt (gsi);
	const struct sfdo_prof_values *h;
	tree operand;

	if (is_gimple_call (stmt) && !gimple_call_fndecl (stmt)
	    && !gimple_call_internal_p (stmt)
	    && (h = histogram_at (p, f, stmt, SFDO_VALUE_ICALL)))
	  attached += attach (p, stmt, HIST_TYPE_INDIR_CALL,
			      gimple_call_fn (stmt), h, true);
	else if (division (stmt, &operand)
		 && (h = histogram_at (p, f, stmt, SFDO_VALUE_DIVMOD)))
	  attached += attach (p, stmt, HIST_TYPE_TOPN_VALUES, operand, h,
			      false);
	else if (string_operation (stmt, &operand)
		 && (h = histogram_at (p, f, stmt, SFDO_VALUE_MEMSIZE)))
	  attached += attach (p, stmt, HIST_TYPE_TOPN_VALUES, operand, h,
			      false);
      }
  return attached;
}
