/* emulator/emu_instrument.c - the IR that makes a superblock count its
 * instructions, take samples and keep the LBR ring (emu.h).
 *
 * Counting is by segments, the runs of instructions between a superblock's
 * side exits and its end: at the end of a segment, emu_live.left goes down
 * by the segment's length, and only when it reaches 0 or below is a helper
 * called, which works out which instruction crossed.  So the fast path is
 * a load, a subtraction, a store and a not-taken branch per segment.
 *
 * Branches are recognised in the flat IR the amd64 front end makes, with
 * superblock chasing off (one superblock is one basic block):
 *   - a side exit (Ist_Exit, jump kind Boring/Call/Ret) whose target is
 *     neither the instruction's fall-through nor, for a REP-prefixed
 *     instruction, the instruction itself (its next iteration).  The front
 *     end often inverts a conditional branch, so that the side exit goes
 *     to the fall-through and the block's end to the target: a branch is
 *     taken exactly when control reaches a target other than the
 *     fall-through;
 *   - the block's end: calls and returns always; a Boring jump to a
 *     computed address always (an indirect jump to the next instruction
 *     is still taken), to a constant address unless it is the
 *     fall-through (the block stopped at a not-taken branch or at its
 *     size limit) or a REP iteration.
 * A jmp (direct or indirect) is taken whatever its target, as VEX may fold
 * an indirect jump's register into a constant.  Not recognised: a jcc
 * whose target is its own fall-through (`jz .+2`; compilers do not emit
 * them), which VEX makes a jump to the same place either way.
 *
 * The sample check at a segment's end comes before the segment's branch
 * is recorded: a sample's LBR holds the branches taken before the sampled
 * instruction, and its registers (captured before it) are those it reads.  */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "emu.h"

/* --- the segment descriptions of each superblock ------------------------ */

/* The segments of the translations of one guest address: freed when
   Valgrind has discarded every translation that points at them.  */
struct sb_node {
  struct sb_node *next;         /* VgHashNode's fields first */
  UWord key;                    /* the superblock's (unredirected) address */
  UInt translations;
  struct emu_seg *segs;
};

static VgHashTable *sb_table;

static struct sb_node *
sb_node_for (Addr nraddr)
{
  if (!sb_table)
    sb_table = VG_(HT_construct) ("sfdoemu.superblocks");
  struct sb_node *node = VG_(HT_lookup) (sb_table, nraddr);
  if (!node)
    {
      node = VG_(calloc) ("sfdoemu.sb_node", 1, sizeof *node);
      node->key = nraddr;
      VG_(HT_add_node) (sb_table, node);
    }
  node->translations++;
  return node;
}

void
emu_discard (Addr orig_addr, VexGuestExtents vge)
{
  (void) vge;
  struct sb_node *node = sb_table ? VG_(HT_lookup) (sb_table, orig_addr)
                                  : NULL;
  if (!node || --node->translations > 0)
    return;
  VG_(HT_remove) (sb_table, orig_addr);
  for (struct emu_seg *s = node->segs, *next; s; s = next)
    {
      next = s->next;
      VG_(free) (s);
    }
  VG_(free) (node);
}

/* --- building IR ------------------------------------------------------- */

struct builder {
  IRSB *out;
  struct sb_node *node;
  struct emu_seg *seg;          /* the open segment, or NULL */
  IRTemp left0;                 /* emu_live.left at its start (--regs) */
  Addr last_addr;               /* the latest instruction */
  UInt last_len;
  Bool have_insn;
};

static IRExpr *
at (const void *p)
{
  return mkIRExpr_HWord ((HWord) p);
}

static IRExpr *
u64 (ULong v)
{
  return IRExpr_Const (IRConst_U64 (v));
}

static IRExpr *
tmp (IRTemp t)
{
  return IRExpr_RdTmp (t);
}

/* A new temporary of type TY holding E.  */
static IRTemp
assign (struct builder *b, IRType ty, IRExpr *e)
{
  IRTemp t = newIRTemp (b->out->tyenv, ty);
  addStmtToIRSB (b->out, IRStmt_WrTmp (t, e));
  return t;
}

static IRTemp
load64 (struct builder *b, const void *p)
{
  return assign (b, Ity_I64, IRExpr_Load (Iend_LE, Ity_I64, at (p)));
}

static void
store (struct builder *b, IRExpr *addr, IRExpr *data)
{
  addStmtToIRSB (b->out, IRStmt_Store (Iend_LE, addr, data));
}

/* A call of helper FN (NAME in IR dumps) with ARGS when GUARD (an I1
   temporary) is true.  READS_GPRS: it reads RAX..R15 from the guest
   state, which VEX must then bring up to date before the call.  */
static void
call_if (struct builder *b, IRTemp guard, const HChar *name, void *fn,
         IRExpr **args, Bool reads_gprs)
{
  IRDirty *d = unsafeIRDirty_0_N (0, name, VG_(fnptr_to_fnentry) (fn), args);
  d->guard = tmp (guard);
  if (reads_gprs)
    {
      d->nFxState = 1;
      d->fxState[0].fx = Ifx_Read;
      d->fxState[0].offset = __builtin_offsetof (VexGuestAMD64State,
                                                 guest_RAX);
      d->fxState[0].size = 16 * sizeof (ULong);
      d->fxState[0].nRepeats = 0;
      d->fxState[0].repeatLen = 0;
    }
  addStmtToIRSB (b->out, IRStmt_Dirty (d));
}

