/* perfdata/perfdata_header.c - opening a perf.data: the file header, the
   attrs with their ids, and the feature sections BUILD_ID and EVENT_DESC.

   File format (perf's tools/perf/util/header.h):
     u64 magic "PERFILE2"; u64 size (104, or 72 without adds_features);
     u64 attr_size; {u64 offset, size} attrs, data, event_types;
     u64 adds_features[4]
   attrs: size / attr_size entries of { perf_event_attr (attr_size - 16
     bytes); {u64 offset, size} ids (an array of u64) }.
   features: after the data section, one {u64 offset, size} per bit set in
     adds_features, in bit order.
   BUILD_ID: records of { perf_event_header; s32 pid; u8 build_id[24];
     char filename[] } to the end of the section; with misc bit 15 set,
     build_id[20] holds the id's size.
   EVENT_DESC: u32 nr, u32 attr_size, then nr of { attr (attr_size bytes);
     u32 nr_ids; u32 len; char name[len]; u64 ids[nr_ids] }.  */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/xalloc.h"
#include "perfdata_int.h"

/* The id map: open addressing, ATTR is the attr's index + 1 (0: empty);
   the first attr to claim an id keeps it.  */
static size_t
id_slot (const struct sfdo_perfdata *pd, uint64_t id)
{
  size_t mask = pd->idmap_cap - 1;
  size_t i = (size_t) ((id * 0x9e3779b97f4a7c15ull) >> 17) & mask;
  while (pd->idmap[i].attr && pd->idmap[i].id != id)
    i = (i + 1) & mask;
  return i;
}

static void
id_insert (struct sfdo_perfdata *pd, uint64_t id, size_t attr)
{
  if ((pd->nidmap + 1) * 2 > pd->idmap_cap)
    {
      struct pd_idmap *old = pd->idmap;
      size_t old_cap = pd->idmap_cap;
      pd->idmap_cap = old_cap ? old_cap * 2 : 16;
      pd->idmap = sfdo_xcalloc (pd->idmap_cap, sizeof *pd->idmap);
      for (size_t i = 0; i < old_cap; i++)
        if (old[i].attr)
          pd->idmap[id_slot (pd, old[i].id)] = old[i];
      free (old);
    }
  size_t i = id_slot (pd, id);
  if (!pd->idmap[i].attr)
    {
      pd->idmap[i] = (struct pd_idmap) { id, attr + 1 };
      pd->nidmap++;
    }
}

static ptrdiff_t
find_attr_index (const struct sfdo_perfdata *pd, uint64_t id)
{
  if (!pd->nidmap)
    return -1;
  size_t i = id_slot (pd, id);
  return pd->idmap[i].attr ? (ptrdiff_t) pd->idmap[i].attr - 1 : -1;
}

const struct sfdo_perfdata_attr *
sfdo_perfdata_find_attr (const struct sfdo_perfdata *pd, uint64_t id)
{
  ptrdiff_t i = find_attr_index (pd, id);
  return i < 0 ? NULL : &pd->attrs[i]->pub;
}

/* Decode the perf_event_attr at C (ATTR_LEN bytes available there; the
   cursor moves past them) and its ids from IDS (NULL: none).  */
