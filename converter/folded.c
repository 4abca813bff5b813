/* converter/folded.c - folded functions told apart by their calls
 * (folded.h).  */
#include "folded.h"

#include <string.h>

#include "../common/u64map.h"
#include "../profiles/profile.h"
#include "symtab.h"

/* Names of one body's symbols considered.  */
#define MAX_TWINS 8

/* Add into CALLS (name id -> calls) the call counts of F's call targets,
   and of its inline instances'.  */
static void
count_calls (const struct sfdo_prof_func *f, struct sfdo_u64map *calls)
{
  for (size_t i = 0; i < f->nlines; i++)
    for (size_t k = 0; k < f->lines[i].ntargets; k++)
      {
        uint64_t *n = sfdo_u64map_get (calls, f->lines[i].targets[k].name + 1);
        *n = sfdo_sat_add (*n, f->lines[i].targets[k].count);
      }
  for (size_t i = 0; i < f->ncallsites; i++)
    count_calls (f->callsites[i].callee, calls);
}

/* Multiply every count of F, nested ones too, by NUM / DEN.  */
static void
scale (struct sfdo_prof_func *f, uint64_t num, uint64_t den)
{
  double r = (double) num / (double) den;
  f->head = (uint64_t) ((double) f->head * r);
  for (size_t i = 0; i < f->nlines; i++)
    {
      f->lines[i].count = (uint64_t) ((double) f->lines[i].count * r);
      for (size_t k = 0; k < f->lines[i].ntargets; k++)
        f->lines[i].targets[k].count
          = (uint64_t) ((double) f->lines[i].targets[k].count * r);
    }
  for (size_t i = 0; i < f->nvalues; i++)
    for (size_t k = 0; !sfdo_value_kind_is_unscaled (f->values[i].kind)
                       && k < f->values[i].nentries; k++)
      f->values[i].entries[k].count
        = (uint64_t) ((double) f->values[i].entries[k].count * r);
  for (size_t i = 0; i < f->ncallsites; i++)
    scale (f->callsites[i].callee, num, den);
}

/* The profile names of the twins of the function NAME whose body starts
   at LO: its other symbols there, by base name.  */
static size_t
twins_of (const struct sfdo_symtab *st, uint64_t lo, const char *name,
          const char **twins)
{
  const char *symbols[MAX_TWINS];
  size_t n = sfdo_symtab_symbols_at (st, lo, symbols, MAX_TWINS), t = 0;
  /* GCC's clone suffixes (sfdo_name_base) name variants of one function
     rather than twins.  */
  size_t len, l;
  const char *base = sfdo_name_base (name, &len);
  for (size_t i = 0; i < n; i++)
    {
      const char *sbase = sfdo_name_base (symbols[i], &l);
      int seen = l == len && memcmp (sbase, base, len) == 0;
      for (size_t k = 0; k < t && !seen; k++)
        seen = strcmp (twins[k], symbols[i]) == 0;
      if (!seen && sbase == symbols[i] && l == strlen (symbols[i]))
        twins[t++] = symbols[i];
    }
  return t;
}

/* Share F's profile out among itself and its TWINS[0..N) by CALLS.  */
static int
share_out (struct sfdo_profile *p, struct sfdo_prof_func *f,
           const char **twins, size_t n, struct sfdo_u64map *calls)
{
  uint64_t own = 0, total = 0, each[MAX_TWINS];
  uint64_t *c = sfdo_u64map_find (calls, (uint64_t) f->name + 1);
  own = c ? *c : 0;
  total = own;
  for (size_t i = 0; i < n; i++)
    {
      c = sfdo_u64map_find (calls, (uint64_t) sfdo_profile_intern_str
                                                (p, twins[i]) + 1);
      each[i] = c ? *c : 0;
      total = sfdo_sat_add (total, each[i]);
    }
  if (total == own)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (each[i])
      {
        struct sfdo_prof_func *g = sfdo_profile_add_func
          (p, sfdo_profile_intern_str (p, twins[i]), f->file);
        sfdo_prof_func_add (p, g, f);
        scale (g, each[i], total);
        sfdo_prof_func_sum_totals (g);
      }
  scale (f, own, total);
  sfdo_prof_func_sum_totals (f);
  return 1;
}

size_t
sfdo_split_folded_functions (const struct sfdo_symtab *st,
                             struct sfdo_profile *p)
{
  struct sfdo_u64map calls = { 0 };
  size_t n = sfdo_profile_nfuncs (p), shared = 0;
  for (size_t i = 0; i < n; i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      if (f)
        count_calls (f, &calls);
    }
  for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
    {
      uint64_t lo;
      const char *name, *file, *twins[MAX_TWINS];
      sfdo_symtab_function (st, i, &lo, &name, &file);
      size_t t = twins_of (st, lo, name, twins);
      struct sfdo_prof_func *f = t ? sfdo_profile_find (p, name, file, NULL)
                                   : NULL;
      if (f && f->total)
        shared += (size_t) share_out (p, f, twins, t, &calls);
    }
  sfdo_u64map_release (&calls);
  return shared;
}
