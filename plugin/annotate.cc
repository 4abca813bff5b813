/* plugin/annotate.cc - measured block counts of one function from its
   profile, made consistent by minimum-cost flow (annotate.h).

   A block's count is the max (or mean) of its statements' counts; a
   block with no statement the profile knows is unknown, not zero.  A
   call statement whose callee the profiled binary had inlined there
   counts as often as that inline instance was entered: its own line
   often caught no sample, the callee's body did.  The minimum-cost flow
   of smooth/mcf.h then makes counts consistent, using GCC's static branch
   probabilities (predict.cc: Wu and Larus) as the prior where
   measurements say nothing.  Where a branch's direction is unmeasured and
   both arms rejoin, the flow's all-or-nothing choice is replaced by a
   split along the static probabilities, inside the solution so that it
   stays consistent (a pass such as the tracer must not see a hot path
   that was never observed); loops whose trip count GCC knows get it.
   A function entered (by its callers' counts) but with no sample in its
   body takes the shape of GCC's static estimate: see unsampled_shape.
   Code the profiled binary shared among statements (cross-jumping) gives
   one line too little or too much: a zero among blocks that run as often
   is raised to theirs, a count above a dominator's is taken for too high
   (flow_measurements).  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cgraph.h"
#include "cfg.h"
#include "profile.h"
#include "hash-set.h"
#include "cfgloop.h"
#include "tree-ssa-loop.h"
#include "tree-ssa-loop-niter.h"
#include "tree-scalar-evolution.h"

#include "gcc-compat.h"
#include "../profiles/profile.h"
#include "../smooth/mcf.h"
#include "samplefdo.h"
#include "counts.h"
#include "position.h"
#include "annotate.h"
#include "stale.h"
#include "hotcold.h"

unsigned
sfdo_block_size (basic_block bb)
{
  unsigned n = 0;

  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
       !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    if (gimple_code (gsi_stmt (gsi)) != GIMPLE_LABEL)
      n++;
  return n ? n : 1;
}

/* Whether the profiled binary had inlined the callee of CALL (in a block
   of discriminator DISC) of F, and then in *ENTRIES how often it entered
   that instance: its head count, or where the converter could not tell
   entries, its busiest line.  An instance that never ran is still a
   measurement: the call did not happen.  */

static bool
inlinee_entries (const struct sfdo_prof_func *f, gimple *call, unsigned disc,
		 uint64_t *entries)
{
  tree callee = gimple_call_fndecl (call);
  const struct sfdo_prof_func *inst;

  *entries = 0;
  if (!callee)
    return false;
  inst = sfdo_inlined_callee_profile (f, call, disc, callee);
  if (!inst)
    return false;
  *entries = sfdo_prof_func_entries (inst);
  return true;
}

/* Samples a block must have caught through the function it calls, had
   it run as often as its count (or its predecessors') says, before the
   callee's having caught none makes it a block that never ran.  */
#define SFDO_DEAD_CALL_SAMPLES 3.0

/* The most samples per entry that a function BB calls and that the
   profile says never ran would have caught, at a call the profiled
   binary did not inline (an instance there measures the call itself,
   inlinee_entries); 0 if BB makes no such call.  */

static double
never_run_callee_samples (const struct sfdo_prof_func *f, basic_block bb)
{
  double most = 0;

  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
       !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    {
      tree callee = sfdo_direct_callee (gsi_stmt (gsi));
      uint64_t entries;
      double s = callee ? sfdo_never_ran_samples (callee) : 0;
      if (s > most
	  && !inlinee_entries (f, gsi_stmt (gsi),
				  sfdo_stmt_discriminator (gsi_stmt (gsi)),
				  &entries))
	most = s;
    }
  return most;
}

/* The measured count of BB from F, or -1 if none of its statements is
   known to the profile.  Statements vote by sfdo_opts.vote.  A call the
   profiled binary inlined counts its instance's entries: the larger of
   them and the line's count where the profile has the line at the
   block's discriminator, since the code left at the call's position
   there was this block's; the entries alone where the line's count is
   all the profile has (it kept no discriminators for the function), as
   that count may be another block's of the line.  SQLite's
   'if( !p ) sqlite3OomFault(db)' gave the call block the test's 633,
   though the inlined sqlite3OomFault caught nothing, and GCC revived
   the never-run sqlite3OomFault from that call.  A call made out of line
   counts as often as the profile says it was made, where the line's count
   says less.  */

static int64_t
block_count (const struct sfdo_prof_func *f, basic_block bb, bool *from_inlinee)
{
  uint64_t max = 0, sum = 0, n = 0, c;

  *from_inlinee = false;
  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
       !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    {
      gimple *stmt = gsi_stmt (gsi);
      bool exact;
      unsigned disc = sfdo_stmt_discriminator (stmt);
      bool known = sfdo_stmt_count (f, stmt, disc, &c, &exact);
      uint64_t entries;
      /* A position the profile does not know is not exact either: the
	 instance's entries stand alone there.  */
      if (is_gimple_call (stmt)
	  && inlinee_entries (f, stmt, disc, &entries)
	  && (!exact || entries > c))
	{
	  c = entries;
	  known = true;
	  *from_inlinee = true;
	}
      else if (tree callee = sfdo_direct_callee (stmt))
	{
	  /* The call itself was counted: it ran as often as its block.  A
	     line's count takes only blocks where one of its statements
	     begins, and a call GCC moved (GCC 16 unswitched a loop around
	     icf.c's two calls) can be all the line has there.  */
	  uint64_t calls;
	  if (sfdo_call_count (f, stmt, disc, callee, &calls)
	      && (!known || calls > c))
	    {
	      c = calls;
	      known = true;
	    }
	}
      if (!known)
	continue;
      max = MAX (max, c);
      sum = sfdo_sat_add (sum, c);
      n++;
    }
  if (!n)
    return -1;
  c = sfdo_opts.vote == SFDO_VOTE_MEAN ? sum / n : max;
  return c > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) c;
}

/* The largest renumbered count (sfdo_stmt_renumbered_count) of BB's
   statements in F, or 0.  */

