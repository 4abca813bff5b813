/* profiles/profile_ops.c - canonical order, merge and overlap.
 *
 * Canonical order (FORMAT.md) makes writing deterministic: sorting compares
 * string contents, never string ids, because ids depend on the order in
 * which strings were first seen and merge(A,B) must equal merge(B,A).  */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

/* qsort_r, skipping arrays already in order (profiles read back are, and
   re-sorting them was half the cost of writing) and the NULL base of an
   empty array.  */
static void
sort_r (void *base, size_t n, size_t size,
        int (*cmp) (const void *, const void *, void *), void *ctx)
{
  const char *b = (const char *) base;
  size_t i = 1;
  while (i < n && cmp (b + (i - 1) * size, b + i * size, ctx) <= 0)
    i++;
  if (i < n)
    qsort_r (base, n, size, cmp, ctx);
}

static int
call_plain_cmp (const void *a, const void *b, void *cmp)
{
  return (*(int (**) (const void *, const void *)) cmp) (a, b);
}

static void
sort (void *base, size_t n, size_t size,
      int (*cmp) (const void *, const void *))
{
  sort_r (base, n, size, call_plain_cmp, &cmp);
}

static int
cmp_u64 (uint64_t a, uint64_t b)
{
  return a < b ? -1 : a > b;
}

static int
cmp_site (uint32_t off_a, uint32_t disc_a, uint32_t off_b, uint32_t disc_b)
{
  if (off_a != off_b)
    return off_a < off_b ? -1 : 1;
  return cmp_u64 (disc_a, disc_b);
}

static int
cmp_str (const struct sfdo_profile *p, uint32_t a, uint32_t b)
{
  return a == b ? 0 : strcmp (sfdo_profile_str (p, a), sfdo_profile_str (p, b));
}

/* --- Call targets and value entries --------------------------------------- */

static int
target_by_name (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_target *x = a, *y = b;
  return cmp_str (ctx, x->name, y->name);
}

static int
target_by_count (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_target *x = a, *y = b;
  int c = cmp_u64 (y->count, x->count);
  return c ? c : cmp_str (ctx, x->name, y->name);
}

static void
finalize_targets (const struct sfdo_profile *p, struct sfdo_prof_line *l)
{
  if (l->ntargets < 2)
    return;
  sort_r (l->targets, l->ntargets, sizeof *l->targets, target_by_name,
           (void *) p);
  size_t n = 0;
  for (size_t i = 0; i < l->ntargets; i++)
    if (n && l->targets[n - 1].name == l->targets[i].name)
      l->targets[n - 1].count = sfdo_sat_add (l->targets[n - 1].count,
                                              l->targets[i].count);
    else
      l->targets[n++] = l->targets[i];
  l->ntargets = n;
  sort_r (l->targets, n, sizeof *l->targets, target_by_count, (void *) p);
}

struct value_ctx {
  const struct sfdo_profile *p;
  int by_name;
};

static int
entry_by_value (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_vcount *x = a, *y = b;
  const struct value_ctx *vc = ctx;
  if (vc->by_name)
    return cmp_str (vc->p, (uint32_t) x->value, (uint32_t) y->value);
  return cmp_u64 (x->value, y->value);
}

static int
entry_by_count (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_vcount *x = a, *y = b;
  int c = cmp_u64 (y->count, x->count);
  return c ? c : entry_by_value (a, b, ctx);
}

static void
finalize_entries (const struct sfdo_profile *p, struct sfdo_prof_values *v)
{
  struct value_ctx vc = { p, sfdo_value_kind_is_name (v->kind) };
  sort_r (v->entries, v->nentries, sizeof *v->entries, entry_by_value, &vc);
  size_t n = 0;
  for (size_t i = 0; i < v->nentries; i++)
    if (n && v->entries[n - 1].value == v->entries[i].value)
      v->entries[n - 1].count = sfdo_sat_add (v->entries[n - 1].count,
                                              v->entries[i].count);
    else
      v->entries[n++] = v->entries[i];
  v->nentries = n;
  sort_r (v->entries, n, sizeof *v->entries, entry_by_count, &vc);
}

