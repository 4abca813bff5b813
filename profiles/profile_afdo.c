/* profiles/profile_afdo.c - GCC's AutoFDO profile ("gcov" AFDO), in and out.
 *
 * The layout (what GCC's gcc/auto-profile.cc reads and the AutoFDO tool's
 * profile_writer.cc writes): a gcda header, a name table, then top-level
 * function instances, each a head count and a tree of instances whose
 * positions pack (line offset << 16 | discriminator) and carry
 * indirect-call targets.  Version 1 (GCC <= 11,
 * and Debian's create_gcov, which stamps 0x3430372a) pads strings to
 * words; version 2 (GCC 12 to 15) counts them in bytes; version 3 (GCC 16)
 * adds a summary, a file table indexed per name and a timestamp per
 * function.  What AFDO cannot hold (value histograms other than call
 * targets, inline instances' head counts, checksums, and before version 3
 * the files of static functions; offsets or discriminators past 16 bits)
 * is counted in a report, never dropped silently.  */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"

#define GCOV_DATA_MAGIC 0x67636461u
#define TAG_SUMMARY 0xa8000000u
#define TAG_FILE_NAMES 0xaa000000u
#define TAG_FUNCTION 0xac000000u
#define TAG_MODULE_GROUPING 0xae000000u
#define TAG_WORKING_SET 0xaf000000u
#define CREATE_GCOV_VERSION 0x3430372au   /* "407*", word strings */
#define HIST_INDIR_CALL_TOPN 7
#define WORKING_SET_ENTRIES 128
#define SUMMARY_CUTOFFS 16

int
sfdo_profile_is_afdo (const void *data, size_t len)
{
  const uint8_t *d = data;
  return len >= 12 && d[0] == 0x61 && d[1] == 0x64 && d[2] == 0x63
         && d[3] == 0x67;
}

/* --- Writing -------------------------------------------------------------- */

struct afdo_out {
  uint8_t *data;
  size_t len, cap;
};

static void
put (struct afdo_out *o, const void *s, size_t n)
{
  sfdo_xgrow (&o->data, &o->cap, o->len + n, 1);
  memcpy (o->data + o->len, s, n);
  o->len += n;
}

static void
put_u32 (struct afdo_out *o, uint32_t v)
{
  uint8_t b[4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16),
                   (uint8_t) (v >> 24) };
  put (o, b, 4);
}

static void
put_u64 (struct afdo_out *o, uint64_t v)
{
  put_u32 (o, (uint32_t) v);
  put_u32 (o, (uint32_t) (v >> 32));
}

static void
put_string (struct afdo_out *o, const char *s, unsigned version)
{
  size_t n = strlen (s) + 1;
  static const uint8_t zeros[4];
  if (version == 1)
    {
      size_t words = (n + 3) / 4;
      put_u32 (o, (uint32_t) words);
      put (o, s, n);
      put (o, zeros, words * 4 - n);
    }
  else
    {
      put_u32 (o, (uint32_t) n);
      put (o, s, n);
    }
}

/* Name indexes: position in the name table, 0 for the empty string.  In
   version 3 an entry is a name and a file, so a static function gets an
   entry of its own: two statics named alike stay apart.  */
struct afdo_names {
  uint32_t *index_of;           /* by string id, for entries without file */
  struct sfdo_u64map with_file; /* name << 32 | file -> index */
  uint32_t *ids, *files;        /* table order; entry 0 is the empty string */
  size_t n, cap, cap_files;
};

static uint32_t
add_entry (struct afdo_names *t, uint32_t id, uint32_t file)
{
  sfdo_xgrow (&t->ids, &t->cap, t->n + 1, sizeof *t->ids);
  sfdo_xgrow (&t->files, &t->cap_files, t->n + 1, sizeof *t->files);
  t->ids[t->n] = id;
  t->files[t->n] = file;
  return (uint32_t) t->n++;
}

