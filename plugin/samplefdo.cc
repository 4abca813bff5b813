/* plugin/samplefdo.cc - the samplefdo GCC plugin: sample-based feedback
   from an sfdo profile (profiles/FORMAT.md) into GCC 12's profile
   pipeline.  This file registers the plugin, reads its arguments and
   turns on what -fprofile-use turns on; samplefdo.h lists the rest.

     gcc -O2 -fplugin=samplefdo -fplugin-arg-samplefdo-profile=app.prof ...

   The profile is opened with sfdo_profile_open: a text profile is parsed
   whole, a binary profile is mmap'd and only its header and index are
   checked, so a compiler process decodes just the functions of its
   translation unit.  A profile that is missing, unreadable or malformed is
   a hard error naming the file and the line or byte offset: compiling
   silently without feedback would hide a broken build set-up.

   State lives in file statics: a cc1 process compiles one translation
   unit and loads one plugin instance, and the profile library wants one
   thread at a time, which GCC guarantees.  */

#include "gcc-plugin.h"
#include "plugin-version.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "pass_manager.h"
#include "context.h"
#include "cgraph.h"
#include "diagnostic-core.h"
#include "dumpfile.h"
#include "opts.h"
#include "flags.h"
#include "hash-map.h"
#include "gcc-compat.h"

#include "../common/evidence.h"
#include "../profiles/profile.h"
#include "samplefdo.h"
#include "counts.h"
#include "discriminators.h"
#include "loops.h"
#include "position.h"

/* GCC loads only plugins that declare this symbol.  */
int plugin_is_GPL_compatible;

#ifndef SFDO_VERSION
#define SFDO_VERSION "unknown"
#endif

static struct plugin_info sfdo_plugin_info =
{
  SFDO_VERSION,
  "Sample-based feedback-directed optimisation from an sfdo profile.\n"
  "  -fplugin-arg-samplefdo-profile=FILE  the profile (text or binary)\n"
  "  -fplugin-arg-samplefdo-verbose       what matched, per unit\n"
  "  -fplugin-arg-samplefdo-no-FAMILY     leave one family of decisions\n"
  "      to GCC's static estimate: hotcold, inline, loops, icall, values\n"
  "  -fplugin-arg-samplefdo-no-rule=NAME[,NAME...]  switch rules off, to\n"
  "      see what each decides (names: see the README)\n"
  "  -fplugin-arg-samplefdo-quality=afdo|adjusted|precise\n"
  "                                       how GCC is told to trust counts\n"
  "  -fplugin-arg-samplefdo-vote=max|mean how a block's statements vote\n"
  "  -fplugin-arg-samplefdo-no-realign    use a stale profile's lines as\n"
  "      they are, not moved with its call sites\n"
  "  -fplugin-arg-samplefdo-dump=FILE     append every block's counts\n"
  "  -fplugin-arg-samplefdo-dump-only     change nothing; dump GCC's counts"
};

struct sfdo_options sfdo_opts = { NULL, false, SFDO_VOTE_MAX,
				  SFDO_QUALITY_ADJUSTED, { false }, { false },
				  false,
				  false, NULL, NULL };
struct sfdo_profile *sfdo_profile;
struct sfdo_stats sfdo_stats;

/* Nonzero once a profile error has been reported, so a profile with many
   bad function records yields one error, not one per function.  */
static bool sfdo_profile_error_seen;

static const char *const sfdo_family_names[SFDO_NFAMILIES]
  = { "hotcold", "inline", "loops", "icall", "values" };

const char *
sfdo_family_name (enum sfdo_family family)
{
  return sfdo_family_names[family];
}

static const char *const sfdo_rule_names[SFDO_NRULES]
  = { "zero-evidence", "statically-rare", "revived-rare", "cool-revived",
      "revive-callers", "dead-calls", "believed-zeros", "above-dominator",
      "zero-floor", "renumbered-loops", "promoted-targets", "tracer",
      "values-confidence", "vectorizer-zeros", "realign-instances",
      "copied-discriminators" };

/* Switch off the rules named in LIST (comma-separated).  Return false
   if a name is unknown, after saying which and what the names are.  */

