/* plugin/samplefdo.cc - the samplefdo GCC plugin: sample-based feedback
   from an sfdo profile (profiles/FORMAT.md) into GCC 12's profile pipeline.

   Usage:

     gcc -O2 -fplugin=samplefdo -fplugin-arg-samplefdo-profile=app.prof
         [-fplugin-arg-samplefdo-verbose] ...

   The plugin works in three phases:

   1. Reading the profile (plugin_init).  The profile is opened with
      sfdo_profile_open: a text profile is parsed whole, a binary profile
      is mmap'd and only its header and index are checked, so a compiler
      process decodes just the functions of its translation unit.  A
      profile that is missing, unreadable or malformed is a hard error
      naming the file and the line or byte offset: compiling silently
      without feedback would hide a broken build set-up.

   2. Matching (the SIMPLE_IPA pass "sfdo_annotate").  Every function with a
      body in this translation unit is looked up in the profile by its
      assembler name (the linkage name the profile is keyed by).  GCC's
      clone suffixes (.part.N, .isra.N, .constprop.N, .cold) are stripped
      first, because a clone is a piece or a variant of the function whose
      samples the profile records under the original name.  A function
      with internal linkage is looked up as (NAME, main input file) first,
      the way the converter keys static functions by the DW_AT_name of
      their compile unit, and then as a global (NAME, no file).
      Under -fplugin-arg-samplefdo-verbose, the end of the translation
      unit prints how many functions found a profile and what share of
      the profile's total they account for; -fopt-info-ipa and
      -fdump-ipa-all-details show the decision for each function.

      The pass replaces the SIMPLE_IPA pass "profile"
      (pass_ipa_tree_profile), the slot where GCC reads instrumented
      feedback: there every function is in SSA form, early inlining has
      run, and the regular IPA passes (ipa-profile, inline) are still to
      come.  Replacing it keeps its sub-pass feedback_fnsplit, so
      profile-driven function splitting runs after our annotation (GCC
      12's -fauto-profile never runs it).

   3. Annotation (annotate.cc): block counts from the profile, smoothed by
      minimum-cost flow (smooth/mcf.h), written with AFDO quality with
      edge probabilities, node->count and PROFILE_READ; profile_info gets
      a summary.  plugin_init turns on what -fprofile-use turns on
      (branch probabilities, unrolling, peeling, ...), except what the
      user set explicitly, and except -ftracer (see
      enable_feedback_optimizations).  See
      shared/background/autofdo-and-gcc-internals.md section 4.

      -fplugin-arg-samplefdo-dump=FILE writes every function's blocks:
      lines, raw, smoothed and final counts.  With
      -fplugin-arg-samplefdo-dump-only the plugin changes nothing and
      runs after "profile" instead, dumping the counts GCC already has
      (under -fprofile-use, the instrumented counts on the same CFG).

   State.  The profile and the match statistics live in file statics; a
   cc1 process compiles one translation unit and loads one plugin
   instance, and the profile library wants one thread at a time, which
   GCC guarantees.  The profile is freed at PLUGIN_FINISH.  */

#include "gcc-plugin.h"
#include "plugin-version.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "cgraph.h"
#include "context.h"
#include "diagnostic-core.h"
#include "dumpfile.h"
#include "hash-set.h"
#include "opts.h"
#include "flags.h"
#include "hash-map.h"
#include "gimple-iterator.h"
#include "profile.h"
#include "value-prof.h"
#include "ssa.h"
#include "tree-into-ssa.h"

#include "../profiles/profile.h"
#include "annotate.h"

/* GCC loads only plugins that declare this symbol.  */
int plugin_is_GPL_compatible;

#ifndef SFDO_VERSION
#define SFDO_VERSION "unknown"
#endif

/* The name used in messages; -fplugin-arg-samplefdo-* addresses us.  */
#define SFDO_PLUGIN_NAME "samplefdo"

