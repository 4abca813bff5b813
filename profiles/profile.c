/* profiles/profile.c - the profile model: strings, header, functions,
 * canonical order, lookup.  Encodings live in profile_text.c and
 * profile_binary.c; merge and overlap in profile_ops.c.  */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>

#include "../common/path.h"
#include "../common/xalloc.h"

#define STR_CHUNK_SIZE (1u << 20)

/* --- Strings ------------------------------------------------------------ */

static char *
store_bytes (struct sfdo_profile *p, const char *s, size_t len)
{
  if (len + 1 > p->chunk_left)
    {
      size_t size = len + 1 > STR_CHUNK_SIZE ? len + 1 : STR_CHUNK_SIZE;
      sfdo_xgrow (&p->chunks, &p->cap_chunks, p->nchunks + 1, sizeof (char *));
      p->chunk = (char *) sfdo_xmalloc (size);
      p->chunks[p->nchunks++] = p->chunk;
      p->chunk_left = size;
    }
  char *d = p->chunk;
  memcpy (d, s, len);
  d[len] = 0;
  p->chunk += len + 1;
  p->chunk_left -= len + 1;
  return d;
}

static void
rehash_strings (struct sfdo_profile *p)
{
  size_t cap = p->cap_slots ? p->cap_slots * 2 : 1024;
  free (p->str_slots);
  p->str_slots = (uint32_t *) sfdo_xcalloc (cap, sizeof (uint32_t));
  p->cap_slots = cap;
  for (size_t id = 0; id < p->nstrs; id++)
    {
      size_t i = sfdo_fnv1a (p->strs[id].s, p->strs[id].len) & (cap - 1);
      while (p->str_slots[i])
        i = (i + 1) & (cap - 1);
      p->str_slots[i] = (uint32_t) id + 1;
    }
}

/* The slot where S (LEN bytes) is or would go.  */
static size_t
string_slot (const struct sfdo_profile *p, const char *s, size_t len)
{
  size_t mask = p->cap_slots - 1;
  size_t i = sfdo_fnv1a (s, len) & mask;
  for (;; i = (i + 1) & mask)
    {
      uint32_t v = p->str_slots[i];
      if (!v)
        return i;
      const struct str_entry *e = &p->strs[v - 1];
      if (e->len == len && memcmp (e->s, s, len) == 0)
        return i;
    }
}

uint32_t
sfdo_profile_lookup_id (const struct sfdo_profile *p, const char *s,
                        size_t len)
{
  uint32_t v = p->str_slots[string_slot (p, s, len)];
  return v ? v - 1 : UINT32_MAX;
}

uint32_t
sfdo_profile_intern (struct sfdo_profile *p, const char *s, size_t len)
{
  size_t slot = string_slot (p, s, len);
  if (p->str_slots[slot])
    return p->str_slots[slot] - 1;
  sfdo_xgrow (&p->strs, &p->cap_strs, p->nstrs + 1, sizeof *p->strs);
  uint32_t id = (uint32_t) p->nstrs++;
  p->strs[id].s = store_bytes (p, s, len);
  p->strs[id].len = (uint32_t) len;
  p->str_slots[slot] = id + 1;
  if (p->nstrs * 2 > p->cap_slots)
    rehash_strings (p);
  return id;
}

uint32_t
sfdo_profile_intern_str (struct sfdo_profile *p, const char *s)
{
  return sfdo_profile_intern (p, s, strlen (s));
}

const char *
sfdo_profile_str (const struct sfdo_profile *p, uint32_t id)
{
  return id < p->nstrs ? p->strs[id].s : "";
}

/* --- What strings may be ------------------------------------------------ */

const char *
sfdo_profile_string_problem (const char *s, size_t len,
                             enum sfdo_str_class cls)
{
  if (len == 0)
    return cls == SFDO_STR_FILE ? NULL : "is empty";
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) s[i];
      if (c < 0x20 || c == 0x7f)
        return "contains a control character";
      if (c == ' ' && cls <= SFDO_STR_NAME)
        return "contains a space";
    }
  if (cls > SFDO_STR_NAME && (s[0] == ' ' || s[len - 1] == ' '))
    return "starts or ends with a space";
  /* A function's name opens its line, where '#' would read as a comment;
     a callee's follows a line offset, where a digit would read as a count.  */
  if (cls == SFDO_STR_NAME && (s[0] == '#' || (s[0] >= '0' && s[0] <= '9')))
    return "starts with '#' or a digit";
  return NULL;
}

