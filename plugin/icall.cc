/* plugin/icall.cc - indirect and virtual calls to a dominant target
   (values.h).

   The profile records, at an indirect call's position, which functions it
   reached and how often (from LBR, or from the caller frames of call-chain
   samples); where the profiled binary had already promoted the call and
   inlined its targets, the inline instances at the position say it.  GCC promotes such a call when its histogram
   (HIST_TYPE_INDIR_CALL: total, pairs of target profile id and count)
   names a target taking at least half of the calls and the call is hot:
   ipa-profile then turns it into a speculative direct call, which the
   inliner may inline; for a C++ virtual call (OBJ_TYPE_REF) this is
   speculative devirtualisation; where the profiled binary had devirtualised
   a virtual call speculatively itself, the direct calls at its line to
   methods it can reach.  A target is named by its profile id: a
   public function gets the one GCC computes for it in its own unit
   (coverage.cc: the CRC32 of its assembler name).  GCC's id of a
   file-local function mixes in its unit's object file name, which no
   other unit can know, so the plugin gives each file-local function of
   its unit that the profile holds an id of its own, made from what the
   profile keys it by (source file and name); a unit that calls it
   through a table names it by that id.  A target in another unit is
   resolved by link-time optimisation, the whole program's (-flto) or a
   module group's (sfdo-link), as for -fprofile-use; a name the profile
   holds for several functions, one of them file-local, is left out.

   A histogram is used only where enough samples support it: the
   profile's callsamples histogram at the call says how many samples
   showed the call reaching each target (LBR records, or unwound caller
   frames, or the register the call jumps through).  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "stringpool.h"
#include "cgraph.h"
#include "value-prof.h"
#include "gcov-io.h"
#include "profile.h"
#include "coverage.h"
#include "ipa-utils.h"

#include "gcc-compat.h"
#include "../profiles/profile.h"
#include "samplefdo.h"
#include "position.h"
#include "counts.h"
#include "values.h"

/* The profile id GCC gives the public function NAME in the unit that
   defines it: coverage_compute_profile_id for a public symbol, whose
   string checksum is a plain CRC32 for names GCC did not generate.  */

static gcov_type
public_profile_id (const char *name)
{
  unsigned id;

  if (strstr (name, "_GLOBAL__"))
    return 0;
  id = crc32_string (0, name) & 0x7fffffff;
  return id ? id : 1;
}

/* The profile id of the file-local function NAME of source file FILE,
   as the profile names them.  */

static gcov_type
local_profile_id (const char *file, const char *name)
{
  unsigned id = crc32_string (crc32_string (0, file), name) & 0x7fffffff;
  return id ? id : 1;
}

void
sfdo_set_local_profile_id (cgraph_node *node, const struct sfdo_prof_func *f)
{
  if (TREE_PUBLIC (node->decl) || !f->file)
    return;
  node->profile_id
    = local_profile_id (sfdo_profile_str (sfdo_profile, f->file),
			sfdo_profile_str (sfdo_profile, f->name));
}

/* What the profile holds of the functions of one name.  */
struct name_files
{
  unsigned globals, locals;
  char *local_file;		/* the last file-local one's */
};

static int
note_file (const char *file, size_t len, void *ctx)
{
  struct name_files *nf = (struct name_files *) ctx;

  if (!len)
    nf->globals++;
  else
    {
      nf->locals++;
      free (nf->local_file);
      nf->local_file = xstrndup (file, len);
    }
  return 0;
}

/* The id the function NAME has in the unit that defines it, which is not
   this one: a public one's, or that of the only file-local function of
   that name in the profile; 0 where the name is ambiguous (several
   file-local functions, or a public one and a file-local one), since a
   promotion to the wrong one would cost a compare and a call.  */

static gcov_type
other_unit_profile_id (const char *name)
{
  struct name_files nf = { 0, 0, NULL };
  struct sfdo_error err;
  gcov_type id = 0;

  sfdo_error_clear (&err);
  if (sfdo_profile_files_of (sfdo_profile, name, note_file, &nf, &err)
      != SFDO_OK)
    sfdo_report_profile_error (&err);
  else if (!nf.locals)
    id = public_profile_id (name);
  else if (nf.locals == 1 && !nf.globals)
    id = local_profile_id (nf.local_file, name);
  free (nf.local_file);
  return id;
}

/* The profile id of the function named NAME, or 0 if it cannot be
   named: its cgraph node's in this unit, else the id it has where it is
   defined.  */

