/* plugin/gcc-compat.h - where the GCCs the plugin builds against (12 to
   16) differ, in one place: every other file of the plugin is written
   once, against the names defined here.  Included after GCC's headers
   (at least gimple.h and cgraph.h) and before ipa-prop.h.

   What differs, and why it matters to the plugin:

   - Discriminators.  GCC 12 keeps one per basic block
     (bb->discriminator), which final emits for all of the block's
     instructions.  GCC 13 moved them into statement locations
     (get_discriminator_from_loc, input.h): each statement has its own,
     and an inlined call's BLOCK_SOURCE_LOCATION carries the call's, which
     dwarf2out writes as the DW_TAG_inlined_subroutine's
     DW_AT_GNU_discriminator.  GCC 16 made them hierarchical: the base
     discriminator in bits 0-7, a multiplicity (the vectorizer's factor)
     and a copy id (unrolling, peeling, versioning) above it.  A profile
     holds base discriminators only (the converter folds the rest into
     counts), so the plugin looks positions up by the base.

   - GCC 14 moved the IPA-CP lattices out of ipa-prop.h into ipa-cp.h,
     which ipa-prop.h needs included first, with sreal.h and the value
     ranges of tree-vrp.h (PR ipa/113476).

   What the plugin's counts mean to each GCC's passes (GCC 16's new AFDO
   count levels among them) is in plugin/COUNTS-BY-GCC.md.  */

#ifndef SFDO_PLUGIN_GCC_COMPAT_H
#define SFDO_PLUGIN_GCC_COMPAT_H

#include "bversion.h"
#include "gimple-iterator.h"
#include "predict.h"
#include "gcov-io.h"

#if BUILDING_GCC_MAJOR < 12
#error "samplefdo needs GCC 12 or newer (its plugin headers are older)"
#endif

#if BUILDING_GCC_MAJOR >= 14
#include "tree-vrp.h"
#include "sreal.h"
#include "ipa-cp.h"
#endif

/* Whether discriminators belong to blocks (GCC 12), which a copied block
   does not keep (discriminators.h).  */

#define SFDO_GCC_BLOCK_DISCRIMINATORS (BUILDING_GCC_MAJOR < 13)

/* The discriminator final gives the instructions of block BB, and the
   way to change it: GCC 12's bb->discriminator.  From GCC 13 on final
   takes each instruction's from its location: 0 here, and nothing to
   set.  */

static inline unsigned
sfdo_final_block_discriminator (basic_block bb)
{
#if SFDO_GCC_BLOCK_DISCRIMINATORS
  return (unsigned) bb->discriminator;
#else
  (void) bb;
  return 0;
#endif
}

static inline void
sfdo_set_final_block_discriminator (basic_block bb, unsigned d)
{
#if SFDO_GCC_BLOCK_DISCRIMINATORS
  bb->discriminator = (int) d;
#else
  (void) bb, (void) d;
#endif
}

/* The base discriminator of location LOC: 0 on GCC 12, whose locations
   carry none.  */

static inline unsigned
sfdo_loc_discriminator (location_t loc)
{
#if BUILDING_GCC_MAJOR >= 16
  return (unsigned) get_discriminator_from_loc (loc) & DISCR_BASE_MASK;
#elif BUILDING_GCC_MAJOR >= 13
  return (unsigned) get_discriminator_from_loc (loc);
#else
  (void) loc;
  return 0;
#endif
}

/* The base discriminator the profiled binary's line table gave STMT, were
   it built by this GCC: its block's on GCC 12, its own from GCC 13 on.
   STMT must be in a basic block.  */

static inline unsigned
sfdo_stmt_discriminator (const gimple *stmt)
{
#if BUILDING_GCC_MAJOR >= 13
  return sfdo_loc_discriminator (gimple_location (stmt));
#else
  return (unsigned) gimple_bb (stmt)->discriminator;
#endif
}

/* A discriminator of block BB, for dumps: GCC 12's own, or from GCC 13
   on the first that one of its statements has (0 if none has one).  */

static inline unsigned
sfdo_block_discriminator (basic_block bb)
{
#if BUILDING_GCC_MAJOR >= 13
  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb);
       !gsi_end_p (gsi); gsi_next_nondebug (&gsi))
    if (unsigned disc = sfdo_stmt_discriminator (gsi_stmt (gsi)))
      return disc;
  return 0;