static bool
switch_rules_off (const char *list)
{
  char *copy = xstrdup (list);
  bool ok = true;

  for (char *name = strtok (copy, ","); name; name = strtok (NULL, ","))
    {
      int i;
      for (i = 0; i < SFDO_NRULES; i++)
	if (strcmp (name, sfdo_rule_names[i]) == 0)
	  break;
      if (i < SFDO_NRULES)
	{
	  sfdo_opts.rule_off[i] = true;
	  continue;
	}
      char known[512] = "";
      for (int k = 0; k < SFDO_NRULES; k++)
	snprintf (known + strlen (known), sizeof known - strlen (known),
		  "%s%s", k ? ", " : "", sfdo_rule_names[k]);
      error_at (UNKNOWN_LOCATION, "%s: no rule %qs to switch off; the "
		"rules are %s", SFDO_PLUGIN_NAME, name, known);
      ok = false;
    }
  free (copy);
  return ok;
}

void
sfdo_report_profile_error (struct sfdo_error *err)
{
  char buf[640];

  if (sfdo_profile_error_seen)
    return;
  sfdo_profile_error_seen = true;
  if (err->path[0] == '\0' && sfdo_opts.profile_path)
    snprintf (err->path, sizeof err->path, "%s", sfdo_opts.profile_path);
  sfdo_error_format (err, buf, sizeof buf);
  error_at (UNKNOWN_LOCATION, "%s: cannot use profile: %s",
	    SFDO_PLUGIN_NAME, buf);
}

/* Free the names sfdo_stats holds.  */

static void
release_stats (void)
{
  unsigned i;
  char *name;

  FOR_EACH_VEC_ELT (sfdo_stats.stale_names, i, name)
    free (name);
  sfdo_stats.stale_names.release ();
  sfdo_stats.stale_fit.release ();
  sfdo_stats.stale_locations.release ();
  FOR_EACH_VEC_ELT (sfdo_stats.unmatched_names, i, name)
    free (name);
  sfdo_stats.unmatched_names.release ();
  FOR_EACH_VEC_ELT (sfdo_stats.realigned_notes, i, name)
    free (name);
  sfdo_stats.realigned_notes.release ();
  sfdo_stats.realigned = sfdo_stats.realigned_exact = 0;
  sfdo_stats.realigned_unanchored = sfdo_stats.renamed = 0;
  sfdo_stats.realigned_instances = 0;
  sfdo_stats.moved_strong = sfdo_stats.moved_weak = 0;
  sfdo_stats.moved_dropped = 0;
  sfdo_stats.weight_exact = sfdo_stats.weight_moved = 0;
  sfdo_stats.weight_unanchored = sfdo_stats.weight_renamed = 0;
  sfdo_stats.weak_blocks = 0;
}

/* One line on stderr when this unit's profile came from an older source:
   how many functions' lines moved with their call sites, and the share
   of their weight that moved strongly, weakly or was left out; under
   verbose, a line per function.  */

static void
print_realignment (void)
{
  const struct sfdo_stats *s = &sfdo_stats;
  uint64_t all = s->moved_strong + s->moved_weak + s->moved_dropped;
  unsigned i;
  char *note;

  if (!s->realigned && !s->renamed && !s->realigned_instances)
    return;
  fprintf (stderr, "%s: %s: stale profile: %u functions' lines moved "
	   "with their call sites (of their weight: %.1f%% kept its "
	   "distance from an anchor, %.1f%% placed by the nearer one, %.1f%% "
	   "left out); %u functions found under their old name by their call "
	   "sites; %u matched as they were, %u had no call site to align "
	   "by; %u inline instances' lines moved with their callee's\n",
	   SFDO_PLUGIN_NAME, main_input_filename,
	   s->realigned, all ? 100.0 * s->moved_strong / all : 0.0,
	   all ? 100.0 * s->moved_weak / all : 0.0,
	   all ? 100.0 * s->moved_dropped / all : 0.0, s->renamed,
	   s->realigned_exact, s->realigned_unanchored,
	   s->realigned_instances);
  uint64_t total = s->weight_exact + s->weight_moved + s->weight_unanchored;
  fprintf (stderr, "%s: %s: stale profile: of the profile's weight in this "
	   "unit, %.1f%% in functions as they were, %.1f%% moved, %.1f%% "
	   "with no call site to align by (%.1f%% found under an old "
	   "name); %u blocks' counts weak for the flow solver\n",
	   SFDO_PLUGIN_NAME, main_input_filename,
	   total ? 100.0 * s->weight_exact / total : 0.0,
	   total ? 100.0 * s->weight_moved / total : 0.0,
	   total ? 100.0 * s->weight_unanchored / total : 0.0,
	   total ? 100.0 * s->weight_renamed / total : 0.0, s->weak_blocks);
  if (sfdo_opts.verbose)
    FOR_EACH_VEC_ELT (s->realigned_notes, i, note)
      fprintf (stderr, "%s: %s: %s\n", SFDO_PLUGIN_NAME,
	       main_input_filename, note);
}

