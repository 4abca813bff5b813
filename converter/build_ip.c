/* converter/build_ip.c - IP samples to source-line counts (build.h).
 *
 * For each function with samples: decode it into basic blocks, give each
 * block the summed weight of its instructions divided by their number
 * (Chen et al.: this cancels skid and stall aggregation), and give every
 * instruction its block's count (attribute.h takes it to its source
 * position).  Where cycles were recorded beside retired instructions,
 * binflow.h first classifies the blocks and smooths their counts.  A
 * direct call runs as often as its block; a function is entered as often
 * as its entry block runs.  */
#include "build.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "attribute.h"
#include "binflow.h"

/* Every instruction of block BL ran COUNT times, and so did a direct call
   among them.  */
static void
vote_block (struct attributor *at, const struct sfdo_func_blocks *fb,
            const struct sfdo_block *bl, uint64_t count)
{
  for (uint32_t i = 0; i < bl->ninsns; i++)
    {
      uint64_t a = fb->insn_addrs[bl->first_insn + i];
      uint64_t target = fb->call_targets[bl->first_insn + i];
      const char *callee = target ? attr_callee_name (at, a, target) : NULL;
      if (fb->padding[bl->first_insn + i])
        continue;
      attr_line (at, a, fb->insn_addrs[bl->first_insn], bl->nrun, count);
      if (callee)
        attr_call (at, a, callee, count);
    }
}

/* The summed weight in MAP of the instructions of block BL of FB.  */
static uint64_t
block_sum (const struct sfdo_u64map *map, const struct sfdo_func_blocks *fb,
           const struct sfdo_block *bl)
{
  uint64_t sum = 0;
  if (map->n == 0)
    return 0;
  for (uint32_t j = 0; j < bl->ninsns; j++)
    {
      uint64_t *w = sfdo_u64map_find (map, fb->insn_addrs[bl->first_insn + j]);
      sum = sfdo_sat_add (sum, w ? *w : 0);
    }
  return sum;
}

/* Samples of the cycles event a block needs before it is called over-
   or under-sampled: below that, the ratio of two sample counts is mostly
   noise (with two events that measure the same thing, every block would
   be classified one way or the other by chance).  */
#define CLASSIFY_MIN_SAMPLES 16

/* Chen et al.'s classification of each block of FB from its counted
   (instructions) weight WEIGHT[k] and T's cycles and stall cycles; ONE is
   one sample's weight.  */
static uint8_t *
classify_blocks (const struct sfdo_tally *t, const struct sfdo_func_blocks *fb,
                 const uint64_t *weight, uint64_t one,
                 struct sfdo_convert_stats *stats)
{
  uint8_t *classes = (uint8_t *) sfdo_xcalloc (fb->nblocks + 1, 1);
  for (size_t k = 0; k < fb->nblocks; k++)
    {
      double clk = (double) block_sum (&t->clk_weights, fb, &fb->blocks[k]);
      double stall
        = (double) block_sum (&t->stall_weights, fb, &fb->blocks[k]);
      if (!weight[k] && !clk)
        continue;
      classes[k] = clk < (double) CLASSIFY_MIN_SAMPLES * (double) one
                   ? SFDO_SAMPLING_OK
                   : (uint8_t) sfdo_classify_block ((double) weight[k], clk,
                                                    stall);
      stats->blocks_classified++;
      stats->blocks_over += classes[k] == SFDO_SAMPLING_OVER;
      stats->blocks_under += classes[k] == SFDO_SAMPLING_UNDER;
    }
  return classes;
}

/* Whether a jump inside FB goes to its entry: then the entry block is a
   loop header, and runs more often than the function is entered.  */
static int
entry_is_jump_target (const struct sfdo_func_blocks *fb)
{
  for (size_t i = 0; i < fb->ninsns; i++)
    if (fb->jump_targets[i] == fb->lo)
      return 1;
  return 0;
}

/* How often the function of FB, with block counts COUNT, was entered: its
   entry block's count, or when that also counts a loop, what its returns
   count.  Where no sample fell, an entry block of n instructions ran fewer
   than about period / n times, or it would have caught one: half that is
   the estimate, never 0 for a function that ran, and never a hot loop's
   count (which would make every call look like a loop's trip).  */
