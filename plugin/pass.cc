/* plugin/pass.cc - the pass that replaces GCC's "profile": matching the
   unit's functions with the profile, then each stage of samplefdo.h in
   order.

   The pass takes the slot of GCC's SIMPLE_IPA pass "profile"
   (pass_ipa_tree_profile), where -fprofile-use reads its counts: every
   function is in SSA form, early inlining has run, and the regular IPA
   passes (ipa-profile, inline) are still to come.  Replacing it keeps its
   sub-pass feedback_fnsplit, so profile-driven function splitting runs
   after annotation (GCC 12's -fauto-profile never runs it).  It is also
   named "profile" and dumps where -fdump-ipa-profile asks (samplefdo.cc
   copies the dump settings), so the "Indirect call -> direct call" and
   "Transformation done" lines of GCC's value profiling appear where
   users and GCC's own tests look for them.

   Stages, each over every function with a body:
     1. the program summary (profile_info) and hot threshold; profiles
	of an older source aligned to today's by their call sites;
     2. the counts of inline instances added to their callees' own
	bodies, then inline replay; the functions that never ran noted,
	for the calls into them;
     3. annotation: measured counts, flow, real zeros, counts onto the
	CFG, loop estimates; functions the profiled binary never ran are
	marked unlikely; then entry counts made to agree with the calls
	this unit makes into them, and callers marked unlikely that alone
	can have entered a function that ran given counts;
     4. once all counts are in: frequencies, call edges, value histograms
	and their transformations, the consistency check;
     5. handle_missing_profiles, as after -fprofile-use; the functions
	it revives get the cold blocks of one that ran rarely.

   Matching.  A function is looked up by its assembler name without GCC's
   clone suffixes (.part.N, .isra.N, .constprop.N, .cold, .lto_priv.N):
   a clone is a piece or a variant of the function whose samples the
   profile records under the original name.  A function with internal
   linkage is tried as (name, main input file) first, the way the
   converter keys static functions by their compile unit's DW_AT_name,
   then as a global.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "cgraph.h"
#include "hash-set.h"
#include "hash-map.h"
#include "profile.h"
#include "predict.h"
#include "value-prof.h"
#include "diagnostic-core.h"
#include "dumpfile.h"
#include "gimple-iterator.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "tree-vrp.h"
#include "gcc-compat.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"

#include "../profiles/profile.h"
#include "samplefdo.h"
#include "position.h"
#include "annotate.h"
#include "counts.h"
#include "hotcold.h"
#include "inline.h"
#include "loops.h"
#include "stale.h"
#include "values.h"

/* Return the length of the clone suffix that ends the LEN bytes of NAME,
   or 0 if there is none.  Recognised are ".cold" and ".KIND.N" where KIND
   is one of GCC's clone kinds and N is decimal.  The suffix never covers
   the whole name.  */

static size_t
clone_suffix_length (const char *name, size_t len)
{
  static const char *const kinds[]
    = { "part", "isra", "constprop", "cold", "lto_priv" };
  size_t digits, i;

  if (len > 5 && memcmp (name + len - 5, ".cold", 5) == 0)
    return 5;

  digits = len;
  while (digits > 0 && ISDIGIT (name[digits - 1]))
    digits--;
  if (digits == len || digits < 2 || name[digits - 1] != '.')
    return 0;

  /* NAME[0, DIGITS - 1) must end in ".KIND", with something before it.  */
  for (i = 0; i < ARRAY_SIZE (kinds); i++)
    {
      size_t klen = strlen (kinds[i]);
      size_t end = digits - 1;
      if (end > klen + 1
	  && name[end - klen - 1] == '.'
	  && memcmp (name + end - klen, kinds[i], klen) == 0)
	return len - (end - klen - 1);
    }
  return 0;
}

/* A copy of DECL's assembler name without a leading '*' and without
   GCC's clone suffixes, which may be stacked ("f.part.0.isra.0" gives
   "f").  The caller frees it.  */

static char *
profile_name (tree decl)
{
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));
  char *copy;
  size_t len, n;

  if (name[0] == '*')
    name++;
  copy = xstrdup (name);
  len = strlen (copy);
  while ((n = clone_suffix_length (copy, len)) != 0)
    {
      len -= n;
      copy[len] = '\0';
    }
  return copy;
}

/* The profile of DECL, looked up as NAME in the profile file.  A
   file-local function is keyed by its source file as the profiled build
   named it; this build may name it from another directory, so the
   profile library also takes the file whose path ends alike.  */

static struct sfdo_prof_func *
find_function_profile (tree decl, const char *name)
{
  struct sfdo_prof_func *f = NULL;
  struct sfdo_error err;

  sfdo_error_clear (&err);
  if (!TREE_PUBLIC (decl) && main_input_filename && main_input_filename[0])
    f = sfdo_profile_find_static (sfdo_profile, name, main_input_filename,
				  &err);
  if (!f && err.code == SFDO_OK)
    f = sfdo_profile_find (sfdo_profile, name, NULL, &err);
  if (!f && err.code == SFDO_OK && !TREE_PUBLIC (decl)
      && main_input_filename)
    {
      /* A file-local template instance the profiled binary's DWARF gave
	 no linkage name.  */
      char *dwarf_name = sfdo_dwarf_profile_name (decl);
      if (dwarf_name)
	f = sfdo_profile_find_static (sfdo_profile, dwarf_name,
				      main_input_filename, &err);
      XDELETEVEC (dwarf_name);
    }
  if (!f && err.code != SFDO_OK)
    sfdo_report_profile_error (&err);
  return f;
}

