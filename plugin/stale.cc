/* plugin/stale.cc - a profile from an older source, aligned to today's
   (stale.h), by the call sites profiles/align.h aligns.

   Today's anchors are the body's calls, and the calls early inlining
   expanded, at the line of the call.  Where every matched anchor kept its
   offset, the profile fits as it is.  Otherwise each of the profile's
   lines moves with the anchors around it (sfdo_anchor_move), the
   function's closing line framing them too once the calls show the
   profile stale (the profile's last line and today's function end; not
   before: the profiled binary's last line is not always the closing
   one).  A line that lands where today's body has no statement is left
   out: the flow solver then infers its block, rather than reading a count
   that belongs elsewhere, and never takes it for a zero.  A line placed by
   guess (a weak match) is a weak count for the solver (SFDO_FLOW_WEAK).  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "hash-set.h"
#include "hash-map.h"
#include "cgraph.h"

#include "gcc-compat.h"
#include "../common/path.h"
#include "../profiles/profile.h"
#include "../profiles/align.h"
#include "samplefdo.h"
#include "position.h"
#include "stale.h"

/* The anchors of DECL's body as the current function holds it (its
   calls, and its own lines with blocks of a discriminator: branch
   anchors, where the profile numbers blocks as this GCC does), sorted,
   and into LINES the offsets its statements sit at.  DECL is the current
   function, or one it has inlined (at any depth): then the statements
   inlined from it, in every copy.  */

static void
body_anchors (tree decl, bool branches, vec<sfdo_anchor> *out,
	      hash_set<int_hash<int, -1, -2> > *lines)
{
  basic_block bb;
  bool own = decl == current_function_decl;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gimple *stmt = gsi_stmt (gsi);
	int64_t offset;
	tree inlined, callee;
	if (!(own ? sfdo_outer_position (stmt, &offset, &inlined)
		  : sfdo_frame_position (stmt, decl, &offset, &inlined))
	    || offset >= INT_MAX - 2)
	  continue;
	lines->add ((int) offset);
	callee = inlined ? inlined
		 : is_gimple_call (stmt) ? gimple_call_fndecl (stmt)
		 : NULL_TREE;
	if (callee)
	  out->safe_push ({ (uint32_t) offset, IDENTIFIER_POINTER
						(DECL_ASSEMBLER_NAME (callee)) });
	if (branches && !inlined && sfdo_stmt_discriminator (stmt)
	    && !sfdo_stats.other_numbering)
	  out->safe_push ({ (uint32_t) offset, sfdo_branch_anchor });
      }
  out->truncate (sfdo_anchors_sort (out->address (), out->length ()));
}

/* Drop the branch anchors of the N anchors A, in place; how many are
   left.  A profile of a build by a GCC that numbers the blocks of a line
   otherwise (position.h) has its discriminators on other lines than this
   body (GCC 12 gives a loop body's every line its latch's number): its
   branches would move a profile that fits.  */

static size_t
without_branch_anchors (struct sfdo_anchor *a, size_t n)
{
  size_t k = 0;

  for (size_t i = 0; i < n; i++)
    if (a[i].name != sfdo_branch_anchor
	&& strcmp (a[i].name, sfdo_branch_anchor) != 0)
      a[k++] = a[i];
  return k;
}

/* How the profile's lines move: the matched anchors, and the lines of
   today's body.  */
struct sfdo_move_ctx
{
  const struct sfdo_anchor_pair *pairs;
  size_t npairs;
  hash_set<int_hash<int, -1, -2> > *lines;
};

/* Where OFFSET goes by CTX's anchors, and into *STRONG whether the
   stretch around it kept its length; -1 where the body has no
   statement.  */

static int64_t
move_offset (const struct sfdo_move_ctx *ctx, uint32_t offset, bool *strong)
{
  int kept;
  int64_t to = sfdo_anchor_move (ctx->pairs, ctx->npairs, offset, &kept);

  *strong = kept;
  if (to < 0 || to >= INT_MAX - 2 || !ctx->lines->contains ((int) to))
    return -1;
  return to;
}

static int64_t
move_callback (uint32_t offset, void *ctx)
{
  bool strong;
  return move_offset ((const struct sfdo_move_ctx *) ctx, offset, &strong);
}

/* The function's closing line as one more pair of PAIRS: F's last line
   and today's function end, when both come after every matched anchor.
   Only where the calls moved: the profiled binary's last line is not
   always the closing one (a function that ends in a loop), so alone it
   would call a profile stale that is not.  */

static void
add_end_anchor (const struct sfdo_prof_func *f, struct sfdo_anchor_pair *pairs,
		size_t *npairs)
{
  int64_t end = sfdo_line_offset (current_function_decl,
				  cfun->function_end_locus);
  int64_t last = -1;

  for (size_t i = 0; i < f->nlines; i++)
    last = MAX (last, (int64_t) f->lines[i].offset);
  if (end < 0 || end >= INT_MAX - 2 || last <= pairs[*npairs - 1].from
      || end <= pairs[*npairs - 1].to)
    return;
  pairs[(*npairs)++] = { last, end, 0 };
}