enum sfdo_errc
sfdo_perfdata_add_attr (struct sfdo_perfdata *pd, struct pd_cur *c,
                        size_t attr_len, struct pd_cur *ids,
                        struct sfdo_error *err)
{
  uint8_t a[136] = { 0 };
  const uint8_t *p;
  if (attr_len < PD_ATTR_SIZE_VER0 || sfdo_perfdata_cur_bytes (c, attr_len, &p))
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                  "perf_event_attr (shorter than 64 bytes)");
  uint32_t size = sfdo_perfdata_le32 (p + 4);
  if (size == 0)
    size = PD_ATTR_SIZE_VER0;
  size_t n = size < attr_len ? size : attr_len;
  memcpy (a, p, n < sizeof a ? n : sizeof a);
  size_t nids = ids ? (ids->len - ids->pos) / 8 : 0;
  pd->total_ids += nids;
  if (pd->src.size != UINT64_MAX && pd->total_ids > pd->src.size / 8)
    return sfdo_perfdata_cur_err (pd, err, ids, SFDO_E_MALFORMED,
                                  "attr ids (more ids than the file holds)");
  sfdo_xgrow (&pd->attrs, &pd->attrs_cap, pd->nattrs + 1, sizeof *pd->attrs);
  struct pd_attr *pa = sfdo_xcalloc (1, sizeof *pa);
  pd->attrs[pd->nattrs] = pa;
  struct sfdo_perfdata_attr *at = &pa->pub;
  at->type = sfdo_perfdata_le32 (a);
  at->size = size;
  at->config = sfdo_perfdata_le64 (a + 8);
  at->sample_period = sfdo_perfdata_le64 (a + 16);
  at->sample_type = sfdo_perfdata_le64 (a + 24);
  at->read_format = sfdo_perfdata_le64 (a + 32);
  at->flags = sfdo_perfdata_le64 (a + 40);
  at->freq = (at->flags >> 10) & 1;
  at->sample_id_all = (at->flags >> 18) & 1;
  at->exclude_user = (at->flags >> 4) & 1;
  at->exclude_kernel = (at->flags >> 5) & 1;
  at->config1 = sfdo_perfdata_le64 (a + 56);
  at->config2 = sfdo_perfdata_le64 (a + 64);
  at->branch_sample_type = sfdo_perfdata_le64 (a + 72);
  at->sample_regs_user = sfdo_perfdata_le64 (a + 80);
  at->sample_stack_user = sfdo_perfdata_le32 (a + 88);
  at->sample_regs_intr = sfdo_perfdata_le64 (a + 96);
  at->sample_max_stack = sfdo_perfdata_le16 (a + 108);
  if (nids)
    {
      pa->ids = sfdo_xmalloc (nids * sizeof *pa->ids);
      for (size_t i = 0; i < nids; i++)
        sfdo_perfdata_cur_u64 (ids, &pa->ids[i]);
    }
  at->nids = nids;
  at->ids = pa->ids;
  for (size_t i = 0; i < nids; i++)
    id_insert (pd, pa->ids[i], pd->nattrs);
  pd->nattrs++;
  return SFDO_OK;
}

/* Name the attr with sample id ID (or, if none has it, attr FALLBACK)
   after the N bytes at S (up to the first NUL).  */
void
sfdo_perfdata_set_name (struct sfdo_perfdata *pd, uint64_t id,
                        size_t fallback, const uint8_t *s, size_t n)
{
  ptrdiff_t i = find_attr_index (pd, id);
  if (i < 0 && fallback < pd->nattrs)
    i = (ptrdiff_t) fallback;
  if (i < 0)
    return;
  struct pd_attr *pa = pd->attrs[i];
  free (pa->name);
  pa->name = sfdo_xstrndup ((const char *) s, strnlen ((const char *) s, n));
  pa->pub.name = pa->name;
}

/* One build_id_event at C, whose header says how long it is.  */
enum sfdo_errc
sfdo_perfdata_add_build_id (struct sfdo_perfdata *pd, struct pd_cur *c,
                            struct sfdo_error *err)
{
  struct pd_cur start = *c;
  const uint8_t *p;
  if (c->len - c->pos < 8)
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                  "build-id record header");
  uint16_t misc = sfdo_perfdata_le16 (c->p + c->pos + 4);
  uint16_t size = sfdo_perfdata_le16 (c->p + c->pos + 6);
  if (size < 8 + 4 + 24 || sfdo_perfdata_cur_bytes (c, size, &p))
    return sfdo_perfdata_cur_err (pd, err, &start, SFDO_E_MALFORMED,
                                  "build-id record size");
  struct sfdo_perfdata_build_id b;
  memset (&b, 0, sizeof b);
  b.pid = (int32_t) sfdo_perfdata_le32 (p + 8);
  b.misc = misc;
  memcpy (b.id, p + 12, 20);
  b.size = 20;
  if (misc & PD_MISC_BUILD_ID_SIZE)
    {
      b.size = p[32];
      if (b.size > 20)
        return sfdo_perfdata_cur_err (pd, err, &start, SFDO_E_MALFORMED,
                                      "build-id size (over 20)");
      memset (b.id + b.size, 0, 20 - b.size);
    }
  sfdo_xgrow (&pd->bids, &pd->bids_cap, pd->nbids + 1, sizeof *pd->bids);
  struct pd_build_id *pb = &pd->bids[pd->nbids++];
  const char *name = (const char *) p + PD_BUILD_ID_EVENT_SIZE;
  pb->filename = sfdo_xstrndup (name, strnlen (name, size - PD_BUILD_ID_EVENT_SIZE));
  pb->pub = b;
  pb->pub.filename = pb->filename;
  return SFDO_OK;
}

