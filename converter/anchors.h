/* converter/anchors.h - the shape of each sampled function beyond what
 * its samples show: its call sites, recorded so that a later build can
 * align a stale profile, and the lines of its pieces that never ran.
 *
 * A production profile comes from last week's binary; by the time it is
 * used, lines have moved.  Line offsets count from the function's
 * declaration, so edits above a function do not matter, but an edit
 * inside it shifts every later line.  The calls a function makes (kept
 * as calls or inlined) are anchors a newer source mostly still has, in
 * the same order: the plugin aligns the two sequences by callee name
 * (plugin/stale.cc).  So every call site of a function that caught
 * samples goes into the profile, sampled or not, as a SFDO_VALUE_CALL_SITES
 * value at its position (profiles/FORMAT.md).  The samples give the lines
 * of the code that ran; a piece of the function with none (foo.cold, the
 * out-of-line header of foo.part.0) has its lines added at 0: code the
 * profiled binary had and never ran.  */
#ifndef SFDO_CONVERTER_ANCHORS_H
#define SFDO_CONVERTER_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

struct sfdo_symtab;
struct sfdo_decoder;
struct sfdo_profile;
struct sfdo_tally;

/* A function of a binary that is a piece of code of its own: [lo, hi).  */
struct sfdo_piece
{
  uint64_t lo, hi;
};

/* The functions of ST's binary that are a piece of code of their own of
   a function P gives samples (total above 0), in ST's order; *NPIECES of
   them; free with free.  P must be finalized: in a profile that holds a
   function twice, every lookup rebuilds the index, and the two passes
   below add records.  */
struct sfdo_piece *sfdo_sampled_pieces (struct sfdo_symtab *st,
                                        struct sfdo_profile *p,
                                        size_t *npieces);

/* Add to P the call sites of the N PIECES (of sfdo_sampled_pieces): each
   direct call (by the callee the source names) and each outermost
   inlined call, once per position and callee.  Returns how many
   functions got some.  P must be finalized again afterwards.  */
size_t sfdo_add_call_anchors (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                              const struct sfdo_piece *pieces, size_t n,
                              struct sfdo_profile *p);

/* Add to P, as lines of count 0, the lines of its own code (not code
   inlined into it) of each of the N PIECES (of sfdo_sampled_pieces) that
   T (the binary's samples) shows did not run:
   the out-of-line copy of a function whose hot part GCC split off
   (foo.part.0 ran, foo itself was only ever inlined as the header that
   calls it), a foo.cold, a clone.  The builders list the lines of the
   pieces that caught samples; without these, such a line would read as
   code the profiled binary did not have, whose zero is no evidence to the
   plugin, and the flow free to send counts through it.  A profile of
   several binaries (an executable and its libraries) may so list a
   function a library has and only the executable's copy ran.  Returns
   how many pieces gave lines.  P must be finalized again afterwards.  */
size_t sfdo_add_unsampled_pieces (struct sfdo_symtab *st,
                                  struct sfdo_decoder *dec,
                                  const struct sfdo_piece *pieces, size_t n,
                                  const struct sfdo_tally *t,
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