static const char *
id_problem (const struct sfdo_profile *p, uint32_t id, enum sfdo_str_class cls)
{
  return sfdo_profile_string_problem (p->strs[id].s, p->strs[id].len, cls);
}

static enum sfdo_errc
bad_string (const struct sfdo_profile *p, uint32_t id, const char *what,
            const char *problem, const char *name, struct sfdo_error *err)
{
  return sfdo_error_set (err, SFDO_E_MALFORMED, name, SFDO_NO_OFFSET, 0, 0,
                         "cannot write the %s '%.80s': it %s", what,
                         p->strs[id].s, problem);
}

/* Check the strings of F and everything nested in it.  */
static enum sfdo_errc
check_func_strings (const struct sfdo_profile *p,
                    const struct sfdo_prof_func *f, const char *name,
                    struct sfdo_error *err)
{
  const char *pr;
  if ((pr = id_problem (p, f->name, SFDO_STR_NAME)))
    return bad_string (p, f->name, "function name", pr, name, err);
  if ((pr = id_problem (p, f->file, SFDO_STR_FILE)))
    return bad_string (p, f->file, "file name", pr, name, err);
  for (size_t i = 0; i < f->nlines; i++)
    for (size_t k = 0; k < f->lines[i].ntargets; k++)
      if ((pr = id_problem (p, f->lines[i].targets[k].name, SFDO_STR_TOKEN)))
        return bad_string (p, f->lines[i].targets[k].name, "call target",
                           pr, name, err);
  for (size_t i = 0; i < f->nvalues; i++)
    for (size_t k = 0; sfdo_value_kind_is_name (f->values[i].kind)
                       && k < f->values[i].nentries; k++)
      {
        uint32_t id = (uint32_t) f->values[i].entries[k].value;
        if ((pr = id_problem (p, id, SFDO_STR_TOKEN)))
          return bad_string (p, id, "indirect-call target", pr, name, err);
      }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      enum sfdo_errc rc = check_func_strings (p, f->callsites[i].callee, name,
                                              err);
      if (rc != SFDO_OK)
        return rc;
    }
  return SFDO_OK;
}

static enum sfdo_errc
check_header_strings (const struct sfdo_profile *p, const char *name,
                      struct sfdo_error *err)
{
  const struct sfdo_prof_header *h = &p->hdr;
  const char *pr;
  for (size_t i = 0; i < h->nbuild_ids; i++)
    if ((pr = id_problem (p, h->build_ids[i], SFDO_STR_TOKEN)))
      return bad_string (p, h->build_ids[i], "build-id", pr, name, err);
  for (size_t i = 0; i < h->nmodes; i++)
    if ((pr = id_problem (p, h->modes[i], SFDO_STR_TOKEN)))
      return bad_string (p, h->modes[i], "mode", pr, name, err);
  for (size_t i = 0; i < h->ntools; i++)
    if ((pr = id_problem (p, h->tools[i], SFDO_STR_LINE)))
      return bad_string (p, h->tools[i], "tool", pr, name, err);
  for (size_t i = 0; i < h->nevents; i++)
    if ((pr = id_problem (p, h->events[i].name, SFDO_STR_TOKEN)))
      return bad_string (p, h->events[i].name, "event name", pr, name, err);
  for (size_t i = 0; i < h->nproducers; i++)
    if ((pr = id_problem (p, h->producers[i], SFDO_STR_LINE)))
      return bad_string (p, h->producers[i], "producer", pr, name, err);
  return SFDO_OK;
}

enum sfdo_errc
sfdo_profile_check_strings (const struct sfdo_profile *p, const char *name,
                            struct sfdo_error *err)
{
  enum sfdo_errc rc = check_header_strings (p, name, err);
  for (size_t i = 0; i < p->nfuncs && rc == SFDO_OK; i++)
    rc = check_func_strings (p, p->funcs[i], name, err);
  return rc;
}

/* --- Lifecycle ---------------------------------------------------------- */

struct sfdo_profile *
sfdo_profile_new (void)
{
  struct sfdo_profile *p
    = (struct sfdo_profile *) sfdo_xcalloc (1, sizeof *p);
  rehash_strings (p);
  sfdo_profile_intern (p, "", 0);
  p->hdr.version = SFDO_PROFILE_VERSION;
  p->encoding = SFDO_PROF_TEXT;
  return p;
}

struct sfdo_prof_func *
sfdo_prof_func_new (uint32_t name, uint32_t file)
{
  struct sfdo_prof_func *f
    = (struct sfdo_prof_func *) sfdo_xcalloc (1, sizeof *f);
  f->name = name;
  f->file = file;
  return f;
}

