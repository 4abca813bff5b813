/* converter/groups.c - module groups from a profile's call edges
   (groups.h).  */
#include "groups.h"

#include <stdlib.h>
#include <string.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "units.h"

/* The units, and which unit each function of the profile is in.  */
struct units {
  const char **names;           /* unit index -> name */
  size_t n, cap;
  struct sfdo_u64map index;     /* hash of a unit's name -> index + 1 */
  struct sfdo_u64map of_func;   /* function key -> unit index + 1 */
};

static size_t
unit_index (struct units *u, const char *name)
{
  uint64_t *slot = sfdo_u64map_get (&u->index, sfdo_fnv1a (name,
                                                           strlen (name)));
  if (!*slot)
    {
      sfdo_xgrow (&u->names, &u->cap, u->n + 1, sizeof *u->names);
      u->names[u->n++] = name;
      *slot = u->n;
    }
  return (size_t) *slot - 1;
}

/* The unit the profile records for F (units.h; the one most binaries
   gave, if they differ), as an index into U, or -1.  */
static ptrdiff_t
recorded_unit (struct units *u, struct sfdo_profile *p,
               const struct sfdo_prof_func *f)
{
  const struct sfdo_prof_vcount *best = NULL;
  for (size_t i = 0; i < f->nvalues; i++)
    if (f->values[i].kind == SFDO_VALUE_UNIT)
      for (size_t k = 0; k < f->values[i].nentries; k++)
        if (!best || f->values[i].entries[k].count > best->count)
          best = &f->values[i].entries[k];
  return best ? (ptrdiff_t) unit_index (u, sfdo_profile_str (p, best->value))
              : -1;
}

/* Every top-level function's unit into U: by name and file, and by name
   alone unless a global or another unit's file-local function holds it
   (call targets name a file-local callee without its file).  */
static void
read_units (struct sfdo_profile *p, struct units *u)
{
  for (int locals = 0; locals < 2; locals++)
    for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
      {
        const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
        if (!f || (f->file != 0) != locals)
          continue;
        ptrdiff_t unit = recorded_unit (u, p, f);
        if (unit < 0)
          continue;
        const char *name = sfdo_profile_str (p, f->name);
        const char *file = locals ? sfdo_profile_str (p, f->file) : NULL;
        *sfdo_u64map_get (&u->of_func, sfdo_func_key (name, file))
          = unit + 1;
        uint64_t *by_name = sfdo_u64map_get (&u->of_func,
                                             sfdo_func_key (name, NULL));
        if (!*by_name)
          *by_name = unit + 1;
        else if (locals && *by_name != (uint64_t) unit + 1
                 && !sfdo_profile_find (p, name, NULL, NULL))
          *by_name = UINT64_MAX;
      }
}

/* The unit of the function NAME (of FILE when file-local), or -1.  */
static ptrdiff_t
unit_of (const struct units *u, const char *name, const char *file)
{
  uint64_t *k = sfdo_func_key_find (&u->of_func, name, file);
  return k && *k != UINT64_MAX ? (ptrdiff_t) *k - 1 : -1;
}

/* --- Call weight between units --------------------------------------------- */

/* Add W to the unordered pair (A, B) of units in PAIRS.  */
static void
add_pair (struct sfdo_pairmap *pairs, size_t a, size_t b, uint64_t w)
{
  struct sfdo_pairval *v = sfdo_pairmap_get (pairs, a < b ? a : b,
                                             a < b ? b : a);
  v->weight = sfdo_sat_add (v->weight, w);
}

/* The calls of F (whose code is in unit FROM) and of its inline
   instances into other units, into PAIRS and *CROSS.  */
static void
add_calls (struct units *u, struct sfdo_profile *p,
           const struct sfdo_prof_func *f, size_t from,
           struct sfdo_pairmap *pairs, uint64_t *cross)
{
  for (size_t i = 0; i < f->nlines; i++)
    for (size_t k = 0; k < f->lines[i].ntargets; k++)
      {
        const struct sfdo_prof_target *t = &f->lines[i].targets[k];
        ptrdiff_t to = unit_of (u, sfdo_profile_str (p, t->name), NULL);
        if (to >= 0 && (size_t) to != from && t->count)
          {
            add_pair (pairs, from, (size_t) to, t->count);
            *cross = sfdo_sat_add (*cross, t->count);
          }
      }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_func *g = f->callsites[i].callee;
      ptrdiff_t to = recorded_unit (u, p, g);
      if (to < 0)
        to = unit_of (u, sfdo_profile_str (p, g->name),
                      sfdo_profile_str (p, g->file));
      uint64_t n = sfdo_prof_func_entries (g);
      if (to >= 0 && (size_t) to != from && n)
        {
          add_pair (pairs, from, (size_t) to, n);
          *cross = sfdo_sat_add (*cross, n);
        }
      add_calls (u, p, g, from, pairs, cross);
    }
}

/* --- Joining units ----------------------------------------------------------- */

