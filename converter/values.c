/* converter/values.c - value histograms from register samples
 * (values.h).  */
#include "values.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "attribute.h"

/* How far ahead of a sample a division may be and still be seen.  */
#define MAX_LOOKAHEAD 16

/* perf's numbers for rax and rdx (the third argument register).  */
#define PERF_REG_AX 0
#define PERF_REG_DX 3
#define PERF_REG_DI 5

/* Whether a call to TARGET is a call of a memory operation whose size is
   its third argument.  */
static int
is_mem_operation (const struct sfdo_symtab *st, uint64_t target)
{
  static const char *const names[] = {
    "memcpy", "memset", "memmove", "mempcpy", "__mempcpy", "__memcpy_chk",
    "__memset_chk", "__memmove_chk", "__mempcpy_chk"
  };
  const char *name = target ? sfdo_symtab_call_name (st, target) : NULL;
  for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
    if (strcmp (name, names[i]) == 0)
      return 1;
  return 0;
}

/* Whether instruction INFO at AT is a site (a division by a register, a
   memory operation's call, or its tail call: a function that only passes
   its arguments on compiles to a jump) whose operand WRITTEN leaves
   intact.  ZEROED: the registers written since the sample whose last
   write cleared them.  */
static int
site_at (const struct sfdo_symtab *st, const struct sfdo_insn_info *info,
         uint64_t at, uint32_t written, uint32_t zeroed,
         struct sfdo_value_site *site)
{
  if (info->div_reg >= 0 && !(written & (1u << info->div_reg)))
    {
      uint32_t high = 1u << PERF_REG_DX;
      int high_zeroed = (zeroed & high) != 0;
      int dividend_known = !(written & (1u << PERF_REG_AX))
                           && (!(written & high) || high_zeroed);
      *site = (struct sfdo_value_site) { at, info->div_reg, info->div_width,
                                    info->div_signed, SFDO_VALUE_DIVMOD,
                                    (uint8_t) dividend_known, 0, 0,
                                    (uint8_t) high_zeroed };
      return 1;
    }
  uint64_t callee = info->kind == SFDO_INSN_CALL ? info->call_target
                    : info->kind == SFDO_INSN_JUMP ? info->jump_target : 0;
  if (callee && !(written & (1u << PERF_REG_DX))
      && is_mem_operation (st, callee))
    {
      *site = (struct sfdo_value_site) { at, PERF_REG_DX, 8, 0,
                                    SFDO_VALUE_MEMSIZE,
                                    !(written & (1u << PERF_REG_DI)), 0, 0,
                                    0 };
      return 1;
    }
  return 0;
}

/* An indirect call INFO at AT through a register (or through a
   pointer at an offset from one: a vtable slot), or an indirect jump that
   may be a tail call (icall_target keeps only values that are a
   function's entry, so a switch's jump drops out), reached from the sample
   over the N instructions WINDOW: the register that held its target (or
   the vtable) at the sample, following 64-bit moves back (GCC often copies
   a function pointer into rax just before the call).  0 if another write
   hides it.  (find_site also wants the sample in the call's own block.)  */
static int
icall_site_at (const struct sfdo_insn_info *info, uint64_t at,
               const struct sfdo_insn_info *window, int n,
               struct sfdo_value_site *site)
{
  if ((info->kind != SFDO_INSN_CALL && info->kind != SFDO_INSN_JUMP)
      || (info->target_reg < 0 && info->target_base < 0))
    return 0;
  int through_memory = info->target_reg < 0;
  int reg = through_memory ? info->target_base : info->target_reg;
  for (int k = n - 1; k >= 0; k--)
    if (window[k].writes & (1u << reg))
      {
        if (window[k].move_from < 0)
          return 0;
        reg = window[k].move_from;
      }
  *site = (struct sfdo_value_site) { at, (int8_t) reg, 8, 0, SFDO_VALUE_ICALL,
                                     1, (uint8_t) through_memory,
                                     info->target_disp, 0 };
  return 1;
}

/* Whether VADDR and AT are in one basic block of the function [LO, HI).
   Samples before an indirect call see its target only from the call's
   own block: every run of the call runs those instructions once,
   whatever its target, whereas the blocks before it may differ by target
   (GCC computes each target on its own path and joins them), and a
   longer path would draw more samples for its target.  */
