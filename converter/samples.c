/* converter/samples.c - samples into per-binary tallies (samples.h).  */
#include "samples.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

#define PERF_RECORD_MISC_USER 2
#define PERF_RECORD_MISC_GUEST_USER 5

/* perf marks where kernel, user and guest parts of a callchain begin with
   these values (PERF_CONTEXT_*), all at or above this one.  */
#define PERF_CONTEXT_MAX ((uint64_t) -4095)

/* At most this many deferred samples, and callchain and branch words.  */
#define MAX_DEFERRED (1u << 24)
#define MAX_DEFERRED_WORDS (1u << 24)

/* The entries of a branch stack looked at (LBR has 32).  */
#define MAX_BRANCH_ENTRIES 256

/* The frames an unwind gives at most (perf's -g default is 127; the
   first few give nearly every call edge, and a 8 KB stack copy rarely
   holds more).  */
#define MAX_UNWIND_FRAMES 64

struct sfdo_deferred_sample {
  uint32_t pid;
  struct sfdo_event_use use;
  struct sfdo_event_count *count;   /* what the sample counts for */
  uint64_t ip, time, weight;
  uint64_t *callchain;          /* owned copies, or NULL */
  struct sfdo_perfdata_branch *branches;
  uint32_t callchain_nr, branch_nr;
};

void
sfdo_walk_init (struct sfdo_walk *w, struct sfdo_match *match,
                struct sfdo_tally *tallies, struct sfdo_value_sites *sites,
                struct sfdo_decoder *decoder, struct sfdo_convert_stats *stats)
{
  memset (w, 0, sizeof *w);
  w->match = match;
  w->tallies = tallies;
  w->sites = sites;
  w->decoder = decoder;
  w->stats = stats;
}

/* The unwinder's view of code: the mappings of the sample being
   unwound.  */
static int
locate_for_unwind (void *ctx, uint64_t ip, struct sfdo_unwind_code *code)
{
  struct sfdo_walk *w = ctx;
  struct sfdo_match_code c;
  if (sfdo_match_locate (w->match, w->unwind_pid, ip, w->unwind_time, &c)
      != 0)
    return -1;
  *code = (struct sfdo_unwind_code) { c.path, c.offset, c.build_id,
                                      c.build_id_size };
  return 0;
}

static void
free_deferred (struct sfdo_walk *w)
{
  for (size_t i = 0; i < w->ndeferred; i++)
    {
      free (w->deferred[i].callchain);
      free (w->deferred[i].branches);
    }
  w->ndeferred = 0;
  w->deferred_words = 0;
}

void
sfdo_walk_release (struct sfdo_walk *w)
{
  free_deferred (w);
  free (w->deferred);
  w->deferred = NULL;
  w->cap_deferred = 0;
  sfdo_unwinder_free (w->unwinder);
  w->unwinder = NULL;
}

/* --- Branch stacks and callchains ----------------------------------------- */

/* Resolve IP of PID at TIME to a binary; NULL if it is in none.  */
static struct sfdo_tally *
tally_at (struct sfdo_walk *w, uint32_t pid, uint64_t ip, uint64_t time,
          uint64_t *vaddr)
{
  struct sfdo_match_at at;
  if (sfdo_match_resolve (w->match, pid, ip, time, &at) != SFDO_MATCH_OK)
    return NULL;
  *vaddr = at.vaddr;
  return &w->tallies[at.binary];
}

/* Tally the N entries BR of a branch stack (newest first) of PID at
   TIME, each weighing W.  */
static void
take_branch_stack (struct sfdo_walk *w, uint32_t pid, uint64_t time,
                   const struct sfdo_perfdata_branch *br, uint64_t n,
                   uint64_t weight)
{
  uint64_t from[MAX_BRANCH_ENTRIES], to[MAX_BRANCH_ENTRIES];
  struct sfdo_tally *tf[MAX_BRANCH_ENTRIES], *tt[MAX_BRANCH_ENTRIES];
  struct sfdo_convert_stats *st = w->stats;
  uint64_t w_each = weight / n ? weight / n : 1;
  if (n > MAX_BRANCH_ENTRIES)
    n = MAX_BRANCH_ENTRIES;
  st->lbr_samples++;
  for (uint64_t i = 0; i < n; i++)
    {
      tf[i] = tally_at (w, pid, br[i].from, time, &from[i]);
      tt[i] = tally_at (w, pid, br[i].to, time, &to[i]);
      st->lbr_branches++;
      if (!tf[i] || tf[i] != tt[i])
        st->lbr_branches_dropped++;
      else
        sfdo_tally_pair (&tf[i]->branches, from[i], to[i], w_each);
    }
  /* Entry I's target runs straight to entry I-1's source.  */
  for (uint64_t i = 1; i < n; i++)
    {
      st->lbr_ranges++;
      if (!tt[i] || tt[i] != tf[i - 1] || from[i - 1] < to[i]
          || from[i - 1] - to[i] >= SFDO_MAX_RANGE)
        st->lbr_ranges_dropped++;
      else
        sfdo_tally_pair (&tt[i]->ranges, to[i], from[i - 1], w_each);
    }
}

