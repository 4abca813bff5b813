/* converter/folded.h - functions that share one body in the profiled
 * binary (identical code folding), told apart by the calls into them.
 *
 * When GCC folds identical functions, one body remains under several
 * ELF symbols, and its DWARF (hence its samples) names only the function
 * that kept it.  The calls the source made to each of the twins are still
 * known (converter/attribute.c names a direct call's callee from DWARF's
 * call sites), so the body's profile is shared out among the twins in
 * proportion to their calls: a twin no call reached gets nothing, and is
 * not taken for hot because its twin is.  */
#ifndef SFDO_CONVERTER_FOLDED_H
#define SFDO_CONVERTER_FOLDED_H

#include <stddef.h>

struct sfdo_symtab;
struct sfdo_profile;

/* Share out the profiles of ST's folded bodies in P (finalized) among
   their twins; returns how many bodies were shared out.  P needs
   finalizing afterwards.  */
size_t sfdo_split_folded_functions (const struct sfdo_symtab *st,
                                    struct sfdo_profile *p);

#endif
