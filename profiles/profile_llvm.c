/* profiles/profile_llvm.c - LLVM's text sample profile, as clang's sample
 * loader reads it: discriminators in LLVM's encoding, functions by name.
 *
 * clang writes each DWARF discriminator in DILocation's encoding: three
 * prefix-coded components, from the low bits, the base discriminator (the
 * basic block of a source line, from the AddDiscriminators pass), the
 * duplication factor (unrolling or vectorizing by N makes copies that each
 * run 1/N as often) and a copy id.  clang's loader annotates the IR before
 * any copy exists and looks records up by (line offset, base
 * discriminator), so the export folds every discriminator of one base into
 * one record.  A line's count in an sfdo profile is one copy's (the max or
 * mean over its instructions), so each is multiplied by its duplication
 * factor first, as llvm-profgen does; copies with different copy ids or
 * factors ran different iterations, so their counts add up.
 *
 * LLVM's text format keys functions by name alone, and its reader keeps
 * only the last of two functions of one name: static functions of
 * different files that share a name are merged into one, and the output
 * says so in a comment.  clang names static functions by their linkage
 * name, which is what sfdo records (with a ".__uniq." suffix when the
 * binary was built with -funique-internal-linkage-names, so they stay
 * apart).  */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

/* --- DILocation's discriminator encoding ------------------------------------ */

/* The component at the low bits of D, prefix-decoded: bit 0 set means an
   empty component; else 5 bits, or 12 when bit 6 is set.  */
