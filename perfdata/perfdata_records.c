/* perfdata/perfdata_records.c - the record walk.

   Records are { u32 type; u16 misc; u16 size; body } with SIZE counting
   the header.  They come from the data section (file mode) or everything
   after the 16-byte header (pipe mode).  PERF_RECORD_COMPRESSED (81: the
   body is a piece of a zstd stream) and COMPRESSED2 (83: u64 data_size,
   then the piece) decompress to more records; one record may span
   several compressed records, so one zstd stream and one output window
   serve the whole walk.  HEADER_TRACING_DATA and AUXTRACE are followed by
   a payload outside the record, which is skipped.  */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../common/xalloc.h"
#include "perfdata_int.h"

#define ZOUT_CAP (4 * PD_RECORD_MAX)
#define ZWINDOW_LOG_MAX 24

void
sfdo_perfdata_free_records_ (struct sfdo_perfdata *pd)
{
  ZSTD_freeDStream (pd->z.ds);
  free (pd->z.in);
  free (pd->z.out);
}

static enum sfdo_errc
z_feed (struct sfdo_perfdata *pd, const uint8_t *data, size_t n, uint64_t off,
        struct sfdo_error *err)
{
  struct pd_zstate *z = &pd->z;
  if (!z->ds)
    {
      z->ds = ZSTD_createDStream ();
      if (!z->ds)
        return sfdo_perfdata_err (pd, err, SFDO_E_NOMEM, off,
                                  "cannot create a zstd stream");
      ZSTD_initDStream (z->ds);
      /* perf compresses buffers of at most a few MB; a frame asking for
         a bigger window is refused instead of allocated.  */
      ZSTD_DCtx_setParameter (z->ds, ZSTD_d_windowLogMax, ZWINDOW_LOG_MAX);
      z->in = sfdo_xmalloc (PD_RECORD_MAX);
      z->out = sfdo_xmalloc (ZOUT_CAP);
    }
  memcpy (z->in, data, n);
  z->in_len = n;
  z->in_pos = 0;
  z->rec_off = off;
  pd->stats.compressed_records++;
  return SFDO_OK;
}

/* SKIP_BAD: after bad compressed data, drop what is pending and start
   the stream afresh: perf ends a zstd frame with every compressed record,
   so the next one decompresses on its own.  */
static enum sfdo_errc
z_drop (struct sfdo_perfdata *pd, struct sfdo_error *err)
{
  struct pd_zstate *z = &pd->z;
  uint64_t lost = (z->in_len - z->in_pos) + (z->out_len - z->out_pos);
  ZSTD_DCtx_reset (z->ds, ZSTD_reset_session_only);
  z->in_pos = z->in_len = 0;
  z->out_pos = z->out_len = 0;
  z->skip = 0;
  return sfdo_perfdata_skip_bad (pd, err, lost);
}

/* Decompress more of the pending input into the output window.  */
static enum sfdo_errc
z_pump (struct sfdo_perfdata *pd, struct sfdo_error *err)
{
  struct pd_zstate *z = &pd->z;
  memmove (z->out, z->out + z->out_pos, z->out_len - z->out_pos);
  z->out_len -= z->out_pos;
  z->out_pos = 0;
  ZSTD_inBuffer in = { z->in, z->in_len, z->in_pos };
  ZSTD_outBuffer out = { z->out, ZOUT_CAP, z->out_len };
  size_t r = ZSTD_decompressStream (z->ds, &out, &in);
  enum sfdo_errc rc = SFDO_OK;
  if (ZSTD_isError (r))
    rc = sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, z->rec_off,
                            "compressed record: zstd: %s",
                            ZSTD_getErrorName (r));
  else if (in.pos == z->in_pos && out.pos == z->out_len)
    rc = sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, z->rec_off,
                            "compressed record: zstd makes no progress");
  if (rc)
    return pd->flags & SFDO_PERFDATA_SKIP_BAD ? z_drop (pd, err) : rc;
  pd->stats.decompressed_bytes += out.pos - z->out_len;
  z->in_pos = in.pos;
  z->out_len = out.pos;
  return SFDO_OK;
}

/* Take the next whole record out of the window into PD->rec: 1 if one
   was there, 0 if more input is needed, -1 on error.  */
