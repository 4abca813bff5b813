/* tests/unit/converter/test_converter.c - unit tests of the converter's
 * stages: procmap.h (mmap overlap splitting, fork inheritance, exec reset,
 * resolve at the edges), blocks.h (a hand-written x86-64 byte sequence:
 * leaders at jump targets and after jumps and returns, call kinds and
 * direct call targets, undecodable bytes) and symtab.h (a small C file
 * compiled here with gcc -O2 -g: inline stacks of a static inline function
 * inlined twice, call lines, declaration lines, discriminators, function
 * ranges, file offsets, build-id, and files that are not ELF, are
 * directories, empty, cut short, or have a damaged line table).  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>

#include "../../../converter/blocks.h"
#include "../../../converter/procmap.h"
#include "../../../converter/symtab.h"

/* --- procmap --------------------------------------------------------------- */

/* Events happen one after the other; lookups ask about the present.  */
static uint64_t clock_now;
#define T() (++clock_now)
#define NOW UINT64_MAX

/* Assert that PID resolves IP to FILE at OFFSET.  */
#define ASSERT_MAPS(pm, pid, ip, file, off)                                 \
  do                                                                        \
    {                                                                       \
      uint32_t f_ = 99;                                                     \
      uint64_t o_ = 0;                                                      \
      assert_int_equal (sfdo_procmap_resolve ((pm), (pid), (ip), NOW, &f_, \
                                              &o_), \
                        0);                                                 \
      assert_int_equal (f_, (file));                                        \
      assert_int_equal (o_, (off));                                         \
    }                                                                       \
  while (0)

#define ASSERT_UNMAPPED(pm, pid, ip)                                        \
  do                                                                        \
    {                                                                       \
      uint32_t f_;                                                          \
      uint64_t o_;                                                          \
      assert_int_equal (sfdo_procmap_resolve ((pm), (pid), (ip), NOW, &f_, \
                                              &o_), \
                        -1);                                                \
    }                                                                       \
  while (0)

static void
test_procmap_resolve_edges (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  ASSERT_UNMAPPED (pm, 1, 0x1000);              /* no such process */
  sfdo_procmap_mmap (pm, 1, 0x1000, 0x1000, 0x3000, 7, T ());
  ASSERT_MAPS (pm, 1, 0x1000, 7, 0x3000);       /* first byte */
  ASSERT_MAPS (pm, 1, 0x1fff, 7, 0x3fff);       /* last byte */
  ASSERT_UNMAPPED (pm, 1, 0x2000);              /* one past the end */
  ASSERT_UNMAPPED (pm, 1, 0xfff);               /* one before */
  ASSERT_UNMAPPED (pm, 1, 0);
  ASSERT_UNMAPPED (pm, 2, 0x1000);              /* another process */
  /* Empty and wrapping mappings are ignored.  */
  sfdo_procmap_mmap (pm, 1, 0x5000, 0, 0, 8, T ());
  ASSERT_UNMAPPED (pm, 1, 0x5000);
  sfdo_procmap_mmap (pm, 1, UINT64_MAX - 0xff, 0x1000, 0, 8, T ());
  ASSERT_UNMAPPED (pm, 1, UINT64_MAX - 0x10);
  ASSERT_MAPS (pm, 1, 0x1800, 7, 0x3800);
  /* Mappings out of address order are found.  */
  sfdo_procmap_mmap (pm, 1, 0x9000, 0x1000, 0, 3, T ());
  sfdo_procmap_mmap (pm, 1, 0x4000, 0x1000, 0x10, 4, T ());
  ASSERT_MAPS (pm, 1, 0x9abc, 3, 0xabc);
  ASSERT_MAPS (pm, 1, 0x4000, 4, 0x10);
  ASSERT_MAPS (pm, 1, 0x1000, 7, 0x3000);
  ASSERT_UNMAPPED (pm, 1, 0x3000);
  ASSERT_UNMAPPED (pm, 1, 0xa000);
  sfdo_procmap_free (pm);
  sfdo_procmap_free (NULL);
}

static void
test_procmap_overlap_splits_the_old_mapping (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  sfdo_procmap_mmap (pm, 5, 0x10000, 0x5000, 0x100000, 1, T ());
  /* A new mapping in the middle cuts it in two.  */
  sfdo_procmap_mmap (pm, 5, 0x12000, 0x1000, 0x800, 2, T ());
  ASSERT_MAPS (pm, 5, 0x10000, 1, 0x100000);
  ASSERT_MAPS (pm, 5, 0x11fff, 1, 0x101fff);
  ASSERT_MAPS (pm, 5, 0x12000, 2, 0x800);
  ASSERT_MAPS (pm, 5, 0x12fff, 2, 0x17ff);
  /* The right part keeps its file offset.  */
  ASSERT_MAPS (pm, 5, 0x13000, 1, 0x103000);
  ASSERT_MAPS (pm, 5, 0x14fff, 1, 0x104fff);
  ASSERT_UNMAPPED (pm, 5, 0x15000);
  sfdo_procmap_free (pm);
}