static gcov_type
profile_id_of (const char *name)
{
  cgraph_node *node = sfdo_function_named (name);

  if (node && node->profile_id)
    return node->profile_id;
  if (node && !TREE_PUBLIC (node->decl))
    return 0;
  return other_unit_profile_id (name);
}

/* Whether the samples of the targets of CALL (in a block of
   discriminator DISC) of F make it likely that the leading one took half
   the calls, the share ipa-profile promotes at (exact counts in mind):
   sfdo_leader_likely on its callsamples.  A call with no callsamples
   histogram (a profile imported from AFDO or LLVM, or one written before
   the kind existed) is taken on its counts alone.  */

static bool
targets_supported (const struct sfdo_prof_func *f, gcall *call, unsigned disc)
{
  const struct sfdo_prof_values *s
    = sfdo_histogram_at (f, call, disc, SFDO_VALUE_CALL_SAMPLES);

  return !s || sfdo_leader_likely (s, 1);
}

/* Add COUNT calls of the target ID to ENTRIES.  */

static void
add_target (vec<sfdo_hist_entry> *entries, gcov_type id, uint64_t count)
{
  for (sfdo_hist_entry &e : *entries)
    if (e.value == id)
      {
	e.count = sfdo_sat_add (e.count, count);
	return;
      }
  entries->safe_push ({ id, count });
}

