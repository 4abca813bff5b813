/* plugin/gcc-compat.h - where the GCCs the plugin builds against (12 to
   16) differ, in one place: every other file of the plugin is written
   once, against the names defined here.  Included after GCC's headers
   (gimple.h, gimple-iterator.h) and before ipa-prop.h.

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

#if BUILDING_GCC_MAJOR < 12
#error "samplefdo needs GCC 12 or newer (its plugin headers are older)"
#endif

#if BUILDING_GCC_MAJOR >= 14
#include "tree-vrp.h"
#include "sreal.h"
#include "ipa-cp.h"
#endif

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

/* The base discriminator of the call an inlined-function BLOCK stands
   for, as DW_AT_GNU_discriminator gives it: 0 on GCC 12, which writes
   none.  */

static inline unsigned
sfdo_call_discriminator (tree block)
{
  return sfdo_loc_discriminator (BLOCK_SOURCE_LOCATION (block));
}

/* Whether this GCC numbers discriminators per statement (13 and newer)
   rather than per block (12).  */
#define SFDO_GCC_STMT_DISCRIMINATORS (BUILDING_GCC_MAJOR >= 13)


#endif
