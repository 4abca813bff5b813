/* converter/convert.c - reading perf.data records into per-address
 * weights (see convert.h).  */
#include "convert_int.h"
#include "folded.h"
#include "unsampled.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

/* perf_event_attr.type and config values used to rank events.  */
#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_HW_INSTRUCTIONS 1
#define PERF_RECORD_MISC_USER 2
#define PERF_RECORD_MISC_GUEST_USER 5

static void
free_binaries (struct sfdo_converter *cv)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    sfdo_u64map_release (&cv->binaries[i].pids);
  for (size_t i = 0; i < cv->nbinaries; i++)
    {
      free (cv->binaries[i].path);
      free (cv->binaries[i].real);
      sfdo_symtab_free (cv->binaries[i].symtab);
      sfdo_u64map_release (&cv->binaries[i].weights);
      sfdo_u64map_release (&cv->binaries[i].clk_weights);
      sfdo_u64map_release (&cv->binaries[i].stall_weights);
      sfdo_pairmap_release (&cv->binaries[i].ranges);
      sfdo_pairmap_release (&cv->binaries[i].branches);
      sfdo_pairmap_release (&cv->binaries[i].calls);
      sfdo_u64map_release (&cv->binaries[i].site_index);
      free (cv->binaries[i].sites);
      for (int k = 0; k < SFDO_VALUE_NKINDS; k++)
        sfdo_pairmap_release (&cv->binaries[i].values[k]);
    }
  free (cv->binaries);
}

void
sfdo_converter_free (struct sfdo_converter *cv)
{
  if (!cv)
    return;
  free_binaries (cv);
  for (size_t i = 0; i < cv->nfiles; i++)
    free (cv->files[i].name);
  free (cv->files);
  free (cv->event_name);
  for (size_t i = 0; i < cv->naux_notes; i++)
    free (cv->aux_notes[i].name);
  free (cv->deferred);
  sfdo_decoder_free (cv->decoder);
  sfdo_procmap_free (cv->procmap);
  free (cv);
}

enum sfdo_errc
sfdo_converter_new (const struct sfdo_convert_opts *opts,
                    const char *const *paths, size_t n,
                    struct sfdo_converter **out, struct sfdo_error *err)
{
  struct sfdo_converter *cv
    = (struct sfdo_converter *) sfdo_xcalloc (1, sizeof *cv);
  cv->opts = *opts;
  cv->procmap = sfdo_procmap_new ();
  cv->binaries = (struct binary *) sfdo_xcalloc (n + 1, sizeof *cv->binaries);
  for (size_t i = 0; i < n; i++, cv->nbinaries++)
    {
      struct binary *b = &cv->binaries[i];
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
          cv->nbinaries++;
          sfdo_converter_free (cv);
          *out = NULL;
          return rc;
        }
    }
  /* Value sites are decoded while reading; a binary we cannot decode
     simply yields no values here (build reports it).  */
  if (n && sfdo_decoder_new (sfdo_symtab_machine (cv->binaries[0].symtab),
                             &cv->decoder, NULL) != SFDO_OK)
    cv->decoder = NULL;
  *out = cv;
  return SFDO_OK;
}

const struct sfdo_convert_stats *
sfdo_converter_stats (const struct sfdo_converter *cv)
{
  return &cv->stats;
}

/* --- Which file is which binary ---------------------------------------- */

static const char *
base_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? slash + 1 : path;
}

/* The binary recorded as NAME: the same real path, else the same base
   name (the recording may come from another machine); -1 if none.  */
static int
binary_of_name (const struct sfdo_converter *cv, const char *name)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    if (strcmp (cv->binaries[i].real, name) == 0)
      return (int) i;
  for (size_t i = 0; i < cv->nbinaries; i++)
    if (strcmp (cv->binaries[i].base, base_of (name)) == 0)
      return (int) i;
  return -1;
}

static void
hex (const uint8_t *id, size_t n, char *out)
{
  for (size_t i = 0; i < n; i++)
    snprintf (out + 2 * i, 3, "%02x", id[i]);
}

/* The binary whose build-id is the SIZE bytes at ID, or -1.  perf pads
   build-ids to 20 bytes with zeros, so compare the binary's length.  */
static int
binary_of_build_id (const struct sfdo_converter *cv, const uint8_t *id,
                    size_t size)
{
  char got[41];
  hex (id, size <= 20 ? size : 20, got);
  for (size_t i = 0; i < cv->nbinaries; i++)
    {
      const char *want = sfdo_symtab_build_id (cv->binaries[i].symtab);
      if (*want && strncmp (got, want, strlen (want)) == 0)
        return (int) i;
    }
  return -1;
}

