/* plugin/values.h - the profile's value histograms as GCC value profiles:
   division and modulo by a frequent value or a power of two, string
   operations of a frequent size (values.cc); indirect and virtual calls
   to a dominant target (icall.cc).  */

#ifndef SFDO_PLUGIN_VALUES_H
#define SFDO_PLUGIN_VALUES_H

/* One value of a histogram and how often it was seen.  */
struct sfdo_hist_entry
{
  gcov_type value;
  uint64_t count;
};

/* Attach to STMT a TOPN-shaped histogram of TYPE (HIST_TYPE_TOPN_VALUES
   or HIST_TYPE_INDIR_CALL) for VALUE, from the N ENTRIES sorted by count,
   scaled so that its total is STMT's block count, as GCC's checks want.
   Returns whether one was attached.  */
bool sfdo_attach_topn (gimple *stmt, enum hist_type type, tree value,
		       const struct sfdo_hist_entry *entries, unsigned n);

/* Attach the division and string-operation histograms of F (the current
   function's profile) to the current function.  Returns how many.  */
unsigned sfdo_attach_value_histograms (const struct sfdo_prof_func *f);

/* Give NODE, a file-local function of this unit whose profile is F, the
   profile id that other units name it by (icall.cc says why it is not
   GCC's own).  Call after init_node_map.  */
void sfdo_set_local_profile_id (cgraph_node *node,
				const struct sfdo_prof_func *f);

/* Attach the indirect-call histograms of F to the current function's
   indirect and virtual calls (needs init_node_map and the local profile
   ids).  Returns how many.  */
unsigned sfdo_attach_icall_histograms (const struct sfdo_prof_func *f);

/* Let value-profile transformations use the attached histograms, as
   GCC's own profile pass does; the counts must be final.  */
void sfdo_apply_value_transforms (void);

#endif
