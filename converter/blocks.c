/* converter/blocks.c - basic blocks by linear-sweep decoding (Capstone).  */
#include "blocks.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"

struct sfdo_decoder {
  csh handle;
  cs_insn *insn;
};

enum sfdo_errc
sfdo_decoder_new (unsigned machine, struct sfdo_decoder **out,
                  struct sfdo_error *err)
{
  *out = NULL;
  if (machine != 62)
    return sfdo_error_set (err, SFDO_E_USAGE, NULL, SFDO_NO_OFFSET, 0, 0,
                           "cannot decode instructions of ELF machine %u: "
                           "only x86-64 is supported", machine);
  struct sfdo_decoder *d = (struct sfdo_decoder *) sfdo_xcalloc (1, sizeof *d);
  if (cs_open (CS_ARCH_X86, CS_MODE_64, &d->handle) != CS_ERR_OK)
    {
      free (d);
      return sfdo_error_set (err, SFDO_E_NOMEM, NULL, SFDO_NO_OFFSET, 0, 0,
                             "cannot start the Capstone decoder");
    }
  cs_option (d->handle, CS_OPT_DETAIL, CS_OPT_ON);
  d->insn = cs_malloc (d->handle);
  *out = d;
  return SFDO_OK;
}

void
sfdo_decoder_free (struct sfdo_decoder *d)
{
  if (!d)
    return;
  cs_free (d->insn, 1);
  cs_close (&d->handle);
  free (d);
}

static int
ends_block (csh h, const cs_insn *insn)
{
  return cs_insn_group (h, insn, CS_GRP_JUMP)
         || cs_insn_group (h, insn, CS_GRP_RET)
         || cs_insn_group (h, insn, CS_GRP_IRET)
         || cs_insn_group (h, insn, CS_GRP_INT);
}

static uint8_t
insn_kind (csh h, const cs_insn *insn)
{
  if (cs_insn_group (h, insn, CS_GRP_CALL))
    return SFDO_INSN_CALL;
  if (cs_insn_group (h, insn, CS_GRP_JUMP))
    return insn->id == X86_INS_JMP || insn->id == X86_INS_LJMP
           ? SFDO_INSN_JUMP : SFDO_INSN_CJUMP;
  if (cs_insn_group (h, insn, CS_GRP_RET))
    return SFDO_INSN_RET;
  return SFDO_INSN_OTHER;
}

/* Whether INSN does nothing (the assembler's alignment fillers: nop in
   its one- to fifteen-byte forms, xchg of a register with itself).  */
static int
is_no_op (const cs_insn *insn)
{
  const cs_x86 *x = insn->detail ? &insn->detail->x86 : NULL;
  if (insn->id == X86_INS_NOP)
    return 1;
  return x && insn->id == X86_INS_XCHG && x->op_count == 2
         && x->operands[0].type == X86_OP_REG
         && x->operands[1].type == X86_OP_REG
         && x->operands[0].reg == x->operands[1].reg;
}

/* The target of a direct jump or call (as GROUP says), or 0.  */
static uint64_t
direct_target (csh h, const cs_insn *insn, int group)
{
  if (!cs_insn_group (h, insn, group) || !insn->detail
      || insn->detail->x86.op_count != 1
      || insn->detail->x86.operands[0].type != X86_OP_IMM)
    return 0;
  return (uint64_t) insn->detail->x86.operands[0].imm;
}


/* Split the decoded instructions of FB into blocks at LEADERS (sorted).  */
static void
make_blocks (struct sfdo_func_blocks *fb, const uint64_t *leaders,
             size_t nleaders)
{
  size_t cap = 0, l = 0;
  for (size_t i = 0; i < fb->ninsns; i++)
    {
      uint64_t a = fb->insn_addrs[i];
      while (l < nleaders && leaders[l] < a)
        l++;
      int starts = i == 0 || (l < nleaders && leaders[l] == a);
      if (starts)
        {
          sfdo_xgrow (&fb->blocks, &cap, fb->nblocks + 1, sizeof *fb->blocks);
          fb->blocks[fb->nblocks++]
            = (struct sfdo_block) { a, a, (uint32_t) i, 0, 0 };
        }
      struct sfdo_block *b = &fb->blocks[fb->nblocks - 1];
      b->ninsns++;
      b->nrun += !fb->padding[i];
      b->end = i + 1 < fb->ninsns ? fb->insn_addrs[i + 1] : fb->hi;
    }
}

