/* converter/attribute.c - counts at addresses to source positions (see
 * attribute.h).  */
#include "attribute.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "../profiles/profile.h"

void
attr_init (struct attributor *at, struct sfdo_symtab *symtab,
           struct sfdo_profile *p, enum sfdo_line_vote vote)
{
  memset (at, 0, sizeof *at);
  at->symtab = symtab;
  at->p = p;
  at->vote = vote;
}

static uint64_t
key_hash (const char *name, const char *file)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char *s = name; *s; s++)
    h = (h ^ (unsigned char) *s) * 0x100000001b3ull;
  h = (h ^ 1) * 0x100000001b3ull;
  for (const char *s = file ? file : ""; *s; s++)
    h = (h ^ (unsigned char) *s) * 0x100000001b3ull;
  return h == UINT64_MAX ? 0 : h;
}

/* AT's slot for function NAME_ID of FILE_ID (strings NAME, FILE): the
   one holding it, or the empty one it goes in.  */
static uint64_t *
top_slot (struct attributor *at, const char *name, const char *file,
          uint32_t name_id, uint32_t file_id)
{
  for (uint64_t h = key_hash (name, file);; h = h + 1 == UINT64_MAX ? 0 : h + 1)
    {
      uint64_t *slot = sfdo_u64map_get (&at->tops, h);
      if (!*slot)
        return slot;
      const struct sfdo_prof_func *f = at->top[*slot - 1];
      if (f->name == name_id && f->file == file_id)
        return slot;
    }
}

/* Put F in the empty SLOT of AT.  */
static struct sfdo_prof_func *
top_put (struct attributor *at, uint64_t *slot, struct sfdo_prof_func *f)
{
  sfdo_xgrow (&at->top, &at->cap_top, at->ntop + 1, sizeof *at->top);
  at->top[at->ntop++] = f;
  *slot = at->ntop;
  return f;
}

void
attr_adopt_functions (struct attributor *at)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  for (size_t i = 0; i < sfdo_profile_nfuncs (at->p); i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (at->p, i, &err);
      if (!f)
        continue;
      uint64_t *slot
        = top_slot (at, sfdo_profile_str (at->p, f->name),
                    f->file ? sfdo_profile_str (at->p, f->file) : NULL,
                    f->name, f->file);
      if (!*slot)
        top_put (at, slot, f);
    }
}

/* The top-level profile of function NAME of FILE, created if new.  */
static struct sfdo_prof_func *
top_func (struct attributor *at, const char *name, const char *file)
{
  uint32_t name_id = sfdo_profile_intern_str (at->p, name);
  uint32_t file_id = file ? sfdo_profile_intern_str (at->p, file) : 0;
  uint64_t *slot = top_slot (at, name, file, name_id, file_id);
  return *slot ? at->top[*slot - 1]
               : top_put (at, slot, sfdo_profile_add_func (at->p, name_id,
                                                           file_id));
}

/* The inlined callee NAME of FILE at (OFFSET, DISC) of F; where F has
   none, a new one if CREATE, else NULL.  */
static struct sfdo_prof_func *
find_callee_at (struct attributor *at, struct sfdo_prof_func *f,
                uint32_t offset, uint32_t disc, const char *name,
                const char *file, int create)
{
  uint32_t name_id = sfdo_profile_intern_str (at->p, name);
  uint32_t file_id = file ? sfdo_profile_intern_str (at->p, file) : 0;
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      struct sfdo_prof_callsite *c = &f->callsites[i];
      if (c->offset == offset && c->discriminator == disc
          && c->callee->name == name_id && c->callee->file == file_id)
        return c->callee;
    }
  return create ? sfdo_prof_func_add_callsite (f, offset, disc, name_id,
                                               file_id)
                : NULL;
}

/* The inlined callee NAME of FILE at (OFFSET, DISC) of F.  */
static struct sfdo_prof_func *
callee_at (struct attributor *at, struct sfdo_prof_func *f, uint32_t offset,
           uint32_t disc, const char *name, const char *file)
{
  return find_callee_at (at, f, offset, disc, name, file, 1);
}

/* Line offset of LINE in a function declared at DECL, or -1 if LINE comes
   before it (code from another file, or wrong DWARF).  */
static int64_t
line_offset (uint32_t line, uint32_t decl)
{
  return line >= decl ? (int64_t) (line - decl) : -1;
}

/* Whether frames A and B are the same function.  A part of a function
   inlined back into it "at" its own declaration line is what GCC's
   partial inlining leaves (foo.part.0, split off foo, inlined into foo's
   callers with foo): its lines are the function's own, counted there and
   not under a callsite the source does not have.  */