static enum sfdo_errc
read_event_desc (struct sfdo_perfdata *pd, struct pd_cur *c,
                 struct sfdo_error *err)
{
  uint32_t nr, asz;
  if (sfdo_perfdata_cur_u32 (c, &nr) || sfdo_perfdata_cur_u32 (c, &asz))
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED, "EVENT_DESC");
  for (uint32_t i = 0; i < nr; i++)
    {
      uint32_t nids, len;
      const uint8_t *name, *ids;
      if (sfdo_perfdata_cur_bytes (c, asz, NULL)
          || sfdo_perfdata_cur_u32 (c, &nids)
          || sfdo_perfdata_cur_u32 (c, &len)
          || sfdo_perfdata_cur_bytes (c, len, &name)
          || nids > (c->len - c->pos) / 8
          || sfdo_perfdata_cur_bytes (c, (size_t) nids * 8, &ids))
        return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                      "EVENT_DESC entry");
      uint64_t id = nids ? sfdo_perfdata_le64 (ids) : UINT64_MAX;
      sfdo_perfdata_set_name (pd, id, nids ? SIZE_MAX : i, name, len);
    }
  return SFDO_OK;
}

/* Decode feature FEAT, whose bytes are at C; unknown ones are counted.  */
enum sfdo_errc
sfdo_perfdata_feature (struct sfdo_perfdata *pd, unsigned feat,
                       struct pd_cur *c, struct sfdo_error *err)
{
  pd->stats.features++;
  if (feat < PD_NFEATS)
    pd->feats[feat / 8] |= (uint8_t) (1u << (feat % 8));
  if (feat == SFDO_PERFDATA_FEAT_EVENT_DESC)
    return read_event_desc (pd, c, err);
  if (feat != SFDO_PERFDATA_FEAT_BUILD_ID)
    {
      pd->stats.unknown_features++;
      return SFDO_OK;
    }
  while (c->pos < c->len)
    {
      enum sfdo_errc rc = sfdo_perfdata_add_build_id (pd, c, err);
      if (rc)
        return rc;
    }
  return SFDO_OK;
}

/* Read the section {OFF, SIZE} wholly into a malloc'd buffer *BUF (the
   file size bounds it); WHAT names it in errors.  */
static enum sfdo_errc
read_section (struct sfdo_perfdata *pd, uint64_t off, uint64_t size,
              uint8_t **buf, const char *what, uint64_t where,
              struct sfdo_error *err)
{
  *buf = NULL;
  if (off > pd->src.size || size > pd->src.size - off)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, where,
                              "%s [%#llx, +%#llx) is past the end of the file",
                              what, (unsigned long long) off,
                              (unsigned long long) size);
  enum sfdo_errc rc = sfdo_perfdata_src_seek (pd, off, err);
  if (rc)
    return rc;
  size_t got;
  *buf = sfdo_xmalloc (size ? (size_t) size : 1);
  rc = sfdo_perfdata_src_read (pd, *buf, (size_t) size, &got, err);
  if (!rc && got < size)
    rc = sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, off, "%s", what);
  return rc;
}

