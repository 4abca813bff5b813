/* plugin/position.cc - where a GIMPLE statement sits in an sfdo profile
   (position.h).

   A statement's own line is looked up as (offset, the discriminator this
   GCC gives it: its block's on GCC 12, its own from GCC 13 on;
   gcc-compat.h).  GCC 12 writes no discriminator for inlined call sites
   (DW_TAG_inlined_subroutine has none), so the converter records them
   with discriminator 0; GCC 13 and newer write the call's.  A call site
   is looked up by its own discriminator first, then by 0, then any.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "stringpool.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "langhooks.h"
#include "cgraph.h"
#include "hash-set.h"

#include "gcc-compat.h"
#include "../profiles/profile.h"
#include "samplefdo.h"
#include "position.h"

int64_t
sfdo_line_offset (tree decl, location_t locus)
{
  int line = LOCATION_LINE (locus);
  int decl_line = LOCATION_LINE (DECL_SOURCE_LOCATION (decl));
  return line >= decl_line ? line - decl_line : -1;
}

/* One frame of a statement's inline stack: the function DECL and the
   location LOCUS in it (of the statement, or of the call inlined).  */
struct sfdo_frame_loc
{
  tree decl;
  location_t locus;
};

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

bool
sfdo_outer_position (gimple *stmt, int64_t *offset, tree *inlined)
{
  auto_vec<sfdo_frame_loc, 8> stack;
  unsigned n;

  if (!inline_stack (stmt, &stack))
    return false;
  n = stack.length ();
  *offset = sfdo_line_offset (current_function_decl, stack[n - 1].locus);
  *inlined = n >= 2 ? stack[n - 2].decl : NULL_TREE;
  return *offset >= 0;
}

bool
sfdo_frame_position (gimple *stmt, tree decl, int64_t *offset, tree *inlined)
{
  auto_vec<sfdo_frame_loc, 8> stack;

  if (!inline_stack (stmt, &stack))
    return false;
  for (unsigned i = 0; i < stack.length (); i++)
    if (stack[i].decl == decl)
      {
	*offset = sfdo_line_offset (decl, stack[i].locus);
	*inlined = i ? stack[i - 1].decl : NULL_TREE;
	return *offset >= 0;
      }
  return false;
}

cgraph_node *
sfdo_function_named (const char *name)
{
  symtab_node *sym = symtab_node::get_for_asmname (get_identifier (name));

  return sym ? dyn_cast <cgraph_node *> (sym) : NULL;
}

tree
sfdo_inlined_decl (const char *name)
{
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	auto_vec<sfdo_frame_loc, 8> stack;
	if (!inline_stack (gsi_stmt (gsi), &stack))
	  continue;
	for (unsigned i = 0; i + 1 < stack.length (); i++)
	  if (DECL_ASSEMBLER_NAME_SET_P (stack[i].decl)
	      && strcmp (IDENTIFIER_POINTER
			   (DECL_ASSEMBLER_NAME (stack[i].decl)), name) == 0)
	    return stack[i].decl;
      }
  return NULL_TREE;
}

char *
sfdo_dwarf_profile_name (tree decl)
{
  const char *name = lang_hooks.dwarf_name (decl, 0);
  char *s;
  size_t k = 0;

  if (!name || !strchr (name, '<'))
    return NULL;
  s = XNEWVEC (char, strlen (name) + 1);
  for (; *name; name++)
    if (*name != ' ')
      s[k++] = *name;
  s[k] = '\0';
  return s;
}

/* Whether the profile's name NAME_ID names function DECL: its assembler
   name, or for an inlined template instance GCC gave no linkage name in
   the profiled binary's DWARF, the DWARF name GCC gives it, which the
   converter wrote without spaces.  */

static bool
names_decl (uint32_t name_id, tree decl)
{
  const char *want = sfdo_profile_str (sfdo_profile, name_id);
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));
  char *dwarf_name;
  bool same;

  if (name[0] == '*')
    name++;
  if (strcmp (want, name) == 0)
    return true;
  if (strncmp (want, "_Z", 2) == 0 || !strchr (want, '<')
      || !(dwarf_name = sfdo_dwarf_profile_name (decl)))
    return false;
  same = strcmp (want, dwarf_name) == 0;
  XDELETEVEC (dwarf_name);
  return same;
}

/* Whether F records a call to DECL, out of line, at line OFFSET.  */

static bool
calls_out_of_line (const struct sfdo_prof_func *f, uint32_t offset, tree decl)
{
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].offset == offset)
      for (size_t k = 0; k < f->lines[i].ntargets; k++)
	if (names_decl (f->lines[i].targets[k].name, decl))
	  return true;
  return false;
}