static struct plugin_info sfdo_plugin_info =
{
  SFDO_VERSION,
  "Sample-based feedback-directed optimisation from an sfdo profile.\n"
  "  -fplugin-arg-samplefdo-profile=FILE  the profile (text or binary)\n"
  "  -fplugin-arg-samplefdo-verbose       print match statistics per unit\n"
  "  -fplugin-arg-samplefdo-vote=max|mean how a block's statements vote\n"
  "  -fplugin-arg-samplefdo-dump=FILE     write every block's counts\n"
  "  -fplugin-arg-samplefdo-dump-only     change nothing; dump GCC's counts"
};

/* The path given with -fplugin-arg-samplefdo-profile=FILE.  */
static const char *sfdo_profile_path;

/* The open profile, NULL until plugin_init has read it.  */
static struct sfdo_profile *sfdo_profile;

/* Nonzero under -fplugin-arg-samplefdo-verbose.  */
static int sfdo_verbose;

/* -fplugin-arg-samplefdo-vote, -dump=FILE and -dump-only.  */
static enum sfdo_block_vote sfdo_vote = SFDO_VOTE_MAX;
static const char *sfdo_dump_path;
static FILE *sfdo_dump_file;
static int sfdo_dump_only;

/* Nonzero once a profile error has been reported, so a profile with many
   bad function records yields one error, not one per function.  */
static int sfdo_profile_error_seen;

/* What the match pass found in this translation unit.  */
struct sfdo_match_stats
{
  /* Nonzero once the pass has run (it does not in lto1).  */
  int ran;
  unsigned matched, unmatched;
  /* Sum of the totals of the distinct profile functions matched.  */
  uint64_t matched_total;
  /* Assembler names of the unmatched functions, malloc'd.  */
  vec<char *> unmatched_names;
  /* Matched functions whose profile does not fit their body: name
     (malloc'd) and the share of samples that fits, in percent.  */
  vec<char *> stale_names;
  vec<int> stale_fit;
  /* Blocks annotated, and those with a measured count.  */
  unsigned blocks, known_blocks;
  /* Inline instances whose counts moved to their callee's own profile,
     because this compilation calls what the profiled binary inlined.  */
  unsigned moved_inlinees;
  /* Value histograms given to GCC.  */
  unsigned histograms;
};

static struct sfdo_match_stats sfdo_stats;

/* Report the profile error ERR as a GCC error, once.  ERR names the file
   and the position; fill the file in from the command line if the library
   left it out.  */

static void
report_profile_error (struct sfdo_error *err)
{
  char buf[640];

  if (sfdo_profile_error_seen)
    return;
  sfdo_profile_error_seen = 1;
  if (err->path[0] == '\0' && sfdo_profile_path)
    snprintf (err->path, sizeof err->path, "%s", sfdo_profile_path);
  sfdo_error_format (err, buf, sizeof buf);
  error_at (UNKNOWN_LOCATION, "%s: cannot use profile: %s",
	    SFDO_PLUGIN_NAME, buf);
}

/* Return the length of the clone suffix that ends the LEN bytes of NAME,
   or 0 if there is none.  Recognised are ".cold" and ".KIND.N" where KIND
   is one of GCC's clone kinds (part, isra, constprop, cold, lto_priv) and
   N is decimal.  The suffix never covers the whole name.  */

static size_t
clone_suffix_length (const char *name, size_t len)
{
  static const char *const kinds[]
    = { "part", "isra", "constprop", "cold", "lto_priv" };
  size_t digits, i;

  if (len > 5 && memcmp (name + len - 5, ".cold", 5) == 0)
    return 5;

  digits = len;
  while (digits > 0 && ISDIGIT (name[digits - 1]))
    digits--;
  if (digits == len || digits < 2 || name[digits - 1] != '.')
    return 0;

  /* NAME[0, DIGITS - 1) must end in ".KIND", with something before it.  */
  for (i = 0; i < ARRAY_SIZE (kinds); i++)
    {
      size_t klen = strlen (kinds[i]);
      size_t end = digits - 1;
      if (end > klen + 1
	  && name[end - klen - 1] == '.'
	  && memcmp (name + end - klen, kinds[i], klen) == 0)
	return len - (end - klen - 1);
    }
  return 0;
}