void
sfdo_decode_function (struct sfdo_decoder *d, const uint8_t *code,
                      size_t len, uint64_t lo, uint64_t hi,
                      struct sfdo_func_blocks *out)
{
  memset (out, 0, sizeof *out);
  out->lo = lo;
  out->hi = hi;
  if (hi > lo && hi - lo < len)
    len = (size_t) (hi - lo);
  /* At most one instruction per byte and two leaders per instruction.  */
  size_t nleaders = 0;
  uint64_t *leaders = (uint64_t *) sfdo_xmalloc ((2 * len + 1) * sizeof *leaders);
  out->insn_addrs = (uint64_t *) sfdo_xmalloc ((len + 1) * sizeof (uint64_t));
  out->call_targets = (uint64_t *) sfdo_xmalloc ((len + 1) * sizeof (uint64_t));
  out->jump_targets = (uint64_t *) sfdo_xmalloc ((len + 1) * sizeof (uint64_t));
  out->kinds = (uint8_t *) sfdo_xmalloc (len + 1);
  out->padding = (uint8_t *) sfdo_xmalloc (len + 1);
  const uint8_t *p = code;
  size_t left = len;
  uint64_t addr = lo;
  while (left)
    {
      int ok = cs_disasm_iter (d->handle, &p, &left, &addr, d->insn);
      size_t i = out->ninsns++;
      out->insn_addrs[i] = ok ? d->insn->address : addr;
      out->kinds[i] = ok ? insn_kind (d->handle, d->insn) : SFDO_INSN_OTHER;
      /* The line table gives padding the line of the code before it, and
         a vote of its zero count would make that line look unrun.  */
      out->padding[i] = ok && i > 0 && is_no_op (d->insn)
                        && (out->padding[i - 1]
                            || out->kinds[i - 1] == SFDO_INSN_JUMP
                            || out->kinds[i - 1] == SFDO_INSN_RET);
      out->call_targets[i]
        = ok ? direct_target (d->handle, d->insn, CS_GRP_CALL) : 0;
      uint64_t target = ok ? direct_target (d->handle, d->insn, CS_GRP_JUMP)
                           : 0;
      out->jump_targets[i] = target;
      int split = !ok || ends_block (d->handle, d->insn);
      if (!ok)
        p++, left--, addr++;
      if (split)
        leaders[nleaders++] = addr;
      if (target >= lo && target < hi)
        leaders[nleaders++] = target;
    }
  sfdo_sort_u64 (leaders, nleaders);
  make_blocks (out, leaders, nleaders);
  free (leaders);
}

void
sfdo_func_blocks_release (struct sfdo_func_blocks *fb)
{
  free (fb->insn_addrs);
  free (fb->call_targets);
  free (fb->jump_targets);
  free (fb->kinds);
  free (fb->padding);
  free (fb->blocks);
  memset (fb, 0, sizeof *fb);
}

ptrdiff_t
sfdo_func_blocks_find (const struct sfdo_func_blocks *fb, uint64_t addr)
{
  size_t lo = 0, hi = fb->nblocks;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fb->blocks[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || addr >= fb->blocks[lo - 1].end)
    return -1;
  return (ptrdiff_t) lo - 1;
}

size_t
sfdo_func_blocks_insn_from (const struct sfdo_func_blocks *fb, uint64_t addr)
{
  size_t lo = 0, hi = fb->ninsns;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fb->insn_addrs[mid] < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

ptrdiff_t
sfdo_func_blocks_insn (const struct sfdo_func_blocks *fb, uint64_t addr)
{
  size_t i = sfdo_func_blocks_insn_from (fb, addr);
  return i < fb->ninsns && fb->insn_addrs[i] == addr ? (ptrdiff_t) i : -1;
}

/* --- Single instructions, for value profiling ------------------------------- */

/* perf's x86-64 user register number of Capstone register R, or -1.  */
static int
perf_reg (unsigned r)
{
  switch (r)
    {
    case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL:
    case X86_REG_AH: return 0;
    case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL:
    case X86_REG_BH: return 1;
    case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL:
    case X86_REG_CH: return 2;
    case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL:
    case X86_REG_DH: return 3;
    case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
      return 4;
    case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
      return 5;
    case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:
      return 6;
    case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
      return 7;
    default:
      break;
    }
  static const unsigned r8[8][4] = {
    { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B },
    { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B },
    { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B },
    { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B },
    { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B },
    { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B },
    { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B },
    { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B },
  };
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 4; k++)
      if (r8[i][k] == r)
        return 16 + i;
  return -1;
}

