/* converter/binflow.h - consistent block counts on a function's machine
 * code: Chen et al.'s binary-level prepass.
 *
 * IP samples give each basic block of the binary a count (blocks.h), but
 * a sample lands where the pipeline was when the counter overflowed, not
 * where the event happened: blocks after long stalls collect too many
 * (aggregation), short blocks in their shadow too few.  Where a second
 * event was recorded, the two tell these apart: retired instructions
 * (INST) and unhalted cycles (CLK) in one block, plus the stall cycles
 * that long-latency events account for (A), classify it (Chen et al.,
 * section 2.8):
 *
 *   S = CLK - INST                 cycles not explained by one per
 *                                  instruction
 *   under-sampled   S - A > 2 * INST   shadowed: more cycles than its
 *                                      stalls explain
 *   over-sampled    A > S and A > CLK / 2   stalls aggregated samples
 *                                           onto it
 *
 * (all three in events: samples times period, stall cycles weighed by
 * their duration).  Then minimum-cost flow over the function's machine
 * CFG (smooth/mcf.h) makes the counts consistent, letting an over-sampled
 * block fall but not rise and an under-sampled one rise but not fall.
 *
 * The CFG comes from the decoded instructions: a conditional jump goes to
 * its target and falls through, an unconditional one to its target, a
 * return (or a jump or fall out of the function, a tail call) to EXIT, and
 * an indirect jump to every block nothing else reaches (the cases of a
 * jump table).  Depends on blocks.h and smooth/.  */
#ifndef SFDO_CONVERTER_BINFLOW_H
#define SFDO_CONVERTER_BINFLOW_H

#include <stdint.h>

#include "blocks.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sfdo_sampling {
  SFDO_SAMPLING_OK = 0,         /* no reason to doubt the count */
  SFDO_SAMPLING_OVER = 1,
  SFDO_SAMPLING_UNDER = 2
};

/* Classify a block from its summed INST events, CLK cycles and stall
   cycles A (0 when no stall event was recorded).  */
enum sfdo_sampling sfdo_classify_block (double inst, double clk,
                                        double stall);

/* Replace the NBLOCKS counts of FB's blocks, COUNTS[k] for fb->blocks[k],
   by the nearest consistent ones; HEAD, if not 0, is how often the
   function was entered.  CLASSES (per block, enum sfdo_sampling) may be
   NULL.  */
void sfdo_binflow_smooth (const struct sfdo_func_blocks *fb, uint64_t head,
                          const uint8_t *classes, uint64_t *counts);

#ifdef __cplusplus
}
#endif

#endif