static uint64_t
renumbered_block_count (const struct sfdo_prof_func *f, basic_block bb)
{
  uint64_t most = 0, c;

  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
       !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    if (sfdo_stmt_renumbered_count (f, gsi_stmt (gsi), &c))
      most = MAX (most, c);
  return most;
}

/* Give the blocks of every loop of the current function whose blocks
   all read zero or nothing in C, while lines of the loop have counts at
   discriminators none of its statements has, those lines' largest
   counts.  A build made from a profile (sfdo's, PGO's) unrolls and
   peels, and GCC 12 numbers the copies' blocks anew: recorded, peel.c's
   loop nest held its counts at discriminator 0 and zeros at 1 to 3, the
   numbers of the -O2 body's blocks, and the next build put the nest in
   the cold section whole (iterate-bench).  A loop with a block measured
   running keeps its zeros: the other number is another statement's
   (peel-1.c of GCC's tree-prof tests: the loop's test held 871 at
   discriminator 0, its latch, which never ran, 0 at 2).  Needs the
   table of sfdo_line_blocks_begin.  */

static void
read_renumbered_loops (const struct sfdo_prof_func *f,
		       struct sfdo_fn_counts *c)
{
  auto_vec<class loop *, 8> silent;

  if (!current_loops || number_of_loops (cfun) <= 1)
    return;
  /* Judged on the measurements as read, whichever loop comes first.  */
  for (auto loop : loops_list (cfun, 0))
    {
      basic_block *body = get_loop_body (loop);
      bool ran = false;
      for (unsigned i = 0; i < loop->num_nodes && !ran; i++)
	ran = c->raw[body[i]->index] > 0;
      free (body);
      if (!ran)
	silent.safe_push (loop);
    }
  for (class loop *loop : silent)
    {
      basic_block *body = get_loop_body (loop);
      for (unsigned i = 0; i < loop->num_nodes; i++)
	{
	  uint64_t n = renumbered_block_count (f, body[i]);
	  if (n)
	    c->raw[body[i]->index] = (int64_t) MIN (n, (uint64_t) INT64_MAX);
	}
      free (body);
    }
}

/* Share of F's own body count at line offsets some statement of the
   current function has: how well the profile fits the body.  */

static double
profile_fit (const struct sfdo_prof_func *f)
{
  hash_set<int_hash<int, -1, -2> > offsets;
  basic_block bb;
  uint64_t total = 0, fitting = 0;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	location_t locus = gimple_location (gsi_stmt (gsi));
	int64_t off;
	if (LOCATION_LOCUS (locus) != UNKNOWN_LOCATION
	    && (off = sfdo_line_offset (current_function_decl, locus)) >= 0
	    && off < INT_MAX - 2)
	  offsets.add ((int) off);
      }
  for (size_t i = 0; i < f->nlines; i++)
    {
      total = sfdo_sat_add (total, f->lines[i].count);
      if (f->lines[i].offset < (uint32_t) INT_MAX - 2
	  && offsets.contains ((int) f->lines[i].offset))
	fitting = sfdo_sat_add (fitting, f->lines[i].count);
    }
  return total ? (double) fitting / (double) total : 1.0;
}

/* Forget measured counts that cannot tell a branch's arms apart: a
   successor of a conditional block with exactly the block's count, next
   to a successor the profile does not know.  That is what an arm looks
   like when the profiled binary turned the branch into a conditional
   move: the one remaining block holds the condition and both arms, and
   its count would make the branch look always taken.  */

static void
forget_merged_arms (int64_t *raw)
{
  basic_block bb;
  edge e;
  edge_iterator ei;

  FOR_EACH_BB_FN (bb, cfun)
    {
      bool unknown_arm = false;
      if (EDGE_COUNT (bb->succs) < 2 || raw[bb->index] <= 0)
	continue;
      FOR_EACH_EDGE (e, ei, bb->succs)
	unknown_arm |= raw[e->dest->index] < 0;
      if (unknown_arm)
	FOR_EACH_EDGE (e, ei, bb->succs)
	  if (raw[e->dest->index] == raw[bb->index]
	      && single_pred_p (e->dest))
	    raw[e->dest->index] = -1;
    }
}

/* Whether the measurements of C say nothing about which way BB branches
   to JOIN, where its arms rejoin: no successor but JOIN itself (the short
   side of a triangle, whose count is both arms') has a count of its
   own.  */

static bool
direction_unmeasured (const struct sfdo_fn_counts *c, basic_block bb,
		      basic_block join)
{
  edge e;
  edge_iterator ei;

  if (EDGE_COUNT (bb->succs) < 2)
    return false;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (e->dest != join && c->raw[e->dest->index] >= 0)
      return false;
  return true;
}

/* The static probability of E, in [0, 1], or -1 if GCC has none.  */

static double
prior (edge e)
{
  return e->probability.initialized_p ()
	 ? e->probability.to_reg_br_prob_base () / (double) REG_BR_PROB_BASE
	 : -1.0;
}

/* The mean size of the current function's blocks, in statements.  */

static unsigned
typical_block_size (void)
{
  basic_block bb;
  unsigned n = 0, total = 0;

  FOR_EACH_BB_FN (bb, cfun)
    {
      total += sfdo_block_size (bb);
      n++;
    }
  return n ? MAX (total / n, 1u) : 1;
}

/* Build the flow network of the current function with the MEASURED
   counts of its blocks (C's raw counts or a stand-in for them), those in
   OVER (if given) taken for too high, edges in FOR_ALL_BB_FN /
   FOR_EACH_EDGE order.  */

static struct sfdo_flow *
build_network (const struct sfdo_fn_counts *c, const int64_t *measured,
	       const_sbitmap over)
{
  struct sfdo_flow *g = sfdo_flow_new (c->nblocks, ENTRY_BLOCK, EXIT_BLOCK);
  basic_block bb;
  edge e;
  edge_iterator ei;

  FOR_ALL_BB_FN (bb, cfun)
    {
      sfdo_flow_set_count (g, bb->index, measured[bb->index]);
      if (over && bitmap_bit_p (over, bb->index))
	sfdo_flow_set_bias (g, bb->index, SFDO_FLOW_OVER);
      else if (measured[bb->index] >= 0 && sfdo_block_weak (bb))
	{
	  sfdo_flow_set_bias (g, bb->index, SFDO_FLOW_WEAK);
	  sfdo_stats.weak_blocks++;
	}
      FOR_EACH_EDGE (e, ei, bb->succs)
	sfdo_flow_add_edge (g, bb->index, e->dest->index, prior (e));
    }
  return g;
}

