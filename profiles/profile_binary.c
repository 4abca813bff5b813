/* profiles/profile_binary.c - the indexed binary encoding (FORMAT.md,
 * "Binary encoding").
 *
 * Opening checks the fixed header and the section table only; a function
 * is decoded when it is asked for, so a compiler reading the profile of a
 * huge program touches only the records of its own translation unit.
 * Every read goes through a cursor that knows how many bytes remain and its
 * offset in the file, so truncation and bad references are errors with an
 * offset, never out-of-bounds reads.  */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/xalloc.h"

static const uint8_t magic[8] = { 0x89, 'S', 'F', 'D', 'O', '\r', '\n', 0x1a };
#define FIXED_HEADER_SIZE 80
#define INDEX_ENTRY_SIZE 16

int
sfdo_profile_is_binary (const void *data, size_t len)
{
  return len >= sizeof magic && memcmp (data, magic, sizeof magic) == 0;
}

/* --- Writing -------------------------------------------------------------- */

struct bytebuf {
  uint8_t *data;
  size_t len, cap;
};

static void
put_bytes (struct bytebuf *b, const void *s, size_t n)
{
  sfdo_xgrow (&b->data, &b->cap, b->len + n, 1);
  memcpy (b->data + b->len, s, n);
  b->len += n;
}

static void
put_uleb (struct bytebuf *b, uint64_t v)
{
  uint8_t tmp[10];
  size_t n = 0;
  do
    {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      tmp[n++] = byte | (v ? 0x80 : 0);
    }
  while (v);
  put_bytes (b, tmp, n);
}

static void
put_le (struct bytebuf *b, uint64_t v, size_t size)
{
  uint8_t tmp[8];
  for (size_t i = 0; i < size; i++)
    tmp[i] = (uint8_t) (v >> (8 * i));
  put_bytes (b, tmp, size);
}

struct bin_writer {
  const struct sfdo_profile *p;
  struct bytebuf strtab, meta, records, index;
  uint64_t *str_offset;         /* by string id; 0 = not yet written */
};

static void
put_sref (struct bin_writer *w, struct bytebuf *b, uint32_t id)
{
  if (id && !w->str_offset[id])
    {
      w->str_offset[id] = w->strtab.len;
      put_uleb (&w->strtab, w->p->strs[id].len);
      put_bytes (&w->strtab, w->p->strs[id].s, w->p->strs[id].len);
    }
  put_uleb (b, w->str_offset[id]);
}

static void
encode_func (struct bin_writer *w, const struct sfdo_prof_func *f)
{
  struct bytebuf *b = &w->records;
  put_sref (w, b, f->name);
  put_sref (w, b, f->file);
  put_uleb (b, f->total);
  put_uleb (b, f->head);
  put_uleb (b, f->has_checksum ? 1 : 0);
  if (f->has_checksum)
    put_uleb (b, f->checksum);
  put_uleb (b, f->nlines);
  for (size_t i = 0; i < f->nlines; i++)
    {
      const struct sfdo_prof_line *l = &f->lines[i];
      put_uleb (b, l->offset);
      put_uleb (b, l->discriminator);
      put_uleb (b, l->count);
      put_uleb (b, l->ntargets);
      for (size_t k = 0; k < l->ntargets; k++)
        {
          put_sref (w, b, l->targets[k].name);
          put_uleb (b, l->targets[k].count);
        }
    }
  put_uleb (b, f->nvalues);
  for (size_t i = 0; i < f->nvalues; i++)
    {
      const struct sfdo_prof_values *v = &f->values[i];
      put_uleb (b, v->offset);
      put_uleb (b, v->discriminator);
      put_uleb (b, v->kind);
      put_uleb (b, v->nentries);
      for (size_t k = 0; k < v->nentries; k++)
        {
          if (sfdo_value_kind_is_name (v->kind))
            put_sref (w, b, (uint32_t) v->entries[k].value);
          else
            put_uleb (b, v->entries[k].value);
          put_uleb (b, v->entries[k].count);
        }
    }
  put_uleb (b, f->ncallsites);
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      put_uleb (b, f->callsites[i].offset);
      put_uleb (b, f->callsites[i].discriminator);
      encode_func (w, f->callsites[i].callee);
    }
}

