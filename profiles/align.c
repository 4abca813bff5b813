/* profiles/align.c - aligning a profile to a newer source (align.h).  */
#include "align.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "profile.h"

int
sfdo_same_callee (const char *a, const char *b)
{
  size_t na, nb;
  a = sfdo_name_base (a, &na);
  b = sfdo_name_base (b, &nb);
  return na == nb && memcmp (a, b, na) == 0;
}

static int
anchor_cmp (const void *x, const void *y)
{
  const struct sfdo_anchor *a = x, *b = y;
  if (a->offset != b->offset)
    return a->offset < b->offset ? -1 : 1;
  return strcmp (a->name, b->name);
}

size_t
sfdo_anchors_sort (struct sfdo_anchor *a, size_t n)
{
  size_t k = 0;
  if (n)
    qsort (a, n, sizeof *a, anchor_cmp);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || anchor_cmp (&a[i], &a[k - 1]) != 0)
      a[k++] = a[i];
  return k;
}

const char sfdo_branch_anchor[] = "~branch";

struct sfdo_anchor *
sfdo_prof_func_anchors (const struct sfdo_profile *p,
                        const struct sfdo_prof_func *f, size_t *n)
{
  size_t cap = f->ncallsites + f->nlines, k = 0;
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind == SFDO_VALUE_CALL_SITES)
      cap += f->values[i].nentries;
  *n = 0;
  if (!cap)
    return NULL;
  struct sfdo_anchor *a = sfdo_xmalloc (cap * sizeof *a);
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind == SFDO_VALUE_CALL_SITES)
      for (size_t e = 0; e < f->values[i].nentries; e++)
        a[k++] = (struct sfdo_anchor) {
          f->values[i].offset,
          sfdo_profile_str (p, (uint32_t) f->values[i].entries[e].value)
        };
  for (size_t i = 0; i < f->ncallsites; i++)
    a[k++] = (struct sfdo_anchor) {
      f->callsites[i].offset, sfdo_profile_str (p, f->callsites[i].callee->name)
    };
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].discriminator)
      a[k++] = (struct sfdo_anchor) { f->lines[i].offset, sfdo_branch_anchor };
  *n = sfdo_anchors_sort (a, k);
  return a;
}

/* What matching A and B scores: 0 for other callees; a call 4, a branch
   (weaker evidence: optimisation may merge or drop blocks) 2; twice that
   and one more for an anchor that kept its offset.  Without the premium a
   crooked alignment that pairs one more anchor would win over the one
   that leaves them all in place, and call a profile stale that is not
   (the profiled binary cross-jumps identical code and keeps one copy's
   lines).  The one more breaks the remaining ties for the alignment that
   moves fewer anchors: branch lines {18, 21} in the profile and {14, 18}
   today (SQLite's sqlite3LogEstAdd with its own fresh profile: the
   profiled binary dropped one block's discriminator, today's body has
   another) pair as 18-18, not as 18-14 and 21-18.  */
static uint64_t
match_score (const struct sfdo_anchor *a, const struct sfdo_anchor *b)
{
  if (!sfdo_same_callee (a->name, b->name))
    return 0;
  uint64_t base = strcmp (a->name, sfdo_branch_anchor) == 0 ? 2 : 4;
  return a->offset == b->offset ? 2 * base + 1 : base;
}

static uint64_t
max3 (uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t m = a > b ? a : b;
  return m > c ? m : c;
}

/* The distance pair P moved.  */
static int64_t
shift (const struct sfdo_anchor_pair *p)
{
  return p->to - p->from;
}

/* Drop from the N pairs P each pair of branches that moved by another
   distance than its neighbours, which agree with each other (the
   declaration, never moved, before the first).  The last pair has one
   neighbour: it is dropped when the two pairs before it agree with each
   other and not with it (SQLite's insertElement with its own fresh
   profile: five branches in place, the last one's block merged away in
   one build and not the other), and kept otherwise: a leaf function's one
   loop is its only anchor.  Returns how many are left.  */
