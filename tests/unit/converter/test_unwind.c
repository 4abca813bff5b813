/* tests/unit/converter/test_unwind.c - the CFI unwinder
 * (converter/unwind.h) on stack snapshots this test takes of itself: three
 * nested calls capture their registers and stack bytes as a sampled
 * PERF_SAMPLE_REGS_USER | STACK_USER would, and the walk must give back
 * the return addresses each level recorded; then synthetic stacks for the
 * frame-pointer fallback and for every stop.  No perf needed.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../../converter/unwind.h"

/* --- where code is: /proc/self/maps ---------------------------------------- */

static char map_path[4096];

static int
locate_self (void *ctx, uint64_t ip, struct sfdo_unwind_code *code)
{
  (void) ctx;
  FILE *f = fopen ("/proc/self/maps", "r");
  char line[4096 + 128];
  int found = -1;
  while (f && found && fgets (line, sizeof line, f))
    {
      unsigned long long lo, hi, off;
      int pos = 0;
      if (sscanf (line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off,
                  &pos) < 3 || ip < lo || ip >= hi || line[pos] != '/')
        continue;
      line[strcspn (line, "\n")] = 0;
      snprintf (map_path, sizeof map_path, "%s", line + pos);
      *code = (struct sfdo_unwind_code) { map_path, ip - lo + off, NULL, 0 };
      found = 0;
    }
  if (f)
    fclose (f);
  return found;
}

static int
locate_nowhere (void *ctx, uint64_t ip, struct sfdo_unwind_code *code)
{
  (void) ctx, (void) ip, (void) code;
  return -1;
}

/* As locate_self, but the recording says the file had another build-id.  */
static int
locate_self_rebuilt (void *ctx, uint64_t ip, struct sfdo_unwind_code *code)
{
  static const uint8_t other[20] = { 0xde, 0xad };
  int rc = locate_self (ctx, ip, code);
  code->build_id = other;
  code->build_id_size = sizeof other;
  return rc;
}

/* --- a snapshot of three nested calls -------------------------------------- */

#define STACK_BYTES 4096

static struct snapshot {
  uint64_t pc, sp, bp, bx, r12, r13, r14, r15;
  uint8_t stack[STACK_BYTES];
  void *ret[3];                 /* each level's return address */
} snap;

/* The registers at a PC of the innermost function, and the stack above
   the stack pointer: what a sample holds.  */
__attribute__ ((noinline)) static void
level3 (void)
{
  snap.ret[2] = __builtin_return_address (0);
  __asm__ volatile ("lea 0(%%rip), %%rax\n\t"
                    "mov %%rax, 0(%0)\n\t"
                    "mov %%rsp, 8(%0)\n\t"
                    "mov %%rbp, 16(%0)\n\t"
                    "mov %%rbx, 24(%0)\n\t"
                    "mov %%r12, 32(%0)\n\t"
                    "mov %%r13, 40(%0)\n\t"
                    "mov %%r14, 48(%0)\n\t"
                    "mov %%r15, 56(%0)"
                    : : "r" (&snap) : "rax", "memory");
  memcpy (snap.stack, (const void *) (uintptr_t) snap.sp, STACK_BYTES);
}

__attribute__ ((noinline)) static void
level2 (void)
{
  snap.ret[1] = __builtin_return_address (0);
  level3 ();
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
}

__attribute__ ((noinline)) static void
level1 (void)
{
  snap.ret[0] = __builtin_return_address (0);
  level2 ();
  __asm__ volatile ("" ::: "memory");
}

static struct sfdo_unwind_regs
snap_regs (void)
{
  struct sfdo_unwind_regs r = { { 0 }, 0 };
  const int n[] = { SFDO_UNWIND_PC, SFDO_UNWIND_SP, 6, 3, 12, 13, 14, 15 };
  const uint64_t v[] = { snap.pc, snap.sp, snap.bp, snap.bx, snap.r12,
                         snap.r13, snap.r14, snap.r15 };
  for (size_t i = 0; i < 8; i++)
    r.r[n[i]] = v[i], r.known |= 1u << n[i];
  return r;
}

