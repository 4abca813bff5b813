/* emulator/emu_sample.c - samples, registers and per-thread counters
 * (emu.h).
 *
 * Valgrind runs one guest thread at a time, so the running thread's
 * counters live in emu_live, where instrumented code finds them at fixed
 * addresses; every other thread's wait in its struct thread.  Each thread
 * counts its own instructions and keeps its own LBR, as a hardware
 * counter opened per task does.
 *
 * Periods: the base, or with --jitter=yes a new draw after every sample
 * from recorder/jitter.h (the hardware path's generator and spread).  The
 * hardware path draws once per drain of up to 64 samples, an ioctl each
 * time; here a draw is free, and without a PMU's skid a period kept for
 * 64 samples would put them all on one instruction of a loop whose length
 * divides it.  */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"

#include "../recorder/jitter.h"
#include "emu.h"

struct emu_live emu_live;

struct thread {
  Bool started;                 /* has run: its lwp is known */
  Int lwp, parent_lwp;
  struct emu_live saved;        /* its counters while another thread runs */
  ULong period[SFDO_EMU_NEVENTS];  /* the periods in force */
  ULong consumed;               /* instructions of the periods completed */
  ULong taken_base;             /* taken branches before it (a fork) */
  Bool have_regs;               /* regs hold the registers before regs_ip */
  Addr regs_ip;
  ULong regs[SFDO_EMU_NREGS];
};

static struct thread **threads;  /* by ThreadId */
static ThreadId running;          /* whose counters emu_live holds; 0: none */
static Int pid;
static uint64_t rng = 1;     /* the jitter's xorshift state */
static ULong ended_insns, ended_taken;

ULong
emu_now (void)
{
  struct vki_timespec ts;
  VG_(clock_gettime) (&ts, VKI_CLOCK_MONOTONIC);
  return (ULong) ts.tv_sec * 1000000000ull + (ULong) ts.tv_nsec;
}

/* Never reached: an event that is not sampled still counts down.  */
#define NEVER (1ull << 62)

static ULong
next_period (UInt ev)
{
  ULong base = (ULong) emu_opt.period[ev];
  if (!base)
    return NEVER;
  return emu_opt.jitter ? sfdo_jitter_next (base, &rng) : base;
}

void
emu_threads_start (void)
{
  pid = VG_(getpid) ();
  rng = (ULong) emu_opt.seed ^ ((ULong) pid * 0x9e3779b97f4a7c15ull);
  if (!rng)
    rng = 1;
  threads = VG_(calloc) ("sfdoemu.threads", VG_N_THREADS + 1,
                         sizeof *threads);
}

/* Fresh counters for T: a new period, no instructions yet.  */
static void
restart (struct thread *t, struct emu_live *live)
{
  for (UInt ev = 0; ev < SFDO_EMU_NEVENTS; ev++)
    t->period[ev] = next_period (ev);
  t->consumed = 0;
  t->taken_base = live->taken;
  t->have_regs = False;
  live->left = (Long) t->period[SFDO_EMU_EV_INSTRUCTIONS];
  live->branches_left = (Long) t->period[SFDO_EMU_EV_TAKEN_BRANCHES];
}

static struct thread *
thread_of (ThreadId tid)
{
  tl_assert (tid > 0 && tid <= VG_N_THREADS);
  if (!threads[tid])
    {
      struct thread *t = VG_(calloc) ("sfdoemu.thread", 1, sizeof *t);
      t->parent_lwp = pid;
      restart (t, &t->saved);
      threads[tid] = t;
    }
  return threads[tid];
}

Int
emu_current_lwp (void)
{
  return running && threads[running] ? threads[running]->lwp : pid;
}

static struct emu_live *
live_of (ThreadId tid)
{
  return tid == running ? &emu_live : &threads[tid]->saved;
}

/* --- thread events ------------------------------------------------------ */

void
emu_thread_created (ThreadId parent, ThreadId child)
{
  if (threads[child])
    emu_thread_exits (child);   /* a slot reused without an exit seen */
  struct thread *t = thread_of (child);
  t->parent_lwp = threads[parent] ? threads[parent]->lwp : pid;
}

void
emu_thread_runs (ThreadId tid)
{
  if (tid == running)
    return;
  struct thread *t = thread_of (tid);
  if (running && threads[running])
    threads[running]->saved = emu_live;
  emu_live = t->saved;
  running = tid;
  if (!t->started)
    {
      t->started = True;
      t->lwp = VG_(gettid) ();
      if (t->lwp != pid)
        emu_out_fork (pid, pid, t->lwp, t->parent_lwp);
    }
}

static void
counts_of (ThreadId tid, ULong *insns, ULong *taken)
{
  const struct thread *t = threads[tid];
  const struct emu_live *live = live_of (tid);
  *insns = t->consumed + t->period[SFDO_EMU_EV_INSTRUCTIONS]
           - (ULong) live->left;
  *taken = live->taken - t->taken_base;
}

static void
report_counts (ThreadId tid, UInt flags)
{
  const struct thread *t = threads[tid];
  ULong insns, taken;
  counts_of (tid, &insns, &taken);
  if (t->started)
    emu_out_exit (pid, pid, t->lwp, t->parent_lwp, insns, taken, flags);
}

void
emu_thread_exits (ThreadId tid)
{
  struct thread *t = threads[tid];
  if (!t)
    return;
  report_counts (tid, 0);
  ULong insns, taken;
  counts_of (tid, &insns, &taken);
  ended_insns += insns;
  ended_taken += taken;
  VG_(free) (t);
  threads[tid] = NULL;
  if (running == tid)
    running = 0;
}

