/* tests/unit/converter/test_binflow.c - unit tests of binflow.h: Chen et
 * al.'s over/under-sampling classification at its thresholds, and the
 * binary-level MCF prepass on hand-assembled x86-64 functions (a loop
 * behind a test, a jump table).  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../converter/binflow.h"

static void
test_classification_thresholds (void **state)
{
  (void) state;
  /* About one cycle per instruction: nothing to doubt.  */
  assert_int_equal (sfdo_classify_block (1000, 1200, 0), SFDO_SAMPLING_OK);
  /* Many more cycles than instructions and no stall to explain them: the
     instructions' samples went elsewhere (shadowed).  S - A = 990 > 20.  */
  assert_int_equal (sfdo_classify_block (10, 1000, 0), SFDO_SAMPLING_UNDER);
  /* The same cycles explained by stalls: high CPI, not shadowing.  */
  assert_int_equal (sfdo_classify_block (10, 1000, 975), SFDO_SAMPLING_OK);
  /* Stalls beyond the shadow and over half the block's cycles: samples
     aggregated here (Chen et al.'s DTLB-miss line).  */
  assert_int_equal (sfdo_classify_block (100, 1000, 950),
                    SFDO_SAMPLING_OVER);
  /* ... but not when the stalls are under half its cycles.  */
  assert_int_equal (sfdo_classify_block (900, 1000, 400), SFDO_SAMPLING_OK);
  /* At the under-sampling threshold exactly: S - A == 2 * INST.  */
  assert_int_equal (sfdo_classify_block (100, 400, 100), SFDO_SAMPLING_OK);
  assert_int_equal (sfdo_classify_block (100, 401, 100),
                    SFDO_SAMPLING_UNDER);
}

/* f (n): xor eax,eax; test edi,edi; je out; loop: add eax,1; sub edi,1;
   jne loop; nop; out: ret.  Blocks: B0 [1000,1006) B1 [1006,100e)
   B2 [100e,100f) B3 [100f,1010).  */
static const uint8_t loop_code[] = {
  0x31, 0xc0, 0x85, 0xff, 0x74, 0x09, 0x83, 0xc0, 0x01, 0x83, 0xef, 0x01,
  0x75, 0xf8, 0x90, 0xc3
};

static void
decode (const uint8_t *code, size_t len, uint64_t lo,
        struct sfdo_func_blocks *fb)
{
  struct sfdo_decoder *d;
  assert_int_equal (sfdo_decoder_new (62, &d, NULL), SFDO_OK);
  sfdo_decode_function (d, code, len, lo, lo + len, fb);
  sfdo_decoder_free (d);
}

static void
test_consistent_counts_are_kept (void **state)
{
  (void) state;
  struct sfdo_func_blocks fb;
  decode (loop_code, sizeof loop_code, 0x1000, &fb);
  assert_int_equal (fb.nblocks, 4);
  /* Ten calls of 100 iterations each.  */
  uint64_t counts[4] = { 10, 1000, 10, 10 };
  sfdo_binflow_smooth (&fb, 0, NULL, counts);
  assert_int_equal (counts[0], 10);
  assert_int_equal (counts[1], 1000);
  assert_int_equal (counts[2], 10);
  assert_int_equal (counts[3], 10);
  sfdo_func_blocks_release (&fb);
}

static void
test_missed_block_is_raised (void **state)
{
  (void) state;
  struct sfdo_func_blocks fb;
  decode (loop_code, sizeof loop_code, 0x1000, &fb);
  /* The one-instruction B2 caught no sample, yet the loop must leave
     through it: flow raises it rather than drop the loop.  */
  uint64_t counts[4] = { 10, 1000, 0, 10 };
  sfdo_binflow_smooth (&fb, 0, NULL, counts);
  assert_int_equal (counts[1], 1000);
  assert_int_equal (counts[2], 10);
  assert_int_equal (counts[0], counts[3]);
  sfdo_func_blocks_release (&fb);
}

static void
test_over_sampled_block_falls (void **state)
{
  (void) state;
  struct sfdo_func_blocks fb;
  decode (loop_code, sizeof loop_code, 0x1000, &fb);
  /* The ret's block caught three times its share (samples aggregated
     after a stall).  Unclassified, the flow moves the others toward it;
     classified over-sampled, it is the one that gives.  */
  uint64_t plain[4] = { 10, 1000, 10, 30 };
  sfdo_binflow_smooth (&fb, 0, NULL, plain);
  assert_true (plain[3] > 10);
  uint64_t biased[4] = { 10, 1000, 10, 30 };
  const uint8_t classes[4] = { 0, 0, 0, SFDO_SAMPLING_OVER };
  sfdo_binflow_smooth (&fb, 0, classes, biased);
  assert_int_equal (biased[0], 10);
  assert_int_equal (biased[2], 10);
  assert_int_equal (biased[3], 10);
  /* Flow in equals flow out either way.  */
  assert_int_equal (plain[0], plain[3]);
  sfdo_func_blocks_release (&fb);
}

static void
test_under_sampled_block_rises (void **state)
{
  (void) state;
  struct sfdo_func_blocks fb;
  decode (loop_code, sizeof loop_code, 0x1000, &fb);
  /* The entry block sits in a stall's shadow: 2 where 10 ran.  Classified
     under-sampled, it rises to what the exit says rather than pulling the
     exit down.  */
  uint64_t counts[4] = { 2, 1000, 10, 10 };
  const uint8_t classes[4] = { SFDO_SAMPLING_UNDER, 0, 0, 0 };
  sfdo_binflow_smooth (&fb, 0, classes, counts);
  assert_int_equal (counts[0], 10);
  assert_int_equal (counts[3], 10);
  sfdo_func_blocks_release (&fb);
}

static void
test_jump_table_cases_keep_their_counts (void **state)
{
  (void) state;
  /* jmp *%rax; case1: ret; case2: ret.  Nothing jumps to the cases
     directly: they hang off the indirect jump.  */
  static const uint8_t code[] = { 0xff, 0xe0, 0xc3, 0xc3 };
  struct sfdo_func_blocks fb;
  decode (code, sizeof code, 0x2000, &fb);
  assert_int_equal (fb.nblocks, 3);
  uint64_t counts[3] = { 10, 6, 4 };
  sfdo_binflow_smooth (&fb, 0, NULL, counts);
  assert_int_equal (counts[0], 10);
  assert_int_equal (counts[1], 6);
  assert_int_equal (counts[2], 4);
  sfdo_func_blocks_release (&fb);
}

static void
test_head_count_holds_the_entry (void **state)
{
  (void) state;
  struct sfdo_func_blocks fb;
  decode (loop_code, sizeof loop_code, 0x1000, &fb);
  /* Callchains said 10 calls; the entry block caught nothing and the
     exit too little.  */
  uint64_t counts[4] = { 0, 1000, 10, 3 };
  sfdo_binflow_smooth (&fb, 10, NULL, counts);
  assert_int_equal (counts[0], 10);
  assert_int_equal (counts[3], 10);
  sfdo_func_blocks_release (&fb);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_classification_thresholds),
    cmocka_unit_test (test_consistent_counts_are_kept),
    cmocka_unit_test (test_missed_block_is_raised),
    cmocka_unit_test (test_over_sampled_block_falls),
    cmocka_unit_test (test_under_sampled_block_rises),
    cmocka_unit_test (test_jump_table_cases_keep_their_counts),
    cmocka_unit_test (test_head_count_holds_the_entry),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
