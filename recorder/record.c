/* recorder/record.c - one recording, start to finish (record.h).  */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/xalloc.h"
#include "events.h"
#include "procsynth.h"
#include "record.h"
#include "sampler.h"

#define POLL_MS 100
#define CHILD_GRACE_MS 2000

static volatile sig_atomic_t stop_signal;

static void
on_stop (int sig)
{
  stop_signal = sig;
}

static void
on_child (int sig)
{
  (void) sig;                   /* only interrupts poll */
}

static void
install_handlers (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;      /* no SA_RESTART: poll returns at once */
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sa.sa_handler = on_child;
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction (SIGCHLD, &sa, NULL);
}

/* Pass a note to the tool.  */
static void
note (const struct sfdo_rec_options *o, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
note (const struct sfdo_rec_options *o, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  if (!o->note)
    return;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  o->note (msg, o->note_ctx);
}

static double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- events ---------------------------------------------------------------- */

struct event_set {
  size_t n;
  struct perf_event_attr attrs[SFDO_REC_MAX_EVENTS];
  char names[SFDO_REC_MAX_EVENTS][160];
  const char *name_ptrs[SFDO_REC_MAX_EVENTS];
};

static uint64_t
default_period (const struct perf_event_attr *a)
{
  if (a->type == PERF_TYPE_SOFTWARE)
    return SFDO_REC_SW_PERIOD;
  return SFDO_REC_CYCLES_PERIOD;
}

static enum sfdo_errc
add_event (struct event_set *set, const struct sfdo_rec_options *o,
           const char *name, int precise, int branch_stack, uint64_t period,
           struct sfdo_error *err)
{
  if (set->n == SFDO_REC_MAX_EVENTS)
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "more than %d events", SFDO_REC_MAX_EVENTS);
  struct perf_event_attr *a = &set->attrs[set->n];
  char canon[128];
  enum sfdo_errc rc = sfdo_rec_encode (name, precise, a, canon, sizeof canon,
                                       err);
  if (rc)
    return rc;
  struct sfdo_rec_sampling how = {
    o->period, o->freq, o->callchain, branch_stack || o->branch_stack,
    o->regs, !o->all_cpus, o->command && !o->all_cpus
  };
  sfdo_rec_prepare_attr (a, &how, period ? period : default_period (a));
  snprintf (set->names[set->n], sizeof set->names[0], "%s:u", canon);
  set->name_ptrs[set->n] = set->names[set->n];
  set->n++;
  return SFDO_OK;
}

/* The -e events, split at commas.  */
static enum sfdo_errc
given_events (struct event_set *set, const struct sfdo_rec_options *o,
              struct sfdo_error *err)
{
  enum sfdo_errc rc = SFDO_OK;
  for (const char *const *e = o->events; !rc && *e; e++)
    {
      char *list = sfdo_xstrndup (*e, strlen (*e)), *save = NULL;
      for (char *tok = strtok_r (list, ",", &save); !rc && tok;
           tok = strtok_r (NULL, ",", &save))
        rc = add_event (set, o, tok, 0, 0, 0, err);
      free (list);
    }
  return rc;
}

static enum sfdo_errc
chosen_events (struct event_set *set, const struct sfdo_rec_options *o,
               const struct sfdo_rec_choice *c, struct sfdo_error *err)
{
  enum sfdo_errc rc = SFDO_OK;
  set->n = 0;
  for (size_t i = 0; !rc && i < c->n; i++)
    rc = add_event (set, o, c->ev[i].name, c->ev[i].precise,
                    c->ev[i].branch_stack, c->ev[i].period, err);
  return rc;
}

/* With no -e: the best set this PMU offers (into CHOICE, for fallbacks
   later), or cpu-clock when that set cannot even be encoded (libpfm4 not
   knowing this CPU model).  */
