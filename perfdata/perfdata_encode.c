/* perfdata/perfdata_encode.c - records into a perf.data: raw kernel
   records, and MMAP2, COMM, FORK, EXIT, SAMPLE and FINISHED_ROUND encoded
   with the kernel's layouts (include/uapi/linux/perf_event.h), which the
   reader (perfdata_records.c, perfdata_sample.c) decodes.

   sample_id_all trailer: TID {u32 pid, tid}, TIME, ID, STREAM_ID,
   CPU {u32 cpu, res}, IDENTIFIER, each present if in sample_type.  */
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "perfdata_write_int.h"

/* A record being built in the writer's scratch buffer.  */
struct enc {
  uint8_t *p;
  size_t len;
  int overflow;
};

static void
enc_bytes (struct enc *e, const void *d, size_t n)
{
  if (e->len + n > PD_RECORD_MAX - 8)
    {
      e->overflow = 1;
      return;
    }
  memcpy (e->p + e->len, d, n);
  e->len += n;
}

static void enc_u64 (struct enc *e, uint64_t v) { enc_bytes (e, &v, 8); }

static void
enc_u32x2 (struct enc *e, uint32_t a, uint32_t b)
{
  enc_bytes (e, &a, 4);
  enc_bytes (e, &b, 4);
}

/* A NUL-terminated string padded with NULs to a multiple of 8.  */
static void
enc_string (struct enc *e, const char *s)
{
  static const uint8_t zeros[8];
  size_t len = strlen (s) + 1;
  enc_bytes (e, s, len);
  enc_bytes (e, zeros, (8 - len % 8) % 8);
}

static struct enc
enc_start (struct sfdo_perfdata_writer *w, uint32_t type, uint16_t misc)
{
  if (!w->scratch)
    w->scratch = sfdo_xmalloc (PD_RECORD_MAX);
  struct enc e = { w->scratch, 0, 0 };
  enc_bytes (&e, &type, 4);
  enc_bytes (&e, &misc, 2);
  enc_bytes (&e, (uint16_t[1]) { 0 }, 2);
  return e;
}

static void
enc_trailer (struct sfdo_perfdata_writer *w, struct enc *e,
             const struct sfdo_perfdata_sample_id *id)
{
  static const struct sfdo_perfdata_sample_id none;
  if (!w->nattrs || !((w->attrs[0].flags >> 18) & 1))
    return;
  id = id ? id : &none;
  uint64_t t = w->attrs[0].sample_type;
  if (t & SFDO_PERFDATA_S_TID)
    enc_u32x2 (e, id->pid, id->tid);
  if (t & SFDO_PERFDATA_S_TIME)
    enc_u64 (e, id->time);
  if (t & SFDO_PERFDATA_S_ID)
    enc_u64 (e, id->id);
  if (t & SFDO_PERFDATA_S_STREAM_ID)
    enc_u64 (e, id->stream_id);
  if (t & SFDO_PERFDATA_S_CPU)
    enc_u32x2 (e, id->cpu, 0);
  if (t & SFDO_PERFDATA_S_IDENTIFIER)
    enc_u64 (e, id->id);
}

static enum sfdo_errc
enc_finish (struct sfdo_perfdata_writer *w, struct enc *e,
            struct sfdo_error *err)
{
  if (e->overflow)
    return sfdo_error_set (err, SFDO_E_RANGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "a record would be over 64 KiB");
  uint16_t size = (uint16_t) e->len;
  memcpy (e->p + 6, &size, 2);
  return sfdo_perfdata_write_raw (w, e->p, e->len, err);
}

/* --- mapped file names --------------------------------------------------- */

static size_t
name_hash (const char *s)
{
  size_t h = 14695981039346656037ull;
  for (; *s; s++)
    h = (h ^ (uint8_t) *s) * 1099511628211ull;
  return h;
}

static size_t *
mapped_slot (struct sfdo_perfdata_writer *w, const char *name)
{
  size_t mask = w->mapped_set_cap - 1, i = name_hash (name) & mask;
  while (w->mapped_set[i]
         && strcmp (w->mapped[w->mapped_set[i] - 1].filename, name))
    i = (i + 1) & mask;
  return &w->mapped_set[i];
}

/* The index of mapped file NAME (first mapped with INO), added if new.  */
static size_t
note_mapped (struct sfdo_perfdata_writer *w, const char *name, uint64_t ino)
{
  if ((w->nmapped + 1) * 2 > w->mapped_set_cap)
    {
      free (w->mapped_set);
      w->mapped_set_cap = w->mapped_set_cap ? w->mapped_set_cap * 2 : 64;
      w->mapped_set = sfdo_xcalloc (w->mapped_set_cap, sizeof (size_t));
      for (size_t i = 0; i < w->nmapped; i++)
        *mapped_slot (w, w->mapped[i].filename) = i + 1;
    }
  size_t *slot = mapped_slot (w, name);
  if (*slot)
    {
      struct sfdo_perfdata_mapped *m = &w->mapped[*slot - 1];
      m->ino = m->ino ? m->ino : ino;
      return *slot - 1;
    }
  sfdo_xgrow (&w->mapped, &w->mapped_cap, w->nmapped + 1, sizeof *w->mapped);
  w->mapped[w->nmapped] = (struct sfdo_perfdata_mapped) {
    sfdo_xstrndup (name, strlen (name)), ino, 0
  };
  *slot = ++w->nmapped;
  return w->nmapped - 1;
}

