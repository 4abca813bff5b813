/* plugin/inline.cc - inlining from the profile (inline.h).

   Replay.  The profiled binary's inlining is in the profile: a call site
   whose callee was inlined holds the callee's nested profile, counted
   separately from the callee's other copies.  When this compilation has
   not inlined that call (yet), the nested profile has nowhere to land:
   annotating first and letting the IPA inliner decide later would give
   the inlined copy the callee's average shape, not the one it had at that
   call site.  So, like GCC's -fauto-profile (auto-profile.cc, early
   inline before afdo_annotate_cfg), call sites the profiled binary
   inlined with a hot instance are inlined before annotation.  GCC's own
   checks (can_inline_edge_p) are static, so the conditions under which a
   call may be inlined at all are checked here, conservatively: the same
   optimisation options, no exception-personality or target mismatch, an
   inlinable body in SSA form, no recursion, no sanitizer.  Size is not a
   reason to refuse: the profiled build inlined that very call, but a
   callee larger than SFDO_REPLAY_MAX_SIZE is left to the IPA inliner, and
   so is one of which the profiled binary inlined only the head that
   function splitting left (split_head_p).

   Callee bodies.  Where the profiled binary inlined a call that is a
   call here, the instance's counts are added to the callee's own
   profile before anything is annotated, whether the call is replayed or
   not: -fprofile-use's counts of a function's body include every call
   made to it before IPA inlining, and the out-of-line copy (for other
   callers, other units, or its address) should look that way too.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "target.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cgraph.h"
#include "hash-set.h"
#include "hash-map.h"
#include "predict.h"
#include "tree-pass.h"
#include "tree-inline.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "tree-vrp.h"
#include "gcc-compat.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"
#include "ipa-inline.h"
#include "ssa.h"
#include "tree-into-ssa.h"
#include "attribs.h"
#include "dumpfile.h"
#include "opts.h"

#include "../profiles/profile.h"
#include "samplefdo.h"
#include "position.h"
#include "inline.h"

/* Callees bigger than this (in GCC's size units) are not replayed.  */
#define SFDO_REPLAY_MAX_SIZE 600

/* Rounds of replay per function: an instance inlined in one round shows
   its own inlined callees to the next.  */
#define SFDO_REPLAY_ROUNDS 4

/* How much the instance INST weighs for hotness: its entries, or its
   busiest line where entries were not counted.  */

static uint64_t
instance_weight (const struct sfdo_prof_func *inst)
{
  uint64_t most = inst->head;

  for (size_t i = 0; i < inst->nlines; i++)
    most = MAX (most, inst->lines[i].count);
  return most;
}

/* Whether the instance INST calls its own function: what GCC's function
   splitting leaves of an inlined call (the test before the split point,
   inlined; the rest, F.part.N, which the profile names F, called out of
   line).  Replaying it would inline the whole body where the profiled
   binary inlined a few instructions: in Lua, luaV_concat into the
   interpreter loop, which cost luaV_execute 5% more instructions.  */

static bool
split_head_p (const struct sfdo_prof_func *inst)
{
  for (size_t i = 0; i < inst->nlines; i++)
    for (size_t k = 0; k < inst->lines[i].ntargets; k++)
      if (inst->lines[i].targets[k].name == inst->name)
	return true;
  return false;
}

/* Whether the call edge E may be inlined at all, by the rules of
   can_inline_edge_p and can_early_inline_edge_p that matter here.  */

static bool
replay_allowed_p (cgraph_edge *e)
{
  enum availability avail;
  cgraph_node *caller = e->caller->inlined_to ? e->caller->inlined_to
					       : e->caller;
  cgraph_node *callee = e->callee->ultimate_alias_target (&avail, caller);
  ipa_fn_summary *summary = ipa_fn_summaries
			    ? ipa_fn_summaries->get (callee) : NULL;
  ipa_size_summary *size = ipa_size_summaries
			   ? ipa_size_summaries->get (callee) : NULL;

  if (!e->inline_failed || e->call_stmt_cannot_inline_p
      || cgraph_inline_failed_type (e->inline_failed) == CIF_FINAL_ERROR)
    return false;
  if (!callee->definition || avail <= AVAIL_INTERPOSABLE
      || callee->calls_comdat_local || callee == caller || e->recursive_p ()
      || !gimple_has_body_p (callee->decl)
      || !gimple_in_ssa_p (DECL_STRUCT_FUNCTION (callee->decl))
      || !gimple_in_ssa_p (DECL_STRUCT_FUNCTION (caller->decl)))
    return false;
  if (!summary || !summary->inlinable || !size
      || size->size > SFDO_REPLAY_MAX_SIZE)
    return false;
  if (DECL_FUNCTION_SPECIFIC_OPTIMIZATION (caller->decl)
      != DECL_FUNCTION_SPECIFIC_OPTIMIZATION (callee->decl)
      || !targetm.target_option.can_inline_p (caller->decl, callee->decl))
    return false;
  if (DECL_FUNCTION_PERSONALITY (callee->decl)
      && DECL_FUNCTION_PERSONALITY (caller->decl)
	 != DECL_FUNCTION_PERSONALITY (callee->decl))
    return false;
  if (flag_sanitize || lookup_attribute ("noinline",
					 DECL_ATTRIBUTES (callee->decl)))
    return false;
  return true;
}

