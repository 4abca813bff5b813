/* recorder/emu_perf.c - merging the emulated PMU's streams into a
 * perf.data (emu_perf.h).  */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "../perfdata/perfdata_write.h"
#include "emu_perf.h"
#include "emu_raw.h"
#include "procsynth.h"
#include "sampler.h"

#define MISC_USER 2             /* PERF_RECORD_MISC_USER */
#define ROUND_RECORDS 4096      /* records between FINISHED_ROUNDs */

struct stream {
  struct sfdo_emu_raw *raw;
  struct sfdo_emu_record rec;   /* the next record, when HAVE */
  int have;
  int exited;                   /* an EXIT record was seen */
  struct sfdo_pairmap counts;   /* (tid, 0) -> instructions, taken */
};

struct merge {
  struct stream *s;
  size_t n;
  struct sfdo_perfdata_writer *w;   /* NULL: counting only */
  int attr_of[SFDO_EMU_NEVENTS];    /* each event's attr, -1: none */
  size_t nattrs;
  struct sfdo_emu_totals *t;
  struct sfdo_u64map threads;   /* pid << 32 | tid */
  struct sfdo_u64map pids;
  size_t since_round;
};

/* --- the streams ------------------------------------------------------- */

static int
by_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The paths of DIR's *.raw files, sorted, *N of them, into *PATHS.  */
static enum sfdo_errc
list_streams (const char *dir, char ***paths, size_t *n,
              struct sfdo_error *err)
{
  *paths = NULL;
  *n = 0;
  DIR *d = opendir (dir);
  if (!d)
    return sfdo_error_sys (err, dir, "cannot read the emulator's directory");
  size_t cap = 0;
  for (struct dirent *e; (e = readdir (d));)
    {
      size_t len = strlen (e->d_name);
      if (len < 5 || strcmp (e->d_name + len - 4, ".raw") != 0)
        continue;
      sfdo_xgrow (paths, &cap, *n + 1, sizeof **paths);
      size_t size = strlen (dir) + len + 2;
      char *path = sfdo_xmalloc (size);
      snprintf (path, size, "%s/%s", dir, e->d_name);
      (*paths)[(*n)++] = path;
    }
  closedir (d);
  if (!*n)
    return sfdo_error_set (err, SFDO_E_IO, dir, SFDO_NO_OFFSET, 0, 0,
                           "the emulator wrote nothing (did Valgrind run"
                           " sfdoemu? see its messages above)");
  qsort (*paths, *n, sizeof **paths, by_name);
  return SFDO_OK;
}

/* Read S's next record; a stream cut short ends there, noted once.  */
static void
advance (struct merge *m, struct stream *s)
{
  struct sfdo_error why;
  sfdo_error_clear (&why);
  int r = sfdo_emu_raw_next (s->raw, &s->rec, &why);
  s->have = r > 0;
  if (r < 0 && !m->t->problem.code)
    m->t->problem = why;
}

/* --- records into the perf.data ---------------------------------------- */

/* The sample id of attr I (with several attrs, samples carry it).  */
#define ATTR_ID(i) ((uint64_t) (i) + 1)

/* The sample_id_all trailer of a record that is not a sample.  */
static struct sfdo_perfdata_sample_id
sample_id (uint32_t pid, uint32_t tid, uint64_t time)
{
  struct sfdo_perfdata_sample_id id;
  memset (&id, 0, sizeof id);
  id.fields = SFDO_PERFDATA_S_TID | SFDO_PERFDATA_S_TIME;
  id.pid = pid;
  id.tid = tid;
  id.time = time;
  id.id = ATTR_ID (0);
  return id;
}