static void
encode_meta (struct bin_writer *w)
{
  const struct sfdo_prof_header *h = &w->p->hdr;
  struct bytebuf *b = &w->meta;
  put_uleb (b, h->nbuild_ids);
  for (size_t i = 0; i < h->nbuild_ids; i++)
    put_sref (w, b, h->build_ids[i]);
  put_uleb (b, h->nmodes);
  for (size_t i = 0; i < h->nmodes; i++)
    put_sref (w, b, h->modes[i]);
  put_uleb (b, h->ntools);
  for (size_t i = 0; i < h->ntools; i++)
    put_sref (w, b, h->tools[i]);
  put_uleb (b, h->nevents);
  for (size_t i = 0; i < h->nevents; i++)
    {
      put_sref (w, b, h->events[i].name);
      put_uleb (b, h->events[i].period);
      put_uleb (b, h->events[i].samples);
    }
  put_uleb (b, h->samples_used);
  put_uleb (b, h->samples_dropped);
  /* Left out when empty, so that such a file is what readers older than
     the field read.  */
  if (h->nproducers)
    put_uleb (b, h->nproducers);
  for (size_t i = 0; i < h->nproducers; i++)
    put_sref (w, b, h->producers[i]);
}

static int
index_cmp (const void *a, const void *b)
{
  uint64_t x[2], y[2];
  memcpy (x, a, sizeof x);
  memcpy (y, b, sizeof y);
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void
encode_all (struct bin_writer *w)
{
  const struct sfdo_profile *p = w->p;
  uint64_t (*entries)[2]
    = (uint64_t (*)[2]) sfdo_xcalloc (p->nfuncs ? p->nfuncs : 1,
                                      sizeof *entries);
  put_uleb (&w->strtab, 0);    /* the empty string at offset 0 */
  encode_meta (w);
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      const struct sfdo_prof_func *f = p->funcs[i];
      entries[i][0] = sfdo_fnv1a (p->strs[f->name].s, p->strs[f->name].len);
      entries[i][1] = w->records.len;
      encode_func (w, f);
    }
  qsort (entries, p->nfuncs, sizeof *entries, index_cmp);
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      put_le (&w->index, entries[i][0], 8);
      put_le (&w->index, entries[i][1], 8);
    }
  free (entries);
}

static uint64_t
align8 (uint64_t v)
{
  return (v + 7) & ~(uint64_t) 7;
}

static int
write_section (FILE *f, const struct bytebuf *b, uint64_t *pos)
{
  static const uint8_t zeros[8];
  uint64_t pad = align8 (*pos) - *pos;
  if (fwrite (zeros, 1, pad, f) != pad
      || (b->len && fwrite (b->data, 1, b->len, f) != b->len))
    return -1;
  *pos += pad + b->len;
  return 0;
}

static int
write_file (struct bin_writer *w, FILE *f)
{
  struct bytebuf hdr = { 0 };
  uint64_t strtab_off = FIXED_HEADER_SIZE;
  uint64_t meta_off = align8 (strtab_off + w->strtab.len);
  uint64_t index_off = align8 (meta_off + w->meta.len);
  uint64_t records_off = align8 (index_off + w->index.len);
  uint64_t total = records_off + w->records.len;
  put_bytes (&hdr, magic, sizeof magic);
  put_le (&hdr, SFDO_PROFILE_VERSION, 4);
  put_le (&hdr, w->p->nfuncs, 4);
  put_le (&hdr, strtab_off, 8);
  put_le (&hdr, w->strtab.len, 8);
  put_le (&hdr, meta_off, 8);
  put_le (&hdr, w->meta.len, 8);
  put_le (&hdr, index_off, 8);
  put_le (&hdr, records_off, 8);
  put_le (&hdr, w->records.len, 8);
  put_le (&hdr, total, 8);
  uint64_t pos = 0;
  int rc = write_section (f, &hdr, &pos);
  if (!rc)
    rc = write_section (f, &w->strtab, &pos);
  if (!rc)
    rc = write_section (f, &w->meta, &pos);
  if (!rc)
    rc = write_section (f, &w->index, &pos);
  if (!rc)
    rc = write_section (f, &w->records, &pos);
  free (hdr.data);
  return rc;
}