/* Which binary the mapped file M is: by its real path, by the build-id the
   recording gives for it, else by its base name; -1 if none.  */
static int
binary_of_mapping (const struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                   const struct sfdo_perfdata_mmap *m)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    if (strcmp (cv->binaries[i].real, m->filename) == 0)
      return (int) i;
  int k = -1;
  if (m->has_build_id)
    k = binary_of_build_id (cv, m->build_id, m->build_id_size);
  for (size_t i = 0; k < 0 && i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *bid = sfdo_perfdata_build_id (pd, i);
      if (bid->filename && strcmp (bid->filename, m->filename) == 0)
        k = binary_of_build_id (cv, bid->id, bid->size);
    }
  /* A name match whose build-id differs is refused by check_build_ids,
     unless --force.  */
  return k >= 0 ? k : binary_of_name (cv, m->filename);
}

static uint32_t
file_id (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
         const struct sfdo_perfdata_mmap *m)
{
  for (size_t i = cv->nfiles; i-- > 0;)
    if (strcmp (cv->files[i].name, m->filename) == 0)
      return (uint32_t) i;
  sfdo_xgrow (&cv->files, &cv->cap_files, cv->nfiles + 1, sizeof *cv->files);
  cv->files[cv->nfiles].name = sfdo_xstrndup (m->filename,
                                              strlen (m->filename));
  cv->files[cv->nfiles].binary = binary_of_mapping (cv, pd, m);
  return (uint32_t) cv->nfiles++;
}

/* Compare the build-ids perf.data recorded for our binaries with theirs.
   perf pads 20-byte build-ids with zeros, so compare the binary's length.  */
static enum sfdo_errc
check_build_ids (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                 struct sfdo_error *err)
{
  for (size_t i = 0; i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *bid = sfdo_perfdata_build_id (pd, i);
      int k = bid->filename ? binary_of_name (cv, bid->filename) : -1;
      if (k < 0)
        continue;
      struct binary *b = &cv->binaries[k];
      const char *want = sfdo_symtab_build_id (b->symtab);
      char got[41];
      hex (bid->id, bid->size <= 20 ? bid->size : 20, got);
      b->build_id_checked = 1;
      if (*want && strncmp (got, want, strlen (want)) != 0 && !cv->opts.force)
        return sfdo_error_set (err, SFDO_E_MALFORMED, b->path, SFDO_NO_OFFSET,
                               0, 0,
                               "build-id %s differs from the %s recorded for "
                               "%s: the profile would describe another build "
                               "(use --force to convert anyway)",
                               want, got, bid->filename);
    }
  return SFDO_OK;
}

/* --- Choosing the event counted ------------------------------------------ */

/* Higher is better: retired instructions count executions directly;
   cycles and clocks measure time.  */
static int
event_rank (const struct sfdo_perfdata_attr *a)
{
  if (a->sample_type & SFDO_PERFDATA_S_BRANCH_STACK)
    return 5;
  if (a->name && (strstr (a->name, "INST_RETIRED")
                  || strstr (a->name, "RETIRED_INSTRUCTIONS")
                  || strncmp (a->name, "instructions", 12) == 0))
    return 4;
  if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_INSTRUCTIONS)
    return 4;
  if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)
    return 3;
  if (a->type == PERF_TYPE_SOFTWARE && a->config <= 1)
    return 2;
  return 1;
}

/* Whether A is the event the user named NAME: perf's name for it, with
   or without its modifiers (":u").  */
static int
event_named (const struct sfdo_perfdata_attr *a, const char *name)
{
  if (!a->name)
    return 0;
  size_t n = strlen (name);
  return strcmp (a->name, name) == 0
         || (!strchr (name, ':') && strncmp (a->name, name, n) == 0
             && a->name[n] == ':');
}

static int
is_cycles (const struct sfdo_perfdata_attr *a)
{
  return (a->type == PERF_TYPE_HARDWARE
          && a->config == PERF_COUNT_HW_CPU_CYCLES)
         || (a->name && (strstr (a->name, "CPU_CLK_UNHALTED")
                         || strstr (a->name, "CYCLES_NOT_IN_HALT")
                         || strncmp (a->name, "cycles", 6) == 0));
}

/* Cycles one sample's worth of event A stands for, when A counts long
   stalls, else 0.  Typical x86 latencies (Chen et al. take them from the
   processor manual per micro-architecture): a DTLB miss walks the page
   table, about 30 cycles; a last-level cache miss goes to DRAM, about
   200.  */
static uint32_t
stall_cycles (const struct sfdo_perfdata_attr *a)
{
  if (!a->name)
    return 0;
  if ((strstr (a->name, "DTLB") || strstr (a->name, "dTLB"))
      && (strstr (a->name, "MISS") || strstr (a->name, "miss")))
    return 30;
  if (strstr (a->name, "LLC-load-misses") || strstr (a->name, "LLC_MISS")
      || strstr (a->name, "LONGEST_LAT_CACHE:MISS"))
    return 200;
  return 0;
}