/* The index of each edge of the current function in C's order, by
   (source index, position among its successors).  */

static unsigned
edge_index (basic_block bb, unsigned nth, const unsigned *first)
{
  return first[bb->index] + nth;
}

/* The index of edge E in C's order.  */

static unsigned
index_of_edge (const struct sfdo_fn_counts *c, edge e)
{
  edge f;
  edge_iterator ei;

  FOR_EACH_EDGE (f, ei, e->src->succs)
    if (f == e)
      break;
  return edge_index (e->src, ei.index, c->first_edge);
}

/* The constant number of latch executions per entry of LOOP, into *N,
   when GCC can tell it (one exit, constant bounds); false otherwise.  */

static bool
constant_latch_count (class loop *loop, uint64_t *n)
{
  auto_vec<edge> exits = get_loop_exit_edges (loop);
  class tree_niter_desc desc;

  if (exits.length () != 1
      || !number_of_iterations_exit (loop, exits[0], &desc, false)
      || TREE_CODE (desc.niter) != INTEGER_CST
      || !integer_zerop (desc.may_be_zero)
      || !tree_fits_uhwi_p (desc.niter))
    return false;
  *n = tree_to_uhwi (desc.niter);
  return true;
}

/* Add X to the flow of a cycle of LOOP: from the header along the most
   probable successors inside the loop to the latch, and back.  Adding
   flow round a cycle keeps every block's in-flow equal to its out-flow.
   Returns false, changing nothing, if no such walk reaches the latch.  */

static bool
add_cycle_flow (struct sfdo_fn_counts *c, class loop *loop, uint64_t x)
{
  auto_vec<edge, 16> path;
  auto_bitmap seen;
  basic_block bb = loop->header;

  while (bb != loop->latch)
    {
      edge e, best = NULL;
      edge_iterator ei;
      bitmap_set_bit (seen, bb->index);
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (flow_bb_inside_loop_p (loop, e->dest)
	    && (e->dest == loop->latch || !bitmap_bit_p (seen, e->dest->index))
	    && e->dest != loop->header
	    && (!best || prior (e) > prior (best)))
	  best = e;
      if (!best)
	return false;
      path.safe_push (best);
      bb = best->dest;
    }
  path.safe_push (find_edge (loop->latch, loop->header));
  if (!path.last ())
    return false;
  for (edge e : path)
    {
      c->edge[index_of_edge (c, e)] += x;
      c->block[e->src->index] += x;
    }
  return true;
}

/* qsort order of loops: outer before inner.  */

static int
shallower_first (const void *a, const void *b)
{
  return loop_depth (*(class loop *const *) a)
	 - loop_depth (*(class loop *const *) b);
}

/* Samples an unmeasured loop may be assumed to have missed.  */
#define SFDO_UNSEEN_SAMPLES 2.0

/* Samples a loop's entries must stand for before a measured loop is
   raised to its trip count times them.  */
#define SFDO_SURE_ENTRY_SAMPLES 8.0

/* Whether some block of LOOP has a measured count above zero.  */

static bool
loop_measured_p (const struct sfdo_fn_counts *c, class loop *loop)
{
  basic_block *body = get_loop_body (loop);
  bool measured = false;

  for (unsigned i = 0; i < loop->num_nodes && !measured; i++)
    measured = c->raw[body[i]->index] > 0;
  free (body);
  return measured;
}

/* Loops whose trip count GCC knows (one exit, constant bounds, as in
   for (i = 0; i < 4096; i++)) run that often per entry, whatever the
   profile says: a loop too cheap to be sampled is not a loop that never
   iterates, and the passes that later fold its first exit test would find
   counts that do not add up.  Where the flow sent fewer iterations round
   such a loop, the difference goes round its most probable cycle.  For a
   loop that caught no sample, only up to what it could have run and still
   caught none (SFDO_UNSEEN_SAMPLES): a rarely entered function's entry
   count is overstated by up to a sample's weight, and multiplying it by
   the trip count would make a cold loop look hot.  A loop with samples
   that make it iterate less than half its trip count gets all of it: its
   samples came from code that ran once per entry where the profiled
   binary had unrolled the loop away or replaced it (GCC 15 and newer turn
   demo.c's bitwise CRC loop into a table lookup, whose lines then count
   one iteration per byte), where its entries are known from enough
   samples.  Otherwise the samples stand: raising a measured loop to the
   multiple of an entry count of a sample or two (main's loop of a
   million calls in GCC's tree-prof merge_block.c) put Invalid sums in
   the passes after it.  Outer loops first, so that an inner loop sees
   its entries raised.  */

static void
fill_counted_loops (struct sfdo_fn_counts *c)
{
  bool own_scev;
  auto_vec<class loop *, 8> loops;

  if (!current_loops || number_of_loops (cfun) <= 1)
    return;
  calculate_dominance_info (CDI_DOMINATORS);
  own_scev = !scev_initialized_p ();
  if (own_scev)
    scev_initialize ();
  for (auto loop : loops_list (cfun, 0))
    loops.safe_push (loop);
  loops.qsort (shallower_first);
  for (class loop *loop : loops)
    {
      uint64_t n, entered = 0, looped = 0;
      edge e;
      edge_iterator ei;
      if (!loop->latch || !constant_latch_count (loop, &n) || !n)
	continue;
      FOR_EACH_EDGE (e, ei, loop->header->preds)
	if (flow_bb_inside_loop_p (loop, e->src))
	  looped += c->edge[index_of_edge (c, e)];
	else
	  entered += c->edge[index_of_edge (c, e)];
      uint64_t want = sfdo_sat_mul (entered, n);
      double unseen = SFDO_UNSEEN_SAMPLES / MAX (sfdo_expected_samples
						   (1, sfdo_block_size
							 (loop->header)),
						 1e-12);
      if (!loop_measured_p (c, loop))
	want = MIN (want, (uint64_t) MIN (unseen, 1e18));
      else if (looped >= want / 2
	       || (sfdo_expected_samples (entered,
					  sfdo_block_size (loop->header))
		   < SFDO_SURE_ENTRY_SAMPLES))
	continue;
      if (entered && looped < want)
	add_cycle_flow (c, loop, want - looped);
    }
  if (own_scev)
    scev_finalize ();
}

