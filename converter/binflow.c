/* converter/binflow.c - see binflow.h: the binary-level MCF prepass.  */
#include "binflow.h"

#include <stdlib.h>

#include "../common/xalloc.h"
#include "../smooth/mcf.h"

enum sfdo_sampling
sfdo_classify_block (double inst, double clk, double stall)
{
  double shadow = clk - inst;
  if (shadow - stall > 2 * inst)
    return SFDO_SAMPLING_UNDER;
  if (stall > shadow && stall > clk / 2)
    return SFDO_SAMPLING_OVER;
  return SFDO_SAMPLING_OK;
}

/* The block of FB starting at ADDR, or -1 when ADDR is outside FB or not a
   block's start (a jump into the middle of an instruction).  */
static ptrdiff_t
block_at (const struct sfdo_func_blocks *fb, uint64_t addr)
{
  ptrdiff_t k = sfdo_func_blocks_find (fb, addr);
  return k >= 0 && fb->blocks[k].start == addr ? k : -1;
}

struct cfg {
  struct sfdo_flow *g;
  size_t entry, exit;           /* the virtual ENTRY and EXIT nodes */
  uint8_t *reached;             /* per block: some edge goes there */
};

static void
edge (struct cfg *c, size_t from, ptrdiff_t to)
{
  size_t dest = to >= 0 ? (size_t) to : c->exit;
  sfdo_flow_add_edge (c->g, from, dest, -1);
  if (dest < c->entry)
    c->reached[dest] = 1;
}

/* The edges out of block K, ending at its last instruction; returns
   whether it is an indirect jump (its targets are unknown).  */
static int
block_edges (struct cfg *c, const struct sfdo_func_blocks *fb, size_t k)
{
  const struct sfdo_block *bl = &fb->blocks[k];
  size_t last = bl->first_insn + bl->ninsns - 1;
  ptrdiff_t next = k + 1 < fb->nblocks ? (ptrdiff_t) k + 1 : -1;
  uint64_t target = fb->jump_targets[last];
  switch (fb->kinds[last])
    {
    case SFDO_INSN_RET:
      edge (c, k, -1);
      return 0;
    case SFDO_INSN_CJUMP:
      edge (c, k, target ? block_at (fb, target) : -1);
      edge (c, k, next);
      return 0;
    case SFDO_INSN_JUMP:
      if (!target)
        return 1;
      edge (c, k, block_at (fb, target));
      return 0;
    default:
      edge (c, k, next);
      return 0;
    }
}

/* Build the CFG of FB into C; blocks that nothing reaches get an edge
   from every indirect jump (jump tables), or from ENTRY when there is none
   (landing pads, which the unwinder enters).  */
static void
build_cfg (struct cfg *c, const struct sfdo_func_blocks *fb)
{
  size_t n = fb->nblocks;
  uint8_t *indirect = sfdo_xcalloc (n, 1);
  size_t nindirect = 0;
  edge (c, c->entry, 0);
  for (size_t k = 0; k < n; k++)
    if (block_edges (c, fb, k))
      indirect[k] = 1, nindirect++;
  for (size_t k = 1; k < n; k++)
    {
      if (c->reached[k])
        continue;
      if (!nindirect)
        sfdo_flow_add_edge (c->g, c->entry, k, 1.0 / 64);
      for (size_t j = 0; j < n && nindirect; j++)
        if (indirect[j])
          sfdo_flow_add_edge (c->g, j, k, -1);
    }
  /* An indirect jump may also be a tail call.  */
  for (size_t j = 0; j < n; j++)
    if (indirect[j])
      edge (c, j, -1);
  free (indirect);
}

static enum sfdo_flow_bias
bias_of (uint8_t sampling)
{
  return sampling == SFDO_SAMPLING_OVER ? SFDO_FLOW_OVER
         : sampling == SFDO_SAMPLING_UNDER ? SFDO_FLOW_UNDER
         : SFDO_FLOW_TRUSTED;
}

void
sfdo_binflow_smooth (const struct sfdo_func_blocks *fb, uint64_t head,
                     const uint8_t *classes, uint64_t *counts)
{
  size_t n = fb->nblocks;
  if (n == 0)
    return;
  struct cfg c = { NULL, n, n + 1, NULL };
  c.g = sfdo_flow_new (n + 2, c.entry, c.exit);
  c.reached = sfdo_xcalloc (n, 1);
  build_cfg (&c, fb);
  for (size_t k = 0; k < n; k++)
    {
      int64_t count = counts[k] > INT64_MAX ? INT64_MAX : (int64_t) counts[k];
      sfdo_flow_set_count (c.g, k, count);
      if (classes)
        sfdo_flow_set_bias (c.g, k, bias_of (classes[k]));
    }
  if (head)
    sfdo_flow_set_count (c.g, c.entry,
                         head > INT64_MAX ? INT64_MAX : (int64_t) head);
  sfdo_flow_solve (c.g);
  for (size_t k = 0; k < n; k++)
    counts[k] = sfdo_flow_block_count (c.g, k);
  free (c.reached);
  sfdo_flow_free (c.g);
}