/* --- Lines, value sites, callsites ------------------------------------------ */

static int
line_by_site (const void *a, const void *b)
{
  const struct sfdo_prof_line *x = a, *y = b;
  return cmp_site (x->offset, x->discriminator, y->offset, y->discriminator);
}

/* Append the targets of SRC to DST and free SRC's.  */
static void
move_targets (struct sfdo_prof_line *dst, struct sfdo_prof_line *src)
{
  for (size_t k = 0; k < src->ntargets; k++)
    sfdo_prof_line_add_target (dst, src->targets[k].name,
                               src->targets[k].count);
  free (src->targets);
  src->targets = NULL;
  src->ntargets = src->cap_targets = 0;
}

static void
finalize_lines (const struct sfdo_profile *p, struct sfdo_prof_func *f)
{
  sort (f->lines, f->nlines, sizeof *f->lines, line_by_site);
  size_t n = 0;
  for (size_t i = 0; i < f->nlines; i++)
    {
      struct sfdo_prof_line *cur = &f->lines[i];
      if (n && line_by_site (&f->lines[n - 1], cur) == 0)
        {
          struct sfdo_prof_line *keep = &f->lines[n - 1];
          keep->count = sfdo_sat_add (keep->count, cur->count);
          move_targets (keep, cur);
        }
      else
        f->lines[n++] = *cur;
    }
  f->nlines = n;
  for (size_t i = 0; i < n; i++)
    finalize_targets (p, &f->lines[i]);
}

static int
values_by_site (const void *a, const void *b)
{
  const struct sfdo_prof_values *x = a, *y = b;
  int c = cmp_site (x->offset, x->discriminator, y->offset, y->discriminator);
  return c ? c : cmp_u64 (x->kind, y->kind);
}

static void
finalize_values (const struct sfdo_profile *p, struct sfdo_prof_func *f)
{
  sort (f->values, f->nvalues, sizeof *f->values, values_by_site);
  size_t n = 0;
  for (size_t i = 0; i < f->nvalues; i++)
    {
      struct sfdo_prof_values *cur = &f->values[i];
      if (n && values_by_site (&f->values[n - 1], cur) == 0)
        {
          struct sfdo_prof_values *keep = &f->values[n - 1];
          for (size_t k = 0; k < cur->nentries; k++)
            {
              sfdo_xgrow (&keep->entries, &keep->cap_entries,
                          keep->nentries + 1, sizeof *keep->entries);
              keep->entries[keep->nentries++] = cur->entries[k];
            }
          free (cur->entries);
        }
      else
        f->values[n++] = *cur;
    }
  f->nvalues = n;
  for (size_t i = 0; i < n; i++)
    finalize_entries (p, &f->values[i]);
}

static int
callsite_cmp (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_callsite *x = a, *y = b;
  int c = cmp_site (x->offset, x->discriminator, y->offset, y->discriminator);
  if (!c)
    c = cmp_str (ctx, x->callee->name, y->callee->name);
  return c ? c : cmp_str (ctx, x->callee->file, y->callee->file);
}

static void
finalize_callsites (const struct sfdo_profile *p, struct sfdo_prof_func *f)
{
  sort_r (f->callsites, f->ncallsites, sizeof *f->callsites, callsite_cmp,
           (void *) p);
  size_t n = 0;
  for (size_t i = 0; i < f->ncallsites; i++)
    if (n && callsite_cmp (&f->callsites[n - 1], &f->callsites[i],
                           (void *) p) == 0)
      sfdo_prof_func_absorb (f->callsites[n - 1].callee,
                             f->callsites[i].callee);
    else
      f->callsites[n++] = f->callsites[i];
  f->ncallsites = n;
  for (size_t i = 0; i < n; i++)
    sfdo_prof_func_finalize (p, f->callsites[i].callee);
}