/* One round of replay over NODE's calls; returns how many it inlined.  */

static unsigned
replay_round (cgraph_node *node, const struct sfdo_prof_func *f)
{
  gcov_type hot = get_hot_bb_threshold ();
  unsigned inlined = 0;
  cgraph_edge *e, *next;

  for (e = node->callees; e; e = next)
    {
      const struct sfdo_prof_func *inst;
      next = e->next_callee;
      if (!e->call_stmt || !e->inline_failed)
	continue;
      inst = sfdo_inlined_callee_profile
	       (f, e->call_stmt, sfdo_stmt_discriminator (e->call_stmt),
		e->callee->ultimate_alias_target ()->decl);
      if (!inst || (gcov_type) instance_weight (inst) < MAX (hot, 2)
	  || split_head_p (inst) || !replay_allowed_p (e))
	continue;
      if (dump_enabled_p ())
	dump_printf_loc (MSG_OPTIMIZED_LOCATIONS, e->call_stmt,
			 "samplefdo: inlining %C into %C as the profiled "
			 "binary did (instance weight %" PRIu64 ")\n",
			 e->callee, e->caller, instance_weight (inst));
      inline_call (e, true, NULL, NULL, false);
      inlined++;
    }
  return inlined;
}

unsigned
sfdo_replay_inlining (cgraph_node *node, const struct sfdo_prof_func *f)
{
  unsigned total = 0;

  if (!sfdo_family_on (SFDO_FAMILY_INLINE) || !optimize
      || flag_no_inline || !ipa_fn_summaries)
    return 0;
  for (int round = 0; round < SFDO_REPLAY_ROUNDS; round++)
    {
      unsigned n = replay_round (node, f);
      if (!n)
	break;
      total += n;
      if (optimize_inline_calls (current_function_decl) & TODO_update_ssa_any)
	update_ssa (TODO_update_ssa);
      compute_fn_summary (node, true);
    }
  return total;
}

/* Add INST, an inline instance of the profiled binary that this unit
   calls CALLEE out of line, into CALLEE's own profile, once.  */

static void
move_instance (const struct sfdo_prof_func *inst, tree callee,
	       sfdo_extra_map *extra,
	       hash_set<const struct sfdo_prof_func *> *used)
{
  if (used->add (inst))
    return;
  sfdo_prof_func_add (sfdo_profile, sfdo_profile_to_extend (callee, extra),
		      inst);
  sfdo_stats.moved_inlinees++;
}

/* The instances at the indirect CALL of F: the targets the profiled
   binary had promoted it to and inlined there (an sfdo build, recorded:
   their out-of-line copies ran little or never, and without their
   instances the next build would take them for never run and promote
   nothing; iterate-bench's virtual call flipped every round).  */

static void
move_promoted_instances (const struct sfdo_prof_func *f, gcall *call,
			 sfdo_extra_map *extra,
			 hash_set<const struct sfdo_prof_func *> *used)
{
  uint32_t offset;
  unsigned disc = sfdo_stmt_discriminator (call);
  const struct sfdo_prof_func *g = sfdo_innermost_profile (f, call, &offset);

  if (!sfdo_rule_on (SFDO_RULE_PROMOTED_TARGETS))
    return;
  for (size_t i = 0; g && i < g->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &g->callsites[i];
      if (c->offset != offset || (c->discriminator && c->discriminator != disc)
	  || !c->callee->total)
	continue;
      const char *name = sfdo_profile_str (sfdo_profile, c->callee->name);
      cgraph_node *cn = sfdo_function_named (name);
      if (cn && cn->has_gimple_body_p () && cn->decl != cfun->decl)
	move_instance (c->callee, cn->decl, extra, used);
    }
}

void
sfdo_move_uninlined_instances (const struct sfdo_prof_func *f,
			       sfdo_extra_map *extra,
			       hash_set<const struct sfdo_prof_func *> *used)
{
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gcall *call = dyn_cast <gcall *> (gsi_stmt (gsi));
	tree callee = call ? gimple_call_fndecl (call) : NULL;
	cgraph_node *cn = callee ? cgraph_node::get (callee) : NULL;
	const struct sfdo_prof_func *inst;

	if (call && !callee && !gimple_call_internal_p (call))
	  {
	    move_promoted_instances (f, call, extra, used);
	    continue;
	  }
	if (!cn || !cn->has_gimple_body_p () || cn->decl == cfun->decl)
	  continue;
	inst = sfdo_inlined_callee_profile (f, call,
					    sfdo_stmt_discriminator (call),
					    callee);
	if (inst)
	  move_instance (inst, callee, extra, used);
      }
}
