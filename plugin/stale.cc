/* plugin/stale.cc - a profile from an older source, aligned to today's
   (stale.h).

   The anchors on each side, ordered by line offset: the profile's (the
   callees SFDO_VALUE_CALL_SITES names, and its inline instances) and the
   body's (its calls, and the calls early inlining expanded, at the line
   of the call).  They are aligned by callee name, clone suffixes aside,
   with the longest common subsequence: BMAT's call-site anchors, at
   source level.  An anchor that is no longer called, or a new call,
   simply stays unmatched.

   Where every matched anchor kept its offset, the profile fits as it is.
   Otherwise each of the profile's lines moves with the anchors around it.
   Two more anchors frame them: the declaration, which never moves
   (offsets count from it), and, once the calls show the profile stale,
   the function's closing line (the profile's last line and today's
   function end).  Where the calls did not move, neither does anything
   else: a tie between two alignments goes to the one that leaves more
   anchors in place.  Between two matched
   anchors whose stretch kept its length, a line keeps its distance from
   the anchor before it: a strong match.  Where the stretch grew or
   shrank, the edit is somewhere inside it; a line keeps its distance
   from the nearer of the two, which is more likely on its side of the
   edit: a weak match.  A line that lands where today's body has no
   statement is left out: the flow solver then infers its block, rather
   than reading a count that belongs elsewhere, and never takes it for a
   zero.  */

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

#include "../profiles/profile.h"
#include "samplefdo.h"
#include "position.h"
#include "stale.h"

/* Alignments of more anchor pairs than this are not tried (the table
   takes this many cells).  */
#define SFDO_MAX_ALIGN_CELLS (4u << 20)

/* A call at a line offset.  */
struct sfdo_anchor
{
  int offset;
  const char *name;
};

/* A matched pair of anchors: the profile's offset and the body's.  */
struct sfdo_anchor_pair
{
  int from, to;
};

/* Whether callee names A and B name one function: clones (.isra.0,
   .constprop.0, .part.0, .cold) and the assembler's '*' aside.  */

static bool
same_callee (const char *a, const char *b)
{
  size_t na, nb;

  a += *a == '*';
  b += *b == '*';
  na = strcspn (a, ".");
  nb = strcspn (b, ".");
  return na == nb && memcmp (a, b, na) == 0;
}

static int
anchor_cmp (const void *x, const void *y)
{
  const struct sfdo_anchor *a = (const struct sfdo_anchor *) x;
  const struct sfdo_anchor *b = (const struct sfdo_anchor *) y;

  if (a->offset != b->offset)
    return a->offset < b->offset ? -1 : 1;
  return strcmp (a->name, b->name);
}

/* Sort V by offset and name, and drop repeats.  */

static void
sort_anchors (vec<sfdo_anchor> *v)
{
  unsigned i, k = 0;

  v->qsort (anchor_cmp);
  for (i = 0; i < v->length (); i++)
    if (k == 0 || anchor_cmp (&(*v)[i], &(*v)[k - 1]) != 0)
      (*v)[k++] = (*v)[i];
  v->truncate (k);
}

/* The anchors of profile F: the callees its call sites name.  */

static void
profile_anchors (const struct sfdo_prof_func *f, vec<sfdo_anchor> *out)
{
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind == SFDO_VALUE_CALL_SITES)
      for (size_t k = 0; k < f->values[i].nentries; k++)
	out->safe_push ({ (int) f->values[i].offset,
			  sfdo_profile_str (sfdo_profile,
					    (uint32_t) f->values[i]
					      .entries[k].value) });
  for (size_t i = 0; i < f->ncallsites; i++)
    out->safe_push ({ (int) f->callsites[i].offset,
		      sfdo_profile_str (sfdo_profile,
					f->callsites[i].callee->name) });
  sort_anchors (out);
}

/* The anchors of the current function's body, and into LINES the
   offsets its statements sit at.  */

static void
body_anchors (vec<sfdo_anchor> *out, hash_set<int_hash<int, -1, -2> > *lines)
{
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gimple *stmt = gsi_stmt (gsi);
	int64_t offset;
	tree inlined, callee;
	if (!sfdo_outer_position (stmt, &offset, &inlined)
	    || offset >= INT_MAX - 2)
	  continue;
	lines->add ((int) offset);
	callee = inlined ? inlined
		 : is_gimple_call (stmt) ? gimple_call_fndecl (stmt)
		 : NULL_TREE;
	if (callee)
	  out->safe_push ({ (int) offset, IDENTIFIER_POINTER
					   (DECL_ASSEMBLER_NAME (callee)) });
      }
  sort_anchors (out);
}

/* What matching A and B scores: nothing for other callees; one match,
   and among alignments with as many matches, one more for an anchor that
   kept its offset.  A callee called twice where the profiled binary
   merged the two calls (cross-jumping keeps one copy's line) must match
   the copy it kept, not the first.  */