struct sfdo_prof_func *
sfdo_profile_of (tree decl, sfdo_extra_map *extra)
{
  struct sfdo_prof_func **made = extra->get (decl);
  char *name;
  struct sfdo_prof_func *f;

  if (made)
    return *made;
  name = profile_name (decl);
  f = find_function_profile (decl, name);
  free (name);
  return f;
}

struct sfdo_prof_func *
sfdo_profile_to_extend (tree decl, sfdo_extra_map *extra)
{
  struct sfdo_prof_func *f = sfdo_profile_of (decl, extra);
  char *name;

  if (f)
    return f;
  name = profile_name (decl);
  f = sfdo_profile_add_func
	(sfdo_profile, sfdo_profile_intern_str (sfdo_profile, name),
	 !TREE_PUBLIC (decl) && main_input_filename
	 ? sfdo_profile_intern_str (sfdo_profile, main_input_filename) : 0);
  free (name);
  extra->put (decl, f);
  return f;
}

tree
sfdo_direct_callee (gimple *stmt)
{
  tree fndecl = is_gimple_call (stmt) ? gimple_call_fndecl (stmt) : NULL_TREE;
  cgraph_node *node = fndecl ? cgraph_node::get (fndecl) : NULL;

  return node ? node->ultimate_alias_target ()->decl : NULL_TREE;
}

/* Whether NODE is a function this unit emits code for.  */

static bool
own_body_p (cgraph_node *node)
{
  return !node->inlined_to && !DECL_EXTERNAL (node->decl);
}

/* Report under dumps whether NODE found profile F.  */

static void
note_match (cgraph_node *node, const struct sfdo_prof_func *f)
{
  if (!dump_enabled_p ())
    return;
  if (f)
    dump_printf_loc (MSG_NOTE,
		     dump_user_location_t::from_function_decl (node->decl),
		     "samplefdo: %s has a profile: total %" PRIu64 ", head %"
		     PRIu64 "\n", node->asm_name (), (uint64_t) f->total,
		     (uint64_t) f->head);
  else
    dump_printf_loc (MSG_MISSED_OPTIMIZATION,
		     dump_user_location_t::from_function_decl (node->decl),
		     "samplefdo: no profile for %s\n", node->asm_name ());
}

/* Record in sfdo_stats what annotating NODE (profile F, counts C) found.
   SEEN holds the profiles already counted: clones share one.  */

static void
record_match (cgraph_node *node, const struct sfdo_prof_func *f,
	      const struct sfdo_fn_counts *c,
	      hash_set<const struct sfdo_prof_func *> *seen)
{
  if (!f)
    {
      sfdo_stats.unmatched++;
      sfdo_stats.unmatched_names.safe_push (xstrdup (node->asm_name ()));
      return;
    }
  sfdo_stats.matched++;
  if (!seen->add (f))
    sfdo_stats.matched_total = sfdo_sat_add (sfdo_stats.matched_total,
					     f->total);
  if (!c)
    return;
  sfdo_stats.blocks += c->blocks;
  sfdo_stats.known_blocks += c->known_blocks;
  sfdo_stats.call_counts_from_inlinees += c->calls_from_inlinees;
  if (f->total && c->fit < 0.5)
    {
      sfdo_stats.stale_names.safe_push (xstrdup (node->asm_name ()));
      sfdo_stats.stale_fit.safe_push ((int) (100 * c->fit));
      sfdo_stats.stale_locations.safe_push
	(DECL_SOURCE_LOCATION (node->decl));
    }
}

/* Under dump-only: match every function with the profile and write
   GCC's own counts, changing nothing.  */

static void
dump_gcc_counts (void)
{
  hash_set<const struct sfdo_prof_func *> seen;
  cgraph_node *node;
  sfdo_extra_map extra;

  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    if (own_body_p (node))
      {
	struct sfdo_fn_counts c;
	struct sfdo_prof_func *f = sfdo_profile_of (node->decl, &extra);
	push_cfun (DECL_STRUCT_FUNCTION (node->decl));
	sfdo_annotate_blocks (f, false, 0, NULL, false, false, &c);
	note_match (node, f);
	record_match (node, f, &c, &seen);
	if (sfdo_opts.dump)
	  sfdo_dump_blocks (sfdo_opts.dump, node, &c);
	sfdo_fn_counts_free (&c);
	pop_cfun ();
      }
}

/* Count in sfdo_stats what aligning NODE's profile (of total WEIGHT,
   found under its old name if RENAMED) found (R).  */