void
sfdo_prof_func_free (struct sfdo_prof_func *f)
{
  if (!f)
    return;
  for (size_t i = 0; i < f->nlines; i++)
    free (f->lines[i].targets);
  for (size_t i = 0; i < f->nvalues; i++)
    free (f->values[i].entries);
  for (size_t i = 0; i < f->ncallsites; i++)
    sfdo_prof_func_free (f->callsites[i].callee);
  free (f->lines);
  free (f->values);
  free (f->callsites);
  free (f);
}

const char *
sfdo_name_base (const char *name, size_t *len)
{
  name += *name == '*';
  *len = strcspn (name, ".");
  return name;
}

int
sfdo_profile_has_mode (struct sfdo_profile *p, const char *mode)
{
  const struct sfdo_prof_header *h = sfdo_profile_header (p);
  for (size_t i = 0; i < h->nmodes; i++)
    if (strcmp (sfdo_profile_str (p, h->modes[i]), mode) == 0)
      return 1;
  return 0;
}

void
sfdo_prof_func_take (struct sfdo_prof_func *f, struct sfdo_prof_func *src)
{
  struct sfdo_prof_func old = *f;
  f->lines = src->lines;
  f->nlines = src->nlines;
  f->cap_lines = src->cap_lines;
  f->values = src->values;
  f->nvalues = src->nvalues;
  f->cap_values = src->cap_values;
  f->callsites = src->callsites;
  f->ncallsites = src->ncallsites;
  f->cap_callsites = src->cap_callsites;
  *src = old;
  sfdo_prof_func_free (src);
}

void
sfdo_profile_free (struct sfdo_profile *p)
{
  if (!p)
    return;
  sfdo_binary_release (p);
  for (size_t i = 0; i < p->nfuncs; i++)
    sfdo_prof_func_free (p->funcs[i]);
  free (p->funcs);
  free (p->func_slots);
  for (size_t i = 0; i < p->nchunks; i++)
    free (p->chunks[i]);
  free (p->chunks);
  free (p->strs);
  free (p->str_slots);
  free (p->hdr.build_ids);
  free (p->hdr.modes);
  free (p->hdr.tools);
  free (p->hdr.events);
  free (p->hdr.producers);
  free (p->path);
  free (p);
}

enum sfdo_prof_encoding
sfdo_profile_encoding (const struct sfdo_profile *p)
{
  return p->encoding;
}

/* --- Header ------------------------------------------------------------- */

struct sfdo_prof_header *
sfdo_profile_header (struct sfdo_profile *p)
{
  return &p->hdr;
}

/* Insert string ID into the sorted set *SET of *N (capacity *CAP), ordered
   by the strings' bytes.  */
static void
set_insert (const struct sfdo_profile *p, uint32_t **set, size_t *n,
            size_t *cap, uint32_t id)
{
  const char *s = sfdo_profile_str (p, id);
  size_t i = 0;
  while (i < *n && strcmp (sfdo_profile_str (p, (*set)[i]), s) < 0)
    i++;
  if (i < *n && (*set)[i] == id)
    return;
  sfdo_xgrow (set, cap, *n + 1, sizeof **set);
  memmove (*set + i + 1, *set + i, (*n - i) * sizeof **set);
  (*set)[i] = id;
  (*n)++;
}

void
sfdo_profile_add_build_id (struct sfdo_profile *p, const char *hex)
{
  set_insert (p, &p->hdr.build_ids, &p->hdr.nbuild_ids, &p->cap_build_ids,
              sfdo_profile_intern_str (p, hex));
}

void
sfdo_profile_add_mode (struct sfdo_profile *p, const char *mode)
{
  set_insert (p, &p->hdr.modes, &p->hdr.nmodes, &p->cap_modes,
              sfdo_profile_intern_str (p, mode));
}

void
sfdo_profile_add_tool (struct sfdo_profile *p, const char *tool)
{
  set_insert (p, &p->hdr.tools, &p->hdr.ntools, &p->cap_tools,
              sfdo_profile_intern_str (p, tool));
}

void
sfdo_profile_add_producer (struct sfdo_profile *p, const char *producer)
{
  /* A profile names a compiler or two: the set grows one at a time, its
     capacity its size.  */
  size_t cap = p->hdr.nproducers;
  set_insert (p, &p->hdr.producers, &p->hdr.nproducers, &cap,
              sfdo_profile_intern_str (p, producer));
}