/* Beside the event counted, the events that classify blocks: cycles
   (needed; a retired-instructions count is what they classify, unless
   the user named the pair) and long-stall events.  */
static void
choose_aux_events (struct sfdo_converter *cv, struct sfdo_perfdata *pd)
{
  cv->naux = 0;
  if (!cv->opts.clk_event && event_rank (cv->event) != 4)
    return;
  const struct sfdo_perfdata_attr *clk = NULL;
  for (size_t i = 0; i < sfdo_perfdata_nattrs (pd) && !clk; i++)
    {
      const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
      if (a != cv->event && (cv->opts.clk_event
                             ? event_named (a, cv->opts.clk_event)
                             : is_cycles (a)))
        clk = a;
    }
  if (!clk)
    return;
  cv->aux[cv->naux++] = (struct aux_event) { clk, ROLE_CLK, 0 };
  for (size_t i = 0; i < sfdo_perfdata_nattrs (pd); i++)
    {
      const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
      uint32_t cycles = stall_cycles (a);
      if (cycles && a != cv->event && a != clk && cv->naux < MAX_AUX_EVENTS)
        cv->aux[cv->naux++] = (struct aux_event) { a, ROLE_STALL, cycles };
    }
  cv->classify = 1;
}

static void
choose_event (struct sfdo_converter *cv, struct sfdo_perfdata *pd)
{
  for (size_t i = 0; i < sfdo_perfdata_nattrs (pd); i++)
    {
      const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
      if (cv->opts.count_event ? event_named (a, cv->opts.count_event)
                               : !cv->event
                                 || event_rank (a) > event_rank (cv->event))
        {
          cv->event = a;
          if (cv->opts.count_event)
            break;
        }
    }
  if (cv->event)
    choose_aux_events (cv, pd);
}

/* The role of samples of A, and for stall events the cycles each event
   stands for.  */
static enum event_role
role_of (const struct sfdo_converter *cv, const struct sfdo_perfdata_attr *a,
         size_t *aux)
{
  if (!a || a == cv->event)
    return ROLE_COUNT;
  for (size_t i = 0; i < cv->naux; i++)
    if (cv->aux[i].attr == a)
      {
        *aux = i;
        return cv->aux[i].role;
      }
  return ROLE_NONE;
}

/* --- The record walk ------------------------------------------------------ */

/* The binary and virtual address of IP in PID, or NULL.  A branch stack
   names a few dozen addresses in one or two mappings, so the last range
   found is kept: most lookups are an add.  */
static struct binary *
resolve (struct sfdo_converter *cv, uint32_t pid, uint64_t ip,
         uint64_t *vaddr)
{
  struct resolve_cache *c = &cv->cache;
  struct sfdo_procmap_hit hit;
  uint64_t so, size, sv;
  if (c->b && c->pid == pid && c->time == cv->last_time && ip >= c->lo
      && ip < c->hi)
    {
      *vaddr = ip + c->delta;
      return c->b;
    }
  if (sfdo_procmap_lookup (cv->procmap, pid, ip, cv->last_time, &hit) != 0
      || cv->files[hit.file_id].binary < 0)
    return NULL;
  struct binary *b = &cv->binaries[cv->files[hit.file_id].binary];
  uint64_t offset = hit.pgoff + (ip - hit.start);
  if (sfdo_symtab_segment (b->symtab, offset, &so, &size, &sv) != 0)
    return NULL;
  /* The part of the mapping that loads from this segment.  */
  uint64_t seg_lo = hit.start + (so > hit.pgoff ? so - hit.pgoff : 0);
  uint64_t seg_hi = hit.start + (so + size - hit.pgoff);
  *c = (struct resolve_cache) { pid, cv->last_time,
                                seg_lo > hit.start ? seg_lo : hit.start,
                                seg_hi < hit.end ? seg_hi : hit.end,
                                sv - so + hit.pgoff - hit.start, b };
  *vaddr = ip + c->delta;
  return b;
}

/* Tally the branch stack of S (newest entry first), each entry weighing
   its share W of the sample's period: every taken branch, and every
   straight run from one branch's target to the next branch's source.  */
