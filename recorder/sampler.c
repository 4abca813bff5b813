/* recorder/sampler.c - perf_event_open, per-CPU ring buffers, draining
   and jitter (sampler.h).  */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "jitter.h"
#include "sampler.h"

#define WAKEUP_EVENTS 64        /* samples per wakeup: the jitter window */

/* Every sample starts IDENTIFIER, IP, TID (pid, tid), TIME, CPU, PERIOD
   (sfdo_rec_prepare_attr), after the 8-byte header.  */
enum {
  SAMPLE_ID_AT = 8,
  SAMPLE_TID_AT = 28,
  SAMPLE_PERIOD_AT = 48,
  SAMPLE_HEAD_SIZE = 56
};
#define RECORD_LOST_SAMPLES 13

struct ring {
  int fd;                       /* the descriptor the buffer is mapped on */
  uint8_t *base;                /* metadata page, then the data */
  size_t data_size;
};

struct sfdo_rec_sampler {
  size_t nattrs;
  struct perf_event_attr *attrs;
  int *fds;                     /* [cpu][task][attr], -1 when not open */
  size_t nfds;
  uint64_t **ids;               /* per attr */
  size_t *nids;
  struct ring *rings;           /* one per CPU */
  size_t nrings;
  struct pollfd *pfds;
  size_t page;
  int jitter;
  struct sfdo_u64map timer_ids; /* sample id of a software timer's event
                                   -> its attr */
  struct sfdo_u64map direct;    /* the tasks the events were opened on
                                   (empty with -a: every task's) */
  uint64_t *period_now;         /* per attr: the period last set, which a
                                   software timer's samples do not report
                                   (0: none set, or not a timer) */
  uint64_t rng;
  uint8_t *tmp;                 /* a record that wraps around the buffer */
  struct sfdo_rec_stats stats;
};

void
sfdo_rec_prepare_attr (struct perf_event_attr *a,
                       const struct sfdo_rec_sampling *how, uint64_t period)
{
  a->size = sizeof *a;
  a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID
                   | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  if (how->callchain)
    a->sample_type |= PERF_SAMPLE_CALLCHAIN;
  if (how->branch_stack)
    {
      a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
      a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
    }
  if (how->regs && a->precise_ip)
    a->sample_type |= PERF_SAMPLE_REGS_INTR, a->sample_regs_intr
      = SFDO_REC_REGS_MASK;
  else if (how->regs)
    a->sample_type |= PERF_SAMPLE_REGS_USER, a->sample_regs_user
      = SFDO_REC_REGS_MASK;
  a->read_format = PERF_FORMAT_ID;
  a->freq = how->freq != 0;
  a->sample_period = how->freq ? how->freq
                     : how->period ? how->period : period;
  a->disabled = 1;
  a->inherit = how->inherit != 0;
  a->enable_on_exec = how->enable_on_exec != 0;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  a->exclude_callchain_kernel = 1;
  a->mmap = 1;                  /* executable mappings, */
  a->mmap2 = 1;                 /* as MMAP2 records */
  a->comm = 1;
  a->comm_exec = 1;
  a->task = 1;
  a->sample_id_all = 1;
  a->wakeup_events = WAKEUP_EVENTS;
}

uint64_t
sfdo_rec_jitter (uint64_t base, uint64_t *state)
{
  return sfdo_jitter_next (base, state);
}

/* The online CPUs, from /sys (a list such as "0-3,6").  */
static int *
online_cpus (size_t *n)
{
  int *cpus = NULL;
  size_t cap = 0;
  *n = 0;
  FILE *f = fopen ("/sys/devices/system/cpu/online", "r");
  int lo, hi;
  char sep;
  while (f && fscanf (f, "%d", &lo) == 1)
    {
      hi = lo;
      if (fscanf (f, "%c", &sep) == 1 && sep == '-')
        {
          if (fscanf (f, "%d", &hi) != 1)
            break;
          if (fscanf (f, "%c", &sep) != 1)
            sep = '\n';
        }
      for (int c = lo; c <= hi; c++)
        {
          sfdo_xgrow (&cpus, &cap, *n + 1, sizeof *cpus);
          cpus[(*n)++] = c;
        }
      if (sep != ',')
        break;
    }
  if (f)
    fclose (f);
  if (!*n)
    {
      long nc = sysconf (_SC_NPROCESSORS_ONLN);
      for (long c = 0; c < (nc > 0 ? nc : 1); c++)
        {
          sfdo_xgrow (&cpus, &cap, *n + 1, sizeof *cpus);
          cpus[(*n)++] = (int) c;
        }
    }
  return cpus;
}

static int
paranoid_level (void)
{
  FILE *f = fopen ("/proc/sys/kernel/perf_event_paranoid", "r");
  int v = 2;
  if (f)
    {
      if (fscanf (f, "%d", &v) != 1)
        v = 2;
      fclose (f);
    }
  return v;
}