static int
same_function (const struct sfdo_frame *a, const struct sfdo_frame *b)
{
  return strcmp (a->function, b->function) == 0
         && (a->file == b->file
             || (a->file && b->file && strcmp (a->file, b->file) == 0));
}

/* The profile owning the source position at VADDR, and the position in
   it; NULL if VADDR has no usable line.  */
struct sfdo_prof_func *
attr_owner (struct attributor *at, uint64_t vaddr, uint32_t *offset,
            uint32_t *disc, struct sfdo_frame *frame)
{
  const struct sfdo_frame *fr;
  size_t n = sfdo_symtab_lookup (at->symtab, vaddr, &fr);
  if (n == 0)
    return NULL;
  struct sfdo_prof_func *f = top_func (at, fr[0].function, fr[0].file);
  for (size_t k = 0; k < n; k++)
    {
      int64_t off = line_offset (fr[k].line, fr[k].decl_line);
      if (off < 0)
        return NULL;
      if (k + 1 == n)
        {
          *offset = (uint32_t) off;
          *disc = fr[k].discriminator;
          if (frame)
            *frame = fr[k];
          return f;
        }
      if (off == 0 && same_function (&fr[k], &fr[k + 1]))
        continue;
      f = callee_at (at, f, (uint32_t) off, fr[k].discriminator,
                     fr[k + 1].function, fr[k + 1].file);
    }
  return NULL;
}

static void
add_vote (struct attributor *at, struct sfdo_prof_func *owner, uint32_t offset,
          uint32_t disc, uint32_t target, uint64_t block, uint64_t count,
          const struct sfdo_frame *frame)
{
  sfdo_xgrow (&at->votes, &at->cap_votes, at->nvotes + 1, sizeof *at->votes);
  at->votes[at->nvotes++] = (struct attr_vote) {
    owner, offset, disc, target, block, count,
    frame ? frame->stmt_start : 0, frame ? frame->column : 0,
    frame ? frame->row_start : 0, 0, 0
  };
}

/* Statements of other lines that also begin at VADDR (the instruction of
   OWNER's line FRAME): location views can stack several rows on one
   address, and the instruction belongs to the last one only; the others
   still began there, in the same block, and each counts as a start of
   its own line (SFDO_LINE_BLOCKS counts copies by their starts).  */
static void
add_other_starts (struct attributor *at, uint64_t vaddr, uint64_t block,
                  uint64_t count, struct sfdo_prof_func *owner,
                  const struct sfdo_frame *frame)
{
  const struct sfdo_stmt_row *rows;
  size_t n = sfdo_symtab_statements_at (at->symtab, vaddr, &rows);
  for (size_t i = 0; i < n; i++)
    {
      struct sfdo_frame other = *frame;
      int64_t off = line_offset (rows[i].line, frame->decl_line);
      if (rows[i].line == frame->line || off < 0)
        continue;
      other.stmt_start = 1;
      other.column = rows[i].column;
      add_vote (at, owner, (uint32_t) off, rows[i].discriminator, 0, block,
                sfdo_sat_mul (count, rows[i].factor), &other);
      at->votes[at->nvotes - 1].start_only = 1;
    }
}

/* One execution of a vectorized instruction ran FRAME's factor of its
   line's executions (GCC 16 records the vectorization factor), and so did
   one of its block, whose count blocks_vote takes from its instructions'
   largest: the vote carries it.  */
void
attr_line (struct attributor *at, uint64_t vaddr, uint64_t block,
           uint32_t block_insns, uint64_t count)
{
  uint32_t off = 0, disc = 0;
  struct sfdo_frame frame;
  struct sfdo_prof_func *owner = attr_owner (at, vaddr, &off, &disc, &frame);
  if (!owner)
    return;
  add_vote (at, owner, off, disc, 0, block,
            sfdo_sat_mul (count, frame.factor), &frame);
  at->votes[at->nvotes - 1].block_insns = block_insns;
  if (at->vote == SFDO_LINE_BLOCKS)
    add_other_starts (at, vaddr, block, count, owner, &frame);
}

void
attr_call (struct attributor *at, uint64_t vaddr, const char *callee,
           uint64_t count)
{
  uint32_t off = 0, disc = 0;
  struct sfdo_prof_func *owner = attr_owner (at, vaddr, &off, &disc, NULL);
  if (owner && count)
    add_vote (at, owner, off, disc, sfdo_profile_intern_str (at->p, callee),
              0, count, NULL);
}