/* Tally each (return address, callee address) pair of the N addresses of
   CHAIN (innermost first).  Pairs crossing binaries are left out: a call
   through the PLT lands in another file.  */
static void
take_callchain (struct sfdo_walk *w, uint32_t pid, uint64_t time,
                const uint64_t *chain, uint64_t n, uint64_t weight)
{
  uint64_t callee = 0;
  struct sfdo_tally *callee_tally = NULL;
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t vaddr = 0;
      if (chain[i] >= PERF_CONTEXT_MAX)
        continue;
      struct sfdo_tally *t = tally_at (w, pid, chain[i], time, &vaddr);
      if (t && t == callee_tally)
        sfdo_tally_pair (&t->calls, vaddr, callee, weight);
      callee = vaddr;
      callee_tally = t;
    }
}

/* --- Unwinding ------------------------------------------------------------- */

/* The user-space entries of the N words of CHAIN.  */
static uint64_t
user_frames (const uint64_t *chain, uint64_t n)
{
  uint64_t frames = 0;
  for (uint64_t i = 0; i < n; i++)
    frames += chain[i] < PERF_CONTEXT_MAX;
  return frames;
}

/* Unwind sample S of event A (at TIME) from its registers and stack copy
   into CHAIN (MAX_UNWIND_FRAMES words); returns how many frames, 0 when
   the sample has no stack copy.  */
static uint64_t
unwind_sample (struct sfdo_walk *w, const struct sfdo_perfdata_attr *a,
               const struct sfdo_perfdata_sample *s, uint64_t time,
               uint64_t *chain)
{
  struct sfdo_unwind_regs regs;
  /* The bytes the kernel copied: dyn_size (0 when it could copy none);
     the rest of the field is not the stack.  */
  uint64_t size = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size
                  : s->stack_size;
  if (!a || !(s->fields & SFDO_PERFDATA_S_STACK_USER)
      || !(s->fields & SFDO_PERFDATA_S_REGS_USER) || !size || !s->stack
      || sfdo_unwind_regs_from_perf (&s->regs_user, a->sample_regs_user,
                                     &regs) != 0)
    return 0;
  if (!w->unwinder)
    w->unwinder = sfdo_unwinder_new (locate_for_unwind, w);
  w->unwind_pid = s->pid;
  w->unwind_time = time;
  struct sfdo_unwind_stack stack = { regs.r[SFDO_UNWIND_SP], s->stack,
                                     size };
  enum sfdo_unwind_stop why;
  uint64_t n = sfdo_unwind (w->unwinder, &regs, &stack, chain,
                            MAX_UNWIND_FRAMES, &why);
  struct sfdo_convert_stats *st = w->stats;
  st->stacks++;
  st->unwind_stops[why]++;
  st->unwound += n >= 2 || why == SFDO_UNWIND_OUTERMOST;
  return n;
}

/* The callchain of sample S of event A at TIME, *N words: its own, or
   where that has no user frames beyond the sampled one, its stack copy
   unwound into UNWOUND (MAX_UNWIND_FRAMES words).  */
static const uint64_t *
chain_of (struct sfdo_walk *w, const struct sfdo_perfdata_attr *a,
          const struct sfdo_perfdata_sample *s, uint64_t time,
          uint64_t *unwound, uint64_t *n)
{
  if (user_frames (s->callchain, *n) >= 2)
    return s->callchain;
  uint64_t frames = unwind_sample (w, a, s, time, unwound);
  if (!frames)
    return s->callchain;
  *n = frames;
  return unwound;
}