static size_t
drop_lone_branches (struct sfdo_anchor_pair *p, size_t n)
{
  size_t k = 0;
  int64_t before = 0, before_that = 0;
  for (size_t i = 0; i < n; i++)
    {
      int64_t own = shift (&p[i]);
      int lone = p[i].branch && own != before
                 && (i + 1 < n ? shift (&p[i + 1]) == before
                               : i >= 2 && before_that == before);
      before_that = before;
      before = own;
      if (!lone)
        p[k++] = p[i];
    }
  return k;
}

static int
is_branch (const struct sfdo_anchor *a)
{
  return strcmp (a->name, sfdo_branch_anchor) == 0;
}

/* The calls among the N anchors A, into a new array (*N updated).  */
static struct sfdo_anchor *
calls_only (const struct sfdo_anchor *a, size_t *n)
{
  struct sfdo_anchor *c = sfdo_xmalloc ((*n + 1) * sizeof *c);
  size_t k = 0;
  for (size_t i = 0; i < *n; i++)
    if (!is_branch (&a[i]))
      c[k++] = a[i];
  *n = k;
  return c;
}

/* The alignment itself, of anchors of one kind or of both.  */
static int align_anchors (const struct sfdo_anchor *old, size_t nold,
                          const struct sfdo_anchor *cur, size_t ncur,
                          struct sfdo_anchor_pair **pairs, size_t *npairs);

int
sfdo_align_anchors (const struct sfdo_anchor *old, size_t nold,
                    const struct sfdo_anchor *cur, size_t ncur,
                    struct sfdo_anchor_pair **pairs, size_t *npairs)
{
  size_t calls = 0;
  for (size_t i = 0; i < nold; i++)
    calls += !is_branch (&old[i]);
  if (!calls || calls == nold)
    return align_anchors (old, nold, cur, ncur, pairs, npairs);
  /* A function with calls is aligned by its calls alone: in a large
     function GCC's blocks, merged and split by optimisation, pull a
     branch alignment off the calls' (Lua 5.4.2 on 5.4.4: overlap with a
     fresh profile 77% by calls, 60% with branches).  */
  size_t no = nold, nc = ncur;
  struct sfdo_anchor *o = calls_only (old, &no), *c = calls_only (cur, &nc);
  int rc = align_anchors (o, no, c, nc, pairs, npairs);
  free (o);
  free (c);
  return rc;
}

static int
align_anchors (const struct sfdo_anchor *old, size_t nold,
               const struct sfdo_anchor *cur, size_t ncur,
               struct sfdo_anchor_pair **pairs, size_t *npairs)
{
  *pairs = NULL;
  *npairs = 0;
  if ((uint64_t) (nold + 1) * (ncur + 1) > SFDO_MAX_ALIGN_CELLS)
    return -1;
  /* BEST[i][j]: the best alignment of OLD[i..] and CUR[j..].  */
  size_t w = ncur + 1;
  uint64_t *best = sfdo_xcalloc ((nold + 1) * w, sizeof *best);
  for (size_t i = nold; i-- > 0;)
    for (size_t j = ncur; j-- > 0;)
      {
        uint64_t s = match_score (&old[i], &cur[j]);
        best[i * w + j] = max3 (best[(i + 1) * w + j], best[i * w + j + 1],
                                s ? best[(i + 1) * w + j + 1] + s : 0);
      }
  size_t cap = (nold < ncur ? nold : ncur) + 1;
  *pairs = sfdo_xmalloc (cap * sizeof **pairs);
  for (size_t i = 0, j = 0; i < nold && j < ncur;)
    {
      uint64_t s = match_score (&old[i], &cur[j]);
      if (s && best[i * w + j] == best[(i + 1) * w + j + 1] + s)
        {
          (*pairs)[(*npairs)++] = (struct sfdo_anchor_pair) {
            old[i].offset, cur[j].offset, is_branch (&old[i])
          };
          i++, j++;
        }
      else if (best[(i + 1) * w + j] >= best[i * w + j + 1])
        i++;
      else
        j++;
    }
  free (best);
  *npairs = drop_lone_branches (*pairs, *npairs);
  return 0;
}