/* --- segments ----------------------------------------------------------- */

static void
open_segment (struct builder *b, Addr first)
{
  struct emu_seg *s = VG_(calloc) ("sfdoemu.seg", 1, sizeof *s);
  s->first = first;
  s->next = b->node->segs;
  b->node->segs = s;
  b->seg = s;
  if (emu_opt.regs)
    b->left0 = load64 (b, &emu_live.left);
}

/* Count the instruction at ADDR (LEN bytes) in the open segment, after its
   IMark.  With --regs, capture the registers before it if it is the one
   that takes emu_live.left to 0.  */
static void
count_insn (struct builder *b, Addr addr, UInt len)
{
  b->last_addr = addr;
  b->last_len = len;
  b->have_insn = True;
  struct emu_seg *s = b->seg;
  if (emu_opt.regs)
    {
      IRTemp crosses = assign (b, Ity_I1, IRExpr_Binop (Iop_CmpEQ64,
                                                        tmp (b->left0),
                                                        u64 (s->n + 1)));
      call_if (b, crosses, "emu_capture_regs", emu_capture_regs,
               mkIRExprVec_2 (IRExpr_GSPTR (), at ((void *) addr)), True);
    }
  s->len[s->n++] = len > 255 ? 255 : (UChar) len;
}

/* End the open segment: count its instructions, sample if they crossed.  */
static void
close_segment (struct builder *b)
{
  struct emu_seg *s = b->seg;
  b->seg = NULL;
  if (!s || !s->n)
    return;
  IRTemp before = emu_opt.regs ? b->left0 : load64 (b, &emu_live.left);
  IRTemp after = assign (b, Ity_I64, IRExpr_Binop (Iop_Sub64, tmp (before),
                                                   u64 (s->n)));
  store (b, at (&emu_live.left), tmp (after));
  IRTemp crossed = assign (b, Ity_I1, IRExpr_Binop (Iop_CmpLE64S, tmp (after),
                                                    u64 (0)));
  call_if (b, crossed, "emu_sample_segment", emu_sample_segment,
           mkIRExprVec_1 (at (s)), False);
}

/* --- branches ----------------------------------------------------------- */

static Bool
is_prefix (UChar c)
{
  return c == 0x66 || c == 0x67 || c == 0xf0 || c == 0xf2 || c == 0xf3
         || c == 0x2e || c == 0x3e || c == 0x26 || c == 0x36 || c == 0x64
         || c == 0x65 || (c & 0xf0) == 0x40;
}

/* The number of prefix bytes of the instruction at ADDR (LEN bytes); *REP
   says whether one is REP or REPNE.  */
static UInt
prefixes (Addr addr, UInt len, Bool *rep)
{
  const UChar *p = (const UChar *) addr;
  UInt i = 0;
  *rep = False;
  for (; i + 1 < len && is_prefix (p[i]); i++)
    if (p[i] == 0xf2 || p[i] == 0xf3)
      *rep = True;
  return i;
}

/* Whether the instruction at ADDR is an unconditional jmp, direct or
   indirect: taken even to its own fall-through (VEX folds `lea next, %rdx;
   jmp *%rdx` into a constant next address).  */
static Bool
is_jmp (Addr addr, UInt len)
{
  const UChar *p = (const UChar *) addr;
  Bool rep;
  UInt i = prefixes (addr, len, &rep);
  if (p[i] == 0xeb || p[i] == 0xe9)
    return True;
  UInt reg = i + 1 < len ? (p[i + 1] >> 3) & 7 : 0;
  return p[i] == 0xff && (reg == 4 || reg == 5);
}

/* Whether going to DST from the latest instruction is a taken branch:
   not to its fall-through (unless it is a jmp), not to itself when it is
   a REP-prefixed instruction (its next iteration).  */
static Bool
taken_to (const struct builder *b, Addr dst)
{
  if (dst == b->last_addr + b->last_len)
    return is_jmp (b->last_addr, b->last_len);
  Bool rep;
  prefixes (b->last_addr, b->last_len, &rep);
  return !(dst == b->last_addr && rep);
}

static Bool
branch_kind (IRJumpKind jk)
{
  return jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret;
}

/* Count down to the next taken-branch sample by INC (an I64 temporary,
   or IRTemp_INVALID for 1), and take it when due.  */
static void
branch_countdown (struct builder *b, IRTemp inc)
{
  IRTemp left = load64 (b, &emu_live.branches_left);
  IRTemp after = assign (b, Ity_I64, IRExpr_Binop (Iop_Sub64, tmp (left),
                                                   inc == IRTemp_INVALID
                                                   ? u64 (1) : tmp (inc)));
  store (b, at (&emu_live.branches_left), tmp (after));
  IRTemp due = assign (b, Ity_I1, IRExpr_Binop (Iop_CmpLE64S, tmp (after),
                                                u64 (0)));
  if (emu_opt.regs)
    call_if (b, due, "emu_sample_branch_regs", emu_sample_branch_regs,
             mkIRExprVec_2 (IRExpr_GSPTR (), at ((void *) b->last_addr)),
             True);
  else
    call_if (b, due, "emu_sample_branch", emu_sample_branch,
             mkIRExprVec_1 (at ((void *) b->last_addr)), False);
}