static void
take_branch_stack (struct sfdo_converter *cv,
                   const struct sfdo_perfdata_sample *s, uint64_t w)
{
  enum { MAX_ENTRIES = 256 };
  const struct sfdo_perfdata_branch *br = s->branches;
  struct sfdo_convert_stats *st = &cv->stats;
  uint64_t n = s->branch_nr < MAX_ENTRIES ? s->branch_nr : MAX_ENTRIES;
  uint64_t from[MAX_ENTRIES], to[MAX_ENTRIES];
  struct binary *bf[MAX_ENTRIES], *bt[MAX_ENTRIES];
  st->lbr_samples++;
  for (uint64_t i = 0; i < n; i++)
    {
      bf[i] = resolve (cv, s->pid, br[i].from, &from[i]);
      bt[i] = resolve (cv, s->pid, br[i].to, &to[i]);
      st->lbr_branches++;
      if (!bf[i] || bf[i] != bt[i])
        {
          st->lbr_branches_dropped++;
          continue;
        }
      struct sfdo_pairval *v = sfdo_pairmap_get (&bf[i]->branches, from[i],
                                                 to[i]);
      v->count++;
      v->weight = sfdo_sat_add (v->weight, w);
    }
  /* Entry I's target runs straight to entry I-1's source.  */
  for (uint64_t i = 1; i < n; i++)
    {
      st->lbr_ranges++;
      if (!bt[i] || bt[i] != bf[i - 1] || from[i - 1] < to[i]
          || from[i - 1] - to[i] >= SFDO_MAX_RANGE)
        {
          st->lbr_ranges_dropped++;
          continue;
        }
      struct sfdo_pairval *v = sfdo_pairmap_get (&bt[i]->ranges, to[i],
                                                 from[i - 1]);
      v->count++;
      v->weight = sfdo_sat_add (v->weight, w);
    }
}

/* perf marks where kernel, user and guest parts of a callchain begin with
   these values (PERF_CONTEXT_*), all at or above this one.  */
#define PERF_CONTEXT_MAX ((uint64_t) -4095)

/* Tally each (return address, callee address) pair of S's callchain, so
   indirect calls learn their targets.  Pairs crossing binaries are left
   out: a call through the PLT lands in another file.  */
static void
take_callchain (struct sfdo_converter *cv,
                const struct sfdo_perfdata_sample *s, uint64_t w)
{
  uint64_t callee = 0;
  struct binary *callee_bin = NULL;
  for (uint64_t i = 0; i < s->callchain_nr; i++)
    {
      uint64_t ip = s->callchain[i], vaddr;
      if (ip >= PERF_CONTEXT_MAX)
        continue;
      struct binary *b = resolve (cv, s->pid, ip, &vaddr);
      if (b && b == callee_bin)
        {
          struct sfdo_pairval *v = sfdo_pairmap_get (&b->calls, vaddr, callee);
          v->count++;
          v->weight = sfdo_sat_add (v->weight, w);
        }
      callee = vaddr;
      callee_bin = b;
    }
}

static uint64_t
sample_period (const struct sfdo_perfdata_attr *a,
               const struct sfdo_perfdata_sample *s)
{
  if ((s->fields & SFDO_PERFDATA_S_PERIOD) && s->period)
    return s->period;
  if (a && !a->freq && a->sample_period)
    return a->sample_period;
  return 1;
}

/* The map of B that samples of ROLE add to.  */
static struct sfdo_u64map *
weights_of (struct binary *b, enum event_role role)
{
  return role == ROLE_CLK ? &b->clk_weights
         : role == ROLE_STALL ? &b->stall_weights : &b->weights;
}

/* Add WEIGHT at VADDR of B for a sample of ROLE.  */
static void
add_weight (struct sfdo_converter *cv, struct binary *b, enum event_role role,
            uint64_t vaddr, uint64_t weight)
{
  uint64_t *w = sfdo_u64map_get (weights_of (b, role), vaddr);
  *w = sfdo_sat_add (*w, weight);
  if (role == ROLE_COUNT)
    {
      cv->event_samples++;
      cv->stats.used++;
      if (!cv->min_sample_weight || weight < cv->min_sample_weight)
        cv->min_sample_weight = weight;
    }
  else
    cv->stats.aux_used++;
}

/* The binary and virtual address of offset OFFSET of mapped file FID;
   NULL (counted) if it is not a given binary or not loaded from it.  */
static struct binary *
binary_at (struct sfdo_converter *cv, uint32_t fid, uint64_t offset,
           uint64_t *vaddr)
{
  int k = cv->files[fid].binary;
  if (k < 0)
    {
      cv->stats.other_file++;
      return NULL;
    }
  struct binary *b = &cv->binaries[k];
  if (sfdo_symtab_offset_to_vaddr (b->symtab, offset, vaddr) != 0)
    {
      cv->stats.no_line++;
      return NULL;
    }
  return b;
}

/* perf writes each CPU's buffer in turn, so a sample can come before the
   mmap of its code in the file.  Such samples wait (their IP, weight,
   callchain and branch stack; not their registers) until every mmap has
   been seen, within a bound on memory.  */