static enum sfdo_errc
default_events (struct event_set *set, struct sfdo_rec_choice *choice,
                const struct sfdo_rec_options *o, struct sfdo_error *err)
{
  struct sfdo_rec_caps caps;
  sfdo_rec_detect (&caps);
  enum sfdo_errc rc = sfdo_rec_choose (&caps, o->branch_stack, choice, err);
  if (rc)
    return rc;
  note (o, "%s", choice->why);
  struct sfdo_error why;
  sfdo_error_clear (&why);
  rc = chosen_events (set, o, choice, &why);
  if (rc && !o->branch_stack)
    {
      char buf[512];
      note (o, "cannot use %s (%s); falling back to cpu-clock",
            choice->ev[0].name, sfdo_error_format (&why, buf, sizeof buf));
      caps.hw_events = 0;
      caps.hw_errno = EOPNOTSUPP;
      sfdo_rec_choose (&caps, 0, choice, NULL);
      rc = chosen_events (set, o, choice, err);
    }
  else if (rc && err)
    *err = why;
  return rc;
}

/* --- the command -------------------------------------------------------- */

struct child {
  pid_t pid;
  int go_fd;                    /* write end: a byte lets the child exec,
                                   closing it unwritten makes it exit */
  int exec_fd;                  /* read end: errno of a failed exec, or EOF */
  int status, exited;
};

/* Fork the command, stopped before exec until release_child().  */
static enum sfdo_errc
start_child (char *const *command, struct child *c, struct sfdo_error *err)
{
  int go[2], ex[2];
  if (pipe2 (go, O_CLOEXEC) || pipe2 (ex, O_CLOEXEC))
    return sfdo_error_sys (err, command[0], "cannot make a pipe to run");
  c->pid = fork ();
  if (c->pid < 0)
    return sfdo_error_sys (err, command[0], "cannot fork to run");
  if (c->pid == 0)
    {
      char byte;
      close (go[1]);
      close (ex[0]);
      signal (SIGINT, SIG_DFL);
      signal (SIGTERM, SIG_DFL);
      if (read (go[0], &byte, 1) != 1)
        _exit (SFDO_REC_EXIT_NO_EXEC);   /* the recorder gave up */
      execvp (command[0], command);
      int e = errno;
      if (write (ex[1], &e, sizeof e) < 0)
        _exit (SFDO_REC_EXIT_NO_EXEC);
      _exit (SFDO_REC_EXIT_NO_EXEC);
    }
  close (go[0]);
  close (ex[1]);
  c->go_fd = go[1];
  c->exec_fd = ex[0];
  return SFDO_OK;
}

/* Let the child exec; 0 when it did, else exec's errno.  */
static int
release_child (struct child *c)
{
  int exec_errno = 0, write_errno = 0;
  if (write (c->go_fd, "", 1) != 1)
    write_errno = errno;
  close (c->go_fd);
  c->go_fd = -1;
  ssize_t got = read (c->exec_fd, &exec_errno, sizeof exec_errno);
  close (c->exec_fd);
  return got == (ssize_t) sizeof exec_errno ? exec_errno : write_errno;
}

static void
reap_child (struct child *c, int hang)
{
  if (c->pid <= 0 || c->exited)
    return;
  int status;
  pid_t r = waitpid (c->pid, &status, hang ? 0 : WNOHANG);
  if (r == c->pid)
    {
      c->exited = 1;
      c->status = WIFEXITED (status) ? WEXITSTATUS (status)
                  : 128 + WTERMSIG (status);
    }
}

/* On SIGINT/SIGTERM: pass the signal on to the command, give it a moment
   to end.  */
static void
stop_child (struct child *c, int sig)
{
  if (c->pid <= 0 || c->exited)
    return;
  kill (c->pid, sig);
  for (int ms = 0; ms < CHILD_GRACE_MS && !c->exited; ms += 10)
    {
      usleep (10000);
      reap_child (c, 0);
    }
  if (!c->exited)
    c->status = 128 + sig;
}

/* --- targets ------------------------------------------------------------- */

