/* plugin/counts.cc - the count policy (counts.h).

   Scale.  Profile counts are estimated executions: samples times the
   sampling period, divided by the instructions of the sampled block
   (converter/build_ip.c).  With retired-instruction or branch events that
   is executions; with a timer it is executions weighted by the time an
   instruction takes, which keeps ratios but not the absolute scale.  GCC
   compares counts with two things: profile_info->runs ("ran at most once
   per run" is cold) and the hot threshold, sum_max / 10000, where
   -fprofile-use's sum_max is the largest counter of the whole program.
   So runs is 1 and sum_max the largest count of the whole profile, not of
   this unit: every unit of a program then draws the line between hot and
   normal at the same count, as instrumented feedback does.

   Quality.  What GCC does with a count depends on its quality
   (gcc-profile-consumers: profile-count.h): AFDO counts are believed by
   the inliner and block layout, but a loop's trip count is never derived
   from them (reliable_p needs ADJUSTED) and an AFDO zero is never "never
   executed".  PRECISE counts are what -fprofile-use writes: every zero
   becomes "never executed", and a count's rounding error is trusted.
   The default, ADJUSTED, sits in between: loop estimates and profile
   driven unrolling use it, nothing treats it as exact, and zeros are
   decided separately (hotcold.cc), block by block, by the evidence that
   the block would have been sampled had it run.  A zero without that
   evidence is written with AFDO quality: low, cold for size decisions,
   but not "never executed".  -fplugin-arg-samplefdo-quality= chooses
   another quality for measurement (bench/RESULTS.md compares them).

   Consistency.  Counts and probabilities come from one flow: a block's
   count equals the sum of its in-edges' counts and of its out-edges', so
   no pass reports an "Invalid sum" that the counts caused; edits to
   counts happen only inside the flow solution (annotate.cc).

   GCC 12's vectorizer divides by a zero count that is not PRECISE:
   vect_do_peeling scales each block of a peeled epilogue by its count
   over its count times 0.9, and profile_count::apply_scale divides when
   the two differ in quality (an AFDO or ADJUSTED zero against the
   GUESSED zero the probability makes), raising SIGFPE in cc1 (bzip2's
   huffman.c with a timer recording; GCC's own -fauto-profile writes AFDO
   zeros too).  A pass just before "vect" gives the zeros of the
   function's blocks GUESSED quality, where the two sides compare equal
   and nothing is divided.  GUESSED and AFDO zeros mean the same to every
   later consumer (never "never executed", never hot); an ADJUSTED zero
   (a count of the default quality that a pass scaled down to 0) also
   stops being reliable_p, which a loop's trip count estimate asks, and a
   loop whose blocks count 0 has no trip count to estimate.  ENTRY and
   EXIT keep theirs, which node->count repeats.  */

#include <math.h>

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "cgraph.h"
#include "cfg.h"
#include "profile.h"
#include "predict.h"
#include "gcov-io.h"
#include "dumpfile.h"
#include "tree-pass.h"
#include "gcc-compat.h"

#include "../profiles/profile.h"
#include "../converter/event_plan.h"
#include "samplefdo.h"
#include "annotate.h"
#include "counts.h"

/* The summary profile_info points at.  */
static struct gcov_summary sfdo_summary;

/* The sampling period the counts are scaled by, for sfdo_expected_samples:
   the largest of the profile's events (the fewest samples per count, so
   the most cautious).  1 where the profile names no event (an imported
   AutoFDO profile holds plain sample counts).  */
static uint64_t sfdo_period = 1;

/* Whether the counts come from branch stacks (mode "lbr"): a block then
   shows in a sample whenever one of the stack's ranges covers it, however
   many instructions it has.  */
static bool sfdo_from_branch_stacks;

/* Whether the counts are executions (sfdo_counts_are_executions).  */
static bool sfdo_counts_executions;

/* Entries of a branch stack a block can show in, counted conservatively
   (Intel's LBR has 32, AMD's BRS 16).  */
#define SFDO_BRANCH_STACK_DEPTH 16

/* Functions examined for the largest count: the profile sorts functions
   by total, and a count never exceeds its function's total, so the scan
   can usually stop after a few; the cap bounds it on flat profiles.  */
#define SFDO_MAX_COUNT_SCAN 20000

/* The largest count anywhere in F, inline instances included.  */

static uint64_t
largest_count (const struct sfdo_prof_func *f)
{
  uint64_t most = f->head;

  for (size_t i = 0; i < f->nlines; i++)
    most = MAX (most, f->lines[i].count);
  for (size_t i = 0; i < f->ncallsites; i++)
    most = MAX (most, largest_count (f->callsites[i].callee));
  return most;
}

/* The largest count of the whole profile.  */

static uint64_t
program_max_count (void)
{
  size_t n = sfdo_profile_nfuncs (sfdo_profile);
  uint64_t most = 0;
  struct sfdo_error err;

  sfdo_error_clear (&err);
  for (size_t i = 0; i < n && i < SFDO_MAX_COUNT_SCAN; i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (sfdo_profile, i, &err);
      if (!f)
	{
	  sfdo_report_profile_error (&err);
	  break;
	}
      if (f->total <= most)
	break;
      most = MAX (most, largest_count (f));
    }
  return most;
}

