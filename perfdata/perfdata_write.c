/* perfdata/perfdata_write.c - the perf.data writer: the file, its header,
   attrs and feature sections (perfdata_write.h).  Record encoding is in
   perfdata_encode.c.

   Feature section layouts (perf's tools/perf/util/header.c):
     strings    u32 len (a multiple of 64, the NUL and padding included),
                then len bytes
     NRCPUS     u32 nr_cpus_avail, u32 nr_cpus_online
     TOTAL_MEM  u64 kB
     CMDLINE    u32 nr, then nr strings
     EVENT_DESC u32 nr, u32 attr_size, then nr of { attr; u32 nr_ids;
                string name; u64 ids[nr_ids] }
     BUILD_ID   build_id_event records (see perfdata_header.c)  */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "../common/xalloc.h"
#include "perfdata_write_int.h"

#define OUT_BUFFER (1u << 20)

static enum sfdo_errc
io_error (struct sfdo_perfdata_writer *w, struct sfdo_error *err,
          const char *what)
{
  if (!w->failed)
    w->failed = sfdo_error_sys (&w->first_err, w->tmp_path, what);
  if (err && !err->code)
    *err = w->first_err;
  return w->failed;
}

enum sfdo_errc
sfdo_perfdata_writer_bytes (struct sfdo_perfdata_writer *w, const void *p,
                            size_t n, struct sfdo_error *err)
{
  if (w->failed)
    {
      if (err)
        *err = w->first_err;
      return w->failed;
    }
  if (n && fwrite (p, 1, n, w->f) != n)
    return io_error (w, err, "cannot write");
  w->pos += n;
  return SFDO_OK;
}

static enum sfdo_errc
put_u32 (struct sfdo_perfdata_writer *w, uint32_t v, struct sfdo_error *err)
{
  return sfdo_perfdata_writer_bytes (w, &v, 4, err);
}

static enum sfdo_errc
put_u64 (struct sfdo_perfdata_writer *w, uint64_t v, struct sfdo_error *err)
{
  return sfdo_perfdata_writer_bytes (w, &v, 8, err);
}