int
sfdo_anchor_pairs_unmoved (const struct sfdo_anchor_pair *pairs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (pairs[i].from != pairs[i].to)
      return 0;
  return 1;
}

int64_t
sfdo_anchor_move (const struct sfdo_anchor_pair *pairs, size_t n,
                  uint32_t offset, int *strong)
{
  struct sfdo_anchor_pair lo = { 0, 0, 0 }, hi = { -1, -1, 0 };
  for (size_t i = 0; i < n; i++)
    if (pairs[i].from <= (int64_t) offset)
      lo = pairs[i];
    else
      {
        hi = pairs[i];
        break;
      }
  *strong = hi.from < 0 || hi.from - lo.from == hi.to - lo.to;
  if (*strong || (int64_t) offset - lo.from <= hi.from - (int64_t) offset)
    return (int64_t) offset + (lo.to - lo.from);
  return (int64_t) offset + (hi.to - hi.from);
}

/* The newer binary's lines of a function and its anchors' pairs: how a
   line of the older profile moves.  */
struct shape_move {
  const struct sfdo_anchor_pair *pairs;
  size_t npairs;
  const struct sfdo_prof_func *now;     /* the function in the shape */
};

/* Where OFFSET goes, -1 where the newer binary has no code; *STRONG.  */
static int64_t
shape_offset (const struct shape_move *m, uint32_t offset, int *strong)
{
  int64_t to = sfdo_anchor_move (m->pairs, m->npairs, offset, strong);
  if (to < 0 || to > UINT32_MAX)
    return -1;
  /* The shape's lines are sorted by offset (finalized).  */
  size_t lo = 0, hi = m->now->nlines;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (m->now->lines[mid].offset < (uint32_t) to)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < m->now->nlines && m->now->lines[lo].offset == (uint32_t) to
         ? to : -1;
}

static int64_t
shape_callback (uint32_t offset, void *ctx)
{
  int strong;
  return shape_offset (ctx, offset, &strong);
}

static uint32_t
last_line (const struct sfdo_prof_func *f)
{
  uint32_t last = 0;
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].offset > last)
      last = f->lines[i].offset;
  return last;
}

/* F (of P) moved to NOW's lines by the N pairs PAIRS (room for one more:
   the closing lines), in place; counted in R.  */
static void
move_function (struct sfdo_profile *p, struct sfdo_prof_func *f,
               const struct sfdo_prof_func *now,
               struct sfdo_anchor_pair *pairs, size_t n,
               struct sfdo_align_report *r, FILE *notes)
{
  int64_t from_end = last_line (f), to_end = last_line (now);
  size_t anchors = n;
  if (from_end > pairs[n - 1].from && to_end > pairs[n - 1].to)
    pairs[n++] = (struct sfdo_anchor_pair) { from_end, to_end, 0 };
  struct shape_move m = { pairs, n, now };
  uint64_t strong = 0, weak = 0, dropped = 0;
  for (size_t i = 0; i < f->nlines; i++)
    {
      int s;
      uint64_t *into = shape_offset (&m, f->lines[i].offset, &s) < 0
                       ? &dropped : s ? &strong : &weak;
      *into = sfdo_sat_add (*into, f->lines[i].count);
    }
  struct sfdo_offset_move move = { shape_callback, &m };
  sfdo_prof_func_take (f, sfdo_prof_func_copy_moved (p, f, &move));
  r->strong = sfdo_sat_add (r->strong, strong);
  r->weak = sfdo_sat_add (r->weak, weak);
  r->dropped = sfdo_sat_add (r->dropped, dropped);
  if (notes)
    fprintf (notes, "%s: lines moved with %zu call sites; weight %" PRIu64
             " strong, %" PRIu64 " weak, %" PRIu64 " left out\n",
             sfdo_profile_str (p, f->name), anchors, strong, weak, dropped);
}

