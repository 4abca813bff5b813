/* plugin/inline.h - inlining from the profile: replaying, before
   annotation, the hot inlining the profiled binary did, and giving
   callees the counts of their inline instances.  */

#ifndef SFDO_PLUGIN_INLINE_H
#define SFDO_PLUGIN_INLINE_H

/* Inline into the current function (of NODE, profile F) every direct
   call that the profiled binary had inlined there with a hot instance,
   so that the instance's nested profile lands on the inlined copy.
   Returns how many calls were inlined.  */
unsigned sfdo_replay_inlining (cgraph_node *node,
			       const struct sfdo_prof_func *f);

/* Add into the callee's own profile the counts of every inline instance
   the profiled binary had at a call of the current function (profile F)
   that is a call in this compilation (so far), direct or indirect (the
   targets it had promoted and inlined).  USED holds the instances
   added already; EXTRA the profiles made here.  */
void sfdo_move_uninlined_instances (const struct sfdo_prof_func *f,
				    sfdo_extra_map *extra,
				    hash_set<const struct sfdo_prof_func *>
				      *used);

#endif