/* Whether SEEN holds KEY (SIZE bytes) already; it does afterwards.  */
static int
seen_before (struct sfdo_u64map *seen, const uint64_t *key, size_t size)
{
  uint64_t *slot
    = sfdo_u64map_get (seen, sfdo_fnv1a ((const char *) key, size) | 1);
  int before = *slot != 0;
  *slot = 1;
  return before;
}

/* The first of frames FR[K..N) that is not a part of its function
   inlined back into it at its declaration line (same_function).  */
static size_t
skip_self_frames (const struct sfdo_frame *fr, size_t k, size_t n)
{
  while (k + 1 < n && fr[k].line == fr[k].decl_line
         && same_function (&fr[k], &fr[k + 1]))
    k++;
  return k;
}

void
attr_call_site (struct attributor *at, uint64_t vaddr, const char *callee,
                struct sfdo_u64map *seen)
{
  const struct sfdo_frame *fr;
  size_t n = sfdo_symtab_lookup (at->symtab, vaddr, &fr);
  if (n == 0)
    return;
  struct sfdo_prof_func *f = top_func (at, fr[0].function, fr[0].file);
  for (size_t k = skip_self_frames (fr, 0, n); f;
       k = skip_self_frames (fr, k + 1, n))
    {
      const char *name = k + 1 < n ? fr[k + 1].function : callee;
      int64_t off = line_offset (fr[k].line, fr[k].decl_line);
      if (!name || off < 0)
        return;
      uint32_t id = sfdo_profile_intern_str (at->p, name);
      uint64_t key[4] = { (uintptr_t) f, (uint64_t) off, fr[k].discriminator,
                          id };
      if (!seen_before (seen, key, sizeof key))
        sfdo_prof_func_add_value (f, (uint32_t) off, fr[k].discriminator,
                                  SFDO_VALUE_CALL_SITES, id, 1);
      if (k + 1 >= n)
        return;
      f = find_callee_at (at, f, (uint32_t) off, fr[k].discriminator,
                          fr[k + 1].function, fr[k + 1].file, at->shape);
    }
}

void
attr_top_line (struct attributor *at, uint64_t vaddr, struct sfdo_u64map *seen,
               int own_only)
{
  const struct sfdo_frame *fr;
  size_t n = sfdo_symtab_lookup (at->symtab, vaddr, &fr);
  int64_t off = n ? line_offset (fr[0].line, fr[0].decl_line) : -1;
  if (off < 0 || (own_only && n != 1))
    return;
  struct sfdo_prof_func *f = top_func (at, fr[0].function, fr[0].file);
  uint32_t disc = n == 1 ? fr[0].discriminator : 0;
  uint64_t key[3] = { (uintptr_t) f, (uint64_t) off, disc };
  if (!seen_before (seen, key, sizeof key))
    sfdo_prof_func_add_line (f, (uint32_t) off, disc, 0);
  /* A binary's shape has its inline instances too, for their lines to be
     aligned as their callee's (profiles/align.h).  */
  if (!at->shape || n == 1)
    return;
  uint32_t where = 0;
  struct sfdo_prof_func *inst = attr_owner (at, vaddr, &where, &disc, NULL);
  uint64_t ikey[3] = { (uintptr_t) inst, where, disc };
  if (inst && inst != f && !seen_before (seen, ikey, sizeof ikey))
    sfdo_prof_func_add_line (inst, where, disc, 0);
}

void
attr_value (struct attributor *at, uint64_t vaddr, uint32_t kind,
            uint64_t value, uint64_t count)
{
  uint32_t off = 0, disc = 0;
  struct sfdo_prof_func *owner = attr_owner (at, vaddr, &off, &disc, NULL);
  if (owner && count)
    sfdo_prof_func_add_value (owner, off, disc, kind, value, count);
}

const char *
attr_function_name (struct attributor *at, uint64_t target)
{
  const struct sfdo_frame *fr;
  uint64_t lo, hi;
  /* GCC gives a C++ this-adjusting thunk an ELF symbol and line rows but
     no DWARF function: its symbol names it (GCC's cgraph knows it by that
     name, and a virtual call's target is often one).  */
  if (sfdo_symtab_function_range (at->symtab, target, &lo, &hi) != 0)
    return sfdo_symtab_call_name (at->symtab, target);
  if (lo != target)
    return NULL;
  if (sfdo_symtab_lookup (at->symtab, target, &fr) == 0 || !fr[0].function)
    return sfdo_symtab_call_name (at->symtab, target);
  return fr[0].function;
}