static int
z_take (struct sfdo_perfdata *pd, struct pd_cur *c, struct sfdo_error *err)
{
  struct pd_zstate *z = &pd->z;
  size_t avail = z->out_len - z->out_pos;
  if (z->skip)
    {
      size_t k = z->skip < avail ? (size_t) z->skip : avail;
      z->skip -= k;
      z->out_pos += k;
      avail -= k;
      if (z->skip)
        return 0;
    }
  if (avail < 8)
    return 0;
  uint16_t size = sfdo_perfdata_le16 (z->out + z->out_pos + 6);
  uint32_t type = sfdo_perfdata_le32 (z->out + z->out_pos);
  if (size < 8 || type == PD_COMPRESSED || type == PD_COMPRESSED2)
    {
      sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, z->rec_off,
                         "decompressed record of type %u, size %u", type,
                         size);
      if (pd->flags & SFDO_PERFDATA_SKIP_BAD)
        return z_drop (pd, err), 0;
      return -1;
    }
  if (size > avail)
    return 0;
  memcpy (pd->rec, z->out + z->out_pos, size);
  z->out_pos += size;
  *c = (struct pd_cur) { pd->rec, size, 0, z->rec_off, 1, 1 };
  return 1;
}

int
sfdo_perfdata_plausible_header (const uint8_t *h, uint64_t room)
{
  uint32_t type = sfdo_perfdata_le32 (h);
  uint16_t size = sfdo_perfdata_le16 (h + 6);
  int known = (type >= 1 && type <= 21) || (type >= 64 && type <= PD_LAST_KNOWN);
  return known && size >= 8 && size % 8 == 0 && size <= room;
}

/* SKIP_BAD: input that ends inside a record ends the walk.  */
static enum sfdo_errc
torn_end (struct sfdo_perfdata *pd, struct sfdo_error *err, enum sfdo_errc rc,
          uint64_t bytes)
{
  if (!(pd->flags & SFDO_PERFDATA_SKIP_BAD))
    return rc;
  return sfdo_perfdata_skip_bad (pd, err, bytes);
}

/* Read the next record from the input into PD->rec; *HAVE is 0 at the
   end of the data.  With SKIP_BAD, a header that makes no sense is
   skipped 8 bytes at a time until one that could be a record's.  */
static enum sfdo_errc
file_record (struct sfdo_perfdata *pd, struct pd_cur *c, int *have,
             struct sfdo_error *err)
{
  int resyncing = 0;
  *have = 0;
  for (;;)
    {
      uint64_t off = pd->src.pos;
      size_t got;
      if (!pd->pipe && off >= pd->data_end)
        return SFDO_OK;
      enum sfdo_errc rc = sfdo_perfdata_src_read (pd, pd->rec, 8, &got, err);
      if (rc || got == 0)
        return rc;
      if (got < 8)
        return torn_end (pd, err, sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED,
                                                     off, "record header: "
                                                     "%zu of 8 bytes", got),
                         got);
      uint16_t size = sfdo_perfdata_le16 (pd->rec + 6);
      if (resyncing && !sfdo_perfdata_plausible_header (
                         pd->rec, pd->pipe ? UINT64_MAX : pd->data_end - off))
        {
          pd->stats.skipped_bytes += 8;
          continue;
        }
      if (size < 8 || (!pd->pipe && size > pd->data_end - off))
        {
          rc = size < 8
               ? sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, off,
                                    "record size %u (less than its header)",
                                    size)
               : sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, off,
                                    "record of %u bytes crosses the end of "
                                    "the data section", size);
          if (!(pd->flags & SFDO_PERFDATA_SKIP_BAD))
            return rc;
          /* A record that would be whole but for the end of the input: a
             torn tail.  Elsewhere the size itself is bad.  */
          if (size >= 8 && pd->data_end == pd->src.size
              && sfdo_perfdata_plausible_header (pd->rec, size))
            return torn_end (pd, err, rc, pd->data_end - off);
          sfdo_perfdata_skip_bad (pd, err, 8);
          resyncing = 1;
          continue;
        }
      rc = sfdo_perfdata_src_read (pd, pd->rec + 8, size - 8u, &got, err);
      if (rc)
        return rc;
      if (got < size - 8u)
        return torn_end (pd, err, sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED,
                                                     off, "record of %u "
                                                     "bytes: input ends "
                                                     "after %zu", size,
                                                     got + 8),
                         got + 8);
      *c = (struct pd_cur) { pd->rec, size, 0, off, 1, 0 };
      *have = 1;
      return SFDO_OK;
    }
}