/* Return a copy of assembler name NAME without a leading '*' (GCC's mark
   for a name to emit verbatim) and without GCC's clone suffixes, which
   may be stacked ("f.part.0.isra.0" gives "f").  The caller frees it.  */

static char *
strip_clone_suffixes (const char *name)
{
  char *copy;
  size_t len, n;

  if (name[0] == '*')
    name++;
  copy = xstrdup (name);
  len = strlen (copy);
  while ((n = clone_suffix_length (copy, len)) != 0)
    {
      len -= n;
      copy[len] = '\0';
    }
  return copy;
}

/* Return the profile of the function DECL, whose assembler name without
   clone suffixes is NAME, or NULL if the profile has none.  A function
   with internal linkage is tried as NAME of the main input file first,
   then as a global.  A profile that cannot be decoded is reported as an
   error and counts as no profile.  */

static struct sfdo_prof_func *
find_function_profile (tree decl, const char *name)
{
  struct sfdo_prof_func *f = NULL;
  struct sfdo_error err;

  sfdo_error_clear (&err);
  if (!TREE_PUBLIC (decl) && main_input_filename && main_input_filename[0])
    f = sfdo_profile_find (sfdo_profile, name, main_input_filename, &err);
  if (!f && err.code == SFDO_OK)
    f = sfdo_profile_find (sfdo_profile, name, NULL, &err);
  if (!f && err.code != SFDO_OK)
    report_profile_error (&err);
  return f;
}

namespace {

const pass_data pass_data_sfdo_match =
{
  SIMPLE_IPA_PASS, /* type */
  "sfdo_annotate", /* name */
  OPTGROUP_IPA, /* optinfo_flags */
  TV_PLUGIN_RUN, /* tv_id */
  0, /* properties_required */
  0, /* properties_provided */
  0, /* properties_destroyed */
  0, /* todo_flags_start */
  0, /* todo_flags_finish */
};

class pass_sfdo_match : public simple_ipa_opt_pass
{
public:
  pass_sfdo_match (gcc::context *ctxt)
    : simple_ipa_opt_pass (pass_data_sfdo_match, ctxt)
  {}

  /* opt_pass methods: */
  virtual bool gate (function *)
  {
    return sfdo_profile != NULL && !seen_error ();
  }
  virtual unsigned int execute (function *);

}; // class pass_sfdo_match

/* Profiles this unit made for functions the profile had only inlined:
   a lazily opened profile does not find what was added to it.  */
typedef hash_map<tree, struct sfdo_prof_func *> sfdo_extra_map;

/* The profile of function DECL, from EXTRA, or the profile file.  */

static struct sfdo_prof_func *
profile_of (tree decl, sfdo_extra_map *extra)
{
  struct sfdo_prof_func **made = extra->get (decl);
  char *name;
  struct sfdo_prof_func *f;

  if (made)
    return *made;
  name = strip_clone_suffixes (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl)));
  f = find_function_profile (decl, name);
  free (name);
  return f;
}

/* The profile of DECL to add counts to, made empty (and kept in EXTRA)
   if the profile has none.  */

static struct sfdo_prof_func *
profile_to_extend (tree decl, sfdo_extra_map *extra)
{
  struct sfdo_prof_func *f = profile_of (decl, extra);
  char *name;

  if (f)
    return f;
  name = strip_clone_suffixes (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl)));
  f = sfdo_profile_add_func
	(sfdo_profile, sfdo_profile_intern_str (sfdo_profile, name),
	 !TREE_PUBLIC (decl) && main_input_filename
	 ? sfdo_profile_intern_str (sfdo_profile, main_input_filename) : 0);
  free (name);
  extra->put (decl, f);
  return f;
}