static uint64_t
estimate_head (const struct sfdo_build_opts *o,
               const struct sfdo_func_blocks *fb, const uint64_t *count)
{
  if (fb->nblocks == 0)
    return 0;
  int loops_back = entry_is_jump_target (fb);
  if (count[0] && !loops_back)
    return count[0];
  uint64_t returns = 0;
  for (size_t k = 0; k < fb->nblocks; k++)
    {
      const struct sfdo_block *bl = &fb->blocks[k];
      if (fb->kinds[bl->first_insn + bl->ninsns - 1] == SFDO_INSN_RET)
        returns = sfdo_sat_add (returns, count[k]);
    }
  if (returns && (!loops_back || returns < count[0]))
    return returns;
  uint64_t half_sample = o->min_sample_weight / 2 / fb->blocks[0].ninsns;
  return half_sample ? half_sample : 1;
}

/* What one binary's functions are built from.  */
struct ip_builder {
  const struct sfdo_build_opts *o;
  struct sfdo_symtab *st;
  struct sfdo_decoder *dec;
  const struct sfdo_tally *t;
  struct sfdo_convert_stats *stats;
  struct attributor at;
};

/* Count the blocks of function [LO, HI) from the weights at KEYS[0..N)
   and vote for its lines; returns the head count.  */
static uint64_t
build_function (struct ip_builder *ib, uint64_t lo, uint64_t hi,
                const uint64_t *keys, size_t n)
{
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_code (ib->st, lo, &code, &len) != 0)
    return 0;
  struct sfdo_func_blocks fb;
  sfdo_decode_function (ib->dec, code, len, lo, hi, &fb);
  uint64_t *weight = (uint64_t *) sfdo_xcalloc (fb.nblocks + 1, sizeof *weight);
  uint64_t *count = (uint64_t *) sfdo_xcalloc (fb.nblocks + 1, sizeof *count);
  for (size_t i = 0; i < n; i++)
    {
      ptrdiff_t k = sfdo_func_blocks_find (&fb, keys[i]);
      if (k >= 0)
        weight[k] = sfdo_sat_add (weight[k],
                                  *sfdo_u64map_find (&ib->t->weights,
                                                     keys[i]));
    }
  for (size_t k = 0; k < fb.nblocks; k++)
    count[k] = weight[k] / fb.blocks[k].ninsns;
  if (ib->o->smooth)
    {
      uint8_t *classes = ib->o->classify
                         ? classify_blocks (ib->t, &fb, weight,
                                            ib->o->min_sample_weight
                                            ? ib->o->min_sample_weight : 1,
                                            ib->stats)
                         : NULL;
      sfdo_binflow_smooth (&fb, 0, classes, count);
      ib->stats->functions_smoothed++;
      free (classes);
    }
  for (size_t k = 0; k < fb.nblocks; k++)
    vote_block (&ib->at, &fb, &fb.blocks[k], count[k]);
  uint64_t head = estimate_head (ib->o, &fb, count);
  free (weight);
  free (count);
  sfdo_func_blocks_release (&fb);
  return head;
}

/* --- Indirect calls, from callchains and registers ----------------------- */

/* The known bias: a callee's samples weigh the instructions (on a timer:
   the time) spent in it per call, so splitting a call's count by them
   leans to the targets that run longest per call; on a timer, also to
   those whose calls mispredict (a 2-instruction target called 1 time in
   20 drew 35 times the samples of one called 17 times in 20).  The
   register a call jumps through, sampled in the instructions of its block
   before it, is seen once per call whatever the target when samples
   count instructions (PEBS, the emulated PMU); so there it decides
   wherever at least this many samples saw it, and the callees' samples
   elsewhere.  On a timer or cycles both measure time (the instructions
   before a call wait on the previous call's result), and the callees'
   samples are kept: of the two, only they add up the time of a target's
   whole call (seen on timers: a virtual call's dominant target 85% by
   registers, 91-93% by the callees, 93.75% in truth).  */
#define MIN_CALL_VALUE_SAMPLES 8

struct call_pair {
  uint64_t ret, callee;         /* or the call and its target */
  uint64_t weight, samples;
};

static int
call_pair_cmp (const void *x, const void *y)
{
  const struct call_pair *p = x, *q = y;
  if (p->ret != q->ret)
    return p->ret < q->ret ? -1 : 1;
  return p->callee < q->callee ? -1 : p->callee > q->callee;
}

/* The pairs of M, sorted, into *N.  */
static struct call_pair *
sorted_pairs (const struct sfdo_pairmap *m, size_t *n)
{
  struct call_pair *p
    = (struct call_pair *) sfdo_xmalloc ((m->n + 1) * sizeof *p);
  *n = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->a[i] != UINT64_MAX)
      p[(*n)++] = (struct call_pair) { m->a[i], m->b[i], m->vals[i].weight,
                                       m->vals[i].count };
  qsort (p, *n, sizeof *p, call_pair_cmp);
  return p;
}

