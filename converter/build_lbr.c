/* converter/build_lbr.c - branch stacks to source-line counts (build.h).
 *
 * Every straight run [begin, end] seen between two taken branches ran once
 * per sighting: its instructions get its weight (a difference array over
 * each function's instructions makes that linear).  A taken branch whose
 * source is a call is a call edge; an indirect one also feeds the
 * indirect-call target histogram; a call or jump into a function's entry
 * from elsewhere enters it (its head count).  */
#include "build.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "attribute.h"

struct lbr_func {
  struct sfdo_func_blocks fb;
  int64_t *diff;                /* ninsns + 1 entries */
  uint64_t head;
};

struct lbr_builder {
  struct sfdo_symtab *st;
  struct sfdo_decoder *dec;
  struct sfdo_convert_stats *stats;
  struct attributor at;
  struct sfdo_u64map by_entry;  /* function entry -> index + 1 */
  struct lbr_func *funcs;
  size_t nfuncs, cap_funcs;
};

/* The decoded function holding VADDR, decoded on first use; NULL if
   VADDR is in no function with code.  */
static struct lbr_func *
func_of (struct lbr_builder *lb, uint64_t vaddr)
{
  uint64_t lo, hi;
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_function_range (lb->st, vaddr, &lo, &hi) != 0)
    return NULL;
  uint64_t *slot = sfdo_u64map_get (&lb->by_entry, lo);
  if (*slot)
    return &lb->funcs[*slot - 1];
  if (sfdo_symtab_code (lb->st, lo, &code, &len) != 0)
    return NULL;
  sfdo_xgrow (&lb->funcs, &lb->cap_funcs, lb->nfuncs + 1, sizeof *lb->funcs);
  struct lbr_func *f = &lb->funcs[lb->nfuncs++];
  memset (f, 0, sizeof *f);
  sfdo_decode_function (lb->dec, code, len, lo, hi, &f->fb);
  f->diff = (int64_t *) sfdo_xcalloc (f->fb.ninsns + 1, sizeof *f->diff);
  *slot = lb->nfuncs;
  return f;
}

static void
add_range (struct lbr_builder *lb, uint64_t begin, uint64_t end, uint64_t w)
{
  struct lbr_func *f = func_of (lb, begin);
  if (!f || end >= f->fb.hi)
    {
      lb->stats->lbr_ranges_dropped++;
      return;
    }
  size_t first = sfdo_func_blocks_insn_from (&f->fb, begin);
  size_t last = sfdo_func_blocks_insn_from (&f->fb, end + 1);
  if (first >= last)
    return;
  f->diff[first] += (int64_t) w;
  f->diff[last] -= (int64_t) w;
}

/* Whether the jump K of SRC, taken to TO, the entry of CALLEE, is a tail
   call: the source's call, compiled to a jump (GCC's sibling calls, an
   indirect one through a register too).  A jump to its own function's
   entry, or from a function's cold part into its hot one, is not.  */
static int
is_tail_call (struct lbr_builder *lb, const struct lbr_func *src, ptrdiff_t k,
              uint64_t to, const char *callee)
{
  if (src->fb.kinds[k] != SFDO_INSN_JUMP || to == src->fb.lo
      || (to >= src->fb.lo && to < src->fb.hi))
    return 0;
  const char *own = attr_function_name (&lb->at, src->fb.lo);
  return !own || strcmp (own, callee) != 0;
}

/* The taken branch FROM -> TO, weighing W, seen in N records.  */
static void
add_branch (struct lbr_builder *lb, uint64_t from, uint64_t to, uint64_t w,
            uint64_t n)
{
  struct lbr_func *src = func_of (lb, from);
  ptrdiff_t k = src ? sfdo_func_blocks_insn (&src->fb, from) : -1;
  if (k < 0)
    return;
  uint8_t kind = src->fb.kinds[k];
  const char *callee = kind == SFDO_INSN_CALL && src->fb.call_targets[k]
                       ? attr_callee_name (&lb->at, from, to)
                       : attr_function_name (&lb->at, to);
  if (callee
      && (kind == SFDO_INSN_CALL || is_tail_call (lb, src, k, to, callee)))
    {
      uint32_t id = sfdo_profile_intern_str (lb->at.p, callee);
      int indirect = kind == SFDO_INSN_CALL ? !src->fb.call_targets[k]
                                            : !src->fb.jump_targets[k];
      attr_call (&lb->at, from, callee, w);
      attr_value (&lb->at, from, SFDO_VALUE_CALL_SAMPLES, id, n);
      if (indirect)
        attr_value (&lb->at, from, SFDO_VALUE_ICALL, id, w);
    }
  /* Entering a function: a call, or a tail call from another function.  */
  if (callee && (kind == SFDO_INSN_CALL
                 || ((kind == SFDO_INSN_JUMP || kind == SFDO_INSN_CJUMP)
                     && src->fb.lo != to)))
    {
      struct lbr_func *dst = func_of (lb, to);
      if (dst)
        dst->head = sfdo_sat_add (dst->head, w);
    }
}