#define MAX_DEFERRED (1u << 24)
#define MAX_DEFERRED_WORDS (1u << 24)

static void *
copy_of (const void *p, size_t n, size_t size)
{
  if (!p || !n)
    return NULL;
  void *q = sfdo_xmalloc (n * size);
  memcpy (q, p, n * size);
  return q;
}

/* Defer sample S of ROLE, weighing WEIGHT; with its callchain and branch
   stack when it is of the event counted.  */
static void
defer_sample (struct sfdo_converter *cv, const struct sfdo_perfdata_sample *s,
              enum event_role role, uint64_t time, uint64_t weight)
{
  if (cv->ndeferred >= MAX_DEFERRED)
    {
      cv->stats.unmapped++;
      return;
    }
  struct deferred_sample d = { s->pid, (uint8_t) role, s->ip, time, weight,
                               NULL, NULL, 0, 0 };
  size_t words = s->callchain_nr + 3 * s->branch_nr;
  if (role == ROLE_COUNT && cv->deferred_words + words <= MAX_DEFERRED_WORDS)
    {
      d.callchain = copy_of (s->callchain, s->callchain_nr, sizeof (uint64_t));
      d.callchain_nr = d.callchain ? (uint32_t) s->callchain_nr : 0;
      d.branches = copy_of (s->branches, s->branch_nr, sizeof *s->branches);
      d.branch_nr = d.branches ? (uint32_t) s->branch_nr : 0;
      cv->deferred_words += words;
    }
  sfdo_xgrow (&cv->deferred, &cv->cap_deferred, cv->ndeferred + 1,
              sizeof *cv->deferred);
  cv->deferred[cv->ndeferred++] = d;
}

static void
take_branch_stack (struct sfdo_converter *cv,
                   const struct sfdo_perfdata_sample *s, uint64_t w);
static void
take_callchain (struct sfdo_converter *cv,
                const struct sfdo_perfdata_sample *s, uint64_t w);

/* A deferred sample, now that every mmap is known.  */
static void
take_one_deferred (struct sfdo_converter *cv, const struct deferred_sample *d)
{
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.pid = s.tid = d->pid;
  s.ip = d->ip;
  s.callchain = d->callchain;
  s.callchain_nr = d->callchain_nr;
  s.branches = d->branches;
  s.branch_nr = d->branch_nr;
  cv->last_time = d->time;
  if (d->branch_nr)
    {
      take_branch_stack (cv, &s, d->weight / d->branch_nr
                                 ? d->weight / d->branch_nr : 1);
      cv->event_samples++;
      cv->stats.used++;
      return;
    }
  uint32_t fid;
  uint64_t offset, vaddr;
  struct binary *b = NULL;
  if (sfdo_procmap_resolve (cv->procmap, d->pid, d->ip, d->time, &fid,
                            &offset) != 0)
    cv->stats.unmapped++;
  else
    b = binary_at (cv, fid, offset, &vaddr);
  if (!b)
    return;
  add_weight (cv, b, (enum event_role) d->role, vaddr, d->weight);
  if (d->callchain_nr)
    take_callchain (cv, &s, d->weight);
}

static void
take_deferred (struct sfdo_converter *cv)
{
  for (size_t i = 0; i < cv->ndeferred; i++)
    {
      take_one_deferred (cv, &cv->deferred[i]);
      free (cv->deferred[i].callchain);
      free (cv->deferred[i].branches);
    }
  cv->ndeferred = 0;
  cv->deferred_words = 0;
}

/* A sample of a classifying event: only where it fell counts.  */
static void
take_aux_sample (struct sfdo_converter *cv,
                 const struct sfdo_perfdata_record *r, size_t aux,
                 uint64_t time)
{
  const struct sfdo_perfdata_sample *s = &r->u.sample;
  const struct aux_event *e = &cv->aux[aux];
  uint64_t weight = sample_period (e->attr, s);
  if (e->role == ROLE_STALL)
    weight = sfdo_sat_mul (weight, e->stall_cycles);
  cv->aux_samples[aux]++;
  uint32_t fid;
  uint64_t offset, vaddr;
  if (sfdo_procmap_resolve (cv->procmap, s->pid, s->ip, time, &fid, &offset)
      != 0)
    {
      defer_sample (cv, s, e->role, time, weight);
      return;
    }
  struct binary *b = binary_at (cv, fid, offset, &vaddr);
  if (b)
    add_weight (cv, b, e->role, vaddr, weight);
}

