/* converter/unwind.c - stepping frames with DWARF CFI over a sampled stack
   copy (unwind.h).  */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/xalloc.h"

/* perf's x86 register numbers (asm/perf_regs.h) of the DWARF registers
   0..16, -1 for none.  */
static const int perf_reg_of_dwarf[SFDO_UNWIND_NREGS] = {
  0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */, 5 /* DI */,
  6 /* BP */, 7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23 /* R8-R15 */,
  8 /* IP */
};
#define DWARF_RBP 6
#define PERF_SAMPLE_REGS_ABI_64 2

/* One mapped file, opened once.  */
struct cfi_file {
  char *path;
  int usable;                   /* an x86-64 ELF file with loads */
  int other;                    /* its build-id is not the recorded one */
  int fd;
  Elf *elf;
  Dwarf_CFI *eh;                /* .eh_frame, or NULL */
  Dwarf *dwarf;                 /* for .debug_frame, opened when needed */
  Dwarf_CFI *debug;
  int tried_debug;
  GElf_Phdr *loads;             /* PT_LOAD headers */
  size_t nloads;
};

struct sfdo_unwinder {
  sfdo_unwind_locate_fn locate;
  void *ctx;
  struct cfi_file *files;
  size_t nfiles, cap;
  size_t last;                  /* the file used last (most frames stay) */
};

const char *
sfdo_unwind_stop_name (enum sfdo_unwind_stop why)
{
  static const char *const names[SFDO_UNWIND_NSTOPS] = {
    "outermost frame", "frame limit", "PC in no mapping",
    "file not readable", "file not the one recorded",
    "no CFI and no frame pointer",
    "stack copy too small", "CFI rule not evaluated",
    "stack pointer did not move"
  };
  return (unsigned) why < SFDO_UNWIND_NSTOPS ? names[why] : "?";
}

struct sfdo_unwinder *
sfdo_unwinder_new (sfdo_unwind_locate_fn locate, void *ctx)
{
  struct sfdo_unwinder *u = sfdo_xcalloc (1, sizeof *u);
  u->locate = locate;
  u->ctx = ctx;
  elf_version (EV_CURRENT);
  return u;
}

static void
close_file (struct cfi_file *f)
{
  if (f->eh)
    dwarf_cfi_end (f->eh);
  if (f->dwarf)
    dwarf_end (f->dwarf);
  if (f->elf)
    elf_end (f->elf);
  if (f->fd >= 0)
    close (f->fd);
  free (f->loads);
  free (f->path);
}

void
sfdo_unwinder_free (struct sfdo_unwinder *u)
{
  if (!u)
    return;
  for (size_t i = 0; i < u->nfiles; i++)
    close_file (&u->files[i]);
  free (u->files);
  free (u);
}

/* --- files ----------------------------------------------------------------- */

/* Whether F's build-id is not the SIZE bytes at ID (perf pads a 20-byte
   field with zeros after a shorter id).  */
static int
differs (const struct cfi_file *f, const uint8_t *id, size_t size)
{
  const void *bits;
  ssize_t n = dwelf_elf_gnu_build_id (f->elf, &bits);
  if (!id || !size || n <= 0)
    return 0;
  if ((size_t) n > size || memcmp (bits, id, (size_t) n) != 0)
    return 1;
  for (size_t i = (size_t) n; i < size; i++)
    if (id[i])
      return 1;
  return 0;
}

/* Open the regular file at CODE's path (not a FIFO or a device a
   recording might name) and read its program headers and CFI.  The fd is
   closed at once: libelf keeps the file mapped.  */
