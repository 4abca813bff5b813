/* recorder/sampler.h - sampling with perf_event_open: the attrs, one
 * ring buffer per CPU, draining them into a perf.data writer, and the
 * period jitter.
 *
 * Every event is opened once per (CPU, task) with the task's events on
 * a CPU sharing that CPU's ring buffer (PERF_EVENT_IOC_SET_OUTPUT): the
 * kernel does not mmap inherited per-task events (cpu -1), and one
 * buffer per CPU is what perf does too.  Tasks: the threads given (with
 * inherit, so their future children and threads are followed), or every
 * task (-a).
 *
 * Jitter: after each drain round every event gets a new period, the
 * base period with its low bits randomised (within 1/16 of it), through
 * PERF_EVENT_IOC_PERIOD, so that sampling cannot lock onto a loop whose
 * length divides the period (Chen et al.).  Events inherited by a child
 * keep the period in force when the child was created.  */
#ifndef SFDO_RECORDER_SAMPLER_H
#define SFDO_RECORDER_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "../common/error.h"
#include "../perfdata/perfdata_write.h"

/* How to sample: what sfdo_rec_prepare_attr() puts into an attr.  */
struct sfdo_rec_sampling {
  uint64_t period;              /* per event when 0 here: keep the attr's */
  uint64_t freq;                /* samples/s instead of a period; 0: none */
  int callchain;                /* -g: frame-pointer callchains */
  int branch_stack;             /* -b: user-space branch stacks */
  int regs;                     /* --regs: REGS_INTR if precise, else USER */
  int inherit;                  /* follow children (not with -a) */
  int enable_on_exec;           /* start counting at exec (-- CMD) */
};

/* x86-64 registers sampled by --regs: AX BX CX DX SI DI BP SP IP R8-R15
   (perf_regs.h bit numbers), what sfdo-convert's value profiles read.  */
#define SFDO_REC_REGS_MASK 0xff01ffull

/* The user stack copied with each sample where there are no branch
   stacks: enough for the caller of nearly every sample (bench/RESULTS.md,
   "Call edges without LBR", measured 256 B to 8 KB).  A multiple of 8.  */
#define SFDO_REC_STACK_DEFAULT 1024
#define SFDO_REC_STACK_MAX 65528

/* Set everything but the event (type, config, precise_ip) in ATTR:
   sample_type (IDENTIFIER, IP, TID, TIME, CPU, PERIOD, and CALLCHAIN,
   BRANCH_STACK, REGS_* as asked), PERIOD (when ATTR has none yet) or
   frequency, mmap2/comm/task side-band records with sample_id_all.  */
void sfdo_rec_prepare_attr (struct perf_event_attr *attr,
                            const struct sfdo_rec_sampling *how,
                            uint64_t period);

struct sfdo_rec_target {
  const pid_t *tids;            /* the threads to sample; NULL with all */
  size_t ntids;
  int all;                      /* every task on every CPU */
};

struct sfdo_rec_stats {
  uint64_t samples, lost, throttles, records, bytes, rounds;
  uint64_t period_sum;          /* the periods of the samples, added */
  int jitter_errno;             /* re-arming a period failed with it: the
                                   period stays fixed from then on */
};

struct sfdo_rec_sampler;

/* Open NATTRS events (ATTRS, named NAMES in errors) on TARGET, disabled
   (unless enable_on_exec), with ring buffers of MMAP_PAGES data pages (a
   power of two) per CPU.  JITTER: re-arm periods with jitter after each
   drain.  Errors name the event and say what to change (permissions,
   perf_event_paranoid, an event this PMU lacks).  */
enum sfdo_errc sfdo_rec_sampler_open (const struct perf_event_attr *attrs,
                                      const char *const *names, size_t nattrs,
                                      const struct sfdo_rec_target *target,
                                      unsigned mmap_pages, int jitter,
                                      struct sfdo_rec_sampler **out,
                                      struct sfdo_error *err);

/* The sample ids of event I (one per file descriptor), for the file's
   attr section.  */
const uint64_t *sfdo_rec_sampler_ids (const struct sfdo_rec_sampler *s,
                                      size_t i, size_t *n);

/* Start or stop counting on every descriptor.  An error names the
   event whose descriptor refused.  */
enum sfdo_errc sfdo_rec_sampler_enable (struct sfdo_rec_sampler *s,
                                        struct sfdo_error *err);
enum sfdo_errc sfdo_rec_sampler_disable (struct sfdo_rec_sampler *s,
                                         struct sfdo_error *err);

/* Wait up to TIMEOUT_MS for a ring buffer to fill to its wakeup point.
   Returns at once when a signal arrives.  */
void sfdo_rec_sampler_wait (struct sfdo_rec_sampler *s, int timeout_ms);

/* Copy every record the kernel has written into W, then a FINISHED_ROUND
   (if anything was copied); count samples and lost samples; re-arm the
   periods when jittering.  */
enum sfdo_errc sfdo_rec_sampler_drain (struct sfdo_rec_sampler *s,
                                       struct sfdo_perfdata_writer *w,
                                       struct sfdo_error *err);

const struct sfdo_rec_stats *
sfdo_rec_sampler_stats (const struct sfdo_rec_sampler *s);

/* Close every descriptor and unmap the buffers (NULL allowed).  */
void sfdo_rec_sampler_close (struct sfdo_rec_sampler *s);

/* A jittered period: BASE with up to BASE/16 added or taken away,
   uniformly, from the xorshift state *STATE (never 0).  */
uint64_t sfdo_rec_jitter (uint64_t base, uint64_t *state);

#endif