/* Whether process PID still runs (a zombie does not).  */
static int
process_alive (pid_t pid)
{
  char path[64], buf[512];
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = 0;
  const char *paren = strrchr (buf, ')');
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* The threads of every -p process.  */
static enum sfdo_errc
pid_threads (const struct sfdo_rec_options *o, pid_t **tids, size_t *n,
             struct sfdo_error *err)
{
  size_t cap = 0;
  *tids = NULL;
  *n = 0;
  for (size_t i = 0; i < o->npids; i++)
    {
      size_t k;
      pid_t *t = sfdo_rec_threads (o->pids[i], &k);
      if (!t || !k)
        {
          free (t);
          char name[32];
          snprintf (name, sizeof name, "-p %d", (int) o->pids[i]);
          return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0,
                                 0, "no such process");
        }
      sfdo_xgrow (tids, &cap, *n + k, sizeof **tids);
      memcpy (*tids + *n, t, k * sizeof *t);
      *n += k;
      free (t);
    }
  return SFDO_OK;
}

/* COMM and MMAP2 records for what already runs: the -p processes, or
   every process with -a.  */
static enum sfdo_errc
synthesize (const struct sfdo_rec_options *o, struct sfdo_perfdata_writer *w,
            uint64_t id, struct sfdo_error *err)
{
  size_t n = o->npids;
  pid_t *all = o->all_cpus ? sfdo_rec_all_pids (&n) : NULL;
  const pid_t *pids = all ? all : o->pids;
  enum sfdo_errc rc = SFDO_OK;
  for (size_t i = 0; !rc && i < n; i++)
    rc = sfdo_rec_synth_process (w, pids[i], id, err);
  free (all);
  return rc ? rc : sfdo_perfdata_write_finished_round (w, err);
}

/* --- the session ----------------------------------------------------------- */

struct session {
  const struct sfdo_rec_options *o;
  struct event_set set;
  struct sfdo_rec_choice choice;   /* the default set, when no -e */
  struct child child;
  pid_t *tids;
  size_t ntids;
  struct sfdo_rec_sampler *s;
  struct sfdo_perfdata_writer *w;
};

/* The events and their attrs in the file, the machine's description.  */
static enum sfdo_errc
describe (struct session *ss, struct sfdo_error *err)
{
  enum sfdo_errc rc = SFDO_OK;
  for (size_t i = 0; !rc && i < ss->set.n; i++)
    {
      size_t nids;
      const uint64_t *ids = sfdo_rec_sampler_ids (ss->s, i, &nids);
      rc = sfdo_perfdata_writer_add_attr (ss->w, &ss->set.attrs[i],
                                          sizeof ss->set.attrs[i],
                                          ss->set.names[i], ids, nids, err);
    }
  struct sfdo_perfdata_host host;
  sfdo_rec_host_info (&host, ss->o->argc, ss->o->argv);
  sfdo_perfdata_writer_set_host (ss->w, &host);
  return rc;
}

/* Stack copies for sfdo-convert's unwinder, on every event of SET: of the
   size --call-graph gave, or by default where no event records branch
   stacks (LBR gives the calls better).  */
static void
add_stack_copies (struct event_set *set, const struct sfdo_rec_options *o)
{
  uint32_t size = o->stack_size;
  for (size_t i = 0; !o->call_graph_given && i < set->n; i++)
    if (set->attrs[i].sample_type & PERF_SAMPLE_BRANCH_STACK)
      return;
  if (!o->call_graph_given)
    size = SFDO_REC_STACK_DEFAULT;
  for (size_t i = 0; size && i < set->n; i++)
    {
      struct perf_event_attr *a = &set->attrs[i];
      a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      a->sample_regs_user = SFDO_REC_REGS_MASK;
      a->sample_stack_user = size;
    }
}

/* Open the events on TARGET.  The default set falls back, saying so,
   when the PMU refuses it: first without precise sampling, then to
   cpu-clock (not with -b).  Events given with -e do not.  */
