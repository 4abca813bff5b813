/* plugin/samplefdo.h - what the samplefdo plugin's files share: its
   options, the open profile, the statistics it reports, and the entry
   point of each decision family.  Included after GCC's headers.

   The plugin is organised by the decisions GCC makes from a profile:

     samplefdo.cc  registration, arguments, the flags -fprofile-use sets
     pass.cc       the pass that replaces GCC's "profile": matching
		   functions with the profile and running the stages below
     position.cc   where a statement sits in the profile (inline stack,
		   line offset, discriminator)
     stale.cc      a profile of an older source aligned to today's by
		   its call sites
     annotate.cc   measured block counts, smoothed by minimum-cost flow
     counts.cc     the count policy: quality, scale, real zeros, the
		   program summary (profile_info), the consistency check
     hotcold.cc    unlikely functions and cold blocks
     inline.cc     call-site counts and early inline replay
     loops.cc      trip-count estimates for peeling and unrolling
     icall.cc      indirect and virtual call promotion
     values.cc     division and string-operation specialisation

   Each family can be turned off (-fplugin-arg-samplefdo-no-FAMILY) so a
   benchmark can climb from plain counts to every decision, and each rule
   an end-to-end test is written for (-fplugin-arg-samplefdo-no-rule=NAME)
   so tests/mutation-audit.sh can check that its test fails without it.  */

#ifndef SFDO_PLUGIN_SAMPLEFDO_H
#define SFDO_PLUGIN_SAMPLEFDO_H

struct sfdo_profile;
struct sfdo_prof_func;

/* The decision families that can be turned off one by one.  */
enum sfdo_family
{
  SFDO_FAMILY_HOTCOLD,
  SFDO_FAMILY_INLINE,
  SFDO_FAMILY_LOOPS,
  SFDO_FAMILY_ICALL,
  SFDO_FAMILY_VALUES,
  SFDO_NFAMILIES
};

/* The rules that can be switched off one by one, each where it decides
   (the e2e test written for it in brackets).  */
enum sfdo_rule
{
  SFDO_RULE_ZERO_EVIDENCE,	/* hotcold.cc: unsampled regions (101) */
  SFDO_RULE_STATICALLY_RARE,	/* hotcold.cc: GCC's error paths (86) */
  SFDO_RULE_REVIVED_RARE,	/* hotcold.cc: revived bodies' rare blocks
				   (100, 104) */
  SFDO_RULE_COOL_REVIVED,	/* hotcold.cc: GCC's revivals (100) */
  SFDO_RULE_REVIVE_CALLERS,	/* pass.cc (104) */
  SFDO_RULE_DEAD_CALLS,		/* annotate.cc: find_dead_calls (88) */
  SFDO_RULE_BELIEVED_ZEROS,	/* annotate.cc: keep_believed_zeros (89) */
  SFDO_RULE_ABOVE_DOMINATOR,	/* annotate.cc (97) */
  SFDO_RULE_ZERO_FLOOR,		/* annotate.cc (51) */
  SFDO_RULE_RENUMBERED_LOOPS,	/* annotate.cc (110) */
  SFDO_RULE_PROMOTED_TARGETS,	/* icall.cc, inline.cc (110) */
  SFDO_RULE_TRACER,		/* pass.cc: -ftracer off (79) */
  SFDO_RULE_VALUES_CONFIDENCE,	/* counts.cc: sfdo_likely_majority (98) */
  SFDO_RULE_VECTORIZER_ZEROS,	/* counts.cc (99) */
  SFDO_RULE_REALIGN_INSTANCES,	/* pass.cc: realign_instances (84) */
  SFDO_RULE_COPIED_DISCRIMINATORS, /* discriminators.cc, GCC 12 (110) */
  SFDO_NRULES
};

/* The quality the counts are given to GCC with (counts.cc explains the
   choice).  */
enum sfdo_quality
{
  SFDO_QUALITY_AFDO,
  SFDO_QUALITY_ADJUSTED,
  SFDO_QUALITY_PRECISE
};

/* How a block's statements vote for its count.  */
enum sfdo_block_vote
{
  SFDO_VOTE_MAX,
  SFDO_VOTE_MEAN
};

