/* plugin/hotcold.h - which blocks never ran, and which functions of the
   profiled binary never ran: what GCC moves to the cold partition
   (foo.cold) and to .text.unlikely.  */

#ifndef SFDO_PLUGIN_HOTCOLD_H
#define SFDO_PLUGIN_HOTCOLD_H

struct sfdo_fn_counts;

/* How often each block of a function runs per entry of the function by
   GCC's own estimate, by block index.  Take it before the first
   annotation writes counts, and after the CFG has the loop shape the
   annotation needs (sfdo_prepare_loops): a function annotated again
   (reconcile_entries, revive_callers) uses the estimate of the first.  */
struct sfdo_static_estimate
{
  int nblocks;
  double *rate;
};

/* The current function's estimate (a new one, for
   sfdo_static_estimate_free), or NULL when the CFG holds none.  */
struct sfdo_static_estimate *sfdo_static_estimate_take (void);
void sfdo_static_estimate_free (struct sfdo_static_estimate *e);

/* BB's rate in E; 1 where there is none (E NULL, or BB made after E was
   taken), rather than a read past its end.  */
double sfdo_static_rate (const struct sfdo_static_estimate *e,
			 basic_block bb);

/* Whether a block GCC's estimate enters at RATE per entry of its function
   is on a path to a noreturn or cold call, which a function that ran
   rarely is believed never to have taken; in a function REVIVED (one
   without a sample that a callee says ran: pass.cc, revive_callers), any
   block entered on fewer than half of the entries (SFDO_REVIVED_RARE).  */
bool sfdo_statically_rare (double rate, bool revived);

/* The blocks of the current function that never ran, by block index (a
   new array the caller frees), from its solved counts C and GCC's
   estimate ESTIMATE (NULL: none); NULL when the hot/cold family is off.  */
bool *sfdo_find_real_zeros (const struct sfdo_fn_counts *c,
			    const struct sfdo_static_estimate *estimate);

/* Whether profile F says its function was in the profiled binary and
   never ran, with enough samples in the profile to believe it.  */
bool sfdo_profiled_but_never_ran (const struct sfdo_prof_func *f);

/* Mark the current function (of NODE) as never executed, keeping the
   shape of GCC's static estimate, the way -fprofile-use treats a
   function its training run never entered.  */
void sfdo_mark_never_ran (cgraph_node *node);

/* Whether FN's entry count is a zero believed (never entered, or
   marked never run).  */
bool sfdo_never_entered (function *fn);

/* Give the current function (of NODE), one that never entered and that
   handle_missing_profiles then revived with GCC's static estimate, the
   cold blocks of a function that ran once: those the estimate enters on
   fewer than half of the entries.  Returns how many blocks it made never
   executed.  */
unsigned sfdo_cool_revived_function (cgraph_node *node);

/* The functions the profile says never ran, known before any body is
   annotated, with the samples each would catch per entry by GCC's
   estimate of its run time: calls into them did not run either, where
   running would have caught samples (annotate.cc, find_dead_calls).
   sfdo_forget_never_ran empties the set at the end of the unit.  */
void sfdo_note_never_ran (tree decl, double samples_per_entry);
/* Whether any function is noted, so that looking for calls into one
   can be skipped.  */
bool sfdo_noted_any_never_ran (void);
/* The samples per entry noted for DECL, or 0 if it is not noted.  */
double sfdo_never_ran_samples (tree decl);
void sfdo_forget_never_ran (void);

#endif