/* The profile of the callee DECL inlined into F at (OFFSET, DISC): the
   callsite of that name with discriminator DISC, else 0, else any.
   Failing a name, the only callsite at OFFSET: identical-code folding in
   the profiled binary may have replaced the callee by a twin of another
   name, whose body the profile then records there.  Not where the line
   records DECL called out of line: the callsite is then another call of
   the line (SQLite's 'backupOnePage(p, iSrcPg, sqlite3PagerGetData(pSrcPg),
   0)' took sqlite3PagerGetData's instance, and replay inlined
   backupOnePage, which the profiled binary had not).  */

static const struct sfdo_prof_func *
callee_profile (const struct sfdo_prof_func *f, uint32_t offset,
		uint32_t disc, tree decl)
{
  const struct sfdo_prof_func *zero = NULL, *any = NULL, *lone = NULL;
  unsigned at_offset = 0;

  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &f->callsites[i];
      if (c->offset != offset)
	continue;
      at_offset++;
      lone = c->callee;
      if (!names_decl (c->callee->name, decl))
	continue;
      if (c->discriminator == disc)
	return c->callee;
      if (c->discriminator == 0)
	zero = c->callee;
      else if (!any)
	any = c->callee;
    }
  if (zero || any)
    return zero ? zero : any;
  return at_offset == 1 && !calls_out_of_line (f, offset, decl) ? lone
								 : NULL;
}

const struct sfdo_prof_func *
sfdo_innermost_profile (const struct sfdo_prof_func *f, gimple *stmt,
			uint32_t *offset)
{
  auto_vec<sfdo_frame_loc, 8> stack;
  int64_t off;

  if (!inline_stack (stmt, &stack))
    return NULL;
  for (unsigned i = stack.length () - 1; i > 0 && f; i--)
    {
      off = sfdo_line_offset (stack[i].decl, stack[i].locus);
      if (off < 0)
	return NULL;
      f = callee_profile (f, (uint32_t) off,
			  sfdo_loc_discriminator (stack[i].locus),
			  stack[i - 1].decl);
    }
  off = sfdo_line_offset (stack[0].decl, stack[0].locus);
  if (off < 0)
    return NULL;
  *offset = (uint32_t) off;
  return f;
}

/* The GCC that built the profile's code, where it numbers discriminators
   otherwise than this one (sfdo_positions_begin_unit; 0 if it does not),
   and the lines of several blocks read by its numbers.  */
static unsigned other_numbering;
typedef pair_hash<nofree_ptr_hash<const struct sfdo_prof_func>,
		  int_hash<unsigned, -1U, -2U> > sfdo_line_key;
static hash_set<sfdo_line_key> *other_numbering_lines;

unsigned
sfdo_positions_begin_unit (void)
{
  unsigned major = sfdo_profile_gcc_major (sfdo_profile);

  other_numbering = major && (sfdo_discriminator_scheme (major)
			      != SFDO_GCC_DISCRIMINATOR_SCHEME) ? major : 0;
  delete other_numbering_lines;
  other_numbering_lines = other_numbering ? new hash_set<sfdo_line_key> : NULL;
  return other_numbering;
}

unsigned
sfdo_positions_renumbered_lines (void)
{
  return other_numbering_lines ? other_numbering_lines->elements () : 0;
}

/* The blocks the current body has each line of each profile its
   statements reach in, and the discriminators its statements there have,
   while sfdo_line_blocks_begin's table stands: (profile, line offset,
   block index, discriminator), sorted, without repeats.  */
struct sfdo_line_block
{
  uintptr_t func;
  uint32_t offset;
  int block;
  unsigned disc;
};

static vec<sfdo_line_block> body_line_blocks;

static int
line_block_cmp (const void *a, const void *b)
{
  const sfdo_line_block *x = (const sfdo_line_block *) a;
  const sfdo_line_block *y = (const sfdo_line_block *) b;
  if (x->func != y->func)
    return x->func < y->func ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  return x->disc < y->disc ? -1 : x->disc > y->disc;
}

void
sfdo_line_blocks_begin (const struct sfdo_prof_func *f)
{
  basic_block bb;

  body_line_blocks.truncate (0);
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
	 !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
      {
	uint32_t off;
	const struct sfdo_prof_func *g
	  = sfdo_innermost_profile (f, gsi_stmt (gsi), &off);
	if (g)
	  body_line_blocks.safe_push
	    ({ (uintptr_t) g, off, bb->index,
	       sfdo_stmt_discriminator (gsi_stmt (gsi)) });
      }
  body_line_blocks.qsort (line_block_cmp);
  unsigned k = 0;
  for (unsigned i = 0; i < body_line_blocks.length (); i++)
    if (!k || line_block_cmp (&body_line_blocks[i], &body_line_blocks[k - 1]))
      body_line_blocks[k++] = body_line_blocks[i];
  body_line_blocks.truncate (k);
}