void
sfdo_prof_func_finalize (const struct sfdo_profile *p,
                         struct sfdo_prof_func *f)
{
  finalize_lines (p, f);
  finalize_values (p, f);
  finalize_callsites (p, f);
}

void
sfdo_prof_func_absorb (struct sfdo_prof_func *dst, struct sfdo_prof_func *src)
{
  dst->total = sfdo_sat_add (dst->total, src->total);
  dst->head = sfdo_sat_add (dst->head, src->head);
  if (src->has_checksum
      && (!dst->has_checksum || src->checksum > dst->checksum))
    dst->checksum = src->checksum;
  dst->has_checksum |= src->has_checksum;
  for (size_t i = 0; i < src->nlines; i++)
    {
      struct sfdo_prof_line *l
        = sfdo_prof_func_add_line (dst, src->lines[i].offset,
                                   src->lines[i].discriminator,
                                   src->lines[i].count);
      move_targets (l, &src->lines[i]);
    }
  for (size_t i = 0; i < src->nvalues; i++)
    {
      struct sfdo_prof_values *v = &src->values[i];
      for (size_t k = 0; k < v->nentries; k++)
        sfdo_prof_func_add_value (dst, v->offset, v->discriminator, v->kind,
                                  v->entries[k].value, v->entries[k].count);
    }
  for (size_t i = 0; i < src->ncallsites; i++)
    {
      sfdo_xgrow (&dst->callsites, &dst->cap_callsites, dst->ncallsites + 1,
                  sizeof *dst->callsites);
      dst->callsites[dst->ncallsites++] = src->callsites[i];
    }
  src->ncallsites = 0;
  sfdo_prof_func_free (src);
}

/* --- The whole profile ------------------------------------------------------ */

static int
func_by_key (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_func *x = *(struct sfdo_prof_func *const *) a;
  const struct sfdo_prof_func *y = *(struct sfdo_prof_func *const *) b;
  int c = cmp_str (ctx, x->name, y->name);
  return c ? c : cmp_str (ctx, x->file, y->file);
}

static int
func_canonical (const void *a, const void *b, void *ctx)
{
  const struct sfdo_prof_func *x = *(struct sfdo_prof_func *const *) a;
  const struct sfdo_prof_func *y = *(struct sfdo_prof_func *const *) b;
  int c = cmp_u64 (y->total, x->total);
  return c ? c : func_by_key (a, b, ctx);
}

/* Whether P's functions are in canonical order with no key twice, so
   finalize need not sort them by key to find duplicates.  */
static int
funcs_canonical (struct sfdo_profile *p)
{
  for (size_t i = 1; i < p->nfuncs; i++)
    if (func_canonical (&p->funcs[i - 1], &p->funcs[i], p) > 0)
      return 0;
  return !sfdo_profile_has_duplicate_funcs (p);
}

enum sfdo_errc
sfdo_profile_finalize (struct sfdo_profile *p, struct sfdo_error *err)
{
  enum sfdo_errc rc = sfdo_profile_load_all (p, err);
  if (rc != SFDO_OK)
    return rc;
  if (funcs_canonical (p))
    {
      for (size_t i = 0; i < p->nfuncs; i++)
        sfdo_prof_func_finalize (p, p->funcs[i]);
      return SFDO_OK;
    }
  sort_r (p->funcs, p->nfuncs, sizeof *p->funcs, func_by_key, p);
  size_t n = 0;
  for (size_t i = 0; i < p->nfuncs; i++)
    if (n && func_by_key (&p->funcs[n - 1], &p->funcs[i], p) == 0)
      sfdo_prof_func_absorb (p->funcs[n - 1], p->funcs[i]);
    else
      p->funcs[n++] = p->funcs[i];
  p->nfuncs = n;
  for (size_t i = 0; i < n; i++)
    sfdo_prof_func_finalize (p, p->funcs[i]);
  sort_r (p->funcs, n, sizeof *p->funcs, func_canonical, p);
  p->index_valid = 0;
  return SFDO_OK;
}