static void
test_procmap_overlap_across_several_mappings (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  sfdo_procmap_mmap (pm, 5, 0x1000, 0x1000, 0xa000, 1, T ());
  sfdo_procmap_mmap (pm, 5, 0x2000, 0x1000, 0xb000, 2, T ());
  sfdo_procmap_mmap (pm, 5, 0x3000, 0x1000, 0xc000, 3, T ());
  sfdo_procmap_mmap (pm, 5, 0x5000, 0x1000, 0xd000, 4, T ());
  /* Covers the end of 1, all of 2, the start of 3.  */
  sfdo_procmap_mmap (pm, 5, 0x1800, 0x2000, 0, 9, T ());
  ASSERT_MAPS (pm, 5, 0x1000, 1, 0xa000);
  ASSERT_MAPS (pm, 5, 0x17ff, 1, 0xa7ff);
  ASSERT_MAPS (pm, 5, 0x1800, 9, 0);
  ASSERT_MAPS (pm, 5, 0x2000, 9, 0x800);
  ASSERT_MAPS (pm, 5, 0x37ff, 9, 0x1fff);
  ASSERT_MAPS (pm, 5, 0x3800, 3, 0xc800);
  ASSERT_MAPS (pm, 5, 0x3fff, 3, 0xcfff);
  ASSERT_UNMAPPED (pm, 5, 0x4000);
  ASSERT_MAPS (pm, 5, 0x5000, 4, 0xd000);
  /* The same range again replaces it exactly.  */
  sfdo_procmap_mmap (pm, 5, 0x1800, 0x2000, 0x40, 10, T ());
  ASSERT_MAPS (pm, 5, 0x1800, 10, 0x40);
  ASSERT_MAPS (pm, 5, 0x37ff, 10, 0x203f);
  ASSERT_MAPS (pm, 5, 0x17ff, 1, 0xa7ff);
  ASSERT_MAPS (pm, 5, 0x3800, 3, 0xc800);
  /* One that covers everything leaves nothing of the others.  */
  sfdo_procmap_mmap (pm, 5, 0, 0x10000, 0, 11, T ());
  ASSERT_MAPS (pm, 5, 0x1000, 11, 0x1000);
  ASSERT_MAPS (pm, 5, 0x3800, 11, 0x3800);
  ASSERT_MAPS (pm, 5, 0x5000, 11, 0x5000);
  ASSERT_MAPS (pm, 5, 0xffff, 11, 0xffff);
  ASSERT_UNMAPPED (pm, 5, 0x10000);
  sfdo_procmap_free (pm);
}

static void
test_procmap_fork_inherits_a_copy (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  sfdo_procmap_mmap (pm, 10, 0x1000, 0x1000, 0, 1, T ());
  sfdo_procmap_mmap (pm, 10, 0x4000, 0x1000, 0x2000, 2, T ());
  sfdo_procmap_fork (pm, 10, 20, T ());
  ASSERT_MAPS (pm, 20, 0x1000, 1, 0);
  ASSERT_MAPS (pm, 20, 0x4800, 2, 0x2800);
  /* Later maps of either do not reach the other.  */
  sfdo_procmap_mmap (pm, 20, 0x1000, 0x1000, 0x500, 3, T ());
  sfdo_procmap_mmap (pm, 10, 0x8000, 0x1000, 0, 4, T ());
  ASSERT_MAPS (pm, 20, 0x1000, 3, 0x500);
  ASSERT_MAPS (pm, 10, 0x1000, 1, 0);
  ASSERT_UNMAPPED (pm, 20, 0x8000);
  ASSERT_MAPS (pm, 10, 0x8000, 4, 0);
  /* A grandchild (pid below its parent's: order in the table) too.  */
  sfdo_procmap_fork (pm, 20, 3, T ());
  ASSERT_MAPS (pm, 3, 0x1000, 3, 0x500);
  ASSERT_MAPS (pm, 3, 0x4000, 2, 0x2000);
  /* Forking onto a known pid replaces its maps; from an unknown parent
     it starts empty.  */
  sfdo_procmap_fork (pm, 10, 20, T ());
  ASSERT_MAPS (pm, 20, 0x1000, 1, 0);
  ASSERT_MAPS (pm, 20, 0x8000, 4, 0);
  sfdo_procmap_fork (pm, 999, 20, T ());
  ASSERT_UNMAPPED (pm, 20, 0x1000);
  sfdo_procmap_mmap (pm, 20, 0x1000, 0x1000, 0, 5, T ());
  ASSERT_MAPS (pm, 20, 0x1000, 5, 0);
  /* A fork onto itself changes nothing.  */
  sfdo_procmap_fork (pm, 10, 10, T ());
  ASSERT_MAPS (pm, 10, 0x1000, 1, 0);
  sfdo_procmap_free (pm);
}

/* Records arrive out of time order (perf writes one CPU's buffer after
   another): lookups go by the time of the sample, not the arrival.  */
static void
test_procmap_goes_by_time_not_arrival (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  uint32_t f;
  uint64_t o;
  sfdo_procmap_mmap (pm, 7, 0x1000, 0x1000, 0, 1, 100);
  /* An exec older than the mapping, arriving after it, leaves it.  */
  sfdo_procmap_exec (pm, 7, 50);
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1000, 150, &f, &o), 0);
  assert_int_equal (f, 1);
  /* Before the mapping was made, nothing was there.  */
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1000, 99, &f, &o), -1);
  /* An exec between the mapping and the sample ends it.  */
  sfdo_procmap_exec (pm, 7, 120);
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1000, 110, &f, &o), 0);
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1000, 130, &f, &o), -1);
  /* A newer mapping wins only from its time on.  */
  sfdo_procmap_mmap (pm, 7, 0x1000, 0x1000, 0x40, 2, 200);
  sfdo_procmap_mmap (pm, 7, 0x1000, 0x1000, 0x80, 3, 140);
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1010, 150, &f, &o), 0);
  assert_int_equal (f, 3);
  assert_int_equal (o, 0x90);
  assert_int_equal (sfdo_procmap_resolve (pm, 7, 0x1010, 250, &f, &o), 0);
  assert_int_equal (f, 2);
  /* A child forked at 160 has what was in force then, from then on.  */
  sfdo_procmap_fork (pm, 7, 8, 160);
  assert_int_equal (sfdo_procmap_resolve (pm, 8, 0x1010, 170, &f, &o), 0);
  assert_int_equal (f, 3);
  assert_int_equal (sfdo_procmap_resolve (pm, 8, 0x1010, 250, &f, &o), 0);
  assert_int_equal (f, 3);
  sfdo_procmap_free (pm);
}