static enum sfdo_errc
write_sample (struct merge *m, const struct sfdo_emu_record *rec,
              struct sfdo_error *err)
{
  const struct sfdo_emu_sample *e = (const void *) rec->raw;
  struct sfdo_perfdata_branch br[SFDO_EMU_LBR_ENTRIES];
  for (uint32_t i = 0; i < e->nr_branches; i++)
    br[i] = (struct sfdo_perfdata_branch) { rec->branches[2 * i],
                                            rec->branches[2 * i + 1], 0 };
  int attr = m->attr_of[e->event];
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.id = ATTR_ID (attr);
  s.ip = e->ip;
  s.pid = e->pid;
  s.tid = e->tid;
  s.time = e->time;
  s.period = e->period;
  s.branch_nr = e->nr_branches;
  s.branches = br;
  s.regs_user.abi = e->nr_regs ? PERF_SAMPLE_REGS_ABI_64
                               : PERF_SAMPLE_REGS_ABI_NONE;
  s.regs_user.nregs = e->nr_regs;
  s.regs_user.regs = rec->regs;
  return sfdo_perfdata_write_sample (m->w, (size_t) attr, MISC_USER, &s, err);
}

static enum sfdo_errc
write_other (struct merge *m, const struct sfdo_emu_record *rec,
             struct sfdo_error *err)
{
  const void *raw = rec->raw;
  if (rec->type == SFDO_EMU_COMM)
    {
      const struct sfdo_emu_comm *c = raw;
      struct sfdo_perfdata_comm pc = { c->pid, c->tid, c->comm };
      struct sfdo_perfdata_sample_id id = sample_id (c->pid, c->tid, c->time);
      return sfdo_perfdata_write_comm (m->w, MISC_USER
                                             | SFDO_PERFDATA_MISC_COMM_EXEC,
                                       &pc, &id, err);
    }
  if (rec->type == SFDO_EMU_MMAP)
    {
      const struct sfdo_emu_mmap *e = raw;
      struct sfdo_perfdata_mmap pm = { .pid = e->pid, .tid = e->tid,
        .addr = e->start, .len = e->len, .pgoff = e->pgoff, .maj = e->maj,
        .min = e->min, .ino = e->ino, .prot = e->prot, .flags = e->flags,
        .filename = rec->filename };
      struct sfdo_perfdata_sample_id id = sample_id (e->pid, e->tid, e->time);
      return sfdo_perfdata_write_mmap2 (m->w, MISC_USER, &pm, &id, err);
    }
  /* FORK, or a final EXIT.  */
  const struct sfdo_emu_fork *f = raw;
  struct sfdo_perfdata_task t = { f->pid, f->ppid, f->tid, f->ptid, f->time };
  struct sfdo_perfdata_sample_id id = sample_id (f->pid, f->tid, f->time);
  return sfdo_perfdata_write_task (m->w, rec->type == SFDO_EMU_FORK
                                         ? SFDO_PERFDATA_FORK
                                         : SFDO_PERFDATA_EXIT, &t, &id, err);
}

/* Count REC of S, and write it unless only counting.  */
static enum sfdo_errc
take (struct merge *m, struct stream *s, const struct sfdo_emu_record *rec,
      struct sfdo_error *err)
{
  int write = m->w != NULL;
  if (rec->type == SFDO_EMU_SAMPLE)
    m->t->samples++;
  else if (rec->type == SFDO_EMU_EXIT)
    {
      const struct sfdo_emu_exit *e = (const void *) rec->raw;
      struct sfdo_pairval *v = sfdo_pairmap_get (&s->counts, e->tid, 0);
      v->count = e->instructions;      /* the last one of a thread wins */
      v->weight = e->taken_branches;
      s->exited = 1;
      *sfdo_u64map_get (&m->threads, (uint64_t) e->pid << 32 | e->tid) = 1;
      write = write && !(e->flags & SFDO_EMU_EXIT_EXEC);
    }
  if (!write)
    return SFDO_OK;
  enum sfdo_errc rc = rec->type == SFDO_EMU_SAMPLE ? write_sample (m, rec, err)
                      : write_other (m, rec, err);
  if (!rc && ++m->since_round == ROUND_RECORDS)
    {
      m->since_round = 0;
      rc = sfdo_perfdata_write_finished_round (m->w, err);
    }
  return rc;
}

