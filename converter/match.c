/* converter/match.c - given binaries, mapped files, and where an address
 * is (match.h).  */
#include "match.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "procmap.h"

/* A file name seen in an mmap, and which binary (if any) it is.  */
struct mapped_file {
  char *name;
  int binary;                   /* index into binaries, or -1 */
  uint64_t samples;             /* counted by sfdo_match_count_sample */
  uint8_t build_id[20];         /* as the recording gives it */
  uint8_t build_id_size;        /* 0: it gives none */
};

/* The last address range resolved: within [lo, hi) of process pid at
   time, ip maps to vaddr ip + delta of binary (of mapped file file).  */
struct resolve_cache {
  int valid;
  uint32_t pid, file;
  uint64_t time, lo, hi, delta;
  size_t binary;
};

struct sfdo_match {
  struct sfdo_binary *binaries;
  struct sfdo_u64map *pids;     /* per binary: processes that mapped it,
                                   pid + 1 */
  size_t nbinaries;
  struct mapped_file *files;
  size_t nfiles, cap_files;
  struct sfdo_procmap *procmap;
  struct resolve_cache cache;
};

void
sfdo_match_free (struct sfdo_match *m)
{
  if (!m)
    return;
  for (size_t i = 0; i < m->nbinaries; i++)
    {
      free (m->binaries[i].path);
      free (m->binaries[i].real);
      sfdo_symtab_free (m->binaries[i].symtab);
      sfdo_u64map_release (&m->pids[i]);
    }
  free (m->binaries);
  free (m->pids);
  for (size_t i = 0; i < m->nfiles; i++)
    free (m->files[i].name);
  free (m->files);
  sfdo_procmap_free (m->procmap);
  free (m);
}

enum sfdo_errc
sfdo_match_new (const char *const *paths, size_t n, struct sfdo_match **out,
                struct sfdo_error *err)
{
  struct sfdo_match *m = sfdo_xcalloc (1, sizeof *m);
  m->procmap = sfdo_procmap_new ();
  m->binaries = sfdo_xcalloc (n + 1, sizeof *m->binaries);
  m->pids = sfdo_xcalloc (n + 1, sizeof *m->pids);
  for (size_t i = 0; i < n; i++, m->nbinaries++)
    {
      struct sfdo_binary *b = &m->binaries[i];
      char buf[PATH_MAX];
      b->path = sfdo_xstrndup (paths[i], strlen (paths[i]));
      b->real = realpath (paths[i], buf)
                ? sfdo_xstrndup (buf, strlen (buf))
                : sfdo_xstrndup (paths[i], strlen (paths[i]));
      const char *slash = strrchr (b->path, '/');
      b->base = slash ? slash + 1 : b->path;
      enum sfdo_errc rc = sfdo_symtab_open (paths[i], &b->symtab, err);
      if (rc != SFDO_OK)
        {
          m->nbinaries++;
          sfdo_match_free (m);
          *out = NULL;
          return rc;
        }
    }
  *out = m;
  return SFDO_OK;
}

size_t
sfdo_match_nbinaries (const struct sfdo_match *m)
{
  return m->nbinaries;
}

size_t
sfdo_match_processes (const struct sfdo_match *m, size_t i)
{
  return i < m->nbinaries ? m->pids[i].n : 0;
}

const struct sfdo_binary *
sfdo_match_binary (const struct sfdo_match *m, size_t i)
{
  return i < m->nbinaries ? &m->binaries[i] : NULL;
}

void
sfdo_match_hex (const uint8_t *id, size_t n, char *out)
{
  out[0] = 0;
  for (size_t i = 0; i < n; i++)
    snprintf (out + 2 * i, 3, "%02x", id[i]);
}

/* --- Which file is which binary ---------------------------------------- */

static const char *
base_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? slash + 1 : path;
}

/* The binary recorded as NAME: the same real path, else the same base
   name; -1 if none.  */
static int
binary_of_name (const struct sfdo_match *m, const char *name)
{
  for (size_t i = 0; i < m->nbinaries; i++)
    if (strcmp (m->binaries[i].real, name) == 0)
      return (int) i;
  for (size_t i = 0; i < m->nbinaries; i++)
    if (strcmp (m->binaries[i].base, base_of (name)) == 0)
      return (int) i;
  return -1;
}