/* The block where every arm of BB's branch rejoins, when each arm is a
   chain of blocks entered only from the one before (or the join itself)
   with no measurement of its own; NULL otherwise.  */

static basic_block
arms_rejoin (const struct sfdo_fn_counts *c, basic_block bb)
{
  basic_block join = NULL;
  edge e;
  edge_iterator ei;

  FOR_EACH_EDGE (e, ei, bb->succs)
    {
      basic_block arm = e->dest;
      unsigned steps = 0;
      while (arm != EXIT_BLOCK_PTR_FOR_FN (cfun) && arm != bb
	     && single_pred_p (arm) && single_succ_p (arm)
	     && c->raw[arm->index] < 0 && steps++ < 64)
	arm = single_succ (arm);
      if (arm == bb || arm == EXIT_BLOCK_PTR_FOR_FN (cfun)
	  || single_pred_p (arm))
	return NULL;
      if (join && arm != join)
	return NULL;
      join = arm;
    }
  return join != bb ? join : NULL;
}

/* Whether the arms of BB's branch that do not go straight to JOIN hold no
   statement with a source location: the PHI arms an if-conversion leaves
   (cmpsf-1.c's inlined comparisons), as opposed to code the profile does
   not know yet (a branch a stale profile's source did not have, whose
   call would take a share of the static estimate).  */

static bool
arms_without_code (basic_block bb, basic_block join)
{
  edge e;
  edge_iterator ei;

  FOR_EACH_EDGE (e, ei, bb->succs)
    for (basic_block arm = e->dest; arm != join; arm = single_succ (arm))
      {
	for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (arm);
	     !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
	  if (LOCATION_LOCUS (gimple_location (gsi_stmt (gsi)))
	      != UNKNOWN_LOCATION)
	    return false;
	if (!single_succ_p (arm))
	  return false;
      }
  return true;
}

/* Where the measurements say nothing about the direction of BB's branch
   and its arms rejoin, split BB's flow among the arms by the static
   probabilities: the join's count and everything outside the arms stay
   as the flow left them, so counts remain consistent.  FIRST gives each
   block's first edge index.  */

static void
split_unmeasured_branch (struct sfdo_fn_counts *c, basic_block bb,
			 const unsigned *first)
{
  uint64_t total = c->block[bb->index], given = 0;
  double psum = 0;
  edge e;
  edge_iterator ei;
  basic_block join;

  if (!total || !(join = arms_rejoin (c, bb))
      || !direction_unmeasured (c, bb, join)
      || (find_edge (bb, join) && !arms_without_code (bb, join)))
    return;
  c->hottest_if_converted = MAX (c->hottest_if_converted, total);
  FOR_EACH_EDGE (e, ei, bb->succs)
    psum += MAX (prior (e), 0.0);
  if (psum <= 0)
    return;
  FOR_EACH_EDGE (e, ei, bb->succs)
    {
      uint64_t share = ei.index + 1 == EDGE_COUNT (bb->succs)
		       ? total - given
		       : MIN (total - given,
			      (uint64_t) ((double) total * MAX (prior (e), 0.0)
					  / psum));
      basic_block arm = e->dest;
      unsigned k = edge_index (bb, ei.index, first);
      given += share;
      c->edge[k] = share;
      /* Down the arm's chain, to the edge into the join.  */
      while (single_pred_p (arm) && single_succ_p (arm)
	     && c->raw[arm->index] < 0 && arm != bb)
	{
	  c->block[arm->index] = share;
	  c->edge[edge_index (arm, 0, first)] = share;
	  arm = single_succ (arm);
	}
    }
}

/* The largest count in RAW among the blocks above BB in the DIR tree
   (dominators, or post-dominators) that BB's other relation, ACROSS,
   puts below it, in BB's loop: blocks that run exactly as often as BB.  */

static int64_t
class_count_along (const int64_t *raw, basic_block bb, enum cdi_direction dir,
		   enum cdi_direction across)
{
  int64_t most = -1;

  for (basic_block a = get_immediate_dominator (dir, bb);
       a && a != ENTRY_BLOCK_PTR_FOR_FN (cfun)
       && a != EXIT_BLOCK_PTR_FOR_FN (cfun);
       a = get_immediate_dominator (dir, a))
    if (a->loop_father == bb->loop_father && dominated_by_p (across, a, bb))
      most = MAX (most, raw[a->index]);
  return most;
}

/* The largest count measured among the blocks that run exactly as often
   as BB in RAW: those it dominates and that post-dominate it, and those
   that dominate it and it post-dominates, in the same loop (GCC's
   auto-profile.cc calls them an equivalence class).  */

static int64_t
class_count (const int64_t *raw, basic_block bb)
{
  return MAX (class_count_along (raw, bb, CDI_DOMINATORS,
				 CDI_POST_DOMINATORS),
	      class_count_along (raw, bb, CDI_POST_DOMINATORS,
				 CDI_DOMINATORS));
}

/* A measured count more than this many times that of a dominator it
   cannot run more often than is taken for an attribution error
   (above_dominator), where the dominator's count stands for this many
   samples or more: twice, not once, for the noise of sampling and the
   skid of instruction samples between neighbouring blocks.  */
#define SFDO_DOMINATED_EXCESS 2
#define SFDO_DOMINATOR_MIN_SAMPLES 8

/* Whether BB can run again without A running in between: a path from
   BB back to BB that avoids A.  */