static enum sfdo_errc
open_sampler (struct session *ss, const struct sfdo_rec_target *target,
              struct sfdo_error *err)
{
  const struct sfdo_rec_options *o = ss->o;
  for (;;)
    {
      struct sfdo_error why;
      sfdo_error_clear (&why);
      add_stack_copies (&ss->set, o);
      enum sfdo_errc rc = sfdo_rec_sampler_open (ss->set.attrs,
                                                 ss->set.name_ptrs, ss->set.n,
                                                 target, o->mmap_pages,
                                                 o->jitter, &ss->s, &why);
      if (!rc || o->events || !sfdo_rec_fall_back (&ss->choice,
                                                   o->branch_stack))
        {
          if (rc && err && !err->code)
            *err = why;
          return rc;
        }
      char buf[768];
      note (o, "%s; %s", sfdo_error_format (&why, buf, sizeof buf),
            ss->choice.why);
      rc = chosen_events (&ss->set, o, &ss->choice, err);
      if (rc)
        return rc;
    }
}

/* Everything up to the first sample: events, target, output, buffers.  */
static enum sfdo_errc
start (struct session *ss, struct sfdo_error *err)
{
  const struct sfdo_rec_options *o = ss->o;
  enum sfdo_errc rc = o->events ? given_events (&ss->set, o, err)
                                : default_events (&ss->set, &ss->choice, o,
                                                  err);
  if (!rc && o->npids)
    rc = pid_threads (o, &ss->tids, &ss->ntids, err);
  if (!rc && o->command)
    {
      rc = start_child (o->command, &ss->child, err);
      ss->tids = sfdo_xmalloc (sizeof *ss->tids);
      ss->tids[0] = ss->child.pid;
      ss->ntids = !rc;
    }
  if (!rc)
    rc = sfdo_perfdata_writer_open (o->output, &ss->w, err);
  struct sfdo_rec_target target = { ss->tids, ss->ntids, o->all_cpus };
  if (!rc)
    rc = open_sampler (ss, &target, err);
  if (!rc && ss->set.n
      && (ss->set.attrs[0].sample_type & PERF_SAMPLE_STACK_USER)
      && !o->call_graph_given)
    note (o, "no branch stacks: each sample copies %u bytes of user stack, "
          "for the callers sfdo-convert unwinds (--call-graph none: not)",
          (unsigned) ss->set.attrs[0].sample_stack_user);
  if (!rc)
    rc = describe (ss, err);
  if (!rc && (o->npids || o->all_cpus))
    {
      size_t nids;
      const uint64_t *ids = sfdo_rec_sampler_ids (ss->s, 0, &nids);
      rc = synthesize (o, ss->w, nids ? ids[0] : 0, err);
    }
  return rc;
}

/* Whether the target has ended: the command, or every -p process.  */
static int
target_ended (struct session *ss)
{
  if (ss->o->command)
    {
      reap_child (&ss->child, 0);
      return ss->child.exited;
    }
  for (size_t i = 0; i < ss->o->npids; i++)
    if (process_alive (ss->o->pids[i]))
      return 0;
  return ss->o->npids > 0;
}

static enum sfdo_errc
sample_until_done (struct session *ss, struct sfdo_error *err)
{
  double end = ss->o->duration > 0 ? now_seconds () + ss->o->duration : 0;
  enum sfdo_errc rc = SFDO_OK;
  while (!rc && !stop_signal && !target_ended (ss)
         && !(end && now_seconds () >= end))
    {
      sfdo_rec_sampler_wait (ss->s, POLL_MS);
      rc = sfdo_rec_sampler_drain (ss->s, ss->w, err);
    }
  /* Counting that goes on a moment longer spoils nothing: a note.  */
  struct sfdo_error why;
  sfdo_error_clear (&why);
  if (sfdo_rec_sampler_disable (ss->s, &why) != SFDO_OK)
    {
      char buf[512];
      note (ss->o, "%s", sfdo_error_format (&why, buf, sizeof buf));
    }
  if (!rc)
    rc = sfdo_rec_sampler_drain (ss->s, ss->w, err);
  int e = sfdo_rec_sampler_stats (ss->s)->jitter_errno;
  if (e)
    note (ss->o, "the kernel refused a new period (%s): the period stayed "
          "fixed from then on", strerror (e));
  return rc;
}