/* Feed a COMPRESSED or COMPRESSED2 record at C to the zstd stream.  */
static enum sfdo_errc
feed_compressed (struct sfdo_perfdata *pd, struct pd_cur *c,
                 struct sfdo_error *err)
{
  uint32_t type = sfdo_perfdata_le32 (c->p);
  size_t n = c->len - 8, at = 8;
  pd->stats.records++;
  pd->stats.by_type[type]++;
  if (type == PD_COMPRESSED2)
    {
      uint64_t dsize;
      c->pos = 8;
      if (sfdo_perfdata_cur_u64 (c, &dsize) || dsize > c->len - 16)
        {
          enum sfdo_errc rc = sfdo_perfdata_cur_err (pd, err, c,
                                                     SFDO_E_MALFORMED,
                                                     "COMPRESSED2 data_size");
          if (pd->flags & SFDO_PERFDATA_SKIP_BAD)
            return sfdo_perfdata_skip_bad (pd, err, c->len);
          return rc;
        }
      n = (size_t) dsize;
      at = 16;
    }
  return z_feed (pd, c->p + at, n, c->base, err);
}

/* The next record, from the decompression window or the input.  */
static enum sfdo_errc
next_record (struct sfdo_perfdata *pd, struct pd_cur *c, int *have,
             struct sfdo_error *err)
{
  struct pd_zstate *z = &pd->z;
  for (;;)
    {
      enum sfdo_errc rc;
      int r = z->ds ? z_take (pd, c, err) : 0;
      if (r < 0)
        return pd->sticky;
      if (r > 0)
        return (*have = 1, SFDO_OK);
      if (z->in_pos < z->in_len)
        {
          if ((rc = z_pump (pd, err)))
            return rc;
          continue;
        }
      if ((rc = file_record (pd, c, have, err)))
        return rc;
      if (!*have)
        {
          if (z->out_pos < z->out_len || z->skip)
            return torn_end (pd, err,
                             sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED,
                                                z->rec_off,
                                                "compressed data ends inside"
                                                " a record"),
                             z->out_len - z->out_pos);
          return SFDO_OK;
        }
      uint32_t type = sfdo_perfdata_le32 (c->p);
      if (type != PD_COMPRESSED && type != PD_COMPRESSED2)
        return SFDO_OK;
      if ((rc = feed_compressed (pd, c, err)))
        return rc;
    }
}

/* Skip N payload bytes that follow the record at C.  */
static enum sfdo_errc
skip_payload (struct sfdo_perfdata *pd, const struct pd_cur *c, uint64_t n,
              struct sfdo_error *err)
{
  if (c->zdata)
    {
      pd->z.skip = n;
      return SFDO_OK;
    }
  if (!pd->pipe && n > pd->data_end - pd->src.pos)
    return sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, c->base,
                              "payload of %llu bytes crosses the end of the"
                              " data section", (unsigned long long) n);
  return sfdo_perfdata_src_skip (pd, n, err);
}

/* perf's own records that change what the reader knows.  */
static enum sfdo_errc
user_record (struct sfdo_perfdata *pd, uint32_t type, struct pd_cur *c,
             struct sfdo_error *err)
{
  uint64_t a = 0, b = 0;
  c->pos = 8;
  switch (type)
    {
    case PD_HEADER_ATTR:
      {
        uint32_t size = c->len >= 16 ? sfdo_perfdata_le32 (c->p + 12) : 0;
        size = size ? size : PD_ATTR_SIZE_VER0;
        if (size > c->len - 8)
          return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                        "HEADER_ATTR (attr.size too big)");
        struct pd_cur ids = { c->p + 8 + size, c->len - 8 - size, 0,
                              c->base, 1, c->zdata };
        return sfdo_perfdata_add_attr (pd, c, size, &ids, err);
      }
    case PD_HEADER_FEATURE:
      if (sfdo_perfdata_cur_u64 (c, &a))
        return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                      "HEADER_FEATURE");
      return sfdo_perfdata_feature (pd, a < PD_NFEATS ? (unsigned) a
                                    : PD_NFEATS, c, err);
    case PD_HEADER_BUILD_ID:
      c->pos = 0;
      return sfdo_perfdata_add_build_id (pd, c, err);
    case PD_EVENT_UPDATE:
      if (sfdo_perfdata_cur_u64 (c, &a) || sfdo_perfdata_cur_u64 (c, &b))
        return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                      "EVENT_UPDATE");
      if (a == 2)   /* PERF_EVENT_UPDATE__NAME */
        sfdo_perfdata_set_name (pd, b, SIZE_MAX, c->p + c->pos,
                                c->len - c->pos);
      return SFDO_OK;
    case PD_HEADER_TRACING_DATA:
    case PD_AUXTRACE:
      {
        uint32_t n32;
        if (type == PD_AUXTRACE ? sfdo_perfdata_cur_u64 (c, &a)
            : sfdo_perfdata_cur_u32 (c, &n32))
          return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                        "payload size");
        return skip_payload (pd, c, type == PD_AUXTRACE ? a : n32, err);
      }
    default:
      return SFDO_OK;
    }
}

