/* plugin/hotcold.cc - which blocks and functions never ran (hotcold.h).

   GCC moves a block to the cold partition only when its count is
   profile_count::zero (PRECISE) and the edges into it are never taken,
   and a function to .text.unlikely only when its entry count is a global
   zero (gcc-profile-consumers: predict.cc probably_never_executed,
   compute_function_frequency).  A sample profile's zero is weaker: a
   block may have run without being sampled.  It is believed when the
   region of unsampled blocks (to which the flow solution gives nothing)
   would have caught SFDO_ZERO_EVIDENCE (a tenth of a sample) or more
   had every edge into it been taken as often as its source ran, provided
   the profile measured one of its blocks: a region whose lines the
   profile does not hold at all had no code in the profiled binary to
   sample (Lua's getgclist, inlined into propagatemark, where jump
   threading merged its switch into the caller's: its case blocks went to
   the cold partition and ran 900 thousand times there on the small
   input).  The bound is low on purpose: what a wrong zero costs is a
   jump to the cold partition each time the region runs, and a region
   that stayed unsampled at that much evidence ran rarely, while most of
   the code of a program never runs at all.  Measured on the decisions
   bench (emulated PMU; bench/RESULTS.md, decisions): at 12 expected
   samples (a 5% chance of a wrong zero for a region run on a quarter of
   its entries) sfdo made 74% of PGO's hot/cold decisions on Lua and 70%
   on SQLite; at 1, 78%; at a quarter, 81% and 77%, with the same share
   of decisions PGO does not make (25%, 27%) and the same instructions
   and taken jumps.  Later, at a tenth rather than a quarter, 7 more of
   PGO's decisions on SQLite (rarely run functions such as sqlite3Select,
   entered 293 times, split as PGO splits them; none lost) and 1 more on
   Lua, with the same instructions and taken jumps; no bound at all made
   no more.  That bound takes every edge into a region for as busy as
   its source, which a thin profile cannot afford: SQLite's
   sqlite3VdbeExec, 258 timer samples over its opcodes, sent the
   handlers of opcodes that ran to its cold part (1.2 million taken
   jumps there on the small input).  Asking a thin profile's region to
   have missed a sample at GCC's own estimate of it as well kept them,
   but on Lua, from a timer recording of 761 samples, it left
   luaV_execute's dispatch running in its cold part: taken jumps 0.87
   of -O2's where they were 0.67; on SQLite it saved 3%.  Left as it
   is.  A block with a sample of its own never goes cold, whatever the
   flow solution says.  In a function that ran too few times to give
   its blocks even that evidence (a parser's rare constructs, run a
   handful of times), GCC's own estimate stands in for it: a region that
   the static estimate enters on at most SFDO_STATIC_RARE (one in 20) of
   the function's entries is an error path, by GCC's heuristics
   (predict.def: a path to a noreturn or cold call 1 in 2000, a negative
   return 2 in 100, and their combinations), which a training run rarely
   takes and -fprofile-use would find never ran; it is believed never run
   too (e2e 86).  One in 1000 (paths to noreturn and cold calls only)
   made 7 fewer of PGO's decisions on SQLite, 1 fewer on Lua, and the
   same taken jumps; one in 5 a few more on both, and 1% more taken jumps
   on Lua.

   Functions: the converter lists every function of the profiled binary,
   sampled or not (those with total 0).  One that never caught a sample
   while the profile holds SFDO_UNLIKELY_MIN_SAMPLES samples or more
   used at most a share of that order of the run: it is marked never
   executed, with the shape of GCC's static estimate kept, as
   -fprofile-use marks a function its training run never entered
   (profile.cc: GUESSED_GLOBAL0 counts).  handle_missing_profiles, run
   after the whole unit is annotated, takes that back where a caller with
   a count calls it (as it does for -fprofile-use), and pass.cc's
   revive_callers the other way round, where only callers marked so can
   have entered a function that ran.  A function the profile does not
   list at all keeps GCC's static estimate.

   Revived functions: a function whose entry count is a zero and that
   handle_missing_profiles revives (a caller with a count calls it) gets
   GCC's static estimate and no cold blocks: a guessed count is never
   "never executed".  It ran, by its callers, yet caught no sample, so it
   ran rarely; the fewest entries that agree with both is one, and a
   block the static estimate enters on fewer than SFDO_REVIVED_RARE (a
   half) of the entries is then more likely never to have run than to
   have run: such blocks are made never executed, with the flow kept
   through the others.  -fprofile-use finds the error and rare paths of a
   function that ran a few times never ran, and splits it.  On the
   decisions bench (emulated branch stacks) this made 27 more of PGO's
   hot/cold decisions on SQLite (30 gained; 3 functions called only from
   such rare paths went to .text.unlikely where PGO split them), 27 on
   an older SQLite recording and 12 on Lua, none lost there.  Other
   bounds, on SQLite and Lua (measured before the cut was made this way,
   when a half gave 26 and 12): a third 25 and 10, a fifth 17 and 9, a
   hundredth 3 on SQLite.  The rule of the annotated functions above asks more
   of GCC's estimate: a function with one sample may have run as many
   times as one sample weighs (a thousand or more), so only what GCC
   calls an error path (SFDO_STATIC_RARE) is cut there; here the fewest
   entries that agree with the profile is one.  The same holds for a
   function revived the other way (revive_callers: a callee that ran has
   no other caller), which is annotated, not guessed: its shape leaves
   out the same blocks (sfdo_statically_rare), and the flow decides the
   rest.  On three SQLite recordings of the decisions bench this made 3,
   7 and 6 more of PGO's hot/cold decisions (SQLite's
   sqlite3BtreeClearTable, whereLoopAddOr and sqlite3NestedParse split as
   PGO splits them, and callees of their rare paths such as sameSrcAlias
   left never run).  Keeping the likeliest path to the calls of the
   functions that ran, which must have run, made 0 to 4 fewer on each of
   six recordings: that path also reaches calls of functions PGO finds
   never ran.

   Calls: a block that calls a function marked never run did not run
   either, where running as often as its count says would have given the
   callee samples (annotate.cc, find_dead_calls); otherwise such calls,
   counted from a line they share or given flow by the solver, made GCC
   revive the callee.  And a block found never run stays so when its
   function is annotated again with more entries (reconcile_entries).  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "cgraph.h"
#include "hash-map.h"
#include "cfg.h"
#include "sreal.h"
#include "profile.h"
#include "predict.h"

#include "gcc-compat.h"
#include "../profiles/profile.h"
#include "samplefdo.h"
#include "annotate.h"
#include "counts.h"
#include "hotcold.h"

#define SFDO_ZERO_EVIDENCE 0.1
#define SFDO_STATIC_RARE (1.0 / 20)
#define SFDO_UNLIKELY_MIN_SAMPLES 1000
#define SFDO_REVIVED_RARE 0.5

/* Union-find over block indices, for the regions of unsampled blocks.  */