static int
same_block (struct sfdo_value_sites *vs, struct sfdo_decoder *dec,
            const struct sfdo_symtab *st, uint64_t lo, uint64_t hi,
            uint64_t vaddr, uint64_t at)
{
  const uint8_t *code;
  size_t len;
  uint64_t *slot = sfdo_u64map_get (&vs->func_index, lo);
  if (!*slot)
    {
      if (sfdo_symtab_code (st, lo, &code, &len) != 0)
        return 0;
      sfdo_xgrow (&vs->funcs, &vs->cap_funcs, vs->nfuncs + 1,
                  sizeof *vs->funcs);
      sfdo_decode_function (dec, code, len, lo, hi, &vs->funcs[vs->nfuncs]);
      *slot = ++vs->nfuncs;
    }
  const struct sfdo_func_blocks *fb = &vs->funcs[*slot - 1];
  ptrdiff_t b = sfdo_func_blocks_find (fb, vaddr);
  return b >= 0 && b == sfdo_func_blocks_find (fb, at);
}

/* Find the site the sample at VADDR sees; 0 if none.  */
static int
find_site (struct sfdo_value_sites *vs, struct sfdo_decoder *dec,
           const struct sfdo_symtab *st, uint64_t vaddr,
           struct sfdo_value_site *site)
{
  uint64_t lo, hi;
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_function_range (st, vaddr, &lo, &hi) != 0
      || sfdo_symtab_code (st, vaddr, &code, &len) != 0)
    return 0;
  if (len > hi - vaddr)
    len = (size_t) (hi - vaddr);
  uint32_t written = 0, zeroed = 0;
  uint64_t at = vaddr;
  struct sfdo_insn_info window[MAX_LOOKAHEAD];
  for (int n = 0; n < MAX_LOOKAHEAD && at < hi; n++)
    {
      struct sfdo_insn_info *info = &window[n];
      sfdo_decode_one (dec, code + (at - vaddr), (size_t) (hi - at), at, info);
      if (!info->size)
        return 0;
      if (site_at (st, info, at, written, zeroed, site))
        return 1;
      if (icall_site_at (info, at, window, n, site))
        return same_block (vs, dec, st, lo, hi, vaddr, at);
      if (info->kind != SFDO_INSN_OTHER || info->div_reg >= 0)
        return 0;
      written |= info->writes;
      zeroed = info->zeroes >= 0 ? zeroed | 1u << info->zeroes
                                 : zeroed & ~info->writes;
      at += info->size;
    }
  return 0;
}

void
sfdo_value_sites_release (struct sfdo_value_sites *vs)
{
  sfdo_u64map_release (&vs->index);
  free (vs->sites);
  for (size_t i = 0; i < vs->nfuncs; i++)
    sfdo_func_blocks_release (&vs->funcs[i]);
  free (vs->funcs);
  sfdo_u64map_release (&vs->func_index);
  memset (vs, 0, sizeof *vs);
}

/* The cached value site of VADDR, or NULL.  */
static const struct sfdo_value_site *
site_of (struct sfdo_value_sites *vs, const struct sfdo_symtab *st,
         struct sfdo_decoder *dec, uint64_t vaddr)
{
  uint64_t *slot = sfdo_u64map_get (&vs->index, vaddr);
  if (!*slot)
    {
      struct sfdo_value_site site;
      *slot = UINT64_MAX;
      if (dec && find_site (vs, dec, st, vaddr, &site))
        {
          sfdo_xgrow (&vs->sites, &vs->cap, vs->n + 1, sizeof *vs->sites);
          vs->sites[vs->n++] = site;
          *slot = vs->n;
        }
    }
  return *slot == UINT64_MAX ? NULL : &vs->sites[*slot - 1];
}

/* The value of perf register REG among REGS (in MASK bit order), cut to
   WIDTH bytes and extended as SIGNED says; returns 0 if not sampled.  */
static int
register_value (const struct sfdo_perfdata_regs *regs, uint64_t mask,
                unsigned reg, unsigned width, int is_signed, uint64_t *out)
{
  if (!regs->abi || !(mask & (1ull << reg)))
    return 0;
  unsigned index = (unsigned) __builtin_popcountll (mask & ((1ull << reg) - 1));
  if (index >= regs->nregs)
    return 0;
  uint64_t v = regs->regs[index];
  if (width < 8)
    {
      unsigned bits = width * 8;
      v &= (1ull << bits) - 1;
      if (is_signed && (v >> (bits - 1)))
        v |= ~0ull << bits;
    }
  *out = v;
  return 1;
}

/* The quotient of the unsigned 32- or 64-bit division SITE by DIVISOR,
   from the dividend in rdx:rax (REGS, MASK), as 0, 1, or 2 for 2 and
   more: what GCC's interval histogram of a modulo asks (can a few
   subtractions replace it?).  0 if the registers do not tell.  */
