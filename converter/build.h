/* converter/build.h - per-binary tallies to a source-line profile.
 *
 * Stage 2 of the pipeline, after the sample walk (samples.h).  For each
 * binary with samples: its branch stacks give the counts of the
 * functions they cover (build_lbr.c); its IP samples give the counts of
 * the functions no branch stack covers (build_ip.c); its register samples
 * give value histograms (values.h).  Then the header (build-ids of the
 * binaries that had samples, modes, events, tool, sample totals), and
 * with callchains but no branch stacks, head counts from the calls into
 * each function.
 *
 * IP-only mode follows Chen et al.: a sample weighs its event's period;
 * the count of a basic block is the summed weight of its instructions
 * divided by their number, which cancels skid and stall aggregation; a
 * source line's count is the max (or mean) of the counts of the blocks of
 * its instructions.  Direct calls take the count of their block;
 * callchains split an indirect call's count among its targets.  Where
 * cycles (and long-stall events) were recorded beside retired
 * instructions, they classify each block as over- or under-sampled, and
 * minimum-cost flow over the machine CFG corrects the block counts first
 * (binflow.h).
 *
 * LBR mode: every straight run between two taken branches ran once per
 * sighting; taken calls give call edges, head counts and indirect-call
 * target histograms.
 *
 * Depends on common/, profiles/, match.h, tally.h, symtab.h, blocks.h,
 * attribute.h, binflow.h, values.h.  */
#ifndef SFDO_CONVERTER_BUILD_H
#define SFDO_CONVERTER_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"
#include "../profiles/profile.h"
#include "blocks.h"
#include "convert.h"
#include "match.h"
#include "symtab.h"
#include "tally.h"

/* How block counts are made.  */
struct sfdo_build_opts {
  enum sfdo_line_vote vote;
  int smooth;                   /* run the binary-level MCF prepass */
  int classify;                 /* cycles were recorded: classify blocks */
  uint64_t min_sample_weight;   /* of an IP sample: one sample's worth */
  int ip_counts_instructions;   /* the IP samples count instructions: the
                                   registers before an indirect call say
                                   how often it reached each target */
};

/* An event for the profile header.  */
struct sfdo_build_event {
  const char *name;
  uint64_t period;
  uint64_t samples;
};

/* What the header says besides the binaries.  */
struct sfdo_build_notes {
  const char *tool;             /* NULL: none */
  const struct sfdo_build_event *events;
  size_t nevents;
  uint64_t samples_used, samples_dropped;
  int heads_from_calls;         /* callchains were recorded */
};

/* Build the profile of the binaries of M from their TALLIES (one each)
   into *OUT, counting in STATS.  */
enum sfdo_errc sfdo_build_profile (const struct sfdo_build_opts *o,
                                   const struct sfdo_match *m,
                                   const struct sfdo_tally *tallies,
                                   const struct sfdo_build_notes *notes,
                                   struct sfdo_convert_stats *stats,
                                   struct sfdo_profile **out,
                                   struct sfdo_error *err);

/* The parts, for one binary (of symbols ST, code decoded by DEC) and its
   tally T, into P.  sfdo_build_lbr adds the entry of every function it
   counted to COVERED; sfdo_build_ip counts only functions whose entry is
   not in COVERED (NULL: all).  Each returns how many functions it
   counted.  */
size_t sfdo_build_lbr (const struct sfdo_build_opts *o, struct sfdo_symtab *st,
                       struct sfdo_decoder *dec, const struct sfdo_tally *t,
                       struct sfdo_u64map *covered, struct sfdo_profile *p,
                       struct sfdo_convert_stats *stats);
size_t sfdo_build_ip (const struct sfdo_build_opts *o, struct sfdo_symtab *st,
                      struct sfdo_decoder *dec, const struct sfdo_tally *t,
                      const struct sfdo_u64map *covered,
                      struct sfdo_profile *p,
                      struct sfdo_convert_stats *stats);

#endif