static void
note_realignment (cgraph_node *node, const struct sfdo_realignment *r,
		  uint64_t weight, bool renamed)
{
  struct sfdo_stats *s = &sfdo_stats;
  uint64_t all = r->strong + r->weak + r->dropped;
  uint64_t *class_weight = r->fit == SFDO_FIT_EXACT ? &s->weight_exact
			   : r->fit == SFDO_FIT_MOVED ? &s->weight_moved
			   : &s->weight_unanchored;

  *class_weight = sfdo_sat_add (*class_weight, weight);
  if (renamed)
    s->weight_renamed = sfdo_sat_add (s->weight_renamed, weight);
  if (r->fit == SFDO_FIT_EXACT)
    s->realigned_exact++;
  else if (r->fit == SFDO_FIT_UNANCHORED)
    s->realigned_unanchored++;
  if (r->fit != SFDO_FIT_MOVED)
    return;
  s->realigned++;
  s->moved_strong = sfdo_sat_add (s->moved_strong, r->strong);
  s->moved_weak = sfdo_sat_add (s->moved_weak, r->weak);
  s->moved_dropped = sfdo_sat_add (s->moved_dropped, r->dropped);
  s->realigned_notes.safe_push
    (xasprintf ("%s: lines moved with %u of its %u call sites; of its "
		"weight %.1f%% strong, %.1f%% weak, %.1f%% left out",
		node->asm_name (), r->matched, r->anchors,
		all ? 100.0 * r->strong / all : 0.0,
		all ? 100.0 * r->weak / all : 0.0,
		all ? 100.0 * r->dropped / all : 0.0));
}

/* NODE, which the profile lacks by name, has F's profile under the name
   it had when profiled: note it in EXTRA and sfdo_stats.  */

static void
note_renamed (cgraph_node *node, struct sfdo_prof_func *f,
	      sfdo_extra_map *extra)
{
  extra->put (node->decl, f);
  sfdo_stats.renamed++;
  sfdo_stats.realigned_notes.safe_push
    (xasprintf ("%s: the profile of %s (renamed: found by its call sites)",
		node->asm_name (), sfdo_profile_str (sfdo_profile, f->name)));
}

/* Stage 1: profiles of an older source, aligned to today's (stale.h).
   A moved copy replaces a function's profile for every later stage;
   MOVED holds the copies, which the caller frees.  */

static void
realign_stale_profiles (sfdo_extra_map *extra,
			vec<struct sfdo_prof_func *> *moved)
{
  cgraph_node *node;

  /* A profile without its functions' shapes (converted before they were
     recorded, or from another tool) has too little to align by: branch
     anchors alone, without the calls, would find moves that are not.  */
  if (sfdo_opts.no_realign || !sfdo_profile_has_mode (sfdo_profile, "shape"))
    return;
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f, *g;
      struct sfdo_realignment r;
      if (!own_body_p (node))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      bool renamed = false;
      if (!(f = sfdo_profile_of (node->decl, extra))
	  && (f = sfdo_renamed_profile ()))
	{
	  note_renamed (node, f, extra);
	  renamed = true;
	}
      if (!f || !f->total)
	{
	  pop_cfun ();
	  continue;
	}
      g = sfdo_realign_profile (f, &r);
      pop_cfun ();
      note_realignment (node, &r, f->total, renamed);
      if (g == f)
	continue;
      extra->put (node->decl, g);
      moved->safe_push (g);
    }
}

/* Align the inline instances in F's profile (at any depth; F is the
   current function's, or an instance in it) to their callees' bodies as
   the current function holds them inlined, or failing that to the
   callee's own body; once each (SEEN).  */

static void
realign_instances_of (struct sfdo_prof_func *f,
		      hash_set<struct sfdo_prof_func *> *seen)
{
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      struct sfdo_prof_func *inst = f->callsites[i].callee;
      struct sfdo_realignment r;
      bool moved = false;
      if (seen->add (inst))
	continue;
      const char *name = sfdo_profile_str (sfdo_profile, inst->name);
      tree decl = inst->total ? sfdo_inlined_decl (name) : NULL_TREE;
      if (decl)
	moved = sfdo_realign_instance (inst, decl, &r);
      else if (inst->total)
	{
	  cgraph_node *cn = sfdo_function_named (name);
	  if (cn && cn->has_gimple_body_p ()
	      && DECL_STRUCT_FUNCTION (cn->decl))
	    {
	      push_cfun (DECL_STRUCT_FUNCTION (cn->decl));
	      moved = sfdo_realign_instance (inst, cn->decl, &r);
	      pop_cfun ();
	    }
	}
      if (moved)
	{
	  sfdo_stats.realigned_instances++;
	  sfdo_stats.realigned_notes.safe_push
	    (xasprintf ("an instance of %s in %s: lines moved with %u of its "
			"%u anchors", name, current_function_name (),
			r.matched, r.anchors));
	}
      realign_instances_of (inst, seen);
    }
}

/* Stage 1b: the inline instances of the profiled binary, whose lines
   count from their callee's declaration, move with the callee's source:
   an edit inside a function the profiled binary had inlined left its
   instances' lines where the old source had them (e2e 84, edit
   "inlined").  */

