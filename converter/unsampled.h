/* converter/unsampled.h - the functions of a profiled binary that caught
 * no sample, listed in the profile with no counts.
 *
 * A profile then tells "never ran while the program was sampled" (listed,
 * total 0) from "not in the profiled binary" (absent): the plugin marks
 * the former unlikely executed, as -fprofile-use does a function its
 * training run never entered, and leaves the latter to GCC's static
 * estimate (profiles/FORMAT.md).  */
#ifndef SFDO_CONVERTER_UNSAMPLED_H
#define SFDO_CONVERTER_UNSAMPLED_H

#include <stddef.h>

struct sfdo_symtab;
struct sfdo_profile;
struct sfdo_tally;

/* Add to P, with no counts, every function of ST's binary that P does not
   hold (neither on its own nor as an inline instance that ran), and that T (the binary's samples) shows did not run where the
   function has no DWARF description (P cannot hold those); returns how
   many were added.  P is finalized first and must be finalized again
   afterwards.  */
size_t sfdo_add_unsampled_functions (const struct sfdo_symtab *st,
                                     const struct sfdo_tally *t,
                                     struct sfdo_profile *p);

#endif