/* Move into the callee's own profile the counts of every inline instance
   the profiled binary had at a call that this compilation has not (yet)
   inlined: the callee's body runs them now.  The function of the call
   has profile F; USED holds the instances moved already.  */

static void
move_uninlined_instances (const struct sfdo_prof_func *f,
			  sfdo_extra_map *extra,
			  hash_set<const struct sfdo_prof_func *> *used)
{
  basic_block bb;

  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gcall *call = dyn_cast <gcall *> (gsi_stmt (gsi));
	tree callee = call ? gimple_call_fndecl (call) : NULL_TREE;
	cgraph_node *cn = callee ? cgraph_node::get (callee) : NULL;
	const struct sfdo_prof_func *inst;

	if (!cn || !cn->has_gimple_body_p () || cn->decl == cfun->decl)
	  continue;
	inst = sfdo_inlined_callee_profile (sfdo_profile, f, call, callee);
	if (!inst || used->add (inst))
	  continue;
	sfdo_prof_func_add (sfdo_profile, profile_to_extend (callee, extra),
			    inst);
	sfdo_stats.moved_inlinees++;
      }
}

/* Report under dumps whether DECL (assembler name ASM_NAME, looked up
   as NAME) found profile F.  */

static void
note_match (tree decl, const char *asm_name, const char *name,
	    const struct sfdo_prof_func *f)
{
  if (!dump_enabled_p ())
    return;
  if (f)
    dump_printf_loc (MSG_NOTE, dump_user_location_t::from_function_decl (decl),
		     "samplefdo: %s has a profile as %s: total %" PRIu64
		     ", head %" PRIu64 "\n", asm_name, name, (uint64_t) f->total,
		     (uint64_t) f->head);
  else
    dump_printf_loc (MSG_MISSED_OPTIMIZATION,
		     dump_user_location_t::from_function_decl (decl),
		     "samplefdo: no profile for %s\n", asm_name);
}

/* Record in SFDO_STATS what annotating NODE (profile F, result R) found.
   SEEN holds the profiles already counted: clones share one.  */

static void
record_match (cgraph_node *node, const struct sfdo_prof_func *f,
	      const struct sfdo_annotate_result *r,
	      hash_set<const struct sfdo_prof_func *> *seen)
{
  const char *asm_name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (node->decl));

  if (!f)
    {
      sfdo_stats.unmatched++;
      sfdo_stats.unmatched_names.safe_push (xstrdup (asm_name));
      return;
    }
  sfdo_stats.matched++;
  sfdo_stats.blocks += r->blocks;
  sfdo_stats.known_blocks += r->known_blocks;
  if (!seen->add (f))
    sfdo_stats.matched_total = sfdo_sat_add (sfdo_stats.matched_total,
					     f->total);
  if (f->total && r->fit < 0.5)
    {
      sfdo_stats.stale_names.safe_push (xstrdup (asm_name));
      sfdo_stats.stale_fit.safe_push ((int) (100 * r->fit));
    }
}

/* Match every function of the translation unit with the profile and
   annotate its CFG (or, under dump-only, dump GCC's own counts).  */