static void
realign_instances (sfdo_extra_map *extra)
{
  hash_set<struct sfdo_prof_func *> seen;
  cgraph_node *node;

  if (sfdo_opts.no_realign || !sfdo_rule_on (SFDO_RULE_REALIGN_INSTANCES)
      || !sfdo_profile_has_mode (sfdo_profile, "shape"))
    return;
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f;
      if (!own_body_p (node) || !(f = sfdo_profile_of (node->decl, extra)))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      realign_instances_of (f, &seen);
      pop_cfun ();
    }
}

/* Stage 2: give every callee the counts of the inline instances the
   profiled binary had at this unit's calls to it, then replay the hot
   ones.  The callee's own body gets them first, as -fprofile-use's would:
   instrumentation counts every call made to it before IPA inlining; the
   replayed copy then gets the same nested profile in its caller.  */

static void
prepare_inlining (sfdo_extra_map *extra)
{
  hash_set<const struct sfdo_prof_func *> moved;
  cgraph_node *node;

  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f;
      if (!own_body_p (node) || !(f = sfdo_profile_of (node->decl, extra)))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      sfdo_move_uninlined_instances (f, extra, &moved);
      pop_cfun ();
    }
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f;
      if (!own_body_p (node) || !(f = sfdo_profile_of (node->decl, extra)))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      sfdo_stats.replayed_inlines += sfdo_replay_inlining (node, f);
      pop_cfun ();
    }
}

/* The samples NODE's function catches per entry: from instruction
   samples, by GCC's estimate of its run time per call (ipa-fnsummary), at
   least one instruction's; from branch stacks, one block's
   (sfdo_expected_samples), whatever its size, which is cautious.  */

static double
samples_per_entry (cgraph_node *node)
{
  ipa_fn_summary *s = ipa_fn_summaries ? ipa_fn_summaries->get (node) : NULL;
  int64_t time = s ? s->time.to_int () : 1;

  return sfdo_expected_samples (1, (unsigned) MIN (MAX (time, (int64_t) 1),
						    (int64_t) 1 << 20));
}

/* Note every function the profile says never ran, for the calls into
   them (annotate.cc, find_dead_calls): once the inline instances at this
   unit's calls have been added to their callees, for a function whose
   out-of-line copy never ran but whose instances at those calls did is
   not one here.  Functions of other units are noted too, with one
   instruction's samples per entry (no summary here), so only calls
   counted far above that can be found never run.  */

static void
note_never_ran (sfdo_extra_map *extra)
{
  cgraph_node *node;

  FOR_EACH_FUNCTION (node)
    {
      const struct sfdo_prof_func *f;
      if (node->inlined_to || node->alias || node->thunk)
	continue;
      f = sfdo_profile_of (node->decl, extra);
      if (f && sfdo_profiled_but_never_ran (f))
	sfdo_note_never_ran (node->decl, samples_per_entry (node));
    }
}

/* Whether the tracer would undo what the profiled binary did in the
   current function, counted in C: its tail duplication copies the blocks
   after a hot branch into each arm, after which the branch can no longer
   become a conditional move.  Where the profiled binary had made one of a
   branch that runs at least an eighth as often as the function's busiest
   block, the branch is likely unpredictable (GCC if-converts what its
   guess cannot call), and a mispredicted jump costs more than the taken
   jumps the tracer saves: on examples/demo.c's CRC loop, -ftracer makes
   the build 2.3 times slower, -fprofile-use's own as much.  */

static bool
tracer_would_undo_if_conversion (const struct sfdo_fn_counts *c)
{
  uint64_t busiest = 0;

  for (int b = 0; b < c->nblocks; b++)
    busiest = MAX (busiest, c->block[b]);
  return sfdo_rule_on (SFDO_RULE_TRACER) && c->hottest_if_converted
	 && c->hottest_if_converted >= busiest / 8;
}

/* Turn -ftracer off for the function of DECL alone, as
   __attribute__ ((optimize ("no-tracer"))) would.  */

static void
disable_tracer (tree decl)
{
  struct gcc_options opts = global_options;
  struct gcc_options opts_set = global_options_set;
  tree node = DECL_FUNCTION_SPECIFIC_OPTIMIZATION (decl);

  if (!node)
    node = optimization_default_node;
  cl_optimization_restore (&opts, &opts_set, TREE_OPTIMIZATION (node));
  if (!opts.x_flag_tracer)
    return;
  opts.x_flag_tracer = 0;
  DECL_FUNCTION_SPECIFIC_OPTIMIZATION (decl)
    = build_optimization_node (&opts, &opts_set);
  sfdo_stats.tracer_off++;
}

/* GCC's estimate of each annotated function's blocks (hotcold.h), taken
   before its first annotation overwrites it, for the next ones.  */
static hash_map<tree, sfdo_static_estimate *> *static_estimates;

static void
forget_static_estimates (void)
{
  for (auto it = static_estimates->begin (); it != static_estimates->end ();
       ++it)
    sfdo_static_estimate_free ((*it).second);
  delete static_estimates;
  static_estimates = NULL;
}

