/* recorder/events.h - which events sfdo-record samples, and their
 * perf_event_attr.
 *
 * Three steps, each usable alone:
 *   sfdo_rec_detect()  what this machine's PMU offers (CPU vendor and
 *                      model from /proc/cpuinfo, LBR depth and precise
 *                      levels from sysfs, AMD branch sampling flags, and
 *                      whether a hardware event opens at all);
 *   sfdo_rec_choose()  a pure function from that description to the
 *                      event set to sample and the reasons, so the
 *                      choices for machines we do not have are unit-tested
 *                      with fake descriptions;
 *   sfdo_rec_encode()  an event name (libpfm4's, such as
 *                      INST_RETIRED:ANY_P, or perf's generic ones, such
 *                      as cycles or cpu-clock:u) to a perf_event_attr
 *                      counting user space only; perf's software events
 *                      (sfdo_rec_software_event) even where libpfm4
 *                      cannot encode anything.
 * sfdo_rec_list_events() prints what --list-events shows.  */
#ifndef SFDO_RECORDER_EVENTS_H
#define SFDO_RECORDER_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include "../common/error.h"

enum sfdo_rec_vendor {
  SFDO_REC_VENDOR_OTHER,
  SFDO_REC_VENDOR_INTEL,
  SFDO_REC_VENDOR_AMD
};

/* What the PMU offers.  */
struct sfdo_rec_caps {
  enum sfdo_rec_vendor vendor;
  int family, model;
  int hw_events;                /* a hardware event opened */
  int hw_errno;                 /* why not, when it did not */
  unsigned lbr_depth;           /* Intel LBR entries; 0: none */
  int amd_lbr_v2;               /* Zen 4 LbrExtV2 */
  int amd_brs;                  /* Zen 3 Branch Sampling */
  int max_precise;              /* highest precise_ip the PMU takes */
};

#define SFDO_REC_MAX_EVENTS 8
#define SFDO_REC_SW_PERIOD 250007       /* ns: about 4000 samples/s */
#define SFDO_REC_CYCLES_PERIOD 1000003  /* about 3000 samples/s at 3 GHz */
#define SFDO_REC_INSNS_PERIOD 2000003
#define SFDO_REC_BRANCH_PERIOD 500009   /* taken branches, with a stack */

struct sfdo_rec_event {
  char name[128];               /* what sfdo_rec_encode() takes */
  int branch_stack;             /* sample user-space branch stacks */
  int precise;                  /* precise_ip to ask for */
  uint64_t period;              /* default sampling period */
};

struct sfdo_rec_choice {
  size_t n;
  struct sfdo_rec_event ev[SFDO_REC_MAX_EVENTS];
  char why[768];                /* what was chosen, why, what it fell
                                   back from: for stderr */
};

/* Fill CAPS for this machine.  Never fails: what cannot be read is
   "absent".  */
void sfdo_rec_detect (struct sfdo_rec_caps *caps);

/* The best event set for CAPS.  WANT_BRANCHES: -b was given, so only a
   set with branch stacks will do; returns SFDO_E_USAGE with the reason
   in ERR when CAPS has none.  */
enum sfdo_errc sfdo_rec_choose (const struct sfdo_rec_caps *caps,
                                int want_branches,
                                struct sfdo_rec_choice *out,
                                struct sfdo_error *err);

/* When the PMU refuses the set C (perf_event_open fails), the next one
   to try: the same events without precise sampling, then (unless
   BRANCHES_REQUIRED) cpu-clock.  Changes C and returns 1, with what it
   did in C->why; returns 0 when there is nothing left to try.  */
int sfdo_rec_fall_back (struct sfdo_rec_choice *c, int branches_required);

/* Encode event NAME into ATTR (zeroed first): libpfm4 names and perf's
   generic names, with perf's :u/:k/:p modifiers too; perf's software
   events without libpfm4 when it cannot encode them.  Always user space
   only (exclude_kernel, exclude_hv); PRECISE is the precise_ip unless
   the name asks for more.  CANON (CANON_SIZE bytes) gets the name to
   write in the file.  Unknown names, and names libpfm4 cannot look up
   here: SFDO_E_USAGE naming NAME and saying which.  */
enum sfdo_errc sfdo_rec_encode (const char *name, int precise,
                                struct perf_event_attr *attr, char *canon,
                                size_t canon_size, struct sfdo_error *err);

/* Print perf's software events, the events this machine's PMUs offer
   (or why libpfm4 cannot say), and perf's generic hardware names, one a
   line.  */
void sfdo_rec_list_events (FILE *out);

/* Whether NAME, without modifiers, is one of perf's software events:
   perf's name (cpu-clock, page-faults) or short name (cs, faults), or
   libpfm4's (PERF_COUNT_SW_CPU_CLOCK, CPU-CLOCK), each also after
   "perf::", in any case.  Sets *CONFIG, the PERF_TYPE_SOFTWARE config.
   Needs no libpfm4 (events_sw.c).  */
int sfdo_rec_software_event (const char *name, uint64_t *config);

/* Print those events, one a line with libpfm4's name.  */
void sfdo_rec_list_software (FILE *out);

#endif