/* The binary whose build-id is the SIZE bytes at ID, or -1.  */
static int
binary_of_build_id (const struct sfdo_match *m, const uint8_t *id,
                    size_t size)
{
  char got[41];
  sfdo_match_hex (id, size <= 20 ? size : 20, got);
  for (size_t i = 0; *got && i < m->nbinaries; i++)
    {
      const char *want = sfdo_symtab_build_id (m->binaries[i].symtab);
      if (*want && strncmp (got, want, strlen (want)) == 0)
        return (int) i;
    }
  return -1;
}

/* Which binary the mapped file MM is: by its real path, by the build-id
   the recording gives for it, else by its base name; -1 if none.  */
static int
binary_of_mapping (const struct sfdo_match *m, const struct sfdo_perfdata *pd,
                   const struct sfdo_perfdata_mmap *mm)
{
  for (size_t i = 0; i < m->nbinaries; i++)
    if (strcmp (m->binaries[i].real, mm->filename) == 0)
      return (int) i;
  int k = -1;
  if (mm->has_build_id)
    k = binary_of_build_id (m, mm->build_id, mm->build_id_size);
  for (size_t i = 0; pd && k < 0 && i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *bid = sfdo_perfdata_build_id (pd, i);
      if (bid->filename && strcmp (bid->filename, mm->filename) == 0)
        k = binary_of_build_id (m, bid->id, bid->size);
    }
  return k >= 0 ? k : binary_of_name (m, mm->filename);
}

/* The build-id the recording gives for the file of MM (in the record, or
   in the header's table under its name) into F.  */
static void
note_build_id (struct mapped_file *f, const struct sfdo_perfdata *pd,
               const struct sfdo_perfdata_mmap *mm)
{
  const uint8_t *id = mm->has_build_id ? mm->build_id : NULL;
  size_t size = mm->has_build_id ? mm->build_id_size : 0;
  for (size_t i = 0; pd && !id && i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *bid = sfdo_perfdata_build_id (pd, i);
      if (bid->filename && strcmp (bid->filename, mm->filename) == 0)
        id = bid->id, size = bid->size;
    }
  if (!id || size > sizeof f->build_id)
    return;
  memcpy (f->build_id, id, size);
  f->build_id_size = (uint8_t) size;
}

static uint32_t
file_id (struct sfdo_match *m, const struct sfdo_perfdata *pd,
         const struct sfdo_perfdata_mmap *mm)
{
  for (size_t i = m->nfiles; i-- > 0;)
    if (strcmp (m->files[i].name, mm->filename) == 0)
      return (uint32_t) i;
  sfdo_xgrow (&m->files, &m->cap_files, m->nfiles + 1, sizeof *m->files);
  struct mapped_file *f = &m->files[m->nfiles];
  *f = (struct mapped_file) {
    sfdo_xstrndup (mm->filename, strlen (mm->filename)),
    binary_of_mapping (m, pd, mm), 0, { 0 }, 0
  };
  note_build_id (f, pd, mm);
  return (uint32_t) m->nfiles++;
}

void
sfdo_match_mmap (struct sfdo_match *m, const struct sfdo_perfdata *pd,
                 const struct sfdo_perfdata_mmap *mm, uint64_t time)
{
  uint32_t fid = file_id (m, pd, mm);
  sfdo_procmap_mmap (m->procmap, mm->pid, mm->addr, mm->len, mm->pgoff, fid,
                     time);
  if (m->files[fid].binary >= 0)
    *sfdo_u64map_get (&m->pids[m->files[fid].binary],
                      (uint64_t) mm->pid + 1) = 1;
}

void
sfdo_match_fork (struct sfdo_match *m, uint32_t parent, uint32_t child,
                 uint64_t time)
{
  sfdo_procmap_fork (m->procmap, parent, child, time);
}

void
sfdo_match_exec (struct sfdo_match *m, uint32_t pid, uint64_t time)
{
  sfdo_procmap_exec (m->procmap, pid, time);
}