/* Count a branch from the latest instruction to TO (an atom), taken when
   GUARD (an I1 atom; NULL: always), and with --lbr put it in the ring;
   then the taken-branch sample, if due, sees it in the LBR.  The ring's
   slot is written whether or not the branch is taken: only the position
   says what is in the LBR.  */
static void
record_branch (struct builder *b, IRExpr *guard, IRExpr *to)
{
  IRTemp pos = load64 (b, &emu_live.taken);
  if (emu_opt.lbr)
    {
      IRTemp slot = assign (b, Ity_I64, IRExpr_Binop (Iop_And64, tmp (pos),
                                                      u64 (EMU_RING - 1)));
      IRTemp off = assign (b, Ity_I64, IRExpr_Binop (Iop_Shl64, tmp (slot),
                                                     IRExpr_Const
                                                       (IRConst_U8 (4))));
      IRTemp ea = assign (b, Ity_I64, IRExpr_Binop (Iop_Add64,
                                                    at (emu_live.ring),
                                                    tmp (off)));
      IRTemp ea_to = assign (b, Ity_I64, IRExpr_Binop (Iop_Add64, tmp (ea),
                                                       u64 (8)));
      store (b, tmp (ea), u64 (b->last_addr));
      store (b, tmp (ea_to), to);
    }
  IRTemp inc = guard ? assign (b, Ity_I64, IRExpr_Unop (Iop_1Uto64, guard))
                     : IRTemp_INVALID;
  IRTemp next = assign (b, Ity_I64, IRExpr_Binop (Iop_Add64, tmp (pos),
                                                  inc == IRTemp_INVALID
                                                  ? u64 (1) : tmp (inc)));
  store (b, at (&emu_live.taken), tmp (next));
  if (emu_opt.period[SFDO_EMU_EV_TAKEN_BRANCHES])
    branch_countdown (b, inc);
}

/* A side exit: the segment before it ends here; a branch when it jumps
   elsewhere than the fall-through.  */
static void
side_exit (struct builder *b, IRStmt *st)
{
  close_segment (b);
  Addr dst = st->Ist.Exit.dst->Ico.U64;
  if (b->have_insn && branch_kind (st->Ist.Exit.jk) && taken_to (b, dst))
    record_branch (b, deepCopyIRExpr (st->Ist.Exit.guard), u64 (dst));
  addStmtToIRSB (b->out, st);
}

/* The block's end: the last segment, and the branch it ends with.  */
static void
block_end (struct builder *b, const IRSB *in)
{
  close_segment (b);
  if (!b->have_insn)
    return;
  IRJumpKind jk = in->jumpkind;
  IRExpr *next = in->next;
  Bool taken = jk == Ijk_Call || jk == Ijk_Ret;
  if (jk == Ijk_Boring)
    taken = next->tag != Iex_Const || taken_to (b, next->Iex.Const.con->Ico.U64);
  if (taken)
    record_branch (b, NULL, deepCopyIRExpr (next));
}

/* --- the instrumentation pass ----------------------------------------- */

IRSB *
emu_instrument (VgCallbackClosure *closure, IRSB *sb_in,
                const VexGuestLayout *layout, const VexGuestExtents *vge,
                const VexArchInfo *archinfo, IRType gwt, IRType hwt)
{
  (void) layout;
  (void) archinfo;
  tl_assert (gwt == Ity_I64 && hwt == Ity_I64);
  for (UInt i = 0; i < vge->n_used; i++)
    emu_out_code_at ((Addr) vge->base[i]);
  struct builder b = { deepCopyIRSBExceptStmts (sb_in), NULL, NULL,
                       IRTemp_INVALID, 0, 0, False };
  b.node = sb_node_for (closure->nraddr);
  for (Int i = 0; i < sb_in->stmts_used; i++)
    {
      IRStmt *st = sb_in->stmts[i];
      if (!st || st->tag == Ist_NoOp)
        continue;
      switch (st->tag)
        {
        case Ist_IMark:
          /* A segment's addresses are worked out from its lengths.  */
          if (b.seg && (b.seg->n == EMU_SEG_MAX
                        || st->Ist.IMark.addr != b.last_addr + b.last_len))
            close_segment (&b);
          if (!b.seg)
            open_segment (&b, (Addr) st->Ist.IMark.addr);
          addStmtToIRSB (b.out, st);
          count_insn (&b, (Addr) st->Ist.IMark.addr, st->Ist.IMark.len);
          break;
        case Ist_Exit:
          side_exit (&b, st);
          break;
        default:
          addStmtToIRSB (b.out, st);
          break;
        }
    }
  block_end (&b, sb_in);
  return b.out;
}