static void
take_sample (struct sfdo_converter *cv, const struct sfdo_perfdata_record *r,
             uint64_t time)
{
  const struct sfdo_perfdata_sample *s = &r->u.sample;
  unsigned mode = r->misc & SFDO_PERFDATA_MISC_CPUMODE_MASK;
  cv->stats.samples++;
  if (s->fields & SFDO_PERFDATA_S_CALLCHAIN)
    cv->stats.callchains++;
  if (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER)
    {
      cv->stats.kernel++;
      return;
    }
  size_t aux = 0;
  enum event_role role = role_of (cv, r->attr, &aux);
  if (role == ROLE_NONE)
    {
      cv->stats.other_event++;
      return;
    }
  if (role != ROLE_COUNT)
    {
      take_aux_sample (cv, r, aux, time);
      return;
    }
  uint64_t period = sample_period (cv->event, s);
  uint32_t fid;
  uint64_t offset, vaddr;
  if (sfdo_procmap_resolve (cv->procmap, s->pid, s->ip, time, &fid, &offset)
      != 0)
    {
      defer_sample (cv, s, ROLE_COUNT, time, period);
      return;
    }
  if ((s->fields & SFDO_PERFDATA_S_BRANCH_STACK) && s->branch_nr)
    {
      take_branch_stack (cv, s, period / s->branch_nr ? period / s->branch_nr
                                                      : 1);
      cv->event_samples++;
      cv->stats.used++;
      return;
    }
  struct binary *b = binary_at (cv, fid, offset, &vaddr);
  if (!b)
    return;
  add_weight (cv, b, ROLE_COUNT, vaddr, period);
  if (s->fields & (SFDO_PERFDATA_S_REGS_USER | SFDO_PERFDATA_S_REGS_INTR))
    sfdo_values_take (cv, b, vaddr, s, r->attr, period);
  if (s->fields & SFDO_PERFDATA_S_CALLCHAIN)
    take_callchain (cv, s, period);
}

/* The name of A for the profile header.  */
static char *
event_name (const struct sfdo_perfdata_attr *a)
{
  char name[64];
  if (a->name)
    return sfdo_xstrndup (a->name, strlen (a->name));
  snprintf (name, sizeof name, "%s:%llu",
            a->type == PERF_TYPE_HARDWARE ? "hardware"
            : a->type == PERF_TYPE_SOFTWARE ? "software" : "raw",
            (unsigned long long) a->config);
  return sfdo_xstrndup (name, strlen (name));
}

/* Keep what the profile header says of the events used.  */
static void
remember_events (struct sfdo_converter *cv)
{
  free (cv->event_name);
  cv->event_name = event_name (cv->event);
  cv->event_period = cv->event->freq ? 0 : cv->event->sample_period;
  for (size_t i = 0; i < cv->naux && cv->naux_notes < MAX_AUX_EVENTS; i++)
    {
      const struct sfdo_perfdata_attr *a = cv->aux[i].attr;
      cv->aux_notes[cv->naux_notes++]
        = (struct event_note) { event_name (a), a->freq ? 0 : a->sample_period,
                                cv->aux_samples[i] };
    }
  cv->naux = 0;
}

struct walk {
  struct sfdo_converter *cv;
  struct sfdo_perfdata *pd;
  void (*progress) (uint64_t, void *);
  void *progress_ctx;
  uint64_t records;
};

/* The time of R: its own, or for a file without times the time of the
   record before it, so that file order stands in for time order.  */
static uint64_t
record_time (struct sfdo_converter *cv, const struct sfdo_perfdata_record *r)
{
  if (r->type == SFDO_PERFDATA_SAMPLE
      && (r->u.sample.fields & SFDO_PERFDATA_S_TIME))
    return cv->last_time = r->u.sample.time;
  if (r->id.fields & SFDO_PERFDATA_S_TIME)
    return cv->last_time = r->id.time;
  return cv->last_time;
}

static int
on_record (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct walk *w = (struct walk *) ctx;
  struct sfdo_converter *cv = w->cv;
  uint64_t time = record_time (cv, r);
  if (w->progress && (++w->records & 0xfffff) == 0)
    w->progress (w->records, w->progress_ctx);
  switch (r->type)
    {
    case SFDO_PERFDATA_MMAP:
    case SFDO_PERFDATA_MMAP2:
      {
        uint32_t fid = file_id (cv, w->pd, &r->u.mmap);
        sfdo_procmap_mmap (cv->procmap, r->u.mmap.pid, r->u.mmap.addr,
                           r->u.mmap.len, r->u.mmap.pgoff, fid, time);
        if (cv->files[fid].binary >= 0)
          *sfdo_u64map_get (&cv->binaries[cv->files[fid].binary].pids,
                            (uint64_t) r->u.mmap.pid + 1) = 1;
      }
      break;
    case SFDO_PERFDATA_FORK:
      if (r->u.task.pid != r->u.task.ppid)
        sfdo_procmap_fork (cv->procmap, r->u.task.ppid, r->u.task.pid,
                           r->u.task.time ? r->u.task.time : time);
      break;
    case SFDO_PERFDATA_COMM:
      if ((r->misc & SFDO_PERFDATA_MISC_COMM_EXEC)
          && r->u.comm.pid == r->u.comm.tid)
        {
          sfdo_procmap_exec (cv->procmap, r->u.comm.pid, time);
        }
      break;
    case SFDO_PERFDATA_LOST:
      cv->stats.lost += r->u.lost.lost;
      break;
    case SFDO_PERFDATA_SAMPLE:
      if (!cv->event)
        choose_event (cv, w->pd);
      take_sample (cv, r, time);
      break;
    }
  return SFDO_PERFDATA_CB_OK;
}

