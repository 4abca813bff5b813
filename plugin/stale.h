/* plugin/stale.h - a profile from an older source, aligned to today's.

   Line offsets count from a function's declaration, so edits above a
   function leave its profile fitting; an edit inside it moves every later
   line.  The profile records where the profiled binary called what
   (SFDO_VALUE_CALL_SITES and its inline instances, converter/anchors.h);
   today's body calls mostly the same functions in the same order.  The
   two sequences are aligned by callee name (lines with discriminators
   are anchors too: profiles/align.h), and the profile's lines move with
   the anchors they lie between (stale.cc says how).  */

#ifndef SFDO_PLUGIN_STALE_H
#define SFDO_PLUGIN_STALE_H

/* How a function's profile met today's body.  */
enum sfdo_fit
{
  SFDO_FIT_EXACT,	/* every matched anchor where it was */
  SFDO_FIT_MOVED,	/* lines moved with the anchors */
  SFDO_FIT_UNANCHORED	/* no anchor to go by: the profile as it is */
};

/* What aligning a function's profile found.  */
struct sfdo_realignment
{
  enum sfdo_fit fit;
  unsigned anchors, matched;	/* the profile's anchors, and how many
				   today's body has in the same order */
  uint64_t strong, weak, dropped;	/* weight of the lines moved where the
				   stretch between their anchors kept its
				   length, moved in proportion, left out */
};

/* F, the profile of the current function, aligned to its body: F itself
   when it fits as it is (or nothing can tell), else a moved copy the
   caller frees with sfdo_prof_func_free.  What was found goes into *R.  */
struct sfdo_prof_func *sfdo_realign_profile (struct sfdo_prof_func *f,
					     struct sfdo_realignment *r);

/* INST, an inline instance of DECL in a profile, aligned in place to
   DECL's body as the current function holds it (DECL itself, or a
   function it has inlined: body_anchors): its lines count from DECL's
   declaration, so they moved with DECL's source, not its caller's.  True
   if its lines moved; what was found goes into *R.  The lines it placed
   by guess are not remembered for the flow solver.  */
bool sfdo_realign_instance (struct sfdo_prof_func *inst, tree decl,
			    struct sfdo_realignment *r);

/* The profile of the current function, file-local and without a profile
   of its name, under the name it had in the profiled source: the one
   static function of this file that the profile lists, that no function
   of this unit is named, and that calls the same functions in the same
   order (its shape signature, profiles/align.h), failing that the one
   with a similar name that shares enough of its calls; NULL if none.  Profiles
   of global functions are not taken this way: their name may still be
   another unit's.  */
struct sfdo_prof_func *sfdo_renamed_profile (void);

/* Whether BB of the current function holds a line its realigned profile
   placed by guess (a weak match): the flow may move its count more
   freely (SFDO_FLOW_WEAK).  */
bool sfdo_block_weak (basic_block bb);

/* Forget the weak lines of every function and what sfdo_renamed_profile
   gathered (at the end of the pass).  */
void sfdo_forget_weak_lines (void);

#endif