enum sfdo_errc
sfdo_match_check_build_ids (struct sfdo_match *m,
                            const struct sfdo_perfdata *pd, int force,
                            struct sfdo_error *err)
{
  for (size_t i = 0; i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *bid = sfdo_perfdata_build_id (pd, i);
      int k = bid->filename ? binary_of_name (m, bid->filename) : -1;
      if (k < 0)
        continue;
      const struct sfdo_binary *b = &m->binaries[k];
      const char *want = sfdo_symtab_build_id (b->symtab);
      char got[41];
      sfdo_match_hex (bid->id, bid->size <= 20 ? bid->size : 20, got);
      if (*want && strncmp (got, want, strlen (want)) != 0 && !force)
        return sfdo_error_set (err, SFDO_E_MALFORMED, b->path, SFDO_NO_OFFSET,
                               0, 0,
                               "build-id %s differs from the %s recorded for "
                               "%s: the profile would describe another build "
                               "(use --force to convert anyway)",
                               want, *got ? got : "(empty)", bid->filename);
    }
  return SFDO_OK;
}

/* --- Resolving ---------------------------------------------------------- */

enum sfdo_match_result
sfdo_match_resolve (struct sfdo_match *m, uint32_t pid, uint64_t ip,
                    uint64_t time, struct sfdo_match_at *at)
{
  struct resolve_cache *c = &m->cache;
  struct sfdo_procmap_hit hit;
  uint64_t so, size, sv;
  if (c->valid && c->pid == pid && c->time == time && ip >= c->lo
      && ip < c->hi)
    {
      *at = (struct sfdo_match_at) { c->file, c->binary, ip + c->delta };
      return SFDO_MATCH_OK;
    }
  if (sfdo_procmap_lookup (m->procmap, pid, ip, time, &hit) != 0)
    return SFDO_MATCH_UNMAPPED;
  at->file = hit.file_id;
  int k = m->files[hit.file_id].binary;
  if (k < 0)
    return SFDO_MATCH_OTHER_FILE;
  const struct sfdo_binary *b = &m->binaries[k];
  uint64_t offset = hit.pgoff + (ip - hit.start);
  if (sfdo_symtab_segment (b->symtab, offset, &so, &size, &sv) != 0)
    return SFDO_MATCH_NOT_LOADED;
  /* The part of the mapping that loads from this segment.  */
  uint64_t seg_lo = hit.start + (so > hit.pgoff ? so - hit.pgoff : 0);
  uint64_t seg_hi = hit.start + (so + size - hit.pgoff);
  *c = (struct resolve_cache) { 1, pid, hit.file_id, time,
                                seg_lo > hit.start ? seg_lo : hit.start,
                                seg_hi < hit.end ? seg_hi : hit.end,
                                sv - so + hit.pgoff - hit.start, (size_t) k };
  *at = (struct sfdo_match_at) { hit.file_id, (size_t) k, ip + c->delta };
  return SFDO_MATCH_OK;
}

int
sfdo_match_locate (struct sfdo_match *m, uint32_t pid, uint64_t ip,
                   uint64_t time, struct sfdo_match_code *code)
{
  struct sfdo_procmap_hit hit;
  if (sfdo_procmap_lookup (m->procmap, pid, ip, time, &hit) != 0)
    return -1;
  const struct mapped_file *f = &m->files[hit.file_id];
  code->path = f->binary >= 0 ? m->binaries[f->binary].path : f->name;
  code->offset = hit.pgoff + (ip - hit.start);
  /* A given binary's build-id was checked already (or --force waived
     it).  */
  code->build_id = f->binary >= 0 ? NULL : f->build_id;
  code->build_id_size = f->binary >= 0 ? 0 : f->build_id_size;
  return 0;
}

void
sfdo_match_count_sample (struct sfdo_match *m, uint32_t file)
{
  if (file < m->nfiles)
    m->files[file].samples++;
}

size_t
sfdo_match_sampled_files (const struct sfdo_match *m, size_t max,
                          const char **names, uint64_t *counts)
{
  size_t n = 0;
  for (size_t i = 0; i < m->nfiles; i++)
    {
      uint64_t c = m->files[i].samples;
      if (!c)
        continue;
      /* Insertion into the top MAX, most first.  */
      size_t k = n < max ? n++ : max;
      while (k > 0 && counts[k - 1] < c)
        {
          if (k < max)
            names[k] = names[k - 1], counts[k] = counts[k - 1];
          k--;
        }
      if (k < max)
        names[k] = m->files[i].name, counts[k] = c;
    }
  return n;
}
