/* plugin/loops.cc - trip counts from the profile (loops.h).

   GCC peels a loop (-fpeel-loops) and lets RTL unrolling skip loops that
   "do not roll" by the estimated number of iterations, which it keeps in
   loop->nb_iterations_estimate.  Its profile reader records that estimate
   right after reading counts, but only from reliable ones (ADJUSTED or
   PRECISE, profile.cc branch_prob); AFDO counts never give one.  The
   estimate here is latch count over entry count, as GCC would derive it,
   recorded whatever the quality the counts were given with, so that the
   count policy does not decide whether loops are peeled.  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "cfgloop.h"
#include "tree-ssa-loop-niter.h"
#include "opts.h"
#include "flags.h"

#include "samplefdo.h"
#include "annotate.h"
#include "counts.h"
#include "loops.h"

/* Samples below which an entry count is too weak to divide by.  */
#define SFDO_ENTRY_EVIDENCE 5.0

/* The iterations per entry the counts of LOOP imply, rounded to the
   nearest (GCC's expected_loop_iterations_unbounded rounds up, which turns
   a sampled 0.3 into one more peeled iteration than exact counts would).
   A loop entered too rarely to be sampled every time (main's loop,
   entered once, shows a whole sample's weight on its way in) has its
   entry count overstated by up to the sampling period: below
   SFDO_ENTRY_EVIDENCE samples no estimate is recorded, so that such a loop
   is not taken for one that runs a dozen times and peeled, and GCC keeps
   its own estimate, as at plain -O2.  (An estimate scaled up instead,
   far beyond what the loop's counts say, led the vectorizer of GCC 12 to
   scale an epilogue's count by a probability that rounds it to zero and
   divide by it: an internal compiler error in vect_do_peeling, seen on
   SQLite's generateSortTail.)  -1 if the loop was not entered or the
   evidence is too weak.  */

static gcov_type
iterations_per_entry (const class loop *loop)
{
  profile_count entered = profile_count::zero ();
  profile_count looped = profile_count::zero ();
  double evidence = 0, iterations;
  edge e;
  edge_iterator ei;

  FOR_EACH_EDGE (e, ei, loop->header->preds)
    if (e->src == loop->latch || flow_bb_inside_loop_p (loop, e->src))
      looped += e->count ();
    else
      {
	entered += e->count ();
	if (e->count ().ipa ().initialized_p ())
	  evidence += sfdo_expected_samples (e->count ().ipa ().to_gcov_type (),
					     sfdo_block_size (e->src));
      }
  if (!entered.ipa ().nonzero_p ())
    return -1;
  iterations = (double) looped.ipa ().to_gcov_type ()
	       / (double) entered.ipa ().to_gcov_type ();
  if (evidence < SFDO_ENTRY_EVIDENCE)
    return -1;
  return iterations > 1e15 ? (gcov_type) 1e15 : (gcov_type) (iterations + 0.5);
}

unsigned
sfdo_record_loop_estimates (void)
{
  unsigned recorded = 0;

  if (!sfdo_family_on (SFDO_FAMILY_LOOPS) || !current_loops)
    return 0;
  for (auto loop : loops_list (cfun, 0))
    {
      gcov_type iterations;
      if (!loop->header->count.ipa ().nonzero_p ()
	  || (iterations = iterations_per_entry (loop)) < 0)
	continue;
      loop->any_estimate = false;
      record_niter_bound (loop, gcov_type_to_wide_int (iterations), true,
			  false);
      recorded++;
    }
  return recorded;
}

void
sfdo_enable_loop_growth (void)
{
  /* finish_options derived flag_cunroll_grow_size from -funroll-loops,
     -fpeel-loops and -O3 before plugins were loaded.  */
  if (!global_options_set.x_flag_cunroll_grow_size
      && (global_options.x_flag_unroll_loops
	  || global_options.x_flag_peel_loops))
    global_options.x_flag_cunroll_grow_size = 1;
}