/* Why perf_event_open of NAME failed with ERRNO_, and what to change.  */
static enum sfdo_errc
open_failure (const char *name, const struct perf_event_attr *a, pid_t tid,
              int cpu, int errno_, struct sfdo_error *err)
{
  char where[64];
  if (tid > 0)
    snprintf (where, sizeof where, "task %d on CPU %d", (int) tid, cpu);
  else
    snprintf (where, sizeof where, "every task on CPU %d", cpu);
  const char *hint = "";
  char buf[256];
  if (errno_ == EACCES || errno_ == EPERM)
    {
      int paranoid = paranoid_level ();
      if (tid <= 0 && paranoid > 0)
        snprintf (buf, sizeof buf, "kernel.perf_event_paranoid is %d and -a"
                  " needs 0 or less ('sysctl kernel.perf_event_paranoid=0'),"
                  " or root or CAP_PERFMON", paranoid);
      else if (paranoid > 2)
        snprintf (buf, sizeof buf, "kernel.perf_event_paranoid is %d; 2"
                  " lets users sample their own processes in user space"
                  " ('sysctl kernel.perf_event_paranoid=2')", paranoid);
      else
        snprintf (buf, sizeof buf, "sampling another user's process needs"
                  " root or CAP_PERFMON (and the right to ptrace it)");
      hint = buf;
    }
  else if (errno_ == ENOENT || errno_ == EOPNOTSUPP || errno_ == ENODEV)
    hint = a->branch_sample_type ? "this PMU cannot sample branch stacks"
           : "this PMU does not have this event (a VM without a virtual"
             " PMU? sfdo-record --list-events shows what it has)";
  else if (errno_ == EINVAL && a->precise_ip)
    hint = "the PMU refused its precise level (try the event without :p)";
  else if (errno_ == ESRCH)
    hint = "the process is gone";
  else if (errno_ == EMFILE)
    hint = "too many open files: raise 'ulimit -n'";
  return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                         "cannot sample %s: %s%s%s", where, strerror (errno_),
                         *hint ? "; " : "", hint);
}

static enum sfdo_errc
map_ring (struct sfdo_rec_sampler *s, int fd, unsigned pages,
          struct sfdo_error *err)
{
  struct ring *r = &s->rings[s->nrings];
  size_t len = (pages + 1) * s->page;
  void *p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return sfdo_error_set (err, SFDO_E_IO, "perf ring buffer",
                           SFDO_NO_OFFSET, 0, 0,
                           "cannot map %zu KiB: %s (lower -m, or raise"
                           " kernel.perf_event_mlock_kb)", len / 1024,
                           strerror (errno));
  r->fd = fd;
  r->base = p;
  r->data_size = pages * s->page;
  s->pfds[s->nrings] = (struct pollfd) { fd, POLLIN, 0 };
  s->nrings++;
  return SFDO_OK;
}

/* Open every event for TID (-1: all) on CPU into FDS; the first goes
   into a new ring buffer, the others write into it.  */
static enum sfdo_errc
open_on_cpu (struct sfdo_rec_sampler *s, const char *const *names, pid_t tid,
             int cpu, unsigned pages, int *ring_fd, struct sfdo_error *err)
{
  for (size_t i = 0; i < s->nattrs; i++)
    {
      int fd = (int) syscall (SYS_perf_event_open, &s->attrs[i], tid, cpu, -1,
                              PERF_FLAG_FD_CLOEXEC);
      if (fd < 0 && errno == ESRCH && tid > 0 && i == 0)
        return SFDO_OK;         /* a thread of -p that has just exited */
      if (fd < 0)
        return open_failure (names[i], &s->attrs[i], tid, cpu, errno, err);
      s->fds[s->nfds++] = fd;
      uint64_t id = 0;
      if (ioctl (fd, PERF_EVENT_IOC_ID, &id) != 0)
        return sfdo_error_sys (err, names[i], "cannot read the sample id of");
      s->ids[i][s->nids[i]++] = id;
      if (s->attrs[i].type == PERF_TYPE_SOFTWARE)
        *sfdo_u64map_get (&s->timer_ids, id) = i;
      enum sfdo_errc rc = SFDO_OK;
      if (*ring_fd < 0)
        {
          rc = map_ring (s, fd, pages, err);
          *ring_fd = fd;
        }
      else if (ioctl (fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd) != 0)
        rc = sfdo_error_sys (err, names[i], "cannot share a ring buffer for");
      if (rc)
        return rc;
    }
  return SFDO_OK;
}

