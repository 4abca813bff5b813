/* plugin/counts.h - the count policy: how the solved counts are handed to
   GCC (quality, scale, real zeros), the program summary GCC compares them
   with, and the check that they stay consistent.  */

#ifndef SFDO_PLUGIN_COUNTS_H
#define SFDO_PLUGIN_COUNTS_H

struct sfdo_fn_counts;
struct sfdo_prof_values;

/* Read the program's summary from the whole profile (its largest count,
   its sampling period) and point profile_info at it, with the hot-block
   threshold -fprofile-use would derive.  Call once, before GCC asks
   whether anything is hot.  */
void sfdo_install_profile_info (void);

/* How many samples (or branch-stack sightings) a block of SIZE
   statements that ran COUNT times (in the profile's units) would have
   caught.  */
double sfdo_expected_samples (uint64_t count, unsigned size);

/* The count one sample (or branch-stack sighting) gives a block of SIZE
   statements: the noise floor of a measured count.  */
uint64_t sfdo_sample_weight (unsigned size);

/* How many samples (at least) a histogram's total WEIGHT stands for.  */
double sfdo_samples_in (uint64_t weight);

/* Whether a value seen in SEEN of N samples likely took half or more of
   the executions: its share's lower confidence bound (counts.cc) is half
   or more.  GCC's value transforms and indirect-call promotion test
   "half or more" on exact counts.  */
bool sfdo_likely_majority (double seen, double n);

/* sfdo_likely_majority for the leading entry of H, each unit of its
   counts standing for SAMPLES_PER_COUNT samples.  */
bool sfdo_leader_likely (const struct sfdo_prof_values *h,
			 double samples_per_count);

/* Whether the profile's counts are executions (branch stacks, or
   retired instructions or no event named without the header's "time"
   mode), not executions weighted by time (a timer, cycles).  */
bool sfdo_counts_are_executions (void);

/* Write the counts C onto the current function (of NODE): blocks,
   edge probabilities derived from the same flows, node->count and
   PROFILE_READ.  Blocks marked in REAL_ZERO (by index; may be NULL) are
   "never executed" for GCC, and the edges into them never taken.  */
void sfdo_write_counts (cgraph_node *node, const struct sfdo_fn_counts *c,
			const bool *real_zero);

/* Count the blocks of the current function whose in-edges or out-edges
   do not add up to their count by GCC's own tolerance (the test behind
   the dumps' "Invalid sum"), reporting each in the pass's dump.  */
unsigned sfdo_check_consistency (void);

/* Make the pass, run just before "vect", that keeps GCC 12's vectorizer
   from dividing by a zero count (counts.cc).  */
opt_pass *sfdo_make_zeros_pass (gcc::context *ctxt);

#endif