static int
by_count_desc (const void *a, const void *b)
{
  const struct sfdo_hist_entry *x = (const struct sfdo_hist_entry *) a;
  const struct sfdo_hist_entry *y = (const struct sfdo_hist_entry *) b;

  return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Attach ENTRIES, most calls first, as CALL's indirect-call histogram;
   returns whether one was attached.  */

static bool
attach_entries (gcall *call, vec<sfdo_hist_entry> *entries)
{
  entries->qsort (by_count_desc);
  return !entries->is_empty ()
	 && sfdo_attach_topn (call, HIST_TYPE_INDIR_CALL, gimple_call_fn (call),
			      entries->address (),
			      MIN (entries->length (),
				   (unsigned) GCOV_TOPN_MAXIMUM_TRACKED_VALUES));
}

/* Whether CALL can reach the function NAME: not where NAME is defined
   here and is neither address-taken nor, for a virtual call, a method
   CALL's object can have (an instance at the same line may be another
   call's).  A function this unit does not know is given the benefit of
   the doubt where UNKNOWN_OK.  */

static bool
reachable_target_p (gcall *call, const char *name, bool unknown_ok)
{
  cgraph_node *node = sfdo_function_named (name);
  tree ref = gimple_call_fn (call);

  if (!node)
    return unknown_ok;
  if (TREE_CODE (ref) == OBJ_TYPE_REF)
    return possible_polymorphic_call_target_p (ref, call, node);
  return node->address_taken;
}

/* Add to ENTRIES the inline instances of F at the position of CALL (in
   a block of discriminator DISC) that CALL can reach: where the profiled
   binary had promoted the call and inlined its targets, they say which
   functions it reached and how often, as a branch stack would; its
   histogram, if any, holds only what the promoted calls left (an sfdo
   build, recorded: without the instances the next build promoted the
   call to its rarest target, and the build after to the right one).  */

static void
add_instance_targets (const struct sfdo_prof_func *f, gcall *call,
		      unsigned disc, vec<sfdo_hist_entry> *entries)
{
  uint32_t offset;
  const struct sfdo_prof_func *g = sfdo_innermost_profile (f, call, &offset);

  if (!sfdo_rule_on (SFDO_RULE_PROMOTED_TARGETS))
    return;
  for (size_t i = 0; g && i < g->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &g->callsites[i];
      const char *name = sfdo_profile_str (sfdo_profile, c->callee->name);
      uint64_t count;
      gcov_type id;

      if (c->offset != offset || (c->discriminator && c->discriminator != disc)
	  || !(count = sfdo_prof_func_entries (c->callee))
	  || !(id = profile_id_of (name))
	  || !reachable_target_p (call, name, true))
	continue;
      add_target (entries, id, count);
    }
}

/* Whether G's binary called the function of string id NAME directly at
   line OFFSET, discriminator DISC (its callsites histogram there).  */

static bool
direct_call_at (const struct sfdo_prof_func *g, uint32_t offset,
		uint32_t disc, uint32_t name)
{
  for (size_t i = 0; i < g->nvalues; i++)
    if (g->values[i].offset == offset && g->values[i].discriminator == disc
	&& g->values[i].kind == SFDO_VALUE_CALL_SITES)
      for (size_t k = 0; k < g->values[i].nentries; k++)
	if (g->values[i].entries[k].value == name)
	  return true;
  return false;
}

/* Add to ENTRIES the calls F records at the line of CALL, in any of its
   blocks, to functions CALL can reach (reachable_target_p, UNKNOWN_OK):
   where DIRECT_ONLY, only calls the profiled binary made directly.  Where
   the profiled binary had promoted CALL and not inlined the target (an
   sfdo build), the call it made is direct, and CALL's histogram holds
   only what the promoted call left: op_sub and op_xor of iterate-bench's
   icall, whose next build promoted op_sub, and the build after op_mix
   again.  */

static void
add_line_targets (const struct sfdo_prof_func *f, gcall *call,
		  bool direct_only, bool unknown_ok,
		  vec<sfdo_hist_entry> *entries)
{
  uint32_t offset;
  const struct sfdo_prof_func *g = sfdo_innermost_profile (f, call, &offset);

  if (direct_only && !sfdo_rule_on (SFDO_RULE_PROMOTED_TARGETS))
    return;
  for (size_t i = 0; g && i < g->nlines; i++)
    for (size_t k = 0; g->lines[i].offset == offset
		       && k < g->lines[i].ntargets; k++)
      {
	const struct sfdo_prof_target *t = &g->lines[i].targets[k];
	const char *name = sfdo_profile_str (sfdo_profile, t->name);
	gcov_type id;
	if (t->count
	    && (!direct_only
		|| direct_call_at (g, offset, g->lines[i].discriminator,
				   t->name))
	    && (id = profile_id_of (name))
	    && reachable_target_p (call, name, unknown_ok))
	  add_target (entries, id, t->count);
      }
}

/* Attach the indirect-call histogram H of CALL (in a block of
   discriminator DISC) of F, targets by profile id, with the targets the
   profiled binary had promoted and inlined there; returns whether one
   was attached.  */

static bool
attach_targets (const struct sfdo_prof_func *f, gcall *call, unsigned disc,
		const struct sfdo_prof_values *h)
{
  auto_vec<sfdo_hist_entry, 8> entries;

  for (size_t i = 0; i < h->nentries; i++)
    {
      const char *name = sfdo_profile_str (sfdo_profile,
					   (uint32_t) h->entries[i].value);
      gcov_type id = profile_id_of (name);
      if (id)
	add_target (&entries, id, h->entries[i].count);
    }
  add_instance_targets (f, call, disc, &entries);
  add_line_targets (f, call, true, true, &entries);
  return attach_entries (call, &entries);
}

/* CALL's histogram from the inline instances at its position alone.  */

static bool
attach_instance_targets (const struct sfdo_prof_func *f, gcall *call,
			 unsigned disc)
{
  auto_vec<sfdo_hist_entry, 8> entries;

  add_instance_targets (f, call, disc, &entries);
  return attach_entries (call, &entries);
}

/* Where the profiled binary had devirtualised the virtual call CALL
   speculatively (GCC 16 does at -O2: a test of the object's vtable entry,
   then a direct call to each likely target), the direct calls F records
   at the call's line to methods the call can reach say which and how
   often, as its histogram would have.  */

static bool
attach_devirtualized_targets (const struct sfdo_prof_func *f, gcall *call)
{
  auto_vec<sfdo_hist_entry, 8> entries;

  if (TREE_CODE (gimple_call_fn (call)) != OBJ_TYPE_REF)
    return false;
  add_line_targets (f, call, false, false, &entries);
  return attach_entries (call, &entries);
}

unsigned
sfdo_attach_icall_histograms (const struct sfdo_prof_func *f)
{
  basic_block bb;
  unsigned attached = 0;

  if (!sfdo_family_on (SFDO_FAMILY_ICALL))
    return 0;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      {
	gcall *call = dyn_cast <gcall *> (gsi_stmt (gsi));
	const struct sfdo_prof_values *h;

	if (!call || gimple_call_fndecl (call) || gimple_call_internal_p (call))
	  continue;
	unsigned disc = sfdo_stmt_discriminator (call);
	h = sfdo_histogram_at (f, call, disc, SFDO_VALUE_ICALL);
	if (h && !targets_supported (f, call, disc))
	  continue;
	if (h)
	  attached += attach_targets (f, call, disc, h);
	else
	  attached += (attach_instance_targets (f, call, disc)
		       || attach_devirtualized_targets (f, call));
      }
  return attached;
}
