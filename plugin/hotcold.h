/* plugin/hotcold.h - which blocks never ran, and which functions of the
   profiled binary never ran: what GCC moves to the cold partition
   (foo.cold) and to .text.unlikely.  */

#ifndef SFDO_PLUGIN_HOTCOLD_H
#define SFDO_PLUGIN_HOTCOLD_H

struct sfdo_fn_counts;

/* How often each block of the current function runs per entry of the
   function by GCC's own estimate (a new array by block index, which the
   caller frees), or NULL when the CFG holds no estimate.  Take it before
   the first annotation writes counts: a function annotated again
   (reconcile_entries) uses the rates of the first.  */
double *sfdo_static_rates (void);

/* Whether a block GCC's estimate enters at RATE per entry of its function
   is on a path to a noreturn or cold call, which a function that ran
   rarely is believed never to have taken.  */
bool sfdo_statically_rare (double rate);

/* The blocks of the current function that never ran, by block index (a
   new array the caller frees), from its solved counts C and its
   STATIC_RATE (NULL: none); NULL when the hot/cold family is off.  */
bool *sfdo_find_real_zeros (const struct sfdo_fn_counts *c,
			    const double *static_rate);

/* Whether profile F says its function was in the profiled binary and
   never ran, with enough samples in the profile to believe it.  */
bool sfdo_profiled_but_never_ran (const struct sfdo_prof_func *f);

/* Mark the current function (of NODE) as never executed, keeping the
   shape of GCC's static estimate, the way -fprofile-use treats a
   function its training run never entered.  */
void sfdo_mark_never_ran (cgraph_node *node);

#endif