enum sfdo_errc
sfdo_rec_sampler_open (const struct perf_event_attr *attrs,
                       const char *const *names, size_t nattrs,
                       const struct sfdo_rec_target *target,
                       unsigned mmap_pages, int jitter,
                       struct sfdo_rec_sampler **out, struct sfdo_error *err)
{
  size_t ncpus, ntasks = target->all ? 1 : target->ntids;
  int *cpus = online_cpus (&ncpus);
  struct sfdo_rec_sampler *s = sfdo_xcalloc (1, sizeof *s);
  s->nattrs = nattrs;
  s->attrs = sfdo_xmalloc (nattrs * sizeof *s->attrs);
  memcpy (s->attrs, attrs, nattrs * sizeof *attrs);
  s->fds = sfdo_xmalloc ((ncpus * ntasks * nattrs + 1) * sizeof *s->fds);
  s->ids = sfdo_xcalloc (nattrs, sizeof *s->ids);
  s->nids = sfdo_xcalloc (nattrs, sizeof *s->nids);
  for (size_t i = 0; i < nattrs; i++)
    s->ids[i] = sfdo_xmalloc ((ncpus * ntasks + 1) * sizeof **s->ids);
  s->rings = sfdo_xcalloc (ncpus, sizeof *s->rings);
  s->pfds = sfdo_xcalloc (ncpus, sizeof *s->pfds);
  s->page = (size_t) sysconf (_SC_PAGESIZE);
  s->jitter = jitter;
  s->period_now = sfdo_xcalloc (nattrs, sizeof *s->period_now);
  for (size_t t = 0; !target->all && t < target->ntids; t++)
    *sfdo_u64map_get (&s->direct, (uint64_t) target->tids[t]) = 1;
  s->rng = (uint64_t) time (NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t) getpid ();
  s->rng = s->rng ? s->rng : 1;
  s->tmp = sfdo_xmalloc (1 << 16);
  enum sfdo_errc rc = SFDO_OK;
  for (size_t c = 0; !rc && c < ncpus; c++)
    {
      int ring_fd = -1;
      for (size_t t = 0; !rc && t < ntasks; t++)
        rc = open_on_cpu (s, names, target->all ? -1 : target->tids[t],
                          cpus[c], mmap_pages, &ring_fd, err);
    }
  free (cpus);
  if (rc)
    {
      sfdo_rec_sampler_close (s);
      s = NULL;
    }
  *out = s;
  return rc;
}

const uint64_t *
sfdo_rec_sampler_ids (const struct sfdo_rec_sampler *s, size_t i, size_t *n)
{
  *n = s->nids[i];
  return s->ids[i];
}

/* Issue REQUEST on every descriptor; WHAT names it in an error.  */
static enum sfdo_errc
ioctl_all (struct sfdo_rec_sampler *s, unsigned long request,
           const char *what, struct sfdo_error *err)
{
  for (size_t i = 0; i < s->nfds; i++)
    if (ioctl (s->fds[i], request, 0) != 0)
      {
        char name[64];
        snprintf (name, sizeof name, "event %zu", i % s->nattrs);
        return sfdo_error_sys (err, name, what);
      }
  return SFDO_OK;
}

enum sfdo_errc
sfdo_rec_sampler_enable (struct sfdo_rec_sampler *s, struct sfdo_error *err)
{
  return ioctl_all (s, PERF_EVENT_IOC_ENABLE, "cannot start counting", err);
}

enum sfdo_errc
sfdo_rec_sampler_disable (struct sfdo_rec_sampler *s, struct sfdo_error *err)
{
  return ioctl_all (s, PERF_EVENT_IOC_DISABLE, "cannot stop counting", err);
}

void
sfdo_rec_sampler_wait (struct sfdo_rec_sampler *s, int timeout_ms)
{
  poll (s->pfds, s->nrings, timeout_ms);
}

static void
count_record (struct sfdo_rec_sampler *s, const uint8_t *rec, uint16_t size)
{
  uint32_t type;
  uint64_t n = 0;
  memcpy (&type, rec, 4);
  s->stats.records++;
  s->stats.bytes += size;
  if (type == PERF_RECORD_SAMPLE && size >= SAMPLE_HEAD_SIZE)
    {
      uint64_t period;
      memcpy (&period, rec + SAMPLE_PERIOD_AT, 8);
      s->stats.samples++;
      s->stats.period_sum += period;
    }
  else if (type == PERF_RECORD_SAMPLE)
    s->stats.samples++;
  else if (type == PERF_RECORD_LOST && size >= 24)
    memcpy (&n, rec + 16, 8), s->stats.lost += n;
  else if (type == RECORD_LOST_SAMPLES && size >= 16)
    memcpy (&n, rec + 8, 8), s->stats.lost += n;
  else if (type == PERF_RECORD_THROTTLE)
    s->stats.throttles++;
}

/* REC, or a copy of it with the period the sampler last set, where its
   event is a software timer the sampler opened: the kernel reports such
   a timer's first period in every sample, whatever PERF_EVENT_IOC_PERIOD
   set since (the hrtimer keeps last_period); an inherited event, whose
   sample comes from a task the sampler did not open it on, reports the
   one in force when the child was made, which is right.  */