/* The lines each realigned function's profile placed by guess (their new
   offsets), until the pass ends.  */
typedef hash_set<int_hash<int, -1, -2> > sfdo_line_set;
static hash_map<tree, sfdo_line_set *> *weak_lines;

/* Remember the offsets F's weak lines move to under CTX, for the current
   function.  */

static void
note_weak_lines (const struct sfdo_prof_func *f,
		 const struct sfdo_move_ctx *ctx)
{
  sfdo_line_set *set = NULL;

  for (size_t i = 0; i < f->nlines; i++)
    {
      bool strong;
      int64_t to = move_offset (ctx, f->lines[i].offset, &strong);
      if (to < 0 || strong)
	continue;
      if (!set)
	{
	  if (!weak_lines)
	    weak_lines = new hash_map<tree, sfdo_line_set *>;
	  set = new sfdo_line_set;
	  weak_lines->put (current_function_decl, set);
	}
      set->add ((int) to);
    }
}

bool
sfdo_block_weak (basic_block bb)
{
  sfdo_line_set **set = weak_lines ? weak_lines->get (current_function_decl)
		       : NULL;

  if (!set)
    return false;
  for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
       gsi_next (&gsi))
    {
      int64_t offset;
      tree inlined;
      if (sfdo_outer_position (gsi_stmt (gsi), &offset, &inlined)
	  && offset < INT_MAX - 2 && (*set)->contains ((int) offset))
	return true;
    }
  return false;
}

/* This file's static functions the profile lists that no function of
   the unit is named, by shape signature (UINT64_MAX where two share one);
   built on first use.  */
typedef hash_map<int_hash<uint64_t, 0, UINT64_MAX>, uint64_t> sfdo_sig_map;
static sfdo_sig_map *unclaimed;
/* All of them, and those already given to a function of the unit.  */
static vec<size_t> unclaimed_list;
static hash_set<int_hash<uint64_t, UINT64_MAX - 1, UINT64_MAX> > *claimed;

/* Whether the profile's function F belongs to this unit's file.  */

static bool
of_this_file (const struct sfdo_prof_func *f)
{
  const char *file = sfdo_profile_str (sfdo_profile, f->file);
  const char *unit = main_input_filename;

  return f->file && unit
	 && sfdo_shared_path_tail (file, strlen (file), unit, strlen (unit)) > 0;
}

static void
gather_unclaimed (void)
{
  hash_set<nofree_string_hash> names;
  cgraph_node *node;

  unclaimed = new sfdo_sig_map;
  claimed = new hash_set<int_hash<uint64_t, UINT64_MAX - 1, UINT64_MAX> >;
  FOR_EACH_FUNCTION (node)
    names.add (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (node->decl)));
  if (sfdo_profile_load_all (sfdo_profile, NULL) != SFDO_OK)
    return;
  for (size_t i = 0; i < sfdo_profile_nfuncs (sfdo_profile); i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (sfdo_profile, i,
							  NULL);
      uint64_t sig;
      if (!f || !f->total || !of_this_file (f)
	  || names.contains (sfdo_profile_str (sfdo_profile, f->name)))
	continue;
      unclaimed_list.safe_push (i);
      if (!(sig = sfdo_prof_func_signature (sfdo_profile, f)))
	continue;
      bool existed;
      uint64_t &slot = unclaimed->get_or_insert (sig, &existed);
      slot = existed ? UINT64_MAX : (uint64_t) i;
    }
}

/* The unclaimed profile with a name like the current function's that
   shares most of its calls (ANCHORS), enough of them; SIZE_MAX if none or
   a tie.  */

static size_t
similar_profile (const vec<sfdo_anchor> &anchors)
{
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME
					   (current_function_decl));
  size_t best = SIZE_MAX, best_shared = 0;
  bool tie = false;

  for (size_t i : unclaimed_list)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (sfdo_profile, i,
							  NULL);
      struct sfdo_anchor *old;
      size_t nold, shared;
      if (claimed->contains (i)
	  || !sfdo_similar_names (sfdo_profile_str (sfdo_profile, f->name),
				  name))
	continue;
      old = sfdo_prof_func_anchors (sfdo_profile, f, &nold);
      shared = sfdo_anchors_shared (old, nold, anchors.address (),
				    anchors.length ());
      if (SFDO_SHARES_ENOUGH (shared, sfdo_anchors_calls (old, nold))
	  && shared >= best_shared)
	{
	  tie = shared == best_shared;
	  best = i;
	  best_shared = shared;
	}
      free (old);
    }
  return tie ? SIZE_MAX : best;
}