static bool
returns_avoiding (basic_block bb, basic_block a)
{
  auto_vec<basic_block, 32> stack;
  auto_sbitmap seen (last_basic_block_for_fn (cfun));
  edge e;
  edge_iterator ei;

  bitmap_clear (seen);
  bitmap_set_bit (seen, a->index);
  stack.safe_push (bb);
  while (!stack.is_empty ())
    {
      basic_block x = stack.pop ();
      FOR_EACH_EDGE (e, ei, x->succs)
	{
	  if (e->dest == bb)
	    return true;
	  if (e->dest != EXIT_BLOCK_PTR_FOR_FN (cfun)
	      && bitmap_set_bit (seen, e->dest->index))
	    stack.safe_push (e->dest);
	}
    }
  return false;
}

/* Whether a statement of A has its line counted more than LEAST times in
   F under another discriminator: A's own count may then be a copy's
   that the profiled binary numbered otherwise, not the dominator's.  An
   FDO build (iterate-bench's demo, insertion_sort) unrolled a loop whose
   second test kept its number only in a copy that ran 140 thousand times
   for the body's 85 million; the body was taken for too high and the
   next build made the loop cold.  */

static bool
count_elsewhere (const struct sfdo_prof_func *f, basic_block a, int64_t least)
{
  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (a);
       f && !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    if ((int64_t) MIN (sfdo_stmt_line_count_elsewhere
			 (f, gsi_stmt (gsi),
			  sfdo_stmt_discriminator (gsi_stmt (gsi))),
		       (uint64_t) INT64_MAX) > least)
      return true;
  return false;
}

/* Whether BB's measured count in RAW is more than SFDO_DOMINATED_EXCESS
   times that of a block A that dominates it and that runs between any
   two of its executions (BB cannot come round again without A), A's
   count standing for SFDO_DOMINATOR_MIN_SAMPLES samples or more.  BB
   cannot run more often than such an A: a count that says it does comes
   from code the profiled binary shared among several statements under
   the line of one (cross-jumping).  In Lua's interpreter, the dispatch
   that ends OP_TFORLOOP kept its line for the dispatch of a dozen
   handlers: 5.1 million against the handler's 90 thousand (PGO: 100
   thousand); the flow raised the whole handler to match, the tracer
   then duplicated it into the hot path, and RTL PRE put an address
   computation only that handler uses into every copy of the dispatch:
   3.4% more instructions on Lua's small inputs.  The loop tree is not
   asked: at this point it may not know a loop (SQLite's opcode loop).
   Only for counts of executions (flow_measurements): from a timer the
   rule made Lua's build take 10% more taken jumps.  */

static bool
above_dominator (const struct sfdo_prof_func *f, const int64_t *raw,
		 basic_block bb)
{
  for (basic_block a = get_immediate_dominator (CDI_DOMINATORS, bb);
       a && a != ENTRY_BLOCK_PTR_FOR_FN (cfun);
       a = get_immediate_dominator (CDI_DOMINATORS, a))
    if (raw[a->index] > 0
	&& raw[bb->index] / SFDO_DOMINATED_EXCESS > raw[a->index]
	&& sfdo_expected_samples (raw[a->index], sfdo_block_size (a))
	   >= SFDO_DOMINATOR_MIN_SAMPLES
	&& !returns_avoiding (bb, a)
	&& !count_elsewhere (f, a, raw[bb->index] / SFDO_DOMINATED_EXCESS))
      return true;
  return false;
}

/* The largest count in RAW of each loop's own blocks (those whose
   innermost loop it is), by loop number: its header runs at least that
   often, once per iteration.  A new array the caller frees.  */

static int64_t *
loop_own_max (const int64_t *raw)
{
  int64_t *most = XNEWVEC (int64_t, number_of_loops (cfun));
  basic_block bb;

  for (unsigned i = 0; i < number_of_loops (cfun); i++)
    most[i] = -1;
  FOR_EACH_BB_FN (bb, cfun)
    if (bb->loop_father)
      most[bb->loop_father->num] = MAX (most[bb->loop_father->num],
					raw[bb->index]);
  return most;
}

/* How often a loop whose header RAW measured running was entered: the
   largest measured count of the header's predecessors outside it (the
   function's entries for an outermost loop none of whose are measured),
   -1 if unknown.  */

static int64_t
loop_entries (const int64_t *raw, class loop *loop)
{
  int64_t entries = -1;
  edge e;
  edge_iterator ei;

  FOR_EACH_EDGE (e, ei, loop->header->preds)
    if (!flow_bb_inside_loop_p (loop, e->src))
      entries = MAX (entries, raw[e->src->index]);
  if (entries < 0 && loop_outer (loop) == current_loops->tree_root)
    entries = raw[ENTRY_BLOCK];
  return entries;
}

/* The count a zero measured at BB must at least be where BB is its
   loop's one latch and the header, measured SFDO_LATCH_HEADER_RATIO times
   the loop's entries or more, surely came back to it that often: the
   header's count less the entries.  A build made from a profile numbers
   code otherwise: GCC 16's sfdo build of e2e 110's peel.c (inner loop
   peeled) kept the outer loop's increment, under its own number, only in
   a copy that never ran, and the next build, given that zero, made the
   outer loop run once per call and the inner loop every iteration of
   both (31% more instructions).  A loop entered about as often as its
   header ran may truly never come back: its zero stands.  */

#define SFDO_LATCH_HEADER_RATIO 4

static int64_t
latch_floor (const int64_t *raw, basic_block bb)
{
  class loop *loop = bb->loop_father;
  int64_t header, entries;

  if (!loop || !loop->num || loop->latch != bb)
    return 0;
  header = raw[loop->header->index];
  entries = loop_entries (raw, loop);
  if (header <= 0 || entries < 0
      || header / SFDO_LATCH_HEADER_RATIO < entries)
    return 0;
  return header - entries;
}

/* The count a zero measured at BB must at least be, from RAW and
   LOOP_MAX (loop_own_max): that of a block that runs exactly as often
   (class_count), and for a loop's header its loop's busiest own block.
   A loop header measured zero in a loop whose body ran is code of
   another number in the profiled binary: GCC copies a loop's exit test
   before the loop and into the body's block, and GCC 12 numbers the copy
   in the body with the body's discriminator, so the header's number is
   left with the copy that ran once (the e2e 51 loop, whose call's
   histogram a branch-stack recording then lost with the loop); the flow
   would rather lower the body than raise a block with no sample once the
   body holds a few thousand samples.  */