static void
test_procmap_exec_starts_afresh (void **state)
{
  (void) state;
  struct sfdo_procmap *pm = sfdo_procmap_new ();
  sfdo_procmap_mmap (pm, 10, 0x1000, 0x1000, 0, 1, T ());
  sfdo_procmap_fork (pm, 10, 11, T ());
  sfdo_procmap_exec (pm, 11, T ());
  ASSERT_UNMAPPED (pm, 11, 0x1000);
  ASSERT_MAPS (pm, 10, 0x1000, 1, 0);   /* the parent keeps its maps */
  sfdo_procmap_mmap (pm, 11, 0x2000, 0x1000, 0x100, 2, T ());
  ASSERT_MAPS (pm, 11, 0x2000, 2, 0x100);
  ASSERT_UNMAPPED (pm, 11, 0x1000);
  sfdo_procmap_exec (pm, 77, T ());           /* an unknown pid */
  ASSERT_UNMAPPED (pm, 77, 0x1000);
  sfdo_procmap_free (pm);
}

/* --- blocks ---------------------------------------------------------------- */

/* At 0x1000:                                         block
     1000: 31 c0            xor  %eax,%eax            A (entry)
     1002: 85 ff            test %edi,%edi
     1004: 74 07            je   100d
     1006: e8 f5 0f 00 00   call 2000                 B (after a jump)
     100b: ff d0            call *%rax                  calls do not end it
     100d: 83 c0 01         add  $1,%eax              C (je's target)
     1010: eb 03            jmp  1015
     1012: 06               (not valid in 64-bit)     D (after a jump)
     1013: 90               nop                       E (after bad bytes)
     1014: 90               nop
     1015: c3               ret                       F (jmp's target)
     1016: 90               nop                       G (after a return)
     1017: 74 e7            je   1000  (past HI: not decoded)  */
static const uint8_t code[] = {
  0x31, 0xc0, 0x85, 0xff, 0x74, 0x07, 0xe8, 0xf5, 0x0f, 0x00, 0x00, 0xff,
  0xd0, 0x83, 0xc0, 0x01, 0xeb, 0x03, 0x06, 0x90, 0x90, 0xc3, 0x90, 0x74,
  0xe7
};

static void
test_blocks_decoder_is_x86_64_only (void **state)
{
  (void) state;
  struct sfdo_decoder *d = (struct sfdo_decoder *) 1;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_decoder_new (183, &d, &err), SFDO_E_USAGE);
  assert_null (d);
  assert_non_null (strstr (err.msg, "183"));
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_decoder_new (62, &d, &err), SFDO_OK);
  assert_non_null (d);
  sfdo_decoder_free (d);
  sfdo_decoder_free (NULL);
}

/* BYTES, LEN of them and one whole instruction, decoded at 0x1000.  */
static struct sfdo_insn_info
decode_instruction (const uint8_t *bytes, size_t len)
{
  struct sfdo_decoder *d;
  struct sfdo_insn_info info;
  assert_int_equal (sfdo_decoder_new (62, &d, NULL), SFDO_OK);
  sfdo_decode_one (d, bytes, len, 0x1000, &info);
  sfdo_decoder_free (d);
  assert_int_equal (info.size, len);
  return info;
}

/* What the value sites of indirect calls read from a decoded
   instruction: the register a call or jump goes through, a vtable slot's
   base and offset, 64-bit register moves.  */
static void
test_decode_indirect_targets_and_moves (void **state)
{
  (void) state;
  static const struct {
    uint8_t bytes[8];
    size_t len;
    int target_reg, target_base, disp, move_from;
  } cases[] = {
    { { 0xff, 0xd0 }, 2, 0, -1, 0, -1 },                  /* call *%rax */
    { { 0x41, 0xff, 0xd0 }, 3, 16, -1, 0, -1 },           /* call *%r8 */
    { { 0xff, 0xe2 }, 2, 3, -1, 0, -1 },                  /* jmp *%rdx */
    { { 0xff, 0x50, 0x10 }, 3, -1, 0, 16, -1 },           /* call *0x10(%rax) */
    { { 0xff, 0x14, 0xc5, 0, 0x10, 0, 0 }, 7, -1, -1, 0, -1 },
                                          /* call *0x1000(,%rax,8): indexed */
    { { 0xff, 0x15, 0x57, 0x2e, 0, 0 }, 6, -1, -1, 0, -1 },  /* call *(%rip) */
    { { 0x48, 0x89, 0xf8 }, 3, -1, -1, 0, 5 },            /* mov %rdi,%rax */
    { { 0x89, 0xf8 }, 2, -1, -1, 0, -1 },                 /* mov %edi,%eax */
    { { 0x48, 0x8b, 0x07 }, 3, -1, -1, 0, -1 },           /* mov (%rdi),%rax */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      struct sfdo_insn_info info
        = decode_instruction (cases[i].bytes, cases[i].len);
      assert_int_equal (info.target_reg, cases[i].target_reg);
      assert_int_equal (info.target_base, cases[i].target_base);
      if (cases[i].target_base >= 0)
        assert_int_equal (info.target_disp, cases[i].disp);
      assert_int_equal (info.move_from, cases[i].move_from);
    }
}