static void
open_file (struct cfi_file *f, const struct sfdo_unwind_code *code)
{
  struct stat st;
  GElf_Ehdr eh;
  size_t n;
  *f = (struct cfi_file) { sfdo_xstrndup (code->path, strlen (code->path)),
                           0, 0, -1, NULL, NULL, NULL, NULL, 0, NULL, 0 };
  if (stat (code->path, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  f->fd = open (code->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  f->elf = f->fd >= 0 ? elf_begin (f->fd, ELF_C_READ_MMAP, NULL) : NULL;
  if (f->elf && elf_cntl (f->elf, ELF_C_FDDONE) == 0)
    close (f->fd), f->fd = -1;
  if (!f->elf || !gelf_getehdr (f->elf, &eh) || eh.e_machine != EM_X86_64
      || elf_getphdrnum (f->elf, &n) != 0)
    return;
  f->loads = sfdo_xmalloc ((n + 1) * sizeof *f->loads);
  for (size_t i = 0; i < n; i++)
    if (gelf_getphdr (f->elf, (int) i, &f->loads[f->nloads])
        && f->loads[f->nloads].p_type == PT_LOAD)
      f->nloads++;
  f->usable = f->nloads != 0;
  f->other = differs (f, code->build_id, code->build_id_size);
  f->eh = f->usable && !f->other ? dwarf_getcfi_elf (f->elf) : NULL;
}

/* The file of CODE, opened on first use; NULL with *WHY if it cannot be
   used.  */
static struct cfi_file *
file_of (struct sfdo_unwinder *u, const struct sfdo_unwind_code *code,
         enum sfdo_unwind_stop *why)
{
  size_t i = u->last;
  if (i >= u->nfiles || strcmp (u->files[i].path, code->path) != 0)
    {
      i = 0;
      while (i < u->nfiles && strcmp (u->files[i].path, code->path) != 0)
        i++;
      if (i == u->nfiles)
        {
          sfdo_xgrow (&u->files, &u->cap, u->nfiles + 1, sizeof *u->files);
          open_file (&u->files[u->nfiles++], code);
        }
      u->last = i;
    }
  struct cfi_file *f = &u->files[i];
  if (f->usable && !f->other)
    return f;
  *why = f->usable ? SFDO_UNWIND_OTHER_FILE : SFDO_UNWIND_NO_FILE;
  return NULL;
}

/* The virtual address of file offset OFF in F; 0 when no PT_LOAD loads
   it.  */
static int
vaddr_of (const struct cfi_file *f, uint64_t off, uint64_t *vaddr)
{
  for (size_t i = 0; i < f->nloads; i++)
    if (off >= f->loads[i].p_offset
        && off - f->loads[i].p_offset < f->loads[i].p_filesz)
      {
        *vaddr = off - f->loads[i].p_offset + f->loads[i].p_vaddr;
        return 1;
      }
  return 0;
}

/* The frame state CFI gives at VADDR of F (malloc'd), or NULL.  */
static Dwarf_Frame *
frame_at (struct cfi_file *f, uint64_t vaddr)
{
  Dwarf_Frame *frame = NULL;
  if (f->eh && dwarf_cfi_addrframe (f->eh, vaddr, &frame) == 0)
    return frame;
  if (!f->tried_debug)
    {
      f->tried_debug = 1;
      f->dwarf = dwarf_begin_elf (f->elf, DWARF_C_READ, NULL);
      f->debug = f->dwarf ? dwarf_getcfi (f->dwarf) : NULL;
    }
  if (f->debug && dwarf_cfi_addrframe (f->debug, vaddr, &frame) == 0)
    return frame;
  return NULL;
}

/* --- evaluating rules ------------------------------------------------------ */

static int
read_word (const struct sfdo_unwind_stack *s, uint64_t addr, uint64_t *v)
{
  if (addr < s->base || addr - s->base > s->size
      || s->size - (addr - s->base) < 8)
    return 0;
  memcpy (v, s->bytes + (addr - s->base), 8);
  return 1;
}

/* The outcome of evaluating a DWARF expression.  */
enum eval_result { EVAL_OK, EVAL_STACK_SHORT, EVAL_BAD };

static int
reg_known (const struct sfdo_unwind_regs *r, uint64_t n)
{
  return n < SFDO_UNWIND_NREGS && (r->known >> n & 1);
}

/* Apply the binary operator ATOM to A and B (B the top of the stack).  */
static int
binary_op (unsigned atom, uint64_t a, uint64_t b, uint64_t *out)
{
  switch (atom)
    {
    case DW_OP_plus: *out = a + b; return 1;
    case DW_OP_minus: *out = a - b; return 1;
    case DW_OP_and: *out = a & b; return 1;
    case DW_OP_or: *out = a | b; return 1;
    case DW_OP_mul: *out = a * b; return 1;
    case DW_OP_shl: *out = b < 64 ? a << b : 0; return 1;
    case DW_OP_shr: *out = b < 64 ? a >> b : 0; return 1;
    case DW_OP_ge: *out = (int64_t) a >= (int64_t) b; return 1;
    case DW_OP_gt: *out = (int64_t) a > (int64_t) b; return 1;
    case DW_OP_le: *out = (int64_t) a <= (int64_t) b; return 1;
    case DW_OP_lt: *out = (int64_t) a < (int64_t) b; return 1;
    case DW_OP_eq: *out = a == b; return 1;
    case DW_OP_ne: *out = a != b; return 1;
    default: return 0;
    }
}

/* The value operation OP pushes (a literal, a constant, a register plus
   an offset, the CFA) into *V: 1, or 0 when OP pushes none, or -1 when it
   needs a register not known or the CFA where there is none.  */
static int
operand_of (const Dwarf_Op *op, const struct sfdo_unwind_regs *r,
            int have_cfa, uint64_t cfa, uint64_t *v)
{
  unsigned atom = op->atom;
  if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31)
    return *v = atom - DW_OP_lit0, 1;
  if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
    return reg_known (r, atom - DW_OP_breg0)
           ? (*v = r->r[atom - DW_OP_breg0] + op->number, 1) : -1;
  if (atom == DW_OP_bregx)
    return reg_known (r, op->number)
           ? (*v = r->r[op->number] + op->number2, 1) : -1;
  if (atom == DW_OP_call_frame_cfa)
    return have_cfa ? (*v = cfa, 1) : -1;
  switch (atom)
    {
    case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
    case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
    case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
    case DW_OP_consts:
      return *v = op->number, 1;
    default:
      return 0;
    }
}

/* Apply the operation OP that takes the top of the stack ST (*SP deep):
   a unary one, a stack shuffle, or a binary operator.  */
static enum eval_result
apply_op (const Dwarf_Op *op, const struct sfdo_unwind_stack *s,
          uint64_t *st, size_t *sp)
{
  if (!*sp)
    return EVAL_BAD;
  uint64_t *top = &st[*sp - 1];
  switch (op->atom)
    {
    case DW_OP_plus_uconst:
      *top += op->number;
      return EVAL_OK;
    case DW_OP_deref:
      return read_word (s, *top, top) ? EVAL_OK : EVAL_STACK_SHORT;
    case DW_OP_dup:
      st[(*sp)++] = *top;
      return EVAL_OK;
    case DW_OP_drop:
      (*sp)--;
      return EVAL_OK;
    default:
      if (*sp < 2 || !binary_op (op->atom, top[-1], *top, &top[-1]))
        return EVAL_BAD;
      (*sp)--;
      return EVAL_OK;
    }
}

/* Evaluate the N operations OPS (CFI's subset of DWARF expressions) with
   registers R, memory S and the CFA (HAVE_CFA) into *OUT; *IS_VALUE says
   whether it ended with DW_OP_stack_value (a value, not an address).  */
static enum eval_result
eval (const Dwarf_Op *ops, size_t n, const struct sfdo_unwind_regs *r,
      const struct sfdo_unwind_stack *s, int have_cfa, uint64_t cfa,
      uint64_t *out, int *is_value)
{
  uint64_t st[16];
  size_t sp = 0;
  *is_value = 0;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t v;
      int pushed = operand_of (&ops[i], r, have_cfa, cfa, &v);
      enum eval_result e = EVAL_OK;
      if (sp == 16 || pushed < 0)
        return EVAL_BAD;
      if (pushed)
        st[sp++] = v;
      else if (ops[i].atom == DW_OP_stack_value && i + 1 == n)
        *is_value = 1;
      else if (ops[i].atom != DW_OP_nop)
        e = apply_op (&ops[i], s, st, &sp);
      if (e != EVAL_OK)
        return e;
    }
  if (!sp)
    return EVAL_BAD;
  *out = st[sp - 1];
  return EVAL_OK;
}

static enum sfdo_unwind_stop
stop_of (enum eval_result e)
{
  return e == EVAL_STACK_SHORT ? SFDO_UNWIND_STACK_SHORT : SFDO_UNWIND_BAD_RULE;
}

/* The caller's register N from FRAME's rule into *NEXT; 0, or the stop
   when a rule that applies cannot be evaluated.  */
static int
restore_register (Dwarf_Frame *frame, int n, const struct sfdo_unwind_regs *r,
                  const struct sfdo_unwind_stack *s, uint64_t cfa,
                  struct sfdo_unwind_regs *next, enum sfdo_unwind_stop *why)
{
  Dwarf_Op mem[3], *ops;
  size_t nops;
  uint64_t v;
  int is_value;
  if (dwarf_frame_register (frame, n, mem, &ops, &nops) != 0)
    return 0;                   /* no rule known: the register is lost */
  if (nops == 0)
    {
      if (ops == NULL && reg_known (r, (uint64_t) n))
        next->r[n] = r->r[n], next->known |= 1u << n;   /* same value */
      return 0;                 /* else undefined */
    }
  if (nops == 1 && (ops[0].atom == DW_OP_regx
                    || (ops[0].atom >= DW_OP_reg0
                        && ops[0].atom <= DW_OP_reg31)))
    {
      /* register(R): the caller's N is in this frame's R.  */
      uint64_t from = ops[0].atom == DW_OP_regx ? ops[0].number
                      : (uint64_t) (ops[0].atom - DW_OP_reg0);
      if (reg_known (r, from))
        next->r[n] = r->r[from], next->known |= 1u << n;
      else if (n == SFDO_UNWIND_PC)
        return *why = SFDO_UNWIND_BAD_RULE, -1;
      return 0;
    }
  enum eval_result e = eval (ops, nops, r, s, 1, cfa, &v, &is_value);
  if (e == EVAL_OK && !is_value && !read_word (s, v, &v))
    e = EVAL_STACK_SHORT;
  if (e != EVAL_OK)
    {
      /* A register the caller lost does not stop the walk unless it is
         the return address.  */
      if (n == SFDO_UNWIND_PC)
        *why = stop_of (e);
      return n == SFDO_UNWIND_PC ? -1 : 0;
    }
  next->r[n] = v;
  next->known |= 1u << n;
  return 0;
}

/* --- stepping -------------------------------------------------------------- */

/* One frame by FRAME's rules: R becomes the caller's registers.  Returns
   1 to go on, 0 at the outermost frame, -1 with *WHY.  */
static int
step_cfi (Dwarf_Frame *frame, struct sfdo_unwind_regs *r,
          const struct sfdo_unwind_stack *s, enum sfdo_unwind_stop *why)
{
  Dwarf_Op *ops;
  size_t nops;
  uint64_t cfa;
  int is_value;
  if (dwarf_frame_cfa (frame, &ops, &nops) != 0 || nops == 0)
    return *why = SFDO_UNWIND_BAD_RULE, -1;
  enum eval_result e = eval (ops, nops, r, s, 0, 0, &cfa, &is_value);
  if (e != EVAL_OK)
    return *why = stop_of (e), -1;
  struct sfdo_unwind_regs next = { { 0 }, 0 };
  for (int n = 0; n < SFDO_UNWIND_NREGS; n++)
    if (n != SFDO_UNWIND_SP
        && restore_register (frame, n, r, s, cfa, &next, why) != 0)
      return -1;
  if (!reg_known (&next, SFDO_UNWIND_PC))
    return *why = SFDO_UNWIND_OUTERMOST, 0;
  /* On x86-64 the caller's stack pointer is the CFA.  */
  next.r[SFDO_UNWIND_SP] = cfa;
  next.known |= 1u << SFDO_UNWIND_SP;
  if (cfa <= r->r[SFDO_UNWIND_SP])
    return *why = SFDO_UNWIND_NO_PROGRESS, -1;
  *r = next;
  return 1;
}

/* One frame by the frame pointer, where no CFI covers the PC: only when
   RBP points into the stack copy above the stack pointer and the return
   address there is in mapped code.  */
static int
step_frame_pointer (struct sfdo_unwinder *u, struct sfdo_unwind_regs *r,
                    const struct sfdo_unwind_stack *s,
                    enum sfdo_unwind_stop *why)
{
  uint64_t bp = r->r[DWARF_RBP], saved_bp, ret;
  struct sfdo_unwind_code code;
  if (!reg_known (r, DWARF_RBP) || bp < r->r[SFDO_UNWIND_SP]
      || !read_word (s, bp, &saved_bp) || !read_word (s, bp + 8, &ret)
      || (ret && u->locate (u->ctx, ret - 1, &code) != 0))
    return *why = SFDO_UNWIND_NO_CFI, -1;
  r->r[DWARF_RBP] = saved_bp;
  r->r[SFDO_UNWIND_SP] = bp + 16;
  r->r[SFDO_UNWIND_PC] = ret;
  r->known = 1u << DWARF_RBP | 1u << SFDO_UNWIND_SP | 1u << SFDO_UNWIND_PC;
  return ret ? 1 : (*why = SFDO_UNWIND_OUTERMOST, 0);
}

/* Step from the frame whose registers are R; EXACT_PC: R's PC is the
   instruction itself (the sampled one, or a signal frame's), not a return
   address.  */
static int
step (struct sfdo_unwinder *u, struct sfdo_unwind_regs *r,
      const struct sfdo_unwind_stack *s, int *exact_pc,
      enum sfdo_unwind_stop *why)
{
  uint64_t pc = r->r[SFDO_UNWIND_PC] - (*exact_pc ? 0 : 1), vaddr;
  struct sfdo_unwind_code code;
  if (u->locate (u->ctx, pc, &code) != 0)
    return *why = SFDO_UNWIND_NOT_MAPPED, -1;
  struct cfi_file *f = file_of (u, &code, why);
  if (!f)
    return -1;
  Dwarf_Frame *frame = vaddr_of (f, code.offset, &vaddr)
                       ? frame_at (f, vaddr) : NULL;
  if (!frame)
    {
      *exact_pc = 0;
      return step_frame_pointer (u, r, s, why);
    }
  bool signal_frame = false;
  dwarf_frame_info (frame, NULL, NULL, &signal_frame);
  int go = step_cfi (frame, r, s, why);
  free (frame);
  *exact_pc = signal_frame;
  return go;
}

size_t
sfdo_unwind (struct sfdo_unwinder *u, const struct sfdo_unwind_regs *regs,
             const struct sfdo_unwind_stack *stack, uint64_t *chain,
             size_t max, enum sfdo_unwind_stop *why)
{
  struct sfdo_unwind_regs r = *regs;
  int exact_pc = 1;
  size_t n = 0;
  *why = SFDO_UNWIND_LIMIT;
  if (!max)
    return 0;
  chain[n++] = r.r[SFDO_UNWIND_PC];
  while (n < max && step (u, &r, stack, &exact_pc, why) > 0)
    chain[n++] = r.r[SFDO_UNWIND_PC];
  if (n == max)
    *why = SFDO_UNWIND_LIMIT;
  return n;
}

int
sfdo_unwind_regs_from_perf (const struct sfdo_perfdata_regs *regs,
                            uint64_t mask, struct sfdo_unwind_regs *out)
{
  *out = (struct sfdo_unwind_regs) { { 0 }, 0 };
  if (regs->abi != PERF_SAMPLE_REGS_ABI_64 || !regs->regs)
    return -1;
  for (int n = 0; n < SFDO_UNWIND_NREGS; n++)
    {
      int bit = perf_reg_of_dwarf[n];
      if (bit < 0 || !(mask >> bit & 1))
        continue;
      /* The sampled registers are in mask bit order.  */
      unsigned idx = (unsigned) __builtin_popcountll (mask & ((1ull << bit) - 1));
      if (idx >= regs->nregs)
        continue;
      out->r[n] = regs->regs[idx];
      out->known |= 1u << n;
    }
  return reg_known (out, SFDO_UNWIND_PC) && reg_known (out, SFDO_UNWIND_SP)
         ? 0 : -1;
}