/* One line on stderr when the profile's code came from a GCC that numbers
   the blocks of a source line otherwise than this one, and lines of
   several blocks were read by its numbers: which GCCs, how many lines,
   what to do.  */

static void
print_other_numbering (void)
{
  unsigned lines = sfdo_positions_renumbered_lines ();

  if (!sfdo_stats.other_numbering || !lines)
    return;
  fprintf (stderr, "%s: %s: the profile's code was built by GCC %u, which "
	   "numbers the blocks of a source line otherwise than GCC %d: on %u "
	   "lines of several blocks its counts may sit on other blocks; a "
	   "profile of a build by GCC %d places them exactly\n",
	   SFDO_PLUGIN_NAME, main_input_filename, sfdo_stats.other_numbering,
	   BUILDING_GCC_MAJOR, lines, BUILDING_GCC_MAJOR);
}

/* One line on stderr when the profile's samples are too few for GCC's
   decisions to rest on (common/evidence.h): the builds made from such
   profiles were worse than -O2's (zstd, jq).  A profile that does not
   say how many it has (written by hand, imported) is taken as it is.  */

static void
print_thin_profile (void)
{
  const struct sfdo_prof_header *h = sfdo_profile_header (sfdo_profile);
  bool stacks = sfdo_profile_has_mode (sfdo_profile, "lbr");
  uint64_t evidence = sfdo_sample_evidence (h->samples_used,
					    stacks ? h->samples_used : 0);

  if (!h->samples_used || evidence >= SFDO_THIN_PROFILE_SAMPLES)
    return;
  fprintf (stderr, "%s: %s: the profile holds only %llu samples%s, where "
	   "one that GCC's decisions can rest on has about %d: its "
	   "decisions may be worse than GCC's own estimates; record a "
	   "longer run, or sample more often\n", SFDO_PLUGIN_NAME,
	   main_input_filename, (unsigned long long) h->samples_used,
	   stacks ? " with branch stacks" : "",
	   stacks ? SFDO_THIN_PROFILE_SAMPLES / SFDO_BRANCH_STACK_EVIDENCE
		  : SFDO_THIN_PROFILE_SAMPLES);
}

/* Under verbose, what the unit found, on stderr.  */