/* The registers an instruction clears whole, which value sites read as
   a known 0 (the high half of an unsigned division's dividend).  */
static void
test_decode_cleared_registers (void **state)
{
  (void) state;
  static const struct {
    uint8_t bytes[8];
    size_t len;
    int zeroes;
  } cases[] = {
    { { 0x31, 0xd2 }, 2, 3 },                             /* xor %edx,%edx */
    { { 0x48, 0x31, 0xd2 }, 3, 3 },                       /* xor %rdx,%rdx */
    { { 0x29, 0xc0 }, 2, 0 },                             /* sub %eax,%eax */
    { { 0xba, 0, 0, 0, 0 }, 5, 3 },                       /* mov $0,%edx */
    { { 0x45, 0x31, 0xc0 }, 3, 16 },                      /* xor %r8d,%r8d */
    { { 0xba, 1, 0, 0, 0 }, 5, -1 },                      /* mov $1,%edx */
    { { 0x31, 0xc2 }, 2, -1 },                            /* xor %eax,%edx */
    { { 0x30, 0xd2 }, 2, -1 },                            /* xor %dl,%dl */
    { { 0x66, 0x31, 0xd2 }, 3, -1 },                      /* xor %dx,%dx */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    assert_int_equal (decode_instruction (cases[i].bytes, cases[i].len).zeroes,
                      cases[i].zeroes);
}

static void
test_blocks_of_hand_written_code (void **state)
{
  (void) state;
  struct sfdo_decoder *d;
  assert_int_equal (sfdo_decoder_new (62, &d, NULL), SFDO_OK);
  struct sfdo_func_blocks fb;
  sfdo_decode_function (d, code, sizeof code, 0x1000, 0x1017, &fb);
  assert_int_equal (fb.lo, 0x1000);
  assert_int_equal (fb.hi, 0x1017);

  static const uint64_t addrs[]
    = { 0x1000, 0x1002, 0x1004, 0x1006, 0x100b, 0x100d, 0x1010, 0x1012,
        0x1013, 0x1014, 0x1015, 0x1016 };
  static const uint8_t kinds[]
    = { SFDO_INSN_OTHER, SFDO_INSN_OTHER, SFDO_INSN_CJUMP, SFDO_INSN_CALL,
        SFDO_INSN_CALL, SFDO_INSN_OTHER, SFDO_INSN_JUMP, SFDO_INSN_OTHER,
        SFDO_INSN_OTHER, SFDO_INSN_OTHER, SFDO_INSN_RET, SFDO_INSN_OTHER };
  size_t n = sizeof addrs / sizeof *addrs;
  assert_int_equal (fb.ninsns, n);
  for (size_t i = 0; i < n; i++)
    {
      assert_int_equal (fb.insn_addrs[i], addrs[i]);
      assert_int_equal (fb.kinds[i], kinds[i]);
      /* Only the direct call has a target.  */
      assert_int_equal (fb.call_targets[i], i == 3 ? 0x2000 : 0);
      assert_int_equal (fb.jump_targets[i],
                        i == 2 ? 0x100d : i == 6 ? 0x1015 : 0);
      /* The nop after ret pads; those after the undecodable byte may
         run.  */
      assert_int_equal (fb.padding[i], i == 11);
    }

  static const struct sfdo_block blocks[] = {
    { 0x1000, 0x1006, 0, 3, 3 },   /* A */
    { 0x1006, 0x100d, 3, 2, 2 },   /* B */
    { 0x100d, 0x1012, 5, 2, 2 },   /* C */
    { 0x1012, 0x1013, 7, 1, 1 },   /* D */
    { 0x1013, 0x1015, 8, 2, 2 },   /* E */
    { 0x1015, 0x1016, 10, 1, 1 },  /* F */
    { 0x1016, 0x1017, 11, 1, 0 },  /* G: the padding nop, never run */
  };
  size_t nb = sizeof blocks / sizeof *blocks;
  assert_int_equal (fb.nblocks, nb);
  for (size_t i = 0; i < nb; i++)
    {
      assert_int_equal (fb.blocks[i].start, blocks[i].start);
      assert_int_equal (fb.blocks[i].end, blocks[i].end);
      assert_int_equal (fb.blocks[i].first_insn, blocks[i].first_insn);
      assert_int_equal (fb.blocks[i].ninsns, blocks[i].ninsns);
      assert_int_equal (fb.blocks[i].nrun, blocks[i].nrun);
    }

  /* Lookups.  */
  assert_int_equal (sfdo_func_blocks_find (&fb, 0x1000), 0);
  assert_int_equal (sfdo_func_blocks_find (&fb, 0x100c), 1);
  assert_int_equal (sfdo_func_blocks_find (&fb, 0x1012), 3);
  assert_int_equal (sfdo_func_blocks_find (&fb, 0x1016), 6);
  assert_int_equal (sfdo_func_blocks_find (&fb, 0x1017), -1);
  assert_int_equal (sfdo_func_blocks_find (&fb, 0xfff), -1);
  assert_int_equal (sfdo_func_blocks_insn (&fb, 0x1006), 3);
  assert_int_equal (sfdo_func_blocks_insn (&fb, 0x1007), -1);
  assert_int_equal (sfdo_func_blocks_insn (&fb, 0x1017), -1);
  assert_int_equal (sfdo_func_blocks_insn_from (&fb, 0x1007), 4);
  assert_int_equal (sfdo_func_blocks_insn_from (&fb, 0xf00), 0);
  assert_int_equal (sfdo_func_blocks_insn_from (&fb, 0x1016), 11);
  assert_int_equal (sfdo_func_blocks_insn_from (&fb, 0x2000), n);
  sfdo_func_blocks_release (&fb);
  assert_null (fb.blocks);

  /* From 0x100d to 0x1019, taking in the je at 0x1017, whose target
     0x1000 is outside [LO, HI): not a leader; the block after the ret
     runs to HI.  */
  sfdo_decode_function (d, code + 0xd, sizeof code - 0xd, 0x100d, 0x1019,
                        &fb);
  /* add, jmp | bad | nop nop | ret | nop, je 1000 (target outside) */
  assert_int_equal (fb.ninsns, 8);
  assert_int_equal (fb.insn_addrs[7], 0x1017);
  assert_int_equal (fb.kinds[7], SFDO_INSN_CJUMP);
  assert_int_equal (fb.jump_targets[7], 0x1000);
  assert_int_equal (fb.nblocks, 5);
  assert_int_equal (fb.blocks[4].start, 0x1016);
  assert_int_equal (fb.blocks[4].end, 0x1019);
  assert_int_equal (fb.blocks[4].ninsns, 2);
  sfdo_func_blocks_release (&fb);

  /* Nothing but bad bytes: one instruction-sized step each, each its own
     block.  */
  static const uint8_t bad[] = { 0x06, 0x07, 0x06 };
  sfdo_decode_function (d, bad, sizeof bad, 0x500, 0x503, &fb);
  assert_int_equal (fb.ninsns, 3);
  assert_int_equal (fb.nblocks, 3);
  for (size_t i = 0; i < 3; i++)
    {
      assert_int_equal (fb.insn_addrs[i], 0x500 + i);
      assert_int_equal (fb.blocks[i].start, 0x500 + i);
      assert_int_equal (fb.blocks[i].end, 0x501 + i);
    }
  sfdo_func_blocks_release (&fb);
  sfdo_decoder_free (d);
}

/* --- symtab ---------------------------------------------------------------- */

/* Compiled at test time.  Line numbers matter: see the LINE_ constants.  */
static const char source[] =
  "static volatile int sink;\n"                                   /*  1 */
  "static inline __attribute__ ((always_inline)) int\n"           /*  2 */
  "twice (int x)\n"                                               /*  3 */
  "{\n"                                                           /*  4 */
  "  sink = x;\n"                                                 /*  5 */
  "  return x * 2 + sink;\n"                                      /*  6 */
  "}\n"                                                           /*  7 */
  "__attribute__ ((noinline)) int\n"                              /*  8 */
  "work (int a, int b)\n"                                         /*  9 */
  "{\n"                                                           /* 10 */
  "  int r = twice (a);\n"                                        /* 11 */
  "  r += twice (b);\n"                                           /* 12 */
  "  for (int i = 0; i < a; i++) r += (i & 1) ? sink : i * 3;\n"  /* 13 */
  "  return r;\n"                                                 /* 14 */
  "}\n"                                                           /* 15 */
  "int\n"                                                         /* 16 */
  "main (int argc, char **argv)\n"                                /* 17 */
  "{\n"                                                           /* 18 */
  "  (void) argv;\n"                                              /* 19 */
  "  return work (argc, argc + 1) & 1;\n"                         /* 20 */
  "}\n";                                                          /* 21 */
enum { DECL_TWICE = 3, TWICE_FIRST = 5, TWICE_LAST = 6, DECL_WORK = 9,
       CALL_1 = 11, CALL_2 = 12, LOOP = 13, WORK_LAST = 14 };

struct fixture {
  char dir[64];
  char bin[128];
  char src[128];
  uint64_t work_lo, work_size;
};

static int
run_capture (const char *cmd, char *out, size_t size)
{
  FILE *p = popen (cmd, "r");
  if (!p)
    return -1;
  size_t n = fread (out, 1, size - 1, p);
  out[n] = 0;
  return pclose (p);
}

static int
symtab_setup (void **state)
{
  struct fixture *fx = calloc (1, sizeof *fx);
  if (!fx)
    return -1;
  snprintf (fx->dir, sizeof fx->dir, "/tmp/sfdo-test-symtab.XXXXXX");
  if (!mkdtemp (fx->dir))
    return -1;
  snprintf (fx->src, sizeof fx->src, "%s/inl.c", fx->dir);
  snprintf (fx->bin, sizeof fx->bin, "%s/inl", fx->dir);
  FILE *f = fopen (fx->src, "w");
  if (!f)
    return -1;
  fputs (source, f);
  fclose (f);
  char cmd[512], out[256];
  snprintf (cmd, sizeof cmd, "cd %s && gcc -std=c11 -O2 -g inl.c -o inl",
            fx->dir);
  if (system (cmd) != 0)
    {
      fprintf (stderr, "cannot compile %s with gcc\n", fx->src);
      return -1;
    }
  snprintf (cmd, sizeof cmd, "nm -S %s | sed -n 's/ T work$//p'", fx->bin);
  unsigned long long lo = 0, size = 0;
  if (run_capture (cmd, out, sizeof out) != 0
      || sscanf (out, "%llx %llx", &lo, &size) != 2)
    {
      fprintf (stderr, "cannot find work in nm -S %s: %s\n", fx->bin, out);
      return -1;
    }
  fx->work_lo = lo;
  fx->work_size = size;
  *state = fx;
  return 0;
}

static int
symtab_teardown (void **state)
{
  struct fixture *fx = *state;
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -rf %s", fx->dir);
  int rc = system (cmd);
  free (fx);
  return rc == 0 ? 0 : -1;
}

static struct sfdo_symtab *
open_ok (const char *path)
{
  struct sfdo_symtab *st = NULL;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  enum sfdo_errc rc = sfdo_symtab_open (path, &st, &err);
  if (rc != SFDO_OK)
    fail_msg ("sfdo_symtab_open %s: %s", path, err.msg);
  assert_non_null (st);
  return st;
}


/* Alignment fillers after a jump or a return never run (their line is the
   code's before them, which must not take their zero count); the same
   fillers where execution falls into them, and real code after them, do
   run.  */
static void
test_blocks_padding (void **state)
{
  (void) state;
  static const uint8_t pad[] = {
    0xeb, 0x08,                               /* jmp 0x100a */
    0x66, 0x90,                               /* xchg %ax,%ax */
    0x0f, 0x1f, 0x44, 0x00, 0x00,             /* nopl 0x0(%rax,%rax,1) */
    0x90,                                     /* nop */
    0x01, 0xc0,                               /* add %eax,%eax */
    0x90,                                     /* nop: falls through */
    0x87, 0xc3,                               /* xchg %eax,%ebx */
    0xc3,                                     /* ret */
    0x87, 0xdb                                /* xchg %ebx,%ebx */
  };
  static const uint8_t want[] = { 0, 1, 1, 1, 0, 0, 0, 0, 1 };
  struct sfdo_decoder *d;
  struct sfdo_func_blocks fb;
  assert_int_equal (sfdo_decoder_new (62, &d, NULL), SFDO_OK);
  sfdo_decode_function (d, pad, sizeof pad, 0x1000, 0x1000 + sizeof pad,
                        &fb);
  assert_int_equal (fb.ninsns, sizeof want);
  for (size_t i = 0; i < sizeof want; i++)
    assert_int_equal (fb.padding[i], want[i]);
  sfdo_func_blocks_release (&fb);
  sfdo_decoder_free (d);
}
static void
test_symtab_inline_stacks (void **state)
{
  struct fixture *fx = *state;
  struct sfdo_symtab *st = open_ok (fx->bin);
  int seen_call[2] = { 0, 0 }, seen_inline_line = 0, seen_outer = 0;
  for (uint64_t a = fx->work_lo; a < fx->work_lo + fx->work_size; a++)
    {
      const struct sfdo_frame *fr;
      size_t n = sfdo_symtab_lookup (st, a, &fr);
      if (n == 0)
        continue;
      /* Outermost first: always work, with external linkage.  */
      assert_string_equal (fr[0].function, "work");
      assert_null (fr[0].file);
      assert_int_equal (fr[0].decl_line, DECL_WORK);
      assert_in_range (n, 1, 2);
      if (n == 1)
        {
          assert_in_range (fr[0].line, DECL_WORK, WORK_LAST + 1);
          seen_outer = 1;
          continue;
        }
      /* The inlined callee: its own declaration line and file (static),
         the line sampled in it; the outer frame says where it was
         called.  */
      assert_string_equal (fr[1].function, "twice");
      assert_non_null (fr[1].file);
      assert_non_null (strstr (fr[1].file, "inl.c"));
      assert_int_equal (fr[1].decl_line, DECL_TWICE);
      assert_in_range (fr[1].line, DECL_TWICE, TWICE_LAST + 1);
      if (fr[1].line >= TWICE_FIRST && fr[1].line <= TWICE_LAST)
        seen_inline_line = 1;
      assert_in_range (fr[0].line, CALL_1, CALL_2);
      seen_call[fr[0].line - CALL_1] = 1;
    }
  assert_true (seen_outer);
  assert_true (seen_inline_line);
  /* Inlined twice: both call lines show up as outer frames.  */
  assert_true (seen_call[0]);
  assert_true (seen_call[1]);
  sfdo_symtab_free (st);
}

static void
test_symtab_discriminators (void **state)
{
  struct fixture *fx = *state;
  struct sfdo_symtab *st = open_ok (fx->bin);
  /* The loop line has several blocks, which GCC tells apart by
     discriminators.  Read the line table with libdw here: at each address
     the last row there is what a lookup must give.  */
  int fd = open (fx->bin, O_RDONLY);
  assert_true (fd >= 0);
  Dwarf *dw = dwarf_begin (fd, DWARF_C_READ);
  assert_non_null (dw);
  Dwarf_Off off = 0, next;
  size_t hsize;
  int checked = 0, nonzero = 0;
  while (dwarf_nextcu (dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu;
      Dwarf_Lines *lines;
      size_t n;
      if (dwarf_offdie (dw, off + hsize, &cu)
          && dwarf_getsrclines (&cu, &lines, &n) == 0)
        for (size_t i = 0; i < n; i++)
          {
            Dwarf_Line *l = dwarf_onesrcline (lines, i);
            Dwarf_Line *l2 = i + 1 < n ? dwarf_onesrcline (lines, i + 1)
                                       : NULL;
            Dwarf_Addr a, a2;
            int line = 0;
            unsigned disc = 0;
            bool end = false;
            assert_int_equal (dwarf_lineaddr (l, &a), 0);
            dwarf_lineno (l, &line);
            dwarf_linediscriminator (l, &disc);
            dwarf_lineendsequence (l, &end);
            if (end || line != LOOP)
              continue;
            if (l2 && dwarf_lineaddr (l2, &a2) == 0 && a2 == a)
              continue;         /* not the last row at A */
            const struct sfdo_frame *fr;
            assert_int_equal (sfdo_symtab_lookup (st, a, &fr), 1);
            assert_string_equal (fr[0].function, "work");
            assert_int_equal (fr[0].line, LOOP);
            assert_int_equal (fr[0].discriminator, disc);
            checked++;
            nonzero += disc != 0;
          }
      off = next;
    }
  dwarf_end (dw);
  close (fd);
  assert_true (checked > 1);
  if (!nonzero)
    fail_msg ("gcc gave line %d no discriminator", LOOP);
  sfdo_symtab_free (st);
}

static void
test_symtab_function_range_and_facts (void **state)
{
  struct fixture *fx = *state;
  struct sfdo_symtab *st = open_ok (fx->bin);
  uint64_t lo, hi;
  /* From any address in it, including one in inlined code.  */
  for (uint64_t a = fx->work_lo; a < fx->work_lo + fx->work_size; a += 3)
    {
      assert_int_equal (sfdo_symtab_function_range (st, a, &lo, &hi), 0);
      assert_int_equal (lo, fx->work_lo);
      assert_int_equal (hi, fx->work_lo + fx->work_size);
    }
  assert_int_equal (sfdo_symtab_function_range (st, 0, &lo, &hi), -1);
  assert_int_equal (sfdo_symtab_function_range (st, UINT64_MAX, &lo, &hi),
                    -1);
  const struct sfdo_frame *fr;
  assert_int_equal (sfdo_symtab_lookup (st, 0, &fr), 0);

  assert_int_equal (sfdo_symtab_machine (st), 62);
  assert_int_equal (sfdo_symtab_is_pic (st), 1);   /* gcc builds PIE */

  /* The build-id readelf shows.  */
  char cmd[256], out[256];
  snprintf (cmd, sizeof cmd,
            "readelf -n %s | sed -n 's/^ *Build ID: //p'", fx->bin);
  assert_int_equal (run_capture (cmd, out, sizeof out), 0);
  out[strcspn (out, "\n")] = 0;
  assert_true (strlen (sfdo_symtab_build_id (st)) >= 16);
  assert_string_equal (sfdo_symtab_build_id (st), out);

  /* File offsets through every PT_LOAD, and the code bytes there.  */
  elf_version (EV_CURRENT);
  int fd = open (fx->bin, O_RDONLY);
  assert_true (fd >= 0);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  assert_non_null (elf);
  size_t nph = 0, nload = 0;
  assert_int_equal (elf_getphdrnum (elf, &nph), 0);
  struct stat sb;
  assert_int_equal (fstat (fd, &sb), 0);
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      assert_non_null (gelf_getphdr (elf, (int) i, &ph));
      if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
        continue;
      nload++;
      uint64_t v = 0;
      assert_int_equal (sfdo_symtab_offset_to_vaddr (st, ph.p_offset, &v), 0);
      assert_int_equal (v, ph.p_vaddr);
      assert_int_equal (sfdo_symtab_offset_to_vaddr (st, ph.p_offset
                                                     + ph.p_filesz - 1, &v),
                        0);
      assert_int_equal (v, ph.p_vaddr + ph.p_filesz - 1);
    }
  assert_true (nload >= 2);
  /* Read-only data: read-only segments and RELRO (vtables), not .data.  */
  uint64_t relro_lo = 0, relro_hi = 0;
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      assert_non_null (gelf_getphdr (elf, (int) i, &ph));
      if (ph.p_type == PT_GNU_RELRO)
        relro_lo = ph.p_vaddr, relro_hi = ph.p_vaddr + ph.p_memsz;
    }
  assert_true (relro_hi > relro_lo);   /* gcc links with -z relro */
  assert_int_equal (sfdo_symtab_read_only (st, relro_lo), 1);
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      assert_non_null (gelf_getphdr (elf, (int) i, &ph));
      uint64_t last = ph.p_vaddr + ph.p_filesz - 1;
      if (ph.p_type == PT_LOAD && ph.p_filesz
          && (last < relro_lo || last >= relro_hi))
        assert_int_equal (sfdo_symtab_read_only (st, last),
                          !(ph.p_flags & PF_W));
    }
  assert_int_equal (sfdo_symtab_read_only (st, UINT64_MAX - 8), 0);
  uint64_t v;
  assert_int_equal (sfdo_symtab_offset_to_vaddr (st, (uint64_t) sb.st_size
                                                 + 0x100000, &v), -1);
  /* The bytes at work's address are the file's bytes there.  */
  const uint8_t *bytes;
  size_t len;
  assert_int_equal (sfdo_symtab_code (st, fx->work_lo, &bytes, &len), 0);
  assert_true (len >= fx->work_size);
  size_t raw_size;
  const char *raw = elf_rawfile (elf, &raw_size);
  assert_non_null (raw);
  int found = 0;
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      assert_non_null (gelf_getphdr (elf, (int) i, &ph));
      if (ph.p_type == PT_LOAD && fx->work_lo >= ph.p_vaddr
          && fx->work_lo + fx->work_size <= ph.p_vaddr + ph.p_filesz)
        {
          uint64_t at = ph.p_offset + (fx->work_lo - ph.p_vaddr);
          assert_true (at + fx->work_size <= raw_size);
          assert_memory_equal (bytes, raw + at, fx->work_size);
          assert_int_equal (len, ph.p_offset + ph.p_filesz - at);
          found = 1;
        }
    }
  assert_true (found);
  assert_int_equal (sfdo_symtab_code (st, 0x7fffffff0000ull, &bytes, &len),
                    -1);
  elf_end (elf);
  close (fd);

  struct sfdo_symtab_stats stats;
  sfdo_symtab_stats (st, &stats);
  assert_true (stats.compile_units >= 1);
  assert_true (stats.line_rows > 0);
  assert_true (stats.scopes >= 4);      /* work, 2 x twice, main */
  sfdo_symtab_free (st);
}