/* F (of P) in SHAPE: by name, a static one by the file whose path ends
   most alike.  */
static const struct sfdo_prof_func *
in_shape (struct sfdo_profile *p, const struct sfdo_prof_func *f,
          struct sfdo_profile *shape)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  const char *name = sfdo_profile_str (p, f->name);
  if (f->file)
    return sfdo_profile_find_static (shape, name,
                                     sfdo_profile_str (p, f->file), &err);
  return sfdo_profile_find (shape, name, NULL, &err);
}

uint64_t
sfdo_anchors_signature (const struct sfdo_anchor *a, size_t n)
{
  if (n < 2)
    return 0;
  uint64_t h = 1469598103934665603ull;
  size_t calls = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (a[i].name == sfdo_branch_anchor
          || strcmp (a[i].name, sfdo_branch_anchor) == 0)
        continue;
      calls++;
      size_t len;
      const char *name = sfdo_name_base (a[i].name, &len);
      uint64_t part = sfdo_fnv1a (name, len);
      h = (h ^ part) * 1099511628211ull;
    }
  return calls < 2 ? 0 : h ? h : 1;
}

uint64_t
sfdo_prof_func_signature (const struct sfdo_profile *p,
                          const struct sfdo_prof_func *f)
{
  size_t n;
  struct sfdo_anchor *a = sfdo_prof_func_anchors (p, f, &n);
  uint64_t h = sfdo_anchors_signature (a, n);
  free (a);
  return h;
}

int
sfdo_similar_names (const char *a, const char *b)
{
  size_t na, nb;
  a = sfdo_name_base (a, &na);
  b = sfdo_name_base (b, &nb);
  if (sfdo_same_callee (a, b))
    return 0;
  size_t longer = na > nb ? na : nb;
  if (!longer || longer > 256)
    return 0;
  /* Levenshtein distance, one row at a time.  */
  size_t row[257];
  for (size_t j = 0; j <= nb; j++)
    row[j] = j;
  for (size_t i = 1; i <= na; i++)
    {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= nb; j++)
        {
          size_t up = row[j];
          size_t best = diag + (a[i - 1] != b[j - 1]);
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          if (up + 1 < best)
            best = up + 1;
          row[j] = best;
          diag = up;
        }
    }
  return 5 * row[nb] <= 2 * longer;
}

size_t
sfdo_anchors_calls (const struct sfdo_anchor *a, size_t n)
{
  size_t calls = 0;
  for (size_t i = 0; i < n; i++)
    calls += !is_branch (&a[i]);
  return calls;
}

size_t
sfdo_anchors_shared (const struct sfdo_anchor *old, size_t nold,
                     const struct sfdo_anchor *cur, size_t ncur)
{
  struct sfdo_anchor_pair *pairs;
  size_t n = 0, shared = 0;
  if (sfdo_align_anchors (old, nold, cur, ncur, &pairs, &n) != 0)
    return 0;
  for (size_t i = 0; i < n; i++)
    shared += !pairs[i].branch;
  free (pairs);
  return shared;
}

/* The functions of SHAPE that P lacks: by signature (signature -> index
   + 1, or UINT64_MAX where two share one: no rename can choose; static
   and global ones apart, the key's low bit), and all of them in INDEX.  */
struct unclaimed {
  struct sfdo_u64map by_signature;
  size_t *index, n, cap;
  uint8_t *taken;               /* per shape function: renamed to already */
};