static void
cleanup (struct session *ss)
{
  sfdo_perfdata_writer_abort (ss->w);
  sfdo_rec_sampler_close (ss->s);
  if (ss->child.pid > 0 && ss->child.go_fd >= 0)
    {
      close (ss->child.go_fd);          /* the child exits unexec'd */
      reap_child (&ss->child, 1);
    }
  free (ss->tids);
}

/* The command could not be run: exec's errno E, as a shell says it.  */
static int
cannot_run (const struct sfdo_rec_options *o, int e, struct sfdo_error *err)
{
  sfdo_error_set (err, SFDO_E_USAGE, o->command[0], SFDO_NO_OFFSET, 0, 0,
                  "cannot run: %s%s", strerror (e),
                  e == ENOENT ? " (not found)" : "");
  return e == ENOENT ? SFDO_REC_EXIT_NO_EXEC : SFDO_REC_EXIT_NO_RUN;
}

int
sfdo_rec_run (const struct sfdo_rec_options *o, struct sfdo_rec_result *res)
{
  struct session ss;
  memset (&ss, 0, sizeof ss);
  memset (res, 0, sizeof *res);
  sfdo_error_clear (&res->err);
  ss.o = o;
  ss.child.go_fd = -1;
  stop_signal = 0;
  install_handlers ();
  enum sfdo_errc rc = start (&ss, &res->err);
  if (rc)
    {
      cleanup (&ss);
      return res->status = SFDO_REC_EXIT_FAILED;
    }
  if (!o->command || o->all_cpus)
    rc = sfdo_rec_sampler_enable (ss.s, &res->err);
  int exec_errno = o->command && !rc ? release_child (&ss.child) : 0;
  if (rc || exec_errno)
    {
      int status = rc ? SFDO_REC_EXIT_FAILED
                      : cannot_run (o, exec_errno, &res->err);
      reap_child (&ss.child, 1);
      cleanup (&ss);
      return res->status = status;
    }
  rc = sample_until_done (&ss, &res->err);
  if (stop_signal)
    stop_child (&ss.child, stop_signal);
  const struct sfdo_rec_stats *st = sfdo_rec_sampler_stats (ss.s);
  res->samples = st->samples;
  res->lost = st->lost;
  res->bytes = sfdo_perfdata_writer_data_size (ss.w);
  res->stop_signal = stop_signal;
  if (ss.set.n && !ss.set.attrs[0].freq)
    res->period = st->samples && st->period_sum
                  ? st->period_sum / st->samples
                  : ss.set.attrs[0].sample_period;
  res->branch_stack = ss.set.n && (ss.set.attrs[0].sample_type
                                   & PERF_SAMPLE_BRANCH_STACK);
  res->timer = ss.set.n && ss.set.attrs[0].type == PERF_TYPE_SOFTWARE;
  res->build_ids
    = rc ? 0 : sfdo_rec_add_build_ids (ss.w, ss.set.n && (ss.set.attrs[0].sample_type
                                                     & PERF_SAMPLE_STACK_USER));
  struct sfdo_perfdata_writer *w = ss.w;
  ss.w = NULL;
  if (!rc)
    rc = sfdo_perfdata_writer_finish (w, &res->err);
  else
    sfdo_perfdata_writer_abort (w);
  res->written = rc == SFDO_OK;
  reap_child (&ss.child, !stop_signal);
  int status = o->command ? ss.child.status : 0;
  cleanup (&ss);
  return res->status = rc ? SFDO_REC_EXIT_FAILED : status;
}