/* The major version of producer S if it is a GCC ("GCC 16.2.0"), else
   0.  */
static unsigned
gcc_major_of (const char *s)
{
  unsigned v = 0;
  if (strncmp (s, "GCC ", 4) != 0 || s[4] < '0' || s[4] > '9')
    return 0;
  for (s += 4; *s >= '0' && *s <= '9' && v < 100000; s++)
    v = v * 10 + (unsigned) (*s - '0');
  return v;
}

size_t
sfdo_profile_gcc_majors (const struct sfdo_profile *p, unsigned *out,
                         size_t max)
{
  size_t n = 0;
  /* The next larger major each round: the set is a few strings.  */
  for (unsigned prev = 0;;)
    {
      unsigned next = 0;
      for (size_t i = 0; i < p->hdr.nproducers; i++)
        {
          const char *s = sfdo_profile_str (p, p->hdr.producers[i]);
          unsigned v = gcc_major_of (s);
          if (v > prev && (!next || v < next))
            next = v;
        }
      if (!next)
        return n;
      if (n < max)
        out[n] = next;
      n++;
      prev = next;
    }
}

unsigned
sfdo_profile_gcc_major (const struct sfdo_profile *p)
{
  unsigned v = 0;
  for (size_t i = 0; i < p->hdr.nproducers; i++)
    {
      unsigned m = gcc_major_of (sfdo_profile_str (p, p->hdr.producers[i]));
      v = m > v ? m : v;
    }
  return v;
}

void
sfdo_profile_add_event (struct sfdo_profile *p, const char *name,
                        uint64_t period, uint64_t samples)
{
  struct sfdo_prof_header *h = &p->hdr;
  size_t i = 0;
  int c = 1;
  for (; i < h->nevents; i++)
    {
      c = strcmp (sfdo_profile_str (p, h->events[i].name), name);
      if (c > 0 || (c == 0 && h->events[i].period >= period))
        break;
    }
  if (i < h->nevents && c == 0 && h->events[i].period == period)
    {
      h->events[i].samples = sfdo_sat_add (h->events[i].samples, samples);
      return;
    }
  sfdo_xgrow (&h->events, &p->cap_events, h->nevents + 1, sizeof *h->events);
  memmove (h->events + i + 1, h->events + i,
           (h->nevents - i) * sizeof *h->events);
  h->events[i].name = sfdo_profile_intern_str (p, name);
  h->events[i].period = period;
  h->events[i].samples = samples;
  h->nevents++;
}

/* --- Building ----------------------------------------------------------- */

void
sfdo_profile_append_func (struct sfdo_profile *p, struct sfdo_prof_func *f)
{
  sfdo_xgrow (&p->funcs, &p->cap_funcs, p->nfuncs + 1, sizeof *p->funcs);
  p->funcs[p->nfuncs++] = f;
  p->index_valid = 0;
}

struct sfdo_prof_func *
sfdo_profile_add_func (struct sfdo_profile *p, uint32_t name, uint32_t file)
{
  struct sfdo_prof_func *f = sfdo_prof_func_new (name, file);
  sfdo_profile_append_func (p, f);
  return f;
}

struct sfdo_prof_line *
sfdo_prof_func_add_line (struct sfdo_prof_func *f, uint32_t offset,
                         uint32_t discriminator, uint64_t count)
{
  sfdo_xgrow (&f->lines, &f->cap_lines, f->nlines + 1, sizeof *f->lines);
  struct sfdo_prof_line *l = &f->lines[f->nlines++];
  memset (l, 0, sizeof *l);
  l->offset = offset;
  l->discriminator = discriminator;
  l->count = count;
  return l;
}

void
sfdo_prof_line_add_target (struct sfdo_prof_line *line, uint32_t name,
                           uint64_t count)
{
  sfdo_xgrow (&line->targets, &line->cap_targets, line->ntargets + 1,
              sizeof *line->targets);
  line->targets[line->ntargets].name = name;
  line->targets[line->ntargets].count = count;
  line->ntargets++;
}

/* The value histogram (OFFSET, DISCRIMINATOR, KIND) of F, appended if the
   last one is not it (builders add a site's values together).  */