static int64_t
zero_floor (const int64_t *raw, const int64_t *loop_max, basic_block bb)
{
  int64_t floor = MAX ((int64_t) 0, class_count (raw, bb));

  if (!sfdo_rule_on (SFDO_RULE_ZERO_FLOOR))
    return floor;
  if (loop_max && bb->loop_father && bb->loop_father->header == bb
      && bb->loop_father->num)
    floor = MAX (floor, loop_max[bb->loop_father->num]);
  return MAX (floor, latch_floor (raw, bb));
}

/* What the flow solver takes for the measurements of the current
   function's blocks: RAW, but a zero where a block that runs exactly as
   often (class_count), or for a loop's header a block of its loop, was
   measured running (zero_floor); into OVER the blocks whose
   count is above a dominator's (above_dominator), for the flow to take
   as too high (it may fall, it should not rise).  Such a zero comes from
   code the profiled binary merged into other lines' (cross-jumping): the
   dispatch that ends Lua's OP_GETFIELD handler kept, under its line,
   only a cold statement elsewhere, and between two blocks measured 3.4
   million times, the flow lowered those to zero rather than raise it
   (the fast path then went out of line: 3 million taken jumps more on
   Lua's small inputs).  A zero is what sampling gets wrong this way far
   more often than a count; GCC's -fauto-profile gives every block of a
   class its largest count.  The same merging gives the line it kept the
   other statements' counts as well: that count is too high.  Returns a
   new array.  */

static int64_t *
flow_measurements (const struct sfdo_prof_func *f,
		   const struct sfdo_fn_counts *c, sbitmap over)
{
  int64_t *m = XDUPVEC (int64_t, c->raw, c->nblocks);
  bool dom = dom_info_available_p (CDI_DOMINATORS);
  bool postdom = dom_info_available_p (CDI_POST_DOMINATORS);
  int64_t least = -1, most = -1, *loop_max = NULL;
  bool any_zero = false, excess;
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    {
      int64_t r = c->raw[bb->index];
      any_zero |= r == 0;
      if (r > 0 && (least < 0 || r < least))
	least = r;
      most = MAX (most, r);
    }
  /* Most bodies have no measured zero, and many no count far above
     another: no dominators to compute.  A timer's counts are weighted by
     time: a block of slow instructions may outweigh its dominator.  */
  any_zero &= current_loops != NULL;
  excess = (sfdo_counts_are_executions () && least > 0
	    && most / SFDO_DOMINATED_EXCESS > least);
  if (!any_zero && !excess)
    return m;
  calculate_dominance_info (CDI_DOMINATORS);
  if (any_zero)
    {
      calculate_dominance_info (CDI_POST_DOMINATORS);
      loop_max = loop_own_max (c->raw);
    }
  FOR_EACH_BB_FN (bb, cfun)
    if (c->raw[bb->index] == 0 && any_zero)
      m[bb->index] = zero_floor (c->raw, loop_max, bb);
    else if (excess && c->raw[bb->index] > 0
	     && sfdo_rule_on (SFDO_RULE_ABOVE_DOMINATOR)
	     && above_dominator (f, c->raw, bb))
      {
	bitmap_set_bit (over, bb->index);
	sfdo_stats.counts_above_dominator++;
      }
  XDELETEVEC (loop_max);
  if (!dom)
    free_dominance_info (CDI_DOMINATORS);
  if (!postdom)
    free_dominance_info (CDI_POST_DOMINATORS);
  return m;
}

/* Hold block B at zero in MEASURED, and into OVER, for the flow to keep
   it there: raising it costs the most (mcf.h, SFDO_FLOW_OVER).  */

static void
hold_at_zero (int64_t *measured, sbitmap over, int b)
{
  measured[b] = 0;
  bitmap_set_bit (over, b);
}

/* Into OVER, the blocks of the current function that an earlier
   annotation found never ran (a zero count of GCC's exact quality, which
   hotcold.h gives only those), measured at zero in MEASURED (where they
   had no measurement, the flow would take them for free), for the flow
   to keep them there.  A function is annotated again when the
   calls into it say it was entered more often than its own head count
   says; the extra entries are the callers' sampling noise, not evidence
   that a path the body's samples ruled out ran, yet the flow, which
   prices a zero at a few samples' worth, sent them down the cheapest
   path: SQLite's decodeFlags, entered 645 times more by its callers,
   routed them all through its corruption error path.  */

static void
keep_believed_zeros (int64_t *measured, sbitmap over)
{
  basic_block bb;

  if (!sfdo_rule_on (SFDO_RULE_BELIEVED_ZEROS))
    return;
  FOR_EACH_BB_FN (bb, cfun)
    if (measured[bb->index] <= 0 && bb->count == profile_count::zero ())
      hold_at_zero (measured, over, bb->index);
}

/* Mark in MARKED BB and its ancestors in the DIR tree, stopping at one
   already marked (whose ancestors are, then).  */

static void
mark_ancestors (sbitmap marked, basic_block bb, enum cdi_direction dir)
{
  for (basic_block a = bb;
       a && a->index >= NUM_FIXED_BLOCKS && !bitmap_bit_p (marked, a->index);
       a = get_immediate_dominator (dir, a))
    bitmap_set_bit (marked, a->index);
}

/* The blocks of the current function that ran whenever one with a sample
   of its own in RAW did: the blocks that dominate or post-dominate such a
   block (not the block itself, whose count may be another's line's).  A
   new bitmap.  */