static void
print_stats (void)
{
  const struct sfdo_stats *s = &sfdo_stats;
  /* On a lazily opened binary profile this decodes every function;
     acceptable for a diagnostic the user asked for.  */
  uint64_t total = sfdo_profile_total (sfdo_profile);
  double share = total ? 100.0 * (double) s->matched_total
			 / (double) total : 0.0;
  const char *unit = main_input_filename;
  unsigned i;
  char *name;

  fprintf (stderr, "%s: %s: %u functions matched, %u unmatched, "
	   "%.1f%% of the profile's total samples found a home here\n",
	   SFDO_PLUGIN_NAME, unit, s->matched, s->unmatched, share);
  FOR_EACH_VEC_ELT (s->unmatched_names, i, name)
    fprintf (stderr, "%s: %s: unmatched: %s\n", SFDO_PLUGIN_NAME, unit,
	     name);
  fprintf (stderr, "%s: %s: %u of %u blocks of matched functions have a "
	   "measured count (%u above a dominator's, taken for too high); "
	   "%u inline instances added to their callees' bodies; %u call "
	   "counts from inline instances\n",
	   SFDO_PLUGIN_NAME, unit, s->known_blocks, s->blocks,
	   s->counts_above_dominator, s->moved_inlinees,
	   s->call_counts_from_inlinees);
  fprintf (stderr, "%s: %s: %u blocks never ran, %u functions never ran "
	   "(%u more ran because a function they call did); "
	   "%u calls inlined as the profiled binary did; %u loop estimates; "
	   "%u indirect-call and %u value histograms\n",
	   SFDO_PLUGIN_NAME, unit, s->zero_blocks, s->unlikely_functions,
	   s->revived_functions,
	   s->replayed_inlines, s->loop_estimates, s->icall_histograms,
	   s->value_histograms);
  if (s->tracer_off)
    fprintf (stderr, "%s: %s: -ftracer off in %u functions where the "
	     "profiled binary had if-converted a hot branch\n",
	     SFDO_PLUGIN_NAME, unit, s->tracer_off);
  if (s->zeros_guessed)
    fprintf (stderr, "%s: %s: %u zero counts of blocks made GUESSED before "
	     "the vectorizer (GCC 12 divides by them otherwise)\n",
	     SFDO_PLUGIN_NAME, unit, s->zeros_guessed);
  if (s->discriminators_restored)
    fprintf (stderr, "%s: %s: %u copied blocks given back the discriminator "
	     "of their statements (GCC 12 starts copies at 0)\n",
	     SFDO_PLUGIN_NAME, unit, s->discriminators_restored);
  if (s->inconsistent_blocks)
    fprintf (stderr, "%s: %s: %u blocks whose edge counts do not add up\n",
	     SFDO_PLUGIN_NAME, unit, s->inconsistent_blocks);
  fprintf (stderr, "%s: %s: CPU time: %.3f s reading the profile, %.3f s "
	   "in the pass\n", SFDO_PLUGIN_NAME, unit,
	   (double) s->read_usec / 1e6, (double) s->pass_usec / 1e6);
}

/* PLUGIN_FINISH_UNIT: under verbose, the unit's statistics and the
   stale-profile warnings, at each function's declaration.  */

static void
sfdo_finish_unit (void *gcc_data ATTRIBUTE_UNUSED,
		  void *user_data ATTRIBUTE_UNUSED)
{
  unsigned i;
  char *name;

  if (sfdo_stats.ran && !seen_error ())
    {
      print_realignment ();
      print_other_numbering ();
      print_thin_profile ();
    }
  if (sfdo_stats.ran && !seen_error () && sfdo_opts.verbose)
    {
      print_stats ();
      FOR_EACH_VEC_ELT (sfdo_stats.stale_names, i, name)
	warning_at (sfdo_stats.stale_locations[i], 0,
		    "%s: the profile of %qs does not fit its body: only %d%% "
		    "of its samples are at lines it has; is the profile "
		    "stale?", SFDO_PLUGIN_NAME, name, sfdo_stats.stale_fit[i]);
    }
  release_stats ();
}

/* PLUGIN_FINISH: free the profile, close the dump.  */

static void
sfdo_finish (void *gcc_data ATTRIBUTE_UNUSED,
	     void *user_data ATTRIBUTE_UNUSED)
{
  release_stats ();
  sfdo_profile_free (sfdo_profile);
  sfdo_profile = NULL;
  if (sfdo_opts.dump && fclose (sfdo_opts.dump) != 0)
    error_at (UNKNOWN_LOCATION, "%s: cannot write %qs: %m",
	      SFDO_PLUGIN_NAME, sfdo_opts.dump_path);
  sfdo_opts.dump = NULL;
}

/* Write GCC version V into BUF of SIZE bytes as "12.2.0 (20220819)", with
   the development phase and revision when V has them.  Returns BUF.  */

static char *
format_gcc_version (const struct plugin_gcc_version *v, char *buf,
		    size_t size)
{
  snprintf (buf, size, "%s (%s%s%s%s%s)", v->basever, v->datestamp,
	    v->devphase[0] ? " " : "", v->devphase,
	    v->revision[0] ? " " : "", v->revision);
  return buf;
}

/* Parse the argument KEY=VALUE; false (after an error) if it is bad.  */

