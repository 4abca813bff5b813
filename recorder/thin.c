/* recorder/thin.c - see thin.h.  */
#include "thin.h"

#include <stdio.h>

#include "../common/evidence.h"

void
sfdo_rec_warn_thin (uint64_t samples, uint64_t stacks, uint64_t period,
                    uint64_t shortest, int rerun)
{
  uint64_t evidence = sfdo_sample_evidence (samples, stacks);
  if (evidence >= SFDO_THIN_PROFILE_SAMPLES)
    return;
  fprintf (stderr, "sfdo-record: warning: %llu samples are too few for a "
           "profile GCC's decisions can rest on (about %d are needed%s)",
           (unsigned long long) samples,
           stacks ? SFDO_THIN_PROFILE_SAMPLES / SFDO_BRANCH_STACK_EVIDENCE
                  : SFDO_THIN_PROFILE_SAMPLES,
           stacks ? " with branch stacks" : "");
  /* A quarter more than the minimum: not every sample falls in the
     program's own code (the loader's, the C library's).  */
  uint64_t enough = evidence && period
                    ? period * evidence / (SFDO_THIN_PROFILE_SAMPLES
                                           + SFDO_THIN_PROFILE_SAMPLES / 4)
                    : 0;
  if (!enough || !rerun)
    fprintf (stderr, "; record longer, or with a shorter period (-c)\n");
  else if (enough >= shortest)
    fprintf (stderr, "; record this run again with -c %llu, or a longer "
             "run\n", (unsigned long long) enough);
  else
    fprintf (stderr, "; this run is too short for that at any period the "
             "event allows (-c %llu): record a longer run, such as the "
             "workload repeated\n", (unsigned long long) shortest);
}