/* The events of PD, for messages.  */
static void
list_events (struct sfdo_perfdata *pd, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sfdo_perfdata_nattrs (pd) && used < size; i++)
    {
      const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
      int n = snprintf (buf + used, size - used, "%s%s", i ? ", " : "",
                        a->name ? a->name : "(unnamed)");
      used += n > 0 ? (size_t) n : 0;
    }
}

/* An event the user named that the file does not have is an error.  */
static enum sfdo_errc
check_named_events (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                    struct sfdo_error *err)
{
  const char *missing = NULL;
  if (cv->opts.count_event && cv->stats.samples
      && (!cv->event || !event_named (cv->event, cv->opts.count_event)))
    missing = cv->opts.count_event;
  else if (cv->opts.clk_event && cv->event && !cv->classify)
    missing = cv->opts.clk_event;
  if (!missing)
    return SFDO_OK;
  char events[512];
  list_events (pd, events, sizeof events);
  return sfdo_error_set (err, SFDO_E_USAGE, NULL, SFDO_NO_OFFSET, 0, 0,
                         "no event '%s' was recorded (the events: %s)",
                         missing, events);
}

enum sfdo_errc
sfdo_converter_read (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                     void (*progress) (uint64_t, void *), void *progress_ctx,
                     struct sfdo_error *err)
{
  struct walk w = { cv, pd, progress, progress_ctx, 0 };
  cv->event = NULL;
  enum sfdo_errc rc = check_build_ids (cv, pd, err);
  if (rc == SFDO_OK)
    rc = sfdo_perfdata_foreach_record (pd, on_record, &w, err);
  take_deferred (cv);
  if (rc == SFDO_OK)
    rc = check_named_events (cv, pd, err);
  /* Pipe mode delivers build-ids at the end.  */
  if (rc == SFDO_OK)
    rc = check_build_ids (cv, pd, err);
  if (cv->event)
    remember_events (cv);
  cv->event = NULL;             /* it belongs to PD */
  return rc;
}

/* --- Building ----------------------------------------------------------- */

static void
fill_header (struct sfdo_converter *cv, struct sfdo_profile *p)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    if (*sfdo_symtab_build_id (cv->binaries[i].symtab))
      sfdo_profile_add_build_id (p, sfdo_symtab_build_id (cv->binaries[i].symtab));
  int lbr = cv->stats.lbr_samples > 0;
  if (cv->stats.used > cv->stats.lbr_samples)
    sfdo_profile_add_mode (p, "ip");
  if (lbr)
    sfdo_profile_add_mode (p, "lbr");
  if (cv->opts.tool)
    sfdo_profile_add_tool (p, cv->opts.tool);
  if (cv->event_name)
    sfdo_profile_add_event (p, cv->event_name, cv->event_period,
                            cv->event_samples);
  for (size_t i = 0; i < cv->naux_notes; i++)
    sfdo_profile_add_event (p, cv->aux_notes[i].name, cv->aux_notes[i].period,
                            cv->aux_notes[i].samples);
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  h->samples_used = cv->stats.used;
  h->samples_dropped = cv->stats.samples - cv->stats.used
                       - cv->stats.aux_used;
}

/* Add the call counts of F's call targets, and of its inlinees', into
   INCOMING (callee name id -> calls).  */
static void
count_calls (const struct sfdo_prof_func *f, struct sfdo_u64map *incoming)
{
  for (size_t i = 0; i < f->nlines; i++)
    for (size_t k = 0; k < f->lines[i].ntargets; k++)
      {
        uint64_t *n = sfdo_u64map_get (incoming, f->lines[i].targets[k].name);
        *n = sfdo_sat_add (*n, f->lines[i].targets[k].count);
      }
  for (size_t i = 0; i < f->ncallsites; i++)
    count_calls (f->callsites[i].callee, incoming);
}

