/* converter/samples.h - walking samples into per-binary tallies.
 *
 * Stage 2 of the pipeline.  Each sample is used as its event's plan says
 * (event_plan.h): its address weighs the instruction it fell on (IP
 * event), or adds cycles or stall cycles there (classifying events); its
 * branch stack, newest entry first, gives every taken branch and every
 * straight run from one branch's target to the next branch's source,
 * each entry weighing its share of the sample's period; its callchain
 * gives (return address, callee address) pairs, from which indirect calls
 * learn their targets; a sample without a user callchain but with
 * registers and a copy of the user stack is unwound (unwind.h) into one;
 * its registers give values (values.h).  All of it
 * may come from one sample: a branch stack does not stop its registers or
 * its address from counting.
 *
 * perf writes each CPU's buffer in turn, so a sample can come before the
 * mmap of its code in the file.  Such samples wait (their address,
 * weight, callchain and branch stack; not their registers) until
 * sfdo_walk_deferred(), within a bound on memory; they are not unwound
 * (their stack copies are not kept).
 *
 * Depends on perfdata/, match.h, event_plan.h, tally.h, unwind.h,
 * values.h.  */
#ifndef SFDO_CONVERTER_SAMPLES_H
#define SFDO_CONVERTER_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "../perfdata/perfdata.h"
#include "blocks.h"
#include "convert.h"
#include "event_plan.h"
#include "match.h"
#include "tally.h"
#include "unwind.h"
#include "values.h"

struct sfdo_deferred_sample;

/* How the samples of one event add up, for the profile header.  */
struct sfdo_event_count {
  uint64_t samples;             /* used (classifying events: seen) */
  uint64_t period_sum;          /* of the samples counted */
};

struct sfdo_walk {
  struct sfdo_match *match;     /* where addresses are */
  struct sfdo_tally *tallies;   /* one per binary of MATCH */
  struct sfdo_value_sites *sites;   /* one per binary of MATCH */
  struct sfdo_decoder *decoder; /* for value sites; NULL: no values */
  struct sfdo_convert_stats *stats;
  uint64_t min_ip_weight;       /* of an IP sample: one sample's worth */
  struct sfdo_event_count counted, ip;   /* the events counted and IP */
  struct sfdo_event_count aux[SFDO_PLAN_MAX_AUX];
  struct sfdo_deferred_sample *deferred;
  size_t ndeferred, cap_deferred, deferred_words;
  struct sfdo_unwinder *unwinder;   /* for samples with a stack copy */
  uint32_t unwind_pid;          /* the sample being unwound */
  uint64_t unwind_time;
};

/* A walk over the binaries of MATCH into TALLIES and SITES (one each per
   binary, zeroed by the caller), counting in STATS; DECODER may be NULL.  */
void sfdo_walk_init (struct sfdo_walk *w, struct sfdo_match *match,
                     struct sfdo_tally *tallies,
                     struct sfdo_value_sites *sites,
                     struct sfdo_decoder *decoder,
                     struct sfdo_convert_stats *stats);
void sfdo_walk_release (struct sfdo_walk *w);

/* Take sample S of event ATTR (the record's misc MISC) at TIME, used as
   PLAN says.  */
void sfdo_walk_sample (struct sfdo_walk *w, const struct sfdo_event_plan *plan,
                       const struct sfdo_perfdata_attr *attr, uint16_t misc,
                       const struct sfdo_perfdata_sample *s, uint64_t time);

/* Take the samples that came before the mmap of their code, now that
   every mmap is known.  */
void sfdo_walk_deferred (struct sfdo_walk *w);

#endif
