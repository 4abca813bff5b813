/* plugin/annotate.h - the samplefdo plugin's internal interface between
   samplefdo.cc (plugin set-up, matching, reporting) and annotate.cc
   (counts onto one function's CFG).  */

#ifndef SFDO_PLUGIN_ANNOTATE_H
#define SFDO_PLUGIN_ANNOTATE_H

struct sfdo_prof_func;
struct sfdo_profile;

/* How a block's statements vote for its count.  */
enum sfdo_block_vote
{
  SFDO_VOTE_MAX,
  SFDO_VOTE_MEAN
};

/* What annotating one function found.  */
struct sfdo_annotate_result
{
  /* Blocks with at least one statement located in the profile.  */
  unsigned known_blocks, blocks;
  /* Share of the profile's body count at lines the body has, in [0, 1];
     low for a stale profile.  */
  double fit;
};

/* Annotate the current function (cfun, of cgraph node NODE) from its
   profile F in profile P: block counts from the statements' (line
   offset, discriminator) along their inline stacks, smoothed by
   minimum-cost flow, written with AFDO quality, with edge probabilities,
   the node's count and PROFILE_READ.  With DUMP_ONLY, change nothing (F
   may then be NULL).  DUMP (may be NULL) receives one line per block:
   index, lines, raw, smoothed and final count.  */
void sfdo_annotate_function (cgraph_node *node, const struct sfdo_profile *p,
			     const struct sfdo_prof_func *f,
			     enum sfdo_block_vote vote, bool dump_only,
			     FILE *dump, struct sfdo_annotate_result *result);

/* The profile the profiled binary recorded for CALLEE inlined at the
   call statement CALL of the current function, whose profile in P is F;
   NULL if it has none (for example because it was not inlined there).  */
const struct sfdo_prof_func *
sfdo_inlined_callee_profile (const struct sfdo_profile *p,
			     const struct sfdo_prof_func *f, gimple *call,
			     tree callee);

/* The profile of STMT's innermost inline frame, following STMT's inline
   stack from F (the current function's profile in P), and STMT's line
   offset there in *OFFSET; NULL if the profile does not know it.  */
const struct sfdo_prof_func *
sfdo_innermost_profile (const struct sfdo_profile *p,
			const struct sfdo_prof_func *f, gimple *stmt,
			uint32_t *offset);

/* Attach the value histograms of F (the current function's profile in P)
   to the current function's statements, as GCC value profiles (needs
   its counts written and init_node_map done).  Returns how many.  */
unsigned sfdo_attach_value_profiles (const struct sfdo_profile *p,
				     const struct sfdo_prof_func *f);

/* Once every function is annotated and profile_info installed: let the
   current function's frequency class, max count and call edges follow
   its new counts (they compare with profile_info's hot threshold, which
   needs the whole unit's counts).  */
void sfdo_finish_function (void);

/* Record COUNT as seen in this unit, for profile_info's sum_max.  */
void sfdo_note_max_count (gcov_type count);

/* Point profile_info at a summary of this unit's counts, so GCC's
   hotness tests have a threshold to compare with.  */
void sfdo_install_profile_info (void);

#endif
