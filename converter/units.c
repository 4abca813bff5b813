/* converter/units.c - each function's compile unit into the profile
   (units.h).  */
#include "units.h"

#include <string.h>

#include "../common/u64map.h"
#include "../profiles/profile.h"
#include "symtab.h"

uint64_t
sfdo_func_key (const char *name, const char *file)
{
  uint64_t h = sfdo_fnv1a (name, strlen (name));
  return file && *file ? h ^ (sfdo_fnv1a (file, strlen (file)) * 31) : h;
}

uint64_t *
sfdo_func_key_find (const struct sfdo_u64map *m, const char *name,
                    const char *file)
{
  uint64_t *k = sfdo_u64map_find (m, sfdo_func_key (name, file));
  if (!k && file && *file)
    k = sfdo_u64map_find (m, sfdo_func_key (name, NULL));
  return k;
}

/* Units by function key (index + 1 into ST's functions): a global
   function by its name, a file-local one by name and file, and by its
   name alone too (an inline instance's callee may be named without its
   file) unless a global or another unit's file-local function holds the
   name (UINT64_MAX: no unit by that name).  */
static void
map_units (const struct sfdo_symtab *st, struct sfdo_u64map *by_key)
{
  for (int locals = 0; locals < 2; locals++)
    for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
      {
        uint64_t lo;
        const char *name, *file, *unit = sfdo_symtab_function_unit (st, i);
        sfdo_symtab_function (st, i, &lo, &name, &file);
        if (!unit || !*unit || !*name || (file && *file) != locals)
          continue;
        *sfdo_u64map_get (by_key, sfdo_func_key (name, file)) = i + 1;
        if (!locals)
          continue;
        uint64_t *by_name = sfdo_u64map_get (by_key,
                                             sfdo_func_key (name, NULL));
        const char *held_file = NULL;
        if (*by_name && *by_name != UINT64_MAX)
          sfdo_symtab_function (st, *by_name - 1, &lo, &name, &held_file);
        if (!*by_name)
          *by_name = i + 1;
        else if (*by_name != UINT64_MAX && held_file && *held_file
                 && strcmp (sfdo_symtab_function_unit (st, *by_name - 1),
                            unit))
          *by_name = UINT64_MAX;
      }
}

/* Record the unit of F and of its inline instances.  */
static size_t
record (const struct sfdo_symtab *st, struct sfdo_u64map *by_key,
        struct sfdo_profile *p, struct sfdo_prof_func *f)
{
  size_t n = 0;
  const char *name = sfdo_profile_str (p, f->name);
  const char *file = f->file ? sfdo_profile_str (p, f->file) : NULL;
  uint64_t *k = sfdo_func_key_find (by_key, name, file);
  if (k && *k != UINT64_MAX)
    {
      const char *unit = sfdo_symtab_function_unit (st, *k - 1);
      sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_UNIT,
                                sfdo_profile_intern_str (p, unit), 1);
      n++;
    }
  for (size_t i = 0; i < f->ncallsites; i++)
    n += record (st, by_key, p, f->callsites[i].callee);
  return n;
}

size_t
sfdo_record_units (const struct sfdo_symtab *st, struct sfdo_profile *p)
{
  struct sfdo_u64map by_key = { 0 };
  size_t n = 0;
  map_units (st, &by_key);
  for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      if (f)
        n += record (st, &by_key, p, f);
    }
  sfdo_u64map_release (&by_key);
  return n;
}