static uint32_t
name_index (struct afdo_names *t, uint32_t id)
{
  if (!t->index_of[id] && (id || !t->n))
    t->index_of[id] = add_entry (t, id, 0);
  return t->index_of[id];
}

/* The entry of top-level function F: with its file in version 3.  */
static uint32_t
function_index (struct afdo_names *t, const struct sfdo_prof_func *f,
                unsigned version)
{
  if (version < 3 || !f->file)
    return name_index (t, f->name);
  uint64_t *slot = sfdo_u64map_get (&t->with_file,
                                    (uint64_t) f->name << 32 | f->file);
  if (!*slot)
    *slot = add_entry (t, f->name, f->file);
  return (uint32_t) *slot;
}

static int
position_fits (uint32_t offset, uint32_t disc)
{
  return offset <= 0xffff && disc <= 0xffff;
}

/* What an export gathers while it encodes the function section, which it
   does first: the names that section uses and every count it writes, for
   the name table and the summary that precede it in the file.  */
struct afdo_writer {
  struct afdo_out fn;           /* the function section's body */
  struct afdo_names t;
  unsigned version;
  struct sfdo_export_report *lost;
  uint64_t *counts;             /* of the positions written */
  size_t ncounts, cap_counts;
};

/* A position left out, by what did not fit; a callsite's goes with the
   whole inline instance.  */
static void
note_position (struct sfdo_export_report *lost, uint32_t offset, int inline_)
{
  lost->positions++;
  lost->position_offsets += offset > 0xffff;
  lost->position_discriminators += offset <= 0xffff;
  lost->position_inlines += inline_;
}

static void
note_losses (struct afdo_writer *w, const struct sfdo_prof_func *f, int top)
{
  struct sfdo_export_report *lost = w->lost;
  lost->value_histograms += f->nvalues;
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind < SFDO_VALUE_NKINDS)
      lost->value_kinds[f->values[i].kind]++;
  lost->checksums += f->has_checksum;
  lost->inline_heads += !top && f->head;
  lost->files += f->file && w->version < 3;
  for (size_t i = 0; i < f->nlines; i++)
    if (!position_fits (f->lines[i].offset, f->lines[i].discriminator))
      note_position (lost, f->lines[i].offset, 0);
  for (size_t i = 0; i < f->ncallsites; i++)
    if (!position_fits (f->callsites[i].offset,
                        f->callsites[i].discriminator))
      note_position (lost, f->callsites[i].offset, 1);
}

static void
put_line (struct afdo_writer *w, const struct sfdo_prof_line *l)
{
  put_u32 (&w->fn, l->offset << 16 | l->discriminator);
  put_u32 (&w->fn, (uint32_t) l->ntargets);
  put_u64 (&w->fn, l->count);
  for (size_t k = 0; k < l->ntargets; k++)
    {
      put_u32 (&w->fn, HIST_INDIR_CALL_TOPN);
      put_u64 (&w->fn, name_index (&w->t, l->targets[k].name));
      put_u64 (&w->fn, l->targets[k].count);
    }
  sfdo_xgrow (&w->counts, &w->cap_counts, w->ncounts + 1, sizeof *w->counts);
  w->counts[w->ncounts++] = l->count;
}

/* One instance of F, nested ones after it.  */
static void
put_instance (struct afdo_writer *w, const struct sfdo_prof_func *f, int top)
{
  uint32_t index = top ? function_index (&w->t, f, w->version)
                       : name_index (&w->t, f->name);
  size_t npos = 0, ncall = 0;
  note_losses (w, f, top);
  for (size_t i = 0; i < f->nlines; i++)
    npos += position_fits (f->lines[i].offset, f->lines[i].discriminator);
  for (size_t i = 0; i < f->ncallsites; i++)
    ncall += position_fits (f->callsites[i].offset,
                            f->callsites[i].discriminator);
  put_u32 (&w->fn, index);
  put_u32 (&w->fn, (uint32_t) npos);
  put_u32 (&w->fn, (uint32_t) ncall);
  for (size_t i = 0; i < f->nlines; i++)
    if (position_fits (f->lines[i].offset, f->lines[i].discriminator))
      put_line (w, &f->lines[i]);
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_callsite *c = &f->callsites[i];
      if (!position_fits (c->offset, c->discriminator))
        continue;
      put_u32 (&w->fn, c->offset << 16 | c->discriminator);
      put_instance (w, c->callee, 0);
    }
}