/* Count the blocks of the current function that ZEROS (NULL: none) finds
   never ran and an earlier annotation had not: reconcile_entries'
   second annotation keeps the zeros of the first (keep_believed_zeros)
   and may find more, where the flow of the first had sent its excess
   entries down a path the second does not need.  */

static void
count_new_zeros (const bool *zeros)
{
  basic_block bb;

  if (zeros)
    FOR_EACH_BB_FN (bb, cfun)
      sfdo_stats.zero_blocks += zeros[bb->index]
				&& !(bb->count == profile_count::zero ());
}

/* Stage 3 for the current function (of NODE, profile F): its counts
   onto the CFG, with HEAD (when nonzero) as its entry count, even where
   F says the function never ran; REVIVED when a callee says it ran
   (revive_callers).  SEEN (NULL on a second annotation) collects the
   statistics.  */

static void
annotate_function (cgraph_node *node, const struct sfdo_prof_func *f,
		   uint64_t head, bool revived,
		   hash_set<const struct sfdo_prof_func *> *seen)
{
  struct sfdo_fn_counts c;
  bool *zeros;
  unsigned estimates;
  sfdo_static_estimate *&estimate
    = static_estimates->get_or_insert (node->decl);

  /* The preheaders first: blocks made after the estimate was taken would
     have no rate in it, and a function revived later (revive_callers)
     gets its preheaders only then.  */
  if (seen)
    {
      sfdo_prepare_loops ();
      sfdo_static_estimate_free (estimate);
      estimate = sfdo_static_estimate_take ();
    }
  if (!head && sfdo_profiled_but_never_ran (f))
    {
      sfdo_mark_never_ran (node);
      record_match (node, f, NULL, seen);
      return;
    }
  sfdo_annotate_blocks (f, true, head, estimate, revived,
			!seen && !revived, &c);
  zeros = sfdo_find_real_zeros (&c, estimate);
  count_new_zeros (zeros);
  sfdo_write_counts (node, &c, zeros);
  if (seen && tracer_would_undo_if_conversion (&c))
    disable_tracer (node->decl);
  estimates = sfdo_record_loop_estimates ();
  if (seen)
    {
      sfdo_stats.loop_estimates += estimates;
      record_match (node, f, &c, seen);
    }
  if (sfdo_opts.dump)
    sfdo_dump_blocks (sfdo_opts.dump, node, &c);
  XDELETEVEC (zeros);
  sfdo_fn_counts_free (&c);
}

/* Whether F ran, yet its profile counts nothing: no line of its own
   caught a sample, but a sampled stack showed it calling (SQLite's
   memjrnlWrite, reached through a method table, spends its time in
   libc's memcpy).  Its counts would all be zero, a body never run in
   all but name, optimised for size; it keeps GCC's estimate, as a
   function the profile does not list does.  */

static bool
ran_uncounted (const struct sfdo_prof_func *f)
{
  return !f->total && !f->head && sfdo_prof_func_seen_calling (f);
}

/* A function and its profile, annotated in this unit.  */
typedef std::pair<cgraph_node *, struct sfdo_prof_func *> sfdo_annotated;

/* Into CALLS, for each function, the sum of the counts of the blocks of
   ANNOTATED functions that call it directly.  */

static void
sum_calls (vec<sfdo_annotated> *annotated, hash_map<tree, gcov_type> *calls)
{
  for (const sfdo_annotated &a : *annotated)
    {
      basic_block bb;
      push_cfun (DECL_STRUCT_FUNCTION (a.first->decl));
      FOR_EACH_BB_FN (bb, cfun)
	for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	     gsi_next (&gsi))
	  {
	    tree callee = sfdo_direct_callee (gsi_stmt (gsi));
	    profile_count n = bb->count.ipa ();
	    if (!callee || !n.initialized_p ())
	      continue;
	    calls->get_or_insert (callee) += n.to_gcov_type ();
	  }
      pop_cfun ();
    }
}

/* Whether NODE's ENTRY count agrees with the SUM of the calls into it
   by GCC's own test (cgraph_node::dump, "Invalid sum of caller
   counts"): within 1% for a function only this unit calls, and only
   directly; at least 99% of it for any other.  GCC compares the entry
   with the sum, in that order: the other order rounds a 1.15% shortfall
   to "within 1%" (a recording of e2e 66's peel.c: 24929 against
   25217).  */

static bool
entry_agrees (cgraph_node *node, profile_count entry, gcov_type sum)
{
  profile_count calls = profile_count::from_gcov_type (sum, entry.quality ());

  if (node->only_called_directly_p ())
    return !entry.differs_from_p (calls);
  return !(entry > profile_count::from_gcov_type (100, entry.quality ())
	   && entry < calls.apply_scale (99, 100));
}

/* Stage 3b: entry counts that agree with the calls into them.  A call's
   count comes from its caller's samples and an entry count from the
   callee's, and sampling leaves them apart; GCC's inliner scales a
   callee's body by their ratio.  A function only this unit calls, and
   only directly, is entered exactly as often as it is called here (GCC
   checks so); any other at least as often.  Such functions are annotated
   again with that entry count, a few rounds, as a change moves the calls
   the function itself makes.  */

