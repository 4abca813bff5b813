/* converter/tally.h - what the samples of one binary add up to, before
 * any of it becomes a source line.
 *
 * Stage 2 of the pipeline, between the sample walk (samples.h), which
 * fills one tally per binary, and the builders (build.h) and the LBR dump
 * (lbr_dump.h), which read it.  Every address is the binary's own
 * virtual address.  A weight is a sum of sampling periods: an estimate of
 * executions once divided as the builders do.
 *
 * Depends on common/ and profiles/ (for the value kinds).  */
#ifndef SFDO_CONVERTER_TALLY_H
#define SFDO_CONVERTER_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"
#include "../profiles/profile.h"

struct sfdo_tally {
  struct sfdo_u64map weights;       /* vaddr -> summed period of the samples
                                       of the IP event */
  struct sfdo_u64map clk_weights;   /* vaddr -> cycles (the CLK event) */
  struct sfdo_u64map stall_weights; /* vaddr -> stall cycles: long-stall
                                       events times what each stands for */
  struct sfdo_pairmap ranges;   /* LBR: (begin, end) run straight */
  struct sfdo_pairmap branches; /* LBR: (from, to) taken branches */
  struct sfdo_pairmap calls;    /* callchains: (return address, address in
                                   the callee) */
  struct sfdo_pairmap values[SFDO_VALUE_NKINDS];  /* (site, value) seen */
  struct sfdo_pairmap call_values;  /* registers at indirect calls: (call
                                       address, target vaddr) */
};

void sfdo_tally_release (struct sfdo_tally *t);

/* Whether T holds branch-stack data.  */
int sfdo_tally_has_lbr (const struct sfdo_tally *t);

/* Whether T holds anything a profile is built from.  */
int sfdo_tally_has_samples (const struct sfdo_tally *t);

/* The addresses T saw run, sorted; *N of them; free with free.  IP
   samples of any event, the starts and ends of LBR runs and branch
   targets, the calls of callchains and of register samples (a return
   address's call: the address before it), and the addresses callchains
   saw in a callee.  */
uint64_t *sfdo_tally_addresses (const struct sfdo_tally *t, size_t *n);

/* Whether some of the N sorted addresses A lie in [LO, HI).  */
int sfdo_addresses_within (const uint64_t *a, size_t n, uint64_t lo,
                           uint64_t hi);

/* Add W to the pair (A, B) of M, seen once more.  */
void sfdo_tally_pair (struct sfdo_pairmap *m, uint64_t a, uint64_t b,
                      uint64_t w);

/* Longer straight-line runs than this are impossible: a record is lost
   or the stack is corrupt.  */
#define SFDO_MAX_RANGE (1u << 20)

#endif