void
emu_threads_finish (UInt flags)
{
  for (ThreadId tid = 1; tid <= VG_N_THREADS; tid++)
    if (threads[tid] && flags)
      report_counts (tid, flags);
    else
      emu_thread_exits (tid);
}

void
emu_threads_totals (ULong *instructions, ULong *taken)
{
  *instructions = ended_insns;
  *taken = ended_taken;
  for (ThreadId tid = 1; tid <= VG_N_THREADS; tid++)
    if (threads[tid])
      {
        ULong i, t;
        counts_of (tid, &i, &t);
        *instructions += i;
        *taken += t;
      }
}

void
emu_threads_after_fork (ThreadId tid, Int parent_pid, Int parent_lwp)
{
  for (ThreadId other = 1; other <= VG_N_THREADS; other++)
    if (other != tid && threads[other])
      {
        VG_(free) (threads[other]);   /* the parent's; not in this process */
        threads[other] = NULL;
      }
  pid = VG_(getpid) ();
  rng ^= (ULong) pid * 0x9e3779b97f4a7c15ull;
  if (!rng)
    rng = 1;
  ended_insns = ended_taken = 0;
  emu_thread_runs (tid);
  struct thread *t = threads[tid];
  restart (t, &emu_live);
  t->lwp = VG_(gettid) ();
  t->parent_lwp = parent_lwp;
  emu_out_fork (pid, parent_pid, t->lwp, parent_lwp);
}

/* --- the helpers instrumented code calls ------------------------------- */

/* Sample event EV of thread T at IP, with REGS (NULL: none).  The LBR
   goes with taken-branch samples, or with instruction samples when
   taken branches are not sampled.  */
static void
take_sample (struct thread *t, UInt ev, Addr ip, const ULong *regs)
{
  ULong branches[2 * SFDO_EMU_LBR_ENTRIES];
  UInt nb = 0;
  if (emu_opt.lbr && (ev == SFDO_EMU_EV_TAKEN_BRANCHES
                      || !emu_opt.period[SFDO_EMU_EV_TAKEN_BRANCHES]))
    {
      ULong since = emu_live.taken - t->taken_base;
      nb = since < SFDO_EMU_LBR_ENTRIES ? (UInt) since : SFDO_EMU_LBR_ENTRIES;
      for (UInt j = 0; j < nb; j++)
        {
          ULong slot = (emu_live.taken - 1 - j) % EMU_RING;
          branches[2 * j] = emu_live.ring[2 * slot];
          branches[2 * j + 1] = emu_live.ring[2 * slot + 1];
        }
    }
  emu_out_sample (pid, t->lwp, ev, emu_now (), ip, t->period[ev], branches,
                  nb, regs, regs ? SFDO_EMU_NREGS : 0);
}

void
emu_sample_segment (const struct emu_seg *seg)
{
  struct thread *t = running ? threads[running] : NULL;
  if (!t)
    return;
  const UInt ev = SFDO_EMU_EV_INSTRUCTIONS;
  while (emu_live.left <= 0)
    {
      Long k = (Long) seg->n + emu_live.left - 1;  /* the one that crossed */
      if (k < 0)
        k = 0;
      Addr ip = seg->first;
      for (Long i = 0; i < k; i++)
        ip += seg->len[i];
      Bool regs = t->have_regs && t->regs_ip == ip;
      t->have_regs = False;
      take_sample (t, ev, ip, regs ? t->regs : NULL);
      t->consumed += t->period[ev];
      t->period[ev] = next_period (ev);
      emu_live.left += (Long) t->period[ev];
    }
}

/* The general-purpose registers of GUEST_STATE, with IP, in perf's order
   (perf_regs.h): AX BX CX DX SI DI BP SP IP R8..R15.  */
static void
gprs (const void *guest_state, Addr ip, ULong regs[SFDO_EMU_NREGS])
{
  const VexGuestAMD64State *g = guest_state;
  const ULong r[SFDO_EMU_NREGS] = {
    g->guest_RAX, g->guest_RBX, g->guest_RCX, g->guest_RDX, g->guest_RSI,
    g->guest_RDI, g->guest_RBP, g->guest_RSP, ip, g->guest_R8, g->guest_R9,
    g->guest_R10, g->guest_R11, g->guest_R12, g->guest_R13, g->guest_R14,
    g->guest_R15
  };
  VG_(memcpy) (regs, r, sizeof r);
}

void
emu_capture_regs (void *guest_state, Addr ip)
{
  struct thread *t = running ? threads[running] : NULL;
  if (!t)
    return;
  gprs (guest_state, ip, t->regs);
  t->regs_ip = ip;
  t->have_regs = True;
}

static void
branch_sample (Addr from, const ULong *regs)
{
  struct thread *t = running ? threads[running] : NULL;
  if (!t)
    return;
  const UInt ev = SFDO_EMU_EV_TAKEN_BRANCHES;
  while (emu_live.branches_left <= 0)
    {
      take_sample (t, ev, from, regs);
      t->period[ev] = next_period (ev);
      emu_live.branches_left += (Long) t->period[ev];
    }
}

void
emu_sample_branch (Addr from)
{
  branch_sample (from, NULL);
}

void
emu_sample_branch_regs (void *guest_state, Addr from)
{
  ULong regs[SFDO_EMU_NREGS];
  gprs (guest_state, from, regs);
  branch_sample (from, regs);
}