const char *
attr_callee_name (struct attributor *at, uint64_t call, uint64_t target)
{
  const char *origin = sfdo_symtab_call_origin (at->symtab, call);
  const char *at_target = attr_function_name (at, target);
  return at_target && origin ? origin : at_target;
}

struct sfdo_prof_func *
attr_function_at (struct attributor *at, uint64_t entry)
{
  const struct sfdo_frame *fr;
  if (!attr_function_name (at, entry)
      || sfdo_symtab_lookup (at->symtab, entry, &fr) == 0)
    return NULL;
  return top_func (at, fr[0].function, fr[0].file);
}

/* --- Votes to lines --------------------------------------------------- */

static int
vote_cmp (const void *a, const void *b)
{
  const struct attr_vote *x = a, *y = b;
  if (x->owner != y->owner)
    return (uintptr_t) x->owner < (uintptr_t) y->owner ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  if (x->disc != y->disc)
    return x->disc < y->disc ? -1 : 1;
  if (x->target != y->target)
    return x->target < y->target ? -1 : 1;
  return x->block < y->block ? -1 : x->block > y->block;
}

/* Whether votes X and Y are for the same line or call.  */
static int
same_key (const struct attr_vote *x, const struct attr_vote *y)
{
  return x->owner == y->owner && x->offset == y->offset && x->disc == y->disc
         && x->target == y->target;
}

/* How many copies of a line one machine block holds, from its votes
   V[0..N) there: the most statement starts at any one column.  Unrolling
   repeats a statement in one block, each copy beginning where the
   original did; two statements of one line (a for loop's test and
   increment) begin at different columns and are one copy.  */
static uint64_t
copies_in_block (const struct attr_vote *v, size_t n)
{
  uint64_t most = 0;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t same = 0;
      if (!v[i].stmt_start)
        continue;
      for (size_t k = 0; k < n; k++)
        same += v[k].stmt_start && v[k].column == v[i].column;
      most = same > most ? same : most;
    }
  return most;
}

/* How many copies of a line one machine block holds when none of them
   begins a statement (if-conversion leaves a conditional assignment as
   rows without is_stmt in the block of its condition): the fewest rows
   beginning at any one column the line has rows at.  One copy may split
   a column's instructions over several rows, around another line's;
   each copy still has a row at each of its columns.  At least 1.  */
static uint64_t
row_copies_in_block (const struct attr_vote *v, size_t n)
{
  uint64_t fewest = UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t same = 0;
      if (!v[i].row_start || v[i].start_only)
        continue;
      for (size_t k = 0; k < n; k++)
        same += v[k].row_start && !v[k].start_only
                && v[k].column == v[i].column;
      fewest = same < fewest ? same : fewest;
    }
  return fewest == UINT64_MAX ? 1 : fewest;
}

/* How many distinct columns the rows of a line that begin in V[0..N)
   are at (statement starts stacked under another line's row aside).  */
static size_t
row_columns (const struct attr_vote *v, size_t n)
{
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (!v[i].row_start || v[i].start_only)
        continue;
      size_t k = 0;
      while (k < i && !(v[k].row_start && !v[k].start_only
                        && v[k].column == v[i].column))
        k++;
      distinct += k == i;
    }
  return distinct;
}

/* Whether the votes V[0..N) of one block are all of its instructions:
   the block is the line and nothing else.  */
static int
line_is_block (const struct attr_vote *v, size_t n)
{
  uint32_t own = 0;
  for (size_t i = 0; i < n; i++)
    own += !v[i].start_only;
  return own && own == v[0].block_insns;
}

