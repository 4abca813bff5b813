/* converter/unsampled.h - the functions of a profiled binary that caught
 * no sample, listed in the profile with no counts.
 *
 * A profile then tells "never ran while the program was sampled" (listed,
 * total 0) from "not in the profiled binary" (absent): the plugin marks
 * the former unlikely executed, as -fprofile-use does a function its
 * training run never entered, and leaves the latter to GCC's static
 * estimate (profiles/FORMAT.md).  What is listed is the out-of-line copy:
 * a function that ran only where the profiled binary inlined it is listed
 * too, beside its inline instances, unless they ran in another compile
 * unit's code (link-time optimisation), which may call it out of line when
 * compiled on its own.  -fprofile-use counts a body after
 * early inlining, so such a copy, which only other units or a pointer
 * could have called, is one its training run never entered; the plugin
 * adds the instances at the calls it compiles to the body before it
 * looks (SQLite's sqlite3_value_text and a dozen other API functions,
 * which -O2 inlines into its built-in SQL functions: .text.unlikely by
 * -fprofile-use, .text by sfdo until they were listed).  */
#ifndef SFDO_CONVERTER_UNSAMPLED_H
#define SFDO_CONVERTER_UNSAMPLED_H

#include <stddef.h>

struct sfdo_symtab;
struct sfdo_profile;
struct sfdo_tally;

/* Add to P, with no counts, every function of ST's binary whose
   out-of-line copy P does not hold (inline instances count only where
   they were inlined from another compile unit, or under link-time
   optimisation), and
   that T (the binary's samples) shows did not run where the
   function has no DWARF description (P cannot hold those); returns how
   many were added.  P is finalized first and must be finalized again
   afterwards.  */
size_t sfdo_add_unsampled_functions (const struct sfdo_symtab *st,
                                     const struct sfdo_tally *t,
                                     struct sfdo_profile *p);

#endif
