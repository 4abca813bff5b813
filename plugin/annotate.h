/* plugin/annotate.h - measured block counts of one function from its
   profile, made consistent by minimum-cost flow (smooth/mcf.h).

   The result lives beside the CFG, by block index and by edge in
   FOR_ALL_BB_FN / FOR_EACH_EDGE order, until counts.cc writes it onto
   the CFG; nothing may change the CFG in between.  */

#ifndef SFDO_PLUGIN_ANNOTATE_H
#define SFDO_PLUGIN_ANNOTATE_H

struct sfdo_static_estimate;

struct sfdo_fn_counts
{
  /* Blocks by index (last_basic_block_for_fn), edges in FOR_ALL_BB_FN /
     FOR_EACH_EDGE order.  */
  int nblocks;
  unsigned nedges;
  /* The measured count of each block, or -1 where no statement of the
     block is known to the profile.  */
  int64_t *raw;
  /* The consistent counts: every block's equals the sum of its in-edges'
     and of its out-edges'.  */
  uint64_t *block;
  uint64_t *edge;
  /* The index in EDGE of each block's first out-edge.  */
  unsigned *first_edge;
  /* Whether BLOCK and EDGE hold a solution (there was a profile).  */
  bool solved;
  /* Blocks with a measured count; blocks of the function.  */
  unsigned known_blocks, blocks;
  /* Share of the profile's body count at lines the body has, in [0, 1];
     low for a stale profile.  */
  double fit;
  /* Call blocks counted from the inline instance the profiled binary had
     there.  */
  unsigned calls_from_inlinees;
  /* The largest count of a branch the profiled binary had turned into a
     conditional move (its direction unmeasured, its arms rejoining).  */
  uint64_t hottest_if_converted;
  /* Whether the function caught no sample but a callee says it ran
     (sfdo_annotate_blocks' REVIVED).  */
  bool revived;
};

/* Measure the current function's blocks from its profile F and, with
   SOLVE, solve the flow; C is filled and must be released with
   sfdo_fn_counts_free.  With F NULL, every block is unknown.  HEAD, when
   nonzero, replaces the profile's entry count (the calls into the
   function this unit makes, when they say more).  ESTIMATE
   (hotcold.h, or NULL) shapes a body that was entered but caught no
   sample, however few its entries when REVIVED (a function that ran
   only because a function it calls did: its one call must have run),
   and then without its rarer blocks (hotcold.h, sfdo_statically_rare).
   KEEP_ZEROS, on a second annotation, keeps at zero the blocks the first
   found never ran.  Blocks that call a function the profile says never
   ran are measured at zero where that is evidence enough (their raw
   count in C too).  */
void sfdo_annotate_blocks (const struct sfdo_prof_func *f, bool solve,
			   uint64_t head,
			   const struct sfdo_static_estimate *estimate,
			   bool revived, bool keep_zeros,
			   struct sfdo_fn_counts *c);

/* Give the current function's loops the preheaders the annotation needs
   (sfdo_annotate_blocks does it too); a block count taken before must
   be taken after this, since it adds blocks.  */
void sfdo_prepare_loops (void);

void sfdo_fn_counts_free (struct sfdo_fn_counts *c);

/* Number of real statements in BB (at least 1): a stand-in for its
   machine instructions when asking how many samples it would catch.  */
unsigned sfdo_block_size (basic_block bb);

/* Write to DUMP one line per block of the current function (index,
   lines, raw, solved and final count) under the heading of NODE.  */
void sfdo_dump_blocks (FILE *dump, cgraph_node *node,
		       const struct sfdo_fn_counts *c);

#endif
