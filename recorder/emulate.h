/* recorder/emulate.h - sfdo-record --emulate: the PMU emulated in
 * software, for machines without one (VMs, containers, this project's
 * CI).
 *
 * The command runs under Valgrind with sfdoemu (emulator/), a tool that
 * counts every retired instruction and taken branch exactly and samples
 * them (jittered as the hardware path is): retired instructions, and
 * with -b taken branches carrying the last 32 taken branches (as the
 * hardware path's default on Intel: a stack sampled on taken branches
 * sees every branch alike, one sampled on instructions favours branches
 * after long blocks); -e picks the events; --regs adds the
 * general-purpose registers at each sample; per thread, following forks
 * and execs.  A
 * Valgrind tool cannot link libc, so it writes a compact raw stream per
 * process image into a private directory (emulator/emu_format.h); when
 * the command has ended, sfdo-record merges the streams into a perf.data
 * with the project's writer (emu_perf.h), marked as emulated, and
 * removes them.  Files rather than a pipe: each process image opens its
 * own by path, so forks and execs need no shared descriptor that the
 * client could close or inherit, a stream killed midway is detected, and
 * the command never waits for the converter.  */
#ifndef SFDO_RECORDER_EMULATE_H
#define SFDO_RECORDER_EMULATE_H

#include "record.h"

/* Events per sample by default: about 3000 instruction samples and as
   many taken-branch samples per second of emulated run, each cheap to
   take (about 5 instructions run per taken branch).  */
#define SFDO_EMU_DEFAULT_PERIOD 100003
#define SFDO_EMU_DEFAULT_BRANCH_PERIOD 20011

/* Why O cannot be recorded with --emulate (a message for a usage error),
   or NULL.  STAT: only count (--stat).  */
const char *sfdo_rec_emulate_refusal (const struct sfdo_rec_options *o,
                                      int stat);

/* Run O->command under the emulator and write O->output; with STAT,
   write instructions and taken branches to O->output (stderr when NULL)
   and no perf.data.  Returns what sfdo_rec_run() returns: the command's
   exit status, or SFDO_REC_EXIT_FAILED / SFDO_REC_EXIT_NO_EXEC.  */
int sfdo_rec_emulate (const struct sfdo_rec_options *o, int stat);

#endif