/* Opening PATH fails with CODE and a message holding WHAT.  */
static void
expect_rejected (const char *path, enum sfdo_errc code, const char *what)
{
  struct sfdo_symtab *st = (struct sfdo_symtab *) 1;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_symtab_open (path, &st, &err), code);
  assert_null (st);
  assert_string_equal (err.path, path);
  if (!strstr (err.msg, what))
    fail_msg ("%s: '%s' does not say '%s'", path, err.msg, what);
}

static void
test_symtab_rejects_what_is_not_usable (void **state)
{
  struct fixture *fx = *state;
  struct sfdo_symtab *st = (struct sfdo_symtab *) 1;
  struct sfdo_error err;

  /* Not ELF.  */
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_symtab_open (fx->src, &st, &err), SFDO_E_BAD_MAGIC);
  assert_null (st);
  assert_string_equal (err.path, fx->src);

  /* Missing.  */
  char path[160];
  snprintf (path, sizeof path, "%s/no-such-file", fx->dir);
  st = (struct sfdo_symtab *) 1;
  sfdo_error_clear (&err);
  assert_int_not_equal (sfdo_symtab_open (path, &st, &err), SFDO_OK);
  assert_null (st);

  /* ELF without DWARF.  */
  char cmd[400];
  snprintf (path, sizeof path, "%s/stripped", fx->dir);
  snprintf (cmd, sizeof cmd, "strip -o %s %s", path, fx->bin);
  assert_int_equal (system (cmd), 0);
  st = (struct sfdo_symtab *) 1;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_symtab_open (path, &st, &err), SFDO_E_MALFORMED);
  assert_null (st);
  assert_non_null (strstr (err.msg, "-g"));
  sfdo_symtab_free (NULL);

  /* A directory, an empty file, a copy cut short: each said as such, not
     as a missing -g or an invalid file descriptor.  */
  expect_rejected (fx->dir, SFDO_E_USAGE, "is a directory");
  snprintf (path, sizeof path, "%s/empty", fx->dir);
  fclose (fopen (path, "w"));
  expect_rejected (path, SFDO_E_BAD_MAGIC, "empty");
  snprintf (path, sizeof path, "%s/cut", fx->dir);
  snprintf (cmd, sizeof cmd, "head -c 3000 %s > %s", fx->bin, path);
  assert_int_equal (system (cmd), 0);
  expect_rejected (path, SFDO_E_TRUNCATED, "cut short");

  /* A line table libdw cannot read: its version word overwritten.  */
  char bigcmd[1024];
  snprintf (path, sizeof path, "%s/badline", fx->dir);
  snprintf (bigcmd, sizeof bigcmd,
            "cp %s %s && off=$(readelf -S -W %s | awk '$2 == \".debug_line\" "
            "{ print $5 }') && printf '\\377\\377\\377\\377\\143\\000' | "
            "dd of=%s bs=1 seek=$(printf %%d 0x$off) conv=notrunc 2>/dev/null",
            fx->bin, path, path, path);
  assert_int_equal (system (bigcmd), 0);
  expect_rejected (path, SFDO_E_MALFORMED, "line tables cannot be read");
}