struct sfdo_options
{
  const char *profile_path;
  bool verbose;
  enum sfdo_block_vote vote;
  enum sfdo_quality quality;
  bool family_off[SFDO_NFAMILIES];
  bool rule_off[SFDO_NRULES];
  /* Leave stale profiles unaligned (no-realign): for comparison.  */
  bool no_realign;
  /* Change nothing; dump GCC's own counts.  */
  bool dump_only;
  const char *dump_path;
  FILE *dump;
};

extern struct sfdo_options sfdo_opts;

/* The open profile; NULL until plugin_init has read it.  */
extern struct sfdo_profile *sfdo_profile;

/* The name used in messages.  */
#define SFDO_PLUGIN_NAME "samplefdo"

static inline bool
sfdo_family_on (enum sfdo_family family)
{
  return !sfdo_opts.family_off[family];
}

/* The argument name of FAMILY ("hotcold", "inline", ...).  */
const char *sfdo_family_name (enum sfdo_family family);

static inline bool
sfdo_rule_on (enum sfdo_rule rule)
{
  return !sfdo_opts.rule_off[rule];
}

/* What the plugin did in this translation unit, for verbose.  */
struct sfdo_stats
{
  bool ran;
  /* CPU time (user and system) of reading the profile and of the pass.  */
  long read_usec, pass_usec;
  unsigned matched, unmatched;
  uint64_t matched_total;
  vec<char *> unmatched_names;
  /* Matched functions whose profile does not fit their body, with the
     share of their samples that fits, in percent.  */
  vec<char *> stale_names;
  vec<int> stale_fit;
  vec<location_t> stale_locations;
  unsigned blocks, known_blocks;
  /* Measured counts above a dominator's, taken for too high
     (annotate.cc: above_dominator).  */
  unsigned counts_above_dominator;
  unsigned moved_inlinees;
  unsigned zero_blocks, unlikely_functions;
  unsigned revived_functions;   /* never-run callers of functions that ran */
  unsigned tracer_off;          /* functions -ftracer was turned off in */
  unsigned zeros_guessed;       /* zero counts made GUESSED before "vect" */
  unsigned discriminators_restored; /* copied blocks given theirs back */
  unsigned replayed_inlines, call_counts_from_inlinees;
  unsigned loop_estimates;
  unsigned icall_histograms, value_histograms;
  unsigned inconsistent_blocks;
  /* The major of the GCC that built the profile's code, where it numbers
     the blocks of a line otherwise than this one (position.h), else 0.  */
  unsigned other_numbering;
  /* Profiles from an older source (stale.h): functions whose lines moved
     with their call-site anchors, the profile weight moved strongly,
     weakly and left out, and the details for verbose.  */
  unsigned realigned, realigned_exact, realigned_unanchored, renamed;
  /* Inline instances whose lines moved with their callee's body.  */
  unsigned realigned_instances;
  uint64_t moved_strong, moved_weak, moved_dropped;
  /* The profile's weight (totals) of the functions in each class:
     exact, moved, unanchored, and of those renamed.  */
  uint64_t weight_exact, weight_moved, weight_unanchored, weight_renamed;
  /* Blocks whose count the flow solver took as weak (counted at each
     annotation of a function).  */
  unsigned weak_blocks;
  vec<char *> realigned_notes;
};

extern struct sfdo_stats sfdo_stats;

/* Report the profile error in ERR once, as a GCC error.  */
void sfdo_report_profile_error (struct sfdo_error *err);

/* Profiles this unit made for functions the profile had only inlined: a
   lazily opened profile does not find what was added to it.  */
typedef hash_map<tree, struct sfdo_prof_func *> sfdo_extra_map;

/* The profile of function DECL: from EXTRA, else from the profile file
   (by assembler name without GCC's clone suffixes; a file-local function
   by name and main input file first).  NULL if it has none.  */
struct sfdo_prof_func *sfdo_profile_of (tree decl, sfdo_extra_map *extra);

/* The profile of DECL to add counts to, made empty (and kept in EXTRA)
   if the profile has none.  */
struct sfdo_prof_func *sfdo_profile_to_extend (tree decl,
					       sfdo_extra_map *extra);

/* The function STMT calls directly, through aliases to the one with the
   body, or NULL_TREE (not a call, an indirect call, no call-graph node).  */
tree sfdo_direct_callee (gimple *stmt);

/* Make the pass that replaces GCC's "profile".  */
opt_pass *sfdo_make_pass (gcc::context *ctxt);

#endif