static enum sfdo_errc
read_attrs (struct sfdo_perfdata *pd, const uint8_t *h, struct sfdo_error *err)
{
  uint64_t asz = sfdo_perfdata_le64 (h + 16);
  uint64_t off = sfdo_perfdata_le64 (h + 24);
  uint64_t size = sfdo_perfdata_le64 (h + 32);
  if (asz < PD_ATTR_SIZE_VER0 + 16 || asz > PD_RECORD_MAX)
    return sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, 16,
                              "attr_size %llu", (unsigned long long) asz);
  uint8_t *buf, *ids = NULL;
  enum sfdo_errc rc = read_section (pd, off, size, &buf, "attrs section", 24,
                                    err);
  for (uint64_t i = 0; !rc && i < size / asz; i++)
    {
      struct pd_cur c = { buf + i * asz, (size_t) asz, 0, off + i * asz, 0, 0 };
      uint64_t ioff = sfdo_perfdata_le64 (c.p + asz - 16);
      uint64_t isize = sfdo_perfdata_le64 (c.p + asz - 8);
      rc = read_section (pd, ioff, isize, &ids, "attr ids", c.base + asz - 16,
                         err);
      struct pd_cur ic = { ids, (size_t) isize, 0, ioff, 0, 0 };
      if (!rc)
        rc = sfdo_perfdata_add_attr (pd, &c, (size_t) asz - 16, &ic, err);
      free (ids);
      ids = NULL;
    }
  free (buf);
  return rc;
}

static enum sfdo_errc
read_features (struct sfdo_perfdata *pd, const uint8_t *h, size_t hsize,
               struct sfdo_error *err)
{
  unsigned nfeat = 0;
  if (hsize < PD_FILE_HEADER_SIZE)
    return SFDO_OK;
  for (unsigned f = 0; f < PD_NFEATS; f++)
    nfeat += (h[72 + f / 8] >> (f % 8)) & 1;
  uint8_t *table, *buf = NULL;
  enum sfdo_errc rc = read_section (pd, pd->data_end, nfeat * 16ull, &table,
                                    "feature table", pd->data_end, err);
  for (unsigned f = 0, k = 0; !rc && f < PD_NFEATS; f++)
    {
      if (!((h[72 + f / 8] >> (f % 8)) & 1))
        continue;
      uint64_t off = sfdo_perfdata_le64 (table + k * 16);
      uint64_t size = sfdo_perfdata_le64 (table + k * 16 + 8);
      uint64_t where = pd->data_end + k++ * 16;
      if (off > pd->src.size || size > pd->src.size - off)
        rc = sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, where,
                                "feature %u section is past the end of the"
                                " file", f);
      if (f != SFDO_PERFDATA_FEAT_BUILD_ID
          && f != SFDO_PERFDATA_FEAT_EVENT_DESC)
        size = 0;   /* not decoded: don't read it */
      if (!rc)
        rc = read_section (pd, off, size, &buf, "feature section", where,
                           err);
      struct pd_cur c = { buf, (size_t) size, 0, off, 0, 0 };
      if (!rc)
        rc = sfdo_perfdata_feature (pd, f, &c, err);
      free (buf);
      buf = NULL;
    }
  free (table);
  return rc;
}

/* Whether records follow the header of a file whose header lists no
   data (a finished file with no records has its feature table there,
   whose first word, an offset past the header, is no record header).  */
static int
records_follow (struct sfdo_perfdata *pd, struct sfdo_error *err)
{
  uint8_t h[8];
  size_t got;
  uint64_t room = pd->src.size - pd->data_off;
  return room >= 8 && !sfdo_perfdata_src_seek (pd, pd->data_off, err)
         && !sfdo_perfdata_src_read (pd, h, 8, &got, err) && got == 8
         && sfdo_perfdata_plausible_header (h, room);
}

/* Whether the data section [data_off, +DSIZE) is in the file.  Two ways
   it is not: perf record was stopped before it completed the header
   (killed, or the disk filled: the data size is still 0, yet records
   follow), or the file was cut short (an incomplete copy).  With
   SKIP_BAD, *SALVAGE is set and the records up to the end of the file
   are read (the feature sections, which follow the data, are lost).  */
