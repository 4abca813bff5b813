/* converter/attribute.h - putting counts at source positions.
 *
 * Stage 2 of the pipeline, shared by the IP-only and LBR builders: a count
 * measured at an instruction address goes, through the address's inline
 * stack, to a (function, line offset, discriminator) of the profile.
 * Several instructions of one position vote (enum sfdo_line_vote in
 * convert.h); call counts add up; then totals are summed bottom-up.  */
#ifndef SFDO_CONVERTER_ATTRIBUTE_H
#define SFDO_CONVERTER_ATTRIBUTE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"
#include "convert.h"
#include "symtab.h"

struct sfdo_prof_func;

struct attr_vote {
  struct sfdo_prof_func *owner;
  uint32_t offset, disc;
  uint32_t target;              /* callee name id of a call; 0 for a line */
  uint64_t block;               /* first address of the instruction's block */
  uint64_t count;
  uint8_t stmt_start;           /* the instruction begins a statement */
  uint32_t column;              /* ... at this column */
  uint8_t row_start;            /* a row of the line begins here */
  uint32_t block_insns;         /* instructions of the block, padding aside */
  uint8_t start_only;           /* a statement start of this line at an
                                   instruction of another line */
};

struct attributor {
  struct sfdo_symtab *symtab;
  struct sfdo_profile *p;
  enum sfdo_line_vote vote;
  struct sfdo_u64map tops;      /* hash of (name, file) -> top index + 1 */
  struct sfdo_prof_func **top;
  size_t ntop, cap_top;
  struct attr_vote *votes;
  size_t nvotes, cap_votes;
  int shape;    /* a binary's shape: inline instances made for anchors */
};

void attr_init (struct attributor *at, struct sfdo_symtab *symtab,
                struct sfdo_profile *p, enum sfdo_line_vote vote);
/* Make the functions AT's profile holds already the ones its records go
   to (rather than new records of the same name, merged when the profile
   is finalized): their inline instances are then found.  */
void attr_adopt_functions (struct attributor *at);
/* The profile owning the source position of VADDR and the position in it
   (*OFFSET, *DISC); NULL if VADDR has no usable line.  With FRAME, the
   innermost frame's details (statement start, column) go there.  */
struct sfdo_prof_func *attr_owner (struct attributor *at, uint64_t vaddr,
                                   uint32_t *offset, uint32_t *disc,
                                   struct sfdo_frame *frame);
/* Record the call site VADDR shows in its top-level function's profile,
   as a SFDO_VALUE_CALL_SITES value, once (SEEN holds those recorded): the
   outermost call inlined there, or failing one, the direct call to CALLEE
   (NULL: VADDR is no call); and in each inline instance along VADDR's
   inline stack, the call made there, for the instance's lines to be
   aligned as their callee's.  Only in instances the profile has (that
   caught samples): an inline instance made for an anchor would read as
   one that never ran; but in a binary's shape (AT->shape) they are
   made.  */
void attr_call_site (struct attributor *at, uint64_t vaddr,
                     const char *callee, struct sfdo_u64map *seen);
/* Record, once (SEEN), that the top-level function at VADDR has code at
   its line there (for inlined code, the line of the outermost call), with
   its discriminator (the function's own code only): a line of no count in
   its profile.  With OWN_ONLY, nothing for inlined code.  */
void attr_top_line (struct attributor *at, uint64_t vaddr,
                    struct sfdo_u64map *seen, int own_only);
/* The top-level profile of the function whose entry is at ENTRY, or NULL
   if ENTRY is not a function's first address.  */
struct sfdo_prof_func *attr_function_at (struct attributor *at,
                                         uint64_t entry);
/* The linkage name of the function entered at ENTRY, or NULL.  */
const char *attr_function_name (struct attributor *at, uint64_t entry);
/* The linkage name of the function the direct call at CALL calls, which
   enters TARGET: the callee the source names there where DWARF says
   (folded functions share a body), else the function at TARGET.  */
const char *attr_callee_name (struct attributor *at, uint64_t call,
                              uint64_t target);
/* Instruction VADDR, of the machine block starting at BLOCK (of
   BLOCK_INSNS instructions, padding aside), ran COUNT times.  */
void attr_line (struct attributor *at, uint64_t vaddr, uint64_t block,
                uint32_t block_insns, uint64_t count);
/* The call at VADDR went COUNT times to CALLEE (a linkage name).  */
void attr_call (struct attributor *at, uint64_t vaddr, const char *callee,
                uint64_t count);
/* At the instruction VADDR, value VALUE (a string id for
   SFDO_VALUE_ICALL) was seen COUNT times.  */
void attr_value (struct attributor *at, uint64_t vaddr, uint32_t kind,
                 uint64_t value, uint64_t count);
/* Settle the votes into the profile, sum totals, release AT.  */
void attr_finish (struct attributor *at);

#endif