/* The fixed part P of an MMAP or MMAP2 record R; TAIL is the filename.  */
static void
decode_mmap (const uint8_t *p, const char *tail, struct sfdo_perfdata_record *r)
{
  struct sfdo_perfdata_mmap *m = &r->u.mmap;
  m->pid = sfdo_perfdata_le32 (p);
  m->tid = sfdo_perfdata_le32 (p + 4);
  m->addr = sfdo_perfdata_le64 (p + 8);
  m->len = sfdo_perfdata_le64 (p + 16);
  m->pgoff = sfdo_perfdata_le64 (p + 24);
  m->filename = tail;
  if (r->type == SFDO_PERFDATA_MMAP)
    return;
  m->has_build_id = (r->misc & SFDO_PERFDATA_MISC_MMAP_BUILD_ID) != 0;
  if (m->has_build_id)
    {
      m->build_id_size = p[32] <= 20 ? p[32] : 20;
      memcpy (m->build_id, p + 36, m->build_id_size);
    }
  else
    {
      m->maj = sfdo_perfdata_le32 (p + 32);
      m->min = sfdo_perfdata_le32 (p + 36);
      m->ino = sfdo_perfdata_le64 (p + 40);
      m->ino_generation = sfdo_perfdata_le64 (p + 48);
    }
  m->prot = sfdo_perfdata_le32 (p + 56);
  m->flags = sfdo_perfdata_le32 (p + 60);
}

/* The fixed parts of MMAP, MMAP2, COMM, FORK, EXIT and LOST (the trailer
   is already cut off C).  */
static enum sfdo_errc
kernel_record (struct sfdo_perfdata *pd, struct pd_cur *c,
               struct sfdo_perfdata_record *r, struct sfdo_error *err)
{
  const uint8_t *p;
  static const uint8_t need[] = {
    [SFDO_PERFDATA_MMAP] = 32, [SFDO_PERFDATA_LOST] = 16,
    [SFDO_PERFDATA_COMM] = 8, [SFDO_PERFDATA_EXIT] = 24,
    [SFDO_PERFDATA_FORK] = 24, [SFDO_PERFDATA_MMAP2] = 64 };
  if (sfdo_perfdata_cur_bytes (c, need[r->type], &p))
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED, "record body");
  pd->rec[c->len] = 0;   /* strings end here at the latest */
  const char *tail = (const char *) c->p + c->pos;
  switch (r->type)
    {
    case SFDO_PERFDATA_MMAP:
    case SFDO_PERFDATA_MMAP2:
      decode_mmap (p, tail, r);
      break;
    case SFDO_PERFDATA_COMM:
      r->u.comm.pid = sfdo_perfdata_le32 (p);
      r->u.comm.tid = sfdo_perfdata_le32 (p + 4);
      r->u.comm.comm = tail;
      break;
    case SFDO_PERFDATA_FORK:
    case SFDO_PERFDATA_EXIT:
      r->u.task.pid = sfdo_perfdata_le32 (p);
      r->u.task.ppid = sfdo_perfdata_le32 (p + 4);
      r->u.task.tid = sfdo_perfdata_le32 (p + 8);
      r->u.task.ptid = sfdo_perfdata_le32 (p + 12);
      r->u.task.time = sfdo_perfdata_le64 (p + 16);
      break;
    default:
      r->u.lost.id = sfdo_perfdata_le64 (p);
      r->u.lost.lost = sfdo_perfdata_le64 (p + 8);
    }
  return SFDO_OK;
}

static int
delivered_type (uint32_t type)
{
  return type == SFDO_PERFDATA_SAMPLE || type == SFDO_PERFDATA_MMAP
         || type == SFDO_PERFDATA_MMAP2 || type == SFDO_PERFDATA_COMM
         || type == SFDO_PERFDATA_FORK || type == SFDO_PERFDATA_EXIT
         || type == SFDO_PERFDATA_LOST;
}