static int
heavier_first (const void *x, const void *y)
{
  const struct sfdo_groups_pair *p = x, *q = y;
  if (p->weight != q->weight)
    return p->weight < q->weight ? 1 : -1;
  return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b > q->b) - (p->b < q->b);
}

static size_t
root_of (size_t *parent, size_t i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* Join the units of the N pairs P (heaviest first) while the joined
   weight is under the cut-off; PARENT, SIZE and WEIGHT are per unit
   (union-find; a root's size and inner weight).  Returns the weight
   inside groups.  */
static uint64_t
join_units (const struct sfdo_groups_pair *p, size_t n, uint64_t cross,
            const struct sfdo_groups_opts *o, size_t *parent, size_t *size,
            uint64_t *weight)
{
  uint64_t grouped = 0;
  for (size_t i = 0; i < n && (double) grouped < o->cutoff * (double) cross;
       i++)
    {
      size_t a = root_of (parent, p[i].a), b = root_of (parent, p[i].b);
      if (a != b && size[a] + size[b] > o->max_units)
        continue;
      if (a != b)
        {
          parent[b] = a;
          size[a] += size[b];
          weight[a] = sfdo_sat_add (weight[a], weight[b]);
        }
      weight[a] = sfdo_sat_add (weight[a], p[i].weight);
      grouped = sfdo_sat_add (grouped, p[i].weight);
    }
  return grouped;
}

static int
group_heavier_first (const void *x, const void *y)
{
  const struct sfdo_group *g = x, *h = y;
  if (g->weight != h->weight)
    return g->weight < h->weight ? 1 : -1;
  return strcmp (g->units[0], h->units[0]);
}

static int
str_cmp (const void *x, const void *y)
{
  return strcmp (*(const char *const *) x, *(const char *const *) y);
}

/* The groups of 2+ of the N units NAMES that union-find PARENT made, into
   OUT.  */
static void
collect_groups (const char *const *names, size_t n, size_t *parent,
                const size_t *size, const uint64_t *weight,
                struct sfdo_groups *out)
{
  size_t *slot = sfdo_xcalloc (n + 1, sizeof *slot);   /* root -> g + 1 */
  for (size_t i = 0; i < n; i++)
    {
      size_t r = root_of (parent, i);
      if (size[r] < 2)
        continue;
      if (!slot[r])
        {
          out->groups[out->ngroups] = (struct sfdo_group) {
            weight[r], sfdo_xcalloc (size[r], sizeof (const char *)), 0 };
          slot[r] = ++out->ngroups;
        }
      struct sfdo_group *g = &out->groups[slot[r] - 1];
      g->units[g->nunits++] = names[i];
    }
  for (size_t i = 0; i < out->ngroups; i++)
    qsort (out->groups[i].units, out->groups[i].nunits, sizeof (const char *),
           str_cmp);
  qsort (out->groups, out->ngroups, sizeof *out->groups, group_heavier_first);
  free (slot);
}

void
sfdo_groups_join (const char *const *names, size_t nunits,
                  struct sfdo_groups_pair *p, size_t n, uint64_t cross,
                  const struct sfdo_groups_opts *o, struct sfdo_groups *out)
{
  if (n > 1)
    qsort (p, n, sizeof *p, heavier_first);
  size_t *parent = sfdo_xmalloc ((nunits + 1) * sizeof *parent);
  size_t *size = sfdo_xmalloc ((nunits + 1) * sizeof *size);
  uint64_t *weight = sfdo_xcalloc (nunits + 1, sizeof *weight);
  for (size_t i = 0; i < nunits; i++)
    parent[i] = i, size[i] = 1;
  out->text = NULL;
  out->cross_weight = cross;
  out->grouped_weight = join_units (p, n, cross, o, parent, size, weight);
  out->groups = sfdo_xcalloc (nunits / 2 + 1, sizeof *out->groups);
  out->ngroups = 0;
  collect_groups (names, nunits, parent, size, weight, out);
  out->nunits = nunits;
  free (parent);
  free (size);
  free (weight);
}

void
sfdo_groups_make (struct sfdo_profile *p, const struct sfdo_groups_opts *o,
                  struct sfdo_groups *out)
{
  struct units u = { 0 };
  struct sfdo_pairmap pairs = { 0 };
  memset (out, 0, sizeof *out);
  read_units (p, &u);
  for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      ptrdiff_t from = f ? unit_of (&u, sfdo_profile_str (p, f->name),
                                    sfdo_profile_str (p, f->file)) : -1;
      if (from >= 0)
        add_calls (&u, p, f, (size_t) from, &pairs, &out->cross_weight);
    }
  struct sfdo_groups_pair *wp = sfdo_xmalloc ((pairs.n + 1) * sizeof *wp);
  size_t n = 0;
  for (size_t i = 0; i < pairs.cap; i++)
    if (pairs.a[i] != UINT64_MAX)
      wp[n++] = (struct sfdo_groups_pair) { pairs.a[i], pairs.b[i],
                                            pairs.vals[i].weight };
  sfdo_groups_join (u.names, u.n, wp, n, out->cross_weight, o, out);
  free (wp);
  sfdo_pairmap_release (&pairs);
  sfdo_u64map_release (&u.index);
  sfdo_u64map_release (&u.of_func);
  free (u.names);
}

void
sfdo_groups_summary (const struct sfdo_groups *g, const char *tool,
                     const char *dest, FILE *f)
{
  size_t largest = 0;
  for (size_t i = 0; i < g->ngroups; i++)
    largest = g->groups[i].nunits > largest ? g->groups[i].nunits : largest;
  fprintf (f, "%s: %zu module groups (of 2 to %zu of %zu source files) hold "
           "%.1f%% of the cross-file call weight; written to %s\n", tool,
           g->ngroups, largest, g->nunits,
           g->cross_weight ? 100.0 * (double) g->grouped_weight
                             / (double) g->cross_weight : 0.0, dest);
}

void
sfdo_groups_write (const struct sfdo_groups *g,
                   const struct sfdo_groups_opts *o, FILE *f)
{
  double share = g->cross_weight ? 100.0 * (double) g->grouped_weight
                                   / (double) g->cross_weight : 0.0;
  fprintf (f, "# sfdo-groups: 1\n# cross-unit call weight %llu; the groups "
           "hold %.1f%% of it (cut-off %.0f%%, at most %zu units a "
           "group)\n", (unsigned long long) g->cross_weight, share,
           100.0 * o->cutoff, o->max_units);
  for (size_t i = 0; i < g->ngroups; i++)
    {
      fprintf (f, "group %zu weight %llu\n", i + 1,
               (unsigned long long) g->groups[i].weight);
      for (size_t k = 0; k < g->groups[i].nunits; k++)
        fprintf (f, "  %s\n", g->groups[i].units[k]);
    }
}

/* --- Reading the file ---------------------------------------------------------- */

/* The bytes of the file at PATH, NUL-terminated, into *TEXT.  */
static enum sfdo_errc
slurp (const char *path, char **text, struct sfdo_error *err)
{
  FILE *f = fopen (path, "r");
  size_t n = 0, cap = 4096;
  if (!f)
    return sfdo_error_sys (err, path, "cannot open the groups file");
  *text = sfdo_xmalloc (cap);
  for (size_t got; (got = fread (*text + n, 1, cap - n - 1, f)) > 0;)
    if ((n += got) + 1 == cap)
      *text = sfdo_xrealloc (*text, cap *= 2);
  (*text)[n] = 0;
  int failed = ferror (f);
  fclose (f);
  if (failed)
    return sfdo_error_sys (err, path, "cannot read the groups file");
  return SFDO_OK;
}

/* Take the line LINE (number NO) of the file PATH into G.  */
static enum sfdo_errc
take_line (struct sfdo_groups *g, char *line, size_t no, const char *path,
           size_t *cap, struct sfdo_error *err)
{
  unsigned long long index, weight;
  int end = 0;
  if (no == 1 && strcmp (line, "# sfdo-groups: 1") != 0)
    return sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET, 1, 0,
                           "not a groups file of version 1 (sfdo-convert "
                           "--groups writes them): first line '%.60s'", line);
  if (!line[0] || line[0] == '#')
    return SFDO_OK;
  if (sscanf (line, "group %llu weight %llu%n", &index, &weight, &end) == 2
      && !line[end])
    {
      sfdo_xgrow (&g->groups, cap, g->ngroups + 1, sizeof *g->groups);
      g->groups[g->ngroups++] = (struct sfdo_group) { weight, NULL, 0 };
      return SFDO_OK;
    }
  if (strncmp (line, "  ", 2) == 0 && line[2] && line[2] != ' '
      && g->ngroups)
    {
      struct sfdo_group *gr = &g->groups[g->ngroups - 1];
      gr->units = sfdo_xrealloc (gr->units, (gr->nunits + 1) * sizeof (char *));
      gr->units[gr->nunits++] = line + 2;
      return SFDO_OK;
    }
  return sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET,
                         (unsigned) no, 0, "not a 'group N weight W' line nor "
                         "a unit (two spaces, a path) of a group: '%.60s'",
                         line);
}

enum sfdo_errc
sfdo_groups_read (const char *path, struct sfdo_groups *g,
                  struct sfdo_error *err)
{
  size_t cap = 0, no = 0;
  memset (g, 0, sizeof *g);
  enum sfdo_errc rc = slurp (path, &g->text, err);
  for (char *line = g->text, *next; rc == SFDO_OK && line && *line;
       line = next)
    {
      next = strchr (line, '\n');
      if (next)
        *next++ = 0;
      rc = take_line (g, line, ++no, path, &cap, err);
    }
  if (rc == SFDO_OK && no == 0)
    rc = sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET, 0, 0,
                         "empty: not a groups file");
  if (rc != SFDO_OK)
    sfdo_groups_release (g);
  return rc;
}

void
sfdo_groups_release (struct sfdo_groups *g)
{
  for (size_t i = 0; i < g->ngroups; i++)
    free (g->groups[i].units);
  free (g->groups);
  free (g->text);
  memset (g, 0, sizeof *g);
}