static bool
parse_plugin_arg (const char *base, const char *key, const char *value)
{
  if (strcmp (key, "profile") == 0 && value && value[0])
    sfdo_opts.profile_path = value;
  else if (strcmp (key, "verbose") == 0 && !value)
    sfdo_opts.verbose = true;
  else if (strcmp (key, "vote") == 0 && value
	   && (strcmp (value, "max") == 0 || strcmp (value, "mean") == 0))
    sfdo_opts.vote = value[1] == 'a' ? SFDO_VOTE_MAX : SFDO_VOTE_MEAN;
  else if (strcmp (key, "quality") == 0 && value
	   && (strcmp (value, "afdo") == 0 || strcmp (value, "adjusted") == 0
	       || strcmp (value, "precise") == 0))
    sfdo_opts.quality = value[0] == 'a' && value[1] == 'f'
			? SFDO_QUALITY_AFDO
			: value[0] == 'a' ? SFDO_QUALITY_ADJUSTED
			: SFDO_QUALITY_PRECISE;
  else if (strcmp (key, "dump") == 0 && value && value[0])
    sfdo_opts.dump_path = value;
  else if (strcmp (key, "dump-only") == 0 && !value)
    sfdo_opts.dump_only = true;
  else if (strcmp (key, "no-realign") == 0 && !value)
    sfdo_opts.no_realign = true;
  else if (strcmp (key, "no-rule") == 0 && value && value[0])
    return switch_rules_off (value);
  else if (startswith (key, "no-") && !value)
    {
      int i;
      for (i = 0; i < SFDO_NFAMILIES; i++)
	if (strcmp (key + 3, sfdo_family_names[i]) == 0)
	  break;
      if (i == SFDO_NFAMILIES)
	goto bad;
      sfdo_opts.family_off[i] = true;
    }
  else
    goto bad;
  return true;

bad:
  error_at (UNKNOWN_LOCATION,
	    "%s: bad argument %<-fplugin-arg-%s-%s%s%s%>; known are "
	    "%<profile=FILE%>, %<verbose%>, %<no-hotcold%>, %<no-inline%>, "
	    "%<no-loops%>, %<no-icall%>, %<no-values%>, %<no-realign%>, "
	    "%<no-rule=NAME%>, "
	    "%<quality=afdo|adjusted|precise%>, %<vote=max|mean%>, "
	    "%<dump=FILE%> and %<dump-only%>", SFDO_PLUGIN_NAME, base, key,
	    value ? "=" : "", value ? value : "");
  return false;
}

/* Parse the plugin arguments in PLUGIN_INFO into sfdo_opts.  Return
   true if they are valid, after reporting every bad one.  */

static bool
parse_plugin_args (struct plugin_name_args *plugin_info)
{
  bool ok = true;

  for (int i = 0; i < plugin_info->argc; i++)
    ok &= parse_plugin_arg (plugin_info->base_name,
			    plugin_info->argv[i].key,
			    plugin_info->argv[i].value);
  if (ok && !sfdo_opts.profile_path)
    {
      error_at (UNKNOWN_LOCATION,
		"%s: no profile given; use %<-fplugin-arg-%s-profile=FILE%>",
		SFDO_PLUGIN_NAME, plugin_info->base_name);
      ok = false;
    }
  return ok;
}

/* Turn on what -fprofile-use turns on (GCC 12 opts.cc
   enable_fdo_optimizations and its callers), except flags the user set.
   plugin_init runs before process_options builds the default
   optimization node, so this acts like the command line, per function
   too.  flag_branch_probabilities is what makes GCC's passes trust read
   counts (the inliner asserts it when counts are nonzero);
   flag_auto_profile stays off, since it would start GCC's own AutoFDO
   reader.  -fprofile-correction, as -fauto-profile sets it: sampled
   counts are estimates, and GCC should repair small inconsistencies its
   own transformations leave rather than stop.  */