static void
test_walks_own_stack (void **state)
{
  (void) state;
  level1 ();
  struct sfdo_unwinder *u = sfdo_unwinder_new (locate_self, NULL);
  struct sfdo_unwind_regs r = snap_regs ();
  struct sfdo_unwind_stack s = { snap.sp, snap.stack, STACK_BYTES };
  uint64_t chain[16];
  enum sfdo_unwind_stop why;
  size_t n = sfdo_unwind (u, &r, &s, chain, 16, &why);
  assert_true (n >= 4);
  assert_int_equal (chain[0], snap.pc);
  assert_int_equal (chain[1], (uintptr_t) snap.ret[2]);   /* in level2 */
  assert_int_equal (chain[2], (uintptr_t) snap.ret[1]);   /* in level1 */
  assert_int_equal (chain[3], (uintptr_t) snap.ret[0]);   /* in the test */
  /* Three frames are enough, and say so.  */
  n = sfdo_unwind (u, &r, &s, chain, 3, &why);
  assert_int_equal (n, 3);
  assert_int_equal (why, SFDO_UNWIND_LIMIT);
  sfdo_unwinder_free (u);
}

static void
test_short_copy_stops_with_reason (void **state)
{
  (void) state;
  level1 ();
  struct sfdo_unwinder *u = sfdo_unwinder_new (locate_self, NULL);
  struct sfdo_unwind_regs r = snap_regs ();
  /* Not even the innermost return address fits in 4 bytes.  */
  struct sfdo_unwind_stack s = { snap.sp, snap.stack, 4 };
  uint64_t chain[16];
  enum sfdo_unwind_stop why;
  size_t n = sfdo_unwind (u, &r, &s, chain, 16, &why);
  assert_int_equal (n, 1);
  assert_int_equal (why, SFDO_UNWIND_STACK_SHORT);
  assert_string_equal (sfdo_unwind_stop_name (why), "stack copy too small");
  sfdo_unwinder_free (u);
}

static void
test_rebuilt_file_is_not_used (void **state)
{
  (void) state;
  level1 ();
  struct sfdo_unwinder *u = sfdo_unwinder_new (locate_self_rebuilt, NULL);
  struct sfdo_unwind_regs r = snap_regs ();
  struct sfdo_unwind_stack s = { snap.sp, snap.stack, STACK_BYTES };
  uint64_t chain[16];
  enum sfdo_unwind_stop why;
  assert_int_equal (sfdo_unwind (u, &r, &s, chain, 16, &why), 1);
  assert_int_equal (why, SFDO_UNWIND_OTHER_FILE);
  sfdo_unwinder_free (u);
}

static void
test_unmapped_pc (void **state)
{
  (void) state;
  struct sfdo_unwinder *u = sfdo_unwinder_new (locate_nowhere, NULL);
  struct sfdo_unwind_regs r = { { 0 }, 0 };
  r.r[SFDO_UNWIND_PC] = 0x1234, r.r[SFDO_UNWIND_SP] = 0x1000;
  r.known = 1u << SFDO_UNWIND_PC | 1u << SFDO_UNWIND_SP;
  uint8_t bytes[64] = { 0 };
  struct sfdo_unwind_stack s = { 0x1000, bytes, sizeof bytes };
  uint64_t chain[4];
  enum sfdo_unwind_stop why;
  assert_int_equal (sfdo_unwind (u, &r, &s, chain, 4, &why), 1);
  assert_int_equal (why, SFDO_UNWIND_NOT_MAPPED);
  sfdo_unwinder_free (u);
}

/* --- the frame pointer, where no CFI covers the PC -------------------------- */