/* Give every instruction of F its count; returns the entry's count, and
   into *RAN whether any instruction has one.  */
static uint64_t
settle_function (struct lbr_builder *lb, struct lbr_func *f, int *ran)
{
  int64_t running = 0;
  uint64_t entry = 0;
  *ran = 0;
  for (size_t i = 0; i < f->fb.ninsns; i++)
    {
      running += f->diff[i];
      uint64_t count = running > 0 ? (uint64_t) running : 0;
      *ran |= count > 0;
      if (i == 0)
        entry = count;
      if (f->fb.padding[i])
        continue;
      ptrdiff_t k = sfdo_func_blocks_find (&f->fb, f->fb.insn_addrs[i]);
      attr_line (&lb->at, f->fb.insn_addrs[i],
                 k >= 0 ? f->fb.insn_addrs[f->fb.blocks[k].first_insn] : 0,
                 k >= 0 ? f->fb.blocks[k].nrun : 0, count);
    }
  return entry;
}

/* The head count of a function that ran but whose entry no branch stack
   held: each record of a stack weighs one share of its sample's period,
   so an entry seen in none ran fewer times than about one record's
   weight: half of that, and at least 1, where 0 would tell the plugin
   nothing and leave the entry to a line shared with a loop (a function
   called once, whose entry and exit carry its loop's line).  */
static uint64_t
unseen_entries (const struct sfdo_tally *t)
{
  uint64_t record = UINT64_MAX;
  for (size_t i = 0; i < t->branches.cap; i++)
    if (t->branches.a[i] != UINT64_MAX && t->branches.vals[i].count
        && t->branches.vals[i].weight / t->branches.vals[i].count < record)
      record = t->branches.vals[i].weight / t->branches.vals[i].count;
  return record == UINT64_MAX || record < 2 ? 1 : record / 2;
}

size_t
sfdo_build_lbr (const struct sfdo_build_opts *o, struct sfdo_symtab *st,
                struct sfdo_decoder *dec, const struct sfdo_tally *t,
                struct sfdo_u64map *covered, struct sfdo_profile *p,
                struct sfdo_convert_stats *stats)
{
  struct lbr_builder lb = { .st = st, .dec = dec, .stats = stats };
  attr_init (&lb.at, st, p, o->vote);
  for (size_t i = 0; i < t->ranges.cap; i++)
    if (t->ranges.a[i] != UINT64_MAX)
      add_range (&lb, t->ranges.a[i], t->ranges.b[i],
                 t->ranges.vals[i].weight);
  for (size_t i = 0; i < t->branches.cap; i++)
    if (t->branches.a[i] != UINT64_MAX)
      add_branch (&lb, t->branches.a[i], t->branches.b[i],
                  t->branches.vals[i].weight, t->branches.vals[i].count);
  uint64_t unseen = unseen_entries (t);
  for (size_t i = 0; i < lb.nfuncs; i++)
    {
      struct lbr_func *f = &lb.funcs[i];
      int ran;
      uint64_t entry = settle_function (&lb, f, &ran);
      uint64_t head = f->head ? f->head : entry ? entry : ran ? unseen : 0;
      struct sfdo_prof_func *pf = attr_function_at (&lb.at, f->fb.lo);
      if (pf)
        pf->head = sfdo_sat_add (pf->head, head);
      if (covered)
        *sfdo_u64map_get (covered, f->fb.lo) = 1;
      sfdo_func_blocks_release (&f->fb);
      free (f->diff);
    }
  size_t built = lb.nfuncs;
  attr_finish (&lb.at);
  free (lb.funcs);
  sfdo_u64map_release (&lb.by_entry);
  return built;
}