static int
count_descending (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x < y) - (x > y);
}

/* CUTOFF parts per million of TOTAL, rounded down; split so that no
   product can overflow 64 bits.  */
static uint64_t
share_of (uint64_t total, uint32_t cutoff)
{
  return total / 1000000 * cutoff + total % 1000000 * cutoff / 1000000;
}

/* Version 3's summary of the counts written: for each cutoff (parts per
   million of the total), the smallest count among the hottest counts
   that make up that share, and how many counts are that large.  GCC 16
   takes its hot-block threshold from the 99% entry (its
   hot-bb-count-ws-permille), so these must be the profile's own: with
   the largest count there, almost no block would be hot.  */
static void
put_summary (struct afdo_out *o, struct afdo_writer *w,
             const struct sfdo_profile *p)
{
  static const uint32_t cutoffs[SUMMARY_CUTOFFS] = {
    10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000,
    900000, 950000, 990000, 999000, 999900, 999990, 999999
  };
  uint64_t total = 0, max_head = 0, sum = 0, min = 0;
  for (size_t i = 0; i < w->ncounts; i++)
    total = sfdo_sat_add (total, w->counts[i]);
  for (size_t i = 0; i < p->nfuncs; i++)
    max_head = p->funcs[i]->head > max_head ? p->funcs[i]->head : max_head;
  if (w->ncounts)               /* qsort takes no null array */
    qsort (w->counts, w->ncounts, sizeof *w->counts, count_descending);
  put_u32 (o, TAG_SUMMARY);
  put_u64 (o, total);
  put_u64 (o, w->ncounts ? w->counts[0] : 0);
  put_u64 (o, max_head);
  put_u64 (o, w->ncounts);
  put_u64 (o, p->nfuncs);
  put_u64 (o, SUMMARY_CUTOFFS);
  size_t i = 0;
  for (int c = 0; c < SUMMARY_CUTOFFS; c++)
    {
      /* Counts equal to the one that reaches the share come in with it:
         GCC compares counts with the threshold, not positions.  */
      while (sum < share_of (total, cutoffs[c]) && i < w->ncounts)
        for (min = w->counts[i]; i < w->ncounts && w->counts[i] == min; i++)
          sum = sfdo_sat_add (sum, min);
      put_u32 (o, cutoffs[c]);
      put_u64 (o, min);
      put_u64 (o, i);
    }
}

static void
put_names (struct afdo_out *o, const struct sfdo_profile *p,
           const struct afdo_names *t, unsigned version)
{
  struct afdo_out body = { 0 };
  uint32_t *file_index = sfdo_xcalloc (p->nstrs + 1, sizeof *file_index);
  uint32_t *files = sfdo_xcalloc (t->n + 1, sizeof *files);
  size_t nfiles = 0;
  if (version >= 3)
    {
      for (size_t i = 0; i < t->n; i++)
        if (t->files[i] && !file_index[t->files[i]])
          {
            files[nfiles] = t->files[i];
            file_index[t->files[i]] = (uint32_t) ++nfiles;
          }
      put_u32 (&body, (uint32_t) nfiles);
      for (size_t i = 0; i < nfiles; i++)
        put_string (&body, sfdo_profile_str (p, files[i]), version);
    }
  put_u32 (&body, (uint32_t) t->n);
  for (size_t i = 0; i < t->n; i++)
    {
      put_string (&body, sfdo_profile_str (p, t->ids[i]), version);
      if (version >= 3)
        put_u32 (&body, t->files[i] ? file_index[t->files[i]] - 1
                                    : UINT32_MAX);
    }
  put_u32 (o, TAG_FILE_NAMES);
  put_u32 (o, (uint32_t) ((body.len + 3) / 4));
  put (o, body.data, body.len);
  free (body.data);
  free (file_index);
  free (files);
}