static int
region_of (int *parent, int b)
{
  while (parent[b] != b)
    b = parent[b] = parent[parent[b]];
  return b;
}

struct sfdo_static_estimate *
sfdo_static_estimate_take (void)
{
  profile_count entry = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
  struct sfdo_static_estimate *e;
  basic_block bb;

  if (profile_status_for_fn (cfun) != PROFILE_GUESSED
      || !entry.initialized_p () || !entry.nonzero_p ())
    return NULL;
  e = XNEW (struct sfdo_static_estimate);
  e->nblocks = last_basic_block_for_fn (cfun);
  e->rate = XNEWVEC (double, e->nblocks);
  FOR_ALL_BB_FN (bb, cfun)
    e->rate[bb->index] = bb->count.initialized_p ()
			 ? bb->count.to_sreal_scale (entry).to_double ()
			 : 1.0;
  return e;
}

void
sfdo_static_estimate_free (struct sfdo_static_estimate *e)
{
  if (!e)
    return;
  XDELETEVEC (e->rate);
  XDELETE (e);
}

double
sfdo_static_rate (const struct sfdo_static_estimate *e, basic_block bb)
{
  return e && bb->index < e->nblocks ? e->rate[bb->index] : 1.0;
}

bool
sfdo_statically_rare (double rate, bool revived)
{
  if (revived && sfdo_rule_on (SFDO_RULE_REVIVED_RARE))
    return rate < SFDO_REVIVED_RARE;
  return rate <= SFDO_STATIC_RARE;
}