size_t
sfdo_perfdata_writer_nmapped (const struct sfdo_perfdata_writer *w)
{
  return w->nmapped;
}

const struct sfdo_perfdata_mapped *
sfdo_perfdata_writer_mapped (const struct sfdo_perfdata_writer *w, size_t i)
{
  return i < w->nmapped ? &w->mapped[i] : NULL;
}

/* The file name of MMAP (at byte 40) or MMAP2 (at byte 72) record REC,
   and the inode an MMAP2 gives (at byte 48) unless it carries a build-id
   instead.  */
static void
note_mmap_record (struct sfdo_perfdata_writer *w, const uint8_t *rec,
                  size_t len, uint32_t type)
{
  size_t at = type == SFDO_PERFDATA_MMAP ? 40 : 72;
  if (len <= at)
    return;
  char name[4096];
  size_t n = strnlen ((const char *) rec + at, len - at);
  if (n == 0 || n >= sizeof name)
    return;
  memcpy (name, rec + at, n);
  name[n] = 0;
  uint64_t ino = 0;
  uint16_t misc;
  memcpy (&misc, rec + 4, 2);
  if (type == SFDO_PERFDATA_MMAP2 && !(misc & SFDO_PERFDATA_MISC_MMAP_BUILD_ID))
    memcpy (&ino, rec + 48, 8);
  sfdo_perfdata_hits_note (w, rec, len, type, note_mapped (w, name, ino));
}

/* --- records ------------------------------------------------------------- */

enum sfdo_errc
sfdo_perfdata_write_raw (struct sfdo_perfdata_writer *w, const void *rec,
                         size_t len, struct sfdo_error *err)
{
  uint32_t type;
  uint16_t size;
  if (len < 8)
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "a record of %zu bytes", len);
  memcpy (&type, rec, 4);
  memcpy (&size, (const uint8_t *) rec + 6, 2);
  if (size != len)
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "a record whose header says %u bytes, not %zu",
                           size, len);
  if (type == SFDO_PERFDATA_MMAP || type == SFDO_PERFDATA_MMAP2)
    note_mmap_record (w, rec, len, type);
  else if (type == SFDO_PERFDATA_SAMPLE || type == SFDO_PERFDATA_FORK)
    sfdo_perfdata_hits_note (w, rec, len, type, 0);
  return sfdo_perfdata_writer_bytes (w, rec, len, err);
}

enum sfdo_errc
sfdo_perfdata_write_mmap2 (struct sfdo_perfdata_writer *w, uint16_t misc,
                           const struct sfdo_perfdata_mmap *m,
                           const struct sfdo_perfdata_sample_id *id,
                           struct sfdo_error *err)
{
  struct enc e = enc_start (w, SFDO_PERFDATA_MMAP2, misc);
  enc_u32x2 (&e, m->pid, m->tid);
  enc_u64 (&e, m->addr);
  enc_u64 (&e, m->len);
  enc_u64 (&e, m->pgoff);
  enc_u32x2 (&e, m->maj, m->min);
  enc_u64 (&e, m->ino);
  enc_u64 (&e, m->ino_generation);
  enc_u32x2 (&e, m->prot, m->flags);
  enc_string (&e, m->filename ? m->filename : "");
  enc_trailer (w, &e, id);
  return enc_finish (w, &e, err);
}

enum sfdo_errc
sfdo_perfdata_write_comm (struct sfdo_perfdata_writer *w, uint16_t misc,
                          const struct sfdo_perfdata_comm *c,
                          const struct sfdo_perfdata_sample_id *id,
                          struct sfdo_error *err)
{
  struct enc e = enc_start (w, SFDO_PERFDATA_COMM, misc);
  enc_u32x2 (&e, c->pid, c->tid);
  enc_string (&e, c->comm ? c->comm : "");
  enc_trailer (w, &e, id);
  return enc_finish (w, &e, err);
}

enum sfdo_errc
sfdo_perfdata_write_task (struct sfdo_perfdata_writer *w, uint32_t type,
                          const struct sfdo_perfdata_task *t,
                          const struct sfdo_perfdata_sample_id *id,
                          struct sfdo_error *err)
{
  if (type != SFDO_PERFDATA_FORK && type != SFDO_PERFDATA_EXIT)
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "record type %u is not FORK or EXIT", type);
  struct enc e = enc_start (w, type, 0);
  enc_u32x2 (&e, t->pid, t->ppid);
  enc_u32x2 (&e, t->tid, t->ptid);
  enc_u64 (&e, t->time);
  enc_trailer (w, &e, id);
  return enc_finish (w, &e, err);
}