/* The count of a line from its votes V[0..N), sorted by block, under
   SFDO_LINE_BLOCKS.  A block's count is the largest of its instructions'
   (they ran as often as each other).  Only the blocks where one of the
   line's statements begins count (line-table rows marked is_stmt: GCC
   marks statement boundaries, and code that scheduling, hoisting or
   sinking moved into another block does not begin one): a hoisted
   instruction in a hot loop must not make an error path look hot, nor
   loop set-up code make the loop look cold.  Every copy of the line
   (unrolling, peeling, versioning: Chen et al. 6.2.2) ran part of its
   executions, so copies add up: several blocks, and several copies in
   one block (copies_in_block).  A line whose statement starts are all
   gone (merged into another line's row at the same address, or a line
   table without is_stmt) is known only through moved code, which can run
   more often than the line did (a store sunk out of a loop's error path
   runs on every exit): it takes its smallest count, and the plugin's
   block vote finds the block's count in its other statements.  Such a
   block's count stands for each copy of the line it holds
   (row_copies_in_block): an if-converted assignment in a fully unrolled
   loop is in the block once per iteration, and counting one would make
   the profile of an if-converted build say its arm was rare, and the
   next build branch there.  And where several blocks are the line and
   nothing else, with rows at every column the line has rows at, they
   are copies, not moved pieces, and add up, if they are as long as each
   other: GCC copies a loop's test
   for its first iteration, and a condition's second operand begins no
   statement (luaH_getshortstr's key test; without this the profile of
   the build that copied it gave the test its later iterations only, and
   the next build laid the lookup out for a miss).  Code moved out of a
   loop makes blocks of the line too, of other lengths (coldcall.c's
   inlined note_bad_record: the store of last_bad sunk to the exit, whose
   test of the flag store motion made runs on every exit; e2e 55).  A
   start
   stacked under another line's row at one address (location views: a
   zero-length row, which covers no instruction of the line) counts in a
   block that holds some of the line's instructions (unrolled copies
   merged into their neighbours), or for a line with no instruction at
   all; not alone in a block of its own, for GCC stacks such rows at
   joins too, where the line did not run (demo.c's rare++ on its rare
   arm has one at the loop's increment, which runs eight times as
   often).  */
static uint64_t
blocks_vote (const struct attr_vote *v, size_t n)
{
  uint64_t sum = 0, min = UINT64_MAX, whole = 0;
  size_t columns = row_columns (v, n), wholes = 0;
  uint32_t shape = 0;           /* the whole blocks' size, UINT32_MAX: several */
  int real = 0;
  for (size_t i = 0; i < n; i++)
    real |= !v[i].start_only;
  for (size_t i = 0, j; i < n; i = j)
    {
      uint64_t count = 0;
      int stacked_only = 1;
      for (j = i; j < n && v[j].block == v[i].block; j++)
        {
          count = v[j].count > count ? v[j].count : count;
          stacked_only &= v[j].start_only;
        }
      if (real && stacked_only)
        continue;
      uint64_t moved = sfdo_sat_mul (count, row_copies_in_block (v + i, j - i));
      min = moved < min ? moved : min;
      if (columns && row_columns (v + i, j - i) == columns
          && line_is_block (v + i, j - i))
        {
          whole = sfdo_sat_add (whole, moved), wholes++;
          shape = !shape || shape == v[i].block_insns ? v[i].block_insns
                                                      : UINT32_MAX;
        }
      sum = sfdo_sat_add (sum, sfdo_sat_mul (count,
                                             copies_in_block (v + i, j - i)));
    }
  return sum ? sum : wholes > 1 && shape != UINT32_MAX ? whole : min;
}

/* Turn the votes of one key, V[0..N), into a line count or a call count.
   Calls add up (each is one call instruction run COUNT times); lines take
   the max or mean of their instructions.  */
static void
settle (struct attributor *at, const struct attr_vote *v, size_t n)
{
  uint64_t sum = 0, max = 0;
  for (size_t i = 0; i < n; i++)
    {
      sum = sfdo_sat_add (sum, v[i].count);
      max = v[i].count > max ? v[i].count : max;
    }
  if (v->target)
    {
      struct sfdo_prof_line *l
        = sfdo_prof_func_add_line (v->owner, v->offset, v->disc, 0);
      sfdo_prof_line_add_target (l, v->target, sum);
      return;
    }
  uint64_t count = at->vote == SFDO_LINE_MEAN ? sum / n
                   : at->vote == SFDO_LINE_MAX ? max : blocks_vote (v, n);
  sfdo_prof_func_add_line (v->owner, v->offset, v->disc, count);
}

static void
settle_votes (struct attributor *at)
{
  if (at->nvotes > 1)
    qsort (at->votes, at->nvotes, sizeof *at->votes, vote_cmp);
  for (size_t i = 0, j; i < at->nvotes; i = j)
    {
      for (j = i + 1; j < at->nvotes && same_key (&at->votes[i],
                                                  &at->votes[j]);
           j++)
        ;
      settle (at, &at->votes[i], j - i);
    }
}

void
attr_finish (struct attributor *at)
{
  settle_votes (at);
  for (size_t i = 0; i < at->ntop; i++)
    sfdo_prof_func_sum_totals (at->top[i]);
  free (at->votes);
  free (at->top);
  sfdo_u64map_release (&at->tops);
}
