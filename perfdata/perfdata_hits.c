/* perfdata/perfdata_hits.c - which mapped files the samples written fell
 * in (perfdata_write.h: sfdo_perfdata_writer_count_samples).
 *
 * While records are written, mappings (MMAP, MMAP2), fork parents (FORK)
 * and the distinct (pid, page) of user-space samples are kept; counting
 * resolves each page through its process's mappings, or its parent's for
 * a forked process that mapped nothing itself.  Times are not kept: an
 * address a process mapped twice to different files counts for one of
 * them, which is good enough to choose the build-ids to write.  */
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "perfdata_write_int.h"

#define PAGE_SHIFT 12
#define MAX_FORK_DEPTH 64
#define MISC_USER 2
#define MISC_GUEST_USER 5

void
sfdo_perfdata_hits_free (struct w_hits *h)
{
  free (h->maps);
  sfdo_u64map_release (&h->parents);
  sfdo_pairmap_release (&h->pages);
  memset (h, 0, sizeof *h);
}

static uint64_t
u64_at (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

/* The attr of the sample REC (LEN bytes): by its identifier when the
   first attr's samples start with one, else the first attr.  */
static const struct w_attr *
sample_attr (const struct sfdo_perfdata_writer *w, const uint8_t *rec,
             size_t len)
{
  if (!w->nattrs)
    return NULL;
  if (!(w->attrs[0].sample_type & SFDO_PERFDATA_S_IDENTIFIER) || len < 16)
    return &w->attrs[0];
  uint64_t id = u64_at (rec + 8);
  for (size_t i = 0; i < w->nattrs; i++)
    for (size_t k = 0; k < w->attrs[i].nids; k++)
      if (w->attrs[i].ids[k] == id)
        return &w->attrs[i];
  return NULL;
}

static void
note_sample (struct sfdo_perfdata_writer *w, const uint8_t *rec, size_t len)
{
  uint16_t misc;
  memcpy (&misc, rec + 4, 2);
  unsigned mode = misc & SFDO_PERFDATA_MISC_CPUMODE_MASK;
  const struct w_attr *a = sample_attr (w, rec, len);
  if (!a || (mode != MISC_USER && mode != MISC_GUEST_USER)
      || (a->sample_type & (SFDO_PERFDATA_S_IP | SFDO_PERFDATA_S_TID))
         != (SFDO_PERFDATA_S_IP | SFDO_PERFDATA_S_TID))
    return;
  size_t at = 8 + ((a->sample_type & SFDO_PERFDATA_S_IDENTIFIER) ? 8 : 0);
  if (len < at + 16)
    return;
  uint64_t ip = u64_at (rec + at);
  uint32_t pid;
  memcpy (&pid, rec + at + 8, 4);
  struct sfdo_pairval *v = sfdo_pairmap_get (&w->hits.pages, pid,
                                             ip >> PAGE_SHIFT);
  v->count++;
}

void
sfdo_perfdata_hits_note (struct sfdo_perfdata_writer *w, const uint8_t *rec,
                         size_t len, uint32_t type, size_t file)
{
  struct w_hits *h = &w->hits;
  if (type == SFDO_PERFDATA_SAMPLE)
    note_sample (w, rec, len);
  else if (type == SFDO_PERFDATA_FORK && len >= 16)
    {
      uint32_t pid, ppid;
      memcpy (&pid, rec + 8, 4);
      memcpy (&ppid, rec + 12, 4);
      if (pid != ppid)
        *sfdo_u64map_get (&h->parents, pid) = ppid;
    }
  else if ((type == SFDO_PERFDATA_MMAP || type == SFDO_PERFDATA_MMAP2)
           && len >= 40)
    {
      uint32_t pid;
      memcpy (&pid, rec + 8, 4);
      uint64_t start = u64_at (rec + 16), size = u64_at (rec + 24);
      if (start + size < start)
        return;
      sfdo_xgrow (&h->maps, &h->cap_maps, h->nmaps + 1, sizeof *h->maps);
      h->maps[h->nmaps++] = (struct w_mapping) { pid, start, start + size,
                                                 file };
    }
}

static int
mapping_cmp (const void *x, const void *y)
{
  const struct w_mapping *a = x, *b = y;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* The mapping of ADDR in PID's mappings (sorted), or NULL; *ANY says
   whether PID has mappings at all.  */
static const struct w_mapping *
find_mapping (const struct w_hits *h, uint32_t pid, uint64_t addr, int *any)
{
  size_t lo = 0, hi = h->nmaps;
  while (lo < hi)   /* the first mapping of PID starting after ADDR */
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct w_mapping *m = &h->maps[mid];
      if (m->pid < pid || (m->pid == pid && m->start <= addr))
        lo = mid + 1;
      else
        hi = mid;
    }
  *any = (lo > 0 && h->maps[lo - 1].pid == pid)
         || (lo < h->nmaps && h->maps[lo].pid == pid);
  /* Mappings may overlap (a later one over an earlier): look back.  */
  for (size_t i = lo; i-- > 0 && h->maps[i].pid == pid;)
    if (addr >= h->maps[i].start && addr < h->maps[i].end)
      return &h->maps[i];
  return NULL;
}

uint64_t
sfdo_perfdata_writer_count_samples (struct sfdo_perfdata_writer *w)
{
  struct w_hits *h = &w->hits;
  uint64_t counted = 0;
  qsort (h->maps, h->nmaps, sizeof *h->maps, mapping_cmp);
  for (size_t i = 0; i < w->nmapped; i++)
    w->mapped[i].samples = 0;
  for (size_t i = 0; i < h->pages.cap; i++)
    {
      if (h->pages.a[i] == UINT64_MAX)
        continue;
      uint32_t pid = (uint32_t) h->pages.a[i];
      uint64_t addr = h->pages.b[i] << PAGE_SHIFT;
      const struct w_mapping *m = NULL;
      for (int depth = 0; !m && depth < MAX_FORK_DEPTH; depth++)
        {
          int any;
          m = find_mapping (h, pid, addr, &any);
          uint64_t *parent = any ? NULL : sfdo_u64map_find (&h->parents, pid);
          if (m || !parent)
            break;
          pid = (uint32_t) *parent;
        }
      if (m)
        {
          w->mapped[m->file].samples += h->pages.vals[i].count;
          counted += h->pages.vals[i].count;
        }
    }
  return counted;
}