void
sfdo_line_blocks_end (void)
{
  body_line_blocks.release ();
}

/* The first entry of the table for line OFFSET of F: its length if
   there is none.  */

static unsigned
first_line_block (const struct sfdo_prof_func *f, uint32_t offset)
{
  sfdo_line_block key = { (uintptr_t) f, offset, INT_MIN, 0 };
  unsigned lo = 0, hi = body_line_blocks.length ();

  while (lo < hi)
    {
      unsigned mid = (lo + hi) / 2;
      if (line_block_cmp (&body_line_blocks[mid], &key) < 0)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}

/* Whether entry I of the table is of line OFFSET of F.  */

static bool
line_block_of (unsigned i, const struct sfdo_prof_func *f, uint32_t offset)
{
  return i < body_line_blocks.length ()
	 && body_line_blocks[i].func == (uintptr_t) f
	 && body_line_blocks[i].offset == offset;
}

/* Whether the current body has every statement of line OFFSET of F in one
   block (false when no table stands).  */

static bool
body_line_in_one_block (const struct sfdo_prof_func *f, uint32_t offset)
{
  unsigned lo = first_line_block (f, offset);

  if (!line_block_of (lo, f, offset))
    return false;
  for (unsigned i = lo + 1; line_block_of (i, f, offset); i++)
    if (body_line_blocks[i].block != body_line_blocks[lo].block)
      return false;
  return true;
}

/* Whether a statement of line OFFSET of F in the current body has the
   discriminator DISC (false when no table stands).  */

static bool
body_line_has_disc (const struct sfdo_prof_func *f, uint32_t offset,
		    unsigned disc)
{
  for (unsigned i = first_line_block (f, offset); line_block_of (i, f, offset);
       i++)
    if (body_line_blocks[i].disc == disc)
      return true;
  return false;
}

/* The first record F has at line OFFSET, or NULL; F's lines are sorted
   by (offset, discriminator): a binary search, for this runs for every
   statement.  */

static const struct sfdo_prof_line *
first_record_at (const struct sfdo_prof_func *f, uint32_t offset)
{
  size_t lo = 0, hi = f->nlines;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (f->lines[mid].offset < offset)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo < f->nlines && f->lines[lo].offset == offset ? &f->lines[lo]
							 : NULL;
}

/* The only record F has at line OFFSET, whatever its discriminator; NULL
   if it has none or several.  */

static const struct sfdo_prof_line *
sole_line_at (const struct sfdo_prof_func *f, uint32_t offset)
{
  const struct sfdo_prof_line *l = first_record_at (f, offset);

  if (!l || (l + 1 < f->lines + f->nlines && l[1].offset == offset))
    return NULL;
  return l;
}

/* The record F has for (OFFSET, DISC), or NULL: an exact match, else the
   line's only record where this body has the line in one block too.  One
   block at the line in the profiled binary and one here are the same
   block, numbered otherwise: by another GCC (GCC 12 gave each of a
   block's lines the block's discriminator, so every line of a loop body
   took the number its latch's line needed; GCC 13 and newer number
   statements, with a new number after each call, and GCC 16 every block
   a line spans), or by a build whose blocks split otherwise.  */

/* The largest record F has at line OFFSET where the profiled binary may
   have numbered the line's blocks otherwise than this body (while the
   table stands): F's records at the discriminators this body's
   statements of the line have are all zero, and one at a discriminator
   none of them has holds a count; NULL otherwise.  */

static const struct sfdo_prof_line *
renumbered_line_max (const struct sfdo_prof_func *f, uint32_t offset)
{
  const struct sfdo_prof_line *most = NULL;
  bool matched = false;

  for (const struct sfdo_prof_line *l = first_record_at (f, offset);
       l && l < f->lines + f->nlines && l->offset == offset; l++)
    if (body_line_has_disc (f, offset, l->discriminator))
      {
	if (l->count)
	  return NULL;
	matched = true;
      }
    else if (l->count && (!most || l->count > most->count))
      most = l;
  return matched ? most : NULL;
}

static const struct sfdo_prof_line *
line_record (const struct sfdo_prof_func *f, uint32_t offset, uint32_t disc)
{
  const struct sfdo_prof_line *l = sfdo_prof_func_find_line (f, offset, disc);
  const struct sfdo_prof_line *sole = sole_line_at (f, offset);

  /* Reading them as they are places more counts right than leaving the
     line to the flow (block overlap with -fprofile-use on the e2e
     programs, profiles of GCC 12 and 13 read by 12, 13 and 16), but for
     a zero: the flow holds a measured zero, and one read off another
     block (GCC 16's loop guard for GCC 12's loop test in divisors.c)
     stops a hot loop.  The unit says how many lines it read so.  */
  if (l && !sole && other_numbering)
    {
      other_numbering_lines->add (sfdo_line_key::value_type (f, offset));
      if (l->count == 0)
	return NULL;
    }
  if (!l && sole && body_line_in_one_block (f, offset))
    l = sole;
  return l;
}

/* The count F records at (OFFSET, DISC) (line_record); failing that, the
   line's count where F holds no discriminator at all: the profiled
   binary's line table kept none for the function (-O3's loop nests keep
   only 0: GCC's init-array.c).  Where F holds some, the profiled binary
   told blocks apart and had no code of its own at DISC: folded (the
   second operand of 20050826-2.c's 'i == 1 && rta[i] != 0', known from
   the first) or merged into other lines' code (the tails of Lua's opcode
   handlers), so it is not measured.  Taking the line's largest count
   there gave three blocks of Lua's OP_IDIV 21 million executions each,
   which the flow then had to take out of the interpreter's real paths.
   Return false if F has nothing to say; *EXACT says whether the count is
   the record's.  */

static bool
line_count (const struct sfdo_prof_func *f, uint32_t offset, uint32_t disc,
	    uint64_t *count, bool *exact)
{
  const struct sfdo_prof_line *l = line_record (f, offset, disc);

  *count = l ? l->count : 0;
  *exact = l != NULL;
  if (l)
    return true;
  if (disc == 0)
    return false;
  /* F's lines are sorted by (offset, discriminator): the line's other
     discriminators follow its record at 0.  */
  l = sfdo_prof_func_find_line (f, offset, 0);
  if (!l || (l + 1 < f->lines + f->nlines && l[1].offset == offset))
    return false;
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].discriminator != 0)
      return false;
  *count = l->count;
  return true;
}

