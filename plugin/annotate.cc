/* plugin/annotate.cc - counts from an sfdo profile onto one function's
   CFG, smoothed by minimum-cost flow.

   For each statement, its position in the profile is its inline stack:
   the chain of inlined-function scopes (BLOCKs) from the statement up to
   the function, each giving a call line; the profile nests inlined
   callees at (line offset, discriminator) callsites the same way, so the
   walk goes from the function's profile down through the callsites to
   the innermost callee and reads the count at the statement's line
   offset there.  GCC 12 keeps discriminators per basic block
   (bb->discriminator), which is what it emitted in the profiled
   binary's line table for that block's instructions.

   A block's count is the max (or mean) of its statements' counts; a
   block with no statement the profile knows is unknown, not zero.  The
   minimum-cost flow of smooth/mcf.h then makes counts consistent, using
   GCC's static branch probabilities (predict.cc: Wu and Larus) as the
   prior where measurements say nothing.  The result is written with
   AFDO quality, the way -fauto-profile writes it, so the inliner, block
   reordering, hot/cold partitioning, unrolling and the register
   allocator believe it.  */

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
#include "predict.h"
#include "gcov-io.h"

#include "../profiles/profile.h"
#include "../smooth/mcf.h"
#include "annotate.h"

/* The largest count annotated in this unit, and the summary built from
   it for profile_info.  */
static gcov_type sfdo_max_count;
static struct gcov_summary sfdo_summary;

/* The profile being read, for its strings.  */
static const struct sfdo_profile *sfdo_current_profile;

void
sfdo_note_max_count (gcov_type count)
{
  if (count > sfdo_max_count)
    sfdo_max_count = count;
}

void
sfdo_install_profile_info (void)
{
  sfdo_summary.runs = 1;
  sfdo_summary.sum_max = sfdo_max_count > 0 ? sfdo_max_count : 1;
  profile_info = &sfdo_summary;
}

/* One frame of a statement's inline stack: the function DECL and the
   location LOCUS in it (of the statement, or of the call inlined).  */
struct sfdo_frame_loc
{
  tree decl;
  location_t locus;
};

/* The line offset of LOCUS in function DECL, or -1 if it lies before the
   declaration (then the profile cannot hold it).  */

static int64_t
line_offset (tree decl, location_t locus)
{
  int line = LOCATION_LINE (locus);
  int decl_line = LOCATION_LINE (DECL_SOURCE_LOCATION (decl));
  return line >= decl_line ? line - decl_line : -1;
}

/* Fill STACK with the inline stack of STMT, innermost frame first, the
   current function last.  Return false if STMT has no location.  */

static bool
inline_stack (gimple *stmt, vec<sfdo_frame_loc> *stack)
{
  location_t locus = gimple_location (stmt);

  if (LOCATION_LOCUS (locus) == UNKNOWN_LOCATION)
    return false;
  for (tree block = gimple_block (stmt);
       block && TREE_CODE (block) == BLOCK;
       block = BLOCK_SUPERCONTEXT (block))
    {
      location_t call = BLOCK_SOURCE_LOCATION (block);
      tree origin;

      if (LOCATION_LOCUS (call) == UNKNOWN_LOCATION
	  || !inlined_function_outer_scope_p (block))
	continue;
      origin = block_ultimate_origin (block);
      if (!origin || TREE_CODE (origin) != FUNCTION_DECL)
	continue;
      stack->safe_push ({ origin, locus });
      locus = call;
    }
  stack->safe_push ({ current_function_decl, locus });
  return true;
}

/* Whether the profile name NAME_ID names function DECL.  */

static bool
names_decl (uint32_t name_id, tree decl)
{
  const char *want = sfdo_profile_str (sfdo_current_profile, name_id);
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));

  if (name[0] == '*')
    name++;
  return strcmp (want, name) == 0;
}

/* The profile of the callee DECL inlined into F at line OFFSET: the one
   with discriminator 0 if there, else any.  NULL if F has none.  */

static const struct sfdo_prof_func *
callee_profile (const struct sfdo_prof_func *f, uint32_t offset, tree decl)
{
  const struct sfdo_prof_func *any = NULL;

  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &f->callsites[i];
      if (c->offset != offset || !names_decl (c->callee->name, decl))
	continue;
      if (c->discriminator == 0)
	return c->callee;
      if (!any)
	any = c->callee;
    }
  return any;
}

/* The count F records at (OFFSET, DISC); failing an exact match, the
   largest at OFFSET under any discriminator, since blocks may have been
   numbered differently.  Return false if F has nothing at OFFSET.  */

