/* converter/anchors.c - the shape of the sampled functions (anchors.h).  */
#include "anchors.h"

#include <stdint.h>
#include <stdlib.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "../profiles/profile.h"
#include "attribute.h"
#include "blocks.h"
#include "symtab.h"
#include "tally.h"

/* Whether P holds function NAME of FILE (NULL: global) with samples.  */
static int
sampled (struct sfdo_profile *p, const char *name, const char *file)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  const struct sfdo_prof_func *f = sfdo_profile_find (p, name, file, &err);
  return f && f->total > 0;
}

/* Walk the function whose code is [LO, HI): with SEEN, record its call
   sites; with LINES, the lines its code has (OWN_ONLY: its own code, not
   code inlined into it).  */
static void
walk_code (struct attributor *at, struct sfdo_decoder *dec, uint64_t lo,
           uint64_t hi, struct sfdo_u64map *seen, struct sfdo_u64map *lines,
           int own_only)
{
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_code (at->symtab, lo, &code, &len) != 0)
    return;
  struct sfdo_func_blocks fb;
  sfdo_decode_function (dec, code, len, lo, hi, &fb);
  for (size_t i = 0; i < fb.ninsns; i++)
    {
      uint64_t addr = fb.insn_addrs[i];
      if (seen)
        {
          const char *callee
            = fb.kinds[i] == SFDO_INSN_CALL && fb.call_targets[i]
              ? attr_callee_name (at, addr, fb.call_targets[i]) : NULL;
          attr_call_site (at, addr, callee, seen);
        }
      /* Padding after a jump or a return never runs, and its line may be
         one whose code is elsewhere: as a line of a piece that never ran
         it would claim code there.  The shape, which only aligns lines,
         keeps it.  */
      if (lines && !(own_only && fb.padding[i]))
        attr_top_line (at, addr, lines, own_only);
    }
  sfdo_func_blocks_release (&fb);
}

struct sfdo_piece *
sfdo_sampled_pieces (struct sfdo_symtab *st, struct sfdo_profile *p,
                     size_t *npieces)
{
  size_t n = sfdo_symtab_nfunctions (st), k = 0;
  struct sfdo_piece *pieces
    = (struct sfdo_piece *) sfdo_xmalloc ((n + 1) * sizeof *pieces);
  for (size_t i = 0; i < n; i++)
    {
      uint64_t lo, start, hi;
      const char *name, *file;
      sfdo_symtab_function (st, i, &lo, &name, &file);
      if (sampled (p, name, file)
          && sfdo_symtab_function_range (st, lo, &start, &hi) == 0
          && start == lo)
        pieces[k++] = (struct sfdo_piece) { lo, hi };
    }
  *npieces = k;
  return pieces;
}

/* Walk each of the N PIECES that none of the NRAN sorted addresses RAN
   lies in (RAN NULL: every piece) as walk_code does with SEEN, LINES and
   OWN_ONLY, which fills one of the two maps; returns how many pieces
   grew it.  */
static size_t
walk_sampled_pieces (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                     const struct sfdo_piece *pieces, size_t n,
                     const uint64_t *ran, size_t nran,
                     struct sfdo_profile *p, struct sfdo_u64map *seen,
                     struct sfdo_u64map *lines, int own_only)
{
  struct attributor at;
  struct sfdo_u64map *grown = seen ? seen : lines;
  size_t walked = 0;
  attr_init (&at, st, p, SFDO_LINE_MAX);
  attr_adopt_functions (&at);
  for (size_t i = 0; i < n; i++)
    {
      if (ran && sfdo_addresses_within (ran, nran, pieces[i].lo,
                                        pieces[i].hi))
        continue;
      size_t before = grown->n;
      walk_code (&at, dec, pieces[i].lo, pieces[i].hi, seen, lines,
                 own_only);
      walked += grown->n > before;
    }
  attr_finish (&at);
  return walked;
}

size_t
sfdo_add_call_anchors (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                       const struct sfdo_piece *pieces, size_t n,
                       struct sfdo_profile *p)
{
  struct sfdo_u64map seen = { 0 };
  size_t anchored = walk_sampled_pieces (st, dec, pieces, n, NULL, 0, p,
                                         &seen, NULL, 0);
  sfdo_u64map_release (&seen);
  return anchored;
}

size_t
sfdo_add_unsampled_pieces (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                           const struct sfdo_piece *pieces, size_t n,
                           const struct sfdo_tally *t, struct sfdo_profile *p)
{
  struct sfdo_u64map lines = { 0 };
  size_t nran;
  uint64_t *ran = sfdo_tally_addresses (t, &nran);
  size_t added = walk_sampled_pieces (st, dec, pieces, n, ran, nran, p,
                                      NULL, &lines, 1);
  sfdo_u64map_release (&lines);
  free (ran);
  return added;
}

enum sfdo_errc
sfdo_binary_shape (struct sfdo_symtab *st, struct sfdo_decoder *dec,
                   struct sfdo_profile **out, struct sfdo_error *err)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct attributor at;
  struct sfdo_u64map seen = { 0 }, lines = { 0 };
  attr_init (&at, st, p, SFDO_LINE_MAX);
  at.shape = 1;
  for (size_t i = 0; i < sfdo_symtab_nfunctions (st); i++)
    {
      uint64_t lo, start, hi;
      const char *name, *file;
      sfdo_symtab_function (st, i, &lo, &name, &file);
      if (sfdo_symtab_function_range (st, lo, &start, &hi) == 0 && start == lo)
        walk_code (&at, dec, lo, hi, &seen, &lines, 0);
    }
  attr_finish (&at);
  sfdo_u64map_release (&seen);
  sfdo_u64map_release (&lines);
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  if (rc != SFDO_OK)
    {
      sfdo_profile_free (p);
      p = NULL;
    }
  *out = p;
  return rc;
}