/* A PC in this executable's ELF header: mapped, but no FDE covers it.  */
static uint64_t
pc_without_cfi (void)
{
  struct sfdo_unwind_code code;
  uint64_t pc = (uintptr_t) level1;
  assert_int_equal (locate_self (NULL, pc, &code), 0);
  return pc - code.offset + 64;  /* offset 64: past the ELF header */
}

static void
test_frame_pointer_fallback (void **state)
{
  (void) state;
  struct sfdo_unwinder *u = sfdo_unwinder_new (locate_self, NULL);
  uint64_t stack[8] = { 0 };
  uint64_t base = 0x7ff000;
  /* rbp -> [saved rbp][return address]: one frame by the frame pointer;
     the next return address is in no mapping, so the frame pointer there
     is not believed.  */
  uint64_t pc = pc_without_cfi ();
  stack[2] = base + 32, stack[3] = pc;      /* frame 1 */
  stack[4] = 0, stack[5] = 0x10;            /* frame 2: not code */
  struct sfdo_unwind_regs r = { { 0 }, 0 };
  r.r[SFDO_UNWIND_PC] = pc, r.r[SFDO_UNWIND_SP] = base, r.r[6] = base + 16;
  r.known = 1u << SFDO_UNWIND_PC | 1u << SFDO_UNWIND_SP | 1u << 6;
  struct sfdo_unwind_stack s = { base, (const uint8_t *) stack, sizeof stack };
  uint64_t chain[8];
  enum sfdo_unwind_stop why;
  size_t n = sfdo_unwind (u, &r, &s, chain, 8, &why);
  assert_int_equal (n, 2);
  assert_int_equal (chain[1], pc);
  assert_int_equal (why, SFDO_UNWIND_NO_CFI);
  /* A frame pointer below the stack pointer is not one: no guess.  */
  r.r[6] = base - 64;
  n = sfdo_unwind (u, &r, &s, chain, 8, &why);
  assert_int_equal (n, 1);
  assert_int_equal (why, SFDO_UNWIND_NO_CFI);
  sfdo_unwinder_free (u);
}

/* --- perf's registers ------------------------------------------------------- */

static void
test_regs_from_perf (void **state)
{
  (void) state;
  /* AX..IP (bits 0-8) and R8-R15 (16-23), as sfdo-record samples them.  */
  uint64_t mask = 0xff01ffull, v[17];
  for (int i = 0; i < 17; i++)
    v[i] = 100 + (uint64_t) i;
  struct sfdo_perfdata_regs pr = { 2, 17, v };
  struct sfdo_unwind_regs r;
  assert_int_equal (sfdo_unwind_regs_from_perf (&pr, mask, &r), 0);
  assert_int_equal (r.r[SFDO_UNWIND_PC], 108);  /* IP: the 9th */
  assert_int_equal (r.r[SFDO_UNWIND_SP], 107);
  assert_int_equal (r.r[3], 101);               /* RBX: perf's BX */
  assert_int_equal (r.r[1], 103);               /* RDX: perf's DX */
  assert_int_equal (r.r[8], 109);               /* R8 follows IP */
  assert_int_equal (r.r[15], 116);
  /* Nor a 32-bit process's registers (ABI 1).  */
  pr.abi = 1;
  assert_int_equal (sfdo_unwind_regs_from_perf (&pr, mask, &r), -1);
  pr.abi = 2;
  /* Without the stack pointer a sample cannot be unwound.  */
  assert_int_equal (sfdo_unwind_regs_from_perf (&pr, 0x1ull << 8, &r), -1);
  pr.abi = 0;
  assert_int_equal (sfdo_unwind_regs_from_perf (&pr, mask, &r), -1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_walks_own_stack),
    cmocka_unit_test (test_short_copy_stops_with_reason),
    cmocka_unit_test (test_unmapped_pc),
    cmocka_unit_test (test_rebuilt_file_is_not_used),
    cmocka_unit_test (test_frame_pointer_fallback),
    cmocka_unit_test (test_regs_from_perf),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