/* Every record of every stream, oldest first.  */
static enum sfdo_errc
merge_all (struct merge *m, struct sfdo_error *err)
{
  for (size_t i = 0; i < m->n; i++)
    advance (m, &m->s[i]);
  for (;;)
    {
      struct stream *oldest = NULL;
      for (size_t i = 0; i < m->n; i++)
        if (m->s[i].have && (!oldest || m->s[i].rec.time < oldest->rec.time))
          oldest = &m->s[i];
      if (!oldest)
        return SFDO_OK;
      enum sfdo_errc rc = take (m, oldest, &oldest->rec, err);
      if (rc)
        return rc;
      advance (m, oldest);
    }
}

/* --- the file ------------------------------------------------------------ */

/* Every stream's header must agree (one recording's options).  */
static enum sfdo_errc
same_options (const struct merge *m, struct sfdo_error *err)
{
  const struct sfdo_emu_header *h = sfdo_emu_raw_header (m->s[0].raw);
  for (size_t i = 1; i < m->n; i++)
    {
      const struct sfdo_emu_header *o = sfdo_emu_raw_header (m->s[i].raw);
      if (o->flags != h->flags || memcmp (o->period, h->period,
                                          sizeof h->period) != 0)
        return sfdo_error_set (err, SFDO_E_MALFORMED,
                               sfdo_emu_raw_path (m->s[i].raw), 0, 0, 0,
                               "recorded with other options than %s",
                               sfdo_emu_raw_path (m->s[0].raw));
    }
  return SFDO_OK;
}

/* The attr of event EV as header H recorded it; NATTRS of them.  */
static void
event_attr (struct perf_event_attr *a, const struct sfdo_emu_header *h,
            unsigned ev, size_t nattrs)
{
  memset (a, 0, sizeof *a);
  a->size = sizeof *a;
  if (ev == SFDO_EMU_EV_INSTRUCTIONS)
    a->type = PERF_TYPE_HARDWARE, a->config = PERF_COUNT_HW_INSTRUCTIONS;
  else
    a->type = PERF_TYPE_RAW, a->config = SFDO_EMU_TAKEN_BRANCHES_RAW;
  a->sample_period = h->period[ev];
  a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                   | PERF_SAMPLE_PERIOD;
  if (nattrs > 1)
    a->sample_type |= PERF_SAMPLE_IDENTIFIER;
  int lbr_here = ev == SFDO_EMU_EV_TAKEN_BRANCHES
                 || !h->period[SFDO_EMU_EV_TAKEN_BRANCHES];
  if ((h->flags & SFDO_EMU_F_LBR) && lbr_here)
    {
      a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
      a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
    }
  if (h->flags & SFDO_EMU_F_REGS)
    {
      a->sample_type |= PERF_SAMPLE_REGS_USER;
      a->sample_regs_user = SFDO_REC_REGS_MASK;
    }
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
  a->sample_id_all = 1;
}

/* One attr per sampled event, taken branches first (as the hardware
   path's default set on Intel).  */
static enum sfdo_errc
describe (struct merge *m, struct sfdo_error *err)
{
  static const char *const names[SFDO_EMU_NEVENTS] = {
    SFDO_EMU_EVENT_NAME, SFDO_EMU_BRANCH_EVENT_NAME
  };
  static const unsigned order[] = { SFDO_EMU_EV_TAKEN_BRANCHES,
                                    SFDO_EMU_EV_INSTRUCTIONS };
  const struct sfdo_emu_header *h = sfdo_emu_raw_header (m->s[0].raw);
  m->nattrs = 0;
  for (size_t k = 0; k < SFDO_EMU_NEVENTS; k++)
    {
      m->attr_of[order[k]] = h->period[order[k]] ? (int) m->nattrs : -1;
      m->nattrs += h->period[order[k]] != 0;
    }
  if (!m->nattrs)
    return sfdo_error_set (err, SFDO_E_MALFORMED, sfdo_emu_raw_path (m->s[0].raw),
                           0, 0, 0, "the emulator sampled no event");
  enum sfdo_errc rc = SFDO_OK;
  for (size_t k = 0; !rc && k < SFDO_EMU_NEVENTS; k++)
    {
      int i = m->attr_of[order[k]];
      if (i < 0)
        continue;
      struct perf_event_attr a;
      event_attr (&a, h, order[k], m->nattrs);
      uint64_t id = ATTR_ID (i);
      rc = sfdo_perfdata_writer_add_attr (m->w, &a, sizeof a,
                                          names[order[k]], &id, 1, err);
    }
  return rc;
}