static void
reconcile_entries (vec<sfdo_annotated> *annotated)
{
  for (int round = 0; round < 3; round++)
    {
      hash_map<tree, gcov_type> calls;
      bool changed = false;
      sum_calls (annotated, &calls);
      for (const sfdo_annotated &a : *annotated)
	{
	  gcov_type *sum = calls.get (a.first->decl);
	  profile_count entry = a.first->count.ipa ();
	  gcov_type want;
	  if (!sum || !entry.initialized_p ()
	      || sfdo_profiled_but_never_ran (a.second))
	    continue;
	  want = a.first->only_called_directly_p ()
		 ? *sum : MAX (*sum, entry.to_gcov_type ());
	  /* A zero entry under calls is worse than imprecise: GCC drops
	     the profile of a function its callers call but that was never
	     entered (handle_missing_profiles).  */
	  if (entry.nonzero_p () && entry_agrees (a.first, entry, *sum))
	    continue;
	  if (!want)
	    continue;
	  push_cfun (DECL_STRUCT_FUNCTION (a.first->decl));
	  annotate_function (a.first, a.second, want, false, NULL);
	  pop_cfun ();
	  changed = true;
	}
      if (!changed)
	break;
    }
}

/* Functions the profile says never ran, marked so (hotcold.h).  */
typedef hash_map<cgraph_node *, struct sfdo_prof_func *> sfdo_dead_map;

/* Into FOUND, the functions of DEAD through which the entries of NODE
   came, walking up through callers that have no count of their own (the
   profiled binary inlined them).  False when the entries are explained:
   a caller ran by its count, or NODE or such a caller may be called from
   outside the unit or through a pointer.  VISITED stops the walk at
   cycles.  */

static bool
entries_unexplained (cgraph_node *node, sfdo_dead_map *dead,
		     hash_set<cgraph_node *> *visited,
		     vec<cgraph_node *> *found)
{
  if (!node->only_called_directly_p ())
    return false;
  for (cgraph_edge *e = node->callers; e; e = e->next_caller)
    {
      cgraph_node *caller = e->caller->inlined_to
			    ? e->caller->inlined_to : e->caller;
      if (visited->add (caller))
	continue;
      if (dead->get (caller))
	found->safe_push (caller);
      else if (caller->count.ipa ().nonzero_p ()
	       || !entries_unexplained (caller, dead, visited, found))
	return false;
    }
  return true;
}

/* How many times the function of NODE could have run and still, likely,
   caught no sample: the entries at which its blocks, run at GCC's static
   rates, expect half a sample between them (the converter's estimate of
   an unseen entry too), and below the hot threshold: a body without a
   sample is not hot by the profile's own scale.  */

static gcov_type
unsampled_entries_bound (cgraph_node *node)
{
  sfdo_static_estimate **estimate = static_estimates->get (node->decl);
  double per_entry = 0;
  basic_block bb;

  push_cfun (DECL_STRUCT_FUNCTION (node->decl));
  FOR_EACH_BB_FN (bb, cfun)
    per_entry += sfdo_expected_samples (1, sfdo_block_size (bb))
		 * sfdo_static_rate (estimate ? *estimate : NULL, bb);
  pop_cfun ();
  gcov_type bound = per_entry > 0 ? (gcov_type) MIN (0.5 / per_entry, 1e18)
				  : 1;
  return MAX (MIN (bound, get_hot_bb_threshold () - 1), 1);
}

/* Of the never-run callers FOUND, the one that most likely ran: the one
   that could run most often without a sample (the likeliest way for it to
   have hidden from the sampler).  Into *ENTRIES, that bound, or ENTRIES
   if it is smaller.  */

static cgraph_node *
likeliest_caller (vec<cgraph_node *> *found, gcov_type *entries)
{
  cgraph_node *best = NULL;
  gcov_type best_bound = 0;

  for (cgraph_node *caller : *found)
    {
      gcov_type bound = unsampled_entries_bound (caller);
      if (!best || bound > best_bound)
	{
	  best = caller;
	  best_bound = bound;
	}
    }
  *entries = MAX (MIN (*entries, best_bound), 1);
  return best;
}

/* A function whose entries only never-run callers can explain, and
   those callers (entries_unexplained).  */
struct revival_candidate
{
  cgraph_node *callee;
  gcov_type entries;
  vec<cgraph_node *> callers;
};

/* Into WANT, for the functions of ENTERED whose entries only callers in
   DEAD can explain, the caller that ran and the entries it takes; into
   LATER, those left for the next round.  Where a function has one such
   caller, that caller surely ran, and the others wait a round, since its
   count may explain them: SQLite's sqlite3Select, the only caller of
   findConstInWhere, calls sqlite3SelectPrep too, which small, never-run
   codeReturningTrigger calls on every entry, and which was revived
   instead.  On three SQLite recordings of the decisions bench: 6, 0 and
   -1 of PGO's hot/cold decisions.  Weighing the callers by how often
   GCC's estimate reaches the call as well chose worse: 3, -17 and 0
   (SQLite's renameParseSql for sqlite3NestedParse).  */