static enum sfdo_errc
check_data_section (struct sfdo_perfdata *pd, uint64_t dsize, int *salvage,
                    struct sfdo_error *err)
{
  uint64_t size = pd->src.size, off = pd->data_off;
  int skip = (pd->flags & SFDO_PERFDATA_SKIP_BAD) != 0;
  enum sfdo_errc rc;
  if (off > size)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 40,
                              "the data section starts at %#llx, past the "
                              "end of the file (%#llx): the file is cut "
                              "short", (unsigned long long) off,
                              (unsigned long long) size);
  if (dsize == 0 && records_follow (pd, err))
    rc = sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 48,
                            "the header lists no data, yet %llu bytes follow "
                            "it: perf record was stopped before it finished "
                            "the file (killed, or the disk filled)%s",
                            (unsigned long long) (size - off),
                            skip ? "; reading them" : "; "
                            "--skip-bad-records reads them anyway");
  else if (dsize > size - off)
    rc = sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 40,
                            "the data section [%#llx, +%#llx) runs past the "
                            "end of the file (%#llx): the file is cut short "
                            "(an incomplete copy?)%s",
                            (unsigned long long) off,
                            (unsigned long long) dsize,
                            (unsigned long long) size,
                            skip ? "; reading what is there" : "; "
                            "--skip-bad-records reads what is there");
  else
    return SFDO_OK;
  if (!skip)
    return rc;
  *salvage = 1;
  return sfdo_perfdata_skip_bad (pd, err, 0);
}

/* The rest of a file-mode header (the first 16 bytes are in H).  */
static enum sfdo_errc
read_file_header (struct sfdo_perfdata *pd, uint8_t *h, uint64_t hsize,
                  struct sfdo_error *err)
{
  size_t got;
  if (!pd->src.mem && !pd->src.seekable)
    return sfdo_perfdata_err (pd, err, SFDO_E_USAGE, 0,
                              "a perf.data in file mode needs a seekable input"
                              " (record with -o - for pipe mode)");
  if (hsize != 72 && hsize != PD_FILE_HEADER_SIZE)
    return sfdo_perfdata_err (pd, err, SFDO_E_MALFORMED, 8,
                              "header size %llu", (unsigned long long) hsize);
  enum sfdo_errc rc = sfdo_perfdata_src_read (pd, h + 16, hsize - 16, &got,
                                              err);
  if (rc)
    return rc;
  if (got < hsize - 16)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 0,
                              "the file header is cut short: %zu of %llu "
                              "bytes", got + 16, (unsigned long long) hsize);
  pd->data_off = sfdo_perfdata_le64 (h + 40);
  uint64_t dsize = sfdo_perfdata_le64 (h + 48);
  int salvage = 0;
  rc = check_data_section (pd, dsize, &salvage, err);
  if (rc)
    return rc;
  pd->data_end = salvage ? pd->src.size : pd->data_off + dsize;
  rc = read_attrs (pd, h, err);
  if (!rc && !salvage)
    {
      rc = read_features (pd, h, hsize, err);
      /* Without its features a file still has its records.  */
      if ((rc == SFDO_E_TRUNCATED || rc == SFDO_E_MALFORMED)
          && (pd->flags & SFDO_PERFDATA_SKIP_BAD))
        rc = sfdo_perfdata_skip_bad (pd, err, 0);
    }
  if (!rc)
    rc = sfdo_perfdata_src_seek (pd, pd->data_off, err);
  pd->at_end = pd->data_end == pd->data_off;
  return rc;
}

/* Check the magic and dispatch on the mode.  */
static enum sfdo_errc
open_common (struct sfdo_perfdata *pd, struct sfdo_error *err)
{
  uint8_t h[PD_FILE_HEADER_SIZE];
  size_t got;
  enum sfdo_errc rc = sfdo_perfdata_src_read (pd, h, 16, &got, err);
  if (rc)
    return rc;
  uint64_t magic = 0;
  if (got == 0)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 0,
                              "the file is empty: not a perf.data (was the "
                              "recording stopped before it wrote anything?)");
  memcpy (&magic, h, got < 8 ? got : 8);
  if (got < 8 ? memcmp (h, "PERFILE2", got) != 0
      : magic != PD_MAGIC && magic != PD_MAGIC_SWAPPED)
    {
      if (got >= 8 && memcmp (h, "PERFFILE", 8) == 0)
        return sfdo_perfdata_err (pd, err, SFDO_E_VERSION, 0,
                                  "perf.data version 1 (PERFFILE) is not"
                                  " supported");
      return sfdo_perfdata_err (pd, err, SFDO_E_BAD_MAGIC, 0,
                                "not a perf.data file (no PERFILE2 magic)");
    }
  if (got < 16)
    return sfdo_perfdata_err (pd, err, SFDO_E_TRUNCATED, 0,
                              "the file header is cut short: %zu bytes", got);
  if (magic == PD_MAGIC_SWAPPED)
    return sfdo_perfdata_err (pd, err, SFDO_E_VERSION, 0,
                              "byte-swapped perf.data (from a big-endian"
                              " machine) is not supported");
  uint64_t hsize = sfdo_perfdata_le64 (h + 8);
  if (hsize == PD_PIPE_HEADER_SIZE)
    {
      pd->pipe = 1;
      return sfdo_perfdata_read_pipe_init (pd, err);
    }
  return read_file_header (pd, h, hsize, err);
}