static uint32_t
first_component (uint32_t d)
{
  if (d & 1)
    return 0;
  d >>= 1;
  return (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
}

/* D without its first component.  */
static uint32_t
rest_components (uint32_t d)
{
  if (d & 1)
    return d >> 1;
  return d >> ((d & 0x40) ? 14 : 7);
}

uint32_t
sfdo_llvm_base_discriminator (uint32_t d)
{
  return first_component (d);
}

uint32_t
sfdo_llvm_duplication_factor (uint32_t d)
{
  uint32_t df = first_component (rest_components (d));
  return df ? df : 1;
}

int
sfdo_llvm_encode_base (uint32_t base, uint32_t *d)
{
  if (base > SFDO_LLVM_MAX_BASE)
    return -1;
  uint32_t prefix = base > 0x1f
                    ? (((base & 0xfe0) << 1) | (base & 0x1f) | 0x20) : base;
  *d = prefix << 1;
  return 0;
}

/* --- Folding a profile into LLVM's keys ------------------------------------ */

struct fold {
  struct sfdo_profile *to;
  const struct sfdo_profile *from;
  int clang;                    /* discriminators in clang's encoding */
  struct sfdo_export_report *lost;
};

static uint32_t
base_of (const struct fold *fo, uint32_t d)
{
  return fo->clang ? sfdo_llvm_base_discriminator (d) : d;
}

static uint32_t
factor_of (const struct fold *fo, uint32_t d)
{
  return fo->clang ? sfdo_llvm_duplication_factor (d) : 1;
}

static uint32_t
remap (struct fold *fo, uint32_t id)
{
  return sfdo_profile_intern (fo->to, fo->from->strs[id].s,
                              fo->from->strs[id].len);
}

/* A copy of SRC in the target profile, keyed as clang looks it up: every
   record at its base discriminator, its count times its duplication
   factor; *ADDED grows by what that multiplication added, and so does the
   copy's total.  Records that meet at one key are summed when the target
   is finalized, as are inline instances that meet at one callsite.
   Records of no count stay: they tell clang which blocks never ran, which
   its inference cannot know (LLVM's own tools write none; on Lua, keeping
   them got clang 84% of its instrumented PGO's cut of taken jumps,
   leaving them out 48%).  Value histograms and inline heads are kept: the
   text writer counts and drops them.  */
static struct sfdo_prof_func *
fold_copy (struct fold *fo, const struct sfdo_prof_func *src, uint64_t *added)
{
  struct sfdo_prof_func *f = sfdo_prof_func_new (remap (fo, src->name), 0);
  uint64_t own = 0;
  f->head = src->head;
  f->checksum = src->checksum;
  f->has_checksum = src->has_checksum;
  for (size_t i = 0; i < src->nlines; i++)
    {
      const struct sfdo_prof_line *sl = &src->lines[i];
      if (sl->offset > SFDO_LLVM_MAX_OFFSET)
        {
          fo->lost->positions++;
          continue;
        }
      uint64_t count = sfdo_sat_mul (sl->count,
                                     factor_of (fo, sl->discriminator));
      own = sfdo_sat_add (own, count - sl->count);
      struct sfdo_prof_line *l
        = sfdo_prof_func_add_line (f, sl->offset,
                                   base_of (fo, sl->discriminator), count);
      for (size_t k = 0; k < sl->ntargets; k++)
        sfdo_prof_line_add_target (l, remap (fo, sl->targets[k].name),
                                   sl->targets[k].count);
    }
  for (size_t i = 0; i < src->nvalues; i++)
    {
      const struct sfdo_prof_values *v = &src->values[i];
      for (size_t k = 0; k < v->nentries; k++)
        sfdo_prof_func_add_value
          (f, v->offset, base_of (fo, v->discriminator),
           v->kind, sfdo_value_kind_is_name (v->kind)
                    ? remap (fo, (uint32_t) v->entries[k].value)
                    : v->entries[k].value, v->entries[k].count);
    }
  for (size_t i = 0; i < src->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &src->callsites[i];
      if (c->offset > SFDO_LLVM_MAX_OFFSET)
        {
          fo->lost->positions++;
          continue;
        }
      sfdo_xgrow (&f->callsites, &f->cap_callsites, f->ncallsites + 1,
                  sizeof *f->callsites);
      f->callsites[f->ncallsites].offset = c->offset;
      f->callsites[f->ncallsites].discriminator
        = base_of (fo, c->discriminator);
      f->callsites[f->ncallsites++].callee = fold_copy (fo, c->callee, &own);
    }
  f->total = sfdo_sat_add (src->total, own);
  *added = sfdo_sat_add (*added, own);
  return f;
}

static int
func_by_name (const void *a, const void *b, void *ctx)
{
  const struct sfdo_profile *p = ctx;
  const struct sfdo_prof_func *x = *(struct sfdo_prof_func *const *) a;
  const struct sfdo_prof_func *y = *(struct sfdo_prof_func *const *) b;
  int c = strcmp (sfdo_profile_str (p, x->name), sfdo_profile_str (p, y->name));
  return c ? c : strcmp (sfdo_profile_str (p, x->file),
                         sfdo_profile_str (p, y->file));
}

/* The note on the N functions of GROUP merged into one, for a comment in
   the output: "merged: NAME: N functions of that name, summed (files: A,
   B, (global))".  */
static char *
merge_note (const struct sfdo_profile *p, struct sfdo_prof_func *const *group,
            size_t n)
{
  const char *name = sfdo_profile_str (p, group[0]->name);
  size_t cap = strlen (name) + 80;
  for (size_t i = 0; i < n; i++)
    cap += strlen (sfdo_profile_str (p, group[i]->file)) + 12;
  char *s = sfdo_xmalloc (cap);
  size_t len = (size_t) snprintf (s, cap, "merged: %s: %zu functions of that "
                                  "name, summed (files:", name, n);
  for (size_t i = 0; i < n; i++)
    len += (size_t) snprintf (s + len, cap - len, "%s %s", i ? "," : "",
                              group[i]->file
                              ? sfdo_profile_str (p, group[i]->file)
                              : "(global)");
  snprintf (s + len, cap - len, ")");
  return s;
}

struct sfdo_profile *
sfdo_llvm_fold (struct sfdo_profile *p, int clang,
                struct sfdo_llvm_notes *notes,
                struct sfdo_export_report *lost)
{
  struct sfdo_profile *q = sfdo_profile_new ();
  struct fold fo = { q, p, clang, lost };
  memset (notes, 0, sizeof *notes);
  q->hdr.version = p->hdr.version;
  sfdo_profile_merge_header (q, p);
  struct sfdo_prof_func **byname
    = sfdo_xmalloc ((p->nfuncs + 1) * sizeof *byname);
  if (p->nfuncs)
    memcpy (byname, p->funcs, p->nfuncs * sizeof *byname);
  qsort_r (byname, p->nfuncs, sizeof *byname, func_by_name, p);
  /* Finalizing Q sums functions that now share a key, the name alone.  */
  for (size_t i = 0, j; i < p->nfuncs; i = j)
    {
      uint64_t added = 0;
      for (j = i; j < p->nfuncs && byname[j]->name == byname[i]->name; j++)
        sfdo_profile_append_func (q, fold_copy (&fo, byname[j], &added));
      if (j - i > 1)
        {
          sfdo_xgrow (&notes->lines, &notes->cap, notes->n + 1,
                      sizeof *notes->lines);
          notes->lines[notes->n++] = merge_note (p, byname + i, j - i);
          lost->merged_functions += j - i - 1;
        }
    }
  free (byname);
  return q;
}

void
sfdo_llvm_notes_free (struct sfdo_llvm_notes *notes)
{
  for (size_t i = 0; i < notes->n; i++)
    free (notes->lines[i]);
  free (notes->lines);
  memset (notes, 0, sizeof *notes);
}

/* Whether clang could have written discriminator D: it writes only the
   components that are not trivial, so an odd D (no base) always carries a
   duplication factor or a copy id.  GCC numbers its discriminators 1, 2,
   3...  */
static int
clang_could_write (uint32_t d)
{
  if (!(d & 1))
    return 1;
  uint32_t rest = rest_components (d);
  return first_component (rest) > 1 || first_component (rest_components (rest));
}

/* Note in *ANY whether F or its inlinees have a discriminator, and in
   *FOREIGN whether one that clang would not write.  */
static void
scan_discriminators (const struct sfdo_prof_func *f, int *any, int *foreign)
{
  for (size_t i = 0; i < f->nlines; i++)
    {
      *any |= f->lines[i].discriminator != 0;
      *foreign |= !clang_could_write (f->lines[i].discriminator);
    }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      *any |= f->callsites[i].discriminator != 0;
      *foreign |= !clang_could_write (f->callsites[i].discriminator);
      scan_discriminators (f->callsites[i].callee, any, foreign);
    }
}

enum sfdo_errc
sfdo_llvm_write (struct sfdo_profile *p, FILE *f, const char *name,
                 struct sfdo_export_report *lost, struct sfdo_error *err)
{
  memset (lost, 0, sizeof *lost);
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  if (rc == SFDO_OK)
    rc = sfdo_profile_check_strings (p, name, err);
  if (rc != SFDO_OK)
    return rc;
  int any = 0, foreign = 0;
  for (size_t i = 0; i < p->nfuncs; i++)
    scan_discriminators (p->funcs[i], &any, &foreign);
  lost->no_discriminators = p->nfuncs && !any;
  lost->foreign_discriminators = foreign;
  struct sfdo_llvm_notes notes;
  struct sfdo_profile *q = sfdo_llvm_fold (p, !foreign, &notes, lost);
  rc = sfdo_profile_finalize (q, err);
  if (rc == SFDO_OK)
    rc = sfdo_text_write_llvm (q, f, name, !foreign, &notes, lost, err);
  sfdo_llvm_notes_free (&notes);
  sfdo_profile_free (q);
  return rc;
}
