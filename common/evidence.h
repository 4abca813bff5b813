/* common/evidence.h - how many samples a profile needs before GCC's
 * decisions can rest on it; sfdo-record, sfdo-convert and the plugin
 * warn below it, each at its own stage.
 *
 * Measured (issue 36, timer recordings, callgrind counts against -O2):
 * Lua's train run at about 5,000 to 7,000 samples in the program gets
 * 64-74% of instrumented PGO's cut in taken jumps; zstd's at 350-425
 * samples and jq's at about 3,000 made their builds worse than -O2
 * (1.022 and 1.063 of its taken jumps); zstd at ten times the rate
 * (about 4,000) got 63% of PGO's cut.  A sample with a branch stack
 * holds a run of taken branches, each one's range counted: it tells
 * about as much as SFDO_BRANCH_STACK_EVIDENCE instruction samples
 * (the plugin's own estimate of the entries a block shows in).  */
#ifndef SFDO_COMMON_EVIDENCE_H
#define SFDO_COMMON_EVIDENCE_H

#include <stdint.h>

#define SFDO_THIN_PROFILE_SAMPLES 5000
#define SFDO_BRANCH_STACK_EVIDENCE 16

/* The evidence of SAMPLES samples, STACKS of which carried a branch
   stack, in instruction samples.  */
static inline uint64_t
sfdo_sample_evidence (uint64_t samples, uint64_t stacks)
{
  if (stacks > samples)
    stacks = samples;
  return samples - stacks + stacks * SFDO_BRANCH_STACK_EVIDENCE;
}

#endif