/* The sections GCC reads past (module groups) or not at all (the
   working set), as the AutoFDO tool writes them.  */
static void
put_trailer (struct afdo_out *o)
{
  put_u32 (o, TAG_MODULE_GROUPING);
  put_u32 (o, 0);
  put_u32 (o, 0);
  put_u32 (o, TAG_WORKING_SET);
  put_u32 (o, WORKING_SET_ENTRIES * 3);
  for (int i = 0; i < WORKING_SET_ENTRIES; i++)
    {
      put_u32 (o, 0);
      put_u64 (o, 0);
    }
}

/* The function section's body into W->fn: it fills the name table and
   gathers the counts the summary describes.  */
static void
put_functions (struct afdo_writer *w, const struct sfdo_profile *p)
{
  put_u32 (&w->fn, (uint32_t) p->nfuncs);
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      put_u64 (&w->fn, p->funcs[i]->head);
      /* Version 3's time of the function's first sample, which GCC 16
         turns into a first-run order for laying functions out; a profile
         keeps no times, and 0 gives every function the same rank.  */
      if (w->version >= 3)
        put_u64 (&w->fn, 0);
      put_instance (w, p->funcs[i], 1);
    }
}

enum sfdo_errc
sfdo_profile_write_afdo (struct sfdo_profile *p, FILE *f, unsigned version,
                         const char *name, struct sfdo_export_report *lost,
                         struct sfdo_error *err)
{
  if (version < 1 || version > 3)
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "AFDO version %u: only 1, 2 and 3 exist", version);
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  if (rc == SFDO_OK)
    rc = sfdo_profile_check_strings (p, name, err);
  if (rc != SFDO_OK)
    return rc;
  memset (lost, 0, sizeof *lost);
  struct afdo_writer w = { .version = version, .lost = lost };
  w.t.index_of = sfdo_xcalloc (p->nstrs + 1, sizeof (uint32_t));
  name_index (&w.t, 0);
  put_functions (&w, p);
  struct afdo_out o = { 0 };
  put_u32 (&o, GCOV_DATA_MAGIC);
  put_u32 (&o, version);
  put_u32 (&o, 0);
  if (version >= 3)
    put_summary (&o, &w, p);
  put_names (&o, p, &w.t, version);
  put_u32 (&o, TAG_FUNCTION);
  put_u32 (&o, (uint32_t) (w.fn.len / 4));
  put (&o, w.fn.data, w.fn.len);
  put_trailer (&o);
  int failed = fwrite (o.data, 1, o.len, f) != o.len;
  free (o.data);
  free (w.fn.data);
  free (w.counts);
  free (w.t.index_of);
  free (w.t.ids);
  free (w.t.files);
  sfdo_u64map_release (&w.t.with_file);
  return failed ? sfdo_error_sys (err, name, "write failed") : SFDO_OK;
}

void
sfdo_export_report_print_kinds (FILE *f, const char *program,
                                const struct sfdo_export_report *lost)
{
  int any = 0;
  for (uint32_t k = 0; k < SFDO_VALUE_NKINDS; k++)
    if (lost->value_kinds[k])
      {
        if (!any++)
          fprintf (f, "%s: value histograms left out, by kind: ", program);
        else
          fputs (", ", f);
        fprintf (f, "%llu %s", (unsigned long long) lost->value_kinds[k],
                 sfdo_prof_value_kind_name (k));
      }
  if (any)
    fputc ('\n', f);
  if (!lost->position_offsets && !lost->position_discriminators)
    return;
  fprintf (f, "%s: positions left out: %llu with a line offset over 65535, "
           "%llu with only a discriminator over 65535", program,
           (unsigned long long) lost->position_offsets,
           (unsigned long long) lost->position_discriminators);
  if (lost->position_inlines)
    fprintf (f, "; %llu of them inlined calls, left out with their inline "
             "instances", (unsigned long long) lost->position_inlines);
  fputc ('\n', f);
}

