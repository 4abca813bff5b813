/* converter/convert.c - the converter: reads a perf.data's records into
 * per-binary tallies, then builds the profile (convert.h).
 *
 * The jobs are modules of their own: which binary and address a sample
 * is (match.h), what each event's samples are used for (event_plan.h),
 * walking samples into tallies (samples.h), building the profile
 * (build.h), and the raw LBR dump (lbr_dump.h).  This file wires them
 * to the record walk.  */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "build.h"
#include "event_plan.h"
#include "lbr_dump.h"
#include "match.h"
#include "samples.h"
#include "tally.h"
#include "values.h"

/* An event the profile header names, kept after its perf.data closes.  */
struct event_note {
  char *name;
  uint64_t period;
  uint64_t samples;
};

#define MAX_NOTES (2 + SFDO_PLAN_MAX_AUX)

struct sfdo_converter {
  struct sfdo_convert_opts opts;
  struct sfdo_match *match;
  struct sfdo_tally *tallies;           /* one per binary */
  struct sfdo_value_sites *sites;       /* one per binary */
  struct sfdo_decoder *decoder;         /* value sites; NULL if not x86-64 */
  struct sfdo_walk walk;
  struct sfdo_event_plan plan;          /* of the perf.data being read */
  int planned;
  int classify;                         /* a cycles event classified */
  int ip_counts_instructions;           /* (event_plan.h) */
  struct event_note notes[MAX_NOTES];
  size_t nnotes;
  uint64_t min_sample_weight;
  uint64_t last_time;                   /* of the latest record with one */
  struct sfdo_convert_stats stats;
};

static void
free_notes (struct sfdo_converter *cv)
{
  for (size_t i = 0; i < cv->nnotes; i++)
    free (cv->notes[i].name);
  cv->nnotes = 0;
}

void
sfdo_converter_free (struct sfdo_converter *cv)
{
  if (!cv)
    return;
  size_t n = cv->match ? sfdo_match_nbinaries (cv->match) : 0;
  for (size_t i = 0; i < n; i++)
    {
      sfdo_tally_release (&cv->tallies[i]);
      sfdo_value_sites_release (&cv->sites[i]);
    }
  free (cv->tallies);
  free (cv->sites);
  sfdo_walk_release (&cv->walk);
  free_notes (cv);
  sfdo_decoder_free (cv->decoder);
  sfdo_match_free (cv->match);
  free (cv);
}

enum sfdo_errc
sfdo_converter_new (const struct sfdo_convert_opts *opts,
                    const char *const *paths, size_t n,
                    struct sfdo_converter **out, struct sfdo_error *err)
{
  *out = NULL;
  struct sfdo_converter *cv = sfdo_xcalloc (1, sizeof *cv);
  cv->opts = *opts;
  enum sfdo_errc rc = sfdo_match_new (paths, n, &cv->match, err);
  if (rc != SFDO_OK)
    {
      sfdo_converter_free (cv);
      return rc;
    }
  cv->tallies = sfdo_xcalloc (n + 1, sizeof *cv->tallies);
  cv->sites = sfdo_xcalloc (n + 1, sizeof *cv->sites);
  /* Value sites are decoded while reading; a binary we cannot decode
     simply yields no values here (build reports it).  */
  if (n && sfdo_decoder_new (sfdo_symtab_machine (sfdo_match_binary (
                                                    cv->match, 0)->symtab),
                             &cv->decoder, NULL) != SFDO_OK)
    cv->decoder = NULL;
  sfdo_walk_init (&cv->walk, cv->match, cv->tallies, cv->sites, cv->decoder,
                  &cv->stats);
  *out = cv;
  return SFDO_OK;
}

const struct sfdo_convert_stats *
sfdo_converter_stats (const struct sfdo_converter *cv)
{
  return &cv->stats;
}

/* --- The record walk ------------------------------------------------------ */