bool
sfdo_stmt_count (const struct sfdo_prof_func *f, gimple *stmt, unsigned disc,
		 uint64_t *count, bool *exact)
{
  uint32_t off;

  *exact = false;
  f = sfdo_innermost_profile (f, stmt, &off);
  return f && line_count (f, off, disc, count, exact);
}

bool
sfdo_stmt_renumbered_count (const struct sfdo_prof_func *f, gimple *stmt,
			    uint64_t *count)
{
  uint32_t off;
  const struct sfdo_prof_line *most;

  f = sfdo_innermost_profile (f, stmt, &off);
  if (!f || !(most = renumbered_line_max (f, off)))
    return false;
  *count = most->count;
  return true;
}

uint64_t
sfdo_stmt_line_count_elsewhere (const struct sfdo_prof_func *f, gimple *stmt,
				unsigned disc)
{
  uint32_t off;
  uint64_t most = 0;

  f = sfdo_innermost_profile (f, stmt, &off);
  for (const struct sfdo_prof_line *l = f ? first_record_at (f, off) : NULL;
       l && l < f->lines + f->nlines && l->offset == off; l++)
    if (l->discriminator != disc)
      most = MAX (most, l->count);
  return most;
}

bool
sfdo_call_count (const struct sfdo_prof_func *f, gimple *call, unsigned disc,
		 tree callee, uint64_t *count)
{
  uint32_t off;
  const struct sfdo_prof_line *l;

  f = sfdo_innermost_profile (f, call, &off);
  if (!f || !(l = line_record (f, off, disc)))
    return false;
  for (size_t k = 0; k < l->ntargets; k++)
    if (names_decl (l->targets[k].name, callee))
      {
	*count = l->targets[k].count;
	return true;
      }
  return false;
}

const struct sfdo_prof_func *
sfdo_inlined_callee_profile (const struct sfdo_prof_func *f, gimple *call,
			     unsigned disc, tree callee)
{
  uint32_t off;

  f = sfdo_innermost_profile (f, call, &off);
  return f ? callee_profile (f, off, disc, callee) : NULL;
}

const struct sfdo_prof_values *
sfdo_histogram_at (const struct sfdo_prof_func *f, gimple *stmt,
		   unsigned disc, uint32_t kind)
{
  uint32_t off;
  const struct sfdo_prof_func *g = sfdo_innermost_profile (f, stmt, &off);
  const struct sfdo_prof_values *other = NULL;
  unsigned others = 0;

  /* Another discriminator's histogram belongs to another statement of
     the line, unless it is the line's only one (blocks renumbered).  */
  for (size_t i = 0; g && i < g->nvalues; i++)
    if (g->values[i].offset == off && g->values[i].kind == kind)
      {
	if (g->values[i].discriminator == disc)
	  return &g->values[i];
	other = &g->values[i];
	others++;
      }
  return others == 1 ? other : NULL;
}
