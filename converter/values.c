/* converter/values.c - value histograms from register samples.
 *
 * A sample that carries user registers (perf record --user-regs, or
 * REGS_INTR with precise events) tells the value a register held at the
 * sampled instruction.  If a division by that register follows in the
 * same block and nothing in between writes the register, the value is
 * the divisor that division will use.  Likewise a call to memcpy, memset
 * or memmove reveals its size, the third argument (rdx).  Each sampled
 * address is decoded once and its answer cached.  */
#include "convert_int.h"

#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"
#include "attribute.h"

/* How far ahead of a sample a division may be and still be seen.  */
#define MAX_LOOKAHEAD 16

/* perf's number for rdx, the third argument register.  */
#define PERF_REG_DX 3

/* Whether a call to TARGET is a call of a memory operation whose size is
   its third argument.  */
static int
is_mem_operation (const struct binary *b, uint64_t target)
{
  static const char *const names[] = {
    "memcpy", "memset", "memmove", "__memcpy_chk", "__memset_chk",
    "__memmove_chk"
  };
  const char *name = target ? sfdo_symtab_call_name (b->symtab, target) : NULL;
  for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
    if (strcmp (name, names[i]) == 0)
      return 1;
  return 0;
}

/* Whether instruction INFO at AT is a site (a division by a register, a
   memory operation's call) whose operand WRITTEN leaves intact.  */
static int
site_at (const struct binary *b, const struct sfdo_insn_info *info,
         uint64_t at, uint32_t written, struct value_site *site)
{
  if (info->div_reg >= 0 && !(written & (1u << info->div_reg)))
    {
      *site = (struct value_site) { at, info->div_reg, info->div_width,
                                    info->div_signed, SFDO_VALUE_DIVMOD };
      return 1;
    }
  if (info->kind == SFDO_INSN_CALL && !(written & (1u << PERF_REG_DX))
      && is_mem_operation (b, info->call_target))
    {
      *site = (struct value_site) { at, PERF_REG_DX, 8, 0,
                                    SFDO_VALUE_MEMSIZE };
      return 1;
    }
  return 0;
}

/* Find the site the sample at VADDR sees; 0 if none.  */
static int
find_site (struct sfdo_decoder *dec, struct binary *b, uint64_t vaddr,
               struct value_site *site)
{
  uint64_t lo, hi;
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_function_range (b->symtab, vaddr, &lo, &hi) != 0
      || sfdo_symtab_code (b->symtab, vaddr, &code, &len) != 0)
    return 0;
  if (len > hi - vaddr)
    len = (size_t) (hi - vaddr);
  uint32_t written = 0;
  uint64_t at = vaddr;
  for (int n = 0; n < MAX_LOOKAHEAD && at < hi; n++)
    {
      struct sfdo_insn_info info;
      sfdo_decode_one (dec, code + (at - vaddr), (size_t) (hi - at), at, &info);
      if (!info.size)
        return 0;
      if (site_at (b, &info, at, written, site))
        return 1;
      if (info.kind != SFDO_INSN_OTHER || info.div_reg >= 0)
        return 0;
      written |= info.writes;
      at += info.size;
    }
  return 0;
}

/* The cached value site of VADDR in B, or NULL.  */
static const struct value_site *
site_of (struct sfdo_converter *cv, struct binary *b, uint64_t vaddr)
{
  uint64_t *slot = sfdo_u64map_get (&b->site_index, vaddr);
  if (!*slot)
    {
      struct value_site site;
      *slot = UINT64_MAX;
      if (cv->decoder && find_site (cv->decoder, b, vaddr, &site))
        {
          sfdo_xgrow (&b->sites, &b->cap_sites, b->nsites + 1,
                      sizeof *b->sites);
          b->sites[b->nsites++] = site;
          *slot = b->nsites;
        }
    }
  return *slot == UINT64_MAX ? NULL : &b->sites[*slot - 1];
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

void
sfdo_values_take (struct sfdo_converter *cv, struct binary *b, uint64_t vaddr,
                  const struct sfdo_perfdata_sample *s,
                  const struct sfdo_perfdata_attr *attr, uint64_t weight)
{
  const struct sfdo_perfdata_regs *regs = &s->regs_user;
  uint64_t mask = attr ? attr->sample_regs_user : 0;
  if (s->regs_intr.abi && attr)
    regs = &s->regs_intr, mask = attr->sample_regs_intr;
  if (!regs->abi || !mask)
    return;
  const struct value_site *site = site_of (cv, b, vaddr);
  uint64_t value;
  if (!site || !register_value (regs, mask, (unsigned) site->reg, site->width,
                                site->is_signed, &value))
    return;
  struct sfdo_pairval *v = sfdo_pairmap_get (&b->values[site->kind],
                                             site->addr, value);
  v->count++;
  v->weight = sfdo_sat_add (v->weight, weight);
  cv->stats.values++;
}

void
sfdo_build_values (struct sfdo_converter *cv, struct binary *b,
                   struct sfdo_profile *p)
{
  struct attributor at;
  attr_init (&at, b->symtab, p, cv->opts.vote);
  for (uint32_t kind = 0; kind < SFDO_VALUE_NKINDS; kind++)
    {
      const struct sfdo_pairmap *m = &b->values[kind];
      for (size_t i = 0; i < m->cap; i++)
        if (m->a[i] != UINT64_MAX)
          attr_value (&at, m->a[i], kind, m->b[i], m->vals[i].weight);
    }
  attr_finish (&at);
}