static void
choose_revived_callers (hash_map<cgraph_node *, gcov_type> *entered,
			sfdo_dead_map *dead,
			hash_map<cgraph_node *, gcov_type> *want,
			hash_map<cgraph_node *, gcov_type> *later)
{
  auto_vec<revival_candidate> candidates;
  bool some_sure = false;

  for (auto it = entered->begin (); it != entered->end (); ++it)
    {
      hash_set<cgraph_node *> visited;
      revival_candidate cand = { (*it).first, (*it).second, vNULL };
      visited.add (cand.callee);
      if (entries_unexplained (cand.callee, dead, &visited, &cand.callers)
	  && !cand.callers.is_empty ())
	{
	  some_sure |= cand.callers.length () == 1;
	  candidates.safe_push (cand);
	}
      else
	cand.callers.release ();
    }
  for (revival_candidate &cand : candidates)
    {
      if (some_sure && cand.callers.length () > 1)
	later->put (cand.callee, cand.entries);
      else
	{
	  cgraph_node *caller = likeliest_caller (&cand.callers, &cand.entries);
	  want->get_or_insert (caller) += cand.entries;
	}
      cand.callers.release ();
    }
}

/* Stage 3c: callers that ran because their callee did.  A short wrapper
   called a few hundred times may catch no sample, and hotcold.h marks it
   never run; GCC's ipa-profile then marks a local function unlikely when
   every caller is (ipa_propagate_frequency), so a callee with samples of
   its own (SQLite's sqlite3Prepare, behind sqlite3LockAndPrepare and
   sqlite3_prepare_v2) went to .text.unlikely with its callers.  Where
   only such callers can have entered a function whose own copy the
   profiled binary entered (OWN_HEADS, before inline instances were added
   to it: those came from calls that may be inlined now), one of them ran.
   The profile cannot tell which: the one likeliest to have run unsampled
   is annotated again with the entries it can hold (likeliest_caller), and
   the walk goes on up from it.  Reviving them all made SQLite's rare
   trigger and sorter paths run, which -fprofile-use finds never ran.  */

static void
revive_callers (vec<sfdo_annotated> *annotated,
		hash_map<cgraph_node *, gcov_type> *own_heads)
{
  sfdo_dead_map dead;
  hash_map<cgraph_node *, gcov_type> entered;

  if (!sfdo_family_on (SFDO_FAMILY_HOTCOLD)
      || !sfdo_rule_on (SFDO_RULE_REVIVE_CALLERS))
    return;
  for (const sfdo_annotated &a : *annotated)
    {
      gcov_type *head = own_heads->get (a.first);
      if (sfdo_profiled_but_never_ran (a.second))
	dead.put (a.first, a.second);
      else if (head && *head > 0)
	entered.put (a.first, *head);
    }
  while (entered.elements () && dead.elements ())
    {
      hash_map<cgraph_node *, gcov_type> want, later;
      choose_revived_callers (&entered, &dead, &want, &later);
      entered.empty ();
      for (auto it = later.begin (); it != later.end (); ++it)
	entered.put ((*it).first, (*it).second);
      for (auto it = want.begin (); it != want.end (); ++it)
	{
	  cgraph_node *caller = (*it).first;
	  if (dump_file)
	    fprintf (dump_file, "samplefdo: %s ran %" PRId64 " times: a "
		     "function only callers never run can call ran\n",
		     caller->dump_name (), (int64_t) (*it).second);
	  push_cfun (DECL_STRUCT_FUNCTION (caller->decl));
	  annotate_function (caller, *dead.get (caller), (*it).second, true,
			     NULL);
	  pop_cfun ();
	  dead.remove (caller);
	  sfdo_stats.unlikely_functions--;
	  sfdo_stats.revived_functions++;
	  entered.put (caller, (*it).second);
	}
    }
}

/* Stage 4 for the current function (profile F): what needs every
   function's counts and profile_info.  */

static void
finish_function (const struct sfdo_prof_func *f)
{
  update_max_bb_count ();
  compute_function_frequency ();
  cgraph_edge::rebuild_edges ();
  sfdo_stats.icall_histograms += sfdo_attach_icall_histograms (f);
  sfdo_stats.value_histograms += sfdo_attach_value_histograms (f);
  sfdo_apply_value_transforms ();
  sfdo_stats.inconsistent_blocks += sfdo_check_consistency ();
}

namespace {

const pass_data pass_data_sfdo =
{
  SIMPLE_IPA_PASS, /* type */
  "profile", /* name */
  OPTGROUP_IPA, /* optinfo_flags */
  TV_PLUGIN_RUN, /* tv_id */
  0, /* properties_required */
  0, /* properties_provided */
  0, /* properties_destroyed */
  0, /* todo_flags_start */
  0, /* todo_flags_finish */
};

class pass_sfdo : public simple_ipa_opt_pass
{
public:
  pass_sfdo (gcc::context *ctxt)
    : simple_ipa_opt_pass (pass_data_sfdo, ctxt)
  {}