static void
enc_regs (struct enc *e, const struct sfdo_perfdata_regs *r, uint64_t mask)
{
  enc_u64 (e, r->abi);
  if (!r->abi)
    return;
  unsigned n = (unsigned) __builtin_popcountll (mask);
  for (unsigned i = 0; i < n; i++)
    enc_u64 (e, i < r->nregs ? r->regs[i] : 0);
}

static void
enc_branches (struct enc *e, const struct w_attr *a,
              const struct sfdo_perfdata_sample *s)
{
  enc_u64 (e, s->branch_nr);
  if (a->branch_sample_type & SFDO_PERFDATA_BR_HW_INDEX)
    enc_u64 (e, s->branch_hw_idx);
  for (uint64_t i = 0; i < s->branch_nr && !e->overflow; i++)
    {
      enc_u64 (e, s->branches[i].from);
      enc_u64 (e, s->branches[i].to);
      enc_u64 (e, s->branches[i].flags);
    }
}

#define NOT_ENCODED                                                     \
  (SFDO_PERFDATA_S_READ | SFDO_PERFDATA_S_RAW | SFDO_PERFDATA_S_STACK_USER \
   | SFDO_PERFDATA_S_AUX | SFDO_PERFDATA_S_CGROUP                        \
   | SFDO_PERFDATA_S_DATA_PAGE_SIZE | SFDO_PERFDATA_S_CODE_PAGE_SIZE)

/* The body of a sample, in the kernel's order (perf_output_sample).  */
static void
enc_sample_body (struct enc *e, const struct w_attr *a,
                 const struct sfdo_perfdata_sample *s)
{
  uint64_t t = a->sample_type;
  if (t & SFDO_PERFDATA_S_IDENTIFIER) enc_u64 (e, s->id);
  if (t & SFDO_PERFDATA_S_IP) enc_u64 (e, s->ip);
  if (t & SFDO_PERFDATA_S_TID) enc_u32x2 (e, s->pid, s->tid);
  if (t & SFDO_PERFDATA_S_TIME) enc_u64 (e, s->time);
  if (t & SFDO_PERFDATA_S_ADDR) enc_u64 (e, s->addr);
  if (t & SFDO_PERFDATA_S_ID) enc_u64 (e, s->id);
  if (t & SFDO_PERFDATA_S_STREAM_ID) enc_u64 (e, s->stream_id);
  if (t & SFDO_PERFDATA_S_CPU) enc_u32x2 (e, s->cpu, 0);
  if (t & SFDO_PERFDATA_S_PERIOD) enc_u64 (e, s->period);
  if (t & SFDO_PERFDATA_S_CALLCHAIN)
    {
      enc_u64 (e, s->callchain_nr);
      for (uint64_t i = 0; i < s->callchain_nr && !e->overflow; i++)
        enc_u64 (e, s->callchain[i]);
    }
  if (t & SFDO_PERFDATA_S_BRANCH_STACK) enc_branches (e, a, s);
  if (t & SFDO_PERFDATA_S_REGS_USER) enc_regs (e, &s->regs_user, a->regs_user);
  if (t & SFDO_PERFDATA_S_WEIGHT) enc_u64 (e, s->weight);
  if (t & SFDO_PERFDATA_S_WEIGHT_STRUCT) enc_u64 (e, s->weight);
  if (t & SFDO_PERFDATA_S_DATA_SRC) enc_u64 (e, s->data_src);
  if (t & SFDO_PERFDATA_S_TRANSACTION) enc_u64 (e, s->transaction);
  if (t & SFDO_PERFDATA_S_REGS_INTR) enc_regs (e, &s->regs_intr, a->regs_intr);
  if (t & SFDO_PERFDATA_S_PHYS_ADDR) enc_u64 (e, s->phys_addr);
}

enum sfdo_errc
sfdo_perfdata_write_sample (struct sfdo_perfdata_writer *w, size_t attr,
                            uint16_t misc,
                            const struct sfdo_perfdata_sample *s,
                            struct sfdo_error *err)
{
  if (attr >= w->nattrs)
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "a sample of attr %zu (there are %zu)", attr,
                           w->nattrs);
  const struct w_attr *a = &w->attrs[attr];
  if (a->sample_type & NOT_ENCODED)
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "sample_type %#llx has fields the writer does not"
                           " encode (%#llx)",
                           (unsigned long long) a->sample_type,
                           (unsigned long long) (a->sample_type
                                                 & NOT_ENCODED));
  struct enc e = enc_start (w, SFDO_PERFDATA_SAMPLE, misc);
  enc_sample_body (&e, a, s);
  return enc_finish (w, &e, err);
}

enum sfdo_errc
sfdo_perfdata_write_finished_round (struct sfdo_perfdata_writer *w,
                                    struct sfdo_error *err)
{
  struct enc e = enc_start (w, SFDO_PERFDATA_FINISHED_ROUND, 0);
  return enc_finish (w, &e, err);
}