bool *
sfdo_find_real_zeros (const struct sfdo_fn_counts *c,
		      const struct sfdo_static_estimate *estimate)
{
  int n = c->nblocks;
  int *parent;
  double *evidence, *region_rate;
  bool *candidate, *measured, *zero;
  basic_block bb;
  edge e;
  edge_iterator ei;
  bool ran = c->block[ENTRY_BLOCK] > 0;

  if (!sfdo_family_on (SFDO_FAMILY_HOTCOLD) || !c->solved)
    return NULL;
  parent = XNEWVEC (int, n);
  evidence = XCNEWVEC (double, n);
  region_rate = XCNEWVEC (double, n);
  candidate = XCNEWVEC (bool, n);
  measured = XCNEWVEC (bool, n);
  zero = XCNEWVEC (bool, n);
  FOR_ALL_BB_FN (bb, cfun)
    {
      parent[bb->index] = bb->index;
      candidate[bb->index] = c->block[bb->index] == 0
			     && c->raw[bb->index] <= 0
			     && bb != ENTRY_BLOCK_PTR_FOR_FN (cfun)
			     && bb != EXIT_BLOCK_PTR_FOR_FN (cfun);
    }
  /* Regions: unsampled blocks joined by edges between them.  */
  FOR_EACH_BB_FN (bb, cfun)
    FOR_EACH_EDGE (e, ei, bb->succs)
      if (candidate[bb->index] && candidate[e->dest->index])
	parent[region_of (parent, bb->index)] = region_of (parent,
							   e->dest->index);
  /* A region's evidence: the samples its entry blocks would have caught
     had every edge into the region been taken as often as its source
     ran.  */
  FOR_EACH_BB_FN (bb, cfun)
    if (candidate[bb->index])
      FOR_EACH_EDGE (e, ei, bb->preds)
	if (!candidate[e->src->index])
	  evidence[region_of (parent, bb->index)]
	    += sfdo_expected_samples (c->block[e->src->index],
				      sfdo_block_size (bb));
  /* A region's static rate: its most frequent block's, by GCC's estimate,
     per entry of the function (1 where there is none); and whether the
     profile measured any of its blocks.  */
  FOR_EACH_BB_FN (bb, cfun)
    if (candidate[bb->index])
      {
	int r = region_of (parent, bb->index);
	region_rate[r] = MAX (region_rate[r],
			      sfdo_static_rate (estimate, bb));
	measured[r] |= c->raw[bb->index] == 0;
      }
  FOR_EACH_BB_FN (bb, cfun)
    if (candidate[bb->index]
	&& ((sfdo_rule_on (SFDO_RULE_ZERO_EVIDENCE)
	     && measured[region_of (parent, bb->index)]
	     && evidence[region_of (parent, bb->index)] >= SFDO_ZERO_EVIDENCE)
	    || (ran && sfdo_rule_on (SFDO_RULE_STATICALLY_RARE)
		&& sfdo_statically_rare (region_rate[region_of (parent,
								bb->index)],
					 c->revived))))
      zero[bb->index] = true;
  XDELETEVEC (parent);
  XDELETEVEC (evidence);
  XDELETEVEC (region_rate);
  XDELETEVEC (candidate);
  XDELETEVEC (measured);
  return zero;
}

