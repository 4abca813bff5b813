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

struct sfdo_symtab;
struct sfdo_profile;

/* Record the unit of every function of P that ST's binary defines (by
   name, and file for a file-local one; an inline instance by its name
   when no file-local function of another file shares it).  Returns how
   many functions got one.  P is finalized first and must be finalized
   again afterwards.  */
size_t sfdo_record_units (const struct sfdo_symtab *st, struct sfdo_profile *p);

#endif