/* The register evidence for the call at CALL among the N sorted pairs V:
   its first pair and, into *K, how many; NULL when fewer than
   MIN_CALL_VALUE_SAMPLES samples saw it.  */
static const struct call_pair *
register_evidence (const struct call_pair *v, size_t n, uint64_t call,
                   size_t *k)
{
  size_t lo = sfdo_first_at_or_after (v, n, sizeof *v, call);
  uint64_t samples = 0;
  for (*k = 0; lo + *k < n && v[lo + *k].ret == call; (*k)++)
    samples += v[lo + *k].samples;
  return samples >= MIN_CALL_VALUE_SAMPLES ? v + lo : NULL;
}

/* The count of the block of instruction I of FB, from the sample weights
   of tally T.  */
static uint64_t
block_count_at (const struct sfdo_tally *t, const struct sfdo_func_blocks *fb,
                size_t i)
{
  ptrdiff_t k = sfdo_func_blocks_find (fb, fb->insn_addrs[i]);
  if (k < 0)
    return 0;
  const struct sfdo_block *bl = &fb->blocks[k];
  return block_sum (&t->weights, fb, bl) / bl->ninsns;
}

/* The name of the function at ADDR, or NULL.  */
static const char *
callee_at (struct ip_builder *ib, uint64_t addr)
{
  uint64_t lo, hi;
  return sfdo_symtab_function_range (ib->st, addr, &lo, &hi) == 0
         ? attr_function_name (&ib->at, lo) : NULL;
}

/* Record how many samples showed the call at CALL reaching each callee
   of P[0..N): the support of its edges.  */
static void
support_call (struct ip_builder *ib, uint64_t call, const struct call_pair *p,
              size_t n)
{
  for (size_t k = 0; k < n; k++)
    {
      const char *name = callee_at (ib, p[k].callee);
      if (name)
        attr_value (&ib->at, call, SFDO_VALUE_CALL_SAMPLES,
                    sfdo_profile_intern_str (ib->at.p, name), p[k].samples);
    }
}

/* Split COUNT, the runs of the indirect call at CALL, among the callees
   of P[0..N) by weight.  */
static void
share_out_call (struct ip_builder *ib, uint64_t call, uint64_t count,
                const struct call_pair *p, size_t n)
{
  uint64_t total = 0;
  for (size_t k = 0; k < n; k++)
    total = sfdo_sat_add (total, p[k].weight);
  for (size_t k = 0; k < n && total; k++)
    {
      const char *name = callee_at (ib, p[k].callee);
      uint64_t share = (uint64_t) ((double) count * (double) p[k].weight
                                   / (double) total);
      if (!name || !share)
        continue;
      attr_call (&ib->at, call, name, share);
      attr_value (&ib->at, call, SFDO_VALUE_ICALL,
                  sfdo_profile_intern_str (ib->at.p, name), share);
    }
}

/* The blocks of the function that holds the call returning to RET,
   decoded into *FB unless *FB holds them already (call sites come in
   address order: a function's sites one after another); NULL if RET is
   in no function with code, or in one of COVERED.  */
static const struct sfdo_func_blocks *
blocks_of_site (struct ip_builder *ib, const struct sfdo_u64map *covered,
                uint64_t ret, struct sfdo_func_blocks *fb)
{
  uint64_t lo, hi;
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_function_range (ib->st, ret - 1, &lo, &hi) != 0
      || (covered && sfdo_u64map_find (covered, lo)))
    return NULL;
  if (fb->ninsns && fb->lo == lo)
    return fb;
  if (sfdo_symtab_code (ib->st, lo, &code, &len) != 0)
    return NULL;
  sfdo_func_blocks_release (fb);
  sfdo_decode_function (ib->dec, code, len, lo, hi, fb);
  return fb;
}

/* The call returning to RET, in the function whose blocks are FB: the
   support of its edges, from the callees seen in callchains, P[0..N)
   (maybe none), or for an indirect call whose register showed its targets
   (V, NV), from those.  An indirect call ran as often as its block: split
   that count among its targets.  An indirect jump whose register showed
   functions' entries is a tail call (the source's call, as GIMPLE has
   it), which no callchain can show: its caller's frame is gone.  */