static bool
line_count (const struct sfdo_prof_func *f, uint32_t offset, uint32_t disc,
	    uint64_t *count)
{
  const struct sfdo_prof_line *l = sfdo_prof_func_find_line (f, offset, disc);
  bool found = false;

  if (l)
    {
      *count = l->count;
      return true;
    }
  *count = 0;
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].offset == offset)
      {
	found = true;
	if (f->lines[i].count > *count)
	  *count = f->lines[i].count;
      }
  return found;
}

/* The profile STMT's innermost frame has in F (the current function's
   profile), following STMT's inline stack, and STMT's line offset there
   in *OFFSET; NULL if the profile does not know the position.  */

static const struct sfdo_prof_func *
innermost_profile (const struct sfdo_prof_func *f, gimple *stmt,
		   uint32_t *offset)
{
  auto_vec<sfdo_frame_loc, 8> stack;
  int64_t off;

  if (!inline_stack (stmt, &stack))
    return NULL;
  for (unsigned i = stack.length () - 1; i > 0 && f; i--)
    {
      off = line_offset (stack[i].decl, stack[i].locus);
      if (off < 0)
	return NULL;
      f = callee_profile (f, (uint32_t) off, stack[i - 1].decl);
    }
  off = line_offset (stack[0].decl, stack[0].locus);
  if (off < 0)
    return NULL;
  *offset = (uint32_t) off;
  return f;
}

const struct sfdo_prof_func *
sfdo_innermost_profile (const struct sfdo_profile *p,
			const struct sfdo_prof_func *f, gimple *stmt,
			uint32_t *offset)
{
  sfdo_current_profile = p;
  return innermost_profile (f, stmt, offset);
}

/* The count of STMT, in a block of discriminator DISC, from F (the
   current function's profile).  Return false if the profile does not
   know STMT's position.  */

static bool
stmt_count (const struct sfdo_prof_func *f, gimple *stmt, unsigned disc,
	    uint64_t *count)
{
  uint32_t off;

  f = innermost_profile (f, stmt, &off);
  return f && line_count (f, off, disc, count);
}

const struct sfdo_prof_func *
sfdo_inlined_callee_profile (const struct sfdo_profile *p,
			     const struct sfdo_prof_func *f, gimple *call,
			     tree callee)
{
  uint32_t off;

  sfdo_current_profile = p;
  f = innermost_profile (f, call, &off);
  return f ? callee_profile (f, off, callee) : NULL;
}

/* The measured count of BB from F, or -1 if none of its statements is
   known to the profile.  Statements vote by VOTE.  */

static int64_t
block_count (const struct sfdo_prof_func *f, basic_block bb,
	     enum sfdo_block_vote vote)
{
  uint64_t max = 0, sum = 0, n = 0, c;

  for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
       gsi_next (&gsi))
    {
      gimple *stmt = gsi_stmt (gsi);
      if (is_gimple_debug (stmt) || !stmt_count (f, stmt, bb->discriminator,
						 &c))
	continue;
      max = MAX (max, c);
      sum = sfdo_sat_add (sum, c);
      n++;
    }
  if (!n)
    return -1;
  c = vote == SFDO_VOTE_MEAN ? sum / n : max;
  return c > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) c;
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
	    && (off = line_offset (current_function_decl, locus)) >= 0
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

/* GCC's count of BB as a plain number, -1 if it has none.  */

static int64_t
gcc_count (basic_block bb)
{
  return bb->count.initialized_p () ? bb->count.to_gcov_type () : -1;
}

/* Build the flow network of the current function into a new graph,
   with measured counts RAW (by block index).  The edges are added in
   FOR_ALL_BB_FN / FOR_EACH_EDGE order.  */

static struct sfdo_flow *
build_network (const int64_t *raw)
{
  struct sfdo_flow *g = sfdo_flow_new (last_basic_block_for_fn (cfun),
				       ENTRY_BLOCK, EXIT_BLOCK);
  basic_block bb;
  edge e;
  edge_iterator ei;

  FOR_ALL_BB_FN (bb, cfun)
    {
      sfdo_flow_set_count (g, bb->index, raw[bb->index]);
      FOR_EACH_EDGE (e, ei, bb->succs)
	sfdo_flow_add_edge (g, bb->index, e->dest->index,
			    e->probability.initialized_p ()
			    ? e->probability.to_reg_br_prob_base ()
			      / (double) REG_BR_PROB_BASE
			    : -1.0);
    }
  return g;
}

/* Whether the measurements RAW say nothing about which way BB branches:
   none of its successors has a count of its own.  */