enum sfdo_errc
sfdo_binary_write (struct sfdo_profile *p, FILE *f, const char *name,
                   struct sfdo_error *err)
{
  struct bin_writer w = { .p = p };
  if (p->nfuncs > UINT32_MAX)
    return sfdo_error_set (err, SFDO_E_RANGE, name, SFDO_NO_OFFSET, 0, 0,
                           "too many functions for the binary encoding");
  w.str_offset = (uint64_t *) sfdo_xcalloc (p->nstrs, sizeof (uint64_t));
  encode_all (&w);
  int rc = write_file (&w, f);
  free (w.str_offset);
  free (w.strtab.data);
  free (w.meta.data);
  free (w.records.data);
  free (w.index.data);
  if (rc)
    return sfdo_error_sys (err, name, "write failed");
  return SFDO_OK;
}

/* --- Reading -------------------------------------------------------------- */

struct cursor {
  const uint8_t *base;          /* the whole file */
  uint64_t pos, end;            /* absolute offsets */
  struct sfdo_profile *p;
  struct sfdo_error *err;
};

static enum sfdo_errc
bad (struct cursor *c, uint64_t at, enum sfdo_errc code, const char *msg)
{
  return sfdo_error_set (c->err, code, c->p->path, at, 0, 0, "%s", msg);
}

static enum sfdo_errc
get_uleb (struct cursor *c, uint64_t *out)
{
  uint64_t v = 0, start = c->pos;
  for (unsigned shift = 0;; shift += 7)
    {
      if (c->pos >= c->end)
        return bad (c, start, SFDO_E_TRUNCATED, "truncated number");
      uint8_t byte = c->base[c->pos++];
      if (shift == 63 && byte > 1)
        return bad (c, start, SFDO_E_RANGE, "number wider than 64 bits");
      v |= (uint64_t) (byte & 0x7f) << shift;
      if (!(byte & 0x80))
        break;
      if (shift == 63)
        return bad (c, start, SFDO_E_RANGE, "number wider than 64 bits");
    }
  *out = v;
  return SFDO_OK;
}

static enum sfdo_errc
get_u32 (struct cursor *c, uint32_t *out, const char *what)
{
  uint64_t start = c->pos, v;
  enum sfdo_errc rc = get_uleb (c, &v);
  if (rc == SFDO_OK && v > UINT32_MAX)
    return bad (c, start, SFDO_E_RANGE, what);
  *out = (uint32_t) v;
  return rc;
}

/* A count of items of at least MIN_SIZE bytes each, bounded by what is
   left, so a corrupt count cannot drive a huge allocation.  */
static enum sfdo_errc
get_count (struct cursor *c, uint64_t min_size, size_t *out)
{
  uint64_t start = c->pos, v;
  enum sfdo_errc rc = get_uleb (c, &v);
  if (rc == SFDO_OK && v > (c->end - c->pos) / min_size)
    return bad (c, start, SFDO_E_TRUNCATED,
                "item count larger than the bytes that follow");
  *out = (size_t) v;
  return rc;
}

static uint64_t
read_le (const uint8_t *s, size_t size)
{
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++)
    v |= (uint64_t) s[i] << (8 * i);
  return v;
}

/* Intern the string a reference at the cursor names, which must be of
   class CLS (the same strings the text encoding can hold).  */
static enum sfdo_errc
get_sref (struct cursor *c, uint32_t *id, enum sfdo_str_class cls)
{
  uint64_t start = c->pos, ref;
  enum sfdo_errc rc = get_uleb (c, &ref);
  if (rc != SFDO_OK)
    return rc;
  const struct bin_layout *l = &c->p->bin;
  if (ref >= l->strtab_size)
    return bad (c, start, SFDO_E_MALFORMED,
                "string reference outside the string table");
  struct cursor s = { c->base, l->strtab_off + ref,
                      l->strtab_off + l->strtab_size, c->p, c->err };
  uint64_t len;
  rc = get_uleb (&s, &len);
  if (rc == SFDO_OK && len > s.end - s.pos)
    rc = bad (&s, l->strtab_off + ref, SFDO_E_TRUNCATED,
              "string runs past the string table");
  const char *bytes = (const char *) c->base + s.pos;
  const char *problem = rc == SFDO_OK
                        ? sfdo_profile_string_problem (bytes, len, cls) : NULL;
  if (problem)
    {
      char msg[96];
      snprintf (msg, sizeof msg, "string %s", problem);
      rc = bad (c, start, SFDO_E_MALFORMED, msg);
    }
  if (rc == SFDO_OK)
    *id = sfdo_profile_intern (c->p, bytes, len);
  return rc;
}