/* --- Merge ------------------------------------------------------------------- */

/* Where MOVE takes OFFSET: itself without a move, -1 to leave it out.  */
static int64_t
moved (const struct sfdo_offset_move *move, uint32_t offset)
{
  return move ? move->to (offset, move->ctx) : (int64_t) offset;
}

/* A copy of SRC (of profile PS) owned by profile PD, counts times W, its
   own positions (not its inlinees') moved by MOVE when not NULL.  */
/* The line (OFFSET, DISC) of F, which is being built, with COUNT: two
   lines of a stale profile that move to one (a line placed by the nearer
   anchor next to one that kept its distance, lines joined by an edit)
   are statements of one line, which runs as often as the busier of them,
   not as often as both.  */
static struct sfdo_prof_line *
moved_line (struct sfdo_prof_func *f, uint32_t offset, uint32_t disc,
            uint64_t count)
{
  for (size_t i = 0; i < f->nlines; i++)
    if (f->lines[i].offset == offset && f->lines[i].discriminator == disc)
      {
        if (count > f->lines[i].count)
          f->lines[i].count = count;
        return &f->lines[i];
      }
  return sfdo_prof_func_add_line (f, offset, disc, count);
}

static struct sfdo_prof_func *
copy_func_moved (struct sfdo_profile *pd, const struct sfdo_profile *ps,
                 const struct sfdo_prof_func *src, uint64_t w,
                 const struct sfdo_offset_move *move)
{
#define REMAP(id) sfdo_profile_intern (pd, ps->strs[id].s, ps->strs[id].len)
  struct sfdo_prof_func *f = sfdo_prof_func_new (REMAP (src->name),
                                                 REMAP (src->file));
  f->total = sfdo_sat_mul (src->total, w);
  f->head = sfdo_sat_mul (src->head, w);
  f->checksum = src->checksum;
  f->has_checksum = src->has_checksum;
  int64_t to;
  for (size_t i = 0; i < src->nlines; i++)
    {
      const struct sfdo_prof_line *sl = &src->lines[i];
      if ((to = moved (move, sl->offset)) < 0)
        continue;
      struct sfdo_prof_line *l
        = moved_line (f, (uint32_t) to, sl->discriminator,
                      sfdo_sat_mul (sl->count, w));
      for (size_t k = 0; k < sl->ntargets; k++)
        sfdo_prof_line_add_target (l, REMAP (sl->targets[k].name),
                                   sfdo_sat_mul (sl->targets[k].count, w));
    }
  for (size_t i = 0; i < src->nvalues; i++)
    {
      const struct sfdo_prof_values *v = &src->values[i];
      if ((to = moved (move, v->offset)) < 0)
        continue;
      for (size_t k = 0; k < v->nentries; k++)
        {
          uint64_t value = v->entries[k].value;
          if (sfdo_value_kind_is_name (v->kind))
            value = REMAP ((uint32_t) value);
          /* Supporting samples are samples whatever the weight.  */
          uint64_t n = sfdo_value_kind_is_unscaled (v->kind)
                       ? v->entries[k].count
                       : sfdo_sat_mul (v->entries[k].count, w);
          sfdo_prof_func_add_value (f, (uint32_t) to, v->discriminator,
                                    v->kind, value, n);
        }
    }
  for (size_t i = 0; i < src->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &src->callsites[i];
      if ((to = moved (move, c->offset)) < 0)
        continue;
      sfdo_xgrow (&f->callsites, &f->cap_callsites, f->ncallsites + 1,
                  sizeof *f->callsites);
      f->callsites[f->ncallsites].offset = (uint32_t) to;
      f->callsites[f->ncallsites].discriminator = c->discriminator;
      f->callsites[f->ncallsites++].callee
        = copy_func_moved (pd, ps, c->callee, w, NULL);
    }
  return f;
#undef REMAP
}

