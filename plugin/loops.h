/* plugin/loops.h - trip counts from the profile, for peeling, complete
   unrolling and unrolling.  */

#ifndef SFDO_PLUGIN_LOOPS_H
#define SFDO_PLUGIN_LOOPS_H

/* Record, for every loop of the current function that ran, the number of
   iterations its counts imply, as GCC's own profile reader does for
   reliable counts.  Returns how many loops got an estimate.  */
unsigned sfdo_record_loop_estimates (void);

/* Let complete unrolling grow code at -O2 when the plugin turned on
   peeling or unrolling.  */
void sfdo_enable_loop_growth (void);

#endif