static void
unclaimed_shapes (struct sfdo_profile *p, struct sfdo_profile *shape,
                  struct unclaimed *u)
{
  u->taken = sfdo_xcalloc (sfdo_profile_nfuncs (shape) + 1, 1);
  for (size_t i = 0; i < sfdo_profile_nfuncs (shape); i++)
    {
      const struct sfdo_prof_func *g = sfdo_profile_func (shape, i, NULL);
      struct sfdo_error err;
      sfdo_error_clear (&err);
      const char *name = sfdo_profile_str (shape, g->name);
      if (g->file ? sfdo_profile_find_static (p, name,
                                              sfdo_profile_str (shape, g->file),
                                              &err)
                  : sfdo_profile_find (p, name, NULL, &err))
        continue;
      sfdo_xgrow (&u->index, &u->cap, u->n + 1, sizeof *u->index);
      u->index[u->n++] = i;
      uint64_t sig = sfdo_prof_func_signature (shape, g);
      if (!sig)
        continue;
      uint64_t *slot = sfdo_u64map_get (&u->by_signature,
                                        (sig << 1) | !!g->file);
      *slot = *slot ? UINT64_MAX : i + 1;
    }
}

/* The unclaimed function of SHAPE, of F's linkage, with a name like F's
   (of P) that shares most of F's calls, enough of them; SIZE_MAX if none
   or a tie.  */
static size_t
similar_shape (struct sfdo_profile *p, const struct sfdo_prof_func *f,
               struct sfdo_profile *shape, const struct unclaimed *u)
{
  size_t nold, best = SIZE_MAX, best_shared = 0;
  int tie = 0;
  struct sfdo_anchor *old = sfdo_prof_func_anchors (p, f, &nold);
  size_t calls = sfdo_anchors_calls (old, nold);
  const char *name = sfdo_profile_str (p, f->name);
  for (size_t k = 0; k < u->n && calls; k++)
    {
      const struct sfdo_prof_func *g = sfdo_profile_func (shape, u->index[k],
                                                         NULL);
      if (u->taken[u->index[k]] || !g->file != !f->file
          || !sfdo_similar_names (name, sfdo_profile_str (shape, g->name)))
        continue;
      size_t ncur;
      struct sfdo_anchor *cur = sfdo_prof_func_anchors (shape, g, &ncur);
      size_t shared = sfdo_anchors_shared (old, nold, cur, ncur);
      free (cur);
      if (!SFDO_SHARES_ENOUGH (shared, calls) || shared < best_shared)
        continue;
      tie = shared == best_shared;
      best = u->index[k];
      best_shared = shared;
    }
  free (old);
  return tie ? SIZE_MAX : best;
}

/* The function of SHAPE that F (of P, which SHAPE lacks by name) became:
   the one unclaimed function of its signature and linkage; NULL if none.
   F is renamed to it.  */
static const struct sfdo_prof_func *
renamed (struct sfdo_profile *p, struct sfdo_prof_func *f,
         struct sfdo_profile *shape, struct unclaimed *u, FILE *notes)
{
  uint64_t sig = sfdo_prof_func_signature (p, f);
  const uint64_t *slot
    = sig ? sfdo_u64map_find (&u->by_signature, (sig << 1) | !!f->file)
          : NULL;
  size_t i = slot && *slot != UINT64_MAX && !u->taken[*slot - 1]
             ? *slot - 1 : similar_shape (p, f, shape, u);
  if (i == SIZE_MAX)
    return NULL;
  const struct sfdo_prof_func *g = sfdo_profile_func (shape, i, NULL);
  const char *to = sfdo_profile_str (shape, g->name);
  if (notes)
    fprintf (notes, "%s: renamed %s (%s)\n", sfdo_profile_str (p, f->name),
             to, slot && *slot - 1 == i ? "the same call sites"
                                        : "a similar name, most calls shared");
  u->taken[i] = 1;
  f->name = sfdo_profile_intern_str (p, to);
  return g;
}

/* F's own lines (of P) aligned with NOW's (of SHAPE), in place: 1 when
   they moved, 0 when they fit as they were, -1 when there was nothing to
   align by.  */