static sbitmap
blocks_that_ran (const int64_t *raw)
{
  bool dom = dom_info_available_p (CDI_DOMINATORS);
  bool postdom = dom_info_available_p (CDI_POST_DOMINATORS);
  sbitmap ran = sbitmap_alloc (last_basic_block_for_fn (cfun));
  auto_sbitmap after (last_basic_block_for_fn (cfun));
  basic_block bb;

  bitmap_clear (ran);
  bitmap_clear (after);
  calculate_dominance_info (CDI_DOMINATORS);
  calculate_dominance_info (CDI_POST_DOMINATORS);
  FOR_EACH_BB_FN (bb, cfun)
    if (raw[bb->index] > 0)
      {
	mark_ancestors (ran, get_immediate_dominator (CDI_DOMINATORS, bb),
			CDI_DOMINATORS);
	mark_ancestors (after,
			get_immediate_dominator (CDI_POST_DOMINATORS, bb),
			CDI_POST_DOMINATORS);
      }
  bitmap_ior (ran, ran, after);
  if (!dom)
    free_dominance_info (CDI_DOMINATORS);
  if (!postdom)
    free_dominance_info (CDI_POST_DOMINATORS);
  return ran;
}

/* Hold at zero in MEASURED (and OVER) the blocks of the current function
   that never ran because a function they call never did, their RAW count
   in C zeroed too (hotcold.h then judges them as blocks without a
   sample).  A block ran no more often than its calls, and a function the
   profile says never ran caught no sample: where running as often as
   the block's count says (or, for a block measured at zero or not at
   all, its predecessors') would have given the callee
   SFDO_DEAD_CALL_SAMPLES, the callee's silence outweighs the block's
   count.  That count is wrong where other code shares the block's line:
   SQLite's checkProfileCallback macro puts its test and its call to
   invokeProfileCallback on one line and discriminator, the call took the
   test's 112 thousand, and GCC revived the callee as hot from that call
   (handle_missing_profiles) where -fprofile-use finds it never ran.  And
   the flow, which prices a zero at a few samples' worth, sent a hot
   loop's sampling noise out through its error exits, whose calls to
   sqlite3_log then made that function hot too.  A block entered a few
   times (a setup call in main) is not evidence enough either way, and
   keeps its count: holding main's first block at zero took main's entry
   count to 0.  Nor is a block that ran whenever a block with a sample of
   its own did (one that dominates or post-dominates it): the callee ran
   too, cheaper than GCC's estimate of it.  SQLite's sqlite3VdbeExec
   calls sqlite3VdbeEnter, a test and a return, in its prologue; in a
   timer recording of 1045 samples the callee caught none and the
   interpreter a quarter, yet the prologue was held at zero, the flow
   took the entry count to 0 with it, and GCC compiled the interpreter
   "unlikely executed" (taken jumps 1.23 times -O2's).  Each block is
   judged on a copy of COUNTS (C's raw counts, or the shape of a body
   without samples) as they were before any block was held, and held in
   MEASURED.  */

static void
find_dead_calls (const struct sfdo_prof_func *f, struct sfdo_fn_counts *c,
		 const int64_t *counts, int64_t *measured, sbitmap over)
{
  basic_block bb;
  edge e;
  edge_iterator ei;
  int64_t *before;
  sbitmap ran = NULL;

  if (!sfdo_noted_any_never_ran () || !sfdo_rule_on (SFDO_RULE_DEAD_CALLS))
    return;
  before = XDUPVEC (int64_t, counts, c->nblocks);
  FOR_EACH_BB_FN (bb, cfun)
    {
      double per_entry = never_run_callee_samples (f, bb);
      double context = (double) MAX (before[bb->index], (int64_t) 0);
      if (per_entry <= 0)
	continue;
      if (!ran)
	ran = blocks_that_ran (c->raw);
      if (bitmap_bit_p (ran, bb->index))
	continue;
      if (context <= 0)
	FOR_EACH_EDGE (e, ei, bb->preds)
	  context += (double) MAX (before[e->src->index], (int64_t) 0);
      if (context * per_entry < SFDO_DEAD_CALL_SAMPLES)
	continue;
      hold_at_zero (measured, over, bb->index);
      c->raw[bb->index] = 0;
    }
  if (ran)
    sbitmap_free (ran);
  XDELETEVEC (before);
}

/* Whether a block of the current function has a sample of its own in C.  */

static bool
any_sampled_block (const struct sfdo_fn_counts *c)
{
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    if (c->raw[bb->index] > 0)
      return true;
  return false;
}

/* What the flow solver takes for the measurements of a function that was
   entered ENTRIES times (from its callers' counts or its own head) and
   caught no sample in its body: each block's rate by GCC's STATIC_RATE
   times ENTRIES, rounded down (a block GCC thinks statically rare stays
   at zero, for hotcold.h to judge).  The zeros of such a body say nothing
   about which way it went, since its entry caught none either; left to
   the flow, they send every entry down the path with the fewest blocks,
   which may be one no execution can take (a loop leaving before its first
   iteration: once the unroller folds that exit, the counts no longer add
   up, and the optimized dump of GCC's merge_block.c reports an "Invalid
   sum").  SAMPLED says whether a block caught a sample: such a body keeps
   its measurements.  A body C says was revived (hotcold.h) is shaped
   however few its entries, and keeps only the blocks run on half of them
   or more.  Any other function entered (ENTRIES, -1 if unknown) fewer
   than SFDO_SHAPE_MIN_ENTRIES times keeps the flow's path: a few entries took a few paths, and spread over every
   arm GCC guesses even (and round a loop as often as GCC guesses)
   they gave error paths counts, and the functions called there lost their
   never-run mark (SQLite's speedtest1 main, entered once: 16 functions
   PGO and sfdo had put in .text.unlikely); below GCC's tolerance of 100
   the passes do not report sums either.  Returns NULL (use the
   measurements) when a block was sampled, the function was entered too
   few times or there is no estimate; else a new array the caller frees.  */

#define SFDO_SHAPE_MIN_ENTRIES 100

static int64_t *
unsampled_shape (const struct sfdo_fn_counts *c,
		 const struct sfdo_static_estimate *estimate,
		 int64_t entries, bool sampled)
{
  basic_block bb;
  int64_t *shape;

  if (!estimate || sampled
      || entries < (c->revived ? 1 : SFDO_SHAPE_MIN_ENTRIES))
    return NULL;
  shape = XDUPVEC (int64_t, c->raw, c->nblocks);
  FOR_EACH_BB_FN (bb, cfun)
    {
      double rate = sfdo_static_rate (estimate, bb);
      shape[bb->index] = sfdo_statically_rare (rate, c->revived)
			 ? 0 : (int64_t) MIN ((double) entries * rate, 1e18);
    }
  return shape;
}