static struct sfdo_prof_func *
copy_func (struct sfdo_profile *pd, const struct sfdo_profile *ps,
           const struct sfdo_prof_func *src, uint64_t w)
{
  return copy_func_moved (pd, ps, src, w, NULL);
}

struct sfdo_prof_func *
sfdo_prof_func_copy_moved (struct sfdo_profile *p,
                           const struct sfdo_prof_func *src,
                           const struct sfdo_offset_move *move)
{
  struct sfdo_prof_func *f = copy_func_moved (p, p, src, 1, move);
  sfdo_prof_func_finalize (p, f);
  return f;
}

void
sfdo_prof_func_add (struct sfdo_profile *p, struct sfdo_prof_func *dst,
                    const struct sfdo_prof_func *src)
{
  struct sfdo_prof_func *copy = copy_func (p, p, src, 1);
  copy->name = dst->name;
  copy->file = dst->file;
  sfdo_prof_func_absorb (dst, copy);
  sfdo_prof_func_finalize (p, dst);
}

void
sfdo_profile_merge_header (struct sfdo_profile *dst,
                           const struct sfdo_profile *src)
{
  const struct sfdo_prof_header *h = &src->hdr;
  for (size_t i = 0; i < h->nbuild_ids; i++)
    sfdo_profile_add_build_id (dst, sfdo_profile_str (src, h->build_ids[i]));
  for (size_t i = 0; i < h->nmodes; i++)
    sfdo_profile_add_mode (dst, sfdo_profile_str (src, h->modes[i]));
  for (size_t i = 0; i < h->ntools; i++)
    sfdo_profile_add_tool (dst, sfdo_profile_str (src, h->tools[i]));
  for (size_t i = 0; i < h->nproducers; i++)
    sfdo_profile_add_producer (dst, sfdo_profile_str (src, h->producers[i]));
  for (size_t i = 0; i < h->nevents; i++)
    sfdo_profile_add_event (dst, sfdo_profile_str (src, h->events[i].name),
                            h->events[i].period, h->events[i].samples);
  dst->hdr.samples_used = sfdo_sat_add (dst->hdr.samples_used,
                                        h->samples_used);
  dst->hdr.samples_dropped = sfdo_sat_add (dst->hdr.samples_dropped,
                                           h->samples_dropped);
}

enum sfdo_errc
sfdo_profile_merge (struct sfdo_profile *dst, struct sfdo_profile *src,
                    uint64_t weight, struct sfdo_error *err)
{
  enum sfdo_errc rc = sfdo_profile_load_all (dst, err);
  if (rc == SFDO_OK)
    rc = sfdo_profile_load_all (src, err);
  if (rc != SFDO_OK)
    return rc;
  for (size_t i = 0; i < src->nfuncs; i++)
    sfdo_profile_append_func (dst, copy_func (dst, src, src->funcs[i],
                                              weight));
  sfdo_profile_merge_header (dst, src);
  return sfdo_profile_finalize (dst, err);
}

/* --- Overlap ----------------------------------------------------------------- */

struct weighted_key {
  char *key;
  uint64_t weight;
};

struct key_list {
  struct weighted_key *items;
  size_t n, cap;
  uint64_t sum;
};

static void
key_list_add (struct key_list *kl, const char *key, size_t len, uint64_t w)
{
  if (!w)
    return;
  sfdo_xgrow (&kl->items, &kl->cap, kl->n + 1, sizeof *kl->items);
  kl->items[kl->n].key = sfdo_xstrndup (key, len);
  kl->items[kl->n++].weight = w;
  kl->sum = sfdo_sat_add (kl->sum, w);
}

/* Append TEXT to *BUF (length *LEN, capacity *CAP).  Keys separate their
   parts with control characters, which no name or file may contain.  */