static void
take_call_site (struct ip_builder *ib, const struct sfdo_func_blocks *fb,
                uint64_t ret, const struct call_pair *p, size_t n,
                const struct call_pair *v, size_t nv)
{
  size_t nseen, i = sfdo_func_blocks_insn_from (fb, ret);
  if (i == 0 || i > fb->ninsns)
    return;
  int tail_jump = fb->kinds[i - 1] == SFDO_INSN_JUMP
                  && !fb->jump_targets[i - 1];
  if (fb->kinds[i - 1] != SFDO_INSN_CALL && !tail_jump)
    return;
  uint64_t call = fb->insn_addrs[i - 1];
  const struct call_pair *seen
    = fb->call_targets[i - 1] || !ib->o->ip_counts_instructions ? NULL
      : register_evidence (v, nv, call, &nseen);
  if (!seen && tail_jump)
    return;
  if (!seen)
    seen = p, nseen = n;
  support_call (ib, call, seen, nseen);
  if (!fb->call_targets[i - 1])
    share_out_call (ib, call, block_count_at (ib->t, fb, i - 1), seen,
                    nseen);
}

/* The address after the call instruction at CALL; 0 if it does not
   decode.  */
static uint64_t
return_address_of (struct ip_builder *ib, uint64_t call)
{
  const uint8_t *code;
  size_t len;
  struct sfdo_insn_info info;
  if (sfdo_symtab_code (ib->st, call, &code, &len) != 0)
    return 0;
  sfdo_decode_one (ib->dec, code, len, call, &info);
  return info.size ? call + info.size : 0;
}


/* Every call site that callchains (P, N) or registers (V, NV) saw, by
   return address, sorted and distinct, into *NR: a recording with
   registers but no stack copies still gives its indirect calls'
   targets.  */
static uint64_t *
call_sites (struct ip_builder *ib, const struct call_pair *p, size_t n,
            const struct call_pair *v, size_t nv, size_t *nr)
{
  uint64_t *rets = (uint64_t *) sfdo_xmalloc ((n + nv + 1) * sizeof *rets);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    rets[k++] = p[i].ret;
  for (size_t i = 0; i < nv; i++)
    if (i == 0 || v[i].ret != v[i - 1].ret)
      {
        uint64_t ret = return_address_of (ib, v[i].ret);
        if (ret)
          rets[k++] = ret;
      }
  *nr = sfdo_sort_unique_u64 (rets, k);
  return rets;
}

static void
add_indirect_calls (struct ip_builder *ib, const struct sfdo_u64map *covered)
{
  size_t n, nv, nr;
  struct call_pair *p = sorted_pairs (&ib->t->calls, &n);
  struct call_pair *v = sorted_pairs (&ib->t->call_values, &nv);
  uint64_t *rets = call_sites (ib, p, n, v, nv, &nr);
  struct sfdo_func_blocks fb = { 0 };
  size_t i = 0;
  for (size_t r = 0; r < nr; r++)
    {
      while (i < n && p[i].ret < rets[r])
        i++;
      size_t j = i;
      while (j < n && p[j].ret == rets[r])
        j++;
      const struct sfdo_func_blocks *site_fb
        = blocks_of_site (ib, covered, rets[r], &fb);
      if (site_fb)
        take_call_site (ib, site_fb, rets[r], p + i, j - i, v, nv);
      i = j;
    }
  sfdo_func_blocks_release (&fb);
  free (rets);
  free (p);
  free (v);
}

size_t
sfdo_build_ip (const struct sfdo_build_opts *o, struct sfdo_symtab *st,
               struct sfdo_decoder *dec, const struct sfdo_tally *t,
               const struct sfdo_u64map *covered, struct sfdo_profile *p,
               struct sfdo_convert_stats *stats)
{
  struct ip_builder ib = { o, st, dec, t, stats, { 0 } };
  size_t built = 0;
  attr_init (&ib.at, st, p, o->vote);
  uint64_t *keys = sfdo_u64map_sorted_keys (&t->weights);
  size_t n = t->weights.n;
  for (size_t i = 0, j; i < n; i = j)
    {
      uint64_t lo, hi;
      j = i + 1;
      if (sfdo_symtab_function_range (st, keys[i], &lo, &hi) != 0)
        {
          stats->no_line++;
          continue;
        }
      while (j < n && keys[j] < hi)
        j++;
      if (covered && sfdo_u64map_find (covered, lo))
        continue;
      uint64_t head = build_function (&ib, lo, hi, keys + i, j - i);
      struct sfdo_prof_func *f = attr_function_at (&ib.at, lo);
      if (f)
        f->head = sfdo_sat_add (f->head, head);
      built++;
    }
  add_indirect_calls (&ib, covered);
  attr_finish (&ib.at);
  free (keys);
  return built;
}