static int
quotient_class (const struct sfdo_value_site *site,
                const struct sfdo_perfdata_regs *regs, uint64_t mask,
                uint64_t divisor, uint64_t *out)
{
  uint64_t low, high;
  if (site->is_signed || !site->aux_regs_intact || !divisor
      || (site->width != 4 && site->width != 8)
      || !register_value (regs, mask, PERF_REG_AX, site->width, 0, &low))
    return 0;
  if (site->high_zeroed)
    high = 0;
  else if (!register_value (regs, mask, PERF_REG_DX, site->width, 0, &high)
           || high)
    return 0;
  uint64_t q = low / divisor;
  *out = q < 2 ? q : 2;
  return 1;
}

/* The function an indirect call SITE of the binary of ST went to, from
   VALUE, its register at the sample: the target itself, resolved by CODE,
   or for a call through a vtable, the pointer in the slot at
   VALUE + disp, read from the binary's own bytes (the linker writes a
   relative relocation's addend there too), the binary loaded BIAS above
   its addresses.  Only a slot the program cannot change is read (a
   vtable is in read-only data or RELRO; a table of function pointers in
   .data may hold others by the time of the call), and only a function's
   entry is a target.  */
static int
icall_target (const struct sfdo_symtab *st, const struct sfdo_value_site *site,
              uint64_t value, uint64_t bias,
              const struct sfdo_code_resolver *code, uint64_t *target)
{
  const uint8_t *bytes;
  size_t len;
  uint64_t lo, hi;
  if (!site->through_memory)
    {
      if (!code || !code->resolve (code->ctx, value, target))
        return 0;
    }
  else
    {
      uint64_t slot = value + (uint64_t) (int64_t) site->disp - bias;
      if (!sfdo_symtab_read_only (st, slot)
          || sfdo_symtab_code (st, slot, &bytes, &len) != 0 || len < 8)
        return 0;
      memcpy (target, bytes, 8);
    }
  return sfdo_symtab_function_range (st, *target, &lo, &hi) == 0
         && lo == *target;
}

int
sfdo_values_take (struct sfdo_value_sites *vs, const struct sfdo_symtab *st,
                  struct sfdo_decoder *dec, struct sfdo_tally *t,
                  uint64_t vaddr, const struct sfdo_perfdata_sample *s,
                  const struct sfdo_perfdata_attr *attr, uint64_t weight,
                  const struct sfdo_code_resolver *code)
{
  const struct sfdo_perfdata_regs *regs = &s->regs_user;
  uint64_t mask = attr ? attr->sample_regs_user : 0;
  if (s->regs_intr.abi && attr)
    regs = &s->regs_intr, mask = attr->sample_regs_intr;
  if (!regs->abi || !mask)
    return 0;
  const struct sfdo_value_site *site = site_of (vs, st, dec, vaddr);
  uint64_t value;
  if (!site || !register_value (regs, mask, (unsigned) site->reg, site->width,
                                site->is_signed, &value))
    return 0;
  if (site->kind == SFDO_VALUE_ICALL)
    {
      uint64_t target;
      if (!icall_target (st, site, value, s->ip - vaddr, code, &target))
        return 0;
      sfdo_tally_pair (&t->call_values, site->addr, target, weight);
      return 1;
    }
  sfdo_tally_pair (&t->values[site->kind], site->addr, value, weight);
  uint64_t quotient;
  if (site->kind == SFDO_VALUE_DIVMOD
      && quotient_class (site, regs, mask, value, &quotient))
    sfdo_tally_pair (&t->values[SFDO_VALUE_QUOTIENT], site->addr, quotient,
                     weight);
  uint64_t dest;
  if (site->kind == SFDO_VALUE_MEMSIZE && site->aux_regs_intact
      && register_value (regs, mask, PERF_REG_DI, 8, 0, &dest) && dest)
    {
      uint64_t lowest_bit = dest & -dest;
      sfdo_tally_pair (&t->values[SFDO_VALUE_ALIGN], site->addr,
                       lowest_bit < 4096 ? lowest_bit : 4096, weight);
    }
  return 1;
}

void
sfdo_build_values (const struct sfdo_tally *t, struct sfdo_symtab *st,
                   enum sfdo_line_vote vote, struct sfdo_profile *p)
{
  struct attributor at;
  attr_init (&at, st, p, vote);
  for (uint32_t kind = 0; kind < SFDO_VALUE_NKINDS; kind++)
    {
      const struct sfdo_pairmap *m = &t->values[kind];
      for (size_t i = 0; i < m->cap; i++)
        if (m->a[i] != UINT64_MAX)
          attr_value (&at, m->a[i], kind, m->b[i], m->vals[i].weight);
    }
  attr_finish (&at);
}