bool
sfdo_counts_are_executions (void)
{
  return sfdo_counts_executions;
}

double
sfdo_samples_in (uint64_t weight)
{
  return (double) weight / (double) sfdo_period;
}

/* The confidence of sfdo_likely_majority: Wilson's score bound, this
   many standard deviations below the share the samples show (one-sided
   90%).  It takes 2 samples all alike, 5 of 6, 10 of 15 or 30 of 50.  A
   flat minimum of 8 samples whatever their agreement, as before, let 5
   of 8 pass and missed every site sampled 2 to 7 times: the divisions and
   copies of SQLite's speedtest and Lua's string library that ran a few
   thousand times caught about that many.  */
#define SFDO_MAJORITY_CONFIDENCE_Z 1.2816

bool
sfdo_likely_majority (double seen, double n)
{
  const double z = SFDO_MAJORITY_CONFIDENCE_Z;
  double p, z2n;

  if (n <= 0 || seen <= 0)
    return false;
  p = MIN (seen / n, 1.0);
  if (!sfdo_rule_on (SFDO_RULE_VALUES_CONFIDENCE))
    return p >= 0.5;
  z2n = z * z / n;
  return (p + z2n / 2 - z * sqrt (p * (1 - p) / n + z2n / (4 * n)))
	 / (1 + z2n) >= 0.5;
}

bool
sfdo_leader_likely (const struct sfdo_prof_values *h,
		    double samples_per_count)
{
  uint64_t all = 0, top = 0;

  for (size_t i = 0; i < h->nentries; i++)
    {
      all = sfdo_sat_add (all, h->entries[i].count);
      top = MAX (top, h->entries[i].count);
    }
  return sfdo_likely_majority ((double) top * samples_per_count,
			       (double) all * samples_per_count);
}

void
sfdo_install_profile_info (void)
{
  const struct sfdo_prof_header *h
    = sfdo_profile_header (sfdo_profile);
  uint64_t most = program_max_count ();

  for (size_t i = 0; i < h->nevents; i++)
    sfdo_period = MAX (sfdo_period, h->events[i].period);
  sfdo_from_branch_stacks = sfdo_profile_has_mode (sfdo_profile, "lbr");
  /* sfdo-convert counts with branch stacks, else retired instructions
     before cycles or a timer (converter/event_plan.h), and says "time"
     where its IP counts are of cycles or a timer.  Profiles without that
     mode (older, merged from ones without it) are taken for executions
     where they name an instruction event; one naming no event (AutoFDO's,
     from branch stacks; one written by hand) is too.  */
  bool names_instructions = !h->nevents;
  for (size_t i = 0; i < h->nevents; i++)
    names_instructions |= sfdo_event_name_is_instructions
      (sfdo_profile_str (sfdo_profile, h->events[i].name)) != 0;
  sfdo_counts_executions
    = sfdo_from_branch_stacks
      || (names_instructions && !sfdo_profile_has_mode (sfdo_profile, "time"));
  sfdo_summary.runs = 1;
  sfdo_summary.sum_max
    = (gcov_type) MIN (MAX (most, (uint64_t) 1),
		       (uint64_t) profile_count::max_count / 2);
  sfdo_summary_set_cutoff (&sfdo_summary);
  profile_info = &sfdo_summary;
  /* What get_hot_bb_threshold would compute on its first call; set now
     so that nothing cached a threshold from another summary.  */
  set_hot_bb_threshold (sfdo_summary.sum_max
			/ param_hot_bb_count_fraction);
}

double
sfdo_expected_samples (uint64_t count, unsigned size)
{
  /* An IP sample weighs the period, spread over its block's instructions
     (converter/build_ip.c); a branch stack's entry weighs the period over
     the stack's entries (converter: take_branch_stack).  */
  if (sfdo_from_branch_stacks)
    return (double) count * SFDO_BRANCH_STACK_DEPTH / (double) sfdo_period;
  return (double) count * size / (double) sfdo_period;
}

uint64_t
sfdo_sample_weight (unsigned size)
{
  double one = sfdo_expected_samples (1, size);
  return one > 0 ? (uint64_t) MAX (1.0 / one, 1.0) : 1;
}

/* The profile_quality of sfdo_opts.quality.  */

static profile_quality
chosen_quality (void)
{
  switch (sfdo_opts.quality)
    {
    case SFDO_QUALITY_AFDO:
      return AFDO;
    case SFDO_QUALITY_PRECISE:
      return PRECISE;
    default:
      return ADJUSTED;
    }
}

/* COUNT as a profile_count: a positive count with the chosen quality, a
   zero with a quality that says low, but not "never executed"
   (gcc-compat.h).  */

static profile_count
as_count (uint64_t count)
{
  gcov_type c = (gcov_type) MIN (count,
				 (uint64_t) profile_count::max_count / 2);
  return profile_count::from_gcov_type (c, c ? chosen_quality ()
					     : SFDO_UNSURE_ZERO_QUALITY);
}

