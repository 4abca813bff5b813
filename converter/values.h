/* converter/values.h - value histograms from register samples.
 *
 * Stage 2 of the pipeline.  A sample that carries registers (perf record
 * --user-regs, or REGS_INTR with precise events) tells the value a
 * register held at the sampled instruction.  If a division by that
 * register follows in the same block and nothing in between writes the
 * register, the value is the divisor that division will use; likewise a
 * call to memcpy, memset or memmove reveals its size, the third argument
 * (rdx), and an indirect call through a register its target (kept apart,
 * in the tally's call_values, for build_ip's split of the call's count:
 * unlike the callee's samples, these do not lean to the targets that take
 * longest).  Each sampled address is decoded once and its answer cached in
 * the binary's struct sfdo_value_sites.
 *
 * Depends on perfdata/ (samples), symtab.h, blocks.h, tally.h and
 * attribute.h.  */
#ifndef SFDO_CONVERTER_VALUES_H
#define SFDO_CONVERTER_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"
#include "../perfdata/perfdata.h"
#include "blocks.h"
#include "convert.h"
#include "symtab.h"
#include "tally.h"

/* An instruction whose operand a register sample reveals.  */
struct sfdo_value_site {
  uint64_t addr;                /* the division, or the call */
  int8_t reg;                   /* perf register number of the operand */
  uint8_t width, is_signed;
  uint8_t kind;                 /* SFDO_VALUE_DIVMOD, _MEMSIZE or _ICALL */
  uint8_t aux_regs_intact;      /* the registers beside the operand hold
                                   what they hold at the site: the dividend
                                   (rdx:rax) of a DIVMOD, the destination
                                   (rdi) of a MEMSIZE */
  uint8_t through_memory;       /* ICALL: the target is the pointer at
                                   disp(reg), a vtable slot */
  int32_t disp;
  uint8_t high_zeroed;          /* DIVMOD: rdx is 0 at the site, cleared
                                   after the sample (xor %edx,%edx) */
};

/* The value sites of one binary found so far.  */
struct sfdo_value_sites {
  struct sfdo_u64map index;     /* sampled vaddr -> sites index + 1, or
                                   UINT64_MAX when no site follows it */
  struct sfdo_value_site *sites;
  size_t n, cap;
  /* The blocks of the functions with indirect calls sampled before them,
     each decoded once.  */
  struct sfdo_u64map func_index;    /* function start -> funcs index + 1 */
  struct sfdo_func_blocks *funcs;
  size_t nfuncs, cap_funcs;
};

void sfdo_value_sites_release (struct sfdo_value_sites *vs);

/* Where a code address of the sampled process is in the sample's binary:
   its vaddr there; 0 when it is in another file or nowhere.  */
struct sfdo_code_resolver {
  int (*resolve) (void *ctx, uint64_t addr, uint64_t *vaddr);
  void *ctx;
};

/* Take the registers of sample S of event ATTR, which fell at VADDR of the
   binary of ST, weighing WEIGHT, into T's value histograms; CODE resolves
   indirect-call targets.  Returns 1 if they gave a value.  */
int sfdo_values_take (struct sfdo_value_sites *vs, const struct sfdo_symtab *st,
                      struct sfdo_decoder *dec, struct sfdo_tally *t,
                      uint64_t vaddr, const struct sfdo_perfdata_sample *s,
                      const struct sfdo_perfdata_attr *attr, uint64_t weight,
                      const struct sfdo_code_resolver *code);

/* Put T's value histograms into P at their source positions.  */
void sfdo_build_values (const struct sfdo_tally *t, struct sfdo_symtab *st,
                        enum sfdo_line_vote vote, struct sfdo_profile *p);

#endif
