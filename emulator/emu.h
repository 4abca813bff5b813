/* emulator/emu.h - what sfdoemu's modules share.
 *
 *   sfdoemu_main.c    the tool: options, start-up, threads, fork, exec, end
 *   emu_instrument.c  the VEX IR each superblock gets: instruction counting
 *                     by segments, the LBR ring, register capture
 *   emu_sample.c      the helpers that instrumented code calls: a sample,
 *                     the registers; per-thread counters
 *   emu_out.c         the raw stream (emu_format.h): buffering, records,
 *                     the executable mappings already described
 *
 * A Valgrind tool links no libc: only Valgrind's own VG_(...) functions.  */
#ifndef SFDO_EMULATOR_EMU_H
#define SFDO_EMULATOR_EMU_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "emu_format.h"

/* --- options ------------------------------------------------------------ */

struct emu_options {
  Long period[SFDO_EMU_NEVENTS];  /* --insn-period, --branch-period: events
                                     per sample, 0: not sampled */
  Bool jitter;                  /* --jitter: randomise each period */
  Long seed;                    /* --seed: the jitter's generator */
  Bool lbr;                     /* --lbr: 32 taken branches per sample */
  Bool regs;                    /* --regs: GPRs at the sampled instruction */
  const HChar *out_dir;         /* --out-dir: where the raw files go */
};
extern struct emu_options emu_opt;

/* --- the running thread's counters -------------------------------------- */

/* Slots in the LBR ring.  Twice the LBR's depth, so that the slot written
   next is never among the newest SFDO_EMU_LBR_ENTRIES: instrumented code
   stores a branch there unconditionally and only advances the position
   when the branch was taken.  */
#define EMU_RING 64

/* At fixed addresses, which instrumented code reads and writes directly;
   swapped with a thread's saved copy when another thread runs.  */
struct emu_live {
  Long left;                    /* instructions until the next sample */
  Long branches_left;           /* taken branches until the next sample */
  ULong taken;                  /* taken branches so far; the ring's
                                   next slot is taken % EMU_RING */
  ULong ring[2 * EMU_RING];     /* (from, to) pairs */
};
extern struct emu_live emu_live;

/* A segment: instructions run one after the other with no branch among
   them, the unit of counting.  The sample helper finds the address of the
   crossing instruction from the first address and the lengths.  */
#define EMU_SEG_MAX SFDO_EMU_SEGMENT_MAX
struct emu_seg {
  struct emu_seg *next;         /* the other segments of its superblock */
  Addr first;
  UInt n;                       /* instructions */
  UChar len[EMU_SEG_MAX];       /* their lengths (the last one unused) */
};

/* --- emu_sample.c ------------------------------------------------------- */

/* Called when a segment's instructions took emu_live.left to 0 or below:
   one sample per crossing.  */
void emu_sample_segment (const struct emu_seg *seg);
/* Called before instruction IP when it is the one that will cross: keep
   the guest's registers for that sample.  */
void emu_capture_regs (void *guest_state, Addr ip);
/* Called when the taken branch at FROM took emu_live.branches_left to 0:
   a taken-branch sample (with --regs, the _regs one).  */
void emu_sample_branch (Addr from);
void emu_sample_branch_regs (void *guest_state, Addr from);

/* Threads (Valgrind's ThreadIds).  emu_threads_start: at start-up, once
   the options are known.  */
void emu_threads_start (void);
void emu_thread_created (ThreadId parent, ThreadId child);
void emu_thread_runs (ThreadId tid);
void emu_thread_exits (ThreadId tid);
/* The process forked: only the calling thread lives on, with new
   counters and a new file.  */
void emu_threads_after_fork (ThreadId tid, Int parent_pid, Int parent_lwp);
/* Every live thread's EXIT record: at the end of the process (FLAGS 0),
   or before an exec (SFDO_EMU_EXIT_EXEC: the threads go on).  */
void emu_threads_finish (UInt flags);
/* Totals of the threads that ended so far and of the live ones.  */
void emu_threads_totals (ULong *instructions, ULong *taken);
Int emu_current_lwp (void);
ULong emu_now (void);           /* CLOCK_MONOTONIC, ns */

/* --- emu_out.c ---------------------------------------------------------- */

/* Open this process image's file in emu_opt.out_dir and write its header
   (PID.N.raw, the first N not taken).  False: said why on stderr.  */
Bool emu_out_open (Int pid);
void emu_out_flush (void);
void emu_out_close (void);
/* Forget the mappings described: a new process image.  */
void emu_out_forget_maps (void);

void emu_out_comm (Int pid, Int tid, const HChar *name);
void emu_out_fork (Int pid, Int ppid, Int tid, Int ptid);
void emu_out_exit (Int pid, Int ppid, Int tid, Int ptid, ULong instructions,
                   ULong taken, UInt flags);
/* A sample of event EV with NB branches (from, to pairs) and NR
   registers.  */
void emu_out_sample (Int pid, Int tid, UInt ev, ULong time, Addr ip,
                     ULong period, const ULong *branches, UInt nb,
                     const ULong *regs, UInt nr);
/* Describe the mapping of code at ADDR unless already done.  */
void emu_out_code_at (Addr addr);

/* --- emu_instrument.c --------------------------------------------------- */

IRSB *emu_instrument (VgCallbackClosure *closure, IRSB *sb_in,
                      const VexGuestLayout *layout,
                      const VexGuestExtents *vge,
                      const VexArchInfo *archinfo, IRType gwt, IRType hwt);
void emu_discard (Addr orig_addr, VexGuestExtents vge);

#endif
