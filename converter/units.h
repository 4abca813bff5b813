/* converter/units.h - the compile unit of each function, recorded in the
 * profile, so that module groups (groups.h) can be made from a profile
 * alone: a merge of many hosts' profiles, away from the binaries.
 *
 * Each function of the profile, top level or inline instance, that the
 * binary's DWARF places in a compile unit gets a SFDO_VALUE_UNIT value at
 * (0, 0): the unit's name (DW_AT_name, the source file as the compiler
 * was given it), count 1 per binary (profiles/FORMAT.md).  */
#ifndef SFDO_CONVERTER_UNITS_H
#define SFDO_CONVERTER_UNITS_H

#include <stddef.h>
#include <stdint.h>

struct sfdo_symtab;
struct sfdo_profile;
struct sfdo_u64map;

/* A function's key in a map by function: its name, and its file for a
   file-local one (as the profile keys functions).  */
uint64_t sfdo_func_key (const char *name, const char *file);

/* The entry of the function NAME (of FILE when file-local) in M, keyed
   by sfdo_func_key, else by its name alone (call targets name a
   file-local callee without its file); NULL if neither.  */
uint64_t *sfdo_func_key_find (const struct sfdo_u64map *m, const char *name,
                              const char *file);

/* Record the unit of every function of P that ST's binary defines (by
   name, and file for a file-local one; an inline instance by its name
   when no file-local function of another file shares it).  Returns how
   many functions got one.  P is finalized first and must be finalized
   again afterwards.  */
size_t sfdo_record_units (const struct sfdo_symtab *st, struct sfdo_profile *p);

#endif