struct sfdo_prof_func *
sfdo_renamed_profile (void)
{
  auto_vec<sfdo_anchor> anchors;
  hash_set<int_hash<int, -1, -2> > lines;
  uint64_t sig, *slot;
  size_t i = SIZE_MAX;

  if (TREE_PUBLIC (current_function_decl))
    return NULL;
  body_anchors (current_function_decl, true, &anchors, &lines);
  if (!unclaimed)
    gather_unclaimed ();
  sig = sfdo_anchors_signature (anchors.address (), anchors.length ());
  slot = sig ? unclaimed->get (sig) : NULL;
  if (slot && *slot != UINT64_MAX && !claimed->contains (*slot))
    i = *slot;
  else if (!unclaimed_list.is_empty ())
    i = similar_profile (anchors);
  if (i == SIZE_MAX)
    return NULL;
  claimed->add (i);
  return sfdo_profile_func (sfdo_profile, i, NULL);
}

void
sfdo_forget_weak_lines (void)
{
  delete unclaimed;
  unclaimed = NULL;
  delete claimed;
  claimed = NULL;
  unclaimed_list.release ();
  if (!weak_lines)
    return;
  for (auto it = weak_lines->begin (); it != weak_lines->end (); ++it)
    delete (*it).second;
  delete weak_lines;
  weak_lines = NULL;
}

/* Into R, the weight of F's lines by how they move.  */

static void
weigh_moves (const struct sfdo_prof_func *f, const struct sfdo_move_ctx *ctx,
	     struct sfdo_realignment *r)
{
  for (size_t i = 0; i < f->nlines; i++)
    {
      bool strong;
      uint64_t *into = move_offset (ctx, f->lines[i].offset, &strong) < 0
		       ? &r->dropped : strong ? &r->strong : &r->weak;
      *into = sfdo_sat_add (*into, f->lines[i].count);
    }
}

/* F aligned to DECL's body as the current function holds it
   (body_anchors), as sfdo_realign_profile says.  AS_INSTANCE: F is an
   inline instance, aligned by its calls alone, and the lines it places by
   guess are not remembered for the current function's blocks.  A binary
   numbers an inlined body's blocks anew (GCC 12 gave the lines of an
   instance before its loop the discriminator of the call it was inlined
   by), so the branch anchors of an instance say nothing of its callee's
   source: taken, they moved the lines of a fresh profile's instance.  */

static struct sfdo_prof_func *
realign_to_body (struct sfdo_prof_func *f, tree decl,
		 struct sfdo_realignment *r, bool as_instance)
{
  auto_vec<sfdo_anchor> new_anchors;
  hash_set<int_hash<int, -1, -2> > lines;
  struct sfdo_anchor *old_anchors;
  struct sfdo_anchor_pair *pairs = NULL;
  size_t nold, npairs = 0;
  struct sfdo_move_ctx ctx;
  struct sfdo_offset_move move = { move_callback, &ctx };
  struct sfdo_prof_func *moved = f;

  memset (r, 0, sizeof *r);
  r->fit = SFDO_FIT_UNANCHORED;
  old_anchors = sfdo_prof_func_anchors (sfdo_profile, f, &nold);
  if (sfdo_stats.other_numbering || as_instance)
    nold = without_branch_anchors (old_anchors, nold);
  r->anchors = nold;
  if (!nold)
    {
      free (old_anchors);
      return f;
    }
  body_anchors (decl, !as_instance, &new_anchors, &lines);
  if (sfdo_align_anchors (old_anchors, nold, new_anchors.address (),
			  new_anchors.length (), &pairs, &npairs) != 0
      || !npairs)
    goto done;
  r->matched = npairs;
  if (sfdo_anchor_pairs_unmoved (pairs, npairs))
    {
      r->fit = SFDO_FIT_EXACT;
      goto done;
    }
  /* An instance's end is not in the current function; nor is its last
     line with code the same in two builds (a return merged into the
     line before it): lines past its last call move as that call did.  */
  if (!as_instance)
    add_end_anchor (f, pairs, &npairs);
  ctx = { pairs, npairs, &lines };
  r->fit = SFDO_FIT_MOVED;
  weigh_moves (f, &ctx, r);
  if (!as_instance)
    note_weak_lines (f, &ctx);
  moved = sfdo_prof_func_copy_moved (sfdo_profile, f, &move);
done:
  free (old_anchors);
  free (pairs);
  return moved;
}

struct sfdo_prof_func *
sfdo_realign_profile (struct sfdo_prof_func *f, struct sfdo_realignment *r)
{
  return realign_to_body (f, current_function_decl, r, false);
}

bool
sfdo_realign_instance (struct sfdo_prof_func *inst, tree decl,
		       struct sfdo_realignment *r)
{
  struct sfdo_prof_func *moved = realign_to_body (inst, decl, r, true);

  if (moved == inst)
    return false;
  sfdo_prof_func_take (inst, moved);
  return true;
}
