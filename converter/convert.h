/* converter/convert.h - perf.data samples to a portable profile.
 *
 * Stage 2 of the pipeline, the library behind sfdo-convert: it walks the
 * records of a perf.data (perfdata/), maps each user-space sample of the
 * binaries it was given to an address in them (match.h), tallies what
 * each event's samples give per binary (event_plan.h, samples.h), and
 * finally turns the tallies into source-line counts in a profile
 * (build.h: IP-only block averaging after Chen et al., LBR straight runs
 * and branches, call edges, value histograms).  A recording may combine
 * branch stacks, instruction samples and registers: each is used.
 *
 * Depends on common/, perfdata/, profiles/, libdw and Capstone.  */
#ifndef SFDO_CONVERTER_CONVERT_H
#define SFDO_CONVERTER_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"
#include "../perfdata/perfdata.h"
#include "../profiles/profile.h"
#include "unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sfdo_line_vote {
  /* A line's count: the sum over the machine blocks where one of its
     statements begins (copies made by unrolling, peeling or versioning
     add up, Chen et al. 6.2.2; code moved into other blocks does not
     count), see attribute.c.  */
  SFDO_LINE_BLOCKS = 0,
  SFDO_LINE_MAX = 1,    /* ... the max over its instructions */
  SFDO_LINE_MEAN = 2    /* ... or their mean */
};

enum sfdo_smooth {
  SFDO_SMOOTH_AUTO = 0, /* binary-level MCF when a second event classifies
                           blocks (binflow.h) */
  SFDO_SMOOTH_ON = 1,
  SFDO_SMOOTH_OFF = 2
};

struct sfdo_convert_opts {
  enum sfdo_line_vote vote;
  enum sfdo_smooth smooth;
  const char *count_event;  /* the event to count, by the name perf
                               recorded; NULL: the best one */
  const char *clk_event;    /* the cycles event that classifies blocks;
                               NULL: cycles or CPU_CLK_UNHALTED beside
                               instructions, if recorded */
  int force;            /* accept a build-id that differs from the file's */
  const char *tool;     /* written in the profile header */
};

/* Why samples were not used, and what was.  */
struct sfdo_convert_stats {
  uint64_t samples;             /* every sample record */
  uint64_t used;                /* mapped into a given binary */
  uint64_t other_event;         /* of an event not chosen for counting */
  uint64_t kernel;              /* not user-space code */
  uint64_t other_file;          /* in a file that is not a given binary */
  uint64_t unmapped;            /* at an address no mmap covered */
  uint64_t no_line;             /* in a binary, but no line info there */
  uint64_t lost;                /* the kernel's LOST records */
  uint64_t callchains;          /* samples with a callchain */
  uint64_t stacks;              /* samples unwound from a user stack copy */
  uint64_t unwound;             /* of those: caller recovered (or none) */
  uint64_t unwind_stops[SFDO_UNWIND_NSTOPS];   /* why each walk stopped */
  uint64_t lbr_samples;         /* samples with a branch stack */
  uint64_t lbr_branches, lbr_branches_dropped;
  uint64_t lbr_ranges, lbr_ranges_dropped;
  uint64_t empty_stacks;        /* of a branch-stack event, without one */
  uint64_t values;              /* register samples that gave a value */
  uint64_t aux_used;            /* samples of classifying events used */
  uint64_t blocks_over, blocks_under, blocks_classified;
  uint64_t functions_smoothed;  /* by the binary-level prepass */
  uint64_t unsampled_functions; /* listed with no counts (never ran) */
  uint64_t folded_functions;    /* bodies shared out among their twins */
  uint64_t anchored_functions;  /* with their call sites (anchors.h) */
  uint64_t unsampled_pieces;    /* of sampled functions, their lines at 0
                                   (anchors.h) */
};

struct sfdo_converter;

/* A converter for the N binaries at PATHS (an executable and shared
   libraries).  Reads their symbols and DWARF now.  */
enum sfdo_errc sfdo_converter_new (const struct sfdo_convert_opts *opts,
                                   const char *const *paths, size_t n,
                                   struct sfdo_converter **out,
                                   struct sfdo_error *err);
void sfdo_converter_free (struct sfdo_converter *cv);

/* Take in every record of PD (opened by the caller).  Checks the file's
   build-ids against the binaries' (a mismatch is SFDO_E_MALFORMED unless
   opts.force).  PROGRESS, if not NULL, is called now and then with the
   number of records read.  */
enum sfdo_errc sfdo_converter_read (struct sfdo_converter *cv,
                                    struct sfdo_perfdata *pd,
                                    void (*progress) (uint64_t records,
                                                      void *ctx),
                                    void *progress_ctx,
                                    struct sfdo_error *err);

/* Build the profile of everything read; the caller frees *OUT.  When no
   sample fell in the binaries given (a binary the recording never ran)
   there is nothing to build: SFDO_E_MALFORMED naming the binaries and
   their build-ids.  */
enum sfdo_errc sfdo_converter_build (struct sfdo_converter *cv,
                                     struct sfdo_profile **out,
                                     struct sfdo_error *err);

const struct sfdo_convert_stats *
sfdo_converter_stats (const struct sfdo_converter *cv);

/* The mapped files that samples fell in although they are not a binary
   given, most samples first: at most MAX, into NAMES (valid until the
   converter is freed) and COUNTS; returns how many.  */
size_t sfdo_converter_sampled_files (const struct sfdo_converter *cv,
                                     size_t max, const char **names,
                                     uint64_t *counts);

/* Write the raw LBR tallies read so far to F, one line each, sorted:
   "BINARY range BEGIN END COUNT" and "BINARY branch FROM TO COUNT", with
   addresses as the binary's own hex virtual addresses and COUNT the
   number of times it appeared in branch stacks (twice in one stack counts
   twice, as each appearance is one execution).  For checking against perf
   script -F ip,brstack.  */
void sfdo_converter_dump_lbr (const struct sfdo_converter *cv, FILE *f);

/* The binaries CV converts for, as matched to the recording.  */
const struct sfdo_match *sfdo_converter_match (const struct sfdo_converter *cv);

#ifdef __cplusplus
}
#endif

#endif