/* The resolver of indirect-call targets for a sample of PID at TIME in
   the binary of tally T.  */
struct same_binary {
  struct sfdo_walk *w;
  uint32_t pid;
  uint64_t time;
  const struct sfdo_tally *t;
};

static int
resolve_in_same_binary (void *ctx, uint64_t addr, uint64_t *vaddr)
{
  struct same_binary *sb = ctx;
  return tally_at (sb->w, sb->pid, addr, sb->time, vaddr) == sb->t;
}

/* --- Addresses ------------------------------------------------------------- */

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

/* Weigh the address IP of PID at TIME as USE says; *AT is its binary and
   address.  Returns where IP is.  */
static enum sfdo_match_result
take_address (struct sfdo_walk *w, const struct sfdo_event_use *use,
              uint32_t pid, uint64_t ip, uint64_t time, uint64_t weight,
              struct sfdo_match_at *at)
{
  enum sfdo_match_result r = sfdo_match_resolve (w->match, pid, ip, time, at);
  if (r == SFDO_MATCH_OTHER_FILE || r == SFDO_MATCH_NOT_LOADED)
    sfdo_match_count_sample (w->match, at->file);
  if (r != SFDO_MATCH_OK)
    return r;
  struct sfdo_tally *t = &w->tallies[at->binary];
  struct sfdo_u64map *map = use->clk ? &t->clk_weights
                            : use->stall ? &t->stall_weights
                            : use->ip ? &t->weights : NULL;
  if (map)
    {
      uint64_t *slot = sfdo_u64map_get (map, at->vaddr);
      *slot = sfdo_sat_add (*slot, weight);
    }
  if (use->ip && (!w->min_ip_weight || weight < w->min_ip_weight))
    w->min_ip_weight = weight;
  return r;
}

/* --- Deferring ------------------------------------------------------------- */

static void *
copy_of (const void *p, size_t n, size_t size)
{
  if (!p || !n)
    return NULL;
  void *q = sfdo_xmalloc (n * size);
  memcpy (q, p, n * size);
  return q;
}

static void
defer (struct sfdo_walk *w, const struct sfdo_event_use *use,
       struct sfdo_event_count *count, const struct sfdo_perfdata_sample *s,
       uint64_t time, uint64_t weight)
{
  if (w->ndeferred >= MAX_DEFERRED)
    {
      w->stats->unmapped++;
      return;
    }
  struct sfdo_deferred_sample d = { s->pid, *use, count, s->ip, time, weight,
                                    NULL, NULL, 0, 0 };
  uint64_t nchain = use->calls ? s->callchain_nr : 0;
  uint64_t nbranch = use->branches ? s->branch_nr : 0;
  uint64_t words = nchain + 3 * nbranch;
  if (words && w->deferred_words + words <= MAX_DEFERRED_WORDS)
    {
      d.callchain = copy_of (s->callchain, nchain, sizeof (uint64_t));
      d.callchain_nr = d.callchain ? (uint32_t) nchain : 0;
      d.branches = copy_of (s->branches, nbranch, sizeof *s->branches);
      d.branch_nr = d.branches ? (uint32_t) nbranch : 0;
      w->deferred_words += words;
    }
  sfdo_xgrow (&w->deferred, &w->cap_deferred, w->ndeferred + 1,
              sizeof *w->deferred);
  w->deferred[w->ndeferred++] = d;
}

/* --- Samples --------------------------------------------------------------- */

/* Everything of a sample but its address and registers, once its address
   was looked up: WHERE it is (UNMAPPED: for good).  Counts the sample as
   used, or why not; returns whether it was used.  */
static int
take_mapped (struct sfdo_walk *w, const struct sfdo_event_use *use,
             struct sfdo_event_count *count, uint32_t pid, uint64_t time,
             uint64_t weight, const uint64_t *chain, uint64_t nchain,
             const struct sfdo_perfdata_branch *br, uint64_t nbranch,
             enum sfdo_match_result where)
{
  int used = 0;
  if (use->branches && nbranch)
    {
      take_branch_stack (w, pid, time, br, nbranch, weight);
      used = 1;
    }
  if (where == SFDO_MATCH_OK && (use->ip || use->clk || use->stall))
    used = 1;
  if (!used)
    {
      struct sfdo_convert_stats *st = w->stats;
      st->empty_stacks += where == SFDO_MATCH_OK && use->branches
                          && !use->ip && !use->clk && !use->stall;
      st->unmapped += where == SFDO_MATCH_UNMAPPED;
      st->other_file += where == SFDO_MATCH_OTHER_FILE;
      st->no_line += where == SFDO_MATCH_NOT_LOADED;
    }
  if (use->calls && nchain && (used || where == SFDO_MATCH_OK))
    take_callchain (w, pid, time, chain, nchain, weight);
  if (!used)
    return 0;
  if (use->clk || use->stall)
    w->stats->aux_used++;
  else
    {
      w->stats->used++;
      count->samples++;
      count->period_sum = sfdo_sat_add (count->period_sum, weight);
    }
  return 1;
}