static enum sfdo_errc decode_func (struct cursor *c, unsigned depth,
                                   struct sfdo_prof_func **out);

static enum sfdo_errc
decode_lines (struct cursor *c, struct sfdo_prof_func *f)
{
  size_t n, nt = 0;
  enum sfdo_errc rc = get_count (c, 4, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint32_t off = 0, disc = 0;
      uint64_t count;
      rc = get_u32 (c, &off, "line offset out of range");
      if (rc == SFDO_OK)
        rc = get_u32 (c, &disc, "discriminator out of range");
      if (rc == SFDO_OK)
        rc = get_uleb (c, &count);
      if (rc == SFDO_OK)
        rc = get_count (c, 2, &nt);
      if (rc != SFDO_OK)
        break;
      struct sfdo_prof_line *l = sfdo_prof_func_add_line (f, off, disc, count);
      for (size_t k = 0; k < nt && rc == SFDO_OK; k++)
        {
          uint32_t name;
          rc = get_sref (c, &name, SFDO_STR_TOKEN);
          if (rc == SFDO_OK)
            rc = get_uleb (c, &count);
          if (rc == SFDO_OK)
            sfdo_prof_line_add_target (l, name, count);
        }
    }
  return rc;
}

static enum sfdo_errc
decode_values (struct cursor *c, struct sfdo_prof_func *f)
{
  size_t n, ne = 0;
  enum sfdo_errc rc = get_count (c, 4, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint32_t off = 0, disc = 0, kind = 0;
      uint64_t kind_at;
      rc = get_u32 (c, &off, "value site offset out of range");
      if (rc == SFDO_OK)
        rc = get_u32 (c, &disc, "discriminator out of range");
      kind_at = c->pos;
      if (rc == SFDO_OK)
        rc = get_u32 (c, &kind, "unknown value kind");
      if (rc == SFDO_OK && kind >= SFDO_VALUE_NKINDS)
        rc = bad (c, kind_at, SFDO_E_MALFORMED, "unknown value kind");
      if (rc == SFDO_OK)
        rc = get_count (c, 2, &ne);
      for (size_t k = 0; k < ne && rc == SFDO_OK; k++)
        {
          uint64_t value, count;
          uint32_t id;
          if (sfdo_value_kind_is_name (kind))
            {
              rc = get_sref (c, &id, SFDO_STR_TOKEN);
              value = id;
            }
          else
            rc = get_uleb (c, &value);
          if (rc == SFDO_OK)
            rc = get_uleb (c, &count);
          if (rc == SFDO_OK)
            sfdo_prof_func_add_value (f, off, disc, kind, value, count);
        }
    }
  return rc;
}

static enum sfdo_errc
decode_callsites (struct cursor *c, unsigned depth, struct sfdo_prof_func *f)
{
  size_t n;
  enum sfdo_errc rc = get_count (c, 8, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint32_t off = 0, disc = 0;
      struct sfdo_prof_func *callee;
      rc = get_u32 (c, &off, "callsite offset out of range");
      if (rc == SFDO_OK)
        rc = get_u32 (c, &disc, "discriminator out of range");
      if (rc == SFDO_OK)
        rc = decode_func (c, depth + 1, &callee);
      if (rc != SFDO_OK)
        break;
      sfdo_xgrow (&f->callsites, &f->cap_callsites, f->ncallsites + 1,
                  sizeof *f->callsites);
      f->callsites[f->ncallsites].offset = off;
      f->callsites[f->ncallsites].discriminator = disc;
      f->callsites[f->ncallsites++].callee = callee;
    }
  return rc;
}

static enum sfdo_errc
decode_func (struct cursor *c, unsigned depth, struct sfdo_prof_func **out)
{
  *out = NULL;
  if (depth > SFDO_PROFILE_MAX_DEPTH)
    return bad (c, c->pos, SFDO_E_TOO_DEEP, "inline nesting too deep");
  uint32_t name, file;
  uint64_t flags;
  enum sfdo_errc rc = get_sref (c, &name, SFDO_STR_NAME);
  if (rc == SFDO_OK)
    rc = get_sref (c, &file, SFDO_STR_FILE);
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_prof_func *f = sfdo_prof_func_new (name, file);
  rc = get_uleb (c, &f->total);
  if (rc == SFDO_OK)
    rc = get_uleb (c, &f->head);
  uint64_t flags_at = c->pos;
  if (rc == SFDO_OK)
    rc = get_uleb (c, &flags);
  if (rc == SFDO_OK && flags > 1)
    rc = bad (c, flags_at, SFDO_E_MALFORMED, "unknown function flags");
  f->has_checksum = rc == SFDO_OK && (flags & 1);
  if (f->has_checksum)
    rc = get_uleb (c, &f->checksum);
  if (rc == SFDO_OK)
    rc = decode_lines (c, f);
  if (rc == SFDO_OK)
    rc = decode_values (c, f);
  if (rc == SFDO_OK)
    rc = decode_callsites (c, depth, f);
  if (rc != SFDO_OK)
    {
      sfdo_prof_func_free (f);
      return rc;
    }
  *out = f;
  return SFDO_OK;
}