/* --- Reading -------------------------------------------------------------- */

struct afdo_in {
  const uint8_t *d;
  size_t pos, len;
  unsigned version;             /* 1 for word strings, else 2 or 3 */
  struct sfdo_profile *p;
  struct sfdo_error *err;
  uint32_t *names;              /* name table: string ids */
  uint32_t *name_files;         /* v3: file string id of each name, or 0 */
  size_t nnames;
  uint32_t *files;
  size_t nfiles;
};

static enum sfdo_errc
afdo_bad (struct afdo_in *in, size_t at, enum sfdo_errc code, const char *msg)
{
  return sfdo_error_set (in->err, code, in->p->path, at, 0, 0, "%s", msg);
}

static enum sfdo_errc
get_u32 (struct afdo_in *in, uint32_t *v)
{
  if (in->len - in->pos < 4)
    return afdo_bad (in, in->pos, SFDO_E_TRUNCATED, "truncated AFDO word");
  const uint8_t *b = in->d + in->pos;
  *v = b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16
       | (uint32_t) b[3] << 24;
  in->pos += 4;
  return SFDO_OK;
}

static enum sfdo_errc
get_u64 (struct afdo_in *in, uint64_t *v)
{
  uint32_t lo = 0, hi = 0;
  enum sfdo_errc rc = get_u32 (in, &lo);
  if (rc == SFDO_OK)
    rc = get_u32 (in, &hi);
  *v = (uint64_t) hi << 32 | lo;
  return rc;
}

/* A string, interned; version 1 counts words, later versions bytes.  */
static enum sfdo_errc
get_string (struct afdo_in *in, uint32_t *id)
{
  size_t at = in->pos;
  uint32_t n;
  enum sfdo_errc rc = get_u32 (in, &n);
  if (rc != SFDO_OK)
    return rc;
  size_t bytes = in->version == 1 ? (size_t) n * 4 : n;
  if (bytes > in->len - in->pos)
    return afdo_bad (in, at, SFDO_E_TRUNCATED, "string runs past the end");
  const char *s = (const char *) in->d + in->pos;
  size_t slen = strnlen (s, bytes);
  in->pos += bytes;
  const char *problem = slen ? sfdo_profile_string_problem (s, slen,
                                                            SFDO_STR_TOKEN)
                             : NULL;
  if (problem)
    return afdo_bad (in, at, SFDO_E_MALFORMED, "a name no profile can hold");
  *id = sfdo_profile_intern (in->p, s, slen);
  return SFDO_OK;
}

/* A u32 count of items of at least MIN bytes each, bounded by the rest.  */
static enum sfdo_errc
get_count (struct afdo_in *in, size_t min, uint32_t *n)
{
  size_t at = in->pos;
  enum sfdo_errc rc = get_u32 (in, n);
  if (rc == SFDO_OK && *n > (in->len - in->pos) / min)
    return afdo_bad (in, at, SFDO_E_TRUNCATED,
                     "item count larger than the bytes that follow");
  return rc;
}

static enum sfdo_errc
get_name (struct afdo_in *in, uint64_t index, uint32_t *id)
{
  if (index == 0 || index >= in->nnames)
    return afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                     "name index outside the name table");
  *id = in->names[index];
  if (*id == 0)
    return afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                     "name index names the empty string");
  return SFDO_OK;
}

