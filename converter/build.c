/* converter/build.c - the profile of every binary's tallies, and its
 * header (build.h).  */
#include "build.h"

#include <stdio.h>
#include <stdlib.h>

#include "anchors.h"
#include "blocks.h"
#include "folded.h"
#include "unsampled.h"
#include "units.h"
#include "values.h"

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

/* With callchains (recorded, or unwound from stack copies), a function is
   entered as often as its callers' calls reach it, which keeps each head
   count consistent with the call edges into it.  A direct call runs as
   often as its block, whose count comes from the samples in the caller:
   the callee's own samples, which weigh its duration rather than its
   entries (a hot short leaf has few), do not enter it.  An indirect
   call's count is split among its targets as build_ip.c says (where the
   known bias of the callees' samples is stated).  A function no call of
   these binaries reaches (main, a callback from a library) keeps its
   entry block's count.  */
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
count_main_entries (const struct sfdo_match *m, struct sfdo_profile *p)
{
  for (size_t i = 0; i < sfdo_match_nbinaries (m); i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_find (p, "main", NULL, NULL);
      size_t processes = sfdo_match_processes (m, i);
      if (!processes || !f
          || !sfdo_symtab_has_function (sfdo_match_binary (m, i)->symtab,
                                        "main"))
        continue;
      f->head = processes;
    }
}

/* Functions folded into one body share its samples out; the functions
   no sample reached are listed with no counts (they never ran); each
   sampled function's call sites and the lines of its pieces that never
   ran are added (anchors.h), and each function's compile unit.  */
static enum sfdo_errc
complete_functions (const struct sfdo_match *m,
                    const struct sfdo_tally *tallies, struct sfdo_profile *p,
                    struct sfdo_convert_stats *stats, struct sfdo_error *err)
{
  for (size_t i = 0; i < sfdo_match_nbinaries (m); i++)
    if (sfdo_tally_has_samples (&tallies[i]))
      {
        struct sfdo_symtab *st = sfdo_match_binary (m, i)->symtab;
        stats->folded_functions += sfdo_split_folded_functions (st, p);
        stats->unsampled_functions += sfdo_add_unsampled_functions (st, &tallies[i], p);
        enum sfdo_errc rc = sfdo_profile_finalize (p, err);
        if (rc != SFDO_OK)
          return rc;
        struct sfdo_decoder *dec;
        if (sfdo_decoder_new (sfdo_symtab_machine (st), &dec, NULL) == SFDO_OK)
          {
            size_t n;
            struct sfdo_piece *pieces = sfdo_sampled_pieces (st, p, &n);
            stats->anchored_functions
              += sfdo_add_call_anchors (st, dec, pieces, n, p);
            stats->unsampled_pieces
              += sfdo_add_unsampled_pieces (st, dec, pieces, n, &tallies[i],
                                            p);
            free (pieces);
            sfdo_decoder_free (dec);
          }
      }
  /* Units once each function is one record (a function added twice above
     is merged by the finalize), so that they count binaries.  */
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  for (size_t i = 0; rc == SFDO_OK && i < sfdo_match_nbinaries (m); i++)
    if (sfdo_tally_has_samples (&tallies[i]))
      sfdo_record_units (sfdo_match_binary (m, i)->symtab, p);
  return rc == SFDO_OK ? sfdo_profile_finalize (p, err) : rc;
}

/* The header: build-ids and compilers (which tell the plugin how the
   discriminators were numbered) of the binaries that gave samples, the
   modes used, the tool, the events and the sample totals.  TIME: the IP
   counts are of an event other than retired instructions (cycles, a timer),
   weighted by how long instructions take, not how often they run (the
   plugin tells executions by it: the events a header lists do not, once
   profiles of a timer and of retired instructions are merged).  */