/* --- Opening and lookup ----------------------------------------------------- */

static enum sfdo_errc
check_section (struct cursor *c, uint64_t field_at, uint64_t off,
               uint64_t size, uint64_t file_size)
{
  if (off < FIXED_HEADER_SIZE || off > file_size || size > file_size - off)
    return bad (c, field_at, SFDO_E_MALFORMED,
                "section lies outside the file");
  return SFDO_OK;
}

static enum sfdo_errc
decode_meta (struct cursor *c)
{
  struct sfdo_profile *p = c->p;
  size_t n;
  uint32_t id;
  enum sfdo_errc rc = get_count (c, 1, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    if ((rc = get_sref (c, &id, SFDO_STR_TOKEN)) == SFDO_OK)
      sfdo_profile_add_build_id (p, sfdo_profile_str (p, id));
  if (rc == SFDO_OK)
    rc = get_count (c, 1, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    if ((rc = get_sref (c, &id, SFDO_STR_TOKEN)) == SFDO_OK)
      sfdo_profile_add_mode (p, sfdo_profile_str (p, id));
  if (rc == SFDO_OK)
    rc = get_count (c, 1, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    if ((rc = get_sref (c, &id, SFDO_STR_LINE)) == SFDO_OK)
      sfdo_profile_add_tool (p, sfdo_profile_str (p, id));
  if (rc == SFDO_OK)
    rc = get_count (c, 3, &n);
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint64_t period, samples;
      rc = get_sref (c, &id, SFDO_STR_TOKEN);
      if (rc == SFDO_OK)
        rc = get_uleb (c, &period);
      if (rc == SFDO_OK)
        rc = get_uleb (c, &samples);
      if (rc == SFDO_OK)
        sfdo_profile_add_event (p, sfdo_profile_str (p, id), period, samples);
    }
  if (rc == SFDO_OK)
    rc = get_uleb (c, &p->hdr.samples_used);
  if (rc == SFDO_OK)
    rc = get_uleb (c, &p->hdr.samples_dropped);
  /* Producers came later: a file written before them ends here.  */
  if (rc == SFDO_OK && c->pos < c->end)
    rc = get_count (c, 1, &n);
  else
    n = 0;
  for (size_t i = 0; i < n && rc == SFDO_OK; i++)
    if ((rc = get_sref (c, &id, SFDO_STR_LINE)) == SFDO_OK)
      sfdo_profile_add_producer (p, sfdo_profile_str (p, id));
  return rc;
}

static enum sfdo_errc
read_layout (struct cursor *c)
{
  const uint8_t *d = c->base;
  struct bin_layout *l = &c->p->bin;
  if (c->end < FIXED_HEADER_SIZE)
    return bad (c, c->end, SFDO_E_TRUNCATED, "file shorter than its header");
  uint32_t version = (uint32_t) read_le (d + 8, 4);
  if (version == 0 || version > SFDO_PROFILE_VERSION)
    return bad (c, 8, SFDO_E_VERSION,
                "unsupported profile version (this reader knows 1)");
  l->nfuncs = (uint32_t) read_le (d + 12, 4);
  l->strtab_off = read_le (d + 16, 8);
  l->strtab_size = read_le (d + 24, 8);
  l->meta_off = read_le (d + 32, 8);
  l->meta_size = read_le (d + 40, 8);
  l->index_off = read_le (d + 48, 8);
  l->records_off = read_le (d + 56, 8);
  l->records_size = read_le (d + 64, 8);
  if (read_le (d + 72, 8) != c->end)
    return bad (c, 72, SFDO_E_TRUNCATED,
                "file size differs from the size its header records");
  enum sfdo_errc rc = check_section (c, 16, l->strtab_off, l->strtab_size,
                                     c->end);
  if (rc == SFDO_OK)
    rc = check_section (c, 32, l->meta_off, l->meta_size, c->end);
  if (rc == SFDO_OK && l->nfuncs > (c->end - FIXED_HEADER_SIZE) / INDEX_ENTRY_SIZE)
    rc = bad (c, 12, SFDO_E_MALFORMED, "function count larger than the file");
  if (rc == SFDO_OK)
    rc = check_section (c, 48, l->index_off,
                        (uint64_t) l->nfuncs * INDEX_ENTRY_SIZE, c->end);
  if (rc == SFDO_OK)
    rc = check_section (c, 56, l->records_off, l->records_size, c->end);
  if (rc == SFDO_OK && l->strtab_size == 0)
    rc = bad (c, 24, SFDO_E_MALFORMED, "empty string table");
  return rc;
}

enum sfdo_errc
sfdo_binary_open (struct sfdo_profile *p, struct sfdo_error *err)
{
  struct cursor c = { p->data, 0, p->data_len, p, err };
  enum sfdo_errc rc = read_layout (&c);
  if (rc != SFDO_OK)
    return rc;
  c.pos = p->bin.meta_off;
  c.end = p->bin.meta_off + p->bin.meta_size;
  rc = decode_meta (&c);
  if (rc == SFDO_OK && c.pos != c.end)
    rc = bad (&c, c.pos, SFDO_E_MALFORMED, "junk after the header fields");
  p->lazy = rc == SFDO_OK;
  p->encoding = SFDO_PROF_BINARY;
  return rc;
}

static struct sfdo_prof_func **
decoded_slot (struct decoded_map *m, uint64_t record)
{
  if (m->n * 2 >= m->cap)
    {
      struct decoded_map old = *m;
      m->cap = old.cap ? old.cap * 2 : 64;
      m->keys = (uint64_t *) sfdo_xcalloc (m->cap, sizeof *m->keys);
      m->vals = (struct sfdo_prof_func **) sfdo_xcalloc (m->cap,
                                                         sizeof *m->vals);
      m->n = 0;
      for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i])
          {
            *decoded_slot (m, old.keys[i] - 1) = old.vals[i];
            m->n++;
          }
      free (old.keys);
      free (old.vals);
    }
  size_t i = (size_t) (record * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != record + 1)
    i = (i + 1) & (m->cap - 1);
  if (!m->keys[i])
    m->keys[i] = record + 1;
  return &m->vals[i];
}

