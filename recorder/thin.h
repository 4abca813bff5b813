/* recorder/thin.h - the warning of a recording with too few samples for
 * a profile GCC's decisions can rest on (common/evidence.h), for both of
 * sfdo-record's ways of recording.  */
#ifndef SFDO_RECORDER_THIN_H
#define SFDO_RECORDER_THIN_H

#include <stdint.h>

/* Say on stderr, if SAMPLES (STACKS of them with a branch stack) are too
   few, how many are needed and, where RERUN (the same command can be
   recorded again) and PERIOD (the first event's; 0 if unknown) allow,
   the period that gives enough from the same run, not below SHORTEST
   (the shortest the event can have).  */
void sfdo_rec_warn_thin (uint64_t samples, uint64_t stacks, uint64_t period,
                         uint64_t shortest, int rerun);

#endif