int
main (void)
{
  const struct CMUnitTest procmap_tests[] = {
    cmocka_unit_test (test_procmap_resolve_edges),
    cmocka_unit_test (test_procmap_overlap_splits_the_old_mapping),
    cmocka_unit_test (test_procmap_overlap_across_several_mappings),
    cmocka_unit_test (test_procmap_fork_inherits_a_copy),
    cmocka_unit_test (test_procmap_exec_starts_afresh),
    cmocka_unit_test (test_procmap_goes_by_time_not_arrival),
  };
  const struct CMUnitTest blocks_tests[] = {
    cmocka_unit_test (test_blocks_decoder_is_x86_64_only),
    cmocka_unit_test (test_blocks_of_hand_written_code),
    cmocka_unit_test (test_blocks_padding),
    cmocka_unit_test (test_decode_indirect_targets_and_moves),
    cmocka_unit_test (test_decode_cleared_registers),
  };
  const struct CMUnitTest symtab_tests[] = {
    cmocka_unit_test (test_symtab_inline_stacks),
    cmocka_unit_test (test_symtab_discriminators),
    cmocka_unit_test (test_symtab_function_range_and_facts),
    cmocka_unit_test (test_symtab_rejects_what_is_not_usable),
  };
  int failed = cmocka_run_group_tests_name ("procmap", procmap_tests, NULL,
                                            NULL);
  failed += cmocka_run_group_tests_name ("blocks", blocks_tests, NULL, NULL);
  failed += cmocka_run_group_tests_name ("symtab", symtab_tests,
                                         symtab_setup, symtab_teardown);
  return failed ? 1 : 0;
}
