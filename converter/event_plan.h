/* converter/event_plan.h - what the samples of each recorded event are
 * used for.
 *
 * Stage 2 of the pipeline.  A recording may hold several events; the plan
 * names, from the attrs alone:
 *   - the event counted: the best one recorded (branch stacks, then
 *     retired instructions, cycles, timers), or the one the user named;
 *     its branch stacks, callchains and registers are all taken;
 *   - the IP event, whose sample addresses weigh instructions: the event
 *     counted, unless that is a branch-stack event of something other
 *     than retired instructions (taken branches, cycles with -b: their
 *     sample addresses lean to branches); then retired instructions
 *     recorded beside it, if any.  So branch stacks, instruction samples
 *     and registers combine in one recording;
 *   - the events that classify blocks as over- or under-sampled (Chen et
 *     al.): cycles beside retired instructions (or the one the user
 *     named), and long-stall events (DTLB and last-level-cache misses,
 *     weighed by the cycles each stands for).
 * Every other event is not used.
 *
 * Depends on perfdata/ (attrs) only.  */
#ifndef SFDO_CONVERTER_EVENT_PLAN_H
#define SFDO_CONVERTER_EVENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../perfdata/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the samples of one event give.  */
struct sfdo_event_use {
  unsigned counted : 1;         /* of the event counted */
  unsigned branches : 1;        /* branch stacks -> LBR tallies */
  unsigned ip : 1;              /* sample addresses -> weights */
  unsigned values : 1;          /* registers -> value histograms */
  unsigned calls : 1;           /* callchains -> call pairs */
  unsigned clk : 1;             /* sample addresses -> cycles */
  unsigned stall : 1;           /* sample addresses -> stall cycles */
  uint32_t stall_cycles;        /* stall: cycles one event stands for */
};

#define SFDO_PLAN_MAX_AUX 8

struct sfdo_event_plan {
  const struct sfdo_perfdata_attr *count;   /* NULL: no event at all */
  const struct sfdo_perfdata_attr *ip;      /* may be NULL */
  const struct sfdo_perfdata_attr *aux[SFDO_PLAN_MAX_AUX];
  struct sfdo_event_use aux_use[SFDO_PLAN_MAX_AUX];
  size_t naux;
  int classify;                 /* a cycles event classifies blocks */
  int ip_counts_instructions;   /* the IP event is retired instructions:
                                   its samples fall on instructions as
                                   often as they run, not as long */
};

/* Plan the use of the N events ATTRS.  COUNT_EVENT and CLK_EVENT are the
   names the user gave (NULL: choose).  */
void sfdo_event_plan_make (struct sfdo_event_plan *plan,
                           const struct sfdo_perfdata_attr *const *attrs,
                           size_t n, const char *count_event,
                           const char *clk_event);

/* What samples of event A give (A NULL: a file with one unnamed event,
   whose samples are the event counted).  */
struct sfdo_event_use sfdo_event_plan_use (const struct sfdo_event_plan *plan,
                                           const struct sfdo_perfdata_attr *a);

/* Whether A is the event the user named NAME: perf's name for it, with or
   without its modifiers (":u").  */
int sfdo_event_named (const struct sfdo_perfdata_attr *a, const char *name);

/* The name of A for messages and the profile header, into BUF.  */
const char *sfdo_event_name (const struct sfdo_perfdata_attr *a, char *buf,
                             size_t size);

/* Whether the event named NAME (as the profile header names it) counts
   retired instructions: its samples fall on instructions as often as
   they run, so counts from it are executions, not time.  */
int sfdo_event_name_is_instructions (const char *name);

#ifdef __cplusplus
}
#endif

#endif