void
sfdo_write_counts (cgraph_node *node, const struct sfdo_fn_counts *c,
		   const bool *real_zero)
{
  basic_block bb;
  edge e;
  edge_iterator ei;
  unsigned k = 0;

  FOR_ALL_BB_FN (bb, cfun)
    bb->count = real_zero && real_zero[bb->index]
		? profile_count::zero () : as_count (c->block[bb->index]);
  FOR_ALL_BB_FN (bb, cfun)
    FOR_EACH_EDGE (e, ei, bb->succs)
      {
	uint64_t flow = c->edge[k++];
	if (real_zero && real_zero[e->dest->index])
	  e->probability = profile_probability::never ();
	else if (bb->count.nonzero_p ())
	  e->probability = as_count (MIN (flow, c->block[bb->index]))
			     .probability_in (bb->count);
	else if (e->probability.initialized_p ())
	  /* No flow to split: keep GCC's static guess, as a guess.  */
	  e->probability = e->probability.guessed ();
	else
	  sfdo_profile_is_partial ();
      }
  /* EXIT counts what returns.  The solver also sent it the flow of the
     blocks that never return (noreturn calls), by arcs GCC's CFG does not
     have: such flow, which a head taken from the callers' call counts can
     force onto an error path, would leave EXIT above its in-edges.  */
  profile_count returned = profile_count::zero ();
  bool returns = false;
  FOR_EACH_EDGE (e, ei, EXIT_BLOCK_PTR_FOR_FN (cfun)->preds)
    {
      returned += e->count ();
      returns = true;
    }
  if (returns)
    EXIT_BLOCK_PTR_FOR_FN (cfun)->count = returned;
  node->count = ENTRY_BLOCK_PTR_FOR_FN (cfun)->count;
  profile_status_for_fn (cfun) = PROFILE_READ;
}

unsigned
sfdo_check_consistency (void)
{
  basic_block bb;
  edge e;
  edge_iterator ei;
  unsigned bad = 0;

  FOR_ALL_BB_FN (bb, cfun)
    {
      profile_count in = profile_count::zero ();
      profile_count out = profile_count::zero ();
      bool ins = false, outs = false;

      FOR_EACH_EDGE (e, ei, bb->preds)
	{
	  in += e->count ();
	  ins = true;
	}
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!(e->flags & (EDGE_EH | EDGE_FAKE)))
	  {
	    out += e->count ();
	    outs = true;
	  }
      if ((ins && bb != ENTRY_BLOCK_PTR_FOR_FN (cfun)
	   && in.differs_from_p (bb->count))
	  || (outs && out.differs_from_p (bb->count)))
	{
	  bad++;
	  if (dump_file)
	    fprintf (dump_file, "samplefdo: %s bb %d: count %" PRId64
		     ", in-edges %" PRId64 ", out-edges %" PRId64 "\n",
		     current_function_name (), bb->index,
		     bb->count.to_gcov_type (),
		     ins ? in.to_gcov_type () : -1,
		     outs ? out.to_gcov_type () : -1);
	}
    }
  return bad;
}

/* --- the zeros the vectorizer divides by -------------------------------- */

/* Give the current function's zero counts that are neither PRECISE nor
   GUESSED already GUESSED quality (see the comment at the top).  Returns
   how many it changed.  */

static unsigned
guess_unsure_zeros (void)
{
  basic_block bb;
  unsigned changed = 0;

  FOR_EACH_BB_FN (bb, cfun)
    if (bb->count.initialized_p () && bb->count.to_gcov_type () == 0
	&& bb->count.quality () > GUESSED
	&& !(bb->count == profile_count::zero ()))
      {
	bb->count = bb->count.guessed ();
	changed++;
      }
  return changed;
}

const pass_data pass_data_sfdo_zeros =
{
  GIMPLE_PASS, /* type */
  "samplefdo-zeros", /* name */
  OPTGROUP_NONE, /* optinfo_flags */
  TV_PLUGIN_RUN, /* tv_id */
  PROP_cfg, /* properties_required */
  0, /* properties_provided */
  0, /* properties_destroyed */
  0, /* todo_flags_start */
  0, /* todo_flags_finish */
};

class pass_sfdo_zeros : public gimple_opt_pass
{
public:
  pass_sfdo_zeros (gcc::context *ctxt)
    : gimple_opt_pass (pass_data_sfdo_zeros, ctxt)
  {}

  virtual bool gate (function *fn)
  {
    return (sfdo_profile != NULL && fn
	    && profile_status_for_fn (fn) == PROFILE_READ);
  }
  virtual unsigned int execute (function *)
  {
    long start = get_run_time ();
    sfdo_stats.zeros_guessed += guess_unsure_zeros ();
    sfdo_stats.pass_usec += get_run_time () - start;
    return 0;
  }
};

opt_pass *
sfdo_make_zeros_pass (gcc::context *ctxt)
{
  return new pass_sfdo_zeros (ctxt);
}
