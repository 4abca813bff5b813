/* converter/unsampled.c - functions that caught no sample (unsampled.h).  */
#include "unsampled.h"

#include <string.h>

#include <stdlib.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "../profiles/profile.h"
#include "symtab.h"
#include "tally.h"

/* The key of (NAME, FILE) string ids in a set; never 0, and the ids are
   (KEY - 1) >> 32 and the low 32 bits of KEY - 1.  */
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


/* Functions with no DWARF function (C++ this-adjusting thunks, assembly,
   the copy GCC's identical-code folding keeps of an address-taken static
   function, whose twin alone DWARF describes: SQLite's nolockUnlock) that
   no sample reached: their symbol is the name GCC's cgraph gives them,
   and a local one's compile unit its file.  One that ran has no line
   profile to hold its samples and is left out, as are compiler-made
   clones (foo.part.0: not a name the source has) and local symbols of no
   unit (crt files).  Only branch stacks tell: such functions are a few
   instructions that IP samples mostly miss however often they run, but
   every call into one is a branch an LBR records.  */
static size_t
add_undescribed (const struct sfdo_symtab *st, const struct sfdo_tally *t,
                 struct sfdo_profile *p, struct sfdo_u64map *present)
{
  size_t n, added = 0;
  if (!sfdo_tally_has_lbr (t))
    return 0;
  uint64_t *sampled = sfdo_tally_addresses (t, &n);
  for (size_t i = 0; i < sfdo_symtab_nelf_functions (st); i++)
    {
      uint64_t addr, size, lo, hi;
      const char *name, *file;
      sfdo_symtab_elf_function (st, i, &addr, &size, &name, &file);
      if (!usable_name (name) || !size
          || (file && (!*file || strchr (name, '.')))
          || sfdo_symtab_function_range (st, addr, &lo, &hi) == 0
          || sfdo_addresses_within (sampled, n, addr, addr + size))
        continue;
      uint32_t name_id = sfdo_profile_intern_str (p, name);
      uint32_t file_id = file ? sfdo_profile_intern_str (p, file) : 0;
      uint64_t *seen = sfdo_u64map_get (present, key_of (name_id, file_id));
      if (*seen)
        continue;
      *seen = 1;
      sfdo_profile_add_func (p, name_id, file_id);
      added++;
    }
  free (sampled);
  return added;
}

/* The compile unit of the function KEY (key_of) names, from UNITS (key
   -> index + 1 of sfdo_symtab_function), or NULL.  */
static const char *
unit_of (const struct sfdo_symtab *st, const struct sfdo_u64map *units,
         uint64_t key)
{
  uint64_t *i = sfdo_u64map_find (units, key);
  return i ? sfdo_symtab_function_unit (st, (size_t) (*i - 1)) : NULL;
}

/* Whether UNIT is a compile unit of link-time optimisation's code, which
   GCC names "<artificial>" whatever sources it holds: there a function's
   unit does not tell where its calls came from.  */
static int
link_time_unit (const char *unit)
{
  return strcmp (unit, "<artificial>") == 0;
}

/* Mark in PRESENT the functions inlined, with samples, into F's code
   from another compile unit (UNIT, F's), or in a unit of link-time
   optimisation, where units do not tell.  Compiling the callee's unit,
   the plugin sees no call to add such an instance to, while the unit
   that made those calls may make them out of line (without -flto, or
   where its inliner decides otherwise), so the copy cannot be called
   never run.  An instance inlined within its own unit is at a call that
   unit's compilation sees, and the plugin adds it to the callee's body
   there.  */
static void
mark_inlined_across_units (const struct sfdo_symtab *st,
                           const struct sfdo_u64map *units, const char *unit,
                           const struct sfdo_prof_func *f,
                           struct sfdo_u64map *present)
{
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_func *callee = f->callsites[i].callee;
      uint64_t key = key_of (callee->name, callee->file);
      const char *callee_unit = unit_of (st, units, key);
      if ((callee->total || callee->head) && callee_unit
          && (strcmp (callee_unit, unit) != 0 || link_time_unit (unit)))
        *sfdo_u64map_get (present, key) = 1;
      mark_inlined_across_units (st, units, unit, callee, present);
    }
}

/* The key (key_of) of each of ST's functions, by index, its strings
   interned in P: 0 for one a profile cannot list (a name it cannot hold,
   a static function no compile unit holds).  */
static uint64_t *
function_keys (const struct sfdo_symtab *st, struct sfdo_profile *p)
{
  size_t n = sfdo_symtab_nfunctions (st);
  uint64_t *keys = (uint64_t *) sfdo_xcalloc (n + 1, sizeof *keys);

  for (size_t i = 0; i < n; i++)
    {
      uint64_t lo;
      const char *name, *file;
      sfdo_symtab_function (st, i, &lo, &name, &file);
      if (!usable_name (name) || (file && !*file))
        continue;
      keys[i] = key_of (sfdo_profile_intern_str (p, name),
                        file ? sfdo_profile_intern_str (p, file) : 0);
    }
  return keys;
}

size_t
sfdo_add_unsampled_functions (const struct sfdo_symtab *st,
                              const struct sfdo_tally *t,
                              struct sfdo_profile *p)
{
  struct sfdo_u64map present = { 0 }, units = { 0 };
  size_t added = 0, n = sfdo_profile_nfuncs (p);
  uint64_t *keys = function_keys (st, p);

  for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
    if (keys[i] && sfdo_symtab_function_unit (st, i))
      *sfdo_u64map_get (&units, keys[i]) = i + 1;
  for (size_t i = 0; i < n; i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      const char *unit;
      if (!f)
        continue;
      *sfdo_u64map_get (&present, key_of (f->name, f->file)) = 1;
      if ((unit = unit_of (st, &units, key_of (f->name, f->file))))
        mark_inlined_across_units (st, &units, unit, f, &present);
    }
  for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
    {
      uint64_t *seen;
      if (!keys[i] || *(seen = sfdo_u64map_get (&present, keys[i])))
        continue;
      *seen = 1;
      sfdo_profile_add_func (p, (uint32_t) ((keys[i] - 1) >> 32),
                             (uint32_t) (keys[i] - 1));
      added++;
    }
  added += add_undescribed (st, t, p, &present);
  free (keys);
  sfdo_u64map_release (&present);
  sfdo_u64map_release (&units);
  return added;
}