static uint64_t
match_score (const sfdo_anchor &a, const sfdo_anchor &b)
{
  if (!same_callee (a.name, b.name))
    return 0;
  return (uint64_t) SFDO_MAX_ALIGN_CELLS + (a.offset == b.offset);
}

/* The longest common subsequence of A and B by callee name (the one that
   leaves most anchors where they were), as pairs of offsets in order;
   false if the table would be too large.  */

static bool
align (const vec<sfdo_anchor> &a, const vec<sfdo_anchor> &b,
       vec<sfdo_anchor_pair> *pairs)
{
  unsigned n = a.length (), m = b.length (), i, j;
  uint64_t *best;

  if ((uint64_t) (n + 1) * (m + 1) > SFDO_MAX_ALIGN_CELLS)
    return false;
  /* BEST[i * (m + 1) + j]: the best alignment of A[i..] and B[j..].  */
#define AT(i, j) best[(i) * (m + 1) + (j)]
  best = XCNEWVEC (uint64_t, (n + 1) * (m + 1));
  for (i = n; i-- > 0;)
    for (j = m; j-- > 0;)
      {
	uint64_t s = match_score (a[i], b[j]);
	AT (i, j) = MAX (MAX (AT (i + 1, j), AT (i, j + 1)),
			 s ? AT (i + 1, j + 1) + s : 0);
      }
  for (i = 0, j = 0; i < n && j < m;)
    {
      uint64_t s = match_score (a[i], b[j]);
      if (s && AT (i, j) == AT (i + 1, j + 1) + s)
	{
	  pairs->safe_push ({ a[i].offset, b[j].offset });
	  i++, j++;
	}
      else if (AT (i + 1, j) >= AT (i, j + 1))
	i++;
      else
	j++;
    }
#undef AT
  XDELETEVEC (best);
  return true;
}

/* How the profile's lines move: the matched anchors, and the lines of
   today's body.  */
struct sfdo_move_ctx
{
  vec<sfdo_anchor_pair> *pairs;
  hash_set<int_hash<int, -1, -2> > *lines;
};

/* Where OFFSET goes by CTX's anchors, and into *STRONG whether the
   stretch around it kept its length; -1 where the body has no
   statement.  */

static int64_t
move_offset (const struct sfdo_move_ctx *ctx, uint32_t offset, bool *strong)
{
  sfdo_anchor_pair lo = { 0, 0 }, hi = { -1, -1 };
  int64_t to;

  for (const sfdo_anchor_pair &p : *ctx->pairs)
    if (p.from <= (int) offset)
      lo = p;
    else
      {
	hi = p;
	break;
      }
  *strong = hi.from < 0 || hi.from - lo.from == hi.to - lo.to;
  if (*strong || (int) offset - lo.from <= hi.from - (int) offset)
    to = (int64_t) offset + (lo.to - lo.from);
  else
    to = (int64_t) offset + (hi.to - hi.from);
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
add_end_anchor (const struct sfdo_prof_func *f, vec<sfdo_anchor_pair> *pairs)
{
  int64_t end = sfdo_line_offset (current_function_decl,
				  cfun->function_end_locus);
  int last = -1;

  for (size_t i = 0; i < f->nlines; i++)
    last = MAX (last, (int) f->lines[i].offset);
  if (end < 0 || end >= INT_MAX - 2 || last <= pairs->last ().from
      || end <= pairs->last ().to)
    return;
  pairs->safe_push ({ last, (int) end });
}

/* Whether every pair of PAIRS kept its offset.  */

static bool
unmoved (const vec<sfdo_anchor_pair> &pairs)
{
  for (const sfdo_anchor_pair &p : pairs)
    if (p.from != p.to)
      return false;
  return true;
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

void
sfdo_forget_weak_lines (void)
{
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

struct sfdo_prof_func *
sfdo_realign_profile (struct sfdo_prof_func *f, struct sfdo_realignment *r)
{
  auto_vec<sfdo_anchor> old_anchors, new_anchors;
  auto_vec<sfdo_anchor_pair> pairs;
  hash_set<int_hash<int, -1, -2> > lines;
  struct sfdo_move_ctx ctx = { &pairs, &lines };
  struct sfdo_offset_move move = { move_callback, &ctx };

  memset (r, 0, sizeof *r);
  r->fit = SFDO_FIT_UNANCHORED;
  profile_anchors (f, &old_anchors);
  r->anchors = old_anchors.length ();
  if (old_anchors.is_empty ())
    return f;
  body_anchors (&new_anchors, &lines);
  if (!align (old_anchors, new_anchors, &pairs) || pairs.is_empty ())
    return f;
  r->matched = pairs.length ();
  if (unmoved (pairs))
    {
      r->fit = SFDO_FIT_EXACT;
      return f;
    }
  add_end_anchor (f, &pairs);
  r->fit = SFDO_FIT_MOVED;
  weigh_moves (f, &ctx, r);
  note_weak_lines (f, &ctx);
  return sfdo_prof_func_copy_moved (sfdo_profile, f, &move);
}
