/* perfdata/perfdata_src.c - where perf.data bytes come from, the bounded
   cursor, errors, and the handle's lifecycle and queries.  */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/xalloc.h"
#include "perfdata_int.h"

uint64_t
sfdo_perfdata_le64 (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

uint32_t
sfdo_perfdata_le32 (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, 4);
  return v;
}

uint16_t
sfdo_perfdata_le16 (const uint8_t *p)
{
  uint16_t v;
  memcpy (&v, p, 2);
  return v;
}

/* --- errors -------------------------------------------------------------- */

/* Record an error at file offset OFF in ERR and in PD (the first one wins
   in each); return CODE.  */
enum sfdo_errc
sfdo_perfdata_err (struct sfdo_perfdata *pd, struct sfdo_error *err,
                   enum sfdo_errc code, uint64_t off, const char *fmt, ...)
{
  char msg[256];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  if (pd->sticky == SFDO_OK)
    {
      pd->sticky = code;
      sfdo_error_set (&pd->sticky_err, code, pd->name, off, 0, 0, "%s", msg);
    }
  return sfdo_error_set (err, code, pd->name, off, 0, 0, "%s", msg);
}

enum sfdo_errc
sfdo_perfdata_skip_bad (struct sfdo_perfdata *pd, struct sfdo_error *err,
                        uint64_t bytes)
{
  if (!pd->stats.bad_records++)
    pd->stats.first_bad = pd->sticky_err;
  pd->stats.skipped_bytes += bytes;
  pd->sticky = SFDO_OK;
  sfdo_error_clear (&pd->sticky_err);
  sfdo_error_clear (err);
  return SFDO_OK;
}

uint64_t
sfdo_perfdata_cur_off (const struct pd_cur *c)
{
  return c->fixed_off ? c->base : c->base + c->pos;
}

enum sfdo_errc
sfdo_perfdata_cur_err (struct sfdo_perfdata *pd, struct sfdo_error *err,
                       const struct pd_cur *c, enum sfdo_errc code,
                       const char *what)
{
  return sfdo_perfdata_err (pd, err, code, sfdo_perfdata_cur_off (c),
                            "%s %s (%zu bytes left at byte %zu of %zu%s)",
                            code == SFDO_E_TRUNCATED ? "truncated" : "bad",
                            what, c->len - c->pos, c->pos, c->len,
                            c->zdata ? ", in decompressed data" : "");
}

/* --- the cursor ---------------------------------------------------------- */

int
sfdo_perfdata_cur_bytes (struct pd_cur *c, size_t n, const uint8_t **p)
{
  if (n > c->len - c->pos)
    return -1;
  if (p)
    *p = c->p + c->pos;
  c->pos += n;
  return 0;
}

int
sfdo_perfdata_cur_u64 (struct pd_cur *c, uint64_t *v)
{
  const uint8_t *p;
  if (sfdo_perfdata_cur_bytes (c, 8, &p))
    return -1;
  *v = sfdo_perfdata_le64 (p);
  return 0;
}

int
sfdo_perfdata_cur_u32 (struct pd_cur *c, uint32_t *v)
{
  const uint8_t *p;
  if (sfdo_perfdata_cur_bytes (c, 4, &p))
    return -1;
  *v = sfdo_perfdata_le32 (p);
  return 0;
}

/* --- the source ---------------------------------------------------------- */

/* Read up to N bytes into BUF; *GOT is how many (short only at the end).  */
enum sfdo_errc
sfdo_perfdata_src_read (struct sfdo_perfdata *pd, void *buf, size_t n,
                        size_t *got, struct sfdo_error *err)
{
  struct pd_src *s = &pd->src;
  *got = 0;
  if (s->mem)
    {
      uint64_t left = s->pos < s->size ? s->size - s->pos : 0;
      size_t k = left < n ? (size_t) left : n;
      memcpy (buf, s->mem + s->pos, k);
      s->pos += k;
      *got = k;
      return SFDO_OK;
    }
  size_t k = n ? fread (buf, 1, n, s->f) : 0;
  s->pos += k;
  *got = k;
  if (k < n && ferror (s->f))
    {
      int e = errno;
      sfdo_perfdata_err (pd, err, SFDO_E_IO, s->pos, "reading: %s",
                         strerror (e));
      if (err)
        err->sys_errno = e;
      return SFDO_E_IO;
    }
  return SFDO_OK;
}