struct walk_ctx {
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

/* Plan the use of PD's events (in pipe mode, those known at the first
   sample).  */
static void
plan_events (struct sfdo_converter *cv, struct sfdo_perfdata *pd)
{
  size_t n = sfdo_perfdata_nattrs (pd);
  const struct sfdo_perfdata_attr **attrs = sfdo_xcalloc (n + 1,
                                                          sizeof *attrs);
  for (size_t i = 0; i < n; i++)
    attrs[i] = sfdo_perfdata_attr (pd, i);
  sfdo_event_plan_make (&cv->plan, attrs, n, cv->opts.count_event,
                        cv->opts.clk_event);
  free (attrs);
  cv->planned = 1;
}

static int
on_record (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct walk_ctx *w = (struct walk_ctx *) ctx;
  struct sfdo_converter *cv = w->cv;
  uint64_t time = record_time (cv, r);
  if (w->progress && (++w->records & 0xfffff) == 0)
    w->progress (w->records, w->progress_ctx);
  switch (r->type)
    {
    case SFDO_PERFDATA_MMAP:
    case SFDO_PERFDATA_MMAP2:
      sfdo_match_mmap (cv->match, w->pd, &r->u.mmap, time);
      break;
    case SFDO_PERFDATA_FORK:
      if (r->u.task.pid != r->u.task.ppid)
        sfdo_match_fork (cv->match, r->u.task.ppid, r->u.task.pid,
                         r->u.task.time ? r->u.task.time : time);
      break;
    case SFDO_PERFDATA_COMM:
      if ((r->misc & SFDO_PERFDATA_MISC_COMM_EXEC)
          && r->u.comm.pid == r->u.comm.tid)
        sfdo_match_exec (cv->match, r->u.comm.pid, time);
      break;
    case SFDO_PERFDATA_LOST:
      cv->stats.lost += r->u.lost.lost;
      break;
    case SFDO_PERFDATA_SAMPLE:
      if (!cv->planned)
        plan_events (cv, w->pd);
      sfdo_walk_sample (&cv->walk, &cv->plan, r->attr, r->misc, &r->u.sample,
                        time);
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
      char name[96];
      int n = snprintf (buf + used, size - used, "%s%s", i ? ", " : "",
                        sfdo_event_name (a, name, sizeof name));
      used += n > 0 ? (size_t) n : 0;
    }
}

/* An event the user named that the file does not have is an error; so is
   naming the event counted as the cycles event.  */
static enum sfdo_errc
check_named_events (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                    struct sfdo_error *err)
{
  const struct sfdo_convert_opts *o = &cv->opts;
  const char *missing = NULL;
  if (o->count_event && cv->stats.samples
      && !sfdo_event_named (cv->plan.count, o->count_event))
    missing = o->count_event;
  else if (o->clk_event && cv->plan.count && !cv->plan.classify)
    {
      if (sfdo_event_named (cv->plan.count, o->clk_event)
          || sfdo_event_named (cv->plan.ip, o->clk_event))
        return sfdo_error_set (err, SFDO_E_USAGE, NULL, SFDO_NO_OFFSET, 0, 0,
                               "--clk-event '%s' names the event counted; "
                               "the cycles event must be another one",
                               o->clk_event);
      missing = o->clk_event;
    }
  if (!missing)
    return SFDO_OK;
  char events[512];
  list_events (pd, events, sizeof events);
  return sfdo_error_set (err, SFDO_E_USAGE, NULL, SFDO_NO_OFFSET, 0, 0,
                         "no event '%s' was recorded (the events: %s)",
                         missing, events);
}

/* Keep what the profile header says of event A, whose samples counted
   C; an event sampled at a frequency (-F) has no one period: the mean of
   its samples' stands for it.  */
static void
note_event (struct sfdo_converter *cv, const struct sfdo_perfdata_attr *a,
            const struct sfdo_event_count *c)
{
  char name[160];
  if (!a || cv->nnotes == MAX_NOTES)
    return;
  uint64_t period = a->freq ? (c->samples ? c->period_sum / c->samples : 0)
                            : a->sample_period;
  sfdo_event_name (a, name, sizeof name);
  cv->notes[cv->nnotes++] = (struct event_note) {
    sfdo_xstrndup (name, strlen (name)), period, c->samples
  };
}

static void
remember_events (struct sfdo_converter *cv)
{
  const struct sfdo_event_plan *plan = &cv->plan;
  free_notes (cv);
  note_event (cv, plan->count, &cv->walk.counted);
  if (plan->ip && plan->ip != plan->count)
    note_event (cv, plan->ip, &cv->walk.ip);
  for (size_t i = 0; i < plan->naux; i++)
    note_event (cv, plan->aux[i], &cv->walk.aux[i]);
  cv->classify = plan->classify;
  cv->ip_counts_instructions = plan->ip_counts_instructions;
  cv->min_sample_weight = cv->walk.min_ip_weight;
}

enum sfdo_errc
sfdo_converter_read (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
                     void (*progress) (uint64_t, void *), void *progress_ctx,
                     struct sfdo_error *err)
{
  struct walk_ctx w = { cv, pd, progress, progress_ctx, 0 };
  cv->planned = 0;
  memset (&cv->plan, 0, sizeof cv->plan);
  enum sfdo_errc rc = sfdo_match_check_build_ids (cv->match, pd,
                                                  cv->opts.force, err);
  if (rc == SFDO_OK)
    rc = sfdo_perfdata_foreach_record (pd, on_record, &w, err);
  sfdo_walk_deferred (&cv->walk);
  if (rc == SFDO_OK)
    rc = check_named_events (cv, pd, err);
  /* Pipe mode delivers build-ids at the end.  */
  if (rc == SFDO_OK)
    rc = sfdo_match_check_build_ids (cv->match, pd, cv->opts.force, err);
  if (cv->plan.count)
    remember_events (cv);
  memset (&cv->plan, 0, sizeof cv->plan);   /* its attrs belong to PD */
  cv->planned = 0;
  return rc;
}

/* --- Building ----------------------------------------------------------- */

/* A profile of no sample would silently replace a good one with
   nothing: an error that names the binaries and their build-ids.  */
static enum sfdo_errc
nothing_used (const struct sfdo_converter *cv, struct sfdo_error *err)
{
  char names[200];
  size_t used = 0, n = sfdo_match_nbinaries (cv->match);
  names[0] = 0;
  for (size_t i = 0; i < n && used < sizeof names; i++)
    {
      const struct sfdo_binary *b = sfdo_match_binary (cv->match, i);
      const char *id = sfdo_symtab_build_id (b->symtab);
      int k = snprintf (names + used, sizeof names - used, "%s%s (build-id %s)",
                        i ? ", " : "", b->base, *id ? id : "none");
      used += k > 0 ? (size_t) k : 0;
    }
  if (!cv->stats.samples)
    return sfdo_error_set (err, SFDO_E_MALFORMED, NULL, SFDO_NO_OFFSET, 0, 0,
                           "the recording has no samples at all");
  return sfdo_error_set (err, SFDO_E_MALFORMED, NULL, SFDO_NO_OFFSET, 0, 0,
                         "none of its %llu samples fell in %s: not what "
                         "the recording ran",
                         (unsigned long long) cv->stats.samples, names);
}

enum sfdo_errc
sfdo_converter_build (struct sfdo_converter *cv, struct sfdo_profile **out,
                      struct sfdo_error *err)
{
  const struct sfdo_convert_opts *o = &cv->opts;
  *out = NULL;
  if (!cv->stats.used)
    return nothing_used (cv, err);
  struct sfdo_build_opts bo = {
    o->vote,
    o->smooth == SFDO_SMOOTH_ON || (o->smooth == SFDO_SMOOTH_AUTO
                                    && cv->classify),
    cv->classify, cv->min_sample_weight, cv->ip_counts_instructions
  };
  struct sfdo_build_event events[MAX_NOTES];
  for (size_t i = 0; i < cv->nnotes; i++)
    events[i] = (struct sfdo_build_event) { cv->notes[i].name,
                                            cv->notes[i].period,
                                            cv->notes[i].samples };
  const struct sfdo_convert_stats *st = &cv->stats;
  struct sfdo_build_notes notes = {
    o->tool, events, cv->nnotes, st->used,
    st->samples - st->used - st->aux_used,
    st->callchains != 0 || st->unwound != 0
  };
  return sfdo_build_profile (&bo, cv->match, cv->tallies, &notes, &cv->stats,
                             out, err);
}

/* --- Reports ------------------------------------------------------------ */

size_t
sfdo_converter_sampled_files (const struct sfdo_converter *cv, size_t max,
                              const char **names, uint64_t *counts)
{
  return sfdo_match_sampled_files (cv->match, max, names, counts);
}

const struct sfdo_match *
sfdo_converter_match (const struct sfdo_converter *cv)
{
  return cv->match;
}

void
sfdo_converter_dump_lbr (const struct sfdo_converter *cv, FILE *f)
{
  for (size_t i = 0; i < sfdo_match_nbinaries (cv->match); i++)
    sfdo_lbr_dump (&cv->tallies[i], sfdo_match_binary (cv->match, i)->base, f);
}