static struct sfdo_event_count *
count_of (struct sfdo_walk *w, const struct sfdo_event_plan *plan,
          const struct sfdo_perfdata_attr *a, const struct sfdo_event_use *use)
{
  if (use->counted)
    return &w->counted;
  for (size_t i = 0; i < plan->naux; i++)
    if (plan->aux[i] == a)
      return &w->aux[i];
  return &w->ip;
}

void
sfdo_walk_sample (struct sfdo_walk *w, const struct sfdo_event_plan *plan,
                  const struct sfdo_perfdata_attr *attr, uint16_t misc,
                  const struct sfdo_perfdata_sample *s, uint64_t time)
{
  unsigned mode = misc & SFDO_PERFDATA_MISC_CPUMODE_MASK;
  struct sfdo_convert_stats *st = w->stats;
  st->samples++;
  if (s->fields & SFDO_PERFDATA_S_CALLCHAIN)
    st->callchains++;
  if (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER)
    {
      st->kernel++;
      return;
    }
  struct sfdo_event_use use = sfdo_event_plan_use (plan, attr);
  if (!use.counted && !use.ip && !use.clk && !use.stall)
    {
      st->other_event++;
      return;
    }
  struct sfdo_event_count *count = count_of (w, plan, attr, &use);
  uint64_t weight = sample_period (attr, s);
  if (use.stall)
    weight = sfdo_sat_mul (weight, use.stall_cycles);
  if (use.clk || use.stall)
    {
      count->samples++;
      count->period_sum = sfdo_sat_add (count->period_sum, weight);
    }
  uint64_t nbranch = (s->fields & SFDO_PERFDATA_S_BRANCH_STACK)
                     ? s->branch_nr : 0;
  uint64_t nchain = (s->fields & SFDO_PERFDATA_S_CALLCHAIN)
                    ? s->callchain_nr : 0;
  struct sfdo_match_at at;
  enum sfdo_match_result where
    = take_address (w, &use, s->pid, s->ip, time, weight, &at);
  if (where == SFDO_MATCH_UNMAPPED)
    {
      defer (w, &use, count, s, time, weight);
      return;
    }
  uint64_t unwound[MAX_UNWIND_FRAMES];
  const uint64_t *chain = use.calls ? chain_of (w, attr, s, time, unwound,
                                                &nchain) : NULL;
  if (!take_mapped (w, &use, count, s->pid, time, weight, chain,
                    nchain, s->branches, nbranch, where)
      || where != SFDO_MATCH_OK || !use.values
      || !(s->fields & (SFDO_PERFDATA_S_REGS_USER | SFDO_PERFDATA_S_REGS_INTR)))
    return;
  struct same_binary sb = { w, s->pid, time, &w->tallies[at.binary] };
  struct sfdo_code_resolver code = { resolve_in_same_binary, &sb };
  if (sfdo_values_take (&w->sites[at.binary],
                        sfdo_match_binary (w->match, at.binary)->symtab,
                        w->decoder, &w->tallies[at.binary], at.vaddr, s, attr,
                        weight, &code))
    st->values++;
}

void
sfdo_walk_deferred (struct sfdo_walk *w)
{
  for (size_t i = 0; i < w->ndeferred; i++)
    {
      const struct sfdo_deferred_sample *d = &w->deferred[i];
      struct sfdo_match_at at;
      enum sfdo_match_result where
        = take_address (w, &d->use, d->pid, d->ip, d->time, d->weight, &at);
      take_mapped (w, &d->use, d->count, d->pid, d->time, d->weight,
                   d->callchain, d->callchain_nr, d->branches, d->branch_nr,
                   where);
    }
  free_deferred (w);
}