/* Count, decode and deliver the record at C.  *STOP is set when FN says
   so.  FN may be NULL (pipe-mode open: header records only).  */
static enum sfdo_errc
process (struct sfdo_perfdata *pd, struct pd_cur *c, sfdo_perfdata_record_fn fn,
         void *ctx, int *stop, struct sfdo_error *err)
{
  uint32_t type = sfdo_perfdata_le32 (c->p);
  pd->stats.records++;
  if (type < SFDO_PERFDATA_NTYPES)
    pd->stats.by_type[type]++;
  if (type == 0 || (type > 21 && type < 64) || type > PD_LAST_KNOWN)
    {
      pd->stats.unknown_records++;
      return SFDO_OK;
    }
  if (!delivered_type (type))
    return user_record (pd, type, c, err);
  struct sfdo_perfdata_record r;
  memset (&r, 0, sizeof r);
  r.type = type;
  r.misc = sfdo_perfdata_le16 (c->p + 4);
  r.size = (uint16_t) c->len;
  r.offset = c->base;
  r.compressed = c->zdata;
  c->pos = 8;
  enum sfdo_errc rc;
  if (type == SFDO_PERFDATA_SAMPLE)
    rc = sfdo_perfdata_decode_sample (pd, c, &r, err);
  else
    {
      rc = sfdo_perfdata_decode_trailer (pd, c, &r, err);
      if (!rc)
        rc = kernel_record (pd, c, &r, err);
    }
  if (rc || (type == SFDO_PERFDATA_SAMPLE && !r.attr) || !fn)
    return rc;
  pd->stats.delivered++;
  *stop = fn (&r, ctx) == SFDO_PERFDATA_CB_STOP;
  return SFDO_OK;
}

static int
header_type (uint32_t type)
{
  return type == PD_HEADER_ATTR || type == PD_HEADER_FEATURE
         || type == PD_HEADER_EVENT_TYPE || type == PD_HEADER_TRACING_DATA
         || type == PD_HEADER_BUILD_ID || type == PD_EVENT_UPDATE
         || type == PD_FINISHED_INIT || type == PD_ID_INDEX
         || (type >= PD_AUXTRACE_INFO + 2 && type <= 79);
}

/* Pipe mode: read the header records (attrs, features, ...) up to
   FINISHED_INIT or the first other record, which is kept for the walk.  */
enum sfdo_errc
sfdo_perfdata_read_pipe_init (struct sfdo_perfdata *pd, struct sfdo_error *err)
{
  for (;;)
    {
      struct pd_cur c;
      int have, stop = 0;
      enum sfdo_errc rc = next_record (pd, &c, &have, err);
      if (rc)
        return rc;
      if (!have)
        return (pd->at_end = 1, SFDO_OK);
      uint32_t type = sfdo_perfdata_le32 (c.p);
      if (!header_type (type))
        {
          pd->pending = 1;
          pd->pending_cur = c;
          return SFDO_OK;
        }
      if ((rc = process (pd, &c, NULL, NULL, &stop, err)))
        return rc;
      if (type == PD_FINISHED_INIT)
        return SFDO_OK;
    }
}

enum sfdo_errc
sfdo_perfdata_foreach_record (struct sfdo_perfdata *pd,
                              sfdo_perfdata_record_fn fn, void *ctx,
                              struct sfdo_error *err)
{
  if (pd->sticky)
    return sfdo_error_set (err, pd->sticky, pd->sticky_err.path,
                           pd->sticky_err.offset, 0, 0, "%s",
                           pd->sticky_err.msg);
  if (!fn)
    return sfdo_error_set (err, SFDO_E_USAGE, pd->name, SFDO_NO_OFFSET, 0, 0,
                           "no callback");
  while (!pd->at_end)
    {
      struct pd_cur c;
      int have = 1, stop = 0;
      enum sfdo_errc rc = SFDO_OK;
      if (pd->pending)
        {
          c = pd->pending_cur;
          pd->pending = 0;
        }
      else
        rc = next_record (pd, &c, &have, err);
      if (!rc && !have)
        pd->at_end = 1;
      if (!rc && have)
        {
          rc = process (pd, &c, fn, ctx, &stop, err);
          if ((rc == SFDO_E_MALFORMED || rc == SFDO_E_TRUNCATED)
              && (pd->flags & SFDO_PERFDATA_SKIP_BAD))
            rc = sfdo_perfdata_skip_bad (pd, err, c.len);
        }
      if (rc)
        return rc;
      if (stop)
        break;
    }
  return SFDO_OK;
}