static void
note_division (const cs_insn *insn, struct sfdo_insn_info *out)
{
  const cs_x86 *x = &insn->detail->x86;
  if ((insn->id != X86_INS_DIV && insn->id != X86_INS_IDIV) || x->op_count != 1
      || x->operands[0].type != X86_OP_REG)
    return;
  int r = perf_reg (x->operands[0].reg);
  if (r < 0)
    return;
  out->div_reg = (int8_t) r;
  out->div_width = x->operands[0].size;
  out->div_signed = insn->id == X86_INS_IDIV;
}

/* An indirect call or jump through a register: its perf number, else
   -1.  */
static int
target_register (csh h, const cs_insn *insn)
{
  const cs_x86 *x = &insn->detail->x86;
  if ((!cs_insn_group (h, insn, CS_GRP_CALL)
       && !cs_insn_group (h, insn, CS_GRP_JUMP))
      || x->op_count != 1 || x->operands[0].type != X86_OP_REG)
    return -1;
  return perf_reg (x->operands[0].reg);
}

/* An indirect call or jump through memory at DISP(BASE), without index or
   segment, BASE not the instruction pointer: BASE's perf number into
   *BASE and DISP into *DISP; *BASE is -1 otherwise.  */
static void
target_in_memory (csh h, const cs_insn *insn, int8_t *base, int32_t *disp)
{
  const cs_x86 *x = &insn->detail->x86;
  *base = -1;
  if ((!cs_insn_group (h, insn, CS_GRP_CALL)
       && !cs_insn_group (h, insn, CS_GRP_JUMP))
      || x->op_count != 1 || x->operands[0].type != X86_OP_MEM
      || x->operands[0].mem.index != X86_REG_INVALID
      || x->operands[0].mem.segment != X86_REG_INVALID
      || x->operands[0].mem.base == X86_REG_RIP
      || x->operands[0].mem.disp < INT32_MIN
      || x->operands[0].mem.disp > INT32_MAX)
    return;
  *base = (int8_t) perf_reg (x->operands[0].mem.base);
  *disp = (int32_t) x->operands[0].mem.disp;
}

/* A 64-bit move between registers: the source's perf number, else -1.  */
static int
move_source (const cs_insn *insn)
{
  const cs_x86 *x = &insn->detail->x86;
  if (insn->id != X86_INS_MOV || x->op_count != 2
      || x->operands[0].type != X86_OP_REG || x->operands[1].type != X86_OP_REG
      || x->operands[0].size != 8)
    return -1;
  return perf_reg (x->operands[1].reg);
}

/* A register cleared whole: xor or sub of a 32- or 64-bit register with
   itself, or a move of 0 into one (GCC clears rdx so before an unsigned
   division, -O2 and -O1 respectively): its perf number, else -1.  */
static int
zeroed_register (const cs_insn *insn)
{
  const cs_x86 *x = &insn->detail->x86;
  if (x->op_count != 2 || x->operands[0].type != X86_OP_REG
      || x->operands[0].size < 4)
    return -1;
  const cs_x86_op *src = &x->operands[1];
  int self = (insn->id == X86_INS_XOR || insn->id == X86_INS_SUB)
             && src->type == X86_OP_REG && src->reg == x->operands[0].reg;
  int move_zero = insn->id == X86_INS_MOV && src->type == X86_OP_IMM
                  && src->imm == 0;
  return self || move_zero ? perf_reg (x->operands[0].reg) : -1;
}

void
sfdo_decode_one (struct sfdo_decoder *d, const uint8_t *code, size_t len,
                 uint64_t addr, struct sfdo_insn_info *out)
{
  memset (out, 0, sizeof *out);
  out->div_reg = -1;
  out->target_reg = -1;
  out->target_base = -1;
  out->move_from = -1;
  out->zeroes = -1;
  const uint8_t *p = code;
  if (!cs_disasm_iter (d->handle, &p, &len, &addr, d->insn))
    return;
  out->size = (uint8_t) d->insn->size;
  out->kind = insn_kind (d->handle, d->insn);
  out->call_target = direct_target (d->handle, d->insn, CS_GRP_CALL);
  out->jump_target = direct_target (d->handle, d->insn, CS_GRP_JUMP);
  note_division (d->insn, out);
  out->target_reg = (int8_t) target_register (d->handle, d->insn);
  out->move_from = (int8_t) move_source (d->insn);
  out->zeroes = (int8_t) zeroed_register (d->insn);
  target_in_memory (d->handle, d->insn, &out->target_base, &out->target_disp);
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (cs_regs_access (d->handle, d->insn, read, &nread, written, &nwritten)
      == CS_ERR_OK)
    for (uint8_t i = 0; i < nwritten; i++)
      {
        int r = perf_reg (written[i]);
        if (r >= 0)
          out->writes |= 1u << r;
      }
}
