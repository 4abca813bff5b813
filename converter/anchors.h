/* converter/anchors.h - the call sites of each sampled function: the shape
 * of its source, recorded so that a later build can align a stale profile.
 *
 * A production profile comes from last week's binary; by the time it is
 * used, lines have moved.  Line offsets count from the function's
 * declaration, so edits above a function do not matter, but an edit
 * inside it shifts every later line.  The calls a function makes (kept
 * as calls or inlined) are anchors a newer source mostly still has, in
 * the same order: the plugin aligns the two sequences by callee name
 * (plugin/stale.cc).  So every call site of a function that caught
 * samples goes into the profile, sampled or not, as a SFDO_VALUE_CALL_SITES
 * value at its position (profiles/FORMAT.md).  */
#ifndef SFDO_CONVERTER_ANCHORS_H
#define SFDO_CONVERTER_ANCHORS_H

#include <stddef.h>

#include "../common/error.h"

struct sfdo_symtab;
struct sfdo_decoder;
struct sfdo_profile;

/* Add to P the call sites of every function of ST's binary that P gives
   samples (total above 0): each direct call (by the callee the source
   names) and each outermost inlined call, once per position and callee.
   Returns how many functions got some.  P is finalized first and must be
   finalized again afterwards.  */
size_t sfdo_add_call_anchors (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                              struct sfdo_profile *p);

/* The shape of every function of ST's binary, as a profile of no counts
   (*OUT): its call sites (as sfdo_add_call_anchors records them) and a
   line of count 0 at every line offset its code has.  What a stale
   profile is aligned to offline (realign.h).  */
enum sfdo_errc sfdo_binary_shape (struct sfdo_symtab *st,
                                  struct sfdo_decoder *dec,
                                  struct sfdo_profile **out,
                                  struct sfdo_error *err);

#endif