static enum sfdo_errc
read_names (struct afdo_in *in)
{
  uint32_t tag, words, n;
  enum sfdo_errc rc = get_u32 (in, &tag);
  if (rc == SFDO_OK && tag != TAG_FILE_NAMES)
    return afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                     "expected the AFDO name table");
  if (rc == SFDO_OK)
    rc = get_u32 (in, &words);
  if (rc == SFDO_OK && in->version >= 3)
    {
      rc = get_count (in, 4, &n);
      if (rc != SFDO_OK)
        return rc;
      in->files = sfdo_xcalloc (n + 1, sizeof *in->files);
      for (in->nfiles = 0; rc == SFDO_OK && in->nfiles < n; in->nfiles++)
        rc = get_string (in, &in->files[in->nfiles]);
    }
  if (rc == SFDO_OK)
    rc = get_count (in, 4, &n);
  if (rc != SFDO_OK)
    return rc;
  in->names = sfdo_xcalloc (n + 1, sizeof *in->names);
  in->name_files = sfdo_xcalloc (n + 1, sizeof *in->name_files);
  for (in->nnames = 0; rc == SFDO_OK && in->nnames < n; in->nnames++)
    {
      rc = get_string (in, &in->names[in->nnames]);
      uint32_t fi = UINT32_MAX;
      if (rc == SFDO_OK && in->version >= 3)
        rc = get_u32 (in, &fi);
      if (rc == SFDO_OK && fi < in->nfiles)
        in->name_files[in->nnames] = in->files[fi];
    }
  return rc;
}

static enum sfdo_errc read_instance (struct afdo_in *in,
                                     struct sfdo_prof_func *f, unsigned depth);

static enum sfdo_errc
read_positions (struct afdo_in *in, struct sfdo_prof_func *f, uint32_t n)
{
  enum sfdo_errc rc = SFDO_OK;
  for (uint32_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint32_t pos, ntargets = 0, hist, name = 0;
      uint64_t count, index;
      rc = get_u32 (in, &pos);
      if (rc == SFDO_OK)
        rc = get_count (in, 20, &ntargets);
      if (rc == SFDO_OK)
        rc = get_u64 (in, &count);
      if (rc != SFDO_OK)
        break;
      struct sfdo_prof_line *l = sfdo_prof_func_add_line (f, pos >> 16,
                                                          pos & 0xffff, count);
      for (uint32_t k = 0; k < ntargets && rc == SFDO_OK; k++)
        {
          rc = get_u32 (in, &hist);
          if (rc == SFDO_OK)
            rc = get_u64 (in, &index);
          if (rc == SFDO_OK)
            rc = get_name (in, index, &name);
          if (rc == SFDO_OK)
            rc = get_u64 (in, &count);
          if (rc == SFDO_OK)
            sfdo_prof_line_add_target (l, name, count);
        }
    }
  return rc;
}

static enum sfdo_errc
read_instance (struct afdo_in *in, struct sfdo_prof_func *f, unsigned depth)
{
  uint32_t index, npos, ncall;
  if (depth > SFDO_PROFILE_MAX_DEPTH)
    return afdo_bad (in, in->pos, SFDO_E_TOO_DEEP, "inline nesting too deep");
  enum sfdo_errc rc = get_u32 (in, &index);
  if (rc == SFDO_OK)
    rc = get_name (in, index, &f->name);
  /* A function's name opens a line in the text encoding.  */
  if (rc == SFDO_OK
      && sfdo_profile_string_problem (in->p->strs[f->name].s,
                                      in->p->strs[f->name].len,
                                      SFDO_STR_NAME))
    rc = afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                   "a function name no profile can hold");
  if (rc == SFDO_OK)
    rc = get_count (in, 16, &npos);
  if (rc == SFDO_OK)
    rc = get_count (in, 16, &ncall);
  if (rc == SFDO_OK)
    rc = read_positions (in, f, npos);
  for (uint32_t i = 0; i < ncall && rc == SFDO_OK; i++)
    {
      uint32_t pos, callee_index, callee_name = 0;
      rc = get_u32 (in, &pos);
      if (rc != SFDO_OK)
        break;
      /* The callee's name comes first in its instance: peek at it.  */
      size_t at = in->pos;
      rc = get_u32 (in, &callee_index);
      if (rc == SFDO_OK)
        rc = get_name (in, callee_index, &callee_name);
      in->pos = at;
      if (rc == SFDO_OK)
        rc = read_instance (in, sfdo_prof_func_add_callsite
                                  (f, pos >> 16, pos & 0xffff, callee_name, 0),
                            depth + 1);
    }
  return rc;
}