/* The function whose record is at RECORD (relative), decoded once.  */
static enum sfdo_errc
decode_record (struct sfdo_profile *p, uint64_t record,
               struct sfdo_error *err, struct sfdo_prof_func **out)
{
  struct cursor c = { p->data, p->bin.records_off + record,
                      p->bin.records_off + p->bin.records_size, p, err };
  if (record >= p->bin.records_size)
    return bad (&c, p->bin.index_off, SFDO_E_MALFORMED,
                "index points outside the function records");
  struct sfdo_prof_func **slot = decoded_slot (&p->decoded, record);
  if (!*slot)
    {
      enum sfdo_errc rc = decode_func (&c, 0, slot);
      if (rc != SFDO_OK)
        return rc;
      p->decoded.n++;
      sfdo_prof_func_finalize (p, *slot);
    }
  *out = *slot;
  return SFDO_OK;
}

/* The bytes of the string at reference REF read by cursor C.  */
static enum sfdo_errc
peek_sref (struct cursor *c, const char **s, uint64_t *len)
{
  uint64_t start = c->pos, ref;
  enum sfdo_errc rc = get_uleb (c, &ref);
  const struct bin_layout *l = &c->p->bin;
  if (rc == SFDO_OK && ref >= l->strtab_size)
    return bad (c, start, SFDO_E_MALFORMED,
                "string reference outside the string table");
  struct cursor t = { c->base, l->strtab_off + ref,
                      l->strtab_off + l->strtab_size, c->p, c->err };
  if (rc == SFDO_OK)
    rc = get_uleb (&t, len);
  if (rc == SFDO_OK && *len > t.end - t.pos)
    rc = bad (&t, l->strtab_off + ref, SFDO_E_TRUNCATED,
              "string runs past the string table");
  *s = (const char *) c->base + t.pos;
  return rc;
}

