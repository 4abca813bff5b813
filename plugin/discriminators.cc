/* plugin/discriminators.cc - copied blocks get their discriminator back
   (discriminators.h).  Registered on GCC 12 only (gcc-compat.h's
   SFDO_GCC_BLOCK_DISCRIMINATORS).  */

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cgraph.h"
#include "cfg.h"
#include "rtl.h"
#include "memmodel.h"
#include "emit-rtl.h"
#include "tree-pass.h"
#include "hash-map.h"

#include "gcc-compat.h"
#include "samplefdo.h"
#include "discriminators.h"

namespace {

/* A statement position: a hash of its file's name and its inline
   instance, its line and its column, in 64 bits.  Two positions that
   hash alike at one line and column make that position ambiguous, which
   only leaves a copy as it is.  */
typedef int_hash<uint64_t, 0, UINT64_MAX> position_hash;
typedef hash_map<position_hash, unsigned> position_map;

/* What a position held several discriminators is marked with.  */
const unsigned SEVERAL = -1u;

/* The inline instance LOC is in: the outer scope of the innermost
   function inlined there, or NULL in the function's own body.  Copies a
   later pass makes keep their scope; two inline instances of one
   function are not copies of each other, and may be numbered apart.  */
tree
inline_instance (location_t loc)
{
  for (tree b = LOCATION_BLOCK (loc); b && TREE_CODE (b) == BLOCK;
       b = BLOCK_SUPERCONTEXT (b))
    if (inlined_function_outer_scope_p (b))
      return b;
  return NULL_TREE;
}

uint64_t
position_key (location_t loc)
{
  if (LOCATION_LOCUS (loc) <= BUILTINS_LOCATION)
    return 0;
  expanded_location x = expand_location (loc);
  if (!x.file || x.line <= 0)
    return 0;
  uint64_t where = htab_hash_string (x.file)
		   ^ htab_hash_pointer (inline_instance (loc));
  uint64_t line = (uint64_t) x.line & 0xfffff;
  uint64_t column = x.column < 0 ? 0 : MIN ((uint64_t) x.column, 4095);
  uint64_t key = where << 32 | line << 12 | column;
  return key == UINT64_MAX ? key - 1 : key;
}

/* The positions of the instructions of the block whose note is NOTE, to
   *KEYS; whether every instruction has one.  */
bool
block_positions (rtx_insn *note, auto_vec<uint64_t> *keys)
{
  bool all = true;
  keys->truncate (0);
  for (rtx_insn *insn = NEXT_INSN (note); insn && !NOTE_INSN_BASIC_BLOCK_P (insn);
       insn = NEXT_INSN (insn))
    {
      if (!NONDEBUG_INSN_P (insn))
	continue;
      uint64_t key = INSN_HAS_LOCATION (insn)
		     ? position_key (INSN_LOCATION (insn)) : 0;
      if (key)
	keys->safe_push (key);
      all &= key != 0;
    }
  return all && !keys->is_empty ();
}

/* The discriminator of the blocks with one that POSITIONS's
   instructions all had there, or 0: a position in none of them, or in
   blocks of several.  */
unsigned
agreed_discriminator (position_map &positions,
		      const auto_vec<uint64_t> &keys)
{
  unsigned agreed = 0;
  for (uint64_t key : keys)
    {
      const unsigned *d = positions.get (key);
      if (!d || *d == SEVERAL || (agreed && agreed != *d))
	return 0;
      agreed = *d;
    }
  return agreed;
}

/* Where in the function each position is, in blocks that have a
   discriminator: the one they have, or SEVERAL.  */
void
note_positions (position_map *positions)
{
  auto_vec<uint64_t> keys;
  for (rtx_insn *insn = get_insns (); insn; insn = NEXT_INSN (insn))
    {
      if (!NOTE_INSN_BASIC_BLOCK_P (insn))
	continue;
      unsigned d = sfdo_final_block_discriminator (NOTE_BASIC_BLOCK (insn));
      if (!d)
	continue;
      block_positions (insn, &keys);
      for (uint64_t key : keys)
	{
	  bool existed;
	  unsigned &seen = positions->get_or_insert (key, &existed);
	  seen = existed && seen != d ? SEVERAL : d;
	}
    }
}

const pass_data pass_data_sfdo_discriminators =
{
  RTL_PASS, /* type */
  "samplefdo-discriminators", /* name */
  OPTGROUP_NONE, /* optinfo_flags */
  TV_PLUGIN_RUN, /* tv_id */
  0, /* properties_required */
  0, /* properties_provided */
  0, /* properties_destroyed */
  0, /* todo_flags_start */
  0, /* todo_flags_finish */
};

class pass_sfdo_discriminators : public rtl_opt_pass
{
public:
  pass_sfdo_discriminators (gcc::context *ctxt)
    : rtl_opt_pass (pass_data_sfdo_discriminators, ctxt)
  {}

  virtual bool gate (function *)
  {
    return sfdo_profile != NULL;
  }

  /* The CFG is gone by now, but final still reads each block's
     discriminator through its NOTE_INSN_BASIC_BLOCK.  */
  virtual unsigned int execute (function *)
  {
    position_map positions;
    auto_vec<uint64_t> keys;
    note_positions (&positions);
    if (positions.is_empty ())
      return 0;
    for (rtx_insn *insn = get_insns (); insn; insn = NEXT_INSN (insn))
      {
	if (!NOTE_INSN_BASIC_BLOCK_P (insn)
	    || sfdo_final_block_discriminator (NOTE_BASIC_BLOCK (insn)) != 0
	    || !block_positions (insn, &keys))
	  continue;
	unsigned d = agreed_discriminator (positions, keys);
	if (d)
	  {
	    sfdo_set_final_block_discriminator (NOTE_BASIC_BLOCK (insn), d);
	    sfdo_stats.discriminators_restored++;
	  }
      }
    return 0;
  }
};

} // anon namespace

opt_pass *
sfdo_make_discriminators_pass (gcc::context *ctxt)
{
  return new pass_sfdo_discriminators (ctxt);
}
