/* recorder/emu_raw.c - reading the emulated PMU's raw streams (emu_raw.h).  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "emu_raw.h"

/* No record the tool writes comes near this: a mapping's file name is at
   most PATH_MAX.  */
#define MAX_RECORD 65536

struct sfdo_emu_raw {
  FILE *f;
  char *path;
  struct sfdo_emu_header header;
  uint64_t pos;                 /* offset of the next record */
  int done;
  uint64_t *buf;                /* the current record, 8-byte aligned */
};

static enum sfdo_errc
bad (struct sfdo_emu_raw *r, enum sfdo_errc code, uint64_t offset,
     const char *what, struct sfdo_error *err)
{
  r->done = 1;
  return sfdo_error_set (err, code, r->path, offset, 0, 0, "%s", what);
}

/* The same for sfdo_emu_raw_next: -1.  */
static int
bad_record (struct sfdo_emu_raw *r, enum sfdo_errc code, const char *what,
            struct sfdo_error *err)
{
  bad (r, code, r->pos, what, err);
  return -1;
}

enum sfdo_errc
sfdo_emu_raw_open (const char *path, struct sfdo_emu_raw **out,
                   struct sfdo_error *err)
{
  *out = NULL;
  FILE *f = fopen (path, "rb");
  if (!f)
    return sfdo_error_sys (err, path, "cannot open");
  struct sfdo_emu_raw *r = sfdo_xcalloc (1, sizeof *r);
  r->f = f;
  r->path = sfdo_xstrndup (path, strlen (path));
  r->buf = sfdo_xmalloc (MAX_RECORD);
  enum sfdo_errc rc = SFDO_OK;
  struct sfdo_emu_header *h = &r->header;
  if (fread (h, 1, sizeof *h, f) != sizeof *h)
    rc = bad (r, SFDO_E_TRUNCATED, 0, "shorter than the emulator's header",
              err);
  else if (memcmp (h->magic, SFDO_EMU_MAGIC, sizeof h->magic) != 0)
    rc = bad (r, SFDO_E_BAD_MAGIC, 0, "not a raw stream of sfdoemu", err);
  else if (h->version != SFDO_EMU_VERSION)
    rc = sfdo_error_set (err, SFDO_E_VERSION, path, 8, 0, 0,
                         "raw stream version %u, expected %u (sfdoemu and"
                         " sfdo-record are from different builds)",
                         h->version, SFDO_EMU_VERSION);
  else if (h->lbr_entries != SFDO_EMU_LBR_ENTRIES)
    rc = bad (r, SFDO_E_MALFORMED, 0, "header with an impossible LBR depth",
              err);
  if (rc)
    {
      sfdo_emu_raw_close (r);
      return rc;
    }
  r->pos = sizeof *h;
  *out = r;
  return SFDO_OK;
}

const struct sfdo_emu_header *
sfdo_emu_raw_header (const struct sfdo_emu_raw *r)
{
  return &r->header;
}

const char *
sfdo_emu_raw_path (const struct sfdo_emu_raw *r)
{
  return r->path;
}

/* The size a record of TYPE must have, given what it says of its
   variable part; 0 for a type of variable size checked elsewhere.  */
static uint64_t
expected_size (const struct sfdo_emu_rec *h)
{
  switch (h->type)
    {
    case SFDO_EMU_COMM: return sizeof (struct sfdo_emu_comm);
    case SFDO_EMU_FORK: return sizeof (struct sfdo_emu_fork);
    case SFDO_EMU_EXIT: return sizeof (struct sfdo_emu_exit);
    case SFDO_EMU_SAMPLE:
      {
        const struct sfdo_emu_sample *s = (const void *) h;
        if (h->size < sizeof *s || s->nr_branches > SFDO_EMU_LBR_ENTRIES
            || (s->nr_regs != 0 && s->nr_regs != SFDO_EMU_NREGS))
          return UINT64_MAX;
        return sizeof *s + (2ull * s->nr_branches + s->nr_regs) * 8;
      }
    default: return 0;
    }
}

/* Check the record in R->buf and set up REC's views; 0 if it is
   malformed.  */
static int
decode (struct sfdo_emu_raw *r, struct sfdo_emu_record *rec)
{
  const struct sfdo_emu_rec *h = (const void *) r->buf;
  uint64_t want = expected_size (h);
  if (want && want != h->size)
    return 0;
  memset (rec, 0, sizeof *rec);
  rec->type = h->type;
  rec->offset = r->pos;
  rec->raw = h;
  switch (h->type)
    {
    case SFDO_EMU_COMM:
      {
        const struct sfdo_emu_comm *c = (const void *) h;
        rec->time = c->time;
        return memchr (c->comm, 0, sizeof c->comm) != NULL;
      }
    case SFDO_EMU_MMAP:
      {
        const struct sfdo_emu_mmap *m = (const void *) h;
        size_t room = h->size > sizeof *m ? h->size - sizeof *m : 0;
        rec->time = m->time;
        rec->filename = (const char *) (m + 1);
        return room && memchr (rec->filename, 0, room) && m->len
               && m->start + m->len > m->start;
      }
    case SFDO_EMU_FORK:
      rec->time = ((const struct sfdo_emu_fork *) (const void *) h)->time;
      return 1;
    case SFDO_EMU_EXIT:
      rec->time = ((const struct sfdo_emu_exit *) (const void *) h)->time;
      return 1;
    case SFDO_EMU_SAMPLE:
      {
        const struct sfdo_emu_sample *s = (const void *) h;
        rec->time = s->time;
        rec->branches = (const uint64_t *) (s + 1);
        rec->regs = rec->branches + 2 * s->nr_branches;
        return s->event < SFDO_EMU_NEVENTS && r->header.period[s->event];
      }
    default:
      return 1;
    }
}

int
sfdo_emu_raw_next (struct sfdo_emu_raw *r, struct sfdo_emu_record *rec,
                   struct sfdo_error *err)
{
  for (;;)
    {
      if (r->done)
        return 0;
      struct sfdo_emu_rec *h = (void *) r->buf;
      size_t got = fread (h, 1, sizeof *h, r->f);
      if (got == 0 && feof (r->f))
        {
          r->done = 1;
          return 0;
        }
      if (got != sizeof *h)
        return bad_record (r, SFDO_E_TRUNCATED, "the stream ends inside a"
                           " record header (the process was killed?)", err);
      if (h->size < sizeof *h || h->size % 8 || h->size > MAX_RECORD)
        return bad_record (r, SFDO_E_MALFORMED, "record of impossible size",
                           err);
      size_t rest = h->size - sizeof *h;
      if (fread (h + 1, 1, rest, r->f) != rest)
        return bad_record (r, SFDO_E_TRUNCATED, "the stream ends inside a"
                           " record (the process was killed?)", err);
      if (h->type >= SFDO_EMU_COMM && h->type <= SFDO_EMU_SAMPLE
          && !decode (r, rec))
        return bad_record (r, SFDO_E_MALFORMED, "record contradicts its"
                           " type's layout", err);
      uint64_t at = r->pos;
      r->pos += h->size;
      if (h->type >= SFDO_EMU_COMM && h->type <= SFDO_EMU_SAMPLE)
        {
          rec->offset = at;
          return 1;
        }
    }
}

void
sfdo_emu_raw_close (struct sfdo_emu_raw *r)
{
  if (!r)
    return;
  if (r->f)
    fclose (r->f);
  free (r->path);
  free (r->buf);
  free (r);
}
