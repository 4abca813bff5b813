/* emulator/sfdoemu_main.c - sfdoemu, a Valgrind tool that emulates a PMU:
 * retired instructions sampled every N, taken branches, a 32-entry LBR
 * and the general-purpose registers at each sample, per thread, written
 * as the raw stream of emu_format.h for sfdo-record --emulate to turn
 * into a perf.data (see README.md).
 *
 * This file: options, start-up, the hooks into Valgrind's core (threads,
 * fork, exec), and the end.  */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"

#include "emu.h"

struct emu_options emu_opt = {
  .period = { 100003, 0 }, .jitter = True, .seed = 1, .lbr = False,
  .regs = False, .out_dir = NULL
};

/* What sfdo-record looks for in this file to check that the installed
   Valgrind is the version the tool's core was built from.  */
__attribute__ ((used)) static const char built_for[]
  = "sfdoemu-valgrind-version=" SFDO_EMU_VALGRIND_VERSION;

/* --- options ------------------------------------------------------------ */

static Bool
process_option (const HChar *arg)
{
  if VG_BINT_CLO (arg, "--insn-period", emu_opt.period[SFDO_EMU_EV_INSTRUCTIONS],
                  0, 1ll << 62) {}
  else if VG_BINT_CLO (arg, "--branch-period",
                       emu_opt.period[SFDO_EMU_EV_TAKEN_BRANCHES], 0,
                       1ll << 62) {}
  else if VG_BOOL_CLO (arg, "--jitter", emu_opt.jitter) {}
  else if VG_BINT_CLO (arg, "--seed", emu_opt.seed, 0, 0x7fffffffffffffffll) {}
  else if VG_BOOL_CLO (arg, "--lbr", emu_opt.lbr) {}
  else if VG_BOOL_CLO (arg, "--regs", emu_opt.regs) {}
  else if VG_STR_CLO (arg, "--out-dir", emu_opt.out_dir) {}
  else
    return False;
  return True;
}

static void
print_usage (void)
{
  VG_(printf) (
    "    --out-dir=DIR      write the raw stream into DIR/PID.N.raw [required]\n"
    "    --insn-period=N    sample every N retired instructions, 0: never [100003]\n"
    "    --branch-period=N  sample every N taken branches, 0: never [0]\n"
    "    --jitter=yes|no    randomise each period within N/16 [yes]\n"
    "    --seed=S           the jitter's generator [1]\n"
    "    --lbr=yes|no       the last 32 taken branches at each taken-branch\n"
    "                       sample (at each instruction sample if there are\n"
    "                       none) [no]\n"
    "    --regs=yes|no      the general-purpose registers at each sample [no]\n"
    "    (sfdo-record --emulate runs this tool and writes a perf.data)\n");
}

static void
print_debug_usage (void)
{
  VG_(printf) ("    (none)\n");
}

/* Without these, VEX merges superblocks (copying a guarded arm's
   instructions unconditionally) and unrolls loops before the tool sees
   the IR: counts come out 0.5-0.9% high and branches go missing.  As
   callgrind does, in pre_clo_init and again after the options.  */
static void
exact_superblocks (void)
{
  VG_(clo_vex_control).guest_chase = False;
  VG_(clo_vex_control).iropt_unroll_thresh = 0;
}

/* VEX's first optimisation, before the tool sees the IR, keeps register
   values in temporaries and writes the guest state only where an
   exception could look at it (by default, the stack and frame pointers
   at memory accesses): a helper that reads the guest state mid-block
   would see the registers of the block's start.  --regs reads them at
   any instruction, so every register is written back after each one.  */
static void
registers_at_each_instruction (void)
{
  VG_(clo_vex_control).iropt_register_updates_default
    = VexRegUpdAllregsAtEachInsn;
  VG_(clo_px_file_backed) = VexRegUpdAllregsAtEachInsn;
}

/* --- hooks -------------------------------------------------------------- */

static void
start_client_code (ThreadId tid, ULong blocks_dispatched)
{
  (void) blocks_dispatched;
  emu_thread_runs (tid);
}

static Int fork_parent_pid, fork_parent_lwp;

static void
fork_pre (ThreadId tid)
{
  emu_thread_runs (tid);
  fork_parent_pid = VG_(getpid) ();
  fork_parent_lwp = emu_current_lwp ();
  emu_out_flush ();             /* or the child would write it again */
}

static void
fork_parent (ThreadId tid)
{
  (void) tid;
}

static void
fork_child (ThreadId tid)
{
  emu_out_close ();             /* the parent's file; the mappings stay */
  emu_out_open (VG_(getpid) ());
  emu_threads_after_fork (tid, fork_parent_pid, fork_parent_lwp);
}

/* Before an exec the buffer must reach the file: a successful exec ends
   this process image without fini.  The counts so far go with it.  */
static void
pre_syscall (ThreadId tid, UInt syscallno, UWord *args, UInt nargs)
{
  (void) tid;
  (void) args;
  (void) nargs;
  if (syscallno == __NR_execve || syscallno == __NR_execveat)
    {
      emu_threads_finish (SFDO_EMU_EXIT_EXEC);
      emu_out_flush ();
    }
}

static void
post_syscall (ThreadId tid, UInt syscallno, UWord *args, UInt nargs,
              SysRes res)
{
  (void) tid;
  (void) syscallno;
  (void) args;
  (void) nargs;
  (void) res;
}

/* --- start and end ------------------------------------------------------- */

static void
post_clo_init (void)
{
  exact_superblocks ();
  if (emu_opt.regs)
    registers_at_each_instruction ();
  if (!emu_opt.out_dir)
    VG_(fmsg_bad_option) ("--out-dir", "sfdoemu needs --out-dir=DIR (run it"
                          " through sfdo-record --emulate)\n");
  Int pid = VG_(getpid) ();
  emu_threads_start ();
  if (!emu_out_open (pid))
    VG_(exit) (1);
  emu_out_comm (pid, pid, VG_(basename) (VG_(args_the_exename)));
}

static void
fini (Int exitcode)
{
  (void) exitcode;
  emu_threads_finish (0);
  emu_out_close ();
}

static void
pre_clo_init (void)
{
  VG_(details_name) ("sfdoemu");
  VG_(details_version) (SFDO_VERSION);
  VG_(details_description) ("an emulated PMU for sfdo-record --emulate");
  VG_(details_copyright_author) ("the sfdo authors");
  VG_(details_bug_reports_to) ("the sfdo issue tracker");
  VG_(details_avg_translation_sizeB) (300);
  VG_(basic_tool_funcs) (post_clo_init, emu_instrument, fini);
  VG_(needs_command_line_options) (process_option, print_usage,
                                   print_debug_usage);
  VG_(needs_superblock_discards) (emu_discard);
  VG_(needs_syscall_wrapper) (pre_syscall, post_syscall);
  VG_(track_start_client_code) (start_client_code);
  VG_(track_pre_thread_ll_create) (emu_thread_created);
  VG_(track_pre_thread_ll_exit) (emu_thread_exits);
  VG_(atfork) (fork_pre, fork_parent, fork_child);
  exact_superblocks ();
}

VG_DETERMINE_INTERFACE_VERSION (pre_clo_init)