unsigned int
pass_sfdo_match::execute (function *)
{
  hash_set<const struct sfdo_prof_func *> seen;
  auto_vec<std::pair<cgraph_node *, struct sfdo_prof_func *> > annotated;

  cgraph_node *node;
  unsigned i;

  sfdo_extra_map extra;
  hash_set<const struct sfdo_prof_func *> moved;

  sfdo_stats.ran = 1;
  if (!sfdo_dump_only)
    FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
      {
	struct sfdo_prof_func *f;
	if (node->inlined_to || DECL_EXTERNAL (node->decl)
	    || !(f = profile_of (node->decl, &extra)))
	  continue;
	push_cfun (DECL_STRUCT_FUNCTION (node->decl));
	move_uninlined_instances (f, &extra, &moved);
	pop_cfun ();
      }

  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      tree decl = node->decl;
      const char *asm_name;
      struct sfdo_prof_func *f;
      struct sfdo_annotate_result r;
      char *name;

      /* Inline copies have no code of their own; an extern inline body
	 is only an inlining candidate, its code is in another unit.  */
      if (node->inlined_to || DECL_EXTERNAL (decl))
	continue;

      asm_name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));
      name = strip_clone_suffixes (asm_name);
      f = profile_of (decl, &extra);
      note_match (decl, asm_name, name, f);
      free (name);
      if (!f && !sfdo_dump_only)
	{
	  record_match (node, NULL, NULL, &seen);
	  continue;
	}
      push_cfun (DECL_STRUCT_FUNCTION (decl));
      sfdo_annotate_function (node, sfdo_profile, f, sfdo_vote,
			      sfdo_dump_only, sfdo_dump_file, &r);
      pop_cfun ();
      record_match (node, f, &r, &seen);
      if (f && !sfdo_dump_only)
	annotated.safe_push (std::make_pair (node, f));
    }
  if (sfdo_dump_only)
    return 0;
  sfdo_install_profile_info ();
  /* Value profiles name indirect-call targets by profile id.  */
  init_node_map (true);
  for (i = 0; i < annotated.length (); i++)
    {
      std::pair<cgraph_node *, struct sfdo_prof_func *> *done = &annotated[i];
      push_cfun (DECL_STRUCT_FUNCTION (done->first->decl));
      sfdo_finish_function ();
      sfdo_stats.histograms += sfdo_attach_value_profiles (sfdo_profile,
							   done->second);
      if (flag_value_profile_transformations
	  && gimple_value_profile_transformations ())
	{
	  /* The transformations split blocks, as in tree_profiling.  */
	  free_dominance_info (CDI_DOMINATORS);
	  free_dominance_info (CDI_POST_DOMINATORS);
	  update_ssa (TODO_update_ssa);
	  cgraph_edge::rebuild_edges ();
	}
      pop_cfun ();
    }
  del_node_map ();
  return 0;
}

} // anon namespace

/* Make a new instance of the match pass in context CTXT.  */

static simple_ipa_opt_pass *
make_pass_sfdo_match (gcc::context *ctxt)
{
  return new pass_sfdo_match (ctxt);
}

/* PLUGIN_FINISH_UNIT callback: under verbose, print the match statistics
   of the unit to stderr.  GCC_DATA and USER_DATA are unused.  */

static void
sfdo_finish_unit (void *gcc_data ATTRIBUTE_UNUSED,
		  void *user_data ATTRIBUTE_UNUSED)
{
  unsigned i;
  char *name;

  if (sfdo_verbose && sfdo_stats.ran && !seen_error ())
    {
      /* On a lazily opened binary profile this decodes every function;
	 acceptable for a diagnostic the user asked for.  */
      uint64_t total = sfdo_profile_total (sfdo_profile);
      double share = total ? 100.0 * (double) sfdo_stats.matched_total
			     / (double) total : 0.0;

      fprintf (stderr, "%s: %s: %u functions matched, %u unmatched, "
	       "%.1f%% of the profile's total samples found a home here\n",
	       SFDO_PLUGIN_NAME, main_input_filename,
	       sfdo_stats.matched, sfdo_stats.unmatched, share);
      FOR_EACH_VEC_ELT (sfdo_stats.unmatched_names, i, name)
	fprintf (stderr, "%s: %s: unmatched: %s\n",
		 SFDO_PLUGIN_NAME, main_input_filename, name);
      fprintf (stderr, "%s: %s: %u of %u blocks of matched functions "
	       "have a measured count; %u inline instances moved to callees "
	       "this unit does not inline; %u value histograms\n",
	       SFDO_PLUGIN_NAME, main_input_filename, sfdo_stats.known_blocks,
	       sfdo_stats.blocks, sfdo_stats.moved_inlinees,
	       sfdo_stats.histograms);
      FOR_EACH_VEC_ELT (sfdo_stats.stale_names, i, name)
	warning (0, "%s: the profile of %qs does not fit its body: only "
		 "%d%% of its samples are at lines it has; is the profile "
		 "stale?", SFDO_PLUGIN_NAME, name, sfdo_stats.stale_fit[i]);
    }
  FOR_EACH_VEC_ELT (sfdo_stats.stale_names, i, name)
    free (name);
  sfdo_stats.stale_names.release ();
  sfdo_stats.stale_fit.release ();

  FOR_EACH_VEC_ELT (sfdo_stats.unmatched_names, i, name)
    free (name);
  sfdo_stats.unmatched_names.release ();
}