enum sfdo_errc
sfdo_perfdata_src_seek (struct sfdo_perfdata *pd, uint64_t off,
                        struct sfdo_error *err)
{
  struct pd_src *s = &pd->src;
  if (off > s->size)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, off,
                              "offset %#llx is past the end (%#llx)",
                              (unsigned long long) off,
                              (unsigned long long) s->size);
  if (s->mem)
    {
      s->pos = off;
      return SFDO_OK;
    }
  if (!s->seekable || off > INT64_MAX || fseeko (s->f, (off_t) off, SEEK_SET))
    return sfdo_perfdata_err (pd, err, SFDO_E_IO, off, "cannot seek");
  s->pos = off;
  return SFDO_OK;
}

/* Skip N bytes forward; TRUNCATED if the input ends first.  */
enum sfdo_errc
sfdo_perfdata_src_skip (struct sfdo_perfdata *pd, uint64_t n,
                        struct sfdo_error *err)
{
  struct pd_src *s = &pd->src;
  uint64_t start = s->pos;
  if (s->size != UINT64_MAX || s->mem)
    {
      if (n > s->size - s->pos)
        return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, start,
                                  "need to skip %llu bytes, %llu left",
                                  (unsigned long long) n,
                                  (unsigned long long) (s->size - s->pos));
      if (s->mem || s->seekable)
        return sfdo_perfdata_src_seek (pd, s->pos + n, err);
    }
  uint8_t buf[4096];
  while (n)
    {
      size_t got, want = n < sizeof buf ? (size_t) n : sizeof buf;
      enum sfdo_errc rc = sfdo_perfdata_src_read (pd, buf, want, &got, err);
      if (rc)
        return rc;
      if (got < want)
        return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, start,
                                  "input ends in skipped payload");
      n -= got;
    }
  return SFDO_OK;
}

/* --- lifecycle and queries ----------------------------------------------- */

struct sfdo_perfdata *
sfdo_perfdata_new_ (const char *name)
{
  struct sfdo_perfdata *pd = sfdo_xcalloc (1, sizeof *pd);
  snprintf (pd->name, sizeof pd->name, "%s", name ? name : "");
  sfdo_error_clear (&pd->sticky_err);
  pd->rec = sfdo_xmalloc (PD_RECORD_MAX + 1);
  sfdo_error_clear (&pd->stats.first_bad);
  pd->src.size = UINT64_MAX;
  return pd;
}

void
sfdo_perfdata_close (struct sfdo_perfdata *pd)
{
  if (!pd)
    return;
  for (size_t i = 0; i < pd->nattrs; i++)
    {
      free (pd->attrs[i]->ids);
      free (pd->attrs[i]->name);
      free (pd->attrs[i]);
    }
  for (size_t i = 0; i < pd->nbids; i++)
    free (pd->bids[i].filename);
  free (pd->attrs);
  free (pd->idmap);
  free (pd->bids);
  sfdo_perfdata_free_records_ (pd);
  free (pd->rec);
  free (pd->u64s);
  free (pd->rv);
  free (pd->br);
  if (pd->src.own_f && pd->src.f)
    fclose (pd->src.f);
  free (pd);
}

/* Fill in the source from F (owned if OWN): seekable regular files have a
   known size.  */
void
sfdo_perfdata_src_init_ (struct sfdo_perfdata *pd, FILE *f, int own)
{
  struct stat st;
  pd->src.f = f;
  pd->src.own_f = own;
  pd->src.pos = 0;
  if (fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode))
    {
      off_t here = ftello (f);
      if (here >= 0 && here <= st.st_size)
        {
          pd->src.seekable = 1;
          pd->src.size = (uint64_t) st.st_size;
          if (here != 0)
            fseeko (f, 0, SEEK_SET);
        }
    }
}

int
sfdo_perfdata_is_pipe (const struct sfdo_perfdata *pd)
{
  return pd->pipe;
}

size_t
sfdo_perfdata_nattrs (const struct sfdo_perfdata *pd)
{
  return pd->nattrs;
}

const struct sfdo_perfdata_attr *
sfdo_perfdata_attr (const struct sfdo_perfdata *pd, size_t i)
{
  return i < pd->nattrs ? &pd->attrs[i]->pub : NULL;
}

size_t
sfdo_perfdata_nbuild_ids (const struct sfdo_perfdata *pd)
{
  return pd->nbids;
}

const struct sfdo_perfdata_build_id *
sfdo_perfdata_build_id (const struct sfdo_perfdata *pd, size_t i)
{
  return i < pd->nbids ? &pd->bids[i].pub : NULL;
}

int
sfdo_perfdata_has_feature (const struct sfdo_perfdata *pd, unsigned feat)
{
  return feat < PD_NFEATS && (pd->feats[feat / 8] >> (feat % 8)) & 1;
}

const struct sfdo_perfdata_stats *
sfdo_perfdata_stats (const struct sfdo_perfdata *pd)
{
  return &pd->stats;
}

int
sfdo_perfdata_at_end (const struct sfdo_perfdata *pd)
{
  return pd->at_end;
}