/* With callchains, a function is entered as often as its callers' calls
   reach it (direct calls run as often as their blocks; callchains split
   indirect ones), which keeps each head count consistent with the call
   edges into it; a function no call of these binaries reaches (main, a
   callback) keeps its entry block's count.  */
static void
heads_from_calls (struct sfdo_profile *p)
{
  struct sfdo_u64map incoming = { 0 };
  size_t n = sfdo_profile_nfuncs (p);
  for (size_t i = 0; i < n; i++)
    count_calls (sfdo_profile_func (p, i, NULL), &incoming);
  for (size_t i = 0; i < n; i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      uint64_t *calls = sfdo_u64map_find (&incoming, f->name);
      if (calls && *calls)
        f->head = *calls;
    }
  sfdo_u64map_release (&incoming);
}

/* main runs once per process: its head is the number of processes that
   mapped the executable defining it, exactly, where an entry block's
   samples give a rarely entered function a whole sample's weight or
   nothing (and the loops in main, divided by that, the wrong trip
   counts).  A process recorded with -p after it started entered main
   once all the same.  */
static void
count_main_entries (struct sfdo_converter *cv, struct sfdo_profile *p)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    {
      struct binary *b = &cv->binaries[i];
      struct sfdo_prof_func *f = sfdo_profile_find (p, "main", NULL, NULL);
      if (!b->pids.n || !f || !sfdo_symtab_has_function (b->symtab, "main"))
        continue;
      f->head = b->pids.n;
    }
}

enum sfdo_errc
sfdo_converter_build (struct sfdo_converter *cv, struct sfdo_profile **out,
                      struct sfdo_error *err)
{
  *out = NULL;
  struct sfdo_profile *p = sfdo_profile_new ();
  for (size_t i = 0; i < cv->nbinaries; i++)
    {
      struct binary *b = &cv->binaries[i];
      struct sfdo_decoder *dec;
      if (!b->weights.n && !b->ranges.n && !b->branches.n)
        continue;
      enum sfdo_errc rc = sfdo_decoder_new (sfdo_symtab_machine (b->symtab),
                                            &dec, err);
      if (rc != SFDO_OK)
        {
          if (err)
            snprintf (err->path, sizeof err->path, "%s", b->path);
          sfdo_profile_free (p);
          return rc;
        }
      if (b->ranges.n || b->branches.n)
        sfdo_build_lbr_profile (cv, b, dec, p);
      else
        sfdo_build_ip_profile (cv, b, dec, p);
      sfdo_build_values (cv, b, p);
      sfdo_decoder_free (dec);
    }
  fill_header (cv, p);
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  if (rc == SFDO_OK && cv->stats.callchains && !cv->stats.lbr_samples)
    heads_from_calls (p);
  if (rc == SFDO_OK)
    {
      for (size_t i = 0; i < cv->nbinaries; i++)
        if (cv->binaries[i].weights.n || cv->binaries[i].ranges.n
            || cv->binaries[i].branches.n)
          {
            cv->stats.folded_functions
              += sfdo_split_folded_functions (cv->binaries[i].symtab, p);
            cv->stats.unsampled_functions
              += sfdo_add_unsampled_functions (cv->binaries[i].symtab, p);
          }
      rc = sfdo_profile_finalize (p, err);
    }
  if (rc == SFDO_OK)
    count_main_entries (cv, p);
  if (rc != SFDO_OK)
    {
      sfdo_profile_free (p);
      return rc;
    }
  *out = p;
  return SFDO_OK;
}

/* --- Raw LBR tallies --------------------------------------------------------- */

struct tally {
  uint64_t a, b, count;
};

static int
tally_cmp (const void *x, const void *y)
{
  const struct tally *p = x, *q = y;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

static void
dump_pairs (const struct sfdo_pairmap *m, const char *binary,
            const char *what, FILE *f)
{
  struct tally *t = (struct tally *) sfdo_xmalloc ((m->n + 1) * sizeof *t);
  size_t n = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->a[i] != UINT64_MAX)
      t[n++] = (struct tally) { m->a[i], m->b[i], m->vals[i].count };
  qsort (t, n, sizeof *t, tally_cmp);
  for (size_t i = 0; i < n; i++)
    fprintf (f, "%s %s %llx %llx %llu\n", binary, what,
             (unsigned long long) t[i].a, (unsigned long long) t[i].b,
             (unsigned long long) t[i].count);
  free (t);
}

void
sfdo_converter_dump_lbr (const struct sfdo_converter *cv, FILE *f)
{
  for (size_t i = 0; i < cv->nbinaries; i++)
    {
      dump_pairs (&cv->binaries[i].ranges, cv->binaries[i].base, "range", f);
      dump_pairs (&cv->binaries[i].branches, cv->binaries[i].base, "branch",
                  f);
    }
}