/* The header features: the caller's command line, and a CPU description
   that says the PMU was emulated.  */
static void
set_host (struct merge *m, const struct sfdo_emu_convert *c)
{
  static char cpudesc[384];
  struct sfdo_perfdata_host host;
  sfdo_rec_host_info (&host, c->argc, c->argv);
  snprintf (cpudesc, sizeof cpudesc, "PMU emulated by sfdoemu (Valgrind %.15s)"
            " on %s", sfdo_emu_raw_header (m->s[0].raw)->valgrind_version,
            host.cpudesc ? host.cpudesc : "an unknown CPU");
  host.cpudesc = cpudesc;
  sfdo_perfdata_writer_set_host (m->w, &host);
}

static enum sfdo_errc
write_file (struct merge *m, const struct sfdo_emu_convert *c,
            struct sfdo_error *err)
{
  enum sfdo_errc rc = same_options (m, err);
  if (!rc)
    rc = sfdo_perfdata_writer_open (c->output, &m->w, err);
  if (!rc)
    rc = describe (m, err);
  if (!rc)
    {
      set_host (m, c);
      rc = merge_all (m, err);
    }
  if (!rc)
    rc = sfdo_perfdata_write_finished_round (m->w, err);
  if (rc)
    {
      sfdo_perfdata_writer_abort (m->w);
      return rc;
    }
  m->t->build_ids = sfdo_rec_add_build_ids (m->w, 0);
  m->t->bytes = sfdo_perfdata_writer_data_size (m->w);
  struct sfdo_perfdata_writer *w = m->w;
  m->w = NULL;
  return sfdo_perfdata_writer_finish (w, err);
}

/* The totals of every stream's threads.  */
static void
sum_counts (struct merge *m)
{
  struct sfdo_emu_totals *t = m->t;
  for (size_t i = 0; i < m->n; i++)
    {
      const struct sfdo_pairmap *c = &m->s[i].counts;
      for (size_t k = 0; k < c->cap; k++)
        if (c->a[k] != UINT64_MAX)
          {
            t->instructions += c->vals[k].count;
            t->taken_branches += c->vals[k].weight;
          }
      t->incomplete += !m->s[i].exited;
      *sfdo_u64map_get (&m->pids, sfdo_emu_raw_header (m->s[i].raw)->pid) = 1;
    }
  t->images = m->n;
  t->processes = m->pids.n;
  t->threads = m->threads.n;
}

enum sfdo_errc
sfdo_emu_convert_dir (const char *dir, const struct sfdo_emu_convert *c,
                      struct sfdo_emu_totals *totals, struct sfdo_error *err)
{
  memset (totals, 0, sizeof *totals);
  struct merge m;
  memset (&m, 0, sizeof m);
  m.t = totals;
  char **paths;
  enum sfdo_errc rc = list_streams (dir, &paths, &m.n, err);
  m.s = sfdo_xcalloc (m.n ? m.n : 1, sizeof *m.s);
  for (size_t i = 0; !rc && i < m.n; i++)
    rc = sfdo_emu_raw_open (paths[i], &m.s[i].raw, err);
  if (!rc)
    rc = c->output ? write_file (&m, c, err) : merge_all (&m, err);
  if (!rc)
    sum_counts (&m);
  for (size_t i = 0; i < m.n; i++)
    {
      sfdo_emu_raw_close (m.s[i].raw);
      sfdo_pairmap_release (&m.s[i].counts);
      free (paths[i]);
    }
  free (paths);
  free (m.s);
  sfdo_u64map_release (&m.threads);
  sfdo_u64map_release (&m.pids);
  return rc;
}