void
sfdo_prepare_loops (void)
{
  /* fill_counted_loops asks GCC for trip counts, which needs loops with
     preheaders; GCC's loop passes would add them anyway.  */
  if (current_loops && number_of_loops (cfun) > 1
      && (!loops_state_satisfies_p (LOOPS_HAVE_PREHEADERS)
	  || loops_state_satisfies_p (LOOPS_MAY_HAVE_MULTIPLE_LATCHES)))
    loop_optimizer_init (LOOPS_NORMAL);
}

void
sfdo_annotate_blocks (const struct sfdo_prof_func *f, bool solve,
		      uint64_t head,
		      const struct sfdo_static_estimate *estimate,
		      bool revived, bool keep_zeros,
		      struct sfdo_fn_counts *c)
{
  basic_block bb;
  unsigned *first;
  struct sfdo_flow *g;
  unsigned k = 0;
  int64_t *shape;
  bool sampled;

  memset (c, 0, sizeof *c);
  c->revived = revived;
  if (f && solve)
    sfdo_prepare_loops ();
  c->nblocks = last_basic_block_for_fn (cfun);
  c->raw = XNEWVEC (int64_t, c->nblocks);
  c->block = XCNEWVEC (uint64_t, c->nblocks);
  first = c->first_edge = XCNEWVEC (unsigned, c->nblocks);
  if (f)
    sfdo_line_blocks_begin (f);
  FOR_ALL_BB_FN (bb, cfun)
    {
      bool from_inlinee = false;
      uint64_t entries = head ? head : f ? f->head : 0;
      c->raw[bb->index] = !f ? -1
	: bb == ENTRY_BLOCK_PTR_FOR_FN (cfun)
	  ? (entries ? (int64_t) MIN (entries, (uint64_t) INT64_MAX) : -1)
	: bb == EXIT_BLOCK_PTR_FOR_FN (cfun) ? -1
	: block_count (f, bb, &from_inlinee);
      c->calls_from_inlinees += from_inlinee;
      first[bb->index] = c->nedges;
      c->nedges += EDGE_COUNT (bb->succs);
      if (bb->index >= NUM_FIXED_BLOCKS)
	{
	  c->blocks++;
	  c->known_blocks += c->raw[bb->index] >= 0;
	}
    }
  if (f && solve && sfdo_rule_on (SFDO_RULE_RENUMBERED_LOOPS))
    read_renumbered_loops (f, c);
  sfdo_line_blocks_end ();
  c->edge = XCNEWVEC (uint64_t, c->nedges + 1);
  c->fit = f ? profile_fit (f) : 1.0;
  if (!f || !solve)
    return;
  forget_merged_arms (c->raw);
  auto_sbitmap over (c->nblocks);
  bitmap_clear (over);
  sampled = any_sampled_block (c);
  shape = unsampled_shape (c, estimate, c->raw[ENTRY_BLOCK], sampled);
  /* A body with samples is judged on its measurements; flow_measurements
     gives some zeros the count of a block that runs as often, which
     are not measurements of their own.  One without, on its shape.  */
  if (shape)
    find_dead_calls (f, c, shape, shape, over);
  else
    {
      shape = flow_measurements (f, c, over);
      if (keep_zeros)
	keep_believed_zeros (shape, over);
      find_dead_calls (f, c, c->raw, shape, over);
    }
  g = build_network (c, shape, over);
  XDELETEVEC (shape);
  sfdo_flow_set_sample_weight (g, sfdo_sample_weight (typical_block_size ()));
  sfdo_flow_solve (g);
  FOR_ALL_BB_FN (bb, cfun)
    c->block[bb->index] = sfdo_flow_block_count (g, bb->index);
  for (k = 0; k < c->nedges; k++)
    c->edge[k] = sfdo_flow_edge_count (g, k);
  sfdo_flow_free (g);
  c->solved = true;
  fill_counted_loops (c);
  /* Arms with no code of their own tell of if-conversion only in a body
     that was sampled: in one that was not, no line has a count.  */
  if (sampled)
    FOR_EACH_BB_FN (bb, cfun)
      split_unmeasured_branch (c, bb, first);
}

void
sfdo_fn_counts_free (struct sfdo_fn_counts *c)
{
  XDELETEVEC (c->raw);
  XDELETEVEC (c->block);
  XDELETEVEC (c->edge);
  XDELETEVEC (c->first_edge);
  memset (c, 0, sizeof *c);
}

/* The line numbers of BB's statements, as "l1,l2,..." into BUF.  */

static const char *
block_lines (basic_block bb, char *buf, size_t size)
{
  size_t len = 0;
  int last = -1;

  buf[0] = '\0';
  for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
       gsi_next (&gsi))
    {
      location_t locus = gimple_location (gsi_stmt (gsi));
      int line = LOCATION_LINE (locus);
      if (LOCATION_LOCUS (locus) == UNKNOWN_LOCATION || line == last
	  || len + 12 >= size)
	continue;
      len += snprintf (buf + len, size - len, "%s%d", len ? "," : "", line);
      last = line;
    }
  if (!len)
    snprintf (buf, size, "-");
  return buf;
}

void
sfdo_dump_blocks (FILE *dump, cgraph_node *node,
		  const struct sfdo_fn_counts *c)
{
  basic_block bb;
  char lines[256];

  fprintf (dump, "function %s\n", node->asm_name ());
  FOR_ALL_BB_FN (bb, cfun)
    {
      int64_t solved = bb->index < c->nblocks && c->solved
		       ? (int64_t) c->block[bb->index] : -1;
      int64_t raw = bb->index < c->nblocks ? c->raw[bb->index] : -1;
      fprintf (dump, "  bb %d lines %s raw %" PRId64 " smoothed %" PRId64
	       " final %" PRId64 " discriminator %d\n", bb->index,
	       block_lines (bb, lines, sizeof lines), raw, solved,
	       bb->count.initialized_p () ? bb->count.to_gcov_type () : -1,
	       sfdo_block_discriminator (bb));
    }
}