/* PLUGIN_FINISH callback: free the profile.  GCC_DATA and USER_DATA are
   unused.  */

static void
sfdo_finish (void *gcc_data ATTRIBUTE_UNUSED,
	     void *user_data ATTRIBUTE_UNUSED)
{
  unsigned i;
  char *name;

  FOR_EACH_VEC_ELT (sfdo_stats.unmatched_names, i, name)
    free (name);
  sfdo_stats.unmatched_names.release ();
  sfdo_profile_free (sfdo_profile);
  sfdo_profile = NULL;
  if (sfdo_dump_file && fclose (sfdo_dump_file) != 0)
    error_at (UNKNOWN_LOCATION, "%s: cannot write %qs: %m",
	      SFDO_PLUGIN_NAME, sfdo_dump_path);
  sfdo_dump_file = NULL;
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

/* Parse the plugin arguments in PLUGIN_INFO into the file statics.
   Return true if they are valid, after reporting every bad one.  */

static bool
parse_plugin_args (struct plugin_name_args *plugin_info)
{
  bool ok = true;
  int i;

  for (i = 0; i < plugin_info->argc; i++)
    {
      const char *key = plugin_info->argv[i].key;
      const char *value = plugin_info->argv[i].value;

      if (strcmp (key, "profile") == 0)
	{
	  if (!value || !value[0])
	    {
	      error_at (UNKNOWN_LOCATION,
			"%s: %<-fplugin-arg-%s-profile%> needs a file name, "
			"as in %<-fplugin-arg-%s-profile=app.prof%>",
			SFDO_PLUGIN_NAME, plugin_info->base_name,
			plugin_info->base_name);
	      ok = false;
	    }
	  else
	    sfdo_profile_path = value;
	}
      else if (strcmp (key, "verbose") == 0)
	{
	  if (value)
	    {
	      error_at (UNKNOWN_LOCATION,
			"%s: %<-fplugin-arg-%s-verbose%> takes no value "
			"(got %qs)", SFDO_PLUGIN_NAME,
			plugin_info->base_name, value);
	      ok = false;
	    }
	  else
	    sfdo_verbose = 1;
	}
      else if (strcmp (key, "vote") == 0
	       && value && (strcmp (value, "max") == 0
			    || strcmp (value, "mean") == 0))
	sfdo_vote = strcmp (value, "max") == 0 ? SFDO_VOTE_MAX
						: SFDO_VOTE_MEAN;
      else if (strcmp (key, "dump") == 0 && value && value[0])
	sfdo_dump_path = value;
      else if (strcmp (key, "dump-only") == 0 && !value)
	sfdo_dump_only = 1;
      else
	{
	  error_at (UNKNOWN_LOCATION,
		    "%s: bad argument %<-fplugin-arg-%s-%s%s%s%>; known are "
		    "%<profile=FILE%>, %<verbose%>, %<vote=max|mean%>, "
		    "%<dump=FILE%> and %<dump-only%>", SFDO_PLUGIN_NAME,
		    plugin_info->base_name, key, value ? "=" : "",
		    value ? value : "");
	  ok = false;
	}
    }

  if (ok && !sfdo_profile_path)
    {
      error_at (UNKNOWN_LOCATION,
		"%s: no profile given; use %<-fplugin-arg-%s-profile=FILE%>",
		SFDO_PLUGIN_NAME, plugin_info->base_name);
      ok = false;
    }
  return ok;
}

/* Turn on what -fprofile-use turns on (GCC 12 opts.cc
   enable_fdo_optimizations), except flags the user set.  plugin_init runs
   before process_options builds the default optimization node, so this
   acts like the command line, per function too.  flag_branch_probabilities
   is what makes GCC's passes trust read counts (the inliner asserts it
   when counts are nonzero); flag_auto_profile stays off, since it would
   start GCC's own AutoFDO reader.  */

static void
enable_feedback_optimizations (void)
{
  struct gcc_options *o = &global_options, *set = &global_options_set;

#define SFDO_ENABLE(flag) \
  do { if (!set->x_##flag) o->x_##flag = 1; } while (0)
  SFDO_ENABLE (flag_branch_probabilities);
  SFDO_ENABLE (flag_unroll_loops);
  SFDO_ENABLE (flag_peel_loops);
  /* Not -ftracer: it duplicates the join of a branch into both arms, and
     when the profiled binary had if-converted that branch (a conditional
     move) samples cannot show it is unpredictable; the branchy code that
     results ran 2.4 times slower on examples/demo.c's CRC loop.  */
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
  SFDO_ENABLE (flag_profile_reorder_functions);
#undef SFDO_ENABLE
  if (!set->x_flag_ipa_cp_clone)
    o->x_flag_ipa_cp_clone = o->x_flag_ipa_cp;
  if (!set->x_flag_ipa_bit_cp)
    o->x_flag_ipa_bit_cp = o->x_flag_ipa_cp;
  if (!set->x_flag_vect_cost_model)
    o->x_flag_vect_cost_model = VECT_COST_MODEL_DYNAMIC;
  /* There is no .gcda: coverage must not warn that it is missing.  */
  if (!set->x_warn_missing_profile)
    o->x_warn_missing_profile = 0;
}

/* The plugin's entry point.  PLUGIN_INFO holds our name and arguments,
   VERSION the version of the GCC loading us.  Return 0 on success;
   nonzero makes GCC report that the plugin failed to initialise.  */

int
plugin_init (struct plugin_name_args *plugin_info,
	     struct plugin_gcc_version *version)
{
  struct register_pass_info pass_info;
  struct sfdo_error err;

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

  if (!parse_plugin_args (plugin_info))
    return 1;

  sfdo_error_clear (&err);
  if (sfdo_profile_open (sfdo_profile_path, &sfdo_profile, &err) != SFDO_OK)
    {
      report_profile_error (&err);
      sfdo_profile = NULL;
      return 1;
    }

  if (sfdo_dump_path && !(sfdo_dump_file = fopen (sfdo_dump_path, "a")))
    {
      error_at (UNKNOWN_LOCATION, "%s: cannot open %qs for the dump: %m",
		SFDO_PLUGIN_NAME, sfdo_dump_path);
      return 1;
    }
  if (!sfdo_dump_only)
    enable_feedback_optimizations ();

  pass_info.pass = make_pass_sfdo_match (g);
  pass_info.reference_pass_name = "profile";
  pass_info.ref_pass_instance_number = 1;
  pass_info.pos_op = sfdo_dump_only ? PASS_POS_INSERT_AFTER : PASS_POS_REPLACE;
  register_callback (plugin_info->base_name, PLUGIN_PASS_MANAGER_SETUP,
		     NULL, &pass_info);
  register_callback (plugin_info->base_name, PLUGIN_FINISH_UNIT,
		     sfdo_finish_unit, NULL);
  register_callback (plugin_info->base_name, PLUGIN_FINISH,
		     sfdo_finish, NULL);
  return 0;
}
