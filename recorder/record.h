/* recorder/record.h - one recording, start to finish: choose and encode
 * the events, start or find the target, sample until it ends (or the
 * duration passes, or SIGINT/SIGTERM), and write the perf.data.
 *
 * sfdo-record's main only parses its command line into a struct
 * sfdo_rec_options and calls sfdo_rec_run().  Messages (what was chosen
 * and why, the summary, errors) go to stderr.  */
#ifndef SFDO_RECORDER_RECORD_H
#define SFDO_RECORDER_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sfdo_rec_options {
  const char *output;           /* default "perf.data" */
  const char *const *events;    /* -e names, NULL-terminated; NULL: choose */
  uint64_t period;              /* -c; 0: the events' defaults */
  uint64_t freq;                /* -F; 0: a fixed period */
  int jitter;                   /* randomise the period's low bits */
  int branch_stack, callchain, regs;
  unsigned mmap_pages;          /* per CPU, a power of two */
  const pid_t *pids;            /* -p */
  size_t npids;
  int all_cpus;                 /* -a */
  double duration;              /* seconds; 0: until the target ends */
  char *const *command;         /* -- CMD ARGS, NULL-terminated, or NULL */
  int quiet;                    /* no choice or summary messages */
  int argc;                     /* sfdo-record's own command line, */
  const char *const *argv;      /* for the CMDLINE header */
};

/* Exit statuses besides the command's own.  */
#define SFDO_REC_EXIT_FAILED 2     /* recording failed: nothing written */
#define SFDO_REC_EXIT_NO_EXEC 127  /* the command could not be run */

/* Record as O says.  Returns the process exit status: the command's
   (128 + signal when a signal ended it) with -- CMD, else 0; or
   SFDO_REC_EXIT_FAILED / SFDO_REC_EXIT_NO_EXEC.  */
int sfdo_rec_run (const struct sfdo_rec_options *o);

#endif