static void
path_push (char **buf, size_t *len, size_t *cap, const char *text)
{
  size_t n = strlen (text);
  sfdo_xgrow (buf, cap, *len + n + 1, 1);
  memcpy (*buf + *len, text, n + 1);
  *len += n;
}

/* Add every body count of F under the key prefix *BUF.  */
static void
collect_lines (const struct sfdo_profile *p, const struct sfdo_prof_func *f,
               char **buf, size_t *len, size_t *cap, struct key_list *kl)
{
  char site[64];
  size_t base = *len;
  for (size_t i = 0; i < f->nlines; i++)
    {
      snprintf (site, sizeof site, "\x01%u.%u", f->lines[i].offset,
                f->lines[i].discriminator);
      path_push (buf, len, cap, site);
      key_list_add (kl, *buf, *len, f->lines[i].count);
      *len = base;
    }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_func *c = f->callsites[i].callee;
      snprintf (site, sizeof site, "\x01%u.%u\x02", f->callsites[i].offset,
                f->callsites[i].discriminator);
      path_push (buf, len, cap, site);
      path_push (buf, len, cap, sfdo_profile_str (p, c->name));
      path_push (buf, len, cap, "\x03");
      path_push (buf, len, cap, sfdo_profile_str (p, c->file));
      collect_lines (p, c, buf, len, cap, kl);
      *len = base;
    }
}

static void
collect_keys (const struct sfdo_profile *p, struct key_list *funcs,
              struct key_list *lines)
{
  char *buf = NULL;
  size_t cap = 0;
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      const struct sfdo_prof_func *f = p->funcs[i];
      size_t len = 0;
      path_push (&buf, &len, &cap, sfdo_profile_str (p, f->name));
      path_push (&buf, &len, &cap, "\x03");
      path_push (&buf, &len, &cap, sfdo_profile_str (p, f->file));
      key_list_add (funcs, buf, len, f->total);
      collect_lines (p, f, &buf, &len, &cap, lines);
    }
  free (buf);
}

static int
key_cmp (const void *a, const void *b)
{
  return strcmp (((const struct weighted_key *) a)->key,
                 ((const struct weighted_key *) b)->key);
}

/* Sum over keys of min(wa/suma, wb/sumb); frees both lists.  */
static double
overlap_of (struct key_list *a, struct key_list *b)
{
  double result = 0;
  if (!a->sum && !b->sum)
    result = 1.0;
  sort (a->items, a->n, sizeof *a->items, key_cmp);
  sort (b->items, b->n, sizeof *b->items, key_cmp);
  for (size_t i = 0, j = 0; i < a->n && j < b->n;)
    {
      int c = strcmp (a->items[i].key, b->items[j].key);
      if (c == 0)
        {
          double wa = (double) a->items[i++].weight / (double) a->sum;
          double wb = (double) b->items[j++].weight / (double) b->sum;
          result += wa < wb ? wa : wb;
        }
      else if (c < 0)
        i++;
      else
        j++;
    }
  for (size_t i = 0; i < a->n; i++)
    free (a->items[i].key);
  for (size_t i = 0; i < b->n; i++)
    free (b->items[i].key);
  free (a->items);
  free (b->items);
  return result > 1.0 ? 1.0 : result;
}

enum sfdo_errc
sfdo_profile_overlap (struct sfdo_profile *a, struct sfdo_profile *b,
                      double *function_level, double *line_level,
                      struct sfdo_error *err)
{
  enum sfdo_errc rc = sfdo_profile_finalize (a, err);
  if (rc == SFDO_OK)
    rc = sfdo_profile_finalize (b, err);
  if (rc != SFDO_OK)
    return rc;
  struct key_list fa = { 0 }, fb = { 0 }, la = { 0 }, lb = { 0 };
  collect_keys (a, &fa, &la);
  collect_keys (b, &fb, &lb);
  double f = overlap_of (&fa, &fb), l = overlap_of (&la, &lb);
  if (function_level)
    *function_level = f;
  if (line_level)
    *line_level = l;
  return SFDO_OK;
}