/* Whether the record at RECORD is the function NAME of FILE, reading only
   its two string references: statics that share a name (header helpers,
   anonymous namespaces) can be hundreds, and decoding each would make
   lookup grow with the profile.  */
/* The name and file of the function record at RECORD, read in place
   (*FILE is NULL when the name is not NAME: the file is not read).  */
static enum sfdo_errc
record_key (struct sfdo_profile *p, uint64_t record, const char *name,
            struct sfdo_error *err, const char **file, uint64_t *file_len)
{
  struct cursor c = { p->data, p->bin.records_off + record,
                      p->bin.records_off + p->bin.records_size, p, err };
  const char *s;
  uint64_t len;
  *file = NULL;
  if (record >= p->bin.records_size)
    return bad (&c, p->bin.index_off, SFDO_E_MALFORMED,
                "index points outside the function records");
  enum sfdo_errc rc = peek_sref (&c, &s, &len);
  if (rc != SFDO_OK || len != strlen (name) || memcmp (s, name, len) != 0)
    return rc;
  return peek_sref (&c, file, file_len);
}

static enum sfdo_errc
record_is (struct sfdo_profile *p, uint64_t record, const char *name,
           const char *file, struct sfdo_error *err, int *match)
{
  const char *s;
  uint64_t len;
  enum sfdo_errc rc = record_key (p, record, name, err, &s, &len);
  *match = rc == SFDO_OK && s && len == strlen (file)
           && memcmp (s, file, len) == 0;
  return rc;
}

/* The first index entry whose name hash is HASH (or the place it would
   be): the index is sorted by hash.  */