static const uint8_t *
with_period_in_force (struct sfdo_rec_sampler *s, const uint8_t *rec,
                      uint16_t size)
{
  uint32_t type, tid;
  uint64_t id;
  if (!s->timer_ids.n || size < SAMPLE_HEAD_SIZE)
    return rec;
  memcpy (&type, rec, 4);
  memcpy (&id, rec + SAMPLE_ID_AT, 8);
  memcpy (&tid, rec + SAMPLE_TID_AT, 4);
  const uint64_t *attr = type == PERF_RECORD_SAMPLE
                         ? sfdo_u64map_find (&s->timer_ids, id) : NULL;
  if (!attr || !s->period_now[*attr]
      || (s->direct.n && !sfdo_u64map_find (&s->direct, tid)))
    return rec;
  if (rec != s->tmp)
    memcpy (s->tmp, rec, size);
  memcpy (s->tmp + SAMPLE_PERIOD_AT, &s->period_now[*attr], 8);
  return s->tmp;
}

/* Copy ring R's records into W.  Returns how many, or -1 on an error.  */
static long
drain_ring (struct sfdo_rec_sampler *s, struct ring *r,
            struct sfdo_perfdata_writer *w, struct sfdo_error *err)
{
  struct perf_event_mmap_page *meta = (void *) r->base;
  uint8_t *data = r->base + s->page;
  uint64_t head = __atomic_load_n (&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  size_t mask = r->data_size - 1;
  long n = 0;
  while (tail + sizeof (struct perf_event_header) <= head)
    {
      size_t off = (size_t) (tail & mask);
      struct perf_event_header h;
      memcpy (&h, data + off, sizeof h);   /* 8-aligned: never wraps */
      if (h.size < sizeof h || h.size > head - tail)
        break;
      const uint8_t *rec = data + off;
      if (off + h.size > r->data_size)
        {
          size_t first = r->data_size - off;
          memcpy (s->tmp, data + off, first);
          memcpy (s->tmp + first, data, h.size - first);
          rec = s->tmp;
        }
      rec = with_period_in_force (s, rec, h.size);
      count_record (s, rec, h.size);
      if (sfdo_perfdata_write_raw (w, rec, h.size, err))
        return -1;
      tail += h.size;
      n++;
    }
  __atomic_store_n (&meta->data_tail, tail, __ATOMIC_RELEASE);
  return n;
}

/* New jittered periods, one per event for the round.  A kernel that
   refuses them keeps the ones in force (said in the stats), which is
   still a valid recording: every sample carries its period.  */
static void
rearm (struct sfdo_rec_sampler *s)
{
  for (size_t k = 0; k < s->nattrs; k++)
    {
      const struct perf_event_attr *a = &s->attrs[k];
      uint64_t period = sfdo_rec_jitter (a->sample_period, &s->rng);
      for (size_t i = k; i < s->nfds; i += s->nattrs)
        if (ioctl (s->fds[i], PERF_EVENT_IOC_PERIOD, &period) != 0)
          {
            s->stats.jitter_errno = errno;
            s->jitter = 0;
            return;
          }
      if (a->type == PERF_TYPE_SOFTWARE)
        s->period_now[k] = period;
    }
}

enum sfdo_errc
sfdo_rec_sampler_drain (struct sfdo_rec_sampler *s,
                        struct sfdo_perfdata_writer *w, struct sfdo_error *err)
{
  long total = 0;
  for (size_t i = 0; i < s->nrings; i++)
    {
      long n = drain_ring (s, &s->rings[i], w, err);
      if (n < 0)
        return err ? err->code : SFDO_E_IO;
      total += n;
    }
  if (!total)
    return SFDO_OK;
  s->stats.rounds++;
  if (s->jitter && !s->attrs[0].freq)
    rearm (s);
  return sfdo_perfdata_write_finished_round (w, err);
}

const struct sfdo_rec_stats *
sfdo_rec_sampler_stats (const struct sfdo_rec_sampler *s)
{
  return &s->stats;
}

void
sfdo_rec_sampler_close (struct sfdo_rec_sampler *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->nrings; i++)
    munmap (s->rings[i].base, s->rings[i].data_size + s->page);
  for (size_t i = 0; i < s->nfds; i++)
    close (s->fds[i]);
  for (size_t i = 0; i < s->nattrs; i++)
    free (s->ids[i]);
  free (s->ids);
  free (s->nids);
  free (s->attrs);
  free (s->fds);
  free (s->rings);
  free (s->pfds);
  free (s->tmp);
  free (s->period_now);
  sfdo_u64map_release (&s->timer_ids);
  sfdo_u64map_release (&s->direct);
  free (s);
}