static enum sfdo_errc
read_functions (struct afdo_in *in)
{
  uint32_t tag, words, n;
  enum sfdo_errc rc = get_u32 (in, &tag);
  if (rc == SFDO_OK && tag != TAG_FUNCTION)
    return afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                     "expected the AFDO function section");
  if (rc == SFDO_OK)
    rc = get_u32 (in, &words);
  if (rc == SFDO_OK)
    rc = get_count (in, 20, &n);
  for (uint32_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      uint64_t head, stamp;
      struct sfdo_prof_func *f = sfdo_profile_add_func (in->p, 0, 0);
      rc = get_u64 (in, &head);
      if (rc == SFDO_OK && in->version >= 3)
        rc = get_u64 (in, &stamp);
      /* The entry names the function and, in version 3, its file.  */
      uint32_t index = 0;
      size_t at = in->pos;
      if (rc == SFDO_OK)
        rc = get_u32 (in, &index);
      in->pos = at;
      if (rc == SFDO_OK)
        rc = read_instance (in, f, 0);
      f->head = head;
      if (rc == SFDO_OK)
        {
          f->file = in->name_files[index];
          sfdo_prof_func_sum_totals (f);
        }
    }
  return rc;
}

static enum sfdo_errc
skip_summary (struct afdo_in *in)
{
  uint32_t tag, cutoff;
  uint64_t v, n = 0;
  enum sfdo_errc rc = get_u32 (in, &tag);
  if (rc == SFDO_OK && tag != TAG_SUMMARY)
    return afdo_bad (in, in->pos - 4, SFDO_E_MALFORMED,
                     "expected the AFDO version 3 summary");
  for (int i = 0; i < 6 && rc == SFDO_OK; i++)
    rc = get_u64 (in, i == 5 ? &n : &v);
  if (rc == SFDO_OK && n > (in->len - in->pos) / 20)
    return afdo_bad (in, in->pos - 8, SFDO_E_TRUNCATED,
                     "summary larger than the file");
  for (uint64_t i = 0; i < n && rc == SFDO_OK; i++)
    {
      rc = get_u32 (in, &cutoff);
      if (rc == SFDO_OK)
        rc = get_u64 (in, &v);
      if (rc == SFDO_OK)
        rc = get_u64 (in, &v);
    }
  return rc;
}

enum sfdo_errc
sfdo_afdo_read (struct sfdo_profile *p, const uint8_t *data, size_t len,
                struct sfdo_error *err)
{
  struct afdo_in in = { data, 4, len, 0, p, err, NULL, NULL, 0, NULL, 0 };
  uint32_t version, stamp;
  enum sfdo_errc rc = get_u32 (&in, &version);
  if (rc == SFDO_OK)
    rc = get_u32 (&in, &stamp);
  if (rc == SFDO_OK && version == CREATE_GCOV_VERSION)
    version = 1;
  if (rc == SFDO_OK && (version < 1 || version > 3))
    rc = afdo_bad (&in, 4, SFDO_E_VERSION,
                   "AFDO version not 1, 2, 3 or create_gcov's");
  in.version = version;
  if (rc == SFDO_OK && version >= 3)
    rc = skip_summary (&in);
  if (rc == SFDO_OK)
    rc = read_names (&in);
  if (rc == SFDO_OK)
    rc = read_functions (&in);
  free (in.names);
  free (in.name_files);
  free (in.files);
  if (rc == SFDO_OK)
    {
      sfdo_profile_add_tool (p, "AutoFDO profile");
      rc = sfdo_profile_finalize (p, err);
    }
  return rc;
}