static enum sfdo_errc
finish_open (struct sfdo_perfdata *pd, struct sfdo_perfdata **out,
             struct sfdo_error *err)
{
  enum sfdo_errc rc = open_common (pd, err);
  if (rc)
    {
      sfdo_perfdata_close (pd);
      pd = NULL;
    }
  *out = pd;
  return rc;
}

enum sfdo_errc
sfdo_perfdata_open (const char *path, struct sfdo_perfdata **out,
                    struct sfdo_error *err)
{
  return sfdo_perfdata_open_flags (path, 0, out, err);
}

enum sfdo_errc
sfdo_perfdata_open_flags (const char *path, unsigned flags,
                          struct sfdo_perfdata **out, struct sfdo_error *err)
{
  *out = NULL;
  int is_stdin = strcmp (path, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : path;
  FILE *f = is_stdin ? NULL : fopen (path, "rb");
  if (is_stdin)
    {
      int copy = dup (0);
      f = copy < 0 ? NULL : fdopen (copy, "rb");
      if (!f && copy >= 0)
        close (copy);
    }
  if (!f)
    return sfdo_error_sys (err, name, is_stdin ? "cannot read" : "cannot open");
  struct stat st;
  if (fstat (fileno (f), &st) == 0 && S_ISDIR (st.st_mode))
    {
      fclose (f);
      return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                             "is a directory, not a perf.data");
    }
  struct sfdo_perfdata *pd = sfdo_perfdata_new_ (name);
  pd->flags = flags;
  sfdo_perfdata_src_init_ (pd, f, 1);
  return finish_open (pd, out, err);
}

enum sfdo_errc
sfdo_perfdata_open_stream (FILE *stream, const char *name,
                           struct sfdo_perfdata **out, struct sfdo_error *err)
{
  *out = NULL;
  if (!stream)
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "no stream");
  struct sfdo_perfdata *pd = sfdo_perfdata_new_ (name);
  sfdo_perfdata_src_init_ (pd, stream, 0);
  return finish_open (pd, out, err);
}

enum sfdo_errc
sfdo_perfdata_open_fd (int fd, const char *name, struct sfdo_perfdata **out,
                       struct sfdo_error *err)
{
  *out = NULL;
  int copy = dup (fd);
  FILE *f = copy < 0 ? NULL : fdopen (copy, "rb");
  if (!f)
    {
      enum sfdo_errc rc = sfdo_error_sys (err, name, "cannot read");
      if (copy >= 0)
        close (copy);
      return rc;
    }
  struct sfdo_perfdata *pd = sfdo_perfdata_new_ (name);
  sfdo_perfdata_src_init_ (pd, f, 1);
  return finish_open (pd, out, err);
}

enum sfdo_errc
sfdo_perfdata_open_mem (const void *buf, size_t len, const char *name,
                        struct sfdo_perfdata **out, struct sfdo_error *err)
{
  return sfdo_perfdata_open_mem_flags (buf, len, name, 0, out, err);
}

enum sfdo_errc
sfdo_perfdata_open_mem_flags (const void *buf, size_t len, const char *name,
                              unsigned flags, struct sfdo_perfdata **out,
                              struct sfdo_error *err)
{
  *out = NULL;
  struct sfdo_perfdata *pd = sfdo_perfdata_new_ (name);
  pd->flags = flags;
  static const uint8_t empty[1];
  pd->src.mem = buf ? buf : empty;
  pd->src.size = buf ? len : 0;
  pd->src.seekable = 1;
  return finish_open (pd, out, err);
}