#else
  return (unsigned) bb->discriminator;
#endif
}

/* How GCC MAJOR numbers the blocks of a line (tree-cfg.cc
   assign_discriminators; COUNTS-BY-GCC.md 13): 1, per block, a block's
   number on all its lines (12 and older); 2, per statement, a new number
   after a call (13 to 15); 3, every block a line spans in turn (16 and
   newer).  A profile's discriminators name the same blocks only for a
   GCC of the same scheme.  */

static inline int
sfdo_discriminator_scheme (unsigned major)
{
  return major <= 12 ? 1 : major <= 15 ? 2 : 3;
}

#define SFDO_GCC_DISCRIMINATOR_SCHEME \
  sfdo_discriminator_scheme (BUILDING_GCC_MAJOR)

/* The quality of a zero count the plugin is not sure of (no sample, but
   not evidence that the block never ran): low and cold, not "never
   executed".  GCC 12 to 15 read an AFDO zero that way; GCC 16 reads it as
   "no samples", a small frequency (1/entry, force_nonzero in
   cgraph_edge::maybe_hot_p), and a GUESSED zero as GCC 12 read an AFDO
   one (COUNTS-BY-GCC.md 14.1).  */
#if BUILDING_GCC_MAJOR >= 16
#define SFDO_UNSURE_ZERO_QUALITY GUESSED
#else
#define SFDO_UNSURE_ZERO_QUALITY AFDO
#endif

/* Whether the vectorizer can divide by a zero count that is not PRECISE
   (vect_do_peeling's scaling of the epilogue; cc1 died of SIGFPE): GCC 12
   only, which the plugin's pass before "vect" guards (counts.cc).  */
#define SFDO_GCC_VECT_DIVIDES_BY_ZERO (BUILDING_GCC_MAJOR == 12)

/* Make the current function's block counts again from its edge
   probabilities.  GCC 12 and 13 re-estimate a PROFILE_GUESSED function's
   counts in rebuild_frequencies; from 14 on it keeps counts it finds
   consistent, unless one is uninitialised.  */

static inline void
sfdo_counts_from_probabilities (void)
{
#if BUILDING_GCC_MAJOR >= 14
  ENTRY_BLOCK_PTR_FOR_FN (cfun)->count = profile_count::uninitialized ();
#endif
  rebuild_frequencies ();
}

/* Set what GCC 16's program summary has beyond GCC 12's: the cutoff below
   which a count is forced nonzero, 1 as -fprofile-use sets it
   (coverage.cc).  */

static inline void
sfdo_summary_set_cutoff (struct gcov_summary *summary)
{
#if BUILDING_GCC_MAJOR >= 16
  summary->cutoff = 1;
#else
  (void) summary;
#endif
}

/* Turn on, in options O unless SET says the user set them, what this
   GCC's -fprofile-use turns on beyond GCC 12's (opts.cc
   enable_fdo_optimizations and its caller): the CRC optimisation from GCC
   15; from GCC 16, with indirect-call histograms (ICALL_HISTOGRAMS), no
   speculative calls through stored function pointers, which value
   profiles replace as they replace speculative devirtualisation.  */

static inline void
sfdo_enable_version_feedback_flags (struct gcc_options *o,
				    const struct gcc_options *set,
				    bool icall_histograms)
{
#if BUILDING_GCC_MAJOR >= 15
  if (!set->x_flag_optimize_crc)
    o->x_flag_optimize_crc = 1;
#endif
#if BUILDING_GCC_MAJOR >= 16
  if (icall_histograms && !set->x_flag_speculatively_call_stored_functions)
    o->x_flag_speculatively_call_stored_functions = 0;
#endif
  (void) o, (void) set, (void) icall_histograms;
}

/* Tell GCC 14 and newer that the current function's profile leaves some
   edge probability uninitialised (GCC's own AutoFDO does the same, PR
   113765): verify_flow_info otherwise reports it under -fchecking.  */

static inline void
sfdo_profile_is_partial (void)
{
#if BUILDING_GCC_MAJOR >= 14
  cfun->cfg->full_profile = false;
#endif
}

#endif