static bool
direction_unmeasured (basic_block bb, const int64_t *raw)
{
  edge e;
  edge_iterator ei;

  if (EDGE_COUNT (bb->succs) < 2)
    return false;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (raw[e->dest->index] >= 0)
      return false;
  return true;
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

/* Write the solved counts of G onto the current function's blocks and
   edges, with AFDO quality.  Where the measurements RAW say nothing about
   a branch's direction, its probabilities stay GCC's static ones (as AFDO
   quality): the flow's choice there is arbitrary, all or nothing.  */

static void
write_counts (struct sfdo_flow *g, const int64_t *raw)
{
  basic_block bb;
  edge e;
  edge_iterator ei;
  size_t k = 0;

  FOR_ALL_BB_FN (bb, cfun)
    {
      gcov_type c = (gcov_type) MIN (sfdo_flow_block_count (g, bb->index),
				     (uint64_t) (profile_count::max_count / 2));
      bb->count = profile_count::from_gcov_type (c).afdo ();
      sfdo_note_max_count (c);
      FOR_EACH_EDGE (e, ei, bb->succs)
	{
	  uint64_t ec = sfdo_flow_edge_count (g, k++);
	  if (c > 0 && !direction_unmeasured (bb, raw))
	    e->probability
	      = profile_count::from_gcov_type (MIN ((gcov_type) ec, c)).afdo ()
		  .probability_in (bb->count);
	  else if (e->probability.initialized_p ())
	    e->probability = e->probability.afdo ();
	}
    }
}

/* Where a branch's direction is unmeasured the flow sent everything one
   way; split it by the (static) probabilities instead, down each arm's
   chain of unmeasured single-entry blocks, so passes such as the tracer
   do not see a hot path that was never observed.  */

static void
split_unmeasured_arms (const int64_t *raw)
{
  basic_block bb;
  edge e;
  edge_iterator ei;

  FOR_EACH_BB_FN (bb, cfun)
    {
      if (!direction_unmeasured (bb, raw))
	continue;
      FOR_EACH_EDGE (e, ei, bb->succs)
	{
	  basic_block arm = e->dest;
	  profile_count c = bb->count.apply_probability (e->probability);
	  while (arm != EXIT_BLOCK_PTR_FOR_FN (cfun) && single_pred_p (arm)
		 && raw[arm->index] < 0)
	    {
	      arm->count = c;
	      if (!single_succ_p (arm))
		break;
	      arm = single_succ (arm);
	    }
	}
    }
}

void
sfdo_annotate_function (cgraph_node *node, const struct sfdo_profile *p,
			const struct sfdo_prof_func *f,
			enum sfdo_block_vote vote, bool dump_only, FILE *dump,
			struct sfdo_annotate_result *result)
{
  int n = last_basic_block_for_fn (cfun);
  int64_t *raw = XNEWVEC (int64_t, n);
  struct sfdo_flow *g = NULL;
  basic_block bb;

  sfdo_current_profile = p;
  memset (result, 0, sizeof *result);
  FOR_ALL_BB_FN (bb, cfun)
    {
      raw[bb->index] = !f ? -1
		       : (bb == ENTRY_BLOCK_PTR_FOR_FN (cfun)
			? (f->head ? (int64_t) MIN (f->head, (uint64_t) INT64_MAX)
			   : -1)
			: bb == EXIT_BLOCK_PTR_FOR_FN (cfun) ? -1
			: block_count (f, bb, vote));
      if (bb->index >= NUM_FIXED_BLOCKS)
	{
	  result->blocks++;
	  result->known_blocks += raw[bb->index] >= 0;
	}
    }
  result->fit = f ? profile_fit (f) : 1.0;
  if (!dump_only && f)
    {
      forget_merged_arms (raw);
      g = build_network (raw);
      sfdo_flow_solve (g);
      write_counts (g, raw);
      split_unmeasured_arms (raw);
      node->count = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
      profile_status_for_fn (cfun) = PROFILE_READ;
    }
  if (dump)
    {
      char lines[256];
      fprintf (dump, "function %s\n", node->asm_name ());
      FOR_ALL_BB_FN (bb, cfun)
	fprintf (dump, "  bb %d lines %s raw %" PRId64 " smoothed %" PRId64
		 " final %" PRId64 "\n", bb->index,
		 block_lines (bb, lines, sizeof lines), raw[bb->index],
		 g ? (int64_t) sfdo_flow_block_count (g, bb->index) : -1,
		 gcc_count (bb));
    }
  sfdo_flow_free (g);
  XDELETEVEC (raw);
}

void
sfdo_finish_function (void)
{
  update_max_bb_count ();
  compute_function_frequency ();
  cgraph_edge::rebuild_edges ();
}