static void
enable_feedback_optimizations (void)
{
  struct gcc_options *o = &global_options, *set = &global_options_set;

#define SFDO_ENABLE(flag) \
  do { if (!set->x_##flag) o->x_##flag = 1; } while (0)
  SFDO_ENABLE (flag_branch_probabilities);
  SFDO_ENABLE (flag_unroll_loops);
  SFDO_ENABLE (flag_peel_loops);
  SFDO_ENABLE (flag_tracer);
  SFDO_ENABLE (flag_value_profile_transformations);
  SFDO_ENABLE (flag_inline_functions);
  SFDO_ENABLE (flag_ipa_cp);
  SFDO_ENABLE (flag_predictive_commoning);
  SFDO_ENABLE (flag_split_loops);
  SFDO_ENABLE (flag_unswitch_loops);
  SFDO_ENABLE (flag_gcse_after_reload);
  SFDO_ENABLE (flag_tree_loop_vectorize);
  SFDO_ENABLE (flag_tree_slp_vectorize);
  SFDO_ENABLE (flag_version_loops_for_strides);
  SFDO_ENABLE (flag_tree_loop_distribute_patterns);
  SFDO_ENABLE (flag_loop_interchange);
  SFDO_ENABLE (flag_unroll_jam);
  SFDO_ENABLE (flag_tree_loop_distribution);
  SFDO_ENABLE (flag_profile_reorder_functions);
  SFDO_ENABLE (flag_profile_correction);
#undef SFDO_ENABLE
  if (!set->x_flag_ipa_cp_clone)
    o->x_flag_ipa_cp_clone = o->x_flag_ipa_cp;
  if (!set->x_flag_ipa_bit_cp)
    o->x_flag_ipa_bit_cp = o->x_flag_ipa_cp;
  if (!set->x_flag_vect_cost_model)
    o->x_flag_vect_cost_model = VECT_COST_MODEL_DYNAMIC;
  /* -fprofile-use turns type-based speculative devirtualisation off when
     value profiles supply the targets (opts.cc).  */
  if (sfdo_family_on (SFDO_FAMILY_ICALL)
      && !set->x_flag_devirtualize_speculatively)
    o->x_flag_devirtualize_speculatively = 0;
  sfdo_enable_version_feedback_flags (o, set,
				      sfdo_family_on (SFDO_FAMILY_ICALL));
  /* There is no .gcda: coverage must not warn that it is missing.  */
  if (!set->x_warn_missing_profile)
    o->x_warn_missing_profile = 0;
  sfdo_enable_loop_growth ();
}

/* Whether another source of feedback is on the command line.  With an
   instrumenting option the plugin stands aside (its pass would take the
   slot that instruments), with a warning; with another profile to read
   it is an error: two profiles cannot both give the counts.  Under
   dump-only the plugin reads nothing and may run beside either.  Sets
   *STAND_ASIDE; returns false after an error.  */

static bool
check_other_feedback (bool *stand_aside)
{
  const char *instrument = flag_test_coverage ? "--coverage"
			   : profile_arc_flag ? "-fprofile-generate" : NULL;
  const char *reader = flag_auto_profile ? "-fauto-profile"
		       : flag_profile_use ? "-fprofile-use"
		       : (flag_branch_probabilities
			  && global_options_set.x_flag_branch_probabilities)
		       ? "-fbranch-probabilities" : NULL;

  *stand_aside = false;
  if (sfdo_opts.dump_only)
    return true;
  if (reader)
    {
      error_at (UNKNOWN_LOCATION,
		"%s: %qs and the sample profile %qs would both give this "
		"build its counts; drop one of them (or add "
		"%<-fplugin-arg-samplefdo-dump-only%> to only compare them)",
		SFDO_PLUGIN_NAME, reader, sfdo_opts.profile_path);
      return false;
    }
  if (instrument)
    {
      warning_at (UNKNOWN_LOCATION, 0,
		  "%s: %qs instruments this build; the sample profile %qs "
		  "is not used", SFDO_PLUGIN_NAME, instrument,
		  sfdo_opts.profile_path);
      *stand_aside = true;
    }
  return true;
}

/* Give PASS, which replaces GCC's "profile", the dump settings the
   command line gave the original (-fdump-ipa-profile...): dump options
   are decoded before plugins register their passes.  */

static void
inherit_dump_settings (opt_pass *pass)
{
  opt_pass *orig = g->get_passes ()->get_pass_by_name ("ipa-profile");
  gcc::dump_manager *dumps = g->get_dumps ();
  struct dump_file_info *from, *to;

  if (!orig || orig == pass)
    return;
  from = dumps->get_dump_file_info (orig->static_pass_number);
  to = dumps->get_dump_file_info (pass->static_pass_number);
  if (!from || !to)
    return;
  to->pstate = from->pstate;
  to->pflags = from->pflags;
  to->pfilename = from->pfilename;
  to->alt_state = from->alt_state;
  to->alt_flags = from->alt_flags;
  to->alt_filename = from->alt_filename;
  to->optgroup_flags = from->optgroup_flags;
}

/* Register the pass: in place of "profile", or beside it under
   dump-only, where GCC's own counts are what is dumped; and, on GCC 12,
   the discriminators of copied blocks given back before final
   (discriminators.cc) and the guard of the vectorizer's zero counts
   (counts.cc).  */

static void
register_pass (const char *base)
{
  struct register_pass_info pass_info, zeros_info;

  pass_info.pass = sfdo_make_pass (g);
  pass_info.reference_pass_name = "profile";
  pass_info.ref_pass_instance_number = 1;
  pass_info.pos_op = sfdo_opts.dump_only ? PASS_POS_INSERT_AFTER
					 : PASS_POS_REPLACE;
  register_callback (base, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass_info);
  if (sfdo_opts.dump_only)
    return;
  inherit_dump_settings (pass_info.pass);
  if (SFDO_GCC_BLOCK_DISCRIMINATORS
      && sfdo_rule_on (SFDO_RULE_COPIED_DISCRIMINATORS))
    {
      struct register_pass_info discr_info;
      discr_info.pass = sfdo_make_discriminators_pass (g);
      discr_info.reference_pass_name = "final";
      discr_info.ref_pass_instance_number = 1;
      discr_info.pos_op = PASS_POS_INSERT_BEFORE;
      register_callback (base, PLUGIN_PASS_MANAGER_SETUP, NULL, &discr_info);
    }
  if (!SFDO_GCC_VECT_DIVIDES_BY_ZERO
      || !sfdo_rule_on (SFDO_RULE_VECTORIZER_ZEROS))
    return;
  zeros_info.pass = sfdo_make_zeros_pass (g);
  zeros_info.reference_pass_name = "vect";
  zeros_info.ref_pass_instance_number = 1;
  zeros_info.pos_op = PASS_POS_INSERT_BEFORE;
  register_callback (base, PLUGIN_PASS_MANAGER_SETUP, NULL, &zeros_info);
}

/* The plugin's entry point.  PLUGIN_INFO holds our name and arguments,
   VERSION the version of the GCC loading us.  Return 0 on success;
   nonzero makes GCC report that the plugin failed to initialise.  */

int
plugin_init (struct plugin_name_args *plugin_info,
	     struct plugin_gcc_version *version)
{
  struct sfdo_error err;
  bool stand_aside;

  if (!plugin_default_version_check (version, &gcc_version))
    {
      char built[128], running[128];
      format_gcc_version (&gcc_version, built, sizeof built);
      format_gcc_version (version, running, sizeof running);
      error_at (UNKNOWN_LOCATION,
		"%s: plugin built for GCC %s cannot be loaded into GCC %s%s; "
		"rebuild it against the plugin headers of the running compiler",
		SFDO_PLUGIN_NAME, built, running,
		strcmp (built, running) == 0
		? " (same version, configured differently)" : "");
      return 1;
    }
  register_callback (plugin_info->base_name, PLUGIN_INFO, NULL,
		     &sfdo_plugin_info);
  if (!parse_plugin_args (plugin_info) || !check_other_feedback (&stand_aside))
    return 1;
  if (stand_aside)
    return 0;

  sfdo_error_clear (&err);
  sfdo_stats.read_usec = get_run_time ();
  if (sfdo_profile_open (sfdo_opts.profile_path, &sfdo_profile, &err)
      != SFDO_OK)
    {
      sfdo_report_profile_error (&err);
      sfdo_profile = NULL;
      return 1;
    }
  sfdo_stats.read_usec = get_run_time () - sfdo_stats.read_usec;
  /* Appended to, so that every unit of a build can write one file.  */
  if (sfdo_opts.dump_path
      && !(sfdo_opts.dump = fopen (sfdo_opts.dump_path, "a")))
    {
      error_at (UNKNOWN_LOCATION, "%s: cannot open %qs for the dump: %m",
		SFDO_PLUGIN_NAME, sfdo_opts.dump_path);
      return 1;
    }
  if (!sfdo_opts.dump_only)
    enable_feedback_optimizations ();
  register_pass (plugin_info->base_name);
  register_callback (plugin_info->base_name, PLUGIN_FINISH_UNIT,
		     sfdo_finish_unit, NULL);
  register_callback (plugin_info->base_name, PLUGIN_FINISH,
		     sfdo_finish, NULL);
  return 0;
}