/* A feature string: u32 padded length, then the string, NUL-padded.  */
static enum sfdo_errc
put_string (struct sfdo_perfdata_writer *w, const char *s,
            struct sfdo_error *err)
{
  static const char zeros[PD_NAME_ALIGN];
  size_t len = strlen (s) + 1;
  size_t padded = (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
  put_u32 (w, (uint32_t) padded, err);
  sfdo_perfdata_writer_bytes (w, s, len, err);
  return sfdo_perfdata_writer_bytes (w, zeros, padded - len, err);
}

enum sfdo_errc
sfdo_perfdata_writer_open (const char *path, struct sfdo_perfdata_writer **out,
                           struct sfdo_error *err)
{
  *out = NULL;
  struct stat st;
  /* Renaming a finished file over a device or a FIFO would replace it
     (as root, /dev/null itself); and the header is written last, at
     offset 0, so the output must be a file.  */
  if (stat (path, &st) == 0 && !S_ISREG (st.st_mode))
    return sfdo_error_set (err, SFDO_E_USAGE, path, SFDO_NO_OFFSET, 0, 0,
                           "is not a regular file: a perf.data is written to "
                           "a file, with seeks");
  struct sfdo_perfdata_writer *w = sfdo_xcalloc (1, sizeof *w);
  w->path = sfdo_xstrndup (path, strlen (path));
  size_t n = strlen (path) + sizeof ".tmp.XXXXXX";
  w->tmp_path = sfdo_xmalloc (n);
  snprintf (w->tmp_path, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp (w->tmp_path);
  if (fd < 0 || !(w->f = fdopen (fd, "wb")))
    {
      enum sfdo_errc rc = sfdo_error_sys (err, path,
                                          "cannot create a file beside");
      if (fd >= 0)
        {
          close (fd);
          unlink (w->tmp_path);
        }
      sfdo_perfdata_writer_free_ (w);
      return rc;
    }
  w->buf = sfdo_xmalloc (OUT_BUFFER);
  setvbuf (w->f, w->buf, _IOFBF, OUT_BUFFER);
  uint8_t zeros[PD_FILE_HEADER_SIZE] = { 0 };
  sfdo_perfdata_writer_bytes (w, zeros, sizeof zeros, NULL);
  *out = w;
  return SFDO_OK;
}

void
sfdo_perfdata_writer_free_ (struct sfdo_perfdata_writer *w)
{
  for (size_t i = 0; i < w->nattrs; i++)
    {
      free (w->attrs[i].bytes);
      free (w->attrs[i].name);
      free (w->attrs[i].ids);
    }
  free (w->attrs);
  for (size_t i = 0; i < w->nbids; i++)
    free (w->bids[i].filename);
  free (w->bids);
  for (size_t i = 0; i < w->nmapped; i++)
    free ((char *) w->mapped[i].filename);
  free (w->mapped);
  free (w->mapped_set);
  sfdo_perfdata_hits_free (&w->hits);
  for (int i = 0; i < W_NSTR; i++)
    free (w->host_str[i]);
  for (int i = 0; i < w->host.argc; i++)
    free (w->argv[i]);
  free (w->argv);
  free (w->scratch);
  free (w->path);
  free (w->tmp_path);
  free (w->buf);
  free (w);
}

void
sfdo_perfdata_writer_abort (struct sfdo_perfdata_writer *w)
{
  if (!w)
    return;
  if (w->f)
    fclose (w->f);
  unlink (w->tmp_path);
  sfdo_perfdata_writer_free_ (w);
}

enum sfdo_errc
sfdo_perfdata_writer_add_attr (struct sfdo_perfdata_writer *w,
                               const void *attr, size_t size,
                               const char *name, const uint64_t *ids,
                               size_t nids, struct sfdo_error *err)
{
  if (size < PD_ATTR_SIZE_VER0 || (w->nattrs && size != w->attr_size))
    return sfdo_error_set (err, SFDO_E_USAGE, w->path, SFDO_NO_OFFSET, 0, 0,
                           "perf_event_attr of %zu bytes (the first had"
                           " %zu; at least 64)", size, w->attr_size);
  sfdo_xgrow (&w->attrs, &w->attrs_cap, w->nattrs + 1, sizeof *w->attrs);
  struct w_attr *a = &w->attrs[w->nattrs++];
  w->attr_size = size;
  a->bytes = sfdo_xmalloc (size);
  memcpy (a->bytes, attr, size);
  name = name ? name : "";
  a->name = sfdo_xstrndup (name, strlen (name));
  a->ids = sfdo_xmalloc ((nids ? nids : 1) * sizeof *a->ids);
  if (nids)
    memcpy (a->ids, ids, nids * sizeof *ids);
  a->nids = nids;
  memcpy (&a->sample_type, a->bytes + 24, 8);
  memcpy (&a->read_format, a->bytes + 32, 8);
  memcpy (&a->flags, a->bytes + 40, 8);
  if (size >= 80)
    memcpy (&a->branch_sample_type, a->bytes + 72, 8);
  if (size >= 88)
    memcpy (&a->regs_user, a->bytes + 80, 8);
  if (size >= 104)
    memcpy (&a->regs_intr, a->bytes + 96, 8);
  return SFDO_OK;
}

static char *
dup_or_null (const char *s)
{
  return s ? sfdo_xstrndup (s, strlen (s)) : NULL;
}

void
sfdo_perfdata_writer_set_host (struct sfdo_perfdata_writer *w,
                               const struct sfdo_perfdata_host *host)
{
  const char *src[W_NSTR] = { host->hostname, host->osrelease, host->version,
                              host->arch, host->cpudesc, host->cpuid };
  for (int i = 0; i < W_NSTR; i++)
    {
      free (w->host_str[i]);
      w->host_str[i] = dup_or_null (src[i]);
    }
  for (int i = 0; i < w->host.argc; i++)
    free (w->argv[i]);
  free (w->argv);
  w->host = *host;
  w->argv = sfdo_xcalloc (host->argc ? (size_t) host->argc : 1,
                          sizeof *w->argv);
  for (int i = 0; i < host->argc; i++)
    w->argv[i] = dup_or_null (host->argv[i] ? host->argv[i] : "");
}

enum sfdo_errc
sfdo_perfdata_writer_add_build_id (struct sfdo_perfdata_writer *w,
                                   int32_t pid, uint16_t misc,
                                   const uint8_t *id, uint8_t size,
                                   const char *filename,
                                   struct sfdo_error *err)
{
  if (size > 20)
    return sfdo_error_set (err, SFDO_E_USAGE, filename, SFDO_NO_OFFSET, 0, 0,
                           "build-id of %u bytes (at most 20)", size);
  sfdo_xgrow (&w->bids, &w->bids_cap, w->nbids + 1, sizeof *w->bids);
  struct w_build_id *b = &w->bids[w->nbids++];
  memset (b, 0, sizeof *b);
  b->pid = pid;
  b->misc = misc;
  b->size = size;
  memcpy (b->id, id, size);
  b->filename = sfdo_xstrndup (filename, strlen (filename));
  return SFDO_OK;
}

uint64_t
sfdo_perfdata_writer_data_size (const struct sfdo_perfdata_writer *w)
{
  return w->pos - PD_FILE_HEADER_SIZE;
}

/* --- features --------------------------------------------------------- */

static enum sfdo_errc
write_build_ids (struct sfdo_perfdata_writer *w, struct sfdo_error *err)
{
  static const char zeros[PD_NAME_ALIGN];
  for (size_t i = 0; i < w->nbids; i++)
    {
      const struct w_build_id *b = &w->bids[i];
      size_t len = strlen (b->filename) + 1;
      size_t padded = (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN
                      * PD_NAME_ALIGN;
      uint8_t ev[PD_BUILD_ID_EVENT_SIZE] = { 0 };
      uint32_t type = 0;
      uint16_t misc = b->misc | PD_MISC_BUILD_ID_SIZE;
      uint16_t size = (uint16_t) (sizeof ev + padded);
      memcpy (ev, &type, 4);
      memcpy (ev + 4, &misc, 2);
      memcpy (ev + 6, &size, 2);
      memcpy (ev + 8, &b->pid, 4);
      memcpy (ev + 12, b->id, b->size);
      ev[12 + 20] = b->size;
      sfdo_perfdata_writer_bytes (w, ev, sizeof ev, err);
      sfdo_perfdata_writer_bytes (w, b->filename, len, err);
      sfdo_perfdata_writer_bytes (w, zeros, padded - len, err);
    }
  return w->failed;
}

static enum sfdo_errc
write_event_desc (struct sfdo_perfdata_writer *w, struct sfdo_error *err)
{
  put_u32 (w, (uint32_t) w->nattrs, err);
  put_u32 (w, (uint32_t) w->attr_size, err);
  for (size_t i = 0; i < w->nattrs; i++)
    {
      const struct w_attr *a = &w->attrs[i];
      sfdo_perfdata_writer_bytes (w, a->bytes, w->attr_size, err);
      put_u32 (w, (uint32_t) a->nids, err);
      put_string (w, a->name, err);
      sfdo_perfdata_writer_bytes (w, a->ids, a->nids * 8, err);
    }
  return w->failed;
}

/* Whether feature FEAT has something to say.  */
static int
have_feature (const struct sfdo_perfdata_writer *w, unsigned feat)
{
  switch (feat)
    {
    case PD_FEAT_BUILD_ID: return w->nbids > 0;
    case PD_FEAT_HOSTNAME: return w->host_str[0] != NULL;
    case PD_FEAT_OSRELEASE: return w->host_str[1] != NULL;
    case PD_FEAT_VERSION: return w->host_str[2] != NULL;
    case PD_FEAT_ARCH: return w->host_str[3] != NULL;
    case PD_FEAT_NRCPUS: return w->host.nr_cpus_avail > 0;
    case PD_FEAT_CPUDESC: return w->host_str[4] != NULL;
    case PD_FEAT_CPUID: return w->host_str[5] != NULL;
    case PD_FEAT_TOTAL_MEM: return w->host.total_mem_kb > 0;
    case PD_FEAT_CMDLINE: return w->host.argc > 0;
    case PD_FEAT_EVENT_DESC: return w->nattrs > 0;
    default: return 0;
    }
}

static enum sfdo_errc
write_feature (struct sfdo_perfdata_writer *w, unsigned feat,
               struct sfdo_error *err)
{
  switch (feat)
    {
    case PD_FEAT_BUILD_ID: return write_build_ids (w, err);
    case PD_FEAT_HOSTNAME: return put_string (w, w->host_str[0], err);
    case PD_FEAT_OSRELEASE: return put_string (w, w->host_str[1], err);
    case PD_FEAT_VERSION: return put_string (w, w->host_str[2], err);
    case PD_FEAT_ARCH: return put_string (w, w->host_str[3], err);
    case PD_FEAT_NRCPUS:
      put_u32 (w, w->host.nr_cpus_avail, err);
      return put_u32 (w, w->host.nr_cpus_online, err);
    case PD_FEAT_CPUDESC: return put_string (w, w->host_str[4], err);
    case PD_FEAT_CPUID: return put_string (w, w->host_str[5], err);
    case PD_FEAT_TOTAL_MEM: return put_u64 (w, w->host.total_mem_kb, err);
    case PD_FEAT_CMDLINE:
      put_u32 (w, (uint32_t) w->host.argc, err);
      for (int i = 0; i < w->host.argc; i++)
        put_string (w, w->argv[i], err);
      return w->failed;
    case PD_FEAT_EVENT_DESC: return write_event_desc (w, err);
    default: return SFDO_OK;
    }
}

/* After the data: the feature table, then each section, then patch the
   table.  Sets FEATS, the adds_features bitmap.  */
static enum sfdo_errc
write_features (struct sfdo_perfdata_writer *w, uint64_t feats[4],
                struct sfdo_error *err)
{
  uint64_t table_off = w->pos, sections[2 * 16];
  unsigned n = 0;
  for (unsigned f = 0; f < 16; f++)
    if (have_feature (w, f))
      {
        feats[f / 64] |= 1ull << (f % 64);
        n++;
      }
  memset (sections, 0, sizeof sections);
  sfdo_perfdata_writer_bytes (w, sections, n * 16, err);
  for (unsigned f = 0, k = 0; f < 16; f++)
    if (have_feature (w, f))
      {
        sections[2 * k] = w->pos;
        write_feature (w, f, err);
        sections[2 * k + 1] = w->pos - sections[2 * k];
        k++;
      }
  if (!w->failed && (fflush (w->f) || fseeko (w->f, (off_t) table_off,
                                               SEEK_SET)))
    return io_error (w, err, "cannot write");
  uint64_t end = w->pos;
  sfdo_perfdata_writer_bytes (w, sections, n * 16, err);
  if (!w->failed && (fflush (w->f) || fseeko (w->f, (off_t) end, SEEK_SET)))
    return io_error (w, err, "cannot write");
  w->pos = end;
  return w->failed;
}

/* Each attr's ids, then the attrs section; returns its offset.  */
static uint64_t
write_attrs (struct sfdo_perfdata_writer *w, struct sfdo_error *err)
{
  uint64_t *ids_off = sfdo_xcalloc (w->nattrs + 1, sizeof *ids_off);
  for (size_t i = 0; i < w->nattrs; i++)
    {
      ids_off[i] = w->pos;
      sfdo_perfdata_writer_bytes (w, w->attrs[i].ids, w->attrs[i].nids * 8,
                                  err);
    }
  uint64_t attrs_off = w->pos;
  for (size_t i = 0; i < w->nattrs; i++)
    {
      sfdo_perfdata_writer_bytes (w, w->attrs[i].bytes, w->attr_size, err);
      put_u64 (w, ids_off[i], err);
      put_u64 (w, w->attrs[i].nids * 8, err);
    }
  free (ids_off);
  return attrs_off;
}

static enum sfdo_errc
write_header (struct sfdo_perfdata_writer *w, uint64_t data_end,
              uint64_t attrs_off, const uint64_t feats[4],
              struct sfdo_error *err)
{
  uint64_t h[13] = { PD_MAGIC, PD_FILE_HEADER_SIZE, w->attr_size + 16,
                     attrs_off, w->nattrs * (w->attr_size + 16),
                     PD_FILE_HEADER_SIZE, data_end - PD_FILE_HEADER_SIZE,
                     0, 0, feats[0], feats[1], feats[2], feats[3] };
  if (!w->failed && (fflush (w->f) || fseeko (w->f, 0, SEEK_SET)))
    return io_error (w, err, "cannot write");
  return sfdo_perfdata_writer_bytes (w, h, sizeof h, err);
}

enum sfdo_errc
sfdo_perfdata_writer_finish (struct sfdo_perfdata_writer *w,
                             struct sfdo_error *err)
{
  if (!w->nattrs && !w->failed)
    w->failed = sfdo_error_set (&w->first_err, SFDO_E_USAGE, w->path,
                                SFDO_NO_OFFSET, 0, 0,
                                "a perf.data needs at least one event");
  uint64_t feats[4] = { 0 }, data_end = w->pos;
  write_features (w, feats, err);
  uint64_t attrs_off = write_attrs (w, err);
  write_header (w, data_end, attrs_off, feats, err);
  FILE *f = w->f;
  w->f = NULL;
  /* No fsync: like perf record, leave that to the kernel; a recording
     is cheap to redo, and waiting on the disk would lengthen every run.  */
  if (fflush (f) != 0)
    io_error (w, err, "cannot write");
  if (fclose (f) != 0)
    io_error (w, err, "cannot write");
  if (!w->failed && rename (w->tmp_path, w->path) != 0)
    io_error (w, err, "cannot rename to the output name");
  enum sfdo_errc rc = w->failed;
  if (rc && err && !err->code)
    *err = w->first_err;
  sfdo_perfdata_writer_abort (w);   /* unlinks nothing once renamed */
  return rc;
}