static size_t
first_of_hash (const struct sfdo_profile *p, uint64_t hash)
{
  const uint8_t *index = p->data + p->bin.index_off;
  size_t lo = 0, hi = p->bin.nfuncs;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (read_le (index + mid * INDEX_ENTRY_SIZE, 8) < hash)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

enum sfdo_errc
sfdo_binary_files_of (struct sfdo_profile *p, const char *name,
                      int (*visit) (const char *file, size_t len, void *ctx),
                      void *ctx, struct sfdo_error *err)
{
  uint64_t hash = sfdo_fnv1a (name, strlen (name));
  const uint8_t *index = p->data + p->bin.index_off;
  size_t lo = first_of_hash (p, hash);
  for (; lo < p->bin.nfuncs
         && read_le (index + lo * INDEX_ENTRY_SIZE, 8) == hash; lo++)
    {
      uint64_t record = read_le (index + lo * INDEX_ENTRY_SIZE + 8, 8);
      const char *s;
      uint64_t len;
      enum sfdo_errc rc = record_key (p, record, name, err, &s, &len);
      if (rc != SFDO_OK)
        return rc;
      if (s && visit (s, (size_t) len, ctx))
        break;
    }
  return SFDO_OK;
}

struct sfdo_prof_func *
sfdo_binary_find (struct sfdo_profile *p, const char *name, const char *file,
                  struct sfdo_error *err)
{
  uint64_t hash = sfdo_fnv1a (name, strlen (name));
  const uint8_t *index = p->data + p->bin.index_off;
  size_t lo = first_of_hash (p, hash);
  for (; lo < p->bin.nfuncs
         && read_le (index + lo * INDEX_ENTRY_SIZE, 8) == hash; lo++)
    {
      struct sfdo_prof_func *f = NULL;
      uint64_t record = read_le (index + lo * INDEX_ENTRY_SIZE + 8, 8);
      int match;
      if (record_is (p, record, name, file, err, &match) != SFDO_OK)
        return NULL;
      if (match)
        return decode_record (p, record, err, &f) == SFDO_OK ? f : NULL;
    }
  return NULL;
}

/* Decode every record in order into FUNCS (N of them); functions that
   find() decoded before are reused, so their pointers stay valid.  */
static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* Check that the index lists each record (at STARTS, in order, of FUNCS)
   exactly once, under the hash of its name, in hash order.  A reader that
   decodes every record checks the index too, so a file whose lookups would
   go wrong never passes as valid.  */
static enum sfdo_errc
check_index (struct sfdo_profile *p, struct sfdo_error *err,
             const uint64_t *starts, struct sfdo_prof_func **funcs)
{
  const uint8_t *index = p->data + p->bin.index_off;
  uint32_t n = p->bin.nfuncs;
  char *seen = (char *) sfdo_xcalloc (n + 1, 1);
  struct cursor c = { p->data, 0, p->data_len, p, err };
  enum sfdo_errc rc = SFDO_OK;
  for (uint32_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint64_t at = p->bin.index_off + (uint64_t) i * INDEX_ENTRY_SIZE;
      uint64_t hash = read_le (index + (size_t) i * INDEX_ENTRY_SIZE, 8);
      uint64_t record = read_le (index + (size_t) i * INDEX_ENTRY_SIZE + 8, 8);
      const uint64_t *hit = bsearch (&record, starts, n, sizeof *starts,
                                     u64_cmp);
      size_t k = hit ? (size_t) (hit - starts) : 0;
      const struct str_entry *name = hit ? &p->strs[funcs[k]->name] : NULL;
      if (!hit || seen[k])
        rc = bad (&c, at, SFDO_E_MALFORMED,
                  "index entry does not point at a function record of its "
                  "own");
      else if (sfdo_fnv1a (name->s, name->len) != hash
               || (i && read_le (index + (size_t) (i - 1) * INDEX_ENTRY_SIZE,
                                 8) > hash))
        rc = bad (&c, at, SFDO_E_MALFORMED,
                  "index entry out of order or with a wrong hash");
      else
        seen[k] = 1;
    }
  free (seen);
  return rc;
}

static enum sfdo_errc
decode_all_records (struct sfdo_profile *p, struct sfdo_error *err,
                    struct sfdo_prof_func **funcs, char *reused, size_t *n)
{
  uint64_t *starts = (uint64_t *) sfdo_xcalloc (p->bin.nfuncs + 1,
                                                sizeof *starts);
  struct cursor c = { p->data, p->bin.records_off,
                      p->bin.records_off + p->bin.records_size, p, err };
  for (*n = 0; *n < p->bin.nfuncs; ++*n)
    {
      uint64_t record = c.pos - p->bin.records_off;
      struct sfdo_prof_func *f;
      starts[*n] = record;
      enum sfdo_errc rc = decode_func (&c, 0, &f);
      if (rc != SFDO_OK)
        {
          free (starts);
          return rc;
        }
      struct sfdo_prof_func **known
        = p->decoded.n ? decoded_slot (&p->decoded, record) : NULL;
      if (known && *known)
        {
          sfdo_prof_func_free (f);
          f = *known;
          reused[*n] = 1;
        }
      else
        sfdo_prof_func_finalize (p, f);
      funcs[*n] = f;
    }
  enum sfdo_errc rc = SFDO_OK;
  if (c.pos != c.end)
    rc = bad (&c, c.pos, SFDO_E_MALFORMED,
              "junk after the last function record");
  if (rc == SFDO_OK)
    rc = check_index (p, err, starts, funcs);
  free (starts);
  return rc;
}

enum sfdo_errc
sfdo_binary_load_all (struct sfdo_profile *p, struct sfdo_error *err)
{
  size_t n = 0;
  struct sfdo_prof_func **funcs
    = (struct sfdo_prof_func **) sfdo_xcalloc (p->bin.nfuncs + 1,
                                               sizeof *funcs);
  char *reused = (char *) sfdo_xcalloc (p->bin.nfuncs + 1, 1);
  enum sfdo_errc rc = decode_all_records (p, err, funcs, reused, &n);
  for (size_t i = 0; i < n; i++)
    if (rc == SFDO_OK)
      sfdo_profile_append_func (p, funcs[i]);
    else if (!reused[i])
      sfdo_prof_func_free (funcs[i]);
  free (funcs);
  free (reused);
  if (rc == SFDO_OK)
    {
      /* FUNCS owns every function now, also those find() decoded.  */
      if (p->decoded.cap)
        memset (p->decoded.vals, 0,
                p->decoded.cap * sizeof *p->decoded.vals);
      sfdo_binary_release (p);
    }
  return rc;
}

void
sfdo_binary_release (struct sfdo_profile *p)
{
  if (p->data)
    {
      if (p->data_mapped)
        munmap ((void *) p->data, p->data_len);
      else
        free ((void *) p->data);
    }
  p->data = NULL;
  p->data_len = 0;
  p->lazy = 0;
  for (size_t i = 0; i < p->decoded.cap; i++)
    sfdo_prof_func_free (p->decoded.vals[i]);
  free (p->decoded.keys);
  free (p->decoded.vals);
  memset (&p->decoded, 0, sizeof p->decoded);
}