static int
align_lines (struct sfdo_profile *p, struct sfdo_prof_func *f,
             struct sfdo_profile *shape, const struct sfdo_prof_func *now,
             struct sfdo_align_report *r, FILE *notes)
{
  size_t nold, nnow, npairs;
  struct sfdo_anchor *old = sfdo_prof_func_anchors (p, f, &nold);
  struct sfdo_anchor *cur = sfdo_prof_func_anchors (shape, now, &nnow);
  struct sfdo_anchor_pair *pairs = NULL;
  int moved = -1;
  if (nold && sfdo_align_anchors (old, nold, cur, nnow, &pairs, &npairs) == 0
      && npairs)
    {
      moved = !sfdo_anchor_pairs_unmoved (pairs, npairs);
      if (moved)
        move_function (p, f, now, pairs, npairs, r, notes);
    }
  free (old);
  free (cur);
  free (pairs);
  return moved;
}

/* The inline instance in NOW (of SHAPE) that F's callsite CS (of P)
   corresponds to: of the same callee, at the same position, or failing
   that the only one of that callee; NULL if none.  */
static const struct sfdo_prof_func *
instance_in_shape (struct sfdo_profile *p, const struct sfdo_prof_callsite *cs,
                   struct sfdo_profile *shape, const struct sfdo_prof_func *now)
{
  const char *name = sfdo_profile_str (p, cs->callee->name);
  const struct sfdo_prof_func *only = NULL;
  size_t same = 0;
  for (size_t i = 0; i < now->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &now->callsites[i];
      if (!sfdo_same_callee (sfdo_profile_str (shape, c->callee->name), name))
        continue;
      if (c->offset == cs->offset && c->discriminator == cs->discriminator)
        return c->callee;
      only = c->callee;
      same++;
    }
  return same == 1 ? only : NULL;
}

/* The inline instances in F (of P), at any depth, aligned with theirs in
   NOW (of SHAPE): an instance's lines count from its callee's
   declaration, so an edit inside a function the binary inlined moves
   them and not its caller's.  */
static void
align_instances (struct sfdo_profile *p, struct sfdo_prof_func *f,
                 struct sfdo_profile *shape, const struct sfdo_prof_func *now,
                 struct sfdo_align_report *r, FILE *notes)
{
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      struct sfdo_prof_func *inst = f->callsites[i].callee;
      const struct sfdo_prof_func *then = inst->total
        ? instance_in_shape (p, &f->callsites[i], shape, now) : NULL;
      if (!then)
        continue;
      if (align_lines (p, inst, shape, then, r, notes) > 0)
        r->moved_instances++;
      align_instances (p, inst, shape, then, r, notes);
    }
}

static void
align_function (struct sfdo_profile *p, struct sfdo_prof_func *f,
                struct sfdo_profile *shape, struct unclaimed *u,
                struct sfdo_align_report *r, FILE *notes)
{
  const struct sfdo_prof_func *now = in_shape (p, f, shape);
  if (!now && (now = renamed (p, f, shape, u, notes)))
    r->renamed++;
  if (!now)
    {
      r->missing++;
      return;
    }
  switch (align_lines (p, f, shape, now, r, notes))
    {
    case 1: r->moved++; break;
    case 0: r->exact++; break;
    default: r->unanchored++; break;
    }
  align_instances (p, f, shape, now, r, notes);
}

void
sfdo_align_to_shape (struct sfdo_profile *p, struct sfdo_profile *shape,
                     struct sfdo_align_report *r, FILE *notes)
{
  struct unclaimed u = { 0 };
  struct sfdo_error err;
  memset (r, 0, sizeof *r);
  unclaimed_shapes (p, shape, &u);
  for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      if (f && f->total)
        align_function (p, f, shape, &u, r, notes);
    }
  sfdo_u64map_release (&u.by_signature);
  free (u.index);
  free (u.taken);
  sfdo_error_clear (&err);
  if (r->renamed)
    sfdo_profile_finalize (p, &err);
}