static void
fill_header (struct sfdo_profile *p, const struct sfdo_match *m,
             const struct sfdo_tally *tallies,
             const struct sfdo_build_notes *notes, int ip, int lbr, int time)
{
  for (size_t i = 0; i < sfdo_match_nbinaries (m); i++)
    {
      const struct sfdo_symtab *st = sfdo_match_binary (m, i)->symtab;
      const char *id = sfdo_symtab_build_id (st);
      if (!sfdo_tally_has_samples (&tallies[i]))
        continue;
      if (*id)
        sfdo_profile_add_build_id (p, id);
      for (size_t k = 0; k < sfdo_symtab_nproducers (st); k++)
        sfdo_profile_add_producer (p, sfdo_symtab_producer (st, k));
    }
  if (ip)
    sfdo_profile_add_mode (p, "ip");
  if (lbr)
    sfdo_profile_add_mode (p, "lbr");
  if (ip && time)
    sfdo_profile_add_mode (p, "time");
  /* complete_functions records every sampled function's call sites.  */
  sfdo_profile_add_mode (p, "shape");
  if (notes->tool)
    sfdo_profile_add_tool (p, notes->tool);
  for (size_t i = 0; i < notes->nevents; i++)
    sfdo_profile_add_event (p, notes->events[i].name, notes->events[i].period,
                            notes->events[i].samples);
  struct sfdo_prof_header *h = sfdo_profile_header (p);
  h->samples_used = notes->samples_used;
  h->samples_dropped = notes->samples_dropped;
}

/* The profile of binary B from tally T into P; *LBR is set when it had
   branch stacks, *IP when IP samples counted a function.  */
static enum sfdo_errc
build_binary (const struct sfdo_build_opts *o, const struct sfdo_binary *b,
              const struct sfdo_tally *t, struct sfdo_profile *p,
              struct sfdo_convert_stats *stats, int *ip, int *lbr,
              struct sfdo_error *err)
{
  struct sfdo_decoder *dec;
  enum sfdo_errc rc = sfdo_decoder_new (sfdo_symtab_machine (b->symtab), &dec,
                                        err);
  if (rc != SFDO_OK)
    {
      if (err)
        snprintf (err->path, sizeof err->path, "%s", b->path);
      return rc;
    }
  struct sfdo_u64map covered = { 0 };
  if (sfdo_tally_has_lbr (t))
    {
      sfdo_build_lbr (o, b->symtab, dec, t, &covered, p, stats);
      *lbr = 1;
    }
  if (t->weights.n)
    *ip |= sfdo_build_ip (o, b->symtab, dec, t, &covered, p, stats) > 0;
  sfdo_build_values (t, b->symtab, o->vote, p);
  sfdo_u64map_release (&covered);
  sfdo_decoder_free (dec);
  return SFDO_OK;
}

enum sfdo_errc
sfdo_build_profile (const struct sfdo_build_opts *o,
                    const struct sfdo_match *m,
                    const struct sfdo_tally *tallies,
                    const struct sfdo_build_notes *notes,
                    struct sfdo_convert_stats *stats,
                    struct sfdo_profile **out, struct sfdo_error *err)
{
  *out = NULL;
  struct sfdo_profile *p = sfdo_profile_new ();
  int ip = 0, lbr = 0;
  enum sfdo_errc rc = SFDO_OK;
  for (size_t i = 0; rc == SFDO_OK && i < sfdo_match_nbinaries (m); i++)
    if (sfdo_tally_has_samples (&tallies[i]))
      rc = build_binary (o, sfdo_match_binary (m, i), &tallies[i], p, stats,
                         &ip, &lbr, err);
  if (rc == SFDO_OK)
    {
      fill_header (p, m, tallies, notes, ip, lbr, !o->ip_counts_instructions);
      rc = sfdo_profile_finalize (p, err);
    }
  if (rc == SFDO_OK && notes->heads_from_calls && !lbr)
    heads_from_calls (p);
  if (rc == SFDO_OK)
    rc = complete_functions (m, tallies, p, stats, err);
  if (rc == SFDO_OK)
    count_main_entries (m, p);
  if (rc != SFDO_OK)
    {
      sfdo_profile_free (p);
      return rc;
    }
  *out = p;
  return SFDO_OK;
}