  virtual bool gate (function *)
  {
    return sfdo_profile != NULL && !seen_error ();
  }
  virtual unsigned int execute (function *);
};

/* A C++ thunk has no body until it is expanded after inlining, and its
   expanded body takes its node's count: one the profile lists as never
   run (converter: only from branch stacks) gets a zero count, as
   -fprofile-use gives it.  */

static void
mark_thunks_never_ran (sfdo_extra_map *extra)
{
  cgraph_node *node;

  FOR_EACH_DEFINED_FUNCTION (node)
    {
      const struct sfdo_prof_func *f;
      if (!node->thunk || node->inlined_to)
	continue;
      f = sfdo_profile_of (node->decl, extra);
      if (f && sfdo_profiled_but_never_ran (f))
	{
	  node->count = profile_count::zero ();
	  sfdo_stats.unlikely_functions++;
	}
    }
}

/* Stage 5: GCC's handle_missing_profiles, which gives a function that
   never entered but that a caller with a count calls GCC's static
   estimate; then that function the cold blocks of one that ran rarely
   (hotcold.cc).  */

static void
revive_missing_profiles (void)
{
  auto_vec<cgraph_node *> never_entered;
  cgraph_node *node;

  FOR_EACH_DEFINED_FUNCTION (node)
    {
      function *fn = DECL_STRUCT_FUNCTION (node->decl);
      if (!node->inlined_to && fn && fn->cfg && sfdo_never_entered (fn))
	never_entered.safe_push (node);
    }
  handle_missing_profiles ();
  for (cgraph_node *n : never_entered)
    {
      push_cfun (DECL_STRUCT_FUNCTION (n->decl));
      sfdo_stats.zero_blocks += sfdo_cool_revived_function (n);
      pop_cfun ();
    }
}

/* The pass, stages 1 to 5 over the unit.  */

static void
annotate_unit (void)
{
  hash_set<const struct sfdo_prof_func *> seen;
  auto_vec<sfdo_annotated> annotated;
  auto_vec<struct sfdo_prof_func *> moved;
  sfdo_extra_map extra;
  hash_map<cgraph_node *, gcov_type> own_heads;
  cgraph_node *node;
  unsigned i;
  struct sfdo_prof_func *copy;

  if (sfdo_opts.dump_only)
    {
      dump_gcc_counts ();
      return;
    }
  sfdo_install_profile_info ();
  sfdo_stats.other_numbering = sfdo_positions_begin_unit ();
  static_estimates = new hash_map<tree, sfdo_static_estimate *>;
  realign_stale_profiles (&extra, &moved);
  realign_instances (&extra);
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f = sfdo_profile_of (node->decl, &extra);
      if (f && own_body_p (node))
	own_heads.put (node, (gcov_type) MIN (f->head, (uint64_t) INT64_MAX));
    }
  prepare_inlining (&extra);
  note_never_ran (&extra);
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      struct sfdo_prof_func *f;
      if (!own_body_p (node))
	continue;
      f = sfdo_profile_of (node->decl, &extra);
      note_match (node, f);
      if (!f || ran_uncounted (f))
	{
	  record_match (node, f, NULL, &seen);
	  continue;
	}
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      annotate_function (node, f, 0, false, &seen);
      pop_cfun ();
      annotated.safe_push (std::make_pair (node, f));
    }
  mark_thunks_never_ran (&extra);
  reconcile_entries (&annotated);
  revive_callers (&annotated, &own_heads);
  forget_static_estimates ();
  /* Value profiles name indirect-call targets by profile id: GCC's for
     every function, then the plugin's for file-local ones (icall.cc), and
     the map that GCC's value-profile code looks targets up in rebuilt
     with those.  */
  init_node_map (true);
  for (const sfdo_annotated &a : annotated)
    sfdo_set_local_profile_id (a.first, a.second);
  del_node_map ();
  init_node_map (false);
  for (const sfdo_annotated &a : annotated)
    {
      push_cfun (DECL_STRUCT_FUNCTION (a.first->decl));
      finish_function (a.second);
      pop_cfun ();
    }
  del_node_map ();
  revive_missing_profiles ();
  FOR_EACH_VEC_ELT (moved, i, copy)
    sfdo_prof_func_free (copy);
  sfdo_forget_weak_lines ();
  sfdo_forget_never_ran ();
}

/* The CPU time of the pass is kept for verbose: -ftime-report's "plugin
   execution" also counts GCC's dispatch of every plugin event (the same
   0.13 s on bench/plugin-compile-bench.sh's unit with the pass gated
   off).  */

unsigned int
pass_sfdo::execute (function *)
{
  long start = get_run_time ();

  sfdo_stats.ran = true;
  annotate_unit ();
  sfdo_stats.pass_usec += get_run_time () - start;
  return 0;
}

} // anon namespace

opt_pass *
sfdo_make_pass (gcc::context *ctxt)
{
  return new pass_sfdo (ctxt);
}
