/* recorder/emu_perf.h - the emulated PMU's raw streams (emu_raw.h) into a
 * perf.data, through the project's writer (perfdata_write.h).
 *
 * Every process image wrote its own stream, in time order, on one clock:
 * they are merged by time into one data section (so FORK, COMM and MMAP2
 * records come before the samples they explain, and a FINISHED_ROUND may
 * follow any record).  The file describes the events the streams
 * sampled: taken branches (PERF_TYPE_RAW 0x20c4, Intel's encoding of
 * BR_INST_RETIRED.NEAR_TAKEN; named "BR_INST_RETIRED:NEAR_TAKEN:u:emulated")
 * and retired user-space instructions (PERF_TYPE_HARDWARE,
 * PERF_COUNT_HW_INSTRUCTIONS; "instructions:u:emulated"), in that order,
 * with PERF_SAMPLE_IP | TID | TIME | PERIOD (and IDENTIFIER when both),
 * BRANCH_STACK (branch_sample_type ANY | USER, as Intel's LBR) on the
 * event the streams gave the LBR, and REGS_USER (AX..R15 and IP) when they
 * carry registers.  The header's CPUDESC says the PMU was emulated and by
 * which Valgrind; CMDLINE is the caller's.  */
#ifndef SFDO_RECORDER_EMU_PERF_H
#define SFDO_RECORDER_EMU_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define SFDO_EMU_EVENT_NAME "instructions:u:emulated"
#define SFDO_EMU_BRANCH_EVENT_NAME "BR_INST_RETIRED:NEAR_TAKEN:u:emulated"
#define SFDO_EMU_TAKEN_BRANCHES_RAW 0x20c4

struct sfdo_emu_convert {
  const char *output;           /* the perf.data; NULL: count only */
  int argc;                     /* for CMDLINE */
  const char *const *argv;
};

/* What the streams held.  Counts come from each thread's last EXIT
   record; a process image that ended without them (killed by SIGKILL,
   or its stream cut short) is counted in INCOMPLETE.  */
struct sfdo_emu_totals {
  uint64_t instructions, taken_branches, samples;
  size_t images, processes, threads, incomplete;
  size_t build_ids;
  uint64_t bytes;               /* of records written */
  struct sfdo_error problem;    /* the first stream cut short, if any */
};

/* Merge the streams DIR/ *.raw into C->output (or only count them).
   An unreadable stream is an error; one cut short is used up to where
   it breaks, and reported in TOTALS->problem.  No stream at all is an
   error.  */
enum sfdo_errc sfdo_emu_convert_dir (const char *dir,
                                     const struct sfdo_emu_convert *c,
                                     struct sfdo_emu_totals *totals,
                                     struct sfdo_error *err);

#endif
