/* recorder/record.h - one recording, start to finish: choose and encode
 * the events, start or find the target, sample until it ends (or the
 * duration passes, or SIGINT/SIGTERM), and write the perf.data.
 *
 * sfdo-record's main only parses its command line into a struct
 * sfdo_rec_options, calls sfdo_rec_run() and prints what it returns: the
 * library prints nothing.  Notes (what was chosen and why, fallbacks) go
 * to the options' note callback as they happen; the error, the exit
 * status and the figures of the summary come back in a struct
 * sfdo_rec_result.  */
#ifndef SFDO_RECORDER_RECORD_H
#define SFDO_RECORDER_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"

struct sfdo_rec_options {
  const char *output;           /* default "perf.data" */
  const char *const *events;    /* -e names, NULL-terminated; NULL: choose */
  uint64_t period;              /* -c; 0: the events' defaults */
  uint64_t freq;                /* -F; 0: a fixed period */
  int jitter;                   /* randomise the period's low bits */
  int branch_stack, callchain, regs;
  /* --call-graph dwarf,SIZE: SIZE; 0 with call_graph_given: none.  Without
     call_graph_given, SFDO_REC_STACK_DEFAULT where no event has branch
     stacks.  */
  uint32_t stack_size;
  int call_graph_given;
  unsigned mmap_pages;          /* per CPU, a power of two */
  const pid_t *pids;            /* -p */
  size_t npids;
  int all_cpus;                 /* -a */
  double duration;              /* seconds; 0: until the target ends */
  char *const *command;         /* -- CMD ARGS, NULL-terminated, or NULL */
  int quiet;                    /* no choice or summary messages */
  int argc;                     /* sfdo-record's own command line, */
  const char *const *argv;      /* for the CMDLINE header */
  /* Called with each note for the user (NULL: dropped).  */
  void (*note) (const char *msg, void *ctx);
  void *note_ctx;
};

/* How a recording went.  */
struct sfdo_rec_result {
  int status;                   /* the exit status (see sfdo_rec_run) */
  struct sfdo_error err;        /* why, when it failed (code != SFDO_OK) */
  uint64_t samples, lost;       /* the figures of the summary */
  uint64_t bytes;               /* of records written */
  size_t build_ids;             /* written to the header */
  int stop_signal;              /* the SIGINT/SIGTERM that stopped it, or 0 */
  int written;                  /* the output file was written */
  uint64_t period;              /* the mean period of the samples (of
                                   the first event's, with none), 0
                                   with -F */
  int branch_stack;             /* its samples carry a branch stack */
  int timer;                    /* it is a software clock (ns periods) */
};

/* Exit statuses besides the command's own, as a shell's.  */
#define SFDO_REC_EXIT_FAILED 2     /* recording failed: nothing written */
#define SFDO_REC_EXIT_NO_RUN 126   /* the command exists but cannot run */
#define SFDO_REC_EXIT_NO_EXEC 127  /* the command was not found */

/* Record as O says, filling *RES.  Returns the process exit status: the
   command's (128 + signal when a signal ended it) with -- CMD, else 0;
   or SFDO_REC_EXIT_FAILED, _NO_RUN or _NO_EXEC (RES->err says why).  */
int sfdo_rec_run (const struct sfdo_rec_options *o,
                  struct sfdo_rec_result *res);

#endif
