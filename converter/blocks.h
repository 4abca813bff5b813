/* converter/blocks.h - the basic blocks of a function's machine code.
 *
 * Stage 2 of the pipeline.  IP-only sampling attributes a sample to
 * whichever instruction sat at the head of the queue when the counter
 * overflowed (skid, stalls), so single instructions are unreliable; the
 * average over the instructions of a basic block is not (Chen et al.).
 * Blocks come from decoding the bytes with Capstone: a block starts at the
 * function's entry, at every direct jump target inside the function, and
 * after every jump or return.  Calls do not end blocks: the instruction
 * after a call runs as often as the call.
 *
 * Depends on common/ and Capstone.  */
#ifndef SFDO_CONVERTER_BLOCKS_H
#define SFDO_CONVERTER_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_decoder;

enum sfdo_insn_kind {
  SFDO_INSN_OTHER = 0,
  SFDO_INSN_CALL = 1,         /* a call, direct or indirect */
  SFDO_INSN_JUMP = 2,         /* an unconditional jump */
  SFDO_INSN_RET = 3,
  SFDO_INSN_CJUMP = 4         /* a conditional jump (jcc, loop, jrcxz) */
};

struct sfdo_block {
  uint64_t start, end;        /* [start, end) */
  uint32_t first_insn;        /* index into insn_addrs */
  uint32_t ninsns;
  uint32_t nrun;              /* of them, those that run (padding aside) */
};

struct sfdo_func_blocks {
  uint64_t lo, hi;
  uint64_t *insn_addrs;       /* every decoded instruction, ascending */
  uint64_t *call_targets;     /* per instruction: a direct call's target,
                                 else 0 */
  uint64_t *jump_targets;     /* per instruction: a direct jump's target,
                                 else 0 */
  uint8_t *kinds;             /* per instruction: enum sfdo_insn_kind */
  uint8_t *padding;           /* per instruction: 1 for a no-op after an
                                 unconditional jump or a return, which
                                 only aligns what follows and never runs */
  size_t ninsns;
  struct sfdo_block *blocks;  /* ascending, disjoint */
  size_t nblocks;
};

/* A decoder for ELF machine MACHINE; only x86-64 (62) is supported, any
   other is SFDO_E_USAGE naming it.  */
enum sfdo_errc sfdo_decoder_new (unsigned machine, struct sfdo_decoder **out,
                                 struct sfdo_error *err);
void sfdo_decoder_free (struct sfdo_decoder *d);

/* One instruction, as value profiling needs it.  Registers are numbered
   as perf numbers user registers on x86-64 (PERF_REG_X86_*: ax 0, bx 1,
   cx 2, dx 3, si 4, di 5, bp 6, sp 7, r8-r15 16-23).  */
struct sfdo_insn_info {
  uint8_t size;               /* bytes; 0 if CODE did not decode */
  uint8_t kind;               /* enum sfdo_insn_kind */
  int8_t div_reg;             /* a div or idiv by this register, else -1 */
  uint8_t div_width;          /* its operand size in bytes */
  uint8_t div_signed;         /* idiv */
  uint32_t writes;            /* bit R set: writes register R */
  uint64_t call_target;       /* a direct call's target, else 0 */
  uint64_t jump_target;       /* a direct jump's target, else 0 */
  int8_t target_reg;          /* an indirect call or jump to the address
                                 in this register (perf's number), else -1 */
  int8_t target_base;         /* an indirect call or jump to the address
                                 stored at target_disp(this register), as
                                 a virtual call through a vtable, else -1 */
  int32_t target_disp;
  int8_t move_from;           /* a 64-bit register-to-register move from
                                 this register (into the one it writes),
                                 else -1 */
  int8_t zeroes;              /* a register this leaves 0 whole (xor
                                 with itself, mov $0), else -1 */
};

/* Decode the instruction at CODE (LEN bytes available), loaded at ADDR.  */
void sfdo_decode_one (struct sfdo_decoder *d, const uint8_t *code, size_t len,
                      uint64_t addr, struct sfdo_insn_info *out);

/* Decode the LEN bytes at CODE, loaded at LO, up to HI, into OUT (which the
   caller releases with sfdo_func_blocks_release).  Bytes that do not
   decode end a block and are stepped over one at a time.  */
void sfdo_decode_function (struct sfdo_decoder *d, const uint8_t *code,
                           size_t len, uint64_t lo, uint64_t hi,
                           struct sfdo_func_blocks *out);
void sfdo_func_blocks_release (struct sfdo_func_blocks *fb);

/* Index of the instruction of FB at ADDR, or -1.  */
ptrdiff_t sfdo_func_blocks_insn (const struct sfdo_func_blocks *fb,
                                 uint64_t addr);
/* Index of the first instruction of FB at or after ADDR (ninsns if none).  */
size_t sfdo_func_blocks_insn_from (const struct sfdo_func_blocks *fb,
                                   uint64_t addr);

/* Index of the block of FB holding ADDR, or -1.  */
ptrdiff_t sfdo_func_blocks_find (const struct sfdo_func_blocks *fb,
                                 uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif
