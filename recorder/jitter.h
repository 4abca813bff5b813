/* recorder/jitter.h - the period randomisation of sfdo-record, shared by
 * the hardware sampler (sampler.c) and the emulated PMU (emulator/), which
 * cannot link libsfdo: hence a header-only, libc-free function.
 *
 * A period is the base with its low bits randomised, uniformly within
 * base/16 either way, so that sampling cannot lock onto a loop whose
 * length divides the period (Chen et al.).  */
#ifndef SFDO_RECORDER_JITTER_H
#define SFDO_RECORDER_JITTER_H

#include <stdint.h>

/* The next period around BASE, drawn from the xorshift state *STATE
   (never 0).  */
static inline uint64_t
sfdo_jitter_next (uint64_t base, uint64_t *state)
{
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  uint64_t span = base / 16;
  if (!span)
    return base;
  return base - span + x % (2 * span + 1);
}

#endif
