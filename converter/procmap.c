/* converter/procmap.c - per-process address maps over time (procmap.h).
 *
 * Mappings are never cut: each keeps its time, and lookups pick the
 * newest one that was in force.  Per process they are sorted by start
 * address, and the longest length bounds how far back a lookup scans.  */
#include "procmap.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

struct mapping {
  uint64_t start, end, pgoff, time;
  uint64_t seq;                 /* order of arrival: breaks ties of time */
  uint32_t file_id;
};

struct process {
  uint32_t pid;
  struct mapping *maps;       /* sorted by start */
  size_t nmaps, cap_maps;
  uint64_t max_len;
  uint64_t *execs;            /* times of its execs, any order */
  size_t nexecs, cap_execs;
};

struct sfdo_procmap {
  struct process *procs;      /* sorted by pid */
  size_t nprocs, cap_procs;
  uint64_t seq;
};

struct sfdo_procmap *
sfdo_procmap_new (void)
{
  return (struct sfdo_procmap *) sfdo_xcalloc (1, sizeof (struct sfdo_procmap));
}

void
sfdo_procmap_free (struct sfdo_procmap *pm)
{
  if (!pm)
    return;
  for (size_t i = 0; i < pm->nprocs; i++)
    {
      free (pm->procs[i].maps);
      free (pm->procs[i].execs);
    }
  free (pm->procs);
  free (pm);
}

static size_t
proc_index (const struct sfdo_procmap *pm, uint32_t pid)
{
  size_t lo = 0, hi = pm->nprocs;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (pm->procs[mid].pid < pid)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static const struct process *
find_proc (const struct sfdo_procmap *pm, uint32_t pid)
{
  size_t i = proc_index (pm, pid);
  return i < pm->nprocs && pm->procs[i].pid == pid ? &pm->procs[i] : NULL;
}

static struct process *
get_proc (struct sfdo_procmap *pm, uint32_t pid)
{
  size_t i = proc_index (pm, pid);
  if (i < pm->nprocs && pm->procs[i].pid == pid)
    return &pm->procs[i];
  sfdo_xgrow (&pm->procs, &pm->cap_procs, pm->nprocs + 1, sizeof *pm->procs);
  memmove (&pm->procs[i + 1], &pm->procs[i],
           (pm->nprocs - i) * sizeof *pm->procs);
  pm->nprocs++;
  memset (&pm->procs[i], 0, sizeof pm->procs[i]);
  pm->procs[i].pid = pid;
  return &pm->procs[i];
}

static void
add_map (struct process *p, struct mapping m)
{
  size_t at = p->nmaps;
  while (at > 0 && p->maps[at - 1].start > m.start)
    at--;
  sfdo_xgrow (&p->maps, &p->cap_maps, p->nmaps + 1, sizeof *p->maps);
  memmove (&p->maps[at + 1], &p->maps[at], (p->nmaps - at) * sizeof *p->maps);
  p->maps[at] = m;
  p->nmaps++;
  if (m.end - m.start > p->max_len)
    p->max_len = m.end - m.start;
}

void
sfdo_procmap_mmap (struct sfdo_procmap *pm, uint32_t pid, uint64_t addr,
                   uint64_t len, uint64_t pgoff, uint32_t file_id,
                   uint64_t time)
{
  if (!len || addr + len < addr)
    return;
  add_map (get_proc (pm, pid), (struct mapping) { addr, addr + len, pgoff,
                                                  time, ++pm->seq, file_id });
}

void
sfdo_procmap_exec (struct sfdo_procmap *pm, uint32_t pid, uint64_t time)
{
  struct process *p = get_proc (pm, pid);
  sfdo_xgrow (&p->execs, &p->cap_execs, p->nexecs + 1, sizeof *p->execs);
  p->execs[p->nexecs++] = time;
}

/* Whether a mapping made at MAPPED still holds at TIME in P: made no
   later, and no exec came in between.  */
static int
in_force (const struct process *p, uint64_t mapped, uint64_t time)
{
  if (mapped > time)
    return 0;
  for (size_t i = 0; i < p->nexecs; i++)
    if (p->execs[i] > mapped && p->execs[i] <= time)
      return 0;
  return 1;
}

/* The mapping of P covering IP in force at TIME (the newest), or NULL.  */
static const struct mapping *
mapping_at (const struct process *p, uint64_t ip, uint64_t time)
{
  size_t lo = 0, hi = p->nmaps;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (p->maps[mid].start <= ip)
        lo = mid + 1;
      else
        hi = mid;
    }
  const struct mapping *best = NULL;
  for (size_t i = lo; i-- > 0 && p->maps[i].start + p->max_len > ip;)
    {
      const struct mapping *m = &p->maps[i];
      if (ip < m->end && in_force (p, m->time, time)
          && (!best || m->time > best->time
              || (m->time == best->time && m->seq > best->seq)))
        best = m;
    }
  return best;
}

static int
older (const void *a, const void *b)
{
  const struct mapping *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
sfdo_procmap_fork (struct sfdo_procmap *pm, uint32_t parent, uint32_t child,
                   uint64_t time)
{
  if (parent == child)
    return;
  /* A reused pid's old maps end at the fork.  */
  sfdo_procmap_exec (pm, child, time);
  const struct process *p = find_proc (pm, parent);
  if (!p)
    return;
  /* The child starts at the fork with what was in force then, newest
     last.  */
  struct mapping *copy
    = (struct mapping *) sfdo_xmalloc ((p->nmaps + 1) * sizeof *copy);
  size_t k = 0;
  for (size_t i = 0; i < p->nmaps; i++)
    if (in_force (p, p->maps[i].time, time))
      copy[k++] = p->maps[i];
  qsort (copy, k, sizeof *copy, older);
  struct process *c = get_proc (pm, child);
  for (size_t i = 0; i < k; i++)
    {
      copy[i].time = time;
      copy[i].seq = ++pm->seq;
      add_map (c, copy[i]);
    }
  free (copy);
}

int
sfdo_procmap_lookup (const struct sfdo_procmap *pm, uint32_t pid, uint64_t ip,
                     uint64_t time, struct sfdo_procmap_hit *hit)
{
  const struct process *p = find_proc (pm, pid);
  const struct mapping *m = p ? mapping_at (p, ip, time) : NULL;
  if (!m)
    return -1;
  *hit = (struct sfdo_procmap_hit) { m->start, m->end, m->pgoff, m->file_id };
  return 0;
}

int
sfdo_procmap_resolve (const struct sfdo_procmap *pm, uint32_t pid,
                      uint64_t ip, uint64_t time, uint32_t *file_id,
                      uint64_t *offset)
{
  const struct process *p = find_proc (pm, pid);
  const struct mapping *m = p ? mapping_at (p, ip, time) : NULL;
  if (!m)
    return -1;
  *file_id = m->file_id;
  *offset = m->pgoff + (ip - m->start);
  return 0;
}
