/* converter/unsampled.c - functions that caught no sample (unsampled.h).  */
#include "unsampled.h"

#include <string.h>

#include "../common/u64map.h"
#include "../profiles/profile.h"
#include "symtab.h"

/* The key of (NAME, FILE) string ids in a set.  */
static uint64_t
key_of (uint32_t name, uint32_t file)
{
  return ((uint64_t) name << 32 | file) + 1;
}

/* Whether NAME can open a function line of a profile (profiles/FORMAT.md:
   no space or control character, not starting with '#' or a digit).  */
static int
usable_name (const char *name)
{
  if (!*name || *name == '#' || (*name >= '0' && *name <= '9'))
    return 0;
  for (const unsigned char *c = (const unsigned char *) name; *c; c++)
    if (*c <= ' ' || *c == 0x7f)
      return 0;
  return 1;
}

size_t
sfdo_add_unsampled_functions (const struct sfdo_symtab *st,
                              struct sfdo_profile *p)
{
  struct sfdo_u64map present = { 0 };
  size_t added = 0, n = sfdo_profile_nfuncs (p);

  for (size_t i = 0; i < n; i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      if (f)
        *sfdo_u64map_get (&present, key_of (f->name, f->file)) = 1;
    }
  for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
    {
      uint64_t lo;
      const char *name, *file;
      sfdo_symtab_function (st, i, &lo, &name, &file);
      if (!usable_name (name) || (file && !*file))
        continue;
      uint32_t name_id = sfdo_profile_intern_str (p, name);
      uint32_t file_id = file ? sfdo_profile_intern_str (p, file) : 0;
      uint64_t *seen = sfdo_u64map_get (&present, key_of (name_id, file_id));
      if (*seen)
        continue;
      *seen = 1;
      sfdo_profile_add_func (p, name_id, file_id);
      added++;
    }
  sfdo_u64map_release (&present);
  return added;
}
