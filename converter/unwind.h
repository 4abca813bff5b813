/* converter/unwind.h - the callers of a sample, from the registers and the
 * copy of the user stack it carries (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER: sfdo-record's default without LBR, and perf
 * record --call-graph dwarf).
 *
 * Stage 2 of the pipeline.  Each frame is stepped with the DWARF call-frame
 * information of the file its code is in (.eh_frame, else .debug_frame),
 * read through libdw's CFI interface: the canonical frame address and the
 * saved registers are evaluated from the rules CFI gives for that PC,
 * reading the stack copy.  Where a file has no CFI for a PC, the frame
 * pointer is followed, but only when it points into the stack copy above
 * the stack pointer and the return address it gives is in mapped code
 * (in code built without frame pointers RBP is an ordinary register, so
 * this is the one place a frame could be wrong); otherwise the walk stops
 * and says why.  Every stop has a reason (see enum sfdo_unwind_stop), and
 * the converter reports how many samples stopped for each.  A file whose
 * build-id differs from the one the recording gives (a library updated
 * since) is not used.
 *
 * x86-64 only (the registers are perf's x86 ones).  Depends on libdw and
 * libelf, and perfdata.h for the sampled registers.  */
#ifndef SFDO_CONVERTER_UNWIND_H
#define SFDO_CONVERTER_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "../perfdata/perfdata.h"

/* The registers CFI speaks of, in DWARF's x86-64 numbering (0 RAX, 1 RDX,
   2 RCX, 3 RBX, 4 RSI, 5 RDI, 6 RBP, 7 RSP, 8-15 R8-R15, 16 the return
   address, here the PC).  */
#define SFDO_UNWIND_NREGS 17
#define SFDO_UNWIND_SP 7
#define SFDO_UNWIND_PC 16

struct sfdo_unwind_regs {
  uint64_t r[SFDO_UNWIND_NREGS];
  uint32_t known;               /* bit N: r[N] is known */
};

/* The bytes of the stack from address BASE (the sampled stack pointer).  */
struct sfdo_unwind_stack {
  uint64_t base;
  const uint8_t *bytes;
  size_t size;
};

/* Where code is.  */
struct sfdo_unwind_code {
  const char *path;             /* the file mapped at the address; the
                                   unwinder opens it and caches it by path */
  uint64_t offset;              /* of the address in the file */
  const uint8_t *build_id;      /* what the recording says the file's
                                   build-id was (zero-padded), or NULL */
  size_t build_id_size;
};

/* The code at IP into *CODE; 0, or -1 when nothing is mapped there.  */
typedef int (*sfdo_unwind_locate_fn) (void *ctx, uint64_t ip,
                                      struct sfdo_unwind_code *code);

/* Why a walk stopped.  */
enum sfdo_unwind_stop {
  SFDO_UNWIND_OUTERMOST,        /* CFI says there is no caller: complete */
  SFDO_UNWIND_LIMIT,            /* as many frames as asked for */
  SFDO_UNWIND_NOT_MAPPED,       /* a PC in no mapped file */
  SFDO_UNWIND_NO_FILE,          /* its file cannot be opened or read, or
                                   is not an x86-64 ELF file */
  SFDO_UNWIND_OTHER_FILE,       /* its file's build-id is not the one
                                   recorded */
  SFDO_UNWIND_NO_CFI,           /* no CFI for a PC and no usable frame
                                   pointer */
  SFDO_UNWIND_STACK_SHORT,      /* a saved register beyond the stack copy */
  SFDO_UNWIND_BAD_RULE,         /* a CFI rule that needs a register not
                                   known, or an expression not evaluated */
  SFDO_UNWIND_NO_PROGRESS,      /* the stack pointer did not move up */
  SFDO_UNWIND_NSTOPS
};

/* For messages: "outermost frame", "stack copy too small", ...  */
const char *sfdo_unwind_stop_name (enum sfdo_unwind_stop why);

struct sfdo_unwinder;

struct sfdo_unwinder *sfdo_unwinder_new (sfdo_unwind_locate_fn locate,
                                         void *ctx);
void sfdo_unwinder_free (struct sfdo_unwinder *u);

/* Walk from REGS (of the sampled instruction) over STACK: CHAIN[0] is the
   sampled PC, CHAIN[1..] the return addresses of its callers, innermost
   first, at most MAX in all.  Returns how many, and why it stopped into
   *WHY.  */
size_t sfdo_unwind (struct sfdo_unwinder *u, const struct sfdo_unwind_regs *regs,
                    const struct sfdo_unwind_stack *stack, uint64_t *chain,
                    size_t max, enum sfdo_unwind_stop *why);

/* The registers of a sample, REGS sampled with perf's x86 MASK, into *OUT
   in DWARF numbering.  Returns 0, or -1 when the PC or the stack pointer is
   missing, or they are not a 64-bit process's (the sample cannot be
   unwound).  */
int sfdo_unwind_regs_from_perf (const struct sfdo_perfdata_regs *regs,
                                uint64_t mask, struct sfdo_unwind_regs *out);

#endif