static struct sfdo_prof_values *
values_at (struct sfdo_prof_func *f, uint32_t offset, uint32_t discriminator,
           uint32_t kind)
{
  if (f->nvalues)
    {
      struct sfdo_prof_values *v = &f->values[f->nvalues - 1];
      if (v->offset == offset && v->discriminator == discriminator
          && v->kind == kind)
        return v;
    }
  sfdo_xgrow (&f->values, &f->cap_values, f->nvalues + 1, sizeof *f->values);
  struct sfdo_prof_values *v = &f->values[f->nvalues++];
  memset (v, 0, sizeof *v);
  v->offset = offset;
  v->discriminator = discriminator;
  v->kind = kind;
  return v;
}

void
sfdo_prof_func_add_value (struct sfdo_prof_func *f, uint32_t offset,
                          uint32_t discriminator, uint32_t kind,
                          uint64_t value, uint64_t count)
{
  struct sfdo_prof_values *v = values_at (f, offset, discriminator, kind);
  sfdo_xgrow (&v->entries, &v->cap_entries, v->nentries + 1,
              sizeof *v->entries);
  v->entries[v->nentries].value = value;
  v->entries[v->nentries].count = count;
  v->nentries++;
}

struct sfdo_prof_func *
sfdo_prof_func_add_callsite (struct sfdo_prof_func *f, uint32_t offset,
                             uint32_t discriminator, uint32_t name,
                             uint32_t file)
{
  sfdo_xgrow (&f->callsites, &f->cap_callsites, f->ncallsites + 1,
              sizeof *f->callsites);
  struct sfdo_prof_callsite *c = &f->callsites[f->ncallsites++];
  c->offset = offset;
  c->discriminator = discriminator;
  c->callee = sfdo_prof_func_new (name, file);
  return c->callee;
}

uint64_t
sfdo_prof_func_entries (const struct sfdo_prof_func *f)
{
  uint64_t n = f->head;
  for (size_t i = 0; !f->head && i < f->nlines; i++)
    n = f->lines[i].count > n ? f->lines[i].count : n;
  return n;
}

uint64_t
sfdo_prof_func_sum_totals (struct sfdo_prof_func *f)
{
  uint64_t total = 0;
  for (size_t i = 0; i < f->nlines; i++)
    total = sfdo_sat_add (total, f->lines[i].count);
  for (size_t i = 0; i < f->ncallsites; i++)
    total = sfdo_sat_add (total,
                          sfdo_prof_func_sum_totals (f->callsites[i].callee));
  return f->total = total;
}

int
sfdo_prof_func_seen_calling (const struct sfdo_prof_func *f)
{
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind == SFDO_VALUE_CALL_SAMPLES)
      for (size_t k = 0; k < f->values[i].nentries; k++)
        if (f->values[i].entries[k].count)
          return 1;
  for (size_t i = 0; i < f->ncallsites; i++)
    if (sfdo_prof_func_seen_calling (f->callsites[i].callee))
      return 1;
  return 0;
}

const struct sfdo_prof_line *
sfdo_prof_func_find_line (const struct sfdo_prof_func *f, uint32_t offset,
                          uint32_t discriminator)
{
  size_t lo = 0, hi = f->nlines;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct sfdo_prof_line *l = &f->lines[mid];
      if (l->offset < offset
          || (l->offset == offset && l->discriminator < discriminator))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < f->nlines && f->lines[lo].offset == offset
      && f->lines[lo].discriminator == discriminator)
    return &f->lines[lo];
  return NULL;
}

/* --- Lookup -------------------------------------------------------------- */

static size_t
func_hash (uint32_t name, uint32_t file)
{
  return (size_t) ((name * 0x9e3779b97f4a7c15ull) ^ (file * 0xc2b2ae3d27d4eb4full));
}

/* Build the (name, file) hash index; returns whether a key came twice
   (then the index is not valid: finalize must merge first).  */
static int
build_func_index (struct sfdo_profile *p)
{
  int duplicate = 0;
  size_t cap = 16;
  while (cap < p->nfuncs * 2)
    cap *= 2;
  free (p->func_slots);
  p->func_slots = (size_t *) sfdo_xcalloc (cap, sizeof (size_t));
  p->cap_func_slots = cap;
  for (size_t k = 0; k < p->nfuncs; k++)
    {
      const struct sfdo_prof_func *f = p->funcs[k];
      size_t i = func_hash (f->name, f->file) & (cap - 1);
      for (; p->func_slots[i]; i = (i + 1) & (cap - 1))
        {
          const struct sfdo_prof_func *g = p->funcs[p->func_slots[i] - 1];
          duplicate |= g->name == f->name && g->file == f->file;
        }
      p->func_slots[i] = k + 1;
    }
  p->index_valid = !duplicate;
  return duplicate;
}

int
sfdo_profile_has_duplicate_funcs (struct sfdo_profile *p)
{
  return build_func_index (p);
}

static struct sfdo_prof_func *
find_in_memory (struct sfdo_profile *p, const char *name, const char *file)
{
  uint32_t name_id = sfdo_profile_lookup_id (p, name, strlen (name));
  uint32_t file_id = sfdo_profile_lookup_id (p, file, strlen (file));
  if (name_id == UINT32_MAX || file_id == UINT32_MAX)
    return NULL;
  if (!p->index_valid)
    build_func_index (p);
  size_t mask = p->cap_func_slots - 1;
  for (size_t i = func_hash (name_id, file_id) & mask; p->func_slots[i];
       i = (i + 1) & mask)
    {
      struct sfdo_prof_func *f = p->funcs[p->func_slots[i] - 1];
      if (f->name == name_id && f->file == file_id)
        return f;
    }
  return NULL;
}

struct sfdo_prof_func *
sfdo_profile_find (struct sfdo_profile *p, const char *name, const char *file,
                   struct sfdo_error *err)
{
  if (!file)
    file = "";
  if (p->lazy)
    return sfdo_binary_find (p, name, file, err);
  return find_in_memory (p, name, file);
}

enum sfdo_errc
sfdo_profile_files_of (struct sfdo_profile *p, const char *name,
                       int (*visit) (const char *file, size_t len, void *ctx),
                       void *ctx, struct sfdo_error *err)
{
  if (p->lazy)
    return sfdo_binary_files_of (p, name, visit, ctx, err);
  uint32_t name_id = sfdo_profile_lookup_id (p, name, strlen (name));
  for (size_t i = 0; name_id != UINT32_MAX && i < p->nfuncs; i++)
    if (p->funcs[i]->name == name_id)
      {
        const char *s = sfdo_profile_str (p, p->funcs[i]->file);
        if (visit (s, strlen (s), ctx))
          break;
      }
  return SFDO_OK;
}

/* Offer the file FILE (LEN bytes) of a function of the sought name to
   the choice CTX (the files are distinct: each its own id).  */
static int
consider_file (const char *file, size_t len, void *ctx)
{
  struct sfdo_path_pick *pick = ctx;
  sfdo_path_pick_offer (pick, file, len, (ptrdiff_t) (uintptr_t) file);
  return 0;
}

struct sfdo_prof_func *
sfdo_profile_find_static (struct sfdo_profile *p, const char *name,
                          const char *file, struct sfdo_error *err)
{
  struct sfdo_prof_func *f = sfdo_profile_find (p, name, file, err);
  if (f || (err && err->code != SFDO_OK) || !file || !*file)
    return f;
  struct sfdo_path_pick pick;
  sfdo_path_pick_init (&pick, file);
  if (sfdo_profile_files_of (p, name, consider_file, &pick, err) != SFDO_OK)
    return NULL;
  if (sfdo_path_pick_result (&pick) < 0)
    return NULL;
  char *best = sfdo_xstrndup (pick.best, pick.best_len);
  f = sfdo_profile_find (p, name, best, err);
  free (best);
  return f;
}

size_t
sfdo_profile_nfuncs (const struct sfdo_profile *p)
{
  return p->lazy ? p->bin.nfuncs : p->nfuncs;
}

struct sfdo_prof_func *
sfdo_profile_func (struct sfdo_profile *p, size_t i, struct sfdo_error *err)
{
  if (p->lazy && sfdo_binary_load_all (p, err) != SFDO_OK)
    return NULL;
  return i < p->nfuncs ? p->funcs[i] : NULL;
}

enum sfdo_errc
sfdo_profile_load_all (struct sfdo_profile *p, struct sfdo_error *err)
{
  return p->lazy ? sfdo_binary_load_all (p, err) : SFDO_OK;
}

uint64_t
sfdo_profile_total (struct sfdo_profile *p)
{
  uint64_t total = 0;
  if (sfdo_profile_load_all (p, NULL) != SFDO_OK)
    return 0;
  for (size_t i = 0; i < p->nfuncs; i++)
    total = sfdo_sat_add (total, p->funcs[i]->total);
  return total;
}

const char *
sfdo_prof_value_kind_name (uint32_t kind)
{
  static const char *const names[SFDO_VALUE_NKINDS]
    = { "icall", "divmod", "memsize", "quotient", "align", "callsamples",
        "callsites", "unit" };
  return kind < SFDO_VALUE_NKINDS ? names[kind] : NULL;
}
