/* emulator/emu_format.h - the raw stream sfdoemu writes and sfdo-record
 * reads (recorder/emulate_read.c): the contract between the Valgrind tool,
 * which cannot link libc or libsfdo, and the program that turns its
 * streams into a perf.data with the project's writer.
 *
 * One file per process image: every process the tool runs in (the
 * command, its forked children, what they exec) writes its own file,
 * named PID.N.raw in the directory given by --out-dir.  A file is a
 * header, then records in the order the process made them; times never
 * decrease within a file.
 *
 * Everything is little-endian (the tool runs on amd64 only), every record
 * is a multiple of 8 bytes and starts with struct sfdo_emu_rec.  A reader
 * skips record types it does not know (their size says how far).  */
#ifndef SFDO_EMULATOR_EMU_FORMAT_H
#define SFDO_EMULATOR_EMU_FORMAT_H

#include <stdint.h>

#define SFDO_EMU_MAGIC "SFDOEMU1"     /* 8 bytes, no NUL */
#define SFDO_EMU_VERSION 1

#define SFDO_EMU_LBR_ENTRIES 32        /* branches per sample, as Intel's LBR */
#define SFDO_EMU_NREGS 17              /* perf's AX..IP, R8..R15 (0xff01ff) */
#define SFDO_EMU_COMM_LEN 16           /* as the kernel's TASK_COMM_LEN */
/* The longest straight run of instructions the tool counts at once: with
   registers, only a run's first sample has them, so --regs needs
   periods at least this long.  */
#define SFDO_EMU_SEGMENT_MAX 64

/* Header flags: what the samples carry.  */
#define SFDO_EMU_F_LBR 1u
#define SFDO_EMU_F_REGS 2u
#define SFDO_EMU_F_JITTER 4u

/* The events a stream samples: retired instructions, every PERIOD of
   them, and taken branches (calls, returns, jumps, taken conditional
   branches: what the LBR records, Intel's BR_INST_RETIRED.NEAR_TAKEN),
   every BRANCH_PERIOD; a period of 0: that event is not sampled.  The
   LBR (SFDO_EMU_F_LBR) goes with the taken-branch samples when there are
   some, else with the instruction samples; registers with both.  */
enum sfdo_emu_event {
  SFDO_EMU_EV_INSTRUCTIONS = 0,
  SFDO_EMU_EV_TAKEN_BRANCHES = 1,
  SFDO_EMU_NEVENTS = 2
};

struct sfdo_emu_header {
  char magic[8];
  uint32_t version;
  uint32_t flags;
  uint64_t period[SFDO_EMU_NEVENTS];   /* the base periods, 0: none */
  uint32_t pid;
  uint32_t lbr_entries;                /* SFDO_EMU_LBR_ENTRIES */
  char valgrind_version[16];           /* the core the tool was built with */
};

enum sfdo_emu_rec_type {
  SFDO_EMU_COMM = 1,                   /* a process image starts (exec) */
  SFDO_EMU_MMAP = 2,                   /* executable code mapped */
  SFDO_EMU_FORK = 3,                   /* a process or thread starts */
  SFDO_EMU_EXIT = 4,                   /* a thread ends, with its counts */
  SFDO_EMU_SAMPLE = 5
};

struct sfdo_emu_rec {
  uint32_t type;
  uint32_t size;                       /* bytes, this struct included */
};

/* Times are CLOCK_MONOTONIC nanoseconds: one clock for every process of
   the recording, so records of different files merge in time order.  */

struct sfdo_emu_comm {
  struct sfdo_emu_rec h;
  uint32_t pid, tid;
  uint64_t time;
  char comm[SFDO_EMU_COMM_LEN];        /* NUL-terminated */
};

struct sfdo_emu_mmap {
  struct sfdo_emu_rec h;
  uint32_t pid, tid;
  uint64_t time;
  uint64_t start, len, pgoff;
  uint32_t maj, min;
  uint64_t ino;
  uint32_t prot, flags;                /* PROT_*, MAP_* */
  /* then the file name, NUL-terminated, padded to 8 bytes */
};

struct sfdo_emu_fork {
  struct sfdo_emu_rec h;
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
};

struct sfdo_emu_exit {
  struct sfdo_emu_rec h;
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
  uint64_t instructions;               /* retired by this thread */
  uint64_t taken_branches;             /* LBR-kind: calls, returns, jumps,
                                          taken conditional branches */
  uint32_t flags;                      /* SFDO_EMU_EXIT_* */
  uint32_t reserved;
};

/* Counts so far, written before an execve: the thread goes on in another
   process image (another file), or, when the exec fails, in this one,
   and a later EXIT of the same thread in this file supersedes it.  */
#define SFDO_EMU_EXIT_EXEC 1u

struct sfdo_emu_sample {
  struct sfdo_emu_rec h;
  uint32_t pid, tid;
  uint64_t time;
  uint64_t ip;                         /* the sampled instruction */
  uint64_t period;                     /* events it stands for */
  uint32_t event;                      /* enum sfdo_emu_event */
  uint16_t nr_branches;                /* 0..SFDO_EMU_LBR_ENTRIES */
  uint16_t nr_regs;                    /* 0 or SFDO_EMU_NREGS */
  /* then nr_branches (from, to) pairs, newest first, and nr_regs
     registers in perf's order: AX BX CX DX SI DI BP SP IP R8..R15.
     An instruction sample is taken as its instruction is about to run:
     its LBR holds the branches before it, its registers are those the
     instruction reads.  A taken-branch sample is taken as the branch
     retires: its LBR starts with that branch; its registers are those
     after it.  */
};

#endif