bool
sfdo_profiled_but_never_ran (const struct sfdo_prof_func *f)
{
  const struct sfdo_prof_header *h = sfdo_profile_header (sfdo_profile);

  return sfdo_family_on (SFDO_FAMILY_HOTCOLD) && f->total == 0
	 && f->head == 0
	 && h->samples_used >= SFDO_UNLIKELY_MIN_SAMPLES
	 && !sfdo_prof_func_seen_calling (f);
}

static hash_map<tree, double> *never_ran;

void
sfdo_note_never_ran (tree decl, double samples_per_entry)
{
  if (!never_ran)
    never_ran = new hash_map<tree, double>;
  never_ran->put (decl, samples_per_entry);
}

bool
sfdo_noted_any_never_ran (void)
{
  return never_ran && never_ran->elements () > 0;
}

double
sfdo_never_ran_samples (tree decl)
{
  double *s = never_ran ? never_ran->get (decl) : NULL;
  return s ? *s : 0;
}

void
sfdo_forget_never_ran (void)
{
  delete never_ran;
  never_ran = NULL;
}

void
sfdo_mark_never_ran (cgraph_node *node)
{
  basic_block bb;

  FOR_ALL_BB_FN (bb, cfun)
    bb->count = bb->count.global0 ();
  node->count = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
  profile_status_for_fn (cfun) = PROFILE_READ;
  sfdo_stats.unlikely_functions++;
}

bool
sfdo_never_entered (function *fn)
{
  return profile_status_for_fn (fn) == PROFILE_READ
	 && ENTRY_BLOCK_PTR_FOR_FN (fn)->count.ipa () == profile_count::zero ();
}

/* Send BB's flow only to its successors that are not RARE (by block
   index), in the proportions it had; false, changing nothing, where
   every successor or none is rare.  */

static bool
avoid_rare_successors (basic_block bb, const bool *rare)
{
  profile_probability kept = profile_probability::never ();
  bool cut = false;
  edge e;
  edge_iterator ei;

  FOR_EACH_EDGE (e, ei, bb->succs)
    if (rare[e->dest->index])
      cut = true;
    else
      kept += e->probability;
  if (!cut || !(kept > profile_probability::never ()))
    return false;
  FOR_EACH_EDGE (e, ei, bb->succs)
    e->probability = rare[e->dest->index] ? profile_probability::never ()
					   : e->probability / kept;
  return true;
}

unsigned
sfdo_cool_revived_function (cgraph_node *node)
{
  profile_count entry = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
  bool *rare;
  bool cut = false;
  unsigned zeros = 0;
  basic_block bb;
  cgraph_edge *e;

  if (!sfdo_family_on (SFDO_FAMILY_HOTCOLD)
      || !sfdo_rule_on (SFDO_RULE_COOL_REVIVED)
      || profile_status_for_fn (cfun) != PROFILE_GUESSED
      || !entry.initialized_p () || !entry.nonzero_p ())
    return 0;
  rare = XCNEWVEC (bool, last_basic_block_for_fn (cfun));
  FOR_EACH_BB_FN (bb, cfun)
    rare[bb->index]
      = bb->count.initialized_p ()
	&& sfdo_statically_rare (bb->count.to_sreal_scale (entry).to_double (),
				 true);
  FOR_ALL_BB_FN (bb, cfun)
    cut |= avoid_rare_successors (bb, rare);
  XDELETEVEC (rare);
  if (!cut)
    return 0;
  /* The counts again from the probabilities; what no flow reaches now
     never ran.  */
  sfdo_counts_from_probabilities ();
  FOR_EACH_BB_FN (bb, cfun)
    if (bb->count.initialized_p () && !bb->count.nonzero_p ())
      {
	bb->count = profile_count::zero ();
	zeros++;
      }
  node->count = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
  for (e = node->callees; e; e = e->next_callee)
    e->count = gimple_bb (e->call_stmt)->count;
  for (e = node->indirect_calls; e; e = e->next_callee)
    e->count = gimple_bb (e->call_stmt)->count;
  return zeros;
}
